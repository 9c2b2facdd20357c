"""The request's database, and saves taken one at a time.

As in flaskr's ``db.py``: every module that reads or writes asks :func:`get_db` for the
request's handle, and the factory registers :func:`close_db` at its teardown, so no
blueprint imports the factory. The handle is the server thread's own connection, kept from
one request to the next (:func:`_thread_connection` says why). Saves of hands wait for their
turn here too (:class:`Turns`, :func:`take_save_turn`): the turn is about the one writer
SQLite allows, so it lives beside the connection.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import deque
from typing import Any

from flask import current_app, g, request

from ..storage import db as database

# --- the database -------------------------------------------------------------------


def get_db() -> Any:
    """The request's database handle (its thread's connection, opened on first use)."""
    if "db" not in g:
        g.db = _thread_connection(current_app.config["DATABASE"])
    return g.db


def close_db(_: BaseException | None = None) -> None:
    """End of the request: its connection goes back to its thread, no transaction left open."""
    db = g.pop("db", None)
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


# --- saves, one at a time in a process ------------------------------------------------


class Turns:
    """A lock taken in the order it was asked for (``threading.Lock`` wakes any waiter, so a save
    could wait behind many that came later: the p99 it is here for). The holder hands it straight
    to the longest waiter; a wait gives up after ``timeout`` seconds with ``False``."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._waiting: deque[threading.Lock] = deque()
        self._held = False

    def acquire(self, timeout: float) -> bool:
        with self._guard:
            if not self._held:
                self._held = True
                return True
            turn = threading.Lock()
            turn.acquire()
            self._waiting.append(turn)
        if turn.acquire(timeout=timeout):
            return True
        with self._guard:
            if turn in self._waiting:  # still waiting: leave the queue
                self._waiting.remove(turn)
                return False
        return True  # handed over as the wait ended: it is ours

    def release(self) -> None:
        with self._guard:
            if self._waiting:
                self._waiting.popleft().release()  # the lock stays held, by the next in line
            else:
                self._held = False


_SAVING = Turns()


SAVES = frozenset({"hands.new_hand", "hands.edit_hand", "clubs_api.add_hand"})
"""The routes that save a hand when they are posted to."""


def take_save_turn() -> None:
    """Let one request of this process save a hand at a time, from its first hook to its answer
    (a ``before_request`` registered ahead of the CSRF check; :func:`end_save_turn` gives it back).

    SQLite writes one transaction at a time anyway, and the GIL runs one thread's Python at a time:
    eight threads reading, judging and writing saves together only interleave, and the one holding
    the writer lock waits for the GIL behind the others at every statement (a convoy: with 16 phones
    saving, a p99 of 114-119 ms with 8 threads against 50-59 ms with one). Queued here in turn, the
    waiting threads sleep without the GIL and each save runs through as with one thread, while the
    threads not saving serve pages, assets and sheets (saves waiting hold their threads, as they did
    interleaved: eight saves at once still take eight). The turn is taken before the CSRF check reads
    and verifies the form, so that the waiting saves' checks do not run beside the save in turn (taken
    in the view: a p99 of 43-83 ms with 8 threads against 35-75 ms with one; taken here: 55-63 ms
    against 51-59, the same within the runs' noise). The wait is bounded as the writer lock's is (the
    503 page).
    """
    if request.method == "POST" and request.endpoint in SAVES:
        if not _SAVING.acquire(timeout=database.BUSY_TIMEOUT):
            raise sqlite3.OperationalError("database is locked")
        g.save_turn = True


def end_save_turn(_error: BaseException | None = None) -> None:
    """The request's end (``teardown_request``, whatever happened): its turn to the next save."""
    if g.pop("save_turn", False):
        _SAVING.release()


_KEPT = threading.local()


def _thread_connection(path: str) -> Any:
    """Each server thread keeps its connection from one request to the next.

    Opening one costs four PRAGMAs, and closing the last connection to a WAL database
    checkpoints it and syncs the file: per request, that was most of a save's time. The
    connection is made again if the file it opened is no longer the one at ``path``
    (replaced, or deleted), when the thread turns to another database, and when it was
    opened read-only and the file can be written again (:func:`_writable`).
    """
    kept = getattr(_KEPT, "connection", None)
    if kept is not None:
        kept_path, identity, db, writable = kept
        if kept_path == path and identity == _identity(path) and (writable or not _writable(path)):
            return db
        _KEPT.connection = None
        db.conn.close()
    writable = _writable(path)
    # create=False: a database deleted while the app runs is a 503 page, not a new empty one
    db = database.connect(path, create=False)
    _KEPT.connection = (path, _identity(path), db, writable and _writable(path))
    return db


def _writable(path: str) -> bool:
    """Whether this process may write the file at ``path`` now.

    SQLite opens a file it may not write read-only, without a word, and the connection stays so: a
    thread that opened its connection while the file was read-only (a permission change, a read-only
    mount) answered every save with "cannot write to its database" long after the file was writable
    again, until a restart (86 saves in 100 after a brief spell). So a connection opened while the file
    was not writable, before or after the opening, is opened again once it is; a connection opened
    writable keeps its descriptor's right to write whatever happens to the file's permissions.
    """
    try:
        return os.access(path, os.W_OK)
    except (OSError, ValueError):
        return False


def _identity(path: str) -> tuple[int, int] | None:
    """Which file is at ``path`` (device and inode), None if none (or an in-memory database)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino
