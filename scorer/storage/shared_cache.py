"""The shared cache: rendered pages shared by the server's processes, a bounded SQLite file beside
the database.

The page cache (web/page_cache.py) keeps rendered pages in each process's memory. The server runs a process per
core and each phone's connection lands in one of them, so a page one process had rendered
was rendered again by the other: after every saved hand, on each process's first look, and
at a cold start every match's pages once per process (a hundred club nights: 2,400 match
pages and 2,400 entry forms of about 3 ms each in the first seconds, when the phones all
arrive). In the shared cache, what one process rendered the others find.

Losing it loses nothing a user entered. Writes do not wait for the disk
(``synchronous=OFF``), a write that finds the file busy is skipped, and any fault of the
file (missing, damaged, read-only, a disk full) turns the shared cache off in that process for a
minute with a warning: pages are then rendered as before. A key names everything its page depends on
(web/page_cache.py) and the server's run (``PAGE_CACHE_RUN``, made by scorer/serve.py at each start),
so a page made by another version of the code is never served. Bounded by bytes: past the
bound the oldest pages go first.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from pathlib import Path

log = logging.getLogger("scorer")

TRIM_EVERY = 64
"""Pages a process puts in the shared cache between two trims to its bound."""
BUSY_MS = 20
"""How long a write waits for the other processes' writes before it is skipped."""

RETRY_AFTER = 60.0
"""Seconds a process leaves the shared cache alone after a fault of its file (a disk full, no descriptor left)."""

_SCHEMA = "CREATE TABLE IF NOT EXISTS pages (key TEXT PRIMARY KEY, size INTEGER NOT NULL, page BLOB NOT NULL)"
"""The size before the page: a trim reads the sizes without walking every page's overflow pages."""


def shared_cache_path(database: str) -> str | None:
    """The shared cache's file for a database file (``scarto.sqlite`` -> ``scarto.cache.sqlite``); None in
    memory."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    path = Path(database)
    return str(path.with_name(path.stem + ".cache.sqlite"))


KEY_PARTS = (str, int, float, type(None))
"""What a key in the shared cache may hold: their ``repr`` is the same in every process (an object's may name
its address)."""


def digest(key: tuple[object, ...]) -> str:
    """A key's name in the shared cache: the same in every process (``hash()`` is not), from its ``repr``."""
    if not all(isinstance(part, KEY_PARTS) for part in key):
        raise TypeError(f"a key in the shared cache holds only strings, numbers and None: {key!r}")
    return hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest()


class SharedCache:
    """The shared cache in one file, used from many threads (each its own connection) and processes."""

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        self.limit = limit
        self._local = threading.local()
        self._puts = 0
        self._guard = threading.Lock()
        self._broken_until = 0.0

    def get(self, key: str) -> bytes | None:
        row = self._run("SELECT page FROM pages WHERE key = ?", (key,), fetch=True)
        return bytes(row[0]) if row else None

    def put(self, key: str, page: bytes) -> None:
        if len(page) > self.limit:
            return
        self._run("INSERT OR REPLACE INTO pages (key, size, page) VALUES (?, ?, ?)", (key, len(page), page))
        with self._guard:
            self._puts += 1
            due = self._puts % TRIM_EVERY == 0
        if due:
            self.trim()

    def trim(self) -> None:
        """The oldest pages out until the rest fit the bound (a replaced page counts as new)."""
        self._run("DELETE FROM pages WHERE rowid <= (SELECT rowid FROM (SELECT rowid, SUM(size) OVER "
                  "(ORDER BY rowid DESC) AS above FROM pages) WHERE above > ? ORDER BY rowid DESC LIMIT 1)",
                  (self.limit,))

    @property
    def broken(self) -> bool:
        """Left alone for now after a fault of its file (tried again :data:`RETRY_AFTER` seconds later)."""
        return time.monotonic() < self._broken_until

    def _run(self, sql: str, args: tuple[object, ...], *, fetch: bool = False) -> tuple[bytes] | None:
        if self.broken:
            return None
        try:
            cursor = self._connection().execute(sql, args)
            return cursor.fetchone() if fetch else None
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return None  # another process is writing: this page is rendered (or cached) without it
            self._break(exc)
        except sqlite3.Error as exc:
            self._break(exc)
        return None

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute(_SCHEMA)
            self._local.conn = conn
        return conn

    def _break(self, exc: sqlite3.Error) -> None:
        if not self.broken:
            log.warning("the shared page cache %s cannot be used (%s): pages are rendered in each "
                        "process for the next %.0f s", self.path, exc, RETRY_AFTER)
        self._broken_until = time.monotonic() + RETRY_AFTER
        conn = getattr(self._local, "conn", None)
        if conn is not None:  # made again at the next try (the file may have been replaced)
            self._local.conn = None
            conn.close()


def reset(path: str) -> None:
    """An empty shared cache at ``path`` as a server starts (the last run's pages would never be asked for
    again), the file made again if it is damaged."""
    for attempt in range(2):
        try:
            conn = sqlite3.connect(path, timeout=5, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("DROP TABLE IF EXISTS pages")  # its columns as this version has them
                conn.execute(_SCHEMA)
            finally:
                conn.close()
            return
        except sqlite3.DatabaseError as exc:
            if attempt or isinstance(exc, sqlite3.OperationalError):
                log.warning("the shared page cache %s cannot be used (%s)", path, exc)
                return
            for suffix in ("", "-wal", "-shm"):  # damaged: it only ever held copies
                Path(path + suffix).unlink(missing_ok=True)
