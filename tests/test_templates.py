"""The templates are read by people too: no line wider than WIDTH characters.

A line is broken inside a Jinja delimiter (``{{ ... }}``, ``{% ... %}``: a line break there emits
nothing), a long message as adjacent string literals (Jinja joins them, so the msgid is the same),
and between tags with whitespace control (``{%- ... %}``, or ``{# -#}`` at the end of a line);
tests/templates_same.py shows that a rewrapped template still renders every page byte for byte.
"""

from __future__ import annotations

from io import BytesIO

from flask import Flask
from jinja2.ext import babel_extract

from scorer.resources import TEMPLATES
from tests.templates_same import compiled, tags_collapsed

WIDTH = 120


def wide_lines(width: int) -> dict[str, list[int]]:
    """Each template's lines (numbered from 1) wider than ``width`` characters."""
    wide = {}
    for path in sorted(TEMPLATES.glob("*.html")):
        lines = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if len(line) > width]
        if lines:
            wide[path.name] = lines
    return wide


def test_no_template_line_is_wider_than_120_characters() -> None:
    wide = wide_lines(WIDTH)
    assert not wide, f"lines over {WIDTH} characters (break them inside {{{{ }}}} or {{% %}}): {wide}"


def test_the_width_is_held_in_every_template() -> None:
    """No template is let off any more (those edited elsewhere were wrapped in their turn): the width test
    reads every one, so it cannot pass on a folder it does not find or a template it skips."""
    names = {path.name for path in TEMPLATES.glob("*.html")}
    assert {"base.html", "match.html", "_hand_parts.html", "pdf_match.html", "_review.html"} <= names
    assert set(wide_lines(0)) == names  # each template read, line by line


def test_the_wrapping_devices_compile_to_the_same_code(app: Flask) -> None:
    """What tests/templates_same.py relies on: a line break inside ``{{ }}``, a message as joined literals,
    ``{%- %}`` and ``{# -#}`` give the very code of the one-line template; a space more between tags does not."""
    one_line = '<p class="a" id="b">{{ _("One two three.", n=1) }}{% if x %}, <b>{{ x }}</b>{% endif %}</p>'
    wrapped = ('<p class="a" {# -#}\n  id="b">{{\n  _("One two "\n    "three.", n=1) }}\n'
               '  {%- if x %}, {# -#}\n  <b>{{ x }}</b>{% endif %}</p>')
    spaced = '<p class="a"\n  id="b">{{ _("One two three.", n=1) }}{% if x %}, <b>{{ x }}</b>{% endif %}</p>'
    assert compiled(app, wrapped, "t.html") == compiled(app, one_line, "t.html")
    assert compiled(app, spaced, "t.html") != compiled(app, one_line, "t.html")
    assert tags_collapsed(spaced) == tags_collapsed(one_line)
    assert tags_collapsed('<pre>a\n  b</pre>') != tags_collapsed('<pre>a b</pre>')  # text is never collapsed
    assert messages(wrapped) == messages(one_line) == [("One two three.", None)]  # the same msgid


def messages(source: str) -> list[object]:
    """The messages ``pybabel extract`` finds in a template (babel.cfg's way)."""
    found = babel_extract(BytesIO(source.encode()), ["_"], [], {"extensions": "jinja2.ext.i18n"})
    return [message for _line, _function, message, _comments in found]
