"""``scarto-club/1`` (docs/CLUB.md): a club's file read and written, without a database.

A club moves between installations as one file (or, when it is large, as a file in parts): its
name, its defaults for new matches, its roster, seasons, matches and history. This module reads
such a value into a :class:`ClubFile` and says what and where when it cannot (a
:class:`ReadError` told by a template, as every reader of the engine does), and it writes a
file's parts from plain values: the storage layer only stores what was read here and hands
over what it stored, and the ``scarto`` command reads a club's file with no SQLite at all.

Names are read as a match reads its players' (:func:`clean_name`), so a roster and its matches
agree on who is who; every list is counted before its entries are read, so the work of reading
a file stays bounded by :mod:`.limits`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from typing import Any

from .errors import ReadError, ScartoError
from .limits import (
    CLUB_PART_BYTES,
    CLUB_PART_HANDS,
    MAX_CLUB_FILE_HANDS,
    MAX_CLUB_MATCHES,
    MAX_NAME,
    MAX_ROSTER,
    MAX_SEASONS,
)
from .records import (
    MatchRecord,
    check_name,
    dumps,
    match_to_dict,
    one_space,
    parse_match,
    player_name,
)
from .rulesets import find_ruleset
from .scoring import HandResult, score_hand
from .seasons import SeasonRule, read_rule

CLUB_FORMAT = "scarto-club/1"
DEFAULT_KEYS = ("language", "pack", "ruleset", "end", "settle", "stake")
"""What a club's defaults for new matches may hold (as in ``scarto-match/1``)."""
MAX_SHORT = 12
"""A short name's length, for narrow columns (CLUB.md)."""
PART_ONLY = ("format", "name", "part", "matches")
"""What a later part holds: the club its part 1 made has the rest."""

Player = tuple[str, str | None]
"""A roster entry: the name and the short name (None when there is none)."""
SeasonSpan = tuple[str, str, str, SeasonRule]
"""A season: its name, its first and its last day (ISO dates, both included), how its table ranks."""


# --- what every format of a club reads alike ------------------------------------------


def read_head(data: object, expected: str) -> dict[str, Any]:
    """The file's object, once its ``format`` (absent: the one expected) is the one expected: a club's
    and a night's file begin alike."""
    if not isinstance(data, dict):
        raise ReadError.of("record.not_object", "record", kind=type(data).__name__)
    given = data.get("format", expected)
    if given != expected:
        raise ReadError.of("record.format", "format", given=repr(given), expected=repr(expected))
    return data


def clean_name(value: object, where: str = "name", *, player: bool = True) -> str:
    """A player's (or club's) name as RECORD.md reads names, as a match reads its players (NFC, zero-width
    characters taken out, trimmed), runs of spaces inside it made one: 1 to 40 characters of one line of
    visible text (records.check_name). So "Anna" and "Anna" with a zero-width space in it are one roster
    player, as they are one player in a match, and a name typed with two spaces between its words is not a
    second player.
    ``player=False`` for a club's, a season's or a night's name: an empty one is not "a player name"."""
    name = player_name(value) if isinstance(value, str) else ""
    if not name:
        raise ReadError.of("players.empty_name", where) if player else ReadError.of("name.empty", where)
    check_name(name, where)  # one line of visible text, as a match's players
    name = one_space(name)  # "Anna   Rossi" is Anna Rossi, as name_key compares
    if len(name) > MAX_NAME:
        raise ReadError.of("players.too_long", where, length=len(name), most=MAX_NAME)
    return name


def name_key(name: str) -> str:
    """What two roster names are compared by: the name as a match reads it, spaces inside it counted as
    one, in any case. A name stored
    before rosters were read so (with a zero-width space, or an accent as a second character) still
    finds its player, and no second one is made for it."""
    return one_space(player_name(name)).casefold()


def short_name(value: str | None) -> str | None:
    """A short name as its name is read; none when nothing visible is left (spaces, zero-width characters)."""
    if value is None or not player_name(value):
        return None
    return clean_name(value, "short")[:MAX_SHORT]


def read_date(value: object, where: str) -> str:
    """A day written YYYY-MM-DD (a season's ends, a night's date), as ISO writes it."""
    if not isinstance(value, str):
        raise ReadError.of("date.form", where)
    try:
        return date.fromisoformat(value.strip()).isoformat()
    except ValueError as exc:
        raise ReadError.of("date.form", where) from exc


def check_defaults(value: object, where: str = "defaults") -> dict[str, Any]:
    """A club's defaults, read as a ``scarto-match/1`` would be and written canonically (ReadError if bad)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ReadError.of("record.not_object", where, kind=type(value).__name__)
    unknown = [k for k in value if k not in DEFAULT_KEYS]
    if unknown:
        raise ReadError.of("club.defaults", f"{where}.{unknown[0]}")
    ruleset = find_ruleset(value.get("ruleset"))
    names = [f"P{i}" for i in range(1, ruleset.players + 1)]
    match = parse_match({**value, "format": "scarto-match/1", "players": names, "first_dealer": names[0],
                         "hands": []})
    written = match_to_dict(match)
    return {k: written[k] for k in DEFAULT_KEYS if k in value and k in written}


# --- a club's file, read --------------------------------------------------------------


@dataclass(frozen=True)
class PartMark:
    """A part's ``part`` key: its number, how many parts the club's file had, its first match's number."""

    file: str
    """The id of the club's file the part is of (written from the club it was exported from)."""
    number: int
    of: int
    first_match: int

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "number": self.number, "of": self.of, "first_match": self.first_match}


@dataclass(frozen=True)
class ClubHead:
    """What a club's file holds besides its matches, as plain values (the storage's rows read, or a file's)."""

    name: str
    defaults: dict[str, Any]
    players: Sequence[Player]
    """The roster as it stands (players merged into another left out)."""
    seasons: Sequence[SeasonSpan]
    history: Sequence[dict[str, Any]]
    """Each event as the file writes it: ``at``, ``event`` and its details."""

    def value(self, part: PartMark | None, *, first: bool) -> dict[str, Any]:
        """The file's keys but its matches (an empty list in their place): the whole club's for the
        first part, only the format, name and part for the others (the club the first made has the rest)."""
        out: dict[str, Any] = {"format": CLUB_FORMAT, "name": self.name}
        if part is not None:
            out["part"] = part.to_dict()
        if not first:
            out["matches"] = []
            return out
        if self.defaults:
            out["defaults"] = self.defaults
        out["players"] = [{"name": name, **({"short": short} if short else {})} for name, short in self.players]
        if self.seasons:
            out["seasons"] = [_season_value(*season) for season in self.seasons]
        out["matches"] = []
        if self.history:
            out["history"] = list(self.history)
        return out


@dataclass(frozen=True)
class ClubFile(ClubHead):
    """A ``scarto-club/1`` value read and checked, ready to store: the club (written back as it was read
    by :meth:`ClubHead.value`) and its matches."""

    matches: Sequence[tuple[MatchRecord, list[str]]] = ()
    """Each match with the roster name of each of its seats."""
    part: PartMark | None = None
    """Which part of a club's file this is, for a club written in parts (None: a whole club's file)."""

    @cached_property
    def results(self) -> list[list[HandResult]]:
        """Each match's hands judged, once: to refuse a file with errors, then to store it (not again
        inside the write)."""
        judged = []
        for match, _seated in self.matches:
            judged.append([score_hand(hand) for hand in match.hands])
            let_threads_run()
        return judged


def let_threads_run() -> None:
    """Between two matches of a club file being read or judged (seconds of work for a large one), the
    process's other threads get the interpreter: a thread of this process that saves a hand or makes a
    page takes it back after each call into SQLite or the network, and without a pause here waited up
    to the interpreter's switch interval (5 ms) each time, a hundred times a save."""
    time.sleep(0)


def parse_club(data: object) -> ClubFile:
    """A ``scarto-club/1`` value to a ClubFile; ReadError naming what and where otherwise.

    ``players`` entries are names or ``{"name", "short"}`` objects; a match's seat is
    played by the roster player of its ``roster`` entry, else of its own name (a name
    not on the roster joins it).
    """
    value = read_head(data, CLUB_FORMAT)
    name = clean_name(value.get("name"), "name", player=False)
    defaults = check_defaults(value.get("defaults"))
    players = _roster(value.get("players", []))
    seasons = _seasons(value.get("seasons", []))
    matches = _matches(value.get("matches", []), {player.casefold() for player, _short in players})
    history = _history(value.get("history", []))
    return ClubFile(name, defaults, players, seasons, history, matches, read_part(value))


def _roster(raw: object) -> list[Player]:
    """The ``players`` list: each name once in any case, at most :data:`MAX_ROSTER` (counted first)."""
    if not isinstance(raw, list):
        raise ReadError.of("players.not_list", "players")
    if len(raw) > MAX_ROSTER:  # before any name is read
        raise ReadError.of("limit.roster", "players", count=len(raw), limit=MAX_ROSTER)
    players: list[Player] = []
    folded: set[str] = set()
    for i, entry in enumerate(raw):
        player = _roster_entry(entry, f"players[{i}]")
        if player[0].casefold() in folded:
            raise ReadError.of("players.named_twice", "players", name=repr(player[0]))
        folded.add(player[0].casefold())
        players.append(player)
    return players


def _roster_entry(entry: object, where: str) -> Player:
    """A name, or ``{"name", "short"}``."""
    if not isinstance(entry, dict):
        return clean_name(entry, where), None
    short = entry.get("short")
    if short is not None and not isinstance(short, str):
        raise ReadError.of("field.not_text", f"{where}.short", kind=type(short).__name__)
    return clean_name(entry.get("name"), f"{where}.name"), short_name(short)


def _seasons(raw: object) -> list[SeasonSpan]:
    """The ``seasons`` list, at most :data:`MAX_SEASONS` (counted first), each ending on or after its start."""
    if not isinstance(raw, list):
        raise ReadError.of("club.seasons", "seasons")
    if len(raw) > MAX_SEASONS:
        raise ReadError.of("limit.seasons", "seasons", count=len(raw), limit=MAX_SEASONS)
    return [_season(entry, f"seasons[{i}]") for i, entry in enumerate(raw)]


def _season(entry: object, where: str) -> SeasonSpan:
    if not isinstance(entry, dict):
        raise ReadError.of("record.not_object", where, kind=type(entry).__name__)
    start, end = read_date(entry.get("from"), f"{where}.from"), read_date(entry.get("to"), f"{where}.to")
    if end < start:
        raise ReadError.of("club.season_backwards", where)
    return (clean_name(entry.get("name"), f"{where}.name", player=False), start, end,
            read_rule(entry.get("ranking"), f"{where}.ranking"))


def _season_value(name: str, start: str, end: str, rule: SeasonRule) -> dict[str, Any]:
    """A season as the file writes it: ``ranking`` only when it is not by the total (so a club whose
    seasons rank by the total writes the file it wrote before seasons had a rule)."""
    ranking = rule.to_value()
    return {"name": name, "from": start, "to": end, **({"ranking": ranking} if ranking else {})}


def _matches(raw: object, folded: set[str]) -> list[tuple[MatchRecord, list[str]]]:
    """The ``matches`` list, each with its seats' roster names. Bounded three ways: the matches (counted
    before any is read: each costs about half a millisecond to store), the hands of all of them (one
    write stores the file: its length bounds what the other writers wait) and the roster the new names
    make with ``folded``, the roster's names in any case (added to as names join)."""
    if not isinstance(raw, list):
        raise ReadError.of("record.hands", "matches")
    if len(raw) > MAX_CLUB_MATCHES:
        raise ReadError.of("limit.club_matches", "matches", count=len(raw), limit=MAX_CLUB_MATCHES)
    matches = []
    hands = 0
    for i, entry in enumerate(raw):
        let_threads_run()
        where = f"matches[{i}]"
        match, seated = _match(entry, where)
        hands += len(match.hands)
        if hands > MAX_CLUB_FILE_HANDS:
            raise ReadError.of("limit.club_hands", "matches", count=hands, limit=MAX_CLUB_FILE_HANDS)
        matches.append((match, seated))
        folded.update(s.casefold() for s in seated)  # a name not on the roster joins it
        if len(folded) > MAX_ROSTER:
            raise ReadError.of("limit.roster", f"{where}.roster", count=len(folded), limit=MAX_ROSTER)
    return matches


def _match(entry: object, where: str) -> tuple[MatchRecord, list[str]]:
    """A ``scarto-match/1`` of the list, its problems told at their place in the club's file, and the
    roster name of each seat (its ``roster`` entry's, else the seat's own)."""
    try:
        match = parse_match(entry)
    except ScartoError as exc:
        raise ReadError.of(exc.key, f"{where}.{exc.where}" if exc.where else where, **exc.params) from exc
    mapping = entry.get("roster", {}) if isinstance(entry, dict) else {}
    if not isinstance(mapping, dict) or not all(k in match.players for k in mapping):
        raise ReadError.of("club.roster_map", f"{where}.roster")
    seated = [clean_name(mapping.get(p, p), f"{where}.roster") for p in match.players]
    if len({s.casefold() for s in seated}) != len(seated):
        raise ReadError.of("club.same_player", f"{where}.roster")
    return match, seated


def _history(raw: object) -> list[dict[str, Any]]:
    """The ``history`` list: objects, each with the time (``at``) and the kind (``event``) of a change."""
    if not isinstance(raw, list) or not all(
            isinstance(e, dict) and isinstance(e.get("event"), str) and isinstance(e.get("at"), str)
            for e in raw):
        raise ReadError.of("club.history", "history")
    return [dict(e) for e in raw]


def read_part(data: dict[str, Any]) -> PartMark | None:
    """The file's ``part`` key (None for a whole club's file); a later part holds only :data:`PART_ONLY`."""
    value = data.get("part")
    if value is None:
        return None
    numbers = [value.get(k) for k in ("number", "of", "first_match")] if isinstance(value, dict) else []
    if len(numbers) != 3 or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_CLUB_MATCHES
                                    for n in numbers):
        raise ReadError.of("part.form", "part")
    file = value.get("file") if isinstance(value, dict) else None
    if not isinstance(file, str) or not 0 < len(file) <= 64:
        raise ReadError.of("part.form", "part.file")
    mark = PartMark(file, *(int(n) for n in numbers if isinstance(n, int)))
    if mark.number > mark.of or (mark.number == 1) != (mark.first_match == 1):
        raise ReadError.of("part.form", "part")
    extra = [key for key in data if key not in PART_ONLY] if mark.number > 1 else []
    if extra:
        raise ReadError.of("part.extra", extra[0])
    return mark


# --- a club's file, written -------------------------------------------------------------


@dataclass(frozen=True)
class FilePart:
    """Consecutive matches of the club, oldest first, written in one file of its export."""

    number: int
    first: int
    """Its first match's index among the club's matches, oldest first (from 0)."""
    count: int
    hands: int
    size: int
    """Its file's bytes at most (exact but for the digits of its ``part`` numbers)."""


LONGEST_MARK = PartMark("f" * 16, MAX_CLUB_MATCHES, MAX_CLUB_MATCHES, MAX_CLUB_MATCHES)
"""A ``part`` as long as any written (a part holds a match at least): the head measured with it
bounds every part's own."""


def file_bytes(match: dict[str, Any]) -> int:
    """The bytes a match (a ``scarto-match/1`` value) takes in a club file's ``matches`` list, as
    :func:`scorer.engine.records.dumps` writes it there: two levels in, four more spaces on each line."""
    text = json.dumps(match, ensure_ascii=False, indent=2)
    return len(text.encode()) + 4 * (text.count("\n") + 1)


def entry_bytes(match_bytes: int, mapping: dict[str, str]) -> int:
    """A match's bytes in the list with its ``roster`` entry, a new line and a comma (or "\\n  ]")."""
    return match_bytes + _roster_bytes(mapping) + 2


@lru_cache(maxsize=4096)
def _mapping_bytes(pairs: tuple[tuple[str, str], ...]) -> int:
    return file_bytes({"k": 0, "roster": dict(pairs)}) - file_bytes({"k": 0})


def _roster_bytes(mapping: dict[str, str]) -> int:
    """What a match's ``roster`` entry adds to its bytes in the club file (nothing when empty): a club's
    matches share a few (a renamed player's seats), each measured once."""
    return _mapping_bytes(tuple(mapping.items())) if mapping else 0


def _size(value: dict[str, Any]) -> int:
    return len(dumps(value).encode())


def cut_parts(head: Callable[[PartMark | None, bool], dict[str, Any]],
              matches: Sequence[tuple[int, int]]) -> list[FilePart]:
    """The matches, oldest first, each as (:func:`entry_bytes`, hands), cut into parts of at most
    :data:`CLUB_PART_BYTES` and :data:`CLUB_PART_HANDS` (a match alone always makes a part; a club of no
    match is one file). ``head(part, first)`` is the file's value but its matches (:meth:`ClubHead.value`)."""
    # in place of "[]": "[", each match after a new line, a comma between, "\n  ]"
    whole = _size(head(None, True)) + (sum(b for b, _h in matches) + 2 if matches else 0)
    hands = sum(h for _b, h in matches)
    if (whole <= CLUB_PART_BYTES and hands <= CLUB_PART_HANDS) or not matches:
        return [FilePart(1, 0, len(matches), hands, whole)]
    heads = (_size(head(LONGEST_MARK, True)) + 2, _size(head(LONGEST_MARK, False)) + 2)
    parts: list[FilePart] = []
    start, size, held = 0, heads[0], 0
    for index, (match_bytes, match_hands) in enumerate(matches):
        if index > start and (size + match_bytes > CLUB_PART_BYTES or held + match_hands > CLUB_PART_HANDS):
            parts.append(FilePart(len(parts) + 1, start, index - start, held, size))
            start, size, held = index, heads[1], 0
        size, held = size + match_bytes, held + match_hands
    parts.append(FilePart(len(parts) + 1, start, len(matches) - start, held, size))
    return parts
