"""What a phone with no signal needs to count hands of counted points as the engine will.

Hands recorded offline wait on the phone until the server takes them. Meanwhile the match
page counts the ones entered as counted points (static/tally.js) with numbers that come
from here, never typed twice: the pack's total and the share each player is measured
against (:attr:`Ruleset.base`), the ultimo bonus as :func:`ultimo_bonus` pays it, how the
match ends (:func:`end_hands`) and how it is settled. What the phone does with them is the
arithmetic of :func:`count` for a points record, of :func:`after_hand`, :func:`next_dealer`
and :func:`settle`; the browser tests run every shared fixture and many matches through
both and fail on any difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from .numbers import fraction_json
from .records import MatchRecord
from .scoring import ultimo_bonus
from .standings import end_hands


def tally_rules(match: MatchRecord) -> dict[str, Any]:
    """The match's numbers for the phone's count: pack, base, bonus, end, settlement (exact)."""
    rules = match.ruleset
    players = match.players
    bonus = ultimo_bonus(players, players[0])  # the winner's bonus, then what each other pays
    target = match.end.get("target") if match.end else None
    return {
        "players": list(players),
        "deck": fraction_json(rules.deck_total),
        "base": fraction_json(rules.base),
        "ultimo": rules.ultimo,
        "bonus": [fraction_json(bonus[0]), fraction_json(bonus[1])],
        "hands": end_hands(match),
        "target": target,
        "settle": match.settle,
        "stake": str(match.stake.per_point) if match.stake else None,
        "currency": match.stake.currency if match.stake else None,
    }


def tally_state(totals: Sequence[Fraction], count: int, next_dealer: str, finished: bool) -> dict[str, Any]:
    """Where the stored hands leave the match: the phone adds its waiting hands after them."""
    return {"totals": [fraction_json(t) for t in totals], "count": count, "next": next_dealer,
            "finished": finished}
