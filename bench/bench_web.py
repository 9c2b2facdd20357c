"""Server time of the pages a table loads most, for a plausible 20-hand match.

The match is built from the classic fixtures (full records, captured piles,
honours, counted points, some with rule breaches), the deal passing round the
table; one hand has a few edits so its history has something to show. Each page
is requested through Flask's test client, in process, on a database in a
temporary folder: the time is the server's (routing, database, core, templates),
not the network's. Run: ``.venv/bin/python bench/bench_web.py`` (``--write``
records the figures in bench/RESULTS.md under "## Web"; ``--profile PAGE`` prints
the cProfile of that page).

``--against PATH`` times the match page of this checkout beside another checkout of the code at
PATH (``git worktree add /tmp/before <commit>``): served from the page cache, and rendered at every
look (what the first look after a change costs), in alternating subprocesses, so the machine's
load falls on both alike; ``--write`` records them under "## Match page, before and after".
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import os
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


VERSUS_HEADING = "## Match page, before and after"
VERSUS = r"""
import json, statistics, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from scorer import create_app
from tests.seed import seed_match
out = {}
with tempfile.TemporaryDirectory() as folder:
    for name, bound in (("cached", 64 << 20), ("rendered", 0)):
        app = create_app({"TESTING": True, "DATABASE": f"{folder}/{name}.sqlite", "SECRET_KEY": "bench",
                          "SERVER_NAME": "scarto.test", "PAGE_CACHE_BYTES": bound, "KEPT_PAGE_BYTES": bound})
        edit, _view = seed_match(app, 20)
        client = app.test_client()
        for _ in range(3):
            client.get(f"/m/{edit}/")
        times = []
        for _ in range(int(sys.argv[2])):
            began = time.perf_counter()
            client.get(f"/m/{edit}/").get_data()
            times.append((time.perf_counter() - began) * 1000)
        out[name] = times
print(json.dumps(out))
"""
"""One round of one checkout: the match page of a 20-hand match, cached and rendered (either name of
the cache's bound, so that a checkout from before the page cache was named is timed the same)."""


def versus(other: Path, rounds: int, requests: int) -> dict[str, dict[str, list[float]]]:
    """Milliseconds per request of the match page, this checkout and ``other``, rounds taking turns."""
    import json
    import subprocess

    times: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for _ in range(rounds):
        for label, root in (("before", other), ("after", ROOT)):
            done = subprocess.run([sys.executable, "-c", VERSUS, str(root), str(requests)], cwd=root,
                                  capture_output=True, text=True, check=True)
            for name, values in json.loads(done.stdout.splitlines()[-1]).items():
                times[label].setdefault(name, []).extend(values)
    return times


def versus_section(times: dict[str, dict[str, list[float]]], other: str, rounds: int, requests: int,
                   load: tuple[float, float]) -> str:
    today = datetime.date.today().isoformat()
    rows = []
    for name in ("cached", "rendered"):
        before, after = (statistics.median(times[label][name]) for label in ("before", "after"))
        rows.append(f"| {name} | {before:.2f} ms | {after:.2f} ms | {after / before:.2f} |")
    return "\n".join([
        VERSUS_HEADING,
        "",
        f"`.venv/bin/python bench/bench_web.py --against {other} --write` ({today}): the match page of a",
        "20-hand match through Flask's test client, in process, served from the page cache and rendered at",
        "every look (`PAGE_CACHE_BYTES=0`: the first look after a change), before (the checkout named) and",
        f"after (this one); {rounds} rounds of {requests} requests each, the two checkouts taking turns in",
        f"subprocesses; medians. Python {platform.python_version()}; load average {load[0]:.1f} at the start",
        f"and {load[1]:.1f} at the end on {os.cpu_count()} cores (a shared machine).",
        "",
        "| match page | before | after | after / before |",
        "|---|---|---|---|",
        *rows,
        "",
    ])


def write(text: str) -> None:
    """Replace the "## Web" section of RESULTS.md (or add it), leaving the other sections alone."""
    replace_section(RESULTS, "## Web", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    parser.add_argument("--profile", metavar="PAGE", help="profile one page (e.g. 'match page')")
    parser.add_argument("--against", metavar="PATH", type=Path, help="another checkout to time the match page beside")
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    if args.against:
        load = os.getloadavg()[0]
        times = versus(args.against.resolve(), args.rounds, args.requests)
        text = versus_section(times, str(args.against), args.rounds, args.requests, (load, os.getloadavg()[0]))
        print(text)
        if args.write:
            replace_section(RESULTS, VERSUS_HEADING, text)
        return
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
