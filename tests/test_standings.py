"""A match between deals: totals, the next dealer, the end, and the settlement."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from scorer.engine.records import parse_match
from scorer.engine.standings import next_dealer, standings

PLAYERS = ["Anna", "Bruno", "Carla"]


def _hand(dealer: str, anna: Any, bruno: Any, carla: Any) -> dict[str, Any]:
    return {"dealer": dealer, "points": {"Anna": anna, "Bruno": bruno, "Carla": carla}}


def _match(hands: list[dict[str, Any]], **settings: Any) -> dict[str, Any]:
    return {"players": PLAYERS, "first_dealer": "Anna", "hands": hands, **settings}


THREE = [_hand("Anna", 31, 22, 25), _hand("Bruno", 20, 30, 28), _hand("Carla", "58/3", "58/3", "118/3")]


def test_totals_next_dealer_and_the_default_end() -> None:
    table = standings(parse_match(_match(THREE[:2])))
    assert table.totals == (Fraction(-1), Fraction(0), Fraction(1))
    assert [line.totals for line in table.lines] == [(5, -4, -1), (-1, 0, 1)]
    assert table.next_dealer == "Carla" and not table.finished and table.hands_to_play == 1
    table = standings(parse_match(_match(THREE)))
    assert table.totals == (Fraction(-23, 3), Fraction(-20, 3), Fraction(43, 3))
    assert table.finished and table.hands_to_play == 0 and table.leaders == ["Carla"]
    assert table.next_dealer == "Anna"


def test_no_hand_yet() -> None:
    table = standings(parse_match(_match([], first_dealer="Bruno")))
    assert table.next_dealer == "Bruno" and not table.finished and table.settlement == ()
    assert table.leaders == PLAYERS
    assert next_dealer(("Anna", "Bruno", "Carla"), "Carla", None) == "Carla"
    assert next_dealer(("Anna", "Bruno", "Carla"), "Anna", "Carla") == "Anna"


def test_a_number_of_hands() -> None:
    table = standings(parse_match(_match(THREE, end={"hands": 6})))
    assert not table.finished and table.hands_to_play == 3
    table = standings(parse_match(_match(THREE * 2, end={"hands": 6})))
    assert table.finished and table.hands_to_play == 0


def test_a_target_score_ends_with_the_hand_that_reaches_it() -> None:
    big = [_hand("Anna", 40, 19, 19), _hand("Bruno", 40, 19, 19), _hand("Carla", 30, 24, 24)]
    table = standings(parse_match(_match(big[:2], end={"target": 30})))
    assert table.totals[0] == 28 and not table.finished and table.hands_to_play is None
    table = standings(parse_match(_match(big, end={"target": 30})))
    assert table.totals[0] == 32 and table.finished


def test_a_hand_with_errors_is_a_deal_that_scores_nothing() -> None:
    hands = [THREE[0], _hand("Bruno", 30, 30, 30), THREE[2]]
    table = standings(parse_match(_match(hands)))
    bad = table.lines[1]
    assert bad.scores == {} and [p.code for p in bad.result.problems] == ["points_total"]
    assert bad.totals == table.lines[0].totals
    assert table.totals == (Fraction(-5, 3), Fraction(-32, 3), Fraction(37, 3))
    assert table.finished and table.next_dealer == "Anna"
    out = table.to_dict()
    assert out["hands"][1] == {"number": 2, "dealer": "Bruno", "scores": {}, "problems": ["points_total"]}


def test_the_standings_format() -> None:
    match = _match(THREE, stake={"per_point": "0.10", "currency": "EUR"})
    assert standings(parse_match(match)).to_dict() == {
        "format": "scarto-standings/1",
        "players": [{"name": "Anna", "total": "-23/3"}, {"name": "Bruno", "total": "-20/3"},
                    {"name": "Carla", "total": "43/3"}],
        "hands": [
            {"number": 1, "dealer": "Anna", "scores": {"Anna": 5, "Bruno": -4, "Carla": -1}, "problems": []},
            {"number": 2, "dealer": "Bruno", "scores": {"Anna": -6, "Bruno": 4, "Carla": 2}, "problems": []},
            {"number": 3, "dealer": "Carla", "scores": {"Anna": "-20/3", "Bruno": "-20/3", "Carla": "40/3"},
             "problems": []},
        ],
        "next_dealer": "Anna",
        "finished": True,
        "settlement": [
            {"from": "Anna", "to": "Carla", "points": "23/3", "amount": "0.77"},
            {"from": "Bruno", "to": "Carla", "points": "20/3", "amount": "0.67"},
        ],
    }


def test_loser_pays_in_a_match() -> None:
    hands = [_hand("Anna", 30, 24, 24)]
    table = standings(parse_match(_match(hands, settle="loser_pays", stake={"per_point": "2"})))
    assert [t.to_dict() for t in table.settlement] == [
        {"from": "Bruno", "to": "Anna", "stakes": 1, "amount": "2.00"},
        {"from": "Carla", "to": "Anna", "stakes": 1, "amount": "2.00"},
    ]
    assert table.match.stake is not None and table.match.stake.per_point == Decimal("2")


def test_settlement_rows_are_a_running_view() -> None:
    table = standings(parse_match(_match(THREE[:1])))
    assert not table.finished
    assert [(t.payer, t.payee, t.points) for t in table.settlement] == [("Bruno", "Anna", 4), ("Carla", "Anna", 1)]


def test_hands_after_the_end_are_listed_but_not_counted() -> None:
    from scorer.engine.records import parse_match
    from scorer.engine.standings import standings as judge
    hands = [{"dealer": d, "points": {"Anna": a, "Bruno": b, "Carla": 78 - a - b}}
             for d, a, b in (("Anna", 50, 14), ("Bruno", 10, 10), ("Carla", 10, 10))]
    match = parse_match({"players": ["Anna", "Bruno", "Carla"], "first_dealer": "Anna",
                         "end": {"target": 20}, "hands": hands})
    table = judge(match)
    assert table.finished and table.leaders == ["Anna"]
    assert [line.counted for line in table.lines] == [True, False, False]
    assert [str(t) for t in table.totals] == ["24", "-12", "-12"]
    data = table.to_dict()
    assert [h.get("counted", True) for h in data["hands"]] == [True, False, False]
    assert data["players"][0] == {"name": "Anna", "total": 24}
    # RECORD.md: the next dealer also once the match is finished (a table may play on)
    assert data["finished"] is True and data["next_dealer"] == "Anna"
    ended_early = judge(parse_match({"players": ["Anna", "Bruno", "Carla"], "first_dealer": "Anna",
                                     "end": {"target": 20}, "hands": hands[:2]}))
    assert ended_early.finished and ended_early.next_dealer == "Carla"
