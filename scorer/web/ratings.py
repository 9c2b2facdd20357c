"""Ratings where people look: the club's ratings table, a player's rating, chart, best and worst night
and head to head, a night's before and after, the season table's column.

Every figure comes from :func:`scorer.rater.club_ratings` with the club's cache (about a millisecond a
page), so a page shows the same number as the file and the API (docs/RATINGS.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flask_babel import format_decimal
from flask_babel import gettext as _

from .. import rater
from ..engine.clubs import MatchSummary
from ..engine.ratings import PlayerRating, Step, rated_players, shown
from ..sheets.charts import cumulative_chart
from ..storage import clubs as club_store
from ..storage import nights as night_store
from .db import get_db

Ratings = Mapping[Any, PlayerRating]


def club_ratings(club: club_store.ClubRow, summaries: Sequence[MatchSummary],
                 seats: Mapping[int, tuple[int, ...]]) -> dict[Any, PlayerRating]:
    """Every roster player's rating; the cache is the one the club's JSON interface uses (its view token)."""
    return rater.club_ratings(summaries, seats, club=club.view_token)


@dataclass(frozen=True)
class RatingRow:
    """A line of the club's ratings table."""

    place: int
    key: Any
    rating: PlayerRating


def rating_rows(ratings: Ratings, names: Mapping[Any, str]) -> list[RatingRow]:
    """The players with a counted match in the file's order (highest rating first); equal ratings share a
    place, as equal totals do in the points table."""
    by_name = {names[r.key]: r for r in ratings.values()}
    rows: list[RatingRow] = []
    for i, entry in enumerate(rated_players(ratings, names)):
        rating = by_name[entry.name]
        same = rows and rows[-1].rating.rating == rating.rating
        rows.append(RatingRow(rows[-1].place if same else i + 1, rating.key, rating))
    return rows


def rating_chart(rating: PlayerRating, name: str) -> str:
    """The shown rating after each of the player's matches (the last 200), from the one before the first."""
    steps = rating.shown_steps()[-200:]
    return cumulative_chart([name], [[after] for _step, _before, after in steps], start=steps[0][1],
                            title=_("Rating, match by match"), x_title=_("Matches"))


@dataclass(frozen=True)
class NightChange:
    """A player's rating before a night's first match and after its last."""

    key: Any
    title: str
    token: str
    before: int
    after: int

    @property
    def change(self) -> int:
        return self.after - self.before

    @property
    def change_text(self) -> str:
        """The change with its sign, +12 or -7 (0 for none)."""
        return f"{self.change:+d}" if self.change else "0"


def _change(rating: PlayerRating, steps: Sequence[Step]) -> tuple[int, int]:
    return shown(steps[0].before, rating.beta), shown(steps[-1].after, rating.beta)


def player_nights(rating: PlayerRating, can_edit: bool) -> list[NightChange]:
    """Each club night the player played, with their rating before and after it, oldest first."""
    nights = night_store.nights_of_matches(get_db(), [step.match_id for step in rating.steps])
    grouped: dict[int, list[Step]] = {}
    for step in rating.steps:
        if step.match_id in nights:
            grouped.setdefault(nights[step.match_id].id, []).append(step)
    out = []
    for steps in grouped.values():
        night = nights[steps[0].match_id]
        before, after = _change(rating, steps)
        out.append(NightChange(rating.key, night.title, night.edit_token if can_edit else night.view_token,
                               before, after))
    return out


def best_and_worst(nights: Sequence[NightChange]) -> tuple[NightChange, NightChange] | None:
    """The night the rating rose most and the one it fell most (the first such, on equal changes)."""
    if not nights:
        return None
    return max(nights, key=lambda n: n.change), min(nights, key=lambda n: n.change)


@dataclass(frozen=True)
class Expectation:
    """Against one rival: the matches shared, how often the player was expected to finish above them (the
    sum of each match's chance, from both ratings before it) and how often they did (a tie counts half)."""

    matches: int
    expected: float
    actual: float

    @property
    def text(self) -> str:
        """"actual / expected" in the page's language, to one decimal where there is one (4 / 3,4)."""
        return f"{format_decimal(self.actual, format='0.#')} / {format_decimal(self.expected, format='0.0')}"


def head_to_head(ratings: Ratings, key: Any, start: str | None = None,
                 end: str | None = None) -> dict[Any, Expectation]:
    """Expected against actual, per rival, over the counted matches shared in the season (or all time)."""
    mine = ratings.get(key)
    if mine is None:
        return {}
    steps = {s.match_id: s for s in mine.steps if (start is None or s.date >= start) and (end is None or s.date <= end)}
    out: dict[Any, Expectation] = {}
    for other in ratings.values():
        if other.key == key:
            continue
        shared = [(steps[s.match_id], s) for s in other.steps if s.match_id in steps]
        if shared:
            expected = sum(rater.DEFAULT.ahead(a.before, b.before) for a, b in shared)
            actual = sum(1.0 if a.place < b.place else 0.5 if a.place == b.place else 0.0 for a, b in shared)
            out[other.key] = Expectation(len(shared), expected, actual)
    return out


def rating_at(rating: PlayerRating | None, end: str | None) -> int | None:
    """The shown rating after the player's last match up to ``end`` (a season's last day), or now."""
    if rating is None:
        return None
    steps = [s for s in rating.steps if end is None or s.date <= end]
    return shown(steps[-1].after, rating.beta) if steps else None


@dataclass(frozen=True)
class NightLine:
    """A line of a night's ratings: a player's rating before the night's first match and after its last."""

    name: str
    before: int
    after: int

    @property
    def change_text(self) -> str:
        change = self.after - self.before
        return f"{change:+d}" if change else "0"


def night_ratings(club: club_store.ClubRow, state: night_store.NightState) -> list[NightLine]:
    """Each player of the night with a counted match in it, in the night's ranking order (then by name)."""
    db = get_db()
    played = {t.match.id for round_ in state.rounds for t in round_}
    ratings = club_ratings(club, club_store.summaries(db, club.id), club_store.seats(db, club.id))
    names: dict[Any, str] = {p.id: p.name for p in club_store.roster(db, club.id, merged=True)}
    order = {line.name: i for i, line in enumerate(state.ranking)}
    lines = []
    for rating in ratings.values():
        steps = [s for s in rating.steps if s.match_id in played]
        if steps:
            lines.append(NightLine(names.get(rating.key, "?"), *_change(rating, steps)))
    return sorted(lines, key=lambda line: (order.get(line.name, len(order)), line.name))
