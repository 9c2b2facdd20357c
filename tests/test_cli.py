"""The ``scarto`` command: RECORD.md's command-line contract, bad input included."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorer.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "hands"
VALID = str(FIXTURES / "classic-valid-1.json")
BREACH = str(FIXTURES / "classic-breach.json")
POINTS = {"players": ["Anna", "Bruno", "Carla"], "dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _write(tmp_path: Path, name: str, content: Any) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return str(path)


def _full() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(VALID).read_text())
    return data


def _changed(**changes: Any) -> dict[str, Any]:
    return {**_full(), **changes}


def _bad_card() -> dict[str, Any]:
    data = _full()
    data["tricks"][4]["cards"][2] = "KX"
    return data


BAD = [
    ("not-json.json", "{", "not JSON (a name in double quotes expected at line 1, column 2)"),
    ("empty.json", "", "not JSON (a value expected at line 1, column 1)"),
    ("latin1.json", b'{"notes": "caff\xe8"}', "not UTF-8 text"),
    ("deep.json", "[" * 100_000, "not JSON (nested too deeply)"),
    ("digits.json", '{"number": ' + "7" * 5000 + "}", "not usable JSON (a number with too many digits)"),
    ("list.json", [POINTS], "record: must be a JSON object, not a list"),
    ("card.json", _bad_card(), "tricks[4].cards[2]: 'KX' is not a card"),
    ("preset.json", _changed(ruleset="classik"),
     'ruleset: "classik" is not a preset (presets: classic, rulesheet, saari, four, piccolo)'),
    ("switch.json", _changed(ruleset={"preset": "saari", "overtrum": True}),
     "ruleset: 'overtrum' is not a switch (switches: top_trump, discard, fool_discard, first_lead, overtrump, "
     "fool_last_trick, fool_forfeit, ultimo, deal)"),
    ("value.json", _changed(ruleset={"overtrump": "yes"}),
     'ruleset.overtrump: "yes" is not a value of overtrump (use true, false)'),
    ("dealer.json", _changed(dealer="Dora"), "dealer: 'Dora' is not one of the players (Anna, Bruno, Carla)"),
    ("points-key.json", {**POINTS, "points": {"Anna": 31, "Bruno": 22, "Dora": 25}},
     "points.Dora: 'Dora' is not one of the players (Anna, Bruno, Carla)"),
    ("type.json", _changed(tricks="all of them"), "tricks: must be a list of tricks, not text"),
    ("sizes-type.json", {**POINTS, "points": []},
     "points: must be an object keyed by player name, not a list"),
    ("points-null.json", {**POINTS, "points": None},  # null is absent (RECORD.md): no body left
     "record: a hand needs exactly one of tricks, captured, honours (with sizes) or points; found none"),
    ("utf16-no-mark.json", json.dumps(POINTS).encode("utf-16-le"), "not UTF-8 text"),
    ("nan.json", '{"players": ["Anna", "Bruno", "Carla"], "dealer": "Anna", "points": NaN}',
     "not JSON (NaN is not a JSON number)"),
    ("twice.json", _changed(players=["Anna", "Bruno", "Anna"]), "players: 'Anna' is named twice; names must be unique"),
    ("two.json", _changed(players=["Anna", "Bruno"]), "players: 2 players given; classic is played by 3"),
    ("four.json", {**POINTS, "ruleset": "four"}, "players: 3 players given; four is played by 4"),
    ("nobody.json", {"players": POINTS["players"], "dealer": "Anna"},
     "record: a hand needs exactly one of tricks, captured, honours (with sizes) or points; found none"),
    ("two-bodies.json", _changed(points=POINTS["points"]),
     "record: a hand needs exactly one of tricks, captured, honours (with sizes) or points; found tricks, points"),
    ("negative.json", {**POINTS, "points": {"Anna": -3, "Bruno": 56, "Carla": 25}},
     "points.Anna: -3 is negative; counted points are never below zero"),
    ("exponent.json", {**POINTS, "points": {"Anna": "1e99999999", "Bruno": 0, "Carla": 0}},
     "points.Anna: '1e99999999' is not a number of points (use e.g. 31 or \"58/3\")"),
    ("format.json", _changed(format="scarto-hand/9"),
     "format: 'scarto-hand/9' is not a format this reads (expected 'scarto-hand/1')"),
    # the revised RECORD.md (DECISIONS.md, 2026-12-01)
    ("deal.json", _changed(ruleset={"deal": "five"}),
     'ruleset.deal: "five" is not a value of deal (use "three", "four", "piccolo")'),
    ("classic-four.json", {**POINTS, "ruleset": {"preset": "classic", "deal": "four"}},
     "players: 3 players given; classic/four is played by 4"),
    ("long-name.json", _changed(players=["Anna", "B" * 41, "Carla"]),
     "players[1]: a name is at most 40 characters; this one has 41"),
    ("trimmed-twice.json", _changed(players=["Anna", "Bruno", " Anna "]),
     "players: 'Anna' is named twice; names must be unique"),
    ("zero-width-twice.json", _changed(players=["Anna", "Bruno", "An\u200bna"]),
     "players: 'Anna' is named twice; names must be unique"),
    ("blank-name.json", _changed(players=["Anna", "\u200b ", "Carla"]),
     "players[1]: a player name must be non-empty text"),
    ("float-points.json", {**POINTS, "points": {"Anna": 31.0, "Bruno": 22, "Carla": 25}},
     "points.Anna: 31.0 is a decimal: points come in whole numbers or thirds; write 31"),
    ("decimal-points.json", {**POINTS, "points": {"Anna": "19.5", "Bruno": 33.5, "Carla": 25}},
     "points.Anna: \"19.5\" is a decimal: points come in whole numbers or thirds; write \"58/3\""),
    ("negative-size.json", {"players": POINTS["players"], "dealer": "Anna",
                            "honours": {"Anna": [], "Bruno": [], "Carla": []},
                            "sizes": {"Anna": -1, "Bruno": 40, "Carla": 39}},
     "sizes.Anna: must be a whole number of cards, not -1"),
]


def test_a_byte_order_mark_is_ignored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(POINTS).encode())
    assert main(["score", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["deck_total"] == 78


def test_names_are_read_trimmed_and_without_zero_width_characters_everywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "names.json"
    record = {**POINTS, "players": [" Anna", "Bru\u200bno ", "Carla"], "dealer": "Bruno\u200b",
              "points": {"Anna ": 31, "Bruno": 22, " Carla": 25}}
    path.write_text(json.dumps(record))
    assert main(["score", "--json", str(path)]) == 0
    assert [p["name"] for p in json.loads(capsys.readouterr().out)["players"]] == ["Anna", "Bruno", "Carla"]


@pytest.mark.parametrize(("name", "content", "reason"), BAD, ids=[b[0] for b in BAD])
def test_a_read_error_is_one_line_naming_the_file_and_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: Any, reason: str
) -> None:
    bad = _write(tmp_path, name, content)
    status, out, err = _run(capsys, "score", "--json", VALID, bad, BREACH)
    assert status == 2
    assert err == f"scarto: {bad}: {reason}\n"
    assert [json.loads(line)["file"] for line in out.splitlines()] == [VALID, BREACH]


@pytest.mark.parametrize(("path", "reason"), [
    ("missing.json", "cannot read the file (No such file or directory)"),
    (".", "cannot read the file (Is a directory)"),
])
def test_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, reason: str) -> None:
    name = str(tmp_path / path)
    status, out, err = _run(capsys, "score", "--json", name, VALID)
    assert (status, err) == (2, f"scarto: {name}: {reason}\n")
    assert len(out.splitlines()) == 1


def test_a_file_too_large(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = _write(tmp_path, "big.json", " " * (16 * 1024 * 1024 + 1))
    assert _run(capsys, "score", name) == (2, "", f"scarto: {name}: larger than 16 MB; not a hand record\n")


def test_a_pipe_is_read_whole_though_it_has_no_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Files are read by their size; a named pipe (``scarto score <(...)``) has none and is read to the limit."""
    import os
    import threading

    fifo = tmp_path / "hand.fifo"
    os.mkfifo(fifo)
    text = Path(VALID).read_bytes()

    def feed() -> None:
        with open(fifo, "wb") as pipe:
            pipe.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    piped = _run(capsys, "score", "--json", str(fifo))
    writer.join()
    direct = _run(capsys, "score", "--json", VALID)
    assert piped[0] == direct[0] == 0
    assert json.loads(piped[1])["players"] == json.loads(direct[1])["players"]



@pytest.mark.parametrize("said", [0, 100])
def test_a_file_longer_than_its_size_says_is_read_whole(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], said: int) -> None:
    """A file is asked for the size it gives; one that holds more (the files of /proc say 0, a file still
    being written grows) is read on to its end, not cut short at that size and refused as not JSON."""
    import os

    real_fstat = os.fstat

    def fstat(descriptor: int) -> os.stat_result:
        status = list(real_fstat(descriptor))
        status[6] = said  # st_size
        return os.stat_result(status)

    direct = _run(capsys, "score", "--json", VALID)
    monkeypatch.setattr(os, "fstat", fstat)
    assert _run(capsys, "score", "--json", VALID) == direct
    assert direct[0] == 0

@pytest.mark.parametrize(("files", "status"), [
    ([VALID], 0),
    ([VALID, VALID], 0),
    ([BREACH], 1),
    ([VALID, BREACH], 1),
    ([str(FIXTURES / "classic-missing-trick.json")], 1),
    ([BREACH, "no-such-file.json"], 2),
    (["no-such-file.json", VALID], 2),
])
def test_exit_status(capsys: pytest.CaptureFixture[str], files: list[str], status: int) -> None:
    assert _run(capsys, "score", "--json", *files)[0] == status
    assert _run(capsys, "score", *files)[0] == status


def test_json_lines_in_the_order_given(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "score", "--json", BREACH, VALID, BREACH)
    assert (status, err) == (1, "")
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["file"] for r in results] == [BREACH, VALID, BREACH]
    assert results[0]["problems"][0]["code"] == "revoke" and results[1]["problems"] == []
    assert all(r["format"] == "scarto-result/1" for r in results)


def test_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(POINTS).encode())))
    status, out, err = _run(capsys, "score", "--json", "-")
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert result["file"] == "-" and result["players"][0] == {"name": "Anna", "card_points": 31, "score": 5}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"nonsense")))
    assert _run(capsys, "score", "-") == (2, "", "scarto: -: not JSON (a value expected at line 1, column 1)\n")


def test_the_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "score", VALID, BREACH)
    assert status == 1
    blocks = out.split(f"{BREACH}  (")
    assert blocks[0].startswith(f"{VALID}  (classic, tricks, dealer ")
    assert "  player   points    score" in blocks[0] and blocks[0].endswith("  no problems\n")
    assert "  violation: Trick 4: Carla played the Cavalier of Batons to a trump lead" in blocks[1]
    rows = [line.split() for line in blocks[0].splitlines()[2:5]]
    assert [row[0] for row in rows] == ["Anna", "Bruno", "Carla"]
    assert sum(int(row[2]) for row in rows) == 0


def test_fractions_in_the_readable_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = _write(tmp_path, "thirds.json", {**POINTS, "points": {"Anna": "58/3", "Bruno": "58/3", "Carla": "118/3"}})
    status, out, _ = _run(capsys, "score", name)
    assert status == 0
    assert "  Anna       19⅓      -6⅔\n" in out and "  Carla      39⅓      13⅓\n" in out


def test_the_readable_table_shows_the_ultimo_bonus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hand = {**POINTS, "ruleset": {"preset": "classic", "ultimo": True}, "ultimo": "Bruno"}
    status, out, _ = _run(capsys, "score", _write(tmp_path, "ultimo.json", hand))
    assert status == 0
    assert out.splitlines()[1:5] == ["  player   points    bonus    score",
                                     "  Anna        31      -2½       2½",
                                     "  Bruno       22        5        1",
                                     "  Carla       25      -2½      -3½"]


# --- scarto match ------------------------------------------------------------------------


MATCH: dict[str, Any] = {
    "format": "scarto-match/1",
    "title": "Thursday at the circolo",
    "players": ["Anna", "Bruno", "Carla"],
    "first_dealer": "Anna",
    "stake": {"per_point": "0.10", "currency": "EUR"},
    "hands": [
        {"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}},
        {"dealer": "Bruno", "points": {"Anna": 30, "Bruno": 30, "Carla": 30}},
        {"dealer": "Carla", "points": {"Anna": "58/3", "Bruno": "58/3", "Carla": "118/3"}},
    ],
}


def test_match_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "match", "--json", _write(tmp_path, "m.json", MATCH))
    assert (status, err) == (1, "")  # the second hand has an error
    assert json.loads(out) == {
        "format": "scarto-standings/1",
        "players": [{"name": "Anna", "total": "-5/3"}, {"name": "Bruno", "total": "-32/3"},
                    {"name": "Carla", "total": "37/3"}],
        "hands": [
            {"number": 1, "dealer": "Anna", "scores": {"Anna": 5, "Bruno": -4, "Carla": -1}, "problems": []},
            {"number": 2, "dealer": "Bruno", "scores": {}, "problems": ["points_total"]},
            {"number": 3, "dealer": "Carla", "scores": {"Anna": "-20/3", "Bruno": "-20/3", "Carla": "40/3"},
             "problems": []},
        ],
        "next_dealer": "Anna",
        "finished": True,
        "settlement": [{"from": "Bruno", "to": "Carla", "points": "32/3", "amount": "1.07"},
                       {"from": "Anna", "to": "Carla", "points": "5/3", "amount": "0.17"}],
    }


def test_match_exit_status_and_read_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = {**MATCH, "hands": [MATCH["hands"][0]]}
    assert _run(capsys, "match", "--json", _write(tmp_path, "clean.json", clean))[0] == 0
    broken = {**MATCH, "hands": [{"dealer": "Anna", "points": {"Anna": -1, "Bruno": 22, "Carla": 25}}]}
    name = _write(tmp_path, "broken.json", broken)
    assert _run(capsys, "match", name) == (
        2, "", f"scarto: {name}: hands[0].points.Anna: -1 is negative; counted points are never below zero\n")
    assert _run(capsys, "match", "--json", "nowhere.json") == (
        2, "", "scarto: nowhere.json: cannot read the file (No such file or directory)\n")


def test_match_loser_pays_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match = {**MATCH, "settle": "loser_pays", "stake": {"per_point": "1"},
             "hands": [{"dealer": "Anna", "points": {"Anna": 30, "Bruno": 24, "Carla": 24}}]}
    status, out, _ = _run(capsys, "match", "--json", _write(tmp_path, "m.json", match))
    assert status == 0
    table = json.loads(out)
    assert table["settlement"] == [{"from": "Bruno", "to": "Anna", "stakes": 1, "amount": "1.00"},
                                   {"from": "Carla", "to": "Anna", "stakes": 1, "amount": "1.00"}]
    assert table["finished"] is False and table["next_dealer"] == "Bruno"


def test_match_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "match", _write(tmp_path, "m.json", MATCH))
    assert status == 1
    assert out.splitlines() == [
        "Thursday at the circolo",
        "  hand  dealer    Anna   Bruno   Carla",
        "     1  Anna         5      -4      -1",
        "     2  Bruno        -       -       -",
        "        error: The counted points add up to 90; the classic pack counts 78 in all. Recount the piles.",
        "     3  Carla      -6⅔     -6⅔     13⅓",
        "  total            -1⅔    -10⅔     12⅓",
        "  finished; winner Carla",
        "  Bruno pays Carla 10⅔ points = 1.07 EUR",
        "  Anna pays Carla 1⅔ points = 0.17 EUR",
    ]


def test_no_traceback_from_the_real_command(tmp_path: Path) -> None:
    """Through ``python -m scorer``: every bad file at once, the good one still scored."""
    bad = [_write(tmp_path, name, content) for name, content, _ in BAD]
    run = subprocess.run([sys.executable, "-m", "scorer", "score", "--json", *bad, VALID],
                         capture_output=True, text=True, check=False, cwd=Path(__file__).parent.parent)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [f"scarto: {name}: {reason}" for name, (_, _, reason) in zip(bad, BAD,
                                                                                                  strict=True)]
    assert [json.loads(line)["file"] for line in run.stdout.splitlines()] == [VALID]


def test_a_read_error_stays_on_one_line_whatever_the_file_holds(tmp_path: Path) -> None:
    name = tmp_path / "name.json"
    name.write_text('{"players": ["An\\nna", "B", "C"], "dealer": "B", '
                    '"captured": {"An\\nna": ["KX"], "B": [], "C": []}}')
    code = tmp_path / "code.json"
    code.write_text('{"players": ["A", "B", "C"], "dealer": "B", "captured": {"A": ["K\\nX"], "B": [], "C": []}}')
    for bad, reason in ((name, "holds a tab, a line break"), (code, "is not a card")):
        run = subprocess.run([sys.executable, "-m", "scorer", "score", str(bad)], capture_output=True, text=True)
        assert run.returncode == 2
        assert run.stderr.count("\n") == 1 and reason in run.stderr


# --- scarto ratings ----------------------------------------------------------------


def _club(*matches: dict[str, Any], players: list[Any] | None = None) -> dict[str, Any]:
    return {"format": "scarto-club/1", "name": "Circolo", "players": players or ["Anna", "Bruno", "Carla"],
            "matches": list(matches)}


def _points(players: list[str], points: list[int], day: str = "2026-12-03", **extra: Any) -> dict[str, Any]:
    return {"format": "scarto-match/1", "date": day, "players": players, "first_dealer": players[0],
            "hands": [{"dealer": players[0], "points": dict(zip(players, points, strict=True))}], **extra}


def test_ratings_json_is_one_scarto_ratings_object_highest_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    club = _club(_points(["Anna", "Bruno", "Carla"], [40, 20, 18]),
                 _points(["Carla", "Anna", "Bruno"], [18, 40, 20], "2026-12-04"),
                 players=["Anna", "Bruno", "Carla", "Dora"])
    status, out, err = _run(capsys, "ratings", "--json", _write(tmp_path, "club.json", club))
    assert (status, err) == (0, "")
    document = json.loads(out)
    assert document["format"] == "scarto-ratings/1" and "openskill" in document["method"]
    assert [p["name"] for p in document["players"]] == ["Anna", "Bruno", "Carla"]  # Dora played no match
    assert [p["matches"] for p in document["players"]] == [2, 2, 2]
    assert document["players"][0]["rating"] > document["players"][1]["rating"] > document["players"][2]["rating"]
    assert all(p["provisional"] for p in document["players"])
    status, text, _err = _run(capsys, "ratings", _write(tmp_path, "club.json", club))
    assert status == 0 and text.splitlines()[1].split() == ["Anna", str(document["players"][0]["rating"]), "2",
                                                           "provisional"]


def test_ratings_follow_the_roster_not_the_names_a_match_was_played_under(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A renamed player's old match (its ``roster`` entry) and a merged one's are one history; the
    seats' order and the dealer change nothing."""
    renamed = _club(_points(["Anna", "Bruno", "Carla"], [40, 20, 18], roster={"Bruno": "Bruno Bianchi"}),
                    _points(["Anna", "Bruno Bianchi", "Carla"], [18, 40, 20], "2026-12-04"),
                    players=["Anna", "Bruno Bianchi", "Carla"])
    one_name = _club(_points(["Carla", "Bruno Bianchi", "Anna"], [18, 20, 40]),
                     _points(["Bruno Bianchi", "Carla", "Anna"], [40, 20, 18], "2026-12-04"),
                     players=["Anna", "Bruno Bianchi", "Carla"])
    outputs = []
    for club in (renamed, one_name):
        status, out, _err = _run(capsys, "ratings", "--json", _write(tmp_path, "club.json", club))
        assert status == 0
        outputs.append(json.loads(out))
    assert outputs[0] == outputs[1]
    assert {p["name"]: p["matches"] for p in outputs[0]["players"]}["Bruno Bianchi"] == 2


NO_SQLITE = """
import json, sys
sys.modules["sqlite_utils"] = None  # importing it now fails: a command that needs it cannot run
from scorer.cli import main
status = main(["ratings", "--json", sys.argv[1]])
print(json.dumps({"status": status, "storage": sorted(m for m in sys.modules if m.startswith("scorer.storage")),
                  "sqlite3": "sqlite3" in sys.modules}), file=sys.stderr)
"""


def test_ratings_read_the_club_file_with_no_database_nor_sqlite(tmp_path: Path) -> None:
    """The club's file is read by the engine: the command runs where SQLite is not there to import, and
    loads nothing of the storage layer."""
    club = _club(_points(["Anna", "Bruno", "Carla"], [40, 20, 18]), _points(["Carla", "Anna", "Bruno"], [18, 40, 20]))
    run = subprocess.run([sys.executable, "-c", NO_SQLITE, _write(tmp_path, "club.json", club)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stderr.splitlines()[-1]) == {"status": 0, "storage": [], "sqlite3": False}
    assert [p["name"] for p in json.loads(run.stdout)["players"]] == ["Anna", "Bruno", "Carla"]


def test_ratings_of_a_club_with_no_match_print_no_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = _run(capsys, "ratings", "--json", _write(tmp_path, "club.json", _club()))
    assert status == 0 and json.loads(out)["players"] == []
    assert _run(capsys, "ratings", _write(tmp_path, "club.json", _club()))[1] == "no player has a counted match\n"


@pytest.mark.parametrize(("content", "reason"), [
    ({"format": "scarto-match/1"}, "'scarto-match/1' is not a format this reads"),
    ({"name": "Circolo", "players": "Anna"}, "players: must be a list of player names"),
    ({"name": "Circolo", "part": {"file": "ab", "number": 2, "of": 2, "first_match": 3}, "matches": []},
     "part 2 of 2 of a club's file; rate the whole club"),
    (b"{", "not JSON"),
])
def test_ratings_of_what_is_not_a_whole_club_file_say_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, reason: str) -> None:
    status, out, err = _run(capsys, "ratings", _write(tmp_path, "bad.json", content))
    assert status == 2 and out == "" and reason in err and err.startswith("scarto: ")


def test_a_table_of_four_is_rated_as_it_was_played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A four-player match is one result of four places; its winner rated highest, its last lowest."""
    import random

    from scorer.engine.records import hand_to_dict, parse_match
    from scorer.engine.rulesets import find_ruleset
    from scorer.engine.simulation import NAMES, simulate_hand
    from scorer.engine.standings import standings

    four = find_ruleset("four")
    rng = random.Random(4)
    hands = [simulate_hand(four, rng) for _ in range(2)]
    match = {"format": "scarto-match/1", "date": "2026-12-03", "ruleset": "four", "players": list(NAMES),
             "first_dealer": hands[0].dealer, "hands": [hand_to_dict(h, in_match=True) for h in hands]}
    status, out, _err = _run(capsys, "ratings", "--json", _write(tmp_path, "club.json", _club(match, players=[])))
    assert status == 0
    rated = json.loads(out)["players"]
    totals = dict(zip(NAMES, standings(parse_match(match)).totals, strict=True))
    assert len(rated) == 4 and {p["matches"] for p in rated} == {1}
    assert rated[0]["name"] == max(totals, key=totals.__getitem__)
    assert rated[-1]["name"] == min(totals, key=totals.__getitem__)


def test_ratings_of_a_file_with_a_hand_in_error_count_it_for_nothing_and_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _points(["Anna", "Bruno", "Carla"], [40, 20, 10])  # 70 points of the pack's 78
    good = _points(["Anna", "Bruno", "Carla"], [18, 20, 40], "2026-12-04")
    status, out, _err = _run(capsys, "ratings", "--json", _write(tmp_path, "club.json", _club(bad, good)))
    assert status == 1
    alone = json.loads(_run(capsys, "ratings", "--json", _write(tmp_path, "good.json", _club(good)))[1])
    assert json.loads(out) == alone


def test_analyse_json(capsys: pytest.CaptureFixture[str]) -> None:
    """``scarto analyse --json``: one scarto-analysis/1 object, each play of the asked tricks weighed."""
    status, out, err = _run(capsys, "analyse", VALID, "--from-trick", "22", "--json")
    assert (status, err) == (0, "")
    review = json.loads(out)
    assert review["format"] == "scarto-analysis/1" and review["from_trick"] == 22
    assert [s["name"] for s in review["start"]] == ["Anna", "Bruno", "Carla"]
    assert sum(isinstance(s["value"], int) for s in review["start"]) == 3
    plays = review["plays"]
    assert [p["card"] for p in plays] == [c for t in _full()["tricks"][21:] for c in t["cards"]]
    assert [p["trick"] for p in plays] == [22, 22, 22, 23, 23, 23, 24, 24, 24, 25, 25, 25]
    assert all((p["lost"] == 0) == (p["card"] in p["best"]) for p in plays)
    assert plays[-1]["best"] == [plays[-1]["card"]]  # the last card is forced
    assert {g["name"]: g["lost"] for g in review["given_up"]} == {
        name: sum(p["lost"] for p in plays if p["player"] == name) for name in ("Anna", "Bruno", "Carla")}


def test_analyse_readable(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "analyse", VALID, "--from-trick", "22")
    review = json.loads(_run(capsys, "analyse", VALID, "--from-trick", "22", "--json")[1])
    lines = out.splitlines()
    assert status == 0 and lines[1].split() == ["player", "par", "given", "up"]
    assert [line.split()[:2] for line in lines[2:5]] == [[s["name"], str(s["value"])] for s in review["start"]]
    costly = [p for p in review["plays"] if p["lost"]]
    assert [line for line in lines if line.startswith("  trick ")] == [
        f"  trick {p['trick']}: {p['player']} played {p['card']}, gave up {p['lost']} (best: {' '.join(p['best'])})"
        for p in costly]


@pytest.mark.parametrize(("args", "reason"), [
    (["--from-trick", "26"], "from_trick: 26 is not a trick of the hand: a classic hand has tricks 1 to 25"),
    (["--from-trick", "0"], "from_trick: 0 is not a trick of the hand: a classic hand has tricks 1 to 25"),
])
def test_analyse_a_trick_past_the_end_is_a_read_error(capsys: pytest.CaptureFixture[str], args: list[str],
                                                      reason: str) -> None:
    status, out, err = _run(capsys, "analyse", VALID, *args)
    assert (status, out, err) == (2, "", f"scarto: {VALID}: {reason}\n")


def test_analyse_needs_a_full_trick_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    points = _write(tmp_path, "points.json", POINTS)
    status, out, err = _run(capsys, "analyse", points, "--from-trick", "20", "--json")
    assert (status, out) == (2, "")
    assert err == f"scarto: {points}: record: a review needs the full trick record (tricks), not points\n"
    short = _write(tmp_path, "short.json", _changed(tricks=_full()["tricks"][:24]))
    status, out, err = _run(capsys, "analyse", short, "--from-trick", "20")
    assert (status, out) == (2, "")
    assert err.endswith("the record has errors (the first: trick_count); a hand is reviewed only once it can be "
                        "scored\n")


def test_analyse_past_its_node_limit_says_to_start_later(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "analyse", VALID, "--from-trick", "1", "--node-limit", "1000")
    assert (status, out) == (2, "")
    assert err == (f"scarto: {VALID}: the analysis needs more than 1000 positions; start it at a later trick\n")


SCORE_ALONE = """
import json, sys
from scorer.cli import main
status = main(["score", "--json", sys.argv[1]])
print(json.dumps({"status": status, "loaded": sorted(m for m in sys.modules if m.startswith("scorer."))}),
      file=sys.stderr)
"""


def test_score_starts_without_what_only_other_commands_use() -> None:
    """``scarto score`` is started once for a batch of files, often from a script: its start-up is
    part of every batch. The review's solver, the standings, the duplicate ranking, the deal sets
    and the club files are imported by the commands that use them, not by ``score``."""
    run = subprocess.run([sys.executable, "-c", SCORE_ALONE, VALID], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stderr.splitlines()[-1])
    assert report["status"] == 0 and json.loads(run.stdout)["file"] == VALID
    others = {"scorer.engine.analysis", "scorer.engine.solver", "scorer.engine.standings", "scorer.engine.duplicate",
              "scorer.engine.deals", "scorer.engine.club_files", "scorer.engine.settlement"}
    assert sorted(others & set(report["loaded"])) == []
