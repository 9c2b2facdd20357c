"""The perfect-information solver (scorer.engine.solver) against a plain search of every continuation.

The reference here shares nothing with the solver but the engine's own rules: the legal cards
of :func:`scorer.engine.simulation.legal_cards`, the winner of
:func:`scorer.engine.simulation.trick_winner`, and the count of :func:`scorer.engine.scoring.count`
on the finished tricks. It tries every legal continuation (no pruning, no table, no equal cards)
and takes the best for the player, the worst of the others' choices.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.engine.cards import BAGATTO_INDEX, CODES, FOOL_INDEX, SUIT, Card, CardIndex, Seat
from scorer.engine.records import HandRecord
from scorer.engine.rulesets import DEALS, PRESETS, Ruleset
from scorer.engine.scoring import count, score_hand
from scorer.engine.simulation import deal as deal_cards
from scorer.engine.simulation import legal_cards, play_hand, simulate_hand, trick_winner
from scorer.engine.solver import Position, SearchTooLarge, Solver, positions
from scorer.engine.validation import PlayedTrick, Replay, Validation, validate

ULTIMO = (False, True, "bagatto_or_fool")
SWITCHES = [
    {"ultimo": u, "fool_forfeit": f, "fool_last_trick": last}
    for u in ULTIMO for f in (False, True) for last in ("kept", "captured")
]
"""Every combination of the switches that decide where the Fool goes and who gains the last-trick bonus."""


def _rules(preset: str, deal: str, **switches: object) -> Ruleset:
    return replace(PRESETS[preset], deal=deal, **switches)  # type: ignore[arg-type]


class _Endgame:
    """A position ``tricks`` tricks from the end of a simulated hand, with what the plain search needs."""

    def __init__(self, record: HandRecord, cards_left: int) -> None:
        self.record = record
        replay = validate(record).replay
        assert replay is not None
        self.replay = replay
        n = len(record.players)
        played = record.ruleset.tricks * n - cards_left
        self.position = positions(record, replay)[played]
        self.done = list(replay.tricks[:played // n])
        self.current = list(replay.tricks[played // n].cards[:played % n]) if played // n < len(replay.tricks) else []
        self.leader = replay.tricks[played // n].leader

    def plain(self, seat: int, budget: list[int] | None = None) -> Fraction:
        """The value of ``seat`` by trying every continuation."""
        hands = [list(self.position.held(s)) for s in range(len(self.record.players))]
        return _plain(self.record, self.replay.discard, list(self.done), list(self.current), self.leader, hands,
                      seat, budget)


def _plain(record: HandRecord, discard: tuple[CardIndex, ...], done: list[PlayedTrick], current: list[CardIndex],
           leader: Seat, hands: list[list[CardIndex]], seat: int, budget: list[int] | None) -> Fraction:
    rules = record.ruleset
    n = len(hands)
    if len(done) == rules.tricks:
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise SearchTooLarge("too many continuations for the plain search")
        counts = count(record, Validation((), Replay(tuple(done), discard, True))).counts
        assert counts is not None
        return counts[seat].score
    mover = (leader + len(current)) % n
    values = []
    for card in legal_cards(rules, hands[mover], current):
        hands[mover].remove(card)
        current.append(card)
        if len(current) == n:
            seats = tuple(Seat((leader + k) % n) for k in range(n))
            winner = Seat(trick_winner(rules, current, seats))
            fool = seats[current.index(FOOL_INDEX)] if FOOL_INDEX in current else None
            led = next((SUIT[c] for c in current if c != FOOL_INDEX), None)
            trick = PlayedTrick(len(done) + 1, leader, tuple(current), seats, winner, led, fool)
            values.append(_plain(record, discard, [*done, trick], [], winner, hands, seat, budget))
        else:
            values.append(_plain(record, discard, done, current, leader, hands, seat, budget))
        current.pop()
        hands[mover].append(card)
    return max(values) if mover == seat else min(values)


def _endgame(rules: Ruleset, rng: random.Random, tricks: int, wanted: CardIndex | None) -> _Endgame:
    """A simulated endgame of ``tricks`` tricks (the first perhaps under way), holding ``wanted`` if given:
    the players keep that card while they have another legal one."""

    def keeping(seat: int, legal: Sequence[CardIndex], trick: Sequence[CardIndex], rng: random.Random) -> CardIndex:
        others = [c for c in legal if c != wanted]
        return rng.choice(others or list(legal))

    n = rules.players
    while True:
        dealer = rng.randrange(n)
        record = play_hand(rules, deal_cards(rules, rng), rng, dealer=dealer, policy=keeping)
        cards_left = (tricks - 1) * n + rng.randint(1, n)
        game = _Endgame(record, cards_left)
        held = {c for s in range(n) for c in game.position.held(s)}
        if wanted is None or wanted in held:
            return game


DEAL_CASES = [(preset, deal) for preset in PRESETS for deal in DEALS]


@pytest.mark.parametrize(("preset", "deal"), DEAL_CASES)
def test_the_solver_equals_a_plain_search_of_every_continuation(preset: str, deal: str) -> None:
    """Hundreds of endgames over all cases: 2 to 4 tricks, the Fool and the Bagatto in play, every
    switch of the Fool and of the last-trick bonus, every player's value."""
    rng = random.Random(f"{preset}/{deal}")
    checked = 0
    plan = [2] * 12 + [3] * 3 + [4] * 2
    for number, tricks in enumerate(plan):
        rules = _rules(preset, deal, **SWITCHES[number % len(SWITCHES)])
        wanted = (FOOL_INDEX, BAGATTO_INDEX, None)[number % 3]
        game = _endgame(rules, rng, tricks, wanted)
        solver = Solver(rules)
        for seat in range(rules.players):
            try:
                plain = game.plain(seat, [800] if tricks == 4 else None)
            except SearchTooLarge:
                continue
            assert solver.value(game.position, seat) == plain, (preset, deal, tricks, seat)
            checked += 1
    assert checked >= 15 * rules.players


def test_the_last_trick_alone_is_the_count_of_the_hand() -> None:
    """With one card each left nothing is chosen: the value is the record's own result."""
    for number, (preset, deal) in enumerate(DEAL_CASES):
        rules = _rules(preset, deal, **SWITCHES[number % len(SWITCHES)])
        record = simulate_hand(rules, random.Random(number))
        replay = validate(record).replay
        assert replay is not None
        last = positions(record, replay)[(rules.tricks - 1) * rules.players]
        result = score_hand(record)
        assert result.counts is not None
        assert [Solver(rules).value(last, s) for s in range(rules.players)] == [c.score for c in result.counts]


@pytest.mark.parametrize(("preset", "deal"), DEAL_CASES)
def test_the_fast_rules_are_the_engines_rules(preset: str, deal: str) -> None:
    """The search's own legal cards, trick winners and count agree with the engine's functions
    at every card of simulated hands, under every switch of the Fool and the bonus."""
    rng = random.Random(f"rules {preset}/{deal}")
    for switches in SWITCHES:
        rules = _rules(preset, deal, **switches)
        record = simulate_hand(rules, rng)
        replay = validate(record).replay
        assert replay is not None
        walk = positions(record, replay)
        n = rules.players
        for trick in replay.tricks:
            for k, seat in enumerate(trick.seats):
                position = walk[(trick.number - 1) * n + k]
                assert position.mover == seat
                hand = list(position.held(seat))
                assert set(position.legal()) == set(legal_cards(rules, hand, list(trick.cards[:k])))
            assert walk[trick.number * n].leader == trick.winner
        result = score_hand(record)
        assert result.counts is not None
        assert [walk[-1].score(s) for s in range(n)] == [c.score for c in result.counts], switches


def _split_groups(solver: Solver, position: Position) -> list[tuple[CardIndex, ...]]:
    return [group for group in solver.groups(position) if len(group) > 1]


def test_equal_cards_give_equal_values() -> None:
    """Cards the solver searches once are worth the same, each played in turn (the plain search says so)."""
    rng = random.Random("equal cards")
    found = 0
    while found < 30:
        preset, deal = DEAL_CASES[found % len(DEAL_CASES)]
        game = _endgame(_rules(preset, deal), rng, 2 + found % 2, None)
        solver = Solver(game.record.ruleset)
        for group in _split_groups(solver, game.position):
            seat = game.position.mover
            values = {solver.value(game.position.play(card), seat) for card in group}
            assert len(values) == 1, group
            found += 1


def test_a_card_on_the_table_between_two_cards_tells_them_apart() -> None:
    """Carla led the 7 of batons; Anna's 8 takes it and her 6 does not, though no hand holds a card between."""
    record = simulate_hand(PRESETS["classic"], random.Random(3))
    replay = validate(record).replay
    assert replay is not None
    start = positions(record, replay)[0]
    bit = start.order.bit

    def hand(*codes: str) -> int:
        return sum(1 << bit[Card.parse(code)] for code in codes)

    position = replace(start, hands=(hand("8B", "6B"), hand("5B", "3B"), hand("2B")), trick=(bit[Card.parse("7B")],),
                       leader=Seat(2), number=start.rules.tricks - 1)
    solver = Solver(start.rules)
    assert solver.groups(position) == [(Card.parse("8B"),), (Card.parse("6B"),)]
    eight, six = CardIndex(Card.parse("8B")), CardIndex(Card.parse("6B"))
    values = solver.values(position, six)
    assert values[eight] == solver.value(position, 0) > values[six]  # Anna takes both tricks, not one


def test_equal_cards_are_one_suit_one_worth_and_nothing_between() -> None:
    """8 7 6 of batons are one card for the search; the 2 is not, the other player's 4 lies between;
    the King and Queen of cups are not, though nothing lies between: they are not worth the same."""
    record = simulate_hand(PRESETS["classic"], random.Random(3))
    replay = validate(record).replay
    assert replay is not None
    start = positions(record, replay)[0]
    bit = start.order.bit

    def hand(*codes: str) -> int:
        return sum(1 << bit[Card.parse(code)] for code in codes)

    hands = (hand("8B", "7B", "6B", "2B", "KC", "QC"), hand("4B", "T5"), hand("T7"))
    position = replace(start, hands=hands, leader=Seat(0), number=start.rules.tricks - 5)
    groups = {tuple(CODES[c] for c in g) for g in Solver(start.rules).groups(position)}
    assert groups == {("8B", "7B", "6B"), ("2B",), ("KC",), ("QC",)}


@settings(max_examples=25, deadline=None, database=None)
@given(seed=st.integers(0, 10**6), case=st.sampled_from(DEAL_CASES), ultimo=st.sampled_from(ULTIMO))
def test_a_best_card_keeps_the_value(seed: int, case: tuple[str, str], ultimo: object) -> None:
    """Playing a best card never lowers the player's guaranteed value, and no card raises it."""
    rules = _rules(*case, ultimo=ultimo)
    game = _endgame(rules, random.Random(seed), 3, None)
    solver = Solver(rules)
    position = game.position
    seat = position.mover
    before = solver.value(position, seat)
    values = solver.values(position)
    for card, value in values.items():
        after = solver.value(position.play(card), seat)
        assert after <= before
        assert (value == before) == (after == before), card
        if value is not None:
            assert value == after


def test_the_node_limit_bounds_the_work() -> None:
    game = _endgame(PRESETS["classic"], random.Random(1), 6, None)
    solver = Solver(PRESETS["classic"], node_limit=50)
    with pytest.raises(SearchTooLarge) as caught:
        solver.value(game.position, 0)
    assert caught.value.code == "search_too_large" and "start it at a later trick" in caught.value.message


@pytest.mark.parametrize("guess", [-10_000, -1, 0, 1, 10_000])
def test_the_value_does_not_depend_on_the_first_guess(guess: int) -> None:
    """The narrow searches stride towards the value from any guess, below every bound or above
    them all, and land on the plain search's value (the bounds from the cards left are exact
    bounds, never the value itself)."""
    rng = random.Random(f"guess {guess}")
    for number, (preset, deal) in enumerate(DEAL_CASES):
        rules = _rules(preset, deal, **SWITCHES[number % len(SWITCHES)])
        game = _endgame(rules, rng, 2 + number % 2, (FOOL_INDEX, BAGATTO_INDEX)[number % 2])
        for seat in range(rules.players):
            solver = Solver(rules)
            units = solver._exact(game.position, seat, guess)
            from_zero = Solver(rules).value(game.position, seat)
            assert solver.value(game.position, seat) == from_zero == game.plain(seat)
            assert units == Solver(rules)._exact(game.position, seat)
