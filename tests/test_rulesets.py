"""Rulesets as data: the presets of RULES.md, switches, and the forbidden discards."""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from scorer.engine.cards import CODES, Card
from scorer.engine.errors import ReadError, UnknownRuleset
from scorer.engine.rulesets import (
    DEALS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    SWITCH_VALUES,
    Ruleset,
    dealt,
    find_ruleset,
    ruleset_spec,
)

TABLE = {  # RULES.md, Presets: players, cards each, talon, pack, then the switches, then the base
    "classic": (3, 25, 3, 78, "T20", "classic", "after_dealer", False, "kept", False, 26),
    "rulesheet": (3, 25, 3, 78, "T21", "rulesheet", "after_dealer", True, "captured", False, 26),
    "saari": (3, 25, 3, 78, "T20", "saari", "dealer", False, "kept", True, 26),
    # the rule sheet's variants: the sheet's switches with their own deal
    "four": (4, 19, 2, 78, "T21", "rulesheet", "after_dealer", True, "captured", False, Fraction(39, 2)),
    "piccolo": (3, 12, 6, 42, "T21", "rulesheet", "after_dealer", True, "captured", False, 22),
}
DEAL = {"classic": "three", "rulesheet": "three", "saari": "three", "four": "four", "piccolo": "piccolo"}


@pytest.mark.parametrize("name", list(TABLE))


def test_presets_follow_the_table(name: str) -> None:
    rules = PRESETS[name]
    got = (rules.players, rules.cards_each, rules.talon, rules.pack_size, rules.top_trump, rules.discard,
           rules.first_lead, rules.overtrump, rules.fool_last_trick, rules.fool_forfeit, rules.base)
    assert got == TABLE[name]
    assert rules.fool_discard == "restricted" and rules.ultimo is False
    assert rules.players * rules.cards_each + rules.talon == rules.pack_size
    assert rules.tricks == rules.cards_each
    assert rules.deal == DEAL[name]
    assert PRESET_DESCRIPTIONS[name].endswith(".")


@pytest.mark.parametrize("deal", ["three", "four", "piccolo"])
@pytest.mark.parametrize("preset", list(TABLE))


def test_a_deal_is_independent_of_the_reading(preset: str, deal: str) -> None:
    """RULES.md, Deals: any preset can be played three- or four-handed or as Piccolo."""
    rules = find_ruleset({"preset": preset, "deal": deal})
    shape = DEALS[deal]
    assert (rules.players, rules.cards_each, rules.talon, rules.pack) == (
        shape.players, shape.cards_each, shape.talon, shape.pack)
    reading = {k: v for k, v in rules.switches().items() if k != "deal"}
    assert reading == {k: v for k, v in PRESETS[preset].switches().items() if k != "deal"}
    assert rules.base == {"three": 26, "four": Fraction(39, 2), "piccolo": 22}[deal]
    assert rules.name == (preset if deal == DEAL[preset] else f"{preset}/{deal}")


def test_deck_totals() -> None:
    assert {name: r.deck_total for name, r in PRESETS.items()} == {
        "classic": 78, "rulesheet": 78, "saari": 78, "four": 78, "piccolo": 66}


def test_the_piccolo_pack() -> None:
    pack = {CODES[c] for c in PRESETS["piccolo"].pack}
    assert pack == {f"T{n}" for n in range(1, 22)} | {"M"} | {r + s for r in "KQCJ1" for s in "CDBS"}


def test_top_trump() -> None:
    t19, t20, t21 = (Card.parse(c) for c in ("T19", "T20", "T21"))
    classic, rulesheet = PRESETS["classic"].strength, PRESETS["rulesheet"].strength
    assert classic[t20] > classic[t21] > classic[t19]
    assert rulesheet[t21] > rulesheet[t20] > rulesheet[t19]
    assert min(classic[c] for c in range(21)) > max(classic[c] for c in range(22, 78))


@pytest.mark.parametrize(("spec", "expected"), [
    (None, PRESETS["classic"]),
    ("saari", PRESETS["saari"]),
    ({}, PRESETS["classic"]),
    ({"preset": "four"}, PRESETS["four"]),
    ({"preset": "saari", "overtrump": True}, replace(PRESETS["saari"], overtrump=True)),
    ({"ultimo": True, "fool_discard": "free"}, replace(PRESETS["classic"], ultimo=True, fool_discard="free")),
])


def test_find_ruleset(spec: Any, expected: Ruleset) -> None:
    assert find_ruleset(spec) == expected


def test_a_switch_object_keeps_the_preset_name_and_changes_only_its_switch() -> None:
    rules = find_ruleset({"preset": "saari", "overtrump": True})
    assert rules.preset == "saari" and rules.overtrump is True
    assert rules.first_lead == "dealer" and rules.fool_forfeit is True and rules.discard == "saari"


@pytest.mark.parametrize(("spec", "message"), [
    ("classik", 'ruleset: "classik" is not a preset (presets: classic, rulesheet, saari, four, piccolo)'),
    ("Classic", 'ruleset: "Classic" is not a preset (presets: classic, rulesheet, saari, four, piccolo)'),
    ({"preset": "fourr"}, 'ruleset.preset: "fourr" is not a preset (presets: classic, rulesheet, saari, four, '
                          'piccolo)'),
    ({"preset": 4}, "ruleset.preset: 4 is not a preset (presets: classic, rulesheet, saari, four, piccolo)"),
    ({"overtrum": True}, "ruleset: 'overtrum' is not a switch (switches: top_trump, discard, fool_discard, "
                         "first_lead, overtrump, fool_last_trick, fool_forfeit, ultimo, deal)"),
    ({"deal": "five"}, 'ruleset.deal: "five" is not a value of deal (use "three", "four", "piccolo")'),
    ({"ultimo": "fool"}, 'ruleset.ultimo: "fool" is not a value of ultimo (use false, true, "bagatto_or_fool")'),
    ({"overtrump": "yes"}, 'ruleset.overtrump: "yes" is not a value of overtrump (use true, false)'),
    ({"overtrump": 1}, "ruleset.overtrump: 1 is not a value of overtrump (use true, false)"),
    ({"top_trump": "t21"}, 'ruleset.top_trump: "t21" is not a value of top_trump (use "T20", "T21")'),
    ({"discard": "dummett"}, 'ruleset.discard: "dummett" is not a value of discard (use "classic", '
                             '"rulesheet", "saari")'),
    ({"fool_last_trick": 0}, 'ruleset.fool_last_trick: 0 is not a value of fool_last_trick (use "kept", '
                             '"captured")'),  # null is no value either: it is read as absent (RECORD.md)
    (42, "ruleset: must be a preset name or an object of switches"),
    (["classic"], "ruleset: must be a preset name or an object of switches"),
])


def test_unknown_rulesets(spec: Any, message: str) -> None:
    with pytest.raises(UnknownRuleset) as caught:
        find_ruleset(spec)
    assert str(caught.value) == message
    assert isinstance(caught.value, ReadError) and isinstance(caught.value, ValueError)


def test_ruleset_spec_is_the_shortest_name_and_round_trips() -> None:
    assert ruleset_spec(PRESETS["saari"]) == "saari"
    assert ruleset_spec(find_ruleset({"preset": "saari", "first_lead": "dealer"})) == "saari"
    assert ruleset_spec(find_ruleset({"preset": "saari", "overtrump": True})) == {"preset": "saari",
                                                                                "overtrump": True}
    names = list(SWITCH_VALUES)
    for preset in PRESETS:
        for values in itertools.product(*SWITCH_VALUES.values()):
            rules = find_ruleset({"preset": preset, **dict(zip(names, values, strict=True))})
            assert find_ruleset(ruleset_spec(rules)) == rules
    assert PRESETS["classic"].switches() == {
        "top_trump": "T20", "discard": "classic", "fool_discard": "restricted", "first_lead": "after_dealer",
        "overtrump": False, "fool_last_trick": "kept", "fool_forfeit": False, "ultimo": False, "deal": "three"}
    assert ruleset_spec(find_ruleset({"preset": "classic", "deal": "four"})) == {"preset": "classic", "deal": "four"}
    assert ruleset_spec(find_ruleset({"ultimo": "bagatto_or_fool"})) == {"preset": "classic",
                                                                         "ultimo": "bagatto_or_fool"}


# --- forbidden discards (RULES.md, "Deal and discard") -----------------------------

PLAIN = "2S 3S 4S 5S 6S 7S 8S 9S 10S 2B 3B 4B 5B 6B 7B 8B 9B 10B 2C 3C 4C 5C"
"""Suit cards no rule forbids, to fill the dealer's 28 cards."""


def _illegal(rules: Ruleset, discard: str, kept: str) -> set[str]:
    """The discarded cards the ruleset forbids, the dealer keeping ``kept`` plus plain cards: what
    the dealer holds is both (RULES.md: "holds", among all the cards after taking the talon)."""
    thrown: frozenset[int] = frozenset(Card.parse(c) for c in discard.split())
    keep: frozenset[int] = frozenset(Card.parse(c) for c in (kept + " " + PLAIN).split())
    return {CODES[c] for c in rules.forbidden_discards(thrown | keep) & thrown}  # type: ignore[operator]


CLASSIC, RULESHEET, SAARI = PRESETS["classic"], PRESETS["rulesheet"], PRESETS["saari"]
FREE = {name: find_ruleset({"preset": name, "fool_discard": "free"}) for name in ("classic", "rulesheet", "saari")}


@pytest.mark.parametrize(("rules", "discard", "kept", "illegal"), [
    # classic: no King, no XX, no Fool; the Bagatto only holding no other trump and not the Fool
    (CLASSIC, "KS 2D 3D", "T5", {"KS"}),
    (CLASSIC, "KS KC KD", "T5", {"KS", "KC", "KD"}),
    (CLASSIC, "T20 2D 3D", "T5", {"T20"}),
    (find_ruleset({"top_trump": "T21"}), "T20 2D 3D", "T5", {"T20"}),  # the card T20, whatever is top
    (CLASSIC, "M 2D 3D", "T5", {"M"}),
    (CLASSIC, "T21 T5 T6", "T7 M", set()),  # other trumps may be discarded
    (CLASSIC, "T1 2D 3D", "T5", {"T1"}),
    (CLASSIC, "T1 2D 3D", "M", {"T1"}),  # a kept Fool stops the Bagatto discard
    (CLASSIC, "T1 2D 3D", "KD", set()),  # no other trump, no Fool kept
    (CLASSIC, "T1 T5 T7", "QD", {"T1"}),  # laid away with every other trump: they were held
    (CLASSIC, "T1 T5 M", "", {"M", "T1"}),  # the Fool and T5 were held
    # rulesheet: also no XXI; the Fool does not count as a trump for the Bagatto
    (RULESHEET, "T21 2D 3D", "T5", {"T21"}),
    (RULESHEET, "T20 KD 3D", "T5", {"T20", "KD"}),
    (RULESHEET, "M 2D 3D", "", {"M"}),
    (RULESHEET, "T1 2D 3D", "T5", {"T1"}),
    (RULESHEET, "T1 2D 3D", "M", set()),
    (RULESHEET, "T1 T2 2D", "M", {"T1"}),  # T2 was held
    (RULESHEET, "T1 M 2D", "", {"M"}),
    # saari: no King, no I, no XX; the Fool only by a dealer who holds no trump at all
    (SAARI, "T1 2D 3D", "", {"T1"}),
    (SAARI, "T20 2D 3D", "", {"T20"}),
    (SAARI, "KC 2D 3D", "", {"KC"}),
    (SAARI, "T21 T5 2D", "T7", set()),
    (SAARI, "M 2D 3D", "T5", {"M"}),
    (SAARI, "M T5 2D", "", {"M"}),  # the trump discarded with it was held
    (SAARI, "M 2D 3D", "", set()),  # holds no trump at all
    (SAARI, "M 2D 3D", "KD QD", set()),
    # fool_discard free: the Fool is off the list; a kept Fool still stops a classic Bagatto
    (FREE["classic"], "M 2D 3D", "T5", set()),
    (FREE["classic"], "T1 2D 3D", "M", {"T1"}),
    (FREE["classic"], "M T1 2D", "", {"T1"}),  # the Fool may go; it was held, so the Bagatto may not
    (FREE["rulesheet"], "M 2D 3D", "T5", set()),
    (FREE["saari"], "M 2D 3D", "T5", set()),
    (FREE["saari"], "T1 M 2D", "", {"T1"}),
])


def test_forbidden_discards(rules: Ruleset, discard: str, kept: str, illegal: set[str]) -> None:
    assert _illegal(rules, discard, kept) == illegal


def test_a_switch_given_as_null_is_read_as_absent() -> None:
    """RECORD.md: an optional key given as null is absent; in a ruleset object, the preset's value stands."""
    assert find_ruleset({"preset": "saari", "fool_last_trick": None}) == PRESETS["saari"]
    assert find_ruleset({"preset": None, "overtrump": True}) == find_ruleset({"overtrump": True})


@pytest.mark.parametrize(("spec", "expected"), [
    ("classic", {"preset": "classic", "deal": "four"}),
    (None, {"preset": "classic", "deal": "four"}),
    ({"preset": "saari", "ultimo": True}, {"preset": "saari", "ultimo": True, "deal": "four"}),
    ("rulesheet", {"preset": "rulesheet", "deal": "four"}),
])


def test_rules_dealt_to_four_keep_their_reading(spec: object, expected: dict[str, Any]) -> None:
    """RULES.md, Deals: a table playing the classic rules with four players uses
    {"preset": "classic", "deal": "four"}: every switch but the deal stays the night's."""
    assert dealt(spec, "four") == expected
    rules = find_ruleset(expected)
    assert rules.players == 4
    assert rules.switches() | {"deal": "three"} == find_ruleset(spec).switches()


def test_a_ruleset_of_switches_is_made_once_with_its_tables() -> None:
    """Records naming the same switches share one ruleset, whose tables (strengths, pack, deck total) are
    worked out once: each record making its own cost more than a third of its reading and judging."""
    first = find_ruleset({"preset": "saari", "overtrump": True, "ultimo": "bagatto_or_fool"})
    assert first.strength[0] >= 0 and "strength" in vars(first)
    again = find_ruleset({"preset": "saari", "overtrump": True, "ultimo": "bagatto_or_fool", "fool_forfeit": None})
    assert again is first
    other = find_ruleset({"preset": "saari", "overtrump": False})
    assert other is not first and other != first and other.overtrump is False
