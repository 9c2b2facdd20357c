"""Counting a hand: piles in groups of three, the Fool's exchange, card points, scores.

Every figure is exact (``Fraction``): a pile of n cards is worth the sum of its
values less 2n/3, which is the count in threes whatever the grouping. The Fool's
exchange is settled in the count, as if its player had handed the winner of its
trick a 1-point card, so piles scored before or after a physical exchange agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .cards import BAGATTO_INDEX, CODES, FOOL_INDEX, VALUE, CardIndex
from .numbers import fraction_json
from .records import HandRecord
from .validation import Findings, PileShape, Problem, Replay, Validation, fool_kept, validate

ULTIMO_BONUS = 5


@dataclass(frozen=True)
class Exchange:
    """The Fool's exchange: who played it, who won its trick, how it was settled."""

    fool_player: str
    winner: str
    trick: int | None
    forfeit: bool
    """True when the Fool itself went to the winner (``fool_forfeit``): no 1-point card."""


@dataclass(frozen=True)
class PlayerCount:
    """One player's count: their pile (when known), the exchange, points and score."""

    name: str
    pile: tuple[CardIndex, ...] | None
    pile_size: int | None
    value_sum: int | None
    exchange: int
    """+1 received the Fool's 1-point card, -1 handed it over, 0 neither."""
    card_points: Fraction
    bonus: Fraction
    score: Fraction

    def groups(self) -> list[tuple[tuple[str, ...], Fraction]]:
        """The pile in groups of three with each group's worth (values less 2), for the breakdown.

        The Fool's exchange shows as one pip card taken out of the giver's pile and a
        ``+1`` card added to the receiver's, the way the table would hand it over.
        """
        if self.pile is None:
            return []
        # (label, value, cards): a card handed over that the pile lacks counts minus one card
        cards = [(CODES[c], VALUE[c], 1) for c in self.pile]
        if self.exchange > 0:
            cards.append(("+1", 1, 1))
        elif self.exchange < 0:
            pip = next((i for i, (_, value, _) in enumerate(cards) if value == 1), None)
            if pip is None:
                cards.append(("-1", -1, -1))
            else:
                del cards[pip]
        out = []
        for start in range(0, len(cards), 3):
            group = cards[start:start + 3]
            worth = sum(value for _, value, _ in group) - Fraction(2 * sum(n for _, _, n in group), 3)
            out.append((tuple(code for code, _, _ in group), worth))
        return out


@dataclass(frozen=True)
class HandResult(Findings):
    """A record judged: its problems and, when it can be scored, every player's count."""

    record: HandRecord
    problems: tuple[Problem, ...]
    counts: tuple[PlayerCount, ...] | None
    exchange: Exchange | None
    replay: Replay | None

    @property
    def scored(self) -> bool:
        return self.counts is not None

    @property
    def deck_total(self) -> Fraction:
        return self.record.ruleset.deck_total

    @property
    def base(self) -> Fraction:
        return self.record.ruleset.base

    def scores(self) -> dict[str, Fraction]:
        """Hand score per player (empty for a record with errors)."""
        return {c.name: c.score for c in self.counts or ()}

    def to_dict(self, file: str | None = None) -> dict[str, Any]:
        """The ``scarto-result/1`` object of RECORD.md."""
        out: dict[str, Any] = {"format": "scarto-result/1"}
        if file is not None:
            out["file"] = file
        given = self.record.ruleset_given
        out["ruleset"] = given if given is not None else "classic"
        if self.counts is not None:
            out["deck_total"] = fraction_json(self.deck_total)
            out["players"] = [_player_dict(c, bool(self.record.ruleset.ultimo)) for c in self.counts]
        out["problems"] = [p.to_dict() for p in self.problems]
        return out


def _player_dict(count: PlayerCount, with_bonus: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": count.name, "card_points": fraction_json(count.card_points)}
    if with_bonus:
        out["bonus"] = fraction_json(count.bonus)
    out["score"] = fraction_json(count.score)
    return out


def score_hand(record: HandRecord) -> HandResult:
    """Check and count a hand; with errors, the problems only."""
    checked = validate(record)
    if checked.has_errors:
        return HandResult(record, checked.problems, None, None, None)
    return count(record, checked)


def count(record: HandRecord, checked: Validation) -> HandResult:
    """Count a record that has no errors (``checked`` is its validation)."""
    if record.tricks is not None:
        assert checked.replay is not None
        piles, exchange, ultimo = piles_from_replay(record, checked.replay)
        counts = _count_piles(record, piles, exchange, ultimo)
    elif record.captured is not None:
        assert checked.shape is not None
        piles = [list(record.captured[p]) for p in record.players]
        exchange = _apply_shape(record, checked.shape, piles)
        counts = _count_piles(record, piles, exchange, record.ultimo)
    elif record.honours is not None and record.sizes is not None:
        assert checked.shape is not None
        counts, exchange = _count_honours(record, checked.shape)
    else:
        counts, exchange = _count_points(record), None
    return HandResult(record, checked.problems, counts, exchange, checked.replay)


def piles_from_replay(record: HandRecord, replay: Replay) -> tuple[list[list[CardIndex]], Exchange | None, str | None]:
    """Each seat's pile as the tricks leave it (the Fool as the rules settle it), the exchange, the
    ``ultimo`` winner."""
    rules = record.ruleset
    players = record.players
    dealer = players.index(record.dealer)
    piles: list[list[CardIndex]] = [[] for _ in players]
    piles[dealer].extend(replay.discard)
    fool_trick = None
    for trick in replay.tricks:
        pile = piles[trick.winner]
        if trick.fool_seat is None or not fool_kept(trick.number, rules):
            pile.extend(trick.cards)
            continue
        pile.extend(c for c in trick.cards if c != FOOL_INDEX)
        piles[trick.fool_seat].append(FOOL_INDEX)
        fool_trick = trick
    exchange = None
    # a Fool's trick awarded to the Fool's own player (an audit's "what if") owes no exchange
    if fool_trick is not None and fool_trick.fool_seat is not None and fool_trick.fool_seat != fool_trick.winner:
        fool_seat, winner = fool_trick.fool_seat, fool_trick.winner
        # saari: a player who wins no trick forfeits the Fool; the dealer's discards are no trick
        forfeit = rules.fool_forfeit and all(t.winner != fool_seat for t in replay.tricks)
        if forfeit:
            piles[fool_seat].remove(FOOL_INDEX)
            piles[winner].append(FOOL_INDEX)
        exchange = Exchange(players[fool_seat], players[winner], fool_trick.number, forfeit)
    ultimo = None
    if rules.ultimo and replay.tricks:
        last_trick = replay.tricks[-1]
        if BAGATTO_INDEX in last_trick.cards or (
                rules.ultimo == "bagatto_or_fool" and FOOL_INDEX in piles[last_trick.winner]
                and FOOL_INDEX in last_trick.cards):
            ultimo = players[last_trick.winner]
    return piles, exchange, ultimo


def _apply_shape(record: HandRecord, shape: PileShape, piles: list[list[CardIndex]]) -> Exchange | None:
    if shape.owed_to is None or shape.fool_seat is None:
        return None
    players = record.players
    if shape.forfeit:
        piles[shape.fool_seat].remove(FOOL_INDEX)
        piles[shape.owed_to].append(FOOL_INDEX)
    return Exchange(players[shape.fool_seat], players[shape.owed_to], None, shape.forfeit)


def _count_piles(record: HandRecord, piles: list[list[CardIndex]], exchange: Exchange | None,
                 ultimo: str | None) -> tuple[PlayerCount, ...]:
    value = VALUE.__getitem__
    sums = [sum(map(value, pile)) for pile in piles]
    sizes = [len(pile) for pile in piles]
    return _counts(record, [tuple(p) for p in piles], sizes, sums, exchange, ultimo)


def _counts(record: HandRecord, piles: list[tuple[CardIndex, ...]] | None, sizes: list[int], sums: list[int],
            exchange: Exchange | None, ultimo: str | None) -> tuple[PlayerCount, ...]:
    players = record.players
    shift = [0] * len(players)
    if exchange is not None and not exchange.forfeit:
        shift[players.index(exchange.fool_player)] = -1
        shift[players.index(exchange.winner)] = 1
    # card points in thirds: the values less 2/3 per card, the exchange card moved
    thirds = [3 * (s + d) - 2 * (n + d) for s, n, d in zip(sums, sizes, shift, strict=True)]
    return _with_scores(record, [Fraction(t, 3) for t in thirds], ultimo, piles, sizes, sums, shift, thirds)


def _with_scores(record: HandRecord, points: list[Fraction], ultimo: str | None,
                 piles: list[tuple[CardIndex, ...]] | None = None, sizes: list[int] | None = None,
                 sums: list[int] | None = None, shift: list[int] | None = None,
                 thirds: list[int] | None = None) -> tuple[PlayerCount, ...]:
    rules = record.ruleset
    players = record.players
    n = len(players)
    bonus = ultimo_bonus(players, ultimo if rules.ultimo else None)
    if thirds is not None:  # one exact division instead of Fraction arithmetic per player
        deck = rules.deck_total * 3
        assert deck.denominator == 1
        scores = [Fraction(t * n - deck.numerator, 3 * n) for t in thirds]
    else:
        scores = [p - rules.base for p in points]
    return tuple(
        PlayerCount(
            name=name,
            pile=piles[i] if piles is not None else None,
            pile_size=sizes[i] if sizes is not None else None,
            value_sum=sums[i] if sums is not None else None,
            exchange=shift[i] if shift is not None else 0,
            card_points=points[i],
            bonus=bonus[i],
            score=scores[i] + bonus[i] if bonus[i] else scores[i],
        )
        for i, name in enumerate(players)
    )


def ultimo_bonus(players: tuple[str, ...], ultimo: str | None) -> list[Fraction]:
    """The ``ultimo`` house rule: 5 to the last trick's winner, paid equally by the others."""
    zero = Fraction(0)
    if ultimo is None:
        return [zero] * len(players)
    share = Fraction(ULTIMO_BONUS, len(players) - 1)
    return [Fraction(ULTIMO_BONUS) if p == ultimo else -share for p in players]


def _count_honours(record: HandRecord, shape: PileShape) -> tuple[tuple[PlayerCount, ...], Exchange | None]:
    honours = record.honours or {}
    sizes_map = record.sizes or {}
    players = record.players
    sizes = [sizes_map[p] for p in players]
    sums = [sum(VALUE[c] for c in honours[p]) + sizes[i] - len(honours[p]) for i, p in enumerate(players)]
    exchange = None
    if shape.owed_to is not None and shape.fool_seat is not None:
        exchange = Exchange(players[shape.fool_seat], players[shape.owed_to], None, shape.forfeit)
        if shape.forfeit:  # the Fool itself moves: 5 points and one card
            sums[shape.fool_seat] -= VALUE[FOOL_INDEX]
            sizes[shape.fool_seat] -= 1
            sums[shape.owed_to] += VALUE[FOOL_INDEX]
            sizes[shape.owed_to] += 1
    return _counts(record, None, sizes, sums, exchange, record.ultimo), exchange


def _count_points(record: HandRecord) -> tuple[PlayerCount, ...]:
    points = record.points or {}
    return _with_scores(record, [points[p] for p in record.players], record.ultimo)
