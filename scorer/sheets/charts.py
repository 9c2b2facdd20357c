"""Server-side SVG charts, shared by the pages and the PDFs (no JavaScript needed)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from html import escape

COLOURS = ("#a63c06", "#1b5c9e", "#8020f0", "#176a5c")
"""One colour per seat; also used beside player names on the pages."""
DASHES = ("", "6 3", "2 3", "8 3 2 3")
"""And a dash pattern per seat, so the lines read in black and white print too."""
LINE_GLYPHS = ("━━━━", "━ ━ ━", "· · · ·", "━ · ━")
"""Each seat's dash pattern drawn in text, for a legend set outside the chart."""


def cumulative_chart(players: Sequence[str], totals: Sequence[Sequence[Fraction | int]],
                     width: int = 360, height: int = 200, title: str = "", compact: bool = False,
                     x_title: str = "", y_title: str = "", start: float = 0.0) -> str:
    """A line per player of the running total after each hand (``totals[h][p]``).

    The chart starts at ``start`` before the first hand (0: a running total; a player's rating chart
    starts at the rating before their first match); the y axis always includes it.
    A ``compact`` chart (the match sheet's, beside the ledger that numbers the hands)
    writes three numbers: the lowest and highest grid lines and the last hand (zero
    is the darker line); it has no legend: its caller names the lines with
    ``LINE_GLYPHS``. PDF renderers set SVG text a letter at a time, so every label
    left out is time saved: a compact chart labels every grid line and about eight hands.
    ``x_title`` and ``y_title`` name the axes (the hands, the points).
    """
    legend = not compact
    pad_left, pad_right, pad_top, pad_bottom = 34 + (12 if y_title else 0), 10, 12, (40 if legend else 22) + (
        12 if x_title else 0)
    plot_w = width - pad_left - pad_right
    plot_h = height - pad_top - pad_bottom
    hands = len(totals)
    values = [float(v) for row in totals for v in row] + [start]
    low, high = min(values), max(values)
    if high - low < 10:
        mid = (high + low) / 2
        low, high = mid - 5, mid + 5
    step = _nice_step((high - low) / 4)
    low = step * _floor(low / step)
    high = step * _ceil(high / step)

    def x(i: int) -> float:
        return pad_left + (plot_w * i / hands if hands else 0)

    def y(v: float) -> float:
        return pad_top + plot_h * (high - v) / (high - low)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" class="chart" role="img" '
        f'aria-label="{escape(title)}" font-family="DejaVu Sans, Arial, sans-serif" font-size="10">'
    ]
    if title:
        out.append(f"<title>{escape(title)}</title>")
    grid, zero, labels = [], "", []
    tick = low
    while tick <= high + 1e-9:
        ty = y(tick)
        if abs(tick) < 1e-9:
            zero = f'<path d="M{pad_left} {ty:.1f}H{width - pad_right}" stroke="#555" stroke-width="1"/>'
        else:
            grid.append(f"M{pad_left} {ty:.1f}H{width - pad_right}")
        labels.append(f'<text x="{pad_left - 4}" y="{ty + 3:.1f}" text-anchor="end">{_label(tick)}</text>')
        tick += step
    # One path for the grid and one group for the labels: fewer nodes for a renderer to walk.
    out.append(f'<path d="{"".join(grid)}" stroke="#ddd" stroke-width="1"/>{zero}<g fill="#444">')
    out.extend(labels)
    numbered = list(range(0, hands + 1, max(1, -(-hands // 8) if compact else hands // 10)))
    if compact and hands and numbered[-1] != hands:
        numbered.append(hands)
    for i in numbered:
        out.append(f'<text x="{x(i):.1f}" y="{pad_top + plot_h + 12}" text-anchor="middle">{i}</text>')
    if x_title:
        out.append(f'<text x="{pad_left + plot_w / 2:.1f}" y="{pad_top + plot_h + 25}" text-anchor="middle">'
                   f'{escape(x_title)}</text>')
    if y_title:
        out.append(f'<text transform="translate(10 {pad_top + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle">'
                   f'{escape(y_title)}</text>')
    out.append("</g>")
    for seat, name in enumerate(players):
        points = [(x(0), y(start))] + [(x(i + 1), y(float(row[seat]))) for i, row in enumerate(totals)]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        colour = COLOURS[seat % len(COLOURS)]
        dash = DASHES[seat % len(DASHES)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr}/>')
        if not legend:
            continue
        lx = pad_left + seat * (plot_w / max(1, len(players)))
        ly = height - 8
        out.append(f'<line x1="{lx:.1f}" y1="{ly - 3}" x2="{lx + 14:.1f}" y2="{ly - 3}" stroke="{colour}" '
                   f'stroke-width="2"{dash_attr}/>')
        out.append(f'<text x="{lx + 18:.1f}" y="{ly}" fill="#222">{escape(_short(name))}</text>')
    out.append("</svg>")
    return "".join(out)


def _nice_step(raw: float) -> float:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if raw <= step:
            return float(step)
    return float(10 ** len(str(int(raw))))


def _floor(v: float) -> int:
    return int(v // 1)


def _ceil(v: float) -> int:
    return -int(-v // 1)


def _label(v: float) -> str:
    return str(int(v)) if v == int(v) else f"{v:g}"


def _short(name: str, limit: int = 12) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"
