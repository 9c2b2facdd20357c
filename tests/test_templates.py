"""The templates are read by people too: no line wider than WIDTH characters.

A line is broken inside a Jinja delimiter (``{{ ... }}``, ``{% ... %}``: a line break there emits
nothing), a long message as adjacent string literals (Jinja joins them, so the msgid is the same),
and between tags with whitespace control (``{%- ... %}``, or ``{# -#}`` at the end of a line);
tests/templates_same.py shows that a rewrapped template still renders every page byte for byte.
"""

from __future__ import annotations

from scorer.resources import TEMPLATES

WIDTH = 120
UNWRAPPED = frozenset({
    "_club_macros.html", "_hand_parts.html", "_match_body.html", "_standings.html", "audit.html",
    "club_page.html", "club_player.html", "club_table.html", "hand_live.html", "match.html",
    "pdf_audit.html", "pdf_club.html", "pdf_match.html",
})
"""Templates not yet wrapped (being edited elsewhere when the others were): emptied as they are."""


def wide_lines(width: int) -> dict[str, list[int]]:
    """Each template's lines (numbered from 1) wider than ``width`` characters."""
    wide = {}
    for path in sorted(TEMPLATES.glob("*.html")):
        lines = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if len(line) > width]
        if lines:
            wide[path.name] = lines
    return wide


def test_no_template_line_is_wider_than_120_characters() -> None:
    wide = {name: lines for name, lines in wide_lines(WIDTH).items() if name not in UNWRAPPED}
    assert not wide, f"lines over {WIDTH} characters (break them inside {{{{ }}}} or {{% %}}): {wide}"


def test_the_unwrapped_templates_are_still_unwrapped() -> None:
    """A template wrapped since comes off the list, so that it stays wrapped."""
    wide = wide_lines(WIDTH)
    assert not [name for name in UNWRAPPED if name not in wide], "wrapped now: take it off UNWRAPPED"
