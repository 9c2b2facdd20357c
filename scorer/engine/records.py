"""Hand and match records (RECORD.md): read leniently, written strictly.

``parse_hand`` turns the JSON value of a ``scarto-hand/1`` record into a
:class:`HandRecord`, raising :class:`ReadError` that names what and where for
anything that is not a usable record. Whether the record keeps the rules is
not its business: that is :mod:`scorer.engine.validation`'s.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from .cardnames import LANGUAGES, PACKS
from .cards import CODES, INDICES, CardIndex, Seat, parse_index
from .errors import ReadError
from .limits import (
    MAX_CARDS,
    MAX_CURRENCY,
    MAX_END_HANDS,
    MAX_END_TARGET,
    MAX_HANDS,
    MAX_NAME,
    MAX_TRICKS,
    TEXT_LIMITS,
)
from .numbers import fraction_json, parse_points
from .rulesets import Ruleset, find_ruleset, ruleset_spec

HAND_FORMAT = "scarto-hand/1"
MATCH_FORMAT = "scarto-match/1"
BODIES = ("tricks", "captured", "honours", "points")
"""The four record forms, from the most to the least detailed."""

SETTLE = ("per_point", "loser_pays")


@dataclass(frozen=True)
class Trick:
    """One trick: the cards in the order played, and the leader if recorded."""

    cards: tuple[CardIndex, ...]
    leader: str | None = None


@dataclass(frozen=True)
class HandRecord:
    """One hand in any of the four forms; exactly one of the bodies is set."""

    ruleset: Ruleset
    players: tuple[str, ...]
    dealer: str
    tricks: tuple[Trick, ...] | None = None
    discard: tuple[CardIndex, ...] | None = None
    talon: tuple[CardIndex, ...] | None = None
    captured: dict[str, tuple[CardIndex, ...]] | None = None
    honours: dict[str, tuple[CardIndex, ...]] | None = None
    sizes: dict[str, int] | None = None
    points: dict[str, Fraction] | None = None
    ultimo: str | None = None
    number: int | None = None
    notes: str | None = None
    recorded_at: str | None = None
    ruleset_given: Any = field(default=None, compare=False)
    """The ``ruleset`` value as the record wrote it (results echo it)."""

    @property
    def form(self) -> str:
        """Which body the record has: tricks, captured, honours or points."""
        if self.tricks is not None:
            return "tricks"
        if self.captured is not None:
            return "captured"
        if self.honours is not None:
            return "honours"
        return "points"

    @property
    def dealer_index(self) -> Seat:
        return Seat(self.players.index(self.dealer))


@dataclass(frozen=True)
class Stake:
    """Money per point (or per stake for ``loser_pays``), kept as an exact decimal."""

    per_point: Decimal
    currency: str = "EUR"


@dataclass(frozen=True)
class MatchRecord:
    """A whole match: its settings and its hands, in the order played."""

    players: tuple[str, ...]
    first_dealer: str
    hands: tuple[HandRecord, ...]
    ruleset: Ruleset
    ruleset_given: Any = field(default=None, compare=False)
    title: str | None = None
    place: str | None = None
    date: str | None = None
    language: str | None = None
    pack: str | None = None
    end: dict[str, int] | None = None
    settle: str = "per_point"
    stake: Stake | None = None


# --- reading -------------------------------------------------------------------


def loads(text: str | bytes, where: str = "") -> Any:
    """JSON text to a value; ReadError that says where the JSON breaks.

    Bytes are read as UTF-8 and nothing else (RECORD.md): Python's reader would guess UTF-16
    or UTF-32 from the first bytes, so a file another program cannot read would be read here.
    ``NaN`` and ``Infinity`` are JavaScript, not JSON: Python's reader takes them as numbers.
    """
    # a leading byte-order mark is ignored (RECORD.md): editors on Windows write one
    # a NUL is valid UTF-8 but never in JSON text: it is UTF-16 or UTF-32 without a mark, read as UTF-8
    if isinstance(text, bytes) and b"\x00" in text or isinstance(text, str) and "\x00" in text:
        raise ReadError.of("json.not_utf8", where)
    if isinstance(text, bytes):
        try:
            text = text.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReadError.of("json.not_utf8", where) from exc
        may_hold_surrogate = "\\u" in text
    else:
        text = text.removeprefix("\ufeff")
        may_hold_surrogate = "\\u" in text or not text.isascii()
    try:
        value = json.loads(text, parse_constant=_not_a_number)
        if may_hold_surrogate:
            _refuse_lone_surrogates(value)
        return value
    except NotJSON as exc:
        raise ReadError.of("json.constant", where, name=exc.args[0]) from None
    except UnicodeEncodeError as exc:
        raise ReadError.of("json.lone_surrogate", where) from exc
    except json.JSONDecodeError as exc:
        raise ReadError.of("json.syntax", where, reason=exc.msg, line=exc.lineno, column=exc.colno) from exc
    except RecursionError as exc:
        raise ReadError.of("json.too_deep", where) from exc
    except ValueError as exc:  # e.g. an integer longer than Python converts (4300 digits)
        raise ReadError.of("json.long_number", where) from exc


def _refuse_lone_surrogates(value: Any) -> None:
    """UnicodeEncodeError if a string in ``value`` holds half a surrogate pair.

    JSON may escape one (``"\\ud800"``): Python reads it into a str that is not text and fails
    later, when it is written; it is refused here, where the input is read. Writing the value
    out again costs more than reading it, so :func:`loads` asks only when the text could hold
    one: text decoded from UTF-8 holds no surrogate of its own (the decoder refuses them), so
    one can only come from a ``\\u`` escape; a str given as it is may hold any character.
    """
    json.dumps(value, ensure_ascii=False).encode("utf-8")


class NotJSON(Exception):
    """``NaN``, ``Infinity`` or ``-Infinity`` met while reading (not a ValueError: the reader's own
    errors are, and this one must not be taken for them)."""


def _not_a_number(name: str) -> Any:
    raise NotJSON(name)


def present(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without its keys given as ``null``: RECORD.md reads an optional key given as null
    as absent (so a required one given as null is missing, and told so)."""
    if None not in obj.values():  # the common case: nothing to take out
        return obj
    return {key: value for key, value in obj.items() if value is not None}


def parse_hand(data: object) -> HandRecord:
    """A ``scarto-hand/1`` value to a HandRecord; ReadError if it cannot be used."""
    obj, ruleset, players = _read_head(data, HAND_FORMAT)
    return _hand_body(obj, ruleset, players, "", obj.get("ruleset", "classic"))


def parse_match(data: object) -> MatchRecord:
    """A ``scarto-match/1`` value to a MatchRecord; ReadError if it cannot be used."""
    obj, ruleset, players = _read_head(data, MATCH_FORMAT)
    first_dealer = _player(obj.get("first_dealer"), players, "first_dealer")
    hands_value = obj.get("hands")
    if not isinstance(hands_value, list):
        raise ReadError.of("record.hands", "hands")
    hands = tuple(
        _hand_body(_object(h, f"hands[{i}]"), ruleset, players, f"hands[{i}].", obj.get("ruleset", "classic"))
        for i, h in enumerate(hands_value)
    )
    return MatchRecord(
        players=players,
        first_dealer=first_dealer,
        hands=hands,
        ruleset=ruleset,
        ruleset_given=obj.get("ruleset", "classic"),
        title=_optional_text(obj, "title", ""),
        place=_optional_text(obj, "place", ""),
        date=_optional_text(obj, "date", ""),
        language=_choice(obj, "language", LANGUAGES),
        pack=_choice(obj, "pack", PACKS),
        end=_end(obj.get("end")),
        settle=_choice(obj, "settle", SETTLE) or "per_point",
        stake=_stake(obj.get("stake")),
    )


def _read_head(data: object, expected_format: str) -> tuple[dict[str, Any], Ruleset, tuple[str, ...]]:
    """What a hand file and a match file begin with alike, read in the same order so that both refuse
    the same faults with the same error: an object of the format, not larger than any match, then its
    ruleset and its players."""
    obj = _object(data, "")
    _check_format(obj, expected_format)
    _check_sizes(obj)
    ruleset = find_ruleset(obj.get("ruleset"))
    return obj, ruleset, _players(obj.get("players"), ruleset)


def _object(data: object, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ReadError.of("record.not_object", where.rstrip(".") or "record", kind=_kind(data))
    return present(data)


def _check_format(obj: dict[str, Any], expected: str) -> None:
    given = obj.get("format", expected)
    if given != expected:
        raise ReadError.of("record.format", "format", given=repr(given), expected=repr(expected))


ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
"""Invisible characters taken out of names, so that "Anna" and "Anna" with a zero-width space
are one name (``str.translate`` table)."""


def player_name(text: str) -> str:
    """A name as it is read everywhere a name appears: NFC, zero-width characters removed, no
    surrounding white space."""
    if text.isascii():  # the common case, nothing to normalise
        return text.strip()
    return unicodedata.normalize("NFC", text.translate(ZERO_WIDTH)).strip()


BLANK_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
                (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
                (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
"""Characters that show nothing: Unicode's default-ignorable code points (the soft hyphen, the invisible
separator U+2063, the Hangul fillers U+3164 and U+FFA0, variation selectors, tag characters...) and the
blank Braille pattern U+2800, which a font draws as an empty cell."""


def _blank(ch: str) -> bool:
    code = ord(ch)
    return ch.isspace() or any(low <= code <= high for low, high in BLANK_RANGES)


VARIATION_SELECTORS = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
"""Invisible, but part of what is seen: they pick a character's look (the emoji in "Anna ❤️")."""


def _hidden(ch: str) -> bool:
    """A character inside a name that shows nothing of its own and so makes a second name look like the
    first: a format character (U+202E, U+00AD, U+2063, tags...) or another blank one (U+3164...)."""
    if unicodedata.category(ch) == "Cf":
        return True
    code = ord(ch)
    return (not ch.isspace() and _blank(ch)
            and not any(low <= code <= high for low, high in VARIATION_SELECTORS))


def _line_break_or_control(ch: str) -> bool:
    """A control character (NUL, tab, line feed...) or a line or paragraph separator (U+2028, U+2029)."""
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def check_name(name: str, where: str) -> None:
    """Refuse a name (a player's, a club's) that cannot be read as one line of visible text: one holding a
    control character or a line separator, one made only of invisible characters (two "empty" players),
    one holding a format character or another that shows nothing (a bidi override such as U+202E turns
    "anna" around; a soft hyphen, U+2063 or U+3164 makes "Anna" a second, identical-looking player).
    ``name`` as :func:`player_name` read it."""
    if name.isascii() and name.isprintable():  # the common case: nothing of the kind
        return
    if any(_line_break_or_control(ch) for ch in name):
        raise ReadError.of("players.control", where, name=json.dumps(name, ensure_ascii=False))
    if all(_blank(ch) for ch in name):
        raise ReadError.of("players.invisible", where, name=json.dumps(name))
    hidden = next((ch for ch in name if _hidden(ch)), None)
    if hidden is not None:
        raise ReadError.of("players.format", where, name=json.dumps(name), char=f"U+{ord(hidden):04X}")


TEXT_CONTROLS_KEPT = {"notes": "\t\n\r"}
"""The control characters a text may hold, by its field: a hand's notes keep the tabs and line breaks their
box sends (a line break as CR LF); a title, a place, a date are one line and hold none."""


def check_text(text: str, key: str, where: str) -> None:
    """Refuse a text (a title, a place, notes...) holding a control character it may not hold (NUL, an
    escape...), or a line or paragraph separator (U+2028, U+2029): shown in a page's title, a PDF or a CSV
    cell, such characters are not the text a player typed. See :data:`TEXT_CONTROLS_KEPT`."""
    if text.isprintable():
        return
    kept = TEXT_CONTROLS_KEPT.get(key, "")
    bad = next((ch for ch in text if ch not in kept and _line_break_or_control(ch)), None)
    if bad is not None and kept:
        raise ReadError.of("text.control_lines", where, char=f"U+{ord(bad):04X}")
    if bad is not None:
        raise ReadError.of("text.control", where, char=f"U+{ord(bad):04X}")


def one_space(name: str) -> str:
    """A name with each run of white space inside it made one space: how the forms and a club's roster
    read a typed name ("Anna   Rossi" is Anna Rossi). A file's names are read as RECORD.md says: trimmed."""
    return " ".join(name.split())


def _check_sizes(obj: dict[str, Any]) -> None:
    """Refuse a record larger than any match before reading it (limits.py: the work stays bounded)."""
    players, hands = obj.get("players"), obj.get("hands")
    if isinstance(players, list) and len(players) > 4:  # no preset seats more; the count check says so
        ruleset = find_ruleset(obj.get("ruleset"))
        raise ReadError.of("players.count", "players", count=len(players), preset=ruleset.preset,
                           players=ruleset.players)
    if isinstance(hands, list) and len(hands) > MAX_HANDS:
        raise ReadError.of("limit.hands", "hands", count=len(hands), limit=MAX_HANDS)


def _players(value: object, ruleset: Ruleset) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ReadError.of("players.not_list", "players")
    names = []
    for i, given in enumerate(value):
        name = player_name(given) if isinstance(given, str) else ""
        if not name:
            raise ReadError.of("players.empty_name", f"players[{i}]")
        check_name(name, f"players[{i}]")
        if len(name) > MAX_NAME:
            raise ReadError.of("players.too_long", f"players[{i}]", length=len(name), most=MAX_NAME)
        names.append(name)
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ReadError.of("players.named_twice", "players", name=repr(twice))
    if len(names) != ruleset.players:
        raise ReadError.of("players.count", "players", count=len(names), preset=ruleset.name,
                           players=ruleset.players)
    return tuple(names)


def _player(value: object, players: tuple[str, ...], where: str) -> str:
    if not isinstance(value, str):
        raise ReadError.of("player.not_text", where, kind=_kind(value))
    if value in players:
        return value
    name = player_name(value)
    if len(name) > MAX_NAME:  # the name limit holds wherever a name stands, and is told rather than echoed
        raise ReadError.of("players.too_long", where, length=len(name), most=MAX_NAME)
    if name not in players:
        raise ReadError.of("player.unknown", where, name=repr(value), players=", ".join(players))
    return name


def _hand_body(
    obj: dict[str, Any], ruleset: Ruleset, players: tuple[str, ...], prefix: str, given: Any
) -> HandRecord:
    present = [b for b in BODIES if b in obj]
    if len(present) != 1:
        where = prefix.rstrip(".") or "record"
        if not present:
            raise ReadError.of("record.no_body", where)
        raise ReadError.of("record.bodies", where, found=", ".join(present))
    if "dealer" not in obj:
        raise ReadError.of("record.no_dealer", f"{prefix}dealer")
    dealer = _player(obj["dealer"], players, f"{prefix}dealer")
    body = present[0]
    parts: dict[str, Any] = {}
    if body == "tricks":
        parts["tricks"] = _tricks(obj["tricks"], players, ruleset, f"{prefix}tricks")
        parts["discard"] = _optional_cards(obj, "discard", ruleset, prefix)
        parts["talon"] = _optional_cards(obj, "talon", ruleset, prefix)
    elif body == "captured":
        parts["captured"] = _piles(obj["captured"], players, ruleset, f"{prefix}captured")
    elif body == "honours":
        parts["honours"] = _piles(obj["honours"], players, ruleset, f"{prefix}honours")
        parts["sizes"] = _sizes(obj.get("sizes"), players, f"{prefix}sizes")
    else:
        parts["points"] = _points(obj["points"], players, f"{prefix}points")
    # RECORD.md: ``ultimo`` names a player only where the switch is on and the form cannot
    # show the last trick; elsewhere it is ignored (a full record computes it)
    ultimo = obj.get("ultimo") if ruleset.ultimo and body != "tricks" else None
    return HandRecord(
        ruleset=ruleset,
        players=players,
        dealer=dealer,
        ultimo=None if ultimo is None else _player(ultimo, players, f"{prefix}ultimo"),
        number=_optional_int(obj, "number", prefix),
        notes=_optional_text(obj, "notes", prefix),
        recorded_at=_optional_text(obj, "recorded_at", prefix),
        ruleset_given=given,
        **parts,
    )


_CANONICAL: dict[str, CardIndex] = {code: INDICES[i] for i, code in enumerate(CODES)}
"""Canonical codes, the fast path: what the project itself writes."""


def _cards(value: object, ruleset: Ruleset, where: str) -> tuple[CardIndex, ...]:
    if not isinstance(value, list):
        raise ReadError.of("cards.not_list", where, kind=_kind(value))
    if len(value) > MAX_CARDS:
        raise ReadError.of("limit.cards", where, count=len(value), limit=MAX_CARDS)
    try:
        cards = tuple([_CANONICAL[text] for text in value])
    except (KeyError, TypeError):  # an alias, or no card at all: the careful path
        cards = tuple(parse_index(text, f"{where}[{i}]") for i, text in enumerate(value))
    if not ruleset.pack.issuperset(cards):
        i, card = next((i, c) for i, c in enumerate(cards) if c not in ruleset.pack)
        raise ReadError.of("cards.not_in_pack", f"{where}[{i}]", code=CODES[card], preset=ruleset.name)
    return cards


def _optional_cards(obj: dict[str, Any], key: str, ruleset: Ruleset, prefix: str) -> tuple[CardIndex, ...] | None:
    value = obj.get(key)
    return None if value is None else _cards(value, ruleset, f"{prefix}{key}")


def _tricks(value: object, players: tuple[str, ...], ruleset: Ruleset, where: str) -> tuple[Trick, ...]:
    if not isinstance(value, list):
        raise ReadError.of("tricks.not_list", where, kind=_kind(value))
    if len(value) > MAX_TRICKS:
        raise ReadError.of("limit.tricks", where, count=len(value), limit=MAX_TRICKS)
    canonical, pack = _CANONICAL, ruleset.pack
    new = object.__new__
    tricks = []
    for i, trick in enumerate(value):
        # the fast path, for what the project writes: canonical codes, leaders exactly named
        if type(trick) is dict:
            raw, leader = trick.get("cards"), trick.get("leader")
            if type(raw) is list and len(raw) <= MAX_CARDS and (leader is None or leader in players):
                try:
                    cards = tuple([canonical[code] for code in raw])
                except (KeyError, TypeError):
                    pass
                else:
                    if pack.issuperset(cards):
                        # Trick(cards, leader) without the frozen dataclass's setattr calls
                        fast = new(Trick)
                        fast.__dict__.update(cards=cards, leader=leader)
                        tricks.append(fast)
                        continue
        tricks.append(_trick(trick, players, ruleset, f"{where}[{i}]"))
    return tuple(tricks)


def _trick(trick: object, players: tuple[str, ...], ruleset: Ruleset, where: str) -> Trick:
    if isinstance(trick, list):  # lenient: a bare list of cards, leader left to the rules
        return Trick(_cards(trick, ruleset, where))
    if not isinstance(trick, dict):
        raise ReadError.of("trick.not_object", where, kind=_kind(trick))
    trick = present(trick)
    if "cards" not in trick:
        raise ReadError.of("trick.no_cards", where)
    leader = trick.get("leader")
    return Trick(
        _cards(trick["cards"], ruleset, f"{where}.cards"),
        None if leader is None else _player(leader, players, f"{where}.leader"),
    )


def _player_map(value: object, players: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ReadError.of("by_player.not_object", where, kind=_kind(value))
    result: dict[str, Any] = {}
    for key, item in value.items():
        name = _player(key, players, f"{where}.{key}")
        if name in result:
            raise ReadError.of("by_player.twice", where, name=repr(name))
        result[name] = item
    missing = [p for p in players if p not in result]
    if missing:
        raise ReadError.of("by_player.missing", where, missing=", ".join(missing))
    return {p: result[p] for p in players}


def _piles(value: object, players: tuple[str, ...], ruleset: Ruleset, where: str) -> dict[str, tuple[CardIndex, ...]]:
    raw = _player_map(value, players, where)
    return {p: _cards(cards, ruleset, f"{where}.{p}") for p, cards in raw.items()}


def _sizes(value: object, players: tuple[str, ...], where: str) -> dict[str, int]:
    if value is None:
        raise ReadError.of("sizes.missing", where)
    raw = _player_map(value, players, where)
    sizes = {}
    for p, size in raw.items():
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ReadError.of("sizes.not_whole", f"{where}.{p}", value=json.dumps(size))
        sizes[p] = size
    return sizes


def _points(value: object, players: tuple[str, ...], where: str) -> dict[str, Fraction]:
    raw = _player_map(value, players, where)
    return {p: parse_points(v, f"{where}.{p}") for p, v in raw.items()}


def _optional_text(obj: dict[str, Any], key: str, prefix: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReadError.of("field.not_text", f"{prefix}{key}", kind=_kind(value))
    if len(value) > TEXT_LIMITS.get(key, len(value)):
        raise ReadError.of("limit.text", f"{prefix}{key}", length=len(value), limit=TEXT_LIMITS[key])
    check_text(value, key, f"{prefix}{key}")
    return value


def _optional_int(obj: dict[str, Any], key: str, prefix: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ReadError.of("field.not_whole", f"{prefix}{key}", value=json.dumps(value))
    return value


def _choice(obj: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if value not in allowed:
        raise ReadError.of("field.choice", key, value=json.dumps(value), allowed=", ".join(allowed))
    return str(value)


def _end(value: object) -> dict[str, int] | None:
    if value is None:
        return None
    if isinstance(value, dict):
        value = present(value)
    if not isinstance(value, dict) or len(value) != 1 or not ({"hands", "target"} >= value.keys()):
        raise ReadError.of("end.shape", "end")
    (key, number), = value.items()
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise ReadError.of("field.not_whole", f"end.{key}", value=json.dumps(number))
    # unbounded, a number of 4,000 digits went onto every page of the match
    if key == "hands" and number > MAX_END_HANDS:
        raise ReadError.of("limit.end_hands", "end.hands", limit=MAX_END_HANDS)
    if key == "target" and number > MAX_END_TARGET:
        raise ReadError.of("limit.end_target", "end.target", limit=MAX_END_TARGET)
    return {key: number}


def _stake(value: object) -> Stake | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ReadError.of("stake.shape", "stake")
    value = present(value)
    amount = value.get("per_point")
    if isinstance(amount, bool) or not isinstance(amount, (str, int, float)):
        raise ReadError.of("stake.amount", "stake.per_point")
    try:
        decimal = Decimal(str(amount).strip())
    except InvalidOperation as exc:
        raise ReadError.of("stake.not_money", "stake.per_point", value=repr(amount)) from exc
    if not decimal.is_finite() or decimal < 0 or (decimal and not -12 <= decimal.adjusted() <= 12):
        raise ReadError.of("stake.not_money", "stake.per_point", value=repr(amount))
    currency = value.get("currency", "EUR")
    if not isinstance(currency, str) or not currency.strip():
        raise ReadError.of("stake.currency", "stake.currency")
    if len(currency) > MAX_CURRENCY:
        raise ReadError.of("limit.text", "stake.currency", length=len(currency), limit=MAX_CURRENCY)
    return Stake(decimal, currency.strip())


def _kind(value: object) -> str:
    """What a value is, as a key of :data:`scorer.engine.messages.KINDS` (named in the page's language)."""
    if value is None:
        return "null"
    return {bool: "bool", int: "number", float: "number", str: "text", list: "list",
            dict: "object"}.get(type(value), type(value).__name__)


# --- writing -------------------------------------------------------------------


def hand_to_dict(record: HandRecord, *, in_match: bool = False) -> dict[str, Any]:
    """The record in canonical form; inside a match, without format/players/ruleset."""
    out: dict[str, Any] = {}
    if not in_match:
        out["format"] = HAND_FORMAT
        out["ruleset"] = ruleset_spec(record.ruleset)
        out["players"] = list(record.players)
    if record.number is not None:
        out["number"] = record.number
    out["dealer"] = record.dealer
    if record.talon is not None:
        out["talon"] = [CODES[c] for c in record.talon]
    if record.discard is not None:
        out["discard"] = [CODES[c] for c in record.discard]
    if record.tricks is not None:
        out["tricks"] = [_trick_dict(t) for t in record.tricks]
    elif record.captured is not None:
        out["captured"] = {p: [CODES[c] for c in cards] for p, cards in record.captured.items()}
    elif record.honours is not None and record.sizes is not None:
        out["honours"] = {p: [CODES[c] for c in cards] for p, cards in record.honours.items()}
        out["sizes"] = dict(record.sizes)
    elif record.points is not None:
        out["points"] = {p: fraction_json(v) for p, v in record.points.items()}
    if record.ultimo is not None:
        out["ultimo"] = record.ultimo
    if record.notes is not None:
        out["notes"] = record.notes
    if record.recorded_at is not None:
        out["recorded_at"] = record.recorded_at
    return out


def _trick_dict(trick: Trick) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if trick.leader is not None:
        out["leader"] = trick.leader
    out["cards"] = [CODES[c] for c in trick.cards]
    return out


def match_to_dict(match: MatchRecord) -> dict[str, Any]:
    """The match in canonical ``scarto-match/1`` form."""
    out: dict[str, Any] = {"format": MATCH_FORMAT}
    for key in ("title", "place", "date", "language", "pack"):
        if getattr(match, key) is not None:
            out[key] = getattr(match, key)
    out["ruleset"] = ruleset_spec(match.ruleset)
    out["players"] = list(match.players)
    out["first_dealer"] = match.first_dealer
    if match.end is not None:
        out["end"] = dict(match.end)
    out["settle"] = match.settle
    if match.stake is not None:
        out["stake"] = {"per_point": str(match.stake.per_point), "currency": match.stake.currency}
    out["hands"] = [hand_to_dict(h, in_match=True) for h in match.hands]
    return out


def dumps(value: dict[str, Any]) -> str:
    """JSON text as the project writes files: UTF-8, two-space indent, final newline."""
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"
