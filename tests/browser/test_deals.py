"""Laying a board out on a phone: the deal set's pages at 320 px, ticks counted, kept and moved on."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from scorer.engine.deals import deal_board
from tests.browser.conftest import Taps, no_overflow, violations

pytestmark = pytest.mark.browser


def test_a_board_is_laid_out_seat_by_seat_on_a_phone(page: Any, live_server: str, taps: Taps, shot: Any,
                                                      axe_source: str) -> None:
    page.set_viewport_size({"width": 320, "height": 700})
    page.goto(live_server + "/?lang=it")
    taps.tap("text=Distribuisci smazzate")
    page.fill("input[name=seed]", "Circolo 6 dicembre")
    page.fill("input[name=boards]", "4")
    taps.tap("button[type=submit]")
    assert page.locator("h1").inner_text() == "Smazzate di Circolo 6 dicembre"
    assert no_overflow(page) == []
    taps.tap("text=Smazzata 2")
    board = deal_board("Circolo 6 dicembre", 2)
    seat2 = page.locator("details.seat").nth(1)
    expect(page.locator("details.seat[open]")).to_have_count(1)  # seat 1 open (once deals.js runs): one at a time
    seat2.locator("summary").click()
    assert seat2.get_attribute("open") is not None and page.locator("details.seat[open]").count() == 1
    boxes = seat2.locator("input[type=checkbox]")
    assert boxes.count() == 25 and [int(boxes.nth(i).get_attribute("data-card")) for i in range(25)] == \
        list(board.hands[1])
    boxes.nth(0).check()
    boxes.nth(1).check()
    assert seat2.locator(".laid").inner_text() == "2 di 25 messe"
    shot("deals-board-320")
    assert no_overflow(page) == []
    assert violations(page, axe_source) == []
    page.reload()  # the ticks stay while the board is laid out
    seat2 = page.locator("details.seat").nth(1)
    expect(page.locator("details.seat[open]")).to_have_count(1)
    seat2.locator("summary").click()
    expect(seat2.locator(".laid")).to_have_text("2 di 25 messe")
    for i in range(2, 25):
        seat2.locator("input[type=checkbox]").nth(i).check()
    assert "done" in (seat2.get_attribute("class") or "")
    assert page.locator("details.seat").nth(2).get_attribute("open") is not None  # on to the next seat
    assert taps.count == 3  # the form, its button, the board: then only the cards themselves
