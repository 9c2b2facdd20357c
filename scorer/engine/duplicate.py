"""Duplicate sessions: the same boards at every table, each result compared only with its peers.

A session file (``scarto-duplicate/1``, docs/DUPLICATE.md) names a deal set (its seed, its deal
and how many boards) and each table of each round: who sat where and the hand record of each
board it played. A board's result at a seat is compared with the results of the other players
who held those same cards, at the same seat of the same board, never with the other seats:
that is what takes the luck of the deal out of a club's ranking.

Two ways of scoring, as duplicate card games have them:

- ``matchpoints``: 2 for each other result at the seat that this one beats, 1 for each tie;
  the player's percentage on the board is those points over 2 x (results at the seat - 1), and
  50 % when the seat has no other result. The session ranks players by their average
  percentage over the boards they played.
- ``difference``: the hand score less the average of the other results at the seat (0 when
  there are none), summed over the boards.

Files from several clubs that played the same deal set merge into one ranking (a simultaneous
tournament): :func:`merge` checks that they did.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any, Literal

from .cards import CODES, CardIndex
from .deals import MAX_BOARDS, Board, deal_board, read_seed
from .errors import ReadError
from .limits import MAX_NAME
from .numbers import fraction_json
from .records import HandRecord, _kind, hand_to_dict, parse_hand, player_name
from .rulesets import DEALS
from .scoring import score_hand
from .validation import validate

FORMAT = "scarto-duplicate/1"
RANKING_FORMAT = "scarto-duplicate-ranking/1"
Scoring = Literal["matchpoints", "difference"]
SCORINGS: tuple[Scoring, ...] = ("matchpoints", "difference")
MAX_TABLES = 400
"""Table-rounds in one file: 60 players at 20 tables over 20 rounds; bounds the work of a ranking."""


@dataclass(frozen=True)
class BoardPlay:
    """One board as one table played it."""

    board: int
    hand: HandRecord


@dataclass(frozen=True)
class Table:
    """One table in one round: its players in seat order and the boards it played."""

    round: int
    table: int
    players: tuple[str, ...]
    plays: tuple[BoardPlay, ...]
    club: str | None = None
    """The club whose file the table came from, when files of several clubs are merged."""

    @property
    def deal(self) -> str:
        return next(iter(self.plays)).hand.ruleset.deal if self.plays else _deal_for(len(self.players), "three")


@dataclass(frozen=True)
class Session:
    """A duplicate session as its file holds it."""

    seed: str
    deal: str
    boards: int
    scoring: Scoring
    tables: tuple[Table, ...]
    club: str | None = None


def _deal_for(players: int, deal: str) -> str:
    """The deal a table plays: the session's for three players, ``four`` for a table of four."""
    return "four" if players == 4 else deal


# --- reading ------------------------------------------------------------------------------------


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ReadError.of("record.not_object", where or "record", kind=_kind(value))
    return value


def _whole(value: object, where: str, most: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ReadError.of("field.not_whole", where, value=repr(value))
    if most is not None and value > most:
        raise ReadError.of("limit.boards", where, count=value, limit=most)
    return value


def parse_duplicate(data: object) -> Session:
    """A ``scarto-duplicate/1`` value to a Session; ReadError naming the place of what is wrong."""
    obj = _object(data, "")
    given = obj.get("format", FORMAT)
    if given != FORMAT:
        raise ReadError.of("record.format", "format", given=repr(given), expected=repr(FORMAT))
    seed = read_seed(obj.get("seed"), "seed")
    deal = obj.get("deal", "three")
    if deal not in DEALS or deal == "four":
        raise ReadError.of("field.choice", "deal", value=repr(deal), allowed="three, piccolo")
    boards = _whole(obj.get("boards"), "boards", MAX_BOARDS)
    scoring = obj.get("scoring", "matchpoints")
    if scoring not in SCORINGS:
        raise ReadError.of("field.choice", "scoring", value=repr(scoring), allowed=", ".join(SCORINGS))
    club = _club(obj.get("club"))
    tables_value = obj.get("tables")
    if not isinstance(tables_value, list):
        raise ReadError.of("duplicate.tables", "tables")
    if len(tables_value) > MAX_TABLES:
        raise ReadError.of("limit.tables", "tables", count=len(tables_value), limit=MAX_TABLES)
    tables = tuple(_table(t, f"tables[{i}]", seed, deal, boards, club) for i, t in enumerate(tables_value))
    _played_once(tables)
    return Session(seed, deal, boards, scoring, tables, club)


def _club(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not player_name(value):
        raise ReadError.of("name.empty", "club")
    name = player_name(value)
    if len(name) > MAX_NAME:
        raise ReadError.of("limit.text", "club", length=len(name), limit=MAX_NAME)
    return name


def _table(value: object, where: str, seed: str, deal: str, boards: int, club: str | None) -> Table:
    obj = _object(value, where)
    number_round = _whole(obj.get("round"), f"{where}.round")
    number_table = _whole(obj.get("table"), f"{where}.table")
    players_value = obj.get("players")
    if not isinstance(players_value, list) or len(players_value) not in (3, 4):
        raise ReadError.of("duplicate.players", f"{where}.players")
    table_deal = _deal_for(len(players_value), deal)
    hands_value = obj.get("hands", [])
    if not isinstance(hands_value, list):
        raise ReadError.of("duplicate.hands", f"{where}.hands")
    plays = []
    players: tuple[str, ...] | None = None
    for i, entry in enumerate(hands_value):
        play = _play(entry, f"{where}.hands[{i}]", players_value, seed, table_deal, boards)
        players = players or play.hand.players
        plays.append(play)
    if players is None:  # a table that has played nothing yet: its names read as a hand's are
        players = parse_hand({"players": players_value, "dealer": players_value[0], "points": {
            p: 0 for p in players_value if isinstance(p, str)}, "ruleset": {"deal": table_deal}}).players
    return Table(number_round, number_table, players, tuple(plays), club)


def _play(value: object, where: str, players: list[Any], seed: str, deal: str, boards: int) -> BoardPlay:
    obj = _object(value, where)
    board = _whole(obj.get("board"), f"{where}.board")
    if board > boards:
        raise ReadError.of("duplicate.board", f"{where}.board", board=board, boards=boards)
    record = _object(obj.get("hand"), f"{where}.hand")
    if "players" not in record:  # the table's seats, unless the record names them itself
        record = {**record, "players": players}
    try:
        hand = parse_hand(record)
    except ReadError as exc:
        raise type(exc).of(exc.key, f"{where}.hand.{exc.where}".rstrip("."), **exc.params) from exc
    if list(hand.players) != [player_name(p) if isinstance(p, str) else p for p in players]:
        raise ReadError.of("duplicate.seats", f"{where}.hand.players")
    if hand.ruleset.deal != deal:
        raise ReadError.of("duplicate.deal", f"{where}.hand.ruleset", deal=hand.ruleset.deal, table=deal)
    dealt = deal_board(seed, board, deal)
    _check_cards(hand, dealt, f"{where}.hand")
    return BoardPlay(board, hand)


def check_play(hand: HandRecord, seed: str, board: int, where: str = "hand") -> None:
    """A hand recorded elsewhere (a club night's table) checked as a session file's is: dealt by the
    board's seat, every card it tells of held by the seat that played it; a ReadError naming both."""
    try:
        _check_cards(hand, deal_board(seed, board, hand.ruleset.deal), where)
    except ReadError as exc:  # a record checked on its own: its places named from the record, not ".dealer"
        raise type(exc).of(exc.key, exc.where.lstrip("."), **exc.params) from exc


def check_rounds(session: Session, per_round: int) -> None:
    """The session played as a club night plays it: round r's tables play boards (r - 1) x ``per_round`` + 1
    onwards, one a hand, in order (a night's match knows its boards only by that); ReadError naming the table."""
    for i, table in enumerate(session.tables):
        first = (table.round - 1) * per_round + 1
        if [p.board for p in table.plays] != list(range(first, first + len(table.plays))) or \
                len(table.plays) > per_round:
            raise ReadError.of("duplicate.round_boards", f"tables[{i}]", number=table.round, first=first,
                               last=first + per_round - 1)


def _check_cards(hand: HandRecord, dealt: Board, where: str) -> None:
    """The record against the board: the board's dealer deals, and every card a seat plays (or the
    dealer discards, or the record gives as the talon) is one that seat was dealt. Who played a
    card is the engine's replay of the tricks; a record it cannot replay says why by its problems."""
    dealer_seat = hand.players[dealt.dealer - 1]
    if hand.dealer != dealer_seat:
        raise ReadError.of("duplicate.dealer", f"{where}.dealer", board=dealt.number, seat=dealt.dealer,
                           name=dealer_seat, given=hand.dealer)
    held = [set(cards) for cards in dealt.hands]
    held[dealt.dealer - 1] |= set(dealt.talon)
    for card in hand.talon or ():
        if card not in dealt.talon:
            _not_dealt(card, dealt, dealt.dealer - 1, hand, f"{where}.talon")
    for card in hand.discard or ():
        if card not in held[dealt.dealer - 1]:
            _not_dealt(card, dealt, dealt.dealer - 1, hand, f"{where}.discard")
    replay = validate(hand, partial=True).replay if hand.tricks else None
    for trick in replay.tricks if replay else ():
        for card, seat in zip(trick.cards, trick.seats, strict=True):
            if card not in held[seat]:
                _not_dealt(card, dealt, seat, hand, f"{where}.tricks[{trick.number - 1}]")


def _not_dealt(card: CardIndex, dealt: Board, seat: int, hand: HandRecord, where: str) -> None:
    """Refuse a card the seat was not dealt, naming the card, the seat that was, and the board."""
    holder = next((s for s, cards in enumerate(dealt.hands) if card in cards), None)
    if holder is None:
        raise ReadError.of("duplicate.talon_card", where, card=CODES[card], board=dealt.number,
                           player=hand.players[seat])
    raise ReadError.of("duplicate.card", where, card=CODES[card], board=dealt.number, seat=holder + 1,
                       name=hand.players[holder], player=hand.players[seat])


def _played_once(tables: Sequence[Table]) -> None:
    """Nobody plays a board twice: a second result of one player on one board would count twice."""
    seen: dict[tuple[str | None, str, str, int], int] = {}
    for index, table in enumerate(tables):
        for play in table.plays:
            for name in table.players:
                key = (table.club, table.deal, name, play.board)
                if key in seen:
                    raise ReadError.of("duplicate.twice", f"tables[{index}]", name=name, board=play.board)
                seen[key] = index


# --- writing ------------------------------------------------------------------------------------


def duplicate_to_dict(session: Session) -> dict[str, Any]:
    """The session's file: reading it back gives the same session."""
    out: dict[str, Any] = {"format": FORMAT, "seed": session.seed, "deal": session.deal,
                           "boards": session.boards, "scoring": session.scoring}
    if session.club is not None:
        out["club"] = session.club
    out["tables"] = [
        {"round": t.round, "table": t.table, "players": list(t.players),
         "hands": [{"board": p.board, "hand": hand_to_dict(p.hand)} for p in t.plays]}
        for t in session.tables
    ]
    return out


# --- merging ------------------------------------------------------------------------------------


def merge(sessions: Sequence[Session]) -> Session:
    """Files of several clubs that played one deal set, as one session; each table keeps its club."""
    first = sessions[0]
    for other in sessions[1:]:
        if (other.seed, other.deal) != (first.seed, first.deal):
            raise ReadError.of("duplicate.other_set", "seed", seed=other.seed, deal=other.deal,
                               first_seed=first.seed, first_deal=first.deal)
        if other.scoring != first.scoring:
            raise ReadError.of("duplicate.other_scoring", "scoring", scoring=other.scoring, first=first.scoring)
    clubs = [s.club or f"{i + 1}" for i, s in enumerate(sessions)] if len(sessions) > 1 else [first.club]
    tables = tuple(Table(t.round, t.table, t.players, t.plays, club) for s, club in zip(sessions, clubs, strict=True)
                   for t in s.tables)
    _played_once(tables)
    return Session(first.seed, first.deal, max(s.boards for s in sessions), first.scoring, tables,
                   first.club if len(sessions) == 1 else None)


# --- scoring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatResult:
    """One player's result on one board, and how it compares with the others at the seat."""

    board: int
    deal: str
    seat: int
    round: int
    table: int
    club: str | None
    player: str
    score: Fraction
    matchpoints: int
    top: int
    """The most matchpoints the seat gives: 2 x (results at the seat - 1)."""
    difference: Fraction

    @property
    def percent(self) -> Fraction:
        return Fraction(self.matchpoints, self.top) * 100 if self.top else Fraction(50)


@dataclass(frozen=True)
class PlayerRanking:
    """A player's line of the session's ranking."""

    rank: int
    name: str
    club: str | None
    boards: int
    percent: Fraction
    difference: Fraction


@dataclass(frozen=True)
class Ranking:
    """The session's ranking and every board's results, as the travellers show them."""

    session: Session
    players: tuple[PlayerRanking, ...]
    results: tuple[SeatResult, ...]
    unscored: tuple[tuple[int, int, int], ...]
    """(round, table, board) of hands whose record has errors: they score nothing until mended."""


def _scored(session: Session) -> tuple[list[tuple[Table, int, str, int, Fraction]], list[tuple[int, int, int]]]:
    """Each seat's score of each board played, and the plays that could not be scored."""
    out, unscored = [], []
    for table in session.tables:
        for play in table.plays:
            result = score_hand(play.hand)
            if result.counts is None:
                unscored.append((table.round, table.table, play.board))
                continue
            for seat, count in enumerate(result.counts, start=1):
                out.append((table, play.board, count.name, seat, count.score))
    return out, unscored


def rank(session: Session) -> Ranking:
    """Compare every result with the others at its board and seat, then rank the players."""
    scored, unscored = _scored(session)
    peers: dict[tuple[str, int, int], list[Fraction]] = defaultdict(list)
    for table, board, _name, seat, score in scored:
        peers[table.deal, board, seat].append(score)
    results = []
    for table, board, name, seat, score in scored:
        others = list(peers[table.deal, board, seat])
        others.remove(score)
        points = sum(2 if score > o else 1 if score == o else 0 for o in others)
        average = sum(others, Fraction(0)) / len(others) if others else score
        results.append(SeatResult(board, table.deal, seat, table.round, table.table, table.club, name, score,
                                  points, 2 * len(others), score - average))
    results.sort(key=lambda r: (r.deal, r.board, r.seat, -r.score, r.round, r.table))
    return Ranking(session, _players(results, session.scoring), tuple(results), tuple(unscored))


def _players(results: Iterable[SeatResult], scoring: Scoring) -> tuple[PlayerRanking, ...]:
    """Players best first by the session's scoring; equal values share a rank (1, 2, 2, 4)."""
    by_player: dict[tuple[str | None, str], list[SeatResult]] = defaultdict(list)
    for r in results:
        by_player[r.club, r.player].append(r)
    lines = []
    for (club, name), mine in by_player.items():
        percent = sum((r.percent for r in mine), Fraction(0)) / len(mine)
        difference = sum((r.difference for r in mine), Fraction(0))
        value = percent if scoring == "matchpoints" else difference
        lines.append((value, PlayerRanking(0, name, club, len(mine), percent, difference)))
    lines.sort(key=lambda line: (-line[0], line[1].name, line[1].club or ""))
    ranked: list[PlayerRanking] = []
    for i, (value, line) in enumerate(lines):
        place = ranked[-1].rank if i and lines[i - 1][0] == value else i + 1
        ranked.append(replace(line, rank=place))
    return tuple(ranked)


def percent_text(value: Fraction) -> str:
    """A percentage to two decimals, rounded half to even as the exact fraction says (66.67)."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


def ranking_to_dict(ranking: Ranking) -> dict[str, Any]:
    """The ``scarto-duplicate-ranking/1`` object (docs/DUPLICATE.md): players best first, then each
    board's results seat by seat, as a traveller lists them."""
    session = ranking.session
    players = []
    for p in ranking.players:
        line: dict[str, Any] = {"rank": p.rank, "name": p.name}
        if p.club is not None:
            line["club"] = p.club
        line |= {"boards": p.boards, "percent": float(percent_text(p.percent)),
                 "difference": fraction_json(p.difference)}
        players.append(line)
    boards: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in ranking.results:
        entry: dict[str, Any] = {"seat": r.seat, "round": r.round, "table": r.table, "player": r.player}
        if r.club is not None:
            entry["club"] = r.club
        entry |= {"score": fraction_json(r.score), "matchpoints": r.matchpoints, "top": r.top,
                  "percent": float(percent_text(r.percent)), "difference": fraction_json(r.difference)}
        boards[r.deal, r.board].append(entry)
    return {
        "format": RANKING_FORMAT, "seed": session.seed, "deal": session.deal, "scoring": session.scoring,
        "players": players,
        "boards": [{"board": board, "deal": deal, "results": results}
                   for (deal, board), results in sorted(boards.items(), key=lambda item: (item[0][1], item[0][0]))],
        "unscored": [{"round": r, "table": t, "board": b} for r, t, b in ranking.unscored],
    }
