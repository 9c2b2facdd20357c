"""``scarto-night/1`` read and written by the engine, with no database: the bounds counted before
the names are read, what a bad night is told, and ``night.json`` written from what was read."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scorer.engine import night_files
from scorer.engine.errors import ReadError
from scorer.engine.nights import RankLine

NINE = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Ugo", "Zeno"]


def test_too_many_players_are_refused_before_their_names_are_read() -> None:
    """The names were cleaned and compared each with all before it (a copy of the list each time) and
    the 60-player limit checked after: 60,000 names took 26 s of a server thread."""
    with pytest.raises(ReadError) as crowd:
        night_files.parse_night({"players": [5] * (night_files.MAX_PLAYERS + 1)})  # refused on the count
    assert crowd.value.where == "players" and "60" in crowd.value.message
    twice = [f"P{i}" for i in range(night_files.MAX_PLAYERS - 1)] + ["p3"]
    with pytest.raises(ReadError) as named_twice:
        night_files.parse_night({"players": twice})
    assert named_twice.value.key == "players.named_twice" and named_twice.value.where == f"players[{len(twice) - 1}]"
    assert len(night_files.parse_night({"players": [f"P{i}" for i in range(night_files.MAX_PLAYERS)]}).players) == 60


@pytest.mark.parametrize(("value", "where"), [
    ({"format": "scarto-night/2", "players": NINE}, "format"),
    ([], "record"),
    ({"players": NINE, "date": "3 Dec"}, "date"),
    ({"players": NINE[:2]}, "players"),
    ({"players": NINE, "rounds": 11}, "rounds"),
    ({"players": NINE, "hands_per_round": 0}, "hands_per_round"),
    ({"players": NINE, "seating": "random"}, "seating"),
    ({"players": NINE, "ranking": "elo"}, "ranking"),
    ({"players": NINE, "seed": -1}, "seed"),
    ({"players": NINE, "ruleset": "four"}, "ruleset"),
    ({"players": NINE[:2], "rounds": 11}, "players"),  # the players are read before the rounds
])
def test_a_bad_night_says_where(value: object, where: str) -> None:
    with pytest.raises(ReadError) as caught:
        night_files.parse_night(value)
    assert caught.value.where == where


def test_a_night_takes_the_clubs_rules_and_defaults_for_what_it_does_not_say() -> None:
    spec = night_files.parse_night({"players": NINE, "seed": 7}, {"ruleset": "rulesheet"})
    assert (spec.title, spec.rounds, spec.hands_per_round, spec.seating, spec.ranking, spec.seed, spec.ruleset) == (
        "Club night", 3, None, "mixed", "total", 7, "rulesheet")
    assert night_files.parse_night({"players": NINE, "ruleset": "classic"}, {"ruleset": "rulesheet"}).ruleset == (
        "classic")


def test_night_json_writes_the_night_as_it_was_read_and_its_ranking_exactly() -> None:
    spec = night_files.parse_night({"format": "scarto-night/1", "title": "Giovedì", "date": "2026-12-03",
                                    "players": NINE, "rounds": 2, "hands_per_round": 3, "seed": 7})
    line = RankLine(1, "Anna", Fraction(39, 2), 3, Fraction(2), (1, None), Fraction(39, 2))
    rounds = [{"number": 1, "bye": [], "tables": []}]
    written = night_files.night_document(spec, rounds, [line])
    assert written == {
        "format": "scarto-night/1", "title": "Giovedì", "date": "2026-12-03", "players": NINE, "rounds_planned": 2,
        "hands_per_round": 3, "seating": "mixed", "ranking_method": "total", "seed": 7, "rounds": rounds,
        "ranking": [{"place": 1, "name": "Anna", "total": "39/2", "hands": 3, "match_points": 2,
                     "placings": [1, None]}]}
