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

``--cached`` measures the club and player pages side by side, interleaved in one run: served from
the page cache, rendered at every look (``PAGE_CACHE_BYTES=0``: what the pages cost before they
were cached, and what the first look after a change costs), and a bare route (``/_bare``, answering
"ok" through the same app and its hooks, in process: bench/bare_server.py's route without the
server) as the reference; ``--write`` records them under "## Club pages cached".
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
from typing import Any

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


def build(folder: str, **config: object) -> tuple[object, dict[str, str], float]:
    """The app, the club, the pages to time, and the seconds the cold summaries took."""
    app = bench_app(folder, **config)
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


def bench_app(folder: str, **config: object) -> Any:
    """The app on the bench's database, with a bare route beside its pages (the reference)."""
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/bench.sqlite", "SECRET_KEY": "bench",
                      "SERVER_NAME": "scarto.test", **config})

    @app.get("/_bare")
    def bare() -> str:
        return "ok"

    return app


CACHED_PAGES = ("club page", "player page", "player page (a season)")
CACHED_HEADING = "## Club pages cached"
CACHED_COMMAND = ".venv/bin/python bench/bench_clubs.py --cached --write"


def side_by_side(folder: str, pages: dict[str, str], rounds: int, requests: int) -> dict[str, list[float]]:
    """Milliseconds per request of the bare route and each page, cached and rendered at every look:
    ``rounds`` rounds of ``requests`` requests, the variants taking turns (the machine's load falls on
    all of them alike)."""
    cached = bench_app(folder).test_client()
    rendered = bench_app(folder, PAGE_CACHE_BYTES=0).test_client()
    variants = {"bare route": (cached, "/_bare")}
    for name in CACHED_PAGES:
        variants[f"{name}, cached"] = (cached, pages[name])
        variants[f"{name}, rendered"] = (rendered, pages[name])
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, (client, url) in variants.items():
            times[name] += measure(client, url, requests)
    return times


def cached_section(times: dict[str, list[float]], rounds: int, requests: int, load: tuple[float, float]) -> str:
    today = datetime.date.today().isoformat()
    bare = statistics.median(times["bare route"])
    rows = []
    for name, values in times.items():
        median = statistics.median(values)
        rows.append(f"| {name} | {median:.2f} ms | {p95(values):.2f} ms | {1000 / median:,.0f} | {bare / median:.0%} |")
    return "\n".join([
        CACHED_HEADING,
        "",
        f"`{CACHED_COMMAND}` ({today}): the club of \"Clubs\" ({MATCHES} matches, {MATCHES * HANDS:,} hands), each",
        "page served from the page cache and rendered at every look (`PAGE_CACHE_BYTES=0`, as before the",
        "pages were cached; what the first look after a change still costs), beside a bare route (`/_bare`",
        "answering \"ok\" through the same app and its hooks). Flask's test client, in process: no server,",
        "so the bare route is the app's own floor, stricter than bench/bare_server.py's through waitress",
        f"(which adds the same server cost to every route). {rounds} interleaved rounds of {requests} requests",
        f"per variant; Python {platform.python_version()}; load average {load[0]:.1f} at the start and "
        f"{load[1]:.1f} at the end on {os.cpu_count()} cores (a shared machine: medians).",
        "",
        "| variant | median | p95 | requests/s | of the bare route's |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "A page is cached until anything of its club changes (storage.clubs.club_state; README \"The",
        "caches\"): the ratings table, the player's rating and its chart are in the cached page, so they",
        "cost what the page costs. Rendered is what every look cost before the pages were cached. Target:",
        f"cached, at least 50 % of the bare route's requests/s; rendered, under {TARGET_MS:.0f} ms.",
        "",
    ])


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
        "(eight players, three a table, the classic fixtures, eight seasons) on SQLite in WAL mode, every",
        "page rendered at each look (`PAGE_CACHE_BYTES=0`: served from the page cache, see \"Club pages",
        "cached\");",
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
    parser.add_argument("--cached", action="store_true",
                        help="the club and player pages cached and rendered, beside a bare route, interleaved")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--limit", action="store_true",
                        help="a club of 10,000 matches of 2 hands each (the most a club holds), 5 requests a page")
    args = parser.parse_args()
    global MATCHES, HANDS
    if args.limit:
        MATCHES, HANDS = MAX_CLUB_MATCHES, 2
        args.requests = min(args.requests, 5)
    if args.cached:
        cached_main(args)
        return
    with tempfile.TemporaryDirectory() as folder:
        app, pages, cold = build(folder, PAGE_CACHE_BYTES=0)  # what each page costs to make
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


def cached_main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        _app, pages, _cold = build(folder)
        load = os.getloadavg()[0]
        times = side_by_side(folder, pages, args.rounds, args.requests)
    bare = statistics.median(times["bare route"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:34} median {median:6.2f} ms   p95 {p95(values):6.2f} ms   {bare / median:5.0%} of bare")
    text = cached_section(times, args.rounds, args.requests, (load, os.getloadavg()[0]))
    if args.write:
        replace_section(RESULTS, CACHED_HEADING, text)
        print(f"Written to {RESULTS.relative_to(ROOT)}.")


if __name__ == "__main__":
    main()
