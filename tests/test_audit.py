"""The audit core: the replay laid out, proofs placed, and what-if rulings."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from scorer.engine.audit import annulled, annulled_record, ruled_record, sort_hand, steps, what_if
from scorer.engine.cards import CODES
from scorer.engine.errors import ReadError
from scorer.engine.records import hand_to_dict, loads, parse_hand
from scorer.engine.scoring import score_hand

FIXTURES = Path(__file__).parent / "fixtures" / "hands"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.json"))


def _result(name: str):  # type: ignore[no-untyped-def]
    return score_hand(parse_hand(json.loads((FIXTURES / f"{name}.json").read_text())))


def test_steps_show_the_revoke_and_its_proof() -> None:
    result = _result("classic-breach")
    laid_out = steps(result.record, result.replay, result.problems)
    assert len(laid_out) == 25
    four, five = laid_out[3], laid_out[4]
    assert [p.code for p in four.problems] == ["revoke"]
    assert four.problems[0].player == "Carla" and CODES[four.problems[0].card] == "CB"
    assert [p.trick for p in five.proofs] == [4]
    carla = result.record.players.index("Carla")
    assert CODES.index("T1") in four.holding[carla]  # she still held the Bagatto
    assert result.record.players[four.trick.winner] == "Anna"


def test_holdings_shrink_by_one_card_a_trick_and_piles_grow() -> None:
    result = _result("classic-valid-1")
    laid_out = steps(result.record, result.replay, result.problems)
    for number, step in enumerate(laid_out):
        assert all(len(hand) == 25 - number for hand in step.holding)
    assert sum(len(p) for p in laid_out[-1].piles) == 78


def test_holding_is_sorted_trumps_first_highest_first() -> None:
    rules = _result("classic-valid-1").record.ruleset
    cards = [CODES.index(c) for c in ("1C", "T1", "KC", "T20", "T21", "M", "10B")]
    assert [CODES[c] for c in sort_hand(cards, rules)] == ["T20", "T21", "T1", "M", "KC", "1C", "10B"]


def test_what_if_moves_a_trick_and_keeps_the_total() -> None:
    result = _result("classic-breach")
    recorded = {c.name: c.card_points for c in result.counts}
    changed = what_if(result, {4: result.record.players.index("Carla")})
    assert changed is not None
    points = {c.name: c.card_points for c in changed}
    assert sum(points.values()) == 78
    assert points != recorded
    assert points["Carla"] > recorded["Carla"] and points["Anna"] < recorded["Anna"]
    assert sum(c.score for c in changed) == 0


def test_what_if_without_change_is_the_recorded_count() -> None:
    result = _result("classic-fool-led")
    assert what_if(result, {}) == result.counts


def test_annulled_hand_scores_nothing() -> None:
    assert set(annulled(_result("classic-breach")).values()) == {Fraction(0)}


def test_what_if_needs_a_full_record() -> None:
    assert what_if(_result("classic-captured"), {1: 0}) is None


def test_awarding_the_fools_trick_to_the_fools_player_keeps_the_sum() -> None:
    result = _result("classic-fool-led")
    trick = next(t for t in result.replay.tricks if t.fool_seat is not None)
    changed = what_if(result, {trick.number: trick.fool_seat})
    assert changed is not None
    assert sum(c.card_points for c in changed) == 78 and sum(c.score for c in changed) == 0


def _full_records() -> list[str]:
    """The fixtures that are full records with no error: those a "what if" can rule on."""
    names = []
    for name in NAMES:
        try:
            result = score_hand(parse_hand(loads((FIXTURES / f"{name}.json").read_bytes())))
        except ReadError:
            continue
        if result.replay is not None and result.counts:
            names.append(name)
    return names


@pytest.mark.parametrize("name", _full_records())
def test_a_ruling_kept_as_a_revision_scores_as_its_what_if(name: str) -> None:
    """Every trick of every full fixture given in turn to each other player (the Fool's and the last
    trick's too): the piles kept as the hand's captured form score exactly as the "what if" said."""
    result = score_hand(parse_hand(loads((FIXTURES / f"{name}.json").read_bytes())))
    seats = range(len(result.record.players))
    for trick in result.replay.tricks:
        for seat in seats:
            if seat == trick.winner:
                continue
            ruled = ruled_record(result, {trick.number: seat})
            assert ruled is not None and ruled.form == "captured" and ruled.tricks is None
            judged = score_hand(ruled)
            assert not judged.has_errors, (trick.number, seat, judged.problems)
            expected = what_if(result, {trick.number: seat})
            assert expected is not None
            assert judged.scores() == {c.name: c.score for c in expected}
            assert hand_to_dict(parse_hand(hand_to_dict(ruled))) == hand_to_dict(ruled)  # it is a record


def test_a_ruling_needs_a_full_record() -> None:
    assert ruled_record(_result("classic-captured"), {1: 0}) is None


@pytest.mark.parametrize("name", ["classic-breach", "four-valid-1", "piccolo-captured", "ultimo-bagatto-tricks",
                                  "saari-honours", "classic-points"])
def test_an_annulled_hand_kept_as_a_revision_scores_nothing(name: str) -> None:
    """Counted points, each player the base (19½ at a table of four): everyone scores nothing."""
    result = _result(name)
    kept = annulled_record(result.record)
    assert kept.form == "points" and kept.ultimo is None
    judged = score_hand(kept)
    assert judged.problems == () and judged.scores() == annulled(result)
    assert parse_hand(hand_to_dict(kept)) == kept
