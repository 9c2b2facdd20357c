"""Two small stores beside the matches: new links for a match, and hands kept for audit links.

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
