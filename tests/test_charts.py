"""The running-totals chart: valid SVG, a line per player through every total, axes that include 0."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from fractions import Fraction

from scorer.sheets.charts import COLOURS, DASHES, cumulative_chart

SVG = "{http://www.w3.org/2000/svg}"
TOTALS = [[Fraction(t) for t in row] for row in ([-10, 18, -8], [-24, 16, 8], [-35, 29, 6], [-25, 26, -1])]


def _chart(**options: object) -> ET.Element:
    return ET.fromstring(cumulative_chart(["Anna", "Bruno", "Carla"], TOTALS, **options))  # type: ignore[arg-type]


def _texts(svg: ET.Element) -> list[str]:
    return [t.text or "" for t in svg.iter(f"{SVG}text")]


def _points(line: ET.Element) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (p.split(",") for p in line.get("points", "").split())]


def test_a_line_per_player_from_zero_through_each_total() -> None:
    svg = _chart()
    lines = list(svg.iter(f"{SVG}polyline"))
    assert [line.get("stroke") for line in lines] == list(COLOURS[:3])
    assert [line.get("stroke-dasharray") for line in lines] == [None, DASHES[1], DASHES[2]]
    start = {_points(line)[0] for line in lines}
    assert len(start) == 1  # everyone starts at 0 before the first hand
    for seat, line in enumerate(lines):
        ys = [y for _, y in _points(line)]
        assert len(ys) == len(TOTALS) + 1
        # higher totals are drawn higher up (smaller y)
        order = sorted(range(len(TOTALS)), key=lambda h: TOTALS[h][seat])
        assert [ys[h + 1] for h in order] == sorted((ys[h + 1] for h in order), reverse=True)


def test_the_page_chart_has_a_legend_and_numbers_every_hand() -> None:
    texts = _texts(_chart())
    assert {"Anna", "Bruno", "Carla"} <= set(texts)
    assert {"0", "1", "2", "3", "4"} <= set(texts)
    assert {"-40", "40"} <= set(texts) and "0" in texts


def test_the_compact_chart_names_no_one_and_labels_its_axes() -> None:
    """The sheet's chart: no legend (the ranking names the lines), but every grid line and the hands
    numbered, and the axes named, so it reads on paper."""
    compact = ET.fromstring(cumulative_chart(["Anna", "Bruno", "Carla"], TOTALS, compact=True,
                                             x_title="Hands", y_title="Points"))
    texts = _texts(compact)
    assert not {"Anna", "Bruno", "Carla"} & set(texts)
    assert {"-40", "-20", "0", "20", "40"} <= set(texts)  # every grid line
    assert {"0", "1", "2", "3", "4"} <= set(texts)  # the hands
    assert {"Hands", "Points"} <= set(texts)
    assert len(texts) <= 14  # still few: a PDF sets SVG text a letter at a time
    assert len(list(compact.iter(f"{SVG}polyline"))) == 3


def test_a_flat_match_still_has_a_scale() -> None:
    svg = ET.fromstring(cumulative_chart(["A", "B", "C"], [[Fraction(0)] * 3]))
    values = [float(t) for t in _texts(svg) if t.lstrip("-").isdigit()]
    assert min(values) < 0 < max(values)


def test_names_are_escaped_and_shortened() -> None:
    svg = cumulative_chart(["<b>&", "Bartolomeo Giovanni", "C"], [[Fraction(1), Fraction(-1), Fraction(0)]],
                           title="Totals & more")
    tree = ET.fromstring(svg)  # well-formed despite the markup in a name
    texts = _texts(tree)
    assert "<b>&" in texts
    assert "Bartolomeo …" in texts
    assert tree.get("aria-label") == "Totals & more"
