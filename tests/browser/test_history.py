"""A player deletes a hand by mistake, undoes it, and looks back at a hand's history."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Taps, no_overflow
from tests.seed import match_file

pytestmark = pytest.mark.browser


def seeded(page: Any, live_server: str, hands: int = 6) -> str:
    """A match created through the JSON API, as a program would; returns its edit URL."""
    response = page.request.post(live_server + "/api/matches", data=match_file(hands),
                                 headers={"Content-Type": "application/json"})
    assert response.status == 201, response.text()
    return str(response.json()["edit_url"])


def test_delete_a_hand_and_undo_it(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    page.goto(seeded(page, live_server))
    expect(page.locator("table.standings tbody tr")).to_have_count(6)
    taps.tap("table.standings tbody tr:nth-child(2) a")
    taps.tap("#delete button")
    expect(page.locator(".flash.undo")).to_contain_text("Hand 2 deleted.")
    expect(page.locator("table.standings tbody tr")).to_have_count(5)
    assert no_overflow(page) == []
    shot("match-hand-deleted")
    taps.tap(".flash.undo button")
    expect(page.locator(".flash")).to_have_text("Hand 2 is back in the match.")
    expect(page.locator("table.standings tbody tr")).to_have_count(6)
    assert taps.count == 3


def test_history_and_deleted_hands(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    match_url = seeded(page, live_server)
    page.goto(match_url)
    taps.tap("table.standings tbody tr:nth-child(3) a")
    taps.tap("#history")
    expect(page.locator("h1")).to_have_text("History of hand 3")
    expect(page.locator("ol.revisions > li")).to_have_count(1)
    assert no_overflow(page) == []
    shot("history")
    taps.tap("text=Delete hand 3")
    page.goto(match_url + "deleted")
    expect(page.locator(".deleted-hands li h2")).to_have_text("Would be hand 3")
    assert no_overflow(page) == []
    shot("deleted-hands")
    taps.tap("text=Bring it back")
    expect(page.locator("table.standings tbody tr")).to_have_count(6)
