"""Reading and writing records (RECORD.md): every form, the lenient inputs, and each read
error with the message it gives."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from scorer.engine.errors import ReadError
from scorer.engine.messages import READ_TEMPLATES, render_read
from scorer.engine.numbers import fraction_json, fraction_text
from scorer.engine.records import (
    HandRecord,
    MatchRecord,
    Stake,
    Trick,
    dumps,
    hand_to_dict,
    loads,
    match_to_dict,
    parse_hand,
    parse_match,
)
from scorer.engine.rulesets import PRESETS, find_ruleset
from scorer.engine.scoring import score_hand
from scorer.engine.simulation import captured_form, simulate_hand

PLAYERS = ["Anna", "Bruno", "Carla"]


def _full() -> dict[str, Any]:
    """A legal full record, as written by the project."""
    return hand_to_dict(simulate_hand(PRESETS["classic"], random.Random(7)))


def _points(**points: Any) -> dict[str, Any]:
    return {"players": PLAYERS, "dealer": "Anna", "points": points or {"Anna": 31, "Bruno": 22, "Carla": 25}}


def test_a_full_record_reads_as_written() -> None:
    data = _full()
    record = parse_hand(data)
    assert record.form == "tricks"
    assert record.ruleset == PRESETS["classic"] and record.ruleset_given == "classic"
    assert record.players == tuple(PLAYERS)
    assert record.tricks is not None and len(record.tricks) == 25
    assert all(len(t.cards) == 3 and t.leader in PLAYERS for t in record.tricks)
    assert hand_to_dict(record) == data


def test_format_ruleset_and_optional_fields_may_be_left_out() -> None:
    data = _full()
    del data["format"], data["ruleset"], data["talon"], data["discard"]
    record = parse_hand(data)
    assert record.ruleset == PRESETS["classic"] and record.discard is None and record.talon is None
    assert score_hand(record).problems == ()


def test_records_without_leader() -> None:
    """``leader`` follows from the rules: objects without it, and bare lists of cards."""
    data = _full()
    without = copy.deepcopy(data)
    for trick in without["tricks"]:
        del trick["leader"]
    bare = copy.deepcopy(data)
    bare["tricks"] = [t["cards"] for t in data["tricks"]]
    scores = score_hand(parse_hand(data)).scores()
    for variant in (without, bare):
        record = parse_hand(variant)
        assert record.tricks is not None and all(t.leader is None for t in record.tricks)
        result = score_hand(record)
        assert result.problems == () and result.scores() == scores
        assert result.replay is not None
        assert [data["players"][t.leader] for t in result.replay.tricks] == [t["leader"] for t in data["tricks"]]
    assert "leader" not in hand_to_dict(parse_hand(bare))["tricks"][0]


def test_aliases_are_read_and_canonical_codes_written() -> None:
    data = _full()
    aliased = copy.deepcopy(data)
    names = {"T1": "Bagatto", "T20": " angelo ", "M": "Matto", "T21": "XXI", "1S": "A♠\ufe0f", "KC": "k♥"}
    for trick in aliased["tricks"]:
        trick["cards"] = [names.get(code, code.lower()) for code in trick["cards"]]
    aliased["discard"] = [names.get(code, code) for code in data["discard"]]
    assert hand_to_dict(parse_hand(aliased)) == data


def test_leader_and_names_are_trimmed() -> None:
    data = _full()
    data["tricks"][0]["leader"] = " " + data["tricks"][0]["leader"] + " "
    data["dealer"] = data["dealer"] + " "
    assert hand_to_dict(parse_hand(data)) == _full()


@pytest.mark.parametrize(("value", "expected"), [
    (31, Fraction(31)), ("31", Fraction(31)), ("58/3", Fraction(58, 3)), (" 58 / 3 ", Fraction(58, 3)),
    ("39/2", Fraction(39, 2)), (0, Fraction(0)), ("4/2", Fraction(2)),
])
def test_points_as_integers_and_fractions(value: Any, expected: Fraction) -> None:
    record = parse_hand(_points(Anna=value, Bruno=0, Carla=0))
    assert record.points is not None and record.points["Anna"] == expected


def test_points_written_as_fractions_score_exactly() -> None:
    record = parse_hand(_points(Anna="58/3", Bruno="58/3", Carla="118/3"))
    result = score_hand(record)
    assert result.problems == ()
    assert result.scores() == {"Anna": Fraction(-20, 3), "Bruno": Fraction(-20, 3), "Carla": Fraction(40, 3)}
    assert hand_to_dict(record)["points"] == {"Anna": "58/3", "Bruno": "58/3", "Carla": "118/3"}
    players = result.to_dict()["players"]
    assert [(p["card_points"], p["score"]) for p in players] == [("58/3", "-20/3"), ("58/3", "-20/3"),
                                                                  ("118/3", "40/3")]


def test_ultimo_is_read_where_the_switch_counts_and_ignored_elsewhere() -> None:
    on = {"preset": "classic", "ultimo": True}
    assert parse_hand({**_points(), "ruleset": on, "ultimo": "Bruno"}).ultimo == "Bruno"
    assert parse_hand({**_points(), "ultimo": "Bruno"}).ultimo is None  # switch off
    assert parse_hand({**_points(), "ultimo": "Nobody"}).ultimo is None
    full = {**_full(), "ruleset": on, "ultimo": "Nobody"}  # a full record computes it
    assert parse_hand(full).ultimo is None
    with pytest.raises(ReadError, match=r"^ultimo: 'Nobody' is not one of the players \(Anna, Bruno, Carla\)$"):
        parse_hand({**_points(), "ruleset": on, "ultimo": "Nobody"})


def test_ruleset_objects_are_echoed_as_given() -> None:
    given = {"preset": "saari", "overtrump": True, "first_lead": "dealer"}
    record = parse_hand({**_points(), "ruleset": given})
    assert record.ruleset == find_ruleset(given) and record.ruleset_given == given
    assert score_hand(record).to_dict()["ruleset"] == given
    assert hand_to_dict(record)["ruleset"] == {"preset": "saari", "overtrump": True}  # written shortest


def test_the_other_forms_round_trip() -> None:
    record = parse_hand(_full())
    captured = captured_form(record)
    honours = HandRecord(record.ruleset, record.players, record.dealer,
                         honours={p: () for p in record.players}, sizes={p: 26 for p in record.players})
    points = parse_hand(_points(Anna="58/3", Bruno="58/3", Carla="118/3"))
    for form in (captured, honours, points):
        assert parse_hand(loads(dumps(hand_to_dict(form)))) == form
    assert list(hand_to_dict(honours)) == ["format", "ruleset", "players", "dealer", "honours", "sizes"]


def test_dumps_writes_files_the_project_way() -> None:
    text = dumps({"players": ["Anna", "Bruno"], "note": "caffè"})
    assert text == '{\n  "players": [\n    "Anna",\n    "Bruno"\n  ],\n  "note": "caffè"\n}\n'


@pytest.mark.parametrize(("value", "json_value", "text"), [
    (Fraction(19), 19, "19"), (Fraction(39, 2), "39/2", "19½"), (Fraction(-10, 3), "-10/3", "-3⅓"),
    (Fraction(2, 3), "2/3", "⅔"), (Fraction(-1, 2), "-1/2", "-½"), (Fraction(65, 9), "65/9", "7 2/9"),
    (Fraction(2, 9), "2/9", "2/9"), (Fraction(0), 0, "0"), (Fraction(-5, 6), "-5/6", "-⅚"),
])
def test_fractions(value: Fraction, json_value: Any, text: str) -> None:
    assert fraction_json(value) == json_value
    assert fraction_text(value) == text


# --- read errors ------------------------------------------------------------------


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A mutation: set a key (``a.b[2].c``) of the record; ``value`` DELETE removes it."""
    def change(data: dict[str, Any]) -> None:
        keys: list[Any] = []
        for part in path.replace("]", "").split("."):
            name, *indices = part.split("[")
            keys += [name, *(int(i) for i in indices)]
        target: Any = data
        for key in keys[:-1]:
            target = target[key]
        if value is DELETE:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return change


DELETE = object()


def told_from_its_template(error: ReadError) -> bool:
    """The English sentence is its template filled in, so a page can tell the same in its language."""
    return error.key in READ_TEMPLATES and error.message == render_read(error.key, error.params)


@pytest.mark.parametrize(("change", "message"), [
    (_set("format", "scarto-hand/2"), "format: 'scarto-hand/2' is not a format this reads "
                                      "(expected 'scarto-hand/1')"),
    (_set("format", "scarto-match/1"), "format: 'scarto-match/1' is not a format this reads "
                                       "(expected 'scarto-hand/1')"),
    (_set("players", DELETE), "players: must be a list of player names in seating order"),
    (_set("players", "Anna, Bruno, Carla"), "players: must be a list of player names in seating order"),
    (_set("players", ["Anna", "Anna", "Carla"]), "players: 'Anna' is named twice; names must be unique"),
    (_set("players", ["Anna", "Bru\nno", "Carla"]),
     'players[1]: "Bru\\nno" holds a tab, a line break or another control character; a name is one line'),
    (_set("players", ["Anna", "Bruno"]), "players: 2 players given; classic is played by 3"),
    (_set("players", ["Anna", "Bruno", "Carla", "Dario"]), "players: 4 players given; classic is played by 3"),
    (_set("players", ["Anna", "", "Carla"]), "players[1]: a player name must be non-empty text"),
    (_set("players", ["Anna", 7, "Carla"]), "players[1]: a player name must be non-empty text"),
    (_set("ruleset", "classik"), 'ruleset: "classik" is not a preset (presets: classic, rulesheet, saari, '
                                 'four, piccolo)'),
    (_set("ruleset", {"overtrum": True}), "ruleset: 'overtrum' is not a switch (switches: top_trump, discard, "
                                          "fool_discard, first_lead, overtrump, fool_last_trick, fool_forfeit, "
                                          "ultimo, deal)"),
    (_set("ruleset", {"ultimo": "yes"}),
     'ruleset.ultimo: "yes" is not a value of ultimo (use false, true, "bagatto_or_fool")'),
    (_set("dealer", "Dora"), "dealer: 'Dora' is not one of the players (Anna, Bruno, Carla)"),
    (_set("dealer", DELETE), "dealer: missing: every hand names its dealer"),
    (_set("dealer", 1), "dealer: must be a player's name, not a number"),
    (_set("tricks", DELETE), "record: a hand needs exactly one of tricks, captured, honours (with sizes) or "
                             "points; found none"),
    (_set("points", {"Anna": 78, "Bruno": 0, "Carla": 0}), "record: a hand needs exactly one of tricks, "
                                                          "captured, honours (with sizes) or points; found "
                                                          "tricks, points"),
    (_set("tricks", "all of them"), "tricks: must be a list of tricks, not text"),
    (_set("tricks[4].cards[2]", "KX"), "tricks[4].cards[2]: 'KX' is not a card"),
    (_set("tricks[4].cards[2]", 12), "tricks[4].cards[2]: 12 is not a card code"),
    (_set("tricks[4].cards", "KS 2S 3S"), "tricks[4].cards: must be a list of card codes, not text"),
    (_set("tricks[0]", 5), "tricks[0]: must be an object with cards (and optionally leader), not a number"),
    (_set("tricks[0].cards", DELETE), "tricks[0]: missing cards"),
    (_set("tricks[3].leader", "Dora"), "tricks[3].leader: 'Dora' is not one of the players (Anna, Bruno, Carla)"),
    (_set("tricks[3].leader", ["Anna"]), "tricks[3].leader: must be a player's name, not a list"),
    (_set("discard[1]", "Re di Spade"), "discard[1]: 'Re di Spade' is not a card"),
    (_set("talon", {"cards": []}), "talon: must be a list of card codes, not an object"),
    (_set("number", 0), "number: must be a whole number from 1, not 0"),
    (_set("number", "3"), 'number: must be a whole number from 1, not "3"'),
    (_set("notes", 5), "notes: must be text, not a number"),
    (_set("notes", "ok\x00then"), "notes: holds a control character (U+0000): only line breaks and tabs may "
                                   "stand between the words here, remove it"),
    (_set("notes", "one\u2028two"), "notes: holds a control character (U+2028): only line breaks and tabs may "
                                     "stand between the words here, remove it"),
    (_set("players", ["Anna", "Bru\u2028no", "Carla"]),
     'players[1]: "Bru\u2028no" holds a tab, a line break or another control character; a name is one line'),
    (_set("players", ["Anna", "\u2063", "Carla"]),
     'players[1]: "\\u2063" shows nothing: it is made only of invisible characters; write a name that can be '
     'read'),
    (_set("players", ["Anna", "Anna\u2063", "Carla"]),
     'players[1]: "Anna\\u2063" holds an invisible formatting character (U+2063: a mark of text direction, a '
     'soft hyphen or the like), so it would look like another name: remove it'),
])
def test_read_errors_of_a_full_record(change: Callable[[dict[str, Any]], None], message: str) -> None:
    data = _full()
    data["players"] = list(PLAYERS)
    change(data)
    with pytest.raises(ReadError) as caught:
        parse_hand(data)
    assert str(caught.value) == message
    assert told_from_its_template(caught.value)


CAPTURED = {"Anna": ["KS"], "Bruno": [], "Carla": []}


@pytest.mark.parametrize(("data", "message"), [
    ([], "record: must be a JSON object, not a list"),
    ("scarto", "record: must be a JSON object, not text"),
    (None, "record: must be a JSON object, not null"),
    ({**_points(), "points": {"Anna": -3, "Bruno": 0, "Carla": 0}},
     "points.Anna: -3 is negative; counted points are never below zero"),
    ({**_points(), "points": {"Anna": "-58/3", "Bruno": 0, "Carla": 0}},
     "points.Anna: -58/3 is negative; counted points are never below zero"),
    ({**_points(), "points": {"Anna": "lots", "Bruno": 0, "Carla": 0}},
     "points.Anna: 'lots' is not a number of points (use e.g. 31 or \"58/3\")"),
    ({**_points(), "points": {"Anna": 31.5, "Bruno": 0, "Carla": 0}},
     "points.Anna: 31.5 is a decimal: points come in whole numbers or thirds; write \"94/3\""),
    ({**_points(), "points": {"Anna": True, "Bruno": 0, "Carla": 0}},
     "points.Anna: true is not a number of points (use e.g. 31 or \"58/3\")"),
    ({**_points(), "points": {"Anna": "1e99999999", "Bruno": 0, "Carla": 0}},
     "points.Anna: '1e99999999' is not a number of points (use e.g. 31 or \"58/3\")"),
    ({**_points(), "points": {"Anna": "1/0", "Bruno": 0, "Carla": 0}},
     "points.Anna: '1/0' is not a number of points (use e.g. 31 or \"58/3\")"),
    ({**_points(), "points": {"Anna": 31, "Bruno": 22}}, "points: every player must be named; missing Carla"),
    ({**_points(), "points": {"Anna": 31, "Bruno": 22, "Carla": 25, "Dora": 0}},
     "points.Dora: 'Dora' is not one of the players (Anna, Bruno, Carla)"),
    ({**_points(), "points": {"Anna": 31, " Anna": 1, "Bruno": 22, "Carla": 25}}, "points: 'Anna' appears twice"),
    ({**_points(), "points": [31, 22, 25]}, "points: must be an object keyed by player name, not a list"),
    ({"players": PLAYERS, "dealer": "Anna", "captured": {**CAPTURED, "Anna": ["KX"]}},
     "captured.Anna[0]: 'KX' is not a card"),
    ({"players": PLAYERS, "dealer": "Anna", "captured": {"Anna": ["KS"], "Bruno": []}},
     "captured: every player must be named; missing Carla"),
    ({"players": PLAYERS, "dealer": "Anna", "ruleset": "piccolo", "captured": {**CAPTURED, "Bruno": ["KS", "5C"]}},
     "captured.Bruno[1]: 5C is not in the piccolo pack"),
    ({"players": PLAYERS, "dealer": "Anna", "honours": CAPTURED},
     "sizes: missing: honours go with the number of cards in each pile"),
    ({"players": PLAYERS, "dealer": "Anna", "honours": CAPTURED, "sizes": {"Anna": 27, "Bruno": -1, "Carla": 52}},
     "sizes.Bruno: must be a whole number of cards, not -1"),
    ({"players": PLAYERS, "dealer": "Anna", "honours": CAPTURED, "sizes": {"Anna": 27, "Bruno": "24", "Carla": 27}},
     'sizes.Bruno: must be a whole number of cards, not "24"'),
    ({"players": PLAYERS, "dealer": "Anna", "captured": CAPTURED, "honours": CAPTURED},
     "record: a hand needs exactly one of tricks, captured, honours (with sizes) or points; found captured, "
     "honours"),
    ({"players": ["Anna", "Bruno", "Carla"], "dealer": "Anna", "ruleset": "four", "points": {}},
     "players: 3 players given; four is played by 4"),
])
def test_read_errors_of_other_forms(data: Any, message: str) -> None:
    with pytest.raises(ReadError) as caught:
        parse_hand(data)
    assert str(caught.value) == message
    assert told_from_its_template(caught.value)


@pytest.mark.parametrize(("text", "message"), [
    ("{", "not JSON (a name in double quotes expected at line 1, column 2)"),
    ("", "not JSON (a value expected at line 1, column 1)"),
    (b"\xff\xfe\x00", "not UTF-8 text"),
    ("[" * 100_000, "not JSON (nested too deeply)"),
    ('{"n": ' + "9" * 5000 + "}", "not usable JSON (a number with too many digits)"),
    (r'["\ud800"]', r"not text: holds an escaped lone surrogate (\ud800-\udfff)"),
    ('{"points": {"Anna": NaN}}', "not JSON (NaN is not a JSON number)"),
    ('[Infinity]', "not JSON (Infinity is not a JSON number)"),
    (b'{"n": -Infinity}', "not JSON (-Infinity is not a JSON number)"),
    ('{"players": ["Anna"]}'.encode("utf-16"), "not UTF-8 text"),  # with its byte-order mark
    ('{"players": ["Anna"]}'.encode("utf-16-le"), "not UTF-8 text"),  # without: valid UTF-8, NULs between
    ('{"players": ["Anna"]}'.encode("utf-32"), "not UTF-8 text"),
])
def test_loads_errors(text: str | bytes, message: str) -> None:
    with pytest.raises(ReadError) as caught:
        loads(text)
    assert str(caught.value) == message
    assert told_from_its_template(caught.value)


@pytest.mark.parametrize(("text", "message"), [
    (b'["\\ud800"]', "not text: holds an escaped lone surrogate"),
    ('{"players": ["\\udc00x"]}', "not text: holds an escaped lone surrogate"),
    ('["\ud800"]', "not text: holds an escaped lone surrogate"),  # a str handed in as it is: any character
    (b'["\xed\xa0\x80"]', "not UTF-8 text"),  # U+D800 written raw: UTF-8 has no such bytes
    (b'\xef\xbb\xbf["\xed\xbf\xbf"]', "not UTF-8 text"),  # U+DFFF, after a byte-order mark
])
def test_a_lone_surrogate_is_refused_however_it_is_written(text: str | bytes, message: str) -> None:
    with pytest.raises(ReadError, match=message):
        loads(text)


def test_a_lone_surrogate_in_a_file_can_only_be_an_escape() -> None:
    """Why the check runs only on text holding ``\\u``: each of the 2,048 surrogates written raw (as
    CESU-8 would) is refused by the UTF-8 decoder before JSON is read."""
    for point in range(0xD800, 0xE000):
        raw = chr(point).encode("utf-8", "surrogatepass")
        with pytest.raises(ReadError, match="not UTF-8 text"):
            loads(b'{"players": ["A' + raw + b'"]}')


@pytest.mark.parametrize(("text", "value"), [
    (b'["\\ud83d\\ude00"]', ["\U0001F600"]),  # a pair escaped is one character
    (b'["\\\\ud800"]', ["\\ud800"]),  # an escaped backslash, then text: no surrogate
    ("[\"Nicol\u00f2\"]".encode(), ["Nicol\u00f2"]),
])
def test_escapes_that_are_text_are_read(text: bytes, value: Any) -> None:
    assert loads(text) == value


def test_a_record_without_escapes_is_not_written_back_to_be_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing the value out again cost more than reading it: for text without a ``\\u`` escape (every
    record the project writes) the surrogate check is not run."""
    import json

    text = dumps(_full()).encode()
    assert b"\\u" not in text
    written: list[object] = []

    def dumps_noted(value: object, **_options: object) -> str:
        written.append(value)
        return ""

    monkeypatch.setattr(json, "dumps", dumps_noted)
    assert loads(text) == _full()
    assert written == []


def test_a_file_in_utf16_is_a_read_error_however_it_comes() -> None:
    """Python's reader guesses UTF-16 from the bytes; RECORD.md reads UTF-8 only, so another
    program given the same file agrees it is unreadable."""
    text = hand_to_dict(parse_hand(_points()))
    for encoding in ("utf-16", "utf-16-le", "utf-16-be"):
        with pytest.raises(ReadError, match="not UTF-8 text"):
            loads(dumps(text).encode(encoding))
    assert loads(b"\xef\xbb\xbf" + dumps(text).encode()) == text  # UTF-8 with its mark is read


@pytest.mark.parametrize("key", ["format", "ruleset", "number", "notes", "recorded_at", "ultimo", "talon",
                                 "discard", "captured", "honours", "sizes", "tricks"])
def test_an_optional_key_given_as_null_is_read_as_absent(key: str) -> None:
    data = {**_points(), key: None}
    record = parse_hand(data)
    assert record == parse_hand(_points())
    assert record.ruleset_given == "classic"


def test_null_is_absent_inside_a_ruleset_a_trick_and_a_stake() -> None:
    assert parse_hand({**_points(), "ruleset": {"preset": None, "overtrump": None}}).ruleset == PRESETS["classic"]
    data = _full()
    data["tricks"][0] = {"leader": "Anna", "cards": None}
    with pytest.raises(ReadError, match=r"^tricks\[0\]: missing cards$"):
        parse_hand(data)
    assert parse_match({**_match(), "stake": {"per_point": "0.10", "currency": None}}).stake == Stake(
        Decimal("0.10"), "EUR")


def test_a_required_key_given_as_null_is_missing() -> None:
    with pytest.raises(ReadError) as caught:
        parse_hand({**_points(), "dealer": None})
    assert str(caught.value) == "dealer: missing: every hand names its dealer"


@pytest.mark.parametrize("where", ["dealer", "ultimo", "points"])
def test_a_name_past_the_limit_anywhere_is_told_with_the_limit_not_echoed(where: str) -> None:
    data = {**_points(), "ruleset": {"ultimo": True}}
    long = "Anna" * 2500
    if where == "points":
        data["points"] = {long: 31, "Bruno": 22, "Carla": 25}
    else:
        data[where] = long
    with pytest.raises(ReadError) as caught:
        parse_hand(data)
    assert str(caught.value).endswith(": a name is at most 40 characters; this one has 10000")


def test_a_trick_past_the_card_limit_is_a_read_error_told_with_the_limit() -> None:
    """The trick list of canonical codes is read on a fast path: it keeps the limit too."""
    data = _full()
    data["tricks"][3]["cards"] = ["KS"] * 81
    with pytest.raises(ReadError) as caught:
        parse_hand(data)
    assert str(caught.value) == "tricks[3].cards: 81 cards in one list; the pack has 78"


# --- matches ----------------------------------------------------------------------


def _match() -> dict[str, Any]:
    return {
        "format": "scarto-match/1",
        "title": "Thursday at the circolo",
        "place": "Circolo Arci, Pinerolo",
        "date": "2026-11-30",
        "language": "it",
        "pack": "italian",
        "ruleset": {"preset": "classic", "ultimo": True},
        "players": PLAYERS,
        "first_dealer": "Anna",
        "end": {"hands": 6},
        "settle": "per_point",
        "stake": {"per_point": "0.10", "currency": "EUR"},
        "hands": [
            {"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}, "ultimo": "Anna"},
            {**{k: v for k, v in _full().items() if k not in ("format", "ruleset", "players")}, "number": 2},
            {"dealer": "Carla", "points": {"Anna": "58/3", "Bruno": "58/3", "Carla": "118/3"},
             "notes": "recounted", "recorded_at": "2026-11-30T21:15:00+01:00"},
        ],
    }


def test_a_match_reads_with_every_setting() -> None:
    match = parse_match(_match())
    assert isinstance(match, MatchRecord)
    assert match.players == tuple(PLAYERS) and match.first_dealer == "Anna"
    assert match.ruleset == find_ruleset({"ultimo": True})
    assert match.end == {"hands": 6} and match.settle == "per_point"
    assert match.stake == Stake(Decimal("0.10"), "EUR")
    assert [h.form for h in match.hands] == ["points", "tricks", "points"]
    assert match.hands[0].ultimo == "Anna" and match.hands[0].ruleset == match.ruleset
    assert match.hands[2].notes == "recounted"


def test_export_then_import_gives_back_the_same_match_byte_for_byte() -> None:
    first = dumps(match_to_dict(parse_match(_match())))
    again = parse_match(loads(first))
    assert again == parse_match(_match())
    assert dumps(match_to_dict(again)) == first
    minimal = {"players": PLAYERS, "first_dealer": "Bruno", "hands": []}
    exported = dumps(match_to_dict(parse_match(minimal)))
    assert dumps(match_to_dict(parse_match(loads(exported)))) == exported


@pytest.mark.parametrize(("change", "message"), [
    (_set("hands", DELETE), "hands: must be a list of hand records"),
    (_set("hands[1]", 5), "hands[1]: must be a JSON object, not a number"),
    (_set("hands[0].points.Dora", 0), "hands[0].points.Dora: 'Dora' is not one of the players (Anna, Bruno, Carla)"),
    (_set("hands[0].dealer", DELETE), "hands[0].dealer: missing: every hand names its dealer"),
    (_set("hands[1].tricks[4].cards[2]", "KX"), "hands[1].tricks[4].cards[2]: 'KX' is not a card"),
    (_set("hands[2].points", DELETE), "hands[2]: a hand needs exactly one of tricks, captured, honours (with "
                                      "sizes) or points; found none"),
    (_set("first_dealer", DELETE), "first_dealer: must be a player's name, not null"),
    (_set("first_dealer", "Dora"), "first_dealer: 'Dora' is not one of the players (Anna, Bruno, Carla)"),
    (_set("end", {"hands": 0}), "end.hands: must be a whole number from 1, not 0"),
    (_set("end", {"rounds": 3}), 'end: must be {"hands": N} or {"target": N}'),
    (_set("end", {"hands": 3, "target": 100}), 'end: must be {"hands": N} or {"target": N}'),
    (_set("settle", "winner_takes_all"), 'settle: "winner_takes_all" is not one of per_point, loser_pays'),
    (_set("language", "fr"), 'language: "fr" is not one of it, en, de, fi, es'),
    (_set("pack", "german"), 'pack: "german" is not one of italian, french'),
    (_set("stake", {"per_point": "1e999999999"}), "stake.per_point: '1e999999999' is not an amount of money"),
    (_set("stake", {"per_point": "-0.10"}), "stake.per_point: '-0.10' is not an amount of money"),
    (_set("stake", {"per_point": "ten cents"}), "stake.per_point: 'ten cents' is not an amount of money"),
    (_set("stake", {"per_point": None}), 'stake.per_point: must be a decimal amount such as "0.10"'),
    (_set("stake", "0.10"), 'stake: must be {"per_point": "0.10", "currency": "EUR"}'),
    (_set("stake", {"per_point": "0.10", "currency": ""}), "stake.currency: must be a currency code such as EUR"),
    (_set("title", 5), "title: must be text, not a number"),
    (_set("title", "\x00messages\x00"), "title: holds a control character (U+0000), a tab or a line break: this "
                                         "text is one line of what can be seen, remove it"),
    (_set("place", "Bar\nSport"), "place: holds a control character (U+000A), a tab or a line break: this text "
                                  "is one line of what can be seen, remove it"),
    (_set("date", "2026\x1b"), "date: holds a control character (U+001B), a tab or a line break: this text is "
                               "one line of what can be seen, remove it"),
    (_set("hands[0].notes", "a\x07"), "hands[0].notes: holds a control character (U+0007): only line breaks "
                                      "and tabs may stand between the words here, remove it"),
    (_set("format", "scarto-hand/1"), "format: 'scarto-hand/1' is not a format this reads "
                                      "(expected 'scarto-match/1')"),
])
def test_match_read_errors(change: Callable[[dict[str, Any]], None], message: str) -> None:
    data = _match()
    change(data)
    with pytest.raises(ReadError) as caught:
        parse_match(data)
    assert str(caught.value) == message
    assert told_from_its_template(caught.value)


def test_notes_keep_their_line_breaks_and_tabs() -> None:
    data = _full()
    data["players"] = list(PLAYERS)
    data["notes"] = "first line\r\nsecond\tline\n"
    assert parse_hand(data).notes == "first line\r\nsecond\tline\n"


INVISIBLE_NAMES = ["\u2063", "\u3164", "\u2800", "\u00ad", "\U000e0041\U000e0042", "\u3164 \u2800", "\ufe0f",
                   "\u115f\u1160", "\uffa0"]
FORMATTED_NAMES = ["Anna\u2063", "An\u00adna", "\u202eanna\u202c", "\u200eAnna", "Anna\U000e0041",
                   "\u2066Anna\u2069", "Anna\u3164", "An\u2800na"]


@pytest.mark.parametrize("name", INVISIBLE_NAMES)
def test_a_name_of_invisible_characters_only_is_refused(name: str) -> None:
    with pytest.raises(ReadError) as caught:
        parse_match({**_match(), "players": ["Anna", name, "Carla"]})
    assert caught.value.key == "players.invisible" and caught.value.where == "players[1]"


@pytest.mark.parametrize("name", FORMATTED_NAMES)
def test_a_name_holding_a_format_character_is_refused(name: str) -> None:
    with pytest.raises(ReadError) as caught:
        parse_match({**_match(), "players": ["Bruno", name, "Carla"]})
    assert caught.value.key == "players.format" and caught.value.where == "players[1]"


@pytest.mark.parametrize("name", ["Anna", "Zoë", "Андрей", "山田", "José María", "Anna 🃏", "O'Neil", "Ünal-Çelik",
                                  "Anna ❤️"])
def test_names_that_can_be_read_are_kept(name: str) -> None:
    assert parse_match({**_match(), "players": ["Bruno", name, "Carla"], "first_dealer": "Bruno",
                        "hands": []}).players[1] == name


def test_hand_records_are_values() -> None:
    a, b = parse_hand(_full()), parse_hand(_full())
    assert a == b and hash(a.tricks) == hash(b.tricks)
    assert Trick((1, 2, 3)) == Trick((1, 2, 3), None) != Trick((1, 2, 3), "Anna")


@pytest.mark.parametrize(("text", "value"), [(" 58/3 ", Fraction(58, 3)), ("58 / 3", Fraction(58, 3)),
                                             ("0", Fraction(0))])
def test_points_text_integers_and_fractions(text: str, value: Fraction) -> None:
    from scorer.engine.numbers import parse_points
    assert parse_points(text, "points.Anna") == value


@pytest.mark.parametrize("text", ["1 9", "1 1 1/2", "19 ½", "1/2 1", "", "19 1/2", "1e3", "19.", ".5"])
def test_points_text_other_than_an_integer_or_a_fraction_is_refused(text: str) -> None:
    """RECORD.md: "strings holding an integer or a fraction"; the forms read the friendlier ways of writing."""
    from scorer.engine.errors import ReadError
    from scorer.engine.numbers import parse_points
    with pytest.raises(ReadError, match="is not a number of points"):
        parse_points(text, "points.Anna")


@pytest.mark.parametrize(("value", "message"), [
    ("25,33", 'points.Anna: "25,33" is a decimal: points come in whole numbers or thirds; write "76/3"'),
    ("25.33", 'points.Anna: "25.33" is a decimal: points come in whole numbers or thirds; write "76/3"'),
    (25.67, 'points.Anna: 25.67 is a decimal: points come in whole numbers or thirds; write "77/3"'),
    ("19.123456789", 'points.Anna: "19.123456789" is a decimal: points come in whole numbers or thirds; '
                     "write 19"),
    (26.0, "points.Anna: 26.0 is a decimal: points come in whole numbers or thirds; write 26"),
])
def test_decimal_points_are_refused_with_the_third_they_stand_for(value: object, message: str) -> None:
    """RECORD.md: a decimal is a read error (points come in whole numbers or thirds); "25,33" was
    once stored as 2533/100 by the form. The error names the nearest third."""
    from scorer.engine.errors import ReadError
    from scorer.engine.numbers import parse_points
    with pytest.raises(ReadError) as caught:
        parse_points(value, "points.Anna")
    assert str(caught.value) == message
    assert caught.value.key == "points.decimal"
