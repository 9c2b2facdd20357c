"""The interface in five languages: every string extracted, translated, with the same placeholders.

The catalogue template (``scorer/translations/messages.pot``) is extracted again
here, so a string somebody added without running ``make messages`` fails; each
language's ``.po`` must translate every message of it (nothing empty, nothing
fuzzy); templates may hold no text outside gettext; and the pages really come
out in each language.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from jinja2 import nodes

from scorer.web import LANGUAGES, TRANSLATIONS
from tests.handutil import check, csrf_of
from tests.seed import hand_keys, seed_match
from tests.webutil import csrf_token, start_match

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
POT = TRANSLATIONS / "messages.pot"
TRANSLATED = [code for code in LANGUAGES if code != "en"]
EXTRACT = ["pybabel", "extract", "-F", str(ROOT / "babel.cfg"), "-k", "_l", "-k", "lazy_gettext", "-k", "N_",
           "--add-location=file", "--sort-output", "--no-wrap", "-c", "TRANSLATORS:", "--project=scarto-scorer"]
"""The Makefile's ``messages`` target, word for word."""
PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa%]")


def read_catalogue(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def messages(catalog: Catalog) -> dict[Any, Message]:
    """The catalogue's messages by id (a plural message by its (singular, plural) pair)."""
    return {m.id: m for m in catalog if m.id}


@pytest.fixture(scope="module")
def template() -> Catalog:
    return read_catalogue(POT)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The strings of the code and templates as they are now, extracted the way `make messages` does."""
    out = tmp_path_factory.mktemp("pot") / "messages.pot"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        CommandLineInterface().run([*EXTRACT, "-o", str(out), str(ROOT)])
    return read_catalogue(out)


# --- the catalogues ---------------------------------------------------------------------


def test_the_committed_template_holds_every_string_of_the_code(template: Catalog, extracted: Catalog) -> None:
    """A string added (or changed) in the code or a template, then not extracted: run `make messages`."""
    new = sorted(map(str, messages(extracted).keys() - messages(template).keys()))
    gone = sorted(map(str, messages(template).keys() - messages(extracted).keys()))
    assert (new, gone) == ([], []), "run `make messages`, translate, commit the .pot and the .po files"


def test_the_extraction_finds_the_problem_sentences_and_the_lazy_labels(extracted: Catalog) -> None:
    ids = messages(extracted)
    assert "%(Card)s (%(code)s) is in trick %(first)s and again in trick %(second)s: a card is played once." in ids
    assert "Forbidden discards" in ids  # _l in scorer/web/labels.py
    assert "Trick %(n)s: %(name)s to play" in ids  # N_ for live.js's sentences
    assert ("%(num)s card", "%(num)s cards") in ids  # ngettext in a template


def test_a_catalogue_for_each_language_of_the_app() -> None:
    assert sorted(p.name for p in TRANSLATIONS.iterdir() if p.is_dir()) == sorted(TRANSLATED)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated(language: str, template: Catalog) -> None:
    catalog = messages(read_catalogue(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"))
    missing = [str(msgid) for msgid in messages(template) if msgid not in catalog]
    empty = [str(m.id) for m in catalog.values()
             if not all(m.string if isinstance(m.string, tuple) else (m.string,))]
    fuzzy = [str(m.id) for m in catalog.values() if m.fuzzy]
    assert (missing, empty, fuzzy) == ([], [], []), f"`make messages` then translate {language}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_translation_has_the_placeholders_of_its_message(language: str) -> None:
    """%(name)s for %(name)s: a missing or misspelt name would fail (or lose a number) on the page."""
    catalog = read_catalogue(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po")
    assert catalog.num_plurals == 2, "two plural forms: one card, many cards"
    wrong = []
    for m in messages(catalog).values():
        ids = [str(i) for i in (m.id if isinstance(m.id, tuple) else (m.id,))]
        wanted = sorted(set(PLACEHOLDER.findall(" ".join(ids))))
        for text in (str(t) for t in (m.string if isinstance(m.string, tuple) else (m.string,))):
            if sorted(set(PLACEHOLDER.findall(text))) != wanted:
                wrong.append(f"{m.id!r} -> {text!r}")
        if wanted and "python-format" not in m.flags:
            wrong.append(f"{m.id!r} is not marked python-format")
    assert wrong == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_is_the_po_file(language: str) -> None:
    """The app reads the .mo files: `make install` compiles them from the .po files (the source)."""
    folder = TRANSLATIONS / language / "LC_MESSAGES"
    assert (folder / "messages.mo").exists(), "run `make install` to compile the translations"
    def plain(value: Any) -> Any:
        return tuple(value) if isinstance(value, list | tuple) else value

    with (folder / "messages.mo").open("rb") as f:
        compiled = {plain(m.id): plain(m.string) for m in read_mo(f) if m.id}
    source = {plain(m.id): plain(m.string) for m in messages(read_catalogue(folder / "messages.po")).values()}
    assert compiled == source, "the .mo is older than its .po: run `make install`"


# --- templates --------------------------------------------------------------------------

ALLOWED_WORDS = {"Scarto"}
"""Text a template may hold outside gettext: the game's name (symbols and numbers need no list)."""
TEXT_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "aria-description", "aria-placeholder"}
"""Attributes a person reads (or hears from a screen reader)."""


class _Text(HTMLParser):
    """The text of an HTML fragment and the values of its user-facing attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        """(where, text): "" for text between tags, "input[placeholder]" for an attribute."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            if name in TEXT_ATTRIBUTES or (name == "value" and values.get("type") in ("submit", "button", "reset")):
                self.found.append((f"{tag}[{name}]", value or ""))

    def handle_data(self, data: str) -> None:
        self.found.append(("", data))


def _untranslated(text: str) -> list[str]:
    return [w for w in re.findall(r"[^\W\d_]+", text) if w not in ALLOWED_WORDS]


_MARK = re.compile(r"\x00(\d+)\x00")


def template_text(source: str, env: Any) -> list[str]:
    """What a template shows that gettext does not translate: its static text and user-facing
    attributes, and the string literals its expressions print there (``{{ x or "none" }}``).

    Literals printed into other attributes (ids, classes, URLs) are not for people.
    """
    source = re.sub(r"\{#.*?#\}|\{%-?\s*trans\b.*?endtrans\s*-?%\}", "", source, flags=re.S)
    source = re.sub(r"\{%.*?%\}", "", source, flags=re.S)
    printed: list[list[str]] = []

    def mark(match: re.Match[str]) -> str:
        printed.append(list(literal_outputs(env.parse(match.group(0)))))
        return f"\x00{len(printed) - 1}\x00"

    parser = _Text()
    parser.feed(re.sub(r"\{\{.*?\}\}", mark, source, flags=re.S))
    parser.close()
    shown = []
    for where, text in parser.found:
        text = _MARK.sub(lambda m: " ".join(printed[int(m.group(1))]), text).strip()
        if _untranslated(text):
            shown.append(f"{where}: {text}" if where else text)
    return shown


def literal_outputs(node: nodes.Node) -> Iterator[str]:
    """String constants a template prints as they are: ``{{ "text" }}``, ``{{ x or "text" }}``."""
    if isinstance(node, nodes.Output):
        for child in node.nodes:
            if not isinstance(child, nodes.TemplateData):
                yield from _printed_constants(child)
    for inner in node.iter_child_nodes():
        yield from literal_outputs(inner)


def _printed_constants(expr: nodes.Node) -> Iterator[str]:
    if isinstance(expr, nodes.Const) and isinstance(expr.value, str):
        yield expr.value
    elif isinstance(expr, nodes.CondExpr):
        yield from _printed_constants(expr.expr1)
        if expr.expr2 is not None:
            yield from _printed_constants(expr.expr2)
    elif isinstance(expr, nodes.Or | nodes.And):
        yield from _printed_constants(expr.left)
        yield from _printed_constants(expr.right)
    elif isinstance(expr, nodes.Filter) and expr.node is not None:
        yield from _printed_constants(expr.node)
    elif isinstance(expr, nodes.Concat):
        for part in expr.nodes:
            yield from _printed_constants(part)


TEMPLATE_FILES = sorted(p.name for p in TEMPLATES.glob("*.html"))


@pytest.fixture(scope="module")
def env() -> Any:
    """A Jinja environment with gettext, to parse templates (nothing is rendered)."""
    app = Flask(__name__)
    app.jinja_env.add_extension("jinja2.ext.i18n")
    return app.jinja_env


def test_the_template_checker_finds_text_outside_gettext(env: Any) -> None:
    def check(source: str) -> list[str]:
        return template_text(source, env)

    assert check('<p>Hello {{ _("there") }}</p>') == ["Hello"]
    assert check('<input placeholder="Your name"><b title="{{ _(\'x\') }}">·</b>') == [
        "input[placeholder]: Your name"]
    assert check('<a href="/m/x" class="button big" id="go">← {{ _("Back") }} · Scarto</a>') == []
    assert check('<p>{{ x if y else "none" }}</p><p>{{ "–" }}</p>') == ["none"]
    assert check('<div id="{{ \'conflict\' if c else \'outcome\' }}" class="{{ \'a\' }}">{{ _("ok") }}</div>') == []
    assert check('<link href="{{ url_for(\'static\', filename=\'app.css\') }}">') == []
    assert check('<p title="{{ \'Hi\' }}">{% trans %}Hello{% endtrans %}</p>') == ["p[title]: Hi"]


@pytest.mark.parametrize("name", TEMPLATE_FILES)
def test_templates_hold_no_text_outside_gettext(name: str, env: Any) -> None:
    assert template_text((TEMPLATES / name).read_text(), env) == []


# --- the pages in each language ---------------------------------------------------------

START = {"en": "Start a match", "it": "Inizia una partita", "de": "Partie beginnen", "fi": "Aloita peli",
         "es": "Empezar una partida"}
STANDINGS = {"en": "Standings", "it": "Classifica", "de": "Stand", "fi": "Tilanne", "es": "Clasificación"}
WHO_PAYS = {"it": "Chi paga chi", "de": "Wer zahlt wem", "fi": "Kuka maksaa kenelle", "es": "Quién paga a quién"}
COUNT = {"it": "Il conteggio a tre a tre", "de": "Die Zählung in Dreiergruppen", "fi": "Laskenta kolmittain",
         "es": "El recuento de tres en tres"}
REVOKE = {"en": "to a trump lead while holding a trump", "it": "non ha risposto a tarocchi",
          "de": "hat Trumpf nicht bedient", "fi": "pelasi valttilähtöön", "es": "hizo renuncio"}


def visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S))
    return " ".join(" ".join(text for where, text in parser.found if not where).split())


@pytest.fixture()
def seeded(app: Flask) -> tuple[str, list[str]]:
    edit, _view = seed_match(app, hands=12)
    return edit, hand_keys(app, edit)


def get(client: FlaskClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.get_data(as_text=True)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_start_page_speaks_each_language(client: FlaskClient, language: str) -> None:
    html = get(client, f"/?lang={language}")
    assert f'<html lang="{language}">' in html
    assert START[language] in html


def test_the_language_comes_from_the_browser_and_sticks_once_chosen(client: FlaskClient) -> None:
    assert START["fi"] in client.get("/", headers={"Accept-Language": "fi-FI,fi;q=0.9"}).get_data(as_text=True)
    get(client, "/?lang=es")  # the choice is kept in a cookie
    assert START["es"] in client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_match_and_a_revoked_hand_in_each_language(client: FlaskClient, seeded: tuple[str, list[str]],
                                                     language: str) -> None:
    """The standings, the problem sentences with their card names, the dates, all in the reader's language."""
    token, keys = seeded
    match = visible_text(get(client, f"/m/{token}/?lang={language}"))
    assert STANDINGS[language] in match
    breach = keys[5]  # classic-breach: a revoke in trick 4
    hand = visible_text(get(client, f"/m/{token}/hands/{breach}/?lang={language}"))
    assert REVOKE[language] in hand


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_english_message_is_left_on_the_pages(app: Flask, client: FlaskClient, seeded: tuple[str, list[str]],
                                                 language: str) -> None:
    """Each catalogue message that differs in the language must not show up in English on a page.

    This catches strings translated too early (a gettext at import time instead of a lazy one)
    and templates that print a message without gettext.
    """
    token, keys = seeded
    english = english_messages(language)
    pages = ["/", "/new", f"/m/{token}/", f"/m/{token}/share", f"/m/{token}/deleted", "/import", "/audit",
             f"/m/{token}/hands/new/points", f"/m/{token}/hands/new/cards", f"/m/{token}/hands/new/honours",
             f"/m/{token}/hands/new/live", f"/m/{token}/import"]
    for key in keys[:6]:
        pages += [f"/m/{token}/hands/{key}/", f"/m/{token}/hands/{key}/history", f"/m/{token}/hands/{key}/edit"]
    pages += [f"/m/{token}/hands/{keys[5]}/audit?t=4", f"/m/{token}/hands/{keys[5]}/audit?annul=1"]
    left = {}
    for url in pages:
        shown = visible_text(get(client, f"{url}{'&' if '?' in url else '?'}lang={language}"))
        found = sorted(text for text in english if text in shown)
        if found:
            left[url] = found
    assert left == {}


READ_ERROR = {"en": "record: must be a JSON object, not a list",
              "it": "registrazione: deve essere un oggetto JSON, non una lista",
              "de": "Aufzeichnung: muss ein JSON-Objekt sein, nicht eine Liste",
              "fi": "kirjaus: pitää olla JSON-objekti, ei lista",
              "es": "registro: debe ser un objeto JSON, no una lista"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_malformed_file_is_refused_in_each_language(client: FlaskClient, language: str) -> None:
    """The core's read errors in the page's language; the place in the file keeps the file's own names."""
    url = f"/import?lang={language}"
    response = client.post(url, data={"csrf_token": csrf_token(get(client, url)), "text": "[1, 2]"})
    assert response.status_code == 400
    assert READ_ERROR[language] in visible_text(response.get_data(as_text=True))


def test_the_live_check_tells_a_read_error_in_the_page_language(client: FlaskClient) -> None:
    token = start_match(client)
    csrf = csrf_of(client, token)
    get(client, "/?lang=it")  # the choice is kept in a cookie
    response = check(client, token, csrf, "Anna", [["KB", "KX"]])
    assert response.status_code == 400
    assert response.get_json()["error"] == "tricks[0].cards[1] (presa 1, carta 2): 'KX' non è una carta"


def test_dates_follow_the_language(client: FlaskClient, seeded: tuple[str, list[str]]) -> None:
    token, keys = seeded
    client.get(f"/m/{token}/")  # the start page lists matches this phone has seen
    assert re.search(r"\d{1,2} [a-z]{3} 20\d\d", visible_text(get(client, "/?lang=it")))  # 30 nov 2026
    assert re.search(r"\d{1,2}\.\d{1,2}\.20\d\d", visible_text(get(client, "/?lang=de")))  # 30.11.2026
    history = visible_text(get(client, f"/m/{token}/hands/{keys[0]}/history?lang=de"))
    assert re.search(r"\d\d\.\d\d\.20\d\d,? \d\d:\d\d \(UTC\)", history)  # the year whole: 01.12.2026
    history = visible_text(get(client, f"/m/{token}/hands/{keys[0]}/history?lang=en"))
    assert re.search(r"[A-Z][a-z]{2} \d{1,2}, 20\d\d, \d{1,2}:\d\d [AP]M \(UTC\)", history)  # Dec 1, 2026
    assert not re.search(r"\d{1,2}/\d{1,2}/\d\d", history)  # never 12/1/26


def test_times_are_the_clubs_local_time(tmp_path: Any) -> None:
    from scorer import create_app
    from scorer.web.filters import when

    app = create_app({"DATABASE": str(tmp_path / "tz.sqlite"), "SECRET_KEY": "tz",
                      "BABEL_DEFAULT_TIMEZONE": "Europe/Rome"})
    with app.test_request_context("/?lang=it"):
        from flask_babel import force_locale
        with force_locale("it"):
            assert when("2026-12-01T07:14:00Z") == "1 dic 2026, 08:14 (Europe/Rome)"


def test_money_follows_the_language(client: FlaskClient, seeded: tuple[str, list[str]]) -> None:
    token, _keys = seeded
    assert "0,10\xa0€" in get(client, f"/m/{token}/?lang=it")
    assert "€0.10" in get(client, f"/m/{token}/?lang=en")


def english_messages(language: str) -> set[str]:
    """Messages long enough to be recognised that the language translates differently."""
    catalog = messages(read_catalogue(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"))
    return {m.id for m in catalog.values()
            if isinstance(m.id, str) and "%" not in m.id and m.string != m.id and len(m.id) > 12}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="make test installs poppler-utils")
@pytest.mark.parametrize("language", TRANSLATED)
def test_the_sheets_are_printed_in_each_language(client: FlaskClient, seeded: tuple[str, list[str]],
                                                 language: str) -> None:
    """A match without a sheet language of its own prints in the page's; the audit sheet too."""
    token, keys = seeded

    def text(url: str) -> str:
        response = client.get(url)
        assert response.status_code == 200 and response.mimetype == "application/pdf", url
        run = subprocess.run(["pdftotext", "-", "-"], input=response.data, capture_output=True, check=True)
        return " ".join(run.stdout.decode().split())

    sheet = text(f"/m/{token}/sheet.pdf?lang={language}")
    audit = text(f"/m/{token}/hands/{keys[5]}/audit.pdf?lang={language}")
    assert WHO_PAYS[language] in sheet and REVOKE[language] in sheet
    assert COUNT[language] in audit and REVOKE[language] in audit
    assert sorted(m for m in english_messages(language) if m in sheet or m in audit) == []


def test_a_sheet_in_another_language_within_a_page_gets_its_words_and_the_page_keeps_its_own(
        client: FlaskClient) -> None:
    """The templates' catalogue is kept for the request (scorer/web _catalogue): a forced language
    (a sheet in the match's language) must get its own, and the page its own again after."""
    from flask import render_template_string
    from flask_babel import force_locale

    say = '{{ _("Total") }}'
    with client.application.test_request_context("/?lang=en"):
        assert render_template_string(say) == "Total"
        for language, word in (("it", "Totale"), ("de", "Gesamt"), ("it", "Totale")):
            with force_locale(language):
                assert render_template_string(say) == word
            assert render_template_string(say) == "Total"
    with client.application.test_request_context("/?lang=fi"):
        with force_locale("de"):  # forced before the page's first string
            assert render_template_string(say) == "Gesamt"
        assert render_template_string(say) == "Yhteensä"


def test_italian_writes_ad_before_a_name_that_starts_with_a() -> None:
    """ "Bruno paga a Anna" reads wrong in Italian: "ad Anna" (the catalogue cannot know the name)."""
    from scorer.sheets.words import euphonic

    assert euphonic("it", "Bruno paga a Anna 3 punti", ["Anna"]) == "Bruno paga ad Anna 3 punti"
    assert euphonic("it", "tocca a Àlvaro", ["Àlvaro"]) == "tocca ad Àlvaro"
    assert euphonic("it", "tocca a alberto", ["alberto"]) == "tocca ad alberto"
    assert euphonic("it", "Anna paga a Bruno 3 punti", ["Anna", "Bruno"]) == "Anna paga a Bruno 3 punti"
    assert euphonic("en", "Bruno pays a Anna", ["Anna"]) == "Bruno pays a Anna"  # only where the language says
    assert euphonic("it", "paga a Anna", [3, None]) == "paga a Anna"  # not names
    assert euphonic("it", "deve a Bruno una carta", ["", "Bruno"]) == "deve a Bruno una carta"


def test_the_pages_and_sheets_say_ad_anna_in_italian(client: FlaskClient, tmp_path: Any) -> None:
    """Who pays whom on the match page (a template's ngettext), the live page's turn (live.js's sentence
    for that player) and the match sheet (the command's templates)."""
    from scorer.engine.records import parse_match
    from scorer.sheets.pdf import sheet_for
    from scorer.sheets.render import match_sheet_html, words
    from tests.matchutil import points_match

    data = points_match(3, players=("Bruno", "Anna", "Carla"))
    data["hands"] = [{"dealer": "Bruno", "points": {"Bruno": 10, "Anna": 50, "Carla": 18}}]
    answer = client.post("/api/matches", json=data)
    token = answer.get_json()["edit_url"].rstrip("/").split("/")[-1]
    page = visible_text(get(client, f"/m/{token}/?lang=it"))
    assert "Bruno paga ad Anna" in page and "paga a Anna" not in page
    assert "Carla paga ad Anna" in page
    english = visible_text(get(client, f"/m/{token}/?lang=en"))
    assert "Bruno pays Anna" in english

    live = get(client, f"/m/{token}/hands/new/live?lang=it")
    texts = json.loads(html.unescape(re.search(r"data-texts='([^']*)'", live).group(1)))
    assert texts["turn_by"] == {"Anna": "Presa %(n)s: tocca ad %(name)s"}
    assert texts["turn"] == "Presa %(n)s: tocca a %(name)s"

    record = parse_match(data)
    sheet_html = match_sheet_html(sheet_for(record, words=words("it", "italian")))
    assert "paga ad Anna" in sheet_html and "paga a Anna" not in sheet_html


# --- the languages, as data ----------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_is_whole(language: str) -> None:
    """What a language needs besides its place in LANGUAGE_NAMES: a name in itself that Babel can
    check, a catalogue (English is the language the strings are written in) and every card's name."""
    from babel import Locale

    from scorer.engine import cardnames

    name = cardnames.LANGUAGE_NAMES[language]
    assert name.casefold() == Locale.parse(language).get_display_name(language).casefold()
    assert (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").is_file() == (language in TRANSLATED)
    for table in (cardnames.SUITS, cardnames.COURTS, cardnames.TRUMPS, cardnames.SINGULAR_SUITS,
                  cardnames._COURT_LETTERS):
        assert language in table, table
    names = {cardnames.full_name(index, language, pack) for index in range(78) for pack in cardnames.PACKS}
    assert len(names) == 78 + 56  # every card told apart, the suit cards by pack too


@pytest.mark.parametrize("url", ["/new", "/clubs/new"])
def test_every_language_menu_offers_the_languages_by_their_names(client: FlaskClient, url: str) -> None:
    from scorer.engine.cardnames import LANGUAGE_NAMES

    page = client.get(url).get_data(as_text=True)
    menu = page.split('name="language"', 1)[1].split("</select>", 1)[0]
    assert re.findall(r'<option[^>]*value="(\w+)"[^>]*>([^<]+)</option>', menu) == list(LANGUAGE_NAMES.items())
    links = page.split('class="langs"', 1)[1].split("</nav>", 1)[0]
    assert re.findall(r'\slang="(\w+)"', links) == list(LANGUAGES)


def test_no_list_of_the_languages_is_written_out_by_hand() -> None:
    """The languages are one mapping (engine/cardnames.LANGUAGE_NAMES): a sixth language is one entry
    there, not a hunt through the menus. The code, templates and scripts name no language by its own
    name, and write no run of three language codes, anywhere else."""
    from scorer.engine.cardnames import LANGUAGE_NAMES

    code = re.compile(r"""["']({})["']""".format("|".join(LANGUAGE_NAMES)))
    names = [n for n in LANGUAGE_NAMES.values() if n != "English"]  # "English" is a word of the code's prose
    found = []
    for folder, pattern in (("scorer", "*.py"), ("templates", "*.html"), ("static", "*.js")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            if path.name == "cardnames.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if any(f'"{n}"' in line or f"'{n}'" in line for n in names) or len(set(code.findall(line))) >= 3:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_make_language_makes_a_catalogue_and_says_what_else(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is needed: the README's commands are make targets")
    (tmp_path / "messages.pot").write_bytes(POT.read_bytes())
    (tmp_path / "stamp").touch()  # the environment as made: nothing installed again
    run = subprocess.run(["make", "--no-print-directory", "language", "L=pt", f"I18N={tmp_path}",
                          f"STAMP={tmp_path / 'stamp'}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    with (tmp_path / "pt" / "LC_MESSAGES" / "messages.po").open("rb") as made, POT.open("rb") as template:
        catalogue, messages = read_po(made), read_po(template)
    assert str(catalogue.locale) == "pt" and len(catalogue) == len(messages)
    assert "LANGUAGE_NAMES" in run.stdout and "scorer/engine/cardnames.py" in run.stdout
    again = subprocess.run(["make", "--no-print-directory", "language", "L=pt", f"I18N={tmp_path}",
                            f"STAMP={tmp_path / 'stamp'}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode != 0 and "already" in again.stdout
