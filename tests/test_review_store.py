"""Hand reviews kept beside the hands' results: fresh only for the version, engine and trick they were made for."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
import sqlite_utils

from scorer.engine.analysis import analyse
from scorer.engine.records import parse_hand, parse_match
from scorer.storage import db as database
from scorer.storage import reviews, store

HAND = Path(__file__).parent / "fixtures" / "hands" / "classic-valid-1.json"


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    handle = database.connect(tmp_path / "reviews.sqlite")
    database.migrate(handle)
    yield handle
    handle.conn.close()


def _stored(db: sqlite_utils.Database) -> tuple[store.MatchRow, store.HandRow]:
    body = json.loads(HAND.read_text())
    match = {"format": "scarto-match/1", "players": body["players"], "first_dealer": body["dealer"],
             "ruleset": "classic",
             "hands": [{k: v for k, v in body.items() if k not in ("format", "players", "ruleset")}]}
    row = store.create_match(db, parse_match(match))
    return row, store.list_hands(db, row.id)[0]


def test_a_kept_review_is_read_back_while_the_hand_and_engine_are_the_same(db: sqlite_utils.Database) -> None:
    row, hand = _stored(db)
    record = hand.parsed
    made = analyse(record, 23).to_dict()
    reviews.keep_review(db, hand.id, hand.version, 23, made)
    kept = reviews.kept_review(db, hand.id, hand.version, 23, row.players)
    assert kept is not None and kept.problem is None
    assert kept.par == tuple(Fraction(s["value"]) for s in made["start"])
    assert kept.given_up == analyse(record, 23).given_up()
    assert [(p.trick, p.card, p.lost) for p in kept.plays] == [(p["trick"], p["card"], Fraction(p["lost"]))
                                                              for p in made["plays"]]
    # another first trick, or another version of the hand: not this review
    assert reviews.kept_review(db, hand.id, hand.version, 22, row.players) is None
    edited = store.update_hand(db, row.id, hand.key, hand.record, expected_version=hand.version)
    assert reviews.kept_review(db, hand.id, edited.version, 23, row.players) is None
    # made under another engine: stale
    db.execute("UPDATE hand_reviews SET version = ?, engine = 'older'", [edited.version])
    assert reviews.kept_review(db, hand.id, edited.version, 23, row.players) is None


def test_a_review_past_its_time_limit_is_kept_as_such_and_goes_with_its_hand(db: sqlite_utils.Database) -> None:
    row, hand = _stored(db)
    made = reviews.make_review(hand.parsed, 1, timeout=0.05, node_limit=10**9)  # the whole hand: stopped
    assert made == {"problem": "too_large"}
    reviews.keep_review(db, hand.id, hand.version, 1, made)
    kept = reviews.kept_review(db, hand.id, hand.version, 1, row.players)
    assert kept is not None and kept.problem == "too_large" and kept.plays == ()
    db.execute("DELETE FROM revisions WHERE hand_id = ?", [hand.id])
    db.execute("DELETE FROM hand_results WHERE hand_id = ?", [hand.id])
    db.execute("DELETE FROM hands WHERE id = ?", [hand.id])  # as a club forgets a match
    assert db.execute("SELECT COUNT(*) FROM hand_reviews").fetchone()[0] == 0


def test_a_review_made_apart_is_the_engines_and_a_players_given_up_is_read_from_it(
        db: sqlite_utils.Database) -> None:
    row, hand = _stored(db)
    record = hand.parsed
    made = reviews.make_review(record, 24, timeout=60, node_limit=10**7)
    assert made == analyse(record, 24).to_dict()
    reviews.keep_review(db, hand.id, hand.version, 24, made)
    lines = reviews.given_up_by(db, [(row.id, 1)])
    assert [(line.match_id, line.lost) for line in lines] == [(row.id, analyse(record, 24).given_up()[1])]
    store.delete_hand(db, row.id, hand.key)  # a deleted hand counts no more
    assert reviews.given_up_by(db, [(row.id, 1)]) == []


def test_only_a_full_trick_record_is_reviewable_and_the_review_starts_near_the_end() -> None:
    record = parse_hand(json.loads(HAND.read_text()))
    assert reviews.reviewable(record) and reviews.first_trick(record) == 25 - reviews.REVIEW_TRICKS["three"] + 1
    points = parse_hand(json.loads((HAND.parent / "classic-points.json").read_text()))
    assert not reviews.reviewable(points)
