"""The hand review (scorer.engine.analysis): each play weighed, the par, the ``scarto-analysis/1`` object."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from scorer.engine.analysis import REVIEW_TRICKS, analyse, review, reviews
from scorer.engine.cards import CODES
from scorer.engine.errors import ReadError
from scorer.engine.messages import READ_TEMPLATES, render_read
from scorer.engine.records import parse_hand
from scorer.engine.rulesets import DEALS, PRESETS
from scorer.engine.simulation import captured_form, inject_violation, simulate_hand
from scorer.engine.solver import SearchTooLarge, Solver, positions
from scorer.engine.validation import validate
from tests.handutil import fixture


def test_each_play_is_weighed_against_the_best_card() -> None:
    """``lost`` is the value before less the value after; a best card loses nothing; the par is the start."""
    for preset in PRESETS:
        record = simulate_hand(PRESETS[preset], random.Random(preset))
        rules = record.ruleset
        review = analyse(record, rules.tricks - 2)
        replay = validate(record).replay
        assert replay is not None
        walk = positions(record, replay)
        first = (rules.tricks - 3) * rules.players
        solver = Solver(rules)
        assert review.par == tuple(solver.value(walk[first], s) for s in range(rules.players))
        assert len(review.plays) == 3 * rules.players
        for index, play in enumerate(review.plays, start=first):
            assert play.before == solver.value(walk[index], play.seat)
            assert play.after == solver.value(walk[index + 1], play.seat)
            assert play.best and all(solver.value(walk[index].play(c), play.seat) == play.before for c in play.best)
            assert (play.lost == 0) == (play.card in play.best)
            assert play.lost >= 0
        assert sum(review.given_up()) == sum(p.lost for p in review.plays)


def test_the_analysis_object_writes_values_as_scores_are_written() -> None:
    record = parse_hand(fixture("four-valid-1"))
    review = analyse(record, 18)
    out = review.to_dict()
    assert out["format"] == "scarto-analysis/1" and out["from_trick"] == 18
    assert [s["name"] for s in out["start"]] == list(record.players)
    assert [s["name"] for s in out["given_up"]] == list(record.players)
    values = [s["value"] for s in out["start"]] + [p["lost"] for p in out["plays"]]
    assert all(isinstance(v, int) or ("/" in v and Fraction(v).denominator > 1) for v in values)
    assert any(isinstance(v, str) for v in values)  # four players: thirds of a point, quarters of the base
    assert [(p["trick"], p["player"]) for p in out["plays"]][:1] == [(18, record.players[review.plays[0].seat])]
    tricks = record.tricks
    assert tricks is not None
    assert [p["card"] for p in out["plays"]] == [CODES[c] for t in tricks[17:] for c in t.cards]
    assert all(p["best"] == sorted(p["best"], key=CODES.index) for p in out["plays"])


def test_the_first_trick_can_be_asked_for_when_the_hand_is_small() -> None:
    record = simulate_hand(PRESETS["piccolo"], random.Random(7))
    with pytest.raises(SearchTooLarge):
        analyse(record, 1, node_limit=1000)


def test_each_step_back_is_the_review_from_that_trick() -> None:
    """Stepping back a trick at a time with one solver gives what a review from that trick gives."""
    for preset, seats in (("classic", None), ("four", (2,)), ("piccolo", (0, 1))):
        record = simulate_hand(PRESETS[preset], random.Random(f"steps {preset}"))
        tricks = record.ruleset.tricks
        steps = reviews(record, seats=seats)
        for trick in range(tricks, tricks - 4, -1):
            step = next(steps)
            alone = analyse(record, trick, seats=seats)
            assert step.from_trick == trick
            assert (step.par, step.plays) == (alone.par, alone.plays)


def test_the_review_reaches_as_far_back_as_its_budget_allows() -> None:
    """A larger budget never starts later; the review found is the one from its trick; the
    trick before it would have searched more than the budget; the last trick always fits."""
    record = simulate_hand(PRESETS["classic"], random.Random("budget"))
    tricks = record.ruleset.tricks
    small, large = review(record, seats=(1,), node_limit=2_000), review(record, seats=(1,), node_limit=40_000)
    assert tricks > small.from_trick >= large.from_trick
    for found, limit in ((small, 2_000), (large, 40_000)):
        alone = analyse(record, found.from_trick, seats=(1,))
        assert (found.par, found.plays) == (alone.par, alone.plays)
        assert found.nodes <= limit
        with pytest.raises(SearchTooLarge):
            for step in reviews(record, seats=(1,), solver=Solver(record.ruleset, node_limit=limit)):
                assert step.from_trick >= found.from_trick
    assert review(record, node_limit=1).from_trick == tricks
    assert review(record, earliest=tricks - 1).from_trick == tricks - 1


def test_every_deal_has_a_review_start() -> None:
    assert set(REVIEW_TRICKS) == set(DEALS)
    assert all(1 <= REVIEW_TRICKS[deal] <= DEALS[deal].cards_each for deal in DEALS)


BAD = [
    (lambda: captured_form(simulate_hand(PRESETS["classic"], random.Random(1))), 3,
     "record: a review needs the full trick record (tricks), not captured"),
    (lambda: parse_hand(fixture("classic-missing-trick")), 3,
     "record: the record has errors (the first: trick_count); a hand is reviewed only once it can be scored"),
    (lambda: parse_hand(fixture("classic-valid-1")), 26,
     "from_trick: 26 is not a trick of the hand: a classic hand has tricks 1 to 25"),
    (lambda: parse_hand(fixture("piccolo-valid-1")), 0,
     "from_trick: 0 is not a trick of the hand: a piccolo hand has tricks 1 to 12"),
]


@pytest.mark.parametrize(("make", "trick", "message"), BAD)
def test_what_cannot_be_reviewed_is_a_read_error_that_says_why(make, trick: int, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReadError) as caught:
        analyse(make(), trick)
    error = caught.value
    assert str(error) == message
    assert error.code == "read_error" and error.key in READ_TEMPLATES
    assert error.message == render_read(error.key, error.params)


def test_one_players_review_is_their_part_of_everyones() -> None:
    record = simulate_hand(PRESETS["saari"], random.Random(5))
    everyone = analyse(record, 21)
    bruno = analyse(record, 21, seats=(1,))
    assert bruno.par == (None, everyone.par[1], None)
    assert bruno.plays == tuple(p for p in everyone.plays if p.seat == 1)
    assert bruno.to_dict()["start"] == [everyone.to_dict()["start"][1]]
    assert bruno.to_dict()["given_up"] == [everyone.to_dict()["given_up"][1]]
    assert bruno.nodes < everyone.nodes


def test_a_card_the_rules_did_not_allow_is_weighed_as_played() -> None:
    """A revoke is reviewed as played: its value is the position it led to; the best cards are legal ones."""
    rng = random.Random(11)
    while True:
        injected = inject_violation(simulate_hand(PRESETS["classic"], rng), rng, "revoke")
        if injected is not None and injected.trick >= 21:
            break
    record = injected.record
    review = analyse(record, injected.trick)
    number, play = next((i, p) for i, p in enumerate(review.plays)
                        if p.trick == injected.trick and p.card == injected.card)
    replay = validate(record).replay
    assert replay is not None
    walk = positions(record, replay)
    index = (injected.trick - 1) * 3 + number
    assert record.players[walk[index].mover] == injected.player
    assert injected.card not in walk[index].legal() and injected.card not in play.best
    assert set(play.best) <= set(walk[index].legal())
    assert play.after == Solver(record.ruleset).value(walk[index + 1], walk[index].mover)
    assert play.lost == play.before - play.after


def test_a_four_player_review_of_six_tricks_stays_small() -> None:
    """The work, counted in positions (the same on every machine): the bounds from the cards
    left, the guesses taken from the play after and the ordering keep four players' reviews of
    the last 6 tricks to some 41,000 positions together, where they took 220,000."""
    total = 0
    for seed in range(4):
        record = simulate_hand(PRESETS["four"], random.Random(f"work {seed}"))
        total += analyse(record, record.ruleset.tricks - 5, seats=(seed % 4,)).nodes
    assert total < 60_000
