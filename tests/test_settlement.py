"""Who pays whom (RULES.md, "Matches and settlement")."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from scorer.engine.settlement import Transfer, money, settle

F = Fraction


def _rows(transfers: list[Transfer]) -> list[tuple[str, str, object, object]]:
    return [(t.payer, t.payee, t.points if t.points is not None else t.stakes, t.amount) for t in transfers]


def test_per_point_with_three_players() -> None:
    totals = [("Anna", F(12)), ("Bruno", F(-5)), ("Carla", F(-7))]
    assert _rows(settle(totals)) == [("Carla", "Anna", F(7), None), ("Bruno", "Anna", F(5), None)]
    totals = [("Anna", F(-12)), ("Bruno", F(5)), ("Carla", F(7))]
    assert _rows(settle(totals, "per_point", Decimal("0.10"))) == [
        ("Anna", "Carla", F(7), Decimal("0.70")), ("Anna", "Bruno", F(5), Decimal("0.50"))]


def test_per_point_largest_debt_to_largest_credit_first() -> None:
    totals = [("Anna", F(10)), ("Bruno", F(-3)), ("Carla", F(2)), ("Dario", F(-9))]
    # Dario's 9 to Anna (10), leaving Anna 1 and Carla 2 to collect from Bruno: Carla first
    assert _rows(settle(totals)) == [("Dario", "Anna", F(9), None), ("Bruno", "Carla", F(2), None),
                                     ("Bruno", "Anna", F(1), None)]


def test_per_point_ties_in_seating_order() -> None:
    totals = [("Anna", F(-4)), ("Bruno", F(4)), ("Carla", F(-4)), ("Dario", F(4))]
    assert _rows(settle(totals)) == [("Anna", "Bruno", F(4), None), ("Carla", "Dario", F(4), None)]
    totals = [("Anna", F(-6)), ("Bruno", F(3)), ("Carla", F(3))]
    assert _rows(settle(totals)) == [("Anna", "Bruno", F(3), None), ("Anna", "Carla", F(3), None)]


def test_per_point_settles_everything_in_at_most_n_minus_1_transfers() -> None:
    totals = [("A", F(-17, 3)), ("B", F(13, 6)), ("C", F(7, 2)), ("D", F(0))]
    transfers = settle(totals)
    assert len(transfers) <= 3
    net = {name: total for name, total in totals}
    for t in transfers:
        assert t.points is not None and t.points > 0
        net[t.payer] += t.points
        net[t.payee] -= t.points
    assert set(net.values()) == {0}


def test_nobody_pays_when_all_are_level() -> None:
    assert settle([("Anna", F(0)), ("Bruno", F(0)), ("Carla", F(0))]) == []
    assert settle([("Anna", F(0)), ("Bruno", F(0)), ("Carla", F(0))], "loser_pays", Decimal("1")) == []


@pytest.mark.parametrize(("points", "stake", "amount"), [
    (F(1, 2), "0.05", "0.03"),  # 0.025: half up, not to even
    (F(5, 2), "0.01", "0.03"),  # 0.025
    (F(3, 2), "0.01", "0.02"),  # 0.015
    (F(1, 3), "0.10", "0.03"),
    (F(2, 3), "0.10", "0.07"),
    (F(7), "0.10", "0.70"),
    (F(125, 100), "0.1", "0.13"),  # 0.125
    (F(1, 8), "1", "0.13"),
    (F(19, 2), "0.25", "2.38"),  # 2.375
    (F(0), "0.10", "0.00"),
])
def test_money_is_rounded_half_up_to_the_cent(points: Fraction, stake: str, amount: str) -> None:
    assert money(points, Decimal(stake)) == Decimal(amount)
    assert str(money(points, Decimal(stake))) == amount


def test_amounts_are_rounded_per_row() -> None:
    totals = [("Anna", F(-5, 2)), ("Bruno", F(5, 4)), ("Carla", F(5, 4))]
    transfers = settle(totals, "per_point", Decimal("0.10"))
    assert [(t.payee, t.points, t.amount) for t in transfers] == [
        ("Bruno", F(5, 4), Decimal("0.13")), ("Carla", F(5, 4), Decimal("0.13"))]  # 0.125 each, not 0.25 split


def test_loser_pays() -> None:
    totals = [("Anna", F(10)), ("Bruno", F(-12)), ("Carla", F(2))]
    assert _rows(settle(totals, "loser_pays")) == [("Bruno", "Anna", 1, None), ("Bruno", "Carla", 1, None)]
    assert _rows(settle(totals, "loser_pays", Decimal("1.5"))) == [("Bruno", "Anna", 1, Decimal("1.50")),
                                                                    ("Bruno", "Carla", 1, Decimal("1.50"))]


def test_loser_pays_with_ties() -> None:
    tied_lowest = [("Anna", F(8)), ("Bruno", F(-4)), ("Carla", F(-4))]
    assert _rows(settle(tied_lowest, "loser_pays")) == [("Bruno", "Anna", 1, None), ("Carla", "Anna", 1, None)]
    four = [("Anna", F(-5)), ("Bruno", F(3)), ("Carla", F(-5)), ("Dario", F(7))]
    assert _rows(settle(four, "loser_pays")) == [("Anna", "Bruno", 1, None), ("Anna", "Dario", 1, None),
                                                 ("Carla", "Bruno", 1, None), ("Carla", "Dario", 1, None)]
    tied_highest = [("Anna", F(4)), ("Bruno", F(-8)), ("Carla", F(4))]
    assert _rows(settle(tied_highest, "loser_pays")) == [("Bruno", "Anna", 1, None), ("Bruno", "Carla", 1, None)]


def test_transfer_to_dict() -> None:
    assert Transfer("Bruno", "Anna", points=F(17, 2), amount=Decimal("0.85")).to_dict() == {
        "from": "Bruno", "to": "Anna", "points": "17/2", "amount": "0.85"}
    assert Transfer("Bruno", "Anna", points=F(7)).to_dict() == {"from": "Bruno", "to": "Anna", "points": 7}
    assert Transfer("Bruno", "Anna", stakes=1).to_dict() == {"from": "Bruno", "to": "Anna", "stakes": 1}
