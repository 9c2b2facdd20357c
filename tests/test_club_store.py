"""Clubs in the database: the roster, seats, the summary cache, scarto-club/1 round trips, and
Hypothesis: every player's total is the sum of their hand scores; each match's totals sum to zero."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.engine import club_files
from scorer.engine import clubs as stats
from scorer.engine.errors import ReadError
from scorer.engine.limits import MAX_ROSTER
from scorer.engine.records import dumps, parse_hand, parse_match
from scorer.engine.scoring import score_hand
from scorer.engine.seasons import SeasonRule
from scorer.storage import club_transfer, clubs, store
from scorer.storage import db as database
from tests.seed import dealt_by, match_file


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[sqlite_utils.Database]:
    handle = database.connect(tmp_path / "clubs.sqlite")
    database.migrate(handle)
    yield handle
    handle.conn.close()


def points_match(players: list[str], hands: list[tuple[int, list[int]]], *, date: str = "2026-11-30",
                 end: int | None = None) -> dict:  # type: ignore[type-arg]
    """A match of points-form hands: (dealer seat, card points per seat summing to 78)."""
    return {"format": "scarto-match/1", "date": date, "ruleset": "classic", "players": players,
            "first_dealer": players[0], "end": {"hands": end or max(1, len(hands))},
            "hands": [{"dealer": players[d], "points": dict(zip(players, pts, strict=True))} for d, pts in hands]}


def test_the_migration_is_the_last_and_makes_the_tables(db: sqlite_utils.Database) -> None:
    assert any(m.__name__.endswith("_clubs") for m in database.MIGRATIONS)  # later branches add theirs after it
    assert {"clubs", "club_players", "club_matches", "club_seats", "club_seasons", "club_events",
            "match_summaries"} <= set(db.table_names())
    assert database.migrate(db) == len(database.MIGRATIONS)


def test_the_roster_keeps_each_name_once_in_any_case(db: sqlite_utils.Database) -> None:
    club = clubs.create_club(db, "Circolo", [("Anna", "An"), ("Bruno", None)])
    with pytest.raises(clubs.NameTaken):
        clubs.add_player(db, club.id, "  anna ")
    assert clubs.player_for(db, club.id, "ANNA").name == "Anna"
    assert clubs.player_for(db, club.id, "Carla").name == "Carla"
    assert [(p.name, p.short) for p in clubs.roster(db, club.id)] == [("Anna", "An"), ("Bruno", None), ("Carla", None)]
    with pytest.raises(ReadError):
        clubs.add_player(db, club.id, "Tab\there")


def test_a_summary_follows_every_change_to_a_hand_even_within_one_second(db: sqlite_utils.Database) -> None:
    club = clubs.create_club(db, "Circolo", [])
    row = clubs.add_record(db, club.id, parse_match(points_match(["Anna", "Bruno", "Carla"],
                                                                 [(0, [30, 24, 24])], end=5)),
                           ["Anna", "Bruno", "Carla"])
    anna = clubs.player_for(db, club.id, "Anna").id

    def anna_total() -> Fraction:
        return {r.key: r.total for r in stats.club_table(clubs.summaries(db, club.id), clubs.seats(db, club.id))}[anna]

    assert anna_total() == 4
    hand = store.add_hand(db, row.id, {"dealer": "Bruno", "points": {"Anna": 20, "Bruno": 30, "Carla": 28}})
    assert anna_total() == 4 - 6
    store.update_hand(db, row.id, hand.key, {"dealer": "Bruno", "points": {"Anna": 36, "Bruno": 20, "Carla": 22}})
    assert anna_total() == 4 + 10
    store.delete_hand(db, row.id, hand.key)
    assert anna_total() == 4
    store.undelete_hand(db, row.id, hand.key)
    assert anna_total() == 14
    store.restore_revision(db, row.id, hand.key, 1)
    assert anna_total() == -2


def test_summaries_are_read_not_judged_again(db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    club = clubs.create_club(db, "Circolo", [])
    clubs.add_record(db, club.id, parse_match(match_file(6)), ["Anna", "Bruno", "Carla"])
    clubs.summaries(db, club.id)
    monkeypatch.setattr(clubs, "refresh_summary", lambda *a: pytest.fail("judged again"))
    assert len(clubs.summaries(db, club.id)) == 1


def test_hands_after_the_end_and_breaches_in_the_summary(db: sqlite_utils.Database) -> None:
    data = match_file(6)
    data["end"] = {"hands": 5}
    data["hands"][5] = dealt_by("classic-breach", data["hands"][5]["dealer"])
    club = clubs.create_club(db, "Circolo", [])
    row = clubs.add_record(db, club.id, parse_match(data), ["Anna", "Bruno", "Carla"])
    summary = clubs.refresh_summary(db, row.id)
    assert len(summary.hands) == 5 and summary.uncounted == 1 and summary.finished
    breach = [c for h in match_file(6)["hands"][:5] for c in score_hand(parse_hand(
        {"format": "scarto-hand/1", "players": ["Anna", "Bruno", "Carla"], **h})).problems if c.severity == "violation"]
    assert sum(len(h.breaches) for h in summary.hands) == len(breach)


def test_rename_and_merge_keep_every_hand_and_are_in_the_history(db: sqlite_utils.Database) -> None:
    club = clubs.create_club(db, "Circolo", [("Anna", None), ("Bruno", None), ("Carla", None), ("Bea", None)])
    clubs.add_record(db, club.id, parse_match(points_match(["Anna", "Bruno", "Carla"], [(0, [30, 24, 24])])),
                     ["Anna", "Bruno", "Carla"])
    clubs.add_record(db, club.id, parse_match(points_match(["Anna", "Bea", "Carla"], [(1, [20, 34, 24])])),
                     ["Anna", "Bea", "Carla"])
    ids = {p.name: p.id for p in clubs.roster(db, club.id)}
    before = {r.key: r for r in stats.club_table(clubs.summaries(db, club.id), clubs.seats(db, club.id))}
    clubs.rename_player(db, club.id, ids["Bruno"], "Bruno Bianchi", "BB")
    with pytest.raises(clubs.ClubError):
        clubs.merge_players(db, club.id, ids["Bea"], ids["Anna"])  # they sat at the same table
    clubs.merge_players(db, club.id, ids["Bea"], ids["Bruno"])
    after = {r.key: r for r in stats.club_table(clubs.summaries(db, club.id), clubs.seats(db, club.id))}
    assert ids["Bea"] not in after
    assert after[ids["Bruno"]].total == before[ids["Bruno"]].total + before[ids["Bea"]].total == -2 + 8
    assert after[ids["Bruno"]].matches == 2 and after[ids["Anna"]] == before[ids["Anna"]]
    assert [(e.kind, e.details) for e in clubs.events(db, club.id)] == [
        ("rename", {"from": "Bruno", "to": "Bruno Bianchi"}), ("merge", {"from": "Bea", "into": "Bruno Bianchi"})]
    assert clubs.aliases(db, club.id, ids["Bruno"]) == ["Bruno", "Bea"]
    assert [p.name for p in clubs.roster(db, club.id)] == ["Anna", "Bruno Bianchi", "Carla"]


def test_scarto_club_round_trip_is_byte_identical(db: sqlite_utils.Database) -> None:
    defaults = club_files.check_defaults({"ruleset": "classic", "end": {"hands": 6}, "settle": "per_point",
                                          "stake": {"per_point": "0.10", "currency": "EUR"},
                                          "language": "it", "pack": "italian"})
    club = clubs.create_club(db, "Circolo Arci", [("Anna", "An"), ("Bruno", None), ("Carla", None), ("Bea", None)],
                             defaults)
    clubs.add_record(db, club.id, parse_match(match_file(6)), ["Anna", "Bruno", "Carla"])
    clubs.add_record(db, club.id, parse_match(points_match(["Anna", "B.", "Carla"], [(1, [20, 34, 24])],
                                                           date="2026-12-02")), ["Anna", "Bea", "Carla"])
    clubs.add_season(db, club.id, "Inverno", "2026-12-01", "2027-02-28")
    clubs.add_season(db, club.id, "Coppa", "2026-12-01", "2027-05-31", SeasonRule("matches", 3))
    ids = {p.name: p.id for p in clubs.roster(db, club.id)}
    clubs.merge_players(db, club.id, ids["Bea"], ids["Bruno"])
    clubs.rename_player(db, club.id, ids["Carla"], "Carla Rossi", "Ca")
    first = dumps(club_transfer.export_club(db, club))
    assert json.loads(first)["matches"][1]["roster"] == {"B.": "Bruno", "Carla": "Carla Rossi"}
    assert [s.get("ranking") for s in json.loads(first)["seasons"]] == [None, {"best": 3, "of": "matches"}]
    again = club_transfer.import_club(db, club_files.parse_club(json.loads(first)))
    second = dumps(club_transfer.export_club(db, again))
    assert second == first
    table = {(r.matches, r.total) for r in stats.club_table(clubs.summaries(db, again.id), clubs.seats(db, again.id))}
    old = {(r.matches, r.total) for r in stats.club_table(clubs.summaries(db, club.id), clubs.seats(db, club.id))}
    assert table == old


NAMES = ["Anna", "Bruno", "Carla", "Dora", "Ezio"]


@st.composite
def random_club(draw: st.DrawFn) -> list[tuple[list[str], list[tuple[int, list[int]]], int]]:
    matches = []
    for _ in range(draw(st.integers(1, 5))):
        players = draw(st.permutations(NAMES))[:3]
        hands = []
        for _ in range(draw(st.integers(0, 5))):
            a = draw(st.integers(0, 78))
            b = draw(st.integers(0, 78 - a))
            hands.append((draw(st.integers(0, 2)), [a, b, 78 - a - b]))
        matches.append((players, hands, draw(st.integers(1, 6))))
    return matches


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(club_spec=random_club())
def test_totals_are_the_sums_of_hand_scores_and_each_match_sums_to_zero(
        db: sqlite_utils.Database, club_spec: list[tuple[list[str], list[tuple[int, list[int]]], int]]) -> None:
    club = clubs.create_club(db, "Random", [])
    expected: dict[str, Fraction] = {}
    hands_played: dict[str, int] = {}
    for players, hands, end in club_spec:
        record = parse_match(points_match(players, hands, end=end))
        clubs.add_record(db, club.id, record, players)
        for hand in record.hands[:end]:  # hands after the end are not counted
            for name, score in score_hand(hand).scores().items():
                expected[name] = expected.get(name, Fraction(0)) + score
                hands_played[name] = hands_played.get(name, 0) + 1
    names: dict[Any, str] = {p.id: p.name for p in clubs.roster(db, club.id)}
    summaries = clubs.summaries(db, club.id)
    for summary in summaries:
        assert sum(summary.totals()) == 0
    rows = stats.club_table(summaries, clubs.seats(db, club.id))
    for row in rows:
        assert row.total == expected.get(names[row.key], 0)
        assert row.hands == hands_played.get(names[row.key], 0)
    assert sum(r.total for r in rows) == 0


def test_the_example_of_docs_club_md_reads_and_writes_back(db: sqlite_utils.Database) -> None:
    text = (Path(__file__).parent.parent / "docs" / "CLUB.md").read_text()
    example = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])
    club = club_transfer.import_club(db, club_files.parse_club(example))
    written = club_transfer.export_club(db, club)
    assert written == example
    names: dict[Any, str] = {p.id: p.name for p in clubs.roster(db, club.id)}
    table = stats.club_table(clubs.summaries(db, club.id), clubs.seats(db, club.id))
    assert {names[r.key]: r.total for r in table} == {"Anna": 5, "Bruno Bianchi": -4, "Carla": -1}


def test_a_match_date_that_is_not_a_day_counts_on_the_day_it_was_stored() -> None:
    assert clubs.match_date({"date": "2026-03-05"}, "2026-12-01T10:00:00Z") == "2026-03-05"
    assert clubs.match_date({"date": "Easter 2024"}, "2026-12-01T10:00:00Z") == "2026-12-01"
    assert clubs.match_date({}, "2026-12-01T10:00:00Z") == "2026-12-01"


# --- bounded rosters, look-alike names --------------------------------------------------


def test_look_alike_names_are_one_roster_player(db: sqlite_utils.Database) -> None:
    """A zero-width space or a decomposed accent made a second "Anna" (and an invisible player): the
    roster reads names as a match reads its players (NFC, zero-width characters out)."""
    club = clubs.create_club(db, "Circolo\u200b", [("Anna", None), ("\u00c1ngel", None)])
    assert club.name == "Circolo"
    for twin in ("An\u200bna", "\ufeffAnna", "A\u0301ngel"):
        with pytest.raises(clubs.NameTaken):
            clubs.add_player(db, club.id, twin)
        assert clubs.player_for(db, club.id, twin).name in ("Anna", "\u00c1ngel")
    assert clubs.add_player(db, club.id, "Bruno", "\u200b").short is None  # an invisible short name is none
    with pytest.raises(ReadError) as invisible:
        clubs.add_player(db, club.id, "\u200b\u200d")
    assert invisible.value.key == "players.empty_name"
    with pytest.raises(ReadError):
        club_files.parse_club({"name": "Bar", "players": ["Anna", "An\u200bna"]})
    assert len(clubs.roster(db, club.id)) == 3


def test_spaces_inside_a_name_count_as_one(db: sqlite_utils.Database) -> None:
    """A rename to "Anna   Rossi" kept the three spaces, and "Anna Rossi" typed later made a second,
    look-alike player: a run of spaces inside a roster name is one space, when stored and when compared."""
    club = clubs.create_club(db, "Circolo", [("Anna   Rossi", None), ("Bruno", None)])
    anna, bruno = clubs.roster(db, club.id)
    assert anna.name == "Anna Rossi"
    assert clubs.rename_player(db, club.id, bruno.id, "Bruno \u00a0 Verdi", None).name == "Bruno Verdi"
    for twin in ("Anna Rossi", "anna  rossi", " Anna\u00a0Rossi "):
        with pytest.raises(clubs.NameTaken):
            clubs.add_player(db, club.id, twin)
        assert clubs.player_for(db, club.id, twin).id == anna.id
    with pytest.raises(clubs.NameTaken):
        clubs.rename_player(db, club.id, bruno.id, "ANNA    ROSSI", None)
    with pytest.raises(ReadError) as tab:  # a tab is still refused, not made a space
        clubs.add_player(db, club.id, "Anna\tRossi")
    assert tab.value.key == "players.control"
    for typed, key in (("Anna\u2028Rossi", "players.control"), ("\u3164", "players.invisible"),
                       ("\u2800", "players.invisible"), ("An\u00adna Rossi", "players.format"),
                       ("\u202eanna\u202c", "players.format")):
        with pytest.raises(ReadError) as hidden:  # a second Anna Rossi that looks like the first, or nobody
            clubs.add_player(db, club.id, typed)
        assert hidden.value.key == key, typed
    with pytest.raises(ReadError):
        clubs.rename_player(db, club.id, bruno.id, "Bruno\u2063", None)
    assert [p.name for p in clubs.roster(db, club.id)] == ["Anna Rossi", "Bruno Verdi"]


def test_a_roster_is_bounded_wherever_a_player_joins(db: sqlite_utils.Database) -> None:
    names = [(f"P{i}", None) for i in range(MAX_ROSTER)]
    with pytest.raises(ReadError) as too_many:
        clubs.create_club(db, "Big", [*names, ("One more", None)])
    assert too_many.value.key == "limit.roster" and too_many.value.params["limit"] == MAX_ROSTER
    with pytest.raises(ReadError):
        club_files.parse_club({"name": "Big", "players": [n for n, _ in names] + ["One more"]})
    club = clubs.create_club(db, "Full", names)  # exactly the limit: a club that can be exported and read back
    for join in (lambda: clubs.add_player(db, club.id, "Late"), lambda: clubs.player_for(db, club.id, "Late"),
                 lambda: clubs.RosterNames(db, club.id).player_for("Late")):
        with pytest.raises(ReadError) as full:
            join()
        assert full.value.key == "limit.roster"
    assert clubs.RosterNames(db, club.id).player_for("p7").name == "P7"  # a player already there still plays
    match = parse_match(points_match(["P1", "P2", "Late"], [(0, [30, 28, 20])]))
    with pytest.raises(ReadError):
        clubs.add_record(db, club.id, match, ["P1", "P2", "Late"])
    assert len(clubs.roster(db, club.id)) == MAX_ROSTER


def test_importing_a_club_reads_its_roster_once_not_once_a_name(db: sqlite_utils.Database) -> None:
    """Each player joined after the whole roster was read to look for the name, inside the write lock:
    3,000 players took 20 s and held every save of the server meanwhile."""
    players = [f"Player {i}" for i in range(MAX_ROSTER - 20)]
    matches = [{**points_match(players[i:i + 3] if i % 2 else [players[i], players[i + 1], f"Guest {i}"],
                               [(0, [30, 28, 20])]), "roster": {}} for i in range(0, 40)]
    club_file = club_files.parse_club({"name": "Circolo", "players": players, "matches": matches})
    reads: list[str] = []
    db.conn.set_trace_callback(lambda sql: reads.append(sql) if "FROM club_players" in sql and " id = " not in sql
                               else None)  # the whole roster, not one player by id
    club = club_transfer.import_club(db, club_file)
    db.conn.set_trace_callback(None)
    assert len(reads) <= 3, reads[:5]
    roster = clubs.roster(db, club.id)
    assert len(roster) == len(players) + 20 and len({p.name.casefold() for p in roster}) == len(roster)
    exported = json.dumps(club_transfer.export_club(db, club)["players"])
    assert '"Guest 38"' in exported and '"Player 0"' in exported


def test_seasons_are_bounded_and_found_by_id(db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    club = clubs.create_club(db, "Circolo", [])
    monkeypatch.setattr(clubs, "MAX_SEASONS", 3)
    made = [clubs.add_season(db, club.id, f"S{i}", "2026-01-01", "2026-02-01") for i in range(3)]
    with pytest.raises(ReadError) as full:
        clubs.add_season(db, club.id, "One more", "2026-01-01", "2026-02-01")
    assert full.value.key == "limit.seasons"
    reads: list[str] = []
    db.conn.set_trace_callback(lambda sql: reads.append(sql) if "FROM club_seasons" in sql else None)
    assert clubs.get_season(db, club.id, made[1].id) == made[1]
    db.conn.set_trace_callback(None)
    assert len(reads) == 1 and " id = " in reads[0]  # one season read, not every season of the club
    with pytest.raises(store.NotFound):
        clubs.get_season(db, club.id + 1, made[1].id)


def test_a_club_holds_a_bounded_number_of_matches(db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    club = clubs.create_club(db, "Circolo", [("Anna", None), ("Bruno", None), ("Carla", None)])
    monkeypatch.setattr(clubs, "MAX_CLUB_MATCHES", 2)
    match = parse_match(points_match(["Anna", "Bruno", "Carla"], [(0, [30, 28, 20])]))
    for _ in range(2):
        clubs.add_record(db, club.id, match, ["Anna", "Bruno", "Carla"])
    with pytest.raises(ReadError) as full:
        clubs.add_record(db, club.id, match, ["Anna", "Bruno", "Carla"])
    assert full.value.key == "limit.club_matches" and full.value.params == {"count": 3, "limit": 2}
    assert len(clubs.club_matches(db, club.id)) == 2


def test_club_writes_take_their_turn_with_the_saves(db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """A club's writes opened SQLite's transaction directly: a save of another process, queued on the
    writer lock, then found SQLite busy and gave up after 30 s (a 10,000-match club file: a 503)."""
    from contextlib import contextmanager

    taken: list[str] = []
    real = database.writer_lock

    @contextmanager
    def recorded(handle: sqlite_utils.Database, since: float | None = None) -> Any:
        taken.append("lock")
        with real(handle, since):
            yield

    monkeypatch.setattr(store, "writer_lock", recorded)
    club = clubs.create_club(db, "Circolo", [("Anna", None), ("Bruno", None), ("Carla", None)])
    clubs.add_season(db, club.id, "Winter", "2026-12-01", "2027-02-28")
    clubs.add_record(db, club.id, parse_match(points_match(["Anna", "Bruno", "Carla"], [(0, [30, 28, 20])])),
                     ["Anna", "Bruno", "Carla"])
    club_transfer.import_club(db, club_files.parse_club({"name": "Bar", "players": ["Dora"]}))
    # one turn each, the match inside the club's write taking no second one; the file's import two: its
    # hidden club, then its last step (no seasons or matches: no step for them)
    assert taken == ["lock"] * 5


def test_a_club_files_matches_get_the_summaries_their_stored_hands_make(db: sqlite_utils.Database) -> None:
    """The import makes each summary from the match it just stored, not read back: the same summary."""
    players = ["Anna", "Bruno", "Carla"]
    files = [points_match(players, [(0, [30, 28, 20]), (1, [40, 20, 18])]),
             points_match(players, [(2, [26, 26, 26])], end=3), match_file(4)]
    club = club_transfer.import_club(db, club_files.parse_club({"name": "Bar", "players": players, "matches": files}))
    ids = [m.id for m in clubs.club_matches(db, club.id)]
    assert len(ids) == 3
    for match_id in ids:
        stored = db.execute("SELECT stamp, summary FROM match_summaries WHERE match_id = ?", [match_id]).fetchone()
        stamp, again = clubs.make_summary(db, match_id)
        assert (stored[0], json.loads(stored[1])) == (stamp, again.to_dict())


# --- a club's file in parts --------------------------------------------------------


def _parts_club(db: sqlite_utils.Database) -> clubs.ClubRow:
    """A club whose matches differ in size (full records, points), with a renamed seat and a season."""
    club = clubs.create_club(db, "Circolo Arci", [("Anna", "An"), ("Bruno", None), ("Carla", None), ("Bea", None)],
                             club_files.check_defaults({"ruleset": "classic", "end": {"hands": 6}}))
    for i in range(7):
        match = match_file(i % 4 + 1, title=f"Giovedì {i}") if i % 2 else points_match(
            ["Anna", "B.", "Carla"], [(h % 3, [30, 28, 20]) for h in range(i + 1)], date=f"2026-12-0{i + 1}")
        seated = ["Anna", "Bruno", "Carla"] if i % 2 else ["Anna", "Bea", "Carla"]
        clubs.add_record(db, club.id, parse_match(match), seated)
    clubs.add_season(db, club.id, "Inverno", "2026-12-01", "2027-02-28")
    clubs.rename_player(db, club.id, clubs.player_for(db, club.id, "Carla").id, "Carla Rossi", None)
    return club


def _all_parts(db: sqlite_utils.Database, club: clubs.ClubRow) -> list[str]:
    return [dumps(club_transfer.export_club(db, club, part.number)) for part in club_transfer.file_parts(db, club)]


def test_a_club_small_enough_is_one_file_of_the_size_its_parts_are_cut_by(db: sqlite_utils.Database) -> None:
    club = _parts_club(db)
    [part] = club_transfer.file_parts(db, club)
    whole = dumps(club_transfer.export_club(db, club))
    assert "part" not in json.loads(whole) and dumps(club_transfer.export_club(db, club, 1)) == whole
    assert part.size == len(whole.encode()) and (part.first, part.count, part.hands) == (0, 7, 24)
    empty = clubs.create_club(db, "Empty", [])
    assert club_transfer.file_parts(db, empty)[0].size == len(dumps(club_transfer.export_club(db, empty)).encode())


def test_a_large_club_is_written_in_parts_that_import_back_into_the_same_club(
        db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """A club's file past the upload limit could not be opened again: 16 MB hold about 5,000 full records."""
    club = _parts_club(db)
    whole = json.loads(dumps(club_transfer.export_club(db, club)))
    monkeypatch.setattr(club_files, "CLUB_PART_BYTES", 12_000)
    parts = club_transfer.file_parts(db, club)
    assert len(parts) > 2 and sum(p.count for p in parts) == 7 and sum(p.hands for p in parts) == 24
    assert [p.first for p in parts] == [sum(q.count for q in parts[:i]) for i in range(len(parts))]
    texts = _all_parts(db, club)
    for part, text in zip(parts, texts, strict=True):
        assert len(text.encode()) <= part.size and (len(text.encode()) <= 12_000 or part.count == 1)
        assert json.loads(text)["part"] == {"file": club_transfer.file_id(db, club), "number": part.number,
                                            "of": len(parts), "first_match": part.first + 1}
    first, later = json.loads(texts[0]), json.loads(texts[1])
    assert {k: first[k] for k in ("players", "seasons", "history", "defaults")} == {
        k: whole[k] for k in ("players", "seasons", "history", "defaults")}
    assert set(later) == {"format", "name", "part", "matches"}
    assert [m for t in texts for m in json.loads(t)["matches"]] == whole["matches"]
    with pytest.raises(club_transfer.InParts) as in_parts:
        club_transfer.export_club(db, club)
    assert in_parts.value.parts == len(parts)
    with pytest.raises(store.NotFound):
        club_transfer.export_club(db, club, len(parts) + 1)

    again = club_transfer.import_club(db, club_files.parse_club(json.loads(texts[0])))
    for text in texts[1:]:
        added = club_transfer.add_part(db, again, club_files.parse_club(json.loads(text)))
        assert added[0] == len(json.loads(text)["matches"])
    assert _all_parts(db, again) == texts
    monkeypatch.undo()
    assert dumps(club_transfer.export_club(db, again)) == dumps(whole)


def test_parts_go_in_in_order_each_once_into_their_own_club(
        db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """A part was checked only against the club's count of matches: a match recorded between two parts made
    the next part "already there" and let the one after it in (a part lost), a club of the same name and
    count took another club's part, and renaming the club refused the rest."""
    club = _parts_club(db)
    monkeypatch.setattr(club_files, "CLUB_PART_BYTES", 12_000)
    texts = _all_parts(db, club)
    files = [club_files.parse_club(json.loads(text)) for text in texts]
    assert len(files) >= 3

    def refused(call: Any) -> ReadError:
        with pytest.raises(ReadError) as caught:
            call()
        return caught.value

    assert refused(lambda: club_transfer.import_club(db, files[1])).key == "part.not_first"
    twin = clubs.create_club(db, "Circolo Arci", [])  # the same name, and as many matches as part 1 brings
    for match, seated in files[0].matches:
        clubs.add_record(db, twin.id, match, seated)
    assert refused(lambda: club_transfer.add_part(db, twin, files[1])).key == "part.other_club"

    again = club_transfer.import_club(db, files[0])
    assert refused(lambda: club_transfer.add_part(db, again, files[2])).params == {"number": 3, "next": 2}
    assert refused(lambda: club_transfer.add_part(db, again, files[0])).key == "part.first"
    whole = club_files.parse_club({k: v for k, v in json.loads(texts[0]).items() if k != "part"})
    assert refused(lambda: club_transfer.add_part(db, again, whole)).key == "part.whole"
    recut = club_files.parse_club(json.loads(texts[1]) | {"part": {**json.loads(texts[1])["part"], "first_match": 9}})
    assert refused(lambda: club_transfer.add_part(db, again, recut)).key == "part.cut"
    clubs.add_record(db, again.id, parse_match(points_match(["Anna", "Bruno", "Dora"], [(0, [30, 28, 20])])),
                     ["Anna", "Bruno", "Dora"])  # recorded between two parts: not a part's match
    clubs.update_club(db, again.id, "Circolo Arci Pinerolo", again.settings)
    assert club_transfer.add_part(db, again, files[1]) == (len(files[1].matches), len(files[0].matches) + 1 + len(
        files[1].matches))
    assert refused(lambda: club_transfer.add_part(db, again, files[1])).params == {"number": 2, "next": 3}
    for later in files[2:]:
        club_transfer.add_part(db, again, later)
    assert len(clubs.club_matches(db, again.id)) == 7 + 1
    for bad in ({"number": 2, "of": 1, "first_match": 3}, {"number": 1, "of": 2, "first_match": 4},
                {"number": 2, "of": 2, "first_match": 1}, {"number": True, "of": 2, "first_match": 2},
                {"number": 2, "of": 10**30, "first_match": 2}):
        assert refused(lambda bad=bad: club_files.parse_club({"name": "Bar", "part": {"file": "abc", **bad}})).key == (
            "part.form")
    for mark in ({"number": 2, "of": 2, "first_match": 2}, [2, 2, 3], 5):  # no file id, or not an object
        assert refused(lambda mark=mark: club_files.parse_club({"name": "Bar", "part": mark})).key == "part.form"
    extra = refused(lambda: club_files.parse_club(json.loads(texts[1]) | {"players": ["Zed"]}))
    assert (extra.key, extra.where) == ("part.extra", "players")


def test_a_club_of_no_match_is_one_file_however_long_its_roster(db: sqlite_utils.Database,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    club = clubs.create_club(db, "Circolo", [(f"Player {i}", None) for i in range(50)])
    monkeypatch.setattr(club_files, "CLUB_PART_BYTES", 100)
    [part] = club_transfer.file_parts(db, club)
    assert part.count == 0 and "part" not in club_transfer.export_club(db, club)


def test_a_matchs_size_in_the_file_is_measured_when_the_file_is_asked_for_not_at_each_save(
        db: sqlite_utils.Database) -> None:
    """Written out with indentation (Python's own encoder), a six-hand match took 0.5 ms more at every
    summary made again: every club page after a save, every match of a club file imported."""
    club = _parts_club(db)
    row = clubs.club_matches(db, club.id)[0]
    clubs.refresh_summary(db, row.id)
    sizes = "SELECT file_bytes FROM match_summaries WHERE match_id = ?"
    assert db.execute(sizes, [row.id]).fetchone()[0] is None
    whole = dumps(club_transfer.export_club(db, club))
    assert db.execute(sizes, [row.id]).fetchone()[0] is not None
    store.add_hand(db, row.id, {"dealer": "Anna", "points": {"Anna": 30, "B.": 28, "Carla": 20}})  # since
    with db.atomic():
        [part] = club_transfer._ClubFileWriter(db, club).parts()  # measured in place, not taken from the stale row
    assert part.size == len(dumps(club_transfer.export_club(db, club)).encode()) > len(whole.encode())


def test_a_club_file_is_judged_once_and_not_inside_the_write(db: sqlite_utils.Database,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Each hand of a club file was judged three times: to refuse the file, then twice inside the write
    (its stored result and the match's summary), holding the other writers meanwhile."""
    club_file = club_files.parse_club({"name": "Circolo", "players": ["Anna", "Bruno", "Carla"],
                                  "matches": [match_file(4), match_file(2)]})
    judged: list[str] = []
    for module in (club_files, clubs, store):
        def counted(hand: Any, real: Any = module.score_hand, where: str = module.__name__) -> Any:
            judged.append(where)
            return real(hand)
        monkeypatch.setattr(module, "score_hand", counted)
    assert [len(r) for r in club_file.results] == [4, 2] and len(judged) == 6  # as the pages refuse or take it
    club = club_transfer.import_club(db, club_file)
    assert len(judged) == 6
    [summary, other] = clubs.summaries(db, club.id)
    assert len(summary.hands) + len(other.hands) == 6
    assert db.execute("SELECT COUNT(*) FROM hand_results WHERE engine = ?", [store.engine_version()]).fetchone()[0] == 6


def _big_club_file(matches: int) -> club_files.ClubFile:
    players = ["Anna", "Bruno", "Carla"]
    hands = [(i % 3, [30, 28, 20]) for i in range(5)]
    club_file = club_files.parse_club({"name": "Grande", "players": players,
                                  "matches": [points_match(players, hands) for _ in range(matches)]})
    assert club_file.results  # judged before, as the web layer does
    return club_file


def test_a_save_to_another_match_waits_one_step_of_a_club_import_not_all_of_it(tmp_path: Path) -> None:
    """A club file of 10,000 matches held every save of the server for up to 29 s: it was stored in one
    transaction. Stored in steps, a save to an unrelated match waits one step at most."""
    import threading
    import time

    path = tmp_path / "steps.sqlite"
    importer, saver = database.connect(path), database.connect(path)
    database.migrate(importer)
    other = store.create_match(saver, parse_match(points_match(["Dora", "Ezio", "Fede"], [(0, [30, 28, 20])])))
    club_file = _big_club_file(500)
    timings: dict[str, float] = {}

    def run_import() -> None:
        started = time.monotonic()
        club_transfer.import_club(importer, club_file)
        timings["import"] = time.monotonic() - started

    thread = threading.Thread(target=run_import)
    thread.start()
    waits: list[float] = []
    try:
        time.sleep(0.2)
        while thread.is_alive() and len(waits) < 10:  # saves while the import goes on
            started = time.monotonic()
            store.add_hand(saver, other.id, {"dealer": ["Dora", "Ezio", "Fede"][len(waits) % 3],
                                             "points": {"Dora": 30, "Ezio": 28, "Fede": 20}})
            waits.append(time.monotonic() - started)
            time.sleep(0.05)
    finally:
        thread.join(timeout=120)
    assert waits and max(waits) < 0.5, (waits, timings)  # one step (20 ms) and the save's own, on a busy machine
    assert timings["import"] > 2 * max(waits)
    assert store.count_hands(saver, other.id) == 1 + len(waits)
    assert clubs.count_matches(saver, clubs.find_club(saver, clubs.get_club(saver, 1).edit_token)[0].id) == 500


def test_a_club_import_that_fails_half_way_leaves_no_club(db: sqlite_utils.Database,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored in steps, a club file is a hidden club until its last step: one that fails half way (or whose
    server is killed) leaves nothing to be seen, and what it stored is taken away."""
    monkeypatch.setattr(club_transfer, "STEP_SECONDS", 0.0)  # a step a match: many steps stored before the failure
    club_file = _big_club_file(30)
    real, stored = clubs.add_record, list[Any]()

    def failing(*args: Any, **kwargs: Any) -> Any:
        if len(stored) == 20:
            raise RuntimeError("the disk went away")
        stored.append(real(*args, **kwargs))
        return stored[-1]

    monkeypatch.setattr(club_transfer, "add_record", failing)
    with pytest.raises(RuntimeError):
        club_transfer.import_club(db, club_file)
    assert len(stored) == 20
    for table in ("clubs", "club_players", "club_matches", "club_seats", "matches", "hands", "revisions",
                  "hand_results", "match_summaries"):
        assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table


def test_a_club_import_killed_half_way_is_hidden_then_taken_away(db: sqlite_utils.Database,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A server killed during a club import leaves a hidden club: its tokens open nothing, and the next
    club file stored once it is old enough takes it away."""
    monkeypatch.setattr(club_transfer, "forget_club", lambda *_args: None)  # as if killed: nothing cleans up
    monkeypatch.setattr(club_transfer, "_reveal", lambda *_args: (_ for _ in ()).throw(RuntimeError("killed")))
    with pytest.raises(RuntimeError):
        club_transfer.import_club(db, _big_club_file(3))
    monkeypatch.undo()
    left = clubs.get_club(db, 1)
    assert clubs.count_matches(db, left.id) == 3
    for token in (left.edit_token, left.view_token):
        with pytest.raises(store.NotFound):
            clubs.find_club(db, token)
    match_tokens = [m.edit_token for m in clubs.club_matches(db, left.id)]
    club_transfer.import_club(db, _big_club_file(1))  # too recent to be abandoned: kept (another import may be on)
    assert clubs.count_matches(db, left.id) == 3
    db.execute("UPDATE clubs SET created_at = '2026-01-01T00:00:00Z' WHERE id = ?", [left.id])
    new = club_transfer.import_club(db, _big_club_file(2))
    assert clubs.find_club(db, new.edit_token)[1] is True and clubs.count_matches(db, new.id) == 2
    assert db.execute("SELECT COUNT(*) FROM clubs WHERE id = ?", [left.id]).fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 3
    for token in match_tokens:
        with pytest.raises(store.NotFound):
            store.find_match(db, token)


def test_a_part_that_fails_half_way_leaves_the_club_as_it_was_and_goes_in_again(
        db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """A later part is stored in steps too, aside, and moved into the club by its last step: one that fails
    half way shows nothing of itself in the club, and the same part goes in when sent again."""
    club = _parts_club(db)
    monkeypatch.setattr(club_files, "CLUB_PART_BYTES", 12_000)
    texts = _all_parts(db, club)
    again = club_transfer.import_club(db, club_files.parse_club(json.loads(texts[0])))
    before = (clubs.count_matches(db, again.id), len(clubs.roster(db, again.id)))
    part = club_files.parse_club(json.loads(texts[1]))
    assert len(part.matches) >= 2
    monkeypatch.setattr(club_transfer, "STEP_SECONDS", 0.0)
    real, stored = clubs.add_record, list[Any]()

    def failing(*args: Any, **kwargs: Any) -> Any:
        if len(stored) == len(part.matches) - 1:
            raise RuntimeError("killed")
        stored.append(real(*args, **kwargs))
        return stored[-1]

    monkeypatch.setattr(club_transfer, "add_record", failing)
    steps, lock = list[int](), database.writer_lock

    def counted(*args: Any) -> Any:
        steps.append(1)
        return lock(*args)

    monkeypatch.setattr(store, "writer_lock", counted)
    matches = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    with pytest.raises(RuntimeError):
        club_transfer.add_part(db, again, part)
    assert len(steps) >= len(part.matches)  # a step a match here: the other writers went in between
    assert (clubs.count_matches(db, again.id), len(clubs.roster(db, again.id))) == before
    assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == matches
    monkeypatch.setattr(club_transfer, "add_record", real)
    for text in texts[1:]:
        club_transfer.add_part(db, again, club_files.parse_club(json.loads(text)))
    assert _all_parts(db, again) == texts
    assert db.execute("SELECT COUNT(*) FROM clubs").fetchone()[0] == 2  # the parts' own clubs are gone
