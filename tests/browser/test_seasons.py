"""A season ranked by each player's best N nights, on a phone: made with the club page's form, refused
with a bad N, and its table read whole at 320 and 390 px, in Italian and English."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scorer import create_app
from scorer.engine import club_files
from scorer.storage import club_transfer
from scorer.web import get_db
from tests.browser.conftest import SCREENSHOTS, serve
from tests.browser.test_widths import FOUR, ROSTER, THREE, clipped, four_hands, match, three_hands

pytestmark = pytest.mark.browser

SHORT = {"Massimiliano": "Massimiliano Bonaventura", "Annamaria Lo": "Annamaria Lombardi"}
WORDS = {
    "en": {"rule": "Ranked by each player's best 2 nights of the 3 played in the season", "create": "Add the season",
           "bad": "Write how many of each player's results count", "counted": "Which results counted"},
    "it": {"rule": "Classifica sulle 2 serate migliori di ciascun giocatore delle 3 giocate nella stagione",
           "create": "Aggiungi la stagione", "bad": "Scrivi quanti risultati di ciascun giocatore contano",
           "counted": "Quali risultati contano"},
}


def dated(data: dict[str, Any], day: str) -> dict[str, Any]:
    return {**data, "date": day}


@pytest.fixture(scope="module")
def season_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A club of long names with matches of three and four on three nights; yields the base URL and the
    club's edit token."""
    folder = tmp_path_factory.mktemp("seasons")
    app = create_app({"DATABASE": str(folder / "seasons.sqlite"), "SECRET_KEY": "browser-seasons"})
    with app.app_context():
        club = club_transfer.import_club(get_db(), club_files.parse_club({
            "format": "scarto-club/1", "name": "Circolo del Tarocco", "players": ROSTER,
            "matches": [dated(match("Tre", THREE, three_hands(THREE, 6), SHORT), "2026-12-03"),
                        dated(match("Quattro", FOUR, four_hands(FOUR, 4), SHORT), "2026-12-03"),
                        dated(match("Tre", THREE, three_hands(THREE, 3), SHORT), "2026-12-10"),
                        dated(match("Quattro", FOUR, four_hands(FOUR, 8), SHORT), "2026-12-17")]}))
    for base in serve(app):
        yield base, club.edit_token


@pytest.fixture(scope="module")
def phones(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[dict[int, Any]]:
    contexts = {w: browser.new_context(**{**browser_context_args, "viewport": {"width": w, "height": 800}})
                for w in (320, 390)}
    yield {w: c.new_page() for w, c in contexts.items()}
    for context in contexts.values():
        context.close()


@pytest.mark.parametrize("language", ["it", "en"])
@pytest.mark.parametrize("width", [320, 390])
def test_a_season_of_the_best_nights_made_on_a_phone_reads_whole(phones: dict[int, Any], season_site: Any,
                                                                 language: str, width: int) -> None:
    base, edit = season_site
    page, words = phones[width], WORDS[language]
    page.goto(f"{base}/c/{edit}/?lang={language}")
    page.click("#new-season summary")
    page.fill("#name", f"Inverno {language} {width}")
    page.fill("#start", "2026-12-01")
    page.fill("#end", "2027-02-28")
    page.select_option("#counts", "nights")
    page.fill("#best", "0")
    page.click(f"button:has-text('{words['create']}')")
    error = page.locator("#best-error")
    assert words["bad"] in error.inner_text() and error.is_visible()
    assert page.locator("#name").input_value() == f"Inverno {language} {width}"  # nothing typed is lost
    page.screenshot(path=str(SCREENSHOTS / f"season-form-{width}-{language}.png"), full_page=True)
    page.fill("#best", "2")
    page.click(f"button:has-text('{words['create']}')")
    page.wait_for_url("**/table?season=*")
    assert words["rule"] in page.locator("p.season-rule").inner_text()
    page.screenshot(path=str(SCREENSHOTS / f"season-best-{width}-{language}.png"), full_page=True)
    assert clipped(page) == [], (width, language)
    scores = page.locator("table.season-best tbody td:nth-child(3)")
    assert scores.count() == 4
    page.click(f"summary:has-text('{words['counted']}')")
    bold = page.locator("details.season-results li").first.locator("b")
    assert bold.count() == 2 and all(box["x"] + box["width"] <= width
                                     for box in (bold.nth(i).bounding_box() for i in range(bold.count())))
    assert clipped(page) == [], (width, language)
