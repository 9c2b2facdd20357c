"""Matches and hands in SQLite: nothing a user entered is ever lost.

Every change to a hand makes a revision (create, edit, delete, undelete,
restore), and a delete only marks the hand, so it can be undone. Writers say
which version they saw; a save against a newer version raises :class:`Conflict`
carrying what was saved, so two phones never overwrite each other.

Hand records are stored in the in-match form of ``scarto-match/1`` and read
back through the core's parser, so the database can never hold a record the
file format could not.
"""

from __future__ import annotations

import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlite_utils

from ..engine.records import MatchRecord, hand_to_dict, match_to_dict, parse_hand, parse_match
from .db import token_key

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


@dataclass(frozen=True)
class MatchRow:
    """A stored match: its tokens and its settings (the match file without hands)."""

    id: int
    edit_token: str
    view_token: str
    settings: dict[str, Any]
    created_at: str
    updated_at: str

    @property
    def players(self) -> list[str]:
        """The names in seating order."""
        return list(self.settings["players"])


@dataclass(frozen=True)
class HandRow:
    """A stored hand: its in-match record, version and whether it is deleted."""

    id: int
    key: str
    position: int
    record: dict[str, Any]
    version: int
    deleted_at: str | None
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Revision:
    """One saved state of a hand, with what made it."""

    version: int
    action: str
    record: dict[str, Any]
    created_at: str


def now() -> str:
    """UTC time as ISO 8601, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def new_token() -> str:
    """A fresh random token for a match link."""
    return secrets.token_urlsafe(TOKEN_BYTES)


# --- matches ---------------------------------------------------------------------


def create_match(db: sqlite_utils.Database, match: MatchRecord) -> MatchRow:
    """Store a new match (and any hands it already has) under fresh tokens."""
    data = match_to_dict(match)
    hands = data.pop("hands")
    stamp = now()
    with db.atomic():
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
    return get_match(db, int(match_id))


def get_match(db: sqlite_utils.Database, match_id: int) -> MatchRow:
    """A match by its id; NotFound otherwise."""
    rows = list(db.query("SELECT * FROM matches WHERE id = ?", [match_id]))
    if not rows:
        raise NotFound("no such match")
    return _match_row(rows[0])


def find_match(db: sqlite_utils.Database, token: str) -> tuple[MatchRow, bool]:
    """The match a token opens, and whether it is the edit token; NotFound otherwise."""
    if not token or len(token) > 64:
        raise NotFound("no such match")
    key = token_key(token)
    rows = list(db.query("SELECT * FROM matches WHERE edit_key = ? OR view_key = ?", [key, key]))
    if not rows:
        raise NotFound("no such match")
    row = _match_row(rows[0])
    if hmac.compare_digest(row.edit_token.encode(), token.encode()):
        return row, True
    if hmac.compare_digest(row.view_token.encode(), token.encode()):
        return row, False
    raise NotFound("no such match")


def _match_row(row: dict[str, Any]) -> MatchRow:
    return MatchRow(row["id"], row["edit_token"], row["view_token"], json.loads(row["settings"]),
                    row["created_at"], row["updated_at"])


def match_record(db: sqlite_utils.Database, match: MatchRow, hands: list[HandRow] | None = None) -> MatchRecord:
    """The match with its current hands (read here unless the caller has them), as the core reads it."""
    data = dict(match.settings)
    data["hands"] = [h.record for h in (hands if hands is not None else list_hands(db, match.id))]
    return parse_match(data)


def match_data(db: sqlite_utils.Database, match: MatchRow) -> dict[str, Any]:
    """The match as a ``scarto-match/1`` value (settings and current hands)."""
    return match_to_dict(match_record(db, match))


def hand_record_data(match: MatchRow, record: dict[str, Any]) -> dict[str, Any]:
    """A stored in-match hand as a stand-alone ``scarto-hand/1`` value."""
    return {"format": "scarto-hand/1", "ruleset": match.settings.get("ruleset", "classic"),
            "players": match.players, **record}


def canonical_hand(match: MatchRow, data: dict[str, Any]) -> dict[str, Any]:
    """Parse an in-match hand value against the match and write it canonically (ReadError if bad)."""
    record = parse_hand(hand_record_data(match, data))
    return hand_to_dict(record, in_match=True)


# --- hands -----------------------------------------------------------------------


def list_hands(db: sqlite_utils.Database, match_id: int, *, deleted: bool = False) -> list[HandRow]:
    """The match's hands in playing order (deleted ones only when asked)."""
    where = "" if deleted else " AND deleted_at IS NULL"
    rows = db.query(f"SELECT * FROM hands WHERE match_id = ?{where} ORDER BY position, id", [match_id])
    return [_hand_row(r) for r in rows]


def deleted_hands(db: sqlite_utils.Database, match_id: int) -> list[HandRow]:
    """The match's deleted hands, most recently deleted first (each can be brought back)."""
    rows = db.query("SELECT * FROM hands WHERE match_id = ? AND deleted_at IS NOT NULL "
                    "ORDER BY deleted_at DESC, id DESC", [match_id])
    return [_hand_row(r) for r in rows]


def get_hand(db: sqlite_utils.Database, match_id: int, key: str) -> HandRow:
    """One hand of the match by its key, deleted or not; NotFound otherwise."""
    rows = list(db.query("SELECT * FROM hands WHERE match_id = ? AND key = ?", [match_id, key]))
    if not rows:
        raise NotFound("no such hand")
    return _hand_row(rows[0])


def _hand_row(row: dict[str, Any]) -> HandRow:
    return HandRow(row["id"], row["key"], row["position"], json.loads(row["record"]), row["version"],
                   row["deleted_at"], row["created_at"], row["updated_at"])


def _touch(db: sqlite_utils.Database, match_id: int, stamp: str) -> None:
    """Take the write lock first and mark the match changed."""
    db.execute("UPDATE matches SET updated_at = ? WHERE id = ?", [stamp, match_id])


def _last_id(pk: Any) -> int:
    """The row id sqlite-utils reports for an insert (always set for an integer primary key)."""
    if pk is None:
        raise StoreError("the database did not report the new row's id")
    return int(pk)


def _insert_hand(db: sqlite_utils.Database, match_id: int, position: int, record: dict[str, Any],
                 stamp: str, entry_key: str | None = None) -> int:
    key = secrets.token_hex(6)
    hand_id = _last_id(db.table("hands").insert({
        "match_id": match_id, "key": key, "position": position,
        "record": json.dumps(record, ensure_ascii=False), "version": 1, "deleted_at": None,
        "created_at": stamp, "updated_at": stamp,
    }).last_pk)
    _revision(db, hand_id, 1, "create", record, stamp, entry_key)
    return hand_id


def _revision(db: sqlite_utils.Database, hand_id: int, version: int, action: str, record: dict[str, Any],
              stamp: str, entry_key: str | None = None) -> None:
    db.table("revisions").insert({"hand_id": hand_id, "version": version, "action": action,
                            "record": json.dumps(record, ensure_ascii=False), "created_at": stamp,
                            "entry_key": entry_key})


@dataclass(frozen=True)
class Done:
    """A change already stored under an idempotency key: the hand it made and what it was."""

    hand: HandRow
    action: str
    version: int


def entry_done(db: sqlite_utils.Database, match_id: int, entry_key: str | None) -> Done | None:
    """The change this phone's key already made in the match (a retry after a lost answer), if any."""
    if not entry_key:
        return None
    rows = list(db.query("SELECT h.*, r.action AS r_action, r.version AS r_version FROM revisions r "
                         "JOIN hands h ON h.id = r.hand_id WHERE r.entry_key = ? AND h.match_id = ? "
                         "ORDER BY r.id LIMIT 1", [entry_key, match_id]))
    if not rows:
        return None
    return Done(_hand_row(rows[0]), rows[0]["r_action"], rows[0]["r_version"])


def add_hand(db: sqlite_utils.Database, match_id: int, record: dict[str, Any],
             expected_count: int | None = None, entry_key: str | None = None) -> HandRow:
    """Append a hand; ``expected_count`` is how many hands the phone saw when it started.

    If somebody saved a hand in between, the hand this phone meant as hand N
    would silently become hand N+1: Conflict instead, with the hand that was saved.
    A hand already stored under ``entry_key`` (the phone retrying) is returned as it is.
    """
    stamp = now()
    with db.atomic():
        _touch(db, match_id, stamp)
        done = entry_done(db, match_id, entry_key)
        if done is not None:
            return done.hand
        current = list_hands(db, match_id)
        if expected_count is not None and len(current) != expected_count:
            latest = current[-1] if current else None
            raise Conflict(
                f"Hand {expected_count + 1} was saved from another phone while you were entering it.",
                latest,
            )
        positions = list(db.query("SELECT MAX(position) AS p FROM hands WHERE match_id = ?", [match_id]))
        position = (positions[0]["p"] or 0) + 1
        hand_id = _insert_hand(db, match_id, position, record, stamp, entry_key)
    return _hand_row(next(iter(db.query("SELECT * FROM hands WHERE id = ?", [hand_id]))))


def _change(db: sqlite_utils.Database, match_id: int, key: str, expected_version: int | None,
            action: str, record: dict[str, Any] | None, deleted: bool | None,
            entry_key: str | None = None) -> HandRow:
    stamp = now()
    with db.atomic():
        _touch(db, match_id, stamp)
        done = entry_done(db, match_id, entry_key)
        if done is not None and done.hand.key == key:  # a retry: this change is stored already
            return get_hand(db, match_id, key)
        hand = get_hand(db, match_id, key)
        if expected_version is not None and hand.version != expected_version:
            raise Conflict("This hand was changed from another phone while you were editing it.", hand)
        version = hand.version + 1
        new_record = hand.record if record is None else record
        changes: dict[str, Any] = {"version": version, "record": json.dumps(new_record, ensure_ascii=False),
                                   "updated_at": stamp}
        if deleted is not None:
            changes["deleted_at"] = stamp if deleted else None
        db.table("hands").update(hand.id, changes)
        _revision(db, hand.id, version, action, new_record, stamp, entry_key)
        return get_hand(db, match_id, key)


def update_hand(db: sqlite_utils.Database, match_id: int, key: str, record: dict[str, Any],
                expected_version: int | None = None, entry_key: str | None = None) -> HandRow:
    """Save an edit as a new revision (once per ``entry_key``)."""
    return _change(db, match_id, key, expected_version, "edit", record, None, entry_key)


def delete_hand(db: sqlite_utils.Database, match_id: int, key: str, expected_version: int | None = None,
                entry_key: str | None = None) -> HandRow:
    """Mark a hand deleted (a revision too); :func:`undelete_hand` brings it back."""
    return _change(db, match_id, key, expected_version, "delete", None, True, entry_key)


def undelete_hand(db: sqlite_utils.Database, match_id: int, key: str,
                  expected_version: int | None = None, entry_key: str | None = None) -> HandRow:
    """Bring a deleted hand back to its place in the match (a revision too)."""
    return _change(db, match_id, key, expected_version, "undelete", None, False, entry_key)


def restore_revision(db: sqlite_utils.Database, match_id: int, key: str, version: int,
                     expected_version: int | None = None, entry_key: str | None = None) -> HandRow:
    """Make an old revision's record the current one (itself a new revision, undeleting the hand)."""
    with db.atomic():
        # one transaction, so the revision read is the one restored even if a save lands in between
        _touch(db, match_id, now())
        hand = get_hand(db, match_id, key)
        old = get_revision(db, hand.id, version)
        return _change(db, match_id, key, expected_version, "restore", old.record, False, entry_key)


def match_state(db: sqlite_utils.Database, match_id: int) -> str:
    """A tag that changes with every change to the match's hands (add, edit, delete, restore).

    Every change makes a revision, so the number of revisions grows with each one.
    """
    row = db.execute("SELECT COUNT(*), COALESCE(MAX(r.id), 0) FROM revisions r JOIN hands h ON h.id = r.hand_id "
                     "WHERE h.match_id = ?", [match_id]).fetchone()
    return f"{row[0]}-{row[1]}"


def get_revision(db: sqlite_utils.Database, hand_id: int, version: int) -> Revision:
    """One saved state of a hand; NotFound if the hand never had that version."""
    if not 0 < version < 2**63:  # beyond SQLite's integers: no such revision, not an OverflowError
        raise NotFound("no such revision")
    rows = list(db.query("SELECT * FROM revisions WHERE hand_id = ? AND version = ?", [hand_id, version]))
    if not rows:
        raise NotFound("no such revision")
    return _revision_row(rows[0])


def revisions(db: sqlite_utils.Database, hand_id: int) -> list[Revision]:
    """Every saved state of a hand, oldest first."""
    rows = db.query("SELECT * FROM revisions WHERE hand_id = ? ORDER BY version", [hand_id])
    return [_revision_row(r) for r in rows]


def _revision_row(row: dict[str, Any]) -> Revision:
    return Revision(row["version"], row["action"], json.loads(row["record"]), row["created_at"])
