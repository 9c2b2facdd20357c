"""Club nights in SQLite: a night of a club, its rounds of tables, each table a club match.

A night (``nights``) is reached by its own capability links, looked up by the SHA-256
of the token as matches and clubs are. Its settings hold what ``scarto-night/1``
(docs/NIGHT.md) gave: the players present, the rounds, hands per round, seating and
ranking methods, the seed, the rules, and what the rounds needed when they were seated
(the byes, the rankings a Swiss round was seated from, forced starts with their reason).

Each table (``night_tables``) is an ordinary match of the club (scorer/storage/clubs.py:
``add_record``), so its hands count in the club's statistics and seasons like any other,
and its players are recorded in seating order with the first dealer first. The seats are
drawn by :func:`scorer.engine.seating.plan` and the ranking made by
:func:`scorer.engine.nights.rank` from the tables' stored summaries.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from fractions import Fraction
from functools import lru_cache
from typing import Any, overload

import sqlite_utils

from ..engine import nights as ranking
from ..engine import seating
from ..engine.clubs import MatchSummary
from ..engine.errors import ReadError
from ..engine.messages import N_
from ..engine.records import MATCH_FORMAT, parse_match
from ..engine.rulesets import dealt, find_ruleset
from . import clubs as club_store
from . import store
from .db import token_key

NIGHT_FORMAT = "scarto-night/1"
MAX_ROUNDS = 10
MAX_HANDS = 30
MAX_PLAYERS = 60
MAX_REASON = 200

TitleFor = Callable[[str, int, int], str]
"""Makes a table's match title from the night's title, the round and the table number."""


def default_title(night: str, round_: int, table: int) -> str:
    return f"{night}, round {round_}, table {table}"


class NightError(store.StoreError):
    """A round that cannot start now."""


class NotDone(NightError):
    """A table of the current round has not played its hands yet (``tables``: their numbers)."""

    def __init__(self, tables: list[int]) -> None:
        super().__init__("not done")
        self.tables = tables


class NightOver(NightError):
    """Every planned round has been seated."""


class AlreadyStarted(NightError):
    """The round the director meant to start is seated already (a second tap, another phone): ``current``."""

    def __init__(self, current: int) -> None:
        super().__init__("already started")
        self.current = current


@dataclass(frozen=True)
class NightSpec:
    """A ``scarto-night/1`` value read and checked."""

    title: str
    date: str
    players: list[str]
    rounds: int
    hands_per_round: int | None
    seating: seating.Seating
    ranking: ranking.Ranking
    seed: int
    ruleset: Any = None


_RANGES = {
    "rounds": (MAX_ROUNDS, N_("Write the number of rounds as a whole number from 1 to 10.")),
    "hands_per_round": (MAX_HANDS, N_("Write the hands per round as a whole number from 1 to 30.")),
}


@overload
def _integer(data: dict[str, Any], key: str, default: int) -> int: ...
@overload
def _integer(data: dict[str, Any], key: str, default: None) -> int | None: ...
def _integer(data: dict[str, Any], key: str, default: int | None) -> int | None:
    """The whole number at ``key`` in its range; absent, ``default``. ``null`` stands for "none" only
    where none is allowed (no default): where one is needed, it is refused like any other wrong value."""
    value = data.get(key, default)
    if value is None and default is None:
        return None
    high, message = _RANGES[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise ReadError(message, key)
    return value


def parse_night(data: object, club_defaults: dict[str, Any] | None = None) -> NightSpec:
    """A ``scarto-night/1`` body to a NightSpec; ReadError naming what and where otherwise."""
    if not isinstance(data, dict):
        raise ReadError.of("record.not_object", "record", kind=type(data).__name__)
    given = data.get("format", NIGHT_FORMAT)
    if given != NIGHT_FORMAT:
        raise ReadError.of("record.format", "format", given=repr(given), expected=repr(NIGHT_FORMAT))
    title = club_store.clean_name(data.get("title", "Club night"), "title", player=False)
    raw_date = data.get("date")
    if raw_date is None:
        day = datetime.now(UTC).date().isoformat()
    else:
        day = club_store._date(raw_date, "date")
    raw_players = data.get("players")
    if not isinstance(raw_players, list):
        raise ReadError.of("players.not_list", "players")
    if len(raw_players) > MAX_PLAYERS:  # before any name is read: the work stays bounded
        raise ReadError(N_("A night may have at most 60 players."), "players")
    players = [club_store.clean_name(p, f"players[{i}]") for i, p in enumerate(raw_players)]
    seen: set[str] = set()
    for i, name in enumerate(players):
        if name.casefold() in seen:
            raise ReadError.of("players.named_twice", f"players[{i}]", name=repr(name))
        seen.add(name.casefold())
    if len(players) < seating.MIN_PLAYERS:
        raise ReadError(N_("A night needs at least 3 players present."), "players")
    rounds = _integer(data, "rounds", 3)
    hands = _integer(data, "hands_per_round", None)
    method = data.get("seating", "mixed")
    if method not in seating.SEATINGS:
        raise ReadError(N_('Seating is "mixed" or "ranking".'), "seating")
    by = data.get("ranking", "total")
    if by not in ranking.RANKINGS:
        raise ReadError(N_('Ranking is "total" or "placings".'), "ranking")
    seed = data.get("seed")
    if seed is None:
        seed = secrets.randbelow(10**9)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**53:
        raise ReadError(N_("The seed is a whole number from 0 up."), "seed")
    ruleset = data.get("ruleset", (club_defaults or {}).get("ruleset"))
    rules = find_ruleset(ruleset)
    if rules.players != 3:
        raise ReadError(N_("A night's rules are for three players; tables of four play the four deal."), "ruleset")
    return NightSpec(title, day, players, rounds, hands, method, by, seed, ruleset)


@dataclass(frozen=True)
class NightRow:
    id: int
    club_id: int
    title: str
    date: str
    edit_token: str
    view_token: str
    settings: dict[str, Any]
    created_at: str
    updated_at: str

    @property
    def players(self) -> list[str]:
        return list(self.settings["players"])

    @property
    def rounds_planned(self) -> int:
        return int(self.settings["rounds"])

    @property
    def hands_per_round(self) -> int | None:
        value = self.settings.get("hands_per_round")
        return int(value) if value is not None else None

    @property
    def seating(self) -> seating.Seating:
        return "ranking" if self.settings.get("seating") == "ranking" else "mixed"

    @property
    def ranking_method(self) -> ranking.Ranking:
        return "placings" if self.settings.get("ranking") == "placings" else "total"

    @property
    def seed(self) -> int:
        return int(self.settings["seed"])

    def hands_for(self, size: int) -> int:
        """The hands a table of ``size`` plays in a round: as asked, or one deal each."""
        return self.hands_per_round or size

    def bye(self, round_: int) -> list[str]:
        byes = self.settings.get("byes", [])
        return list(byes[round_ - 1]) if 0 < round_ <= len(byes) else []

    @property
    def forced(self) -> list[dict[str, Any]]:
        return list(self.settings.get("forced", []))


@dataclass(frozen=True)
class TableRow:
    round: int
    number: int
    match_id: int
    players: tuple[str, ...]


@dataclass(frozen=True)
class TableState:
    """One table as the director sees it: its match, hands counted, done, problems."""

    table: TableRow
    match: store.MatchRow
    target: int
    """The hands the round asks of this table."""
    summary: MatchSummary

    @property
    def hands(self) -> int:
        return len(self.summary.hands)

    @property
    def done(self) -> bool:
        return self.hands >= self.target

    @property
    def breaches(self) -> int:
        return sum(len(h.breaches) for h in self.summary.hands)

    @property
    def uncounted(self) -> int:
        return self.summary.uncounted

    def totals(self) -> tuple[tuple[str, Fraction], ...]:
        return tuple(zip(self.table.players, self.summary.totals(), strict=True))


@dataclass(frozen=True)
class NightState:
    """A night read once: its tables by round and the ranking so far."""

    night: NightRow
    rounds: list[list[TableState]]
    ranking: list[ranking.RankLine]

    @property
    def current(self) -> int:
        return len(self.rounds)

    @property
    def current_tables(self) -> list[TableState]:
        return self.rounds[-1] if self.rounds else []

    @property
    def round_done(self) -> bool:
        return all(t.done for t in self.current_tables)

    @property
    def finished(self) -> bool:
        return self.current >= self.night.rounds_planned and self.round_done

    @property
    def can_start(self) -> bool:
        return self.current < self.night.rounds_planned


# --- storing -----------------------------------------------------------------------


def _night_row(row: dict[str, Any]) -> NightRow:
    return NightRow(row["id"], row["club_id"], row["title"], row["date"], row["edit_token"], row["view_token"],
                    json.loads(row["settings"]), row["created_at"], row["updated_at"])


def get_night(db: sqlite_utils.Database, night_id: int) -> NightRow:
    rows = list(db.query("SELECT * FROM nights WHERE id = ?", [night_id]))
    if not rows:
        raise store.NotFound("no such night")
    return _night_row(rows[0])


def find_night(db: sqlite_utils.Database, token: str) -> tuple[NightRow, bool]:
    """The night a token opens, and whether it is the edit token; NotFound otherwise."""
    if not token or len(token) > 64:
        raise store.NotFound("no such night")
    key = token_key(token)
    rows = list(db.query("SELECT * FROM nights WHERE edit_key = ? OR view_key = ?", [key, key]))
    if not rows:
        raise store.NotFound("no such night")
    row = _night_row(rows[0])
    if hmac.compare_digest(row.edit_token.encode(), token.encode()):
        return row, True
    if hmac.compare_digest(row.view_token.encode(), token.encode()):
        return row, False
    raise store.NotFound("no such night")


def club_nights(db: sqlite_utils.Database, club_id: int) -> list[NightRow]:
    """The club's nights, newest first."""
    return [_night_row(r) for r in db.query("SELECT * FROM nights WHERE club_id = ? ORDER BY id DESC", [club_id])]


def tables(db: sqlite_utils.Database, night_id: int) -> list[TableRow]:
    rows = db.query("SELECT * FROM night_tables WHERE night_id = ? ORDER BY round, number", [night_id])
    return [TableRow(r["round"], r["number"], r["match_id"], tuple(json.loads(r["players"]))) for r in rows]


def create_night(db: sqlite_utils.Database, club: club_store.ClubRow, spec: NightSpec,
                 title_for: TitleFor = default_title) -> NightRow:
    """Store a night (its players joining the roster if new) and seat its first round.

    The seating is drawn before the write (:func:`_planned`): for 60 players and ten rounds the draw
    takes seconds, which every save of the server waited when it was drawn in the write."""
    stamp = store.now()
    known = club_store.RosterNames(db, club.id)
    _planned(tuple(known.spelling(name) for name in spec.players), spec.rounds, spec.seed, spec.seating, ())
    with store.writing(db):
        edit, view = store.new_token(), store.new_token()
        night_id = db.execute(
            "INSERT INTO nights (club_id, title, date, edit_token, view_token, edit_key, view_key, settings, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, '{}', ?, ?)",
            [club.id, spec.title, spec.date, edit, view, token_key(edit), token_key(view), stamp, stamp],
        ).lastrowid
        assert night_id is not None
        roster = club_store.RosterNames(db, club.id)
        names = [roster.player_for(name, stamp).name for name in spec.players]
        settings: dict[str, Any] = {"players": names, "rounds": spec.rounds, "hands_per_round": spec.hands_per_round,
                                    "seating": spec.seating, "ranking": spec.ranking, "seed": spec.seed,
                                    "byes": [], "rankings": [], "forced": []}
        if spec.ruleset is not None:
            settings["ruleset"] = spec.ruleset
        _save_settings(db, int(night_id), settings, stamp)
        night = get_night(db, int(night_id))
        _seat(db, club, night, 1, title_for)
        club_store.event(db, club.id, "night", {"title": spec.title, "date": spec.date, "players": len(names)},
                         stamp)
    return get_night(db, int(night_id))


def _save_settings(db: sqlite_utils.Database, night_id: int, settings: dict[str, Any], stamp: str) -> None:
    db.execute("UPDATE nights SET settings = ?, updated_at = ? WHERE id = ?",
               [json.dumps(settings, ensure_ascii=False), stamp, night_id])


def _seat(db: sqlite_utils.Database, club: club_store.ClubRow, night: NightRow, number: int,
          title_for: TitleFor) -> seating.Round:
    """Draw round ``number`` (the rounds before it stored) and create its tables' matches."""
    settings = dict(night.settings)
    drawn = _plan(night, settings)[number - 1]
    ruleset = settings.get("ruleset", club.settings.get("ruleset"))
    base = {k: v for k, v in club.settings.items() if k in ("language", "pack", "settle", "stake")}
    names = club_store.RosterNames(db, club.id)  # the roster read once for the round's tables
    for table in drawn.tables:
        players = list(table.players)
        data = {"format": MATCH_FORMAT, **base, "title": title_for(night.title, number, table.number),
                "date": night.date,
                "ruleset": dealt(ruleset, "four") if table.deal == "four" else (ruleset or "classic"),
                "end": {"hands": night.hands_for(len(players))}, "players": players,
                "first_dealer": players[0], "hands": []}
        row = club_store.add_record(db, club.id, parse_match(data), players, names)
        db.execute("INSERT INTO night_tables (night_id, round, number, match_id, players) VALUES (?, ?, ?, ?, ?)",
                   [night.id, number, table.number, row.id, json.dumps(players, ensure_ascii=False)])
    byes = list(settings.get("byes", []))[: number - 1]
    byes.append(list(drawn.bye))
    settings["byes"] = byes
    _save_settings(db, night.id, settings, store.now())
    return drawn


def _plan(night: NightRow, settings: dict[str, Any]) -> tuple[seating.Round, ...]:
    """The night's rounds as they can be seated now (:func:`seating.plan`), drawn once."""
    return _planned(tuple(night.players), night.rounds_planned, night.seed, night.seating,
                    tuple(tuple(r) for r in settings.get("rankings", [])))


@lru_cache(maxsize=32)
def _planned(players: tuple[str, ...], rounds: int, seed: int, method: seating.Seating,
             rankings: tuple[tuple[str, ...], ...]) -> tuple[seating.Round, ...]:
    """:func:`seating.plan`, kept: drawn before a night's write takes the lock (its players, seed and
    rankings read then), and found again inside it when nothing changed meanwhile (drawn there only if
    something did: the same draw, from what the write reads)."""
    return tuple(seating.plan(players, rounds, seed, method, rankings))


def _next_rankings(night: NightRow, state: NightState) -> list[list[str]]:
    """The rankings the next round is seated by (one more after each round, for seating by ranking)."""
    rankings = list(night.settings.get("rankings", []))
    if night.seating == "ranking":
        rankings = rankings[: state.current - 1]
        rankings.append([line.name for line in state.ranking])
    return rankings


def start_round(db: sqlite_utils.Database, night_id: int, *, force: bool = False, reason: str = "",
                title_for: TitleFor = default_title, expected: int | None = None) -> int:
    """Seat the next round: NotDone while a table of the current round plays (unless forced),
    NightOver after the last, AlreadyStarted when it is not round ``expected`` (the one the director's
    page offered: a second tap must not seat one more). A forced start is kept with its reason in the
    night and the club's history. The round is drawn before the write, as :func:`create_night`'s."""
    night = get_night(db, night_id)
    state = night_state(db, night)
    if state.can_start and (expected is None or expected == state.current + 1):
        _plan(night, {**night.settings, "rankings": _next_rankings(night, state)})
    with store.writing(db):
        db.execute("UPDATE nights SET updated_at = updated_at WHERE id = ?", [night_id])  # the write lock first
        night = get_night(db, night_id)
        club = club_store.get_club(db, night.club_id)
        state = night_state(db, night)
        if expected is not None and expected != state.current + 1:
            raise AlreadyStarted(state.current)
        if not state.can_start:
            raise NightOver("over")
        open_tables = [t.table.number for t in state.current_tables if not t.done]
        if open_tables and not force:
            raise NotDone(open_tables)
        settings = dict(night.settings)
        number = state.current + 1
        if night.seating == "ranking":
            settings["rankings"] = _next_rankings(night, state)
        if open_tables:
            settings["forced"] = [*settings.get("forced", []),
                                  {"round": number, "reason": reason[:MAX_REASON], "tables": open_tables}]
            club_store.event(db, club.id, "night_forced", {"title": night.title, "round": number,
                                                           "reason": reason[:MAX_REASON]})
        _save_settings(db, night.id, settings, store.now())
        _seat(db, club, get_night(db, night.id), number, title_for)
    return number


# --- reading -----------------------------------------------------------------------


def summaries_for(db: sqlite_utils.Database, match_ids: list[int]) -> dict[int, MatchSummary]:
    """The stored summaries of these matches, each made again first if its match changed since."""
    if not match_ids:
        return {}
    marks = ",".join("?" * len(match_ids))
    stamps = db.execute(f"SELECT id, updated_at, changes FROM matches WHERE id IN ({marks})", match_ids).fetchall()
    stored = dict(db.execute(f"SELECT match_id, stamp || char(0) || summary FROM match_summaries "
                             f"WHERE match_id IN ({marks})", match_ids).fetchall())
    out = {}
    for match_id, updated_at, changes in stamps:
        have = stored.get(match_id)
        stamp = club_store._stamp(updated_at, changes)
        if have is not None and have.split("\0", 1)[0] == stamp:
            out[match_id] = MatchSummary.from_dict(json.loads(have.split("\0", 1)[1]))
        else:
            out[match_id] = _refreshed(db, match_id)
    return out


_FRESH: dict[tuple[str, int, str], MatchSummary] = {}
"""Summaries made again by this process, by (database file, match, stamp)."""
_FRESH_LOCKS: dict[tuple[str, int], threading.Lock] = {}
_GUARD = threading.Lock()
_CACHE_LIMIT = 2000


def _refreshed(db: sqlite_utils.Database, match_id: int) -> MatchSummary:
    """A stale summary judged again from the hands, once per process, without writing: after a save
    the hundred phones watching a night reload it together; one thread judges the match, the others
    wait on a lock of this process and take it from memory. A page never waits for SQLite's write
    lock (a save's commit on a busy disk stalled every reader behind it); the club's pages store
    the summary (scorer/storage/clubs.py)."""
    path = club_store._database_path(db)
    with _GUARD:
        lock = _FRESH_LOCKS.setdefault((path, match_id), threading.Lock())
    with lock:
        stamp = _match_stamp(db, match_id)
        found = _FRESH.get((path, match_id, stamp)) if path else None
        if found is not None:
            return found
        stamp, summary = club_store.make_summary(db, match_id)
        if path:
            with _GUARD:
                if len(_FRESH) >= _CACHE_LIMIT:
                    _FRESH.clear()
                _FRESH[(path, match_id, stamp)] = summary
    return summary


def _match_stamp(db: sqlite_utils.Database, match_id: int) -> str:
    updated_at, changes = db.execute("SELECT updated_at, changes FROM matches WHERE id = ?", [match_id]).fetchone()
    return club_store._stamp(updated_at, changes)


def night_state(db: sqlite_utils.Database, night: NightRow) -> NightState:
    """Every table of the night with its hands, and the ranking after them."""
    rows = tables(db, night.id)
    found = summaries_for(db, [t.match_id for t in rows])
    matches = {t.match_id: store.get_match(db, t.match_id) for t in rows}
    rounds: list[list[TableState]] = []
    for t in rows:
        while len(rounds) < t.round:
            rounds.append([])
        rounds[t.round - 1].append(TableState(t, matches[t.match_id], night.hands_for(len(t.players)),
                                              found[t.match_id]))
    results = []
    for i, round_ in enumerate(rounds, start=1):  # a table counts once it has a hand, a bye once its round has
        played = tuple(ranking.TableResult(ts.totals(), ts.hands) for ts in round_ if ts.hands)
        results.append(ranking.RoundResult(played, tuple(night.bye(i)) if played else ()))
    return NightState(night, rounds, ranking.rank(night.players, results, night.ranking_method))


def state_tag(db: sqlite_utils.Database, night: NightRow) -> str:
    """A tag that changes with every change to a hand at any table of the night, and with each new round."""
    count, last = db.execute(
        "SELECT COUNT(r.id), COALESCE(MAX(r.id), 0) FROM night_tables t JOIN hands h ON h.match_id = t.match_id "
        "JOIN revisions r ON r.hand_id = h.id WHERE t.night_id = ?", [night.id]).fetchone()
    seated, changed = db.execute("SELECT COUNT(*), COALESCE(MAX(m.updated_at), '') FROM night_tables t "
                                 "JOIN matches m ON m.id = t.match_id WHERE t.night_id = ?", [night.id]).fetchone()
    stamp = max(night.updated_at, changed)  # a match's settings changed, or the night's (a new round)
    return f"{seated}-{count}-{last}-{stamp.replace(':', '').replace('-', '').replace('.', '')}"


_STATES: dict[tuple[str, int, str, str], NightState] = {}
"""Nights already read by this process, by (database file, night, its edit token, state tag): a hundred
phones fetching the night's page after a save read it once. The token is in the key because the state
holds the tables' links: new links for the night (storage/links.py, which renews its tables' too) are a
new state even within the second the tag's stamps are counted in."""


def current_state(db: sqlite_utils.Database, night: NightRow) -> tuple[NightState, str]:
    """The night's state and its tag, read once per tag by this process."""
    tag = state_tag(db, night)
    path = club_store._database_path(db)
    key = (path, night.id, night.edit_token, tag)
    found = _STATES.get(key) if path else None
    if found is None:
        found = night_state(db, night)
        if path:
            with _GUARD:
                if len(_STATES) >= 200:
                    _STATES.clear()
                _STATES[key] = found
    return found, tag


def night_of(db: sqlite_utils.Database, match_id: int) -> tuple[NightRow, TableRow] | None:
    """The night and table a match is played at, if any."""
    rows = list(db.query("SELECT * FROM night_tables WHERE match_id = ?", [match_id]))
    if not rows:
        return None
    r = rows[0]
    return get_night(db, r["night_id"]), TableRow(r["round"], r["number"], r["match_id"],
                                                  tuple(json.loads(r["players"])))


def nights_of_matches(db: sqlite_utils.Database, match_ids: list[int]) -> dict[int, NightRow]:
    """The night each of these matches was played at (those played at none left out), in one query: a
    player's page asks it of every match they played."""
    if not match_ids:
        return {}
    rows = db.query("SELECT t.match_id, n.* FROM night_tables t JOIN nights n ON n.id = t.night_id "
                    "WHERE t.match_id IN (SELECT value FROM json_each(?))", [json.dumps(match_ids)])
    return {row["match_id"]: _night_row(row) for row in rows}


def today() -> str:
    return date.today().isoformat()
