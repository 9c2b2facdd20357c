"""How much of a core one server process can use before its answers slow down.

bench/load.py's club nights at 100 clubs slowed down with the server's two processes using only
1.0-1.2 of the 2 cores. This measures one process alone (``WORKERS=1``, waitress with 8
threads, as ``make run`` starts each of them) answering the cheapest page there is for a phone:
a match page kept in memory, from thousands of kept-open connections, at a fixed rate that
rises step by step (an open loop: a request is sent at its time whether or not the earlier ones
were answered). For each rate: the CPU the process used, as cores busy, and the p99. The rate
where the p99 leaves a few milliseconds is what one process can serve; the cores busy there is
its ceiling, which the GIL sets well below a whole core: every request passes from waitress's
loop thread to a worker thread and back, and a thread that waits for the GIL leaves the core
idle meanwhile.

Standard library only on the client side (bench/paced.py). Run:
``.venv/bin/python bench/bench_ceiling.py`` (``--write`` records the figures in bench/RESULTS.md
under "## One process's ceiling").
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import percentile, wrap  # noqa: E402
from bench.paced import AsyncPhone, Failed  # noqa: E402
from bench.results import replace_section  # noqa: E402
from scorer.serve import raise_file_limit  # noqa: E402
from tests.serverutil import Client, Server  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
HEADING = "## One process's ceiling"
MATCHES = 50
PHONES = 2000
"""Below a process's connection limit (4,000), as a club night's 3,600 phones are on two processes."""
RATES = (200, 400, 500, 600, 700, 800, 1000)
SECONDS = 8.0


class OneProcess(Server):
    """scorer.serve with one process (``WORKERS=1``)."""

    def env(self) -> dict[str, str]:
        return {**super().env(), "WORKERS": "1"}


@dataclass
class Step:
    rate: int
    answered: int
    cores: float
    cpu_ms: float
    median_ms: float
    p99_ms: float
    failed: int


def _match(number: int) -> dict[str, Any]:
    return {"format": "scarto-match/1", "title": f"Table {number}", "ruleset": "classic",
            "players": ["Anna", "Bruno", "Carla"], "first_dealer": "Anna", "end": {"hands": 40}, "hands": []}


async def _step(port: int, paths: list[str], rate: int, seconds: float,
                phones: list[AsyncPhone], locks: list[asyncio.Lock]) -> tuple[list[float], int]:
    """``rate`` requests a second for ``seconds``, each on the next phone (waiting for it if still busy)."""
    latencies: list[float] = []
    failed = 0
    start = time.monotonic()

    async def one(i: int) -> None:
        nonlocal failed
        await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
        async with locks[i % len(phones)]:
            try:
                answer = await phones[i % len(phones)].get(paths[i % len(paths)])
            except Failed:
                failed += 1
                return
        if answer.status != 200:
            failed += 1
        latencies.append(answer.seconds)

    await asyncio.gather(*(one(i) for i in range(int(rate * seconds))))
    return latencies, failed


def run(rates: tuple[int, ...] = RATES, seconds: float = SECONDS) -> list[Step]:
    raise_file_limit()  # a connection a phone, as the server's
    steps = []
    with tempfile.TemporaryDirectory(prefix="scarto-ceiling-") as scratch:
        server = OneProcess(Path(scratch) / "ceiling.sqlite").start()
        try:
            setup = Client(server.port)
            tokens = [setup.post_json("/api/matches", _match(n)).json()["edit_url"].rstrip("/").split("/")[-1]
                      for n in range(MATCHES)]
            paths = [f"/m/{token}/" for token in tokens]
            for path in paths:  # rendered once: every request after this is served kept
                setup.get(path)
            setup.close()

            async def all_steps() -> None:
                phones = [AsyncPhone(server.port) for _ in range(PHONES)]
                locks = [asyncio.Lock() for _ in phones]
                for first in range(0, PHONES, 100):  # every connection open before the clock: serving, not accepting
                    await asyncio.gather(*(phone.get(paths[0]) for phone in phones[first:first + 100]))
                for rate in rates:
                    before, began = server.cpu_seconds() or 0.0, time.monotonic()
                    latencies, failed = await _step(server.port, paths, rate, seconds, phones, locks)
                    wall = time.monotonic() - began
                    cpu = (server.cpu_seconds() or 0.0) - before
                    steps.append(Step(rate, len(latencies), cpu / wall, 1000 * cpu / max(1, len(latencies)),
                                      1000 * percentile(latencies, 0.5), 1000 * percentile(latencies, 0.99),
                                      failed))
                    print(f"{rate}/s: {steps[-1].cores:.2f} cores, {steps[-1].cpu_ms:.2f} ms CPU a request, "
                          f"median {steps[-1].median_ms:.1f} ms, p99 {steps[-1].p99_ms:.1f} ms, failed {failed}",
                          flush=True)
                    if steps[-1].p99_ms > 1000:  # past the ceiling: the next step only queues longer
                        break
                for phone in phones:
                    phone.close()

            asyncio.run(all_steps())
        finally:
            server.stop()
    return steps


def section(steps: list[Step], command: str) -> str:
    today = datetime.date.today().isoformat()
    quick = [s for s in steps if s.p99_ms < 50 and not s.failed]
    best = max(quick, key=lambda s: s.rate) if quick else None
    intro = (
        f"`{command}` ({today}, Python {platform.python_version()}, {os.cpu_count()} cores): one server process "
        f"(`WORKERS=1`, waitress with 8 threads) answering match pages kept in memory ({MATCHES} matches) on "
        f"{PHONES} kept-open connections (opened before the first step), at a fixed rate for {SECONDS:g} s a "
        "step (an open loop: each request is sent at its time whether or not the earlier ones were answered)."
    )
    rows = "\n".join(f"| {s.rate}/s | {s.cores:.2f} | {s.cpu_ms:.2f} ms | {s.median_ms:.1f} ms | "
                     f"**{s.p99_ms:.0f} ms** | {s.failed} |" for s in steps)
    past = next((s for s in steps if s.p99_ms > 500), None)  # the queue run away
    reading = (
        f"One process kept its answers quick (p99 under 50 ms) up to {best.rate} requests a second, with "
        f"{best.cores:.2f} of a core busy and {best.cpu_ms:.2f} ms of CPU a request"
        + (f"; at {past.rate} a second, {past.cpu_ms:.2f} ms of CPU a request with {past.cores:.2f} of a core "
           f"busy, and the p99 {past.p99_ms:.0f} ms" if past else "")
        + ". Each process runs one thread's Python at a time (the GIL), and every request passes from "
        "waitress's loop thread to a worker thread and back: once requests queue, the threads take the GIL "
        "from each other more often, each request costs more, and the queue runs away. The knee is sharp and "
        "comes before the process's core is busy: a server of two processes answering club nights "
        "(bench/load.py) has to stay below it in each."
        if best else "No step kept the p99 under 50 ms."
    )
    return f"""{HEADING}

{wrap(intro)}

| rate | cores busy | CPU a request | median | p99 | failed |
|---|---|---|---|---|---|
{rows}

{wrap(reading)}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    args = parser.parse_args()
    steps = run()
    if args.write:
        replace_section(RESULTS, HEADING, section(steps, ".venv/bin/python bench/bench_ceiling.py --write"))
        print("Written to bench/RESULTS.md.")


if __name__ == "__main__":
    main()
