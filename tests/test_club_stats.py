"""The club statistics against figures worked out by hand on a small club (docs/CLUB.md's definitions)."""

from __future__ import annotations

from fractions import Fraction as F

from scorer.engine.clubs import HandSummary, MatchSummary, club_table, player_detail, players_document, rank

H = HandSummary
CLUB = [
    # 1: finished, A B C; A wins, B last; B revokes once
    MatchSummary(1, "2026-01-10", ("Anna", "Bruno", "Carla"), 1,
                 (H(0, (3, -1, -2), ((1, "revoke"),)), H(1, (-4, 2, 2)), H(2, (5, -5, 0))), True),
    # 2: finished, B C D, scores in thirds; C wins, D last
    MatchSummary(2, "2026-02-01", ("Bruno", "Carla", "Dora"), 3, (H(0, (2, -1, -1)), H(1, (-3, 6, -3))), True),
    # 3: not finished, A B D: nobody wins or comes last
    MatchSummary(3, "2026-03-05", ("Anna", "Bruno", "Dora"), 1, (H(0, (1, 1, -2)),), False, uncounted=1),
    # 4: finished, A C D with A and C tied at the top: both win
    MatchSummary(4, "2026-03-06", ("Anna", "Carla", "Dora"), 1, (H(0, (2, 2, -4)),), True),
]
SEATS = {1: ("A", "B", "C"), 2: ("B", "C", "D"), 3: ("A", "B", "D"), 4: ("A", "C", "D")}


def by_key(rows: list) -> dict:  # type: ignore[type-arg]
    return {r.key: r for r in rows}


def test_the_table_over_all_time() -> None:
    rows = club_table(CLUB, SEATS)
    assert [r.key for r in rows] == ["A", "C", "B", "D"]  # ranked by total
    t = by_key(rows)
    a, b, c, d = t["A"], t["B"], t["C"], t["D"]
    assert (a.matches, a.hands, a.total, a.per_hand) == (3, 5, F(7), F(7, 5))
    assert (b.matches, b.hands, b.total, b.per_hand) == (3, 6, F(-10, 3), F(-5, 9))
    assert (c.matches, c.hands, c.total) == (3, 6, F(11, 3))
    assert (d.matches, d.hands, d.total) == (3, 4, F(-22, 3))
    assert [x.wins for x in (a, b, c, d)] == [2, 0, 2, 0]  # tied leaders of match 4 each win
    assert [x.last for x in (a, b, c, d)] == [0, 1, 0, 2]
    assert [x.deals for x in (a, b, c, d)] == [3, 2, 2, 0]
    assert b.breaches == {"revoke": 1} and a.breaches == {} and b.breach_count == 1
    assert (a.best, a.worst) == (F(5), F(-4))
    assert (b.best, b.worst) == (F(2), F(-5))
    assert (d.best, d.worst) == (F(-1, 3), F(-4))
    assert sum(r.total for r in rows) == 0


def test_a_date_range_takes_the_matches_whose_date_lies_in_it_both_ends_included() -> None:
    t = by_key(club_table(CLUB, SEATS, "2026-02-01", "2026-03-05"))
    assert set(t) == {"A", "B", "C", "D"}
    assert (t["A"].matches, t["A"].hands, t["A"].total) == (1, 1, F(1))
    assert t["B"].total == F(2, 3) and t["C"].total == F(5, 3) and t["D"].total == F(-10, 3)
    assert t["C"].wins == 1 and t["D"].last == 1
    assert club_table(CLUB, SEATS, "2027-01-01", None) == []


def test_sorting_by_average_per_hand() -> None:
    rows = rank(club_table(CLUB, SEATS), "per_hand")
    assert [r.key for r in rows] == ["A", "C", "B", "D"]
    per = [r.per_hand for r in rows]
    assert per == sorted(per, reverse=True)
    assert rows[1].per_hand == F(11, 18)


def test_a_player_page() -> None:
    detail = player_detail(CLUB, SEATS, "A")
    assert detail.stats.total == 7 and detail.stats.wins == 2
    assert [line.match_id for line in detail.history] == [1, 3, 4]
    assert detail.running() == [F(4), F(5), F(7)]
    form = detail.form
    assert [(f.match_id, f.total, f.place, f.of, f.won) for f in form] == [
        (4, F(2), 1, 3, True), (3, F(1), 1, 3, False), (1, F(4), 1, 3, True)]
    rivals = {r.key: (r.matches, r.hands, r.total) for r in detail.rivals}
    assert rivals == {"B": (2, 4, F(5)), "C": (2, 4, F(6)), "D": (2, 2, F(3))}
    assert [r.key for r in detail.rivals] == ["C", "B", "D"]  # most hands together first


def test_head_to_head_in_thirds_and_a_player_who_never_played() -> None:
    detail = player_detail(CLUB, SEATS, "D")
    assert {r.key: r.total for r in detail.rivals} == {"B": F(-4, 3) - 2, "C": F(-4, 3) - 4, "A": F(-6)}
    nobody = player_detail(CLUB, SEATS, "Z")
    assert nobody.history == () and nobody.stats.hands == 0 and nobody.stats.per_hand == 0


def test_players_document_writes_numbers_as_scarto_result_does() -> None:
    doc = players_document(club_table(CLUB, SEATS), {"A": "Anna", "B": "Bruno", "C": "Carla", "D": "Dora"})
    assert doc["format"] == "scarto-players/1"
    assert doc["players"][0] == {"name": "Anna", "matches": 3, "hands": 5, "total": 7, "per_hand": "7/5",
                                 "wins": 2}
    assert doc["players"][2] == {"name": "Bruno", "matches": 3, "hands": 6, "total": "-10/3",
                                 "per_hand": "-5/9", "wins": 0}


def test_a_summary_survives_its_json_form() -> None:
    for summary in CLUB:
        assert MatchSummary.from_dict(summary.to_dict()) == summary


def test_a_match_without_a_counted_hand_counts_for_no_one() -> None:
    """A club night's table seated but not played showed in recent form as "place 1 of 3" and counted
    as a match played: a match counts once it has a counted hand."""
    waiting = MatchSummary(5, "2026-03-07", ("Anna", "Bruno", "Eva"), 1, (), False, uncounted=1)
    club, seats = [*CLUB, waiting], {**SEATS, 5: ("A", "B", "E")}
    assert by_key(club_table(club, seats)).keys() == by_key(club_table(CLUB, SEATS)).keys()  # no E
    assert by_key(club_table(club, seats))["A"].matches == 3
    detail = player_detail(club, seats, "A")
    assert [line.match_id for line in detail.form] == [4, 3, 1]
    assert all(r.key != "E" for r in detail.rivals)
