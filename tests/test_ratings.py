"""Ratings across a club's matches (scorer.engine.ratings, with openskill through scorer.rater): what counts,
the order, ties, the number shown, and the ``scarto-ratings/1`` file."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.engine.clubs import HandSummary, MatchSummary
from scorer.engine.errors import ReadError
from scorer.engine.ratings import (
    PROVISIONAL_MATCHES,
    RATINGS_FORMAT,
    SHOWN_BASE,
    SHOWN_K,
    SHOWN_SETTLED,
    RatingsCache,
    Skill,
    file_summaries,
    match_update,
    parse_ratings,
    rate,
    rated_players,
    ratings_document,
    shown,
)
from scorer.engine.records import parse_match
from scorer.engine.scoring import score_hand
from scorer.rater import DEFAULT, OpenSkill
from tests.matchutil import points_match


def summary(match_id: int, day: str, totals: list[int], dealer: int = 0) -> MatchSummary:
    """A match of one counted hand whose scores are ``totals`` (a match's result is its final totals)."""
    players = tuple(f"seat{i}" for i in range(len(totals)))
    return MatchSummary(match_id, day, players, 1, (HandSummary(dealer, tuple(totals)),), True)


def totals_of(size: int) -> st.SearchStrategy[list[int]]:
    """Final totals of a table of ``size``: they sum to zero, and ties are common (few values)."""
    return st.lists(st.integers(-3, 3), min_size=size - 1, max_size=size - 1).map(lambda t: [*t, -sum(t)])


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[str, list[str], list[int]]]:
    """A club's counted matches: (day, the players seated, their totals), tables of three and of four."""
    roster = [f"P{i}" for i in range(draw(st.integers(3, 7)))]
    out = []
    for _ in range(draw(st.integers(1, 12))):
        size = draw(st.sampled_from([3, 4])) if len(roster) >= 4 else 3
        seated = draw(st.permutations(roster))[:size]
        out.append((f"2026-12-{draw(st.integers(1, 28)):02d}", seated, draw(totals_of(size))))
    return out


def ratings_of(history: list[tuple[str, list[str], list[int]]], *, rng: random.Random | None = None,
               rename: dict[str, str] | None = None) -> dict[Any, tuple[Skill, int]]:
    """The ratings of a history; with ``rng`` each match is seated in another order (the dealer too) and
    the summaries are handed over in another order; with ``rename`` the players have other keys."""
    summaries, seats = [], {}
    for match_id, (day, seated, totals) in enumerate(history, start=1):
        order = list(range(len(seated)))
        if rng is not None:
            rng.shuffle(order)
        keys = [(rename or {}).get(seated[i], seated[i]) for i in order]
        dealer = rng.randrange(len(order)) if rng is not None else 0
        summaries.append(summary(match_id, day, [totals[i] for i in order], dealer))
        seats[match_id] = tuple(keys)
    if rng is not None:
        rng.shuffle(summaries)
    return {key: (r.skill, r.matches) for key, r in rate(summaries, seats, DEFAULT).items()}


@settings(max_examples=60, deadline=None)
@given(histories(), st.randoms(use_true_random=False))
def test_seating_the_dealer_and_the_order_given_change_nothing(history: Any, rng: random.Random) -> None:
    """Bit for bit: the model never sees a seat, so another seating or first dealer is the same rating."""
    assert ratings_of(history, rng=rng) == ratings_of(history)


@settings(max_examples=40, deadline=None)
@given(histories())
def test_names_change_nothing(history: Any) -> None:
    """Players are keys: another key for each (a renamed player, another roster id) rates the same."""
    rename = {f"P{i}": f"Z{9 - i}" for i in range(10)}
    renamed = ratings_of(history, rename=rename)
    assert {key: renamed[rename[key]] for key in ratings_of(history)} == ratings_of(history)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(15, 35), st.floats(1, 8.5)), min_size=3, max_size=4),
       st.data())
def test_tied_players_move_alike_whatever_their_seats(priors: list[tuple[float, float]], data: st.DataObject) -> None:
    """Players sharing a place get the same change of mu, whatever the order they sit in; with the same
    belief before, the same belief after."""
    before = [Skill(mu, sigma) for mu, sigma in priors]
    places = sorted(data.draw(st.lists(st.integers(1, 2), min_size=len(before), max_size=len(before))))
    places = [1 + sum(1 for q in places if q < p) for p in places]  # 1, 1, 3 as the club counts places
    after = match_update(before, places, DEFAULT)
    for i in range(len(before)):
        for j in range(len(before)):
            if places[i] == places[j]:
                assert after[i].mu - before[i].mu == pytest.approx(after[j].mu - before[j].mu, abs=1e-12)
    turned = data.draw(st.permutations(range(len(before))))
    moved = match_update([before[i] for i in turned], [places[i] for i in turned], DEFAULT)
    assert moved == [after[i] for i in turned]


def _summaries(history: list[tuple[str, list[str], list[int]]]) -> tuple[list[MatchSummary], dict[int, tuple]]:
    summaries = [summary(i, day, totals) for i, (day, _seated, totals) in enumerate(history, start=1)]
    return summaries, {i: tuple(seated) for i, (_day, seated, _totals) in enumerate(history, start=1)}


@settings(max_examples=40, deadline=None)
@given(histories(), st.lists(st.tuples(st.sampled_from(["edit", "delete", "add", "rename"]), st.integers(0, 99),
                                       totals_of(3), st.integers(1, 28)), max_size=8))
def test_a_club_rated_again_after_each_change_gives_the_fresh_computation(history: Any, changes: Any) -> None:
    """Through the club's cache, after each edit (a match's totals), delete, old match added later or rename:
    exactly the ratings a computation from the whole history gives."""
    cache = RatingsCache(every=2)  # checkpoints every other match: resumed from many
    summaries, seats = _summaries(history)
    assert rate(summaries, seats, DEFAULT, cache) == rate(summaries, seats, DEFAULT)
    for kind, pick, totals, day in changes:
        target = summaries[pick % len(summaries)] if summaries else None
        if kind == "edit" and target is not None and len(seats[target.match_id]) == 3:
            summaries[summaries.index(target)] = summary(target.match_id, target.date, totals)
        elif kind == "delete" and target is not None:
            summaries.remove(target)
        elif kind == "add":
            number = max(seats, default=0) + 1
            summaries.append(summary(number, f"2026-12-{day:02d}", totals))
            seats[number] = ("P0", "P1", "P2")
        elif kind == "rename":
            seats = {m: tuple("Renamed" if k == "P1" else k for k in keys) for m, keys in seats.items()}
        assert rate(summaries, seats, DEFAULT, cache) == rate(summaries, seats, DEFAULT)


def test_a_cache_of_another_model_or_club_changes_no_figure() -> None:
    cache = RatingsCache()
    club = [summary(i, f"2026-12-{i:02d}", [2, 0, -2]) for i in range(1, 40)]
    seats = {i: ("A", "B", "C") for i in range(1, 40)}
    rate(club, seats, OpenSkill(beta=2.0), cache)
    assert rate(club, seats, DEFAULT, cache) == rate(club, seats, DEFAULT)
    other = {i: ("C", "D", "A") for i in range(1, 40)}
    assert rate(club, other, DEFAULT, cache) == rate(club, other, DEFAULT)
    assert rate(club[:5], seats, DEFAULT, cache) == rate(club[:5], seats, DEFAULT)


def test_tied_newcomers_get_one_rating_where_openskill_alone_orders_them() -> None:
    """Three newcomers, two sharing first place: one belief for the two, above the third; the library
    alone, given the strong one first, moves the two differently (openskill.py issue 166's shape)."""
    strong, weak = Skill(30.0, 3.0), Skill(20.0, 5.0)
    assert DEFAULT.update([strong, weak, DEFAULT.prior()], [1, 1, 3])[0].mu - strong.mu != pytest.approx(
        DEFAULT.update([strong, weak, DEFAULT.prior()], [1, 1, 3])[1].mu - weak.mu)
    after = match_update([strong, weak, DEFAULT.prior()], [1, 1, 3], DEFAULT)
    assert after[0].mu - strong.mu == pytest.approx(after[1].mu - weak.mu)
    first, second, third = match_update([DEFAULT.prior()] * 3, [1, 1, 3], DEFAULT)
    assert first == second and first.mu > third.mu


def test_a_match_counts_once_played_in_date_order() -> None:
    """A table seated but not played counts for no one; a match added later with an older date takes its
    place by date, as if it had been there from the start."""
    empty = MatchSummary(9, "2026-12-01", ("a", "b", "c"), 1, (), False)
    late = summary(7, "2026-12-01", [3, 0, -3])
    early = summary(2, "2026-12-05", [-3, 0, 3])
    seats = {2: ("A", "B", "C"), 7: ("A", "B", "C"), 9: ("A", "B", "C")}
    ratings = rate([early, empty, late], seats, DEFAULT)
    assert [step.match_id for step in ratings["A"].steps] == [7, 2]
    assert ratings == rate([late, early], {2: seats[2], 7: seats[7]}, DEFAULT)
    assert rate([summary(3, "2026-12-01", [1, 0, -1])], {}, DEFAULT) == {}  # no seats: not a club match


def test_the_shown_number_is_conservative_whole_and_provisional_at_first() -> None:
    newcomer = shown(DEFAULT.prior(), DEFAULT.beta)
    assert newcomer < SHOWN_BASE and newcomer == shown(Skill(25.0, 25 / 3), DEFAULT.beta)
    settled = Skill(SHOWN_SETTLED + SHOWN_K * 3.0, 3.0)
    assert shown(settled, DEFAULT.beta) == SHOWN_BASE  # an average player whose rating has settled
    assert shown(Skill(settled.mu + DEFAULT.beta, 3.0), DEFAULT.beta) == SHOWN_BASE + 200  # Elo's 200 a beta
    assert shown(Skill(-50.0, 8.0), DEFAULT.beta) == 0
    history = [summary(i, f"2026-12-{i:02d}", [2, 0, -2]) for i in range(1, PROVISIONAL_MATCHES + 1)]
    ratings = rate(history, {i: ("A", "B", "C") for i in range(1, PROVISIONAL_MATCHES + 1)}, DEFAULT)
    assert [r.provisional for r in ratings.values()] == [False] * 3
    assert ratings["A"].rating > ratings["B"].rating > ratings["C"].rating
    chart = ratings["A"].shown_steps()
    assert [step.match_id for step, _before, _after in chart] == list(range(1, PROVISIONAL_MATCHES + 1))
    assert chart[0][1] == shown(DEFAULT.prior(), DEFAULT.beta) and chart[-1][2] == ratings["A"].rating
    assert all(after == following for (_s, _b, after), (_t, following, _a) in zip(chart, chart[1:], strict=False))
    steps = rate(history[:-1], {i: ("A", "B", "C") for i in range(1, PROVISIONAL_MATCHES)}, DEFAULT)
    assert steps["A"].provisional and steps["A"].matches == PROVISIONAL_MATCHES - 1


def test_the_file_round_trips_highest_first() -> None:
    history = [summary(1, "2026-12-01", [2, 0, -2]), summary(2, "2026-12-02", [1, 1, -2])]
    ratings = rate(history, {1: (1, 2, 3), 2: (3, 1, 2)}, DEFAULT)
    players = rated_players(ratings, {1: "Anna", 2: "Bruno", 3: "Carla"})
    document = ratings_document(players, DEFAULT.method)
    assert document["format"] == RATINGS_FORMAT and "plackett-luce" in document["method"]
    assert [p["name"] for p in document["players"]] == ["Anna", "Bruno", "Carla"]
    assert [p["rating"] for p in document["players"]] == sorted((p["rating"] for p in document["players"]),
                                                                reverse=True)
    assert set(document["players"][0]) == {"name", "rating", "mu", "sigma", "matches", "provisional"}
    assert parse_ratings(document) == (document["method"], players)


@pytest.mark.parametrize(("value", "where"), [
    ([], "record"),
    ({"format": "scarto-players/1", "players": []}, "format"),
    ({"players": {}}, "players"),
    ({"players": [{"name": "", "rating": 1, "mu": 1, "sigma": 1, "matches": 1}]}, "players[0].name"),
    ({"players": [{"name": "A", "rating": 1.5, "mu": 1, "sigma": 1, "matches": 1}]}, "players[0].rating"),
    ({"players": [{"name": "A", "rating": 1, "mu": "1", "sigma": 1, "matches": 1}]}, "players[0].mu"),
    ({"players": [{"name": "A", "rating": 1, "mu": 1, "sigma": -1, "matches": 1}]}, "players[0].sigma"),
    ({"players": [{"name": "A", "rating": 1, "mu": 1, "sigma": 1, "matches": True}]}, "players[0].matches"),
])
def test_a_bad_ratings_file_says_what_and_where(value: Any, where: str) -> None:
    with pytest.raises(ReadError) as caught:
        parse_ratings(value)
    assert caught.value.where == where and caught.value.message


def test_a_club_file_is_summarised_in_its_order_an_undated_match_after_the_one_before() -> None:
    first, second = points_match(3, seed=1), points_match(3, seed=2)
    second.pop("date")
    matches = [parse_match(first), parse_match(second)]
    summaries, seats = file_summaries([(m, ["a", "b", "c"]) for m in matches],
                                      [[score_hand(h) for h in m.hands] for m in matches])
    assert [(s.match_id, s.date) for s in summaries] == [(1, "2026-11-30"), (2, "2026-11-30")]
    assert seats == {1: ("a", "b", "c"), 2: ("a", "b", "c")}
    assert summaries[0].totals()[0] == sum(score_hand(h).scores()["Anna"] for h in matches[0].hands)


def test_the_models_parameters_are_in_its_method() -> None:
    assert "tau 0.08333" in DEFAULT.method and "beta 2" in OpenSkill(beta=2.0).method


def test_the_documented_example_reads_and_shows_what_it_says() -> None:
    """docs/RATINGS.md's example is a real scarto-ratings/1 object whose numbers follow the documented formula."""
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "RATINGS.md").read_text()
    example = re.search(r'```json\n(\{"format": "scarto-ratings/1".*?)```', text, re.S)
    assert example is not None
    method, players = parse_ratings(json.loads(example.group(1)))
    assert method == DEFAULT.method
    assert [p.rating for p in players] == [shown(Skill(p.mu, p.sigma), DEFAULT.beta) for p in players]
    assert "(mu − 2 × sigma − 15) / beta" in text and (SHOWN_K, SHOWN_SETTLED) == (2.0, 15.0)
