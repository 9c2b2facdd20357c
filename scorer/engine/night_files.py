"""``scarto-night/1`` (docs/NIGHT.md): a club night asked for, read without a database.

A night is created from this value (over JSON, or from the director's form, which writes one):
the players present, the rounds, hands per round, how seats are drawn and the night ranked, the
seed and the rules. :func:`parse_night` reads it into a :class:`NightSpec`, the storage layer
stores what it read and seats the rounds (:mod:`.seating`), and :func:`night_document` writes the
night back as ``night.json`` answers it. Names and dates are read as in a club's file
(:mod:`.club_files`), so a night's players are the roster's.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from . import duplicate as dup
from . import nights as ranking
from . import seating
from .club_files import clean_name, read_date, read_head
from .deals import MAX_BOARDS, read_seed
from .errors import ReadError
from .numbers import fraction_json
from .rulesets import find_ruleset

NIGHT_FORMAT = "scarto-night/1"
MAX_ROUNDS = 10
MAX_HANDS = 30
MAX_PLAYERS = 60


@dataclass(frozen=True)
class NightSpec:
    """A ``scarto-night/1`` value read and checked."""

    title: str
    date: str
    players: list[str]
    rounds: int
    hands_per_round: int | None
    seating: seating.Seating
    ranking: ranking.Ranking
    seed: int
    ruleset: Any = None
    duplicate: DuplicatePlan | None = None


@dataclass(frozen=True)
class DuplicatePlan:
    """A night played as a duplicate session: the deal set every table plays and how it is scored.

    Round r plays boards (r - 1) x ``boards`` + 1 to r x ``boards`` of the set, every table of three the
    night's deal, every table of four the ``four`` deal's boards of the same seed; so nobody plays a board
    twice, whatever the seating, and the seats still rotate as the night draws them."""

    seed: str
    boards: int
    """Boards a round: every table plays them, one a hand."""
    scoring: dup.Scoring = "matchpoints"

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "boards_per_round": self.boards, "scoring": self.scoring}


def _whole(value: object, high: int) -> bool:
    """Whether a value is a whole number from 1 to ``high`` (``null``, true or 2.0 are not)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= high


def parse_night(data: object, club_defaults: Mapping[str, Any] | None = None, club_name: str = "") -> NightSpec:
    """A ``scarto-night/1`` body to a NightSpec; ReadError naming what and where otherwise.
    ``club_defaults``: the club's defaults for new matches, whose rules a night without its own plays;
    ``club_name`` makes a duplicate night's default seed, with the date."""
    value = read_head(data, NIGHT_FORMAT)
    title = clean_name(value.get("title", "Club night"), "title", player=False)
    raw_date = value.get("date")
    day = datetime.now(UTC).date().isoformat() if raw_date is None else read_date(raw_date, "date")
    players = _players(value.get("players"))
    rounds, hands = value.get("rounds", 3), value.get("hands_per_round")
    if not _whole(rounds, MAX_ROUNDS):  # null where a number is needed is refused like any wrong value
        raise ReadError.of("night.rounds", "rounds")
    if hands is not None and not _whole(hands, MAX_HANDS):  # null: one deal each
        raise ReadError.of("night.hands_per_round", "hands_per_round")
    method = value.get("seating", "mixed")
    if method not in seating.SEATINGS:
        raise ReadError.of("night.seating", "seating")
    by = value.get("ranking", "total")
    if by not in ranking.RANKINGS:
        raise ReadError.of("night.ranking", "ranking")
    seed = _seed(value.get("seed"))
    ruleset = _three_handed(value.get("ruleset", (club_defaults or {}).get("ruleset")))
    plan = _duplicate(value.get("duplicate"), rounds, f"{club_name} {day}".strip())
    if plan is not None:
        hands = plan.boards  # a hand a board
    return NightSpec(title, day, players, rounds, hands, method, by, seed, ruleset, plan)


def _duplicate(value: object, rounds: int, default_seed: str) -> DuplicatePlan | None:
    """The night's ``duplicate`` object: its seed (the club's name and the date when absent), boards a
    round (3 when absent) and scoring; the rounds' boards must fit one deal set."""
    if value is None or value is False:
        return None
    if value is True:
        value = {}
    if not isinstance(value, dict):
        raise ReadError.of("record.not_object", "duplicate", kind=type(value).__name__)
    seed = read_seed(value.get("seed", default_seed), "duplicate.seed")
    boards = value.get("boards_per_round", 3)
    if not _whole(boards, MAX_HANDS):
        raise ReadError.of("night.boards_per_round", "duplicate.boards_per_round")
    if rounds * boards > MAX_BOARDS:
        raise ReadError.of("limit.boards", "duplicate.boards_per_round", count=rounds * boards, limit=MAX_BOARDS)
    scoring = value.get("scoring", "matchpoints")
    if scoring not in dup.SCORINGS:
        raise ReadError.of("field.choice", "duplicate.scoring", value=repr(scoring), allowed=", ".join(dup.SCORINGS))
    return DuplicatePlan(seed, boards, scoring)


def _players(raw: object) -> list[str]:
    """The players present: names each once in any case, 3 to :data:`MAX_PLAYERS` (counted before any
    name is read: the work stays bounded)."""
    if not isinstance(raw, list):
        raise ReadError.of("players.not_list", "players")
    if len(raw) > MAX_PLAYERS:
        raise ReadError.of("night.crowd", "players")
    players = [clean_name(p, f"players[{i}]") for i, p in enumerate(raw)]
    seen: set[str] = set()
    for i, name in enumerate(players):
        if name.casefold() in seen:
            raise ReadError.of("players.named_twice", f"players[{i}]", name=repr(name))
        seen.add(name.casefold())
    if len(players) < seating.MIN_PLAYERS:
        raise ReadError.of("night.few", "players")
    return players


def _seed(value: object) -> int:
    """The draw's seed as given, or one drawn now (and stored, so the night's seats can be drawn again)."""
    if value is None:
        return secrets.randbelow(10**9)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
        raise ReadError.of("night.seed", "seed")
    return value


def _three_handed(ruleset: object) -> object:
    """The night's rules as given (None: the preset's default), once they are rules for three: the
    seating plays the four deal at a table of four by itself."""
    if find_ruleset(ruleset).players != 3:
        raise ReadError.of("night.ruleset", "ruleset")
    return ruleset


def night_document(spec: NightSpec, rounds: Sequence[dict[str, Any]],
                   lines: Sequence[ranking.RankLine]) -> dict[str, Any]:
    """The night as ``scarto-night/1`` writes it back (``night.json``): what it was asked with, the
    rounds seated so far (``rounds``: each as the caller writes it, its tables' links being the
    caller's) and the ranking, its numbers as ``scarto-result/1`` writes them."""
    return {
        "format": NIGHT_FORMAT, "title": spec.title, "date": spec.date, "players": list(spec.players),
        "rounds_planned": spec.rounds, "hands_per_round": spec.hands_per_round,
        "seating": spec.seating, "ranking_method": spec.ranking, "seed": spec.seed,
        "rounds": list(rounds),
        "ranking": [{"place": line.place, "name": line.name, "total": fraction_json(line.total),
                     "hands": line.hands, "match_points": fraction_json(line.match_points),
                     "placings": list(line.placings)} for line in lines],
    }
