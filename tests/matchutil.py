"""Plausible matches for tests and benchmarks: points hands that rotate the deal."""

from __future__ import annotations

import random
from typing import Any

from scorer.engine.limits import MAX_END_HANDS, MAX_END_TARGET


def points_match(hands: int, *, seed: int = 1, title: str = "Club night", stake: str | None = "0.10",
                 players: tuple[str, ...] = ("Anna", "Bruno", "Carla")) -> dict[str, Any]:
    """A ``scarto-match/1`` value with ``hands`` hands of counted points adding up to 78, ending after them
    (past the hands a match may be set to end after, at the highest target: it goes on through them all)."""
    rng = random.Random(seed)
    records = []
    for number in range(hands):
        a = rng.randint(8, 40)
        b = rng.randint(8, 70 - a)
        records.append({"dealer": players[number % 3], "points": dict(zip(players, (a, b, 78 - a - b), strict=True))})
    data: dict[str, Any] = {
        "format": "scarto-match/1", "title": title, "place": "Circolo Arci, Pinerolo", "date": "2026-11-30",
        "ruleset": "classic", "players": list(players), "first_dealer": players[0],
        "end": {"hands": max(3, hands)} if hands <= MAX_END_HANDS else {"target": MAX_END_TARGET},
        "settle": "per_point", "hands": records,
    }
    if stake is not None:
        data["stake"] = {"per_point": stake, "currency": "EUR"}
    return data
