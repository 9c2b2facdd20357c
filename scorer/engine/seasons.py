"""A season's ranking: by the total, or by each player's best N matches or nights, as championships rank.

A club's table ranks by total points, which rewards whoever played most. Skat's leagues and the
Sicilian tarot championship rank a season on each player's best N performances instead: a player
who missed a few evenings is not out of it, and one bad night is forgotten. A season says which
(:class:`SeasonRule`); this module is the one place the rule is read, written and applied.

- a *match's result* is the player's total in it, as the club table counts it (its counted hands);
- a *night's result* is the player's total over the matches they played that day: a club night's
  tables are one night, as are any matches of the club dated the same day;
- the *score* under "best N" is the sum of the player's N highest results; a player with fewer
  than N results counts all they have (the table says so). Equal results straddling the N-th
  place: the earlier counts (the score is the same either way).

Players are ranked by score, then by their total over the season, per hand, and more hands;
players equal on the score share a place.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from .clubs import Key, MatchSummary, PlayerStats, Seats, club_table, in_range, ordered, rank
from .errors import ReadError
from .limits import MAX_BEST_RESULTS
from .numbers import fraction_json

Counts = Literal["all", "matches", "nights"]
COUNTS: tuple[Counts, ...] = ("all", "matches", "nights")
"""What a season ranks by: the total of all its matches (as every table did before a season had a
rule), or each player's best N matches, or best N nights."""


@dataclass(frozen=True)
class SeasonRule:
    """How a season's table ranks: ``counts`` "all" (``best`` None), or the ``best`` N matches or nights."""

    counts: Counts = "all"
    best: int | None = None

    def __post_init__(self) -> None:
        # a rule is made from a form or a file, both read by read_rule: a wrong one here is a bug
        assert (self.counts == "all") == (self.best is None), self
        assert self.best is None or 1 <= self.best <= MAX_BEST_RESULTS, self

    @property
    def by_best(self) -> bool:
        return self.best is not None

    def to_value(self) -> dict[str, Any] | None:
        """The ``ranking`` of a season in ``scarto-club/1`` (None for the total: the key is left out)."""
        return None if self.best is None else {"best": self.best, "of": self.counts}


ALL = SeasonRule()


def read_rule(value: object, where: str = "ranking") -> SeasonRule:
    """A season's ``ranking`` as a club file writes it (absent: by the total); ReadError otherwise."""
    if value is None:
        return ALL
    best = value.get("best") if isinstance(value, dict) else None
    counts = value.get("of") if isinstance(value, dict) else None
    if (not isinstance(value, dict) or set(value) != {"best", "of"} or counts not in ("matches", "nights")
            or not isinstance(best, int) or isinstance(best, bool) or not 1 <= best <= MAX_BEST_RESULTS):
        raise ReadError.of("season.ranking", where, most=MAX_BEST_RESULTS)
    return SeasonRule("matches" if counts == "matches" else "nights", best)


def rule_from_columns(counts: str | None, best: int | None) -> SeasonRule:
    """A rule as the database keeps it (two columns); anything else there is the total."""
    if counts in ("matches", "nights") and best is not None and 1 <= best <= MAX_BEST_RESULTS:
        return SeasonRule("matches" if counts == "matches" else "nights", best)
    return ALL


def best_of(results: Sequence[Fraction], n: int) -> tuple[Fraction, tuple[bool, ...]]:
    """The sum of the ``n`` highest results and, for each result, whether it counted. All of them when
    there are ``n`` or fewer; of equal results at the edge, the earlier counts."""
    chosen = heapq.nlargest(max(n, 0), range(len(results)), key=results.__getitem__)  # stable: earlier first
    counted = set(chosen)
    return sum((results[i] for i in chosen), Fraction(0)), tuple(i in counted for i in range(len(results)))


@dataclass(frozen=True)
class Result:
    """One match or night of a player's season: its day and their total in it."""

    day: str
    points: Fraction
    counted: bool


@dataclass(frozen=True)
class SeasonLine:
    """A player's line in a season's table: their figures, their score under the rule, their results."""

    stats: PlayerStats
    score: Fraction
    """The total under "all"; the sum of the counted results under "best N"."""
    results: tuple[Result, ...] = ()
    """Oldest first (only under "best N")."""

    @property
    def key(self) -> Key:
        return self.stats.key

    @property
    def counted(self) -> int:
        return sum(1 for r in self.results if r.counted)


def player_results(summaries: Iterable[MatchSummary], seats: Seats, counts: Counts, start: str | None = None,
                   end: str | None = None) -> dict[Key, list[tuple[str, Fraction]]]:
    """Each player's results in date order: (day, total) per match, or per day of play for "nights"."""
    out: dict[Key, list[tuple[str, Fraction]]] = {}
    for summary in ordered(summaries):
        keys = seats.get(summary.match_id)
        if keys is None or not summary.hands or not in_range(summary, start, end):
            continue  # the club table's own rule: a match with no counted hand is no match played
        day = summary.date[:10]
        for key, total in zip(keys, summary.totals(), strict=True):
            mine = out.setdefault(key, [])
            if counts == "nights" and mine and mine[-1][0] == day:
                mine[-1] = (day, mine[-1][1] + total)
            else:
                mine.append((day, total))
    return out


def season_table(summaries: Sequence[MatchSummary], seats: Seats, rule: SeasonRule = ALL, start: str | None = None,
                 end: str | None = None) -> list[SeasonLine]:
    """Every player of the range with their score under the rule, ranked by it (see the module)."""
    stats = club_table(summaries, seats, start, end)
    if rule.best is None:
        return [SeasonLine(row, row.total) for row in stats]
    results = player_results(summaries, seats, rule.counts, start, end)
    lines = []
    for row in stats:
        mine = results.get(row.key, [])
        score, counted = best_of([points for _day, points in mine], rule.best)
        lines.append(SeasonLine(row, score, tuple(Result(day, points, c)
                                                  for (day, points), c in zip(mine, counted, strict=True))))
    return rank_lines(lines)


def rank_lines(lines: Iterable[SeasonLine], by: str = "score") -> list[SeasonLine]:
    """By ``score`` (then total, per hand, more hands) or by ``per_hand`` (as :func:`clubs.rank`)."""
    lines = list(lines)
    if by == "per_hand":
        order = {id(row): i for i, row in enumerate(rank((line.stats for line in lines), "per_hand"))}
        return sorted(lines, key=lambda line: order[id(line.stats)])
    return sorted(lines, key=lambda line: (-line.score, -line.stats.total, -line.stats.per_hand, -line.stats.hands))


def places(lines: Sequence[SeasonLine], by: str = "score") -> list[int]:
    """Each line's place: equal scores share the better place (under the score's ranking)."""
    out: list[int] = []
    for i, line in enumerate(lines):
        same = by == "score" and i > 0 and line.score == lines[i - 1].score
        out.append(out[-1] if same else i + 1)
    return out


def season_document(players: dict[str, Any], lines: Sequence[SeasonLine], name: str, start: str, end: str,
                    rule: SeasonRule) -> dict[str, Any]:
    """``scarto-players/1`` of a season (its rows in the season's order): the season named, with its
    ``ranking`` when it is "best N", and then each player's ``score`` and the results ``counted`` of
    their ``results``."""
    out = dict(players)
    season: dict[str, Any] = {"name": name, "from": start, "to": end}
    if rule.best is not None:
        season["ranking"] = rule.to_value()
        out["players"] = [{**entry, "score": fraction_json(line.score), "counted": line.counted,
                           "results": len(line.results)} for entry, line in zip(players["players"], lines, strict=True)]
    return {"format": out.pop("format"), "season": season, **out}
