"""A club night on phones: the director seats nine players from the roster, three phones record at
the three tables, the director's view follows by itself, round 2 is seated with no repeated
opponent, and the members' view shows the ranking."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, Taps, no_overflow
from tests.browser.handflows import type_into

pytestmark = pytest.mark.browser

NINE = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Ugo", "Zeno"]
POINTS = [("31", "22"), ("20", "30"), ("26", "26")]


def record_points(page: Any, taps: Taps, first: str, second: str) -> None:
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", first)
    type_into(page, taps, "#points_1", second)
    taps.tap("#save")
    expect(page.locator(".flash")).to_contain_text("saved")


def snap(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.mark.slow


def test_a_club_night_on_four_phones(browser: Any, browser_context_args: dict[str, Any], live_server: str,
                                     page: Any, taps: Taps) -> None:
    # the director's club, made over the JSON interface (making clubs is test_clubs' flow)
    made = page.request.post(live_server + "/api/clubs", data={
        "format": "scarto-club/1", "name": "Circolo Arci", "players": NINE, "defaults": {"language": "en"}})
    assert made.status == 201
    club_url = made.json()["edit_url"]

    # the director creates the night from the club's edit link
    page.goto(club_url)
    taps.tap("text=Club night")
    expect(page.locator("h1")).to_have_text("New club night")
    page.fill("#title", "Thursday night")
    for name in NINE:
        taps.tap(f"label.choice:has-text('{name}')")
    page.fill("#rounds", "2")
    page.fill("#seed", "7")
    assert no_overflow(page) == []
    snap(page, "night-new")
    taps.tap("text=Seat the first round")
    expect(page.locator(".flash")).to_contain_text("round 1 is at the tables")
    tables = page.locator("li.night-table")
    expect(tables).to_have_count(3)
    expect(page.locator("li.night-table .status").first).to_contain_text("0 of 3 hands")
    director_url = page.url
    links = [tables.nth(i).locator("a:has-text(\"Open the table's match\")").get_attribute("href") for i in range(3)]
    page.locator("summary:has-text('QR code of the table')").first.click()
    expect(page.locator("li.night-table .qr svg").first).to_be_visible()
    assert no_overflow(page) == []
    snap(page, "night-director-round-1")

    # three phones, one at each table
    phones = []
    for i, link in enumerate(links):
        context = browser.new_context(**browser_context_args)
        phone = context.new_page()
        phone.goto(live_server + link)
        expect(phone.locator("h1")).to_contain_text(f"Thursday night, round 1, table {i + 1}")
        phones.append((context, phone, Taps(phone)))

    # the first hand at table 2 reaches the director's screen by itself, no reload, and what the
    # director was typing meanwhile stays, the caret where it was
    page.fill("#reason", "waiting for Ugo")
    page.locator("#reason").evaluate("f => f.setSelectionRange(7, 7)")
    _context, phone, phone_taps = phones[1]
    record_points(phone, phone_taps, *POINTS[0])
    expect(page.locator("li.night-table[data-table='2'] .status")).to_contain_text("1 of 3 hands", timeout=10_000)
    assert page.url == director_url
    expect(page.locator("#reason")).to_have_value("waiting for Ugo")
    assert page.evaluate("[document.activeElement.id, document.activeElement.selectionStart]") == ["reason", 7]
    for _context, phone, phone_taps in phones:
        for first, second in POINTS[(1 if phone is phones[1][1] else 0):]:
            record_points(phone, phone_taps, first, second)
    snap(phones[0][1], "night-table-phone")
    expect(page.locator("li.night-table[data-done='yes']")).to_have_count(3, timeout=10_000)
    expect(page.locator("li.night-table .status").first).to_contain_text("done")
    expect(page.locator("table.night-ranking tbody tr")).to_have_count(9)
    snap(page, "night-director-round-1-done")

    # the next round: seated with no repeated opponent
    taps.tap("text=Start round 2")
    expect(page.locator(".flash")).to_contain_text("Round 2 is seated.")
    expect(page.locator("#round h2")).to_have_text("Round 2")
    night = page.request.get(director_url + "night.json").json()
    assert len(night["rounds"]) == 2
    pairs = [frozenset(p) for r in night["rounds"] for t in r["tables"] for p in combinations(t["players"], 2)]
    assert len(pairs) == len(set(pairs)) == 18
    snap(page, "night-director-round-2")

    # the members' view: the same ranking, each round's tables, nothing to change
    members_url = page.locator("input.link").input_value()
    members = browser.new_context(**browser_context_args).new_page()
    members.goto(members_url)
    expect(members.locator("main")).to_contain_text("Members' link")
    rows = members.locator("table.night-ranking tbody tr")
    expect(rows).to_have_count(9)
    leader = night["ranking"][0]["name"]
    expect(rows.first).to_contain_text(leader)
    expect(members.locator("form")).to_have_count(0)
    members.locator("summary:has-text('Round 1')").click()
    expect(members.locator("details li").first).to_contain_text("Table 1")
    assert no_overflow(members) == []
    snap(members, "night-members")
    # a hand at round 2 shows on the members' phone by itself too
    round_two = browser.new_context(**browser_context_args).new_page()
    round_two.goto(night["rounds"][1]["tables"][0]["match_url"])
    record_points(round_two, Taps(round_two), *POINTS[0])
    expect(members.locator("li.night-table[data-table='1'] .status")).to_contain_text("1 of 3 hands", timeout=10_000)
    for context, _phone, _taps in phones:
        context.close()


def test_a_night_shared_too_widely_gets_new_links_for_it_and_its_tables(page: Any, live_server: str,
                                                                          taps: Taps) -> None:
    """The director's page has the share page's two steps: the old night links and table links open
    nothing after, the new page's tables open their matches."""
    made = page.request.post(live_server + "/api/clubs", data={
        "format": "scarto-club/1", "name": "Circolo Arci", "players": NINE, "defaults": {"language": "de"}})
    club_url = made.json()["edit_url"]
    night = page.request.post(club_url + "nights", headers={"Content-Type": "application/json"}, data={
        "format": "scarto-night/1", "title": "Donnerstag", "players": NINE, "rounds": 2, "seed": 7})
    assert night.status == 201, night.text()
    old_edit, old_view = night.json()["edit_url"], night.json()["view_url"]
    page.goto(old_edit + "?lang=de")
    old_tables = [page.locator("li.night-table a.button").nth(i).get_attribute("href") for i in range(3)]
    expect(page.locator("#renew-confirm")).to_be_hidden()
    taps.tap("#renew summary")
    expect(page.locator(".renew")).to_contain_text("Tischkarten neu")
    assert no_overflow(page) == []
    snap(page, "night-renew-de")
    taps.tap("#renew-confirm")
    expect(page.locator(".flash")).to_contain_text("öffnen diesen Abend nicht mehr")
    expect(page.locator("h1")).to_have_text("Donnerstag")
    assert page.url != old_edit
    new_tables = {page.locator("li.night-table a.button").nth(i).get_attribute("href") for i in range(3)}
    assert not new_tables & set(old_tables)
    assert no_overflow(page) == []
    snap(page, "night-renewed-de")
    for url in (old_edit, old_view, *(live_server + href for href in old_tables)):
        gone = page.goto(url)
        assert gone is not None and gone.status == 404, url
    page.goto(live_server + sorted(new_tables)[0])
    expect(page.locator("h1")).to_be_visible()
    response = page.goto(club_url)
    assert response is not None and response.status == 200  # the club's own links stay
def test_a_night_of_seven_says_what_its_table_of_four_plays(page: Any, live_server: str) -> None:
    """A night on the classic rules: its table of four plays them with the four deal (not the rule sheet's
    four-player preset), and the night's page says so in words under that table."""
    club = page.request.post(live_server + "/api/clubs", data={
        "format": "scarto-club/1", "name": "Circolo del Tarocco", "players": NINE[:7],
        "defaults": {"language": "it", "ruleset": "classic"}})
    assert club.status == 201, club.text()
    night = page.request.post(club.json()["edit_url"] + "nights", data={
        "format": "scarto-night/1", "title": "Giovedì", "players": NINE[:7], "rounds": 2, "seed": 7})
    assert night.status == 201, night.text()
    page.goto(night.json()["edit_url"] + "?lang=it")
    four = page.locator("li.night-table").filter(has=page.locator("p.rules"))
    expect(four).to_have_count(1)
    expect(four.locator("p.rules")).to_have_text(
        "Regole: classico — Distribuzione: quattro giocatori: 19 carte a testa, un monte di 2 carte")
    assert no_overflow(page) == []
    snap(page, "night-table-of-four")
    page.goto(live_server + (four.locator("a.button").get_attribute("href") or ""))
    exported = page.request.get(page.url + "export.json").json()
    assert exported["ruleset"] == {"preset": "classic", "deal": "four"} and len(exported["players"]) == 4
