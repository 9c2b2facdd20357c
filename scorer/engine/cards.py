"""The Tarocco Piemontese pack: 78 cards, their codes, aliases, suits and values.

A card is a small integer (its place in the pack order of RECORD.md) dressed as
:class:`Card`, so that the engine can index precomputed tables with it while a
person still reads ``Card.parse("CC")`` as the Cavalier of Cups.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import NewType

from .errors import ReadError

CardIndex = NewType("CardIndex", int)
"""A card as the engine handles it: its place in the pack order of RECORD.md, 0 (T1) to 77 (1S);
it indexes the tables below (:class:`Card` dresses one for people)."""
Suit = NewType("Suit", int)
"""A suit number: :data:`TRUMP`, the four suits, and :data:`FOOL_SUIT`."""
Seat = NewType("Seat", int)
"""A player's place in the record's seating order, from 0."""

TRUMP = Suit(0)
CUPS = Suit(1)
COINS = Suit(2)
BATONS = Suit(3)
SWORDS = Suit(4)
FOOL_SUIT = Suit(5)
"""Suit numbers. The Fool has a suit of its own: it follows nothing."""
SUIT_COUNT = 6
"""Suit numbers there are (trumps, the four suits, the Fool's): the size of a per-suit table."""
PLAIN_SUITS = (CUPS, COINS, BATONS, SWORDS)
"""The four suits of 14, in pack order."""

SUIT_LETTERS = {CUPS: "C", COINS: "D", BATONS: "B", SWORDS: "S"}
SUIT_NAMES = {TRUMP: "trumps", CUPS: "Cups", COINS: "Coins", BATONS: "Batons", SWORDS: "Swords"}
ROUND_SUITS = frozenset({CUPS, COINS})
RANKS = ("K", "Q", "C", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1")
RANK_NAMES = {
    "K": "King", "Q": "Queen", "C": "Cavalier", "J": "Jack", "1": "Ace",
    "2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six", "7": "Seven",
    "8": "Eight", "9": "Nine", "10": "Ten",
}
COURT_VALUES = {"K": 5, "Q": 4, "C": 3, "J": 2}

ROMAN = (
    "I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX XXI"
).split()
"""The trumps' numerals, I (the Bagatto) to XXI."""

TRUMPS = 21
"""Trumps in the pack: indices 0 (I) to 20 (XXI)."""
PACK_SIZE = 78
SUIT_SIZE = len(RANKS)

BAGATTO_INDEX = CardIndex(0)
ANGEL_INDEX = CardIndex(19)
WORLD_INDEX = CardIndex(20)
FOOL_INDEX = CardIndex(TRUMPS)
FIRST_SUIT_CARD = TRUMPS + 1
"""Index of the first suit card (the King of Cups): after the trumps and the Fool."""
INDICES: tuple[CardIndex, ...] = tuple(CardIndex(i) for i in range(PACK_SIZE))
"""Every card of the full pack, in pack order."""


def _build_codes() -> tuple[str, ...]:
    codes = [f"T{n}" for n in range(1, TRUMPS + 1)] + ["M"]
    for suit in PLAIN_SUITS:
        codes += [rank + SUIT_LETTERS[suit] for rank in RANKS]
    return tuple(codes)


CODES: tuple[str, ...] = _build_codes()
"""Canonical codes in pack order: T1..T21, M, then cups, coins, batons, swords."""

SUIT: tuple[Suit, ...] = tuple(
    TRUMP if i < TRUMPS else FOOL_SUIT if i == FOOL_INDEX else PLAIN_SUITS[(i - FIRST_SUIT_CARD) // SUIT_SIZE]
    for i in INDICES
)
RANK: tuple[str, ...] = tuple(
    "" if i < FIRST_SUIT_CARD else RANKS[(i - FIRST_SUIT_CARD) % SUIT_SIZE] for i in INDICES
)
VALUE: tuple[int, ...] = tuple(
    5 if i in (BAGATTO_INDEX, ANGEL_INDEX, FOOL_INDEX) else COURT_VALUES.get(RANK[i], 1)
    for i in INDICES
)
"""Counting value of each card: King 5, Queen 4, Cavalier 3, Jack 2, I, XX and Fool 5."""


def _suit_strength(i: int) -> int:
    """Order within a suit, higher wins; round suits rank their pips upside down."""
    rank = RANK[i]
    if rank in COURT_VALUES:
        return 100 + COURT_VALUES[rank]
    pip = int(rank)
    return 11 - pip if SUIT[i] in ROUND_SUITS else pip


SUIT_STRENGTH: tuple[int, ...] = tuple(0 if i < FIRST_SUIT_CARD else _suit_strength(i) for i in INDICES)


class Card(int):
    """One card of the pack, an int from 0 (T1) to 77 (1S) in pack order."""

    __slots__ = ()

    @property
    def code(self) -> str:
        """The canonical code, e.g. ``CC`` or ``T20``."""
        return CODES[self]

    @property
    def suit(self) -> int:
        return SUIT[self]

    @property
    def value(self) -> int:
        return VALUE[self]

    @property
    def is_trump(self) -> bool:
        return SUIT[self] == TRUMP

    @property
    def is_fool(self) -> bool:
        return int(self) == FOOL_INDEX

    @property
    def is_counting(self) -> bool:
        """A card worth more than 1: courts, Bagatto, Angel, Fool (the honours)."""
        return VALUE[self] > 1

    @property
    def name(self) -> str:
        """The English name a player says, e.g. "the Cavalier of Cups"."""
        return card_name(self)

    @classmethod
    def parse(cls, text: str, where: str = "", *, aliases: Mapping[str, int] | None = None) -> Card:
        """Read a code or alias (RECORD.md), case-insensitively; ReadError otherwise.

        ``aliases`` are further names to accept (folded by :func:`fold`), e.g. every
        language's card names: ``Card.parse("Cavallo di Coppe", aliases=cardnames.aliases())``.
        """
        return CARDS[parse_index(text, where, aliases=aliases)]

    def __repr__(self) -> str:
        return f"Card.parse({CODES[self]!r})"

    def __str__(self) -> str:
        return CODES[self]


CARDS: tuple[Card, ...] = tuple(Card(i) for i in INDICES)
FOOL = CARDS[FOOL_INDEX]
BAGATTO = CARDS[BAGATTO_INDEX]
ANGEL = CARDS[ANGEL_INDEX]
WORLD = CARDS[WORLD_INDEX]


def card_name(index: int) -> str:
    """English name of a card, for messages."""
    if index == FOOL_INDEX:
        return "the Fool"
    if index == BAGATTO_INDEX:
        return "the Bagatto"
    if index == ANGEL_INDEX:
        return "the Angel (XX)"
    if index == WORLD_INDEX:
        return "the World (XXI)"
    if index < TRUMPS:
        return f"trump {ROMAN[index]}"
    return f"the {RANK_NAMES[RANK[index]]} of {SUIT_NAMES[SUIT[index]]}"


def _alias_table() -> dict[str, int]:
    table: dict[str, int] = {}
    for i, code in enumerate(CODES):
        table[code] = i
    for n, roman in enumerate(ROMAN):
        table[roman] = n
    for alias in ("BAGATTO", "PAGAT"):
        table[alias] = BAGATTO_INDEX
    for alias in ("ANGELO", "ANGEL"):
        table[alias] = ANGEL_INDEX
    for alias in ("MONDO", "WORLD"):
        table[alias] = WORLD_INDEX
    for alias in ("MATTO", "FOOL", "EXCUSE", "NARR", "0", "T0"):
        table[alias] = FOOL_INDEX
    return table


_ALIASES = _alias_table()
_SYMBOL_SUITS = {"♥": "C", "♦": "D", "♣": "B", "♠": "S", "♡": "C", "♢": "D", "♧": "B", "♤": "S"}
_SUIT_CARD = re.compile(r"^(K|Q|C|J|A|10|[1-9])([CDBS])$")
_INDEX_OF_SUIT_CARD = {
    (rank, letter): FIRST_SUIT_CARD + (suit - CUPS) * SUIT_SIZE + RANKS.index(rank)
    for suit, letter in SUIT_LETTERS.items()
    for rank in RANKS
}


def parse_index(text: object, where: str = "", *, aliases: Mapping[str, int] | None = None) -> CardIndex:
    """Card index for a code or alias; ReadError naming the text and where it stands.

    Without ``aliases`` only RECORD.md's codes and aliases are read, as files must be;
    ``aliases`` (a mapping of :func:`fold`-ed names to indices, such as
    :func:`scorer.engine.cardnames.aliases`) adds the names people type.
    """
    if not isinstance(text, str):
        raise ReadError.of("card.not_text", where, value=repr(text))
    found = _lookup(text, aliases)
    if found is None:
        raise ReadError.of("card.unknown", where, text=repr(text.strip()))
    return INDICES[found]


def _lookup(text: str, aliases: Mapping[str, int] | None = None) -> int | None:
    key = text.replace("\ufe0f", "").strip().upper()
    hit = _ALIASES.get(key)
    if hit is not None:
        return hit
    if key and key[-1] in _SYMBOL_SUITS:
        key = key[:-1] + _SYMBOL_SUITS[key[-1]]
    match = _SUIT_CARD.match(key)
    if not match:
        return aliases.get(fold(key)) if aliases else None
    rank = "1" if match.group(1) == "A" else match.group(1)
    return _INDEX_OF_SUIT_CARD[(rank, match.group(2))]


def fold(text: str) -> str:
    """Upper case, accents, apostrophes and hyphens dropped, spaces folded: "l'Angelo" reads as
    "L ANGELO". How names are compared."""
    decomposed = unicodedata.normalize("NFKD", text.upper().replace("'", " ").replace("-", " "))
    return " ".join("".join(ch for ch in decomposed if not unicodedata.combining(ch)).split())


MAX_NAME_WORDS = 5
"""The longest card name in words ("Re di Coppe" is 3; "Trump XV" 2)."""


def split_cards(text: str, aliases: Mapping[str, int] | None = None) -> list[tuple[str, int | None]]:
    """Cards typed in one line, as the interface reads them: codes, aliases and the names of
    ``aliases`` (see :func:`parse_index`), separated by spaces, commas or semicolons.

    Names have spaces in them ("Cavallo di Coppe"), so the longest run of words that names
    a card wins. A word that starts no card comes back alone with ``None``, for the message.
    """
    out: list[tuple[str, int | None]] = []
    for chunk in re.split(r"[,;\n]+", text or ""):
        words = chunk.split()
        start = 0
        while start < len(words):
            for end in range(min(len(words), start + MAX_NAME_WORDS), start, -1):
                found = _lookup(" ".join(words[start:end]), aliases)
                if found is not None:
                    out.append((" ".join(words[start:end]), found))
                    start = end
                    break
            else:
                out.append((words[start], None))
                start += 1
    return out
