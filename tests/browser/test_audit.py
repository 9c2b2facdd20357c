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
