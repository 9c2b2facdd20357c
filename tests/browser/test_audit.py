"""Settling a dispute: step through the audit of the revoke fixture at phone size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Taps, no_overflow

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
