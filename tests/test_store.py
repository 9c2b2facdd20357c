"""The store: every change makes a revision, deletes are soft, conflicts carry what was saved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from scorer.engine.errors import ReadError
from scorer.engine.records import HandRecord, match_to_dict, parse_match
from scorer.storage import db as database
from scorer.storage import store
from tests.seed import dealt_by, match_file

POINTS = {"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}}
EDITED = {"dealer": "Anna", "points": {"Anna": 30, "Bruno": 23, "Carla": 25}}


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    handle = database.connect(tmp_path / "store.sqlite")
    database.migrate(handle)
    yield handle
    handle.conn.close()


@pytest.fixture()
def match(db: sqlite_utils.Database) -> store.MatchRow:
    return store.create_match(db, parse_match(match_file(0)))


def count(db: sqlite_utils.Database, table: str) -> int:
    return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def actions(db: sqlite_utils.Database, hand: store.HandRow) -> list[tuple[int, str]]:
    return [(r.version, r.action) for r in store.revisions(db, hand.id)]


# --- matches and tokens ---------------------------------------------------------------


def test_create_match_stores_settings_and_hands_with_a_revision_each(db: sqlite_utils.Database) -> None:
    data = match_file(5)
    row = store.create_match(db, parse_match(data))
    hands = store.list_hands(db, row.id)
    assert [h.position for h in hands] == [1, 2, 3, 4, 5]
    assert all(actions(db, h) == [(1, "create")] for h in hands)
    assert store.match_data(db, row) == store.match_data(db, store.get_match(db, row.id))
    assert row.players == ["Anna", "Bruno", "Carla"]


def test_match_data_round_trips(db: sqlite_utils.Database) -> None:
    data = match_file(6)
    row = store.create_match(db, parse_match(data))
    assert store.match_data(db, row) == match_to_dict(parse_match(data))


def test_tokens_open_the_match_edit_or_view(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    assert len(match.edit_token) == 24 and len(match.view_token) == 24
    assert store.find_match(db, match.edit_token) == (match, True)
    assert store.find_match(db, match.view_token) == (match, False)


@pytest.mark.parametrize("token", ["", "x", "A" * 24, "A" * 65, "' OR 1=1 --"])
def test_unknown_tokens_find_nothing(db: sqlite_utils.Database, match: store.MatchRow, token: str) -> None:
    with pytest.raises(store.NotFound):
        store.find_match(db, token)


def test_a_hand_key_belongs_to_its_match(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    other = store.create_match(db, parse_match(match_file(0)))
    hand = store.add_hand(db, match.id, POINTS)
    with pytest.raises(store.NotFound):
        store.get_hand(db, other.id, hand.key)
    with pytest.raises(store.NotFound):
        store.update_hand(db, other.id, hand.key, EDITED)


def test_a_stored_hand_comes_back_as_the_engines_record(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    for row in (hand, store.get_hand(db, match.id, hand.key), store.list_hands(db, match.id)[0]):
        assert row.error is None
        assert isinstance(row.parsed, HandRecord)
        assert row.parsed.players == tuple(match.players) and row.parsed.dealer == POINTS["dealer"]
    assert store.revisions(db, hand.id)[0].parsed == hand.parsed
    assert store.match_record(db, match).hands == (hand.parsed,)


def test_a_record_the_engine_refuses_comes_back_with_its_error_and_raw_value(
        db: sqlite_utils.Database, match: store.MatchRow) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    broken = {"dealer": "Zoe", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}}  # as if an older engine wrote it
    db.execute("UPDATE hands SET record = ? WHERE id = ?", [json.dumps(broken), hand.id])
    row = store.get_hand(db, match.id, hand.key)
    assert row.record == broken
    assert isinstance(row.error, ReadError) and "'Zoe' is not one of the players" in str(row.error)
    with pytest.raises(ReadError, match="'Zoe' is not one of the players"):
        store.match_record(db, match)  # a match with such a hand says why


# --- revisions --------------------------------------------------------------------


def test_add_edit_delete_undelete_restore_each_make_a_revision(
        db: sqlite_utils.Database, match: store.MatchRow) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    assert (hand.version, hand.position, hand.deleted_at) == (1, 1, None)
    hand = store.update_hand(db, match.id, hand.key, EDITED, expected_version=1)
    assert (hand.version, hand.record) == (2, EDITED)
    hand = store.delete_hand(db, match.id, hand.key, expected_version=2)
    assert hand.version == 3 and hand.deleted_at is not None and hand.record == EDITED
    hand = store.undelete_hand(db, match.id, hand.key, expected_version=3)
    assert hand.version == 4 and hand.deleted_at is None
    hand = store.restore_revision(db, match.id, hand.key, 1, expected_version=4)
    assert (hand.version, hand.record, hand.deleted_at) == (5, POINTS, None)
    assert actions(db, hand) == [(1, "create"), (2, "edit"), (3, "delete"), (4, "undelete"), (5, "restore")]
    assert [r.record for r in store.revisions(db, hand.id)] == [POINTS, EDITED, EDITED, EDITED, POINTS]
    assert store.get_revision(db, hand.id, 2).record == EDITED


def test_every_change_to_the_hands_changes_the_matchs_state(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    """The state (the phones' tag, the key of the kept page) is read from the match row alone."""
    seen = [store.match_state(db, match.id)]
    hand = store.add_hand(db, match.id, POINTS)
    seen.append(store.match_state(db, match.id))
    for change in (lambda: store.update_hand(db, match.id, hand.key, EDITED),
                   lambda: store.delete_hand(db, match.id, hand.key),
                   lambda: store.undelete_hand(db, match.id, hand.key),
                   lambda: store.restore_revision(db, match.id, hand.key, 1)):
        change()
        seen.append(store.match_state(db, match.id))
        assert store.find_match(db, match.edit_token)[0].state == seen[-1]
    assert len(set(seen)) == len(seen) == 6
    with pytest.raises(store.Conflict):  # a refused change changes nothing
        store.add_hand(db, match.id, POINTS, expected_count=0)
    assert store.match_state(db, match.id) == seen[-1]
    with pytest.raises(store.NotFound):
        store.match_state(db, 999)


def test_writers_take_the_databases_writer_lock_in_turn_across_processes(
        db: sqlite_utils.Database, match: store.MatchRow, tmp_path: Path) -> None:
    """While another process holds the writer lock, a save waits for it (on the lock, not SQLite's polling)."""
    import fcntl
    import multiprocessing
    import time

    lock_path = tmp_path / "store.sqlite-writer"
    store.add_hand(db, match.id, POINTS)
    assert lock_path.exists()
    ready, release = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.get_context("fork").Process(target=_hold_lock, args=(str(lock_path), ready, release))
    holder.start()
    try:
        assert ready.wait(10)
        with pytest.raises(BlockingIOError):  # the other process has it
            fcntl.flock(database._lock_file(db), fcntl.LOCK_EX | fcntl.LOCK_NB)
        done: list[float] = []
        started = time.monotonic()
        import threading

        def save() -> None:
            store.add_hand(db, match.id, POINTS)
            done.append(time.monotonic())

        saver = threading.Thread(target=save)
        saver.start()
        time.sleep(0.3)
        assert not done  # waiting on the lock
        release.set()
        saver.join(10)
        assert done and done[0] - started >= 0.3
    finally:
        release.set()
        holder.join(10)
    assert store.count_hands(db, match.id) == 2


def test_a_write_inside_a_transaction_already_open_does_not_wait_for_the_writer_lock(
        db: sqlite_utils.Database, match: store.MatchRow, tmp_path: Path) -> None:
    """A club's or a night's transaction writes, then makes a match: it may hold SQLite's lock, which the
    writer lock's holder (a save in another process) waits for. It must not wait for that holder."""
    import multiprocessing
    import time

    store.add_hand(db, match.id, POINTS)  # the lock file exists
    ready, release = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.get_context("fork").Process(
        target=_hold_lock, args=(str(tmp_path / "store.sqlite-writer"), ready, release))
    holder.start()
    try:
        assert ready.wait(10)
        started = time.monotonic()
        with db.atomic():
            db.execute("UPDATE matches SET updated_at = updated_at WHERE id = ?", [match.id])  # SQLite's lock
            made = store.create_match(db, parse_match(match_file(2)))
        assert time.monotonic() - started < 2
        assert store.count_hands(db, made.id) == 2
    finally:
        release.set()
        holder.join(10)


def test_a_writer_gives_up_when_the_lock_is_held_past_the_busy_timeout(
        db: sqlite_utils.Database, match: store.MatchRow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As SQLite's busy timeout did: "database is locked" (the app's 503 page), not a wait without end."""
    import multiprocessing
    import sqlite3
    import time

    store.add_hand(db, match.id, POINTS)
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.5)
    ready, release = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.get_context("fork").Process(
        target=_hold_lock, args=(str(tmp_path / "store.sqlite-writer"), ready, release))
    holder.start()
    try:
        assert ready.wait(10)
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            store.add_hand(db, match.id, POINTS)
        assert 0.5 <= time.monotonic() - started < 3
    finally:
        release.set()
        holder.join(10)
    assert store.count_hands(db, match.id) == 1
    store.add_hand(db, match.id, POINTS)  # the lock let go: saves go on
    assert store.count_hands(db, match.id) == 2


def test_a_process_keeps_a_few_lock_files_open_whatever_the_number_of_databases(tmp_path: Path) -> None:
    handles = []
    for n in range(20):
        other = database.connect(tmp_path / f"{n}.sqlite")
        database.migrate(other)
        store.create_match(other, parse_match(match_file(0)))
        handles.append(other)
    assert len(database._LOCK_FILES) <= database._KEPT_LOCK_FILES
    store.add_hand(handles[0], 1, POINTS)  # a database whose lock file was closed opens it again
    assert store.count_hands(handles[0], 1) == 1
    for other in handles:
        other.conn.close()


def _hold_lock(path: str, ready: object, release: object) -> None:
    import fcntl
    import os

    handle = os.open(path, os.O_RDWR)
    fcntl.flock(handle, fcntl.LOCK_EX)
    ready.set()  # type: ignore[attr-defined]
    release.wait(10)  # type: ignore[attr-defined]
    fcntl.flock(handle, fcntl.LOCK_UN)


def test_a_delete_is_soft_and_keeps_the_hands_place(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    keys = [store.add_hand(db, match.id, dealt_by("classic-points", d)).key for d in ("Anna", "Bruno", "Carla")]
    store.delete_hand(db, match.id, keys[1])
    assert [h.key for h in store.list_hands(db, match.id)] == [keys[0], keys[2]]
    assert [h.key for h in store.deleted_hands(db, match.id)] == [keys[1]]
    assert [h.key for h in store.list_hands(db, match.id, deleted=True)] == keys
    assert [h["dealer"] for h in store.match_data(db, match)["hands"]] == ["Anna", "Carla"]
    store.undelete_hand(db, match.id, keys[1])
    assert [h.key for h in store.list_hands(db, match.id)] == keys
    assert store.deleted_hands(db, match.id) == []


def test_restoring_a_deleted_hands_revision_brings_it_back(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    store.update_hand(db, match.id, hand.key, EDITED)
    store.delete_hand(db, match.id, hand.key)
    back = store.restore_revision(db, match.id, hand.key, 1, expected_version=3)
    assert back.deleted_at is None and back.record == POINTS and back.version == 4


def test_deleted_hands_are_listed_most_recent_first(db: sqlite_utils.Database, match: store.MatchRow,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    first = store.add_hand(db, match.id, POINTS)
    second = store.add_hand(db, match.id, EDITED)
    monkeypatch.setattr(store, "now", lambda: "2026-01-01T10:00:00Z")
    store.delete_hand(db, match.id, second.key)
    monkeypatch.setattr(store, "now", lambda: "2026-01-01T10:05:00Z")
    store.delete_hand(db, match.id, first.key)
    assert [h.key for h in store.deleted_hands(db, match.id)] == [first.key, second.key]


def test_an_unknown_revision_is_not_found(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    with pytest.raises(store.NotFound):
        store.restore_revision(db, match.id, hand.key, 7)
    with pytest.raises(store.NotFound):
        store.get_revision(db, hand.id, 0)
    assert actions(db, hand) == [(1, "create")]


# --- conflicts --------------------------------------------------------------------


@pytest.mark.parametrize("change", [
    lambda db, m, k: store.update_hand(db, m, k, EDITED, expected_version=1),
    lambda db, m, k: store.delete_hand(db, m, k, expected_version=1),
    lambda db, m, k: store.restore_revision(db, m, k, 1, expected_version=1),
], ids=["edit", "delete", "restore"])
def test_a_stale_version_raises_conflict_with_the_current_row(
        db: sqlite_utils.Database, match: store.MatchRow, change: Any) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    saved = store.update_hand(db, match.id, hand.key, EDITED, expected_version=1)  # the other phone
    with pytest.raises(store.Conflict) as raised:
        change(db, match.id, hand.key)
    assert raised.value.current == saved
    assert raised.value.current.record == EDITED and raised.value.current.version == 2
    assert "changed from another phone" in raised.value.message
    assert len(store.revisions(db, hand.id)) == 2


def test_undelete_with_a_stale_version_conflicts(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    deleted = store.delete_hand(db, match.id, hand.key)
    with pytest.raises(store.Conflict) as raised:
        store.undelete_hand(db, match.id, hand.key, expected_version=1)
    assert raised.value.current == deleted


def test_adding_a_hand_someone_else_added_first_conflicts(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    first = store.add_hand(db, match.id, POINTS, expected_count=0)
    with pytest.raises(store.Conflict) as raised:
        store.add_hand(db, match.id, EDITED, expected_count=0)
    assert raised.value.current == first
    assert "Hand 1 was saved from another phone" in raised.value.message
    assert count(db, "hands") == 1 and count(db, "revisions") == 1


# --- all or nothing ---------------------------------------------------------------


def _failing_revision(*args: Any) -> None:
    raise RuntimeError("the disk filled up")


def test_a_failed_add_leaves_no_hand(db: sqlite_utils.Database, match: store.MatchRow,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    stamp = store.get_match(db, match.id).updated_at
    monkeypatch.setattr(store, "now", lambda: "2099-01-01T00:00:00Z")
    monkeypatch.setattr(store, "_revision", _failing_revision)
    with pytest.raises(RuntimeError):
        store.add_hand(db, match.id, POINTS)
    assert count(db, "hands") == 0 and count(db, "revisions") == 0
    assert store.get_match(db, match.id).updated_at == stamp
    assert not db.conn.in_transaction


def test_a_failed_create_leaves_no_match(db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "_revision", _failing_revision)
    with pytest.raises(RuntimeError):
        store.create_match(db, parse_match(match_file(3)))
    assert (count(db, "matches"), count(db, "hands"), count(db, "revisions")) == (0, 0, 0)


@pytest.mark.parametrize("change", [
    lambda db, m, k: store.update_hand(db, m, k, EDITED),
    lambda db, m, k: store.delete_hand(db, m, k),
    lambda db, m, k: store.restore_revision(db, m, k, 1),
], ids=["edit", "delete", "restore"])
def test_a_failed_change_leaves_the_hand_as_it_was(db: sqlite_utils.Database, match: store.MatchRow,
                                                   monkeypatch: pytest.MonkeyPatch, change: Any) -> None:
    hand = store.add_hand(db, match.id, POINTS)
    hand = store.update_hand(db, match.id, hand.key, EDITED)
    monkeypatch.setattr(store, "_revision", _failing_revision)
    with pytest.raises(RuntimeError):
        change(db, match.id, hand.key)
    assert store.get_hand(db, match.id, hand.key) == hand
    assert len(store.revisions(db, hand.id)) == 2


def test_a_failure_in_an_outer_transaction_rolls_back_the_store_too(
        db: sqlite_utils.Database, match: store.MatchRow) -> None:
    with pytest.raises(RuntimeError), db.atomic():
        store.add_hand(db, match.id, POINTS)
        raise RuntimeError("later step failed")
    assert count(db, "hands") == 0 and count(db, "revisions") == 0


def test_records_are_stored_as_json_text(db: sqlite_utils.Database, match: store.MatchRow) -> None:
    hand = store.add_hand(db, match.id, {"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25},
                                         "notes": "Bruno’s revoke — forgiven"})
    raw = db.execute("SELECT record FROM hands WHERE id = ?", [hand.id]).fetchone()[0]
    assert json.loads(raw)["notes"] == "Bruno’s revoke — forgiven" and "’" in raw


def test_a_write_behind_a_long_write_of_its_own_process_gives_up_in_time(
        db: sqlite_utils.Database, match: store.MatchRow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process's writer lock had no time limit: behind a club file stored for 30 s and more, a save of
    the same process waited the whole time (every thread could end up waiting). It gives up as SQLite
    does, with "database is locked" (the 503 "try again" page), after BUSY_TIMEOUT in all."""
    import sqlite3
    import threading
    import time

    monkeypatch.setattr(store, "BUSY_TIMEOUT", 0.3)
    held, release = threading.Event(), threading.Event()

    def long_write() -> None:
        other = database.connect(tmp_path / "store.sqlite")
        with store.writing(other):
            held.set()
            release.wait(5)
        other.conn.close()

    writer = threading.Thread(target=long_write)
    writer.start()
    held.wait(5)
    began = time.monotonic()
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            store.add_hand(db, match.id, {"dealer": "Anna", "points": {"Anna": 30, "Bruno": 30, "Carla": 18}})
        waited = time.monotonic() - began
    finally:
        release.set()
        writer.join(5)
    assert 0.25 < waited < 2.0, waited
    assert store.count_hands(db, match.id) == 0
    store.add_hand(db, match.id, {"dealer": "Anna", "points": {"Anna": 30, "Bruno": 30, "Carla": 18}})  # then it goes
    assert store.count_hands(db, match.id) == 1


def test_a_match_judged_before_its_write_is_not_judged_again_in_it(db: sqlite_utils.Database,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An imported file's hands were judged to refuse it, then again inside the write for their results."""
    from scorer.engine.scoring import score_hand

    record = parse_match(match_file(5))
    results = [score_hand(hand) for hand in record.hands]
    judged = store.create_match(db, record)
    monkeypatch.setattr(store, "score_hand", lambda hand: pytest.fail("judged again inside the write"))
    given = store.create_match(db, record, results)

    def stored(row: store.MatchRow) -> list[tuple[str, str]]:
        return [tuple(r) for r in db.execute(
            "SELECT r.summary, r.totals FROM hand_results r JOIN hands h ON h.id = r.hand_id WHERE h.match_id = ? "
            "ORDER BY h.position", [row.id]).fetchall()]

    assert stored(given) == stored(judged) and len(stored(given)) == 5
