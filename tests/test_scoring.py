"""Counting hands: the Fool's exchange and its special cases, ultimo, fractions, results."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

import pytest

from scorer.engine.cards import BAGATTO_INDEX, FOOL_INDEX, Card
from scorer.engine.records import HandRecord, parse_hand
from scorer.engine.rulesets import PRESETS, Ruleset, find_ruleset
from scorer.engine.scoring import PlayerCount, score_hand
from scorer.engine.simulation import captured_form, deal, honours_form, play_hand, points_form, simulate_hand

PLAYERS = ("Anna", "Bruno", "Carla")


def _find(rules: Ruleset, wanted: str) -> HandRecord:
    """The first simulated hand (seeds 0, 1, ...) with a wanted feature of its last trick."""
    for seed in range(2000):
        record = simulate_hand(rules, random.Random(seed))
        last = (record.tricks or ())[-1].cards
        if (wanted == "bagatto" and BAGATTO_INDEX in last) or (wanted == "fool" and FOOL_INDEX in last):
            return record
    raise AssertionError(f"no hand with the {wanted} in the last trick")


# --- ultimo -------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "share"), [("classic", Fraction(-5, 2)), ("four", Fraction(-5, 3)),
                                               ("saari", Fraction(-5, 2))])
def test_ultimo_in_a_full_record_is_computed(preset: str, share: Fraction) -> None:
    rules = find_ruleset({"preset": preset, "ultimo": True})
    record = _find(rules, "bagatto")
    result = score_hand(record)
    assert result.problems == () and result.counts is not None
    winner = result.replay.tricks[-1].winner if result.replay else None
    bonuses = {c.name: c.bonus for c in result.counts}
    assert bonuses == {p: Fraction(5) if i == winner else share for i, p in enumerate(record.players)}
    assert sum(c.score for c in result.counts) == 0
    for c in result.counts:
        assert c.score == c.card_points - result.base + c.bonus
    out = result.to_dict()
    assert [list(p) for p in out["players"]] == [["name", "card_points", "bonus", "score"]] * rules.players
    assert {p["name"]: p["bonus"] for p in out["players"]} == {
        p: 5 if i == winner else f"{share.numerator}/{share.denominator}" for i, p in enumerate(record.players)}


def test_ultimo_is_named_in_the_forms_that_cannot_show_it() -> None:
    rules = find_ruleset({"ultimo": True})
    record = _find(rules, "bagatto")
    full = score_hand(record)
    winner = next(c.name for c in full.counts or () if c.bonus == 5)
    for form in (captured_form(record), honours_form(record), points_form(record)):
        assert form.ultimo == winner
        assert score_hand(form).scores() == full.scores()
        unnamed = score_hand(replace(form, ultimo=None))
        assert sum(unnamed.scores().values()) == 0
        assert unnamed.scores() != full.scores()


def test_ultimo_without_the_bagatto_in_the_last_trick() -> None:
    rules = find_ruleset({"ultimo": True})
    record = simulate_hand(rules, random.Random(0))
    assert BAGATTO_INDEX not in (record.tricks or ())[-1].cards
    result = score_hand(record)
    assert [c.bonus for c in result.counts or ()] == [0, 0, 0]
    assert [p["bonus"] for p in result.to_dict()["players"]] == [0, 0, 0]


def test_ultimo_named_from_a_points_record() -> None:
    data = {"ruleset": {"preset": "classic", "ultimo": True}, "players": list(PLAYERS), "dealer": "Anna",
            "points": {"Anna": 30, "Bruno": 24, "Carla": 24}, "ultimo": "Bruno"}
    result = score_hand(parse_hand(data))
    assert result.scores() == {"Anna": Fraction(3, 2), "Bruno": Fraction(3), "Carla": Fraction(-9, 2)}
    switched_off = score_hand(parse_hand({**data, "ruleset": "classic"}))
    assert switched_off.scores() == {"Anna": 4, "Bruno": -2, "Carla": -2}
    assert "bonus" not in switched_off.to_dict()["players"][0]


# --- the Fool -------------------------------------------------------------------------


LOW = "M " + " ".join(f"{r}{s}" for s in "BS" for r in "123456") + " " + " ".join(
    f"{r}{s}" for s in "CD" for r in ("10", "9", "8", "7", "6", "5"))
"""The Fool and the lowest six cards of every suit: a hand that can win no trick."""


def _forfeit_hand(preset: str, seed: int = 1) -> HandRecord:
    rules = PRESETS[preset]
    rng = random.Random(seed)
    dealt = deal(rules, rng, {1: [Card.parse(c) for c in LOW.split()]})
    return play_hand(rules, dealt, rng, players=PLAYERS, dealer=0)


def test_fool_forfeit_when_its_player_captured_nothing() -> None:
    record = _forfeit_hand("saari")
    result = score_hand(record)
    assert result.problems == () and result.exchange is not None
    assert result.exchange.fool_player == "Bruno" and result.exchange.forfeit
    counts = {c.name: c for c in result.counts or ()}
    assert counts["Bruno"].card_points == 0 and counts["Bruno"].score == -26
    assert counts[result.exchange.winner].pile is not None and FOOL_INDEX in counts[result.exchange.winner].pile
    for form in (captured_form(record), captured_form(record, exchanged=True), honours_form(record),
                 points_form(record)):
        assert score_hand(form).scores() == result.scores()
    shape = score_hand(captured_form(record)).exchange
    assert shape is not None and shape.forfeit and shape.trick is None


def test_an_ultimo_claimed_by_the_player_whose_fool_was_forfeited_says_why() -> None:
    """The Fool lies in Bruno's pile, but it went to the winner of its trick: the sentence says
    so, not that the pile holds neither card."""
    rules = find_ruleset({"preset": "saari", "ultimo": "bagatto_or_fool"})
    dealt = deal(rules, random.Random(1), {1: [Card.parse(c) for c in LOW.split()]})
    record = play_hand(rules, dealt, random.Random(1), players=PLAYERS, dealer=0)
    receiver = score_hand(record).exchange
    assert receiver is not None and receiver.forfeit and receiver.fool_player == "Bruno"
    for form in (captured_form(record), honours_form(record)):
        problem, = score_hand(replace(form, ultimo="Bruno")).problems
        assert (problem.code, problem.player) == ("ultimo_claim", "Bruno")
        assert problem.message == (f"Bruno is named as winning the last-trick bonus, but Bruno won no trick: the "
                                   f"Fool went to {receiver.winner}.")
        assert score_hand(replace(form, ultimo=receiver.winner)).problems == ()


def test_without_forfeit_the_fool_alone_counts_four() -> None:
    result = score_hand(_forfeit_hand("classic"))
    assert result.exchange is not None and not result.exchange.forfeit
    bruno = next(c for c in result.counts or () if c.name == "Bruno")
    assert bruno.pile == (FOOL_INDEX,) and bruno.exchange == -1
    assert bruno.card_points == 4 and bruno.score == -22
    assert bruno.groups() == [(("M", "-1"), Fraction(4))]


def _keep_the_fool(seat: int, legal: Sequence[int], trick: Sequence[int], rng: random.Random) -> int:
    """A player who keeps the Fool to the end."""
    return rng.choice([c for c in legal if c != FOOL_INDEX] or list(legal))


def test_the_fool_in_the_last_trick_under_captured() -> None:
    rules = PRESETS["rulesheet"]
    rng = random.Random(3)
    record = play_hand(rules, deal(rules, rng, {1: [FOOL_INDEX]}), rng, dealer=0, policy=_keep_the_fool)
    assert FOOL_INDEX in (record.tricks or ())[-1].cards
    result = score_hand(record)
    assert result.problems == () and result.exchange is None
    assert result.replay is not None
    winner = result.replay.tricks[-1].winner
    counts = result.counts or ()
    assert counts[winner].pile is not None and FOOL_INDEX in counts[winner].pile
    assert all(c.exchange == 0 for c in counts)
    assert score_hand(captured_form(record)).scores() == result.scores()
    kept = score_hand(replace(record, ruleset=find_ruleset({"preset": "rulesheet", "fool_last_trick": "kept"})))
    assert kept.exchange is not None and kept.exchange.trick == 25


def test_the_fool_discarded() -> None:
    rules = find_ruleset({"fool_discard": "free"})
    rng = random.Random(2)
    thrown = [Card.parse(c) for c in ("M", "2S", "3S")]
    record = play_hand(rules, deal(rules, rng, {0: thrown}), rng, dealer=0, discard=thrown)
    result = score_hand(record)
    assert result.problems == () and result.exchange is None
    assert all(c.exchange == 0 for c in result.counts or ())
    assert score_hand(captured_form(record)).scores() == result.scores()


def test_the_exchange_of_a_full_record() -> None:
    record = simulate_hand(PRESETS["classic"], random.Random(11))
    result = score_hand(record)
    assert result.exchange is not None and result.replay is not None
    trick = result.replay.tricks[result.exchange.trick - 1 if result.exchange.trick else 0]
    assert FOOL_INDEX in trick.cards
    assert result.exchange.fool_player == record.players[trick.fool_seat or 0]
    assert result.exchange.winner == record.players[trick.winner]
    shifts = {c.name: c.exchange for c in result.counts or ()}
    assert shifts[result.exchange.fool_player] == -1 and shifts[result.exchange.winner] == 1


# --- results ---------------------------------------------------------------------------


def test_groups_show_the_count_in_threes() -> None:
    count = PlayerCount("Anna", (Card.parse("KS"), Card.parse("2S"), Card.parse("3S"), Card.parse("M")), 4, 12, -1,
                        Fraction(8), Fraction(0), Fraction(-18))
    assert count.groups() == [(("KS", "3S", "M"), Fraction(9))]  # the 2S handed over for the Fool
    receiver = PlayerCount("Bruno", (Card.parse("QS"), Card.parse("4S")), 2, 5, 1, Fraction(4), Fraction(0),
                           Fraction(-22))
    assert receiver.groups() == [(("QS", "4S", "+1"), Fraction(4))]
    assert PlayerCount("Carla", None, None, None, 0, Fraction(26), Fraction(0), Fraction(0)).groups() == []


def test_a_four_player_count_in_fractions() -> None:
    data = {"ruleset": "four", "players": ["Anna", "Bruno", "Carla", "Dario"], "dealer": "Dario",
            "points": {"Anna": "58/3", "Bruno": "61/3", "Carla": 20, "Dario": "55/3"}}
    result = score_hand(parse_hand(data))
    assert result.base == Fraction(39, 2)
    assert result.scores() == {"Anna": Fraction(-1, 6), "Bruno": Fraction(5, 6), "Carla": Fraction(1, 2),
                               "Dario": Fraction(-7, 6)}
    assert [p["score"] for p in result.to_dict()["players"]] == ["-1/6", "5/6", "1/2", "-7/6"]
    assert result.to_dict()["deck_total"] == 78


def test_the_result_format() -> None:
    record = simulate_hand(PRESETS["piccolo"], random.Random(4))
    out = score_hand(record).to_dict(file="hands/x.json")
    assert list(out) == ["format", "file", "ruleset", "deck_total", "players", "problems"]
    assert out["format"] == "scarto-result/1" and out["ruleset"] == "piccolo" and out["deck_total"] == 66
    assert [p["name"] for p in out["players"]] == list(record.players)
    assert out["problems"] == []


def test_a_record_with_errors_is_not_scored() -> None:
    record = simulate_hand(PRESETS["classic"], random.Random(4))
    broken = replace(record, tricks=(record.tricks or ())[:-1])
    result = score_hand(broken)
    assert not result.scored and result.counts is None and result.scores() == {}
    out = result.to_dict()
    assert "players" not in out and "deck_total" not in out
    assert {p["code"] for p in out["problems"]} >= {"trick_count"}
