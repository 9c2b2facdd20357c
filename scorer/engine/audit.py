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
from .scoring import HandResult, PlayerCount, count
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
    if result.replay is None or result.counts is None:
        return None
    tricks = tuple(
        replace(t, winner=Seat(awards[t.number])) if t.number in awards else t for t in result.replay.tricks
    )
    changed = Replay(tricks, result.replay.discard, result.replay.complete)
    return count(result.record, Validation(result.problems, changed)).counts


def annulled(result: HandResult) -> dict[str, Fraction]:
    """An annulled hand scores nothing for anyone."""
    return {p: Fraction(0) for p in result.record.players}
