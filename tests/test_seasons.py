"""A season ranked by each player's best N matches or nights (scorer/engine/seasons.py)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.engine.clubs import HandSummary, MatchSummary
from scorer.engine.errors import ReadError
from scorer.engine.limits import MAX_BEST_RESULTS
from scorer.engine.seasons import (
    ALL,
    SeasonRule,
    best_of,
    places,
    player_results,
    rank_lines,
    read_rule,
    season_table,
)

H = HandSummary


def match(match_id: int, day: str, players: tuple[str, ...], *totals: int, scale: int = 1) -> MatchSummary:
    """A finished match of one hand with these totals (times ``scale``)."""
    return MatchSummary(match_id, day, players, scale, (H(0, tuple(totals)),), True)


# Anna plays three matches on two days, Bruno four on three days, Carla two, Dora one.
CLUB = [
    match(1, "2026-01-10", ("Anna", "Bruno", "Carla"), 6, -2, -4),
    match(2, "2026-01-10", ("Anna", "Bruno", "Dora"), -9, 3, 6),
    match(3, "2026-01-17", ("Bruno", "Carla", "Anna"), 1, -2, 1),
    match(4, "2026-01-24", ("Bruno", "Carla", "Dora"), 5, -4, -1, scale=3),  # thirds
    match(5, "2026-01-31", ("Anna", "Bruno", "Carla"), 0, 0, 0),
]
SEATS = {1: ("A", "B", "C"), 2: ("A", "B", "D"), 3: ("B", "C", "A"), 4: ("B", "C", "D"), 5: ("A", "B", "C")}


def lines(rule: SeasonRule, summaries: list[MatchSummary] | None = None) -> dict:  # type: ignore[type-arg]
    return {line.key: line for line in season_table(summaries or CLUB, SEATS, rule)}


def test_best_of_counts_the_highest_and_marks_them() -> None:
    assert best_of([F(3), F(-1), F(5), F(2)], 2) == (F(8), (True, False, True, False))
    assert best_of([F(3), F(-1)], 5) == (F(2), (True, True))  # fewer than N: all count
    assert best_of([], 3) == (F(0), ())


def test_equal_results_at_the_edge_the_earlier_counts() -> None:
    assert best_of([F(1), F(4), F(1), F(1)], 2) == (F(5), (True, True, False, False))


def test_best_matches_of_a_season() -> None:
    t = lines(SeasonRule("matches", 2))
    a, b = t["A"], t["B"]
    assert [r.points for r in a.results] == [F(6), F(-9), F(1), F(0)]
    assert (a.score, a.counted) == (F(7), 2)  # 6 + 1; the -9 is forgotten
    assert [r.counted for r in a.results] == [True, False, True, False]
    assert [r.points for r in b.results] == [F(-2), F(3), F(1), F(5, 3), F(0)]
    assert b.score == F(3) + F(5, 3)
    assert a.stats.total == F(-2)  # the season's total is still there, beside the score
    assert list(t) == ["A", "D", "B", "C"]  # by the score: 7, 6 - 1/3, 3 + 5/3, 0 - 4/3


def test_best_nights_add_up_each_day() -> None:
    t = lines(SeasonRule("nights", 1))
    a = t["A"]
    assert [(r.day, r.points) for r in a.results] == [("2026-01-10", F(-3)), ("2026-01-17", F(1)),
                                                     ("2026-01-31", F(0))]
    assert a.score == F(1)
    assert t["B"].score == F(5, 3)  # 2026-01-10: -2 + 3 = 1; 01-17: 1; 01-24: 5/3


def test_the_total_rule_is_the_club_table() -> None:
    t = season_table(CLUB, SEATS, ALL)
    assert [line.score for line in t] == [line.stats.total for line in t]
    assert [line.results for line in t] == [(), (), (), ()]


def test_a_date_range_limits_the_results() -> None:
    t = {line.key: line for line in season_table(CLUB, SEATS, SeasonRule("matches", 3), "2026-01-17", "2026-01-24")}
    assert [r.points for r in t["A"].results] == [F(1)]
    assert set(t) == {"A", "B", "C", "D"}


def test_equal_scores_share_a_place_and_are_ranked_by_the_total() -> None:
    summaries = [match(1, "2026-01-01", ("Anna", "Bruno", "Carla"), 4, 4, -8),
                 match(2, "2026-01-02", ("Anna", "Bruno", "Carla"), -6, 0, 6)]
    ranked = season_table(summaries, {1: ("A", "B", "C"), 2: ("A", "B", "C")}, SeasonRule("matches", 1))
    assert [(line.key, line.score) for line in ranked] == [("C", F(6)), ("B", F(4)), ("A", F(4))]
    assert places(ranked) == [1, 2, 2]
    assert places(rank_lines(ranked, "per_hand"), "per_hand") == [1, 2, 3]


@pytest.mark.parametrize("value", [
    {"best": 0, "of": "matches"}, {"best": MAX_BEST_RESULTS + 1, "of": "nights"}, {"best": "5", "of": "nights"},
    {"best": True, "of": "nights"}, {"best": 5, "of": "hands"}, {"best": 5}, {"best": 5, "of": "nights", "x": 1},
    "best 5", [5, "nights"]])
def test_a_wrong_ranking_is_refused_saying_how_to_write_it(value: object) -> None:
    with pytest.raises(ReadError) as caught:
        read_rule(value, "seasons[0].ranking")
    assert caught.value.where == "seasons[0].ranking"
    assert f"N a whole number from 1 to {MAX_BEST_RESULTS}" in str(caught.value)


def test_a_ranking_round_trips() -> None:
    assert read_rule(None) == ALL and ALL.to_value() is None
    rule = SeasonRule("nights", 5)
    assert read_rule(rule.to_value()) == rule == read_rule({"of": "nights", "best": 5})


results = st.lists(st.fractions(min_value=-50, max_value=50, max_denominator=3), max_size=8)


@given(results, st.integers(min_value=1, max_value=10))
def test_best_n_is_the_highest_sum_of_n_results(values: list[F], n: int) -> None:
    score, counted = best_of(values, n)
    k = min(n, len(values))
    assert sum(counted) == k
    assert score == sum((v for v, c in zip(values, counted, strict=True) if c), F(0))
    assert score == max(sum(c, F(0)) for c in itertools.combinations(values, k))  # brute force


@given(results, st.integers(min_value=1, max_value=10), st.randoms())
def test_the_order_of_the_results_does_not_matter(values: list[F], n: int, random) -> None:  # type: ignore[no-untyped-def]
    shuffled = list(values)
    random.shuffle(shuffled)
    assert best_of(shuffled, n)[0] == best_of(values, n)[0]


@given(results)
def test_n_at_least_the_count_is_the_total(values: list[F]) -> None:
    assert best_of(values, len(values) + 1)[0] == best_of(values, max(len(values), 1))[0] == sum(values, F(0))


@given(st.permutations(CLUB), st.sampled_from(["matches", "nights"]), st.integers(min_value=1, max_value=5))
def test_the_order_matches_were_stored_in_changes_nothing(summaries: list[MatchSummary], counts: str,
                                                         n: int) -> None:
    rule = SeasonRule("matches" if counts == "matches" else "nights", n)
    assert season_table(summaries, SEATS, rule) == season_table(CLUB, SEATS, rule)


def test_player_results_per_night_match_the_night_totals() -> None:
    nights = player_results(CLUB, SEATS, "nights")
    matches = player_results(CLUB, SEATS, "matches")
    for key in nights:
        assert sum((p for _d, p in nights[key]), F(0)) == sum((p for _d, p in matches[key]), F(0))
