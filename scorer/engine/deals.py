"""Deals made by the app: the same boards from the same seed, on any machine, for duplicate play.

Duplicate Scarto lays the same cards out at every table, so a deal has to be reproducible
from what travels between clubs: a seed and a board number. Python's ``random`` promises the
same stream only for ``random()`` itself (``shuffle`` and ``randrange`` have changed between
versions), so the shuffle here draws from SHA-256 in counter mode, a stream any language can
compute, and its steps are written down in docs/DUPLICATE.md:

- the stream of board ``k`` is SHA-256 of ``"scarto-deals/1|<deal>|<seed>|<k>|<n>"`` (UTF-8)
  for n = 0, 1, 2, ..., each digest read as eight big-endian 32-bit numbers in turn;
- a number below ``m`` is the next number ``x`` of the stream with ``x < 2**32 - 2**32 % m``
  (others are skipped, so that every value is equally likely), taken modulo ``m``;
- the deal's pack in pack order (RECORD.md) is shuffled by Fisher-Yates from the last place
  down: for i = size - 1 .. 1, swap place i with place j, a number below i + 1;
- seat 1 takes the first ``cards_each`` cards of the shuffled pack, seat 2 the next, and so
  on; the talon is what remains. Board k is dealt by seat ((k - 1) mod players) + 1.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .audit import sort_hand
from .cards import CODES, CardIndex
from .errors import ReadError
from .rulesets import DEALS, Ruleset, find_ruleset

FORMAT = "scarto-deals/1"
MAX_BOARDS = 200
"""Boards in one deal set: a long club night plays some 30; 200 keeps a request's work small."""
MAX_SEED = 64
"""Characters of a seed: enough for a date and a club's name, short enough to read aloud."""
_WORD = 4
_WORDS = 2**32


@dataclass(frozen=True)
class Board:
    """One board: what each seat holds, in seat order, and the talon, as dealt (before any discard)."""

    number: int
    dealer: int
    """The seat that deals this board, counted from 1 as the boards' seats are."""
    hands: tuple[tuple[CardIndex, ...], ...]
    """Each seat's cards, sorted as a player sorts them: trumps, the Fool, then the suits."""
    talon: tuple[CardIndex, ...]


def _stream(seed: str, deal: str, board: int) -> Iterator[int]:
    """The board's 32-bit numbers, eight from each digest, the counter counting digests."""
    counter = 0
    while True:
        digest = hashlib.sha256(f"{FORMAT}|{deal}|{seed}|{board}|{counter}".encode()).digest()
        for start in range(0, len(digest), _WORD):
            yield int.from_bytes(digest[start:start + _WORD], "big")
        counter += 1


def _below(stream: Iterator[int], bound: int) -> int:
    """A number from 0 to bound - 1, each as likely as the others (the stream's excess skipped)."""
    limit = _WORDS - _WORDS % bound
    for number in stream:
        if number < limit:
            return number % bound
    raise AssertionError("the stream never ends")  # pragma: no cover


def read_seed(text: object, where: str = "seed") -> str:
    """A seed as given: any one line of text up to ``MAX_SEED`` characters (an integer reads as its digits)."""
    if isinstance(text, int) and not isinstance(text, bool):
        text = str(text)
    if not isinstance(text, str):
        raise ReadError.of("field.not_text", where, kind=type(text).__name__)
    seed = text.strip()
    if not seed:
        raise ReadError.of("seed.empty", where)
    if not seed.isprintable():
        raise ReadError.of("players.control", where, name=repr(seed))
    if len(seed) > MAX_SEED:
        raise ReadError.of("limit.text", where, length=len(seed), limit=MAX_SEED)
    return seed


def _ruleset(deal: str) -> Ruleset:
    """The deal's shape. The rules change nothing of what is dealt; a hand is sorted with XXI above XX,
    in the trumps' own order, whichever of the two the table will play as the top trump."""
    if deal not in DEALS:
        raise ReadError.of("field.choice", "deal", value=repr(deal), allowed=", ".join(DEALS))
    return find_ruleset({"preset": "classic", "deal": deal, "top_trump": "T21"})


def deal_board(seed: str, board: int, deal: str = "three") -> Board:
    """Board ``board`` (from 1) of the deal set ``seed``: the same cards wherever it is dealt."""
    rules = _ruleset(deal)
    if board < 1:
        raise ReadError.of("field.not_whole", "board", value=board)
    pack = list(rules.pack_order)
    stream = _stream(seed, deal, board)
    for i in range(len(pack) - 1, 0, -1):
        j = _below(stream, i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    each = rules.cards_each
    hands = tuple(sort_hand(pack[seat * each:(seat + 1) * each], rules) for seat in range(rules.players))
    talon = sort_hand(pack[rules.players * each:], rules)
    return Board(board, (board - 1) % rules.players + 1, hands, talon)


def deal_set(seed: str, boards: int, deal: str = "three") -> tuple[Board, ...]:
    """Boards 1 to ``boards`` of the set ``seed``."""
    if boards < 1:
        raise ReadError.of("field.not_whole", "boards", value=boards)
    if boards > MAX_BOARDS:
        raise ReadError.of("limit.boards", "boards", count=boards, limit=MAX_BOARDS)
    return tuple(deal_board(seed, number, deal) for number in range(1, boards + 1))


def deals_json(seed: str, deal: str, boards: tuple[Board, ...]) -> dict[str, Any]:
    """The ``scarto-deals/1`` object (docs/DUPLICATE.md): card codes as RECORD.md writes them."""
    return {
        "format": FORMAT, "seed": seed, "deal": deal,
        "boards": [
            {"board": b.number, "dealer": b.dealer,
             "hands": [[CODES[c] for c in hand] for hand in b.hands],
             "talon": [CODES[c] for c in b.talon]}
            for b in boards
        ],
    }
