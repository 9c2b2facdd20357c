"""Deals made by the app: partitions of the pack, the same boards from the same seed, no seat favoured."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.engine.cards import CODES, FOOL_INDEX, SUIT, TRUMP
from scorer.engine.deals import MAX_BOARDS, MAX_SEED, deal_board, deal_set, deals_json, read_seed
from scorer.engine.errors import ReadError
from scorer.engine.rulesets import DEALS


@given(seed=st.text(min_size=1, max_size=20).filter(str.isprintable), board=st.integers(1, 500),
       deal=st.sampled_from(sorted(DEALS)))
def test_every_board_is_a_partition_of_the_deals_pack(seed: str, board: int, deal: str) -> None:
    shape = DEALS[deal]
    dealt = deal_board(seed, board, deal)
    cards = [c for hand in dealt.hands for c in hand] + list(dealt.talon)
    assert sorted(cards) == sorted(shape.pack)
    assert [len(h) for h in dealt.hands] == [shape.cards_each] * shape.players
    assert len(dealt.talon) == shape.talon
    assert dealt.dealer == (board - 1) % shape.players + 1


def test_the_same_seed_gives_the_same_boards_on_any_machine() -> None:
    """Pinned: the shuffle is SHA-256 in counter mode, written down in docs/DUPLICATE.md, so these
    cards are what any implementation of that text deals. A change here breaks every shared set."""
    board = deal_board("club", 1)
    assert [CODES[c] for c in board.hands[0]] == (
        "T18 T13 T8 T2 M JC 3C 8C 10C JD 2D 6D 8D 9D 10D KB QB JB 5B KS CS JS 10S 4S 2S").split()
    assert [CODES[c] for c in board.talon] == ["T15", "CC", "9S"]
    assert deal_set("club", 3) == deal_set("club", 3)
    assert deal_board("club", 2) == deal_set("club", 2)[1]


def test_another_seed_board_or_deal_gives_other_cards() -> None:
    first = deal_board("club", 1).hands
    assert deal_board("Club", 1).hands != first
    assert deal_board("club", 2).hands != first
    assert deal_board("club", 1, "four").hands[0] != first[0]


def test_each_hand_is_sorted_as_a_player_sorts_it() -> None:
    for hand in deal_board("sorting", 7).hands:
        suits = [SUIT[c] for c in hand]
        trumps = [c for c in hand if SUIT[c] == TRUMP]
        assert trumps == sorted(trumps, reverse=True)  # XXI first, whichever top trump the table plays
        assert suits == sorted(suits, key=lambda s: -1 if s == TRUMP else 0 if s == SUIT[FOOL_INDEX] else s)


def _chi_square_p(statistic: float, freedom: int) -> float:
    """Upper tail of the chi-square distribution (Wilson-Hilferty: good to a few per cent here)."""
    z = ((statistic / freedom) ** (1 / 3) - (1 - 2 / (9 * freedom))) / math.sqrt(2 / (9 * freedom))
    return 0.5 * math.erfc(z / math.sqrt(2))


@pytest.mark.parametrize("deal", ["three", "four"])
def test_no_seat_is_favoured_for_any_card_over_10000_boards(deal: str) -> None:
    """Each card lands at each seat (and in the talon) as often as the deal's sizes say. With the
    Bonferroni bound over the pack's cards a fair shuffle fails this once in a thousand seeds."""
    shape = DEALS[deal]
    boards = 10_000
    places: Counter[tuple[int, int]] = Counter()
    for number in range(1, boards + 1):
        board = deal_board("chi-square", number, deal)
        for seat, hand in enumerate(board.hands):
            places.update((card, seat) for card in hand)
        places.update((card, shape.players) for card in board.talon)
    share = [shape.cards_each] * shape.players + [shape.talon]
    total = sum(share)
    worst = 1.0
    for card in shape.pack:
        statistic = sum((places[card, place] - boards * n / total) ** 2 / (boards * n / total)
                        for place, n in enumerate(share))
        worst = min(worst, _chi_square_p(statistic, len(share) - 1))
    assert worst > 0.001 / len(shape.pack)


def test_a_deal_set_is_bounded_and_its_seed_read() -> None:
    assert read_seed(20261206) == "20261206"
    assert read_seed("  Circolo, 6 dicembre ") == "Circolo, 6 dicembre"
    with pytest.raises(ReadError, match="needs a seed"):
        read_seed("   ")
    with pytest.raises(ReadError, match="at most 64"):
        read_seed("x" * (MAX_SEED + 1))
    with pytest.raises(ReadError, match="control character"):
        read_seed("a\nb")
    with pytest.raises(ReadError, match="must be text"):
        read_seed(["a"])
    with pytest.raises(ReadError, match="at most 200"):
        deal_set("a", MAX_BOARDS + 1)
    with pytest.raises(ReadError, match="from 1, not 0"):
        deal_set("a", 0)
    with pytest.raises(ReadError, match="'five' is not one of"):
        deal_board("a", 1, "five")


def _scarto(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scorer", *args], capture_output=True, text=True, check=False)


def test_the_deals_command_prints_scarto_deals_1() -> None:
    run = _scarto("deals", "--seed", "club", "--boards", "2", "--deal", "four", "--json")
    assert run.returncode == 0, run.stderr
    printed = json.loads(run.stdout)
    assert printed == deals_json("club", "four", deal_set("club", 2, "four"))
    assert printed["format"] == "scarto-deals/1" and printed["seed"] == "club" and printed["deal"] == "four"
    assert [b["board"] for b in printed["boards"]] == [1, 2] and [b["dealer"] for b in printed["boards"]] == [1, 2]
    assert [len(h) for h in printed["boards"][0]["hands"]] == [19] * 4 and len(printed["boards"][0]["talon"]) == 2


def test_the_deals_command_lists_the_boards_or_says_what_is_wrong() -> None:
    run = _scarto("deals", "--seed", "club", "--boards", "1")
    assert run.returncode == 0 and "seat 3:" in run.stdout and "talon:" in run.stdout
    refused = _scarto("deals", "--seed", "club", "--boards", "201")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == "scarto: boards: 201 boards; a deal set has at most 200: play the rest from a new seed\n"
