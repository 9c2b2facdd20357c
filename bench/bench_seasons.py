"""Server time of a season's table ranked by each player's best N matches or nights, at 3,000 hands.

The club of bench/bench_clubs.py (200 matches of 15 hands, eight players, a season per quarter,
on the club's ratings too: the club page and the player page show them), with one of its seasons
ranked by the total, by the best 10 matches and by the best 8 nights in turn: each season's table,
its CSV and ``players.json?season=`` through Flask's test client after warm-ups, and the club's
pages beside them. Run: ``.venv/bin/python bench/bench_seasons.py`` (``--write`` records the figures
in bench/RESULTS.md under "## Season rankings").
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_clubs import TARGET_MS, build, measure, p95  # noqa: E402
from bench.results import replace_section  # noqa: E402
from scorer.engine.seasons import ALL, SeasonRule  # noqa: E402
from scorer.storage import clubs  # noqa: E402
from scorer.web import get_db  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
HEADING = "## Season rankings"
COMMAND = ".venv/bin/python bench/bench_seasons.py --write"
RULES = {"by the total": ALL, "best 10 matches": SeasonRule("matches", 10), "best 8 nights": SeasonRule("nights", 8)}


def run(requests: int) -> list[tuple[str, float, float]]:
    """(page, median ms, p95 ms) for each page timed."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        app, pages, _cold = build(folder)
        client = app.test_client()  # type: ignore[attr-defined]
        for name in ("club page", "player page"):
            times = measure(client, pages[name], requests)
            rows.append((f"{name} (with the ratings)", statistics.median(times), p95(times)))
        table = pages["club table (a season)"]
        view, season = table.split("/c/")[1].split("/")[0], int(table.split("season=")[1])
        for label, rule in RULES.items():
            with app.app_context():  # type: ignore[attr-defined]
                db = get_db()
                club, _ = clubs.find_club(db, view)
                clubs.set_season_rule(db, club.id, season, rule)
            for kind, url in (("season table", table), ("table.csv", f"/c/{view}/table.csv?season={season}"),
                              ("players.json", f"/c/{view}/players.json?season={season}")):
                times = measure(client, url, requests)
                rows.append((f"{kind}, {label}", statistics.median(times), p95(times)))
    return rows


def section(rows: list[tuple[str, float, float]], requests: int) -> str:
    worst = max(m for _, m, _ in rows)
    load = os.getloadavg()[0]
    return "\n".join([
        HEADING, "",
        f"`{COMMAND}` ({datetime.date.today().isoformat()}): bench/bench_clubs.py's club of 200 matches and "
        f"3,000 hands, {requests} requests per page after two warm-ups, Flask's test client in process; "
        f"Python {platform.python_version()}; load average {load:.1f} on the shared 2-core machine (medians).", "",
        "| page | median | p95 |", "|---|---|---|",
        *[f"| {name} | {median:.1f} ms | {high:.1f} ms |" for name, median, high in rows], "",
        f"Target: every page's median well under {TARGET_MS:.0f} ms: "
        f"{'met' if worst < TARGET_MS else '**not met**'} (the slowest {worst:.1f} ms).", ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    args = parser.parse_args()
    text = section(run(args.requests), args.requests)
    print(text)
    if args.write:
        replace_section(RESULTS, HEADING, text)


if __name__ == "__main__":
    main()
