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


def test_revision_times_are_in_the_phones_own_time_zone(browser: Any, browser_context_args: dict[str, Any],
                                                        live_server: str) -> None:
    """The history said "15:37 (UTC)" to a table in Tokyo (or Rome): the phone's clock says 00:37."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    context = browser.new_context(**{**browser_context_args, "timezone_id": "Asia/Tokyo"})
    page = context.new_page()
    try:
        match_url = seeded(page, live_server, hands=3)
        page.goto(match_url)
        page.locator("table.standings tbody tr:nth-child(2) a").first.click()
        page.locator("#history").click()
        time = page.locator("ol.revisions time").first
        stamp = time.get_attribute("datetime")
        assert stamp is not None and stamp.endswith("Z")
        tokyo = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(ZoneInfo("Asia/Tokyo"))
        expect(time).to_contain_text(f"{tokyo.day}, {tokyo.year}, {tokyo.hour % 12 or 12}:{tokyo:%M}")  # Dec 7, 1:40 AM
        expect(time).not_to_contain_text("UTC")
        assert "(UTC)" in (time.get_attribute("title") or "")  # the server's words, zone named
        page.goto(page.url + "?lang=it")
        month = "gen feb mar apr mag giu lug ago set ott nov dic".split()[tokyo.month - 1]
        expect(page.locator("ol.revisions time").first).to_have_text(f"{tokyo.day} {month} {tokyo.year}, {tokyo:%H:%M}")
        page.locator("text=Elimina la mano").first.click()
        page.goto(match_url + "deleted")
        expect(page.locator(".deleted-hands time").first).to_contain_text(tokyo.strftime("%Y"))
        expect(page.locator(".deleted-hands time").first).not_to_contain_text("UTC")
    finally:
        context.close()
