"""A match in progress: cumulative scores, whose deal is next, whether it is over, who pays."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .numbers import fraction_json
from .records import MatchRecord
from .scoring import HandResult, score_hand
from .settlement import Transfer, settle
from .validation import Problem

STANDINGS_FORMAT = "scarto-standings/1"


@dataclass(frozen=True)
class HandLine:
    """One hand of the match, judged, with the running totals after it."""

    number: int
    result: HandResult
    totals: tuple[Fraction, ...]
    counted: bool = True
    """False for a hand recorded after the match had ended: listed, but it changes nothing."""

    @property
    def dealer(self) -> str:
        return self.result.record.dealer

    @property
    def scores(self) -> dict[str, Fraction]:
        return self.result.scores()

    @property
    def problems(self) -> tuple[Problem, ...]:
        return tuple(self.result.problems)


@dataclass(frozen=True)
class Standings:
    """Everything the table wants to know between deals."""

    match: MatchRecord
    lines: tuple[HandLine, ...]
    totals: tuple[Fraction, ...]
    next_dealer: str
    finished: bool
    settlement: tuple[Transfer, ...]

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

    @property
    def leaders(self) -> list[str]:
        """The players with the highest total (several when tied)."""
        return leaders_of(self.players, self.totals)

    @property
    def hands_to_play(self) -> int | None:
        """Hands left under an ``end: {"hands": N}`` match, else None."""
        return hands_left(self.match, len(self.lines))

    def to_dict(self) -> dict[str, Any]:
        """``scarto-standings/1``, as ``scarto match --json`` prints it."""
        return standings_document(
            self.players, self.totals,
            ((line.number, line.dealer, line.scores, [p.code for p in line.result.problems], line.counted)
             for line in self.lines),
            self.next_dealer, self.finished, self.settlement)


HandSummary = tuple[int, str, Mapping[str, Fraction], list[str], bool]
"""A hand as ``scarto-standings/1`` lists it: number, dealer, scores, problem codes, counted."""


def standings_document(players: tuple[str, ...], totals: tuple[Fraction, ...], hands: Iterable[HandSummary],
                       next_dealer: str, finished: bool, settlement: tuple[Transfer, ...]) -> dict[str, Any]:
    """``scarto-standings/1`` (RECORD.md), from a judged match or from the results stored per hand."""
    return {
        "format": STANDINGS_FORMAT,
        "players": [{"name": p, "total": fraction_json(t)} for p, t in zip(players, totals, strict=True)],
        "hands": [
            {
                "number": number,
                "dealer": dealer,
                "scores": {p: fraction_json(s) for p, s in scores.items()},
                "problems": codes,
                **({} if counted else {"counted": False}),
            }
            for number, dealer, scores, codes, counted in hands
        ],
        "next_dealer": next_dealer,
        "finished": finished,
        "settlement": [t.to_dict() for t in settlement],
    }


def leaders_of(players: tuple[str, ...], totals: tuple[Fraction, ...]) -> list[str]:
    """The players with the highest total (several when tied)."""
    best = max(totals)
    return [p for p, t in zip(players, totals, strict=True) if t == best]


def hands_left(match: MatchRecord, played: int) -> int | None:
    """Hands left under an ``end: {"hands": N}`` match after ``played``, else None."""
    limit = end_hands(match)
    return None if limit is None else max(0, limit - played)


def settlement_of(match: MatchRecord, totals: tuple[Fraction, ...]) -> tuple[Transfer, ...]:
    """Who pays whom for these totals, under the match's settlement and stake."""
    stake = match.stake.per_point if match.stake else None
    return tuple(settle(list(zip(match.players, totals, strict=True)), match.settle, stake))


def end_hands(match: MatchRecord) -> int | None:
    """The number of hands the match lasts, or None for a target score."""
    if match.end is not None and "target" in match.end:
        return None
    if match.end is not None:
        return match.end["hands"]
    return len(match.players)


def next_dealer(players: tuple[str, ...], first_dealer: str, last_dealer: str | None) -> str:
    """The player after the last hand's dealer in seating order; the first dealer to begin."""
    if last_dealer is None:
        return first_dealer
    return players[(players.index(last_dealer) + 1) % len(players)]


@dataclass(frozen=True)
class Running:
    """A match's running state after some hands: the totals, how many hands, whether it is over."""

    totals: tuple[Fraction, ...]
    hands: int = 0
    finished: bool = False

    @classmethod
    def start(cls, match: MatchRecord) -> Running:
        return cls(tuple(Fraction(0) for _ in match.players))


def after_hand(match: MatchRecord, before: Running, scores: Mapping[str, Fraction]) -> Running:
    """The running state after one more hand with these scores (a hand after the end changes
    nothing but the count): the one rule of adding up, for :func:`standings` and the store."""
    totals = before.totals
    if not before.finished:
        totals = tuple(t + scores.get(p, 0) for p, t in zip(match.players, totals, strict=True))
    number = before.hands + 1
    # the match ends with the hand that reaches the target, or with its last hand
    target = match.end.get("target") if match.end else None
    reached = max(totals) >= target if target is not None else number >= (end_hands(match) or 0)
    return Running(totals, number, before.finished or reached)


def standings(match: MatchRecord, results: list[HandResult] | None = None) -> Standings:
    """Judge every hand and add them up; a hand with errors is a deal that scores nothing."""
    players = match.players
    judged = results if results is not None else [score_hand(h) for h in match.hands]
    state = Running.start(match)
    lines = []
    for number, result in enumerate(judged, start=1):
        counted = not state.finished
        state = after_hand(match, state, result.scores())
        lines.append(HandLine(number, result, state.totals, counted=counted))
    totals = state.totals
    finished = state.finished
    last_dealer = lines[-1].dealer if lines else None
    return Standings(
        match=match,
        lines=tuple(lines),
        totals=tuple(totals),
        next_dealer=next_dealer(players, match.first_dealer, last_dealer),
        finished=finished,
        settlement=settlement_of(match, totals),
    )
