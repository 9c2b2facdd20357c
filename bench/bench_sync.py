"""Phones in sync: 100 phones watching match pages while hands are saved, two ways of telling them.

The real server as ``make run`` starts it (waitress, 8 threads) on 127.0.0.1; 25 matches (a club
night's tables), 4 phones watching each; one hand saved every ``--interval`` seconds, the tables
in turn, through the entry form as a phone posts it (GET the form, POST it). Each watching phone
learns about a save in one of two ways:

- ``poll``: what static/sync.js does: GET /m/<token>/state.json every 3 s with If-None-Match
  (304 when nothing changed); on a new tag it GETs the match page again;
- ``sse``: server-sent events: one long GET /m/<token>/events per phone (a streaming answer the
  bench adds to the app, checking the state tag every 0.5 s); on an event it GETs the match page.
  Under waitress every open stream holds a worker thread, so it is measured with the real limit
  (8 threads) and with one thread per phone (``--sse-threads``), which is what it would take.

Figures: p50/p99 of the saves and of the update answers (a poll's answer, or the delay from a
save's acknowledgement to its event), the delay from a save to a watching phone holding the new
page, errors (5xx, connection failures, timeouts), the server's CPU. Standard library only.
``.venv/bin/python bench/bench_sync.py --write`` records them in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results import replace_section  # noqa: E402
from tests.serverutil import HOST, Client, Server, csrf_token, hidden  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
TABLES = 25
WATCHERS_PER_TABLE = 4
POLL_SECONDS = 3.0
TIMEOUT = 10.0
PLAYERS = ["Anna", "Bruno", "Carla"]


# --- the streaming variant (only here: the app itself polls) -----------------------------------

SSE_APP = '''
import os, time
from waitress import serve
from scorer import create_app
from scorer.storage import db as database, store

app = create_app()
path = app.config["DATABASE"]
LIMIT = float(os.environ.get("SSE_SECONDS", "120"))

def events(environ, start_response):
    token = environ["PATH_INFO"].split("/")[2]
    conn = database.connect(path)
    try:
        row, _ = store.find_match(conn, token)
    except store.NotFound:
        conn.conn.close()
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"no such match"]
    start_response("200 OK", [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
    def stream():
        last, end, beat = None, time.monotonic() + LIMIT, time.monotonic()
        try:
            while time.monotonic() < end:
                tag = store.match_state(conn, row.id)
                if tag != last:
                    last, beat = tag, time.monotonic()
                    yield ("data: %s\\n\\n" % tag).encode()
                elif time.monotonic() - beat > 4:
                    beat = time.monotonic()
                    yield b": still here\\n\\n"
                time.sleep(0.5)
        finally:
            conn.conn.close()
    return stream()

def wsgi(environ, start_response):
    p = environ.get("PATH_INFO", "")
    if p.startswith("/m/") and p.endswith("/events"):
        return events(environ, start_response)
    return app(environ, start_response)

serve(wsgi, host=os.environ["HOST"], port=int(os.environ["PORT"]), threads=int(os.environ["THREADS"]),
      connection_limit=1000)
'''


class SseServer(Server):
    """The same app and database set-up, served with the streaming endpoint added."""

    def start(self, *, init_db: bool = True, timeout: float = 20.0) -> Server:
        if init_db:
            self.init_db()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([sys.executable, "-c", SSE_APP], cwd=ROOT, env=self.env(),
                                            stdout=log, stderr=subprocess.STDOUT)
        self.wait_ready(timeout)
        return self


# --- what was seen ---------------------------------------------------------------------------


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    saves: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)
    """A poll's answer time, or (sse) the delay from a save's acknowledgement to its event."""
    delays: list[float] = field(default_factory=list)
    """From a save's acknowledgement to a watching phone holding the new match page."""
    not_modified: int = 0
    polls: int = 0
    errors: list[str] = field(default_factory=list)
    acked: dict[str, float] = field(default_factory=dict)
    streams_open: int = 0

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


def kind(error: str) -> str:
    """"save ConnectionError('GET /m/...: TimeoutError(...)')" -> "save: TimeoutError"."""
    what, _, detail = error.partition(" ")
    names = re.findall(r"([A-Z][A-Za-z]+(?:Error|Exception|Timeout))", detail)
    return f"{what}: {names[-1] if names else detail[:30]}"


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def ms(value: float) -> str:
    return "–" if value != value else f"{value * 1000:.0f} ms"


# --- the phones ------------------------------------------------------------------------------


def new_match(port: int) -> str:
    client = Client(port)
    body = {"format": "scarto-match/1", "title": "Club night", "ruleset": "classic", "players": PLAYERS,
            "first_dealer": "Anna", "settle": "per_point", "hands": []}
    answer = client.post_json("/api/matches", body)
    client.close()
    assert answer.status == 201, answer.text
    return str(answer.json()["edit_url"]).split("/m/")[1].strip("/")


def saver(port: int, tokens: list[str], interval: float, until: float, tally: Tally) -> None:
    """One hand every ``interval`` seconds, the tables in turn, as a phone saves it."""
    clients = {t: Client(port, timeout=TIMEOUT) for t in tokens}
    n, next_at = 0, time.monotonic()
    while time.monotonic() < until:
        token = tokens[n % len(tokens)]
        n += 1
        client = clients[token]
        try:
            form = client.get(f"/m/{token}/hands/new/points")
            fields = {"csrf_token": csrf_token(form.text) or "", "expected_count": hidden(form.text, "expected_count")
                      or "", "dealer": PLAYERS[(n // len(tokens)) % 3], "points_0": "31", "points_1": "22",
                      "entry_key": f"bench-{token[:8]}-{n}"}
            answer = client.post_form(f"/m/{token}/hands/new/points", fields)
            if answer.status != 302:
                tally.error(f"save {answer.status}")
            else:
                with tally.lock:
                    tally.saves.append(answer.seconds)
                    tally.acked[token] = time.monotonic()
        except (ConnectionError, OSError) as exc:
            tally.error(f"save {exc!r}")
        next_at += interval
        time.sleep(max(0.0, next_at - time.monotonic()))


def refresh(client: Client, token: str, tally: Tally) -> None:
    try:
        page = client.get(f"/m/{token}/")
        if page.status != 200:
            tally.error(f"page {page.status}")
            return
    except (ConnectionError, OSError) as exc:
        tally.error(f"page {exc!r}")
        return
    with tally.lock:
        acked = tally.acked.get(token)
        if acked is not None:
            tally.delays.append(time.monotonic() - acked)


def poller(port: int, token: str, until: float, tally: Tally) -> None:
    """static/sync.js: state.json every 3 s with If-None-Match; the page again when it changed."""
    client = Client(port, timeout=TIMEOUT)
    etag = None
    time.sleep(random.uniform(0, POLL_SECONDS))
    while time.monotonic() < until:
        started = time.monotonic()
        try:
            answer = client.get(f"/m/{token}/state.json", **({"If-None-Match": etag} if etag else {}))
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


def lines(response: http.client.HTTPResponse) -> Iterator[bytes]:
    while True:
        line = response.fp.readline()
        if not line:
            return
        yield line


def streamer(port: int, token: str, until: float, tally: Tally) -> None:
    """Server-sent events: one open GET per phone; the page again on each event after the first."""
    pages = Client(port, timeout=TIMEOUT)
    time.sleep(random.uniform(0, 1.0))
    conn = http.client.HTTPConnection(HOST, port, timeout=TIMEOUT)
    try:
        conn.request("GET", f"/m/{token}/events", headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        if response.status != 200:
            tally.error(f"events {response.status}")
            return
        with tally.lock:
            tally.streams_open += 1
        first = True
        for line in lines(response):
            if time.monotonic() >= until:
                break
            if not line.startswith(b"data:"):
                continue
            if first:
                first = False
                continue
            with tally.lock:
                acked = tally.acked.get(token)
                if acked is not None:
                    tally.answers.append(time.monotonic() - acked)
            refresh(pages, token, tally)
    except (OSError, http.client.HTTPException) as exc:
        if time.monotonic() < until:
            tally.error(f"events {exc!r}")
    finally:
        conn.close()
        pages.close()


# --- one run ----------------------------------------------------------------------------------


def run(mode: str, threads: int, seconds: float, interval: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "sync.sqlite"
        server = (SseServer if mode == "sse" else Server)(database, threads=threads)
        server.start()
        try:
            tokens = [new_match(server.port) for _ in range(TABLES)]
            tally = Tally()
            cpu_before = server.cpu_seconds() or 0.0
            start = time.monotonic()
            until = start + seconds
            phones = [threading.Thread(target=poller if mode == "poll" else streamer,
                                       args=(server.port, t, until, tally), daemon=True)
                      for t in tokens for _ in range(WATCHERS_PER_TABLE)]
            for phone in phones:
                phone.start()
            time.sleep(3.0)  # the phones settle (first poll, streams opened) before the first save
            save = threading.Thread(target=saver, args=(server.port, tokens, interval, until, tally), daemon=True)
            save.start()
            save.join(seconds + 2 * TIMEOUT)
            for phone in phones:
                phone.join(TIMEOUT + 2)
            hung = sum(p.is_alive() for p in phones)
            elapsed = time.monotonic() - start
            cpu = (server.cpu_seconds() or 0.0) - cpu_before
        finally:
            server.stop()
    expected_saves = int((seconds - 3.0) / interval)
    return {
        "mode": mode, "threads": threads, "seconds": round(elapsed, 1), "interval": interval,
        "saves": len(tally.saves), "saves_expected": expected_saves,
        "save_p50": pct(tally.saves, 50), "save_p99": pct(tally.saves, 99),
        "answers": len(tally.answers), "answer_p50": pct(tally.answers, 50), "answer_p99": pct(tally.answers, 99),
        "polls": tally.polls, "not_modified": tally.not_modified, "streams": tally.streams_open,
        "delays": len(tally.delays), "delay_p50": pct(tally.delays, 50), "delay_p99": pct(tally.delays, 99),
        "errors": len(tally.errors), "error_kinds": dict(Counter(kind(e) for e in tally.errors)),
        "hung": hung, "cpu": round(cpu, 1),
    }


def table(results: list[dict[str, Any]], seconds: float, interval: float) -> str:
    load = os.getloadavg()[0]
    rows = ["| way | waitress threads | saves (of planned) | save p50 / p99 | update answers p50 / p99 | "
            "save → page on a watching phone p50 / p99 | errors | server CPU |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        what = (f"conditional polling, 3 s (304s: {r['not_modified']} of {r['polls']})" if r["mode"] == "poll"
                else f"server-sent events ({r['streams']} of 100 streams opened)")
        rows.append(f"| {what} | {r['threads']} | {r['saves']} ({r['saves_expected']}) | {ms(r['save_p50'])} / "
                    f"{ms(r['save_p99'])} | {ms(r['answer_p50'])} / {ms(r['answer_p99'])} | "
                    f"{ms(r['delay_p50'])} / {ms(r['delay_p99'])} | **{r['errors']}**"
                    f"{' (' + ', '.join(f'{k} {n}' for k, n in r['error_kinds'].items()) + ')' if r['errors'] else ''}"
                    f" | {r['cpu']} s |")
    return (
        "## Phones in sync\n\n"
        f"`.venv/bin/python bench/bench_sync.py --write` ({datetime.date.today()}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores shared with other work; 1-minute load average at the "
        f"end: {load:.1f}): the real server (`python -m scorer.serve`, waitress) on 127.0.0.1; {TABLES} matches, "
        f"{WATCHERS_PER_TABLE} phones watching each (**100 phones**), one hand saved every {interval:g} s "
        f"(the tables in turn: each table every {interval * TABLES:g} s, about ten times a club night's pace), "
        f"for {seconds:g} s. Update answers: for polling, a state.json answer (200 or 304); for events, the delay "
        "from a save's acknowledgement to its event on a phone. Errors: 5xx, connection failures, timeouts "
        f"({TIMEOUT:g} s).\n\n" + "\n".join(rows) + "\n\n"
        "Chosen: **conditional polling** of `/m/<token>/state.json` every 3 s (static/sync.js). Under waitress "
        "each open event stream holds a worker thread: with the real limit of 8 threads, 8 phones hold them all "
        "and the saves and pages queue behind the streams; with one thread per phone events come sooner, but that "
        "design does not pass (a thread per watching phone), and the thread limit is what keeps the server "
        "responsive under load. Polling holds no thread: a 304 costs one indexed query, saves stay fast, and a "
        "watching phone has a new hand within the poll interval (p99 under 3 s here).\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between saves (all tables)")
    parser.add_argument("--sse-threads", type=int, default=112)
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    args = parser.parse_args()
    results = []
    for mode, threads in (("poll", 8), ("sse", 8), ("sse", args.sse_threads)):
        result = run(mode, threads, args.seconds, args.interval)
        print(json.dumps(result, default=str), flush=True)
        results.append(result)
    text = table(results, args.seconds, args.interval)
    print(text)
    if args.write:
        replace_section(RESULTS, "## Phones in sync", text)


if __name__ == "__main__":
    main()
