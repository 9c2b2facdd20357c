"""Card names in the game's own words, in every language of the app and for both packs.

A table owns either an Italian-suited Tarocco Piemontese (cups, coins, batons,
swords) or a French-suited Tarot Nouveau (hearts, diamonds, clubs, spades); the
cards on screen should read like the ones in their hands. The same words, and
the usual variants, are accepted as card input (``Cavallo di Coppe``,
``Reiter Kelche``, ``Knight of Hearts``) through :func:`aliases`.
"""

from __future__ import annotations

from functools import cache

from .cards import (
    ANGEL_INDEX,
    BAGATTO_INDEX,
    FIRST_SUIT_CARD,
    FOOL_INDEX,
    INDICES,
    RANK,
    ROMAN,
    SUIT,
    WORLD_INDEX,
    fold,
)
from .cards import TRUMPS as TRUMP_COUNT

LANGUAGE_NAMES: dict[str, str] = {"it": "Italiano", "en": "English", "de": "Deutsch", "fi": "Suomi", "es": "Español"}
"""The languages of the pages, the sheets and the card names, each with its name in itself (what the
menus show), in RECORD.md's order (a match file's ``language``): the one defined list. A language is
added here, with its card names below and its catalogue (``make language L=xx`` says the rest)."""
LANGUAGES: tuple[str, ...] = tuple(LANGUAGE_NAMES)
DEFAULT_LANGUAGE = "en"
PACKS = ("italian", "french")
"""The packs a table may hold (a match file's ``pack``)."""

SUITS: dict[str, dict[str, tuple[str, str, str, str]]] = {
    "it": {"italian": ("Coppe", "Denari", "Bastoni", "Spade"), "french": ("Cuori", "Quadri", "Fiori", "Picche")},
    "en": {"italian": ("Cups", "Coins", "Batons", "Swords"), "french": ("Hearts", "Diamonds", "Clubs", "Spades")},
    "de": {"italian": ("Kelche", "Münzen", "Stäbe", "Schwerter"), "french": ("Herz", "Karo", "Kreuz", "Pik")},
    "fi": {"italian": ("Maljat", "Denarit", "Sauvat", "Miekat"), "french": ("Hertta", "Ruutu", "Risti", "Pata")},
    "es": {"italian": ("Copas", "Oros", "Bastos", "Espadas"),
           "french": ("Corazones", "Diamantes", "Tréboles", "Picas")},
}
"""Suit names in the order cups, coins, batons, swords (hearts, diamonds, clubs, spades)."""

COURTS: dict[str, dict[str, str]] = {
    "it": {"K": "Re", "Q": "Regina", "C": "Cavallo", "J": "Fante", "1": "Asso"},
    "en": {"K": "King", "Q": "Queen", "C": "Cavalier", "J": "Jack", "1": "Ace"},
    "de": {"K": "König", "Q": "Dame", "C": "Reiter", "J": "Bube", "1": "Ass"},
    "fi": {"K": "Kuningas", "Q": "Kuningatar", "C": "Ratsu", "J": "Sotilas", "1": "Ässä"},
    "es": {"K": "Rey", "Q": "Reina", "C": "Caballo", "J": "Sota", "1": "As"},
}

TRUMPS: dict[str, dict[str, str]] = {
    "it": {"fool": "il Matto", "bagatto": "il Bagatto", "angel": "l'Angelo", "world": "il Mondo", "trump": "Tarocco"},
    "en": {"fool": "the Fool", "bagatto": "the Bagatto", "angel": "the Angel", "world": "the World",
           "trump": "Trump"},
    "de": {"fool": "der Narr", "bagatto": "der Bagatto", "angel": "der Engel", "world": "die Welt",
           "trump": "Tarock"},
    "fi": {"fool": "Narri", "bagatto": "Bagatto", "angel": "Enkeli", "world": "Maailma", "trump": "Valtti"},
    "es": {"fool": "el Loco", "bagatto": "el Bagatto", "angel": "el Ángel", "world": "el Mundo",
           "trump": "Triunfo"},
}

SINGULAR_SUITS: dict[str, tuple[str, str, str, str]] = {
    "it": ("Coppa", "Denaro", "Bastone", "Spada"),
    "en": ("Cup", "Coin", "Baton", "Sword"),
    "de": ("Kelch", "Münze", "Stab", "Schwert"),
    "fi": ("Malja", "Denari", "Sauva", "Miekka"),
    "es": ("Copa", "Oro", "Basto", "Espada"),
}
"""Italian-suit names in the singular, as card input often has them ("Kelch-König")."""

FINNISH_GENITIVES = ("Maljojen", "Denarien", "Sauvojen", "Miekkojen")

_SHORT_SUITS = {
    "french": ("♥", "♦", "♣", "♠"),
}
"""French suits have symbols everyone reads; Italian suits keep their Italian initials C D B S."""

_COURT_LETTERS = {
    "it": {"K": "R", "Q": "D", "C": "C", "J": "F"},
    "en": {"K": "K", "Q": "Q", "C": "C", "J": "J"},
    "de": {"K": "K", "Q": "D", "C": "R", "J": "B"},
    "fi": {"K": "K", "Q": "Q", "C": "R", "J": "S"},
    "es": {"K": "R", "Q": "Q", "C": "C", "J": "S"},
}


def _lang(language: str | None) -> str:
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def _pack(pack: str | None) -> str:
    return pack if pack in PACKS else "italian"


def full_name(index: int, language: str | None = "en", pack: str | None = "italian") -> str:
    """A card's name as players of that language say it, e.g. "Cavallo di Coppe", "XV"."""
    lang, kind = _lang(language), _pack(pack)
    words = TRUMPS[lang]
    special: dict[int, str] = {FOOL_INDEX: "fool", BAGATTO_INDEX: "bagatto", ANGEL_INDEX: "angel", WORLD_INDEX: "world"}
    if index == FOOL_INDEX:
        return words["fool"]
    if index in special:  # the named trumps keep their numeral: players call them both ways
        return f"{words[special[index]]} ({ROMAN[index]})"
    if index < TRUMP_COUNT:
        return f"{words['trump']} {ROMAN[index]}"
    rank = RANK[index]
    rank_word = COURTS[lang].get(rank, rank)
    suit_word = SUITS[lang][kind][SUIT[index] - 1]
    if lang == "it":
        return f"{rank_word} di {suit_word}"
    if lang == "en":
        return f"{rank_word} of {suit_word}"
    if lang == "es":
        return f"{rank_word} de {suit_word}"
    if kind == "french" and rank_word.isdigit():
        return f"{suit_word} {rank_word}"
    if lang == "de":
        return f"{suit_word}-{rank_word}" if kind == "french" else f"{rank_word} der {suit_word}"
    if kind == "french":
        return f"{suit_word}{rank_word.lower()}"  # Finnish compounds: herttakuningas
    return f"{FINNISH_GENITIVES[SUIT[index] - 1]} {rank_word.lower()}"


def short_name(index: int, language: str | None = "en", pack: str | None = "italian") -> str:
    """A compact label for a card button: "XV", "R♥" or "C Coppe"-style initials ("CC")."""
    lang, kind = _lang(language), _pack(pack)
    if index == FOOL_INDEX:
        return TRUMPS[lang]["fool"].split()[-1]
    if index < TRUMP_COUNT:
        return ROMAN[index]
    rank = RANK[index]
    letter = _COURT_LETTERS[lang].get(rank, "A" if rank == "1" else rank)
    if kind == "french":
        return letter + _SHORT_SUITS["french"][SUIT[index] - 1]
    return letter + "CDBS"[SUIT[index] - 1]  # the pack's own Italian initials, as in the record codes


@cache
def aliases() -> dict[str, int]:
    """Every card name in every language and pack (with the usual variants) to its index."""
    table: dict[str, int] = {}

    def add(name: str, index: int) -> None:
        table[fold(name)] = index

    extra_courts = {"Donna": "Q", "Knight": "C", "Cavaliere": "C", "Ritter": "C", "Ritari": "C",
                    "Jätkä": "J", "Page": "J", "Valet": "J", "Page Boy": "J", "Bauer": "J", "Unter": "J",
                    "Caballero": "C", "Ober": "C", "Fante": "J", "Asso": "1", "Ace": "1", "As": "1"}
    for lang in LANGUAGES:
        for index in INDICES:
            for kind in PACKS:
                add(full_name(index, lang, kind), index)
        words = TRUMPS[lang]
        for key, index in (("fool", FOOL_INDEX), ("bagatto", BAGATTO_INDEX), ("angel", ANGEL_INDEX),
                           ("world", WORLD_INDEX)):
            add(words[key], index)
            add(words[key].split()[-1].replace("l'", ""), index)
        for n in range(TRUMP_COUNT):
            add(f"{words['trump']} {n + 1}", n)
    for index in INDICES[FIRST_SUIT_CARD:]:
        rank = RANK[index]
        for lang in LANGUAGES:
            rank_words = {COURTS[lang].get(rank, rank)} | {w for w, r in extra_courts.items() if r == rank}
            suit_words = {SUITS[lang][kind][SUIT[index] - 1] for kind in PACKS}
            suit_words.add(SINGULAR_SUITS[lang][SUIT[index] - 1])
            if lang == "fi":
                suit_words.add(FINNISH_GENITIVES[SUIT[index] - 1])
            for suit_word in suit_words:
                for rank_word in rank_words:
                    for form in (f"{rank_word} {suit_word}", f"{suit_word} {rank_word}",
                                 f"{rank_word} di {suit_word}", f"{rank_word} of {suit_word}",
                                 f"{rank_word} de {suit_word}", f"{rank_word} der {suit_word}"):
                        add(form, index)
    for name in ("Angelo", "Engel", "Enkeli", "Ángel"):
        add(name, ANGEL_INDEX)
    for name in ("Matto", "Narr", "Narri", "Loco", "Hullu", "Skus", "Sküs"):
        add(name, FOOL_INDEX)
    for name in ("Mondo", "Welt", "Maailma", "Mundo"):
        add(name, WORLD_INDEX)
    for name in ("Bagatto", "Pagat", "Bagat", "Bagatella", "Magier"):
        add(name, BAGATTO_INDEX)
    return table
