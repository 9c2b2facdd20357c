"""The sheets as images (pdftoppm): A4, the chart's colours drawn, nothing printed in the margins.

The PNGs are also written to tests/screenshots/ to be looked at (docs/screenshots/ has
the ones the README shows).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from scorer.engine.limits import MAX_PLACE, MAX_TITLE
from scorer.engine.records import parse_match
from scorer.sheets.charts import COLOURS
from scorer.sheets.render import match_sheet_pdf
from tests.matchutil import points_match

pytestmark = [pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="make test installs poppler-utils"),
              pytest.mark.slow]  # rasterising PDFs: make test-fast leaves it out

SHOTS = Path(__file__).parent / "screenshots"
DPI = 50
FIXTURES = Path(__file__).parent / "fixtures" / "hands"


class Page:
    """One page as RGB pixels (read from pdftoppm's PPM output)."""

    def __init__(self, ppm: bytes) -> None:
        magic, size, depth, self.pixels = ppm.split(b"\n", 3)
        assert magic == b"P6" and depth == b"255"
        self.width, self.height = (int(n) for n in size.split())

    def rgb(self, x: int, y: int) -> tuple[int, int, int]:
        i = 3 * (y * self.width + x)
        return self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]

    def count(self, colour: str, tolerance: int = 40) -> int:
        """Pixels close to a #rrggbb colour."""
        want = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return sum(1 for x in range(self.width) for y in range(self.height)
                   if sum(abs(a - b) for a, b in zip(self.rgb(x, y), want, strict=True)) <= tolerance)

    def ink_in(self, left: int, top: int, right: int, bottom: int) -> int:
        """Pixels darker than light grey in a rectangle."""
        return sum(1 for x in range(left, right) for y in range(top, bottom) if sum(self.rgb(x, y)) < 600)


def pages(pdf: bytes, name: str, dpi: int = DPI) -> list[Page]:
    out = []
    count = int(next(line.split()[-1] for line in subprocess.run(
        ["pdfinfo", "-"], input=pdf, capture_output=True, check=True).stdout.decode().splitlines()
        if line.startswith("Pages:")))
    SHOTS.mkdir(exist_ok=True)
    for number in range(1, count + 1):
        ppm = subprocess.run(["pdftoppm", "-r", str(dpi), "-f", str(number), "-l", str(number), "-"],
                             input=pdf, capture_output=True, check=True).stdout
        out.append(Page(ppm))
        if dpi == DPI:
            subprocess.run(["pdftoppm", "-r", "80", "-png", "-singlefile", "-f", str(number), "-l", str(number),
                            "-", str(SHOTS / f"{name}-{number}")], input=pdf, check=True)
    return out


def _margins_are_empty(pdf: bytes) -> None:
    """The 12 mm side margins of every page hold no ink (looked for at 100 dpi)."""
    dpi = 100
    side = int(12 * dpi / 25.4) - 1  # one pixel for antialiasing
    for page in pages(pdf, "", dpi=dpi):
        assert page.ink_in(0, 0, side, page.height) == 0, "left margin"
        assert page.ink_in(page.width - side, 0, page.width, page.height) == 0, "right margin"


def test_match_sheet_image() -> None:
    pdf = match_sheet_pdf(parse_match(points_match(12)))
    (page,) = pages(pdf, "match-sheet")
    assert (page.width, page.height) == (414, 585)  # A4 at 50 dpi
    for colour in COLOURS[:3]:  # each player's line in the chart
        assert page.count(colour, tolerance=80) > 30, colour
    assert page.count("#eeeeee", tolerance=6) > 2000  # the ledger's heading band
    _margins_are_empty(pdf)
    # the lower half of the page is empty: a 12-hand match takes well under a page
    assert page.ink_in(0, page.height * 2 // 3, page.width, page.height) == 0


def test_long_match_sheet_images() -> None:
    pdf = match_sheet_pdf(parse_match(points_match(90)))
    shots = pages(pdf, "match-sheet-90")
    assert len(shots) == 2
    for page in shots:
        assert page.count("#eeeeee", tolerance=6) > 2000  # the heading, repeated on page 2
    _margins_are_empty(pdf)


def test_audit_sheet_image(client: FlaskClient) -> None:
    from tests.test_web_audit import _audit_link

    link = _audit_link(client, "classic-breach")
    response = client.get(link + ".pdf")
    assert json.loads((FIXTURES / "classic-breach.json").read_text())["players"]
    shots = pages(response.data, "audit-sheet")
    assert shots
    page = shots[0]
    assert page.count("#fff1dd", tolerance=6) > 100  # the trick with the revoke, highlighted
    _margins_are_empty(response.data)


def test_the_widest_ledger_stays_inside_the_page() -> None:
    """Four players, Italian column headings, thirds and long totals: the ledger's type shrinks to fit."""
    players = ("Anna Maria", "Bartolomeo", "Carla", "Domenico")
    hands = [{"dealer": players[i % 4], "points": dict(zip(players, ("61/3", "20", "20", "53/3"), strict=True))}
             for i in range(8)]
    data = {"format": "scarto-match/1", "title": "Quattro", "language": "it", "ruleset": "four",
            "players": list(players), "first_dealer": players[0], "end": {"hands": 40}, "hands": hands}
    pdf = match_sheet_pdf(parse_match(data))
    assert len(pages(pdf, "match-sheet-four")) == 1
    _margins_are_empty(pdf)


def test_a_long_unbroken_title_wraps_inside_the_page() -> None:
    """A title and a place as long as files may carry (80 characters each, limits.py), with no spaces, still
    wrap, and the heading repeats."""
    data = points_match(60, title=("Torneo" * 14)[:MAX_TITLE], players=("Annamariacaterina", "Bruno", "Carla"))
    data["place"] = ("Circolo" * 12)[:MAX_PLACE]
    pdf = match_sheet_pdf(parse_match(data))
    _margins_are_empty(pdf)
    shots = pages(pdf, "match-sheet-long-title")
    assert all(page.count("#eeeeee", tolerance=6) > 2000 for page in shots)  # the heading on every page
