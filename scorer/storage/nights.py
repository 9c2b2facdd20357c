"""Club nights in SQLite: a night of a club, its rounds of tables, each table a club match.

A night (``nights``) is reached by its own capability links, looked up by the SHA-256
of the token as matches and clubs are. Its settings hold what ``scarto-night/1``
(docs/NIGHT.md, read by :mod:`scorer.engine.night_files`) gave: the players present,
the rounds, hands per round, seating and ranking methods, the seed, the rules, and what
the rounds needed when they were seated (the byes, the rankings a Swiss round was seated
from, forced starts with their reason).

Each table (``night_tables``) is an ordinary match of the club (scorer/storage/clubs.py:
``add_record``), so its hands count in the club's statistics and seasons like any other,
and its players are recorded in seating order with the first dealer first. The seats are
drawn by :func:`scorer.engine.seating.plan` and the ranking made by
:func:`scorer.engine.nights.rank` from the tables' stored summaries.
"""

from __future__ import annotations

import json
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sqlite_utils

from ..engine import duplicate as dup
from ..engine import nights as ranking
from ..engine import seating
from ..engine.clubs import MatchSummary
from ..engine.deals import Board, deal_board
from ..engine.errors import ReadError, ScartoError
from ..engine.night_files import MAX_PLAYERS, MAX_ROUNDS, DuplicatePlan, NightSpec
from ..engine.records import MATCH_FORMAT, parse_match
from ..engine.rulesets import dealt, find_ruleset
from . import clubs as club_store
from . import store
from .db import database_path, token_key

MAX_REASON = 200
"""Characters of the reason a round was started before its tables finished (kept in the history)."""

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

    @property
    def duplicate(self) -> DuplicatePlan | None:
        """The deal set the night plays, when it is a duplicate session."""
        value = self.settings.get("duplicate")
        if not isinstance(value, dict):
            return None
        scoring: dup.Scoring = "difference" if value.get("scoring") == "difference" else "matchpoints"
        return DuplicatePlan(str(value["seed"]), int(value["boards_per_round"]), scoring)

    @property
    def deal(self) -> str:
        """The deal a table of three plays (``three`` or ``piccolo``): the night's rules'."""
        return str(self.settings.get("deal", "three"))

    def boards(self, round_: int, size: int) -> list[Board]:
        """The boards a table of ``size`` plays in round ``round_``, hand 1 first; none unless duplicate."""
        plan = self.duplicate
        if plan is None:
            return []
        first = (round_ - 1) * plan.boards + 1
        deal = "four" if size == 4 else self.deal
        return [deal_board(plan.seed, number, deal) for number in range(first, first + plan.boards)]

    def bye(self, round_: int) -> list[str]:
        byes = self.settings.get("byes", [])
        return list(byes[round_ - 1]) if 0 < round_ <= len(byes) else []

    @property
    def forced(self) -> list[dict[str, Any]]:
        return list(self.settings.get("forced", []))

    @property
    def spec(self) -> NightSpec:
        """What the night was asked with, as stored (its file written back: :func:`night_document`)."""
        return NightSpec(self.title, self.date, self.players, self.rounds_planned, self.hands_per_round,
                         self.seating, self.ranking_method, self.seed, self.settings.get("ruleset"), self.duplicate)


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
class Misdealt:
    """A hand of a duplicate night that the board refuses (another dealer, a card of another seat)."""

    round: int
    table: int
    hand: int
    board: int
    error: ScartoError


@dataclass(frozen=True)
class NightState:
    """A night read once: its tables by round and the ranking so far."""

    night: NightRow
    rounds: list[list[TableState]]
    ranking: list[ranking.RankLine]
    duplicate: dup.Ranking | None = None
    """A duplicate night's ranking by its scoring, with every board's results (the travellers)."""
    misdealt: tuple[Misdealt, ...] = ()
    """Hands of a duplicate night that are not their board's cards: left out of its ranking until mended."""

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
    return store.get_by_id(db, "nights", night_id, _night_row, "night")


def find_night(db: sqlite_utils.Database, token: str) -> tuple[NightRow, bool]:
    """The night a token opens, and whether it is the edit token; NotFound otherwise."""
    return store.find_by_token(db, "nights", token, _night_row, "night")


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
        if spec.duplicate is not None:
            settings["duplicate"] = spec.duplicate.to_dict()
            settings["deal"] = find_ruleset(spec.ruleset or club.settings.get("ruleset")).deal
        _save_settings(db, int(night_id), settings, stamp)
        night = get_night(db, int(night_id))
        _seat(db, club, night, 1, title_for)
        club_store.event(db, club.id, "night", {"title": spec.title, "date": spec.date, "players": len(names)},
                         stamp)
    return get_night(db, int(night_id))


def import_session(db: sqlite_utils.Database, club: club_store.ClubRow, session: dup.Session, per_round: int | None,
                   title: str, day: str, title_for: TitleFor = default_title) -> NightRow:
    """Store a ``scarto-duplicate/1`` session as a night of the club, its tables as they were played.

    A night's table plays its round's boards in order (hand i of round r is board (r - 1) x B + i), so
    a file whose tables do not is refused, naming the table; ``per_round`` is B (the file's
    ``boards_per_round``, which this app writes), else the boards over the rounds. The night has
    every round of the file and no more: nothing is left to seat."""
    rounds = max((t.round for t in session.tables), default=0)
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ReadError.of("night.rounds", "tables")
    boards = per_round or max(1, session.boards // rounds)
    dup.check_rounds(session, boards)
    players: list[str] = []
    for table in session.tables:
        players += [name for name in table.players if name not in players]
    if len(players) > MAX_PLAYERS:
        raise ReadError.of("night.crowd", "players")
    stamp = store.now()
    plan = DuplicatePlan(session.seed, boards, session.scoring)
    base = {k: v for k, v in club.settings.items() if k in ("language", "pack", "settle", "stake")}
    with store.writing(db):
        edit, view = store.new_token(), store.new_token()
        night_id = int(db.execute(
            "INSERT INTO nights (club_id, title, date, edit_token, view_token, edit_key, view_key, settings, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, '{}', ?, ?)",
            [club.id, title, day, edit, view, token_key(edit), token_key(view), stamp, stamp]).lastrowid or 0)
        roster = club_store.RosterNames(db, club.id)
        names = [roster.player_for(name, stamp).name for name in players]
        byes = [[n for n in names if all(n not in t.players for t in session.tables if t.round == r)]
                for r in range(1, rounds + 1)]
        _save_settings(db, night_id, {
            "players": names, "rounds": rounds, "hands_per_round": boards, "seating": "mixed", "ranking": "total",
            "seed": 0, "byes": byes, "rankings": [], "forced": [], "duplicate": plan.to_dict(),
            "deal": session.deal, "imported": True}, stamp)
        night = get_night(db, night_id)
        for table in sorted(session.tables, key=lambda t: (t.round, t.table)):
            seated = list(table.players)
            ruleset = table.plays[0].hand.ruleset_given if table.plays else None
            data = {"format": MATCH_FORMAT, **base, "title": title_for(title, table.round, table.table),
                    "date": day, "ruleset": ruleset or dealt(club.settings.get("ruleset"),
                                                             "four" if len(seated) == 4 else
                                                             "piccolo" if session.deal == "piccolo" else "three"),
                    "end": {"hands": boards}, "players": seated,
                    "first_dealer": _first_dealer(night, table.round, seated), "hands": []}
            record = replace(parse_match(data), hands=tuple(p.hand for p in table.plays))
            row = club_store.add_record(db, club.id, record, seated, roster)
            db.execute("INSERT INTO night_tables (night_id, round, number, match_id, players) VALUES (?, ?, ?, ?, ?)",
                       [night_id, table.round, table.table, row.id, json.dumps(seated, ensure_ascii=False)])
        club_store.event(db, club.id, "night", {"title": title, "date": day, "players": len(names)}, stamp)
    return get_night(db, night_id)


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
                "first_dealer": _first_dealer(night, number, players), "hands": []}
        row = club_store.add_record(db, club.id, parse_match(data), players, names)
        db.execute("INSERT INTO night_tables (night_id, round, number, match_id, players) VALUES (?, ?, ?, ?, ?)",
                   [night.id, number, table.number, row.id, json.dumps(players, ensure_ascii=False)])
    byes = list(settings.get("byes", []))[: number - 1]
    byes.append(list(drawn.bye))
    settings["byes"] = byes
    _save_settings(db, night.id, settings, store.now())
    return drawn


def _first_dealer(night: NightRow, number: int, players: list[str]) -> str:
    """Who deals the table's first hand: the first player seated, or at a duplicate night the seat that
    deals the round's first board (board k is dealt by seat ((k - 1) mod players) + 1), so that the
    match's rotation deals every board from its own seat."""
    boards = night.boards(number, len(players))
    return players[boards[0].dealer - 1] if boards else players[0]


def _plan(night: NightRow, settings: dict[str, Any]) -> tuple[seating.Round, ...]:
    """The night's rounds as they can be seated now (:func:`seating.plan`), drawn once."""
    return _planned(tuple(night.players), night.rounds_planned, night.seed, night.seating,
                    tuple(tuple(r) for r in settings.get("rankings", [])))


DRAW_APART = 18
"""Players from whom a night's draw is made in a process of its own. Drawn in the server's process, a
draw of 60 players (0.6 s of Python) held the interpreter's lock in turns with the saves of that
process, which waited 190 to 348 ms behind it (bench/bench_import.py); a process of its own shares
nothing with them. A smaller night draws in milliseconds, less than starting a process."""


@lru_cache(maxsize=32)
def _planned(players: tuple[str, ...], rounds: int, seed: int, method: seating.Seating,
             rankings: tuple[tuple[str, ...], ...]) -> tuple[seating.Round, ...]:
    """:func:`seating.plan`, kept: drawn before a night's write takes the lock (its players, seed and
    rankings read then), and found again inside it when nothing changed meanwhile (drawn there only if
    something did: the same draw, from what the write reads)."""
    if len(players) < DRAW_APART:
        return tuple(seating.plan(players, rounds, seed, method, rankings))
    spawn = multiprocessing.get_context("spawn")  # not fork: the server's other threads hold locks
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
        return tuple(pool.submit(seating.plan, players, rounds, seed, method, rankings).result(timeout=120))


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
        stamp = club_store.summary_stamp(updated_at, changes)
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
    path = database_path(db)
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
    return club_store.summary_stamp(updated_at, changes)


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
    lines = ranking.rank(night.players, results, night.ranking_method)
    if night.duplicate is None:
        return NightState(night, rounds, lines)
    session, misdealt = duplicate_session(db, night, rounds)
    return NightState(night, rounds, lines, dup.rank(session), tuple(misdealt))


def duplicate_session(db: sqlite_utils.Database, night: NightRow, rounds: list[list[TableState]],
                      club: str | None = None) -> tuple[dup.Session, list[Misdealt]]:
    """The night as a duplicate session (scorer/engine/duplicate.py): each table's first hands, hand i
    of round r being its board (r - 1) x B + i. A hand the engine cannot read, or that its board refuses
    (checked as a session file's hands are), is left out and the refusal returned beside."""
    plan = night.duplicate
    assert plan is not None
    tables, misdealt = [], []
    for number, round_ in enumerate(rounds, start=1):
        for ts in round_:
            boards = night.boards(number, len(ts.table.players))
            plays = []
            for i, (row, board) in enumerate(zip(store.list_hands(db, ts.table.match_id), boards, strict=False)):
                try:
                    dup.check_play(row.parsed, plan.seed, board.number, f"hand {i + 1}")
                except ScartoError as exc:
                    misdealt.append(Misdealt(number, ts.table.number, i + 1, board.number, exc))
                    continue
                plays.append(dup.BoardPlay(board.number, row.parsed))
            tables.append(dup.Table(number, ts.table.number, ts.table.players, tuple(plays)))
    session = dup.Session(plan.seed, night.deal, night.rounds_planned * plan.boards, plan.scoring, tuple(tables),
                          club)
    return session, misdealt


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
    path = database_path(db)
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


def board_of(db: sqlite_utils.Database, match_id: int, number: int) -> tuple[str, Board] | None:
    """The board hand ``number`` of a match plays, with its seed, when the match is a duplicate night's
    table and the hand one of its round's boards; None otherwise."""
    found = night_of(db, match_id)
    if found is None or found[0].duplicate is None:
        return None
    night, table = found
    plan = night.duplicate
    assert plan is not None
    if not 1 <= number <= plan.boards:
        return None
    return plan.seed, night.boards(table.round, len(table.players))[number - 1]


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
