"""The hand review: what each card cost its player, with every hand known (``scarto-analysis/1``).

From a trick on, every play of a full record is weighed by :mod:`.solver`: the player's
guaranteed value before the card (the best they could secure from there) less the value
after it is the points the card **gave up**; the cards that keep the value are the **best**
ones. The **par** of the hand is everyone's guaranteed value at the first analysed trick.
The command line (``scarto analyse``) and, later, the audit page call :func:`analyse` and
write :meth:`Analysis.to_dict`. Standard library only.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .cards import CODES, CardIndex, Seat
from .errors import ReadError
from .numbers import fraction_json
from .records import HandRecord
from .solver import Position, SearchTooLarge, Solver, positions
from .validation import Replay, validate

ANALYSIS_FORMAT = "scarto-analysis/1"
REVIEW_NODES = 450_000
"""The positions one player's review may search (:func:`review`): about 2 s of CPU time at the
about 220,000 positions a second measured on the shared 2-core machine (bench/RESULTS.md, "Solver")."""
REVIEW_TRICKS = {"three": 8, "four": 5, "piccolo": 8}
"""The tricks a hand's review covers, per deal: a fixed start for a page that cannot wait for
:func:`review` to find the earliest trick of its hand. Over 500 simulated hands (bench/RESULTS.md,
"Solver") every player's review within 2 s of CPU covered at least 8 tricks in 98 % of the
three-player and piccolo hands (7 in the rest, which then take a little longer) and at least 5 in
every four-player hand (the median: 10, 7 and 9)."""


@dataclass(frozen=True)
class Play:
    """One card weighed: who played it, what they could secure before and after it."""

    trick: int
    seat: Seat
    card: CardIndex
    before: Fraction
    """The player's guaranteed value before the card: the most any legal card secures."""
    after: Fraction
    """The player's guaranteed value after the card played."""
    best: tuple[CardIndex, ...]
    """The legal cards that secure ``before``, in pack order."""

    @property
    def lost(self) -> Fraction:
        """The points the card gave up (0 for a best card; below 0 only for an illegal card that
        gained the player something: the rules the search keeps, the table did not)."""
        return self.before - self.after


@dataclass(frozen=True)
class Analysis:
    """A hand reviewed from ``from_trick`` on."""

    record: HandRecord
    from_trick: int
    par: tuple[Fraction | None, ...]
    """Each player's guaranteed value at the start of ``from_trick``, in seating order (None for a
    player left out of the analysis)."""
    plays: tuple[Play, ...]
    nodes: int
    """Positions the search visited: the work the analysis took."""

    def given_up(self) -> tuple[Fraction, ...]:
        """Each player's points given up over the analysed plays, in seating order."""
        totals = [Fraction(0)] * len(self.record.players)
        for play in self.plays:
            totals[play.seat] += play.lost
        return tuple(totals)

    def to_dict(self) -> dict[str, Any]:
        """The ``scarto-analysis/1`` object (docs/REVIEW.md): values as RECORD.md writes scores."""
        players = self.record.players
        return {
            "format": ANALYSIS_FORMAT,
            "from_trick": self.from_trick,
            "start": [{"name": name, "value": fraction_json(v)}
                      for name, v in zip(players, self.par, strict=True) if v is not None],
            "plays": [
                {"trick": p.trick, "player": players[p.seat], "card": CODES[p.card], "lost": fraction_json(p.lost),
                 "best": [CODES[c] for c in p.best]}
                for p in self.plays
            ],
            "given_up": [{"name": name, "lost": fraction_json(v)}
                         for name, v, par in zip(players, self.given_up(), self.par, strict=True) if par is not None],
        }


def analysable(record: HandRecord, from_trick: int) -> Replay:
    """The replay of a record the review can weigh; :class:`ReadError` saying why not: not a full
    trick record, a record with errors, a trick the hand does not have."""
    if record.tricks is None:
        raise ReadError.of("analysis.form", "record", found=record.form)
    checked = validate(record)
    if checked.has_errors or checked.replay is None:
        raise ReadError.of("analysis.errors", "record", code=checked.errors[0].code)
    tricks = record.ruleset.tricks
    if not 1 <= from_trick <= tricks:
        raise ReadError.of("analysis.trick", "from_trick", value=from_trick, preset=record.ruleset.name,
                           count=tricks)
    return checked.replay


def analyse(record: HandRecord, from_trick: int, *, seats: tuple[int, ...] | None = None,
            node_limit: int | None = None) -> Analysis:
    """Weigh every play of a full record from trick ``from_trick`` (from 1) on.

    Each play costs one search per distinct legal card (equivalent cards once); the
    solver keeps its tables across the plays. A player's value is theirs alone, so
    ``seats`` (indices into the players) limits the work to some players' par and plays:
    the others' par is then None. ``node_limit`` bounds the whole work
    (:class:`.solver.SearchTooLarge` past it): the earlier the trick, the larger the search.
    """
    replay = analysable(record, from_trick)
    n = len(record.players)
    wanted = range(n) if seats is None else seats
    walk = positions(record, replay)
    first = (from_trick - 1) * n
    solver = Solver(record.ruleset, node_limit=node_limit)
    cards = [(t.number, c) for t in replay.tricks for c in t.cards]
    near: dict[int, Fraction] = {}
    plays = _weigh_back(solver, walk, cards, range(first, len(cards)), wanted, near)
    return Analysis(record, from_trick, _par(solver, walk[first], n, wanted, near), tuple(plays), solver.nodes)


def _weigh_back(solver: Solver, walk: list[Position], cards: list[tuple[int, CardIndex]], indices: range,
                wanted: Collection[int], near: dict[int, Fraction]) -> list[Play]:
    """The plays at ``indices`` of the walk by the ``wanted`` seats, weighed from the last back, in
    the order played. Backwards, each seat's value before their next play is known, and it is a
    close guess of the value after this one: the solver's narrow searches start there (``near``,
    kept up to date), which saves most of their rounds. The values do not depend on the order."""
    out = []
    for index in reversed(indices):
        position = walk[index]
        if position.mover in wanted:
            play = _weigh(solver, position, walk[index + 1], *cards[index], near=near.get(position.mover))
            near[play.seat] = play.before
            out.append(play)
    out.reverse()
    return out


def _par(solver: Solver, position: Position, n: int, wanted: Collection[int],
         near: dict[int, Fraction]) -> tuple[Fraction | None, ...]:
    """Each wanted seat's guaranteed value at ``position`` (None for the others), from the
    value before their first play after it as the guess."""
    return tuple(solver.value(position, seat, near.get(seat)) if seat in wanted else None for seat in range(n))


def reviews(record: HandRecord, *, seats: tuple[int, ...] | None = None,
            solver: Solver | None = None) -> Iterator[Analysis]:
    """The review from the last trick, then from each trick before it, down to the first.

    One solver serves every step and each step adds only its trick's plays and the new par:
    the plays after it were weighed already, and exact values do not change with the trick the
    review starts from. So stopping after any step costs what the review from that trick costs,
    with no wasted attempts. ``solver`` (of the record's ruleset) lets the caller bound the work
    with its ``node_limit`` (:class:`.solver.SearchTooLarge` ends the step under way).
    """
    tricks = record.ruleset.tricks
    replay = analysable(record, tricks)
    n = len(record.players)
    wanted = range(n) if seats is None else seats
    walk = positions(record, replay)
    solver = solver if solver is not None else Solver(record.ruleset)
    cards = [(t.number, c) for t in replay.tricks for c in t.cards]
    plays: list[Play] = []
    near: dict[int, Fraction] = {}
    for trick in range(tricks, 0, -1):
        first = (trick - 1) * n
        plays[:0] = _weigh_back(solver, walk, cards, range(first, first + n), wanted, near)
        yield Analysis(record, trick, _par(solver, walk[first], n, wanted, near), tuple(plays), solver.nodes)


def review(record: HandRecord, *, seats: tuple[int, ...] | None = None, node_limit: int = REVIEW_NODES,
           earliest: int = 1) -> Analysis:
    """The review from the earliest trick (not before ``earliest``) that fits ``node_limit``
    positions a player reviewed: :func:`reviews` stepped back until the next step would search
    more. The last trick is always weighed (a few positions), so a full trick record always has a
    review; how far back it reaches depends on the deal and the cards (bench/RESULTS.md)."""
    players = len(record.players) if seats is None else len(seats)
    solver = Solver(record.ruleset)
    found: Analysis | None = None
    try:
        for step in reviews(record, seats=seats, solver=solver):
            found = step
            if step.from_trick <= earliest:
                break
            solver.node_limit = node_limit * players  # the last trick, a few positions, is always weighed
    except SearchTooLarge:
        pass
    assert found is not None  # the last trick is weighed with no limit
    return found


def _weigh(solver: Solver, position: Position, following: Position, number: int, card: CardIndex, *,
           near: Fraction | None = None) -> Play:
    """One play: the best value and the best cards, and the value of the card played (``near``
    a guess of it)."""
    seat = position.mover
    values = solver.values(position, card, near)
    before = max(v for v in values.values() if v is not None)
    after = values.get(card)
    if after is None:  # a card the rules did not allow: its value all the same
        after = solver.value(following, seat)
    best = tuple(sorted(c for c, v in values.items() if v == before))
    return Play(number, seat, card, before, after, best)
