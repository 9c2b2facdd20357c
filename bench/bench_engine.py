"""How many full hand records per second the engine reads, checks and counts.

2,000 simulated full records (``tricks`` form, every preset in turn) are generated
as JSON values before timing; then ``parse_hand`` + ``score_hand`` (which validates)
run over all of them in one process. Run: ``.venv/bin/python bench/bench_engine.py``
(``--profile`` prints the cProfile of one pass).
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.engine.records import hand_to_dict, parse_hand  # noqa: E402
from scorer.engine.rulesets import PRESETS  # noqa: E402
from scorer.engine.scoring import score_hand  # noqa: E402
from scorer.engine.simulation import simulate_hand  # noqa: E402


def records(count: int, seed: int) -> list[dict[str, Any]]:
    """Simulated legal full records, as the JSON values a file would hold."""
    rng = random.Random(seed)
    presets = list(PRESETS.values())
    return [hand_to_dict(simulate_hand(presets[i % len(presets)], rng)) for i in range(count)]


def run(data: list[dict[str, Any]]) -> int:
    """Read, check and count every record; the number with problems (0 expected)."""
    flawed = 0
    for value in data:
        if score_hand(parse_hand(value)).problems:
            flawed += 1
    return flawed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5, help="timed passes; the best is reported")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    data = records(args.records, args.seed)
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(run, data)
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        return
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        flawed = run(data)
        best = min(best, time.perf_counter() - start)
        assert flawed == 0, f"{flawed} simulated records have problems"
    print(f"engine: {len(data)} full records, parse_hand + score_hand, best of {args.repeat}: "
          f"{best:.3f} s = {len(data) / best:,.0f} records/s "
          f"(Python {platform.python_version()}, single process)")


if __name__ == "__main__":
    main()
