"""Auditing a disputed hand: the replay step by step, and "what if" the table rules otherwise.

Pure core: it replays what :mod:`scorer.engine.validation` already judged and lays it
out the way a table argues about it: what each player still held, who won each
trick and why, where each problem happened and which later trick proves it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from .cards import BATONS, COINS, CUPS, FOOL_INDEX, FOOL_SUIT, SUIT, SWORDS, TRUMP, CardIndex, Seat
from .records import HandRecord
from .rulesets import Ruleset
from .scoring import HandResult, PlayerCount, count, piles_from_replay
from .validation import PlayedTrick, Problem, Replay, Validation, fool_kept

SUIT_ORDER = (TRUMP, FOOL_SUIT, CUPS, COINS, BATONS, SWORDS)
"""How a hand is laid out: trumps, the Fool, then cups, coins, batons, swords."""


@dataclass(frozen=True)
class AuditStep:
    """One trick as the audit shows it."""

    trick: PlayedTrick
    holding: tuple[tuple[CardIndex, ...], ...]
    """Each seat's cards at the start of this trick (what they play from here on), sorted."""
    piles: tuple[tuple[CardIndex, ...], ...]
    """Each seat's captured cards after this trick (the dealer's discard included)."""
    problems: tuple[Problem, ...]
    """Problems committed in this trick."""
    proofs: tuple[Problem, ...]
    """Earlier problems that this trick proves (the player shows the card they held)."""


def sort_hand(cards: list[CardIndex] | tuple[CardIndex, ...], rules: Ruleset) -> tuple[CardIndex, ...]:
    """A hand as a player holds it: by suit (trumps first), highest first."""
    strength = rules.strength
    return tuple(sorted(cards, key=lambda c: (SUIT_ORDER.index(SUIT[c]), -strength[c])))


def steps(record: HandRecord, replay: Replay, problems: tuple[Problem, ...]) -> list[AuditStep]:
    """The replay laid out trick by trick."""
    rules, n = record.ruleset, len(record.players)
    dealer = record.players.index(record.dealer)
    still: list[list[CardIndex]] = [[] for _ in range(n)]
    for trick in replay.tricks:
        for card, seat in zip(trick.cards, trick.seats, strict=True):
            still[seat].append(card)
    piles: list[list[CardIndex]] = [[] for _ in range(n)]
    piles[dealer].extend(replay.discard)
    out = []
    for trick in replay.tricks:
        holding = tuple(sort_hand(cards, rules) for cards in still)
        for card, seat in zip(trick.cards, trick.seats, strict=True):
            still[seat].remove(card)
        kept = trick.fool_seat if trick.fool_seat is not None and fool_kept(trick.number, rules) else None
        for card in trick.cards:
            piles[kept if card == FOOL_INDEX and kept is not None else trick.winner].append(card)
        out.append(AuditStep(
            trick=trick,
            holding=holding,
            piles=tuple(tuple(p) for p in piles),
            problems=tuple(p for p in problems if p.trick == trick.number),
            proofs=tuple(p for p in problems if p.proof_trick == trick.number),
        ))
    return out


def what_if(result: HandResult, awards: dict[int, int]) -> tuple[PlayerCount, ...] | None:
    """The counts if the table awards some tricks to other players (``{trick number: seat}``).

    Play is not replayed: the cards stay as played, only whose pile a trick goes to
    changes (with the Fool's exchange following the new winner).
    """
    changed = _awarded(result, awards)
    if changed is None:
        return None
    return count(result.record, Validation(result.problems, changed)).counts


def ruled_record(result: HandResult, awards: dict[int, int]) -> HandRecord | None:
    """The hand as the table rules it in a "what if", to be kept as a revision of the hand: each
    player's pile with the awarded tricks in it, in the ``captured`` form (RECORD.md).

    Not a full record: a trick's winner follows from its cards, so no list of tricks can say that
    the table gave it to someone else; the piles can, and score as the "what if" does. The Fool
    lies where the form wants it, in its player's pile (a forfeited one too: the sizes say so).
    """
    changed = _awarded(result, awards)
    if changed is None:
        return None
    record = result.record
    piles, exchange, ultimo = piles_from_replay(record, changed)
    if exchange is not None and exchange.forfeit:
        piles[record.players.index(exchange.winner)].remove(FOOL_INDEX)
        piles[record.players.index(exchange.fool_player)].append(FOOL_INDEX)
    return replace(record, tricks=None, discard=None, talon=None, ultimo=ultimo,
                   captured={p: tuple(piles[i]) for i, p in enumerate(record.players)})


def _awarded(result: HandResult, awards: dict[int, int]) -> Replay | None:
    """The replay with the awarded tricks' winners changed, the cards as played."""
    if result.replay is None or result.counts is None:
        return None
    tricks = tuple(
        replace(t, winner=Seat(awards[t.number])) if t.number in awards else t for t in result.replay.tricks
    )
    return Replay(tricks, result.replay.discard, result.replay.complete)


def annulled(result: HandResult) -> dict[str, Fraction]:
    """An annulled hand scores nothing for anyone."""
    return {p: Fraction(0) for p in result.record.players}


def annulled_record(record: HandRecord) -> HandRecord:
    """An annulled hand as a record to keep as its revision: counted points, each player the base (the
    pack's total shared equally), so that everyone scores nothing and nobody wins the ``ultimo``."""
    return replace(record, tricks=None, discard=None, talon=None, captured=None, honours=None, sizes=None,
                   ultimo=None, points=dict.fromkeys(record.players, record.ruleset.base))
