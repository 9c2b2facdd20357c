"""A duplicate club night on two phones, in Italian at 390 px: the director seats seven players
(a table of three and one of four) for two rounds of one board; a player's phone opens each
table's match, sees its board and lays it out from the board's page, records the hand; the
director's view follows by itself and ranks by matchpoints."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, Taps, no_overflow, violations
from tests.browser.handflows import type_into

pytestmark = pytest.mark.browser

SEVEN = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina"]


def snap(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def record_table(phone: Any, taps: Taps, url: str, board: int, *, look: bool = False) -> None:
    """The table's phone: its match names the board and who deals it; the hand is recorded by points."""
    phone.goto(url)
    taps.tap("details.night-boards summary")
    boards = phone.locator("details.night-boards ol.boards li")
    expect(boards).to_have_count(1)
    expect(boards.first).to_contain_text(f"Mano 1: smazzata {board}")
    expect(phone.locator("details.night-boards summary")).to_have_text(f"Smazzata duplicata {board}")
    kind = "four" if phone.locator("h1:has-text('tavolo 2')").count() else "three"
    if look:  # the table's match with its board, then the board's page: one seat at a time
        assert no_overflow(phone) == []
        snap(phone, f"night-duplicate-table-{kind}-it")
        taps.tap("details.night-boards ol.boards a")
        expect(phone.locator("h1")).to_have_text(f"Smazzata {board} di 2")
        assert no_overflow(phone) == []
        snap(phone, f"night-duplicate-board-{board}-{kind}-it")
        phone.go_back()
    taps.tap("#record-points")
    points = ("25", "20", "18") if kind == "four" else ("31", "25")  # read on the match page: the form may still load
    for i, value in enumerate(points):
        type_into(phone, taps, f"#points_{i}", value)
    taps.tap("#save")
    expect(phone.locator(".flash")).to_be_visible(timeout=15_000)


@pytest.mark.slow
def test_a_duplicate_night_of_seven_on_two_phones(browser: Any, browser_context_args: dict[str, Any],
                                                   live_server: str, page: Any, taps: Taps, axe_source: str) -> None:
    made = page.request.post(live_server + "/api/clubs", data={
        "format": "scarto-club/1", "name": "Circolo Arci", "players": SEVEN, "defaults": {"language": "it"}})
    assert made.status == 201
    page.goto(made.json()["edit_url"] + "?lang=it")

    # the director: a night of two rounds, duplicate, one board a round
    taps.tap("text=Serata del circolo")
    page.fill("#title", "Giovedì duplicato")
    for name in SEVEN:
        taps.tap(f"label.choice:has-text('{name}')")
    page.fill("#rounds", "2")
    taps.tap("label.choice:has-text('Duplicato')")
    page.fill("#boards", "1")
    assert no_overflow(page) == []
    snap(page, "night-duplicate-new-it")
    taps.tap("text=Fai sedere il primo turno")
    tables = page.locator("li.night-table")
    expect(tables).to_have_count(2)
    expect(page.locator("li.night-table p.boards a")).to_have_count(2)
    expect(page.locator("li.night-table p.boards").first).to_contain_text("smazzata 1")
    assert no_overflow(page) == []
    snap(page, "night-duplicate-director-round-1-it")

    # the second phone, a player's, at each table in turn
    phone = browser.new_context(**browser_context_args).new_page()
    phone_taps = Taps(phone)
    phone.goto(live_server + "/?lang=it")
    for round_ in (1, 2):
        links = [tables.nth(i).locator("a.button").get_attribute("href") for i in range(2)]
        for link in links:
            record_table(phone, phone_taps, live_server + link, round_, look=round_ == 1)
        expect(page.locator("li.night-table[data-done='yes']")).to_have_count(2, timeout=10_000)
        if round_ == 1:
            taps.tap("text=Avvia il turno 2")
            expect(page.locator(".flash")).to_contain_text("Il turno 2")
            expect(page.locator("li.night-table p.boards").first).to_contain_text("smazzata 2")

    # the director's view ranks by matchpoints: the three and the four play different deals, so
    # each seat's only result is its board's average, 50 %
    rows = page.locator("table.duplicate-ranking tbody tr")
    expect(rows).to_have_count(7)
    for i in range(7):
        expect(rows.nth(i)).to_contain_text("50,00")
    expect(page.locator("h2:has-text('Classifica finale')")).to_be_visible()
    assert no_overflow(page) == []
    assert violations(page, axe_source) == []
    snap(page, "night-duplicate-director-final-it")
    # the members' view on the player's phone: the same ranking
    phone.goto(page.locator("input.link").input_value())
    expect(phone.locator("table.duplicate-ranking tbody tr")).to_have_count(7)
    assert no_overflow(phone) == []
    snap(phone, "night-duplicate-members-it")

    # the session file, ranked on the club page with the night it came from as if another club sent it
    session = page.request.get(page.url + "session.json")
    assert session.status == 200 and session.json()["format"] == "scarto-duplicate/1"
    page.goto(made.json()["edit_url"])
    taps.tap("text=File di torneo duplicato")
    page.locator("#text").fill(session.text())
    page.select_option("#night", label="Mettilo in classifica con “Giovedì duplicato” (" + session.json()["date"] + ")")
    assert violations(page, axe_source) == []
    snap(page, "night-duplicate-session-file-it")
    taps.tap("text=Leggi il file")
    expect(page.locator("h1")).to_have_text("Giovedì duplicato, in classifica con l'altro circolo")
    expect(page.locator("table.duplicate-ranking tbody tr")).to_have_count(14)
    assert no_overflow(page) == []
    assert violations(page, axe_source) == []
    snap(page, "night-duplicate-merged-it")


def test_the_live_entry_offers_only_the_cards_of_the_player_to_play(page: Any, live_server: str, taps: Taps) -> None:
    made = page.request.post(live_server + "/api/clubs", data={
        "format": "scarto-club/1", "name": "Circolo Arci", "players": SEVEN[:3], "defaults": {"language": "it"}})
    night = page.request.post(made.json()["edit_url"] + "nights", headers={"Content-Type": "application/json"},
                              data={"format": "scarto-night/1", "title": "Giovedì", "players": SEVEN[:3],
                                    "rounds": 1, "duplicate": {"boards_per_round": 1}})
    assert night.status == 201, night.text()
    table = page.request.get(night.json()["edit_url"] + "night.json").json()["rounds"][0]["tables"][0]
    page.goto(table["match_url"] + "hands/new/live?lang=it")
    held = page.locator("#grid button[data-card]:not(.not-held)")
    expect(held).not_to_have_count(78)
    first = held.count()
    assert first in (25, 28)  # the leader's hand (the dealer's with the talon)
    faded = page.locator("#grid button.not-held").first
    assert faded.get_attribute("aria-disabled") == "true"
    faded.click(force=True)  # a tap on it all the same
    expect(page.locator("#tricks-text")).to_have_value("")  # a card the player did not hold is not played
    taps.tap("#grid button[data-card]:not(.not-held)")
    expect(page.locator("#tricks-text")).not_to_have_value("")
    expect(page.locator("#grid button.gone")).to_have_count(1)
    # the next player's cards are offered now, the card played stays in place, greyed
    expect(page.locator("#grid button[data-card]:not(.not-held):not(.gone)")).not_to_have_count(first - 1)
    assert no_overflow(page) == []
    snap(page, "night-duplicate-live-it")


@pytest.mark.parametrize("language", ["en", "de", "fi", "es", "it"])
def test_a_duplicate_night_reads_in_every_language_at_320_px(page: Any, live_server: str, language: str) -> None:
    """The director's page, the table's match and the session file form, at the narrowest phone."""
    page.set_viewport_size({"width": 320, "height": 700})
    made = page.request.post(live_server + "/api/clubs", data={
        "format": "scarto-club/1", "name": "Circolo Arci", "players": SEVEN, "defaults": {"language": language}})
    club = made.json()["edit_url"]
    night = page.request.post(club + "nights", headers={"Content-Type": "application/json"}, data={
        "format": "scarto-night/1", "title": "Giovedì", "players": SEVEN, "rounds": 2,
        "duplicate": {"boards_per_round": 2, "scoring": "difference"}})
    assert night.status == 201, night.text()
    data = page.request.get(night.json()["edit_url"] + "night.json").json()
    for table in data["rounds"][0]["tables"]:
        players = table["players"]
        points = dict(zip(players, (31, 25, 22) if len(players) == 3 else (25, 20, 18, 15), strict=True))
        hand = page.request.post(table["match_url"] + "hands.json", headers={"Content-Type": "application/json"},
                                 data={"dealer": players[0], "points": points})
        assert hand.status == 201, hand.text()
    for url, name in ((night.json()["edit_url"], "director"), (data["rounds"][0]["tables"][1]["match_url"], "table"),
                      (club + "duplicate", "session-file")):
        page.goto(url + f"?lang={language}")
        if name == "table":
            page.locator("details.night-boards summary").click()
        else:
            expect(page.locator("h1")).to_be_visible()
        snap(page, f"night-duplicate-{name}-320-{language}")
        assert no_overflow(page) == [], name
    page.goto(night.json()["edit_url"] + f"?lang={language}")
    expect(page.locator("table.duplicate-ranking tbody tr")).to_have_count(7)
