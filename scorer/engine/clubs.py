"""Players across matches: the statistics of a club, computed from per-hand results.

A club's history is a list of :class:`MatchSummary`: for each match, its seat
names, its date and the counted hands it scored (dealer, each seat's score,
the breaches committed). A summary is made once from a judged match
(:func:`summarise`) and stored, so a club's table never re-judges a hand; the
statistics here are plain sums over the summaries.

Players are identified by a key the caller chooses (a roster id): ``seats``
maps each match to the key of the player in each of its seats, so a renamed
player, or two entries merged into one, keep every past hand without any
match record being rewritten.

Definitions (docs/CLUB.md says the same for people):

- a player's *matches* are the matches they sat in; *hands* the counted hands
  that scored (a hand recorded after the end, or one whose errors kept it from
  being counted, is not a hand played); *total* the sum of their scores in those;
- *wins*: finished matches in which the player's total is the highest (tied
  leaders each count one); *last places* the same with the lowest;
- *deals*: counted, scored hands the player dealt; *breaches*: rule breaches
  (violations) they committed in those hands, by code;
- *best* and *worst hand*: their highest and lowest hand score;
- *head to head*: for each other player, the hands they played together and
  this player's total in them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from math import lcm
from typing import Any

from .numbers import fraction_json
from .standings import Standings
from .validation import VIOLATION

SUMMARY_VERSION = 1
"""Bumped whenever what a summary holds, or how a hand is judged into it, changes: stored
summaries of another version are made again."""

PLAYERS_FORMAT = "scarto-players/1"
FORM_MATCHES = 5
"""Recent form: the player's last this many matches."""


@dataclass(frozen=True)
class HandSummary:
    """One counted, scored hand: its dealer's seat, each seat's score times the match's scale,
    and the breaches committed (seat, code)."""

    dealer: int
    scores: tuple[int, ...]
    breaches: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class SeatFigures:
    """One seat's figures in one match, in the match's scaled integers."""

    sum: int
    deals: int
    best: int | None
    worst: int | None
    breaches: dict[str, int]


@dataclass(frozen=True)
class MatchSummary:
    """What the statistics need of one match. Scores are integers: a hand score is
    ``scores[seat] / scale`` exactly (the lowest common denominator of the match's scores)."""

    match_id: int
    date: str
    players: tuple[str, ...]
    scale: int
    hands: tuple[HandSummary, ...]
    finished: bool
    uncounted: int = 0
    """Hands recorded that are not counted (after the end, or with errors)."""
    version: int = SUMMARY_VERSION

    def totals(self) -> tuple[Fraction, ...]:
        """Each seat's total over the counted hands."""
        return tuple(Fraction(seat.sum, self.scale) for seat in self.seats)

    @cached_property
    def seats(self) -> tuple[SeatFigures, ...]:
        """Each seat's figures in this match, added up once (a summary never changes)."""
        n = len(self.players)
        sums = [0] * n
        deals = [0] * n
        best: list[int | None] = [None] * n
        worst: list[int | None] = [None] * n
        breaches: list[dict[str, int]] = [{} for _ in range(n)]
        for hand in self.hands:
            deals[hand.dealer] += 1
            for seat, score in enumerate(hand.scores):
                sums[seat] += score
                b, w = best[seat], worst[seat]
                if b is None or score > b:
                    best[seat] = score
                if w is None or score < w:
                    worst[seat] = score
            for seat, code in hand.breaches:
                breaches[seat][code] = breaches[seat].get(code, 0) + 1
        return tuple(SeatFigures(sums[i], deals[i], best[i], worst[i], breaches[i]) for i in range(n))

    def to_dict(self) -> dict[str, Any]:
        """A JSON value of the summary (stored beside the match)."""
        return {
            "version": self.version, "match": self.match_id, "date": self.date, "players": list(self.players),
            "scale": self.scale, "finished": self.finished, "uncounted": self.uncounted,
            "hands": [[h.dealer, list(h.scores), [list(b) for b in h.breaches]] for h in self.hands],
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> MatchSummary:
        hands = tuple(HandSummary(int(d), tuple(s), tuple((int(seat), str(code)) for seat, code in b))
                      for d, s, b in data["hands"])
        return MatchSummary(int(data["match"]), str(data["date"]), tuple(data["players"]), int(data["scale"]),
                            hands, bool(data["finished"]), int(data.get("uncounted", 0)),
                            int(data.get("version", 0)))


def summarise(match_id: int, date: str, table: Standings) -> MatchSummary:
    """The summary of a judged match: its counted hands that scored, exactly."""
    players = table.players
    seat = {name: i for i, name in enumerate(players)}
    lines = [line for line in table.lines if line.counted and line.result.scored]
    scores = [line.scores for line in lines]
    scale = lcm(1, *(s.denominator for hand in scores for s in hand.values()))
    hands = []
    for line, by_name in zip(lines, scores, strict=True):
        breaches = tuple((seat[p.player], p.code) for p in line.result.problems
                         if p.severity == VIOLATION and p.player in seat)
        hands.append(HandSummary(seat[line.dealer],
                                 tuple(int(by_name.get(name, 0) * scale) for name in players), breaches))
    return MatchSummary(match_id, date, players, scale, tuple(hands), table.finished,
                        len(table.lines) - len(lines))


# --- statistics ------------------------------------------------------------------

Key = Hashable
Seats = Mapping[int, Sequence[Key]]
"""match id -> the player key of each seat, in seating order."""


@dataclass
class PlayerStats:
    """One player's figures over a set of matches."""

    key: Key
    matches: int = 0
    hands: int = 0
    total: Fraction = Fraction(0)
    wins: int = 0
    last: int = 0
    deals: int = 0
    breaches: dict[str, int] = field(default_factory=dict)
    best: Fraction | None = None
    worst: Fraction | None = None

    @property
    def per_hand(self) -> Fraction:
        """Total over hands (0 with no hands)."""
        return self.total / self.hands if self.hands else Fraction(0)

    @property
    def breach_count(self) -> int:
        return sum(self.breaches.values())

    def to_dict(self, name: str) -> dict[str, Any]:
        """One entry of ``scarto-players/1``."""
        return {"name": name, "matches": self.matches, "hands": self.hands, "total": fraction_json(self.total),
                "per_hand": fraction_json(self.per_hand), "wins": self.wins}


@dataclass(frozen=True)
class MatchLine:
    """One match as a player saw it: their total, their place and the running total after it."""

    match_id: int
    date: str
    total: Fraction
    place: int
    of: int
    finished: bool
    won: bool
    running: Fraction


@dataclass(frozen=True)
class Rival:
    """Head to head with one other player."""

    key: Key
    matches: int
    hands: int
    total: Fraction
    """This player's total in the hands they played together."""


@dataclass(frozen=True)
class PlayerDetail:
    stats: PlayerStats
    history: tuple[MatchLine, ...]
    """The player's matches in date order, oldest first."""
    rivals: tuple[Rival, ...]

    @property
    def form(self) -> tuple[MatchLine, ...]:
        """The last few matches, most recent first."""
        return tuple(reversed(self.history[-FORM_MATCHES:]))

    def running(self) -> list[Fraction]:
        """The running total after each match (for the chart)."""
        return [line.running for line in self.history]


def in_range(summary: MatchSummary, start: str | None, end: str | None) -> bool:
    """Whether the match's date lies in [start, end] (ISO dates; either end open when None)."""
    day = summary.date[:10]
    return (start is None or day >= start) and (end is None or day <= end)


def ordered(summaries: Iterable[MatchSummary]) -> list[MatchSummary]:
    """Oldest first: by date, then by match id (the order they were stored)."""
    return sorted(summaries, key=lambda s: (s.date[:10], s.match_id))


def _places(totals: Sequence[int]) -> list[int]:
    """1 for the highest total; tied totals share the better place. The totals of one match share its
    scale, so its integer sums order the seats as their fractions would, without the fractions' cost."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def club_table(summaries: Iterable[MatchSummary], seats: Seats,
               start: str | None = None, end: str | None = None) -> list[PlayerStats]:
    """Every player's figures over the matches in the date range, ranked by total (ties: per hand)."""
    stats: dict[Key, _Tally] = {}
    for summary in summaries:
        keys = seats.get(summary.match_id)
        if keys is None or not summary.hands or not in_range(summary, start, end):
            continue  # a table seated but not played (yet) is no match played
        _add_match(stats, summary, keys)
    return rank(t.stats() for t in stats.values())


def rank(rows: Iterable[PlayerStats], by: str = "total") -> list[PlayerStats]:
    """Highest first by ``total`` or ``per_hand`` (the other breaks ties, then more hands)."""
    sort: Callable[[PlayerStats], tuple[Fraction, Fraction, int]]
    if by == "per_hand":
        def sort(s: PlayerStats) -> tuple[Fraction, Fraction, int]:
            return (-s.per_hand, -s.total, -s.hands)
    else:
        def sort(s: PlayerStats) -> tuple[Fraction, Fraction, int]:
            return (-s.total, -s.per_hand, -s.hands)
    return sorted(rows, key=sort)


@dataclass
class _Tally:
    """A player's figures while they are added up: sums kept per scale as integers, so adding
    200 matches costs no fraction arithmetic until the end."""

    key: Key
    matches: int = 0
    hands: int = 0
    sums: dict[int, int] = field(default_factory=dict)
    wins: int = 0
    last: int = 0
    deals: int = 0
    breaches: dict[str, int] = field(default_factory=dict)
    best: tuple[int, int] | None = None
    worst: tuple[int, int] | None = None

    def stats(self) -> PlayerStats:
        total = sum((Fraction(v, scale) for scale, v in self.sums.items()), Fraction(0))
        return PlayerStats(self.key, self.matches, self.hands, total, self.wins, self.last, self.deals,
                           self.breaches, None if self.best is None else Fraction(*self.best),
                           None if self.worst is None else Fraction(*self.worst))


def _add_match(stats: dict[Key, _Tally], summary: MatchSummary, keys: Sequence[Key]) -> None:
    figures = summary.seats
    sums = [f.sum for f in figures]
    high, low = max(sums), min(sums)
    counted = len(summary.hands)
    scale = summary.scale
    decided = summary.finished and counted > 0
    for seat, key in enumerate(keys):
        mine = figures[seat]
        row = stats.get(key)
        if row is None:
            row = stats[key] = _Tally(key)
        row.matches += 1
        row.hands += counted
        row.sums[scale] = row.sums.get(scale, 0) + mine.sum
        row.deals += mine.deals
        if decided:
            row.wins += mine.sum == high
            row.last += mine.sum == low
        for code, count in mine.breaches.items():
            row.breaches[code] = row.breaches.get(code, 0) + count
        if mine.best is not None:  # a/s > b/t exactly as a*t > b*s (scales are positive)
            if row.best is None or mine.best * row.best[1] > row.best[0] * scale:
                row.best = (mine.best, scale)
        if mine.worst is not None:
            if row.worst is None or mine.worst * row.worst[1] < row.worst[0] * scale:
                row.worst = (mine.worst, scale)


def player_detail(summaries: Iterable[MatchSummary], seats: Seats, key: Key,
                  start: str | None = None, end: str | None = None) -> PlayerDetail:
    """One player's figures, their matches in order, and head to head with everyone they met."""
    stats: dict[Key, _Tally] = {}
    history: list[MatchLine] = []
    rivals: dict[Key, list[Any]] = {}
    running = Fraction(0)
    for summary in ordered(summaries):
        keys = seats.get(summary.match_id)
        if keys is None or key not in keys or not summary.hands or not in_range(summary, start, end):
            continue  # no counted hand: no place, no total, nothing to show in the form
        seat = list(keys).index(key)
        _add_match(stats, summary, [key if i == seat else ("other", i) for i in range(len(keys))])
        totals = summary.totals()
        mine = totals[seat]
        running += mine
        places = _places([figures.sum for figures in summary.seats])
        won = summary.finished and places[seat] == 1
        history.append(MatchLine(summary.match_id, summary.date, mine, places[seat], len(keys),
                                 summary.finished, won, running))
        for other in keys:
            if other == key:
                continue
            entry = rivals.setdefault(other, [0, 0, Fraction(0)])
            entry[0] += 1
            entry[1] += len(summary.hands)
            entry[2] += mine
    row = stats[key].stats() if key in stats else PlayerStats(key)
    met = sorted((Rival(k, m, h, t) for k, (m, h, t) in rivals.items()), key=lambda r: (-r.hands, -r.total))
    return PlayerDetail(row, tuple(history), tuple(met))


def players_document(rows: Iterable[PlayerStats], names: Mapping[Any, str]) -> dict[str, Any]:
    """``scarto-players/1``: the table's figures, as ``GET players.json`` answers."""
    return {"format": PLAYERS_FORMAT, "players": [row.to_dict(names[row.key]) for row in rows]}
