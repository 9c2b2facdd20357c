"""A hand being played, trick by trick: whose turn it is, who leads, which cards remain.

What the live page shows while the table plays (``static/live.js`` asks after each
card): the problems provable so far, each trick's winner, whose turn it is, the
cards not yet played and, once every trick is in, the scores. The rules come from
:mod:`.validation` (the replay, the first and next leader) and :mod:`.scoring`;
this module only reads the state off them. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import HandRecord
from .scoring import HandResult, score_hand
from .validation import ERROR, Problem, Replay, next_leader, validate


@dataclass(frozen=True)
class PlayState:
    """A hand's state after the cards entered so far (seats are indices into ``record.players``)."""

    record: HandRecord
    problems: tuple[Problem, ...]
    replay: Replay | None
    """The tricks as played (leader, seats, winner); None when the cards cannot be replayed."""
    complete: bool
    """Every trick entered, each with a card from every player."""
    turn: int | None
    """The seat to play the next card (None when complete or not replayable)."""
    leader: int | None
    """The seat that leads (or led) the trick being played."""
    remaining: tuple[int, ...]
    """The cards of the pack not played yet, in pack order."""
    result: HandResult | None
    """The scored hand, once complete."""

    @property
    def errors(self) -> bool:
        """Whether a problem makes the hand unscorable (it cannot be saved as it is)."""
        return any(p.severity == ERROR for p in self.problems)

    @property
    def can_save(self) -> bool:
        return self.complete and not self.errors

    def winner(self, number: int) -> int | None:
        """The seat that won trick ``number`` (from 1), None while it is being played."""
        if self.replay is None or not 1 <= number <= len(self.replay.tricks):
            return None
        trick = self.replay.tricks[number - 1]
        return trick.winner if len(trick.cards) == len(self.record.players) else None


def play_state(record: HandRecord) -> PlayState:
    """Judge a hand still being played (or just finished): see :class:`PlayState`."""
    rules = record.ruleset
    n = len(record.players)
    tricks = record.tricks or ()
    complete = len(tricks) == rules.tricks and all(len(t.cards) == n for t in tricks)
    result: HandResult | None = None
    if complete:
        result = score_hand(record)
        problems, replay = result.problems, result.replay
    else:
        checked = validate(record, partial=True)
        problems, replay = checked.problems, checked.replay
    played = {c for t in tricks for c in t.cards}
    remaining = tuple(c for c in rules.pack_order if c not in played)
    turn = leader = None
    if replay is not None and not complete:
        last = replay.tricks[-1] if replay.tricks else None
        if last is not None and len(last.cards) < n:
            leader, turn = last.leader, (last.leader + len(last.cards)) % n
        else:
            leader = turn = next_leader(record, replay)
    return PlayState(record, tuple(problems), replay, complete, turn, leader, remaining, result)
