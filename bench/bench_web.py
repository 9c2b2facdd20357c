"""Server time of the pages a table loads most, for a plausible 20-hand match.

The match is built from the classic fixtures (full records, captured piles,
honours, counted points, some with rule breaches), the deal passing round the
table; one hand has a few edits so its history has something to show. Each page
is requested through Flask's test client, in process, on a database in a
temporary folder: the time is the server's (routing, database, core, templates),
not the network's. Run: ``.venv/bin/python bench/bench_web.py`` (``--write``
records the figures in bench/RESULTS.md under "## Web"; ``--profile PAGE`` prints
the cProfile of that page).
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import platform
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results import replace_section  # noqa: E402
from scorer import create_app  # noqa: E402
from scorer.storage import store  # noqa: E402
from scorer.web.db import get_db  # noqa: E402
from tests.seed import hand_keys, seed_match  # noqa: E402

TARGET_MS = 10.0
"""The match page's median must stay under this."""
RESULTS = ROOT / "bench" / "RESULTS.md"
COMMAND = ".venv/bin/python bench/bench_web.py --write"


def build(folder: str) -> tuple[object, dict[str, str]]:
    """The app, a 20-hand match, and the addresses to time."""
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/bench.sqlite", "SECRET_KEY": "bench",
                      "SERVER_NAME": "scarto.test"})
    edit, _view = seed_match(app, 20)
    keys = hand_keys(app, edit)
    with app.app_context():
        db = get_db()
        row, _ = store.find_match(db, edit)
        hand = store.get_hand(db, row.id, keys[0])  # a full record
        for _ in range(3):
            store.update_hand(db, row.id, keys[0], {**hand.record, "notes": "counted again"})
            store.update_hand(db, row.id, keys[0], hand.record)
    pages = {
        "match page": f"/m/{edit}/",
        "standings.json": f"/m/{edit}/standings.json",
        "export.json": f"/m/{edit}/export.json",
        "hand page (full record)": f"/m/{edit}/hands/{keys[0]}/",
        "history (7 versions)": f"/m/{edit}/hands/{keys[0]}/history",
    }
    return app, pages


def measure(client: object, url: str, requests: int) -> list[float]:
    """Milliseconds per request, after two warm-up requests."""
    for _ in range(2):
        response = client.get(url)  # type: ignore[attr-defined]
        assert response.status_code == 200, f"{url}: {response.status_code}"
    times = []
    for _ in range(requests):
        start = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        response.get_data()
        times.append((time.perf_counter() - start) * 1000)
    return times


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def section(rows: list[tuple[str, float, float]], requests: int) -> str:
    """The "## Web" section of RESULTS.md."""
    today = datetime.date.today().isoformat()
    match_median = next(m for name, m, _ in rows if name == "match page")
    verdict = "met" if match_median < TARGET_MS else "**not met**"
    lines = [
        "## Web",
        "",
        f"`{COMMAND}` ({today}): server time per request through Flask's test client, in process,",
        f"{requests} requests per page after two warm-ups, a 20-hand classic match (every record form,",
        f"some rule breaches) on SQLite in WAL mode; Python {platform.python_version()}.",
        "",
        "| page | median | p95 |",
        "|---|---|---|",
        *[f"| {name} | {median:.1f} ms | {high:.1f} ms |" for name, median, high in rows],
        "",
        f"Target: the match page's median under {TARGET_MS:.0f} ms: {verdict}. Where its time goes",
        "(`--profile 'match page'`, 2026-11-30): about half rendering the templates (the standings table",
        "and chart), a quarter judging the 20 hands (`score_hand`), the rest reading the match back",
        "(`parse_match`) and SQLite. No cache is needed at this size.",
        "",
    ]
    return "\n".join(lines)


def write(text: str) -> None:
    """Replace the "## Web" section of RESULTS.md (or add it), leaving the other sections alone."""
    replace_section(RESULTS, "## Web", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    parser.add_argument("--profile", metavar="PAGE", help="profile one page (e.g. 'match page')")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app, pages = build(folder)
        client = app.test_client()  # type: ignore[attr-defined]
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(measure, client, pages[args.profile], args.requests)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
            return
        rows = []
        for name, url in pages.items():
            times = measure(client, url, args.requests)
            rows.append((name, statistics.median(times), p95(times)))
            print(f"{name:26} median {rows[-1][1]:6.1f} ms   p95 {rows[-1][2]:6.1f} ms")
    text = section(rows, args.requests)
    if args.write:
        write(text)
        print(f"Written to {RESULTS.relative_to(ROOT)}.")


if __name__ == "__main__":
    main()
