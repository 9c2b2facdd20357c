"""A hand being played (scorer.engine.play): whose turn, who leads, what remains, each trick's winner."""

from __future__ import annotations

from typing import Any

from scorer.engine.cards import CODES, Card
from scorer.engine.play import play_state
from scorer.engine.records import parse_hand
from scorer.engine.rulesets import find_ruleset
from scorer.engine.validation import validate
from tests.handutil import fixture

PLAYERS = ["Anna", "Bruno", "Carla"]


def hand(tricks: list[list[str]], dealer: str = "Bruno", **extra: Any) -> Any:
    return parse_hand({"players": PLAYERS, "dealer": dealer, "tricks": [{"cards": t} for t in tricks], **extra})


def test_before_any_card_the_player_after_the_dealer_leads() -> None:
    state = play_state(hand([]))
    assert (state.turn, state.leader) == (2, 2)  # Carla, after Bruno
    assert state.remaining == find_ruleset("classic").pack_order
    assert not state.complete and not state.can_save and state.problems == ()
    assert state.winner(1) is None


def test_the_first_lead_switch_gives_the_dealer_the_lead() -> None:
    state = play_state(hand([], ruleset={"preset": "classic", "first_lead": "dealer"}))
    assert (state.turn, state.leader) == (1, 1)


def test_within_a_trick_the_turn_goes_round_from_the_leader() -> None:
    state = play_state(hand([["10B", "8B"]]))
    assert (state.leader, state.turn) == (2, 1)  # Carla led, Anna played, Bruno next
    assert Card.parse("10B") not in state.remaining and Card.parse("6B") in state.remaining
    assert len(state.remaining) == 76
    assert state.winner(1) is None  # not finished yet


def test_the_winner_of_a_trick_leads_the_next() -> None:
    state = play_state(hand([["10B", "8B", "6B"]]))
    assert state.winner(1) == 2  # Carla's 10 of batons, highest of the suit led
    assert (state.leader, state.turn) == (2, 2)
    state = play_state(hand([["10B", "8B", "T5"]]))
    assert state.winner(1) == 1  # Bruno trumped
    assert (state.leader, state.turn) == (1, 1)


def test_the_state_agrees_with_the_validation_replay() -> None:
    """The rules are the engine's: the winners are the replay's winners, trick by trick."""
    full = fixture("classic-valid-1")
    cards = [t["cards"] for t in full["tricks"]]
    for played in range(1, len(cards)):
        record = hand(cards[:played], dealer=full["dealer"])
        replay = validate(record, partial=True).replay
        assert replay is not None
        state = play_state(record)
        assert [state.winner(t.number) for t in replay.tricks] == [t.winner for t in replay.tricks]


def test_a_complete_hand_is_scored_and_can_be_saved() -> None:
    full = fixture("classic-valid-1")
    state = play_state(hand([t["cards"] for t in full["tricks"]], dealer=full["dealer"]))
    assert state.complete and state.can_save and not state.errors
    assert state.turn is None and state.result is not None and state.result.counts is not None
    assert sorted(CODES[c] for c in state.remaining) == sorted(full["discard"])  # what is left is the discard


def test_a_card_twice_is_an_error_that_stops_the_save() -> None:
    state = play_state(hand([["10B", "8B", "10B"]]))
    assert state.errors and not state.can_save
    assert [p.code for p in state.problems] == ["duplicate_card"]


def test_a_revoke_is_proven_while_playing() -> None:
    breach = fixture("classic-breach")
    cards = [t["cards"] for t in breach["tricks"]]
    states = [play_state(hand(cards[:n], dealer=breach["dealer"])) for n in range(1, len(cards) + 1)]
    assert any("revoke" in [p.code for p in s.problems] for s in states)
    assert not states[-1].errors  # a breach is not an error: the table decides
