"""Matches and hands in SQLite: nothing a user entered is ever lost.

Every change to a hand makes a revision (create, edit, delete, undelete,
restore), and a delete only marks the hand, so it can be undone. Writers say
which version they saw; a save against a newer version raises :class:`Conflict`
carrying what was saved, so two phones never overwrite each other.

What the pages need of each current hand (its scores and problems, the running
totals after it) is kept in ``hand_results`` when the hand is saved, under the
engine's version, and made again only when the engine changes or the hands before
it do: the match page reads the hands it shows and the last one's totals, whatever
the length of the match (:func:`standings_window`).

Hand records are stored in the in-match form of ``scarto-match/1`` and read
back through the engine's parser, so the database can never hold a record the
file format could not. A stored hand comes back as a :class:`HandRow` whose
:attr:`~HandRow.parsed` is the engine's ``HandRecord`` (read once, when first
asked for); a record a newer engine refuses gives its read error
(:attr:`~HandRow.error`) next to the raw value (:attr:`~HandRow.record`) instead.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from functools import cache, cached_property
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from ..engine.errors import ScartoError
from ..engine.limits import MAX_HANDS, MAX_HANDS_KEPT
from ..engine.numbers import fraction_json
from ..engine.records import HandRecord, MatchRecord, match_to_dict, parse_hand, parse_match
from ..engine.scoring import HandResult, score_hand
from ..engine.settlement import Transfer
from ..engine.standings import (
    Running,
    after_hand,
    hands_left,
    leaders_of,
    next_dealer,
    settlement_of,
    standings_document,
)
from .db import BUSY_TIMEOUT, token_key, writer_lock
from .db import writers_waiting as database_writers_waiting

Row = TypeVar("Row")
"""A stored row as its module reads it (:func:`find_by_token`: a match, a club, a night)."""

TOKEN_BYTES = 18
"""144 random bits per token (at least 128 required), URL-safe base64: 24 characters."""


class StoreError(Exception):
    """Base of the store's errors."""


class NotFound(StoreError):
    """No such match or hand (or not reachable with this token)."""


class Conflict(StoreError):
    """Somebody else saved first: ``current`` is what is stored now (None if nothing)."""

    def __init__(self, message: str, current: HandRow | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.current = current


class KeyReused(StoreError):
    """An idempotency key already stored with another change (another body, hand or action): a key
    replays only the request it came with, so this one is refused and nothing is saved. ``done`` is
    what the key made."""

    def __init__(self, done: Done) -> None:
        super().__init__(f"this key already made a {done.action} of another body")
        self.done = done


class MatchFull(StoreError):
    """The match holds as many hands as a match may (limits.MAX_HANDS): a backstop inside the write
    lock, behind the pages' own check, so two saves at once can never store one too many; and a
    deleted hand brought back to a full match."""


class MatchKeepsAll(MatchFull):
    """The match keeps as many hands as it may with its deleted ones (limits.MAX_HANDS_KEPT)."""


@dataclass(frozen=True)
class MatchRow:
    """A stored match: its tokens and its settings (the match file without hands)."""

    id: int
    edit_token: str
    view_token: str
    settings: dict[str, Any]
    created_at: str
    updated_at: str
    changes: int = 0
    """A count that grows with every change to its hands (``_touch``: once a save, twice a restore;
    0 for a match made with its hands): the match's state. Only its growing matters."""

    @property
    def state(self) -> str:
        """A tag that changes with every change to the match's hands (add, edit, delete, restore)."""
        return str(self.changes)

    @property
    def players(self) -> list[str]:
        """The names in seating order."""
        return list(self.settings["players"])


class _Stored:
    """A stored in-match record, read by the engine when first asked for."""

    record: dict[str, Any]
    settings: dict[str, Any]

    @cached_property
    def _read(self) -> HandRecord | ScartoError:
        try:
            return parse_hand(hand_record_data(self.settings, self.record))
        except ScartoError as exc:  # stored under an older engine: the error, not a failure
            return exc

    @property
    def parsed(self) -> HandRecord:
        """The record as the engine reads it; raises the read error of a record it refuses."""
        read = self._read
        if isinstance(read, ScartoError):
            raise read
        return read

    @property
    def error(self) -> ScartoError | None:
        """Why the engine refuses the stored record (None when it reads it)."""
        read = self._read
        return read if isinstance(read, ScartoError) else None


@dataclass(frozen=True)
class HandRow(_Stored):
    """A stored hand: its in-match record (raw, and :attr:`parsed`), version and whether it is deleted."""

    id: int
    key: str
    position: int
    record: dict[str, Any]
    version: int
    deleted_at: str | None
    created_at: str
    updated_at: str
    settings: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The match's settings (players, ruleset) the record is read against."""


@dataclass(frozen=True)
class Revision(_Stored):
    """One saved state of a hand, with what made it."""

    version: int
    action: str
    record: dict[str, Any]
    created_at: str
    settings: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


_WRITER = threading.RLock()
"""One writer at a time in this process. SQLite lets one transaction write anyway; the others
waiting here are woken the moment it ends, where SQLite's busy handler would have them sleep
and poll (1 ms, 2 ms, ... up to 100 ms), which made saves queue with a long tail."""
_DEPTH = threading.local()
_WAITERS = [0]
_WAITERS_GUARD = threading.Lock()


def _waiting(change: int) -> None:
    with _WAITERS_GUARD:
        _WAITERS[0] += change


def writers_waiting(db: sqlite_utils.Database) -> bool:
    """Whether another writer waits, in this process or another: a long write in steps lets it go first
    (storage/club_transfer.py's ``in_steps``)."""
    return _WAITERS[0] > 0 or database_writers_waiting(db)


@contextmanager
def writing(db: sqlite_utils.Database) -> Iterator[None]:
    """A write transaction (sqlite-utils' ``atomic``), taken in turn with this process's other writers
    and, through the database's writer lock, with the other server processes' writers.

    The wait for both is bounded as SQLite's was: "database is locked" (the 503 "try again" page) after
    :data:`db.BUSY_TIMEOUT` seconds in all, also behind a long write of this process (a large club file).

    Inside a transaction the caller opened itself with ``db.atomic()`` (no caller does: every write of the
    storage modules comes through here), only a savepoint: that transaction may hold SQLite's write lock
    already, and waiting for the locks here while their holder waits for SQLite's would hold both for the
    busy timeout.
    """
    if db.conn.in_transaction and not getattr(_DEPTH, "n", 0):
        with db.atomic():
            yield
        return
    since = time.monotonic()
    _waiting(1)
    try:
        taken = _WRITER.acquire(timeout=BUSY_TIMEOUT)
    finally:
        _waiting(-1)
    if not taken:
        raise sqlite3.OperationalError("database is locked")
    try:
        depth = getattr(_DEPTH, "n", 0)
        _DEPTH.n = depth + 1
        try:
            if depth:  # nested (a restore is a change): the locks are held already
                with db.atomic():
                    yield
            else:
                with writer_lock(db, since), db.atomic():
                    yield
        finally:
            _DEPTH.n = depth
    finally:
        _WRITER.release()


def now() -> str:
    """UTC time as ISO 8601, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def new_token() -> str:
    """A fresh random token for a match link."""
    return secrets.token_urlsafe(TOKEN_BYTES)


# --- matches ---------------------------------------------------------------------


def create_match(db: sqlite_utils.Database, match: MatchRecord,
                 results: Sequence[HandResult] | None = None) -> MatchRow:
    """Store a new match (and any hands it already has) under fresh tokens; ``results``: its hands as the
    caller judged them before the write (a file is judged to be refused or taken), not judged again in it."""
    data = match_to_dict(match)
    hands = data.pop("hands")
    stamp = now()
    with writing(db):
        # the transaction's first statement is the write: sqlite-utils' insert reads the schema first, and a
        # transaction that has read cannot wait for the write lock (SQLITE_BUSY at once under concurrent writes)
        edit, view = new_token(), new_token()
        match_id = db.execute(
            "INSERT INTO matches (edit_token, view_token, edit_key, view_key, settings, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [edit, view, token_key(edit), token_key(view), json.dumps(data, ensure_ascii=False), stamp, stamp],
        ).lastrowid
        assert match_id is not None
        for position, hand in enumerate(hands, start=1):
            _insert_hand(db, int(match_id), position, hand, stamp)
        if hands:
            _rebuild(db, int(match_id), data, dict(zip(range(len(hands)), match.hands, strict=True)),
                     scored=dict(enumerate(results)) if results is not None else None)
    return get_match(db, int(match_id))


def get_match(db: sqlite_utils.Database, match_id: int) -> MatchRow:
    """A match by its id; NotFound otherwise."""
    return get_by_id(db, "matches", match_id, _match_row, "match")


def get_by_id(db: sqlite_utils.Database, table: str, row_id: int, read: Callable[[dict[str, Any]], Row],
              what: str) -> Row:
    """The row of ``table`` (matches, clubs, nights) with this id, read by ``read``; NotFound otherwise."""
    rows = list(db.query(f"SELECT * FROM {table} WHERE id = ?", [row_id]))
    if not rows:
        raise NotFound(f"no such {what}")
    return read(rows[0])


def find_match(db: sqlite_utils.Database, token: str) -> tuple[MatchRow, bool]:
    """The match a token opens, and whether it is the edit token; NotFound otherwise."""
    return find_by_token(db, "matches", token, _match_row, "match")


def find_by_token(db: sqlite_utils.Database, table: str, token: str, read: Callable[[dict[str, Any]], Row],
                  what: str) -> tuple[Row, bool]:
    """The row of ``table`` (matches, clubs, nights) a token opens, read by ``read``, and whether it is the
    edit token; NotFound otherwise. One lookup for every capability link: found by the token's hash
    (:func:`token_key`), then the token itself compared in constant time, so that neither the index walk
    nor the comparison tells an attacker how much of a guess was right."""
    if not token or len(token) > 64:
        raise NotFound(f"no such {what}")
    key = token_key(token)
    rows = list(db.query(f"SELECT * FROM {table} WHERE edit_key = ? OR view_key = ?", [key, key]))
    if not rows:
        raise NotFound(f"no such {what}")
    row = rows[0]
    if hmac.compare_digest(row["edit_token"].encode(), token.encode()):
        return read(row), True
    if hmac.compare_digest(row["view_token"].encode(), token.encode()):
        return read(row), False
    raise NotFound(f"no such {what}")


def _match_row(row: dict[str, Any]) -> MatchRow:
    return MatchRow(row["id"], row["edit_token"], row["view_token"], json.loads(row["settings"]),
                    row["created_at"], row["updated_at"], row.get("changes") or 0)


def match_record(db: sqlite_utils.Database, match: MatchRow, hands: list[HandRow] | None = None) -> MatchRecord:
    """The match with its current hands (read here unless the caller has them), as the engine reads it.

    Each hand is the row's :attr:`HandRow.parsed` (read once); the read error of a
    hand the engine refuses is raised.
    """
    rows = hands if hands is not None else list_hands(db, match.id)
    settings = parse_match({**match.settings, "hands": []})
    return dataclasses.replace(settings, hands=tuple(h.parsed for h in rows))


def match_data(db: sqlite_utils.Database, match: MatchRow) -> dict[str, Any]:
    """The match as a ``scarto-match/1`` value (settings and current hands)."""
    return match_to_dict(match_record(db, match))


def hand_record_data(match: MatchRow | dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """An in-match hand of the match (or of its settings) as a stand-alone ``scarto-hand/1`` value."""
    settings = match.settings if isinstance(match, MatchRow) else match
    return {"format": "scarto-hand/1", "ruleset": settings.get("ruleset", "classic"),
            "players": list(settings["players"]), **record}


# --- hands -----------------------------------------------------------------------


def _settings(db: sqlite_utils.Database, match_id: int) -> dict[str, Any]:
    """The match's settings, which its stored hands are read against (empty if no such match)."""
    rows = list(db.query("SELECT settings FROM matches WHERE id = ?", [match_id]))
    return json.loads(rows[0]["settings"]) if rows else {}


def list_hands(db: sqlite_utils.Database, match_id: int, *, deleted: bool = False) -> list[HandRow]:
    """The match's hands in playing order (deleted ones only when asked)."""
    where = "" if deleted else " AND deleted_at IS NULL"
    settings = _settings(db, match_id)
    rows = db.query(f"SELECT * FROM hands WHERE match_id = ?{where} ORDER BY position, id", [match_id])
    return [_hand_row(r, settings) for r in rows]


def count_hands(db: sqlite_utils.Database, match_id: int) -> int:
    """How many current (not deleted) hands the match has."""
    return int(db.execute("SELECT COUNT(*) FROM hands WHERE match_id = ? AND deleted_at IS NULL",
                          [match_id]).fetchone()[0])


def hand_number(db: sqlite_utils.Database, hand: HandRow) -> int | None:
    """A current hand's number in its match (1 for the first); None for a deleted hand."""
    return None if hand.deleted_at is not None else hand_place(db, hand)


def hand_place(db: sqlite_utils.Database, hand: HandRow) -> int:
    """The hand's number among the match's current hands: for a deleted one, the number it would
    have if brought back (its place by position). Counted in the index, whatever the match's length."""
    return 1 + int(db.execute(
        "SELECT COUNT(*) FROM hands WHERE match_id = (SELECT match_id FROM hands WHERE id = ?1) "
        "AND deleted_at IS NULL AND (position < ?2 OR (position = ?2 AND id < ?1))",
        [hand.id, hand.position]).fetchone()[0])


def deleted_hands(db: sqlite_utils.Database, match_id: int, limit: int = -1, skip: int = 0) -> list[HandRow]:
    """The match's deleted hands, most recently deleted first (each can be brought back): all of them, or
    ``limit`` after the ``skip`` most recent (a page of them)."""
    settings = _settings(db, match_id)
    rows = db.query("SELECT * FROM hands WHERE match_id = ? AND deleted_at IS NOT NULL "
                    "ORDER BY deleted_at DESC, id DESC LIMIT ? OFFSET ?", [match_id, limit, skip])
    return [_hand_row(r, settings) for r in rows]


def count_deleted(db: sqlite_utils.Database, match_id: int) -> int:
    return int(db.execute("SELECT COUNT(*) FROM hands WHERE match_id = ? AND deleted_at IS NOT NULL",
                          [match_id]).fetchone()[0])


def get_hand(db: sqlite_utils.Database, match_id: int, key: str) -> HandRow:
    """One hand of the match by its key, deleted or not; NotFound otherwise."""
    rows = list(db.query("SELECT * FROM hands WHERE match_id = ? AND key = ?", [match_id, key]))
    if not rows:
        raise NotFound("no such hand")
    return _hand_row(rows[0], _settings(db, match_id))


def _hand_row(row: dict[str, Any], settings: dict[str, Any]) -> HandRow:
    return HandRow(row["id"], row["key"], row["position"], json.loads(row["record"]), row["version"],
                   row["deleted_at"], row["created_at"], row["updated_at"], settings)


def _touch(db: sqlite_utils.Database, match_id: int, stamp: str) -> None:
    """Take the write lock first and mark the match changed (its state: one change more)."""
    db.execute("UPDATE matches SET updated_at = ?, changes = changes + 1 WHERE id = ?", [stamp, match_id])


def _last_id(pk: Any) -> int:
    """The row id sqlite-utils reports for an insert (always set for an integer primary key)."""
    if pk is None:
        raise StoreError("the database did not report the new row's id")
    return int(pk)


def _insert_hand(db: sqlite_utils.Database, match_id: int, position: int, record: dict[str, Any],
                 stamp: str, entry: Entry | None = None) -> int:
    key = secrets.token_hex(6)
    # plain SQL: sqlite-utils' insert reads the schema first, inside the write lock
    hand_id = _last_id(db.execute(
        "INSERT INTO hands (match_id, key, position, record, version, deleted_at, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, 1, NULL, ?, ?)",
        [match_id, key, position, json.dumps(record, ensure_ascii=False), stamp, stamp]).lastrowid)
    _revision(db, hand_id, 1, "create", record, stamp, entry)
    return hand_id


def _revision(db: sqlite_utils.Database, hand_id: int, version: int, action: str, record: dict[str, Any],
              stamp: str, entry: Entry | None = None) -> None:
    db.execute("INSERT INTO revisions (hand_id, version, action, record, created_at, entry_key, entry_digest) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)",
               [hand_id, version, action, json.dumps(record, ensure_ascii=False), stamp,
                entry.key if entry else None, entry.digest if entry else None])


def body_digest(body: Any) -> str:
    """What identifies a request's body beside its idempotency key: the SHA-256 of its canonical JSON
    (keys sorted, no spaces), so the same body sent again gives the same digest whatever its layout."""
    text = json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    """A phone's or program's idempotency key and the digest of the body it came with
    (:func:`body_digest`): the same key replays only the same body."""

    key: str
    digest: str


@dataclass(frozen=True)
class Done:
    """A change already stored under an idempotency key: the hand it made, what it was, the body's digest."""

    hand: HandRow
    action: str
    version: int
    digest: str | None = None

    def replays(self, action: str, entry: Entry, hand_key: str | None = None) -> bool:
        """Whether ``entry`` is this change sent again: the same action (on the same hand) with the same
        body. A change stored before digests were kept (no digest) is taken as the same body."""
        return (self.action == action and (hand_key is None or self.hand.key == hand_key)
                and self.digest in (None, entry.digest))


def entry_done(db: sqlite_utils.Database, match_id: int, entry_key: str | None) -> Done | None:
    """The change this phone's key already made in the match (a retry after a lost answer), if any."""
    if not entry_key:
        return None
    rows = list(db.query("SELECT h.*, r.action AS r_action, r.version AS r_version, r.entry_digest AS r_digest "
                         "FROM revisions r JOIN hands h ON h.id = r.hand_id WHERE r.entry_key = ? AND h.match_id = ? "
                         "ORDER BY r.id LIMIT 1", [entry_key, match_id]))
    if not rows:
        return None
    row = rows[0]
    action, version, digest = row.pop("r_action"), row.pop("r_version"), row.pop("r_digest")
    return Done(_hand_row(row, _settings(db, match_id)), action, version, digest)


def add_hand(db: sqlite_utils.Database, match_id: int, record: dict[str, Any],
             expected_count: int | None = None, result: HandResult | None = None,
             entry: Entry | None = None) -> HandRow:
    """Append a hand; ``expected_count`` is how many hands the phone saw when it started.

    If somebody saved a hand in between, the hand this phone meant as hand N
    would silently become hand N+1: Conflict instead, with the hand that was saved.
    ``result`` is the hand judged (the caller has it); judged here if not given. Both
    happen before the write lock is taken: inside it only the count, the last hand's
    running totals and the writes. A hand already stored under ``entry``'s key with the same body
    (the phone retrying after a lost answer, or a back button sending the form again) is returned
    as it is, before ``expected_count`` is looked at: the retry meets its own hand, not a conflict.
    The key already used for another body or another change is :class:`KeyReused`.
    """
    settings = _settings(db, match_id)
    if not settings:
        raise NotFound("no such match")
    if result is None:
        result = score_hand(parse_hand(hand_record_data(settings, record)))
    summary = _summary(result)
    stamp = now()
    with writing(db):
        done = entry_done(db, match_id, entry.key if entry else None)
        if done is not None and entry is not None:
            if not done.replays("create", entry):
                raise KeyReused(done)
            return done.hand
        _touch(db, match_id, stamp)
        count, position, latest, kept = next(iter(db.execute(
            "SELECT (SELECT COUNT(*) FROM hands WHERE match_id = ?1 AND deleted_at IS NULL),"
            " (SELECT MAX(position) FROM hands WHERE match_id = ?1),"
            " (SELECT id FROM hands WHERE match_id = ?1 AND deleted_at IS NULL ORDER BY position DESC, id DESC"
            "  LIMIT 1), (SELECT COUNT(*) FROM hands WHERE match_id = ?1)", [match_id]).fetchall()))
        if count >= MAX_HANDS:
            raise MatchFull(f"This match has {MAX_HANDS} hands, as many as a match holds.")
        if kept >= MAX_HANDS_KEPT:
            raise MatchKeepsAll(f"This match keeps {MAX_HANDS_KEPT} hands with its deleted ones.")
        if expected_count is not None and count != expected_count:
            raise Conflict(
                f"Hand {expected_count + 1} was saved from another phone while you were entering it.",
                _hand_by_id(db, latest, settings) if latest is not None else None,
            )
        hand_id = _insert_hand(db, match_id, (position or 0) + 1, record, stamp, entry)
        match = _settings_record(json.dumps(settings, sort_keys=True))
        before = _running_after(db, latest, count) if latest is not None else Running.start(match)
        if before is None:  # the results before it are missing or from another engine: all again
            _rebuild(db, match_id, settings, {count: result.record})
        else:
            _write_result(db, hand_id, 1, summary, before, after_hand(match, before, result.scores()))
    return _hand_by_id(db, hand_id, settings)


def _hand_by_id(db: sqlite_utils.Database, hand_id: int, settings: dict[str, Any]) -> HandRow:
    return _hand_row(next(iter(db.query("SELECT * FROM hands WHERE id = ?", [hand_id]))), settings)


def _change(db: sqlite_utils.Database, match_id: int, key: str, expected_version: int | None,
            action: str, record: dict[str, Any] | None, deleted: bool | None,
            entry: Entry | None = None) -> HandRow:
    stamp = now()
    with writing(db):
        done = entry_done(db, match_id, entry.key if entry else None)
        if done is not None and entry is not None:
            if not done.replays(action, entry, key):  # a create's key on an edit, another body: refused
                raise KeyReused(done)
            return get_hand(db, match_id, key)  # a retry: this change is stored already
        _touch(db, match_id, stamp)
        hand = get_hand(db, match_id, key)
        if expected_version is not None and hand.version != expected_version:
            raise Conflict("This hand was changed from another phone while you were editing it.", hand)
        if deleted is False and hand.deleted_at is not None and count_hands(db, match_id) >= MAX_HANDS:
            raise MatchFull(f"This match has {MAX_HANDS} hands, as many as a match holds.")  # not one more back
        version = hand.version + 1
        new_record = hand.record if record is None else record
        changes: dict[str, Any] = {"version": version, "record": json.dumps(new_record, ensure_ascii=False),
                                   "updated_at": stamp}
        if deleted is not None:
            changes["deleted_at"] = stamp if deleted else None
        db.execute(f"UPDATE hands SET {', '.join(f'{name} = ?' for name in changes)} WHERE id = ?",
                   [*changes.values(), hand.id])
        _revision(db, hand.id, version, action, new_record, stamp, entry)
        # the hand's result and the running totals of the hands after it are made again
        _rebuild(db, match_id, hand.settings, from_position=hand.position)
        return get_hand(db, match_id, key)


def update_hand(db: sqlite_utils.Database, match_id: int, key: str, record: dict[str, Any],
                expected_version: int | None = None, entry: Entry | None = None) -> HandRow:
    """Save an edit as a new revision (once per ``entry``: its key with its body)."""
    return _change(db, match_id, key, expected_version, "edit", record, None, entry)


def delete_hand(db: sqlite_utils.Database, match_id: int, key: str, expected_version: int | None = None,
                entry: Entry | None = None) -> HandRow:
    """Mark a hand deleted (a revision too); :func:`undelete_hand` brings it back."""
    return _change(db, match_id, key, expected_version, "delete", None, True, entry)


def undelete_hand(db: sqlite_utils.Database, match_id: int, key: str,
                  expected_version: int | None = None, entry: Entry | None = None) -> HandRow:
    """Bring a deleted hand back to its place in the match (a revision too)."""
    return _change(db, match_id, key, expected_version, "undelete", None, False, entry)


def restore_revision(db: sqlite_utils.Database, match_id: int, key: str, version: int,
                     expected_version: int | None = None, entry: Entry | None = None) -> HandRow:
    """Make an old revision's record the current one (itself a new revision, undeleting the hand)."""
    with writing(db):
        # one transaction, so the revision read is the one restored even if a save lands in between
        _touch(db, match_id, now())
        hand = get_hand(db, match_id, key)
        old = get_revision(db, hand.id, version)
        return _change(db, match_id, key, expected_version, "restore", old.record, False, entry)


def match_state(db: sqlite_utils.Database, match_id: int) -> str:
    """A tag that changes with every change to the match's hands (add, edit, delete, restore):
    the count of changes kept on the match row (see :attr:`MatchRow.state`)."""
    row = db.execute("SELECT changes FROM matches WHERE id = ?", [match_id]).fetchone()
    if row is None:
        raise NotFound("no such match")
    return str(row[0])


def _hand_settings(db: sqlite_utils.Database, hand_id: int) -> dict[str, Any]:
    rows = list(db.query("SELECT m.settings FROM hands h JOIN matches m ON m.id = h.match_id WHERE h.id = ?",
                         [hand_id]))
    return json.loads(rows[0]["settings"]) if rows else {}


def get_revision(db: sqlite_utils.Database, hand_id: int, version: int) -> Revision:
    """One saved state of a hand; NotFound if the hand never had that version."""
    if not 0 < version < 2**63:  # beyond SQLite's integers: no such revision, not an OverflowError
        raise NotFound("no such revision")
    rows = list(db.query("SELECT * FROM revisions WHERE hand_id = ? AND version = ?", [hand_id, version]))
    if not rows:
        raise NotFound("no such revision")
    return _revision_row(rows[0], _hand_settings(db, hand_id))


def revisions(db: sqlite_utils.Database, hand_id: int, *, newest: int | None = None, skip: int = 0) -> list[Revision]:
    """The saved states of a hand, oldest first: every one, or the ``newest`` after skipping the ``skip``
    newest (a page of its history)."""
    settings = _hand_settings(db, hand_id)
    if newest is None:
        rows = db.query("SELECT * FROM revisions WHERE hand_id = ? ORDER BY version", [hand_id])
        return [_revision_row(r, settings) for r in rows]
    rows = db.query("SELECT * FROM revisions WHERE hand_id = ? ORDER BY version DESC LIMIT ? OFFSET ?",
                    [hand_id, newest, skip])
    return [_revision_row(r, settings) for r in rows][::-1]


def count_revisions(db: sqlite_utils.Database, hand_id: int) -> int:
    return int(db.execute("SELECT COUNT(*) FROM revisions WHERE hand_id = ?", [hand_id]).fetchone()[0])


def _revision_row(row: dict[str, Any], settings: dict[str, Any]) -> Revision:
    return Revision(row["version"], row["action"], json.loads(row["record"]), row["created_at"], settings)


# --- what the pages need of each hand (hand_results) ------------------------------


@cache
def engine_version() -> str:
    """The engine's version: a digest of its source, so that any change to a rule remakes the results."""
    digest = hashlib.sha256()
    for path in sorted((Path(__file__).resolve().parent.parent / "engine").glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def _settings_record(settings_json: str) -> MatchRecord:
    """A match's settings read by the engine (no hands), kept per settings."""
    return parse_match({**json.loads(settings_json), "hands": []})


def _summary(result: HandResult) -> dict[str, Any]:
    return {
        "dealer": result.record.dealer,
        "scores": {p: fraction_json(s) for p, s in result.scores().items()},
        "problems": [{"code": p.code, "severity": p.severity, "trick": p.trick} for p in result.problems],
    }


def _write_result(db: sqlite_utils.Database, hand_id: int, version: int, summary: dict[str, Any],
                  before: Running, after: Running) -> None:
    db.execute(
        "INSERT OR REPLACE INTO hand_results (hand_id, engine, version, summary, totals, counted, finished) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [hand_id, engine_version(), version, json.dumps(summary, ensure_ascii=False),
         json.dumps([fraction_json(t) for t in after.totals]), int(not before.finished), int(after.finished)])


def _running_after(db: sqlite_utils.Database, hand_id: int, number: int) -> Running | None:
    """The running state after hand ``number`` of the match, from its stored result; None if missing or stale."""
    rows = db.execute(
        "SELECT r.totals, r.finished, r.engine, r.version, h.version "
        "FROM hands h JOIN hand_results r ON r.hand_id = h.id WHERE h.id = ?", [hand_id]).fetchall()
    if not rows:
        return None
    totals, finished, engine, version, hand_version = rows[0]
    if engine != engine_version() or version != hand_version:
        return None
    return Running(tuple(Fraction(t) for t in json.loads(totals)), number, bool(finished))


def _rebuild(db: sqlite_utils.Database, match_id: int, settings: dict[str, Any],
             judged: dict[int, HandRecord] | None = None, *, from_position: int | None = None,
             scored: dict[int, HandResult] | None = None) -> None:
    """Make the results of the match's current hands again, in playing order (inside the caller's
    transaction): a hand's own result when it is missing, stale or of another version (``judged``
    gives records already read, ``scored`` their results, by index), the running totals from
    ``from_position`` on (all if None)."""
    match = _settings_record(json.dumps(settings, sort_keys=True))
    rows = db.execute(
        "SELECT h.id, h.position, h.version, h.record, r.engine, r.version, r.summary, r.totals, r.counted, "
        " r.finished FROM hands h LEFT JOIN hand_results r ON r.hand_id = h.id "
        "WHERE h.match_id = ? AND h.deleted_at IS NULL ORDER BY h.position, h.id", [match_id]).fetchall()
    state = Running.start(match)
    for index, (hand_id, position, version, record, engine, result_version, summary_json, totals_json,
                _counted, finished) in enumerate(rows):
        fresh = engine == engine_version() and result_version == version
        if fresh and from_position is not None and position < from_position:
            state = Running(tuple(Fraction(t) for t in json.loads(totals_json)), index + 1, bool(finished))
            continue
        if fresh:
            summary = json.loads(summary_json)
        elif scored is not None and index in scored:
            summary = _summary(scored[index])
        else:
            read = (judged or {}).get(index)
            try:
                hand = read if read is not None else parse_hand(hand_record_data(settings, json.loads(record)))
                summary = _summary(score_hand(hand))
            except ScartoError:  # stored under an older engine that read it: it counts for nothing
                summary = {"dealer": None, "scores": {}, "problems": [{"code": "read_error", "severity": "error",
                                                                       "trick": None}]}
        after = after_hand(match, state, {p: Fraction(v) for p, v in summary["scores"].items()})
        _write_result(db, hand_id, version, summary, state, after)
        state = after


@dataclass(frozen=True)
class Line:
    """One hand of the match as its page lists it, from the stored results."""

    number: int
    key: str
    dealer: str
    scores: dict[str, Fraction]
    problems: tuple[dict[str, Any], ...]
    totals: tuple[Fraction, ...]
    counted: bool


@dataclass(frozen=True)
class Window:
    """The standings of a match as a page shows them: some of its hands, and where the match stands."""

    match: MatchRecord
    count: int
    """How many hands the match has (current ones)."""
    lines: tuple[Line, ...]
    totals: tuple[Fraction, ...]
    finished: bool
    last_dealer: str | None

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

    @property
    def first(self) -> int:
        """The number of the first hand shown (0 when none is)."""
        return self.lines[0].number if self.lines else 0

    @property
    def next_dealer(self) -> str:
        return next_dealer(self.match.players, self.match.first_dealer, self.last_dealer)

    @property
    def leaders(self) -> list[str]:
        return leaders_of(self.players, self.totals)

    @property
    def hands_to_play(self) -> int | None:
        return hands_left(self.match, self.count)

    @cached_property
    def settlement(self) -> tuple[Transfer, ...]:
        return settlement_of(self.match, self.totals)

    def to_dict(self) -> dict[str, Any]:
        """``scarto-standings/1`` of the hands in the window (all of them: the match's standings)."""
        return standings_document(
            self.players, self.totals,
            ((line.number, line.dealer, line.scores, [p["code"] for p in line.problems], line.counted)
             for line in self.lines),
            self.next_dealer, self.finished, self.settlement)


_WINDOW = (
    "SELECT h.id, h.key, h.version, r.engine, r.version, r.summary, r.totals, r.counted, r.finished "
    "FROM hands h LEFT JOIN hand_results r ON r.hand_id = h.id "
    "WHERE h.match_id = ?1 AND h.deleted_at IS NULL AND (h.position > ?2 OR (h.position = ?2 AND h.id >= ?3)) "
    "ORDER BY h.position, h.id LIMIT ?4"
)
_LAST = (
    "SELECT h.id, h.key, h.version, r.engine, r.version, r.summary, r.totals, r.counted, r.finished "
    "FROM hands h LEFT JOIN hand_results r ON r.hand_id = h.id "
    "WHERE h.match_id = ? AND h.deleted_at IS NULL ORDER BY h.position DESC, h.id DESC LIMIT 1"
)


def _window_rows(db: sqlite_utils.Database, match_id: int, offset: int, limit: int) -> list[Any]:
    """Current hands ``offset + 1`` to ``offset + limit`` with their results: where the page starts is
    found in the index (no row read), then only the page's rows are read."""
    if limit <= 0:
        return []
    start = db.execute("SELECT position, id FROM hands WHERE match_id = ? AND deleted_at IS NULL "
                       "ORDER BY position, id LIMIT 1 OFFSET ?", [match_id, max(0, offset)]).fetchall()
    if not start:
        return []
    return db.execute(_WINDOW, [match_id, start[0][0], start[0][1], limit]).fetchall()


def standings_window(db: sqlite_utils.Database, match: MatchRow, offset: int, limit: int) -> Window:
    """Hands ``offset + 1`` to ``offset + limit`` of the match with their running totals, and the
    match's totals, read from the stored results (made again first where they are stale)."""
    record = _settings_record(json.dumps(match.settings, sort_keys=True))
    for attempt in range(2):
        count = db.execute("SELECT COUNT(*) FROM hands WHERE match_id = ? AND deleted_at IS NULL",
                           [match.id]).fetchone()[0]
        rows = _window_rows(db, match.id, offset, limit)
        last = db.execute(_LAST, [match.id]).fetchall()
        engine = engine_version()
        if all(r[3] == engine and r[4] == r[2] for r in rows + last) or attempt:
            break
        with writing(db):  # results missing (a database from before them) or made by another engine
            db.execute("UPDATE matches SET updated_at = updated_at WHERE id = ?", [match.id])  # the write lock
            _rebuild(db, match.id, match.settings)
    lines = []
    for index, (_id, key, _v, _e, _rv, summary_json, totals_json, counted, _f) in enumerate(rows):
        summary = json.loads(summary_json)
        lines.append(Line(max(0, offset) + index + 1, key, summary["dealer"] or "",
                          {p: Fraction(v) for p, v in summary["scores"].items()},
                          tuple(summary["problems"]), tuple(Fraction(t) for t in json.loads(totals_json)),
                          bool(counted)))
    if last:
        summary = json.loads(last[0][5])
        totals = tuple(Fraction(t) for t in json.loads(last[0][6]))
        return Window(record, count, tuple(lines), totals, bool(last[0][8]), summary["dealer"])
    return Window(record, count, tuple(lines), Running.start(record).totals, False, None)
