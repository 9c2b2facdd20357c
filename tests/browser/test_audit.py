"""Settling a dispute: step through the audit of the revoke fixture at phone size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import COLOUR_RULES, Taps, no_overflow, violations

pytestmark = pytest.mark.browser
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hands"


def test_step_to_the_revoke_and_its_proof(page: Any, live_server: str, taps: Taps, shot: Any) -> None:
    page.goto(live_server + "/")
    taps.tap("text=Audit a hand")
    page.fill("textarea", (FIXTURES / "classic-breach.json").read_text())
    taps.tap("button[type=submit]")
    expect(page.locator("#problems")).to_contain_text("Carla played the Cavalier of Batons to a trump lead")
    shot("audit-overview")
    for expected in range(1, 5):
        taps.tap("#next")
        expect(page.locator("#position")).to_have_text(f"Trick {expected} of 25")
    expect(page.locator("tr.breach")).to_contain_text("Carla")
    expect(page.locator(".trick .problem")).to_contain_text("while holding a trump")
    assert no_overflow(page) == []
    shot("audit-trick-4")
    taps.tap("#next")
    expect(page.locator(".proof")).to_have_text(
        "This trick proves the breach of trick 4: Carla shows the Bagatto (I).")
    shot("audit-trick-5-proof")
    taps.tap("#prev")
    expect(page.locator("#position")).to_have_text("Trick 4 of 25")
    page.select_option("select[name=t]", "20")
    taps.tap(".jump button")
    expect(page.locator("#position")).to_have_text("Trick 20 of 25")
    page.select_option("select[name=award]", "4-2")
    taps.tap("#what-if button")
    expect(page.locator("#what-if-scores")).to_be_visible()
    shot("audit-what-if")


def test_a_what_if_is_recorded_as_the_hands_revision_and_undone(page: Any, live_server: str, shot: Any) -> None:
    """The table rules that trick 4 goes to Carla: one tap keeps it as the hand's revision, and the
    hand's history brings the hand as played back."""
    import json

    body = json.loads((FIXTURES / "classic-breach.json").read_text())
    match = {"format": "scarto-match/1", "players": body["players"], "first_dealer": "Bruno", "ruleset": "classic",
             "hands": [{k: v for k, v in body.items() if k not in ("format", "players", "ruleset")}]}
    created = page.request.post(live_server + "/api/matches", data=match, headers={"Content-Type": "application/json"})
    match_url = str(created.json()["edit_url"])
    page.goto(match_url + "?lang=it")
    page.locator("table.standings tbody tr a").first.click()
    page.locator("a[href$='/audit']").first.click()
    page.select_option("select[name=award]", "4-2")
    page.locator("#what-if form[method=get] button").click()
    ruled = page.locator("#what-if-scores tbody tr").nth(2).locator("td").nth(2).inner_text()
    for width in (320, 390):
        page.set_viewport_size({"width": width, "height": 844})
        expect(page.locator("#record-ruling button")).to_have_text("Registra come nuova versione della mano")
        assert no_overflow(page) == []
        shot(f"audit-record-ruling-{width}")
    taps = Taps(page)
    taps.tap("#record-ruling button")
    assert taps.count == 1
    expect(page.locator(".flash").first).to_contain_text(
        "Registrata come versione 2 della mano: presa 4 a Carla. Per annullare, ripristina la versione 1.")
    shot("history-after-ruling")
    page.goto(match_url)
    expect(page.locator("table.standings tbody tr").first).to_contain_text(ruled)
    page.goto(page.url.split("?")[0])
    page.locator("table.standings tbody tr a").first.click()
    page.locator("#history").click()
    page.locator("text=Ripristina la versione 1").first.click()
    expect(page.locator(".flash").first).to_contain_text("Versione 1 ripristinata")


def test_the_review_fills_in_on_a_phone_in_italian_and_reads_in_finnish(
        page: Any, live_server: str, shot: Any, monkeypatch: pytest.MonkeyPatch, axe_source: str) -> None:
    """A full record's audit says the review is being made, fills it in by itself when it is ready, with
    each player's par, given up and score as the engine's review has them, whole at 320 px; a second view,
    in another language, reads the kept review."""
    import json

    from scorer.engine.analysis import analyse
    from scorer.engine.numbers import fraction_text
    from scorer.engine.records import parse_hand
    from scorer.storage import reviews

    monkeypatch.setitem(reviews.REVIEW_TRICKS, "three", 6)
    body = json.loads((FIXTURES / "classic-valid-1.json").read_text())
    match = {"format": "scarto-match/1", "players": body["players"], "first_dealer": body["dealer"],
             "ruleset": "classic",
             "hands": [{k: v for k, v in body.items() if k not in ("format", "players", "ruleset")}]}
    created = page.request.post(live_server + "/api/matches", data=match, headers={"Content-Type": "application/json"})
    match_url = str(created.json()["edit_url"])
    page.set_viewport_size({"width": 320, "height": 760})
    page.goto(match_url + "?lang=it")
    page.locator("table.standings tbody tr a").first.click()
    page.locator("a[href$='/audit']").first.click()
    expect(page.locator("#review-making")).to_contain_text("L'analisi è in corso")
    expect(page.locator("#count")).to_be_visible()  # the rest of the audit meanwhile
    expect(page.locator("#review table.review-sum")).to_be_visible(timeout=120_000)  # filled in by review.js
    record = parse_hand(json.loads((FIXTURES / "classic-valid-1.json").read_text()))
    review = analyse(record, reviews.first_trick(record))
    rows = page.locator("#review table.review-sum tbody tr")
    for seat, name in enumerate(record.players):
        expect(rows.nth(seat)).to_have_text(
            f"{name}{fraction_text(review.par[seat])}{fraction_text(review.given_up()[seat])}"
            f"{fraction_text(next(c.score for c in _scores(record) if c.name == name))}")
    expect(page.locator("#review h2")).to_have_text("Analisi: quanto è costata ogni carta")
    expect(page.locator("#review b.lost")).to_have_count(len([p for p in review.plays if p.lost]))
    assert no_overflow(page) == []
    page.locator("#review").scroll_into_view_if_needed()
    page.locator("#review").screenshot(path=str(shot("audit-review-it-320").parent / "audit-review-it-320-part.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page.url.split("?")[0] + "?lang=fi")
    expect(page.locator("#review h2")).to_have_text("Analyysi: mitä kukin kortti maksoi")  # kept: at once
    expect(page.locator("#review-making")).to_have_count(0)
    assert no_overflow(page) == []
    assert violations(page, axe_source) == []
    page.emulate_media(color_scheme="dark")
    assert violations(page, axe_source, only=COLOUR_RULES) == []
    page.locator("#review").screenshot(path=str(shot("audit-review-fi-390-dark").parent / "audit-review-fi-dark.png"))
    page.locator("#review").screenshot(path=str(shot("audit-review-fi-390").parent / "audit-review-fi-390-part.png"))


def _scores(record: Any) -> Any:
    from scorer.engine.scoring import score_hand
    return score_hand(record).counts
