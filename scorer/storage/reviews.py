"""Each hand's review (docs/REVIEW.md), made in a process of its own and kept beside its results.

A review weighs every play of a full trick record from a trick on (``engine.analysis``): seconds of
search, so it never runs in a server thread. :func:`make_review` runs ``scarto analyse`` in a fresh
interpreter with a time limit (killed past it); :func:`keep_review` stores what it gave under the
hand's version, the engine's version and the first trick weighed, and :func:`kept_review` reads it
back only while all three still hold: an edit, a restore or a new engine makes it again. A review
that could not be made within its limits is kept too, with why, so that it is not tried again on
every view.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sqlite_utils

from ..engine.analysis import REVIEW_TRICKS as REVIEW_TRICKS  # the start the pages weigh from
from ..engine.records import HandRecord, hand_to_dict
from .store import engine_version, now, writing


def first_trick(record: HandRecord) -> int:
    """The first trick the review of ``record`` weighs (from 1): the engine's measured start for its deal
    (``analysis.REVIEW_TRICKS``: every sampled hand's review within 2 s a player), so that a review is
    stored under a start known before it is made."""
    tricks = record.ruleset.tricks
    return max(1, tricks - REVIEW_TRICKS.get(record.ruleset.deal, 8) + 1)


def reviewable(record: HandRecord) -> bool:
    """Whether the review can weigh the hand: a full trick record (the replay then knows every hand)."""
    return record.tricks is not None


@dataclass(frozen=True)
class ReviewPlay:
    """One weighed card of a kept review."""

    trick: int
    seat: int
    card: str
    lost: Fraction
    best: tuple[str, ...]


@dataclass(frozen=True)
class Review:
    """A kept review (``scarto-analysis/1`` read back), or why it could not be made."""

    from_trick: int
    par: tuple[Fraction, ...]
    """Each player's guaranteed value at the start of ``from_trick``, in seating order."""
    plays: tuple[ReviewPlay, ...]
    given_up: tuple[Fraction, ...]
    problem: str | None = None
    """Why there is no review: ``too_large`` (past its search or time limit), ``failed``."""

    @classmethod
    def read(cls, players: list[str], data: dict[str, Any]) -> Review:
        """The review from its ``scarto-analysis/1`` object (players named as in the hand)."""
        seat = {name: i for i, name in enumerate(players)}
        plays = tuple(ReviewPlay(int(p["trick"]), seat[p["player"]], str(p["card"]), Fraction(p["lost"]),
                                 tuple(p["best"])) for p in data["plays"])
        return cls(int(data["from_trick"]), tuple(Fraction(s["value"]) for s in data["start"]), plays,
                   tuple(Fraction(g["lost"]) for g in data["given_up"]))

    @classmethod
    def from_made(cls, players: list[str], from_trick: int, made: dict[str, Any]) -> Review:
        """What :func:`make_review` gave, read as :func:`kept_review` reads it back."""
        if "problem" in made:
            return cls(from_trick, (), (), (), str(made["problem"]))
        return cls.read(players, made)

    def plays_of(self, seat: int) -> tuple[ReviewPlay, ...]:
        """The player's weighed cards, in the order played."""
        return tuple(p for p in self.plays if p.seat == seat)


def make_review(record: HandRecord, from_trick: int, timeout: float, node_limit: int) -> dict[str, Any]:
    """The ``scarto-analysis/1`` object of the hand, made by ``scarto analyse`` in a fresh interpreter
    (not a fork: the server's threads hold locks) stopped after ``timeout`` seconds; ``{"problem": ...}``
    when it could not be made (``too_large``: past the search's or the time limit; ``failed``)."""
    command = [sys.executable, "-m", "scorer", "analyse", "-", "--json", "--from-trick", str(from_trick),
               "--node-limit", str(node_limit)]
    try:
        done = subprocess.run(command, input=json.dumps(hand_to_dict(record)).encode(), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:  # run() killed it
        return {"problem": "too_large"}
    if done.returncode != 0:
        return {"problem": "too_large" if b"search_too_large" in done.stderr or b"positions" in done.stderr
                else "failed", "detail": done.stderr.decode(errors="replace")[-500:]}
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def keep_review(db: sqlite_utils.Database, hand_id: int, version: int, from_trick: int,
                made: dict[str, Any]) -> None:
    """Store what :func:`make_review` gave for the hand's ``version`` (unless the hand is gone)."""
    review = None if "problem" in made else json.dumps(made, ensure_ascii=False)
    given_up = None if "problem" in made else json.dumps([g["lost"] for g in made["given_up"]])
    with writing(db):
        if db.execute("SELECT 1 FROM hands WHERE id = ?", [hand_id]).fetchone() is None:
            return
        db.execute("INSERT OR REPLACE INTO hand_reviews (hand_id, engine, version, from_trick, review, given_up, "
                   "problem, made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   [hand_id, engine_version(), version, from_trick, review, given_up, made.get("problem"), now()])


def kept_review(db: sqlite_utils.Database, hand_id: int, version: int, from_trick: int,
                players: list[str]) -> Review | None:
    """The hand's kept review while it is fresh (its version, the engine and the first trick the same);
    None when there is none yet."""
    row = db.execute("SELECT review, problem FROM hand_reviews WHERE hand_id = ? AND version = ? AND engine = ? "
                     "AND from_trick = ?", [hand_id, version, engine_version(), from_trick]).fetchone()
    if row is None:
        return None
    review, problem = row
    if review is None:
        return Review(from_trick, (), (), (), problem or "failed")
    return Review.read(players, json.loads(review))


@dataclass(frozen=True)
class GivenUp:
    """One analysed hand of a player: the points they gave up in it, and when the match was played."""

    match_id: int
    position: int
    lost: Fraction


def given_up_by(db: sqlite_utils.Database, seats: Iterable[tuple[int, int]]) -> list[GivenUp]:
    """For each ``(match_id, seat)``, the points that seat gave up in each current hand of the match with a
    fresh kept review, in playing order: only reviews already made count (none is made here). Each seat's
    figure is read from its own column, not from the whole review."""
    wanted = dict(seats)
    if not wanted:
        return []
    marks = ",".join("?" * len(wanted))
    rows = db.execute(
        "SELECT h.match_id, h.position, r.given_up FROM hands h JOIN hand_reviews r ON r.hand_id = h.id "
        f"AND r.version = h.version AND r.engine = ? WHERE h.match_id IN ({marks}) AND h.deleted_at IS NULL "
        "AND r.given_up IS NOT NULL ORDER BY h.match_id, h.position, h.id",
        [engine_version(), *wanted]).fetchall()
    lines = []
    for match_id, position, given_up in rows:
        given = json.loads(given_up)
        seat = wanted[match_id]
        if seat < len(given):
            lines.append(GivenUp(match_id, position, Fraction(given[seat])))
    return lines
