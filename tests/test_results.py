"""What the pages need of each hand is stored when it is saved (hand_results), so a page's cost does
not grow with the match: kept equal to judging the whole match, made again when the engine changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils
from flask import Flask
from flask.testing import FlaskClient

from scorer.engine.records import parse_match
from scorer.engine.standings import standings
from scorer.storage import db as database
from scorer.storage import store
from scorer.web.context import PAGE_HANDS, get_db
from tests.matchutil import points_match
from tests.seed import match_file

POINTS = {"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}}


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    handle = database.connect(tmp_path / "results.sqlite")
    database.migrate(handle)
    yield handle
    handle.conn.close()


def agrees_with_judging_everything(db: sqlite_utils.Database, row: store.MatchRow) -> None:
    """The stored results give the lines and totals that judging the whole match gives."""
    table = standings(store.match_record(db, row))
    window = store.standings_window(db, row, 0, 10_000)
    assert window.count == len(table.lines)
    assert [(line.number, line.dealer, line.scores, line.totals, line.counted) for line in window.lines] == [
        (line.number, line.dealer, line.scores, line.totals, line.counted) for line in table.lines]
    assert [bool(line.problems) for line in window.lines] == [bool(line.problems) for line in table.lines]
    assert (window.totals, window.finished, window.next_dealer) == (table.totals, table.finished, table.next_dealer)
    assert window.settlement == table.settlement


def test_each_save_stores_the_hands_result_under_the_engines_version(db: sqlite_utils.Database) -> None:
    row = store.create_match(db, parse_match(match_file(4)))
    hand = store.add_hand(db, row.id, POINTS)
    stored = db.execute("SELECT engine, version FROM hand_results WHERE hand_id = ?", [hand.id]).fetchone()
    assert stored == (store.engine_version(), 1)
    assert db.execute("SELECT COUNT(*) FROM hand_results").fetchone()[0] == 5
    agrees_with_judging_everything(db, row)


def test_edits_deletes_and_restores_in_the_middle_keep_the_later_totals_right(db: sqlite_utils.Database) -> None:
    row = store.create_match(db, parse_match(match_file(8)))
    hands = store.list_hands(db, row.id)
    store.update_hand(db, row.id, hands[2].key, {**POINTS, "dealer": hands[2].record["dealer"]})
    agrees_with_judging_everything(db, row)
    store.delete_hand(db, row.id, hands[4].key)
    agrees_with_judging_everything(db, row)
    store.undelete_hand(db, row.id, hands[4].key)
    agrees_with_judging_everything(db, row)
    store.restore_revision(db, row.id, hands[2].key, 1)
    agrees_with_judging_everything(db, row)


def test_a_match_that_ends_lists_the_later_hands_uncounted(db: sqlite_utils.Database) -> None:
    row = store.create_match(db, parse_match(points_match(3)))  # ends after three hands
    store.add_hand(db, row.id, POINTS)
    window = store.standings_window(db, row, 0, 10)
    assert window.finished and [line.counted for line in window.lines] == [True, True, True, False]
    agrees_with_judging_everything(db, row)


def test_results_of_another_engine_are_made_again_when_read(db: sqlite_utils.Database,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    row = store.create_match(db, parse_match(match_file(5)))
    db.execute("UPDATE hand_results SET totals = '[0, 0, 0]', summary = ?",
               ['{"dealer": "Anna", "scores": {}, "problems": []}'])  # as if an older engine had made them
    monkeypatch.setattr(store, "engine_version", lambda: "a-newer-engine")
    agrees_with_judging_everything(db, row)
    assert {r[0] for r in db.execute("SELECT engine FROM hand_results")} == {"a-newer-engine"}


def test_a_database_from_before_the_results_gets_them_on_first_read(db: sqlite_utils.Database) -> None:
    row = store.create_match(db, parse_match(match_file(6)))
    db.execute("DELETE FROM hand_results")
    agrees_with_judging_everything(db, row)
    store.add_hand(db, row.id, POINTS)  # and a save after it continues from them
    agrees_with_judging_everything(db, row)


def test_a_save_reads_inside_the_write_lock_only_what_must_be_read_there(db: sqlite_utils.Database) -> None:
    """Inside the transaction: the count, the last position and the last hand's totals, never every hand."""
    row = store.create_match(db, parse_match(match_file(40)))
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    try:
        store.add_hand(db, row.id, POINTS, expected_count=40)
    finally:
        db.conn.set_trace_callback(None)
    begin = statements.index("BEGIN")
    end = statements.index("COMMIT", begin)
    inside = [s for s in statements[begin:end] if s.lstrip().upper().startswith("SELECT")]
    assert not any(re.search(r"FROM hands\s+WHERE match_id = \?\s*(AND deleted_at IS NULL\s*)?ORDER BY", s)
                   for s in inside), inside
    assert len(inside) == 2, inside  # the count, position and last hand at once; the last hand's totals
    assert not any("LEFT JOIN hand_results" in s for s in inside)  # no walk over the match's results


@pytest.fixture()
def long_match(app: Flask) -> str:
    with app.app_context():
        return store.create_match(get_db(), parse_match(points_match(1000, stake="0.05"))).edit_token


def test_a_long_matchs_page_shows_the_latest_hands_and_pages_through_the_rest(
        app: Flask, client: FlaskClient, long_match: str) -> None:
    page = client.get(f"/m/{long_match}/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert len(page.data) <= 40 * 1024  # the page-weight budget, at 1,000 hands
    assert f"Hands {1000 - PAGE_HANDS + 1}–1000 of 1000" in html
    assert html.count('class="row-link"') == PAGE_HANDS  # the hands shown
    assert re.search(r"<tfoot><tr>.*?</tr></tfoot>", html).group().count('class="num"') == 3  # the totals
    with app.app_context():
        row, _ = store.find_match(get_db(), long_match)
        table = standings(store.match_record(get_db(), row))
    from scorer.engine.numbers import fraction_text
    assert all(fraction_text(t) in html for t in table.totals)
    earlier = client.get(f"/m/{long_match}/?page=2").get_data(as_text=True)
    assert f"Hands {1000 - 2 * PAGE_HANDS + 1}–{1000 - PAGE_HANDS} of 1000" in earlier
    first = client.get(f"/m/{long_match}/?page=999").get_data(as_text=True)
    assert f"Hands 1–{1000 % PAGE_HANDS or PAGE_HANDS} of 1000" in first
    assert 'id="earlier"' not in first and 'id="later"' in first


def test_a_hand_page_of_a_long_match_shows_its_line_of_the_standings(app: Flask, client: FlaskClient,
                                                                   long_match: str) -> None:
    from scorer.engine.numbers import fraction_text

    with app.app_context():
        row, _ = store.find_match(get_db(), long_match)
        hands = store.list_hands(get_db(), row.id)
        table = standings(store.match_record(get_db(), row))
    page = client.get(f"/m/{long_match}/hands/{hands[499].key}/").get_data(as_text=True)
    assert "Hand 500" in page
    section = page[page.index('id="standings-after"'):]
    assert all(f"<b>{fraction_text(t)}</b>" in section for t in table.lines[499].totals)
