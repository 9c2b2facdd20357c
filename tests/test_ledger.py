"""The match sheet's ledger: fixed-width lines whose columns line up, grouped in rounds."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from scorer.engine.numbers import fraction_text
from scorer.engine.records import parse_match
from scorer.engine.standings import standings
from scorer.sheets.ledger import BREACH_MARK, DEALER_MARK, SEPARATOR, Ledger, _width, ledger
from tests.matchutil import points_match

FIXTURES = Path(__file__).parent / "fixtures"


def _ledger(data: dict) -> Ledger:  # type: ignore[type-arg]
    return ledger(standings(parse_match(data)))


def _columns(line: str) -> list[int]:
    """Where each player's block starts: the separators' positions."""
    return [i for i, ch in enumerate(line) if ch == SEPARATOR.strip()]


def test_every_line_has_the_same_columns() -> None:
    book = _ledger(points_match(12))
    lines = [book.names, book.labels] + [line.text for r in book.rounds for line in r.lines]
    assert len({tuple(_columns(line)) for line in lines}) == 1
    assert len({_width(line) for line in lines[1:]}) == 1  # right-aligned numbers end together
    assert book.width == max(_width(line) for line in lines)


def test_a_line_holds_points_score_and_total_with_the_dealers_mark() -> None:
    data = points_match(3)
    table = standings(parse_match(data))
    book = ledger(table)
    for hand, line in zip(table.lines, (line for r in book.rounds for line in r.lines), strict=True):
        number, *blocks = line.text.split(SEPARATOR.strip())
        assert number.strip() == str(hand.number)
        for seat, block in enumerate(blocks):
            points, score, total = block.split()
            count = hand.result.counts[seat]
            mark = DEALER_MARK if table.players[seat] == hand.dealer else ""
            assert points == mark + fraction_text(count.card_points)
            assert score == ("+" if count.score > 0 else "") + fraction_text(count.score)
            assert total == fraction_text(hand.totals[seat])


def test_names_are_centred_over_their_columns_and_cut_when_too_long() -> None:
    book = _ledger(points_match(3, players=("Anna", "Bartolomeo Giovanni Battista", "Carla")))
    blocks = book.names.split(SEPARATOR.strip())[1:]
    assert blocks[0].strip() == "Anna"
    assert blocks[1].strip().endswith("…") and "Bartolomeo".startswith(blocks[1].strip()[:10])
    assert _columns(book.names) == _columns(book.labels)
    left = len(blocks[0]) - len(blocks[0].lstrip())
    right = len(blocks[0]) - len(blocks[0].rstrip())
    assert abs(left - right) <= 1


def test_wide_characters_take_two_columns() -> None:
    assert _width("Anna") == 4 and _width("Zoë") == 3
    assert _width("王芳") == 4
    book = _ledger(points_match(3, players=("王芳", "Bruno", "Carla")))
    assert _width(book.names) == _width(book.labels)


def test_rounds_hold_one_deal_each_player() -> None:
    book = _ledger(points_match(7))
    assert [[line.number for line in r.lines] for r in book.rounds] == [[1, 2, 3], [4, 5, 6], [7]]
    assert all(r.plain for r in book.rounds)
    assert book.rounds[0].text.count("\n") == 2


def test_fractions_and_uncounted_points() -> None:
    data = points_match(3)
    data["hands"][0]["points"] = {"Anna": "58/3", "Bruno": "92/3", "Carla": 28}
    book = _ledger(data)
    first = book.rounds[0].lines[0].text
    assert "19⅓" in first and "30⅔" in first


def test_a_hand_with_problems_is_followed_by_them() -> None:
    breach = json.loads((FIXTURES / "hands" / "classic-breach.json").read_text())
    hand = {k: v for k, v in breach.items() if k not in ("format", "players", "ruleset")}
    clean = {"dealer": "Carla", "points": {"Anna": 20, "Bruno": 30, "Carla": 28}}
    data = {"format": "scarto-match/1", "players": breach["players"], "first_dealer": "Bruno",
            "ruleset": "classic", "hands": [hand, clean]}
    book = _ledger(data)
    (only,) = book.rounds
    assert not only.plain
    kinds = [seg.kind for seg in only.segments()]
    assert kinds == ["lines", "problems", "lines"]
    first, problems, second = only.segments()
    assert first.text.lstrip().startswith(f"1{BREACH_MARK}")
    assert [p.code for p in problems.problems] == [p.code for p in only.lines[0].problems]
    assert second.text.lstrip().startswith("2 ")


def test_hands_after_the_end_are_set_apart() -> None:
    data = points_match(5)
    data["end"] = {"hands": 3}
    book = _ledger(data)
    second = book.rounds[1]
    assert [line.counted for line in second.lines] == [False, False]
    assert [seg.kind for seg in second.segments()] == ["after_end"]
    # the totals stop at the end of the match
    assert second.lines[0].text.split()[-1] == book.rounds[0].lines[-1].text.split()[-1]


def test_an_empty_match_has_no_rounds() -> None:
    book = _ledger(points_match(0))
    assert book.rounds == ()
    assert "Anna" in book.names


def test_score_signs() -> None:
    from scorer.sheets.ledger import _signed

    assert _signed(Fraction(3)) == "+3" and _signed(Fraction(-10)) == "-10" and _signed(Fraction(0)) == "0"
    assert _signed(Fraction(1, 3)) == "+⅓"
