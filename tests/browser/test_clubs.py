"""A club on a phone: made, three matches started from its roster, hands recorded, its pages read,
a player renamed and two merged, and the view link that changes nothing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from scorer.web import LANGUAGES
from tests.browser.conftest import Taps, no_overflow
from tests.browser.handflows import type_into

pytestmark = pytest.mark.browser


def record_points(page: Any, taps: Taps, first: str, second: str) -> None:
    """One hand as counted points from the match page (the last player's points fill themselves in)."""
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", first)
    type_into(page, taps, "#points_1", second)
    taps.tap("#save")
    expect(page.locator(".flash")).to_contain_text("saved")


def open_club(page: Any, live_server: str, taps: Taps) -> None:
    """From the start page, where the phone keeps its clubs."""
    page.goto(live_server + "/")
    taps.tap(".matches a:has-text('Circolo Arci')")
    expect(page.locator("h1")).to_have_text("Circolo Arci")


@pytest.mark.slow


def test_a_club_from_start_to_season(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    page.goto(live_server + "/")
    taps.tap("text=Start a club")
    page.fill("#name", "Circolo Arci")
    page.fill("#roster", "Anna\nBruno\nCarla\nDora")
    page.fill("#end_hands", "2")
    shot("club-new")
    taps.tap("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Share the club Circolo Arci")
    expect(page.locator(".qr svg")).to_have_count(2)
    edit_url = page.locator("input.link").nth(0).input_value()
    view_url = page.locator("input.link").nth(1).input_value()
    assert edit_url != view_url
    shot("club-share")

    # match 1: three taps pick the players, one starts the match
    taps.tap("text=Back to the club")
    taps.tap("text=Start a match")
    before = taps.count
    for name in ("Anna", "Bruno", "Carla"):
        taps.tap(f"label.choice:has-text('{name}')")
    assert no_overflow(page) == []
    shot("club-start")
    taps.tap("text=Start the match")
    assert taps.count - before == 4
    expect(page.locator("h1")).to_have_text(re.compile(r"^Circolo Arci, \w{3} \d{1,2}, \d{4}, table 1$"))
    expect(page.locator(".flash")).to_contain_text("to deal first")
    record_points(page, taps, "31", "22")  # Anna 5, Bruno -4, Carla -1
    record_points(page, taps, "20", "30")  # Anna -6, Bruno 4, Carla 2: the match is over (two hands)

    # match 2: the same table again, one tap
    open_club(page, live_server, taps)
    taps.tap("text=Start a match")
    before = taps.count
    taps.tap("button:has-text('Anna, Bruno, Carla')")
    assert taps.count - before == 1
    record_points(page, taps, "30", "26")  # Anna 4, Bruno 0, Carla -4
    taps.tap("a:has-text('← Circolo Arci')")  # the match leads back to its club on this phone
    expect(page.locator("h1")).to_have_text("Circolo Arci")

    # match 3: two from the roster (most recent first) and a new name that joins it
    open_club(page, live_server, taps)
    taps.tap("text=Start a match")
    roster = page.locator("label.choice:has(input[name=player])")
    expect(roster).to_have_text(["Anna", "Bruno", "Carla", "Dora"])  # waits for the page
    taps.tap("label.choice:has-text('Anna')")
    taps.tap("label.choice:has-text('Dora')")
    page.fill("#new", "Ezio")
    taps.tap("text=Start the match")
    expect(page.locator("main")).to_contain_text("Ezio")
    record_points(page, taps, "26", "40")  # Anna 0, Dora 14, Ezio -14

    open_club(page, live_server, taps)
    rows = page.locator("table.club-table:not(.ratings) tbody tr")
    expect(rows).to_have_count(5)
    expect(page.locator("table.ratings tbody tr")).to_have_count(5)  # the ratings below the points
    expect(rows.nth(0)).to_contain_text("Dora")
    expect(rows.nth(1)).to_contain_text("Anna")
    assert no_overflow(page) == []
    shot("club-page")

    # a player page
    taps.tap("table.club-table:not(.ratings) a:has-text('Anna')")
    expect(page.locator("h1")).to_have_text("Anna")
    figures = page.locator("table.figures")
    expect(figures.locator("tr:has-text('Matches') td").first).to_have_text("3")
    expect(figures.locator("tr:has-text('Hands') td").first).to_have_text("4")
    expect(figures.locator("tr:has-text('Total') td").first).to_have_text("3")
    expect(figures.locator("tr:has-text('Best hand') td").first).to_have_text("5")
    expect(figures.locator("tr:has-text('Worst hand') td").first).to_have_text("-6")
    expect(page.locator(".chart-box svg polyline")).to_have_count(2)  # the rating's and the running total's
    expect(page.locator("p.rating")).to_contain_text("provisional")
    expect(page.locator("text=Head to head")).to_be_visible()
    assert no_overflow(page) == []
    shot("club-player")

    # the full table, sorted both ways, and a season
    open_club(page, live_server, taps)
    taps.tap("text=The full table")
    expect(page.locator("h1")).to_have_text("Table: All time")
    taps.tap("th a:has-text('Per hand')")
    expect(page.locator("th:has-text('Per hand')")).to_contain_text("▼")
    shot("club-table")
    open_club(page, live_server, taps)
    taps.tap("summary:has-text('New season')")
    page.fill("#name", "Inverno")
    page.fill("#start", "2020-01-01")
    page.fill("#end", "2099-12-31")
    taps.tap("button:has-text('Add the season')")
    expect(page.locator("h1")).to_have_text("Table: Inverno")
    expect(page.locator("table.club-table tbody tr")).to_have_count(5)
    assert no_overflow(page) == []
    shot("club-season")

    # rename Bruno, then merge Ezio (a typo at the table, say) into him
    open_club(page, live_server, taps)
    taps.tap("table.club-table a:has-text('Bruno')")
    page.fill("#name", "Bruno Bianchi")
    page.fill("#short", "BB")
    taps.tap("button:has-text('Rename')")
    expect(page.locator("h1")).to_contain_text("Bruno Bianchi")
    expect(page.locator("table.figures tr:has-text('Total') td").first).to_have_text("0")
    open_club(page, live_server, taps)
    taps.tap("table.club-table a:has-text('Ezio')")
    page.select_option("#into", label="Bruno Bianchi")
    taps.tap("button:has-text('Merge the two')")
    expect(page.locator(".flash")).to_contain_text("Merged: Bruno Bianchi now has every match of both.")
    expect(page.locator("table.figures tr:has-text('Matches') td").first).to_have_text("3")
    expect(page.locator("table.figures tr:has-text('Total') td").first).to_have_text("-14")
    expect(page.locator("text=Also played as: Bruno, Ezio")).to_be_visible()
    open_club(page, live_server, taps)
    expect(page.locator("main")).to_contain_text("Bruno is now called Bruno Bianchi")
    expect(page.locator("main")).to_contain_text("Ezio merged into Bruno Bianchi")
    expect(page.locator("table.club-table:not(.ratings) tbody tr")).to_have_count(4)
    expect(page.locator("table.ratings tbody tr")).to_have_count(4)  # merged: one rating, one history
    shot("club-history")

    # the view link: everything to read, nothing to change
    page.goto(view_url)
    expect(page.locator("main")).to_contain_text("View-only link")
    expect(page.locator("form")).to_have_count(0)
    expect(page.locator("text=Start a match")).to_have_count(0)
    shot("club-view-only")
    page.locator("table.club-table a").first.click()
    expect(page.locator("form")).to_have_count(0)
    for path in ("start", "settings", "add"):
        response = page.goto(view_url + path)
        assert response is not None and response.status == 403
        expect(page.locator("main")).to_contain_text("view-only link of the club")
    response = page.goto(view_url.replace("/c/", "/c/x"))
    assert response is not None and response.status == 404


@pytest.mark.slow


def test_the_club_pages_fit_a_phone_in_every_language(page: Any, live_server: str, shot: Any) -> None:
    from tests.seed import match_file

    body = {"format": "scarto-club/1", "name": "Circolo Arci Pinerolo",
            "defaults": {"stake": {"per_point": "0.10", "currency": "EUR"}},
            "players": ["Anna", "Bruno", "Carla"], "seasons": [{"name": "Inverno", "from": "2026-01-01",
                                                                 "to": "2026-12-31"}],
            "matches": [match_file(6), match_file(3)]}
    response = page.request.post(live_server + "/api/clubs", data=body, headers={"Content-Type": "application/json"})
    assert response.status == 201, response.text()
    edit = response.json()["edit_url"]
    for language in LANGUAGES:
        for path in ("", "table?season=1", "p/1", "start", "share", "file", "settings"):
            page.goto(f"{edit}{path}{'&' if '?' in path else '?'}lang={language}")
            expect(page.locator("html")).to_have_attribute("lang", language)
            assert no_overflow(page) == [], (language, path)
    page.goto(f"{edit}p/1?lang=fi")
    shot("club-player-fi")
    page.goto(f"{edit}settings?lang=de")
    page.locator("details summary").first.click()
    page.select_option("#ultimo", "true")
    assert no_overflow(page) == []
    shot("club-settings-switches-de")
    page.locator("button[type=submit]").click()
    page.goto(f"{edit}settings?lang=de")
    expect(page.locator("#ultimo")).to_have_value("true")


def test_a_large_clubs_file_goes_in_parts_from_one_phone_to_another_club(
        page: Any, live_server: str, taps: Taps, shot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The club's file page lists the parts; part 1 opened as a club, the others added on its file page."""
    from scorer.engine import club_files
    from tests.seed import match_file

    body = {"format": "scarto-club/1", "name": "Circolo Arci", "players": ["Anna", "Bruno", "Carla"],
            "matches": [match_file(n) for n in (6, 2, 5, 3)]}
    response = page.request.post(live_server + "/api/clubs", data=body, headers={"Content-Type": "application/json"})
    assert response.status == 201, response.text()
    edit = response.json()["edit_url"]
    monkeypatch.setattr(club_files, "CLUB_PART_BYTES", 24_000)  # the app runs in this process (conftest)
    page.goto(edit)
    taps.tap("a:has-text(\"The club's file\")")
    expect(page.locator("h1")).to_have_text("The club's file")
    rows = page.locator("table.parts tbody tr")
    count = rows.count()
    assert count >= 2
    expect(rows.first).to_contain_text("Part 1")
    assert no_overflow(page) == []
    shot("club-file-parts")
    links = [page.locator("table.parts a").nth(n).get_attribute("href") for n in range(count)]
    files = [page.request.get(f"{live_server}{link}").body() for link in links]
    assert [json.loads(f)["part"]["number"] for f in files] == list(range(1, count + 1))

    page.goto(live_server + "/clubs/import")
    page.set_input_files("input[type=file]", files={"name": "club-1.json", "mimeType": "application/json",
                                                    "buffer": files[0]})
    taps.tap("button[type=submit]")
    expect(page.locator(".flash")).to_contain_text(f"Part 1 of {count} imported")
    new_edit = page.locator("input.link").first.input_value()
    page.goto(new_edit + "file")
    for number, content in enumerate(files[1:], start=2):
        page.set_input_files("input[type=file]", files={"name": f"club-{number}.json",
                                                        "mimeType": "application/json", "buffer": content})
        taps.tap("button:has-text('Add the part')")
        expect(page.locator(".flash")).to_contain_text(f"Part {number} of {count} added")
    page.set_input_files("input[type=file]", files={"name": "again.json", "mimeType": "application/json",
                                                    "buffer": files[-1]})
    taps.tap("button:has-text('Add the part')")
    expect(page.locator(".problems")).to_contain_text("already")
    shot("club-file-part-refused")
    expect(page.locator("#add-part + p")).to_contain_text("The club has 4 matches now")


def test_a_club_shared_too_widely_gets_new_links_that_take_its_matches_with_them(
        page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    """The share page's two steps, as a match's: the old club links, and the club matches and nights the
    old edit link reached, open nothing after; the new ones open the same club."""
    from tests.seed import match_file

    body = {"format": "scarto-club/1", "name": "Circolo Arci", "players": ["Anna", "Bruno", "Carla"],
            "defaults": {"language": "it"}, "matches": [match_file(3)]}
    response = page.request.post(live_server + "/api/clubs", data=body, headers={"Content-Type": "application/json"})
    assert response.status == 201, response.text()
    old_edit, old_view = response.json()["edit_url"], response.json()["view_url"]
    night = page.request.post(old_edit + "nights", headers={"Content-Type": "application/json"}, data={
        "format": "scarto-night/1", "title": "Giovedì", "players": ["Anna", "Bruno", "Carla"], "rounds": 1})
    assert night.status == 201, night.text()
    old_night = night.json()["edit_url"]
    page.goto(old_edit + "?lang=it")
    old_matches = [page.locator(".matches a[href*='/m/']").nth(i).get_attribute("href")
                   for i in range(page.locator(".matches a[href*='/m/']").count())]
    assert len(old_matches) >= 2  # the club's own match and the night's table
    taps.tap("a[href$='/share']")
    expect(page.locator("#renew-confirm")).to_be_hidden()  # one step more: nothing replaced by a stray tap
    taps.tap("#renew summary")
    expect(page.locator("#renew-confirm")).to_be_visible()
    assert no_overflow(page) == []
    shot("club-renew-it")
    before = taps.count
    taps.tap("#renew-confirm")
    assert taps.count - before == 1
    expect(page.locator(".flash")).to_contain_text("non aprono più questo circolo, né le sue partite e serate")
    expect(page.locator(".renew .muted").last).to_contain_text("Link sostituiti:")
    new_edit = page.locator("input.link").nth(0).input_value()
    assert new_edit != old_edit and page.locator("input.link").nth(1).input_value() != old_view
    assert no_overflow(page) == []
    shot("club-renewed-it")
    page.set_viewport_size({"width": 320, "height": 700})
    assert no_overflow(page) == []
    shot("club-renewed-it-320")
    for url in (old_edit, old_view, old_night, *(live_server + href for href in old_matches)):
        gone = page.goto(url)
        assert gone is not None and gone.status == 404, url
    page.goto(new_edit)
    expect(page.locator("h1")).to_have_text("Circolo Arci")
    fresh = page.locator(".matches a[href*='/m/']")
    assert fresh.count() == len(old_matches)
    assert not {fresh.nth(i).get_attribute("href") for i in range(fresh.count())} & set(old_matches)
    taps.tap(".matches a[href*='/m/'] >> nth=0")
    expect(page.locator("h1")).to_be_visible()
    assert page.url.split("/m/")[1].strip("/") not in {h.split("/m/")[1].strip("/") for h in old_matches}
def test_a_match_from_the_roster_seats_the_players_as_tapped(page: Any, live_server: str, taps: Taps,
                                                             shot: Any) -> None:
    """Tapped Carla, Anna, Bruno: seated so (not in the list's order, which follows recent play), a seat
    moved up with its ↑, the first dealer chosen: the match is seated as the table sits."""
    body = {"format": "scarto-club/1", "name": "Circolo del Tarocco", "players": ["Anna", "Bruno", "Carla", "Franco"],
            "defaults": {"language": "it", "ruleset": "classic"}}
    created = page.request.post(live_server + "/api/clubs", data=json.dumps(body),
                                headers={"Content-Type": "application/json"})
    assert created.status == 201
    page.goto(created.json()["edit_url"] + "start")
    before = taps.count
    for name in ("Carla", "Anna", "Bruno"):
        taps.tap(f"label.choice:has-text('{name}')")
    seats = page.locator("#seats li .pname")
    expect(seats).to_have_text(["Carla", "Anna", "Bruno"])
    ids = [page.locator(f"label.choice:has-text('{n}') input").get_attribute("value") or ""
           for n in ("Carla", "Anna", "Bruno")]
    expect(page.locator("#order")).to_have_value(",".join(ids))
    expect(page.locator("#set-seats")).to_be_hidden()  # the seats follow the taps: no button to show them
    expect(page.locator("#draw")).to_be_checked()  # the app draws unless someone is chosen
    taps.tap("#seats li:has-text('Bruno') button[name=up]")
    expect(seats).to_have_text(["Carla", "Bruno", "Anna"])
    expect(page.locator("#seats li").first.locator("button[name=up]")).to_be_disabled()
    taps.tap("#seats li:has-text('Anna') .deal-pick")
    taps.tap("label.choice:has-text('Franco')")  # a fourth ticked by mistake, then taken back
    expect(seats).to_have_text(["Carla", "Bruno", "Anna", "Franco"])
    taps.tap("label.choice:has-text('Franco')")
    expect(seats).to_have_text(["Carla", "Bruno", "Anna"])
    assert no_overflow(page) == []
    shot("club-start-seats")
    taps.tap("#start")
    assert taps.count - before == 8
    expect(page.locator("h1")).to_have_text(re.compile(r"^Circolo del Tarocco, \d{1,2} \w{3} \d{4}, tavolo 1$"))
    expect(page.locator(".next h2")).to_have_text("Hand 1 — Anna deals")
    exported = page.request.get(page.url + "export.json").json()
    assert exported["players"] == ["Carla", "Bruno", "Anna"] and exported["first_dealer"] == "Anna"
