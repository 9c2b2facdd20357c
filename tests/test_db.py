"""The SQLite adapter: durable settings, numbered idempotent migrations, backups, the CLI."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from scorer import create_app
from scorer.engine.records import HandRecord, dumps, parse_match
from scorer.storage import db as database
from scorer.storage import store
from scorer.web import get_db
from tests.seed import match_file, seed_match


def schema(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in db.execute(
        "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").fetchall()]


def applied(db: sqlite_utils.Database) -> list[int]:
    return [r[0] for r in db.execute("SELECT number FROM _migrations ORDER BY number").fetchall()]


@pytest.fixture()
def fresh(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    db = database.connect(tmp_path / "fresh.sqlite")
    yield db
    db.conn.close()


def test_connection_is_durable(fresh: sqlite_utils.Database) -> None:
    assert fresh.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert fresh.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert fresh.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert fresh.execute("PRAGMA busy_timeout").fetchone()[0] == 30000


def test_the_apps_request_connection_is_durable(app: Flask) -> None:
    with app.app_context():
        db = get_db()
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_migrations_are_numbered_in_order() -> None:
    numbers = [int(re.fullmatch(r"_m(\d{3})_\w+", m.__name__).group(1)) for m in database.MIGRATIONS]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(database.MIGRATIONS) + 1))


def test_migrate_records_each_number_once(fresh: sqlite_utils.Database) -> None:
    assert database.migrate(fresh) == len(database.MIGRATIONS)
    assert applied(fresh) == list(range(1, len(database.MIGRATIONS) + 1))
    assert {"matches", "hands", "revisions"} <= set(fresh.table_names())


def test_migrate_is_idempotent(fresh: sqlite_utils.Database) -> None:
    database.migrate(fresh)
    before = schema(fresh)
    stamps = fresh.execute("SELECT number, applied_at FROM _migrations").fetchall()
    assert database.migrate(fresh) == len(database.MIGRATIONS)
    assert database.migrate(fresh) == len(database.MIGRATIONS)
    assert schema(fresh) == before
    assert fresh.execute("SELECT number, applied_at FROM _migrations").fetchall() == stamps


def test_a_new_migration_is_applied_once_to_an_existing_database(
        fresh: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    database.migrate(fresh)
    calls = []

    def _m999_notes(db: sqlite_utils.Database) -> None:
        calls.append(1)
        db.table("matches").add_column("notes", str)

    monkeypatch.setattr(database, "MIGRATIONS", [*database.MIGRATIONS, _m999_notes])
    assert database.migrate(fresh) == len(database.MIGRATIONS)
    database.migrate(fresh)
    assert calls == [1]
    assert "notes" in fresh["matches"].columns_dict
    assert applied(fresh)[-1] == len(database.MIGRATIONS)


def test_a_failing_migration_leaves_nothing_behind(
        fresh: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    database.migrate(fresh)
    before = schema(fresh)

    def _m999_broken(db: sqlite_utils.Database) -> None:
        db.table("scratch").create({"id": int}, pk="id")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(database, "MIGRATIONS", [*database.MIGRATIONS, _m999_broken])
    with pytest.raises(RuntimeError):
        database.migrate(fresh)
    assert "scratch" not in fresh.table_names()
    assert schema(fresh) == before
    assert len(applied(fresh)) == len(database.MIGRATIONS) - 1


def test_foreign_keys_are_enforced(fresh: sqlite_utils.Database) -> None:
    database.migrate(fresh)
    with pytest.raises(sqlite3.IntegrityError):
        fresh.table("hands").insert({"match_id": 999, "key": "k", "position": 1, "record": "{}", "version": 1,
                               "created_at": "x", "updated_at": "x"})


def test_backup_copies_the_live_database(fresh: sqlite_utils.Database, tmp_path: Path) -> None:
    database.migrate(fresh)
    row = store.create_match(fresh, parse_match(match_file(4)))
    target = tmp_path / "copy.sqlite"
    database.backup(fresh, target)
    copy = sqlite_utils.Database(target)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert store.match_data(copy, store.get_match(copy, row.id)) == store.match_data(fresh, row)
    copy.conn.close()


def test_init_db_command(runner: FlaskCliRunner, app: Flask) -> None:
    result = runner.invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert f"Database ready at {app.config['DATABASE']} (schema {len(database.MIGRATIONS)})." in result.output
    again = runner.invoke(args=["init-db"])
    assert again.exit_code == 0
    db = sqlite_utils.Database(app.config["DATABASE"])
    assert applied(db) == list(range(1, len(database.MIGRATIONS) + 1))
    db.conn.close()


def test_init_db_creates_a_missing_database(tmp_path: Path) -> None:
    path = tmp_path / "new" / "scarto.sqlite"
    path.parent.mkdir()
    app = create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "x", "SKIP_MIGRATIONS": True})
    assert not path.exists()
    result = app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert {"matches", "hands", "revisions"} <= set(sqlite_utils.Database(path).table_names())


def test_backup_command(runner: FlaskCliRunner, app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    edit, _view = seed_match(app, 5)
    exported = client.get(f"/m/{edit}/export.json").data
    target = tmp_path / "backup.sqlite"
    result = runner.invoke(args=["backup", str(target)])
    assert result.exit_code == 0, result.output
    assert f"Backed up to {target}." in result.output
    copy = sqlite_utils.Database(target)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    row, can_edit = store.find_match(copy, edit)
    assert can_edit
    assert dumps(store.match_data(copy, row)).encode() == exported
    assert copy.execute("SELECT COUNT(*) FROM revisions").fetchone()[0] == 5
    copy.conn.close()


def test_backup_refuses_to_copy_onto_the_live_database(runner: FlaskCliRunner, app: Flask) -> None:
    result = runner.invoke(args=["backup", app.config["DATABASE"]])
    assert result.exit_code == 1
    assert "No backup made:" in result.output and "is the live database itself" in result.output
    db = sqlite_utils.Database(app.config["DATABASE"])
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.conn.close()


@pytest.mark.parametrize("make", [
    lambda path: path.write_text("not a database, a shopping list"),
    lambda path: path.mkdir(),
], ids=["text-file", "folder"])
def test_backup_onto_something_that_is_not_a_database_is_refused(runner: FlaskCliRunner, tmp_path: Path,
                                                                  make: Any) -> None:
    target = tmp_path / "target"
    make(target)
    result = runner.invoke(args=["backup", str(target)])
    assert result.exit_code == 1
    assert "No backup made:" in result.output and "Traceback" not in result.output


def test_an_old_database_keeps_its_links_through_migration_2(tmp_path: Path) -> None:
    """A database made before tokens were looked up by hash: every link still opens its match."""
    from scorer.storage.db import MIGRATIONS, connect, migrate
    old = connect(tmp_path / "old.sqlite")
    old.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    with old.atomic():
        MIGRATIONS[0](old)
        old.execute("INSERT INTO _migrations VALUES (1, datetime('now'))")
        old.execute("INSERT INTO matches (edit_token, view_token, settings, created_at, updated_at) "
                    "VALUES ('edit-token-of-an-old-match', 'view-token-of-an-old-match', ?, 'x', 'x')",
                    ['{"players": ["A", "B", "C"], "first_dealer": "A", "ruleset": "classic"}'])
    assert migrate(old) == len(MIGRATIONS) >= 2
    row, can_edit = store.find_match(old, "edit-token-of-an-old-match")
    assert can_edit and row.players == ["A", "B", "C"]
    assert store.find_match(old, "view-token-of-an-old-match")[1] is False
    with pytest.raises(store.NotFound):
        store.find_match(old, "edit-token-of-an-old-matcH")


@pytest.mark.parametrize("preset", ["four", "piccolo"])
def test_a_four_match_stored_before_the_deal_switch_scores_the_same_after_the_upgrade(tmp_path: Path,
                                                                                      preset: str) -> None:
    """The revised presets: ``four`` and ``piccolo`` took the rule sheet's switches. A match stored with one before
    the change (the schema before that migration, rows as the old code wrote them) keeps the classic
    switches it was played under, scores as before, and each hand's history says so."""
    import json
    import random
    from dataclasses import replace

    from scorer.engine.records import hand_to_dict
    from scorer.engine.rulesets import PRESETS, find_ruleset
    from scorer.engine.scoring import score_hand
    from scorer.engine.simulation import NAMES, simulate_hand
    from scorer.engine.standings import standings
    from scorer.storage.db import MIGRATIONS, _m003_rules_kept_for_four_and_piccolo, connect, migrate

    old_four = find_ruleset({"preset": "classic", "deal": preset})  # the switches it had
    rng = random.Random(11)
    played: list[HandRecord] = []
    while len(played) < 4:  # hands the new ``four`` scores otherwise (XX against XXI, the Fool's last trick)
        record = simulate_hand(old_four, rng, leaders=False)
        if score_hand(replace(record, ruleset=PRESETS[preset])).scores() != score_hand(record).scores():
            played.append(record)
    before = [score_hand(record).scores() for record in played]

    db = connect(tmp_path / "old.sqlite")
    db.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    upgrade = MIGRATIONS.index(_m003_rules_kept_for_four_and_piccolo)
    with db.atomic():
        for number, migration in enumerate(MIGRATIONS[:upgrade], start=1):
            migration(db)
            db.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", [number])
        settings = {"format": "scarto-match/1", "ruleset": preset, "players": list(NAMES[:old_four.players]),
                    "first_dealer": "Anna", "settle": "per_point"}
        db.execute("INSERT INTO matches (edit_token, view_token, edit_key, view_key, settings, created_at, "
                   "updated_at) VALUES ('e-old', 'v-old', ?, ?, ?, 'x', 'x')",
                   [database.token_key("e-old"), database.token_key("v-old"), json.dumps(settings)])
        for position, record in enumerate(played, start=1):
            hand = json.dumps(hand_to_dict(record, in_match=True))
            db.execute("INSERT INTO hands (match_id, key, position, record, version, created_at, updated_at) "
                       "VALUES (1, ?, ?, ?, 1, 'x', 'x')", [f"k{position}", position, hand])
            db.execute("INSERT INTO revisions (hand_id, version, action, record, created_at) "
                       "VALUES (?, 1, 'create', ?, 'x')", [position, hand])
    assert migrate(db) == len(MIGRATIONS)

    row, _ = store.find_match(db, "e-old")
    assert row.settings["ruleset"] == {
        "preset": preset, "top_trump": "T20", "discard": "classic", "fool_discard": "restricted",
        "first_lead": "after_dealer", "overtrump": False, "fool_last_trick": "kept", "fool_forfeit": False,
        "ultimo": False, "deal": preset}
    match = store.match_record(db, row)
    assert match.ruleset == replace(old_four, preset=preset)
    assert [line.scores for line in standings(match).lines] == before
    for stored in store.list_hands(db, row.id):
        history = store.revisions(db, stored.id)
        assert [r.action for r in history] == ["create", "rules_kept"]
        assert history[1].record == history[0].record and stored.version == 2
    assert migrate(db) == len(MIGRATIONS)  # applied once
    assert len(store.revisions(db, 1)) == 2
    db.conn.close()


def test_the_upgrade_keeps_a_switch_the_old_match_changed_and_leaves_other_matches_alone(tmp_path: Path) -> None:
    import json

    from scorer.storage.db import MIGRATIONS, _m003_rules_kept_for_four_and_piccolo, connect, migrate

    db = connect(tmp_path / "old.sqlite")
    db.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    with db.atomic():
        for number, migration in enumerate(MIGRATIONS[:MIGRATIONS.index(_m003_rules_kept_for_four_and_piccolo)],
                                           start=1):
            migration(db)
            db.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", [number])
        for n, ruleset in enumerate([{"preset": "four", "ultimo": True}, "classic", "rulesheet"], start=1):
            settings = {"ruleset": ruleset, "players": ["A", "B", "C", "D"][:4 if n == 1 else 3],
                        "first_dealer": "A"}
            db.execute("INSERT INTO matches (edit_token, view_token, edit_key, view_key, settings, created_at, "
                       "updated_at) VALUES (?, ?, ?, ?, ?, 'x', 'x')",
                       [f"e{n}", f"v{n}", database.token_key(f"e{n}"), database.token_key(f"v{n}"),
                        json.dumps(settings)])
    migrate(db)
    rulesets = [json.loads(row[0])["ruleset"] for row in db.execute("SELECT settings FROM matches ORDER BY id")]
    assert rulesets[0]["ultimo"] is True and rulesets[0]["overtrump"] is False and rulesets[0]["deal"] == "four"
    assert rulesets[1:] == ["classic", "rulesheet"]
    db.conn.close()


def test_the_upgrade_counts_each_matchs_changes_so_far(tmp_path: Path) -> None:
    """Migration 10: a match's state starts at its number of revisions and goes on from there."""
    import json

    from scorer.storage.db import MIGRATIONS, _m010_match_changes, connect, migrate

    db = connect(tmp_path / "old.sqlite")
    db.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    with db.atomic():
        for number, migration in enumerate(MIGRATIONS[:MIGRATIONS.index(_m010_match_changes)], start=1):
            migration(db)
            db.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", [number])
    first = store.create_match(db, parse_match(match_file(0)))  # the code of today on the old schema's rows
    second = store.create_match(db, parse_match(match_file(0)))
    for record in ({"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}},) * 2:
        db.execute("INSERT INTO hands (match_id, key, position, record, version, created_at, updated_at) "
                   "VALUES (?, lower(hex(randomblob(6))), 1, ?, 1, 'x', 'x')", [first.id, json.dumps(record)])
        db.execute("INSERT INTO revisions (hand_id, version, action, record, created_at) "
                   "VALUES (last_insert_rowid(), 1, 'create', ?, 'x')", [json.dumps(record)])
    revisions = [db.execute("SELECT COUNT(*) FROM revisions r JOIN hands h ON h.id = r.hand_id "
                            "WHERE h.match_id = ?", [m.id]).fetchone()[0] for m in (first, second)]
    assert revisions[0] == revisions[1] + 2
    migrate(db)
    assert [store.match_state(db, m.id) for m in (first, second)] == [str(n) for n in revisions]
    store.add_hand(db, second.id, {"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}})
    assert store.match_state(db, second.id) == str(revisions[1] + 1)
    db.conn.close()


def test_a_match_stored_to_end_past_the_limits_reads_back_ending_at_them(tmp_path: Path) -> None:
    """The API took any end before it had limits; such a match ends at the limit after the upgrade, and its
    pages read it (its stored settings would otherwise no longer parse)."""
    import json

    from scorer.storage.db import MIGRATIONS, connect, migrate
    old = connect(tmp_path / "old.sqlite")
    old.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    for number in range(1, 12):
        with old.atomic():
            MIGRATIONS[number - 1](old)
            old.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", [number])
    settings = {"players": ["A", "B", "C"], "first_dealer": "A", "ruleset": "classic"}
    for i, end in enumerate(({"hands": 10**40}, {"target": 10**6}, {"hands": 30})):
        old.execute("INSERT INTO matches (edit_token, view_token, edit_key, view_key, settings, created_at, "
                    "updated_at) VALUES (?, ?, ?, ?, ?, 'x', 'x')",
                    [f"e{i}", f"v{i}", f"ek{i}", f"vk{i}", json.dumps({**settings, "end": end})])
    old.execute("INSERT INTO clubs (name, edit_token, view_token, edit_key, view_key, settings, created_at, "
                "updated_at) VALUES ('C', 'e', 'v', 'ek', 'vk', ?, 'x', 'x')", [json.dumps({"end": {"target": 10**9}})])
    migrate(old)
    ends = [store.match_record(old, store.get_match(old, i)).end for i in (1, 2, 3)]
    assert ends == [{"hands": 500}, {"target": 10000}, {"hands": 30}]
    assert json.loads(old.execute("SELECT settings FROM clubs").fetchone()[0]) == {"end": {"target": 10000}}
    assert [r[0] for r in old.execute("SELECT changes FROM matches ORDER BY id")] == [1, 1, 0]


def test_texts_and_names_stored_before_the_reader_refused_them_still_open(tmp_path: Path) -> None:
    """A title with a NUL, notes with a control character and a name with a soft hyphen were stored before
    the reader refused them: the upgrade makes each what the reader takes, so the match still opens, and
    a name made that way never takes another player's."""
    import json

    from scorer.storage.db import MIGRATIONS, _m015_texts_and_names_that_can_be_seen, connect, migrate

    db = connect(tmp_path / "old.sqlite")
    db.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    upgrade = MIGRATIONS.index(_m015_texts_and_names_that_can_be_seen)
    names = ["Bruno", "Bru\u00adno", "\u3164"]
    with db.atomic():
        for number, migration in enumerate(MIGRATIONS[:upgrade], start=1):
            migration(db)
            db.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", [number])
        for n, (players, title) in enumerate([(names, "Finale\x00\nA"), (["Anna", "Bea", "Carla"], "Pulita")]):
            settings = {"format": "scarto-match/1", "players": players, "first_dealer": players[1],
                        "title": title, "place": "Bar\u2028Sport"}
            db.execute("INSERT INTO matches (edit_token, view_token, edit_key, view_key, settings, created_at, "
                       "updated_at) VALUES (?, ?, ?, ?, ?, 'x', 'x')",
                       [f"e{n}", f"v{n}", database.token_key(f"e{n}"), database.token_key(f"v{n}"),
                        json.dumps(settings, ensure_ascii=False)])
            record = {"dealer": players[1], "points": dict(zip(players, (30, 28, 20), strict=True)),
                      "notes": "a\x01b\n\tc"}
            text = json.dumps(record, ensure_ascii=False)
            db.execute("INSERT INTO hands (match_id, key, position, record, version, created_at, updated_at) "
                       "VALUES (?, ?, 1, ?, 1, 'x', 'x')", [n + 1, f"k{n}", text])
            db.execute("INSERT INTO revisions (hand_id, version, action, record, created_at) "
                       "VALUES (?, 1, 'create', ?, 'x')", [n + 1, text])
    assert migrate(db) == len(MIGRATIONS)
    row, _ = store.find_match(db, "e0")
    match = store.match_record(db, row)  # reads again: nothing it refuses
    assert match.players == ("Bruno", "Bruno (2)", "Player 3") and match.first_dealer == "Bruno (2)"
    assert (match.title, match.place) == ("Finale A", "Bar Sport")
    (hand,) = store.list_hands(db, row.id)
    assert hand.parsed.dealer == "Bruno (2)" and hand.parsed.notes == "ab\n\tc"
    assert store.revisions(db, hand.id)[0].parsed.points == hand.parsed.points
    assert row.changes == 1
    other, _ = store.find_match(db, "e1")
    assert other.players == ["Anna", "Bea", "Carla"] and other.settings["place"] == "Bar Sport"
    db.conn.close()


def test_a_season_stored_before_seasons_had_a_rule_ranks_by_the_total(tmp_path: Path) -> None:
    """Migration 16: the seasons of a database of before keep ranking by the total; a rule is then kept."""
    from scorer.engine.seasons import ALL, SeasonRule
    from scorer.storage import clubs
    from scorer.storage.db import MIGRATIONS, _m016_season_ranking, connect, migrate

    old = connect(tmp_path / "old.sqlite")
    old.execute("CREATE TABLE _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)")
    for number, migration in enumerate(MIGRATIONS[:MIGRATIONS.index(_m016_season_ranking)], start=1):
        with old.atomic():
            migration(old)
            old.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", [number])
    old.execute("INSERT INTO clubs (name, edit_token, view_token, edit_key, view_key, settings, created_at, "
                "updated_at) VALUES ('C', 'e', 'v', 'ek', 'vk', '{}', 'x', 'x')")
    old.execute("INSERT INTO club_seasons (club_id, name, start, \"end\") VALUES (1, 'Inverno', '2026-12-01', "
                "'2027-02-28')")
    migrate(old)
    (season,) = clubs.seasons(old, 1)
    assert (season.name, season.rule) == ("Inverno", ALL)
    assert clubs.set_season_rule(old, 1, season.id, SeasonRule("nights", 5)).rule == SeasonRule("nights", 5)
    assert clubs.get_season(old, 1, season.id).rule == SeasonRule("nights", 5)
    old.conn.close()
