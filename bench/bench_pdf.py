"""How long the match sheet of a 12-hand match takes, next to WeasyPrint's floor.

The floor is a one-line page rendered by WeasyPrint in the same process (after a
warm-up, so neither figure pays for imports or font loading). Target: the match
sheet at most 3 times the floor. Run: ``.venv/bin/python bench/bench_pdf.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorer.pdf import html_to_pdf, match_sheet_pdf  # noqa: E402
from scorer.records import parse_match  # noqa: E402
from scorer.web import create_app  # noqa: E402
from tests.matchutil import points_match  # noqa: E402

ROUNDS = 7


def _median(run) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    app = create_app({"DATABASE": ":memory:", "SKIP_MIGRATIONS": True, "SECRET_KEY": "bench",
                      "SERVER_NAME": "localhost"})
    match = parse_match(points_match(12))
    static = str(ROOT / "static") + "/"
    one_line = ('<!doctype html><html><head><link rel="stylesheet" href="pdf.css"></head>'
                "<body><p>Scarto</p></body></html>")
    html_to_pdf(one_line, static)  # warm-up: imports, fonts
    match_sheet_pdf(match, app)
    floor = _median(lambda: html_to_pdf(one_line, static))
    sheet = _median(lambda: match_sheet_pdf(match, app))
    print(f"one-line page (floor): {floor * 1000:.0f} ms")
    print(f"12-hand match sheet:   {sheet * 1000:.0f} ms")
    print(f"ratio: {sheet / floor:.2f} (target at most 3)")


if __name__ == "__main__":
    main()
