"""Club nights in SQLite: the migration, the links, the seats as the engine draws them, the state tag,
and many phones reading a night at once right after a save."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from scorer.engine import night_files
from scorer.storage import clubs, nights, store
from scorer.storage import db as database

NINE = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Ugo", "Zeno"]


@pytest.fixture()
def path(tmp_path: Path) -> Path:
    return tmp_path / "nights.sqlite"


@pytest.fixture()
def db(path: Path) -> sqlite_utils.Database:
    handle = database.connect(path)
    database.migrate(handle)
    return handle


def make(db: sqlite_utils.Database, **extra: object) -> tuple[clubs.ClubRow, nights.NightRow]:
    club = clubs.create_club(db, "Circolo", [(n, None) for n in NINE[:3]], {"language": "en"})
    spec = night_files.parse_night({"title": "Thursday", "date": "2026-12-03", "players": NINE, "seed": 7, **extra})
    return club, nights.create_night(db, club, spec)


def test_the_migration_makes_the_nights_tables(db: sqlite_utils.Database) -> None:
    assert any(m.__name__.endswith("_nights") for m in database.MIGRATIONS)
    assert {"nights", "night_tables"} <= set(db.table_names())
    assert database.migrate(db) == len(database.MIGRATIONS)


def test_links_are_looked_up_by_their_hash_and_tell_edit_from_view(db: sqlite_utils.Database) -> None:
    _club, night = make(db)
    assert nights.find_night(db, night.edit_token) == (night, True)
    assert nights.find_night(db, night.view_token)[1] is False
    stored = db.execute("SELECT edit_key, view_key FROM nights").fetchone()
    assert stored == (database.token_key(night.edit_token), database.token_key(night.view_token))
    for wrong in ("", "x", night.edit_token[:-1] + "?", "A" * 65):
        with pytest.raises(store.NotFound):
            nights.find_night(db, wrong)


def test_the_tables_are_the_engines_seats_and_reproducible(db: sqlite_utils.Database) -> None:
    from scorer.engine.seating import plan

    _club, night = make(db)
    _club2, again = make(db)
    first = [t.players for t in nights.tables(db, night.id)]
    assert first == [t.players for t in nights.tables(db, again.id)]
    assert first == [t.players for t in plan(NINE, 3, 7, "mixed")[0].tables]
    nights.start_round(db, night.id, force=True)
    assert [t.players for t in nights.tables(db, night.id) if t.round == 2] == \
        [t.players for t in plan(NINE, 3, 7, "mixed")[1].tables]


def test_the_state_tag_follows_hands_and_rounds(db: sqlite_utils.Database) -> None:
    _club, night = make(db)
    tag = nights.state_tag(db, night)
    table = nights.tables(db, night.id)[0]
    hand = store.add_hand(db, table.match_id, {"dealer": table.players[0],
                                              "points": dict(zip(table.players, (31, 25, 22), strict=True))})
    after_hand = nights.state_tag(db, night)
    assert after_hand != tag
    store.update_hand(db, table.match_id, hand.key, {**hand.record, "notes": "again"})
    after_edit = nights.state_tag(db, night)
    assert after_edit != after_hand
    nights.start_round(db, night.id, force=True, reason="late")
    assert nights.state_tag(db, nights.get_night(db, night.id)) != after_edit
    assert nights.state_tag(db, nights.get_night(db, night.id)) == nights.state_tag(db, nights.get_night(db, night.id))


def test_many_readers_right_after_a_save_all_get_the_night(db: sqlite_utils.Database, path: Path) -> None:
    """The summaries are stale after a save; readers refreshing them at once must queue, not fail."""
    _club, night = make(db)
    problems: list[BaseException] = []
    for number, table in enumerate(nights.tables(db, night.id)):
        store.add_hand(db, table.match_id, {"dealer": table.players[0],
                                            "points": dict(zip(table.players, (31, 25, 22), strict=True))})
        start = threading.Barrier(12)

        def read(start: threading.Barrier = start, number: int = number) -> None:
            handle = database.connect(path)
            try:
                start.wait()
                state = nights.night_state(handle, nights.get_night(handle, night.id))
                assert state.rounds[0][number].hands == 1
            except BaseException as exc:  # collected for the assertion below
                problems.append(exc)
            finally:
                handle.conn.close()

        readers = [threading.Thread(target=read) for _ in range(12)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(30)
    assert problems == []


def test_a_nights_players_join_the_roster_with_one_read_of_it(db: sqlite_utils.Database) -> None:
    club = clubs.create_club(db, "Circolo", [(n, None) for n in NINE[:3]])
    spec = night_files.parse_night({"players": NINE[:3] + [f"Guest {i}" for i in range(30)], "seed": 1})
    reads: list[str] = []
    db.conn.set_trace_callback(lambda sql: reads.append(sql) if "FROM club_players" in sql and " id = " not in sql
                               else None)
    nights.create_night(db, club, spec)
    db.conn.set_trace_callback(None)
    assert len(reads) <= 3, reads[:4]  # the night's names before the write (for the draw), in it, the round's
    assert len(clubs.roster(db, club.id)) == 33


def _slow_draws(monkeypatch: pytest.MonkeyPatch, seconds: float) -> list[bool]:
    """The engine's draw made ``seconds`` slower (60 players over ten rounds take seconds); returns, for each
    draw, whether its thread was inside a write then."""
    import time

    from scorer.engine import seating

    real, inside = seating.plan, []

    def slow(*args: object, **kwargs: object) -> object:
        inside.append(bool(getattr(store._DEPTH, "n", 0)))
        time.sleep(seconds)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(seating, "plan", slow)
    kept = getattr(nights, "_planned", None)  # the draws kept: forgotten, as in a process that made none yet
    if kept is not None:
        kept.cache_clear()
    return inside


def _save_while(path: Path, work: object) -> list[float]:
    """Run ``work`` in a thread; meanwhile save hands to an unrelated match from another connection, and
    return how long each save took."""
    import time

    from scorer.engine.records import parse_match

    saver = database.connect(path)
    players = ["Dora", "Ezio", "Fede"]
    other = store.create_match(saver, parse_match({"format": "scarto-match/1", "players": players,
                                                   "first_dealer": "Dora", "hands": []}))
    thread = threading.Thread(target=work)  # type: ignore[arg-type]
    thread.start()
    waits: list[float] = []
    time.sleep(0.2)
    while thread.is_alive() and len(waits) < 5:
        started = time.monotonic()
        store.add_hand(saver, other.id, {"dealer": players[len(waits) % 3],
                                         "points": {"Dora": 30, "Ezio": 28, "Fede": 20}})
        waits.append(time.monotonic() - started)
        time.sleep(0.1)
    thread.join(timeout=60)
    return waits


def test_a_night_is_drawn_before_its_write_so_saves_do_not_wait_for_the_draw(
        path: Path, db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seating a 60-player night drew its rounds inside the write lock: every save waited for the draw
    (2.8 s). Drawn before the write, a save to another match goes on meanwhile; the next round is too."""
    inside = _slow_draws(monkeypatch, 1.0)
    club = clubs.create_club(db, "Circolo", [(n, None) for n in NINE[:3]], {"language": "en"})
    spec = night_files.parse_night({"title": "Thursday", "players": [n.lower() for n in NINE], "seed": 7})
    made: list[nights.NightRow] = []
    waits = _save_while(path, lambda: made.append(nights.create_night(db, club, spec)))
    assert waits and max(waits) < 0.5, waits
    assert inside == [False]  # drawn once, outside the write (the roster's spellings: "anna" is Anna)
    seated = {p for t in nights.tables(db, made[0].id) for p in t.players}
    assert "Anna" in seated and "anna" not in seated

    night = made[0]
    for t in nights.night_state(db, night).current_tables:  # the round played
        for dealer in t.table.players:
            store.add_hand(db, t.table.match_id, {"dealer": dealer, "points": dict(
                zip(t.table.players, (30, 28, 20), strict=True))})
    inside = _slow_draws(monkeypatch, 1.0)  # as in another process, which has not drawn this night yet
    waits = _save_while(path, lambda: nights.start_round(db, night.id, expected=2))
    assert waits and max(waits) < 0.5, waits
    assert inside == [False]
    assert len(nights.night_state(db, night).rounds) == 2


def test_a_large_nights_draw_is_made_in_a_process_of_its_own_and_is_the_same_draw(
        db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """From DRAW_APART players the draw runs in a process of its own (in the server's, it held the
    interpreter in turns with that process's saves: 190 to 348 ms a save); it is the draw the engine makes."""
    from scorer.engine import seating

    players = tuple(f"Player {i}" for i in range(nights.DRAW_APART))
    here = tuple(seating.plan(players, 4, 11, "mixed", ()))
    calls: list[int] = []
    from concurrent.futures import ProcessPoolExecutor

    def counted(*args: Any, **kwargs: Any) -> ProcessPoolExecutor:
        calls.append(1)
        return ProcessPoolExecutor(*args, **kwargs)

    monkeypatch.setattr(nights, "ProcessPoolExecutor", counted)
    nights._planned.cache_clear()
    assert nights._planned(players, 4, 11, "mixed", ()) == here and calls == [1]
    nights._planned(players[:-1], 4, 11, "mixed", ())  # below DRAW_APART: drawn in this process
    assert calls == [1]
