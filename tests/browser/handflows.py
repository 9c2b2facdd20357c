"""What the hand-recording browser tests share: a match to record into, fixture hands, reading pages back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from scorer.engine.records import parse_hand
from scorer.engine.scoring import score_hand
from tests.browser.conftest import Taps

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "hands"
PLAYERS = ("Anna", "Bruno", "Carla")


def fixture(name: str) -> dict[str, Any]:
    """A hand record from tests/fixtures/hands."""
    return dict(json.loads((FIXTURES / f"{name}.json").read_text()))


def new_match_links(page: Any, live_server: str, *, first_dealer: str = "Anna",
                    hands: int | None = None) -> tuple[str, str]:
    """An empty classic match created through the JSON API (making matches is test_matches' flow).

    It lasts ``hands`` hands (one round, a hand per player, when not given). Returns its edit link
    and its view-only link.
    """
    body: dict[str, Any] = {"format": "scarto-match/1", "title": "Friday at the circolo", "ruleset": "classic",
                            "players": list(PLAYERS), "first_dealer": first_dealer, "settle": "per_point",
                            "hands": []}
    if hands is not None:
        body["end"] = {"hands": hands}
    response = page.request.post(live_server + "/api/matches", data=body,
                                 headers={"Content-Type": "application/json"})
    assert response.status == 201, response.text()
    return str(response.json()["edit_url"]), str(response.json()["view_url"])


def new_match(page: Any, live_server: str, *, first_dealer: str = "Anna", hands: int | None = None) -> str:
    """An empty classic match to record hands into; its (edit) URL."""
    return new_match_links(page, live_server, first_dealer=first_dealer, hands=hands)[0]


def stored_hands(page: Any, match_url: str) -> list[dict[str, Any]]:
    """The hands the server has stored, read from the match file it exports."""
    response = page.request.get(match_url + "export.json")
    assert response.ok, response.text()
    return list(response.json()["hands"])


def totals(page: Any, match_url: str) -> dict[str, Any]:
    """The standings the server computes: each player's total."""
    response = page.request.get(match_url + "standings.json")
    assert response.ok, response.text()
    return {p["name"]: p["total"] for p in response.json()["players"]}


def expect_match_page(page: Any, *, saved: str, next_hand: int, next_dealer: str, totals: tuple[str, ...]) -> None:
    """The match page after a save: the message, who deals next, the standings' totals row."""
    expect(page.locator(".flash")).to_have_text(saved)
    expect(page.locator(".next h2")).to_have_text(f"Hand {next_hand} — {next_dealer} deals")
    expect(page.locator("table.standings tbody tr")).to_have_count(next_hand - 1)
    expect(page.locator("table.standings tfoot th.num")).to_have_text(list(totals))


def hand_page_scores(page: Any) -> dict[str, str]:
    """The scores column of a hand page, by player."""
    rows = page.locator("#scores tbody tr")
    expect(rows.first).to_be_visible()
    return {rows.nth(i).get_attribute("data-player"): rows.nth(i).locator("td.score").inner_text().strip()
            for i in range(rows.count())}


def type_into(page: Any, taps: Taps, selector: str, text: str, *, replace: bool = False) -> None:
    """Tap a field (a tap) and type into it (typing is not a tap); ``replace`` types over what is there."""
    taps.tap(selector)
    if replace:
        page.keyboard.press("Control+A")
    page.keyboard.type(text)


def tricks_as_played(name: str) -> list[dict[str, Any]]:
    """Each trick of a fixture's full record: its cards, who leads, who wins (as the core judges it)."""
    data = fixture(name)
    result = score_hand(parse_hand(data))
    assert result.replay is not None
    players = result.record.players
    return [{"number": t.number, "cards": data["tricks"][i]["cards"], "leader": players[t.leader],
             "seats": [players[s] for s in t.seats], "winner": players[t.winner]}
            for i, t in enumerate(result.replay.tricks)]
