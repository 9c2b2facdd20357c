"""Two phones at one table: both record (or change) the same hand, and nothing is overwritten."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, Taps, no_overflow
from tests.browser.handflows import expect_match_page, new_match, stored_hands, totals, type_into
from tests.seed import dealt_by

pytestmark = pytest.mark.browser


@pytest.fixture()
def other_phone(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """A second phone: its own browser context (cookies, storage) at the same phone size."""
    context = browser.new_context(**browser_context_args)
    try:
        yield context.new_page()
    finally:
        context.close()


def snap(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def open_points(phone: Any, match_url: str, typed: tuple[str, str]) -> None:
    """Open "record points" from the match page and type two players' points."""
    phone.goto(match_url)
    phone.locator("#record-points").click()
    expect(phone.locator("h1")).to_contain_text("Hand 1")
    phone.locator("#points_0").click()
    phone.keyboard.type(typed[0])
    phone.locator("#points_1").click()
    phone.keyboard.type(typed[1])


def test_two_phones_save_the_next_hand_at_once(page: Any, other_phone: Any, live_server: str) -> None:
    match_url = new_match(page, live_server)
    phones = {"A": page, "B": other_phone}
    open_points(page, match_url, ("31", "22"))        # Anna 5 · Bruno -4 · Carla -1
    open_points(other_phone, match_url, ("40", "20"))  # Anna 14 · Bruno -6 · Carla -8
    expect(other_phone.locator("#points_2")).to_have_value("18")
    # both thumbs on "Save hand 1": the clicks are sent without waiting for either answer
    with page.expect_navigation(), other_phone.expect_navigation():
        page.evaluate("document.getElementById('save').click()")
        other_phone.evaluate("document.getElementById('save').click()")
    for phone in phones.values():  # each shows its answer (the service worker may pass it on a moment later)
        expect(phone.locator("#conflict, .flash").first).to_be_visible()
    refused = [name for name, phone in phones.items() if phone.locator("#conflict").count()]
    assert len(refused) == 1, refused  # exactly one save lost the race (either may)
    late = refused[0]
    first = "B" if late == "A" else "A"
    loser, scores = phones[late], {"A": "Anna 5 · Bruno -4 · Carla -1", "B": "Anna 14 · Bruno -6 · Carla -8"}
    expect_match_page(phones[first], saved=f"Hand 1 saved: {scores[first]}.", next_hand=2, next_dealer="Bruno",
                      totals=tuple(s.split(" ")[1] for s in scores[first].split(" · ")))

    # the late phone says what was saved, and keeps its entry
    conflict = loser.locator("#conflict")
    expect(conflict).to_contain_text("Another phone saved a hand while you were entering this one. If yours is a "
                                     "different hand, save it now as hand 2; if it is the same hand, it is "
                                     "already recorded: leave this page.")
    expect(conflict.locator(".saved-now")).to_have_text(
        f"Now saved as hand 1, dealt by Anna: {scores[first]}.")
    for i, value in enumerate({"A": ("31", "22", "25"), "B": ("40", "20", "18")}[late]):
        expect(loser.locator(f"#points_{i}")).to_have_value(value)
    expect(loser.locator("h1")).to_contain_text("Hand 2")
    expect(loser.locator("#save")).to_have_text("Save hand 2")
    assert no_overflow(loser) == []
    snap(loser, "hand-conflict")
    assert len(stored_hands(page, match_url)) == 1

    # it really was another hand: hand 2 is Bruno's deal by the rotation, pre-filled so (not hand 1's Anna)
    expect(loser.locator("#dealer-1")).to_be_checked()
    loser.locator("#save").click()
    expect(loser.locator(".flash")).to_have_text(f"Hand 2 saved: {scores[late]}.")
    expect(loser.locator(".next h2")).to_have_text("Hand 3 — Carla deals")
    hands = stored_hands(page, match_url)
    assert [h["dealer"] for h in hands] == ["Anna", "Bruno"]
    assert sorted(h["points"]["Anna"] for h in hands) == [31, 40]  # both entries kept, neither overwritten
    assert totals(page, match_url) == {"Anna": 19, "Bruno": -10, "Carla": -9}


def live_entry_that_loses(page: Any, other_phone: Any, live_server: str) -> str:
    """One phone types a whole hand live while another records its points and saves first; the match URL."""
    hand = dealt_by("classic-valid-1", "Anna")  # Anna 1 · Bruno 10 · Carla -11
    match_url = new_match(page, live_server)
    other_phone.goto(match_url)
    other_phone.locator("#record-live").click()  # one player types the tricks from the score pad...
    expect(other_phone.locator("#grid")).to_be_visible()  # live.js has run (it closes the text box when it starts)
    other_phone.locator("#as-text summary").click()
    other_phone.fill("#tricks-text", "\n".join(" ".join(t["cards"]) for t in hand["tricks"]))
    other_phone.locator("#tricks-text").blur()
    expect(other_phone.locator("#whose-turn")).to_have_text("All 25 tricks played.")
    expect(other_phone.locator("#save")).to_be_enabled()
    open_points(page, match_url, ("25", "36"))  # ...while another counts the same hand's points and saves first
    page.locator("#save").click()
    expect_match_page(page, saved="Hand 1 saved: Anna -1 · Bruno 10 · Carla -9.", next_hand=2,
                      next_dealer="Bruno", totals=("-1", "10", "-9"))
    other_phone.locator("#save").click()
    return match_url


def test_the_same_hand_recorded_on_two_phones_is_stored_once(page: Any, other_phone: Any,
                                                             live_server: str) -> None:
    match_url = live_entry_that_loses(page, other_phone, live_server)
    conflict = other_phone.locator("#conflict")
    expect(conflict).to_contain_text("if it is the same hand, it is already recorded: leave this page.")
    expect(conflict).to_contain_text("Now saved as hand 1, dealt by Anna: Anna -1 · Bruno 10 · Carla -9")
    expect(other_phone.locator("#save")).to_have_text("Save as hand 2")  # kept, should it be another hand
    expect(other_phone.locator("#dealer-1")).to_be_checked()  # hand 2 is Bruno's by the rotation
    expect(other_phone.locator("#tricks li")).to_have_count(25)
    assert no_overflow(other_phone) == []
    snap(other_phone, "hand-live-conflict")
    other_phone.locator("#back").click()  # the same hand: leave
    expect(other_phone.locator("table.standings tbody tr")).to_have_count(1)
    assert [h["points"] for h in stored_hands(page, match_url)] == [{"Anna": 25, "Bruno": 36, "Carla": 17}]


def test_a_live_entry_left_after_a_conflict_is_not_offered_as_the_next_hand(page: Any, other_phone: Any,
                                                                            live_server: str) -> None:
    live_entry_that_loses(page, other_phone, live_server)
    expect(other_phone.locator("#conflict")).to_be_visible()
    other_phone.locator("#back").click()  # "if it is the same hand, it is already recorded: leave this page"
    other_phone.locator("#record-live").click()  # the next hand, on the same phone
    expect(other_phone.locator("h1")).to_contain_text("Hand 2")
    expect(other_phone.locator("#status")).to_be_visible()  # live.js has started (and said what it kept)
    # the left-over entry may be offered, but as one started before another hand was saved
    expect(other_phone.locator("#notice")).not_to_have_text("Your unsaved entry on this phone was brought back.",
                                                            timeout=1000)


def test_two_phones_change_the_same_hand(page: Any, other_phone: Any, live_server: str) -> None:
    match_url = new_match(page, live_server)
    open_points(page, match_url, ("31", "22"))
    page.locator("#save").click()
    expect(page.locator(".flash")).to_have_text("Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.")
    edit_url = match_url + "hands/" + page.locator("table.standings tbody a").first.get_attribute(
        "href").rstrip("/").rsplit("/", 1)[-1] + "/edit"
    for phone in (page, other_phone):
        phone.goto(edit_url)
        expect(phone.locator("h1")).to_contain_text("Change hand 1")
    for selector, points in (("#points_0", "30"), ("#points_2", "26")):
        type_into(page, Taps(page), selector, points, replace=True)
    page.locator("#save").click()
    expect(page.locator(".flash")).to_have_text("Hand 1 changed: Anna 4 · Bruno -4 · Carla 0.")
    for selector, points in (("#points_1", "21"), ("#points_2", "26")):
        type_into(other_phone, Taps(other_phone), selector, points, replace=True)
    other_phone.locator("#save").click()
    conflict = other_phone.locator("#conflict")
    expect(conflict).to_contain_text("This hand was changed from another phone while you were editing it.")
    expect(conflict.locator(".saved-now")).to_have_text("Now saved as hand 1, dealt by Anna: Anna 4 · Bruno -4 · "
                                                        "Carla 0.")
    expect(other_phone.locator("#points_1")).to_have_value("21")
    snap(other_phone, "hand-edit-conflict")
    assert stored_hands(page, match_url)[0]["points"] == {"Anna": 30, "Bruno": 22, "Carla": 26}
    other_phone.locator("#save").click()  # the table agrees this phone's version is right
    expect(other_phone.locator(".flash")).to_have_text("Hand 1 changed: Anna 5 · Bruno -5 · Carla 0.")
    other_phone.locator("table.standings tbody a").first.click()
    other_phone.locator("#history").click()
    expect(other_phone.locator("ol.revisions > li h2")).to_have_text(
        ["Version 3: edited — current", "Version 2: edited", "Version 1: created"])  # the other change is kept
