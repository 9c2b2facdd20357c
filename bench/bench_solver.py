"""How far back the hand review reaches: the earliest trick from which it is exact within 2 s a player.

For simulated hands of every preset and deal (the five presets, each with the three deals, in
turn), each player's review is stepped back from the last trick a trick at a time
(:func:`scorer.engine.analysis.reviews`: one solver, each step adding its trick's plays and the
new par, so the CPU time spent up to a step is what the review from that trick costs). The
player's reach is the earliest trick reached within ``--budget`` seconds of CPU time; the step
that would pass it is stopped by the solver's node limit (the time left at the positions per
second measured so far), so a player costs about one budget. The hand's reach is the least of
its players'. ``--workers`` hands at a time, in processes.
Run: ``.venv/bin/python bench/bench_solver.py [--hands N] [--workers 2] [--write]``.

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
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results import replace_section  # noqa: E402
from scorer.engine.analysis import reviews  # noqa: E402
from scorer.engine.records import HandRecord  # noqa: E402
from scorer.engine.rulesets import DEALS, PRESETS  # noqa: E402
from scorer.engine.simulation import simulate_hand  # noqa: E402
from scorer.engine.solver import SearchTooLarge, Solver  # noqa: E402

FIRST_RATE = 250_000
"""Positions per CPU second assumed until a worker has measured its own."""
_measured = [0.0, 0]
"""This process's CPU seconds and positions so far (the rate for the node limit)."""


@dataclass(frozen=True)
class Reach:
    """One player's review of one hand: how far back it got within the budget, at what cost."""

    deal: str
    covered: int
    """Tricks the review covers (the last trick counts 1)."""
    seconds: float
    """CPU seconds of the review from its earliest trick."""
    nodes: int
    spent: float
    """CPU seconds spent, the stopped step included."""


def hands(count: int, seed: int) -> list[HandRecord]:
    """Simulated full records, every preset with every deal in turn."""
    rng = random.Random(seed)
    cases = [replace(PRESETS[p], deal=d) for p in PRESETS for d in DEALS]  # type: ignore[arg-type]
    return [simulate_hand(cases[i % len(cases)], rng) for i in range(count)]


def _rate() -> float:
    seconds, nodes = _measured
    return nodes / seconds if seconds > 0.5 else FIRST_RATE


def player_reach(record: HandRecord, seat: int, budget: float) -> Reach:
    """Step one player's review back until the next trick would pass the budget."""
    rules = record.ruleset
    solver = Solver(rules)
    start = time.process_time()
    covered, seconds, nodes = 0, 0.0, 0
    try:
        for step in reviews(record, seats=(seat,), solver=solver):
            elapsed = time.process_time() - start
            if elapsed > budget:
                break
            covered, seconds, nodes = rules.tricks - step.from_trick + 1, elapsed, step.nodes
            solver.node_limit = solver.nodes + int((budget - elapsed) * _rate() * 1.2) + 1000
    except SearchTooLarge:
        pass
    spent = time.process_time() - start
    _measured[0] += spent
    _measured[1] += solver.nodes
    return Reach(rules.deal, covered, seconds, nodes, spent)


def hand_reach(job: tuple[HandRecord, float]) -> list[Reach]:
    """Every player's reach in one hand (a worker's unit of work)."""
    record, budget = job
    return [player_reach(record, seat, budget) for seat in range(len(record.players))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500)
    parser.add_argument("--budget", type=float, default=2.0, help="CPU seconds per player per hand")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=1, help="hands reviewed at a time, in processes")
    parser.add_argument("--write", action="store_true", help="update the Solver section of bench/RESULTS.md")
    args = parser.parse_args()
    records = hands(args.hands, args.seed)
    started = time.perf_counter()
    jobs = [(record, args.budget) for record in records]
    results: list[list[Reach]] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for number, found in enumerate(pool.map(hand_reach, jobs), start=1):
            results.append(found)
            rules = records[number - 1].ruleset
            print(f"hand {number} ({rules.name}): covers {[r.covered for r in found]} of {rules.tricks} tricks",
                  flush=True)
    clock = time.perf_counter() - started
    load = os.getloadavg()[0]
    flat = [r for found in results for r in found]
    cpu = sum(r.spent for r in flat)
    rate = sum(r.nodes for r in flat) / max(sum(r.seconds for r in flat), 1e-9)
    table = _table(results)
    print(table)
    print(f"{len(records)} hands in {clock:.0f} s ({cpu:.0f} s CPU, {args.workers} workers); "
          f"{rate:,.0f} positions per CPU second; load average {load:.1f}")
    if args.write:
        _write(args, table, rate, clock, cpu, load)


def _spread(values: list[int]) -> str:
    return f"{min(values)}, {statistics.median(values):g}, {max(values)}"


def _table(results: list[list[Reach]]) -> str:
    rows = ["| deal | hands | tricks covered, every player's review of the hand: least, median, most "
            "| hands per number of tricks covered | one player's review: least, median, most |",
            "|---|---|---|---|---|"]
    for deal, spec in DEALS.items():
        found = [r for r in results if r[0].deal == deal]
        if not found:
            continue
        per_hand = [min(r.covered for r in hand) for hand in found]
        per_player = [r.covered for hand in found for r in hand]
        spread = ", ".join(f"{k}: {v}" for k, v in sorted(Counter(per_hand).items()))
        rows.append(f"| `{deal}` ({spec.cards_each} tricks) | {len(found)} | {_spread(per_hand)} | {spread} "
                    f"| {_spread(per_player)} |")
    return "\n".join(rows)


def _write(args: argparse.Namespace, table: str, rate: float, clock: float, cpu: float, load: float) -> None:
    body = f"""`.venv/bin/python bench/bench_solver.py --hands {args.hands} --workers {args.workers} --write` \
({date.today().isoformat()}, Python {platform.python_version()}, the shared 2-core machine; the 1-minute load \
average at the end: {load:.1f}). {args.hands} simulated hands, the five presets each with the three deals in turn;
for each player, their review (par and each of their plays weighed) stepped back from the last trick while the
CPU time stays within {args.budget:g} s; a hand covers what **every** player's review covers. Listed as the
number of tricks covered (the last trick counts 1).

{table}

The search visited {rate:,.0f} positions per CPU second. The run took {clock:.0f} s by the clock and \
{cpu:.0f} s of CPU time.
"""
    if args.hands < 500:
        body += f"""
**A sample of {args.hands} hands**, not the 500 the measurement calls for: the machine was shared. The
issue's count: `.venv/bin/python bench/bench_solver.py --hands 500 --workers 2 --write` on a quiet
machine (about {cpu / args.hands * 500 / 60 / 2:.0f} minutes by the clock on two idle cores, from this run's CPU time).
"""
    replace_section(ROOT / "bench" / "RESULTS.md", "## Solver", "## Solver\n\n" + body + NOTES)


NOTES = """
How it is measured. One solver per player steps the review back from the last trick
(`analysis.reviews`): each step weighs only its trick's plays and the new par, the plays after it
being weighed already, so the CPU time up to a step is what `analysis.review` spends to start the
review there. A player's reach is the earliest step within the budget; the hand's, the least of its
players'. A player costs about one budget (the step that would pass it is stopped by the node limit),
so 500 hands are about an hour of CPU (500 x 3.3 players x 2 s, and what each review costs
before its first search): `--workers 2` on two idle cores, about half an hour by the clock.

Before these changes, 15 hands (one process, one review from a guessed trick at a time) covered:
`three` 8, 9, 10 tricks (least, median, most), `four` 5, 6, 7, `piccolo` 9, 9, 9. The least stays
where it was for `four` (one hand in twenty: its cards leave one player's review little to cut);
the median moved a trick or more for `three` and `four`.

What was tried, on twelve fixed reviews (one player's review each; `three` 8 and 9 tricks, `four` 6 and
7, `piccolo` 9; positions searched in all, fewer is better):

| change | positions | kept |
|---|---|---|
| before (the table, MTD(f) from an equal share, history of best cards) | 3,695,714 | |
| bounds from the cards left at each trick's start, seeding the table's window | 3,402,961 | yes |
| the same, MTD(f) striding (the step doubling while the searches fail one way) | 3,042,326 | yes |
| the bounds only at the root (no weak bounds inside) / only the upper bound inside | 3,552,923 / 3,467,719 | no |
| a table entry at every card of a trick too, not only at its start | 2,901,159 | no: slower a position |
| the review weighed from its last play back, each search starting from the seat's next value | 2,312,968 | yes |
| MTD(f) after striding past the value: the bound strode from first, then halving | 2,223,035 | yes |
| the history counts only cards that decided (a cutoff or the exact value) | 1,918,336 | yes |
| the history weighted by the tricks left (squared) | 2,206,368 | no |
| a killer card per depth where the table has no best card | 1,790,693 | yes |
| the same, the last card of a trick still ordered by its worth | 1,873,285 | no |

Cheaper positions: the runs of equal cards without lists, the cards in play kept as one mask, and
each last trick's worth kept per player took the rate from about 230,000 to about 270,000 positions
per CPU second. The worst of the twelve, a `four` review of 7 tricks, went from 1,109,523 positions
(4.1 s) to 495,330 (1.6 s); the whole set from 16.0 s to 6.5 s of CPU.

The bounds: at a trick's start a player gains between nothing and every card still in play, less or
plus a forfeited Fool and the last-trick bonus while they may still move. They cut the searches that
only prove a player is sure of nothing more (one review: 188,784 positions to 1,958), but a search cut
by them returns a weak bound, and MTD(f), stepping a card at a time from a far guess, then needed many
more rounds (one review: 88,496 to 472,952). Striding and a close guess (the value the seat has a
play later, known when the review goes backwards) made them pay.

What would get further: with four players each trick multiplies the work by ten or more, so one
trick more needs a search ten times cheaper. The rate is the pure-Python price of a position (about
3.5 microseconds; a compiled solver pays well under one: some two tricks more); the count would fall
with bounds tighter than the cards left (the cards the others are sure to win: the top trumps held
against the player), partition search over the tricks' winners, and a table keyed by the cards' ranks
among those still in play (positions that differ only by cards already played then meet).
"""


if __name__ == "__main__":
    main()
