"""What a player's trial at the table found: each test fails on the page as it was.

The double tap on a card that slid into place, "13" typed into a filled-in 12 making "1312", the
hand number as the only way into a hand, a forgotten card going silently to "the rest", the live
entry falling silent offline, the what-if answer out of sight, the QR code off-centre without its
quiet zone.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
import segno
from PIL import Image
from playwright.sync_api import expect

from tests.browser.conftest import Taps
from tests.browser.handflows import expect_match_page, new_match, stored_hands, tricks_as_played, type_into

pytestmark = pytest.mark.browser


def test_a_quick_second_tap_on_the_same_spot_plays_nothing(page: Any, live_server: str) -> None:
    """10D then, at once, the same spot: the 10 stays where it was (greyed) and no neighbour slides under."""
    page.goto(new_match(page, live_server, first_dealer="Bruno") + "hands/new/live")
    ten = page.locator('#grid [data-card="10D"]')
    nine = page.locator('#grid [data-card="9D"]')
    before = ten.bounding_box()
    box = ten.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    page.mouse.click(x, y)  # the thumb again, a moment later, on the same spot
    expect(page.locator("#trick-now .played")).to_have_count(1)
    expect(ten).to_have_attribute("aria-disabled", "true")
    expect(nine).to_have_attribute("aria-disabled", "false")
    assert ten.bounding_box() == before  # nothing moved
    page.wait_for_timeout(700)  # later, the same spot is a card already played: still nothing
    page.mouse.click(x, y)
    expect(page.locator("#trick-now .played")).to_have_count(1)
    # the keyboard: the grid is one tab stop, arrows move, the focus stays after a card is played
    nine.focus()
    page.keyboard.press("Enter")
    expect(nine).to_have_attribute("aria-disabled", "true")
    assert page.evaluate("document.activeElement.dataset.card") == "9D"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.card") == "8D"
    expect(page.locator("#grid button[tabindex='0']")).to_have_count(1)


def test_a_breach_found_mid_trick_does_not_move_the_cards(page: Any, live_server: str) -> None:
    tricks = tricks_as_played("classic-breach")
    page.goto(new_match(page, live_server, first_dealer="Bruno") + "hands/new/live")
    cards = [c for t in tricks[:5] for c in t["cards"]][:15]  # the Bagatto in trick 5 proves the revoke
    grid_top = None
    for code in cards:
        page.locator(f'#grid [data-card="{code}"]').click()
        if grid_top is None:
            grid_top = page.locator("#grid").bounding_box()["y"] + page.evaluate("scrollY")
    expect(page.locator('#problems li[data-code="revoke"]')).to_be_visible()
    assert page.locator("#grid").bounding_box()["y"] + page.evaluate("scrollY") == grid_top
    # and said at the top, where the player looks (the list is below the 78 cards), in the line kept
    # for the notes: the cards did not move for it (above)
    flag = page.locator("#breach-flag")
    expect(flag).to_have_text("⚠ Revoke in trick 4: see below the cards")
    assert flag.bounding_box()["y"] < page.locator("#grid").bounding_box()["y"]


def test_typing_over_the_filled_in_points_replaces_them(page: Any, live_server: str, taps: Taps) -> None:
    """The last number filled in as 12; tapping it and typing 13 gives 13, not 1312."""
    match_url = new_match(page, live_server)
    page.goto(match_url)
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "35")
    expect(page.locator("#points_2")).to_have_value("12")
    type_into(page, taps, "#points_2", "13")
    expect(page.locator("#points_2")).to_have_value("13")
    type_into(page, taps, "#points_0", "30")  # a typed number too: the tap selects it
    expect(page.locator("#points_0")).to_have_value("30")
    expect(page.locator("#points-total")).to_have_text("Total 78 of 78")


def test_the_total_error_goes_once_the_total_is_right(page: Any, live_server: str, taps: Taps) -> None:
    page.goto(new_match(page, live_server))
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    type_into(page, taps, "#points_2", "24")
    taps.tap("#save")
    problem = page.locator('#problems li[data-code="points_total"]')
    expect(problem).to_be_visible()
    expect(page.locator("#outcome")).to_be_visible()
    for field in ("#points_0", "#points_1", "#points_2"):  # the error is tied to the numbers it is about
        expect(page.locator(field)).to_have_attribute("aria-invalid", "true")
        expect(page.locator(field)).to_have_attribute("aria-describedby", "problems")
    type_into(page, taps, "#points_2", "25")
    expect(problem).to_be_hidden()
    expect(page.locator("#outcome")).to_be_hidden()
    expect(page.locator("#points_0")).not_to_have_attribute("aria-invalid", "true")


def test_points_in_at_most_four_taps(page: Any, live_server: str, taps: Taps) -> None:
    match_url = new_match(page, live_server)
    page.goto(match_url)
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    taps.tap("#save")
    expect_match_page(page, saved="Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.", next_hand=2,
                      next_dealer="Bruno", totals=("5", "-4", "-1"))
    assert taps.count <= 4


def test_the_whole_standings_row_opens_its_hand(page: Any, live_server: str, taps: Taps) -> None:
    match_url = new_match(page, live_server)
    page.goto(match_url)
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    taps.tap("#save")
    row = page.locator("table.standings tbody tr").first
    assert row.bounding_box()["height"] >= 48
    expect(row.locator("a.row-link")).to_contain_text("›")  # it shows it can be opened
    dealer_cell = row.locator("td").nth(1)  # not the number: the dealer's name, the middle of the row
    box = dealer_cell.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator("h1")).to_contain_text("Hand 1")
    expect(page.locator("#scores")).to_be_visible()


def test_the_pile_counts_are_checked_before_saving(page: Any, live_server: str, taps: Taps) -> None:
    """A forgotten card would go to "the rest" silently: the counts are shown first, one tap confirms."""
    match_url = new_match(page, live_server, first_dealer="Bruno")
    page.goto(match_url)
    taps.tap("#record-cards")
    for code in ("KC", "QC", "CC"):
        taps.tap(f'#grid [data-card="{code}"]')
        expect(page.locator("#pile-count-0")).to_have_text(str(("KC", "QC", "CC").index(code) + 1))  # live
    taps.tap("#pick-1")
    taps.tap('#grid [data-card="KD"]')
    expect(page.locator("#pile-count-1")).to_have_text("1")
    expect(page.locator("#pile-count-2")).to_have_text("74")
    taps.tap("#save")
    check = page.locator("#pile-check")
    expect(check).to_be_visible()
    expect(page.locator("#pile-check-list li")).to_have_text(["Anna: 3", "Bruno: 1", "Carla: 74"])
    assert stored_hands(page, match_url) == []  # not saved before the check
    taps.tap("#pile-check-ok")
    expect(page.locator("#outcome")).to_be_visible()  # such piles are impossible: the server says why
    assert stored_hands(page, match_url) == []


def test_offline_the_live_entry_still_says_whose_turn_and_who_won(page: Any, live_server: str) -> None:
    tricks = tricks_as_played("classic-breach")
    page.goto(new_match(page, live_server, first_dealer="Bruno") + "hands/new/live", wait_until="networkidle")
    page.route("**/hands/live/check", lambda route: route.abort("internetdisconnected"))
    for trick in tricks[:3]:
        for k, code in enumerate(trick["cards"]):
            page.locator(f'#grid [data-card="{code}"]').click()
            if k < 2:
                expect(page.locator("#whose-turn")).to_have_text(
                    f"Trick {trick['number']}: {trick['seats'][k + 1]} to play")
        expect(page.locator("#trick-now")).to_contain_text(f"→ {trick['winner']} wins")
        expect(page.locator(f'#tricks li[data-trick="{trick["number"]}"]')).to_contain_text(trick["winner"])
        leader = tricks[trick["number"]]["leader"]
        expect(page.locator("#whose-turn")).to_have_text(f"Trick {trick['number'] + 1}: {leader} leads")
    expect(page.locator("#live-note")).to_contain_text("no connection")


def test_tricks_typed_while_the_first_check_is_answered_are_kept(page: Any, live_server: str) -> None:
    """The live page asks the server about the hand as it opens. On a slow connection the answer can
    come while the player is already typing tricks in the box: it must not wipe what they typed."""
    held: list[Any] = []
    page.route("**/hands/live/check", lambda route: held.append(route) if not held else route.continue_())
    page.goto(new_match(page, live_server, first_dealer="Bruno") + "hands/new/live")
    expect(page.locator("#grid")).to_be_visible()
    while not held:  # the page's first check, held back
        page.wait_for_timeout(20)
    page.locator("#as-text summary").click()
    typed = "10B 8B 6B\nT10 T21 10B"
    page.fill("#tricks-text", typed)
    with page.expect_response("**/hands/live/check"):
        held[0].continue_()  # the first answer comes now, while the player is in the box
    page.evaluate("() => new Promise(done => setTimeout(done, 100))")  # live.js has shown it
    expect(page.locator("#tricks-text")).to_have_value(typed)
    page.locator("#tricks-text").blur()
    expect(page.locator('#problems li[data-code="duplicate_card"]')).to_have_attribute("data-card", "10B")


def test_the_what_if_answer_is_where_the_player_looks(page: Any, live_server: str) -> None:
    tricks = tricks_as_played("classic-breach")
    match_url = new_match(page, live_server, first_dealer="Bruno")
    page.goto(match_url + "hands/new/live", wait_until="networkidle")
    page.locator("#as-text summary").click()
    page.fill("#tricks-text", "\n".join(" ".join(t["cards"]) for t in tricks))
    page.locator("#tricks-text").blur()
    page.locator("#save-anyway").click()
    page.locator("table.standings tbody tr a.row-link").first.click()
    page.locator("#audit").click()
    page.select_option("#award", "4-2")
    page.locator("#what-if button").click()
    result = page.locator("#what-if-scores")
    expect(result).to_be_visible()
    box, height = result.bounding_box(), page.viewport_size["height"]
    assert 0 <= box["y"] and box["y"] + min(box["height"], 200) <= height  # on screen, not above or below
    expect(page.locator("#award")).to_have_value("4-2")  # the picker keeps the choice


def test_the_qr_codes_are_centred_with_a_quiet_zone(page: Any, live_server: str) -> None:
    match_url = new_match(page, live_server)
    page.goto(match_url + "share")
    codes = page.locator(".share .qr svg")
    expect(codes).to_have_count(2)
    for i in range(2):
        url = page.locator(".share input.link").nth(i).input_value()
        modules = segno.make(url, error="m").symbol_size(border=0)[0]
        svg = codes.nth(i).bounding_box()
        box = page.locator(".share .qr").nth(i).bounding_box()
        # what a scanner sees: the dark modules' extent in the drawn image
        image = Image.open(io.BytesIO(codes.nth(i).screenshot())).convert("L")
        dark = image.point(lambda v: 255 if v < 128 else 0).getbbox()
        assert dark is not None
        module = (dark[2] - dark[0]) / modules
        margins = (dark[0], image.width - dark[2], dark[1], image.height - dark[3])
        assert min(margins) >= 4 * module - 1, (margins, module)  # a quiet zone of four modules all round
        assert abs((svg["x"] - box["x"]) - (box["x"] + box["width"] - svg["x"] - svg["width"])) <= 2  # centred
