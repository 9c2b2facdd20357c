"""Clubs in SQLite: a roster of players that persist across matches, seasons, history.

A club's matches are ordinary matches (``matches``/``hands``); ``club_seats``
maps each seat of a club match to a roster player, so renaming a player or
merging two entries changes no match record and loses no hand. Each change to
the roster is written to ``club_events``, which the club's history shows.

The statistics read per-match summaries (:class:`scorer.engine.clubs.MatchSummary`)
from ``match_summaries``. :func:`refresh_summary` is the one function that makes
a match's summary; :func:`summaries` calls it for every match whose stamp (its
hand count, the sum of its hands' versions, its last change and the summary
version) no longer matches, so any change to a hand, whichever page or program
made it, is seen on the next read without re-judging the other matches.

``scarto-club/1`` (docs/CLUB.md) is read and written by :mod:`scorer.engine.club_files`, without a
database; :mod:`scorer.storage.club_transfer` stores a file read there and hands a club stored here
back to it to write.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from ..engine.club_files import (
    clean_name,
    name_key,
    short_name,
)
from ..engine.clubs import SUMMARY_VERSION, MatchSummary, summarise
from ..engine.errors import ReadError
from ..engine.limits import MAX_CLUB_MATCHES, MAX_ROSTER, MAX_SEASONS
from ..engine.records import MatchRecord
from ..engine.scoring import HandResult, score_hand
from ..engine.seasons import ALL, SeasonRule, rule_from_columns
from ..engine.standings import standings
from . import store
from .db import database_path, token_key


class ClubError(store.StoreError):
    """A change to a club that cannot be made, with a sentence saying why."""


class NameTaken(ClubError):
    """Another roster player (or season) already has that name."""


@dataclass(frozen=True)
class ClubRow:
    id: int
    name: str
    edit_token: str
    view_token: str
    settings: dict[str, Any]
    """The defaults for new matches: ``scarto-match/1`` keys of :data:`DEFAULT_KEYS`."""
    created_at: str

    @property
    def stake(self) -> dict[str, Any] | None:
        value = self.settings.get("stake")
        return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class PlayerRow:
    id: int
    name: str
    short: str | None
    merged_into: int | None
    created_at: str

    @property
    def label(self) -> str:
        """The name for narrow columns: the short name when there is one."""
        return self.short or self.name


@dataclass(frozen=True)
class Season:
    id: int
    name: str
    start: str
    end: str
    rule: SeasonRule = ALL
    """How its table ranks: by the total, or by each player's best N matches or nights."""


@dataclass(frozen=True)
class Event:
    kind: str
    details: dict[str, Any]
    created_at: str


# --- clubs -----------------------------------------------------------------------


HIDDEN = "hidden:"
"""How the keys of a club being stored in steps begin (:func:`create_club` with ``hidden``, for
:mod:`.club_transfer`): no token hashes to them."""


def _hidden_keys() -> tuple[str, str]:
    return HIDDEN + secrets.token_hex(16), HIDDEN + secrets.token_hex(16)


def create_club(db: sqlite_utils.Database, name: str, players: Sequence[tuple[str, str | None]],
                settings: dict[str, Any] | None = None, *, stamp: str | None = None,
                hidden: bool = False) -> ClubRow:
    """Store a new club and its roster under fresh tokens (NameTaken if a name is there twice).

    ``hidden``: its tokens open nothing yet (its keys are placeholders) until :mod:`.club_transfer` reveals it: a club
    file is stored in steps, and no club is there to be seen before its last step."""
    stamp = stamp or store.now()
    if len(players) > MAX_ROSTER:
        raise ReadError.of("limit.roster", "players", count=len(players), limit=MAX_ROSTER)
    names = [(clean_name(player), short) for player, short in players]
    seen: set[str] = set()
    for player, _short_name in names:  # a set, not the roster read again for each name
        if player.casefold() in seen:
            raise NameTaken(player)
        seen.add(player.casefold())
    with store.writing(db):
        edit, view = store.new_token(), store.new_token()
        club_id = db.execute(
            "INSERT INTO clubs (name, edit_token, view_token, edit_key, view_key, settings, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [clean_name(name, player=False), edit, view, *(_hidden_keys() if hidden else (token_key(edit),
                                                                                        token_key(view))),
             json.dumps(settings or {}, ensure_ascii=False), stamp, stamp],
        ).lastrowid
        assert club_id is not None
        for player, short in names:
            _insert_player(db, int(club_id), player, short, stamp)
    return get_club(db, int(club_id))


def get_club(db: sqlite_utils.Database, club_id: int) -> ClubRow:
    return store.get_by_id(db, "clubs", club_id, _club_row, "club")


def find_club(db: sqlite_utils.Database, token: str) -> tuple[ClubRow, bool]:
    """The club a token opens, and whether it is the edit token; NotFound otherwise."""
    return store.find_by_token(db, "clubs", token, _club_row, "club")


def _club_row(row: dict[str, Any]) -> ClubRow:
    return ClubRow(row["id"], row["name"], row["edit_token"], row["view_token"], json.loads(row["settings"]),
                   row["created_at"])


def update_club(db: sqlite_utils.Database, club_id: int, name: str, settings: dict[str, Any]) -> ClubRow:
    """Change the club's name and its defaults for new matches (matches already played keep theirs)."""
    with store.writing(db):
        db.execute("UPDATE clubs SET name = ?, settings = ?, updated_at = ? WHERE id = ?",
                   [clean_name(name, player=False), json.dumps(settings, ensure_ascii=False), store.now(),
                    club_id])
    return get_club(db, club_id)


# --- the roster ------------------------------------------------------------------


def _player_row(row: dict[str, Any]) -> PlayerRow:
    return PlayerRow(row["id"], row["name"], row["short"], row["merged_into"], row["created_at"])


def roster(db: sqlite_utils.Database, club_id: int, *, merged: bool = False) -> list[PlayerRow]:
    """The club's players in the order they joined (those merged into another only when asked)."""
    where = "" if merged else " AND merged_into IS NULL"
    rows = db.query(f"SELECT * FROM club_players WHERE club_id = ?{where} ORDER BY id", [club_id])
    return [_player_row(r) for r in rows]


def get_player(db: sqlite_utils.Database, club_id: int, player_id: int) -> PlayerRow:
    """A roster player of this club (merged or not); NotFound otherwise."""
    if not 0 < player_id < 2**63:
        raise store.NotFound("no such player")
    rows = list(db.query("SELECT * FROM club_players WHERE club_id = ? AND id = ?", [club_id, player_id]))
    if not rows:
        raise store.NotFound("no such player")
    return _player_row(rows[0])


def _named(db: sqlite_utils.Database, club_id: int, name: str) -> PlayerRow | None:
    key = name_key(name)
    return next((p for p in roster(db, club_id) if name_key(p.name) == key), None)


def add_player(db: sqlite_utils.Database, club_id: int, name: str, short: str | None = None, *,
               stamp: str | None = None) -> PlayerRow:
    """A new roster player; NameTaken if the roster has the name already (in any case)."""
    name = clean_name(name)
    with store.writing(db):
        if _named(db, club_id, name) is not None:
            raise NameTaken(name)
        _room_for(db, club_id, 1)
        player = _insert_player(db, club_id, name, short, stamp or store.now())
    return player


def _room_for(db: sqlite_utils.Database, club_id: int, joining: int) -> None:
    """ReadError when ``joining`` more players would take the roster past :data:`MAX_ROSTER`."""
    count = db.execute("SELECT COUNT(*) FROM club_players WHERE club_id = ? AND merged_into IS NULL",
                       [club_id]).fetchone()[0]
    if count + joining > MAX_ROSTER:
        raise ReadError.of("limit.roster", "players", count=count + joining, limit=MAX_ROSTER)


def _insert_player(db: sqlite_utils.Database, club_id: int, name: str, short: str | None, stamp: str) -> PlayerRow:
    """A roster row for a name already cleaned and checked (free, and room on the roster)."""
    short = short_name(short)
    pk = db.execute("INSERT INTO club_players (club_id, name, short, merged_into, created_at) "
                    "VALUES (?, ?, ?, NULL, ?)", [club_id, name, short, stamp]).lastrowid
    assert pk is not None
    return PlayerRow(int(pk), name, short, None, stamp)


def player_for(db: sqlite_utils.Database, club_id: int, name: str) -> PlayerRow:
    """The roster player of that name (any case), joining the roster if new."""
    found = _named(db, club_id, clean_name(name))
    return found if found is not None else add_player(db, club_id, name)


class RosterNames:
    """The roster's players by name, read once for a run of lookups that may add players (a club file's
    matches, a night's players): :func:`player_for` reads the whole roster at each name."""

    def __init__(self, db: sqlite_utils.Database, club_id: int) -> None:
        self.db, self.club_id = db, club_id
        self._by_name = {name_key(p.name): p for p in roster(db, club_id)}

    def spelling(self, name: str) -> str:
        """The roster's spelling of a name (any case), or the name as it would join: nothing is written."""
        name = clean_name(name)
        found = self._by_name.get(name_key(name))
        return name if found is None else found.name

    def player_for(self, name: str, stamp: str | None = None) -> PlayerRow:
        """The roster player of that name (any case), joining the roster if new. Used within one
        transaction: a refused write rolls back the players it added, and the index with it is dropped."""
        name = clean_name(name)
        found = self._by_name.get(name_key(name))
        if found is None:
            if len(self._by_name) >= MAX_ROSTER:
                raise ReadError.of("limit.roster", "players", count=len(self._by_name) + 1, limit=MAX_ROSTER)
            found = self._by_name[name_key(name)] = _insert_player(self.db, self.club_id, name, None,
                                                                   stamp or store.now())
        return found


def event(db: sqlite_utils.Database, club_id: int, kind: str, details: dict[str, Any],
          stamp: str | None = None) -> None:
    db.execute("INSERT INTO club_events (club_id, kind, details, created_at) VALUES (?, ?, ?, ?)",
               [club_id, kind, json.dumps(details, ensure_ascii=False), stamp or store.now()])


def events(db: sqlite_utils.Database, club_id: int) -> list[Event]:
    """The club's history, oldest first."""
    rows = db.query("SELECT * FROM club_events WHERE club_id = ? ORDER BY id", [club_id])
    return [Event(r["kind"], json.loads(r["details"]), r["created_at"]) for r in rows]


def rename_player(db: sqlite_utils.Database, club_id: int, player_id: int, name: str,
                  short: str | None) -> PlayerRow:
    """A new name (and short name) for a roster player; every past hand stays theirs."""
    with store.writing(db):
        player = get_player(db, club_id, player_id)
        if player.merged_into is not None:
            raise ClubError("merged")
        name = clean_name(name)
        other = _named(db, club_id, name)
        if other is not None and other.id != player_id:
            raise NameTaken(name)
        short = short_name(short)
        db.execute("UPDATE club_players SET name = ?, short = ? WHERE id = ?", [name, short, player_id])
        if name != player.name:
            event(db, club_id, "rename", {"from": player.name, "to": name})
    return get_player(db, club_id, player_id)


def merge_players(db: sqlite_utils.Database, club_id: int, source_id: int, target_id: int) -> PlayerRow:
    """Two entries that are the same person become one (the target): the source's seats move to it.

    ClubError when both sat in the same match (two seats cannot be one person).
    """
    with store.writing(db):
        source = get_player(db, club_id, source_id)
        target = get_player(db, club_id, target_id)
        if source.id == target.id or source.merged_into is not None or target.merged_into is not None:
            raise ClubError("same")
        shared = db.execute(
            "SELECT COUNT(*) FROM club_seats a JOIN club_seats b ON a.match_id = b.match_id "
            "WHERE a.player_id = ? AND b.player_id = ?", [source.id, target.id]).fetchone()[0]
        if shared:
            raise ClubError("together")
        db.execute("UPDATE club_seats SET player_id = ? WHERE player_id = ?", [target.id, source.id])
        db.execute("UPDATE club_players SET merged_into = ? WHERE id = ?", [target.id, source.id])
        db.execute("UPDATE club_players SET merged_into = ? WHERE merged_into = ?", [target.id, source.id])
        event(db, club_id, "merge", {"from": source.name, "into": target.name})
    return get_player(db, club_id, target_id)


def aliases(db: sqlite_utils.Database, club_id: int, player_id: int) -> list[str]:
    """Other names the player has played under in the club's matches (or was known by)."""
    player = get_player(db, club_id, player_id)
    names: list[str] = []
    rows = db.query("SELECT m.settings, s.seat FROM club_seats s JOIN matches m ON m.id = s.match_id "
                    "WHERE s.player_id = ? ORDER BY m.id", [player_id])
    for row in rows:
        name = json.loads(row["settings"])["players"][row["seat"]]
        if name != player.name and name not in names:
            names.append(name)
    for merged in db.query("SELECT name FROM club_players WHERE merged_into = ?", [player_id]):
        if merged["name"] != player.name and merged["name"] not in names:
            names.append(merged["name"])
    return names


# --- matches ---------------------------------------------------------------------


def club_of(db: sqlite_utils.Database, match_id: int) -> int | None:
    """The club a match belongs to, if any."""
    row = db.execute("SELECT club_id FROM club_matches WHERE match_id = ?", [match_id]).fetchone()
    return None if row is None else int(row[0])


def attach_match(db: sqlite_utils.Database, club_id: int, match_id: int, player_ids: list[int], *,
                 stamp: str | None = None, announce: bool = False) -> None:
    """Make a match the club's, its seats (in order) played by these roster players."""
    stamp = stamp or store.now()
    with store.writing(db):
        current = club_of(db, match_id)
        if current is not None and current != club_id:
            raise ClubError("other club")
        match = store.get_match(db, match_id)
        if len(player_ids) != len(match.players) or len(set(player_ids)) != len(player_ids):
            raise ClubError("seats")
        for pid in player_ids:
            if get_player(db, club_id, pid).merged_into is not None:
                raise ClubError("merged")
        if current is None:
            _room_for_match(db, club_id)
            db.execute("INSERT INTO club_matches (match_id, club_id, added_at) VALUES (?, ?, ?)",
                       [match_id, club_id, stamp])
            if announce:
                event(db, club_id, "add_match", {"title": match.settings.get("title") or "",
                                                 "players": match.players}, stamp)
        db.execute("DELETE FROM club_seats WHERE match_id = ?", [match_id])
        for seat, pid in enumerate(player_ids):
            db.execute("INSERT INTO club_seats (match_id, seat, player_id) VALUES (?, ?, ?)", [match_id, seat, pid])


def count_matches(db: sqlite_utils.Database, club_id: int) -> int:
    """How many matches the club holds."""
    return int(db.execute("SELECT COUNT(*) FROM club_matches WHERE club_id = ?", [club_id]).fetchone()[0])


def matches_on(db: sqlite_utils.Database, club_id: int, day: str) -> int:
    """How many of the club's matches are dated ``day`` (a night's tables too): the next match of the day
    sits at the table after them."""
    return int(db.execute("SELECT COUNT(*) FROM club_matches c JOIN matches m ON m.id = c.match_id "
                          "WHERE c.club_id = ? AND json_extract(m.settings, '$.date') = ?",
                          [club_id, day]).fetchone()[0])


def _room_for_match(db: sqlite_utils.Database, club_id: int) -> None:
    """ReadError when the club holds :data:`MAX_CLUB_MATCHES` matches already."""
    count = count_matches(db, club_id)
    if count >= MAX_CLUB_MATCHES:
        raise ReadError.of("limit.club_matches", "matches", count=count + 1, limit=MAX_CLUB_MATCHES)


def club_matches(db: sqlite_utils.Database, club_id: int, limit: int = -1) -> list[store.MatchRow]:
    """The club's matches, newest first (only the latest ``limit`` when given)."""
    rows = db.query("SELECT m.* FROM club_matches c JOIN matches m ON m.id = c.match_id "
                    "WHERE c.club_id = ? ORDER BY m.id DESC LIMIT ?", [club_id, limit])
    return [store._match_row(r) for r in rows]


def club_match_rows(db: sqlite_utils.Database, club_id: int, match_ids: Iterable[int]) -> dict[int, store.MatchRow]:
    """Some of the club's matches by id (a player's recent form: their links and titles)."""
    ids = list(dict.fromkeys(match_ids))
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = db.query(f"SELECT m.* FROM club_matches c JOIN matches m ON m.id = c.match_id "  # marks: no values
                    f"WHERE c.club_id = ? AND m.id IN ({marks})", [club_id, *ids])
    return {row.id: row for row in map(store._match_row, rows)}


def seats(db: sqlite_utils.Database, club_id: int) -> dict[int, tuple[int, ...]]:
    """match id -> the roster player of each seat."""
    out: dict[int, list[int]] = {}
    rows = db.execute("SELECT s.match_id, s.player_id FROM club_seats s JOIN club_matches c "
                      "ON c.match_id = s.match_id WHERE c.club_id = ? ORDER BY s.match_id, s.seat", [club_id])
    for match_id, player_id in rows.fetchall():
        out.setdefault(match_id, []).append(player_id)
    return {k: tuple(v) for k, v in out.items()}


def recent_players(db: sqlite_utils.Database, club_id: int) -> list[PlayerRow]:
    """The roster, the players of the latest matches first, then the others in the order they joined."""
    last = {pid: match_id for match_id, pid in db.execute(
        "SELECT MAX(s.match_id), s.player_id FROM club_seats s JOIN club_matches c ON c.match_id = s.match_id "
        "WHERE c.club_id = ? GROUP BY s.player_id", [club_id]).fetchall()}
    players = roster(db, club_id)
    return sorted(players, key=lambda p: (-last.get(p.id, 0), p.id))


def recent_tables(db: sqlite_utils.Database, club_id: int, limit: int = 3) -> list[list[PlayerRow]]:
    """The last few different line-ups, newest first (for a one-tap "same table again")."""
    by_id = {p.id: p for p in roster(db, club_id)}
    out: list[list[PlayerRow]] = []
    seen: set[tuple[int, ...]] = set()
    table = seats(db, club_id)
    for match_id in sorted(table, reverse=True):
        lineup = table[match_id]
        if lineup in seen or not all(pid in by_id for pid in lineup):
            continue
        seen.add(lineup)
        out.append([by_id[pid] for pid in lineup])
        if len(out) == limit:
            break
    return out


# --- seasons ---------------------------------------------------------------------


SEASON_COLUMNS = 'id, name, start, "end", counts, best'


def _season_row(r: dict[str, Any]) -> Season:
    return Season(r["id"], r["name"], r["start"], r["end"], rule_from_columns(r["counts"], r["best"]))


def seasons(db: sqlite_utils.Database, club_id: int) -> list[Season]:
    rows = db.query(f"SELECT {SEASON_COLUMNS} FROM club_seasons WHERE club_id = ? ORDER BY start, id", [club_id])
    return [_season_row(r) for r in rows]


def get_season(db: sqlite_utils.Database, club_id: int, season_id: int) -> Season:
    if not 0 < season_id < 2**63:
        raise store.NotFound("no such season")
    rows = list(db.query(f"SELECT {SEASON_COLUMNS} FROM club_seasons WHERE club_id = ? AND id = ?",
                         [club_id, season_id]))  # one row, not every season read to find it
    if not rows:
        raise store.NotFound("no such season")
    return _season_row(rows[0])


def add_season(db: sqlite_utils.Database, club_id: int, name: str, start: str, end: str,
               rule: SeasonRule = ALL) -> Season:
    """A named date range (ISO dates, both ends included) and its ranking rule; at most :data:`MAX_SEASONS`
    a club."""
    with store.writing(db):
        count = db.execute("SELECT COUNT(*) FROM club_seasons WHERE club_id = ?", [club_id]).fetchone()[0]
        if count >= MAX_SEASONS:
            raise ReadError.of("limit.seasons", "seasons", count=count + 1, limit=MAX_SEASONS)
        name = clean_name(name, player=False)
        if any(name_key(s.name) == name_key(name) for s in seasons(db, club_id)):  # two "Inverno"s: which is it?
            raise NameTaken(name)
        pk = db.execute('INSERT INTO club_seasons (club_id, name, start, "end", counts, best) '
                        "VALUES (?, ?, ?, ?, ?, ?)", [club_id, name, start, end, rule.counts, rule.best]).lastrowid
    assert pk is not None
    return get_season(db, club_id, int(pk))


def set_season_rule(db: sqlite_utils.Database, club_id: int, season_id: int, rule: SeasonRule) -> Season:
    """A season ranked by another rule (a club may choose it once the season has begun)."""
    with store.writing(db):
        get_season(db, club_id, season_id)
        db.execute("UPDATE club_seasons SET counts = ?, best = ? WHERE id = ? AND club_id = ?",
                   [rule.counts, rule.best, season_id, club_id])
    return get_season(db, club_id, season_id)


def delete_season(db: sqlite_utils.Database, club_id: int, season_id: int) -> None:
    with store.writing(db):
        get_season(db, club_id, season_id)
        db.execute("DELETE FROM club_seasons WHERE id = ? AND club_id = ?", [season_id, club_id])


# --- summaries -------------------------------------------------------------------


def summary_stamp(updated_at: str, changes: int) -> str:
    """What a stored summary was made from: the match's state (its count of changes, one more at every
    change to its hands: store.MatchRow.state) and last change, and the engine that judged them and wrote
    the match out (the summary's figures and its size in the club's file). Read from the match's row
    alone: counting the hands of every match made each club page read all the club's hands."""
    return f"{SUMMARY_VERSION}:{store.engine_version()}:c{changes}:{updated_at}"


def match_date(settings: dict[str, Any], created_at: str) -> str:
    """The day a match was played: its ``date`` when it begins with one (YYYY-MM-DD), else the day it
    was stored (a file may say "Easter 2024", which no season can hold)."""
    from datetime import date

    given = settings.get("date")
    if isinstance(given, str):
        try:
            return date.fromisoformat(given.strip()[:10]).isoformat()
        except ValueError:
            pass
    return created_at[:10]


def refresh_summary(db: sqlite_utils.Database, match_id: int, record: MatchRecord | None = None,
                    results: Sequence[HandResult] | None = None) -> MatchSummary:
    """Judge a match's hands once and store its summary (the ONE place summaries are made).

    Call it after any change to the match's hands, or leave it to :func:`summaries`,
    which calls it for a match whose stamp has changed. ``record``: the match as just stored, by a
    caller that has it (a club file's match): not read and parsed back (half of a club file's import);
    ``results``: its hands as the caller judged them, before the write. What the match takes in the
    club's file is measured again when the file is next asked for (``club_transfer._measure``): written out with
    indentation it costs six times the summary's own JSON.
    """
    with store.writing(db):
        # the write lock first (db.py): pages reading a stale summary at once queue here instead of
        # failing with "database is locked" when their read transaction cannot become a write
        db.execute("UPDATE matches SET updated_at = updated_at WHERE id = ?", [match_id])
        stamp, summary = make_summary(db, match_id, record, results)
        db.execute("INSERT OR REPLACE INTO match_summaries (match_id, stamp, summary) VALUES (?, ?, ?)",
                   [match_id, stamp, json.dumps(summary.to_dict(), separators=(",", ":"))])
    return summary


def make_summary(db: sqlite_utils.Database, match_id: int, record: MatchRecord | None = None,
                 results: Sequence[HandResult] | None = None) -> tuple[str, MatchSummary]:
    """A match's summary and its stamp, judged from its hands (read only: :func:`refresh_summary` stores it);
    from ``record`` (and ``results``, its hands judged) when the caller has the match as it stored it."""
    with db.atomic():  # one snapshot of the match and its hands
        row = store.get_match(db, match_id)
        if record is None:
            record = store.match_record(db, row, store.list_hands(db, match_id))
    table = standings(record, list(results) if results is not None else [score_hand(h) for h in record.hands])
    return summary_stamp(row.updated_at, row.changes), summarise(match_id, match_date(row.settings, row.created_at),
                                                          table)


def summaries(db: sqlite_utils.Database, club_id: int) -> list[MatchSummary]:
    """The summaries of the club's matches, each made again first if its match changed since."""
    stamps = db.execute(
        "SELECT m.id, m.updated_at, m.changes FROM club_matches c JOIN matches m ON m.id = c.match_id "
        "WHERE c.club_id = ?", [club_id]).fetchall()
    stored = {match_id: (stamp, text) for match_id, stamp, text in db.execute(
        "SELECT s.match_id, s.stamp, s.summary FROM match_summaries s JOIN club_matches c "
        "ON c.match_id = s.match_id WHERE c.club_id = ?", [club_id]).fetchall()}
    path = database_path(db)
    out = []
    for match_id, updated_at, changes in stamps:
        have = stored.get(match_id)
        stamp = summary_stamp(updated_at, changes)
        if have is not None and have[0] == stamp:
            key = (path, match_id, stamp)
            summary = _READ.get(key) if path else None
            if summary is None:
                summary = MatchSummary.from_dict(json.loads(have[1]))
                if path:
                    if len(_READ) >= _READ_LIMIT:
                        _READ.clear()
                    _READ[key] = summary
            out.append(summary)
        else:
            out.append(refresh_summary(db, match_id))
    return out


_READ: dict[tuple[str, int, str], MatchSummary] = {}
"""Summaries already read from the database, by (database file, match, stamp): a stored summary
never changes under its stamp, so reading it again from its JSON would only repeat the work."""
_READ_LIMIT = 20000


def add_record(db: sqlite_utils.Database, club_id: int, match: MatchRecord, seated: list[str],
               names: RosterNames | None = None, results: Sequence[HandResult] | None = None) -> store.MatchRow:
    """Store a match in the club, each seat played by the roster player named (new names join); ``names``:
    the roster as read for a run of matches (a club file's); ``results``: its hands judged before the write."""
    with store.writing(db):
        names = names or RosterNames(db, club_id)
        ids = [names.player_for(name).id for name in seated]
        if len(set(ids)) != len(ids):
            raise ClubError("seats")
        row = store.create_match(db, match, results)
        attach_match(db, club_id, row.id, ids)
        refresh_summary(db, row.id, match, results)
    return row


def club_state(db: sqlite_utils.Database, club_id: int) -> str:
    """Everything a club's pages show, as one name that changes whenever any of it does: the club's row
    (name, settings, links), its roster (renames, merges), seasons, nights and history, which matches
    it holds and who sat where, and each match's state (its count of changes and last change: a hand
    saved, edited, deleted or restored). The page cache keys the club and player pages on it
    (web/page_cache.py).

    Worked out again only when the database changed since (:data:`_STATES`): reading it costs more
    than the rest of serving a cached page."""
    conn = db.conn
    version = conn.execute("PRAGMA data_version").fetchone()[0]
    seen = _STATES.get((id(conn), club_id))
    if seen is not None and seen[0] is conn and seen[1:3] == (version, conn.total_changes):
        return seen[3]
    state = db.execute(_STATE, {"club": club_id}).fetchone()
    seasons = db.execute("SELECT * FROM club_seasons WHERE club_id = ? ORDER BY id", [club_id]).fetchall()
    text = repr((SUMMARY_VERSION, store.engine_version(), state, seasons))
    name = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if len(_STATES) >= MAX_STATES:
        _STATES.clear()
    _STATES[(id(conn), club_id)] = (conn, version, conn.total_changes, name)
    return name


_STATES: dict[tuple[int, int], tuple[sqlite3.Connection, int, int, str]] = {}
"""The club states worked out, by connection and club, with the database's version then: SQLite's
``data_version`` (another connection, in any process, committed since) and the connection's own
``total_changes`` (it wrote since). Each thread has its connection, so no lock is needed."""
MAX_STATES = 4096
"""States remembered at most (threads times clubs looked at): past it, they are all forgotten."""


_STATE = """SELECT
 (SELECT name || char(0) || settings || char(0) || updated_at || char(0) || edit_key || char(0) || view_key
  FROM clubs WHERE id = :club),
 (SELECT group_concat(id || ':' || name || ':' || ifnull(short, '') || ':' || ifnull(merged_into, ''), char(1))
  FROM club_players WHERE club_id = :club),
 (SELECT group_concat(id || ':' || title || ':' || date || ':' || edit_token || ':' || view_token || ':' || updated_at,
  char(1)) FROM nights WHERE club_id = :club),
 (SELECT ifnull(max(id), 0) || ':' || count(*) FROM club_events WHERE club_id = :club),
 (SELECT count(*) || ':' || total(m.changes) || ':' || ifnull(max(m.updated_at), '') || ':' || total(m.id * m.changes)
  FROM club_matches c JOIN matches m ON m.id = c.match_id WHERE c.club_id = :club),
 (SELECT count(*) || ':' || total((s.match_id * 8 + s.seat) * s.player_id)
  FROM club_seats s JOIN club_matches c ON c.match_id = s.match_id WHERE c.club_id = :club),
 (SELECT count(*) || ':' || ifnull(max(r.made_at), '') FROM hand_reviews r JOIN hands h ON h.id = r.hand_id
  JOIN club_matches c ON c.match_id = h.match_id WHERE c.club_id = :club)"""
"""The club's state but for its seasons (read whole: their columns may grow) in one read; the hand
reviews a worker stores later count too (a player's page shows the points given up)."""
