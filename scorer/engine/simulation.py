"""Legal play, simulated: random hands for the property tests and the benchmark.

A seeded :class:`random.Random` deals the ruleset's pack, the dealer takes the
talon and discards what the ruleset allows, and every player then plays a card
the rules allow (follow suit, else trump, else anything; the Fool at any time;
overtrump where the switch says so). The result is a full ``tricks`` record.

From a full record this module also derives, without going through
:mod:`scorer.engine.scoring`, the other record forms a table might write for the same
hand (captured piles before and after the Fool's exchange, honours with pile
sizes, counted points), and it can break a legal record with one illegal card
whose problem is known in advance. The replay here is written independently of
:mod:`scorer.engine.validation` on purpose: the tests compare the two.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache, lru_cache

from .cards import ANGEL_INDEX, BAGATTO_INDEX, FOOL_INDEX, RANK, SUIT, TRUMP, VALUE, WORLD_INDEX, CardIndex
from .records import HandRecord, Trick
from .rulesets import Ruleset, ruleset_spec

NAMES = ("Anna", "Bruno", "Carla", "Dario")
"""Player names used when the caller gives none."""

Policy = Callable[[int, Sequence[CardIndex], Sequence[CardIndex], random.Random], CardIndex]
"""How a player picks a card: (seat, legal cards, cards already in the trick, rng) -> card."""

VIOLATIONS = ("revoke", "failed_to_trump", "failed_to_overtrump")


@dataclass(frozen=True)
class Deal:
    """The cards each seat is dealt (before the talon) and the talon."""

    hands: tuple[tuple[CardIndex, ...], ...]
    talon: tuple[CardIndex, ...]


@dataclass(frozen=True)
class Injected:
    """A record with one illegal card, and the one problem the engine must report."""

    record: HandRecord
    code: str
    trick: int
    """1-based number of the trick holding the illegal card."""
    player: str
    card: CardIndex


# --- dealing and playing ---------------------------------------------------------


def deal(ruleset: Ruleset, rng: random.Random, hands: Mapping[int, Sequence[CardIndex]] | None = None,
         talon: Sequence[CardIndex] | None = None) -> Deal:
    """Shuffle the ruleset's pack and deal it: cards_each to every seat, the rest to the talon.

    ``hands`` (seat -> cards) and ``talon`` fix some of the deal, for rigged hands in tests;
    the other seats get the remaining cards at random.
    """
    fixed = {seat: list(cards) for seat, cards in (hands or {}).items()}
    if talon is not None:
        fixed[-1] = list(talon)
    given = [c for cards in fixed.values() for c in cards]
    if len(set(given)) != len(given) or not ruleset.pack.issuperset(given):
        raise ValueError("a rigged deal must give distinct cards of the ruleset's pack")
    rest = [c for c in ruleset.pack_order if c not in set(given)]
    rng.shuffle(rest)
    k = ruleset.cards_each
    sizes = {**{seat: k for seat in range(ruleset.players)}, -1: ruleset.talon}
    dealt = {}
    for seat, size in sizes.items():
        cards = fixed.get(seat, [])
        if len(cards) > size:
            raise ValueError(f"seat {seat} is given {len(cards)} cards; it is dealt {size}")
        dealt[seat] = tuple(cards + [rest.pop() for _ in range(size - len(cards))])
    return Deal(tuple(dealt[seat] for seat in range(ruleset.players)), dealt[-1])


_NEVER_SAFE = frozenset({BAGATTO_INDEX, ANGEL_INDEX, WORLD_INDEX, FOOL_INDEX})
"""Cards some discard rule forbids (besides Kings): the fallback discard avoids them."""


def is_legal_discard(ruleset: Ruleset, held: Sequence[CardIndex], discard: Sequence[CardIndex]) -> bool:
    """Whether the dealer, holding ``held`` (talon included), may discard ``discard``."""
    return not (ruleset.forbidden_discards(frozenset(held)) & frozenset(discard))


def choose_discard(ruleset: Ruleset, held: Sequence[CardIndex], rng: random.Random) -> tuple[CardIndex, ...]:
    """A random legal discard of the talon's size from the dealer's cards."""
    size = ruleset.talon
    cards = list(held)
    for _ in range(40):
        pick = rng.sample(cards, size)
        if is_legal_discard(ruleset, cards, pick):
            return tuple(pick)
    safe = [c for c in cards if c not in _NEVER_SAFE and RANK[c] != "K"]
    pick = rng.sample(safe, size)
    assert is_legal_discard(ruleset, cards, pick)
    return tuple(pick)


def power(ruleset: Ruleset, card: int) -> int:
    """How strongly a card takes a trick within its suit; trumps above every suit card."""
    return _powers(ruleset.top_trump)[card]


@cache
def _powers(top_trump: str) -> tuple[int, ...]:
    courts = {"K": 14, "Q": 13, "C": 12, "J": 11}
    table = []
    for card in range(78):
        if SUIT[card] == TRUMP:
            number = card + 1
            table.append(300 if number == 20 and top_trump == "T20" else 100 + number)
        elif RANK[card] in courts:
            table.append(courts[RANK[card]])
        elif RANK[card]:
            pip = int(RANK[card])
            table.append(11 - pip if SUIT[card] in (1, 2) else pip)
        else:  # the Fool
            table.append(0)
    return tuple(table)


def trick_winner(ruleset: Ruleset, cards: Sequence[int], seats: Sequence[int]) -> int:
    """Seat that wins a complete trick: highest trump, else highest card of the led suit."""
    powers = _powers(ruleset.top_trump)
    led = next(SUIT[c] for c in cards if c != FOOL_INDEX)
    trumps = [(powers[c], s) for c, s in zip(cards, seats, strict=True) if SUIT[c] == TRUMP]
    if trumps:
        return max(trumps)[1]
    return max((powers[c], s) for c, s in zip(cards, seats, strict=True) if SUIT[c] == led)[1]


def legal_cards(ruleset: Ruleset, hand: Sequence[CardIndex], trick: Sequence[CardIndex]) -> list[CardIndex]:
    """The cards of ``hand`` that may be played to a trick that already holds ``trick``."""
    led = next((SUIT[c] for c in trick if c != FOOL_INDEX), None)
    if led is None:
        return list(hand)
    fool = [FOOL_INDEX] if FOOL_INDEX in hand else []
    follow = [c for c in hand if SUIT[c] == led]
    trumps = follow if led == TRUMP else [c for c in hand if SUIT[c] == TRUMP]
    if follow and led != TRUMP:
        return follow + fool
    if not trumps:
        return list(hand)
    if ruleset.overtrump:
        top = max((power(ruleset, c) for c in trick if SUIT[c] == TRUMP), default=None)
        higher = [c for c in trumps if top is not None and power(ruleset, c) > top]
        if higher:
            trumps = higher
    return trumps + fool


def random_policy(seat: int, legal: Sequence[CardIndex], trick: Sequence[CardIndex], rng: random.Random) -> CardIndex:
    """Any legal card, uniformly."""
    return rng.choice(list(legal))


def play_hand(
    ruleset: Ruleset,
    dealt: Deal,
    rng: random.Random,
    *,
    players: Sequence[str] | None = None,
    dealer: int = 0,
    discard: Sequence[CardIndex] | None = None,
    policy: Policy = random_policy,
    leaders: bool = True,
    listed_discard: bool = True,
) -> HandRecord:
    """Play a dealt hand to the end by the rules; the full ``tricks`` record of it.

    ``discard`` fixes the dealer's discard (legal or not); by default a random legal
    one is chosen. ``leaders`` and ``listed_discard`` say whether the record writes
    the optional ``leader`` and ``discard`` fields.
    """
    n = ruleset.players
    names = tuple(players) if players is not None else NAMES[:n]
    hands = [list(h) for h in dealt.hands]
    held = hands[dealer] + list(dealt.talon)
    thrown = tuple(discard) if discard is not None else choose_discard(ruleset, held, rng)
    hands[dealer] = [c for c in held if c not in thrown]
    leader = dealer if ruleset.first_lead == "dealer" else (dealer + 1) % n
    tricks = []
    for _ in range(ruleset.tricks):
        cards: list[CardIndex] = []
        seats = [(leader + k) % n for k in range(n)]
        for seat in seats:
            card = policy(seat, legal_cards(ruleset, hands[seat], cards), cards, rng)
            hands[seat].remove(card)
            cards.append(card)
        tricks.append(Trick(tuple(cards), names[leader] if leaders else None))
        leader = trick_winner(ruleset, cards, seats)
    return HandRecord(
        ruleset=ruleset,
        players=names,
        dealer=names[dealer],
        tricks=tuple(tricks),
        discard=thrown if listed_discard else None,
        talon=dealt.talon,
        ruleset_given=ruleset_spec(ruleset),
    )


def simulate_hand(ruleset: Ruleset, rng: random.Random, *, leaders: bool = True,
                  listed_discard: bool = True) -> HandRecord:
    """A random legal hand: a random dealer, a random deal, random legal discards and play."""
    dealer = rng.randrange(ruleset.players)
    return play_hand(ruleset, deal(ruleset, rng), rng, dealer=dealer, leaders=leaders,
                     listed_discard=listed_discard)


# --- replaying a full record -----------------------------------------------------


@dataclass(frozen=True)
class _Played:
    cards: tuple[CardIndex, ...]
    seats: tuple[int, ...]
    winner: int


@lru_cache(maxsize=16)  # the derived forms of one record each replay it
def _replay(record: HandRecord) -> tuple[_Played, ...]:
    rules = record.ruleset
    n = len(record.players)
    dealer = record.dealer_index
    leader = dealer if rules.first_lead == "dealer" else (dealer + 1) % n
    out = []
    for trick in record.tricks or ():
        seats = tuple((leader + k) % n for k in range(n))
        winner = trick_winner(rules, trick.cards, seats)
        out.append(_Played(trick.cards, seats, winner))
        leader = winner
    return tuple(out)


def _discard(record: HandRecord) -> tuple[CardIndex, ...]:
    if record.discard is not None:
        return record.discard
    played = {c for t in record.tricks or () for c in t.cards}
    return tuple(c for c in record.ruleset.pack_order if c not in played)


@dataclass(frozen=True)
class _Piles:
    piles: list[list[CardIndex]]
    fool_seat: int | None
    """Who played the Fool, when a 1-point card (or the Fool itself) is owed for it."""
    owed_to: int | None
    forfeit: bool


def _piles(record: HandRecord) -> _Piles:
    """Trick piles as they lie at the end of the hand, before any exchange for the Fool."""
    rules = record.ruleset
    played = _replay(record)
    piles: list[list[CardIndex]] = [[] for _ in record.players]
    piles[record.dealer_index].extend(_discard(record))
    fool_seat = owed_to = None
    for number, trick in enumerate(played, start=1):
        if FOOL_INDEX in trick.cards and not (number == rules.tricks and rules.fool_last_trick == "captured"):
            fool_seat = trick.seats[trick.cards.index(FOOL_INDEX)]
            owed_to = trick.winner
            piles[trick.winner].extend(c for c in trick.cards if c != FOOL_INDEX)
            piles[fool_seat].append(FOOL_INDEX)
        else:
            piles[trick.winner].extend(trick.cards)
    # saari: a player who wins no trick forfeits the Fool (the dealer's discards are no trick)
    forfeit = (fool_seat is not None and rules.fool_forfeit
               and all(trick.winner != fool_seat for trick in played))
    return _Piles(piles, fool_seat, owed_to, forfeit)


def ultimo_winner(record: HandRecord) -> str | None:
    """Under the ``ultimo`` switch, who won the last trick when it held the Bagatto (or, with
    ``"bagatto_or_fool"``, took the Fool: captured in the last trick, or forfeited there)."""
    rules = record.ruleset
    if not rules.ultimo or not record.tricks:
        return None
    last = _replay(record)[-1]
    if BAGATTO_INDEX in last.cards:
        return record.players[last.winner]
    if rules.ultimo == "bagatto_or_fool" and FOOL_INDEX in last.cards:
        shape = _piles(record)
        taken = shape.fool_seat is None or (shape.forfeit and shape.owed_to == last.winner)
        if taken:
            return record.players[last.winner]
    return None


def captured_piles(record: HandRecord, *, exchanged: bool = False) -> dict[str, list[CardIndex]]:
    """Each player's pile at the end of a full record.

    Before the exchange the Fool lies in its player's pile and the winner of its trick
    is a card short. ``exchanged`` makes the exchange physically, as a table would: the
    Fool's player hands over a 1-point card (when they have one), or, forfeited, the
    Fool itself.
    """
    shape = _piles(record)
    piles = [list(p) for p in shape.piles]
    if exchanged and shape.fool_seat is not None and shape.owed_to is not None:
        giver, taker = piles[shape.fool_seat], piles[shape.owed_to]
        if shape.forfeit:
            giver.remove(FOOL_INDEX)
            taker.append(FOOL_INDEX)
        else:
            pip = next((c for c in giver if VALUE[c] == 1), None)
            if pip is not None:
                giver.remove(pip)
                taker.append(pip)
    return dict(zip(record.players, piles, strict=True))


def _derived(
    record: HandRecord,
    *,
    captured: dict[str, tuple[CardIndex, ...]] | None = None,
    honours: dict[str, tuple[CardIndex, ...]] | None = None,
    sizes: dict[str, int] | None = None,
    points: dict[str, Fraction] | None = None,
) -> HandRecord:
    """The same hand under another body: no tricks, discard or talon; ``ultimo`` named."""
    return replace(record, tricks=None, discard=None, talon=None, captured=captured, honours=honours,
                   sizes=sizes, points=points, ultimo=ultimo_winner(record))


def captured_form(record: HandRecord, *, exchanged: bool = False) -> HandRecord:
    """The ``captured`` record of a full record's hand (see :func:`captured_piles`)."""
    piles = captured_piles(record, exchanged=exchanged)
    return _derived(record, captured={p: tuple(cards) for p, cards in piles.items()})


def honours_form(record: HandRecord, *, exchanged: bool = False) -> HandRecord:
    """The ``honours`` + ``sizes`` record: each pile's counting cards and its size."""
    piles = captured_piles(record, exchanged=exchanged)
    return _derived(
        record,
        honours={p: tuple(c for c in cards if VALUE[c] > 1) for p, cards in piles.items()},
        sizes={p: len(cards) for p, cards in piles.items()},
    )


def card_points(record: HandRecord) -> dict[str, Fraction]:
    """Counted card points of a full record: each pile's values less 2/3 per card,
    the Fool's exchange settled in the count."""
    shape = _piles(record)
    values = [sum(VALUE[c] for c in pile) for pile in shape.piles]
    sizes = [len(pile) for pile in shape.piles]
    if shape.fool_seat is not None and shape.owed_to is not None:
        moved = VALUE[FOOL_INDEX] if shape.forfeit else 1
        values[shape.fool_seat] -= moved
        values[shape.owed_to] += moved
        sizes[shape.fool_seat] -= 1
        sizes[shape.owed_to] += 1
    return {p: Fraction(3 * v - 2 * s, 3) for p, v, s in zip(record.players, values, sizes, strict=True)}


def points_form(record: HandRecord) -> HandRecord:
    """The ``points`` record: each player's counted card points."""
    return _derived(record, points=card_points(record))


# --- breaking a legal record -----------------------------------------------------


def violations(record: HandRecord) -> list[tuple[str, int, int, CardIndex]]:
    """Every illegal card of a full record as (code, trick number, seat, card).

    What a player held at a trick is every card they play from that trick on.
    """
    rules = record.ruleset
    played = _replay(record)
    later: list[list[set[CardIndex]]] = []
    holding: list[set[CardIndex]] = [set() for _ in record.players]
    for trick in reversed(played):
        for card, seat in zip(trick.cards, trick.seats, strict=True):
            holding[seat].add(card)
        later.append([set(h) for h in holding])
    later.reverse()
    found = []
    for number, trick in enumerate(played, start=1):
        before: list[CardIndex] = []
        for card, seat in zip(trick.cards, trick.seats, strict=True):
            legal = legal_cards(rules, sorted(later[number - 1][seat]), before)
            if card not in legal:
                found.append((_classify(rules, card, later[number - 1][seat], before), number, seat, card))
            before.append(card)
    return found


def _classify(rules: Ruleset, card: CardIndex, hand: set[CardIndex], before: list[CardIndex]) -> str:
    led = next(SUIT[c] for c in before if c != FOOL_INDEX)
    if any(SUIT[c] == led for c in hand):
        if SUIT[card] != led:
            return "revoke"
        return "failed_to_overtrump"
    if SUIT[card] != TRUMP:
        return "failed_to_trump"
    return "failed_to_overtrump"


def inject_violation(record: HandRecord, rng: random.Random, code: str | None = None) -> Injected | None:
    """Swap two cards one player played in different tricks so that exactly one card of
    the record becomes illegal, every trick keeping its winner (so every leader stays
    right). ``code`` asks for a particular problem. None when no such swap exists.

    Only the two tricks and the player's plays between them can change legality: the
    other players hold what they held, and the player holds the earlier card instead of
    the later one in between.
    """
    rules = record.ruleset
    played = _replay(record)
    n = len(record.players)
    hold: list[list[frozenset[CardIndex]]] = []
    holding: list[set[CardIndex]] = [set() for _ in range(n)]
    for trick in reversed(played):
        for card, seat in zip(trick.cards, trick.seats, strict=True):
            holding[seat].add(card)
        hold.append([frozenset(h) for h in holding])
    hold.reverse()
    spots = [
        [(t, k) for t, trick in enumerate(played) for k in range(n)
         if trick.seats[k] == seat and trick.cards[k] != FOOL_INDEX]
        for seat in range(n)
    ]
    pairs = [(seat, x, y) for seat in range(n) for i, x in enumerate(spots[seat]) for y in spots[seat][i + 1:]]
    rng.shuffle(pairs)
    for seat, (ti, ki), (tj, kj) in pairs:
        a, b = played[ti].cards[ki], played[tj].cards[kj]
        if code == "failed_to_overtrump" and not (SUIT[a] == TRUMP and SUIT[b] == TRUMP):
            continue
        if code in ("revoke", "failed_to_trump") and SUIT[a] == SUIT[b]:
            continue
        new = {
            ti: played[ti].cards[:ki] + (b,) + played[ti].cards[ki + 1:],
            tj: played[tj].cards[:kj] + (a,) + played[tj].cards[kj + 1:],
        }
        if any(trick_winner(rules, cards, played[t].seats) != played[t].winner for t, cards in new.items()):
            continue
        found = []
        for t in range(ti, tj + 1):
            cards = new.get(t, played[t].cards)
            for k, (card, who) in enumerate(zip(cards, played[t].seats, strict=True)):
                if t not in new and who != seat:
                    continue
                hand = hold[t][who]
                if who == seat and ti < t <= tj:
                    hand = (hand - {b}) | {a}
                if card not in legal_cards(rules, sorted(hand), cards[:k]):
                    found.append((_classify(rules, card, set(hand), list(cards[:k])), t + 1, who, card))
            if len(found) > 1:
                break
        if len(found) != 1 or (code is not None and found[0][0] != code):
            continue
        tricks = list(record.tricks or ())
        for t, cards in new.items():
            tricks[t] = replace(tricks[t], cards=cards)
        got, number, who, card = found[0]
        return Injected(replace(record, tricks=tuple(tricks)), got, number, record.players[who], card)
    return None
