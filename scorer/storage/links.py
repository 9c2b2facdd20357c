"""Two small stores beside the matches: new links for a match, a club or a night, and hands kept for audit
links.

Kept apart from store.py because neither needs the other: each function opens its own
transaction and touches only its own rows, and the tables come from migrations appended
to ``db.MIGRATIONS``.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlite_utils

from ..engine.limits import AUDIT_KEEP_DAYS, MAX_AUDITS_KEPT
from . import clubs as club_store
from . import nights as night_store
from . import store
from .db import token_key

# --- new links -------------------------------------------------------------------------


def renew_links(db: sqlite_utils.Database, match_id: int) -> store.MatchRow:
    """New edit and view tokens for the match (the old ones open nothing from now on), the change noted."""
    stamp = store.now()
    edit, view = store.new_token(), store.new_token()
    with store.writing(db):  # in turn with every other writer, as a save
        db.execute("UPDATE matches SET edit_token = ?, view_token = ?, edit_key = ?, view_key = ?, updated_at = ? "
                   "WHERE id = ?", [edit, view, token_key(edit), token_key(view), stamp, match_id])
        db.execute("INSERT INTO link_changes (match_id, changed_at) VALUES (?, ?)", [match_id, stamp])
    return store.get_match(db, match_id)


def link_changes(db: sqlite_utils.Database, match_id: int) -> list[str]:
    """When the match's links were replaced, newest first (UTC stamps)."""
    rows = db.execute("SELECT changed_at FROM link_changes WHERE match_id = ? ORDER BY id DESC", [match_id])
    return [row[0] for row in rows.fetchall()]


RENEW_STEP = 250
"""Matches given new links in one write when a club's or a night's links are renewed: a club of 10,000
matches took 1.3 s in one write, every save waiting behind it; a step of 250 takes a few tens of ms."""


def _token_rows(ids: list[int], stamp: str) -> list[tuple[str, str, str, str, str, int]]:
    """New edit and view tokens (and their keys) for these rows, made before the write lock is taken."""
    rows = []
    for row_id in ids:
        edit, view = store.new_token(), store.new_token()
        rows.append((edit, view, token_key(edit), token_key(view), stamp, row_id))
    return rows


def _write_links(db: sqlite_utils.Database, table: str, rows: list[tuple[str, str, str, str, str, int]]) -> None:
    """Write new tokens into rows of ``matches``, ``clubs`` or ``nights`` (inside the caller's write), each
    change noted where its kind notes them."""
    db.conn.executemany(f"UPDATE {table} SET edit_token = ?, view_token = ?, edit_key = ?, view_key = ?, "
                        "updated_at = ? WHERE id = ?", rows)
    owner = {"matches": "match_id", "clubs": "club_id", "nights": "night_id"}[table]
    changes = {"matches": "link_changes", "clubs": "club_link_changes", "nights": "night_link_changes"}[table]
    db.conn.executemany(f"INSERT INTO {changes} ({owner}, changed_at) VALUES (?, ?)",
                        [(row[-1], row[-2]) for row in rows])


def _renew_matches(db: sqlite_utils.Database, ids: list[int], stamp: str) -> None:
    """New links for these matches, :data:`RENEW_STEP` to a write: a save waits behind one step, not
    behind the whole club. The club's or night's own links went first, in one write, so the old ones
    reach none of these matches any more while the steps go on."""
    for start in range(0, len(ids), RENEW_STEP):
        rows = _token_rows(ids[start:start + RENEW_STEP], stamp)
        with store.writing(db):
            _write_links(db, "matches", rows)


def renew_club_links(db: sqlite_utils.Database, club_id: int) -> club_store.ClubRow:
    """New links for the club, and with them for every one of its nights and matches: the old ones open
    nothing from now on.

    The club's edit page lists each club match and night by its edit link, so whoever held the club's
    edit link could have kept those too: new club links alone would leave a leaked edit link editing every
    club match for good. Everything the club's edit page reaches is renewed, so an old link opens nothing,
    as an old match link does (404): the club and its nights in one write, then the matches in steps.
    """
    stamp = store.now()
    with store.writing(db):  # in turn with every other writer
        matches = [r[0] for r in db.execute("SELECT match_id FROM club_matches WHERE club_id = ?", [club_id])]
        nights = [r[0] for r in db.execute("SELECT id FROM nights WHERE club_id = ?", [club_id])]
        _write_links(db, "clubs", _token_rows([club_id], stamp))
        _write_links(db, "nights", _token_rows(nights, stamp))
    _renew_matches(db, matches, stamp)
    return club_store.get_club(db, club_id)


def renew_night_links(db: sqlite_utils.Database, night_id: int) -> night_store.NightRow:
    """New links for the night and for its tables' matches (its edit page and table cards give their
    edit links): the old ones open nothing from now on. The club's own links stay: they are the club's to
    renew (which renews the night's too)."""
    stamp = store.now()
    with store.writing(db):
        matches = [r[0] for r in db.execute("SELECT match_id FROM night_tables WHERE night_id = ?", [night_id])]
        _write_links(db, "nights", _token_rows([night_id], stamp))
    _renew_matches(db, matches, stamp)
    return night_store.get_night(db, night_id)


def owner_link_changes(db: sqlite_utils.Database, kind: str, owner_id: int) -> list[str]:
    """When a club's (``kind`` "club") or a night's ("night") links were replaced, newest first."""
    table = {"club": "club_link_changes", "night": "night_link_changes"}[kind]
    rows = db.execute(f"SELECT changed_at FROM {table} WHERE {kind}_id = ? ORDER BY id DESC LIMIT 20", [owner_id])
    return [row[0] for row in rows.fetchall()]


# --- hands kept for audit links -----------------------------------------------------------


def keep_audit(db: sqlite_utils.Database, record: dict[str, Any]) -> str:
    """Keep a hand record for its audit link; returns its key (the hash of the canonical record).

    The same record always gets the same key, so keeping it twice keeps it once. Records
    older than AUDIT_KEEP_DAYS, and the oldest past MAX_AUDITS_KEPT, are let go.
    """
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    key = hashlib.sha256(text.encode()).hexdigest()[:32]
    stamp = store.now()
    cutoff = (datetime.now(UTC) - timedelta(days=AUDIT_KEEP_DAYS)).replace(microsecond=0).isoformat()
    with store.writing(db):  # in turn with every other writer, as a save
        db.execute("INSERT INTO kept_audits (key, record, kept_at) VALUES (?, ?, ?) "
                   "ON CONFLICT (key) DO UPDATE SET kept_at = excluded.kept_at", [key, text, stamp])
        db.execute("DELETE FROM kept_audits WHERE kept_at < ?", [cutoff.replace("+00:00", "Z")])
        db.execute("DELETE FROM kept_audits WHERE key NOT IN "
                   "(SELECT key FROM kept_audits ORDER BY kept_at DESC LIMIT ?)", [MAX_AUDITS_KEPT])
    return key


def kept_audit(db: sqlite_utils.Database, key: str) -> dict[str, Any]:
    """The record kept under ``key``; store.NotFound when there is none (or it was let go)."""
    if len(key) != 32 or not all(ch in "0123456789abcdef" for ch in key):
        raise store.NotFound("no such audit")
    row = db.execute("SELECT record FROM kept_audits WHERE key = ?", [key]).fetchone()
    if row is None:
        raise store.NotFound("no such audit")
    value = json.loads(row[0])
    assert isinstance(value, dict)
    return value
