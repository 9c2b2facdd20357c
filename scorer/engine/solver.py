"""Perfect information: what a player is sure to score from a moment of a fully recorded hand.

A full trick record holds the whole deal, so after the hand every card is known. From a
:class:`Position` (the cards each player still holds, the trick on the table, what the piles
hold so far, the ruleset) :class:`Solver` finds a player's **guaranteed value**: the hand score
as :mod:`.scoring` reports it (the count in threes, the Fool's exchange, Ultimo, the base)
that the player reaches whatever the others do, when every other player plays to lower it
(the paranoid reading: the others act as one side; docs/REVIEW.md says why).

The search is exact: alpha-beta with a transposition table at the start of each trick, move
ordering, and equivalent cards searched once (cards of one suit and one value in the same
hand, with no card of another hand or of the trick between them: whichever is played, every
comparison and every count comes out the same).

The rules are the engine's, applied fast: the search runs tens of thousands of plays a
second, so cards are bits of an integer in an order where every suit's cards are adjacent
and rise in strength (``Ruleset.strength``), and a legal play, a trick's winner and its
worth are a few bit operations. The tests check each against the engine's own functions
(:func:`.simulation.legal_cards`, the replay of :mod:`.validation`, :func:`.scoring.score_hand`)
on simulated hands of every preset and deal. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache

from .cards import BAGATTO_INDEX, FOOL_INDEX, FOOL_SUIT, INDICES, PLAIN_SUITS, SUIT, TRUMP, VALUE, CardIndex, Seat
from .errors import ScartoError
from .records import HandRecord
from .rulesets import Ruleset
from .scoring import ULTIMO_BONUS
from .validation import Replay, fool_kept

SEARCH_SUITS = (TRUMP, *PLAIN_SUITS, FOOL_SUIT)
"""The search's order of the suits; within each, the cards rise in strength."""
FOOL_KEPT = 3 * VALUE[FOOL_INDEX] - 2 - 1
"""What the Fool's player counts for a Fool they keep, in thirds: the Fool's 13 less the
1-point card handed over (RULES.md, "What happens to the Fool")."""
FOOL_FORFEIT = FOOL_KEPT
"""What a forfeited Fool moves from its player to the winner of its trick, in thirds: the
Fool (13) instead of the exchange card (1)."""


class SearchTooLarge(ScartoError):
    """The search went past the work it was given (``node_limit``): bounded work per request."""

    code = "search_too_large"


@dataclass(frozen=True)
class _Order:
    """The search's card order for one ruleset: cards as bit positions."""

    card: tuple[CardIndex, ...]
    """The card at each bit position."""
    bit: tuple[int, ...]
    """The bit position of each card index."""
    suit: tuple[int, ...]
    """The suit of each bit position."""
    thirds: tuple[int, ...]
    """A card's worth in a pile, in thirds of a point (3 x value - 2), per bit position."""
    suit_mask: tuple[int, ...]
    """Every bit of each suit (indexed by suit number)."""
    fool: int
    """The Fool's bit (a mask)."""
    bagatto: int
    """The Bagatto's bit (a mask)."""


@cache
def _order(strength: tuple[int, ...]) -> _Order:
    cards = sorted(INDICES, key=lambda c: (SEARCH_SUITS.index(SUIT[c]), strength[c]))
    bit = [0] * len(INDICES)
    for position, card in enumerate(cards):
        bit[card] = position
    masks = [0] * (max(SEARCH_SUITS) + 1)
    for position, card in enumerate(cards):
        masks[SUIT[card]] |= 1 << position
    return _Order(
        card=tuple(cards), bit=tuple(bit), suit=tuple(SUIT[c] for c in cards),
        thirds=tuple(3 * VALUE[c] - 2 for c in cards), suit_mask=tuple(masks),
        fool=1 << bit[FOOL_INDEX], bagatto=1 << bit[BAGATTO_INDEX],
    )


def _bits(mask: int) -> list[int]:
    """The bit positions of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _legal(order: _Order, overtrump: bool, hand: int, trick: tuple[int, ...] | list[int]) -> int:
    """The cards of ``hand`` (a mask) that may be played to ``trick`` (bit positions): RULES.md, Play."""
    led = next((order.suit[b] for b in trick if order.suit[b] != FOOL_SUIT), None)
    if led is None:  # leading, or only the Fool led: the next card sets the suit
        return hand
    fool = hand & order.fool
    follow = hand & order.suit_mask[led]
    if follow and led != TRUMP:
        return follow | fool
    trumps = hand & order.suit_mask[TRUMP]
    if not trumps:
        return hand
    if overtrump:
        top = max((b for b in trick if order.suit[b] == TRUMP), default=-1)
        higher = trumps >> (top + 1) << (top + 1)
        if top >= 0 and higher:
            trumps = higher
    return trumps | fool


@dataclass(frozen=True)
class _Trick:
    """A finished trick: who won it and what each seat's pile gained, in thirds."""

    winner: int
    gains: tuple[int, ...]
    fool_seat: int
    """Who kept the Fool played to this trick (-1: none, or it went to the winner)."""
    total: int
    """What the trick's cards are worth together, in thirds (the sum of ``gains``)."""
    cards: int
    """The trick's cards, as a mask."""


def _close(order: _Order, rules: Ruleset, trick: tuple[int, ...], leader: int, last: bool) -> _Trick:
    """The winner and worth of a full trick: the highest trump, else the highest card of the
    suit led; a kept Fool to its player with the exchange card to the winner."""
    n = len(trick)
    suit = order.suit
    trumps = [b for b in trick if suit[b] == TRUMP]
    if trumps:
        top = max(trumps)
    else:
        led = next(suit[b] for b in trick if suit[b] != FOOL_SUIT)
        top = max(b for b in trick if suit[b] == led)
    winner = (leader + trick.index(top)) % n
    gains = [0] * n
    fool_seat = -1
    for k, b in enumerate(trick):
        if order.fool >> b & 1 and not _fool_captured(rules, last):
            fool_seat = (leader + k) % n
            gains[fool_seat] += FOOL_KEPT
            gains[winner] += 1
        else:
            gains[winner] += order.thirds[b]
    return _Trick(winner, tuple(gains), fool_seat, sum(gains), sum(1 << b for b in trick))


def _fool_captured(rules: Ruleset, last: bool) -> bool:
    """Whether a Fool played to this trick goes to its winner like any card (the last trick under
    ``fool_last_trick: captured``): :func:`.validation.fool_kept`, asked of the last trick or another."""
    return not fool_kept(rules.tricks if last else 1, rules)


@dataclass(frozen=True)
class _End:
    """What the end of the hand adds: a forfeited Fool moving, the Ultimo bonus."""

    thirds: tuple[int, ...]
    ultimo: int
    """The seat that wins the last-trick bonus (-1: nobody)."""


def _end(order: _Order, rules: Ruleset, n: int, trick: tuple[int, ...], closed: _Trick, won: int,
         fool_seat: int, fool_winner: int) -> _End:
    """RULES.md: a Fool's player who won no trick forfeits it (``fool_forfeit``); the winner of
    the last trick gains the bonus when it holds the Bagatto (or takes the Fool)."""
    thirds = [0] * n
    forfeit = rules.fool_forfeit and fool_seat >= 0 and not won >> fool_seat & 1
    if forfeit:
        thirds[fool_seat] -= FOOL_FORFEIT
        thirds[fool_winner] += FOOL_FORFEIT
    ultimo = -1
    if rules.ultimo:
        cards = sum(1 << b for b in trick)
        if cards & order.bagatto:
            ultimo = closed.winner
        elif rules.ultimo == "bagatto_or_fool" and cards & order.fool and (
                closed.fool_seat < 0 or (forfeit and fool_winner == closed.winner)):
            ultimo = closed.winner
    return _End(tuple(thirds), ultimo)


@dataclass(frozen=True)
class Position:
    """A moment of a hand: who holds what, the trick on the table, what the piles hold so far.

    Cards are bits in the search's order (:func:`Position.held` names them); seats are
    indices into the record's players. Made by :func:`start` and :meth:`play`.
    """

    rules: Ruleset
    hands: tuple[int, ...]
    trick: tuple[int, ...]
    """The bit positions played to the trick in progress, from its leader."""
    leader: Seat
    number: int
    """The trick being played, from 1 (``rules.tricks + 1`` once the hand is over)."""
    thirds: tuple[int, ...]
    """Each seat's pile so far in thirds of a point: values x 3 less 2 a card, the Fool's exchange settled."""
    won: int
    """The seats that have won a trick, as a mask (a Fool's player who won none forfeits it)."""
    fool_seat: int = -1
    """Who kept the Fool played to a trick so far (-1: not yet, or captured)."""
    fool_winner: int = -1
    """Who won the Fool's trick."""
    ultimo: int = -1
    """Once the hand is over, the seat that won the last-trick bonus (-1: nobody)."""

    @property
    def order(self) -> _Order:
        return _order(self.rules.strength)

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def done(self) -> bool:
        return self.number > self.rules.tricks

    @property
    def mover(self) -> Seat:
        """The seat to play the next card."""
        return Seat((self.leader + len(self.trick)) % self.players)

    def held(self, seat: int) -> tuple[CardIndex, ...]:
        """The cards a seat still holds, in pack order."""
        return tuple(sorted(self.order.card[b] for b in _bits(self.hands[seat])))

    def legal(self) -> tuple[CardIndex, ...]:
        """The cards the mover may play, in pack order."""
        if self.done:
            return ()
        mask = _legal(self.order, self.rules.overtrump, self.hands[self.mover], self.trick)
        return tuple(sorted(self.order.card[b] for b in _bits(mask)))

    def play(self, card: CardIndex) -> Position:
        """The position after the mover plays ``card`` (one they hold; legal or not, as recorded)."""
        order, seat = self.order, self.mover
        bit = order.bit[card]
        if not self.hands[seat] >> bit & 1:
            raise ValueError(f"seat {seat} does not hold card {card}")
        hands = list(self.hands)
        hands[seat] ^= 1 << bit
        trick = (*self.trick, bit)
        if len(trick) < self.players:
            return replace(self, hands=tuple(hands), trick=trick)
        last = self.number == self.rules.tricks
        closed = _close(order, self.rules, trick, self.leader, last)
        thirds = [t + g for t, g in zip(self.thirds, closed.gains, strict=True)]
        won = self.won | 1 << closed.winner
        fool_seat, fool_winner = self.fool_seat, self.fool_winner
        if closed.fool_seat >= 0:
            fool_seat, fool_winner = closed.fool_seat, closed.winner
        ultimo = -1
        if last:
            end = _end(order, self.rules, self.players, trick, closed, won, fool_seat, fool_winner)
            thirds = [t + e for t, e in zip(thirds, end.thirds, strict=True)]
            ultimo = end.ultimo
        return Position(self.rules, tuple(hands), (), Seat(closed.winner), self.number + 1, tuple(thirds), won,
                        fool_seat, fool_winner, ultimo)

    def score(self, seat: int) -> Fraction:
        """A seat's hand score once the hand is over, as :mod:`.scoring` reports it."""
        if not self.done:
            raise ValueError("the hand is not over")
        return _score(self.rules, self.players, _units(self, seat))


def _units(position: Position, seat: int) -> int:
    """A seat's points so far in the search's whole units: thirds x (players - 1), so that the
    Ultimo bonus (5 to the winner, 5 shared by the others) is whole too."""
    w = position.players - 1
    units = w * position.thirds[seat]
    if position.ultimo >= 0:
        units += 3 * ULTIMO_BONUS * (w if seat == position.ultimo else -1)
    return units


def _score(rules: Ruleset, players: int, units: int) -> Fraction:
    """Units (thirds x (players - 1)) to a hand score: card points and bonus, less the base."""
    return Fraction(units, 3 * (players - 1)) - rules.base


def start(record: HandRecord, replay: Replay) -> Position:
    """The position before the first card: the hands as played (the dealer's after the discard),
    the discard in the dealer's pile. ``replay`` is the record's (:func:`.validation.validate`)."""
    rules = record.ruleset
    order = _order(rules.strength)
    n = len(record.players)
    hands = [0] * n
    for trick in replay.tricks:
        for card, seat in zip(trick.cards, trick.seats, strict=True):
            hands[seat] |= 1 << order.bit[card]
    thirds = [0] * n
    dealer = record.players.index(record.dealer)
    thirds[dealer] = sum(3 * VALUE[c] - 2 for c in replay.discard)
    leader = replay.tricks[0].leader if replay.tricks else Seat((dealer + 1) % n)
    return Position(rules, tuple(hands), (), leader, 1, tuple(thirds), 0)


def positions(record: HandRecord, replay: Replay) -> list[Position]:
    """Every position of a full record: before each card played, and the end."""
    out = [start(record, replay)]
    for trick in replay.tricks:
        for card in trick.cards:
            out.append(out[-1].play(card))
    return out


_INFINITY = 1 << 30


class Solver:
    """The guaranteed values of positions of one ruleset, with what it learnt kept for the next.

    One transposition table per player (a position's value is a player's), kept across
    calls: the positions of one hand share most of their subtrees. ``node_limit`` bounds the
    work of one solver (:class:`SearchTooLarge` past it).
    """

    def __init__(self, rules: Ruleset, *, node_limit: int | None = None) -> None:
        self.rules = rules
        self.order = _order(rules.strength)
        self.node_limit = node_limit
        self.nodes = 0
        """Positions searched so far, for the benchmark and the limit."""
        self._tables: dict[int, dict[tuple[int, ...], tuple[int, int, int]]] = {}
        self._history: dict[int, list[int]] = {}
        self._closed: dict[tuple[tuple[int, ...], int, bool], _Trick] = {}
        self._endings: dict[int, dict[tuple[int, ...], int]] = {}
        """Per player, the worth of each last trick (the hands, the leader and what decides the Fool)."""

    def value(self, position: Position, seat: int, near: Fraction | None = None) -> Fraction:
        """The hand score ``seat`` is sure to reach from ``position`` (every other player against them).

        ``near`` is a guess of it (the value of a position a card or a trick later, say): the
        narrow searches start there, and the closer it is the fewer they are. Any guess gives
        the same value."""
        units = _units(position, seat)
        return _score(self.rules, position.players, units + self._exact(position, seat, self._guess(near, units)))

    def _guess(self, near: Fraction | None, units: int) -> int | None:
        """A hand score guessed for a position, as the units still to come there (``units`` so far)."""
        if near is None:
            return None
        w = self.rules.players - 1
        return int((near + self.rules.base) * 3 * w) - units

    def _exact(self, position: Position, p: int, guess: int | None = None) -> int:
        """``_future`` exactly, by narrow searches converging on it (MTD(f)): each proves the value
        above or below a guess, and the table keeps what the last one learnt. Cheaper than one
        wide search when the guess is close: the value before a card, for the card played."""
        if guess is None:  # an equal share of what is left, as a start
            guess = (position.players - 1) * sum(self.order.thirds[b] for hand in position.hands
                                                   for b in _bits(hand)) // position.players
        low, high = self._limits(position, p)
        beta, step, rising, turned = min(max(guess, low + 1), high), 0, None, False
        while low < high:
            value = self._future(position, p, beta - 1, beta)
            up = value >= beta
            if up:
                low = value
            else:
                high = value
            if low >= high:
                return value
            if turned:  # both bounds known and near: halve the gap
                beta = (low + high + 1) // 2
            elif rising is None or up is rising:  # the same way again: the guess was far off, stride
                step = 2 * step + position.players if up is rising else 0
                beta = min(low + 1 + step, high) if up else max(high - step, low + 1)
            else:  # strode past it: the value is most likely next to the bound strode from
                turned = True
                beta = high if up else low + 1
            rising = up
        return low

    def _limits(self, position: Position, p: int) -> tuple[int, int]:
        """What ``p`` may still add from ``position``, at least and at most, from the cards alone
        (:meth:`_bounds_for`, with the cards on the table counted as still in play)."""
        n = position.players
        order = self.order
        cards = sum(1 << b for b in position.trick)
        left = sum(order.thirds[b] for hand in position.hands for b in _bits(hand)) + sum(
            order.thirds[b] for b in position.trick)
        hands = [*position.hands, cards]
        low, high = 0, (n - 1) * left
        if self.rules.fool_forfeit and (position.fool_seat >= 0 or any(h & order.fool for h in hands)):
            low -= (n - 1) * FOOL_FORFEIT
            high += (n - 1) * FOOL_FORFEIT
        if self.rules.ultimo:
            low -= 3 * ULTIMO_BONUS
            high += (n - 1) * 3 * ULTIMO_BONUS
        return low, high

    def values(self, position: Position, played: CardIndex | None = None,
               near: Fraction | None = None) -> dict[CardIndex, Fraction | None]:
        """The mover's guaranteed value after each card they may play (equal cards solved once).

        Exact for ``played`` and for the best cards; a card that secures less maps to None
        (a narrow search proves it below the best without finding by how much, which is all
        the review needs and far cheaper).
        """
        seat = position.mover
        w = position.players - 1
        groups = self.groups(position)
        groups.sort(key=lambda g: played not in g)
        found: dict[int, int] = {}
        top = -_INFINITY
        for number, group in enumerate(groups):
            child = position.play(group[0])
            base = _units(child, seat)
            if number == 0 or played in group:
                found[number] = base + self._exact(child, seat, self._guess(near, base) if number == 0 else top - base)
            else:  # is it above, equal to, or below the best so far?
                ahead = base + self._future(child, seat, top - 1 - base, top + 1 - base)
                if ahead > top:
                    ahead = base + self._future(child, seat, top - base, _INFINITY)
                if ahead >= top:
                    found[number] = ahead
            top = max(top, found.get(number, top))
        out: dict[CardIndex, Fraction | None] = {}
        for number, group in enumerate(groups):
            units = found.get(number)
            value = None if units is None or (units < top and played not in group) else _score(
                self.rules, w + 1, units)
            for card in group:
                out[card] = value
        return out

    def groups(self, position: Position) -> list[tuple[CardIndex, ...]]:
        """The mover's legal cards, the equivalent ones together (each in pack order)."""
        order, seat = self.order, position.mover
        hand = position.hands[seat]
        legal = _legal(order, self.rules.overtrump, hand, position.trick)
        others = _separators(position.hands, seat, position.trick)
        return sorted(tuple(sorted(order.card[b] for b in run)) for run in _runs(order, legal, others))

    def _closed_trick(self, trick: tuple[int, ...], leader: int, last: bool) -> _Trick:
        key = (trick, leader, last)
        found = self._closed.get(key)
        if found is None:
            found = self._closed[key] = _close(self.order, self.rules, trick, leader, last)
        return found

    def _bounds_for(self, p: int, n: int) -> Callable[[list[int], list[int]], tuple[int, int]]:
        """What ``p`` may still add at a trick's start, at least and at most, from the cards alone:
        every card's worth goes to somebody's pile, so ``p`` gains between nothing and all of it,
        less or plus a forfeited Fool and the last-trick bonus while they may still move. A window
        beyond these needs no search (a position where ``p`` is sure of nothing more is common:
        proving it used to mean searching every continuation)."""
        w = n - 1
        rules, order = self.rules, self.order
        fool, bagatto = order.fool, order.bagatto
        forfeit = w * FOOL_FORFEIT if rules.fool_forfeit else 0
        bonus = 3 * ULTIMO_BONUS if rules.ultimo else 0
        either = rules.ultimo == "bagatto_or_fool"
        me = 1 << p

        def bounds(hands: list[int], state: list[int]) -> tuple[int, int]:
            low, high = 0, w * state[5]
            if forfeit:
                fool_seat = state[2]
                if not state[1] & me and (hands[p] & fool or fool_seat == p):
                    low -= forfeit
                elif (fool_seat < 0 and any(h & fool for h in hands)) or (fool_seat >= 0 and state[3] == p):
                    high += forfeit
            if bonus:
                held = 0
                for h in hands:
                    held |= h
                if held & bagatto or (either and held & fool):
                    low -= bonus
                    high += w * bonus
            return low, high

        return bounds

    def _future(self, position: Position, p: int, alpha: int = -_INFINITY, beta: int = _INFINITY) -> int:
        """What ``p`` is sure to add to their units from ``position`` to the end of the hand
        (fail-soft: a bound when the value lies outside the window ``alpha``, ``beta``)."""
        if position.done:
            return 0
        rules, order = self.rules, self.order
        n = position.players
        w = n - 1
        last_trick = rules.tricks
        overtrump = rules.overtrump
        forfeit_rule = rules.fool_forfeit
        table = self._tables.setdefault(p, {})
        endings = self._endings.setdefault(p, {})
        history = self._history.setdefault(p, [0] * (n << 7))
        hands = list(position.hands)
        trick = list(position.trick)
        state = [position.leader, position.won, position.fool_seat, position.fool_winner, position.number,
                 sum(order.thirds[b] for hand in position.hands for b in _bits(hand))
                 + sum(order.thirds[b] for b in position.trick),
                 _separators(position.hands, -1, position.trick)]
        bounds = self._bounds_for(p, n)
        closed_trick = self._closed_trick
        killers = [-1] * ((last_trick + 2) * n)
        limit = self.node_limit if self.node_limit is not None else _INFINITY
        nodes = self.nodes

        def end_units(cards: tuple[int, ...], closed: _Trick) -> int:
            end = _end(order, rules, n, cards, closed, state[1], state[2], state[3])
            units = w * end.thirds[p]
            if end.ultimo >= 0:
                units += 3 * ULTIMO_BONUS * (w if p == end.ultimo else -1)
            return units

        def search(alpha: int, beta: int) -> int:
            nonlocal nodes
            nodes += 1
            if nodes > limit:
                raise SearchTooLarge(f"the analysis needs more than {limit} positions; start it at a later trick")
            k = len(trick)
            leader = state[0]
            seat = (leader + k) % n
            hand = hands[seat]
            key: tuple[int, ...] | None = None
            first = -1
            entry = None
            if k == 0 and state[4] == last_trick:  # one card each: the last trick plays itself
                ending = (*hands, leader, state[1], state[2], state[3])
                value = endings.get(ending)
                if value is None:
                    cards = tuple(hands[(leader + j) % n].bit_length() - 1 for j in range(n))
                    closed = closed_trick(cards, leader, True)
                    saved = state[:]
                    state[1] |= 1 << closed.winner
                    if closed.fool_seat >= 0:
                        state[2], state[3] = closed.fool_seat, closed.winner
                    value = endings[ending] = w * closed.gains[p] + end_units(cards, closed)
                    state[:] = saved
                return value
            if k == 0:
                key = (*hands, leader, state[1], state[2], state[3]) if forfeit_rule else (*hands, leader)
                entry = table.get(key)
                if entry is not None:
                    lo, hi, first = entry
                else:
                    lo, hi = bounds(hands, state)
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                alpha, beta = max(alpha, lo), min(beta, hi)
            legal = _legal(order, overtrump, hand, trick)
            maximising = seat == p
            if legal & (legal - 1):
                moves = _tops(order, legal, state[6] & ~hand)
                if len(moves) > 1:
                    if k == n - 1:  # the last card of the trick: its worth to p is known at once
                        last = state[4] == last_trick
                        worth = [closed_trick((*trick, m), leader, last).gains[p] for m in moves]
                        pairs = sorted(zip(worth, moves, strict=True), reverse=maximising)
                        moves = [m for _, m in pairs]
                    elif k:  # the cards that take the trick so far first, then as the history says
                        row = seat << 7
                        top = _top(order, trick)
                        moves.sort(key=lambda m: (_beats(order, m, top), history[row + m]), reverse=True)
                    else:
                        row = seat << 7
                        moves.sort(key=lambda m: history[row + m], reverse=True)
                    if first < 0:  # no best card in the table: the last that refuted a sibling
                        first = killers[state[4] * n + k]
                    if first in moves:
                        moves.remove(first)
                        moves.insert(0, first)
            else:
                moves = [legal.bit_length() - 1]
            best = -_INFINITY if maximising else _INFINITY
            best_move = moves[0]
            low, high = alpha, beta
            for move in moves:
                hands[seat] ^= 1 << move
                trick.append(move)
                if k + 1 < n:
                    value = search(alpha, beta)
                    trick.pop()
                else:
                    cards = tuple(trick)
                    saved = state[:]
                    last = state[4] == last_trick
                    closed = closed_trick(cards, leader, last)
                    gain = w * closed.gains[p]
                    state[0] = closed.winner
                    state[1] |= 1 << closed.winner
                    if closed.fool_seat >= 0:
                        state[2], state[3] = closed.fool_seat, closed.winner
                    state[4] += 1
                    state[5] -= closed.total
                    state[6] ^= closed.cards
                    trick.clear()
                    if last:
                        value = gain + end_units(cards, closed)
                    else:
                        value = gain + search(alpha - gain, beta - gain)
                    state[:] = saved
                    trick.extend(cards[:-1])
                hands[seat] ^= 1 << move
                if maximising:
                    if value > best:
                        best, best_move = value, move
                        if value > alpha:
                            alpha = value
                            if alpha >= beta:
                                break
                elif value < best:
                    best, best_move = value, move
                    if value < beta:
                        beta = value
                        if alpha >= beta:
                            break
            # a card that decided (a cutoff, or the exact value) is worth trying first elsewhere;
            # where every card failed, the best of them says nothing
            if len(moves) > 1 and (low < best < high or (best >= high if maximising else best <= low)):
                history[(seat << 7) + best_move] += 1
                if best_move != moves[0]:
                    killers[state[4] * n + k] = best_move
            if key is not None:
                if best <= low:
                    hi = min(hi, best)
                elif best >= high:
                    lo = max(lo, best)
                else:
                    lo = hi = best
                table[key] = (lo, hi, best_move)
            return best

        try:
            return search(alpha, beta)
        finally:
            self.nodes = nodes


def _separators(hands: tuple[int, ...] | list[int], seat: int, trick: tuple[int, ...] | list[int]) -> int:
    """The cards that tell two of ``seat``'s cards apart when they lie between them: the other
    hands' and the trick's (a card on the table decides whether one beats it and the other not)."""
    others = 0
    for s, held in enumerate(hands):
        if s != seat:
            others |= held
    for b in trick:
        others |= 1 << b
    return others


def _runs(order: _Order, legal: int, others: int) -> list[list[int]]:
    """The legal cards in runs of equivalent ones: one suit, one worth, no card of another hand
    or of the trick between them in strength (whichever is played, the hand goes the same)."""
    runs: list[list[int]] = []
    previous = -1
    suit, thirds = order.suit, order.thirds
    for b in _bits(legal):
        if (previous >= 0 and suit[b] == suit[previous] and thirds[b] == thirds[previous]
                and not others >> (previous + 1) & ((1 << (b - previous - 1)) - 1)):
            runs[-1].append(b)
        else:
            runs.append([b])
        previous = b
    return runs


def _tops(order: _Order, legal: int, others: int) -> list[int]:
    """The strongest card of each run of equivalent legal cards (:func:`_runs`, without the lists)."""
    suit, thirds = order.suit, order.thirds
    out: list[int] = []
    previous = -1
    while legal:
        low = legal & -legal
        legal ^= low
        b = low.bit_length() - 1
        if (previous >= 0 and suit[b] == suit[previous] and thirds[b] == thirds[previous]
                and not others & (low - (2 << previous))):
            out[-1] = b
        else:
            out.append(b)
        previous = b
    return out


def _top(order: _Order, trick: list[int]) -> int:
    """The card taking a trick so far (a bit position; -1 when only the Fool is down)."""
    suit = order.suit
    trumps = [b for b in trick if suit[b] == TRUMP]
    if trumps:
        return max(trumps)
    led = next((suit[b] for b in trick if suit[b] != FOOL_SUIT), None)
    return -1 if led is None else max(b for b in trick if suit[b] == led)


def _beats(order: _Order, card: int, top: int) -> bool:
    """Whether ``card`` would take the trick from ``top``."""
    suit = order.suit
    if top < 0:
        return suit[card] != FOOL_SUIT
    if suit[card] == suit[top]:
        return card > top
    return suit[card] == TRUMP
