"""A player starts a match on a phone and shares it."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import Taps, no_overflow
from tests.browser.handflows import new_match

pytestmark = pytest_mark = __import__("pytest").mark.browser


def start_match(page: Any, live_server: str, taps: Taps, names: tuple[str, ...] = ("Anna", "Bruno", "Carla"),
                shot: Any = None) -> str:
    """Create a match as a player would; returns the match page URL."""
    page.goto(live_server + "/")
    taps.tap("text=Start a match")
    for i, name in enumerate(names, start=1):
        page.fill(f"#player_{i}", name)
    if shot:
        shot("new-match")
    taps.tap("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Scarto match")
    return page.url


def test_create_a_match(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    url = start_match(page, live_server, taps, shot=shot)
    assert re.search(r"/m/[A-Za-z0-9_-]{22,}/$", url)
    expect(page.locator(".next h2")).to_have_text("Hand 1 — Anna deals")
    assert taps.count <= 3
    assert no_overflow(page) == []
    shot("match-empty")
    page.goto(live_server + "/")
    expect(page.locator(".matches li")).to_have_count(1)  # the phone remembers the match
    shot("home")


def test_counting_cards_open_from_the_match_page_in_one_tap(page: Any, live_server: str, shot: Any) -> None:
    """The counting-cards entry ("Carte di valore") was reached only through another entry's tabs."""
    url = start_match(page, live_server, Taps(page))
    for width in (320, 390):
        page.set_viewport_size({"width": width, "height": 844})
        page.goto(url + "?lang=it")
        button = page.locator("#record-honours")
        expect(button).to_have_text("Carte di valore")
        expect(button).to_be_in_viewport()
        assert no_overflow(page) == []
        shot(f"match-entries-{width}")
    taps = Taps(page)
    taps.tap("#record-honours")
    assert page.url.endswith("/hands/new/honours")
    expect(page.locator("#to-honours")).to_have_attribute("aria-current", "page")
    assert taps.count == 1


def test_view_only_link_refuses_edits(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    url = start_match(page, live_server, taps)
    page.goto(url + "share")
    shot("share")
    view_url = page.locator("input.link").nth(1).input_value()
    assert view_url != url
    page.goto(view_url)
    expect(page.locator("text=view only").first).to_be_visible()
    expect(page.locator("#record-points")).to_have_count(0)
    shot("match-view-only")
    response = page.goto(view_url + "hands/new/points")
    assert response is not None and response.status == 403
    expect(page.locator("main")).to_contain_text("view-only link")
    response = page.goto(view_url + "import")
    assert response is not None and response.status == 403


def test_a_shared_link_is_copied_with_one_tap(page: Any, live_server: str) -> None:
    """The edit link did not fit its box on a phone, and copying it meant selecting it by hand."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    match_url = new_match(page, live_server)
    page.goto(match_url + "share")
    box, copy = page.locator(".share input.link").first, page.locator(".share [data-copy]").first
    expect(copy).to_be_visible()
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == box.input_value() == match_url
    right = page.locator(".share .link-row").first.evaluate("r => r.getBoundingClientRect().right")
    assert right <= 390


def test_what_cannot_be_seen_is_said_at_its_box_and_look_alikes_are_warned_of(page: Any, live_server: str,
                                                                             taps: Taps, shot: Any) -> None:
    """A name of an invisible character and a place with a line separator are refused at their boxes, what
    was typed kept; "Anna" beside a Cyrillic "Аnna" starts the match, with a warning."""
    page.goto(live_server + "/new?lang=it")
    page.fill("#player_1", "Anna")
    page.fill("#player_2", "Bru\u00adno")
    page.fill("#player_3", "Carla")
    page.fill("#place", "Bar\u2028Sport")
    taps.tap("button[type=submit]")
    expect(page.locator("#player_2-error")).to_contain_text("carattere di formattazione invisibile (U+00AD")
    expect(page.locator("#place-error")).to_contain_text("carattere di controllo (U+2028)")
    expect(page.locator("#player_2")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#player_3")).to_have_value("Carla")  # the rest as typed
    for width in (390, 320):
        page.set_viewport_size({"width": width, "height": 800})
        assert no_overflow(page) == []
    page.locator("#place-error").scroll_into_view_if_needed()
    shot("new-match-unseen-it-320")
    page.fill("#player_2", "\u0410nna")
    page.fill("#place", "Bar Sport")
    taps.tap("button[type=submit]")
    expect(page.locator(".flash.warning")).to_contain_text("«Anna» e «\u0410nna» sembrano uguali")
    assert no_overflow(page) == []
    shot("match-look-alikes-it-320")
    page.set_viewport_size({"width": 1280, "height": 800})
    shot("match-look-alikes-it-desktop")
