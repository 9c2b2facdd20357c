"""Words the pages show for the core's names: presets, switches, problem codes.

All through gettext, so the translations (issue 5) have one place to look.
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l

from ..rulesets import PRESETS, SWITCH_VALUES, Ruleset

PRESET_DESCRIPTIONS = {
    "classic": _l("Common Piedmontese practice (Dummett, Gelli, the encyclopedias)."),
    "rulesheet": _l("The German/Italian rule sheet that comes with the pack."),
    "saari": _l("The Finnish description (Saari 2008, after Dummett)."),
    "four": _l("Four players: 19 cards each, a 2-card talon."),
    "piccolo": _l("Short teaching game: 42 cards, 12 each, a 6-card talon."),
}

SWITCH_LABELS = {
    "top_trump": _l("Highest trump"),
    "discard": _l("Forbidden discards"),
    "fool_discard": _l("Fool in the discard"),
    "first_lead": _l("First lead"),
    "overtrump": _l("Must overtrump"),
    "fool_last_trick": _l("Fool in the last trick"),
    "fool_forfeit": _l("Fool forfeited by a player with no tricks"),
    "ultimo": _l("Bonus for the Bagatto in the last trick"),
}

VALUE_LABELS: dict[tuple[str, Any], Any] = {
    ("top_trump", "T20"): _l("XX, the Angel"),
    ("top_trump", "T21"): _l("XXI, the World"),
    ("discard", "classic"): _l("classic: no King, XX or Fool"),
    ("discard", "rulesheet"): _l("rule sheet: no King, XX, XXI or Fool"),
    ("discard", "saari"): _l("Saari: no King, I, XX; Fool only without trumps"),
    ("fool_discard", "restricted"): _l("restricted"),
    ("fool_discard", "free"): _l("free"),
    ("first_lead", "after_dealer"): _l("the player after the dealer"),
    ("first_lead", "dealer"): _l("the dealer"),
    ("fool_last_trick", "kept"): _l("kept by its player"),
    ("fool_last_trick", "captured"): _l("captured by the winner"),
}

PROBLEM_LABELS = {
    "duplicate_card": _l("Card twice"),
    "card_count": _l("Cards missing"),
    "trick_count": _l("Wrong number of tricks"),
    "wrong_leader": _l("Wrong leader"),
    "points_total": _l("Points do not add up"),
    "pile_sizes": _l("Impossible pile sizes"),
    "illegal_discard": _l("Forbidden discard"),
    "revoke": _l("Revoke"),
    "failed_to_trump": _l("Failed to trump"),
    "failed_to_overtrump": _l("Failed to overtrump"),
}

SETTLE_LABELS = {
    "per_point": _l("Per point: those below zero pay those above"),
    "loser_pays": _l("Loser pays: the lowest pays each other player one stake"),
}


def value_label(switch: str, value: Any) -> Any:
    """The words for one switch value ("on"/"off" for the yes/no switches)."""
    if isinstance(value, bool):
        return _l("on") if value else _l("off")
    return VALUE_LABELS.get((switch, value), value)


def switch_rows(ruleset: Ruleset) -> list[tuple[Any, Any, bool]]:
    """(label, value label, differs from the preset) for each switch of a ruleset."""
    preset = PRESETS[ruleset.preset]
    return [
        (SWITCH_LABELS[name], value_label(name, getattr(ruleset, name)),
         getattr(ruleset, name) != getattr(preset, name))
        for name in SWITCH_VALUES
    ]


def preset_table() -> list[tuple[Any, list[Any]]]:
    """The full switch table of every preset, one row a switch (RULES.md's Presets table)."""
    rows: list[tuple[Any, list[Any]]] = [
        (_l("Players / cards each / talon"),
         [f"{r.players} / {r.cards_each} / {r.talon}" for r in PRESETS.values()]),
        (_l("Cards in the pack"), [str(r.pack_size) for r in PRESETS.values()]),
    ]
    for name in SWITCH_VALUES:
        rows.append((SWITCH_LABELS[name], [value_label(name, getattr(r, name)) for r in PRESETS.values()]))
    return rows


_SUIT_GLYPHS = {1: "♥", 2: "♦", 3: "♣", 4: "♠"}
_ROMAN = "I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX XXI".split()


def card_label(index: int) -> str:
    """A card as a short label on screen: XXI, K♣, 10♥; the Fool as its name."""
    from ..cards import FOOL_INDEX, RANK, SUIT

    if index == FOOL_INDEX:
        return str(_l("Fool"))
    if index < 21:
        return _ROMAN[index]
    return f"{RANK[index]}{_SUIT_GLYPHS[SUIT[index]]}"


def card_title(index: int) -> str:
    """A card's full name, for a tooltip or a screen reader."""
    from ..cards import card_name

    return card_name(index)
