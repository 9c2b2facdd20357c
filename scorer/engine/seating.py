"""Seating a club night: tables of three (of four where the count asks), rounds, byes.

A night seats everyone present at tables of three; when the count does not divide by
three, one or two tables of four play the ``four`` deal (7 = 3 + 4, 8 = 4 + 4,
10 = 3 + 3 + 4). Five cannot be seated without someone sitting out: a table of four
plays and the fifth player has the round's *bye*, which rotates (whoever has had the
fewest byes sits out next).

Two ways to seat the rounds after the first, which is always drawn at random:

- ``mixed``: players meet as many different opponents as possible. The whole night is
  drawn at once, by a local search that swaps two players of different tables in one
  round while that does not add a repeated meeting, from a random start; it stops at a
  schedule with no repeat, or after a fixed number of steps with the best schedule found.
- ``ranking`` (Swiss): each round seats the ranking so far in order, the leaders together.

At every table the first dealer is the player who has dealt first least often this
night, so nobody always deals first. Everything is drawn from ``random.Random(seed)``:
the same seed, players and rounds give the same night.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal, TypeVar

Seating = Literal["mixed", "ranking"]
SEATINGS: tuple[Seating, ...] = ("mixed", "ranking")
T = TypeVar("T")

MIN_PLAYERS = 3
RESTARTS = 3
"""Searches from fresh random starts, while the best found is above the floor of repeats."""
STEPS_PER_SEAT = 800
"""Swaps one search tries, per player and round: enough to find the known optima up to 30 players."""


class SeatingError(ValueError):
    """A night that cannot be seated (fewer than three players present)."""

    code = "night_players"


@dataclass(frozen=True)
class Table:
    """One table of a round: its players in seating order, the first dealer first."""

    number: int
    players: tuple[str, ...]

    @property
    def deal(self) -> str:
        """The deal the table plays: ``three`` or, at a table of four, ``four``."""
        return "four" if len(self.players) == 4 else "three"


@dataclass(frozen=True)
class Round:
    """One round: its tables, and who sits out (at most one player, with five present)."""

    number: int
    tables: tuple[Table, ...]
    bye: tuple[str, ...] = ()


def table_sizes(count: int) -> tuple[list[int], int]:
    """The sizes of the tables for ``count`` players, and how many sit out each round.

    Tables of three, with as few tables of four as the count needs (one for a remainder
    of one, two for a remainder of two); five seats four and gives one bye.
    """
    if count < MIN_PLAYERS:
        raise SeatingError(f"A night needs at least {MIN_PLAYERS} players; {count} present.")
    if count == 5:
        return [4], 1
    fours = {0: 0, 1: 1, 2: 2}[count % 3]
    threes = (count - 4 * fours) // 3
    return [3] * threes + [4] * fours, 0


def repeats(rounds: Sequence[Sequence[Sequence[str]]]) -> int:
    """How many meetings repeat an earlier one: a pair at one table twice counts one."""
    met: dict[frozenset[str], int] = {}
    for tables in rounds:
        for table in tables:
            for pair in combinations(table, 2):
                key = frozenset(pair)
                met[key] = met.get(key, 0) + 1
    return sum(times - 1 for times in met.values())


def byes_for(players: Sequence[str], rounds: int, rng: random.Random) -> list[tuple[str, ...]]:
    """Who sits out in each round: the byes rotate, nobody twice before everyone once."""
    _sizes, out = table_sizes(len(players))
    if not out:
        return [() for _ in range(rounds)]
    order = list(players)
    rng.shuffle(order)
    return [tuple(order[(r * out + k) % len(order)] for k in range(out)) for r in range(rounds)]


def _split(order: Sequence[T], sizes: Sequence[int]) -> list[list[T]]:
    tables: list[list[T]] = []
    start = 0
    for size in sizes:
        tables.append(list(order[start:start + size]))
        start += size
    return tables


Seats = list[list[int]]
"""One round's tables as players' numbers (their places in the night's list): the search works on
numbers, so each meeting is a list lookup."""


class _Meetings:
    """How often each pair has met (by players' numbers), and the repeats that makes."""

    def __init__(self, n: int) -> None:
        self.count = [[0] * n for _ in range(n)]

    def add(self, table: Sequence[int], step: int) -> None:
        count = self.count
        for a, b in combinations(table, 2):
            count[a][b] += step
            count[b][a] += step

    def total(self) -> int:
        n = len(self.count)
        return sum(max(0, self.count[a][b] - 1) for a in range(n) for b in range(a + 1, n))


def mixed_rounds(players: Sequence[str], byes: Sequence[Sequence[str]], rng: random.Random) -> list[list[list[str]]]:
    """The tables of every round (players unordered), as few repeated meetings as found."""
    sizes, _out = table_sizes(len(players))
    schedule: list[Seats] = []
    meetings = _Meetings(len(players))
    for bye in byes:
        present = [i for i, p in enumerate(players) if p not in bye]
        rng.shuffle(present)
        tables = _split(present, sizes)
        for table in tables:
            meetings.add(table, 1)
        schedule.append(tables)
    if len(schedule) > 1:
        floor = repeats_floor(sizes, len(schedule))
        best, best_total = [[list(t) for t in tables] for tables in schedule], meetings.total()
        for _attempt in range(RESTARTS):
            if best_total <= floor:
                break
            _improve(schedule, meetings, rng)
            if meetings.total() < best_total:
                best, best_total = [[list(t) for t in tables] for tables in schedule], meetings.total()
            for r, tables in enumerate(schedule):  # a fresh start for the next attempt
                for table in tables:
                    meetings.add(table, -1)
                present = [p for table in tables for p in table]
                rng.shuffle(present)
                schedule[r] = _split(present, sizes)
                for table in schedule[r]:
                    meetings.add(table, 1)
        schedule[:] = best
    return [[[players[i] for i in table] for table in tables] for tables in schedule]


def repeats_floor(sizes: Sequence[int], rounds: int) -> int:
    """A number of repeats no schedule can go below: more meetings than there are pairs repeat.

    Each player at a table of ``s`` meets ``s - 1`` others; over the rounds a player can meet
    at most ``n - 1`` different ones, and each meeting past that repeats (counted from both
    sides, so halved). With tables of one size the count per player is exact.
    """
    n = sum(sizes)
    pairs = rounds * sum(s * (s - 1) // 2 for s in sizes)
    by_pairs = max(0, pairs - n * (n - 1) // 2)
    if len(set(sizes)) == 1:
        per_player = max(0, rounds * (sizes[0] - 1) - (n - 1))
        return max(by_pairs, -(-n * per_player // 2))
    return by_pairs


def below(getrandbits: Callable[[int], int], n: int) -> int:
    """A number from 0 to ``n - 1`` drawn as ``random.Random`` draws it for ``randrange(n)``,
    ``choice`` and ``sample`` (whole bits, drawn again past ``n``).

    The search draws about a million numbers for a large night; drawn here they cost a third of
    what the library's calls with their checks cost, and the same seed still seats the same
    night (tests/test_seating.py compares the two).
    """
    if n <= 0:  # as randrange refuses an empty range (getrandbits(0) would loop for ever here)
        raise ValueError(f"no number below {n}")
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def two_of(getrandbits: Callable[[int], int], n: int) -> tuple[int, int]:
    """Two different numbers below ``n``, as ``random.Random.sample(range(n), 2)`` draws them."""
    first = below(getrandbits, n)
    if n <= 21:  # sample's pool: the first drawn place is filled with the last number
        second = below(getrandbits, n - 1)
        return first, (n - 1 if second == first else second)
    second = below(getrandbits, n)  # sample's set: drawn again while it repeats
    while second == first:
        second = below(getrandbits, n)
    return first, second


def _improve(schedule: list[Seats], meetings: _Meetings, rng: random.Random) -> None:
    """Simulated annealing over swaps of two players at different tables of one round.

    A swap that adds no repeat is always made; one that adds ``d`` repeats is made with
    probability ``exp(-d / T)``, the temperature ``T`` cooling from 1 to 0.05 over the
    steps, so the search leaves local minima early and settles late. The best schedule
    seen is kept, and the search stops at a schedule with no repeat.
    """
    best = current = meetings.total()
    best_schedule = [[list(t) for t in tables] for tables in schedule]
    movable = [r for r, tables in enumerate(schedule) if len(tables) > 1]
    if not movable:
        return
    steps = STEPS_PER_SEAT * sum(len(t) for t in schedule[0]) * len(schedule)
    bits, chance, count = rng.getrandbits, rng.random, meetings.count
    for step in range(steps):
        if best == 0:
            break
        tables = schedule[movable[below(bits, len(movable))]]
        t, u = two_of(bits, len(tables))
        at, au = tables[t], tables[u]
        k, m = below(bits, len(at)), below(bits, len(au))
        delta = _swap_delta(count, at, at[k], au, au[m])
        heat = 1.0 - 0.95 * step / steps
        if delta <= 0 or chance() < math.exp(-delta / heat):
            _swap(count, at, k, au, m)
            current += delta
            if current < best:
                best = current
                best_schedule = [[list(tb) for tb in tables_] for tables_ in schedule]
    if current > best:
        for tables in schedule:
            for table in tables:
                meetings.add(table, -1)
        schedule[:] = best_schedule
        for tables in schedule:
            for table in tables:
                meetings.add(table, 1)


def _swap_delta(count: list[list[int]], at: Sequence[int], a: int, au: Sequence[int], b: int) -> int:
    """How the night's repeats change if ``a`` of table ``at`` swaps places with ``b`` of ``au``:
    a pair that has met already repeats once more, one that met twice or more repeats once less."""
    row_a, row_b = count[a], count[b]
    delta = 0
    for q in at:
        if q != a:
            delta += (row_b[q] >= 1) - (row_a[q] >= 2)
    for q in au:
        if q != b:
            delta += (row_a[q] >= 1) - (row_b[q] >= 2)
    return delta


def _swap(count: list[list[int]], at: list[int], k: int, au: list[int], m: int) -> None:
    """Seat ``k`` of table ``at`` and seat ``m`` of ``au`` change places; only their pairs change:
    each leaves the others at its table and meets the others at the table it joins."""
    a, b = at[k], au[m]
    for table, leaving, joining in ((at, a, b), (au, b, a)):
        row_leaving, row_joining = count[leaving], count[joining]
        for q in table:
            if q != leaving:
                row_leaving[q] -= 1
                count[q][leaving] -= 1
                row_joining[q] += 1
                count[q][joining] += 1
    at[k], au[m] = b, a


def ranking_tables(ranked: Sequence[str], bye: Sequence[str] = ()) -> list[list[str]]:
    """Swiss: the ranking so far seated in order, the leaders at table 1."""
    present = [p for p in ranked if p not in bye]
    sizes, _out = table_sizes(len(present) + len(bye))
    return _split(present, sizes)


def seat(tables: Sequence[Sequence[str]], dealt_first: dict[str, int], rng: random.Random) -> list[tuple[str, ...]]:
    """Each table in seating order with its first dealer first; ``dealt_first`` is updated.

    The first dealer is whoever has dealt first least often this night (a draw among
    equals); the others follow in a random order.
    """
    seated = []
    for table in tables:
        players = list(table)
        rng.shuffle(players)
        first = min(players, key=lambda p: dealt_first.get(p, 0))
        dealt_first[first] = dealt_first.get(first, 0) + 1
        players.remove(first)
        seated.append((first, *players))
    return seated


def plan(players: Sequence[str], rounds: int, seed: int, method: Seating,
         rankings: Sequence[Sequence[str]] = ()) -> list[Round]:
    """The rounds that can be seated now: all of them for ``mixed``; for ``ranking``, round 1
    and one more round for each ranking given (the ranking after round k seats round k + 1).
    """
    if len(set(players)) != len(players):
        raise SeatingError("A player is listed twice.")
    table_sizes(len(players))
    byes = byes_for(players, rounds, random.Random(f"{seed}:byes"))
    draw = random.Random(f"{seed}:draw")
    if method == "mixed":
        drawn = mixed_rounds(players, byes, draw)
    else:
        first = [p for p in players if p not in byes[0]]
        draw.shuffle(first)
        drawn = [ranking_tables(first, ())]
        for r, ranked in enumerate(rankings[: rounds - 1], start=1):
            drawn.append(ranking_tables(ranked, byes[r]))
    rng = random.Random(f"{seed}:seats")
    dealt: dict[str, int] = {}
    out = []
    for r, tables in enumerate(drawn):
        seated = seat(tables, dealt, rng)
        out.append(Round(r + 1, tuple(Table(t + 1, players_) for t, players_ in enumerate(seated)), byes[r]))
    return out
