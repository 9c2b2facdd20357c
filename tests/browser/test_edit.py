"""A hand recorded wrong is changed, then the change is undone from the hand's history."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Taps, no_overflow
from tests.browser.handflows import (
    expect_match_page,
    hand_page_scores,
    new_match,
    new_match_links,
    stored_hands,
    type_into,
)

pytestmark = pytest.mark.browser


def test_edit_a_hand_then_restore_the_old_version(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    match_url = new_match(page, live_server)
    page.goto(match_url)
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    taps.tap("#save")
    expect_match_page(page, saved="Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.", next_hand=2,
                      next_dealer="Bruno", totals=("5", "-4", "-1"))

    # Anna's 31 was really 40: change the hand
    taps.tap("table.standings tbody tr:nth-child(1) a")
    taps.tap("#edit")
    expect(page.locator("h1")).to_contain_text("Change hand 1")
    for field, value in (("#points_0", "31"), ("#points_1", "22"), ("#points_2", "25")):
        expect(page.locator(field)).to_have_value(value)  # reopened as it was recorded
    expect(page.locator("#points_2")).to_have_class("num auto")  # the last is the rest, as in a new hand
    type_into(page, taps, "#points_0", "40")  # the tap selects Anna's 31: typing replaces it
    expect(page.locator("#points_0")).to_have_value("40")
    expect(page.locator("#points_2")).to_have_value("16")  # Carla's rest follows
    expect(page.locator("#points-total")).to_have_text("Total 78 of 78")
    assert no_overflow(page) == []
    shot("hand-edit")
    taps.tap("#save")
    expect_match_page(page, saved="Hand 1 changed: Anna 14 · Bruno -4 · Carla -10.", next_hand=2,
                      next_dealer="Bruno", totals=("14", "-4", "-10"))
    assert stored_hands(page, match_url)[0]["points"] == {"Anna": 40, "Bruno": 22, "Carla": 16}
    taps.tap("table.standings tbody tr:nth-child(1) a")
    assert hand_page_scores(page) == {"Anna": "14", "Bruno": "-4", "Carla": "-10"}

    # on second thoughts the first count was right: restore it from the history
    taps.tap("#history")
    expect(page.locator("h1")).to_have_text("History of hand 1")
    revisions = page.locator("ol.revisions > li")
    expect(revisions.locator("h2")).to_have_text(["Version 2: edited — current", "Version 1: created"])
    expect(page.locator("#v2 tr.changed td").first).to_have_text("Anna")  # what the edit changed
    expect(page.locator("#v2 tr.changed")).to_have_count(2)
    assert no_overflow(page) == []
    shot("hand-history-edited")
    taps.tap("#v1 button")
    expect(page.locator(".flash")).to_have_text("Version 1 restored: the hand counts it now.")
    expect(revisions.locator("h2")).to_have_text(
        ["Version 3: restored — current", "Version 2: edited", "Version 1: created"])
    expect(page.locator("#v1")).to_contain_text("Same as the current version.")
    expect(page.locator("#v2 button")).to_have_text("Restore version 2")  # the edit is not lost either
    assert no_overflow(page) == []
    shot("hand-history-restored")

    taps.tap("a:text-is(\"Hand 1\")")
    assert hand_page_scores(page) == {"Anna": "5", "Bruno": "-4", "Carla": "-1"}
    expect(page.locator("#standings-after tbody tr").first).to_contain_text("5")
    taps.tap("#back")
    expect(page.locator("table.standings tfoot th.num")).to_have_text(["5", "-4", "-1"])
    expect(page.locator(".next h2")).to_have_text("Hand 2 — Bruno deals")
    assert [h["points"] for h in stored_hands(page, match_url)] == [{"Anna": 31, "Bruno": 22, "Carla": 25}]


def test_the_view_only_link_shows_a_hand_but_cannot_change_it(page: Any, live_server: str, shot: Any) -> None:
    match_url, view_url = new_match_links(page, live_server)
    page.goto(match_url)
    page.locator("#record-points").click()
    page.locator("#points_0").fill("31")
    page.locator("#points_1").fill("22")
    page.locator("#save").click()
    key = page.locator("table.standings tbody a").first.get_attribute("href").rstrip("/").rsplit("/", 1)[-1]

    page.goto(view_url)
    page.locator("table.standings tbody a").first.click()
    assert hand_page_scores(page) == {"Anna": "5", "Bruno": "-4", "Carla": "-1"}
    expect(page.locator("#edit")).to_have_count(0)
    expect(page.locator("#delete")).to_have_count(0)
    assert no_overflow(page) == []
    shot("hand-view-only")
    page.locator("#history").click()
    expect(page.locator("ol.revisions > li")).to_have_count(1)
    expect(page.locator("main form")).to_have_count(0)  # no restore, no delete
    for path in (f"hands/{key}/edit", "hands/new/live", "hands/new/cards"):
        response = page.goto(view_url + path)
        assert response is not None and response.status == 403, path
        expect(page.locator("main")).to_contain_text("view-only link")
    # live.js's check, even with a good form token (this phone also has the edit link), is refused as JSON
    page.goto(match_url + "hands/new/live")
    csrf = page.locator("input[name=csrf_token]").input_value()
    check = page.request.post(view_url + "hands/live/check", data={"dealer": "Anna", "tricks": []},
                              headers={"Content-Type": "application/json", "X-CSRFToken": csrf})
    assert check.status == 403
    assert "view-only link" in check.json()["error"]
    assert stored_hands(page, match_url)[0]["points"] == {"Anna": 31, "Bruno": 22, "Carla": 25}
