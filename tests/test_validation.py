"""Checking records: each problem code, its fields and its message, on rigged and broken hands."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scorer.engine.cards import CODES, Card
from scorer.engine.records import HandRecord, Trick
from scorer.engine.rulesets import PRESETS, Ruleset, find_ruleset
from scorer.engine.scoring import score_hand
from scorer.engine.simulation import (
    captured_form,
    captured_piles,
    deal,
    honours_form,
    inject_violation,
    play_hand,
    points_form,
    simulate_hand,
)
from scorer.engine.validation import Problem, next_leader, validate


def _cards(text: str) -> list[int]:
    return [Card.parse(code) for code in text.split()]


def _hand(rules: Ruleset, dealer_holds: str, discard: str, seed: int = 1) -> HandRecord:
    """A hand legally played after Anna (seat 0) dealt holding ``dealer_holds`` (all her
    28 cards when that many are given, else the rest at random) and discarded ``discard``."""
    rng = random.Random(seed)
    held = _cards(dealer_holds)
    hand, talon = held[:rules.cards_each], held[rules.cards_each:]
    dealt = deal(rules, rng, {0: hand}, talon if len(held) == rules.cards_each + rules.talon else None)
    return play_hand(rules, dealt, rng, dealer=0, discard=_cards(discard))


def _codes(record: HandRecord) -> list[tuple[str, str | None, str | None]]:
    return [(p.code, p.player, CODES[p.card] if p.card is not None else None) for p in validate(record).problems]


SUITED = " ".join(f"{rank}{suit}" for suit in "CDBS" for rank in ("Q", "C", "J", "10", "9", "8", "7"))
"""28 suit cards that are neither Kings nor trumps: a dealer's hand with nothing forbidden."""


@pytest.mark.parametrize(("rules", "holds", "discard", "message"), [
    (PRESETS["classic"], "KS", "KS 2D 3D", "Anna (dealer) discarded the King of Swords: a King may never be "
                                           "discarded."),
    (PRESETS["classic"], "T20", "T20 2D 3D", "Anna (dealer) discarded the Angel (XX): the Angel (XX) may never "
                                             "be discarded."),
    (PRESETS["classic"], "M", "M 2D 3D", "Anna (dealer) discarded the Fool: the Fool may not be discarded."),
    (PRESETS["classic"], "T1 T5", "T1 2D 3D", "Anna (dealer) discarded the Bagatto: the Bagatto may be discarded "
                                              "only when the dealer holds no other trump and not the Fool."),
    (PRESETS["rulesheet"], "T21", "T21 2D 3D", "Anna (dealer) discarded the World (XXI): under these rules the "
                                               "World (XXI) may not be discarded."),
    (PRESETS["rulesheet"], "T1 T5", "T1 2D 3D", "Anna (dealer) discarded the Bagatto: the Bagatto may be "
                                                "discarded only when the dealer holds no other trump."),
    (PRESETS["saari"], "T1", "T1 2D 3D", "Anna (dealer) discarded the Bagatto: under these rules the Bagatto may "
                                         "never be discarded."),
    (PRESETS["saari"], "M T5", "M 2D 3D", "Anna (dealer) discarded the Fool: the Fool may be discarded only by a "
                                          "dealer who holds no trump at all."),
    (PRESETS["four"], "KC", "KC 2D", "Anna (dealer) discarded the King of Cups: a King may never be discarded."),
    (PRESETS["piccolo"], "KD T20", "T20 1D 1C QS QB QC", "Anna (dealer) discarded the Angel (XX): the Angel (XX) "
                                                         "may never be discarded."),
])
def test_each_forbidden_discard(rules: Ruleset, holds: str, discard: str, message: str) -> None:
    cards = holds.split() + [c for c in discard.split() if c not in holds.split()]
    record = _hand(rules, " ".join(cards), discard)
    problems = validate(record).problems
    assert len(problems) == 1
    problem = problems[0]
    assert (problem.code, problem.severity, problem.player) == ("illegal_discard", "violation", "Anna")
    assert problem.card == Card.parse(discard.split()[0]) and problem.trick is None
    assert problem.message == message


def _dealer_holds(extra: str, suited: int) -> str:
    """The dealer's 28 cards: ``extra`` and suit cards that no rule forbids."""
    return " ".join(extra.split() + SUITED.split()[:suited])


@pytest.mark.parametrize(("rules", "holds", "discard", "illegal"), [
    # the Bagatto, classic: only holding no other trump and not the Fool (RULES.md: "holds")
    (PRESETS["classic"], _dealer_holds("T1", 27), "T1 QC CC", []),
    (PRESETS["classic"], _dealer_holds("T1 T5 T7", 25), "T1 T5 T7", ["T1"]),  # the other trumps were held
    (PRESETS["classic"], _dealer_holds("T1 T5 T7", 25), "T1 T5 QC", ["T1"]),
    (PRESETS["classic"], _dealer_holds("T1 M", 26), "T1 QC CC", ["T1"]),
    (find_ruleset({"fool_discard": "free"}), _dealer_holds("T1 M", 26), "T1 M CC", ["T1"]),  # the Fool was held
    (find_ruleset({"fool_discard": "free"}), _dealer_holds("T1 M", 26), "T1 QC CC", ["T1"]),
    # the Bagatto, rulesheet: the Fool does not count as a trump
    (PRESETS["rulesheet"], _dealer_holds("T1 M", 26), "T1 QC CC", []),
    (PRESETS["rulesheet"], _dealer_holds("T1 T2 M", 25), "T1 QC CC", ["T1"]),
    # the Fool, saari: only by a dealer who holds no trump at all
    (PRESETS["saari"], _dealer_holds("M", 27), "M QC CC", []),
    (PRESETS["saari"], _dealer_holds("M T21", 26), "M T21 CC", ["M"]),
    (find_ruleset({"preset": "saari", "fool_discard": "free"}), _dealer_holds("M T21", 26), "M T21 CC", []),
    (PRESETS["saari"], _dealer_holds("T21 T2", 26), "T21 T2 QC", []),  # other trumps, even XXI
    # several at once: one problem per card, in discard order
    (PRESETS["classic"], _dealer_holds("KS M KC", 25), "KS M KC", ["KS", "M", "KC"]),
    (PRESETS["rulesheet"], _dealer_holds("T20 T21 T1 T3", 24), "T20 T21 T1", ["T20", "T21", "T1"]),
])
def test_discard_conditions(rules: Ruleset, holds: str, discard: str, illegal: list[str]) -> None:
    record = _hand(rules, holds, discard)
    assert _codes(record) == [("illegal_discard", "Anna", code) for code in illegal]


def test_the_discard_may_be_left_to_the_record() -> None:
    """Without ``discard`` the dealer's discards are the cards in no trick, and are checked."""
    record = _hand(PRESETS["classic"], _dealer_holds("KS M KC", 25), "KC M KS")
    inferred = replace(record, discard=None)
    assert _codes(inferred) == [("illegal_discard", "Anna", code) for code in ("M", "KC", "KS")]  # pack order
    replay = validate(inferred).replay
    assert replay is not None and [CODES[c] for c in replay.discard] == ["M", "KC", "KS"]


# --- errors ---------------------------------------------------------------------


def _legal(preset: str = "classic", seed: int = 3) -> HandRecord:
    return simulate_hand(PRESETS[preset], random.Random(seed))


def _with_trick(record: HandRecord, index: int, trick: Trick) -> HandRecord:
    tricks = list(record.tricks or ())
    tricks[index] = trick
    return replace(record, tricks=tuple(tricks))


def test_a_card_twice() -> None:
    record = _legal()
    assert record.tricks is not None
    twice = record.tricks[4].cards[0]
    trick = record.tricks[2]
    lost = trick.cards[1]
    broken = _with_trick(record, 2, Trick((trick.cards[0], twice, trick.cards[2]), trick.leader))
    problems = validate(broken).problems
    assert [(p.code, p.card) for p in problems] == [("duplicate_card", twice), ("card_count", lost)]
    assert problems[0].message == f"{Card(twice).name[0].upper()}{Card(twice).name[1:]} ({CODES[twice]}) is in " \
                                  "trick 3 and again in trick 5: a card is played once."  # where, not only that
    assert problems[1].message.endswith(f"({CODES[lost]}) is missing from the record.")
    assert validate(broken).replay is None


def test_a_card_in_a_trick_and_in_the_discard() -> None:
    record = _legal()
    assert record.tricks is not None and record.discard is not None
    card = record.tricks[0].cards[0]
    broken = replace(record, discard=(card, *record.discard[1:]))
    assert ("duplicate_card", card) in [(p.code, p.card) for p in validate(broken).problems]


@pytest.mark.parametrize(("discard_size", "message"), [
    (2, "The discard has 2 cards; the dealer discards exactly 3."),
    (4, "The discard has 4 cards; the dealer discards exactly 3."),
])
def test_a_discard_of_the_wrong_size(discard_size: int, message: str) -> None:
    record = _legal()
    assert record.discard is not None and record.tricks is not None
    if discard_size < 3:
        broken = replace(record, discard=record.discard[:discard_size])
    else:
        broken = replace(record, discard=(*record.discard, record.tricks[0].cards[0]))
    problems = validate(broken).problems
    assert "card_count" in [p.code for p in problems]
    assert message in [p.message for p in problems]


def test_a_missing_trick() -> None:
    record = _legal()
    assert record.tricks is not None
    broken = replace(record, tricks=record.tricks[:-1])
    problems = validate(broken).problems
    assert problems[0].code == "trick_count" and problems[0].severity == "error"
    assert problems[0].message == "The record has 24 tricks; a classic hand has 25."
    assert {p.code for p in problems} == {"trick_count", "card_count"}
    assert all(p.severity == "error" for p in problems)


def test_a_trick_with_a_card_short() -> None:
    record = _legal(seed=4)
    assert record.tricks is not None and record.discard is not None
    short = Trick(record.tricks[6].cards[:2], record.tricks[6].leader)
    broken = replace(_with_trick(record, 6, short), discard=None)
    problems = validate(broken).problems
    assert problems[0].code == "trick_count" and problems[0].trick == 7
    assert problems[0].message == "Trick 7 has 2 cards; each trick has one card from each of the 3 players."
    assert problems[1].code == "card_count"
    assert problems[1].message == ("4 cards of the pack appear in no trick; only the dealer's 3 discards may be "
                                   "missing from the tricks.")


def test_the_wrong_leader() -> None:
    record = _legal()
    assert record.tricks is not None
    right = record.tricks[9].leader
    wrong = next(p for p in record.players if p != right)
    broken = _with_trick(record, 9, replace(record.tricks[9], leader=wrong))
    problems = validate(broken).problems
    assert [(p.code, p.trick, p.player) for p in problems] == [("wrong_leader", 10, wrong)]
    assert problems[0].message == (f"Trick 10 is recorded as led by {wrong}, but {right} must lead it "
                                   "(the winner of trick 9).")


def test_the_wrong_first_leader() -> None:
    record = _legal("saari")
    assert record.tricks is not None
    wrong = record.players[(record.dealer_index + 1) % 3]
    broken = _with_trick(record, 0, replace(record.tricks[0], leader=wrong))
    problem, = validate(broken).problems
    assert problem.message == (f"Trick 1 is recorded as led by {wrong}, but {record.dealer} must lead it "
                               "(the first lead).")


def test_errors_stop_the_check_of_play() -> None:
    rng = random.Random(5)
    injected = inject_violation(_legal(seed=5), rng, "revoke")
    assert injected is not None
    assert [p.code for p in validate(injected.record).problems] == ["revoke"]
    tricks = injected.record.tricks or ()
    broken = replace(injected.record, tricks=tricks[:-1])
    assert "revoke" not in [p.code for p in validate(broken).problems]


def test_problems_come_in_order() -> None:
    """Errors first, then illegal discards in discard order, then tricks in order."""
    record = _hand(PRESETS["classic"], _dealer_holds("KS M", 26), "M KS QC", seed=8)
    rng = random.Random(8)
    injected = None
    while injected is None:
        injected = inject_violation(record, rng)
    problems = validate(injected.record).problems
    assert [(p.code, p.trick) for p in problems] == [
        ("illegal_discard", None), ("illegal_discard", None), (injected.code, injected.trick)]
    assert [CODES[p.card] for p in problems[:2] if p.card is not None] == ["M", "KS"]


def test_a_record_in_progress() -> None:
    """``partial``: the tricks played so far, the last one perhaps incomplete."""
    record = _legal()
    assert record.tricks is not None
    for played in (0, 1, 7, 24):
        for cards in (3, 1, 2):
            tricks = list(record.tricks[:played])
            if cards < 3:
                tricks.append(Trick(record.tricks[played].cards[:cards], record.tricks[played].leader))
            so_far = replace(record, tricks=tuple(tricks))
            checked = validate(so_far, partial=True)
            assert checked.problems == (), (played, cards)
            assert checked.replay is not None
            leader = next_leader(so_far, checked.replay)
            assert record.players[leader] == record.tricks[played].leader
            assert not checked.replay.complete
    finished = validate(record, partial=True).replay
    assert finished is not None and finished.complete
    assert {p.code for p in validate(replace(record, tricks=record.tricks[:7])).problems} == {"trick_count",
                                                                                              "card_count"}


def test_a_trick_count_problem_carries_no_trick_field() -> None:
    """RECORD.md's problem table gives ``trick_count`` no fields: the trick is in the sentence only."""
    record = _legal(seed=4)
    assert record.tricks is not None
    broken = replace(_with_trick(record, 6, Trick(record.tricks[6].cards[:2], record.tricks[6].leader)),
                     discard=None)
    first = validate(broken).problems[0]
    assert first.code == "trick_count" and "Trick 7" in first.message
    assert first.to_dict() == {"code": "trick_count", "severity": "error", "message": first.message}


def test_problem_to_dict_leaves_out_what_does_not_apply() -> None:
    problem = Problem("revoke", "violation", "Trick 4: ...", trick=4, player="Carla", card=Card.parse("CB"),
                      proof_trick=5, proof_card=0)
    assert problem.to_dict() == {"code": "revoke", "severity": "violation", "trick": 4, "player": "Carla",
                                 "card": "CB", "message": "Trick 4: ..."}
    assert list(problem.to_dict()) == ["code", "severity", "trick", "player", "card", "message"]
    assert Problem("points_total", "error", "Recount.").to_dict() == {
        "code": "points_total", "severity": "error", "message": "Recount."}


# --- captured piles, honours, points ------------------------------------------------


def test_captured_piles_of_impossible_sizes() -> None:
    record = _legal()
    piles = captured_piles(record, exchanged=True)
    names = list(piles)
    moved = piles[names[1]].pop()
    piles[names[2]].append(moved)
    broken = replace(captured_form(record), captured={p: tuple(c) for p, c in piles.items()})
    problem, = validate(broken).problems
    assert problem.code == "pile_sizes" and problem.severity == "error"
    sizes = ", ".join(f"{p} {len(piles[p])}" for p in names)
    assert problem.message == (f"No legal hand leaves piles of these sizes ({sizes}): apart from the dealer's "
                               "discards and the Fool's exchange, every pile holds whole tricks of 3 cards.")


def test_a_dealer_pile_smaller_than_the_discard() -> None:
    cards = PRESETS["classic"].pack_order
    piles = {"Anna": tuple(cards[:2]), "Bruno": tuple(cards[2:41]), "Carla": tuple(cards[41:])}
    record = HandRecord(PRESETS["classic"], ("Anna", "Bruno", "Carla"), "Anna", captured=piles)
    problem, = validate(record).problems
    assert problem.message == "Anna's pile has 2 cards, fewer than the 3 the dealer discarded into it."


def test_captured_piles_must_hold_the_pack_once() -> None:
    record = captured_form(_legal())
    assert record.captured is not None
    anna, bruno = record.captured["Anna"], record.captured["Bruno"]
    broken = replace(record, captured={**record.captured, "Anna": anna[1:], "Bruno": (*bruno, anna[1])})
    problems = validate(broken).problems
    assert [(p.code, p.card) for p in problems] == [("duplicate_card", anna[1]), ("card_count", anna[0])]
    assert problems[1].message.endswith(f"({CODES[anna[0]]}) is in no pile.")


def test_honours_errors() -> None:
    record = honours_form(_legal())
    assert record.honours is not None and record.sizes is not None
    pip = Card.parse("5S")
    twice = replace(record, honours={**record.honours, "Anna": (*record.honours["Anna"], pip),
                                     "Bruno": (*record.honours["Bruno"], pip)})
    assert [p.code for p in validate(twice).problems] == ["duplicate_card"]
    short = replace(record, sizes={**record.sizes, "Bruno": record.sizes["Bruno"] - 1})
    assert [p.message for p in validate(short).problems] == ["The pile sizes add up to 77 cards; the pack has 78."]
    missing = replace(record, honours={**record.honours, "Anna": ()})
    assert {p.code for p in validate(missing).problems} == {"card_count"}
    tiny = replace(record, sizes={"Anna": 1, "Bruno": 1, "Carla": 76},
                   honours={"Anna": record.honours["Anna"][:2], "Bruno": record.honours["Bruno"],
                            "Carla": record.honours["Carla"] + record.honours["Anna"][2:]})
    assert "pile_sizes" in {p.code for p in validate(tiny).problems}


def test_an_honours_list_with_a_one_point_card_is_read_as_one_of_the_piles_cards() -> None:
    """RECORD.md: a one-point card listed too is one of that pile's cards and changes nothing."""
    record = honours_form(_legal())
    assert record.honours is not None
    pile = captured_form(_legal()).captured
    assert pile is not None
    pips = tuple(c for c in pile["Anna"] if c not in record.honours["Anna"])[:2]
    listed = replace(record, honours={**record.honours, "Anna": (*record.honours["Anna"], *pips)})
    assert validate(listed).problems == ()
    assert score_hand(listed).scores() == score_hand(record).scores()


def test_points_must_add_up_to_the_deck() -> None:
    record = points_form(_legal())
    assert record.points is not None and validate(record).problems == ()
    first = record.players[0]
    off = replace(record, points={**record.points, first: record.points[first] - 1})
    problem, = validate(off).problems
    assert problem.code == "points_total"
    assert problem.message == "The counted points add up to 77; the classic pack counts 78 in all. Recount the piles."
    piccolo = points_form(_legal("piccolo"))
    assert piccolo.points is not None
    thirds = replace(piccolo, points={p: v + 1 for p, v in piccolo.points.items()})
    assert validate(thirds).problems[0].message == ("The counted points add up to 69; the piccolo pack counts 66 in "
                                                    "all. Recount the piles.")


# --- each rule once ---------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_winning_card_is_the_replays_winner_and_the_simulators(preset: str) -> None:
    """One rule for who wins a trick: the replay's winner plays the winning card, which the
    independent simulator's trick winner agrees with."""
    from scorer.engine.simulation import trick_winner

    rng = random.Random(10)
    for _ in range(5):
        record = simulate_hand(PRESETS[preset], rng)
        replay = validate(record).replay
        assert replay is not None
        for trick in replay.tricks:
            assert trick.winning_card == trick.cards[trick.seats.index(trick.winner)]
            assert trick.winner == trick_winner(record.ruleset, trick.cards, trick.seats)


def test_errors_are_a_property_of_the_result() -> None:
    from scorer.engine.scoring import score_hand

    record = _legal()
    assert record.tricks is not None
    broken = _with_trick(record, 4, Trick(record.tricks[4].cards[:2]))
    for judged in (validate(broken), score_hand(broken)):
        assert judged.has_errors and {p.code for p in judged.errors} == {"trick_count", "card_count"}
        assert all(p.is_error for p in judged.errors)
    clean = score_hand(record)
    assert not clean.has_errors and clean.errors == ()


def test_the_pile_shape_is_read_once_for_a_captured_or_honours_record(monkeypatch: pytest.MonkeyPatch) -> None:
    from scorer.engine import validation
    from scorer.engine.scoring import score_hand

    calls = []
    real = validation.pile_shape

    def counted(*args: object) -> object:
        calls.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(validation, "pile_shape", counted)
    for form in (captured_form(_legal()), honours_form(_legal())):
        calls.clear()
        assert score_hand(form).scored
        assert len(calls) == 1


def test_a_card_twice_is_said_where_it_stands_twice() -> None:
    """"Appears twice in the record" left the player to search 25 tricks (or three piles) for it."""
    record = _legal()
    assert record.tricks is not None and record.discard is not None
    card = record.tricks[4].cards[0]
    trick = record.tricks[4]
    same_trick = _with_trick(record, 4, Trick((card, card, trick.cards[2]), trick.leader))
    assert validate(same_trick).problems[0].message.endswith("is twice in trick 5.")
    discarded = record.discard[0]
    first = record.tricks[0]
    with_discard = _with_trick(record, 0, Trick((discarded, *first.cards[1:]), first.leader))
    message = validate(with_discard).problems[0].message
    assert message.endswith(f"({CODES[discarded]}) is in trick 1 and in the discard: a card discarded is not played.")
