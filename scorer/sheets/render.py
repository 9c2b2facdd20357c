"""A match sheet's HTML and PDF without Flask: the ``scarto pdf`` command's renderer.

The same template as the web's (``templates/pdf_match.html``), rendered by a plain
Jinja environment whose ``_``/``ngettext`` are the compiled catalogue of the
chosen language (babel's ``Translations``) and whose filters and globals are the
:class:`~.words.Words` the pages use too, so the PDF says the same either way.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from ..engine.numbers import fraction_text
from ..engine.records import MatchRecord
from ..resources import STATIC, TEMPLATES, TRANSLATIONS
from .pdf import Sheet, html_to_pdf, sheet_for
from .words import Words, euphonic_templates


@cache
def _translations(language: str) -> Any:
    from babel.support import NullTranslations, Translations

    if language == "en":
        return NullTranslations()
    return Translations.load(str(TRANSLATIONS), [language], domain="messages")


@cache
def environment(language: str) -> Environment:
    """A Jinja environment for the sheets in one language (made once per language)."""
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]),
                      extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(_translations(language), newstyle=True)  # type: ignore[attr-defined]
    euphonic_templates(env, lambda: language)
    w = words(language, "italian")  # the filters' words do not depend on the pack
    env.filters.update({"points": fraction_text, "money": w.money, "local_date": w.local_date,
                        "preset_name": w.preset_name})
    return env


def words(language: str, pack: str) -> Words:
    """The engine's names in a language and pack, translated by that language's catalogue."""
    translations = _translations(language)
    return Words(language, pack, translations.gettext)


def match_sheet_html(sheet: Sheet) -> str:
    """The match sheet's HTML, in the sheet's language."""
    w = sheet.words
    env = environment(w.language)
    template = env.get_template("pdf_match.html")
    return template.render(
        sheet=sheet,
        current_locale=w.language,
        preset_descriptions={p: w.preset_description(p) for p in _presets()},
        settle_labels={s: w.settle_label(s) for s in ("per_point", "loser_pays")},
        switch_rows=w.switch_rows,
        problem_text=w.problem_text,
    )


def _presets() -> tuple[str, ...]:
    from ..engine.rulesets import PRESETS

    return tuple(PRESETS)


def match_sheet_pdf(match: MatchRecord) -> bytes:
    """The match sheet of a match file, in its language and pack (English and Italian cards if unsaid)."""
    language = match.language or "en"
    w = words(language, match.pack or "italian")
    sheet = sheet_for(match, words=w)
    return html_to_pdf(match_sheet_html(sheet), str(STATIC) + "/", sheet.files())
