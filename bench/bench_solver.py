"""How far back the hand review reaches: the earliest trick from which it is exact within 2 s a player.

For simulated hands of every preset and deal (the five presets, each with the three deals,
in turn), each player's review (:func:`scorer.engine.analysis.analyse` with ``seats``: their
par and every play of theirs) is timed from a trick on, with a fresh solver; the hand's reach
is the earliest trick from which every player's review takes at most ``--budget`` seconds of
CPU time. The search starts 8 tricks from the end and moves a trick earlier while it fits (a
trick later while it does not). A review past the budget is stopped by the solver's node
limit (the budget times the node rate measured on the first hand), so a hand costs a few
budgets at most. Run: ``.venv/bin/python bench/bench_solver.py [--hands N] [--write]``.

CPU time, not the clock: on the shared 2-core machine the clock counts other sessions' work.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results import replace_section  # noqa: E402
from scorer.engine.analysis import analyse  # noqa: E402
from scorer.engine.records import HandRecord  # noqa: E402
from scorer.engine.rulesets import DEALS, PRESETS  # noqa: E402
from scorer.engine.simulation import simulate_hand  # noqa: E402
from scorer.engine.solver import SearchTooLarge  # noqa: E402

FIRST_GUESS = 8
"""Tricks from the end where the search for a hand's reach starts."""


def hands(count: int, seed: int) -> list[HandRecord]:
    """Simulated full records, every preset with every deal in turn."""
    rng = random.Random(seed)
    cases = [replace(PRESETS[p], deal=d) for p in PRESETS for d in DEALS]
    return [simulate_hand(cases[i % len(cases)], rng) for i in range(count)]


def review_time(record: HandRecord, trick: int, seat: int, node_limit: int | None) -> tuple[float, int] | None:
    """CPU seconds and positions of one player's review from ``trick``; None past the node limit."""
    start = time.process_time()
    try:
        review = analyse(record, trick, seats=(seat,), node_limit=node_limit)
    except SearchTooLarge:
        return None
    return time.process_time() - start, review.nodes


def fits(record: HandRecord, trick: int, budget: float, node_limit: int | None,
         rates: list[tuple[float, int]]) -> bool:
    """Whether every player's review from ``trick`` takes at most ``budget`` seconds."""
    for seat in range(len(record.players)):
        timed = review_time(record, trick, seat, node_limit)
        if timed is None or timed[0] > budget:
            return False
        rates.append(timed)
    return True


def reach(record: HandRecord, budget: float, node_limit: int | None, rates: list[tuple[float, int]]) -> int:
    """The earliest trick from which the whole review fits the budget (the last trick always does)."""
    tricks = record.ruleset.tricks
    trick = max(1, tricks - FIRST_GUESS + 1)
    if fits(record, trick, budget, node_limit, rates):
        while trick > 1 and fits(record, trick - 1, budget, node_limit, rates):
            trick -= 1
        return trick
    while trick < tricks and not fits(record, trick + 1, budget, node_limit, rates):
        trick += 1
    return trick + 1 if trick < tricks else tricks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500)
    parser.add_argument("--budget", type=float, default=2.0, help="CPU seconds per player per hand")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--write", action="store_true", help="update the Solver section of bench/RESULTS.md")
    args = parser.parse_args()
    records = hands(args.hands, args.seed)
    rates: list[tuple[float, int]] = []
    reached: dict[str, list[int]] = {deal: [] for deal in DEALS}
    node_limit = None
    started, started_cpu = time.perf_counter(), time.process_time()
    for number, record in enumerate(records):
        rules = record.ruleset
        first = reach(record, args.budget, node_limit, rates)
        reached[rules.deal].append(rules.tricks - first + 1)
        if node_limit is None:  # the budget in positions, from what the first hand measured
            seconds, nodes = map(sum, zip(*rates, strict=True))
            node_limit = int(args.budget * nodes / seconds)
        print(f"hand {number + 1} ({rules.name}): exact from trick {first} of {rules.tricks}", flush=True)
    clock, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    seconds, nodes = map(sum, zip(*rates, strict=True))
    load = os.getloadavg()[0]
    table = _table(reached)
    print(table)
    print(f"{len(records)} hands in {clock:.0f} s ({cpu:.0f} s CPU); {nodes / seconds:,.0f} positions per CPU second; "
          f"node limit {node_limit:,}; load average {load:.1f}")
    if args.write:
        _write(args, len(records), table, nodes / seconds, node_limit or 0, clock, cpu, load)


def _table(reached: dict[str, list[int]]) -> str:
    rows = ["| deal | hands | tricks a player's review covers within the budget: least, median, most "
            "| hands per number of tricks covered |", "|---|---|---|---|"]
    for deal, covered in reached.items():
        if not covered:
            continue
        spread = ", ".join(f"{k}: {v}" for k, v in sorted(Counter(covered).items()))
        rows.append(f"| `{deal}` ({DEALS[deal].cards_each} tricks) | {len(covered)} | {min(covered)}, "
                    f"{statistics.median(covered):g}, {max(covered)} | {spread} |")
    return "\n".join(rows)


def _write(args: argparse.Namespace, count: int, table: str, rate: float, node_limit: int, clock: float,
           cpu: float, load: float) -> None:
    body = f"""`.venv/bin/python bench/bench_solver.py --hands {args.hands} --write` ({date.today().isoformat()}, \
Python {platform.python_version()}, the shared 2-core machine, one process; the 1-minute load average at the end: \
{load:.1f}). {count} simulated hands, the five presets each with the three deals in turn; for each hand the
earliest trick from which **every** player's review (their par and each of their plays weighed, a fresh solver)
takes at most {args.budget:g} s of CPU time. Listed as the number of tricks the review covers (the last trick
counts 1).

{table}

The search visited {rate:,.0f} positions per CPU second (a review past the budget was stopped at
{node_limit:,} positions). The run took {clock:.0f} s by the clock and {cpu:.0f} s of CPU time.
"""
    replace_section(ROOT / "bench" / "RESULTS.md", "## Solver", "## Solver\n\n" + body + NOTES)


NOTES = """
Why not 500 hands. A hand costs a few reviews at the budget (the last trick that fits and the
first that does not, for each player), about 6 s of CPU; 500 hands are close to an hour of CPU
(two to three by the clock at this load), and the machine is shared by several sessions. The
figures above are from the number of hands given; `--hands 500` gives the issue's count where
the machine allows.

A bound from the cards left (at a trick's start a player gains between nothing and every card
still in play, so a window beyond that needs no search) was tried and is not used: it cut the
positions of twelve fixed reviews by a third, but the bound it returns is weaker than the one the
search finds, MTD(f)'s narrow searches then need more rounds, and on the same 15 hands the reach
came out no better (`three` 7, 8, 9; `four` 5, 7, 8; `piccolo` 8, 9, 9), one review taking six
times the positions.

What would get further (docs/REVIEW.md): the cost grows about fourfold a trick with three players
and faster with four (each trick multiplies the continuations by every player's choices). A
faster move generator changes the price of a position, not their number: each costs about 4
microseconds of CPU in pure Python, where a compiled solver pays well under one, so some two or
three tricks more; the card sets are already single Python integers (bit sets), so a bit-set
library from the registry would add little. Fewer positions: bounds that MTD(f) can use (the
points the others are sure to take, with the search's own bound kept where it is the tighter),
partition search over the tricks' winners, and the tables of one trick's review kept for the
trick before it.
"""


if __name__ == "__main__":
    main()
