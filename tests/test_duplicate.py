"""Duplicate sessions: reading the file, the cards checked against the board, matchpoints and
difference scoring worked by hand, the ranking, merging clubs, and the command."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.engine.cards import CODES
from scorer.engine.deals import deal_board
from scorer.engine.duplicate import duplicate_to_dict, merge, parse_duplicate, rank, ranking_to_dict
from scorer.engine.errors import ReadError
from scorer.engine.records import hand_to_dict
from scorer.engine.rulesets import find_ruleset
from scorer.engine.simulation import Deal, play_hand

SEED = "Circolo 2026-12-06"


def _points(dealer: str, points: dict[str, int]) -> dict[str, Any]:
    return {"dealer": dealer, "points": points}


def _session(tables: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"format": "scarto-duplicate/1", "seed": SEED, "deal": "three", "boards": 2,
            "scoring": "matchpoints", "tables": tables, **extra}


def _table(number: int, players: list[str], hands: list[tuple[int, dict[str, Any]]], round_: int = 1) -> dict:
    return {"round": round_, "table": number, "players": players,
            "hands": [{"board": board, "hand": hand} for board, hand in hands]}


def _three_tables() -> dict[str, Any]:
    """Board 1 (seat 1 deals) at three tables: seat 1 makes 30, 25 and 30 points; seat 2 20, 28, 20."""
    return _session([
        _table(1, ["Anna", "Bruno", "Carla"], [(1, _points("Anna", {"Anna": 30, "Bruno": 20, "Carla": 28}))]),
        _table(2, ["Dario", "Elena", "Franco"], [(1, _points("Dario", {"Dario": 25, "Elena": 28, "Franco": 25}))]),
        _table(3, ["Gina", "Ugo", "Vera"], [(1, _points("Gina", {"Gina": 30, "Ugo": 20, "Vera": 28}))]),
    ])


def test_matchpoints_worked_by_hand() -> None:
    """Seat 1 scored 4, -1, 4 (points less the base of 26): each 4 beats -1 (2) and ties the other
    4 (1), 3 of a top of 4, 75 %; the -1 beats nobody, 0 %. Seat 3: 2, -1, 2 likewise."""
    ranking = rank(parse_duplicate(_three_tables()))
    by_name = {p.name: p for p in ranking.players}
    assert by_name["Anna"].percent == by_name["Gina"].percent == 75
    assert by_name["Dario"].percent == 0
    assert by_name["Elena"].percent == 100  # 2 beats -6 twice: 4 of 4
    assert by_name["Bruno"].percent == by_name["Ugo"].percent == 25  # -6, -6, 2: a tie and a loss
    assert by_name["Carla"].percent == by_name["Vera"].percent == 75
    assert [(p.rank, p.name) for p in ranking.players][:3] == [(1, "Elena"), (2, "Anna"), (2, "Carla")]
    assert [(p.rank, p.name) for p in ranking.players][-2:] == [(8, "Dario"), (8, "Franco")]  # 0 %, a tie


def test_difference_worked_by_hand() -> None:
    """Difference: the score less the average of the others at the seat. Anna 4 - (−1 + 4)/2 = 5/2."""
    ranking = rank(parse_duplicate({**_three_tables(), "scoring": "difference"}))
    by_name = {p.name: p for p in ranking.players}
    assert by_name["Anna"].difference == Fraction(5, 2) and by_name["Dario"].difference == -5
    assert ranking.players[0].name == "Elena" and by_name["Elena"].difference == 8
    assert ranking_to_dict(ranking)["players"][0]["difference"] == 8


def test_a_seat_with_one_result_scores_fifty_percent() -> None:
    session = _session([_table(1, ["Anna", "Bruno", "Carla"], [(1, _points("Anna", {"Anna": 40, "Bruno": 20,
                                                                                  "Carla": 18}))])])
    assert {p.percent for p in rank(parse_duplicate(session)).players} == {50}


def _simulated_session(seed: str, tables: int, boards: int, rng: random.Random) -> dict[str, Any]:
    """Tables of three playing every board of the set, each hand played out from the board's cards."""
    rules = find_ruleset("classic")
    out = []
    for t in range(tables):
        players = [f"P{3 * t + k}" for k in range(3)]
        hands = []
        for board in range(1, boards + 1):
            dealt = deal_board(seed, board)
            record = play_hand(rules, Deal(dealt.hands, dealt.talon), rng, players=players, dealer=dealt.dealer - 1)
            hands.append((board, hand_to_dict(record)))
        out.append(_table(t + 1, players, hands))
    return {**_session(out), "seed": seed, "boards": boards}


@settings(max_examples=15, deadline=None)
@given(tables=st.integers(1, 5), boards=st.integers(1, 3), seed=st.integers(0, 10**6))
def test_matchpoints_at_a_board_and_seat_always_sum_to_the_maximum(tables: int, boards: int, seed: int) -> None:
    ranking = rank(parse_duplicate(_simulated_session(str(seed), tables, boards, random.Random(seed))))
    groups: dict[tuple[int, int], list[int]] = {}
    for r in ranking.results:
        groups.setdefault((r.board, r.seat), []).append(r.matchpoints)
        assert r.top == 2 * (tables - 1)
    assert len(groups) == 3 * boards
    assert all(sum(points) == tables * (tables - 1) for points in groups.values())
    assert all(p.boards == boards for p in ranking.players)


def test_the_file_round_trips() -> None:
    text = _simulated_session("round trip", 2, 2, random.Random(1))
    session = parse_duplicate(text)
    assert parse_duplicate(json.loads(json.dumps(duplicate_to_dict(session)))) == session
    assert duplicate_to_dict(parse_duplicate(duplicate_to_dict(session))) == duplicate_to_dict(session)


def test_a_card_the_seat_was_not_dealt_is_an_error_naming_the_card_and_the_seat() -> None:
    text = _simulated_session("cards", 1, 1, random.Random(2))
    hand = text["tables"][0]["hands"][0]["hand"]
    board = deal_board("cards", 1)
    # Bruno (seat 2) leads trick 1 (the dealer is seat 1): give him a card of Carla's (seat 3) instead
    theirs = next(CODES[c] for c in board.hands[2] if CODES[c] not in hand["tricks"][0]["cards"])
    mine = hand["tricks"][0]["cards"][0]
    for trick in hand["tricks"]:
        trick["cards"] = [theirs if c == mine else mine if c == theirs else c for c in trick["cards"]]
    with pytest.raises(ReadError) as caught:
        parse_duplicate(text)
    assert caught.value.where == "tables[0].hands[0].hand.tricks[0]"
    assert f"{theirs} was dealt to seat 3 (P2), not to P1" in caught.value.message


def test_the_board_is_dealt_by_its_seat_and_played_once() -> None:
    wrong_dealer = _session([_table(1, ["Anna", "Bruno", "Carla"], [(2, _points("Anna", {"Anna": 30, "Bruno": 20,
                                                                                        "Carla": 28}))])])
    with pytest.raises(ReadError, match=r"board 2 is dealt by seat 2 \(Bruno\), not by Anna"):
        parse_duplicate(wrong_dealer)
    twice = _three_tables()
    twice["tables"].append(_table(4, ["Anna", "Zeno", "Yuri"], [(1, _points("Anna", {"Anna": 30, "Zeno": 20,
                                                                                     "Yuri": 28}))], round_=2))
    with pytest.raises(ReadError, match="Anna plays board 1 twice"):
        parse_duplicate(twice)
    with pytest.raises(ReadError, match="board 3; the session deals 2 boards"):
        parse_duplicate(_session([_table(1, ["A", "B", "C"], [(3, _points("A", {"A": 1, "B": 1, "C": 76}))])]))


@pytest.mark.parametrize(("change", "where"), [
    ({"format": "scarto-match/1"}, "format"),
    ({"seed": ""}, "seed"),
    ({"boards": 0}, "boards"),
    ({"scoring": "imps"}, "scoring"),
    ({"tables": {}}, "tables"),
    ({"deal": "five"}, "deal"),
])
def test_a_damaged_file_is_a_read_error_that_says_where(change: dict[str, Any], where: str) -> None:
    with pytest.raises(ReadError) as caught:
        parse_duplicate({**_three_tables(), **change})
    assert caught.value.where == where


def test_two_clubs_of_one_deal_set_rank_together_and_others_are_refused() -> None:
    one = parse_duplicate({**_three_tables(), "club": "Circolo A"})
    two = parse_duplicate({**_three_tables(), "club": "Circolo B"})
    merged = rank(merge([one, two]))
    assert len(merged.players) == 18  # the two Annas are two players, each of their club
    anna = [p for p in merged.players if p.name == "Anna"]
    assert {p.club for p in anna} == {"Circolo A", "Circolo B"}
    assert all(p.percent == 70 for p in anna)  # now 4 beats two -1s and ties three 4s: 7 of a top of 10
    other = parse_duplicate({**_three_tables(), "seed": "another"})
    with pytest.raises(ReadError, match="only files of one deal set rank together"):
        merge([one, other])


def _scarto(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scorer", *args], capture_output=True, text=True, check=False)


def test_the_duplicate_command(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(_three_tables()))
    run = _scarto("duplicate", "--json", str(path))
    assert run.returncode == 0, run.stderr
    printed = json.loads(run.stdout)
    assert printed["format"] == "scarto-duplicate-ranking/1"
    assert printed["players"][0] == {"rank": 1, "name": "Elena", "boards": 1, "percent": 100.0, "difference": 8}
    assert [r["player"] for r in printed["boards"][0]["results"][:3]] == ["Anna", "Gina", "Dario"]
    readable = _scarto("duplicate", str(path))
    assert "Elena" in readable.stdout and "100.00 %" in readable.stdout
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**_three_tables(), "boards": "two"}))
    refused = _scarto("duplicate", str(broken))
    assert refused.returncode == 2 and refused.stderr.startswith(f"scarto: {broken}: boards: must be a whole")
