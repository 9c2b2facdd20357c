"""Golden data: every shared fixture through ``scarto score --json``, compared as the
fixtures' README says (violations exactly, errors as a subset, scores as exact numbers)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = sorted(p.stem for p in (FIXTURES / "hands").glob("*.json"))


def _key(problem: dict) -> tuple:
    return tuple(problem.get(k) for k in ("code", "severity", "trick", "player", "card"))


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    """One run of the real command over every fixture, as the contract describes."""
    files = [str(FIXTURES / "hands" / f"{n}.json") for n in NAMES]
    run = subprocess.run([sys.executable, "-m", "scorer", "score", "--json", *files],
                         capture_output=True, text=True, check=False)
    assert run.stderr == ""
    assert run.returncode == 1  # some fixtures have problems, none has a read error
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [d["file"] for d in lines] == files
    return {Path(d["file"]).stem: d for d in lines}


def test_fixtures_are_present() -> None:
    assert len(NAMES) >= 48
    assert {p.stem for p in (FIXTURES / "expected").glob("*.json")} == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_fixture(name: str, results: dict[str, dict]) -> None:
    want = json.loads((FIXTURES / "expected" / f"{name}.json").read_text())
    got = results[name]
    assert got["format"] == "scarto-result/1"
    assert got["ruleset"] == want["ruleset"]
    for problem in got["problems"]:
        assert problem["message"].strip()
        for field in ("trick", "player"):
            if field in problem:
                assert str(problem[field]) in problem["message"]
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
        for field in ("card_points", "score"):
            assert Fraction(str(scores[player["name"]][field])) == Fraction(str(player[field])), (
                player["name"], field)
