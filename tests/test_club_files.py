"""``scarto-club/1`` read and written by the engine, with no database: what a bad file is told,
the bounds counted before anything is read, and a club's file cut into parts and read back."""

from __future__ import annotations

import json

import pytest

from scorer.engine import club_files
from scorer.engine.errors import ReadError
from scorer.engine.limits import CLUB_PART_BYTES, MAX_CLUB_FILE_HANDS, MAX_CLUB_MATCHES, MAX_SEASONS
from scorer.engine.records import dumps
from scorer.engine.seasons import ALL, SeasonRule
from tests.seed import match_file
from tests.test_club_store import points_match


@pytest.mark.parametrize(("value", "where"), [
    ({"format": "scarto-club/2", "name": "x"}, "format"),
    ({"name": ""}, "name"),
    ({"name": "x", "players": ["Anna", "anna"]}, "players"),
    ({"name": "x", "defaults": {"players": []}}, "defaults.players"),
    ({"name": "x", "defaults": {"settle": "winner_takes_all"}}, "settle"),
    ({"name": "x", "seasons": [{"name": "s", "from": "2026-13-01", "to": "2026-12-01"}]}, "seasons[0].from"),
    ({"name": "x", "seasons": [{"name": "s", "from": "2026-01-01", "to": "2026-12-01", "ranking": {"best": 0}}]},
     "seasons[0].ranking"),
    ({"name": "x", "matches": [{"format": "scarto-match/1", "players": ["A"]}]}, "matches[0].players"),
    ({"name": "x", "matches": [{**match_file(3), "roster": {"Anna": "Bruno"}}]}, "matches[0].roster"),
])
def test_a_bad_club_file_says_where(value: dict, where: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ReadError) as caught:
        club_files.parse_club(value)
    assert caught.value.where == where


def test_a_club_files_seasons_and_matches_are_counted_before_they_are_read() -> None:
    """A club file of small entries stored each in turn inside the write lock: 2,000 empty matches and
    2,000 seasons (480 KB) took 8 s, and the upload limit allows thirty times that."""
    season = {"name": "S", "from": "2026-01-01", "to": "2026-02-01"}
    with pytest.raises(ReadError) as seasons:
        club_files.parse_club({"name": "Bar", "seasons": [season] * (MAX_SEASONS + 1)})
    assert seasons.value.key == "limit.seasons" and seasons.value.where == "seasons"
    with pytest.raises(ReadError) as matches:
        club_files.parse_club({"name": "Bar", "matches": [5] * (MAX_CLUB_MATCHES + 1)})  # not even matches: counted
    assert matches.value.key == "limit.club_matches" and matches.value.where == "matches"


def test_a_club_files_hands_are_bounded_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """A club file is stored in one write: 270 matches of 1,000 hands (12.7 MB, under the upload limit)
    held every other writer of the server for 32 s."""
    assert MAX_CLUB_FILE_HANDS >= 10 * 1000
    monkeypatch.setattr(club_files, "MAX_CLUB_FILE_HANDS", 5)
    players = ["Anna", "Bruno", "Carla"]
    two = points_match(players, [(0, [30, 28, 20]), (1, [40, 20, 18])])
    assert len(club_files.parse_club({"name": "Bar", "matches": [two, two]}).matches) == 2
    with pytest.raises(ReadError) as too_many:
        club_files.parse_club({"name": "Bar", "matches": [two, two, two]})
    assert too_many.value.key == "limit.club_hands" and too_many.value.params == {"count": 6, "limit": 5}


def test_a_seasons_ranking_is_read_and_written_and_absent_is_the_total() -> None:
    """A season ranked by the best N matches or nights keeps its rule through a file; a file of before
    (no ``ranking``) ranks by the total, and a season by the total writes no ``ranking``: the same file."""
    old = {"name": "Inverno", "from": "2026-12-01", "to": "2027-02-28"}
    best = {"name": "Primavera", "from": "2027-03-01", "to": "2027-05-31", "ranking": {"best": 8, "of": "nights"}}
    club = club_files.parse_club({"name": "Bar", "seasons": [old, best]})
    assert [season[3] for season in club.seasons] == [ALL, SeasonRule("nights", 8)]
    assert club.value(None, first=True)["seasons"] == [old, best]


def _head(players: list[tuple[str, str | None]]) -> club_files.ClubHead:
    return club_files.ClubHead("Circolo", {"language": "it"}, players, [("Inverno", "2026-12-01", "2027-02-28", ALL)],
                               [{"at": "2026-12-01T20:00:00Z", "event": "rename", "from": "Bea", "to": "Bruno"}])


def test_a_club_is_written_in_parts_and_read_back_without_a_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parts are cut from sizes alone, each part's file within its bound, the first with the whole
    club's roster, seasons and history, the others only what a later part holds; each reads back."""
    monkeypatch.setattr(club_files, "CLUB_PART_BYTES", 3000)  # a few matches a part, not megabytes
    head = _head([("Anna", "An"), ("Bruno", None), ("Carla", None)])
    matches = [points_match(["Anna", "B.", "Carla"], [(i % 3, [30, 28, 20])] * (1 + i % 4)) for i in range(12)]
    mapping = {"B.": "Bruno"}
    sizes = [(club_files.entry_bytes(club_files.file_bytes(m), mapping), len(m["hands"])) for m in matches]
    parts = club_files.cut_parts(lambda mark, first: head.value(mark, first=first), sizes)
    assert len(parts) > 2 and sum(p.count for p in parts) == len(matches)
    read = []
    for part in parts:
        mark = club_files.PartMark("abc", part.number, len(parts), part.first + 1)
        value = head.value(mark, first=part.number == 1)
        value["matches"] = [{**m, "roster": mapping} for m in matches[part.first:part.first + part.count]]
        assert len(dumps(value).encode()) <= part.size <= 3000
        read.append(club_files.parse_club(json.loads(dumps(value))))
    assert [(name, short) for name, short in read[0].players] == [("Anna", "An"), ("Bruno", None), ("Carla", None)]
    assert read[0].seasons == [("Inverno", "2026-12-01", "2027-02-28", ALL)] and read[0].history[0]["from"] == "Bea"
    assert all(later.players == [] and later.history == [] for later in read[1:])
    assert [seated for club in read for _match, seated in club.matches] == [["Anna", "Bruno", "Carla"]] * 12
    assert [p.part.first_match for p in read if p.part] == [p.first + 1 for p in parts]
    assert CLUB_PART_BYTES > 3000  # the real bound is larger: a small club is one file


def test_a_small_club_is_one_whole_file_that_reads_back_as_written() -> None:
    head = _head([("Anna", None), ("Bruno", "Bru"), ("Carla", None)])
    match = match_file(3)
    [part] = club_files.cut_parts(lambda mark, first: head.value(mark, first=first),
                                  [(club_files.entry_bytes(club_files.file_bytes(match), {}), 3)])
    value = head.value(None, first=True) | {"matches": [match]}
    assert len(dumps(value).encode()) == part.size and "part" not in value
    club = club_files.parse_club(json.loads(dumps(value)))
    assert (club.name, club.defaults, club.part) == ("Circolo", {"language": "it"}, None)
    assert [len(r) for r in club.results] == [3]


@pytest.mark.parametrize(("name", "short", "kept"), [
    ("  Anna   Rossi ", "\u200b", ("Anna Rossi", None)),  # spaces inside one; an invisible short name is none
    ("An\u200bna", "Annetta Rossi", ("Anna", "Annetta Ross")),  # a short name is cut to its length
])
def test_roster_names_are_read_as_a_match_reads_its_players(name: str, short: str,
                                                            kept: tuple[str, str | None]) -> None:
    club = club_files.parse_club({"name": "Bar", "players": [{"name": name, "short": short}]})
    assert club.players == [kept]
    assert club_files.name_key(name) == club_files.name_key(kept[0].upper())
