"""Every table the app shows, on the phones people have: 320 to 390 px wide, and on a desktop.

A club with long roster names ("Giulia Ferrari", twelve-letter short names), a match of three and one of
four with three-figure totals and thirds, a season table and a club night's ranking: at the narrowest
and the widest phone (320 and 390 px) and a desktop, in English, Italian, German and Finnish (the longest
words), every cell's text is whole and in sight with no sideways scrolling, no word (a name above all)
breaks inside, and the numbers read as the server computes them. Also here: the screenshots of the docs
(docs/screenshots/), light and dark, at 320, 360 and 390 px, each checked the same way.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from scorer import create_app
from scorer.engine import club_files, night_files
from scorer.engine.numbers import fraction_text
from scorer.engine.records import parse_match
from scorer.storage import club_transfer, store
from scorer.storage import clubs as club_store
from scorer.storage import nights as night_store
from scorer.web import get_db
from tests.browser.conftest import SCREENSHOTS, serve

pytestmark = pytest.mark.browser

WIDTHS = (320, 360, 390)
"""The phones of the docs' screenshots."""
EDGES = (320, 390)
"""The narrowest and the widest phone: every page is checked at both, in every language. Between them the
tables' rules are the same (static/app.css changes them at 32rem) and the room for a table only grows with
the width (the page's margins narrow below 360 px: 304 px of room at 320, 331 at 360, 361 at 390), so
320 px is the tightest; 360 px is checked where the docs' screenshots are made."""
DESKTOP = 1024
LANGUAGES = ("en", "it", "de", "fi")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

ROSTER = [{"name": "Giulia Ferrari"}, {"name": "Massimiliano Bonaventura", "short": "Massimiliano"},
          {"name": "Gianni"}, {"name": "Annamaria Lombardi", "short": "Annamaria Lo"},
          {"name": "Bartolomeo Esposito", "short": "Bartolomeo"}, {"name": "Ludovica Colombo"},
          {"name": "Costantino Romano", "short": "Costantino"}]
THREE = ["Giulia Ferrari", "Massimiliano", "Gianni"]
"""A club match's seats: a full roster name of two words, the longest short name, a short one."""
FOUR = ["Giulia Ferrari", "Massimiliano", "Gianni", "Annamaria Lo"]
NIGHT = [p["name"] for p in ROSTER]
"""Seven present: a table of four and one of three, each seat a full roster name."""


def points_hand(players: list[str], dealer: str, points: list[str]) -> dict[str, Any]:
    return {"dealer": dealer, "points": dict(zip(players, points, strict=True))}


def three_hands(players: list[str], count: int) -> list[dict[str, Any]]:
    """Hands that leave three-figure totals, one of them negative, with thirds."""
    shapes = (["166/3", "10", "38/3"], ["48", "61/3", "29/3"], ["51", "8", "19"])
    return [points_hand(players, players[i % 3], shapes[i % 3]) for i in range(count)]


def four_hands(players: list[str], count: int) -> list[dict[str, Any]]:
    shapes = (["121/3", "10", "44/3", "13"], ["35", "64/3", "9", "38/3"])
    return [points_hand(players, players[i % 4], shapes[i % 2]) for i in range(count)]


def match(title: str, players: list[str], hands: list[dict[str, Any]], roster: dict[str, str] | None = None,
          ) -> dict[str, Any]:
    data: dict[str, Any] = {"format": "scarto-match/1", "title": title, "date": "2026-12-03",
                            "ruleset": "four" if len(players) == 4 else "classic", "players": players,
                            "first_dealer": players[0], "end": {"hands": len(hands)}, "settle": "per_point",
                            "hands": hands}
    if seated := {k: v for k, v in (roster or {}).items() if k in players}:
        data["roster"] = seated
    return data


@pytest.fixture(scope="module")
def tables_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """The app with a club of long names, its matches of three and four, a season and a night played."""
    folder = tmp_path_factory.mktemp("widths")
    app = create_app({"DATABASE": str(folder / "widths.sqlite"), "SECRET_KEY": "browser-widths"})
    short_roster = {"Massimiliano": "Massimiliano Bonaventura", "Annamaria Lo": "Annamaria Lombardi"}
    with app.app_context():
        db = get_db()
        stake = {"per_point": "0.10", "currency": "EUR"}
        club = club_transfer.import_club(db, club_files.parse_club({
            "format": "scarto-club/1", "name": "Circolo del Tarocco",
            "defaults": {"ruleset": "classic", "settle": "per_point", "stake": stake},
            "players": ROSTER, "seasons": [{"name": "Inverno", "from": "2026-12-01", "to": "2027-02-28"}],
            "matches": [match("Tre", THREE, three_hands(THREE, 24), short_roster),
                        match("Quattro", FOUR, four_hands(FOUR, 20), short_roster),
                        match("Nomi interi", NIGHT[4:7], three_hands(NIGHT[4:7], 6))]}))
        matches = {m.settings["title"]: m for m in club_store.club_matches(db, club.id)}
        season = club_store.seasons(db, club.id)[0]
        spec = night_files.parse_night({"title": "Giovedì", "date": "2026-12-03", "players": NIGHT, "rounds": 2,
                                        "hands_per_round": 4, "seed": 3}, club.settings)
        night = night_store.create_night(db, club, spec)
        for table in night_store.tables(db, night.id):
            seats = list(table.players)
            shaped = four_hands(seats, 4) if len(seats) == 4 else three_hands(seats, 4)
            for hand in shaped:
                store.add_hand(db, table.match_id, hand)
        small = store.create_match(db, parse_match(match("Anna, Bruno, Carla", ["Anna", "Bruno", "Carla"],
                                                          [points_hand(["Anna", "Bruno", "Carla"], "Anna",
                                                                       ["20", "47", "11"])])))
        four = matches["Quattro"].id
        last, gone = store.list_hands(db, four)[-1], store.list_hands(db, four)[0]
        four_key = last.key
        changed = store.update_hand(db, four, last.key, {**last.record, "notes": "Rivista"},
                                    expected_version=last.version)
        store.delete_hand(db, four, gone.key, expected_version=gone.version)  # for the deleted hands' page
        giulia = next(p for p in club_store.roster(db, club.id) if p.name == "Giulia Ferrari")
    pages = {
        "match-small": f"/m/{small.edit_token}/",
        "match-three": f"/m/{matches['Tre'].edit_token}/",
        "match-four": f"/m/{matches['Quattro'].view_token}/",
        "hand-four": f"/m/{matches['Quattro'].view_token}/hands/{four_key}/",
        "history-four": f"/m/{matches['Quattro'].view_token}/hands/{changed.key}/history",
        "deleted-four": f"/m/{matches['Quattro'].view_token}/deleted",
        "club": f"/c/{club.edit_token}/",
        "season-table": f"/c/{club.edit_token}/table?season={season.id}",
        "player": f"/c/{club.edit_token}/p/{giulia.id}",
        "night": f"/n/{night.view_token}/",
    }
    yield from ((base, pages) for base in serve(app))


CLIPPED = r"""() => {
    const problems = [];
    const page = document.documentElement, width = page.clientWidth;
    if (page.scrollWidth > width) problems.push(`the page scrolls sideways: ${page.scrollWidth} px in ${width}`);
    for (const el of document.querySelectorAll('main *')) {
        const r = el.getBoundingClientRect();
        if (r.width && (r.right > width + 0.5 || r.left < -0.5))
            problems.push(`${el.tagName.toLowerCase()}.${el.className} beyond the screen's edge`);
    }
    for (const table of document.querySelectorAll('main table')) {
        if (!table.getClientRects().length) continue;  // a closed <details>
        const name = 'table.' + (table.className || table.id || '?').split(' ')[0];
        const box = table.parentElement, b = box.getBoundingClientRect(), t = table.getBoundingClientRect();
        const right = Math.min(b.right, width);
        if (t.right > right + 0.5)
            problems.push(`${name}: ${Math.round(t.width)} px in a ${Math.round(b.width)} px box`);
        if (box.scrollWidth > box.clientWidth) problems.push(`${name}: its box scrolls sideways`);
        for (const cell of table.querySelectorAll('th, td')) {
            if (!cell.getClientRects().length) continue;
            const c = cell.getBoundingClientRect();
            const text = cell.innerText.trim().replace(/\s+/g, ' ');
            if (cell.scrollWidth > cell.clientWidth) problems.push(`${name}: "${text}" clipped in its cell`);
            if (c.right > right + 0.5) problems.push(`${name}: "${text}" out of sight`);
            const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
            for (let node = walk.nextNode(); node; node = walk.nextNode()) {
                if (node.parentElement.closest('.sr')) continue;  // for screen readers only
                // a word may break after a hyphen or at a soft hyphen (Karten-punkte), nowhere else
                for (const word of node.data.matchAll(/[^\s\u00ad]+?(?=[\s\u00ad]|$|(?<=[^\s-]-)[^-])/g)) {
                    const range = document.createRange();
                    range.setStart(node, word.index);
                    range.setEnd(node, word.index + word[0].length);
                    const rects = [...range.getClientRects()].filter(r => r.width > 0);
                    if (node.data[word.index - 1] === '\u00ad' && rects.length > 1) rects.shift();  // its hyphen
                    if (new Set(rects.map(r => Math.round(r.bottom))).size > 1)
                        problems.push(`${name}: "${word[0]}" broken over lines`);
                    if (rects.some(r => r.right > Math.min(c.right, right) + 0.5 || r.left < c.left - 0.5))
                        problems.push(`${name}: "${word[0]}" sticks out of its cell`);
                }
            }
        }
    }
    return problems;
}"""
"""What is clipped or out of sight in the page's tables: the page or a table's box scrolling sideways, a
table wider than its box, a cell's text clipped or beyond the box's right edge, a word broken over lines
(a name as "Giann/i") or sticking out of its cell."""


def clipped(page: Any) -> list[str]:
    return list(dict.fromkeys(page.evaluate(CLIPPED)))


def visit(page: Any, url: str, language: str) -> None:
    page.goto(f"{url}{'&' if '?' in url else '?'}lang={language}")


@pytest.fixture(scope="module")
def phones(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[dict[int, Any]]:
    """A page at each phone's width and a desktop's, kept for the module. Without the service worker:
    online it hands the server's page through unchanged (tests/browser/test_offline.py tests it), and
    going through it made each of the module's ~160 visits cost about half as much again."""
    contexts = {w: browser.new_context(**{**browser_context_args, "viewport": {"width": w, "height": 800},
                                          "service_workers": "block"})
                for w in (*WIDTHS, DESKTOP)}
    yield {w: c.new_page() for w, c in contexts.items()}
    for context in contexts.values():
        context.close()


def standings(page: Any, base: str, path: str) -> dict[str, str]:
    """Each player's total as the server computes it, written as the pages write numbers."""
    data = page.request.get(base + path + "standings.json").json()
    return {p["name"]: fraction_text(Fraction(str(p["total"]))) for p in data["players"]}


@pytest.mark.parametrize("name", ["match-small", "match-three", "match-four", "hand-four", "history-four",
                                  "deleted-four", "club", "season-table", "player", "night"])
def test_every_table_is_whole_at_phone_widths(phones: dict[int, Any], tables_site: Any, name: str) -> None:
    """Each page at 320 and 390 px (and a desktop's 1024) in four languages: nothing clipped, hidden
    or broken."""
    base, pages = tables_site
    SCREENSHOTS.mkdir(exist_ok=True)
    found = {}
    for width in (*EDGES, DESKTOP):
        page = phones[width]
        for language in LANGUAGES:
            visit(page, base + pages[name], language)
            if problems := clipped(page):
                found[f"{width} px, {language}"] = problems
            if problems or language == "it":
                page.screenshot(path=str(SCREENSHOTS / f"widths-{name}-{width}-{language}.png"), full_page=True)
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)


@pytest.mark.parametrize("name", ["match-small", "match-three", "match-four"])
def test_the_standings_read_whole_at_phone_widths(phones: dict[int, Any], tables_site: Any, name: str) -> None:
    """The totals row says each player's total as the server has it, every figure inside the screen."""
    base, pages = tables_site
    expected = standings(phones[390], base, pages[name])
    for page in (phones[w] for w in (*EDGES, DESKTOP)):
        visit(page, base + pages[name], "it")
        footer = page.locator("table.standings tfoot th.num")
        assert footer.all_inner_texts() == list(expected.values())
        width = page.evaluate("document.documentElement.clientWidth")
        for i in range(footer.count()):
            box = footer.nth(i).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width


DOC_TABLES = {"match": ("match-four", "table.standings"), "season-table": ("season-table", "table.club-table"),
              "night-ranking": ("night", "table.night-ranking")}
"""The docs' screenshots: a page of the site above and the table on it."""

FRAME = """(selector) => {
    const table = document.querySelector(selector), box = table.closest('.scroll') || table;
    let head = box.previousElementSibling;
    while (head && !/^H[12]$/.test(head.tagName)) head = head.previousElementSibling;
    const top = (head || box).getBoundingClientRect().top, end = box.getBoundingClientRect().bottom;
    return [Math.max(0, top + scrollY - 8), end - top + 16];
}"""
"""Where the table is on the page, from its heading: the top and the height of the picture."""


def test_screenshots_of_the_tables_at_phone_widths(phones: dict[int, Any], tables_site: Any) -> None:
    """The four-player match's standings, the season table and the night's ranking, in Italian, at each
    width, light and dark: into tests/screenshots/, and into docs/screenshots/ with DOCS_SCREENSHOTS=1
    (``DOCS_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_widths.py -k screenshots``)."""
    base, pages = tables_site
    folder = DOCS if os.environ.get("DOCS_SCREENSHOTS") else SCREENSHOTS
    folder.mkdir(exist_ok=True)
    for width in WIDTHS:
        page = phones[width]
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for shot, (name, table) in DOC_TABLES.items():
                visit(page, base + pages[name], "it")
                assert clipped(page) == [], (shot, width, scheme)
                top, height = page.evaluate(FRAME, table)
                page.screenshot(path=str(folder / f"{shot}-{width}-{scheme}.png"), full_page=True,
                                clip={"x": 0, "y": top, "width": width, "height": height})
        page.emulate_media(color_scheme="light")


@pytest.mark.parametrize("name", ["club", "player"])
def test_the_ratings_read_whole_at_phone_widths(phones: dict[int, Any], tables_site: Any, name: str) -> None:
    """The club's ratings table and the player's rating, in Italian and English at 390 and 320 px: each
    number as ratings.json has it, whole and inside the screen, "provisional" said in words."""
    base, pages = tables_site
    club = pages["club"].split("/c/")[1].split("/")[0]
    document = phones[390].request.get(f"{base}/c/{club}/ratings.json").json()["players"]
    provisional = {"it": "provvisoria", "en": "provisional"}
    for width in (390, 320):
        page = phones[width]
        for language in ("it", "en"):
            visit(page, base + pages[name], language)
            assert clipped(page) == [], (width, language)
            page.screenshot(path=str(SCREENSHOTS / f"ratings-{name}-{width}-{language}.png"), full_page=True)
            if name == "club":
                numbers = page.locator("table.ratings tbody td:nth-child(3)")
                assert numbers.all_inner_texts() == [str(p["rating"]) for p in document]
                names = page.locator("table.ratings tbody td:nth-child(2)").all_inner_texts()
                assert all(provisional[language] in n for n in names)  # a few matches each: all provisional
            else:
                numbers = page.locator("p.rating b")
                giulia = next(p for p in document if p["name"] == "Giulia Ferrari")
                assert numbers.all_inner_texts() == [str(giulia["rating"])]
                assert provisional[language] in page.locator("p.rating").inner_text()
                assert page.locator("svg.chart polyline").count() == 2  # the running total's and the rating's
            screen = page.evaluate("document.documentElement.clientWidth")
            for i in range(numbers.count()):
                box = numbers.nth(i).bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= screen, (width, language, i)
