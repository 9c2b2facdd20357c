"""The ranking of a club night: by total of hand scores, or by placings at the tables.

Each round a player sits at one table (or has the bye). From each table's counted hands
come the player's total for the round and their *place* there (1 for the highest total;
equal totals share the better place, as 1, 1, 3).

*Match points* make places at tables of three and four worth the same on average: at a
table of ``k`` the places run from 2 match points for the first down to 0 for the last,
evenly (2, 1, 0 at three; 2, 4/3, 2/3, 0 at four); players sharing places share their
points evenly. A bye is worth 1 match point, the average of any table, and 0 in total,
the average too, since a table's scores sum to zero: sitting out neither helps nor hurts.

Ranked by ``total`` (the default): the night's total first, then match points, then the
best single round. Ranked by ``placings``: match points first, then the total, then the
best round. Players equal on every key share a place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

Ranking = Literal["total", "placings"]
RANKINGS: tuple[Ranking, ...] = ("total", "placings")
BYE_POINTS = Fraction(1)
TIE_BREAKS: dict[Ranking, tuple[str, ...]] = {
    "total": ("total", "match_points", "best_round"),
    "placings": ("match_points", "total", "best_round"),
}


@dataclass(frozen=True)
class TableResult:
    """One table's round: each player's total over the table's counted hands, in seating order."""

    totals: tuple[tuple[str, Fraction], ...]
    hands: int


@dataclass(frozen=True)
class RoundResult:
    """One round of the night: its tables and who had the bye."""

    tables: tuple[TableResult, ...]
    bye: tuple[str, ...] = ()


@dataclass(frozen=True)
class RankLine:
    """A player's line in the night's ranking."""

    place: int
    name: str
    total: Fraction
    hands: int
    match_points: Fraction
    placings: tuple[int | None, ...]
    """The place at the table in each round played so far (``None`` for a bye)."""
    best_round: Fraction


def places(totals: Sequence[tuple[str, Fraction]]) -> dict[str, int]:
    """Each player's place at a table: 1 for the highest total, equal totals sharing the better."""
    return {name: 1 + sum(1 for _, other in totals if other > total) for name, total in totals}


def match_points(totals: Sequence[tuple[str, Fraction]]) -> dict[str, Fraction]:
    """Match points at one table: 2 for first down to 0 for last, shared by equal totals."""
    size = len(totals)
    if size < 2:
        return {name: BYE_POINTS for name, _ in totals}
    step = Fraction(2, size - 1)
    ladder = [2 - step * i for i in range(size)]
    ranked = sorted(total for _, total in totals)[::-1]
    out = {}
    for name, total in totals:
        first = ranked.index(total)
        tied = ranked.count(total)
        out[name] = sum(ladder[first:first + tied], Fraction(0)) / tied
    return out


def rank(players: Sequence[str], rounds: Sequence[RoundResult], method: Ranking = "total") -> list[RankLine]:
    """The night's ranking after the rounds given (players who have not played yet rank on 0)."""
    total = {p: Fraction(0) for p in players}
    hands = dict.fromkeys(players, 0)
    points = {p: Fraction(0) for p in players}
    placings: dict[str, list[int | None]] = {p: [] for p in players}
    best: dict[str, Fraction | None] = dict.fromkeys(players)
    for round_ in rounds:
        for table in round_.tables:
            at_table = places(table.totals)
            table_points = match_points(table.totals)
            for name, score in table.totals:
                total[name] += score
                hands[name] += table.hands
                points[name] += table_points[name]
                placings[name].append(at_table[name])
                current = best[name]
                best[name] = score if current is None else max(current, score)
        for name in round_.bye:
            points[name] += BYE_POINTS
            placings[name].append(None)

    def key(name: str) -> tuple[Fraction, ...]:
        values = {"total": total[name], "match_points": points[name], "best_round": best[name] or Fraction(0)}
        return tuple(values[k] for k in TIE_BREAKS[method])

    order = sorted(players, key=lambda p: (tuple(-v for v in key(p)), players.index(p)))
    lines: list[RankLine] = []
    for i, name in enumerate(order):
        place = i + 1
        if i and key(order[i - 1]) == key(name):
            place = lines[-1].place
        lines.append(RankLine(place, name, total[name], hands[name], points[name],
                              tuple(placings[name]), best[name] or Fraction(0)))
    return lines
