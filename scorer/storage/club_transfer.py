"""Club files in and out of SQLite: a club written as ``scarto-club/1`` (whole, or in parts when it is
too large for one file), a file read by :mod:`scorer.engine.club_files` stored as a new club, or as one
more part of a club, and an import that never finished forgotten.

Apart from :mod:`scorer.storage.clubs` (the roster, seasons, summaries and a club's state) because
moving a whole club is its own work: the file is measured and cut in parts, and an import is written
hidden, in short steps that let a table's saves go first, then revealed in one write.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlite_utils

from ..engine.club_files import ClubFile, ClubHead, FilePart, PartMark, cut_parts, entry_bytes, file_bytes
from ..engine.errors import ReadError
from ..engine.limits import MAX_CLUB_MATCHES
from . import store
from .clubs import (
    HIDDEN,
    ClubError,
    ClubRow,
    RosterNames,
    add_record,
    add_season,
    club_matches,
    count_matches,
    create_club,
    event,
    events,
    get_club,
    roster,
    seasons,
    seats,
    summaries,
    summary_stamp,
)
from .db import token_key


def export_club(db: sqlite_utils.Database, club: ClubRow, part: int | None = None) -> dict[str, Any]:
    """The club as a ``scarto-club/1`` value: name, defaults, roster, seasons, matches, history.

    A club too large for one file (:func:`file_parts`) is written a part at a time: ``part`` (from 1)
    says which, and :class:`InParts` answers a call without one. A club of one part is its whole file
    (no ``part`` key), as ``part`` 1 is; another part of it is NotFound.
    """
    _measure(db, club)  # every match's size current, then one snapshot
    with db.atomic():
        file = _ClubFileWriter(db, club)
        parts = file.parts()
        if len(parts) == 1 and part in (None, 1):
            return file.value(parts[0], whole=True)
        if part is None:
            raise InParts(len(parts))
        if not 1 <= part <= len(parts) or len(parts) == 1:
            raise store.NotFound(f"part {part}")
        return file.value(parts[part - 1], whole=False, of=len(parts))


def file_parts(db: sqlite_utils.Database, club: ClubRow) -> list[FilePart]:
    """The parts the club's file is written in, oldest matches first: one when the club fits one file."""
    _measure(db, club)
    with db.atomic():
        return _ClubFileWriter(db, club).parts()


def _measure(db: sqlite_utils.Database, club: ClubRow) -> None:
    """What each match of the club takes in its file, kept under the summary's stamp: measured again
    only for the matches that changed since (their summary made again has none), each written out once."""
    summaries(db, club.id)
    stale = db.execute("SELECT s.match_id, s.stamp FROM match_summaries s JOIN club_matches c "
                       "ON c.match_id = s.match_id WHERE c.club_id = ? AND s.file_bytes IS NULL",
                       [club.id]).fetchall()
    for match_id, stamp in stale:
        data = store.match_data(db, store.get_match(db, match_id))
        with store.writing(db):  # a summary made again meanwhile has its own stamp: this size is not its
            db.execute("UPDATE match_summaries SET file_bytes = ?, file_hands = ? WHERE match_id = ? AND stamp = ?",
                       [file_bytes(data), len(data["hands"]), match_id, stamp])


def file_id(db: sqlite_utils.Database, club: ClubRow) -> str:
    """The id a club's parts carry (``part.file``), so that a part goes only into the club its part 1
    made: the id of the file the club was itself opened from, else one of its own (from its edit token,
    which it does not reveal)."""
    row = db.execute("SELECT file_from FROM clubs WHERE id = ?", [club.id]).fetchone()
    if row and row[0]:
        return str(row[0])
    return hashlib.sha256(b"scarto-club-file\0" + club.edit_token.encode()).hexdigest()[:16]


class InParts(ClubError):
    """The club's file is too large for one file: it is written in parts, each asked for by number."""

    def __init__(self, parts: int) -> None:
        super().__init__(f"in {parts} parts")
        self.parts = parts


class _ClubFileWriter:
    """The club's file as it is written, whole or in parts: one reading of the roster, seats and
    matches for both cutting the file into parts and writing one."""

    def __init__(self, db: sqlite_utils.Database, club: ClubRow) -> None:
        self.db, self.club = db, club
        players = roster(db, club.id, merged=True)
        self.players = players
        self.names = {p.id: p.name for p in players}
        self.table = seats(db, club.id)
        self.rows = list(reversed(club_matches(db, club.id)))

    def _mapping(self, row: store.MatchRow) -> dict[str, str]:
        """The ``roster`` entry of a match: its seats' roster names, where they differ from the seat's."""
        return {seat: self.names[pid] for seat, pid in zip(row.players, self.table.get(row.id, ()), strict=True)
                if self.names[pid] != seat}

    def head(self) -> ClubHead:
        """What the file holds besides its matches: the roster as it stands, the seasons, the history."""
        return ClubHead(self.club.name, self.club.settings,
                        [(p.name, p.short) for p in self.players if p.merged_into is None],
                        [(s.name, s.start, s.end, s.rule) for s in seasons(self.db, self.club.id)],
                        [{"at": e.created_at, "event": e.kind, **e.details} for e in events(self.db, self.club.id)])

    def parts(self) -> list[FilePart]:
        """The matches cut into parts (:func:`cut_parts`), from the sizes kept with the summaries
        (:func:`_measure` has made them current; a match changed since is measured here)."""
        sizes = {match_id: (size, hands) for match_id, stamp, size, hands, updated_at, changes
                 in self.db.execute(
                     "SELECT s.match_id, s.stamp, s.file_bytes, s.file_hands, m.updated_at, m.changes "
                     "FROM club_matches c JOIN matches m ON m.id = c.match_id "
                     "JOIN match_summaries s ON s.match_id = c.match_id WHERE c.club_id = ?",
                     [self.club.id]).fetchall()
                 if size is not None and stamp == summary_stamp(updated_at, changes)}
        for row in self.rows:
            if row.id not in sizes:
                data = store.match_data(self.db, row)
                sizes[row.id] = (file_bytes(data), len(data["hands"]))
        head = self.head()
        return cut_parts(lambda mark, first: head.value(mark, first=first),
                         [(entry_bytes(sizes[r.id][0], self._mapping(r)), sizes[r.id][1]) for r in self.rows])

    def value(self, part: FilePart, *, whole: bool, of: int = 1) -> dict[str, Any]:
        """One part's file (the whole club's when ``whole``)."""
        mark = None if whole else PartMark(file_id(self.db, self.club), part.number, of, part.first + 1)
        out = self.head().value(mark, first=part.number == 1)
        for row in self.rows[part.first:part.first + part.count]:
            data = store.match_data(self.db, row)
            mapping = self._mapping(row)
            if mapping:
                data["roster"] = mapping
            out["matches"].append(data)
        return out


STEP_SECONDS = 0.02
"""How long one step of a long write (a club file's matches) holds the write lock, about: then it lets the
other writers in. A club file of 10,000 matches held every save of the server for up to 29 s in one
transaction; in steps, a save waits one step at most."""
STEP_PAUSE = 0.004
"""Seconds between two steps: a writer of another server process looks at the lock every 2 ms at most."""
YIELD_SECONDS = 1.0
"""How long a long write lets waiting writers go first between two steps, at most (it goes on after that:
saves without a pause between them cannot hold it back for good)."""
ABANDONED_SECONDS = 3600
"""A club still hidden this long after it was begun was being stored by a process that died (a club
file takes a minute at most): it is taken away, in steps, when the next club file is stored."""


def in_steps(db: sqlite_utils.Database, items: Iterable[Any], write: Callable[[Any], object]) -> None:
    """``write`` each item, in transactions of :data:`STEP_SECONDS` or so, with a pause between them: a
    long write no longer holds the other writers (a save to another match waits one step at most).

    A transaction ends between two items, never within one: each item is written whole or not at all."""
    pending = iter(items)
    item = next(pending, _END)
    while item is not _END:
        with store.writing(db):
            started = time.monotonic()
            while item is not _END:
                write(item)
                item = next(pending, _END)
                if time.monotonic() - started >= STEP_SECONDS:
                    break
        if item is not _END:
            _let_others_write(db)


def _let_others_write(db: sqlite_utils.Database) -> None:
    """The pause between two steps: :data:`STEP_PAUSE`, and then as long as another writer waits (a save of
    this process or another), up to :data:`YIELD_SECONDS`. On a busy machine a writer of another process
    may not have run within the pause: the next step would have gone first, and the save waited a step
    more each time (p99 250 ms behind a club file on a machine loaded 14 times over)."""
    time.sleep(STEP_PAUSE)
    until = time.monotonic() + YIELD_SECONDS
    while store.writers_waiting(db) and time.monotonic() < until:
        time.sleep(STEP_PAUSE / 2)


_END = object()


def import_club(db: sqlite_utils.Database, club_file: ClubFile) -> ClubRow:
    """Store a club read from a file: its roster, seasons, matches (new tokens) and history.

    The file is a whole club's or the first part of one; a later part is added to the club the
    first made (:func:`add_part`). Its hands are judged before (:attr:`ClubFile.results`), and it is
    stored in steps (:func:`in_steps`) as a hidden club that its last step reveals: a file that fails
    half way, or a server killed meanwhile, leaves no club to be seen (what it stored is taken away,
    at once or with the next club file: :func:`forget_club`)."""
    if club_file.part is not None and club_file.part.number > 1:
        raise ReadError.of("part.not_first", "part", number=club_file.part.number, of=club_file.part.of)
    judged = club_file.results  # outside the write lock (the web layer has judged them already)
    _forget_abandoned(db)
    club = create_club(db, club_file.name, club_file.players, club_file.defaults, hidden=True)
    try:
        names = RosterNames(db, club.id)
        in_steps(db, club_file.seasons, lambda season: add_season(db, club.id, *season))
        in_steps(db, zip(club_file.matches, judged, strict=True),
                 lambda pair: add_record(db, club.id, pair[0][0], pair[0][1], names, pair[1]))
        with store.writing(db):
            for entry in club_file.history:
                details = {k: v for k, v in entry.items() if k not in ("at", "event")}
                event(db, club.id, entry["event"], details, entry["at"])
            if club_file.part is not None:
                db.execute("UPDATE clubs SET file_from = ?, file_next = 2, file_matches = ? WHERE id = ?",
                           [club_file.part.file, len(club_file.matches), club.id])
            _reveal(db, club)
    except BaseException:
        forget_club(db, club.id)
        raise
    return get_club(db, club.id)


def _reveal(db: sqlite_utils.Database, club: ClubRow) -> None:
    """The hidden club's tokens open it from now on (within the caller's transaction)."""
    db.execute("UPDATE clubs SET edit_key = ?, view_key = ? WHERE id = ?",
               [token_key(club.edit_token), token_key(club.view_token), club.id])


def forget_club(db: sqlite_utils.Database, club_id: int) -> None:
    """Take a hidden club away, with every match, hand and player it has, in steps; a club that can be
    seen is left as it is. Best effort: a failure to forget is logged (the club stays hidden)."""
    try:
        if not _is_hidden(db, club_id):
            return
        while True:
            with store.writing(db):
                started = time.monotonic()
                batch = [r[0] for r in db.execute(
                    "SELECT match_id FROM club_matches WHERE club_id = ? LIMIT 100", [club_id]).fetchall()]
                for match_id in batch:
                    _forget_match(db, match_id)
                    if time.monotonic() - started >= STEP_SECONDS:
                        break
                if not batch:
                    for table in ("club_events", "club_seasons"):
                        db.execute(f"DELETE FROM {table} WHERE club_id = ?", [club_id])
                    db.execute("UPDATE club_players SET merged_into = NULL WHERE club_id = ?", [club_id])
                    db.execute("DELETE FROM club_players WHERE club_id = ?", [club_id])
                    db.execute("DELETE FROM clubs WHERE id = ?", [club_id])
                    return
            _let_others_write(db)
    except Exception:  # noqa: BLE001 - what failed is said already; the hidden club harms nobody
        logging.getLogger("scorer").exception("a hidden club (%s) could not be taken away", club_id)


def _forget_match(db: sqlite_utils.Database, match_id: int) -> None:
    hands = "SELECT id FROM hands WHERE match_id = ?"
    db.execute(f"DELETE FROM revisions WHERE hand_id IN ({hands})", [match_id])
    db.execute(f"DELETE FROM hand_results WHERE hand_id IN ({hands})", [match_id])
    for table in ("hands", "club_seats", "match_summaries", "link_changes"):
        db.execute(f"DELETE FROM {table} WHERE match_id = ?", [match_id])
    db.execute("DELETE FROM club_matches WHERE match_id = ?", [match_id])
    db.execute("DELETE FROM matches WHERE id = ?", [match_id])


def _is_hidden(db: sqlite_utils.Database, club_id: int) -> bool:
    row = db.execute("SELECT edit_key FROM clubs WHERE id = ?", [club_id]).fetchone()
    return row is not None and str(row[0]).startswith(HIDDEN)


def _forget_abandoned(db: sqlite_utils.Database) -> None:
    """Take away the hidden clubs whose storing was abandoned (:data:`ABANDONED_SECONDS` ago or more)."""
    cutoff = (datetime.now(UTC) - timedelta(seconds=ABANDONED_SECONDS)).replace(microsecond=0)
    stamp = cutoff.isoformat().replace("+00:00", "Z")
    rows = db.execute("SELECT id FROM clubs WHERE edit_key >= ? AND edit_key < ? AND created_at < ?",
                      [HIDDEN, HIDDEN[:-1] + chr(ord(HIDDEN[-1]) + 1), stamp]).fetchall()
    for (club_id,) in rows:
        forget_club(db, int(club_id))




def add_part(db: sqlite_utils.Database, club: ClubRow, club_file: ClubFile) -> tuple[int, int]:
    """Store a later part of a club's file in the club its part 1 made; returns (the part's matches, the
    club's matches now).

    The parts go in in order, each once, and only into that club: the club keeps which file it was
    opened from, the part it takes next and how many matches the parts brought (matches the club
    records meanwhile do not count), and each part carries its file's id and its first match's number.

    The part's matches are stored in steps (:func:`in_steps`) in a hidden club of their own, and its last
    step moves them into the club, their new players joining its roster: the club never shows half a
    part, and a part that fails or is cut off by a kill can be sent again."""
    mark = club_file.part
    if mark is None:
        raise ReadError.of("part.whole", "part")
    if mark.number == 1:
        raise ReadError.of("part.first", "part")
    judged = club_file.results  # outside the write lock
    _check_part(db, club, club_file)  # refused before anything is stored; checked again as it goes in
    _forget_abandoned(db)
    staging = create_club(db, club_file.name, [], hidden=True)
    try:
        names = RosterNames(db, staging.id)
        in_steps(db, zip(club_file.matches, judged, strict=True),
                 lambda pair: add_record(db, staging.id, pair[0][0], pair[0][1], names, pair[1]))
        with store.writing(db):
            count = _check_part(db, club, club_file)
            roster_names = RosterNames(db, club.id)
            for player in roster(db, staging.id):
                joined = roster_names.player_for(player.name)
                db.execute("UPDATE club_seats SET player_id = ? WHERE player_id = ?", [joined.id, player.id])
            db.execute("UPDATE club_matches SET club_id = ? WHERE club_id = ?", [club.id, staging.id])
            db.execute("DELETE FROM club_players WHERE club_id = ?", [staging.id])
            db.execute("DELETE FROM clubs WHERE id = ?", [staging.id])
            db.execute("UPDATE clubs SET file_next = ?, file_matches = file_matches + ? WHERE id = ?",
                       [mark.number + 1, len(club_file.matches), club.id])
    except BaseException:
        forget_club(db, staging.id)
        raise
    return len(club_file.matches), count + len(club_file.matches)


def _check_part(db: sqlite_utils.Database, club: ClubRow, club_file: ClubFile) -> int:
    """That the part is the one the club takes next, and room for its matches; the club's matches now."""
    mark = club_file.part
    assert mark is not None
    file_from, expected, brought = db.execute(
        "SELECT file_from, file_next, file_matches FROM clubs WHERE id = ?", [club.id]).fetchone()
    if file_from != mark.file:
        raise ReadError.of("part.other_club", "part.file", name=club_file.name)
    if mark.number < expected:
        raise ReadError.of("part.again", "part.number", number=mark.number, next=expected)
    if mark.number > expected:
        raise ReadError.of("part.early", "part.number", number=mark.number, next=expected)
    if mark.first_match != brought + 1:
        raise ReadError.of("part.cut", "part.first_match", first=mark.first_match, last=brought)
    count = count_matches(db, club.id)
    if count + len(club_file.matches) > MAX_CLUB_MATCHES:
        raise ReadError.of("limit.club_matches", "matches", count=count + len(club_file.matches),
                           limit=MAX_CLUB_MATCHES)
    return count
