"""Rulesets as data: a preset plus switches (RULES.md), never ``if preset == ...``.

A :class:`Ruleset` is a frozen dataclass; the presets live in :data:`PRESETS` and
:func:`find_ruleset` turns a record's ``ruleset`` value (a name or an object of
switches) into one, raising :class:`UnknownRuleset` for anything RULES.md lacks.
The ``deal`` switch (:data:`DEALS`) fixes the players, cards, talon and pack; the other
switches are the reading of the rules, so any preset can be played with any deal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any, Literal

from .cards import (
    ANGEL_INDEX,
    BAGATTO_INDEX,
    FIRST_SUIT_CARD,
    FOOL_INDEX,
    INDICES,
    RANK,
    SUIT,
    SUIT_STRENGTH,
    TRUMP,
    TRUMPS,
    VALUE,
    WORLD_INDEX,
    CardIndex,
)
from .errors import UnknownRuleset
from .messages import N_

TRUMP_STRENGTH = 1000
"""Where trumps start in :attr:`Ruleset.strength`: above every suit card (at most 105)."""

Deal = Literal["three", "four", "piccolo"]
TopTrump = Literal["T20", "T21"]
DiscardRule = Literal["classic", "rulesheet", "saari"]
FoolDiscard = Literal["restricted", "free"]
FirstLead = Literal["after_dealer", "dealer"]
FoolLastTrick = Literal["kept", "captured"]
Ultimo = Literal[False, True, "bagatto_or_fool"]

SWITCH_VALUES: dict[str, tuple[Any, ...]] = {
    "top_trump": ("T20", "T21"),
    "discard": ("classic", "rulesheet", "saari"),
    "fool_discard": ("restricted", "free"),
    "first_lead": ("after_dealer", "dealer"),
    "overtrump": (True, False),
    "fool_last_trick": ("kept", "captured"),
    "fool_forfeit": (True, False),
    "ultimo": (False, True, "bagatto_or_fool"),
    "deal": ("three", "four", "piccolo"),
}
"""Every switch and its allowed JSON values, in the order RECORD.md lists them."""

FULL_PACK: frozenset[CardIndex] = frozenset(INDICES)
PICCOLO_PACK: frozenset[CardIndex] = frozenset(
    i for i in INDICES if i < FIRST_SUIT_CARD or RANK[i] in ("K", "Q", "C", "J", "1")
)
"""RULES.md, Deals: the 21 trumps, the Fool, the 16 court cards and the four aces."""


@dataclass(frozen=True)
class DealShape:
    """What a deal fixes (RULES.md, "Deals"): players, cards each, the talon, the pack."""

    players: int
    cards_each: int
    talon: int
    pack: frozenset[CardIndex]


DEALS: dict[str, DealShape] = {
    "three": DealShape(3, 25, 3, FULL_PACK),
    "four": DealShape(4, 19, 2, FULL_PACK),
    "piccolo": DealShape(3, 12, 6, PICCOLO_PACK),
}
"""The ``deal`` switch's values: independent of the reading of the rules."""


PRESET_DESCRIPTIONS: dict[str, str] = {
    "classic": N_("The common practice (Dummett; Gelli; the encyclopedia articles)."),
    "rulesheet": N_('The German/Italian rule sheet ("Spielanleitung" / "Come si gioca").'),
    "saari": N_("The Finnish description (Saari 2008, after Dummett)."),
    "four": N_("The rule sheet's four-player variant: the sheet's rules with the four-player deal."),
    "piccolo": N_("The rule sheet's short teaching game, with the sheet's rules and the piccolo deal."),
}
"""Each preset's one line, as RULES.md words it (the pages translate these strings)."""


@dataclass(frozen=True)
class Ruleset:
    """Everything the engine needs to know about how a hand was played and counted."""

    preset: str
    deal: Deal = "three"
    top_trump: TopTrump = "T20"
    discard: DiscardRule = "classic"
    fool_discard: FoolDiscard = "restricted"
    first_lead: FirstLead = "after_dealer"
    overtrump: bool = False
    fool_last_trick: FoolLastTrick = "kept"
    fool_forfeit: bool = False
    ultimo: Ultimo = False

    @cached_property
    def players(self) -> int:
        return DEALS[self.deal].players

    @cached_property
    def cards_each(self) -> int:
        return DEALS[self.deal].cards_each

    @cached_property
    def talon(self) -> int:
        """Cards the dealer takes up and discards."""
        return DEALS[self.deal].talon

    @cached_property
    def pack(self) -> frozenset[CardIndex]:
        return DEALS[self.deal].pack

    @cached_property
    def tricks(self) -> int:
        """One trick per card in each hand."""
        return self.cards_each

    @cached_property
    def name(self) -> str:
        """How messages name the rules: the preset, with the deal when it is not the preset's own
        (``classic/four``)."""
        if self.deal == PRESETS[self.preset].deal:
            return self.preset
        return f"{self.preset}/{self.deal}"

    @cached_property
    def pack_size(self) -> int:
        return len(self.pack)

    @cached_property
    def pack_mask(self) -> int:
        """The pack as a bit mask over card indices, for fast set checks."""
        mask = 0
        for card in self.pack:
            mask |= 1 << card
        return mask

    @cached_property
    def pack_order(self) -> tuple[CardIndex, ...]:
        return tuple(sorted(self.pack))

    @cached_property
    def deck_total(self) -> Fraction:
        """Value points of the pack less two thirds of a point per card."""
        return Fraction(3 * sum(VALUE[c] for c in self.pack) - 2 * len(self.pack), 3)

    @cached_property
    def base(self) -> Fraction:
        """What a player needs to break even: the deck total shared equally."""
        return self.deck_total / self.players

    @cached_property
    def strength(self) -> tuple[int, ...]:
        """Trick-taking strength of each card within its suit (trumps above every suit card)."""
        table = list(SUIT_STRENGTH)
        for i in range(TRUMPS):
            table[i] = TRUMP_STRENGTH + i
        if self.top_trump == "T20":
            table[ANGEL_INDEX] = TRUMP_STRENGTH + TRUMPS  # above XXI
        table[FOOL_INDEX] = -1
        return tuple(table)

    def switches(self) -> dict[str, Any]:
        """The switch values, as RECORD.md writes them in JSON."""
        return {name: getattr(self, name) for name in SWITCH_VALUES}

    def forbidden_discards(self, held: frozenset[CardIndex]) -> frozenset[CardIndex]:
        """Cards the dealer may not discard, given all they hold after taking the talon (RULES.md:
        "holds", never "keeps")."""
        forbidden = {c for c in held if RANK[c] == "K"} | {ANGEL_INDEX}
        other_trump = any(SUIT[c] == TRUMP and c != BAGATTO_INDEX for c in held)
        fool_restricted = self.fool_discard == "restricted"
        if self.discard == "classic":
            if fool_restricted:
                forbidden.add(FOOL_INDEX)
            if other_trump or FOOL_INDEX in held:  # a held Fool stops it even when it may be discarded
                forbidden.add(BAGATTO_INDEX)
        elif self.discard == "rulesheet":
            forbidden.add(WORLD_INDEX)
            if fool_restricted:
                forbidden.add(FOOL_INDEX)
            if other_trump:
                forbidden.add(BAGATTO_INDEX)
        else:  # saari
            forbidden.add(BAGATTO_INDEX)
            holds_trump = any(SUIT[c] == TRUMP for c in held)
            if fool_restricted and holds_trump:
                forbidden.add(FOOL_INDEX)
        return frozenset(forbidden & held)


_CLASSIC = Ruleset(preset="classic")
_RULESHEET = replace(_CLASSIC, preset="rulesheet", top_trump="T21", discard="rulesheet", overtrump=True,
                     fool_last_trick="captured")

PRESETS: dict[str, Ruleset] = {
    "classic": _CLASSIC,
    "rulesheet": _RULESHEET,
    "saari": replace(_CLASSIC, preset="saari", discard="saari", first_lead="dealer", fool_forfeit=True),
    # the rule sheet's variants: "die Regeln sind ansonsten identisch"
    "four": replace(_RULESHEET, preset="four", deal="four"),
    "piccolo": replace(_RULESHEET, preset="piccolo", deal="piccolo"),
}
"""RULES.md's Presets table."""



def find_ruleset(spec: object = None, where: str = "ruleset") -> Ruleset:
    """The ruleset a record names: a preset name, or an object of switches over one."""
    if spec is None:
        return _CLASSIC
    if isinstance(spec, str):
        return _preset(spec, where)
    if not isinstance(spec, dict):
        raise UnknownRuleset.of("ruleset.kind", where)
    spec = {name: value for name, value in spec.items() if value is not None}  # null is absent (RECORD.md)
    base = _preset(spec.get("preset", "classic"), f"{where}.preset")
    changes: dict[str, Any] = {}
    for name, value in spec.items():
        if name == "preset":
            continue
        if name not in SWITCH_VALUES:
            known = ", ".join(SWITCH_VALUES)
            raise UnknownRuleset.of("ruleset.switch", where, name=repr(name), known=known)
        allowed = SWITCH_VALUES[name]
        if not any(value is choice or (isinstance(value, str) and value == choice) for choice in allowed):
            shown = ", ".join(_json(v) for v in allowed)
            raise UnknownRuleset.of("ruleset.value", f"{where}.{name}", value=_json(value), name=name, shown=shown)
        changes[name] = value
    return _changed(base, tuple(changes.items())) if changes else base


@lru_cache(maxsize=256)
def _changed(base: Ruleset, changes: tuple[tuple[str, Any], ...]) -> Ruleset:
    """``base`` with these switches changed, made once: a ruleset works out its tables (the cards'
    strengths, the pack, the deck total) the first time each is asked for, which cost a record naming
    its switches more than a third of its reading and judging when each record made its own."""
    return replace(base, **dict(changes))


def ruleset_spec(ruleset: Ruleset) -> str | dict[str, Any]:
    """The shortest JSON value naming this ruleset: the preset name, or preset + changes."""
    preset = PRESETS[ruleset.preset]
    changed = {
        f.name: getattr(ruleset, f.name)
        for f in fields(Ruleset)
        if f.name in SWITCH_VALUES and _differs(getattr(ruleset, f.name), getattr(preset, f.name))
    }
    if not changed:
        return ruleset.preset
    return {"preset": ruleset.preset, **changed}


def dealt(spec: object, deal: Deal) -> str | dict[str, Any]:
    """The rules a record names, played with another deal, as the shortest JSON value: a night's
    classic rules at a table of four are ``{"preset": "classic", "deal": "four"}`` (RULES.md, Deals),
    not the rule sheet's four-player preset."""
    return ruleset_spec(replace(find_ruleset(spec), deal=deal))


def _differs(a: object, b: object) -> bool:
    """Switch values differ (``True`` is not ``"bagatto_or_fool"``, nor 1)."""
    return type(a) is not type(b) or a != b


def _preset(name: object, where: str) -> Ruleset:
    if not isinstance(name, str) or name not in PRESETS:
        known = ", ".join(PRESETS)
        raise UnknownRuleset.of("ruleset.preset", where, name=_json(name), known=known)
    return PRESETS[name]


def _json(value: object) -> str:
    """A value as JSON writes it, for messages (``true``, ``"T21"``, ``null``)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
