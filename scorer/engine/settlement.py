"""Who pays whom at the end of a match (RULES.md, "Matches and settlement")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from .numbers import fraction_json

CENT = Decimal("0.01")


@dataclass(frozen=True)
class Transfer:
    """One payment: points (``per_point``) or whole stakes (``loser_pays``), and money if staked."""

    payer: str
    payee: str
    points: Fraction | None = None
    stakes: int | None = None
    amount: Decimal | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"from": self.payer, "to": self.payee}
        if self.points is not None:
            out["points"] = fraction_json(self.points)
        if self.stakes is not None:
            out["stakes"] = self.stakes
        if self.amount is not None:
            out["amount"] = str(self.amount)
        return out


def money(points: Fraction, stake: Decimal) -> Decimal:
    """Points times the stake, rounded half up to the cent, exactly (no float on the way)."""
    exact = points * Fraction(stake)
    cents = abs(exact * 100)
    whole, rest = divmod(cents.numerator, cents.denominator)
    if 2 * rest >= cents.denominator:
        whole += 1
    amount = Decimal(whole).scaleb(-2)
    return -amount if exact < 0 else amount


def settle(
    totals: Sequence[tuple[str, Fraction]], method: str = "per_point", stake: Decimal | None = None
) -> list[Transfer]:
    """Transfers that settle the totals (given in seating order), in the order paid."""
    if method == "loser_pays":
        return loser_pays(totals, stake)
    return per_point(totals, stake)


def per_point(totals: Sequence[tuple[str, Fraction]], stake: Decimal | None = None) -> list[Transfer]:
    """Largest debt paid to largest credit first, ties in seating order, until all are settled.

    Each step clears at least one player, so there are at most n - 1 transfers.
    """
    debts = [(name, -total) for name, total in totals if total < 0]
    credits = [(name, total) for name, total in totals if total > 0]
    transfers = []
    while debts and credits:
        d = max(range(len(debts)), key=lambda i: debts[i][1])  # max() keeps the first of equals
        c = max(range(len(credits)), key=lambda i: credits[i][1])
        (debtor, owed), (creditor, due) = debts[d], credits[c]
        paid = Fraction(min(owed, due))
        transfers.append(Transfer(
            debtor, creditor, points=paid, amount=None if stake is None else money(paid, stake),
        ))
        debts[d] = (debtor, owed - paid)
        credits[c] = (creditor, due - paid)
        debts = [x for x in debts if x[1] > 0]
        credits = [x for x in credits if x[1] > 0]
    return transfers


def loser_pays(totals: Sequence[tuple[str, Fraction]], stake: Decimal | None = None) -> list[Transfer]:
    """The lowest pays each other player one stake; tied lowest each pay everyone above them."""
    if not totals:
        return []
    lowest = min(total for _, total in totals)
    losers = [name for name, total in totals if total == lowest]
    above = [name for name, total in totals if total > lowest]
    amount = None if stake is None else stake.quantize(CENT, rounding=ROUND_HALF_UP)
    return [Transfer(loser, winner, stakes=1, amount=amount) for loser in losers for winner in above]
