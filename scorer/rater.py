"""The maths of one rated match, from ``openskill`` (Weng-Lin, Plackett-Luce): the one module that imports it.

The engine (:mod:`scorer.engine.ratings`) decides what counts, the order, ties and the number shown,
and stays standard library only; this adapter answers its :class:`~scorer.engine.ratings.Model`
with ``openskill``'s ``PlackettLuce``, which rates a match of any number of players from their
finishing order (three at most tables, four at a table of four) and handles ties. It sits between
the engine and everything else (the command line, the storage, the web may import it;
tests/test_layers.py says so).

``openskill`` 6.2 is required: before it, tied players got different ratings by the order they were
entered (openskill.py's issue 166); the engine hands it players in an order of their own beliefs
anyway, and moves tied players alike itself, so no version's tie rule can favour a seat.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version

from openskill.models import PlackettLuce

from .engine.clubs import MatchSummary, Seats
from .engine.ratings import PlayerRating, RatingsCache, Skill, rate

MU = 25.0
SIGMA = MU / 3
BETA = MU / 3
"""Twice openskill's default (``MU / 6``): Scarto's cards make one match a noisy verdict, and the simulated
clubs of bench/bench_ratings.py predict their winners best with this ``beta`` (bench/RESULTS.md)."""
TAU = MU / 300
"""openskill's default: every belief widens a little before each match, so a veteran's rating keeps moving
when their play changes (on the simulated clubs, whose players never change, it costs 0.0001 of log-loss)."""


@dataclass(frozen=True)
class OpenSkill:
    """Plackett-Luce with the given parameters (the defaults above unless a benchmark tries others)."""

    mu: float = MU
    sigma: float = SIGMA
    beta: float = BETA
    tau: float = TAU

    @property
    def method(self) -> str:
        return (f"weng-lin plackett-luce (openskill {_library_version()}): mu {self.mu:g}, "
                f"sigma {self.sigma:.4g}, beta {self.beta:.4g}, tau {self.tau:.4g}")

    def prior(self) -> Skill:
        return Skill(self.mu, self.sigma)

    def update(self, skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
        model = _model(self)
        teams = [[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
        rated = model.rate(teams, ranks=[float(p) for p in places])
        return [Skill(team[0].mu, team[0].sigma) for team in rated]

    def ahead(self, player: Skill, other: Skill) -> float:
        """How likely ``player`` finishes above ``other`` at a table, by the model's own prediction (what the
        player page's head to head expects, beside what happened)."""
        model = _model(self)
        return float(model.predict_win([[model.rating(mu=player.mu, sigma=player.sigma)],
                                        [model.rating(mu=other.mu, sigma=other.sigma)]])[0])


@cache
def _library_version() -> str:
    """openskill's version, read once: its metadata is read from the disk (2.5 ms), and a process runs one."""
    return version("openskill")


_MODELS: dict[OpenSkill, PlackettLuce] = {}


def _model(params: OpenSkill) -> PlackettLuce:
    """The openskill model of these parameters, made once (it holds no state between matches)."""
    model = _MODELS.get(params)
    if model is None:
        model = _MODELS[params] = PlackettLuce(mu=params.mu, sigma=params.sigma, beta=params.beta,
                                               tau=params.tau)
    return model


DEFAULT = OpenSkill()


def club_ratings(summaries: Sequence[MatchSummary], seats: Seats, model: OpenSkill = DEFAULT, *,
                 club: Hashable | None = None) -> dict[object, PlayerRating]:
    """Every player's rating from a club's match summaries (:func:`scorer.engine.ratings.rate`).

    ``club`` names the club's entry in the ratings cache of this process (its last computation, so that
    the next one redoes only the matches from the first that changed); without it, a computation from
    the start. Either way the same figures: the cache is compared with the history, not trusted."""
    if club is None:
        return rate(summaries, seats, model)
    lock, cache = _cache_for(club)
    with lock:  # one request at a time moves a club's cache; other clubs wait on nothing
        return rate(summaries, seats, model, cache)


CACHED_CLUBS = 64
"""The ratings cache keeps the last computation of this many clubs, the least recently rated dropped first."""
_CACHE: OrderedDict[Hashable, tuple[threading.Lock, RatingsCache]] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def _cache_for(club: Hashable) -> tuple[threading.Lock, RatingsCache]:
    with _CACHE_LOCK:
        entry = _CACHE.get(club)
        if entry is None:
            entry = _CACHE[club] = (threading.Lock(), RatingsCache())
            while len(_CACHE) > CACHED_CLUBS:
                _CACHE.popitem(last=False)
        _CACHE.move_to_end(club)
        return entry
