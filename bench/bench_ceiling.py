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
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_scale import BareServer  # noqa: E402
from bench.load import percentile, wrap  # noqa: E402
from bench.paced import AsyncPhone, Failed  # noqa: E402
from bench.results import load_line, replace_section  # noqa: E402
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


class BareProcess(BareServer):
    """One process (``WORKERS=1``) of the server with the app's bare route (bench/bare_server.py), or in the
    app's place a bare Flask app or a plain WSGI callable (``BARE_APP``)."""

    def __init__(self, database: Path, kind: str) -> None:
        super().__init__(database)
        self.kind = kind

    def env(self) -> dict[str, str]:
        return {**super().env(), "WORKERS": "1", "BARE_APP": self.kind}


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


def _kept_pages(server: Server) -> list[str]:
    """The match pages the steps ask for, each rendered once (every request after this is served kept)."""
    setup = Client(server.port)
    tokens = [setup.post_json("/api/matches", _match(n)).json()["edit_url"].rstrip("/").split("/")[-1]
              for n in range(MATCHES)]
    paths = [f"/m/{token}/" for token in tokens]
    for path in paths:
        setup.get(path)
    setup.close()
    return paths


def _steps(server: Server, paths: list[str], rates: tuple[int, ...], seconds: float, phones_open: int,
           *, until_ms: float = 1000.0) -> list[Step]:
    """Each rate in turn on ``phones_open`` connections opened before the clock (serving, not accepting);
    stops after a step whose p99 is past ``until_ms`` (the next one would only queue longer)."""
    steps: list[Step] = []

    async def all_steps() -> None:
        phones = [AsyncPhone(server.port) for _ in range(phones_open)]
        locks = [asyncio.Lock() for _ in phones]
        for first in range(0, phones_open, 100):
            await asyncio.gather(*(phone.get(paths[0]) for phone in phones[first:first + 100]))
        for rate in rates:
            before, began = server.cpu_seconds() or 0.0, time.monotonic()
            latencies, failed = await _step(server.port, paths, rate, seconds, phones, locks)
            wall = time.monotonic() - began
            cpu = (server.cpu_seconds() or 0.0) - before
            steps.append(Step(rate, len(latencies), cpu / wall, 1000 * cpu / max(1, len(latencies)),
                              1000 * percentile(latencies, 0.5), 1000 * percentile(latencies, 0.99), failed))
            print(f"{rate}/s: {steps[-1].cores:.2f} cores, {steps[-1].cpu_ms:.2f} ms CPU a request, "
                  f"median {steps[-1].median_ms:.1f} ms, p99 {steps[-1].p99_ms:.1f} ms, failed {failed}", flush=True)
            if steps[-1].p99_ms > until_ms:
                break
        for phone in phones:
            phone.close()

    asyncio.run(all_steps())
    return steps


def run(rates: tuple[int, ...] = RATES, seconds: float = SECONDS) -> list[Step]:
    raise_file_limit()  # a connection a phone, as the server's
    with tempfile.TemporaryDirectory(prefix="scarto-ceiling-") as scratch:
        server = OneProcess(Path(scratch) / "ceiling.sqlite").start()
        try:
            return _steps(server, _kept_pages(server), rates, seconds, PHONES)
        finally:
            server.stop()


FLOOR = (
    ("waitress alone: a WSGI callable answering \"ok\"", "wsgi"),
    ("waitress and Flask: a Flask app of one route answering \"ok\", behind the access log", "flask"),
    ("the app's bare route: the app's own work on every request (session, CSRF, headers, language, "
     "host check, access log), nothing else", "app"),
    ("the app: a match page kept rendered", "page"),
)
"""What a request costs one process, from waitress alone up to the app's cheapest page."""
FLOOR_RATES = (200, 500)
FLOOR_ROUNDS = 3
FLOOR_PHONES = 500
FLOOR_SECONDS = 5.0


@dataclass
class FloorRow:
    what: str
    rate: int
    cpu_ms: list[float]
    p99_ms: list[float]
    failed: int


def floor(rounds: int = FLOOR_ROUNDS, seconds: float = FLOOR_SECONDS) -> list[FloorRow]:
    """CPU a request for each of :data:`FLOOR` at each of :data:`FLOOR_RATES`, the servers taken in turn
    ``rounds`` times (the machine's speed drifts: each round sees the same drift for every row)."""
    raise_file_limit()
    rows = {(what, rate): FloorRow(what, rate, [], [], 0) for what, _kind in FLOOR for rate in FLOOR_RATES}
    with tempfile.TemporaryDirectory(prefix="scarto-floor-") as scratch:
        for round_ in range(rounds):
            for what, kind in FLOOR:
                print(f"round {round_ + 1}: {what}", flush=True)
                server = BareProcess(Path(scratch) / f"floor-{round_}-{kind}.sqlite",
                                     "app" if kind == "page" else kind).start()
                try:
                    paths = _kept_pages(server) if kind == "page" else ["/_bare"]
                    for step in _steps(server, paths, FLOOR_RATES, seconds, FLOOR_PHONES, until_ms=1e9):
                        row = rows[(what, step.rate)]
                        row.cpu_ms.append(step.cpu_ms)
                        row.p99_ms.append(step.p99_ms)
                        row.failed += step.failed
                finally:
                    server.stop()
    return list(rows.values())


CLUB_NIGHT_RATE = 530
"""Requests a second of a hundred club nights (bench/load.py measured 510-550)."""


def floor_section(rows: list[FloorRow], rounds: int = FLOOR_ROUNDS) -> str:
    """The floor's table and what it says of a hundred club nights."""
    by_rate: dict[int, list[FloorRow]] = {}
    for row in rows:
        by_rate.setdefault(row.rate, []).append(row)
    lines = []
    for what, _kind in FLOOR:
        cells = []
        for rate in FLOOR_RATES:
            row = next(r for r in by_rate[rate] if r.what == what)
            cells.append(f"**{statistics.median(row.cpu_ms):.2f} ms** ({min(row.cpu_ms):.2f}-{max(row.cpu_ms):.2f})")
            cells.append(f"{statistics.median(row.p99_ms):.0f} ms")
        failed = sum(r.failed for r in rows if r.what == what)
        lines.append(f"| {what} | {' | '.join(cells)} | {failed} |")
    head = " | ".join(f"CPU a request at {r}/s | p99 at {r}/s" for r in FLOOR_RATES)
    top = FLOOR_RATES[-1]
    med = {r.what: statistics.median(r.cpu_ms) for r in by_rate[top]}
    waitress, flask, bare, page = (med[what] for what, _kind in FLOOR)
    reading = (
        f"What a request costs one process before the app does anything of its own. At {top} requests a "
        f"second, waitress alone takes {waitress:.2f} ms of CPU a request, with Flask {flask:.2f} ms, the app's "
        f"bare route {bare:.2f} ms and a kept match page {page:.2f} ms ({_rounds(rounds)}, the "
        f"servers taken in turn; the range in brackets). At a hundred club nights' {CLUB_NIGHT_RATE} requests "
        f"a second, waitress and Flask alone are {CLUB_NIGHT_RATE * flask / 1000:.2f} of a core, and every "
        f"request as cheap as a kept match page {CLUB_NIGHT_RATE * page / 1000:.2f}, before a single hand is "
        "saved or a page rendered: against the two processes' knees (the table above: about two thirds of a "
        "core each) and the load generator's quarter of a core on the same 2 cores."
    )
    return f"""{wrap(f"The floor (`floor()`, {FLOOR_PHONES} kept-open connections, {FLOOR_SECONDS:g} s a step, the "
                     f"same server and settings, bench/bare_server.py serving each in the app's place):")}

| what one process serves | {head} | failed |
|---|{'---|' * (2 * len(FLOOR_RATES))}---|
{chr(10).join(lines)}

{wrap(reading)}
"""


def _rounds(rounds: int) -> str:
    return "one round" if rounds == 1 else f"medians of {rounds} rounds"


def section(steps: list[Step], command: str, floor_rows: list[FloorRow] | None = None) -> str:
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
""" + ("\n" + floor_section(floor_rows) if floor_rows else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    parser.add_argument("--no-floor", action="store_true", help="only the ceiling, not the floor beside it")
    parser.add_argument("--floor-only", action="store_true", dest="floor_only",
                        help=f"only the floor, printed (--floor-rounds rounds, {FLOOR_ROUNDS} by default)")
    parser.add_argument("--floor-rounds", type=int, default=FLOOR_ROUNDS, dest="floor_rounds")
    args = parser.parse_args()
    if args.floor_only:
        print(floor_section(floor(args.floor_rounds), args.floor_rounds))
        print(load_line())
        return
    steps = run()
    floor_rows = None if args.no_floor else floor()
    if not args.no_floor:
        print(floor_section(floor_rows or []))
    if args.write:
        replace_section(RESULTS, HEADING, section(steps, ".venv/bin/python bench/bench_ceiling.py --write",
                                                  floor_rows))
        print("Written to bench/RESULTS.md.")


if __name__ == "__main__":
    main()
