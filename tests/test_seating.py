"""Seating a club night: table sizes, byes, mixed rounds against the best possible, Swiss, dealers."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from scorer.engine.seating import SeatingError, below, plan, repeats, repeats_floor, table_sizes, two_of


def names(count: int) -> list[str]:
    return [f"P{i:02d}" for i in range(count)]


def tables_of(rounds) -> list[list[tuple[str, ...]]]:
    return [[table.players for table in round_.tables] for round_ in rounds]


def partitions(players: tuple[str, ...], sizes: tuple[int, ...]):
    """Every way to seat ``players`` at unordered tables of ``sizes`` (the oracle's own count)."""
    if not sizes:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes)):  # the first player's table may be of any size there is
        rest_sizes = list(sizes)
        rest_sizes.remove(size)
        for others in combinations(rest, size - 1):
            table = (first, *others)
            left = tuple(p for p in rest if p not in others)
            for tail in partitions(left, tuple(rest_sizes)):
                yield [table, *tail]


def fewest_repeats(count: int, rounds: int) -> int:
    """The best possible number of repeats, by exhaustive search (round 1 fixed by symmetry)."""
    sizes, _out = table_sizes(count)
    players = tuple(names(count))
    ordered = tuple(sorted(sizes, reverse=True))
    first, start = [], 0
    for size in ordered:
        first.append(players[start:start + size])
        start += size
    options = list(partitions(players, ordered))
    best = [10**9]

    def search(done: list, so_far: int) -> None:
        if so_far >= best[0]:
            return
        if len(done) == rounds:
            best[0] = so_far
            return
        for option in options:
            search([*done, option], repeats([*done, option]))

    search([first], 0)
    return best[0]


@pytest.mark.parametrize(("count", "sizes", "out"), [
    (3, [3], 0), (4, [4], 0), (5, [4], 1), (6, [3, 3], 0), (7, [3, 4], 0), (8, [4, 4], 0),
    (9, [3, 3, 3], 0), (10, [3, 3, 4], 0), (11, [3, 4, 4], 0), (30, [3] * 10, 0), (31, [3] * 9 + [4], 0),
])
def test_tables_of_three_with_fours_only_where_needed(count: int, sizes: list[int], out: int) -> None:
    assert table_sizes(count) == (sizes, out)


@pytest.mark.parametrize("count", [0, 1, 2])
def test_a_night_needs_three_players(count: int) -> None:
    with pytest.raises(SeatingError, match="at least 3 players"):
        table_sizes(count)


@pytest.mark.parametrize("method", ["mixed", "ranking"])
@pytest.mark.parametrize("count", [3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 17, 30])
def test_every_present_player_is_seated_exactly_once_a_round(count: int, method: str) -> None:
    players = names(count)
    rankings = [list(reversed(players))] * 3
    rounds = plan(players, 4, seed=3, method=method, rankings=rankings)  # type: ignore[arg-type]
    assert len(rounds) == 4
    for round_ in rounds:
        seated = [p for table in round_.tables for p in table.players]
        assert sorted(seated + list(round_.bye)) == sorted(players)
        assert len(set(seated)) == len(seated)
        assert sorted(len(t.players) for t in round_.tables) == sorted(table_sizes(count)[0])
        assert all(t.deal == ("four" if len(t.players) == 4 else "three") for t in round_.tables)


def test_five_players_have_a_rotating_bye() -> None:
    rounds = plan(names(5), 5, seed=1, method="mixed")
    byes = [r.bye for r in rounds]
    assert all(len(b) == 1 for b in byes)
    assert sorted(b[0] for b in byes) == names(5)  # everyone sits out once in five rounds


def test_nine_players_over_three_rounds_never_meet_twice() -> None:
    for seed in range(10):
        rounds = plan(names(9), 3, seed=seed, method="mixed")
        assert repeats(tables_of(rounds)) == 0


@pytest.mark.parametrize(("count", "rounds"), [
    (6, 2), (6, 3), (7, 2), (7, 3), (8, 2), (8, 3), (9, 2), (9, 3),
    pytest.param(10, 2, marks=pytest.mark.slow), pytest.param(11, 2, marks=pytest.mark.slow),
])
def test_mixed_seating_meets_the_exhaustive_optimum(count: int, rounds: int) -> None:
    best = fewest_repeats(count, rounds)
    for seed in range(2):
        assert repeats(tables_of(plan(names(count), rounds, seed=seed, method="mixed"))) == best


@pytest.mark.slow
def test_mixed_seating_reaches_the_floor_where_it_is_known_to_be_reachable() -> None:
    """Tables of three only, from 9 players: resolvable designs (Kirkman systems and their
    near relations) give schedules with no repeat for far more than five rounds."""
    for count in (9, 12, 15, 18, 21, 24, 27, 30):
        for rounds in range(2, 6 if count > 12 else 5):
            got = repeats(tables_of(plan(names(count), rounds, seed=5, method="mixed")))
            assert got == 0, (count, rounds)


BEST_REPEATS = {  # rounds 2, 3, 4, 5
    6: (2, 5, 9, 15), 7: (3, 6, 15, 24), 8: (4, 8, 20, 32), 9: (0, 0, 0, 9), 10: (1, 2, 3, 15),
    11: (2, 4, 8, 20), 12: (0, 0, 0, 3), 13: (0, 0, 0, 3), 14: (0, 0, 0, 2),
    **{count: (0, 0, 0, 0) for count in range(15, 31)},
}
"""The fewest repeats for 6 to 30 players over 2 to 5 rounds. Proven: every 0 (nobody can do
better), the exhaustive cases above (6-11 players over 2 rounds, 6-9 over 3), 9 over 5 (four
rounds use up all 36 pairs, so each of round 5's nine pairs repeats), and the tables of four
at 6-8 players where the floor of ``repeats_floor`` is met. The others (10 and 11 over 4 and
5 rounds, 12-14 over 5) are the best of 48 searches each thirty times longer than the app's,
with other seeds: known-best, not proven optimal."""


@pytest.mark.slow
@pytest.mark.parametrize("count", range(6, 31))
def test_mixed_seating_meets_the_best_known_number_of_repeats(count: int) -> None:
    for rounds in range(2, 6):
        got = repeats(tables_of(plan(names(count), rounds, seed=1, method="mixed")))
        assert got == BEST_REPEATS[count][rounds - 2], (count, rounds)


def test_the_best_known_numbers_agree_with_the_exhaustive_search() -> None:
    for count, rounds in [(6, 2), (6, 3), (7, 2), (8, 2), (9, 3), (10, 2)]:
        assert BEST_REPEATS[count][rounds - 2] == fewest_repeats(count, rounds)


def test_the_floor_is_a_true_lower_bound_on_small_nights() -> None:
    for count, rounds in [(6, 2), (6, 3), (7, 2), (8, 2), (9, 3)]:
        assert repeats_floor(table_sizes(count)[0], rounds) <= fewest_repeats(count, rounds)


def test_a_draw_is_reproduced_from_its_seed() -> None:
    one = plan(names(13), 4, seed=42, method="mixed")
    assert plan(names(13), 4, seed=42, method="mixed") == one
    assert plan(names(13), 4, seed=43, method="mixed") != one


def test_a_night_drawn_before_the_search_was_made_quicker_is_drawn_the_same():
    """A night's later rounds are planned again from its seed when they are seated, so a night
    started before an upgrade must go on as it was drawn (this plan was drawn by the search as it
    was before it counted by players' numbers)."""
    got = [[list(t.players) for t in r.tables] for r in plan(names(10), 3, seed=1, method="mixed")]
    assert got == [
        [["P08", "P06", "P02"], ["P00", "P01", "P07"], ["P09", "P05", "P03", "P04"]],
        [["P01", "P06", "P04"], ["P02", "P00", "P05"], ["P07", "P08", "P09", "P03"]],
        [["P05", "P08", "P01"], ["P04", "P02", "P07"], ["P06", "P09", "P00", "P03"]],
    ]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 17, 21, 22, 40])
def test_the_search_draws_its_numbers_as_the_random_module_does(n: int) -> None:
    mine, theirs = random.Random(f"{n}:draw"), random.Random(f"{n}:draw")
    for _ in range(300):
        assert below(mine.getrandbits, n) == theirs.randrange(n)
        if n > 1:
            assert list(two_of(mine.getrandbits, n)) == theirs.sample(range(n), 2)
        assert mine.random() == theirs.random()


def test_the_search_refuses_to_draw_from_nothing_as_the_random_module_does() -> None:
    with pytest.raises(ValueError):
        below(random.Random(1).getrandbits, 0)
    with pytest.raises(ValueError):
        two_of(random.Random(1).getrandbits, 1)


def test_ranking_seats_the_leaders_together() -> None:
    players = names(9)
    ranking = ["P08", "P03", "P05", "P01", "P00", "P02", "P07", "P06", "P04"]
    rounds = plan(players, 2, seed=9, method="ranking", rankings=[ranking])
    assert [set(t.players) for t in rounds[1].tables] == [set(ranking[0:3]), set(ranking[3:6]), set(ranking[6:9])]


def test_rounds_already_seated_do_not_change_when_a_ranking_comes_in() -> None:
    players = names(10)
    before = plan(players, 3, seed=2, method="ranking")
    after = plan(players, 3, seed=2, method="ranking", rankings=[list(reversed(players))])
    assert len(before) == 1 and len(after) == 2
    assert after[0] == before[0]


def test_nobody_always_deals_first() -> None:
    rounds = plan(names(9), 3, seed=4, method="mixed")
    firsts = Counter(table.players[0] for round_ in rounds for table in round_.tables)
    assert len(firsts) == 9  # nine first deals over three rounds: each player once
    assert set(firsts.values()) == {1}


def test_a_player_listed_twice_is_refused() -> None:
    with pytest.raises(SeatingError, match="twice"):
        plan(["Anna", "Bruno", "Anna"], 2, seed=1, method="mixed")
