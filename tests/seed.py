"""A plausible match to test and measure with: real fixture hands, dealers in turn.

The classic fixtures that can be scored (every record form, some with rule
breaches) are dealt round the table: to make a hand's dealer the player whose
turn it is, its names are rotated in seating order, which keeps the record
legal (the same cards, played by the same seats).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Flask

from scorer.engine.records import parse_match
from scorer.storage import store

HANDS = Path(__file__).parent / "fixtures" / "hands"
PLAYERS = ["Anna", "Bruno", "Carla"]
CLASSIC_HANDS = [
    "classic-valid-1", "classic-points", "classic-captured", "classic-honours", "classic-valid-2",
    "classic-breach", "classic-fool-led", "classic-captured-exchanged", "classic-failed-to-trump",
    "classic-fool-last-trick", "classic-illegal-discard", "classic-valid-aliases",
]
"""Fixtures that score (no errors): full records, captured piles, honours, points."""


INCIDENTAL_REVIEW_POSITIONS = 20_000
"""Where the tests' apps stop a review that a page asks for incidentally (the app's limit is 30 million
positions, some two minutes): the suite's CPU is not spent on full reviews nobody reads. The tests of the
review itself weigh a few tricks, well within it."""


def _rename(value: Any, names: dict[str, str]) -> Any:
    """Every player's name in a record replaced, in values and in keys."""
    if isinstance(value, dict):
        return {names.get(k, k): _rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    if isinstance(value, str):
        return names.get(value, value)
    return value


def dealt_by(name: str, dealer: str) -> dict[str, Any]:
    """A fixture hand as an in-match record whose dealer is ``dealer``."""
    data = json.loads((HANDS / f"{name}.json").read_text())
    shift = PLAYERS.index(dealer) - PLAYERS.index(data["dealer"])
    names = {p: PLAYERS[(i + shift) % len(PLAYERS)] for i, p in enumerate(PLAYERS)}
    record = {k: v for k, v in data.items() if k not in ("format", "ruleset", "players")}
    return _rename(record, names)


def match_file(hands: int = 20, *, title: str = "Thursday at the circolo") -> dict[str, Any]:
    """A ``scarto-match/1`` value with ``hands`` hands, the deal passing to the right."""
    return {
        "format": "scarto-match/1",
        "title": title,
        "place": "Circolo Arci, Pinerolo",
        "date": "2026-11-30",
        "ruleset": "classic",
        "players": list(PLAYERS),
        "first_dealer": "Anna",
        "end": {"hands": max(hands, 3)},
        "settle": "per_point",
        "stake": {"per_point": "0.10", "currency": "EUR"},
        "hands": [dealt_by(CLASSIC_HANDS[i % len(CLASSIC_HANDS)], PLAYERS[i % len(PLAYERS)])
                  for i in range(hands)],
    }


def seed_match(app: Flask, hands: int = 20) -> tuple[str, str]:
    """Store a match with ``hands`` hands; returns its (edit, view) tokens."""
    from scorer.web import get_db

    with app.app_context():
        row = store.create_match(get_db(), parse_match(match_file(hands)))
    return row.edit_token, row.view_token


def hand_keys(app: Flask, token: str) -> list[str]:
    """The keys of the match's live hands, in playing order."""
    from scorer.web import get_db

    with app.app_context():
        row, _ = store.find_match(get_db(), token)
        return [h.key for h in store.list_hands(get_db(), row.id)]
