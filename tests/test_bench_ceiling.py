"""bench/bench_ceiling.py: the floor's reading says how many rounds its figures are of."""

from __future__ import annotations

import pytest

from bench.bench_ceiling import FLOOR, FLOOR_RATES, FloorRow, floor_section


@pytest.mark.parametrize(("rounds", "said"), [(1, "(one round, the servers"), (3, "(medians of 3 rounds, the")])
def test_the_floor_says_its_rounds(rounds: int, said: str) -> None:
    """``--floor-only --floor-rounds 1`` measures the floor alone in a short run: its text says so."""
    rows = [FloorRow(what, rate, [0.5 + i] * rounds, [3.0] * rounds, 0)
            for i, (what, _kind) in enumerate(FLOOR) for rate in FLOOR_RATES]
    text = floor_section(rows, rounds)
    assert said in text.replace("\n", " ")
    assert "| waitress alone: a WSGI callable answering \"ok\" | **0.50 ms** (0.50-0.50) | 3 ms |" in text
