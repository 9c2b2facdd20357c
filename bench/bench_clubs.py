"""Server time of a club's pages at a long history: 200 matches, 3,000 hands.

Eight players, three at a table, fifteen hands a match (the classic fixtures: full
records, captured piles, honours, counted points, rule breaches), the matches spread
over two years with a season per quarter. The club is stored once; its pages are then
requested through Flask's test client, in process, after warm-ups: what is timed is
the server's work on a warm database (the per-match summaries already made), which is
what every request after a hand is saved costs, since a save changes one match and only
that match's summary is made again. The cold figure (every summary made from the
hands, as after an engine upgrade) is printed too.
Run: ``.venv/bin/python bench/bench_clubs.py`` (``--write`` records the figures in
bench/RESULTS.md under "## Clubs").
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results import replace_section  # noqa: E402
from scorer import create_app  # noqa: E402
from scorer.engine.limits import MAX_CLUB_MATCHES  # noqa: E402
from scorer.engine.records import parse_match  # noqa: E402
from scorer.storage import clubs, store  # noqa: E402
from scorer.web import get_db  # noqa: E402
from tests.seed import PLAYERS, _rename, match_file  # noqa: E402

TARGET_MS = 50.0
"""Each page's median must stay well under this."""
MATCHES, HANDS = 200, 15
NAMES = ["Anna", "Bruno", "Carla", "Dora", "Ezio", "Franca", "Gino", "Ilaria"]
RESULTS = ROOT / "bench" / "RESULTS.md"
COMMAND = ".venv/bin/python bench/bench_clubs.py --write"


def build(folder: str) -> tuple[object, dict[str, str], float]:
    """The app, the club, the pages to time, and the seconds the cold summaries took."""
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/bench.sqlite", "SECRET_KEY": "bench",
                      "SERVER_NAME": "scarto.test"})
    rng = random.Random(14)
    start = datetime.date(2025, 1, 1)
    with app.app_context():
        db = get_db()
        club = clubs.create_club(db, "Circolo Arci", [(n, None) for n in NAMES],
                                 {"stake": {"per_point": "0.05", "currency": "EUR"}})
        ids = {p.name: p.id for p in clubs.roster(db, club.id)}
        for number in range(MATCHES):
            table = rng.sample(NAMES, 3)
            data = _rename(match_file(HANDS), dict(zip(PLAYERS, table, strict=True)))
            data["date"] = (start + datetime.timedelta(days=number * 730 // MATCHES)).isoformat()
            row = store.create_match(db, parse_match(data))
            clubs.attach_match(db, club.id, row.id, [ids[n] for n in table])
        for year in (2025, 2026):
            for q, (first, last) in enumerate((("01-01", "03-31"), ("04-01", "06-30"), ("07-01", "09-30"),
                                               ("10-01", "12-31")), start=1):
                clubs.add_season(db, club.id, f"{year} Q{q}", f"{year}-{first}", f"{year}-{last}")
        hands = db.execute("SELECT COUNT(*) FROM hands").fetchone()[0]
        assert hands == MATCHES * HANDS, hands
        began = time.perf_counter()
        clubs.summaries(db, club.id)  # cold: every summary made from the hands
        cold = time.perf_counter() - began
        season = clubs.seasons(db, club.id)[5].id
    view = club.view_token
    pages = {
        "club page": f"/c/{view}/",
        "club table (all time)": f"/c/{view}/table",
        "club table (a season)": f"/c/{view}/table?season={season}",
        "table by per hand": f"/c/{view}/table?sort=per_hand",
        "player page": f"/c/{view}/p/{ids['Anna']}",
        "player page (a season)": f"/c/{view}/p/{ids['Anna']}?season={season}",
        "players.json": f"/c/{view}/players.json",
        "players.json (a range)": f"/c/{view}/players.json?from=2025-04-01&to=2025-09-30",
    }
    return app, pages, cold


def measure(client: object, url: str, requests: int) -> list[float]:
    """Milliseconds per request, after two warm-up requests."""
    for _ in range(2):
        response = client.get(url)  # type: ignore[attr-defined]
        assert response.status_code == 200, f"{url}: {response.status_code}"
    times = []
    for _ in range(requests):
        began = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        response.get_data()
        times.append((time.perf_counter() - began) * 1000)
    return times


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


LIMIT_HEADING = "## A club at its limit"
LIMIT_COMMAND = ".venv/bin/python bench/bench_clubs.py --limit --write"


def section(rows: list[tuple[str, float, float]], requests: int, cold: float) -> str:
    today = datetime.date.today().isoformat()
    worst = max(m for _, m, _ in rows)
    verdict = "met" if worst < TARGET_MS else "**not met**"
    return "\n".join([
        "## Clubs",
        "",
        f"`{COMMAND}` ({today}): server time per request through Flask's test client, in process,",
        f"{requests} requests per page after two warm-ups, a club of {MATCHES} matches and "
        f"{MATCHES * HANDS:,} hands",
        "(eight players, three a table, the classic fixtures, eight seasons) on SQLite in WAL mode;",
        f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
        "(a shared machine: medians, not means).",
        "",
        "| page | median | p95 |",
        "|---|---|---|",
        *[f"| {name} | {median:.1f} ms | {high:.1f} ms |" for name, median, high in rows],
        "",
        f"Target: every page's median well under {TARGET_MS:.0f} ms: {verdict} (the slowest {worst:.1f} ms).",
        "The pages read one stored summary per match (scorer/storage/clubs.py) and add them up; no hand is",
        f"judged. Making all {MATCHES} summaries from the hands (cold, as after an engine upgrade) took "
        f"{cold:.1f} s once;",
        "after a hand is saved only its match's summary is made again.",
        "",
    ])


def limit_section(rows: list[tuple[str, float, float]], requests: int, cold: float) -> str:
    """The same pages for a club as large as a club may grow (MAX_CLUB_MATCHES): bounded, not quick."""
    today = datetime.date.today().isoformat()
    return "\n".join([
        LIMIT_HEADING,
        "",
        f"`{LIMIT_COMMAND}` ({today}): as \"Clubs\" above, for a club of {MATCHES:,} matches (the most a club",
        f"holds, `MAX_CLUB_MATCHES`) of {HANDS} hands each, {requests} requests a page; Python"
        f" {platform.python_version()}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.",
        "",
        "| page | median | p95 |",
        "|---|---|---|",
        *[f"| {name} | {median:.1f} ms | {high:.1f} ms |" for name, median, high in rows],
        "",
        "Each page adds up one stored summary per match, so its time grows with the club's matches, and",
        "the limit on them bounds it. A summary's freshness is read from its match's row (its count of",
        "changes): until 2026-12-06 it counted every hand of every match, and each page read all the club's",
        "hands (with 2 hands a match the club page then took 172 ms and the player page 242 ms). Places",
        "within a match are ranked on its integer sums, not on fractions. Making every summary from the",
        f"hands (cold, once after an engine upgrade): {cold:.1f} s.",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    parser.add_argument("--limit", action="store_true",
                        help="a club of 10,000 matches of 2 hands each (the most a club holds), 5 requests a page")
    args = parser.parse_args()
    global MATCHES, HANDS
    if args.limit:
        MATCHES, HANDS = MAX_CLUB_MATCHES, 2
        args.requests = min(args.requests, 5)
    with tempfile.TemporaryDirectory() as folder:
        app, pages, cold = build(folder)
        print(f"cold summaries: {cold:.2f} s")
        client = app.test_client()  # type: ignore[attr-defined]
        rows = []
        for name, url in pages.items():
            times = measure(client, url, args.requests)
            rows.append((name, statistics.median(times), p95(times)))
            print(f"{name:26} median {rows[-1][1]:6.1f} ms   p95 {rows[-1][2]:6.1f} ms")
    text = (limit_section if args.limit else section)(rows, args.requests, cold)
    if args.write:
        replace_section(RESULTS, LIMIT_HEADING if args.limit else "## Clubs", text)
        print(f"Written to {RESULTS.relative_to(ROOT)}.")


if __name__ == "__main__":
    main()
