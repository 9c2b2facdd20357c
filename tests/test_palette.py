"""The seats' colours: white text reads on each, and they stay apart for red-green colour blindness.

The colours are read from static/app.css (light and dark) and from the chart; each pair is compared
in CIELAB after simulating deuteranopia and protanopia (Machado, Oliveira and Fernandes 2009,
severity 1). The dots also differ in shape (circle, square, triangle, diamond): colour is never alone.
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

from scorer.sheets.charts import COLOURS

CSS = (Path(__file__).resolve().parent.parent / "static" / "app.css").read_text()
SIMULATIONS = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.01182, 0.04294, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "normal vision": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}


def linear(colour: str) -> list[float]:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]


def luminance(colour: str) -> float:
    r, g, b = linear(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def lab(rgb: list[float]) -> tuple[float, float, float]:
    x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.9505
    y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.089

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen(colour: str, matrix: tuple[tuple[float, ...], ...]) -> tuple[float, float, float]:
    rgb = linear(colour)
    return lab([max(0.0, min(1.0, sum(row[j] * rgb[j] for j in range(3)))) for row in matrix])


def palettes() -> list[tuple[str, ...]]:
    found = re.findall(r"--seat0: (#\w{6}); --seat1: (#\w{6}); --seat2: (#\w{6}); --seat3: (#\w{6});", CSS)
    assert found, "the seat colours are not in app.css"
    return [*found, COLOURS]


@pytest.mark.parametrize("palette", palettes())
def test_white_text_reads_on_every_seat_colour(palette: tuple[str, ...]) -> None:
    for colour in palette:
        assert 1.05 / (luminance(colour) + 0.05) >= 4.5, colour


@pytest.mark.parametrize("vision", SIMULATIONS)
@pytest.mark.parametrize("palette", palettes())
def test_the_seats_stay_apart_for_colour_blind_players(palette: tuple[str, ...], vision: str) -> None:
    matrix = SIMULATIONS[vision]
    for a, b in itertools.combinations(palette, 2):
        assert math.dist(seen(a, matrix), seen(b, matrix)) >= 20, (vision, a, b)


def test_the_dots_differ_in_shape() -> None:
    assert ".dot.seat1 { border-radius: 1px; }" in CSS
    assert ".dot.seat2 { border-radius: 0; clip-path: polygon" in CSS
    assert ".dot.seat3 { border-radius: 1px; transform: rotate(45deg)" in CSS
