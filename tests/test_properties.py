"""Invariants over simulated legal hands (STYLE.md 13), for every preset and for switch
combinations.

Each example is a seed: the simulator deals, discards and plays a legal hand from it
(scorer/simulation.py, which replays and counts independently of the engine), so a
failure prints the seed that reproduces it.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.engine.cards import BAGATTO_INDEX, FOOL_INDEX, VALUE
from scorer.engine.records import HandRecord, dumps, hand_to_dict, loads, parse_hand
from scorer.engine.rulesets import PRESETS, SWITCH_VALUES, Ruleset, find_ruleset
from scorer.engine.scoring import HandResult, score_hand
from scorer.engine.simulation import (
    VIOLATIONS,
    Injected,
    captured_form,
    captured_piles,
    honours_form,
    inject_violation,
    points_form,
    simulate_hand,
    trick_winner,
    violations,
)
from scorer.engine.validation import validate

pytestmark = pytest.mark.slow  # property runs over many simulated hands: make test-fast leaves it out

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
DECK_TOTALS = {"classic": 78, "rulesheet": 78, "saari": 78, "four": 78, "piccolo": 66}


def _hand(rules: Ruleset, seed: int, **options: bool) -> HandRecord:
    return simulate_hand(rules, random.Random(seed), **options)


def _forms(record: HandRecord) -> dict[str, HandRecord]:
    """The same hand as a table might record it in each less detailed form."""
    return {
        "captured": captured_form(record),
        "captured after the exchange": captured_form(record, exchanged=True),
        "honours": honours_form(record),
        "honours after the exchange": honours_form(record, exchanged=True),
        "points": points_form(record),
    }


def _check_totals(result: HandResult) -> None:
    """The deck total conserved, scores and bonuses summing to zero."""
    assert result.counts is not None
    assert sum(c.card_points for c in result.counts) == result.deck_total
    assert sum(c.score for c in result.counts) == 0
    assert sum(c.bonus for c in result.counts) == 0
    for c in result.counts:
        assert c.score == c.card_points - result.base + c.bonus


def _in_threes(cards: list[int]) -> Fraction:
    """The count as a table makes it: groups of three in the order given, each the sum of
    its values less 2; a card left over counts a third of a group (four players)."""
    total = Fraction(0)
    for start in range(0, len(cards), 3):
        group = cards[start:start + 3]
        total += sum(VALUE[c] for c in group) - Fraction(2 * len(group), 3)
    return total


def _fool_trick(record: HandRecord) -> tuple[str, str] | None:
    """(the Fool's player, the winner of its trick) when a card is owed for the Fool."""
    rules = record.ruleset
    n = len(record.players)
    dealer = record.dealer_index
    leader = dealer if rules.first_lead == "dealer" else (dealer + 1) % n
    for number, trick in enumerate(record.tricks or (), start=1):
        seats = [(leader + k) % n for k in range(n)]
        winner = trick_winner(rules, trick.cards, seats)
        if FOOL_INDEX in trick.cards:
            if number == rules.tricks and rules.fool_last_trick == "captured":
                return None
            return record.players[seats[trick.cards.index(FOOL_INDEX)]], record.players[winner]
        leader = winner
    return None


def _second_description(record: HandRecord, order: random.Random) -> dict[str, Fraction]:
    """RULES.md's other description, literally: the Fool counts 4 on its own for its
    player, and the winner of its trick counts the two cards left over from their threes
    as their sum plus 1, less 2. Piles are grouped in a random order."""
    piles = captured_piles(record)
    owed = _fool_trick(record)
    if owed is not None and record.ruleset.fool_forfeit and _won_nothing(record, piles, owed[0]):
        piles[owed[0]].remove(FOOL_INDEX)  # forfeited: the Fool goes to the winner, no exchange
        piles[owed[1]].append(FOOL_INDEX)
        owed = None
    points = {}
    for player, pile in piles.items():
        cards = list(pile)
        order.shuffle(cards)
        if owed is not None and player == owed[0]:
            cards.remove(FOOL_INDEX)
            points[player] = _in_threes(cards) + 4
        elif owed is not None and player == owed[1]:
            assert len(cards) % 3 == 2
            points[player] = _in_threes(cards[2:]) + VALUE[cards[0]] + VALUE[cards[1]] + 1 - 2
        else:
            points[player] = _in_threes(cards)
    return points


def _won_nothing(record: HandRecord, piles: dict[str, list[int]], player: str) -> bool:
    """Whether the Fool's player won no trick: their pile, less the dealer's discards, is the Fool."""
    discards = record.ruleset.talon if player == record.dealer else 0
    return len(piles[player]) - discards == 1


def _exchange_possible(record: HandRecord) -> bool:
    """Whether a table could hand over the Fool's 1-point card (or forfeit the Fool)."""
    piles = captured_piles(record)
    player, pile = next((p, pile) for p, pile in piles.items() if FOOL_INDEX in pile)
    forfeit = record.ruleset.fool_forfeit and _won_nothing(record, piles, player)
    return forfeit or any(VALUE[c] == 1 for c in pile)


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(max_examples=120, deadline=None)
@given(seed=SEEDS, leaders=st.booleans(), listed_discard=st.booleans())
def test_simulated_hands(preset: str, seed: int, leaders: bool, listed_discard: bool) -> None:
    """A legal hand validates cleanly; its full record, captured piles (before and after
    the Fool's exchange), honours with sizes and points all score the same; each form
    round-trips through JSON; the two counting descriptions of RULES.md agree."""
    rules = PRESETS[preset]
    record = _hand(rules, seed, leaders=leaders, listed_discard=listed_discard)
    assert validate(record).problems == ()
    full = score_hand(record)
    assert full.problems == ()
    assert full.deck_total == DECK_TOTALS[preset]
    _check_totals(full)
    assert full.counts is not None
    counts = {c.name: c for c in full.counts}

    for name, form in {"tricks": record, **_forms(record)}.items():
        result = score_hand(form)
        assert result.problems == (), name
        _check_totals(result)
        assert result.scores() == full.scores(), name
        data = hand_to_dict(form)
        assert parse_hand(data) == form, name
        again = parse_hand(loads(dumps(data)))
        assert again == form, name
        assert hand_to_dict(again) == data, name

    # the count in threes: whichever cards go together; whole groups after the exchange
    order = random.Random(seed)
    exchanged = captured_piles(record, exchanged=True)
    for player, pile in exchanged.items():
        assert sum(worth for _, worth in counts[player].groups()) == counts[player].card_points
        if _exchange_possible(record):
            if rules.players == 3:
                assert len(pile) % 3 == 0
            shuffled = list(pile)
            order.shuffle(shuffled)
            assert _in_threes(shuffled) == counts[player].card_points
    if rules.players == 3:
        assert _second_description(record, order) == {p: c.card_points for p, c in counts.items()}


def _one_breach(rules: Ruleset, seed: int, code: str) -> tuple[Injected, HandResult]:
    """A legal hand with one illegal card of kind ``code`` (``overtrump`` switched on for that kind),
    and its result, which must report exactly that card."""
    if code == "failed_to_overtrump" and not rules.overtrump:
        rules = replace(rules, overtrump=True)
    rng = random.Random(seed)
    for _ in range(40):  # not every hand allows every kind of breach; another one will
        injected = inject_violation(simulate_hand(rules, rng), rng, code)
        if injected is not None:
            break
    assert injected is not None
    result = score_hand(injected.record)
    got = [(p.code, p.severity, p.trick, p.player, p.card) for p in result.problems]
    assert got == [(code, "violation", injected.trick, injected.player, injected.card)]
    return injected, result


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(max_examples=50, deadline=None)
@given(seed=SEEDS, code=st.sampled_from(VIOLATIONS))
def test_one_injected_illegal_card_is_reported_exactly_once(preset: str, seed: int, code: str) -> None:
    injected, result = _one_breach(PRESETS[preset], seed, code)
    seat = injected.record.players.index(injected.player)
    assert violations(injected.record) == [(code, injected.trick, seat, injected.card)]  # the full check agrees
    problem = result.problems[0]
    assert f"Trick {injected.trick}:" in problem.message and injected.player in problem.message
    assert problem.proof_trick is not None and problem.proof_trick > injected.trick
    _check_totals(result)  # a violation does not stop the count


def _rulesets() -> st.SearchStrategy[Ruleset]:
    switches = {name: st.sampled_from(values) for name, values in SWITCH_VALUES.items()}
    return st.builds(
        lambda preset, chosen: find_ruleset({"preset": preset, **chosen}),
        st.sampled_from(list(PRESETS)),
        st.fixed_dictionaries({}, optional=switches),
    )


@settings(max_examples=200, deadline=None)
@given(rules=_rulesets(), seed=SEEDS)
def test_switch_combinations(rules: Ruleset, seed: int) -> None:
    """Any preset with any switches, any deal, ``ultimo`` every way: legal play validates, the
    scores with the bonus sum to zero, and every record form (through JSON too) scores the same."""
    record = _hand(rules, seed)
    full = score_hand(record)
    assert full.problems == ()
    _check_totals(full)
    assert full.record.ruleset.players == len(record.players)
    assert parse_hand(hand_to_dict(record)) == record
    for name, form in _forms(record).items():
        result = score_hand(form)
        assert result.problems == (), name
        _check_totals(result)
        assert result.scores() == full.scores(), name
        again = parse_hand(loads(dumps(hand_to_dict(form))))
        assert score_hand(again).scores() == full.scores(), name


def test_the_ruleset_strategy_reaches_every_switch_value() -> None:
    """Each switch's every value, every deal and ``ultimo`` both ways come out of the strategy."""
    seen: dict[str, set[str]] = {name: set() for name in SWITCH_VALUES}

    @settings(max_examples=300, deadline=None, database=None)
    @given(rules=_rulesets())
    def collect(rules: Ruleset) -> None:
        for name, value in rules.switches().items():
            seen[name].add(repr(value))

    collect()
    assert seen == {name: {repr(v) for v in values} for name, values in SWITCH_VALUES.items()}


@settings(max_examples=120, deadline=None)
@given(rules=_rulesets(), seed=SEEDS, code=st.sampled_from(VIOLATIONS))
def test_one_injected_breach_under_any_ruleset_is_found_exactly_once(rules: Ruleset, seed: int,
                                                                      code: str) -> None:
    injected, result = _one_breach(rules, seed, code)
    _check_totals(result)
    for name, form in _forms(injected.record).items():  # the other forms cannot show it, and agree
        assert score_hand(form).scores() == result.scores(), name


@settings(max_examples=150, deadline=None)
@given(preset=st.sampled_from(list(PRESETS)), seed=SEEDS, ultimo=st.sampled_from([True, "bagatto_or_fool"]))
def test_ultimo_keeps_card_points_and_the_zero_sum(preset: str, seed: int, ultimo: bool | str) -> None:
    plain = _hand(PRESETS[preset], seed)
    rules = find_ruleset({"preset": preset, "ultimo": ultimo})
    record = _hand(rules, seed)  # the same seed deals and plays the same hand
    assert record.tricks == plain.tricks
    without, with_bonus = score_hand(plain), score_hand(record)
    _check_totals(without)
    _check_totals(with_bonus)
    assert [c.card_points for c in with_bonus.counts or ()] == [c.card_points for c in without.counts or ()]
    bonuses = [c.bonus for c in with_bonus.counts or ()]
    last = record.tricks[-1].cards if record.tricks else ()
    fool_taken = FOOL_INDEX in last and (rules.fool_last_trick == "captured" or (
        with_bonus.exchange is not None and with_bonus.exchange.forfeit))
    if BAGATTO_INDEX in last or (ultimo == "bagatto_or_fool" and fool_taken):
        assert sorted(bonuses)[-1] == 5
        assert sorted(bonuses)[:-1] == [Fraction(-5, rules.players - 1)] * (rules.players - 1)
    else:
        assert bonuses == [0] * rules.players
    for name, form in _forms(record).items():
        assert score_hand(form).scores() == with_bonus.scores(), name
