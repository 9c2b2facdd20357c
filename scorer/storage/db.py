"""The SQLite adapter: one connection per request, WAL, numbered migrations.

Every write the app makes runs inside ``with db.atomic():`` (sqlite-utils'
transaction, savepoints when nested); ``with db.conn:`` would not roll back
sqlite-utils' own writes. A write transaction starts with a write (touching the
match row), so two requests that read then write queue on SQLite's lock
instead of failing on a lock upgrade.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import threading
import time
import unicodedata
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]


def connect(path: str | Path, *, create: bool = True) -> sqlite_utils.Database:
    """Open the database durably: WAL, synchronous=FULL, foreign keys, a busy timeout.

    ``create=False`` opens only a database that exists (SQLite would otherwise make a new
    empty file in place of one deleted): sqlite3.OperationalError instead.
    """
    if create or str(path) == ":memory:":
        conn = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    else:
        uri = "file:" + quote(str(Path(path).resolve())) + "?mode=rw"
        conn = sqlite3.connect(uri, timeout=30, isolation_level=None, check_same_thread=False, uri=True)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={int(1000 * BUSY_TIMEOUT)}")
    return sqlite_utils.Database(conn)


# --- one writer at a time, across the server's processes ----------------------------

BUSY_TIMEOUT = 30.0
"""Seconds a write waits for the database (SQLite's busy_timeout; the writer lock's wait too)."""
_PATHS: weakref.WeakKeyDictionary[sqlite_utils.Database, str] = weakref.WeakKeyDictionary()
_LOCK_FILES: OrderedDict[tuple[int, str], int] = OrderedDict()
_KEPT_LOCK_FILES = 8
"""Lock files a process keeps open, the most recently used (one database in production; the tests
open hundreds)."""
_LOCK_FILES_GUARD = threading.Lock()


@contextmanager
def writer_lock(db: sqlite_utils.Database, since: float | None = None) -> Iterator[None]:
    """Hold the database's writer lock (a ``flock`` on ``<database>-writer`` beside it) for a write.

    The server runs a process per core on one database. SQLite lets one of them write at a time,
    but a writer that finds the database locked sleeps and polls (1, 2, 5 ... up to 100 ms), so
    saves from two processes queued with a long tail (p99 750 ms against 240 ms with one thread).
    Queued on the file lock instead, the next writer goes on within a millisecond of the last one.

    The wait is bounded as SQLite's was: whatever holds the lock (or, once it is held, SQLite's
    own lock: the sqlite3 shell, a script), the write gives up after :data:`BUSY_TIMEOUT` seconds
    in all with "database is locked" (the 503 page), its SQLite wait set to what is left.

    Callers hold their process's lock around this one (the file lock is the process's, not the
    thread's) and take it before SQLite's: a transaction already open must not wait here, as it
    may hold SQLite's lock that the lock's holder waits for (see ``store.writing``). Without a
    file (an in-memory database, a folder that cannot take the lock file) SQLite's waiting remains.
    """
    handle = _lock_file(db)
    if handle is None:
        yield
        return
    deadline = (time.monotonic() if since is None else since) + BUSY_TIMEOUT  # ``since``: the write's first wait
    pause = 0.0002
    waiting = None
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if waiting is None:
                    waiting = _say_waiting(db)
                if time.monotonic() >= deadline:
                    raise sqlite3.OperationalError("database is locked") from None
                time.sleep(pause)
                pause = min(pause * 2, 0.002)  # short naps: the next writer follows within 2 ms
    finally:
        if waiting is not None and waiting >= 0:
            fcntl.flock(waiting, fcntl.LOCK_UN)
    try:
        left = max(1, int(1000 * (deadline - time.monotonic())))
        db.conn.execute(f"PRAGMA busy_timeout={left}")
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        db.conn.execute(f"PRAGMA busy_timeout={int(1000 * BUSY_TIMEOUT)}")


def _say_waiting(db: sqlite_utils.Database) -> int:
    """A writer of this process waits for the lock: a shared lock on ``<database>-waiting`` says so to a
    long write going in steps (:func:`writers_waiting`) until it has its turn. The descriptor holding it,
    or -1 when there is no such file."""
    handle = _lock_file(db, "-waiting")
    if handle is None:
        return -1
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return -1
    return handle


def writers_waiting(db: sqlite_utils.Database) -> bool:
    """Whether a writer of another process waits for the writer lock (:func:`_say_waiting`): a long write
    in steps lets it go first (storage/club_transfer.py's ``in_steps``). Its own descriptor: a lock of this
    process's own on the file is not another's."""
    path = database_path(db)
    if not path:
        return False
    try:
        handle = os.open(f"{path}-waiting", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(handle)


def database_path(db: sqlite_utils.Database) -> str:
    """The database's file ("" for one in memory), asked of SQLite once a connection."""
    path = _PATHS.get(db)
    if path is None:
        rows = db.execute("PRAGMA database_list").fetchall()
        path = _PATHS[db] = next((row[2] for row in rows if row[1] == "main"), "") or ""
    return path


def _lock_file(db: sqlite_utils.Database, suffix: str = "-writer") -> int | None:
    path = database_path(db)
    if not path:
        return None
    path += suffix
    key = (os.getpid(), path)  # a process forked from another opens its own: flock is per open file
    with _LOCK_FILES_GUARD:
        if key in _LOCK_FILES:
            _LOCK_FILES.move_to_end(key)
            return _LOCK_FILES[key]
        try:
            handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None  # a read-only folder: the write itself will say what is wrong
        _LOCK_FILES[key] = handle
        while len(_LOCK_FILES) > _KEPT_LOCK_FILES:  # none is held: the caller has its process's lock
            (pid, _path), old = _LOCK_FILES.popitem(last=False)
            if pid == os.getpid():
                os.close(old)
        return handle


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


OLD_VARIANT_SWITCHES = {
    "top_trump": "T20", "discard": "classic", "fool_discard": "restricted", "first_lead": "after_dealer",
    "overtrump": False, "fool_last_trick": "kept", "fool_forfeit": False, "ultimo": False,
}
"""What the presets ``four`` and ``piccolo`` meant before their revision (DECISIONS.md): the classic switches (they then
took the rule sheet's). Written out here, not read from the engine, so this migration never changes."""

RULES_KEPT = "rules_kept"
"""The revision action that tells, in a hand's history, that its match's rules were written out."""


def _m003_rules_kept_for_four_and_piccolo(db: sqlite_utils.Database) -> None:
    """Matches stored with preset ``four`` or ``piccolo`` keep the rules they were recorded under.

    Their ruleset becomes an object with every old switch written out (and the deal), over any
    switch the match already changed; each of their hands gets a revision saying so (same record).
    """
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    for match_id, text in db.execute("SELECT id, settings FROM matches").fetchall():
        settings = json.loads(text)
        given = settings.get("ruleset", "classic")
        preset = given if isinstance(given, str) else given.get("preset") if isinstance(given, dict) else None
        if preset not in ("four", "piccolo") or (isinstance(given, dict) and "deal" in given):
            continue
        changed = {k: v for k, v in given.items() if k != "preset"} if isinstance(given, dict) else {}
        settings["ruleset"] = {"preset": preset, **OLD_VARIANT_SWITCHES, "deal": preset, **changed}
        db.execute("UPDATE matches SET settings = ?, updated_at = ? WHERE id = ?",
                   [json.dumps(settings, ensure_ascii=False), stamp, match_id])
        for hand_id, version, record in db.execute(
                "SELECT id, version, record FROM hands WHERE match_id = ?", [match_id]).fetchall():
            db.execute("INSERT INTO revisions (hand_id, version, action, record, created_at) VALUES (?, ?, ?, ?, ?)",
                       [hand_id, version + 1, RULES_KEPT, record, stamp])
            db.execute("UPDATE hands SET version = ?, updated_at = ? WHERE id = ?", [version + 1, stamp, hand_id])


def _m004_hand_results(db: sqlite_utils.Database) -> None:
    """What the pages need of a stored hand, kept when it is saved (see store.py): its scores and
    problems, and the match's running totals after it, under the engine version that made them."""
    db.execute(
        "CREATE TABLE hand_results ("
        " hand_id INTEGER PRIMARY KEY REFERENCES hands(id),"
        " engine TEXT NOT NULL,"  # the engine's version: made again when it changes
        " version INTEGER NOT NULL,"  # the hand's version they are for
        " summary TEXT NOT NULL,"  # dealer, scores, problems (JSON)
        " totals TEXT NOT NULL,"  # the running totals after the hand (JSON)
        " counted INTEGER NOT NULL,"  # 0: recorded after the end of the match
        " finished INTEGER NOT NULL)"  # the match is over after this hand
    )
    # the current hands of a match in playing order, from the index alone: counting them and
    # finding where a page of them starts do not read the hands' rows
    db.execute("CREATE INDEX idx_hands_current ON hands (match_id, deleted_at, position, id)")


def _m005_link_changes(db: sqlite_utils.Database) -> None:
    """When a match's links were replaced by new ones (storage/links.py)."""
    db.execute("CREATE TABLE link_changes (id INTEGER PRIMARY KEY, match_id INTEGER NOT NULL "
               "REFERENCES matches (id), changed_at TEXT NOT NULL)")
    db.execute("CREATE INDEX idx_link_changes_match ON link_changes (match_id)")


def _m006_kept_audits(db: sqlite_utils.Database) -> None:
    """Hand records kept for a while for their audit links, by the hash of the record (storage/links.py)."""
    db.execute("CREATE TABLE kept_audits (key TEXT PRIMARY KEY, record TEXT NOT NULL, kept_at TEXT NOT NULL)")
    db.execute("CREATE INDEX idx_kept_audits_kept_at ON kept_audits (kept_at)")


def _m007_entry_keys(db: sqlite_utils.Database) -> None:
    """Each change carries the phone's idempotency key, so a retried save is recognised, not stored twice."""
    db.execute("ALTER TABLE revisions ADD COLUMN entry_key TEXT")
    db.execute("CREATE INDEX idx_revisions_entry_key ON revisions (entry_key) WHERE entry_key IS NOT NULL")


def _m008_clubs(db: sqlite_utils.Database) -> None:
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


def _m009_nights(db: sqlite_utils.Database) -> None:
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


def _m010_match_changes(db: sqlite_utils.Database) -> None:
    """A count of each match's changes (every hand added, edited, deleted or restored: one revision
    each), kept on the match row. A page tells from the row it reads anyway whether what it made
    before is still current: the state tag the phones poll, and the kept rendering of the match page.
    Counting the revisions instead took 0.8 ms a request at 1,000 hands. Existing matches start at
    their number of revisions."""
    db.execute("ALTER TABLE matches ADD COLUMN changes INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE matches SET changes = (SELECT COUNT(*) FROM revisions r JOIN hands h ON h.id = r.hand_id "
               "WHERE h.match_id = matches.id)")


def _m011_summary_file_sizes(db: sqlite_utils.Database) -> None:
    """A club's file in parts (storage/club_transfer.py, docs/CLUB.md).

    What a club match takes in the club's file (its bytes there, its current hands), kept with its
    summary under the same stamp: the file is cut into parts by these without writing out every
    match to measure it. Measured when the file is asked for (none after a summary is made again).
    A club opened from part 1 of a file in parts keeps which file (``file_from``, the id its parts
    carry), the part it takes next and how many matches its parts brought, so the others go in
    in order, each once, whatever else the club records meanwhile."""
    db.execute("ALTER TABLE match_summaries ADD COLUMN file_bytes INTEGER")
    db.execute("ALTER TABLE match_summaries ADD COLUMN file_hands INTEGER")
    db.execute("ALTER TABLE clubs ADD COLUMN file_from TEXT")
    db.execute("ALTER TABLE clubs ADD COLUMN file_next INTEGER")
    db.execute("ALTER TABLE clubs ADD COLUMN file_matches INTEGER")


END_LIMITS_THEN = {"hands": 500, "target": 10000}
"""The limits on how a match ends (engine/limits.py) as the next migration first applied them: written out
here, not read from the engine, so that the migration never changes."""


def _m012_ends_within_their_limits(db: sqlite_utils.Database) -> None:
    """A match (or a club's defaults) stored to end past the limits, sent by the API before it had them,
    ends at the limit: otherwise its stored settings would no longer read back and its pages would fail.
    Such a match's kept hand results go (they are made again, the end counted anew) and its pages change."""
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    for table in ("matches", "clubs"):
        for row_id, text in db.execute(f"SELECT id, settings FROM {table}").fetchall():
            settings = json.loads(text)
            end = settings.get("end")  # a club's settings are its defaults for new matches
            if not isinstance(end, dict) or not any(
                    isinstance(end.get(k), int) and end[k] > v for k, v in END_LIMITS_THEN.items()):
                continue
            settings["end"] = {k: min(v, END_LIMITS_THEN[k]) if isinstance(v, int) else v for k, v in end.items()}
            changes = ", changes = changes + 1" if table == "matches" else ""
            db.execute(f"UPDATE {table} SET settings = ?, updated_at = ?{changes} WHERE id = ?",
                       [json.dumps(settings, ensure_ascii=False), stamp, row_id])


def _m013_entry_digests(db: sqlite_utils.Database) -> None:
    """Beside each change's idempotency key, the digest of the body it came with (store.body_digest): the
    key then replays only that body, and the same key with another body is refused instead of being
    answered as if it had been saved. Changes stored before have none (taken as the same body)."""
    db.execute("ALTER TABLE revisions ADD COLUMN entry_digest TEXT")


def _m014_club_and_night_link_changes(db: sqlite_utils.Database) -> None:
    """When a club's or a night's links were replaced by new ones (storage/links.py), as link_changes
    keeps a match's."""
    db.execute("CREATE TABLE club_link_changes (id INTEGER PRIMARY KEY, club_id INTEGER NOT NULL "
               "REFERENCES clubs (id), changed_at TEXT NOT NULL)")
    db.execute("CREATE INDEX idx_club_link_changes_club ON club_link_changes (club_id)")
    db.execute("CREATE TABLE night_link_changes (id INTEGER PRIMARY KEY, night_id INTEGER NOT NULL "
               "REFERENCES nights (id), changed_at TEXT NOT NULL)")
    db.execute("CREATE INDEX idx_night_link_changes_night ON night_link_changes (night_id)")


HIDDEN_THEN = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
               (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
               (0x3164, 0x3164), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
               (0x1D173, 0x1D17A), (0xE0000, 0xE00FF))
"""The characters inside a name that show nothing, as records.check_name first refused them (format
characters and blank ones; variation selectors stay): written out here, not read from the engine, so that
the next migration never changes."""


def _breaks_then(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def _seen_text(text: str, kept: str = "") -> str:
    """A title, place, date (``kept`` empty: one line) or notes (``kept`` tab and line breaks) with the
    control characters and separators it may no longer hold made spaces (line breaks, in notes)."""
    if kept:
        return "".join(ch if ch in kept or not _breaks_then(ch) else "\n" if ch in "\u2028\u2029" else ""
                       for ch in text)
    return " ".join("".join(" " if _breaks_then(ch) else ch for ch in text).split())


def _seen_name(name: str) -> str:
    """A name with what shows nothing taken out and its control characters made spaces."""
    def hidden(ch: str) -> bool:
        code = ord(ch)
        return unicodedata.category(ch) == "Cf" or (not ch.isspace() and any(
            low <= code <= high for low, high in HIDDEN_THEN))
    return " ".join("".join(" " if _breaks_then(ch) else "" if hidden(ch) else ch for ch in name).split())


def _renamed(value: Any, names: dict[str, str]) -> Any:
    """A record with each name (a value, or an object's key: the players' maps) replaced."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    if isinstance(value, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in value.items()}
    return value


def _seen_names(players: list[Any]) -> dict[str, str]:
    """The players' names that change, each to one that can be seen and is still unique in the match."""
    taken = {p for p in players if isinstance(p, str) and _seen_name(p) == p}
    renames = {}
    for seat, name in enumerate(players, start=1):
        if not isinstance(name, str) or _seen_name(name) == name:
            continue
        new = _seen_name(name) or f"Player {seat}"
        base, n = new, 2
        while new in taken:
            new, n = f"{base} ({n})", n + 1
        taken.add(new)
        renames[name] = new
    return renames


def _seen_record(record: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    record = _renamed(record, names) if names else record
    for key, kept in (("notes", "\t\n\r"), ("recorded_at", "")):
        if isinstance(record.get(key), str):
            record[key] = _seen_text(record[key], kept)
    return record


def _m015_texts_and_names_that_can_be_seen(db: sqlite_utils.Database) -> None:
    """Titles, places and notes stored with control characters, and names holding characters that show
    nothing, as the reader now refuses them (records.check_text, check_name): each made what the reader
    takes, so a match stored before still opens. A title's NUL or line break becomes a space; a name loses
    its soft hyphen or U+2063 ("Bru\u00adno" is Bruno; "Bruno (2)" if the match has a Bruno already, "Player
    2" for a name of nothing but such characters), in the match's settings and every hand and revision.
    Only the rows holding such characters are rewritten; their match's kept results go and its pages change."""
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    suspect = ("instr({0}, '\\u00') OR instr({0}, char(127)) OR instr({0}, char(8232)) OR "
               "instr({0}, char(8233))")
    for table in ("matches", "clubs"):
        for row_id, text in db.execute(f"SELECT id, settings FROM {table}").fetchall():
            settings = json.loads(text)
            names = _seen_names(settings["players"]) if isinstance(settings.get("players"), list) else {}
            new = _renamed(settings, names) if names else dict(settings)
            for key in ("title", "place", "date"):
                if isinstance(new.get(key), str):
                    new[key] = _seen_text(new[key])
            hands = [] if table == "clubs" else db.execute(
                f"SELECT id, record FROM hands WHERE match_id = ? AND ({'1' if names else suspect.format('record')})",
                [row_id]).fetchall()
            revisions = [] if table == "clubs" else db.execute(
                "SELECT r.id, r.record FROM revisions r JOIN hands h ON h.id = r.hand_id WHERE h.match_id = ? "
                f"AND ({'1' if names else suspect.format('r.record')})", [row_id]).fetchall()
            changed = new != settings
            for rows, target in ((hands, "hands"), (revisions, "revisions")):
                for record_id, record_text in rows:
                    record = json.loads(record_text)
                    seen = _seen_record(json.loads(record_text), names)
                    if seen != record:
                        changed = True
                        db.execute(f"UPDATE {target} SET record = ? WHERE id = ?",
                                   [json.dumps(seen, ensure_ascii=False), record_id])
            if not changed:
                continue
            more = ", changes = changes + 1" if table == "matches" else ""
            db.execute(f"UPDATE {table} SET settings = ?, updated_at = ?{more} WHERE id = ?",
                       [json.dumps(new, ensure_ascii=False), stamp, row_id])
            if table == "matches":
                db.execute("DELETE FROM hand_results WHERE hand_id IN (SELECT id FROM hands WHERE match_id = ?)",
                           [row_id])


def _m016_season_ranking(db: sqlite_utils.Database) -> None:
    """A season's ranking rule (engine/seasons.py): what it counts ("all", "matches" or "nights") and its
    N. A season stored before ranks by the total, as it did."""
    db.execute("ALTER TABLE club_seasons ADD COLUMN counts TEXT NOT NULL DEFAULT 'all'")
    db.execute("ALTER TABLE club_seasons ADD COLUMN best INTEGER")


def _m017_hand_reviews(db: sqlite_utils.Database) -> None:
    """Each hand's review (storage/reviews.py), kept beside its results: made once in a worker process,
    then read. Stale when the hand's version, the engine or the first trick weighed differ; it goes
    with its hand."""
    db.execute(
        "CREATE TABLE hand_reviews ("
        " hand_id INTEGER PRIMARY KEY REFERENCES hands(id) ON DELETE CASCADE,"
        " engine TEXT NOT NULL,"  # the engine's version that made it
        " version INTEGER NOT NULL,"  # the hand's version it is for
        " from_trick INTEGER NOT NULL,"  # the first trick weighed
        " review TEXT,"  # scarto-analysis/1 (JSON); NULL when it could not be made
        " given_up TEXT,"  # each seat's points given up (JSON), what a player's statistics read
        " problem TEXT,"  # why not (the search's limit, the time limit)
        " made_at TEXT NOT NULL)"
    )


MIGRATIONS: list[Migration] = [_m001_initial, _m002_token_keys, _m003_rules_kept_for_four_and_piccolo,
                               _m004_hand_results, _m005_link_changes, _m006_kept_audits, _m007_entry_keys,
                               _m008_clubs, _m009_nights, _m010_match_changes,
                               _m011_summary_file_sizes, _m012_ends_within_their_limits, _m013_entry_digests,
                               _m014_club_and_night_link_changes, _m015_texts_and_names_that_can_be_seen,
                               _m016_season_ranking, _m017_hand_reviews]
"""Numbered schema changes, applied in order; never edit one that has shipped, add another.
One that changes hands or a match's settings sets the match's ``updated_at`` and adds to its
``changes`` (the state the phones poll and the cached pages are keyed on: web/page_cache.py)."""


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
