"""The SQLite adapter: one connection per request, WAL, numbered migrations.

Every write the app makes runs inside ``with db.atomic():`` (sqlite-utils'
transaction, savepoints when nested); ``with db.conn:`` would not roll back
sqlite-utils' own writes. A write transaction starts with a write (touching the
match row), so two requests that read then write queue on SQLite's lock
instead of failing on a lock upgrade.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]


def connect(path: str | Path) -> sqlite_utils.Database:
    """Open the database durably: WAL, synchronous=FULL, foreign keys, a busy timeout."""
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=30000")
    return sqlite_utils.Database(conn)


def _m001_initial(db: sqlite_utils.Database) -> None:
    db.table("matches").create(
        {
            "id": int, "edit_token": str, "view_token": str, "settings": str,
            "created_at": str, "updated_at": str,
        },
        pk="id", not_null={"edit_token", "view_token", "settings", "created_at", "updated_at"},
    )
    db.table("matches").create_index(["edit_token"], unique=True)
    db.table("matches").create_index(["view_token"], unique=True)
    db.table("hands").create(
        {
            "id": int, "match_id": int, "key": str, "position": int, "record": str,
            "version": int, "deleted_at": str, "created_at": str, "updated_at": str,
        },
        pk="id", foreign_keys=[("match_id", "matches", "id")],
        not_null={"match_id", "key", "position", "record", "version", "created_at", "updated_at"},
    )
    db.table("hands").create_index(["match_id", "key"], unique=True)
    db.table("hands").create_index(["match_id", "position"])
    db.table("revisions").create(
        {
            "id": int, "hand_id": int, "version": int, "action": str, "record": str,
            "created_at": str,
        },
        pk="id", foreign_keys=[("hand_id", "hands", "id")],
        not_null={"hand_id", "version", "action", "record", "created_at"},
    )
    db.table("revisions").create_index(["hand_id", "version"], unique=True)


def token_key(token: str) -> str:
    """What the database looks a token up by: its SHA-256, so the index walk reveals nothing of the token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _m002_token_keys(db: sqlite_utils.Database) -> None:
    """Look tokens up by their hash; the tokens themselves are then compared in constant time."""
    db.execute("ALTER TABLE matches ADD COLUMN edit_key TEXT")
    db.execute("ALTER TABLE matches ADD COLUMN view_key TEXT")
    for match_id, edit, view in db.execute("SELECT id, edit_token, view_token FROM matches").fetchall():
        db.execute("UPDATE matches SET edit_key = ?, view_key = ? WHERE id = ?",
                   [token_key(edit), token_key(view), match_id])
    db.execute("CREATE UNIQUE INDEX idx_matches_edit_key ON matches (edit_key)")
    db.execute("CREATE UNIQUE INDEX idx_matches_view_key ON matches (view_key)")


def _m003_clubs(db: sqlite_utils.Database) -> None:
    """Clubs: a roster of players that persist across matches, seasons, and a per-match summary cache.

    The index on hands (match_id, version) answers a club's summary stamps (count and sum of
    versions per match) from the index alone.
    """
    script = """
    CREATE TABLE clubs (id INTEGER PRIMARY KEY, name TEXT NOT NULL, edit_token TEXT NOT NULL,
        view_token TEXT NOT NULL, edit_key TEXT NOT NULL UNIQUE, view_key TEXT NOT NULL UNIQUE,
        settings TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE TABLE club_players (id INTEGER PRIMARY KEY, club_id INTEGER NOT NULL REFERENCES clubs(id),
        name TEXT NOT NULL, short TEXT, merged_into INTEGER REFERENCES club_players(id),
        created_at TEXT NOT NULL);
    CREATE INDEX idx_club_players_club ON club_players (club_id);
    CREATE TABLE club_matches (match_id INTEGER PRIMARY KEY REFERENCES matches(id),
        club_id INTEGER NOT NULL REFERENCES clubs(id), added_at TEXT NOT NULL);
    CREATE INDEX idx_club_matches_club ON club_matches (club_id);
    CREATE TABLE club_seats (match_id INTEGER NOT NULL REFERENCES club_matches(match_id), seat INTEGER NOT NULL,
        player_id INTEGER NOT NULL REFERENCES club_players(id), PRIMARY KEY (match_id, seat));
    CREATE INDEX idx_club_seats_player ON club_seats (player_id);
    CREATE TABLE club_seasons (id INTEGER PRIMARY KEY, club_id INTEGER NOT NULL REFERENCES clubs(id),
        name TEXT NOT NULL, start TEXT NOT NULL, "end" TEXT NOT NULL);
    CREATE TABLE club_events (id INTEGER PRIMARY KEY, club_id INTEGER NOT NULL REFERENCES clubs(id),
        kind TEXT NOT NULL, details TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE INDEX idx_club_events_club ON club_events (club_id);
    CREATE TABLE match_summaries (match_id INTEGER PRIMARY KEY REFERENCES matches(id), stamp TEXT NOT NULL,
        summary TEXT NOT NULL);
    CREATE INDEX idx_hands_stamp ON hands (match_id, version);
    """
    for statement in script.split(";"):  # one by one: executescript would commit the migration's transaction
        if statement.strip():
            db.execute(statement)


def _m004_entry_keys(db: sqlite_utils.Database) -> None:
    """Each change carries the phone's idempotency key, so a retried save is recognised, not stored twice."""
    db.execute("ALTER TABLE revisions ADD COLUMN entry_key TEXT")
    db.execute("CREATE INDEX idx_revisions_entry_key ON revisions (entry_key) WHERE entry_key IS NOT NULL")


def _m005_nights(db: sqlite_utils.Database) -> None:
    """Club nights: a night of a club under its own edit/view tokens (looked up by SHA-256 key), and
    its tables, each an ordinary club match (round, table number, seated players, the match id)."""
    script = """
    CREATE TABLE nights (id INTEGER PRIMARY KEY, club_id INTEGER NOT NULL REFERENCES clubs(id),
        title TEXT NOT NULL, date TEXT NOT NULL, edit_token TEXT NOT NULL, view_token TEXT NOT NULL,
        edit_key TEXT NOT NULL UNIQUE, view_key TEXT NOT NULL UNIQUE, settings TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE INDEX idx_nights_club ON nights (club_id);
    CREATE TABLE night_tables (night_id INTEGER NOT NULL REFERENCES nights(id), round INTEGER NOT NULL,
        number INTEGER NOT NULL, match_id INTEGER NOT NULL UNIQUE REFERENCES matches(id),
        players TEXT NOT NULL, PRIMARY KEY (night_id, round, number));
    """
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


MIGRATIONS: list[Migration] = [_m001_initial, _m002_token_keys, _m003_clubs, _m004_entry_keys, _m005_nights]
"""Numbered schema changes, applied in order; never edit one that has shipped, add another."""


def migrate(db: sqlite_utils.Database) -> int:
    """Apply the migrations not yet applied; returns the schema version."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    done = {row[0] for row in db.execute("SELECT number FROM _migrations").fetchall()}
    for number, migration in enumerate(MIGRATIONS, start=1):
        if number in done:
            continue
        with db.atomic():
            migration(db)
            db.execute(
                "INSERT INTO _migrations (number, applied_at) VALUES (?, datetime('now'))", [number]
            )
    return len(MIGRATIONS)


def backup(db: sqlite_utils.Database, target: str | Path) -> None:
    """Copy the live database with SQLite's online backup (safe while the app runs).

    The target is replaced whole; it may not be the live database itself.
    """
    live = db.execute("PRAGMA database_list").fetchone()[2]
    if live and Path(target).resolve() == Path(live).resolve():
        raise ValueError(f"{target} is the live database itself; choose another file")
    dest = sqlite3.connect(str(target))
    try:
        db.conn.backup(dest)
    finally:
        dest.close()
