"""Recording a hand on a phone, each way: counted points, captured cards, counting cards, live trick by trick.

Taps are counted from the match page to the saved hand; typed characters are not taps, but tapping a
field to type into it is.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from scorer.engine.rulesets import find_ruleset
from scorer.engine.validation import counting_cards
from tests.browser.conftest import SCREENSHOTS, Taps, no_overflow
from tests.browser.handflows import (
    PLAYERS,
    expect_match_page,
    fixture,
    hand_page_scores,
    new_match,
    stored_hands,
    totals,
    tricks_as_played,
    type_into,
)
from tests.seed import dealt_by

pytestmark = pytest.mark.browser

POINTS_TAPS = 4
"""At most this many taps from the match page to a hand saved as counted points."""
LIVE_TAPS = 77
"""At most this many taps from the match page to a full 25-trick record saved live (75 cards, the save, one more)."""


def test_decimal_points_are_refused_with_the_third(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    """ "25,33" (a third rounded, as a phone's keyboard writes it) was saved as 2533/100 points, the last
    player filled in as 52 67/100: it is no number on the phone, and the server names the third."""
    match_url = new_match(page, live_server)
    page.goto(match_url)
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "25,33")
    type_into(page, taps, "#points_1", "22")
    expect(page.locator("#points_2")).to_have_value("")  # no 30 67/100 filled in
    taps.tap("#save")
    expect(page.locator("h1")).to_contain_text("Hand 1")
    expect(page.locator("#points_0-error")).to_contain_text(
        "Anna: “25,33” is a decimal: points come in thirds: write 25 1/3.")
    expect(page.locator("#points_0")).to_have_value("25,33")  # what was typed is kept
    assert no_overflow(page) == []
    shot("hand-points-decimal")
    assert stored_hands(page, match_url) == []
    page.locator("#points_0").fill("25 1/3")
    page.locator("#points_2").fill("")
    page.locator("#points_2").dispatch_event("input")
    page.locator("#points_1").focus()
    expect(page.locator("#points_2")).to_have_value("30⅔")
    taps.tap("#save")
    expect(page.locator(".flash")).to_contain_text("Hand 1 saved")
    assert stored_hands(page, match_url)[0]["points"] == {"Anna": "76/3", "Bruno": 22, "Carla": "92/3"}


def bruno_asked_about_and_declined(page: Any, taps: Taps, match_url: str, asked: list[str]) -> None:
    """Hand 1's points typed with Bruno ticked (the rotation says Anna), saved, and "no" answered to
    the question: asked once, the entry kept as it is, nothing stored."""
    expect(page.locator("#dealer-1")).to_be_checked()
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    expect(page.locator("#points_2")).to_have_value("25")  # cards.js has run
    taps.tap("#save")
    expect(page.locator("#points_0")).to_have_value("31")
    assert asked == ["Anna deals this hand by the rotation: save with Bruno?"]
    assert stored_hands(page, match_url) == []


def test_a_dealer_tapped_before_the_forms_script_runs_is_still_asked_about(page: Any, live_server: str,
                                                                          taps: Taps) -> None:
    """On a slow phone the form shows before its script runs: a dealer tapped then is still judged
    against the rotation the page came with, not against the tap."""
    match_url = new_match(page, live_server)
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", answer)
    held: list[Any] = []
    page.route("**/static/cards.js*", lambda route: held.append(route))  # held until the dealer is tapped
    page.goto(match_url)
    with page.expect_navigation(wait_until="commit"):
        taps.tap("#record-points")
    page.wait_for_selector("label:has(#dealer-1)")
    taps.tap("label:has(#dealer-1)")
    assert held and page.evaluate("document.readyState") != "complete"  # tapped before the script ran
    held[0].continue_()
    page.wait_for_load_state("load")
    bruno_asked_about_and_declined(page, taps, match_url, asked)


def test_a_dealer_out_of_turn_is_asked_about_once_in_every_entry_way(page: Any, live_server: str,
                                                                     taps: Taps) -> None:
    """Hand 1, the rotation says Anna, Bruno tapped: it was saved without a word and the deal passed on from
    Bruno. Each way of entry asks once before saving (before the pile check too); "no" keeps the entry."""
    match_url = new_match(page, live_server)
    asked: list[str] = []
    answers = [False, True]

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        if answers.pop(0) if answers else True:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", answer)
    page.goto(match_url)
    taps.tap("#record-points")
    taps.tap("label:has(#dealer-1)")
    bruno_asked_about_and_declined(page, taps, match_url, asked)
    taps.tap("#save")  # "yes": saved with Bruno, and not asked again by the server
    expect_match_page(page, saved="Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.", next_hand=2,
                      next_dealer="Carla", totals=("5", "-4", "-1"))
    assert len(asked) == 2

    # captured cards: asked before the piles are counted, once
    piles = dealt_by("classic-captured", "Anna")["captured"]
    taps.tap("#record-cards")
    expect(page.locator("#grid")).to_be_visible()
    taps.tap("label:has(#dealer-0)")
    expect(page.locator("#dealer-0")).to_be_checked()
    taps.tap("#as-text summary")
    page.fill("#cards_0", " ".join(piles["Anna"]))
    page.fill("#cards_1", " ".join(piles["Bruno"]))
    page.locator("#cards_1").blur()
    taps.tap("#save")
    assert asked[2:] == ["Carla deals this hand by the rotation: save with Anna?"]
    expect(page.locator("#pile-check")).to_be_visible()
    taps.tap("#pile-check-ok")
    expect(page.locator(".flash")).to_contain_text("Hand 2 saved")
    assert len(asked) == 3

    # live, trick by trick (typed here): the same question
    hand = dealt_by("classic-valid-1", "Anna")
    taps.tap("#record-live")
    expect(page.locator("#grid")).to_be_visible()
    taps.tap("label:has(#dealer-0)")
    expect(page.locator("#dealer-0")).to_be_checked()
    taps.tap("#as-text summary")
    page.fill("#tricks-text", "\n".join(" ".join(t["cards"]) for t in hand["tricks"]))
    page.locator("#tricks-text").blur()
    expect(page.locator("#whose-turn")).to_have_text("All 25 tricks played.")
    taps.tap("#save")
    expect(page.locator(".flash")).to_contain_text("Hand 3 saved")
    assert asked[3:] == ["Bruno deals this hand by the rotation: save with Anna?"]
    assert [h["dealer"] for h in stored_hands(page, match_url)] == ["Bruno", "Anna", "Anna"]


def test_without_scripts_the_page_asks_about_a_dealer_out_of_turn(browser: Any, browser_context_args: dict[str, Any],
                                                                  live_server: str) -> None:
    """A phone without scripts: the server asks, with one button for each answer, keeping what was typed."""
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    try:
        page = context.new_page()
        match_url = new_match(page, live_server)
        page.goto(match_url + "hands/new/points?lang=it")
        page.locator("label:has(#dealer-1)").click()
        page.fill("#points_0", "31")
        page.fill("#points_1", "22")
        page.locator("#save").click()
        expect(page.locator("#outcome")).to_have_text(
            "Secondo il giro, in questa mano fa le carte Anna: salvarla con Bruno come mazziere?")
        expect(page.locator("#save-dealer")).to_have_text("Salva: mazziere Bruno")
        expect(page.locator("#save-rotation")).to_have_text("Salva: mazziere Anna")
        expect(page.locator("#points_0")).to_have_value("31")
        assert no_overflow(page) == []
        page.screenshot(path=str(SCREENSHOTS / "hand-dealer-question.png"), full_page=True)
        page.locator("#save-dealer").click()
        expect(page.locator(".flash")).to_contain_text("Mano 1 salvata")
        assert [h["dealer"] for h in stored_hands(page, match_url)] == ["Bruno"]
    finally:
        context.close()


def test_record_counted_points(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    match_url = new_match(page, live_server)
    page.goto(match_url)
    expect(page.locator(".next h2")).to_have_text("Hand 1 — Anna deals")
    taps.tap("#record-points")
    expect(page.locator("h1")).to_contain_text("Hand 1")
    expect(page.locator("#dealer-0")).to_be_checked()  # the dealer comes from the rotation: no tap
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    expect(page.locator("#points_2")).to_have_value("25")  # the last one fills itself in
    expect(page.locator("#points_2")).to_have_class("num auto")
    expect(page.locator("#last-points")).to_have_text("Carla: 25, the rest of 78")
    expect(page.locator("#points-total")).to_have_text("Total 78 of 78")
    assert no_overflow(page) == []
    shot("hand-points-entry")
    taps.tap("#save")
    expect_match_page(page, saved="Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.", next_hand=2,
                      next_dealer="Bruno", totals=("5", "-4", "-1"))
    assert taps.count <= POINTS_TAPS
    assert taps.count == 4  # Points, Anna's field, Bruno's field, Save
    assert stored_hands(page, match_url)[0]["points"] == {"Anna": 31, "Bruno": 22, "Carla": 25}
    shot("hand-points-saved")

    # a second hand, dealt by Bruno: the standings add up and the deal passes on
    taps.tap("#record-points")
    expect(page.locator("#dealer-1")).to_be_checked()
    type_into(page, taps, "#points_0", "19½")
    type_into(page, taps, "#points_1", "30")
    expect(page.locator("#points_2")).to_have_value("28½")
    taps.tap("#save")
    expect_match_page(page, saved="Hand 2 saved: Anna -6½ · Bruno 4 · Carla 2½.", next_hand=3,
                      next_dealer="Carla", totals=("-1½", "0", "1½"))
    assert totals(page, match_url) == {"Anna": "-3/2", "Bruno": 0, "Carla": "3/2"}

    page.locator("table.standings tbody tr:nth-child(1) a").click()
    assert hand_page_scores(page) == {"Anna": "5", "Bruno": "-4", "Carla": "-1"}
    expect(page.locator("#standings-after")).to_contain_text("Anna")
    assert no_overflow(page) == []
    shot("hand-points-page")


def test_record_captured_cards_then_counting_cards(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    piles = fixture("classic-captured")["captured"]
    match_url = new_match(page, live_server, first_dealer="Bruno")
    page.goto(match_url)
    taps.tap("#record-cards")
    expect(page.locator("#dealer-1")).to_be_checked()
    expect(page.locator("#pick-0")).to_have_attribute("aria-pressed", "true")  # Anna's pile first
    expect(page.locator("#rest-2")).to_be_checked()  # the last player gets the rest
    for card in piles["Anna"]:
        taps.tap(f'#grid [data-card="{card}"]')
    taps.tap("#pick-1")
    for card in piles["Bruno"][:5]:
        taps.tap(f'#grid [data-card="{card}"]')
    taps.tap(f'#grid [data-card="{piles["Bruno"][0]}"]')  # a slip: tapped twice takes it back
    expect(page.locator(f'#grid [data-card="{piles["Bruno"][0]}"]')).to_have_class("s-b rest")
    taps.tap(f'#grid [data-card="{piles["Bruno"][0]}"]')
    for card in piles["Bruno"][5:]:
        taps.tap(f'#grid [data-card="{card}"]')
    expect(page.locator("#pile-count-0")).to_have_text("13")
    expect(page.locator("#pile-count-1")).to_have_text("24")
    expect(page.locator("#pile-count-2")).to_have_text("41")
    expect(page.locator('#grid [data-card="KB"]')).to_have_attribute("data-seat", "1")
    expect(page.locator('#grid [data-card="T5"]')).to_have_class("s-t rest")
    assert no_overflow(page) == []
    shot("hand-cards-entry")
    taps.tap("#save")  # first the counts, to check against the real piles: one tap says they match
    expect(page.locator("#pile-check")).to_be_visible()
    expect(page.locator("#pile-check-list li")).to_have_text(["Anna: 13", "Bruno: 24", "Carla: 41"])
    expect(page.locator("#save")).to_be_hidden()  # one primary action: the check's, not two red buttons
    expect(page.locator("#hand-form .button.primary:visible")).to_have_count(1)
    taps.tap('#grid [data-card="T5"]')  # a card still to give: the check is out of date, the save is back
    expect(page.locator("#pile-check")).to_be_hidden()
    expect(page.locator("#save")).to_be_visible()
    taps.tap('#grid [data-card="T5"]')
    taps.count -= 2
    taps.tap("#save")
    expect(page.locator("#pile-check-list li")).to_have_text(["Anna: 13", "Bruno: 24", "Carla: 41"])
    taps.count -= 1
    shot("hand-cards-pile-check")
    taps.tap("#pile-check-ok")
    expect_match_page(page, saved="Hand 1 saved: Anna -11 · Bruno 1 · Carla 10.", next_hand=2,
                      next_dealer="Carla", totals=("-11", "1", "10"))
    assert taps.count == 1 + 13 + 1 + 24 + 2 + 1 + 1
    (stored,) = stored_hands(page, match_url)
    assert sorted(stored["captured"]["Carla"]) == sorted(piles["Carla"])
    shot("hand-cards-saved")

    # the quicker form: only the counting cards and the pile sizes (classic-honours, dealt by Carla)
    honours = dealt_by("classic-honours", "Carla")
    taps.count = 0
    taps.tap("#record-cards")
    taps.tap("#to-honours")
    expect(page.locator("h1")).to_contain_text("Counting cards")
    expect(page.locator("#dealer-2")).to_be_checked()
    expect(page.locator("#grid [data-card]")).to_have_count(len(counting_cards(find_ruleset("classic"))))
    first, second, last = PLAYERS
    for card in honours["honours"][first]:
        taps.tap(f'#grid [data-card="{card}"]')
    taps.tap("#pick-1")
    for card in honours["honours"][second]:
        taps.tap(f'#grid [data-card="{card}"]')
    type_into(page, taps, "#size_0", str(honours["sizes"][first]))
    type_into(page, taps, "#size_1", str(honours["sizes"][second]))
    expect(page.locator("#size_2")).to_have_value(str(honours["sizes"][last]))
    expect(page.locator("#last-size")).to_have_text(f"{last}: {honours['sizes'][last]} cards, the rest of 78")
    expect(page.locator("#pile-count-2")).to_have_text(str(len(honours["honours"][last])))
    assert no_overflow(page) == []
    shot("hand-honours-entry")
    taps.tap("#save")
    expect_match_page(page, saved="Hand 2 saved: Anna 8 · Bruno -5 · Carla -3.", next_hand=3,
                      next_dealer="Anna", totals=("-3", "-4", "7"))
    assert taps.count == 2 + len(honours["honours"][first]) + 1 + len(honours["honours"][second]) + 2 + 1
    assert stored_hands(page, match_url)[1]["sizes"] == honours["sizes"]
    page.locator("table.standings tbody tr:nth-child(2) a").click()
    expect(page.locator("#breakdown .honours li")).to_have_count(3)
    assert hand_page_scores(page) == {"Anna": "8", "Bruno": "-5", "Carla": "-3"}
    shot("hand-honours-page")


def test_record_a_hand_live_trick_by_trick(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    """A whole hand tapped card after card at a test's pace, far quicker than a player's: no tap is
    taken for a double tap (the grid's filter, tests/browser/test_table.py), and the record takes at
    most LIVE_TAPS taps."""
    tricks = tricks_as_played("classic-breach")
    match_url = new_match(page, live_server, first_dealer="Bruno")
    page.goto(match_url)
    taps.tap("#record-live")
    expect(page.locator("#dealer-1")).to_be_checked()
    expect(page.locator("#whose-turn")).to_have_text("Trick 1: Carla leads")
    for trick in tricks:
        n = trick["number"]
        for k, card in enumerate(trick["cards"]):
            if k == 1 and n in (1, 13):  # mid-trick the page says who plays next
                expect(page.locator("#whose-turn")).to_have_text(f"Trick {n}: {trick['seats'][1]} to play")
            taps.tap(f'#grid [data-card="{card}"]')
            # a played card keeps its place, greyed: nothing slides under the next tap
            expect(page.locator(f'#grid [data-card="{card}"]')).to_have_attribute("aria-disabled", "true")
            if n == 5 and k == 2:
                shot("hand-live-revoke")
                # the Bagatto proves Carla held a trump in trick 4: flagged at once, next to its trick
                revoke = page.locator('#problems li[data-code="revoke"]')
                expect(revoke).to_have_attribute("data-trick", "4")
                expect(revoke).to_contain_text("Carla played the Cavalier of Batons")
                expect(page.locator('#tricks li[data-trick="4"]')).to_have_class("breach")
                # undo the proof once: the revoke is no longer proved; play it again: it is
                taps.tap("#undo")
                expect(page.locator(f'#grid [data-card="{card}"]')).to_have_attribute("aria-disabled", "false")
                expect(page.locator("#whose-turn")).to_have_text("Trick 5: Carla to play")
                expect(page.locator("#problems")).to_be_hidden()
                taps.tap(f'#grid [data-card="{card}"]')
                expect(revoke).to_have_attribute("data-trick", "4")
        expect(page.locator("#trick-now")).to_contain_text(f"→ {trick['winner']} wins")
        expect(page.locator(f'#tricks li[data-trick="{n}"]')).to_contain_text(f"→ {trick['winner']}")
        if n < len(tricks):
            expect(page.locator("#whose-turn")).to_have_text(f"Trick {n + 1}: {tricks[n]['leader']} leads")
            if n < 4:  # nothing is provable before trick 5
                expect(page.locator("#problems")).to_be_hidden()
        if n == 4:
            shot("hand-live-trick-4")
    expect(page.locator("#whose-turn")).to_have_text("All 25 tricks played.")
    expect(page.locator("#result")).to_contain_text("Anna: 21 card points, score -5")
    expect(page.locator("#result")).to_contain_text("Bruno: 30 card points, score 4")
    expect(page.locator("#result")).to_contain_text("Carla: 27 card points, score 1")
    expect(page.locator("#save")).to_be_hidden()  # a breach: the table decides, so the save says so
    expect(page.locator("#save-anyway")).to_be_enabled()
    assert no_overflow(page) == []
    shot("hand-live-complete")
    taps.tap("#save-anyway")
    expect_match_page(page, saved="Hand 1 saved: Anna -5 · Bruno 4 · Carla 1. Marked: Revoke in trick 4.",
                      next_hand=2, next_dealer="Carla", totals=("-5", "4", "1"))
    expect(page.locator("table.standings tbody tr")).to_have_class("open marked")
    assert taps.count == 1 + 75 + 2 + 1  # Live, the cards, undo and replay one, Save anyway
    assert taps.count - 2 <= LIVE_TAPS  # without the slip this test makes on purpose
    (stored,) = stored_hands(page, match_url)
    assert [t["cards"] for t in stored["tricks"]] == [t["cards"] for t in tricks]
    assert sorted(stored["discard"]) == sorted(fixture("classic-breach")["discard"])
    shot("hand-live-saved")
    page.locator("table.standings tbody tr:nth-child(1) a").click()
    assert hand_page_scores(page) == {"Anna": "-5", "Bruno": "4", "Carla": "1"}
    expect(page.locator('#trick-list li[data-trick="4"]')).to_have_class("breach")
    expect(page.locator("#problems li")).to_have_attribute("data-code", "revoke")
    assert no_overflow(page) == []
    shot("hand-live-page")


# --- an error caught and fixed ---------------------------------------------------------------


def test_live_entry_in_italian_says_whose_turn_with_ad_before_anna(page: Any, live_server: str, taps: Taps) -> None:
    """ "tocca ad Anna", "tocca a Bruno": live.js's sentence for the player whose name calls for "ad"."""
    trick = tricks_as_played("classic-breach")[0]
    match_url = new_match(page, live_server, first_dealer="Bruno")
    page.goto(match_url + "?lang=it")
    taps.tap("#record-live")
    expect(page.locator("#whose-turn")).to_have_text("Presa 1: esce Carla")
    taps.tap(f'#grid [data-card="{trick["cards"][0]}"]')
    expect(page.locator("#whose-turn")).to_have_text("Presa 1: tocca ad Anna")
    taps.tap(f'#grid [data-card="{trick["cards"][1]}"]')
    expect(page.locator("#whose-turn")).to_have_text("Presa 1: tocca a Bruno")


@pytest.mark.parametrize(("name", "told"), [
    ("constructor", "Presa 1: tocca a constructor"),  # not taken for live.js's own property
    ("a%(n)s", "Presa 1: tocca ad a%(n)s"),  # not filled in as the trick's number ("tocca ad a1")
])
def test_a_player_named_like_a_script_word_or_a_placeholder_is_told_whose_turn(
        page: Any, live_server: str, taps: Taps, name: str, told: str) -> None:
    """A name is a name like any other, whatever it looks like to live.js."""
    trick = tricks_as_played("classic-breach")[0]
    body = {"format": "scarto-match/1", "ruleset": "classic", "players": [name, "Bruno", "Carla"],
            "first_dealer": "Bruno", "hands": []}
    response = page.request.post(live_server + "/api/matches", data=body, headers={"Content-Type": "application/json"})
    assert response.status == 201, response.text()
    page.goto(response.json()["edit_url"] + "?lang=it")
    taps.tap("#record-live")
    taps.tap(f'#grid [data-card="{trick["cards"][0]}"]')
    expect(page.locator("#whose-turn")).to_have_text(told)


def test_points_that_do_not_add_up_are_refused_then_fixed(page: Any, live_server: str, taps: Taps,
                                                          shot: Any) -> None:
    match_url = new_match(page, live_server)
    page.goto(match_url)
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    expect(page.locator("#points_2")).to_have_value("25")
    type_into(page, taps, "#points_2", "24", replace=True)  # Carla counted her pile herself, one short
    expect(page.locator("#points_2")).not_to_have_class("num auto")
    expect(page.locator("#points-total")).to_have_text("Total 77 of 78")
    expect(page.locator("#points-total")).to_have_class("muted sum-bad")
    taps.tap("#save")
    expect(page.locator("#outcome")).to_have_text("This hand cannot be saved: fix what is listed below.")
    problem = page.locator('#points #problems li[data-code="points_total"]')  # inside the points it is about
    expect(problem).to_have_text("Points do not add up: The counted points add up to 77; "
                                 "the classic pack counts 78 in all. Recount the piles.")
    for field, value in (("#points_0", "31"), ("#points_1", "22"), ("#points_2", "24")):
        expect(page.locator(field)).to_have_value(value)  # nothing typed is lost
    assert stored_hands(page, match_url) == []
    assert no_overflow(page) == []
    shot("hand-points-refused")
    # the fix: Carla counts again
    type_into(page, taps, "#points_2", "25", replace=True)
    expect(page.locator("#points-total")).not_to_have_class("muted sum-bad")
    taps.tap("#save")
    expect_match_page(page, saved="Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.", next_hand=2,
                      next_dealer="Bruno", totals=("5", "-4", "-1"))
    assert len(stored_hands(page, match_url)) == 1


def test_a_card_given_twice_is_refused_then_fixed(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    piles = fixture("classic-captured")["captured"]
    match_url = new_match(page, live_server, first_dealer="Bruno")
    page.goto(match_url)
    taps.tap("#record-cards")
    expect(page.locator("#grid")).to_be_visible()  # cards.js has run (it closes the text box when it starts)
    taps.tap("#as-text summary")  # the piles typed from a paper note, the King of Batons in both
    page.fill("#cards_0", " ".join(piles["Anna"] + ["KB"]))
    page.fill("#cards_1", " ".join(piles["Bruno"]))
    taps.tap("#save")  # what no count can fix is said first: no pile check before it
    expect(page.locator("#outcome")).to_have_text("This hand cannot be saved: fix what is listed below.")
    expect(page.locator("#pile-check")).to_be_hidden()
    twice = page.locator('#cards #problems li[data-code="duplicate_card"]')
    expect(twice).to_have_attribute("data-card", "KB")
    expect(twice).to_have_text("Card twice: The King of Batons (KB) is in Anna's pile and in Bruno's: take it out "
                               "of one.")
    expect(page.locator('#grid [data-card="KB"]')).to_have_class("s-b dup")  # marked where it can be seen
    expect(page.locator("#cards_0")).to_have_value(" ".join(piles["Anna"] + ["KB"]))
    assert stored_hands(page, match_url) == []
    assert no_overflow(page) == []
    shot("hand-cards-refused")
    taps.tap("#as-text summary")
    page.fill("#cards_0", " ".join(piles["Anna"] + ["KB", "KX"]))  # the King twice in one pile, a word that is no card
    page.fill("#cards_1", " ".join(piles["Bruno"]))
    taps.tap("#save")
    expect(page.locator("#pile-check")).to_be_hidden()
    expect(page.locator("#cards_0-error")).to_contain_text("Anna: “KX” is not a card.")
    expect(page.locator("#cards_0-error")).to_be_visible()  # the box of text stays open to show it
    shot("hand-cards-not-a-card")
    page.fill("#cards_0", " ".join(piles["Anna"]))
    taps.tap("#save")
    expect(page.locator("#pile-check")).to_be_visible()  # every word a card: now the piles are counted
    expect(page.locator("#pile-check-list li")).to_have_text(["Anna: 13", "Bruno: 24", "Carla: 41"])
    taps.tap("#pile-check-ok")
    expect_match_page(page, saved="Hand 1 saved: Anna -11 · Bruno 1 · Carla 10.", next_hand=2,
                      next_dealer="Carla", totals=("-11", "1", "10"))


def test_a_live_card_that_breaks_the_record_is_flagged_and_undone(page: Any, live_server: str, taps: Taps,
                                                                  shot: Any) -> None:
    tricks = tricks_as_played("classic-breach")
    match_url = new_match(page, live_server, first_dealer="Bruno")
    page.goto(match_url)
    taps.tap("#record-live")
    expect(page.locator("#grid")).to_be_visible()  # live.js has run (it closes the text box when it starts)
    taps.tap("#as-text summary")  # a trick typed by hand can name a card already played: the grid cannot
    page.fill("#tricks-text", "10B 8B 6B\nT10 T21 10B")
    page.locator("#tricks-text").blur()
    twice = page.locator('#problems li[data-code="duplicate_card"]')
    expect(twice).to_have_attribute("data-card", "10B")
    expect(twice).to_contain_text("The 10 of Batons (10B) is in trick 1 and again in trick 2: a card is played once.")
    expect(page.locator("#breach-flag")).to_have_text("⚠ Card twice: see below the cards")
    expect(page.locator("#save")).to_be_disabled()
    assert no_overflow(page) == []
    shot("hand-live-error")
    taps.tap("#undo")
    expect(page.locator("#problems")).to_be_hidden()
    expect(page.locator("#whose-turn")).to_have_text("Trick 2: Bruno to play")
    for trick in tricks[1:3]:  # the grid goes on from where the undo left the hand
        for card in trick["cards"][2 if trick["number"] == 2 else 0:]:
            taps.tap(f'#grid [data-card="{card}"]')
    expect(page.locator("#tricks-text")).to_have_value("\n".join(" ".join(t["cards"]) for t in tricks[:3]))
    # the rest typed in the box (tapping a whole hand is test_record_a_hand_live_trick_by_trick's)
    page.fill("#tricks-text", "\n".join(" ".join(t["cards"]) for t in tricks))
    page.locator("#tricks-text").blur()
    expect(page.locator("#whose-turn")).to_have_text("All 25 tricks played.")
    taps.tap("#save-anyway")
    expect_match_page(page, saved="Hand 1 saved: Anna -5 · Bruno 4 · Carla 1. Marked: Revoke in trick 4.",
                      next_hand=2, next_dealer="Carla", totals=("-5", "4", "1"))


def type_live_hand(page: Any, match_url: str, tricks: list[Any]) -> None:
    """The live entry page with a whole hand typed into its text box, every trick played."""
    page.goto(match_url + "hands/new/live", wait_until="networkidle")
    page.locator("#as-text summary").click()
    page.fill("#tricks-text", "\n".join(" ".join(t["cards"]) for t in tricks))
    page.locator("#tricks-text").blur()
    expect(page.locator("#whose-turn")).to_have_text("All 25 tricks played.")


def expect_first_valid_hand_saved(page: Any) -> None:
    """The match page after classic-valid-1 was saved as hand 1."""
    expect_match_page(page, saved="Hand 1 saved: Anna -11 · Bruno 1 · Carla 10.", next_hand=2,
                      next_dealer=PLAYERS[(PLAYERS.index(fixture("classic-valid-1")["dealer"]) + 1) % 3],
                      totals=("-11", "1", "10"))


def test_a_valid_hand_typed_in_the_live_box_is_saved_with_the_plain_save(page: Any, live_server: str) -> None:
    """Online, a hand with nothing to decide on is saved with Save (not "save anyway"), as entered."""
    tricks = tricks_as_played("classic-valid-1")
    match_url = new_match(page, live_server, first_dealer=fixture("classic-valid-1")["dealer"])
    type_live_hand(page, match_url, tricks)
    expect(page.locator("#save-anyway")).to_be_hidden()
    page.locator("#save").click()
    expect_first_valid_hand_saved(page)
    assert [t["cards"] for t in stored_hands(page, match_url)[0]["tricks"]] == [t["cards"] for t in tricks]


def test_a_live_save_whose_answer_was_lost_is_stored_once_when_saved_again(browser: Any, live_server: str,
                                                                          browser_context_args: dict[str, Any]
                                                                          ) -> None:
    """live.js sends the form's entry key: Save tapped again after a lost answer is answered as the first
    save was. Without it, the second Save met a 409 (the hand number taken) and offered to save the same
    hand as the next one. No service worker here (served over plain HTTP on a club's network, a phone
    has none), and page.route sees every request."""
    context = browser.new_context(**browser_context_args)  # no service worker: see browser_context_args
    try:
        page = context.new_page()
        tricks = tricks_as_played("classic-valid-1")
        match_url = new_match(page, live_server, first_dealer=fixture("classic-valid-1")["dealer"])
        lost: list[int] = []

        def lose_the_first_answer(route: Any) -> None:
            if route.request.method == "POST" and not lost:
                lost.append(route.fetch().status)  # the server stores the hand; its answer never arrives
                route.abort()
            else:
                route.continue_()

        page.route(match_url + "hands/new/live", lose_the_first_answer)
        type_live_hand(page, match_url, tricks)
        page.locator("#save").click()
        expect(page.locator("#save")).to_be_enabled()  # "not saved": the phone heard nothing
        assert lost == [200]
        page.locator("#save").click()
        expect_first_valid_hand_saved(page)
        assert len(stored_hands(page, match_url)) == 1
    finally:
        context.close()


def test_the_filled_in_last_points_can_be_deleted_and_typed_over(page: Any, live_server: str, taps: Taps) -> None:
    page.goto(new_match(page, live_server))
    taps.tap("#record-points")
    type_into(page, taps, "#points_0", "31")
    type_into(page, taps, "#points_1", "22")
    expect(page.locator("#points_2")).to_have_value("25")
    taps.tap("#points_2")
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")  # as a thumb does it: delete the 25, then type Carla's own count
    page.keyboard.type("24")
    expect(page.locator("#points_2")).to_have_value("24", timeout=1000)


def test_impossible_pile_sizes_that_add_up_are_answered_where_the_player_sees_it(
        page: Any, live_server: str, shot: Any) -> None:
    """Sizes adding up to 78 that no hand leaves (26/25/27) are refused: the refusal stays on screen (the
    sizes' own check once hid every pile message whenever the sizes added up), and a change that keeps
    the total right does not hide it either; only the total's own complaint goes once the total is right."""
    match_url = new_match(page, live_server)
    honours = dealt_by("classic-honours", "Anna")
    page.goto(match_url + "hands/new/honours")
    first, second, last = PLAYERS
    for seat, name in enumerate(PLAYERS):
        page.locator(f"#pick-{seat}").click()
        for card in honours["honours"][name]:
            page.locator(f'#grid [data-card="{card}"]').click()
    page.fill("#size_0", "26")
    page.fill("#size_1", "25")
    expect(page.locator("#size_2")).to_have_value("27")
    page.locator("#save").click()
    refusal = page.locator('#size-problems li[data-code="pile_sizes"]')
    expect(refusal).to_be_visible()
    expect(page.locator("#outcome")).to_be_visible()
    shot("hand-honours-impossible-sizes")
    page.fill("#size_1", "24")  # still adds up (27 fills in as 28): still impossible, still said
    expect(page.locator("#size_2")).to_have_value("28")
    expect(refusal).to_be_visible()

    page.fill("#size_0", "30")  # a total the server answers (30 + 24 + 28 = 82): its complaint...
    page.fill("#size_2", "28")
    page.locator("#save").click()
    total = page.locator('#size-problems li[data-code="card_count"]')
    expect(total).to_be_visible()
    expect(page.locator("#grid [data-card]").first).to_be_visible()  # the grid is still there to tap
    expect(page.locator("#pick-0")).to_be_visible()
    page.fill("#size_0", "26")  # ...goes as soon as the total is right; the piles' shape is judged on saving
    expect(total).to_be_hidden()
    assert stored_hands(page, match_url) == []


def test_long_names_keep_their_words_whole_on_the_dealer_buttons(page: Any, live_server: str, shot: Any) -> None:
    """Each dealer button once shrank to a third of the row and broke long names mid-word ("Massimi /
    liano / Bartolo / mei"): a button is as wide as its name, a long one takes a row of its own."""
    names = ["Massimiliano Bartolomei", "Pierfrancesco Abbondanzieri", "Giovanbattistaferdinandoalessandro"]
    response = page.request.post(live_server + "/api/matches", data={
        "format": "scarto-match/1", "players": names, "first_dealer": names[0], "hands": []})
    match_url = live_server + "/m/" + response.json()["edit_url"].split("/m/")[1]
    for form in ("points", "honours"):
        page.goto(match_url + f"hands/new/{form}")
        heights = page.eval_on_selector_all("#dealer .seg-opt span", "spans => spans.map(s => s.offsetHeight)")
        assert heights[:2] == [heights[0]] * 2 and heights[0] < 60, heights  # one line each: two words, whole
        assert no_overflow(page) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot("hand-long-names")


def test_a_long_name_leaves_every_score_of_the_standings_in_sight(page: Any, live_server: str, shot: Any) -> None:
    """With "Änne-Marie Müller-Lüdenscheidt" dealing, the standings ran off a 390 px screen: the other
    players' scores could only be scrolled to, and nothing said so."""
    names = ["Änne-Marie Müller-Lüdenscheidt", "Bruno", "Ça"]
    response = page.request.post(live_server + "/api/matches", data={
        "format": "scarto-match/1", "players": names, "first_dealer": names[0], "language": "de",
        "hands": [{"dealer": names[0], "points": {names[0]: 31, "Bruno": 22, "Ça": 25}}]})
    page.goto(live_server + "/m/" + response.json()["edit_url"].split("/m/")[1] + "?lang=de")
    totals = page.locator("table.standings tfoot th.num")
    expect(totals).to_have_text(["5", "-4", "-1"])
    rights = totals.evaluate_all("cells => cells.map(c => c.getBoundingClientRect().right)")
    assert max(rights) <= 390 - 12, rights  # inside the page's margin, no sideways scrolling needed
    shot("match-long-name")
