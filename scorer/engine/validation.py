"""Checking a hand record against the rules: every problem, each with its code.

Errors (the record does not describe a hand: a card twice, a trick missing, a
wrong leader...) stop the check, because play cannot be judged on a broken
record. Violations (a revoke, a forbidden discard...) do not: the hand was
played, and the table decides what to do about them.

The full record is replayed here, because the replay is also what scoring and
the audit need: who won each trick, where the Fool went, what each player still
held at each moment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .cards import (
    ANGEL_INDEX,
    BAGATTO_INDEX,
    CODES,
    FOOL_INDEX,
    INDICES,
    RANK,
    SUIT,
    SUIT_COUNT,
    TRUMP,
    VALUE,
    WORLD_INDEX,
    CardIndex,
    Seat,
    Suit,
    card_name,
)
from .messages import render
from .records import HandRecord
from .rulesets import Ruleset

ERROR = "error"
VIOLATION = "violation"
VIOLATION_CODES = ("illegal_discard", "revoke", "failed_to_trump", "failed_to_overtrump")
RESULT_FIELDS: dict[str, tuple[str, ...]] = {
    "duplicate_card": ("card",),
    "card_count": ("card",),
    "trick_count": (),
    "wrong_leader": ("trick", "player"),
    "points_total": (),
    "pile_sizes": (),
    "ultimo_claim": ("player",),
    "illegal_discard": ("player", "card"),
    "revoke": ("trick", "player", "card"),
    "failed_to_trump": ("trick", "player", "card"),
    "failed_to_overtrump": ("trick", "player", "card"),
}
"""RECORD.md's problem table: the fields a ``scarto-result/1`` problem of each code carries. A problem
may know more (the trick with the wrong number of cards, for the pages to point at), but the file
says only what the contract promises."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a record: a code, its severity and a sentence for players."""

    code: str
    severity: str
    message: str
    trick: int | None = None
    player: str | None = None
    card: CardIndex | None = None
    proof_trick: int | None = None
    """For a breach found later: the trick in which the player showed the card that proves it."""
    proof_card: CardIndex | None = None
    key: str = field(default="", compare=False)
    """Which sentence of :data:`scorer.engine.messages.TEMPLATES` tells the problem."""
    params: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The sentence's parameters (cards as indices), so it can be told in any language."""

    @property
    def is_error(self) -> bool:
        """An error: the record does not describe a hand, and cannot be scored."""
        return self.severity == ERROR

    def to_dict(self) -> dict[str, Any]:
        """The ``problems[]`` entry of ``scarto-result/1``; fields that don't apply are left out."""
        out: dict[str, Any] = {"code": self.code, "severity": self.severity}
        fields = RESULT_FIELDS.get(self.code, ("trick", "player", "card"))
        if self.trick is not None and "trick" in fields:
            out["trick"] = self.trick
        if self.player is not None and "player" in fields:
            out["player"] = self.player
        if self.card is not None and "card" in fields:
            out["card"] = CODES[self.card]
        out["message"] = self.message
        return out


def problem(code: str, severity: str, key: str, *, trick: int | None = None, player: str | None = None,
            card: CardIndex | None = None, proof_trick: int | None = None, proof_card: CardIndex | None = None,
            **text: Any) -> Problem:
    """A problem with its English sentence, keeping the template key and parameters for translation."""
    fields = {"trick": trick, "player": player, "card": card, "proof_trick": proof_trick, "proof_card": proof_card}
    params = {name: value for name, value in fields.items() if value is not None} | text
    message = render(key, params, name_card=card_name, card_code=CODES.__getitem__)
    return Problem(code, severity, message, trick, player, card, proof_trick, proof_card, key=key, params=params)


@dataclass(frozen=True)
class PlayedTrick:
    """A trick as replayed: who played what, who won it, and where the Fool went."""

    number: int
    leader: Seat
    cards: tuple[CardIndex, ...]
    seats: tuple[Seat, ...]
    """Index of the player who played each card."""
    winner: Seat
    led_suit: Suit | None
    fool_seat: Seat | None
    """Who played the Fool in this trick, if anyone did."""

    @property
    def winning_card(self) -> CardIndex:
        """The card that took the trick (the replay decides who won: the highest trump in it, else the
        highest card of the suit led)."""
        return self.cards[self.seats.index(self.winner)]


def _played_trick(number: int, leader: Seat, cards: tuple[CardIndex, ...], seats: tuple[Seat, ...],
                  winner: Seat,
                  led_suit: Suit | None, fool_seat: Seat | None) -> PlayedTrick:
    """``PlayedTrick(...)`` without the frozen dataclass's per-field ``object.__setattr__``:
    the replay makes 25 of these per hand, and this halves its cost."""
    trick = object.__new__(PlayedTrick)
    trick.__dict__.update(number=number, leader=leader, cards=cards, seats=seats, winner=winner,
                          led_suit=led_suit, fool_seat=fool_seat)
    return trick


@dataclass(frozen=True)
class Replay:
    """The full record replayed: tricks with winners, and the dealer's discard."""

    tricks: tuple[PlayedTrick, ...]
    discard: tuple[CardIndex, ...]
    complete: bool


@dataclass(frozen=True)
class PileShape:
    """What the pile sizes say about the Fool's exchange (RULES.md)."""

    fool_seat: Seat | None
    owed_to: Seat | None
    """Who won the Fool's trick and is owed a 1-point card (or, forfeited, the Fool)."""
    forfeit: bool


class Findings:
    """What a check or a count found, asked one way: its errors, and whether it has any."""

    problems: tuple[Problem, ...]

    @property
    def errors(self) -> tuple[Problem, ...]:
        """The problems that stop the count (RECORD.md: a record with any is given its errors only)."""
        return tuple(p for p in self.problems if p.is_error)

    @property
    def has_errors(self) -> bool:
        return any(p.is_error for p in self.problems)


@dataclass(frozen=True)
class Validation(Findings):
    """What the check found; ``replay`` is set for a full record without errors, ``shape`` for
    captured piles or counting cards without errors (what their sizes say of the Fool's exchange)."""

    problems: tuple[Problem, ...]
    replay: Replay | None = None
    shape: PileShape | None = None

    def is_valid(self) -> bool:
        """Strict: no problem at all."""
        return not self.problems


def validate(record: HandRecord, *, partial: bool = False) -> Validation:
    """Check a record; ``partial`` checks a full record still being played (live entry)."""
    if record.tricks is not None:
        return _validate_tricks(record, partial)
    if record.captured is not None:
        return _check_captured(record)
    if record.honours is not None:
        return _check_honours(record)
    return Validation(tuple(_check_points(record)))


# --- the full record -----------------------------------------------------------


def _validate_tricks(record: HandRecord, partial: bool) -> Validation:
    rules = record.ruleset
    tricks = record.tricks or ()
    errors = _trick_shape(record, tricks, partial)
    errors += _card_accounting(record, tricks, partial)
    if errors:
        return Validation(tuple(errors))
    walk = _Walk(len(record.players))
    replay, wrong_leader = _replay(record, rules, partial, walk)
    if wrong_leader is not None:
        return Validation((wrong_leader,))
    problems = _discard_problems(record, replay) + _play_problems(record, replay, walk)
    return Validation(tuple(problems), replay)


class _Walk:
    """What the replay notes for the play check, so that it need not walk the tricks again."""

    __slots__ = ("last", "suspects", "trumps")

    def __init__(self, players: int) -> None:
        self.last = [[0] * SUIT_COUNT for _ in range(players)]
        """last[seat][suit]: the last trick in which the player plays a card of that suit."""
        self.suspects: list[tuple[PlayedTrick, Seat, CardIndex, int]] = []
        self.trumps: list[list[tuple[int, int]]] = [[] for _ in range(players)]
        """Under ``overtrump``, per seat, (trick, strength) of each trump played: did they hold a higher one?"""
        """(trick, seat, card, highest trump strength before it or -1): cards not of the
        led suit, and under ``overtrump`` trumps played below a higher trump."""


def _trick_shape(record: HandRecord, tricks: tuple[Any, ...], partial: bool) -> list[Problem]:
    rules, n = record.ruleset, len(record.players)
    bad = [i + 1 for i, t in enumerate(tricks) if len(t.cards) != n and not (partial and i == len(tricks) - 1)]
    if partial:
        bad += [i + 1 for i, t in enumerate(tricks) if len(t.cards) > n and i == len(tricks) - 1]
    problems = []
    if bad:
        problems.append(problem("trick_count", ERROR, "trick_count.cards", trick=bad[0],
                                count=len(tricks[bad[0] - 1].cards), players=n))
    if len(tricks) > rules.tricks or (not partial and len(tricks) != rules.tricks):
        problems.append(problem("trick_count", ERROR, "trick_count.tricks", count=len(tricks),
                                preset=rules.name, tricks=rules.tricks))
    return problems


def _card_accounting(record: HandRecord, tricks: tuple[Any, ...], partial: bool) -> list[Problem]:
    rules = record.ruleset
    every = [c for trick in tricks for c in trick.cards]
    if record.discard is not None:
        every += record.discard
    unique = set(every)
    if len(unique) == len(every) and rules.pack.issuperset(unique):  # the common case: all is well
        if partial:
            return []
        if record.discard is None and len(rules.pack) - len(unique) == rules.talon:
            return []
        if record.discard is not None and len(record.discard) == rules.talon and len(unique) == len(rules.pack):
            return []
    seen = 0
    places: dict[CardIndex, list[int]] = {}  # where each card stands: its tricks' numbers, 0 the discard
    for number, trick in enumerate(tricks, start=1):
        for card in trick.cards:
            seen |= 1 << card
            places.setdefault(card, []).append(number)
    discard = record.discard
    if discard is not None:
        for card in discard:
            seen |= 1 << card
            places.setdefault(card, []).append(0)
    problems = [_played_twice(c, where) for c, where in places.items() if len(where) > 1]
    if partial:
        return problems
    missing = rules.pack_mask & ~seen
    if discard is None:
        count = bin(missing).count("1")
        if count != rules.talon:
            problems.append(problem("card_count", ERROR, "card_count.unplayed", count=count, talon=rules.talon))
    else:
        if len(discard) != rules.talon:
            problems.append(problem("card_count", ERROR, "card_count.discard_size", count=len(discard),
                                    talon=rules.talon))
        problems += [
            problem("card_count", ERROR, "card_count.missing", card=c)
            for c in rules.pack_order if missing >> c & 1
        ]
    return problems


@cache
def _seating(n: int) -> tuple[tuple[Seat, ...], ...]:
    """For each leader, the seats in play order (the next in the list plays next)."""
    return tuple(tuple(Seat((first + k) % n) for k in range(n)) for first in range(n))


def _replay(record: HandRecord, rules: Ruleset, partial: bool,
            walk: _Walk | None = None) -> tuple[Replay, Problem | None]:
    """Winners trick by trick; the first recorded leader who should not have led is an error."""
    players = record.players
    n = len(players)
    leader = first_leader(record)
    strength = rules.strength
    overtrump = rules.overtrump
    seating = _seating(n)
    last = walk.last if walk is not None else [[0] * SUIT_COUNT for _ in range(n)]
    trumps = walk.trumps if walk is not None else [[] for _ in range(n)]
    suspects: list[tuple[int, Seat, CardIndex, int]] = []
    played: list[PlayedTrick] = []
    for number, trick in enumerate(record.tricks or (), start=1):
        if trick.leader is not None and trick.leader != players[leader]:
            key = "wrong_leader.first" if number == 1 else "wrong_leader.winner"
            return Replay((), (), False), problem(
                "wrong_leader", ERROR, key, trick=number, player=trick.leader, leader=players[leader],
                previous=number - 1,
            )
        cards = trick.cards
        seats = seating[leader] if len(cards) == n else seating[leader][:len(cards)]
        led_suit: Suit | None = None
        fool_seat: Seat | None = None
        best = -2
        trumped = False
        winner = leader
        # trumps outrank every suit card in ``strength``, so the winner is the strongest
        # card of the led suit or trumps; the Fool has a suit of its own and never wins
        for card, seat in zip(cards, seats, strict=True):
            suit = SUIT[card]
            last[seat][suit] = number
            if suit == TRUMP and overtrump:
                trumps[seat].append((number, strength[card]))
            if card == FOOL_INDEX:
                fool_seat = seat
                continue
            if led_suit is None:
                led_suit = suit
            elif suit != led_suit or (overtrump and trumped and strength[card] < best):
                suspects.append((number, seat, card, best if trumped else -1))
            if (suit == led_suit or suit == TRUMP) and strength[card] > best:
                best, winner = strength[card], seat
                trumped = suit == TRUMP
        played.append(_played_trick(number, leader, cards, seats, winner, led_suit, fool_seat))
        if len(cards) == n:
            leader = winner
    if walk is not None:
        walk.suspects = [(played[number - 1], seat, card, top) for number, seat, card, top in suspects]
    discard = record.discard
    if discard is None:
        used = set().union(*(t.cards for t in played)) if played else set()
        discard = tuple(c for c in rules.pack_order if c not in used) if not partial else ()
    complete = len(played) == rules.tricks and all(len(t.cards) == n for t in played)
    return Replay(tuple(played), tuple(discard), complete), None


def fool_kept(number: int, rules: Ruleset) -> bool:
    """Whether a Fool played to trick ``number`` stays with its player (RULES.md, "What happens to
    the Fool"): always, except in the last trick under ``fool_last_trick: captured``."""
    return not (number == rules.tricks and rules.fool_last_trick == "captured")


def next_leader(record: HandRecord, replay: Replay) -> Seat:
    """Seat of the player to lead the next trick (after the last complete one)."""
    n = len(record.players)
    complete = [t for t in replay.tricks if len(t.cards) == n]
    if complete:
        return complete[-1].winner
    return first_leader(record)


def first_leader(record: HandRecord) -> Seat:
    """Seat of the player who leads the first trick (switch ``first_lead``)."""
    dealer = record.players.index(record.dealer)
    return Seat(dealer if record.ruleset.first_lead == "dealer" else (dealer + 1) % len(record.players))


_EVER_FORBIDDEN = frozenset(c for c in INDICES if RANK[c] == "K") | {
    BAGATTO_INDEX, ANGEL_INDEX, WORLD_INDEX, FOOL_INDEX}
"""Every card some discard rule may forbid; a discard of none of them is always legal."""


def _discard_problems(record: HandRecord, replay: Replay) -> list[Problem]:
    if _EVER_FORBIDDEN.isdisjoint(replay.discard):
        return []
    dealer = record.players.index(record.dealer)
    played = frozenset(c for t in replay.tricks for c, s in zip(t.cards, t.seats, strict=True) if s == dealer)
    forbidden = record.ruleset.forbidden_discards(played | frozenset(replay.discard))
    return [
        problem("illegal_discard", VIOLATION, _discard_reason(c, record.ruleset), player=record.dealer, card=c)
        for c in replay.discard if c in forbidden
    ]


def _discard_reason(card: CardIndex, rules: Ruleset) -> str:
    """The sentence that says why this card may not be discarded under these rules."""
    if RANK[card] == "K":
        return "illegal_discard.king"
    if card == ANGEL_INDEX:
        return "illegal_discard.angel"
    if card == WORLD_INDEX:
        return "illegal_discard.world"
    if card == FOOL_INDEX:
        return "illegal_discard.fool_holding_trump" if rules.discard == "saari" else "illegal_discard.fool"
    if card == BAGATTO_INDEX:
        return {"saari": "illegal_discard.bagatto_never", "classic": "illegal_discard.bagatto_classic"}.get(
            rules.discard, "illegal_discard.bagatto_rulesheet")
    raise AssertionError(f"{CODES[card]} is never forbidden")


def _play_problems(record: HandRecord, replay: Replay, walk: _Walk | None = None) -> list[Problem]:
    """Revokes and failures to trump or overtrump, proven by what each player showed later.

    Only the cards the replay found suspect are judged: a card of the led suit breaks no
    rule unless it is a trump below a higher one under ``overtrump``. A player who plays
    another suit to trick t holds the led suit at t exactly when they play it later.
    """
    if walk is None:
        walk = _Walk(len(record.players))
        _replay(record, record.ruleset, False, walk)
    rules = record.ruleset
    strength = rules.strength
    overtrump = rules.overtrump
    last = walk.last
    trumps = walk.trumps

    def held_higher(seat: Seat, number: int, top: int) -> bool:
        return any(later > number and power > top for later, power in trumps[seat])

    problems: list[Problem] = []
    for trick, seat, card, top_trump in walk.suspects:
        suit = SUIT[card]
        led = trick.led_suit
        assert led is not None
        number = trick.number
        if suit != led:
            held = last[seat]
            if held[led] > number:
                problems.append(_breach(record, replay, trick, seat, card, "revoke", led))
                continue
            if led != TRUMP and suit != TRUMP and held[TRUMP] > number:
                problems.append(_breach(record, replay, trick, seat, card, "failed_to_trump", TRUMP))
                continue
        if (overtrump and suit == TRUMP and 0 <= top_trump and strength[card] < top_trump
                and held_higher(seat, number, top_trump)):
            problems += _overtrump(record, replay, trick, seat, card, top_trump)
    return problems


def _later_card(replay: Replay, after: int, seat: Seat, test: Any) -> tuple[int, CardIndex] | None:
    for trick in replay.tricks[after:]:
        for card, s in zip(trick.cards, trick.seats, strict=True):
            if s == seat and test(card):
                return trick.number, card
    return None


def _breach(record: HandRecord, replay: Replay, trick: PlayedTrick, seat: Seat, card: CardIndex,
            code: str, suit: Suit) -> Problem:
    name = record.players[seat]
    proof = _later_card(replay, trick.number, seat, lambda c: SUIT[c] == suit)
    assert proof is not None, "a held card is always played later"
    proof_trick, proof_card = proof
    if code == "revoke":
        key, led = ("revoke.trump" if suit == TRUMP else "revoke.suit"), suit
    else:
        key, led = "failed_to_trump", trick.led_suit or TRUMP
    return problem(code, VIOLATION, key, trick=trick.number, player=name, card=card,
                   proof_trick=proof_trick, proof_card=proof_card, suit=led)


def _overtrump(record: HandRecord, replay: Replay, trick: PlayedTrick, seat: Seat, card: CardIndex,
               top: int) -> list[Problem]:
    strength = record.ruleset.strength
    proof = _later_card(replay, trick.number, seat, lambda c: SUIT[c] == TRUMP and strength[c] > top)
    if proof is None:
        return []
    name = record.players[seat]
    proof_trick, proof_card = proof
    return [problem("failed_to_overtrump", VIOLATION, "failed_to_overtrump", trick=trick.number, player=name,
                    card=card, proof_trick=proof_trick, proof_card=proof_card)]


# --- captured piles and counting cards ----------------------------------------


def pile_shape(record: HandRecord, sizes: list[int], fool_seat: Seat | None) -> PileShape | Problem:
    """Read the Fool's exchange from pile sizes, or the ``pile_sizes`` error."""
    rules, n = record.ruleset, len(record.players)
    dealer = record.players.index(record.dealer)
    if sizes[dealer] < rules.talon:
        return problem("pile_sizes", ERROR, "pile_sizes.dealer", name=record.dealer, size=sizes[dealer],
                       talon=rules.talon)
    rest = [(s - (rules.talon if i == dealer else 0)) % n for i, s in enumerate(sizes)]
    if not any(rest):
        return PileShape(fool_seat, None, False)
    odd = [i for i, r in enumerate(rest) if r]
    if fool_seat is not None and rest[fool_seat] == 1 and len(odd) == 2:
        other = odd[0] if odd[1] == fool_seat else odd[1]
        if rest[other] == n - 1:
            # forfeited (saari) when the Fool's pile, less the dealer's discards, is the Fool alone
            alone = sizes[fool_seat] - (rules.talon if fool_seat == dealer else 0) == 1
            return PileShape(fool_seat, Seat(other), rules.fool_forfeit and alone)
    shown = ", ".join(f"{p} {s}" for p, s in zip(record.players, sizes, strict=True))
    return problem("pile_sizes", ERROR, "pile_sizes.shape", sizes=shown, players=n)


def _check_captured(record: HandRecord) -> Validation:
    piles = record.captured or {}
    problems = _pack_once(record, piles)
    if problems:
        return Validation(tuple(problems))
    fool = next((Seat(i) for i, p in enumerate(record.players) if FOOL_INDEX in piles[p]), None)
    return _with_shape(record, piles, pile_shape(record, [len(piles[p]) for p in record.players], fool))


def _with_shape(record: HandRecord, piles: Mapping[str, tuple[CardIndex, ...]],
                shape: PileShape | Problem) -> Validation:
    """The piles' shape read once: kept for the count, or the ``pile_sizes`` error."""
    if isinstance(shape, Problem):
        return Validation((shape,))
    claim = _ultimo_claim(record, piles, shape)
    return Validation(tuple(claim), shape=None if claim else shape)


def _ultimo_claim(record: HandRecord, piles: Mapping[str, tuple[CardIndex, ...]], shape: PileShape) -> list[Problem]:
    """The ``ultimo`` winner a ``captured`` or ``honours`` record names must hold what the bonus
    needs: the Bagatto, or with ``"bagatto_or_fool"`` the Bagatto or the Fool (a forfeited Fool
    counting as its receiver's)."""
    rules, name = record.ruleset, record.ultimo
    if not rules.ultimo or name is None:
        return []
    pile = piles[name]
    if BAGATTO_INDEX in pile:
        return []
    if rules.ultimo == "bagatto_or_fool":
        seat = record.players.index(name)
        if shape.forfeit:
            if shape.owed_to == seat:
                return []
            if shape.fool_seat == seat and shape.owed_to is not None:
                # the Fool lies in this pile, but it is not this player's to claim: say why
                return [problem("ultimo_claim", ERROR, "ultimo_claim.fool_forfeited", player=name,
                                name=record.players[shape.owed_to])]
        elif FOOL_INDEX in pile:
            return []
        return [problem("ultimo_claim", ERROR, "ultimo_claim.bagatto_or_fool", player=name)]
    return [problem("ultimo_claim", ERROR, "ultimo_claim.bagatto", player=name)]


def _played_twice(card: CardIndex, where: Sequence[int]) -> Problem:
    """``duplicate_card`` saying where the card stands twice: two tricks, a trick and the discard, one trick."""
    first, second = where[0], where[1]
    if second == 0:
        key = "duplicate_card.discard" if first == 0 else "duplicate_card.trick_discard"
    else:
        key = "duplicate_card.trick" if first == second else "duplicate_card.tricks"
    return problem("duplicate_card", ERROR, key, card=card, first=first, second=second)


def _in_two_piles(card: CardIndex, owners: Sequence[str]) -> Problem:
    """``duplicate_card`` saying whose piles hold the card (the grid marks only one of them)."""
    key = "duplicate_card.pile" if owners[0] == owners[1] else "duplicate_card.piles"
    return problem("duplicate_card", ERROR, key, card=card, first=owners[0], second=owners[1])


def _pack_once(record: HandRecord, piles: Mapping[str, Sequence[CardIndex]],
               expected: tuple[CardIndex, ...] | None = None) -> list[Problem]:
    seen: dict[CardIndex, list[str]] = {}
    for p in record.players:
        for c in piles[p]:
            seen.setdefault(c, []).append(p)
    problems = [_in_two_piles(c, owners) for c, owners in seen.items() if len(owners) > 1]
    for c in expected if expected is not None else record.ruleset.pack_order:
        if c not in seen:
            problems.append(problem("card_count", ERROR, "card_count.no_pile", card=c))
    return problems


def counting_cards(rules: Ruleset) -> tuple[CardIndex, ...]:
    """The cards worth more than 1 in the ruleset's pack, in pack order."""
    return tuple(c for c in rules.pack_order if VALUE[c] > 1)


def _check_honours(record: HandRecord) -> Validation:
    rules = record.ruleset
    honours = record.honours or {}
    sizes = record.sizes or {}
    # a one-point card listed too is one of the pile's cards (RECORD.md): it counts as one either way
    problems = _pack_once(record, honours, counting_cards(rules))
    total = sum(sizes.values())
    if total != rules.pack_size:
        problems.append(problem("card_count", ERROR, "card_count.sizes_total", total=total, pack=rules.pack_size))
    short = [p for p in record.players if sizes[p] < len(honours[p])]
    if short:
        p = short[0]
        problems.append(problem("pile_sizes", ERROR, "pile_sizes.honours", name=p, size=sizes[p],
                                count=len(honours[p])))
    if problems:
        return Validation(tuple(problems))
    fool = next((Seat(i) for i, p in enumerate(record.players) if FOOL_INDEX in honours[p]), None)
    return _with_shape(record, honours, pile_shape(record, [sizes[p] for p in record.players], fool))


def _check_points(record: HandRecord) -> list[Problem]:
    points = record.points or {}
    total = sum(points.values())
    deck = record.ruleset.deck_total
    if total == deck:
        return []
    return [problem("points_total", ERROR, "points_total", total=total, preset=record.ruleset.name, deck=deck)]
