"""Words the pages show for the core's names: presets, switches, problem codes, read errors.

All through gettext, so the translations (issue 5) have one place to look.
"""

from __future__ import annotations

from typing import Any

from flask import g, has_app_context
from flask_babel import lazy_gettext as _l

from ..engine import rulesets
from ..engine.cardnames import SUITS, full_name, short_name
from ..engine.cards import CODES
from ..engine.errors import ScartoError
from ..engine.messages import render, render_read
from ..engine.numbers import fraction_text
from ..engine.rulesets import PRESETS, SWITCH_VALUES, Ruleset

PRESET_DESCRIPTIONS = {name: _l(text) for name, text in rulesets.PRESET_DESCRIPTIONS.items()}
"""Each preset's one line, RULES.md's words as the engine keeps them, in the page's language."""

PRESET_NAMES = {
    "classic": _l("classic"),
    "rulesheet": _l("rule sheet"),
    "saari": _l("Saari"),
    "four": _l("four players"),
    "piccolo": _l("piccolo"),
}
"""How the pages name each preset (the files keep the preset's own name)."""

SWITCH_LABELS = {
    "top_trump": _l("Highest trump"),
    "discard": _l("Forbidden discards"),
    "fool_discard": _l("Fool in the discard"),
    "first_lead": _l("First lead"),
    "overtrump": _l("Must overtrump"),
    "fool_last_trick": _l("Fool in the last trick"),
    "fool_forfeit": _l("Fool forfeited by a player with no tricks"),
    "ultimo": _l("Bonus for the last trick (ultimo)"),
    "deal": _l("Deal"),
}

SWITCH_ORDER = ("deal", *(name for name in SWITCH_VALUES if name != "deal"))
"""The switches as the pages list them: the deal first, as RULES.md's Presets table has it."""

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
    ("ultimo", True): _l("the Bagatto in the last trick"),
    ("ultimo", "bagatto_or_fool"): _l("the Bagatto or the Fool taken in the last trick"),
    ("deal", "three"): _l("three players: 25 cards each, a 3-card talon"),
    ("deal", "four"): _l("four players: 19 cards each, a 2-card talon"),
    ("deal", "piccolo"): _l("piccolo: three players, 42 cards, 12 each, a 6-card talon"),
}

PROBLEM_LABELS = {
    "duplicate_card": _l("Card twice"),
    "card_count": _l("Cards missing"),
    "trick_count": _l("Wrong number of tricks"),
    "wrong_leader": _l("Wrong leader"),
    "points_total": _l("Points do not add up"),
    "pile_sizes": _l("Impossible pile sizes"),
    "ultimo_claim": _l("Last-trick bonus not possible"),
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
    named = VALUE_LABELS.get((switch, value))  # ultimo's values have words of their own
    if named is not None:
        return named
    if isinstance(value, bool):
        return _l("on") if value else _l("off")
    return value


def switch_rows(ruleset: Ruleset) -> list[tuple[Any, Any, bool]]:
    """(label, value label, differs from the preset) for each switch of a ruleset."""
    preset = PRESETS[ruleset.preset]
    return [
        (SWITCH_LABELS[name], value_label(name, getattr(ruleset, name)),
         repr(getattr(ruleset, name)) != repr(getattr(preset, name)))
        for name in SWITCH_ORDER
    ]


def preset_table() -> list[tuple[Any, list[Any]]]:
    """The full switch table of every preset, one row a switch (RULES.md's Presets table), the deal
    first and what it means after it."""
    rows: list[tuple[Any, list[Any]]] = [
        (SWITCH_LABELS["deal"], [value_label("deal", r.deal) for r in PRESETS.values()]),
        (_l("Players / cards each / talon"),
         [f"{r.players} / {r.cards_each} / {r.talon}" for r in PRESETS.values()]),
        (_l("Cards in the pack"), [str(r.pack_size) for r in PRESETS.values()]),
    ]
    for name in SWITCH_ORDER[1:]:
        rows.append((SWITCH_LABELS[name], [value_label(name, getattr(r, name)) for r in PRESETS.values()]))
    return rows


def current_language() -> str:
    """The page's language code (en, it, de, fi, es)."""
    from flask_babel import get_locale

    locale = get_locale() if has_app_context() else None
    return locale.language if locale is not None else "en"


def current_pack() -> str:
    """The pack of the match on the page (italian or french): set on ``g`` when a match is loaded."""
    return str(g.get("pack") or "italian") if has_app_context() else "italian"


def card_label(index: int) -> str:
    """A card as a short label on screen, in the page's language and the match's pack: XXI, R♥, CB."""
    return short_name(index, current_language(), current_pack())


def card_title(index: int) -> str:
    """A card's full name in the page's language and pack, e.g. "Cavallo di Coppe"."""
    return full_name(index, current_language(), current_pack())


def card_in_sentence(index: int) -> str:
    """A card's name inside a sentence: English wants "the King of Cups"."""
    name = card_title(index)
    if current_language() == "en" and index > 21:
        return f"the {name}"
    return name


SUIT_NAMES = {0: _l("trumps")}


def suit_in_sentence(suit: int) -> str:
    """A suit's name for problem sentences, in the page's language and the match's pack."""
    if suit == 0:
        return str(SUIT_NAMES[0])
    return SUITS[current_language()][current_pack()][suit - 1]


def problem_text(problem: Any) -> str:
    """A problem's sentence in the page's language, card and suit names in the match's pack."""
    from flask_babel import gettext

    if not problem.key:
        return str(problem.message)
    return render(problem.key, problem.params, translate=gettext, name_card=card_in_sentence,
                  card_code=CODES.__getitem__, name_suit=suit_in_sentence, show_number=fraction_text)


WHERE_WORDS = {"record": _l("record"), "file": _l("file"), "text": _l("text")}
"""Places a read error may stand that are not a field of the file: the whole record, the upload,
the pasted text. Fields (``hands[3].points.Anna``) keep the file's own names."""


def read_error_text(exc: ScartoError) -> str:
    """A core error in the page's language, after where it stands: ``hands[0].tricks[0][0]: 'KX' ...``."""
    from flask_babel import gettext

    message = render_read(exc.key, exc.params, translate=gettext) if exc.key else exc.message
    if not exc.where:
        return message
    return f"{WHERE_WORDS.get(exc.where, exc.where)}: {message}"
