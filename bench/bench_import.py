"""How long a save waits behind a club import and a night's seating, on the real server.

The server is started as ``make run`` starts it (a process per core, waitress), on a database of
its own. One phone sends a ``scarto-club/1`` file of ``--matches`` matches of five hands each to
``POST /api/clubs`` (the issue's probe: 10,000 of them, 4.47 MB), then creates a club night of 60
players and ten rounds (``POST /c/<token>/nights``); meanwhile another phone saves a hand to an
unrelated match, one after another with a 20 ms pause, and every save's time is kept. What is
reported: how long each big write took, and the saves' times while it ran (median, p99, the
longest). Target: no save waits more than about 100 ms behind either.

``--root`` serves another checkout (the code before the change, for the comparison: its files
only, e.g. ``git archive <commit> | tar -x -C /tmp/old``).

Run: ``.venv/bin/python bench/bench_import.py`` (``--write`` records the figures in
bench/RESULTS.md under "## Saves beside a club import").
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results import replace_section  # noqa: E402
from tests.serverutil import HOST, Client, free_port  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
HEADING = "## Saves beside a club import"
PLAYERS = ["Anna", "Bruno", "Carla"]


def club_file(matches: int) -> bytes:
    """A club of ``matches`` matches of five counted hands each (about 450 bytes a match)."""
    hands = [{"dealer": PLAYERS[i % 3], "points": dict(zip(PLAYERS, (30, 28, 20), strict=True))} for i in range(5)]
    match = {"format": "scarto-match/1", "ruleset": "classic", "players": PLAYERS, "first_dealer": "Anna",
             "end": {"hands": 5}, "hands": hands}
    return json.dumps({"format": "scarto-club/1", "name": "Circolo grande", "players": PLAYERS,
                       "matches": [match] * matches}).encode()


class Served:
    """``python -m scorer.serve`` from a checkout, after ``init-db``, on a free port."""

    def __init__(self, root: Path, folder: str) -> None:
        self.port = free_port()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SCARTO_")}
        self.env.update(HOST=HOST, PORT=str(self.port), PYTHONPATH=str(root), SCARTO_DATABASE=f"{folder}/b.sqlite",
                        SCARTO_SECRET_KEY="k-" + secrets.token_hex(16))
        self.root = root
        subprocess.run([sys.executable, "-m", "flask", "--app", "scorer", "init-db"], cwd=root, env=self.env,
                       check=True, capture_output=True, timeout=120)
        self.log = open(f"{folder}/server.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen([sys.executable, "-m", "scorer.serve"], cwd=root, env=self.env,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                if Client(self.port, timeout=2).get("/").status == 200:
                    return
            except ConnectionError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def saves_during(port: int, token: str, work: Any) -> tuple[float, list[float]]:
    """Run ``work()`` in a thread while a phone saves hands to the match ``token`` one after another; the
    work's seconds and each save's (the saves started while it ran)."""
    waits: list[float] = []
    done = threading.Event()
    took: dict[str, float] = {}

    def run() -> None:
        started = time.perf_counter()
        try:
            work()
        finally:
            took["work"] = time.perf_counter() - started
            done.set()

    phone = Client(port, timeout=120)
    thread = threading.Thread(target=run)
    thread.start()
    count = 0
    while not done.is_set():  # each save sent while the work runs counts, however long it waited
        body = {"dealer": PLAYERS[count % 3], "points": dict(zip(PLAYERS, (30, 28, 20), strict=True))}
        answer = phone.post_json(f"/m/{token}/hands.json", body)
        if answer.status != 201:
            raise RuntimeError(f"a save answered {answer.status}: {answer.text[:200]}")
        waits.append(answer.seconds)
        count += 1
        time.sleep(0.02)
    thread.join()
    phone.close()
    return took["work"], waits


def line(name: str, seconds: float, waits: list[float]) -> str:
    ordered = sorted(waits)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (f"| {name} | {seconds:.1f} s | {len(waits)} | {1000 * statistics.median(ordered):.0f} ms "
            f"| {1000 * p99:.0f} ms | {1000 * ordered[-1]:.0f} ms |")


def run(root: Path, matches: int) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        served = Served(root, folder)
        try:
            setup = Client(served.port, timeout=120)
            match = setup.post_json("/api/matches", {"format": "scarto-match/1", "players": PLAYERS,
                                                      "first_dealer": "Anna", "hands": []}).json()
            token = match["edit_url"].rstrip("/").split("/m/")[1]
            body = club_file(matches)
            made: dict[str, Any] = {}
            seconds, waits = saves_during(served.port, token, lambda: time.sleep(3))
            rows = [line("nothing (the machine's own pace)", seconds, waits)]

            def import_club() -> None:
                answer = Client(served.port, timeout=300).request(
                    "POST", "/api/clubs", body, {"Content-Type": "application/json"})
                if answer.status != 201:
                    raise RuntimeError(f"the import answered {answer.status}: {answer.text[:300]}")
                made["club"] = answer.json()["edit_url"].rstrip("/").split("/c/")[1]

            seconds, waits = saves_during(served.port, token, import_club)
            rows.append(line(f"club import, {matches:,} matches ({len(body) / 1e6:.2f} MB)", seconds, waits))
            night = {"format": "scarto-night/1", "players": [f"Player {i}" for i in range(60)], "rounds": 10,
                     "seed": 7}

            def seat_night() -> None:
                answer = Client(served.port, timeout=300).post_json(f"/c/{made['club']}/nights", night)
                if answer.status != 201:
                    raise RuntimeError(f"the night answered {answer.status}: {answer.text[:300]}")

            seconds, waits = saves_during(served.port, token, seat_night)
            rows.append(line("a night of 60 players, 10 rounds", seconds, waits))
            return rows
        finally:
            served.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve (this one by default)")
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = run(args.root, args.matches)
    load = max(load, os.getloadavg()[0])
    table = "\n".join(["| write | took | saves meanwhile | median | p99 | longest |", "|---|---|---|---|---|---|",
                       *rows])
    print(table)
    print(f"load average up to {load:.1f} on {os.cpu_count()} cores")
    if args.write:
        command = f"bench/bench_import.py --matches {args.matches} --write"
        text = (f"{HEADING}\n\n`.venv/bin/python {command}` ({started}): the real server (a process per core), "
                f"a phone saving a hand to an unrelated match every 20 ms or so "
                f"while another sends a club file to `POST /api/clubs`, then a night of 60 players and ten rounds; "
                f"Python {platform.python_version()}, load average up to {load:.1f} on {os.cpu_count()} cores "
                f"(a shared machine).\n\n{table}\n")
        replace_section(RESULTS, HEADING, text)


if __name__ == "__main__":
    main()
