"""Recording hands: points, captured cards, counting cards and live; errors, breaches, conflicts, edits."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from scorer.engine.records import parse_hand
from scorer.engine.scoring import score_hand
from tests.handutil import (
    check,
    csrf_of,
    expected,
    export,
    fixture,
    flashes,
    hand_keys,
    open_form,
    points_data,
    record,
    save_live,
    text,
    view_token,
)
from tests.webutil import csrf_token, start_match

PLAYERS = ("Anna", "Bruno", "Carla")


def _scores(name: str) -> dict[str, Any]:
    return {p["name"]: p["score"] for p in expected(name)["players"]}


def _stored_scores(client: FlaskClient, token: str, number: int) -> dict[str, Any]:
    data = export(client, token)
    hand = {"format": "scarto-hand/1", "ruleset": data["ruleset"], "players": data["players"],
            **data["hands"][number - 1]}
    from scorer.engine.numbers import fraction_json

    return {p: fraction_json(s) for p, s in score_hand(parse_hand(hand)).scores().items()}


# --- counted points --------------------------------------------------------------------


def test_points_last_player_is_filled_in(client: FlaskClient) -> None:
    token = start_match(client)
    response = record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"))
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/m/{token}/")
    assert export(client, token)["hands"][0]["points"] == {"Anna": 31, "Bruno": 22, "Carla": 25}
    assert flashes(client, token) == ["Hand 1 saved: Anna 5 · Bruno -4 · Carla -1."]


def test_notes_with_a_control_character_are_refused_at_their_box_and_kept(client: FlaskClient) -> None:
    token = start_match(client)
    data = {**points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"), "notes": "Bruno\x00 dealt twice"}
    response = record(client, token, "points", data)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    said = re.search(r'<span class="problem" role="alert" id="notes-error">([^<]*)</span>', page)
    assert said is not None and "control character (U+0000)" in said.group(1)
    assert '<details class="notes" open>' in page and 'aria-describedby="notes-error"' in page
    assert 'value="31"' in page and 'value="22"' in page  # what was typed, kept
    assert export(client, token)["hands"] == []
    kept = {**data, "notes": "Bruno dealt twice\r\n\tthe table agreed"}
    assert record(client, token, "points", kept).status_code == 302  # line breaks and tabs: as the box sends
    assert export(client, token)["hands"][0]["notes"] == "Bruno dealt twice\n\tthe table agreed"


def test_points_page_prefills_the_dealer_from_the_rotation(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2")
    page, fields = open_form(client, f"/m/{token}/hands/new/points")
    assert re.search(r'id="dealer-1" value="Bruno" checked', page)
    assert fields["expected_count"] == "0"
    record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Bruno"))
    page, fields = open_form(client, f"/m/{token}/hands/new/points")
    assert re.search(r'id="dealer-2" value="Carla" checked', page)
    assert fields["expected_count"] == "1"
    assert 'id="last-points"' in page and 'id="save"' in page


def test_a_dealer_out_of_turn_is_asked_about_once_before_saving(client: FlaskClient) -> None:
    """Hand 1, the rotation says Anna, Carla tapped: saved silently, the deal then passed on from Carla.
    Without scripts the page asks, keeping what was typed; the table confirms Carla, or takes Anna."""
    token = start_match(client)
    asked = record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Carla"))
    assert asked.status_code == 200
    assert "Anna deals this hand by the rotation: save with Carla?" in text(asked)
    page = asked.get_data(as_text=True)
    assert 'id="save-dealer" name="dealer_ok" value="Carla">Save with Carla</button>' in page
    assert 'id="save-rotation" name="dealer_by_rotation" value="1">Save with Anna</button>' in page
    assert 'id="save"' not in page  # one action for each answer, not a third save
    assert page.count('name="dealer_ok"') == 1  # the button's answer, not an empty hidden field before it
    assert 'value="31"' in page and 'id="dealer-2" value="Carla" checked' in page  # nothing typed is lost
    assert export(client, token)["hands"] == []
    saved = record(client, token, "points", {**points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Carla"),
                                             "dealer_ok": "Carla"})
    assert saved.status_code == 302
    assert export(client, token)["hands"][0]["dealer"] == "Carla"
    again = record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Carla"))
    assert "Anna deals this hand by the rotation: save with Carla?" in text(again)  # the rotation: Anna again
    by_rotation = record(client, token, "points", {**points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Carla"),
                                                   "dealer_by_rotation": "1"})
    assert by_rotation.status_code == 302
    assert [h["dealer"] for h in export(client, token)["hands"]] == ["Carla", "Anna"]
    client.get("/?lang=it")
    italian = record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"))
    assert "Secondo il giro, in questa mano fa le carte Bruno: salvarla con Anna come mazziere?" in text(italian)


def test_a_dealer_confirmed_is_not_asked_again_at_a_breach(client: FlaskClient) -> None:
    """Asked once: the dealer confirmed travels with the page to the breach's "save anyway"."""
    hand = fixture("classic-breach")
    token = start_match(client)
    tricks = "\n".join(" ".join(t["cards"]) for t in hand["tricks"])
    breach = record(client, token, "live", {"dealer": "Bruno", "tricks": tricks, "dealer_ok": "Bruno"})
    page = breach.get_data(as_text=True)
    assert breach.status_code == 200 and 'id="save-anyway"' in page and "by the rotation" not in text(breach)
    assert 'id="dealer_ok" name="dealer_ok" type="hidden" value="Bruno"' in page
    saved = record(client, token, "live", {"dealer": "Bruno", "tricks": tricks, "dealer_ok": "Bruno",
                                           "save_anyway": "1"})
    assert saved.status_code == 302


def test_the_live_page_asks_on_the_phone_about_a_dealer_out_of_turn(client: FlaskClient) -> None:
    """live.js asks before it sends (offline too, where the server cannot): it is told the rotation's dealer
    and the question, and the server saves what it sends as judged."""
    hand = fixture("classic-valid-1")
    token = start_match(client)
    page, _fields = open_form(client, f"/m/{token}/hands/new/live")
    config = json.loads(html.unescape(re.search(r"data-config='([^']*)'", page).group(1)))  # type: ignore[union-attr]
    texts = json.loads(html.unescape(re.search(r"data-texts='([^']*)'", page).group(1)))  # type: ignore[union-attr]
    assert config["dealer"] == config["rotation"] == "Anna"
    assert texts["out_of_turn"] == "%(rotation)s deals this hand by the rotation: save with %(dealer)s?"
    csrf = csrf_of(client, token)
    body = {"dealer": "Bruno", "tricks": [t["cards"] for t in hand["tricks"]], "expected_count": "0"}
    assert save_live(client, f"/m/{token}/hands/new/live", csrf, body).get_json()["saved"] is True


@pytest.mark.parametrize(("typed", "stored", "last"), [
    ("19½", "39/2", "117/2"),
    ("19 1/2", "39/2", "117/2"),
    ("58/3", "58/3", "176/3"),
    ("19,0", 19, 59),
    ("19 1/3", "58/3", "176/3"),
])
def test_points_as_fractions_four_players(client: FlaskClient, typed: str, stored: str | int, last: str | int) -> None:
    names = ("Anna", "Bruno", "Carla", "Dario")
    token = start_match(client, names, preset="four")
    response = record(client, token, "points",
                      points_data({"Anna": typed, "Bruno": "0", "Carla": "0"}, names, "Anna"))
    assert response.status_code == 302, text(response)
    points = export(client, token)["hands"][0]["points"]
    assert points["Anna"] == stored and points["Dario"] == last


@pytest.mark.parametrize(("typed", "hint"), [
    ("25,33", "“25,33” is a decimal: points come in thirds: write 25 1/3."),
    ("25.33", "“25.33” is a decimal: points come in thirds: write 25 1/3."),
    ("25,67", "“25,67” is a decimal: points come in thirds: write 25 2/3."),
    ("0,3", "“0,3” is a decimal: points come in thirds: write 1/3."),
])
def test_decimal_points_are_refused_with_the_third(client: FlaskClient, typed: str, hint: str) -> None:
    """Counted points are whole or thirds: "25,33" was stored as 2533/100. Refused, the third named,
    what was typed kept."""
    token = start_match(client)
    response = record(client, token, "points", points_data({"Anna": typed, "Bruno": 22}, PLAYERS, "Anna"))
    assert response.status_code == 400
    assert f"Anna: {hint}" in text(response)
    assert f'value="{typed}"' in response.get_data(as_text=True)
    assert export(client, token)["hands"] == []
    client.get("/?lang=it")
    italian = text(record(client, token, "points", points_data({"Anna": "25,33", "Bruno": 22}, PLAYERS, "Anna")))
    assert "i punti vanno a terzi: scrivi 25 1/3" in italian


def test_decimal_points_are_refused_by_the_api_and_in_files(client: FlaskClient) -> None:
    """The same refusal on every way in: the JSON interface and an imported match file."""
    token = start_match(client)
    response = client.post(f"/m/{token}/hands.json",
                           json={"dealer": "Anna", "points": {"Anna": "25,33", "Bruno": 22, "Carla": "30.67"}})
    assert response.status_code == 400
    assert response.get_json()["message"] == \
        'points.Anna: "25,33" is a decimal: points come in whole numbers or thirds; write "76/3"'
    data = export(client, token)
    data["hands"] = [{"dealer": "Anna", "points": {"Anna": 25.33, "Bruno": 22, "Carla": "92/3"}}]
    from io import BytesIO

    imported = client.post("/import", data={"file": (BytesIO(json.dumps(data).encode()), "m.json"),
                                            "csrf_token": csrf_token(client.get("/import").get_data(as_text=True))},
                           content_type="multipart/form-data")
    assert imported.status_code == 400
    assert "25.33 is a decimal: points come in whole numbers or thirds; write" in text(imported)
    assert export(client, token)["hands"] == []


def test_points_all_typed_must_add_up(client: FlaskClient) -> None:
    token = start_match(client)
    response = record(client, token, "points", points_data({"Anna": 31, "Bruno": 22, "Carla": 24}, PLAYERS, "Anna"))
    assert response.status_code == 400
    words = text(response)
    assert "Points do not add up" in words
    assert "The counted points add up to 77; the classic pack counts 78 in all." in words
    assert 'value="24"' in response.get_data(as_text=True)  # what was typed is kept
    assert export(client, token)["hands"] == []
    client.get("/?lang=it")
    italian = text(record(client, token, "points", points_data({"Anna": 31, "Bruno": 22, "Carla": 24}, PLAYERS,
                                                               "Anna")))
    assert "con le regole «classico» il mazzo conta 78" in italian  # it said "il mazzo classic"


def test_piccolo_deck_total_is_66(client: FlaskClient) -> None:
    token = start_match(client, preset="piccolo")
    record(client, token, "points", points_data({"Anna": 20, "Bruno": 20}, PLAYERS, "Anna"))
    assert export(client, token)["hands"][0]["points"]["Carla"] == 26


# --- captured cards and counting cards ------------------------------------------------------


def test_captured_piles_with_the_rest_to_the_last_player(client: FlaskClient) -> None:
    hand = fixture("classic-captured")
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    piles = hand["captured"]
    data = {"dealer": "Bruno", "cards_0": " ".join(piles["Anna"]), "cards_1": ", ".join(piles["Bruno"]),
            "cards_2": "", "rest": "2"}
    response = record(client, token, "cards", data)
    assert response.status_code == 302, text(response)
    stored = export(client, token)["hands"][0]["captured"]
    assert stored["Anna"] == piles["Anna"] and stored["Bruno"] == piles["Bruno"]
    assert sorted(stored["Carla"]) == sorted(piles["Carla"])
    assert _stored_scores(client, token, 1) == _scores("classic-captured")


def test_captured_rest_can_go_to_any_player_and_cards_can_be_aliases(client: FlaskClient) -> None:
    hand = fixture("classic-captured")
    piles = hand["captured"]
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    anna = ["Bagatto" if c == "T1" else "Fool" if c == "M" else c for c in piles["Anna"]]
    data = {"dealer": "Bruno", "cards_0": " ".join(anna), "cards_1": "", "cards_2": " ".join(piles["Carla"]),
            "rest": "1"}
    response = record(client, token, "cards", data)
    assert response.status_code == 302, text(response)
    assert _stored_scores(client, token, 1) == _scores("classic-captured")


def test_cards_page_shows_the_rulesets_pack_only(client: FlaskClient) -> None:
    token = start_match(client)
    page, _ = open_form(client, f"/m/{token}/hands/new/cards")
    assert len(re.findall(r'data-card="', page)) == 78
    # drawn as in the hand: the rank and the pack's own suit mark (batons), trumps as numerals
    assert ('data-card="KB" aria-label="King of Batons"><span class="cf cf-i3">K'
            '<svg class="mark"><use href="#mark-i3"/></svg>') in page
    assert '<use href="#mark-i3"/>' in page and '<symbol id="mark-i3"' in page
    assert 'data-card="T21" aria-label="World XXI"><span class="cf cf-t">XXI</span>' in page
    token = start_match(client, preset="piccolo")
    page, _ = open_form(client, f"/m/{token}/hands/new/cards")
    assert len(re.findall(r'data-card="', page)) == 42
    assert 'data-card="5C"' not in page and 'data-card="1C"' in page


def test_captured_duplicate_card_is_refused(client: FlaskClient) -> None:
    token = start_match(client)
    response = record(client, token, "cards", {"dealer": "Bruno", "cards_0": "KB QB", "cards_1": "KB", "rest": "2"})
    assert response.status_code == 400
    words = text(response)
    assert "Card twice" in words and "The King of Batons (KB) is in Anna's pile and in Bruno's: take it out of one." \
        in words
    assert export(client, token)["hands"] == []


def test_captured_impossible_pile_sizes_are_refused(client: FlaskClient) -> None:
    token = start_match(client)
    response = record(client, token, "cards", {"dealer": "Bruno", "cards_0": "KB QB", "cards_1": "", "rest": "2"})
    assert response.status_code == 400
    assert "Impossible pile sizes" in text(response)
    assert "Bruno's pile has 0 cards, fewer than the 3 the dealer discarded into it." in text(response)


def test_honours_with_sizes(client: FlaskClient) -> None:
    hand = fixture("classic-honours")
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    honours, sizes = hand["honours"], hand["sizes"]
    data = {"dealer": "Bruno", "cards_0": " ".join(honours["Anna"]), "cards_1": " ".join(honours["Bruno"]),
            "cards_2": "", "rest": "2", "size_0": str(sizes["Anna"]), "size_1": str(sizes["Bruno"]), "size_2": ""}
    response = record(client, token, "honours", data)
    assert response.status_code == 302, text(response)
    stored = export(client, token)["hands"][0]
    assert stored["sizes"] == sizes
    assert sorted(stored["honours"]["Carla"]) == sorted(honours["Carla"])
    assert _stored_scores(client, token, 1) == _scores("classic-honours")


def test_honours_page_shows_only_counting_cards(client: FlaskClient) -> None:
    token = start_match(client)
    page, _ = open_form(client, f"/m/{token}/hands/new/honours")
    cards = re.findall(r'data-card="([^"]+)"', page)
    assert len(cards) == 19 and {"T1", "T20", "M", "KC", "JS"} <= set(cards) and "T21" not in cards


def test_honours_with_a_pip_card_is_read_as_one_of_the_piles_cards(client: FlaskClient) -> None:
    """RECORD.md: a one-point card listed with the counting cards is one of the pile's cards."""
    hand = fixture("classic-honours")
    token = start_match(client)
    honours, sizes = hand["honours"], hand["sizes"]
    response = record(client, token, "honours", {
        "dealer": "Bruno", "dealer_ok": "Bruno", "cards_0": " ".join([*honours["Anna"], "5C"]),
        "cards_1": " ".join(honours["Bruno"]), "rest": "2", "size_0": str(sizes["Anna"]),
        "size_1": str(sizes["Bruno"])})
    assert response.status_code == 302, text(response)
    assert _stored_scores(client, token, 1) == _scores("classic-honours")


# --- live ----------------------------------------------------------------------------------


def test_live_check_flags_the_revoke_as_soon_as_it_is_proven(client: FlaskClient) -> None:
    hand = fixture("classic-breach")
    token = start_match(client, first_dealer="2")
    csrf = csrf_of(client, token)
    tricks: list[list[str]] = []
    seen_revoke_at = None
    for number, trick in enumerate(hand["tricks"], start=1):
        tricks.append([])
        for card in trick["cards"]:
            leader_now = check(client, token, csrf, "Bruno", tricks).get_json()
            tricks[-1].append(card)
            state = check(client, token, csrf, "Bruno", tricks).get_json()
            if not tricks[-1][1:]:  # the first card of a trick: whoever was to play leads
                assert leader_now["turn"] == trick["leader"]
            codes = [p["code"] for p in state["problems"]]
            if "revoke" in codes and seen_revoke_at is None:
                seen_revoke_at = (number, len(tricks[-1]))
                (revoke,) = state["problems"]
                assert revoke["trick"] == 4 and revoke["player"] == "Carla" and revoke["card"] == "CB"
                assert revoke["label"] == "Revoke"
                assert "Trick 4: Carla played the Cavalier of Batons" in revoke["message"]
            assert card not in state["remaining"]
        assert state["tricks"][-1]["winner"] is not None
    assert seen_revoke_at == (5, 3)  # Carla's Bagatto in trick 5 proves it
    assert state["complete"] and state["can_save"]
    assert sorted(state["discard"]) == sorted(hand["discard"])
    assert {s["name"]: s["score"] for s in state["scores"]} == {"Anna": "-5", "Bruno": "4", "Carla": "1"}


def test_live_check_reports_whose_turn_and_winners(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2")
    csrf = csrf_of(client, token)
    state = check(client, token, csrf, "Bruno", []).get_json()
    assert state["turn"] == "Carla" and state["problems"] == [] and len(state["remaining"]) == 78
    state = check(client, token, csrf, "Bruno", [["10B", "8B"]]).get_json()
    assert state["turn"] == "Bruno" and state["leader"] == "Carla"
    state = check(client, token, csrf, "Bruno", [["10B", "8B", "6B"]]).get_json()
    assert state["tricks"][0]["winner"] == "Carla" and state["turn"] == "Carla"
    assert state["tricks"][0]["players"] == ["Carla", "Anna", "Bruno"]


def test_live_check_accepts_typed_tricks(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2")
    csrf = csrf_of(client, token)
    state = check(client, token, csrf, "Bruno", "1. 10b 8B 6♣\n2. X XXI T17").get_json()
    assert state["entered"] == [["10B", "8B", "6B"], ["T10", "T21", "T17"]]


@pytest.mark.parametrize(("body", "message"), [
    ({"dealer": "Zed", "tricks": []}, "Choose who dealt this hand."),
    ({"dealer": "Anna", "tricks": [["KX"]]}, "'KX' is not a card"),
    ({"dealer": "Anna", "tricks": "KX"}, "Trick 1: “KX” is not a card."),
    ({"dealer": "Anna", "tricks": [[1, 2]]}, "The app sent something it cannot read"),
    ({"dealer": "Anna", "tricks": {"a": 1}}, "The app sent something it cannot read"),
    ([1, 2], "The app sent something it cannot read"),
])
def test_live_check_bad_input_is_a_400_with_a_message(client: FlaskClient, body: Any, message: str) -> None:
    token = start_match(client)
    csrf = csrf_of(client, token)
    response = client.post(f"/m/{token}/hands/live/check", json=body, headers={"X-CSRFToken": csrf})
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_live_check_shows_a_duplicate_card_as_an_error(client: FlaskClient) -> None:
    token = start_match(client)
    csrf = csrf_of(client, token)
    state = check(client, token, csrf, "Anna", [["KB", "KB"]]).get_json()
    assert state["errors"] and state["problems"][0]["code"] == "duplicate_card"


def test_live_check_names_a_trick_of_too_many_cards_sent_as_codes(client: FlaskClient) -> None:
    """Four cards typed into trick 1 came back from live.js as codes after a reload, and were refused with
    "reload the page" at every reload: the page was stuck, the real problem gone."""
    token = start_match(client, first_dealer="2")
    csrf = csrf_of(client, token)
    typed = check(client, token, csrf, "Bruno", "T1 T2 T3 T4").get_json()
    sent = check(client, token, csrf, "Bruno", [["T1", "T2", "T3", "T4"]])
    assert sent.status_code == 200
    state = sent.get_json()
    assert state["errors"] and state["problems"] == typed["problems"]
    assert "4" in state["problems"][0]["message"]


def test_live_check_needs_the_csrf_token(client: FlaskClient) -> None:
    token = start_match(client)
    response = client.post(f"/m/{token}/hands/live/check", json={"dealer": "Anna", "tricks": []})
    assert response.status_code == 400


def test_live_save_with_a_breach_needs_save_anyway(client: FlaskClient) -> None:
    hand = fixture("classic-breach")
    token = start_match(client, first_dealer="2")
    csrf = csrf_of(client, token)
    url = f"/m/{token}/hands/new/live"
    body = {"dealer": "Bruno", "tricks": [t["cards"] for t in hand["tricks"]], "expected_count": "0"}
    response = save_live(client, url, csrf, body)
    assert response.status_code == 200
    answer = response.get_json()
    assert answer["saved"] is False and answer["confirm"] is True
    assert [p["code"] for p in answer["problems"]] == ["revoke"]
    assert export(client, token)["hands"] == []
    response = save_live(client, url, csrf, {**body, "save_anyway": True})
    assert response.status_code == 200 and response.get_json()["saved"] is True
    stored = export(client, token)["hands"][0]
    assert stored["tricks"] == hand["tricks"]  # with the leaders
    assert sorted(stored["discard"]) == sorted(hand["discard"])
    assert flashes(client, token) == ["Hand 1 saved: Anna -5 · Bruno 4 · Carla 1. Marked: Revoke in trick 4."]


def test_live_without_javascript_posts_the_tricks_as_text(client: FlaskClient) -> None:
    hand = fixture("classic-valid-1")
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    tricks = "\n".join(f"{i}. " + " ".join(t["cards"]) for i, t in enumerate(hand["tricks"], 1))
    response = record(client, token, "live", {"dealer": hand["dealer"], "tricks": tricks})
    assert response.status_code == 302, text(response)
    stored = export(client, token)["hands"][0]
    assert [t["cards"] for t in stored["tricks"]] == [t["cards"] for t in hand["tricks"]]


def test_live_form_breach_without_javascript_asks_to_save_anyway(client: FlaskClient) -> None:
    hand = fixture("classic-breach")
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    tricks = "\n".join(" ".join(t["cards"]) for t in hand["tricks"])
    response = record(client, token, "live", {"dealer": "Bruno", "tricks": tricks})
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert 'id="save-anyway"' in page and "Revoke" in page
    assert "Trick 4: Carla played the Cavalier of Batons" in text(response)
    response = record(client, token, "live", {"dealer": "Bruno", "tricks": tricks, "save_anyway": "1"})
    assert response.status_code == 302
    assert len(export(client, token)["hands"]) == 1


def test_live_incomplete_hand_cannot_be_saved(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2")
    csrf = csrf_of(client, token)
    response = save_live(client, f"/m/{token}/hands/new/live", csrf,
                         {"dealer": "Bruno", "tricks": [["10B", "8B", "6B"]], "expected_count": "0"})
    assert response.status_code == 400
    answer = response.get_json()
    assert answer["saved"] is False and answer["problems"][0]["code"] == "trick_count"
    assert "The record has 1 tricks; a classic hand has 25." in answer["problems"][0]["message"]


def test_live_page_carries_what_live_js_needs(client: FlaskClient) -> None:
    token = start_match(client)
    page, fields = open_form(client, f"/m/{token}/hands/new/live")
    match = re.search(r"data-config='([^']+)'", page)
    assert match
    config = json.loads(match.group(1))
    assert config["check"] == f"/m/{token}/hands/live/check" and config["tricks_total"] == 25
    assert config["players"] == list(PLAYERS) and config["dealer"] == "Anna"
    for element in ('id="whose-turn"', 'id="undo"', 'id="save"', 'id="problems"', 'id="grid"', 'id="tricks"',
                    'id="trick-now"', 'id="save-anyway"', 'id="discard-entry"'):
        assert element in page
    assert "<script>" not in page and "style=" not in page


# --- errors, conflicts, permissions ----------------------------------------------------------


@pytest.mark.parametrize(("form", "data", "message"), [
    ("points", {"points_0": "abc", "points_1": "3"},
     "Anna: “abc” is not a number of points: write e.g. 31, 19½ or 58/3."),
    ("points", {"points_0": "-3", "points_1": "3"}, "Anna: -3 is negative: counted points are never below zero."),
    ("points", {"points_0": "1/0", "points_1": "3"}, "Anna: 1/0 divides by zero."),
    ("points", {"points_0": "30"},
     "Enter the points of every player but one: the last one fills itself in (78 in all)."),
    ("points", {"points_0": "50", "points_1": "40"}, "The points entered already add up to more than 78"),
    ("points", {"points_0": "1e9", "points_1": "3"}, "is not a number of points"),
    ("points", {"points_0": "3" * 30, "points_1": "3"}, "30 characters long; at most 20 are allowed here"),
    ("points", {"dealer": "Zed", "points_0": "30", "points_1": "20"}, "Choose who dealt this hand."),
    ("points", {"expected_count": "x", "points_0": "30", "points_1": "20"}, "The form was damaged in transit"),
    ("points", {"expected_count": "", "points_0": "30", "points_1": "20"}, "The form was damaged in transit"),
    ("cards", {"cards_0": "KB KX", "rest": "2"}, "Anna: “KX” is not a card."),
    ("cards", {"cards_0": "KX KB Z9 QB XQ", "rest": "2"}, "Anna: “KX”, “Z9”, “XQ” are not cards."),
    ("cards", {"cards_0": " ".join(f"W{i}" for i in range(10)), "rest": "2"},
     "Anna: “W0”, “W1”, “W2”, “W3”, “W4”, “W5”, “W6”, “W7” … are not cards."),
    ("cards", {"cards_0": "KB", "rest": "7"}, "Choose who gets the cards not given to anyone."),
    ("honours", {"cards_0": "KB", "rest": "2", "size_0": "x", "size_1": "3"}, "Anna: “x” is not a number of cards."),
    ("honours", {"cards_0": "KB", "rest": "2", "size_0": "10"},
     "Enter the number of cards in every pile but one"),
    ("honours", {"cards_0": "KB", "rest": "2", "size_0": "70", "size_1": "10"},
     "The pile sizes entered already add up to more than the 78 cards of the pack."),
    ("live", {"tricks": "KB QB JB\nKX"}, "Trick 2: “KX” is not a card."),
    ("live", {"tricks": ""}, "No trick entered yet."),
])
def test_bad_input_is_refused_with_a_message(client: FlaskClient, form: str, data: dict[str, str],
                                             message: str) -> None:
    token = start_match(client)
    response = record(client, token, form, {"dealer": "Anna", **data})
    assert response.status_code == 400
    assert message in text(response)
    assert export(client, token)["hands"] == []


def test_a_card_outside_the_piccolo_pack_is_refused(client: FlaskClient) -> None:
    token = start_match(client, preset="piccolo")
    response = record(client, token, "cards", {"dealer": "Anna", "cards_0": "5C", "rest": "2"})
    assert response.status_code == 400
    assert "Anna: 5C is not in the piccolo pack." in text(response)


def test_two_phones_saving_the_same_hand_conflict(client: FlaskClient) -> None:
    token = start_match(client)
    _page, first = open_form(client, f"/m/{token}/hands/new/points")
    _page, second = open_form(client, f"/m/{token}/hands/new/points")
    ok = client.post(f"/m/{token}/hands/new/points",
                     data={**first, **points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna")})
    assert ok.status_code == 302
    late = client.post(f"/m/{token}/hands/new/points",
                       data={**second, **points_data({"Anna": 40, "Bruno": 20}, PLAYERS, "Anna")})
    assert late.status_code == 409
    words = text(late)
    assert "Another phone saved a hand while you were entering this one." in words
    assert "Now saved as hand 1, dealt by Anna: Anna 5 · Bruno -4 · Carla -1." in words
    page = late.get_data(as_text=True)
    assert 'id="conflict"' in page
    assert 'value="40"' in page and 'value="20"' in page  # the entry is kept
    assert re.search(r'id="expected_count" name="expected_count" type="hidden" value="1"', page)
    assert "Save hand 2" in page
    # hand 2 is Bruno's to deal by the rotation: pre-filled so, not Anna (hand 1's dealer, as entered)
    assert re.search(r'id="dealer-1" value="Bruno" checked data-rotation>', page)
    assert 'id="dealer-0" value="Anna" checked' not in page
    assert len(export(client, token)["hands"]) == 1
    # it really was another hand: save it as the next one
    again = client.post(f"/m/{token}/hands/new/points",
                        data={**second, "expected_count": "1",
                              **points_data({"Anna": 40, "Bruno": 20}, PLAYERS, "Bruno")})
    assert again.status_code == 302
    assert [h["points"]["Anna"] for h in export(client, token)["hands"]] == [31, 40]


def test_live_conflict_answers_409_with_what_was_saved(client: FlaskClient) -> None:
    hand = fixture("classic-valid-1")
    token = start_match(client)
    csrf = csrf_of(client, token)
    record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"))
    body = {"dealer": hand["dealer"], "tricks": [t["cards"] for t in hand["tricks"]], "expected_count": "0"}
    response = save_live(client, f"/m/{token}/hands/new/live", csrf, body)
    assert response.status_code == 409
    answer = response.get_json()
    assert answer["conflict"]["number"] == 1 and answer["conflict"]["dealer"] == "Anna"
    assert answer["conflict"]["scores"] == [["Anna", "5"], ["Bruno", "-4"], ["Carla", "-1"]]
    assert answer["expected_count"] == "1"
    assert answer["dealer"] == "Bruno"  # hand 2 by the rotation: live.js takes it as the dealer
    response = save_live(client, f"/m/{token}/hands/new/live", csrf, {**body, "expected_count": "1"})
    assert response.get_json()["saved"] is True


def test_two_phones_editing_the_same_hand_conflict(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"))
    (key,) = hand_keys(client, token)
    url = f"/m/{token}/hands/{key}/edit"
    _page, first = open_form(client, url)
    _page, second = open_form(client, url)
    assert first["version"] == "1"
    assert client.post(url, data={**first, **points_data({"Anna": 30, "Bruno": 22}, PLAYERS, "Anna")}
                       ).status_code == 302
    late = client.post(url, data={**second, **points_data({"Anna": 29, "Bruno": 22}, PLAYERS, "Anna")})
    assert late.status_code == 409
    words = text(late)
    assert "This hand was changed from another phone while you were editing it." in words
    assert "Now saved as hand 1, dealt by Anna: Anna 4 · Bruno -4 · Carla 0." in words
    page = late.get_data(as_text=True)
    assert 'value="29"' in page
    assert re.search(r'id="version" name="version" type="hidden" value="2"', page)
    assert export(client, token)["hands"][0]["points"]["Anna"] == 30


def test_view_token_cannot_record_or_change(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"))
    (key,) = hand_keys(client, token)
    viewer = view_token(client, token)
    for url in (f"/m/{viewer}/hands/new/points", f"/m/{viewer}/hands/new/live", f"/m/{viewer}/hands/{key}/edit"):
        response = client.get(url)
        assert response.status_code == 403
        assert "This is the view-only link of the match: it cannot change anything." in text(response)
    csrf = csrf_of(client, token)
    assert client.post(f"/m/{viewer}/hands/new/points", data={"csrf_token": csrf}).status_code == 403
    assert client.post(f"/m/{viewer}/hands/{key}/edit", data={"csrf_token": csrf}).status_code == 403
    refused = check(client, viewer, csrf, "Anna", [])
    assert refused.status_code == 403 and "view-only link" in refused.get_json()["error"]
    assert check(client, "not-a-token", csrf, "Anna", []).status_code == 404
    page = client.get(f"/m/{viewer}/hands/{key}/")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert 'id="edit"' not in body and 'id="delete"' not in body and 'id="history"' in body


@pytest.mark.parametrize("path", [
    "/m/{token}/hands/nope/", "/m/{token}/hands/nope/edit", "/m/{token}/hands/new/scribble",
    "/m/not-a-token/hands/new/points", "/m/not-a-token/hands/abc/",
])
def test_unknown_hands_forms_and_tokens_are_404(client: FlaskClient, path: str) -> None:
    token = start_match(client)
    assert client.get(path.format(token=token)).status_code == 404


def test_a_form_without_its_csrf_token_is_refused(client: FlaskClient) -> None:
    token = start_match(client)
    response = client.post(f"/m/{token}/hands/new/points", data={"dealer": "Anna", "points_0": "30",
                                                                   "points_1": "20", "expected_count": "0"})
    assert response.status_code == 400
    assert export(client, token)["hands"] == []


# --- editing ------------------------------------------------------------------------------


def test_edit_reopens_points_prefilled_and_saves_a_revision(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": "31", "Bruno": "22"}, PLAYERS, "Anna"))
    (key,) = hand_keys(client, token)
    page, fields = open_form(client, f"/m/{token}/hands/{key}/edit")
    assert 'value="31"' in page and 'value="25"' in page and fields["version"] == "1"
    assert "Change hand 1" in page
    response = client.post(f"/m/{token}/hands/{key}/edit",
                           data={**fields, **points_data({"Anna": 30, "Bruno": 22}, PLAYERS, "Anna")})
    assert response.status_code == 302
    assert export(client, token)["hands"][0]["points"] == {"Anna": 30, "Bruno": 22, "Carla": 26}
    assert flashes(client, token) == ["Hand 1 changed: Anna 4 · Bruno -4 · Carla 0."]
    _page, fields = open_form(client, f"/m/{token}/hands/{key}/edit")
    assert fields["version"] == "2"


def test_edit_reopens_captured_and_live_hands_in_their_form(client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    piles = fixture("classic-captured")["captured"]
    record(client, token, "cards", {"dealer": "Bruno", "cards_0": " ".join(piles["Anna"]),
                                    "cards_1": " ".join(piles["Bruno"]), "rest": "2"})
    hand = fixture("classic-valid-1")
    record(client, token, "live", {"dealer": hand["dealer"], "dealer_ok": hand["dealer"],  # Bruno again
                                   "tricks": "\n".join(" ".join(t["cards"]) for t in hand["tricks"])})
    cards_key, live_key = hand_keys(client, token)
    page, _ = open_form(client, f"/m/{token}/hands/{cards_key}/edit")
    assert 'data-form="cards"' in page and " ".join(piles["Anna"]) in page
    page, fields = open_form(client, f"/m/{token}/hands/{live_key}/edit")
    assert 'data-form="live"' in page and " ".join(hand["tricks"][0]["cards"]) in page
    # fix nothing, add a note: a new revision with the same play
    tricks = "\n".join(" ".join(t["cards"]) for t in hand["tricks"])
    response = client.post(f"/m/{token}/hands/{live_key}/edit",
                           data={**fields, "dealer": hand["dealer"], "tricks": tricks, "notes": "checked"})
    assert response.status_code == 302, text(response)
    assert export(client, token)["hands"][1]["notes"] == "checked"


# --- the hand page ---------------------------------------------------------------------------


def test_hand_page_shows_scores_breakdown_problems_and_standings(client: FlaskClient) -> None:
    hand = fixture("classic-breach")
    token = start_match(client, first_dealer="2")
    record(client, token, "live", {"dealer": "Bruno", "save_anyway": "1",
                                   "tricks": "\n".join(" ".join(t["cards"]) for t in hand["tricks"])})
    (key,) = hand_keys(client, token)
    response = client.get(f"/m/{token}/hands/{key}/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    words = text(response)
    assert "Hand 1" in words and "Bruno dealt" in words
    for element in ('id="scores"', 'id="breakdown"', 'id="problems"', 'id="standings-after"', 'id="edit"',
                    'id="history"', 'id="delete"', 'id="trick-list"', 'id="back"'):
        assert element in page
    assert re.search(r'<tr data-player="Anna">.*?<b>-5</b>', page, re.S)
    assert "Revoke" in words and "Trick 4: Carla played the Cavalier of Batons" in words
    assert "kept the Fool and owes" in words  # the Fool's exchange
    assert 'class="groups"' in page  # piles in groups of three with their worth
    assert f'action="/m/{token}/hands/{key}/delete"' in page
    assert 'name="version" value="1"' in page
    assert f'href="/m/{token}/hands/{key}/history"' in page


def test_hand_page_of_points_and_honours(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"))
    hand = fixture("classic-honours")
    record(client, token, "honours", {"dealer": "Bruno", "cards_0": " ".join(hand["honours"]["Anna"]),
                                      "cards_1": " ".join(hand["honours"]["Bruno"]), "rest": "2",
                                      "size_0": "21", "size_1": "22"})
    points_key, honours_key = hand_keys(client, token)
    words = text(client.get(f"/m/{token}/hands/{points_key}/"))
    assert "Recorded as counted points" in words and "31 − base 26 = 5" in words
    words = text(client.get(f"/m/{token}/hands/{honours_key}/"))
    assert "Recorded as counting cards and pile sizes" in words
    # each card drawn (rank and mark) with its name for screen readers
    assert "Anna: K King of Coins C Cavalier of Coins I the Bagatto (I) K King of Swords (21 cards in all)" in words
    # standings after hand 2: the two hands added up
    assert re.search(r"Anna -5 0 Bruno -3 -7 Carla 8 7", words)


def test_pages_stay_small(client: FlaskClient, app: Any) -> None:
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    record(client, token, "live", {"dealer": "Bruno", "save_anyway": "1", "tricks": "\n".join(
        " ".join(t["cards"]) for t in fixture("classic-breach")["tricks"])})
    (key,) = hand_keys(client, token)
    static = app.static_folder
    for url, extra in ((f"/m/{token}/hands/new/points", ["app.css", "hands.css", "cards.js"]),
                       (f"/m/{token}/hands/new/cards", ["app.css", "hands.css", "cards.js"]),
                       (f"/m/{token}/hands/new/live", ["app.css", "hands.css", "live.js"]),
                       (f"/m/{token}/hands/{key}/", ["app.css", "hands.css"])):
        size = len(client.get(url).data) + sum((Path(static) / name).stat().st_size for name in extra)
        assert size <= 64 * 1024, (url, size)  # the budget of tests/test_page_weight.py


def test_problems_are_shown_next_to_their_cause(client: FlaskClient) -> None:
    token = start_match(client)
    response = record(client, token, "honours", {"dealer": "Bruno", "cards_0": "KB", "rest": "2",
                                                 "size_0": "20", "size_1": "20"})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    sizes = page[page.index('id="sizes"'):]
    assert 'id="size-problems"' in sizes and 'data-code="pile_sizes"' in sizes
    response = record(client, token, "cards", {"dealer": "Bruno", "cards_0": "KB", "cards_1": "KB", "rest": "2"})
    page = response.get_data(as_text=True)
    entry = page[page.index('id="cards"'):page.index('id="grid"')]
    assert 'data-code="duplicate_card"' in entry and 'data-card="KB"' in entry


def test_a_deleted_hand_shows_as_deleted_and_cannot_be_edited(client: FlaskClient) -> None:
    token = start_match(client)
    record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna"))
    (key,) = hand_keys(client, token)
    page = client.get(f"/m/{token}/hands/{key}/").get_data(as_text=True)
    form = page[page.index('id="delete"'):]
    version = re.search(r'name="version" value="(\d+)"', form)
    assert version
    from tests.webutil import csrf_token

    response = client.post(f"/m/{token}/hands/{key}/delete",
                           data={"csrf_token": csrf_token(form), "version": version.group(1)})
    assert response.status_code in (302, 303)
    assert export(client, token)["hands"] == []
    response = client.get(f"/m/{token}/hands/{key}/")
    assert response.status_code == 200
    assert 'id="deleted"' in response.get_data(as_text=True) and 'id="edit"' not in response.get_data(as_text=True)
    edit = client.get(f"/m/{token}/hands/{key}/edit")
    assert edit.status_code == 409
    assert "This hand is deleted: bring it back from its history before changing it." in text(edit)


def test_ultimo_is_asked_only_when_the_switch_is_on(client: FlaskClient) -> None:
    token = start_match(client)
    page, _ = open_form(client, f"/m/{token}/hands/new/points")
    assert 'id="ultimo"' not in page
    token = start_match(client, ultimo="true")
    page, _ = open_form(client, f"/m/{token}/hands/new/points")
    assert 'id="ultimo"' in page
    data = {**points_data({"Anna": 26, "Bruno": 26}, PLAYERS, "Anna"), "ultimo": "Bruno"}
    assert record(client, token, "points", data).status_code == 302
    assert export(client, token)["hands"][0]["ultimo"] == "Bruno"
    assert _stored_scores(client, token, 1) == {"Anna": "-5/2", "Bruno": 5, "Carla": "-5/2"}
    response = record(client, token, "points", {**data, "ultimo": "Zed"})
    assert response.status_code == 400
    assert "Choose who won the last trick with the Bagatto, or nobody." in text(response)


def test_live_four_players(client: FlaskClient) -> None:
    names = ("Anna", "Bruno", "Carla", "Dario")
    hand = fixture("four-valid-1")
    assert tuple(hand["players"]) == names
    token = start_match(client, names, preset="four", first_dealer="2")  # Bruno, as in the fixture
    csrf = csrf_of(client, token)
    tricks = [t["cards"] for t in hand["tricks"]]
    state = check(client, token, csrf, hand["dealer"], tricks[:1] + [tricks[1][:2]]).get_json()
    assert state["leader"] == hand["tricks"][1]["leader"] and len(state["tricks"][1]["players"]) == 2
    state = check(client, token, csrf, hand["dealer"], tricks).get_json()
    assert state["complete"] and state["can_save"] and len(state["discard"]) == 2
    from fractions import Fraction

    from scorer.engine.numbers import fraction_text

    assert {s["name"]: s["score"] for s in state["scores"]} == {  # shown as players write them: 19½, -6⅓
        p["name"]: fraction_text(Fraction(p["score"])) for p in expected("four-valid-1")["players"]}
    response = save_live(client, f"/m/{token}/hands/new/live", csrf,
                         {"dealer": hand["dealer"], "tricks": tricks, "expected_count": "0"})
    assert response.get_json()["saved"] is True
    assert _stored_scores(client, token, 1) == _scores("four-valid-1")


def test_edit_reopens_honours_prefilled(client: FlaskClient) -> None:
    hand = fixture("classic-honours")
    token = start_match(client, first_dealer="2")  # Bruno deals first, as in the fixture
    record(client, token, "honours", {"dealer": "Bruno", "cards_0": " ".join(hand["honours"]["Anna"]),
                                      "cards_1": " ".join(hand["honours"]["Bruno"]), "rest": "2",
                                      "size_0": "21", "size_1": "22"})
    (key,) = hand_keys(client, token)
    page, fields = open_form(client, f"/m/{token}/hands/{key}/edit")
    assert 'data-form="honours"' in page and 'value="35"' in page
    assert " ".join(hand["honours"]["Anna"]) in page
    response = client.post(f"/m/{token}/hands/{key}/edit", data={
        **fields, "dealer": "Bruno", "cards_0": " ".join(hand["honours"]["Anna"]),
        "cards_1": " ".join(hand["honours"]["Bruno"]), "cards_2": " ".join(hand["honours"]["Carla"]),
        "rest": "2", "size_0": "24", "size_1": "22", "size_2": ""})
    assert response.status_code == 302, text(response)
    assert export(client, token)["hands"][0]["sizes"] == {"Anna": 24, "Bruno": 22, "Carla": 32}
