"""The night's ranking: places, match points, byes, the two methods and their tie-breaks."""

from __future__ import annotations

from fractions import Fraction as F

from scorer.engine.nights import RoundResult, TableResult, match_points, places, rank


def table(hands: int, **totals: int | F) -> TableResult:
    return TableResult(tuple((name, F(score)) for name, score in totals.items()), hands)


def test_equal_totals_share_the_better_place() -> None:
    assert places([("A", F(5)), ("B", F(5)), ("C", F(-10))]) == {"A": 1, "B": 1, "C": 3}


def test_match_points_run_from_two_to_nothing_at_any_table_size() -> None:
    assert match_points([("A", F(9)), ("B", F(0)), ("C", F(-9))]) == {"A": 2, "B": 1, "C": 0}
    four = match_points([("A", F(9)), ("B", F(3)), ("C", F(-3)), ("D", F(-9))])
    assert four == {"A": 2, "B": F(4, 3), "C": F(2, 3), "D": 0}
    assert sum(four.values()) / 4 == 1  # the same average as a table of three, and as a bye


def test_tied_players_share_their_match_points() -> None:
    assert match_points([("A", F(4)), ("B", F(4)), ("C", F(-8))]) == {"A": F(3, 2), "B": F(3, 2), "C": 0}


def night() -> tuple[list[str], list[RoundResult]]:
    players = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio"]
    one = RoundResult((table(3, Anna=12, Bruno=-2, Carla=-10), table(3, Dario=30, Elena=-10, Fabio=-20)))
    two = RoundResult((table(3, Anna=8, Dario=-4, Elena=-4), table(3, Bruno=1, Carla=1, Fabio=-2)))
    return players, [one, two]


def test_ranked_by_total_with_match_points_as_the_first_tie_break() -> None:
    players, rounds = night()
    lines = rank(players, rounds, "total")
    assert [line.name for line in lines] == ["Dario", "Anna", "Bruno", "Carla", "Elena", "Fabio"]
    assert [line.total for line in lines] == [26, 20, -1, -9, -14, -22]
    assert [line.placings for line in lines] == [(1, 2), (1, 1), (2, 1), (3, 1), (2, 2), (3, 3)]
    assert [line.match_points for line in lines] == [F(5, 2), 4, F(5, 2), F(3, 2), F(3, 2), 0]
    assert all(line.hands == 6 for line in lines)


def test_ranked_by_placings_the_match_points_come_first() -> None:
    players, rounds = night()
    lines = rank(players, rounds, "placings")
    assert [(line.name, line.match_points) for line in lines] == [
        ("Anna", 4), ("Dario", F(5, 2)), ("Bruno", F(5, 2)), ("Carla", F(3, 2)), ("Elena", F(3, 2)), ("Fabio", 0)]
    assert [line.place for line in lines] == [1, 2, 3, 4, 5, 6]  # Dario ahead of Bruno on total, Carla of Elena


def test_a_bye_is_worth_the_average() -> None:
    players = ["A", "B", "C", "D", "E"]
    rounds = [RoundResult((table(4, A=6, B=2, C=-2, D=-6),), bye=("E",))]
    lines = {line.name: line for line in rank(players, rounds, "placings")}
    assert lines["E"].match_points == 1 and lines["E"].total == 0 and lines["E"].placings == (None,)
    assert lines["E"].hands == 0


def test_players_equal_on_every_key_share_a_place() -> None:
    lines = rank(["A", "B", "C"], [RoundResult((table(1, A=5, B=5, C=-10),))])
    assert [(line.name, line.place) for line in lines] == [("A", 1), ("B", 1), ("C", 3)]


def test_totals_of_a_night_sum_to_zero() -> None:
    players, rounds = night()
    assert sum(line.total for line in rank(players, rounds)) == 0
