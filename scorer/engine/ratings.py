"""Players' ratings across a club's matches, and the ``scarto-ratings/1`` file.

A rating is a belief about a player's skill: ``mu`` (its mean) and ``sigma`` (its
uncertainty), moved by each counted match the player sits in, oldest first. The maths of
one match (Weng-Lin's Bayesian update, Plackett-Luce for more than two players) is a
:class:`Model` handed in by the caller (:mod:`scorer.rater` wraps ``openskill``), so this
module stays pure; what is decided here is everything a player could call unfair:

- *what counts*: the club's matches with at least one counted hand, the same matches the
  club table counts (:func:`scorer.engine.clubs.club_table`), in date order and, on one
  day, in the order they were stored (:func:`scorer.engine.clubs.ordered`);
- *the result of a match*: each seat's place by its final total (equal totals share the
  better place, as the club's form says); the hands' dealers, seats and order play no part;
- *the order the model sees*: by place, then by the prior belief itself, never by seat,
  name or key, so that two entries the model cannot tell apart can be swapped without
  changing a bit of the outcome;
- *ties*: players sharing a place move their ``mu`` by the same amount, the mean of the
  model's moves for them (the model moves a weaker player tied with a stronger one up more:
  a tie is one result, and the players at the table see one change for it);
- *what is shown*: one whole number on an Elo-like scale from the conservative
  ``mu - K * sigma`` (:func:`shown`), "provisional" under :data:`PROVISIONAL_MATCHES`.

The ratings are always those of a computation from the whole history (a 3,000-hand club: some
200 model calls), so editing, deleting or restoring a hand, renaming or merging players, or
adding an old match later gives exactly what a fresh computation from the club's file gives; a
:class:`RatingsCache` may skip the unchanged beginning of the history, and changes no figure.
docs/RATINGS.md says the same for people.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from .clubs import Key, MatchSummary, Seats, _places, ordered, summarise
from .errors import ReadError
from .records import MatchRecord
from .scoring import HandResult
from .standings import standings

RATINGS_FORMAT = "scarto-ratings/1"
PROVISIONAL_MATCHES = 10
"""A rating is "provisional" until the player has this many counted matches (bench/RESULTS.md: by
then the ratings of simulated players follow their true order with a Spearman correlation of
0.75 to 0.9)."""
SHOWN_K = 2.0
"""The shown number is ``mu - SHOWN_K * sigma``: a player is at least this good with 97.7 %
belief, so one lucky night does not put a newcomer at the top of the table."""
SHOWN_BASE = 1500
SHOWN_PER_BETA = 200
"""Elo's scale: 200 points between two players where the stronger wins about three games in four
(a difference of one ``beta`` in the model's skill)."""
SHOWN_SETTLED = 15.0
"""The conservative skill of an average player whose rating has settled (``mu`` 25, ``sigma`` 5: the
median of simulated players between 30 and 100 matches, bench/RESULTS.md), shown as :data:`SHOWN_BASE`."""
DIGITS = 6
"""``mu`` and ``sigma`` are written with this many decimals in the file."""


@dataclass(frozen=True, order=True)
class Skill:
    """A belief about a player's skill: its mean and its uncertainty (standard deviation)."""

    mu: float
    sigma: float


class Model(Protocol):
    """The maths of one match, outside the engine (``openskill``'s Plackett-Luce)."""

    @property
    def method(self) -> str:
        """The method and its parameters, as the file's ``method`` says them."""

    @property
    def beta(self) -> float:
        """The skill difference at which the stronger player wins about three games in four."""

    def prior(self) -> Skill:
        """A new player's belief."""

    def update(self, skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
        """The beliefs after one match, in the order given: ``places`` from 1 (best), equal
        places for equal totals, sorted; ``skills[i]`` finished at ``places[i]``."""


@dataclass(frozen=True)
class Step:
    """One counted match as a player's rating saw it."""

    match_id: int
    date: str
    place: int
    of: int
    before: Skill
    after: Skill


@dataclass(frozen=True)
class PlayerRating:
    """A player's belief after all their counted matches, and how it got there (oldest first)."""

    key: Key
    skill: Skill
    steps: tuple[Step, ...]
    beta: float
    """The model's ``beta``, which the shown number's scale is in."""

    @property
    def matches(self) -> int:
        return len(self.steps)

    @property
    def rating(self) -> int:
        """The number shown everywhere (:func:`shown`)."""
        return shown(self.skill, self.beta)

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_MATCHES

    def shown_steps(self) -> list[tuple[Step, int, int]]:
        """Each counted match with the number shown before and after it, oldest first: for the player's
        chart, and a night's "before and after" (its first match's before, its last's after)."""
        return [(step, shown(step.before, self.beta), shown(step.after, self.beta)) for step in self.steps]


def shown(skill: Skill, beta: float) -> int:
    """The one number people see: the conservative skill ``mu - K sigma`` on Elo's scale (1500 for an
    average player whose rating has settled; 200 points a ``beta``), whole, and never below 0."""
    value = SHOWN_BASE + SHOWN_PER_BETA * (skill.mu - SHOWN_K * skill.sigma - SHOWN_SETTLED) / beta
    return max(0, math.floor(value + 0.5))


def counted(summaries: Iterable[MatchSummary], seats: Seats) -> list[tuple[MatchSummary, Sequence[Key]]]:
    """The matches a rating counts, oldest first, each with its seats' players: those the club seated
    with at least one counted hand (a table seated but not played yet is no match played)."""
    out = []
    for summary in ordered(summaries):
        keys = seats.get(summary.match_id)
        if keys is not None and summary.hands and len(keys) == len(summary.players):
            out.append((summary, keys))
    return out


Played = tuple[int, str, tuple[Key, ...], tuple[int, ...]]
"""What a rating reads of one counted match: its id, its date, its seats' players and their places."""
CHECKPOINT_EVERY = 16
"""A :class:`RatingsCache` keeps the beliefs after every this many matches (its default)."""


def rate(summaries: Iterable[MatchSummary], seats: Seats, model: Model,
         cache: RatingsCache | None = None) -> dict[Key, PlayerRating]:
    """Every player's rating from the club's counted matches, exactly as a computation from the whole history.

    Costs one model update a counted match (bench/RESULTS.md: a 3,000-hand club); with the ``cache`` of the
    club's last computation, only the matches from the first one whose date, players or places changed
    (or the last checkpoint before it) are rated again: a hand saved in the latest match redoes at most
    :data:`CHECKPOINT_EVERY` matches, and one that moves no place none."""
    played = [(summary.match_id, summary.date, tuple(keys), tuple(_places([f.sum for f in summary.seats])))
              for summary, keys in counted(summaries, seats)]
    cache = cache if cache is not None else RatingsCache()
    start = cache.resume(played, model)
    skills = dict(start.skills)
    steps = cache.steps
    for index in range(start.done, len(played)):
        match_id, date, keys, places = played[index]
        before = [skills.get(key) or model.prior() for key in keys]
        after = match_update(before, places, model)
        for key, place, old, new in zip(keys, places, before, after, strict=True):
            skills[key] = new
            steps.setdefault(key, []).append(Step(match_id, date, place, len(keys), old, new))
        if (index + 1) % cache.every == 0:
            cache.checkpoints.append(Checkpoint(index + 1, dict(skills), {k: len(v) for k, v in steps.items()}))
    cache.played = played
    return {key: PlayerRating(key, skill, tuple(steps[key]), model.beta) for key, skill in skills.items()}


@dataclass(frozen=True)
class Checkpoint:
    """The beliefs after the first ``done`` counted matches, and how many steps each player had then."""

    done: int
    skills: dict[Key, Skill]
    counts: dict[Key, int]


class RatingsCache:
    """A club's last rating, kept (by the caller, one per club) so that the next redoes only what changed.

    What it keeps is compared in full with the new history, never trusted by a key: a cache that is not
    the club's own, or stale, costs a computation from the start and changes no figure."""

    def __init__(self, every: int = CHECKPOINT_EVERY) -> None:
        self.every = every
        """Keep the beliefs after every this many matches."""
        self.model: Model | None = None
        self.played: list[Played] = []
        self.steps: dict[Key, list[Step]] = {}
        self.checkpoints: list[Checkpoint] = [Checkpoint(0, {}, {})]

    def clear(self, model: Model | None = None) -> None:
        """Forget everything (another model's beliefs are no start for this one)."""
        self.model, self.played, self.steps, self.checkpoints = model, [], {}, [Checkpoint(0, {}, {})]

    def resume(self, played: Sequence[Played], model: Model) -> Checkpoint:
        """The last checkpoint before the first match that differs from the last computation's, with the
        players' steps cut back to it."""
        if model != self.model:
            self.clear(model)
        same = 0
        for old, new in zip(self.played, played, strict=False):
            if old != new:
                break
            same += 1
        while self.checkpoints[-1].done > same:
            self.checkpoints.pop()
        start = self.checkpoints[-1]
        for key in list(self.steps):
            kept = start.counts.get(key, 0)
            if kept:
                del self.steps[key][kept:]
            else:
                del self.steps[key]
        return start


def match_update(before: Sequence[Skill], places: Sequence[int], model: Model) -> list[Skill]:
    """The beliefs after one match, seat by seat. The model sees the seats by place, then by belief
    (so neither the seating nor who is who changes anything), and tied players' ``mu`` move alike."""
    order = sorted(range(len(before)), key=lambda seat: (places[seat], before[seat]))
    moved = model.update([before[seat] for seat in order], [places[seat] for seat in order])
    after = dict(zip(order, moved, strict=True))
    for place in set(places):
        tied = [seat for seat in order if places[seat] == place]
        if len(tied) > 1:
            change = math.fsum(after[seat].mu - before[seat].mu for seat in tied) / len(tied)
            for seat in tied:
                after[seat] = Skill(before[seat].mu + change, after[seat].sigma)
    return [after[seat] for seat in range(len(before))]


def file_summaries(matches: Sequence[tuple[MatchRecord, Sequence[Key]]],
                   results: Sequence[Sequence[HandResult]]) -> tuple[list[MatchSummary], dict[int, tuple[Key, ...]]]:
    """The summaries and seats of a club file's matches (each with the roster key of each seat, and its
    hands judged), numbered from 1 in the file's order, which is the order the club stored them.

    A match is dated by its ``date`` (its first ten characters, as the app reads it); one without a
    usable date by the match before it in the file (the file keeps no day it was stored)."""
    summaries, seats = [], {}
    day = ""
    for number, ((match, keys), judged) in enumerate(zip(matches, results, strict=True), start=1):
        day = _day(match.date) or day
        summaries.append(summarise(number, day, standings(match, list(judged))))
        seats[number] = tuple(keys)
    return summaries, seats


def _day(text: str | None) -> str:
    """``YYYY-MM-DD`` from a match's ``date`` when it begins with one, else ""."""
    try:
        return date.fromisoformat(text.strip()[:10]).isoformat() if text else ""
    except ValueError:
        return ""


# --- scarto-ratings/1 --------------------------------------------------------------


@dataclass(frozen=True)
class RatedPlayer:
    """One entry of ``scarto-ratings/1``: a roster player by name and their rating."""

    name: str
    rating: int
    mu: float
    sigma: float
    matches: int

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_MATCHES

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rating": self.rating, "mu": self.mu, "sigma": self.sigma,
                "matches": self.matches, "provisional": self.provisional}


def rated_players(ratings: Mapping[Key, PlayerRating], names: Mapping[Any, str]) -> list[RatedPlayer]:
    """The players with a counted match, by their current roster name, highest shown rating first
    (then the higher ``mu``, the smaller ``sigma``, the name: an order that never depends on a seat)."""
    rows = [RatedPlayer(names[r.key], r.rating, round(r.skill.mu, DIGITS), round(r.skill.sigma, DIGITS), r.matches)
            for r in ratings.values()]
    return sorted(rows, key=lambda p: (-p.rating, -p.mu, p.sigma, p.name.casefold(), p.name))


def ratings_document(players: Iterable[RatedPlayer], method: str) -> dict[str, Any]:
    """``scarto-ratings/1``, as ``scarto ratings --json`` prints it and the club's JSON interface answers."""
    return {"format": RATINGS_FORMAT, "method": method, "players": [p.to_dict() for p in players]}


def parse_ratings(data: object) -> tuple[str, list[RatedPlayer]]:
    """A ``scarto-ratings/1`` value read back: its method and its players (ReadError naming what and
    where otherwise). ``provisional`` is not read: it follows from ``matches``."""
    if not isinstance(data, dict):
        raise ReadError.of("record.not_object", "record", kind=type(data).__name__)
    given = data.get("format", RATINGS_FORMAT)
    if given != RATINGS_FORMAT:
        raise ReadError.of("record.format", "format", given=repr(given), expected=repr(RATINGS_FORMAT))
    method = data.get("method", "")
    if not isinstance(method, str):
        raise ReadError.of("field.not_text", "method", kind=type(method).__name__)
    entries = data.get("players")
    if not isinstance(entries, list):
        raise ReadError.of("players.not_list", "players")
    return method, [_rated_player(entry, f"players[{i}]") for i, entry in enumerate(entries)]


def _rated_player(entry: object, where: str) -> RatedPlayer:
    if not isinstance(entry, dict):
        raise ReadError.of("record.not_object", where, kind=type(entry).__name__)
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ReadError.of("players.empty_name", f"{where}.name")
    numbers = []
    for field in ("rating", "mu", "sigma", "matches"):
        value = entry.get(field)
        whole = field in ("rating", "matches")
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) or (
                not whole and not math.isfinite(value)) or (field in ("sigma", "matches") and value < 0):
            raise ReadError.of("field.not_number", f"{where}.{field}", value=repr(value))
        numbers.append(value)
    rating, mu, sigma, matches = numbers
    return RatedPlayer(name, int(rating), float(mu), float(sigma), int(matches))
