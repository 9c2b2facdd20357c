"""The sentences problems and read errors are told in, one template per kind, with named parameters.

The core writes them in English; the web layer looks the same template up in its
translation catalogue (``N_`` marks the strings for extraction) and fills in card
and suit names in the page's language and pack. One table, so the English file
output and the translated pages can never say different things.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from .cards import CODES, card_name
from .read_messages import KINDS, N_, READ_TEMPLATES, render_read

__all__ = ["KINDS", "N_", "READ_TEMPLATES", "TEMPLATES", "render", "render_read"]




TEMPLATES: dict[str, str] = {
    "duplicate_card": N_("%(Card)s (%(code)s) appears twice in the record."),
    "card_count.unplayed": N_("%(count)s cards of the pack appear in no trick; only the dealer's %(talon)s "
                              "discards may be missing from the tricks."),
    "card_count.discard_size": N_("The discard has %(count)s cards; the dealer discards exactly %(talon)s."),
    "card_count.missing": N_("%(Card)s (%(code)s) is missing from the record."),
    "card_count.no_pile": N_("%(Card)s (%(code)s) is in no pile."),
    "card_count.not_counting": N_("%(Card)s (%(code)s) is not a counting card; list only Kings, Queens, "
                                  "Cavaliers, Jacks, the Bagatto, the Angel and the Fool."),
    "card_count.sizes_total": N_("The pile sizes add up to %(total)s cards; the pack has %(pack)s."),
    "trick_count.cards": N_("Trick %(trick)s has %(count)s cards; each trick has one card from each of the "
                            "%(players)s players."),
    "trick_count.tricks": N_("The record has %(count)s tricks; a %(preset)s hand has %(tricks)s."),
    "wrong_leader.first": N_("Trick %(trick)s is recorded as led by %(player)s, but %(leader)s must lead it "
                             "(the first lead)."),
    "wrong_leader.winner": N_("Trick %(trick)s is recorded as led by %(player)s, but %(leader)s must lead it "
                              "(the winner of trick %(previous)s)."),
    "points_total": N_("The counted points add up to %(total)s; the %(preset)s pack counts %(deck)s in all. "
                       "Recount the piles."),
    "pile_sizes.dealer": N_("%(name)s's pile has %(size)s cards, fewer than the %(talon)s the dealer "
                            "discarded into it."),
    "pile_sizes.shape": N_("No legal hand leaves piles of these sizes (%(sizes)s): apart from the dealer's "
                           "discards and the Fool's exchange, every pile holds whole tricks of %(players)s cards."),
    "pile_sizes.honours": N_("%(name)s's pile is given %(size)s cards but holds %(count)s counting cards."),
    "illegal_discard.king": N_("%(player)s (dealer) discarded %(card)s: a King may never be discarded."),
    "illegal_discard.angel": N_("%(player)s (dealer) discarded %(card)s: the Angel (XX) may never be "
                                "discarded."),
    "illegal_discard.world": N_("%(player)s (dealer) discarded %(card)s: under these rules the World (XXI) "
                                "may not be discarded."),
    "illegal_discard.fool": N_("%(player)s (dealer) discarded %(card)s: the Fool may not be discarded."),
    "illegal_discard.fool_holding_trump": N_("%(player)s (dealer) discarded %(card)s: the Fool may be "
                                             "discarded only by a dealer who holds no trump at all."),
    "illegal_discard.bagatto_never": N_("%(player)s (dealer) discarded %(card)s: under these rules the Bagatto "
                                        "may never be discarded."),
    "illegal_discard.bagatto_classic": N_("%(player)s (dealer) discarded %(card)s: the Bagatto may be discarded "
                                          "only when the dealer keeps no other trump and not the Fool."),
    "illegal_discard.bagatto_rulesheet": N_("%(player)s (dealer) discarded %(card)s: the Bagatto may be "
                                            "discarded only when the dealer keeps no other trump."),
    "revoke.trump": N_("Trick %(trick)s: %(player)s played %(card)s to a trump lead while holding a trump "
                       "(%(player)s plays %(proof_card)s in trick %(proof_trick)s)."),
    "revoke.suit": N_("Trick %(trick)s: %(player)s played %(card)s to a %(suit)s lead while holding a card of "
                      "%(suit)s (%(player)s plays %(proof_card)s in trick %(proof_trick)s)."),
    "failed_to_trump": N_("Trick %(trick)s: %(player)s had no %(suit)s but played %(card)s instead of a trump "
                          "while holding one (%(player)s plays %(proof_card)s in trick %(proof_trick)s)."),
    "failed_to_overtrump": N_("Trick %(trick)s: %(player)s played %(card)s, lower than the trump already in the "
                              "trick, while holding a higher trump (%(player)s plays %(proof_card)s in trick "
                              "%(proof_trick)s)."),
}


CARD_PARAMS = ("card", "proof_card")
"""Parameters holding a card index: named in the reader's language and pack."""
SUIT_PARAMS = ("suit",)
"""Parameters holding a suit number (1 cups ... 4 swords)."""

ENGLISH_SUITS = {0: "trumps", 1: "Cups", 2: "Coins", 3: "Batons", 4: "Swords"}


def _fraction(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def render(
    key: str,
    params: Mapping[str, Any],
    *,
    translate: Callable[[str], str] = N_,
    name_card: Callable[[int], str] = card_name,
    name_suit: Callable[[int], str] = ENGLISH_SUITS.__getitem__,
    show_number: Callable[[Fraction], str] = _fraction,
) -> str:
    """A problem's sentence: the template (translated) filled with the parameters (named)."""
    values: dict[str, Any] = {}
    for name, value in params.items():
        if name in CARD_PARAMS and isinstance(value, int):
            values[name] = name_card(value)
            if name == "card":
                named = name_card(value)
                values["Card"] = named[:1].upper() + named[1:]
                values["code"] = CODES[value]
        elif name in SUIT_PARAMS and isinstance(value, int):
            values[name] = name_suit(value)
        elif isinstance(value, Fraction):
            values[name] = show_number(value)
        else:
            values[name] = value
    return translate(TEMPLATES[key]) % values



