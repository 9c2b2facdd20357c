"""A club night watched live: 100 phones on the night's pages while the tables save hands.

The real server as ``make run`` starts it (waitress, 8 threads) on 127.0.0.1; a club night of
30 players (10 tables of three), seated through the JSON interface. 100 phones watch it: 2 on the
director's view (the edit link) and 98 on the members' view, each doing what static/sync.js does
there: GET /n/<token>/state.json every 3 s with If-None-Match (304 while nothing changed at any
table) and, on a new tag, GET the night's page again. Meanwhile one hand is saved every
``--interval`` seconds at the tables in turn, through the entry form as a phone posts it (GET the
form, POST it). This is the mechanism of bench/bench_sync.py ("Phones in sync"), measured on a
night's page: one tag for all its tables, and a page that ranks the whole night.

Figures: p50/p99 of the saves, of the update answers (state.json, 200 or 304) and of the night's
page when a phone fetches it again, the delay from a save's acknowledgement to a watching phone
holding the new page, errors (5xx, connection failures, timeouts), the server's CPU. Standard
library only. ``.venv/bin/python bench/bench_nights.py --write`` records them in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_sync import kind, ms, pct  # noqa: E402
from bench.results import replace_section  # noqa: E402
from tests.serverutil import Client, Server, csrf_token, hidden  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
PLAYERS = [f"Player {i:02d}" for i in range(1, 31)]
DIRECTORS = 2
MEMBERS = 98
POLL_SECONDS = 3.0
TIMEOUT = 10.0


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    saves: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)
    pages: list[float] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    not_modified: int = 0
    polls: int = 0
    errors: list[str] = field(default_factory=list)
    acked: float | None = None

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


def new_night(port: int) -> tuple[str, str, list[tuple[str, list[str]]]]:
    """A club of 30 and its night (10 tables, 30 hands a round so no table finishes during the run)."""
    client = Client(port)
    club = client.post_json("/api/clubs", {"format": "scarto-club/1", "name": "Circolo", "players": PLAYERS})
    assert club.status == 201, club.text
    club_token = str(club.json()["edit_url"]).split("/c/")[1].strip("/")
    night = client.post_json(f"/c/{club_token}/nights", {"format": "scarto-night/1", "title": "Bench night",
                                                        "players": PLAYERS, "rounds": 3, "hands_per_round": 30,
                                                        "seed": 1})
    assert night.status == 201, night.text
    edit = str(night.json()["edit_url"]).split("/n/")[1].strip("/")
    view = str(night.json()["view_url"]).split("/n/")[1].strip("/")
    data = client.get(f"/n/{edit}/night.json").json()
    tables = [(str(t["match_url"]).split("/m/")[1].strip("/"), list(t["players"])) for t in data["rounds"][0]["tables"]]
    client.close()
    return edit, view, tables


def saver(port: int, tables: list[tuple[str, list[str]]], interval: float, until: float, tally: Tally) -> None:
    """One hand every ``interval`` seconds, the tables in turn, as a phone at the table saves it."""
    clients = {t: Client(port, timeout=TIMEOUT) for t, _players in tables}
    n, next_at = 0, time.monotonic()
    while time.monotonic() < until:
        token, players = tables[n % len(tables)]
        dealer = players[(n // len(tables)) % 3]
        n += 1
        client = clients[token]
        try:
            form = client.get(f"/m/{token}/hands/new/points")
            fields = {"csrf_token": csrf_token(form.text) or "", "expected_count": hidden(form.text, "expected_count")
                      or "", "dealer": dealer, "points_0": "31", "points_1": "22",
                      "entry_key": f"bench-{token[:8]}-{n}"}
            answer = client.post_form(f"/m/{token}/hands/new/points", fields)
            if answer.status != 302:
                tally.error(f"save {answer.status}")
            else:
                with tally.lock:
                    tally.saves.append(answer.seconds)
                    tally.acked = time.monotonic()
        except (ConnectionError, OSError) as exc:
            tally.error(f"save {exc!r}")
        next_at += interval
        time.sleep(max(0.0, next_at - time.monotonic()))


def watcher(port: int, token: str, until: float, tally: Tally) -> None:
    """static/sync.js on the night's page: state.json every 3 s, the page again when the tag changed."""
    client = Client(port, timeout=TIMEOUT)
    etag = None
    time.sleep(random.uniform(0, POLL_SECONDS))
    while time.monotonic() < until:
        started = time.monotonic()
        try:
            answer = client.get(f"/n/{token}/state.json", **({"If-None-Match": etag} if etag else {}))
        except (ConnectionError, OSError) as exc:
            tally.error(f"poll {exc!r}")
            answer = None
        if answer is not None:
            with tally.lock:
                tally.answers.append(answer.seconds)
                tally.polls += 1
                tally.not_modified += answer.status == 304
            if answer.status == 200:
                first = etag is None
                etag = answer.headers.get("etag")
                if not first:
                    refresh(client, token, tally)
            elif answer.status != 304:
                tally.error(f"poll {answer.status}")
        time.sleep(max(0.0, POLL_SECONDS - (time.monotonic() - started)))
    client.close()


def refresh(client: Client, token: str, tally: Tally) -> None:
    try:
        page = client.get(f"/n/{token}/", **{"X-Scarto-Refresh": "1"})
    except (ConnectionError, OSError) as exc:
        tally.error(f"page {exc!r}")
        return
    if page.status != 200:
        tally.error(f"page {page.status}")
        return
    with tally.lock:
        tally.pages.append(page.seconds)
        if tally.acked is not None:
            tally.delays.append(time.monotonic() - tally.acked)


def run(seconds: float, interval: float, threads: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "nights.sqlite", threads=threads)
        server.start()
        try:
            edit, view, tables = new_night(server.port)
            tally = Tally()
            cpu_before = server.cpu_seconds() or 0.0
            start = time.monotonic()
            until = start + seconds
            tokens = [edit] * DIRECTORS + [view] * MEMBERS
            phones = [threading.Thread(target=watcher, args=(server.port, t, until, tally), daemon=True)
                      for t in tokens]
            for phone in phones:
                phone.start()
            time.sleep(3.0)  # every phone has its first tag before the first save
            save = threading.Thread(target=saver, args=(server.port, tables, interval, until, tally), daemon=True)
            save.start()
            save.join(seconds + 2 * TIMEOUT)
            for phone in phones:
                phone.join(TIMEOUT + 2)
            hung = sum(p.is_alive() for p in phones)
            elapsed = time.monotonic() - start
            cpu = (server.cpu_seconds() or 0.0) - cpu_before
        finally:
            server.stop()
    return {
        "threads": threads, "seconds": round(elapsed, 1), "interval": interval, "tables": len(tables),
        "saves": len(tally.saves), "saves_expected": int((seconds - 3.0) / interval),
        "save_p50": pct(tally.saves, 50), "save_p99": pct(tally.saves, 99),
        "answers": len(tally.answers), "answer_p50": pct(tally.answers, 50), "answer_p99": pct(tally.answers, 99),
        "polls": tally.polls, "not_modified": tally.not_modified,
        "pages": len(tally.pages), "page_p50": pct(tally.pages, 50), "page_p99": pct(tally.pages, 99),
        "delays": len(tally.delays), "delay_p50": pct(tally.delays, 50), "delay_p99": pct(tally.delays, 99),
        "errors": len(tally.errors), "error_kinds": dict(Counter(kind(e) for e in tally.errors)),
        "hung": hung, "cpu": round(cpu, 1),
    }


def table(results: list[dict[str, Any]], seconds: float) -> str:
    load = os.getloadavg()
    rows = ["| one save every | saves (of planned) | save p50 / p99 | update answers p50 / p99 (304s) | "
            "night page again p50 / p99 | save → page on a watching phone p50 / p99 | errors | server CPU |",
            "|---|---|---|---|---|---|---|---|"]
    for r in results:
        rows.append(f"| {r['interval']:g} s | {r['saves']} ({r['saves_expected']}) | {ms(r['save_p50'])} / "
                    f"{ms(r['save_p99'])} | {ms(r['answer_p50'])} / {ms(r['answer_p99'])} "
                    f"({r['not_modified']} of {r['polls']}) | {ms(r['page_p50'])} / {ms(r['page_p99'])} | "
                    f"{ms(r['delay_p50'])} / {ms(r['delay_p99'])} | **{r['errors']}**"
                    f"{' (' + ', '.join(f'{k} {n}' for k, n in r['error_kinds'].items()) + ')' if r['errors'] else ''}"
                    f" | {r['cpu']} s |")
    return (
        "## A club night watched live\n\n"
        f"`.venv/bin/python bench/bench_nights.py --write` ({datetime.date.today()}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores **shared with five other sessions' work**: the "
        f"machine was loaded, load average {load[0]:.1f} / {load[1]:.1f} over 1 / 5 minutes at the end, so these "
        "are upper bounds of what an idle machine does): the real server (`python -m scorer.serve`, waitress, "
        f"8 threads) on 127.0.0.1; a night of {len(PLAYERS)} players at {results[0]['tables']} tables; "
        f"**100 phones watching** ({DIRECTORS} on the director's view, {MEMBERS} on the members' view), each as "
        "static/sync.js does: `/n/<token>/state.json` every 3 s with If-None-Match, the night's page again on a "
        "new tag; hands saved through the entry form at the tables in turn, for "
        f"{seconds:g} s. A club night's pace is about one hand every 20–30 s over ten tables (a hand takes a "
        "table 3–5 minutes); the runs save far faster. Errors: 5xx, connection failures, timeouts "
        f"({TIMEOUT:g} s).\n\n" + "\n".join(rows) + "\n\n"
        "Every save changes the night's tag, so each of the 100 phones fetches the night's page once within "
        "its next poll: the page is the cost, the 304s are nearly free. The same mechanism as the match pages "
        "(\"Phones in sync\"): no thread is held by a watching phone. Two things this bench found, fixed "
        "before these figures: waitress accepts at most 100 open connections by default, and 100 watching "
        "phones with the tables' 10 saving past it left the connections beyond the limit waiting (12 poll "
        "timeouts a run at a save every 2 s): scorer/serve.py then allowed 500 (since "
        "then 4,000 a process: `CONNECTION_LIMIT`), an idle "
        "connection costing a socket, not a thread; and pages that found a table's summary stale after a "
        "save made it again under SQLite's write lock, so a hundred of them failed ('database is locked') or "
        "queued behind a save's commit: the night's pages now judge a stale table once per process, in "
        "memory, and a night once per state tag.\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--intervals", default="20,5,2", help="seconds between saves, one run each")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    args = parser.parse_args()
    results = []
    for interval in (float(v) for v in args.intervals.split(",")):
        result = run(args.seconds, interval, args.threads)
        print(json.dumps(result, default=str), flush=True)
        results.append(result)
    text = table(results, args.seconds)
    print(text)
    if args.write:
        replace_section(RESULTS, "## A club night watched live", text)


if __name__ == "__main__":
    main()
