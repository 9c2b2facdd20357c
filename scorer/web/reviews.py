"""The hand review on the audit page and sheet: read from the hand's kept results, else made apart.

A page never makes a review: it reads the kept one (storage/reviews.py) or asks a
:class:`Reviewer` for it and says that it is being made. The reviewer runs at most
``REVIEW_RUNS`` reviews at once per server process, each ``scarto analyse`` in a process of its
own stopped after ``REVIEW_TIMEOUT`` seconds, from a thread of its own (never a server thread);
at most ``REVIEW_QUEUE`` hands wait their turn, each asked once however often its page is opened.
A hand past the queue is asked again on its next view. A hand audited on its own (a file, a link) is
stored nowhere: its review is kept in the process's memory instead (:data:`LOOSE_KEPT`).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flask import current_app
from flask_babel import gettext as _

from ..engine.analysis import analysable
from ..engine.clubs import MatchSummary, in_range
from ..engine.errors import ScartoError
from ..engine.records import HandRecord, hand_to_dict
from ..sheets.charts import cumulative_chart
from ..storage import db as database
from ..storage import reviews, store
from .db import get_db
from .labels import read_error_text

Key = tuple[str, object, object, int]
"""A review asked for: the database and the hand and its version, or "loose", the record's digest and the
engine's version; and the first trick."""


class Reviewer:
    """At most ``size`` reviews made at once, each from a thread of its own, and at most ``queue`` waiting."""

    def __init__(self, size: int, queue: int) -> None:
        self.size, self.queue = size, queue
        self._lock = threading.Condition()
        self._asked: set[Key] = set()
        self._waiting: deque[tuple[Key, Callable[[], None]]] = deque()
        self._running = 0

    def ask(self, key: Key, work: Callable[[], None]) -> bool:
        """Have ``work`` done once for ``key``: True when it is being done or waits its turn, False when
        the queue is full (asked again on the hand's next view)."""
        with self._lock:
            if key in self._asked:
                return True
            if self._running >= self.size and len(self._waiting) >= self.queue:
                return False
            self._asked.add(key)
            if self._running < self.size:  # a thread for it now; otherwise it waits for one to finish
                self._running += 1
                threading.Thread(target=self._work, args=(key, work), name="review", daemon=True).start()
            else:
                self._waiting.append((key, work))
            return True

    def _work(self, key: Key, work: Callable[[], None]) -> None:
        """Do ``work``, then whatever waits, until nothing does."""
        while True:
            try:
                work()
            except Exception:  # noqa: BLE001 - a review that failed is logged; the page says it is missing
                logging.getLogger("scorer").exception("a hand's review could not be made (%s)", key[1])
            with self._lock:
                self._asked.discard(key)
                if not self._waiting:
                    self._running -= 1
                    self._lock.notify_all()
                    return
                key, work = self._waiting.popleft()

    def idle(self, timeout: float) -> bool:
        """Wait until nothing is being made or waits (what the tests wait for)."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._running and not self._waiting, timeout)


_REVIEWERS: dict[tuple[int, int], Reviewer] = {}
_REVIEWERS_LOCK = threading.Lock()


def reviewer() -> Reviewer:
    """The process's reviewer for the app's settings (made on first use)."""
    config = current_app.config
    key = (max(1, int(config["REVIEW_RUNS"])), max(0, int(config["REVIEW_QUEUE"])))
    with _REVIEWERS_LOCK:
        if key not in _REVIEWERS:
            _REVIEWERS[key] = Reviewer(*key)
        return _REVIEWERS[key]


@dataclass(frozen=True)
class ReviewState:
    """What the audit shows of the review: the review, or why there is none (yet)."""

    review: reviews.Review | None = None
    making: bool = False
    """Being made (or waiting its turn): the page says so and looks again in a few seconds."""
    why: str | None = None
    """One line saying why the hand has no review."""


def _why_none(record: HandRecord, from_trick: int) -> ReviewState | None:
    """Why the hand has no review at all (not a full trick record, a record with errors); None if it has."""
    if not reviews.reviewable(record):
        return ReviewState(why=_("A review needs the hand's full trick record: this one holds %(form)s.",
                                 form=_form_name(record)))
    try:
        analysable(record, from_trick)
    except ScartoError as exc:
        return ReviewState(why=read_error_text(exc))
    return None


def _shown(review: reviews.Review) -> ReviewState:
    if review.problem is not None:
        return ReviewState(why=_("The review took longer than its limit and was stopped."))
    return ReviewState(review=review)


def _made(record: HandRecord, from_trick: int, keep: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
    """The reviewer's work: the review made in a process of its own, then kept by ``keep``; a review that
    failed (not one past its limits) is not kept, and is asked for again on the next view."""
    config = current_app.config
    timeout, limit = float(config["REVIEW_TIMEOUT"]), int(config["REVIEW_POSITIONS"])

    def work() -> None:
        made = reviews.make_review(record, from_trick, timeout, limit)
        if made.get("problem") == "failed":
            logging.getLogger("scorer").error("a hand's review failed: %s", made.get("detail"))
            return
        keep(made)

    return work


def hand_review(hand: store.HandRow, record: HandRecord) -> ReviewState:
    """The stored hand's review: kept, or asked for (made in a process of its own, never here)."""
    from_trick = reviews.first_trick(record)
    none = _why_none(record, from_trick)
    if none is not None:
        return none
    kept = reviews.kept_review(get_db(), hand.id, hand.version, from_trick, list(record.players))
    if kept is not None:
        return _shown(kept)
    path = str(current_app.config["DATABASE"])

    def keep(made: dict[str, Any]) -> None:
        try:
            kept_db = database.connect(path, create=False)
        except sqlite3.OperationalError:  # the database gone meanwhile (a test ended): nowhere to keep it
            return
        try:
            reviews.keep_review(kept_db, hand.id, hand.version, from_trick, made)
        finally:
            kept_db.conn.close()

    reviewer().ask((path, hand.id, hand.version, from_trick), _made(record, from_trick, keep))  # full: next view
    return ReviewState(making=True)


LOOSE_KEPT = 256
"""Reviews of hands audited on their own (a file, a link) kept per server process, the latest used: such a
hand is stored nowhere, so its review is kept in memory under the digest of its record (some 5 KB each)."""
_LOOSE: OrderedDict[Key, dict[str, Any]] = OrderedDict()
_LOOSE_LOCK = threading.Lock()


def loose_review(record: HandRecord) -> ReviewState:
    """The review of a hand audited on its own: kept in this process's memory, or asked for."""
    from_trick = reviews.first_trick(record)
    none = _why_none(record, from_trick)
    if none is not None:
        return none
    key: Key = ("loose", store.body_digest(hand_to_dict(record)), store.engine_version(), from_trick)
    with _LOOSE_LOCK:
        made = _LOOSE.get(key)
        if made is not None:
            _LOOSE.move_to_end(key)
    if made is not None:
        return _shown(reviews.Review.from_made(list(record.players), from_trick, made))

    def keep(made: dict[str, Any]) -> None:
        with _LOOSE_LOCK:
            _LOOSE[key] = made
            while len(_LOOSE) > LOOSE_KEPT:
                _LOOSE.popitem(last=False)

    reviewer().ask(key, _made(record, from_trick, keep))
    return ReviewState(making=True)


def _form_name(record: HandRecord) -> str:
    """How the hand was recorded, as the review's one line names it."""
    return _("counted points") if record.form == "points" else _("captured cards")


@dataclass(frozen=True)
class GivenUpFigures:
    """A club player's points given up in their analysed hands (the reviews kept, none made here)."""

    hands: int
    total: Fraction
    chart: str

    @property
    def per_hand(self) -> Fraction:
        return self.total / self.hands


def player_given_up(summaries: list[MatchSummary], seats: dict[int, tuple[int, ...]], player_id: int, name: str,
                    start: str | None, end: str | None) -> GivenUpFigures | None:
    """The player's points given up per analysed hand, over time, from the kept reviews of their club
    matches in [start, end]: a lookup, never a review made in the page's request. None when none is kept."""
    dates = {s.match_id: s.date for s in summaries if in_range(s, start, end)}
    wanted = [(match_id, ids.index(player_id)) for match_id, ids in seats.items()
              if match_id in dates and player_id in ids]
    lines = sorted(reviews.given_up_by(get_db(), wanted), key=lambda g: (dates[g.match_id], g.match_id, g.position))
    if not lines:
        return None
    chart = cumulative_chart([name], [[g.lost] for g in lines][-200:], title=_("Points given up, hand by hand"),
                             x_title=_("Analysed hands"), y_title=_("Points given up"))
    return GivenUpFigures(len(lines), sum((g.lost for g in lines), Fraction(0)), chart)
