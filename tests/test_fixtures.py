"""Golden data: every shared fixture through ``scarto score --json``, compared as the
fixtures' README says (violations exactly, errors as a subset, scores and the ultimo bonus as
exact numbers, a read error as no result line and one line on standard error, exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from scorer.engine.cards import card_name, parse_index

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = sorted(p.stem for p in (FIXTURES / "hands").glob("*.json"))


def _expected(name: str) -> dict:
    return json.loads((FIXTURES / "expected" / f"{name}.json").read_text())


READ_ERRORS = [n for n in NAMES if _expected(n).get("read_error")]


def _key(problem: dict) -> tuple:
    return tuple(problem.get(k) for k in ("code", "severity", "trick", "player", "card"))


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    """One run of the real command over every fixture, as the contract describes."""
    files = [str(FIXTURES / "hands" / f"{n}.json") for n in NAMES]
    run = subprocess.run([sys.executable, "-m", "scorer", "score", "--json", *files],
                         capture_output=True, text=True, check=False)
    unreadable = [str(FIXTURES / "hands" / f"{n}.json") for n in READ_ERRORS]
    complaints = run.stderr.splitlines()
    assert len(complaints) == len(unreadable)
    for file, line in zip(unreadable, complaints, strict=True):
        assert line.startswith(f"scarto: {file}: ")
    assert run.returncode == (2 if unreadable else 1)  # some fixtures have problems
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [d["file"] for d in lines] == [f for f in files if f not in unreadable]
    return {Path(d["file"]).stem: d for d in lines}


def test_fixtures_are_present() -> None:
    assert len(NAMES) >= 48
    assert {p.stem for p in (FIXTURES / "expected").glob("*.json")} == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_fixture(name: str, results: dict[str, dict]) -> None:
    want = _expected(name)
    if want.get("read_error"):
        assert name not in results  # no result line; its line on standard error is checked above
        return
    got = results[name]
    assert got["format"] == "scarto-result/1"
    assert got["ruleset"] == want["ruleset"]
    for problem in got["problems"]:
        assert problem["message"].strip()
        for field in ("trick", "player"):
            if field in problem:
                assert str(problem[field]) in problem["message"]
        if "card" in problem:  # by its code or its name ("the Cavalier of Batons")
            name = card_name(parse_index(problem["card"]))
            assert problem["card"] in problem["message"] or name.lower() in problem["message"].lower()
    errors = {p["code"] for p in want["problems"] if p["severity"] == "error"}
    if errors:
        assert errors <= {p["code"] for p in got["problems"]}
        assert "players" not in got and "deck_total" not in got
        return
    assert {_key(p) for p in got["problems"]} == {_key(p) for p in want["problems"]}
    assert Fraction(str(got["deck_total"])) == Fraction(str(want["deck_total"]))
    scores = {p["name"]: p for p in got["players"]}
    assert [p["name"] for p in got["players"]] == [p["name"] for p in want["players"]]
    for player in want["players"]:
        assert ("bonus" in scores[player["name"]]) == ("bonus" in player), player["name"]
        for field in ("card_points", "bonus", "score"):
            if field in player:
                assert Fraction(str(scores[player["name"]][field])) == Fraction(str(player[field])), (
                    player["name"], field)


def test_bonus_where_the_ultimo_switch_is_on() -> None:
    """The README: ``bonus`` is in the expected file for every player when ``ultimo`` is on."""
    with_bonus = [n for n in NAMES if "players" in _expected(n) and "bonus" in _expected(n)["players"][0]]
    assert len(with_bonus) >= 8
    assert any(p["bonus"] != 0 for n in with_bonus for p in _expected(n)["players"])
