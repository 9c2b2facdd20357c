"""Load: many phones at once against the real server, then a count of what was stored.

The server is started as ``make run`` starts it (``flask --app scorer init-db``,
then ``python -m scorer.serve``: waitress, 8 threads) on a free port of
127.0.0.1 with a database in a temporary folder. Then, for ``--seconds``:

- ``--clients`` phones each play out matches of their own, as a phone does: start a
  match (the form at /new, or POST /api/matches), record hands in every form
  through the real entry pages with their CSRF tokens (counted points, captured
  cards, counting cards with pile sizes, the full record typed or sent by live.js
  as JSON after a live check or two), each a legal hand of the match's preset
  made by ``scorer/simulation.py``; after each save the match page, and now and
  then standings.json;
- ``--shared`` phones record into one shared match as fast as they can. Two of them
  saving "hand N" at the same moment is a 409 (the app's answer: somebody saved
  first), counted apart from errors; that phone re-reads the page and saves its
  hand as the next one.

Every hand carries a unique note. Afterwards the database is read: every
acknowledged save (a 302, or live.js's ``{"saved": true}``) must be stored
exactly once, no match may hold a hand that was not acknowledged, each match's
export.json must list as many hands, and every hand must have its one revision.
Errors (5xx, connection failures, unexpected statuses, a traceback in a body)
must be 0.

``--clubs 10 25 50 100`` runs club nights instead, one run per figure: each club 12 tables
of 3 phones at a person's pace (an action every 3 to 10 s: the table's scorer opens the
entry page and saves a hand, the others look at the match page or standings.json),
written under "## Club nights" (docs/DEPLOY.md reads its figures).

Standard library only on the client side (http.client, threads). Run:
``.venv/bin/python bench/load.py`` (``--write`` records the figures in
bench/RESULTS.md under "## Load").
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import math
import os
import platform
import random
import resource
import sqlite3
import statistics
import sys
import tempfile
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.paced import AsyncPhone, Failed  # noqa: E402
from bench.results import replace_section  # noqa: E402
from scorer.engine.cards import CODES  # noqa: E402
from scorer.engine.numbers import fraction_text  # noqa: E402
from scorer.engine.records import HandRecord  # noqa: E402
from scorer.engine.rulesets import PRESETS, Ruleset  # noqa: E402
from scorer.engine.simulation import NAMES, captured_form, card_points, honours_form, simulate_hand  # noqa: E402
from scorer.serve import raise_file_limit  # noqa: E402
from tests.serverutil import Answer, Client, Server, csrf_token, hidden  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
COMMAND = ".venv/bin/python bench/load.py --write"
FORMS = ("points", "cards", "honours", "live", "live-json")
"""How hands are entered, in turn: the four entry pages, and the live page saving through live.js."""
SHARED_FORMS = ("points", "points", "cards", "honours")
"""The shared match races on the quick forms (the full record is exercised by the other phones)."""


# --- what was seen ---------------------------------------------------------------------


@dataclass
class Tally:
    """Everything the phones saw, shared by their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    conflicts: int = 0
    acknowledged: dict[str, list[str]] = field(default_factory=dict)
    """Edit token -> the notes of the hands whose save was acknowledged, in order."""
    matches_created: int = 0
    times: list[tuple[float, float]] = field(default_factory=list)
    """Every answer as (when it came, monotonic; seconds it took): the club nights' phases."""

    def seen(self, kind: str, answer: Answer) -> None:
        with self.lock:
            self.latencies.setdefault(kind, []).append(answer.seconds)
            self.statuses[answer.status] += 1
            self.times.append((time.monotonic(), answer.seconds))

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)

    def ack(self, token: str, note: str) -> None:
        with self.lock:
            self.acknowledged.setdefault(token, []).append(note)

    def new_match(self, token: str) -> None:
        with self.lock:
            self.acknowledged.setdefault(token, [])
            self.matches_created += 1


class Stop(Exception):
    """This phone hit an error: the error is tallied, the phone starts over (or ends)."""


@dataclass
class Phone:
    """One client: its connection and cookies, its dice, and where it reports."""

    number: int
    client: Client
    rng: random.Random
    tally: Tally
    deadline: float
    saves: int = 0

    def call(self, kind: str, send: Callable[[], Answer], expect: tuple[int, ...]) -> Answer:
        """One request, timed; anything but an expected status (or a traceback) is an error."""
        try:
            answer = send()
        except ConnectionError as exc:
            self.tally.error(f"phone {self.number}, {kind}: connection failed: {exc}")
            raise Stop from exc
        self.tally.seen(kind, answer)
        if answer.status not in expect:
            self.tally.error(f"phone {self.number}, {kind}: status {answer.status}: {answer.text[:300]!r}")
            raise Stop
        if "Traceback" in answer.text or 'File "' in answer.text:
            self.tally.error(f"phone {self.number}, {kind}: a traceback in the answer")
            raise Stop
        return answer

    def note(self) -> str:
        self.saves += 1
        return f"load phone {self.number} save {self.saves}"

    def running(self) -> bool:
        return time.monotonic() < self.deadline

    # --- matches -----------------------------------------------------------------

    def start_match(self, preset: str) -> str:
        """A new match of the preset, through the form or the JSON interface; its edit token."""
        rules = PRESETS[preset]
        players = list(NAMES[:rules.players])
        if self.rng.random() < 0.5:
            page = self.call("GET /new", lambda: self.client.get("/new"), (200,))
            fields = {"csrf_token": csrf_token(page.text) or "", "preset": preset, "first_dealer": "1",
                      "end_kind": "hands", "end_hands": str(2 * rules.players), "settle": "per_point",
                      "stake": "0.10", "currency": "EUR", "title": f"Load {self.number}"}
            fields.update({f"player_{i}": name for i, name in enumerate(players, start=1)})
            answer = self.call("POST /new", lambda: self.client.post_form("/new", fields), (302,))
            token = answer.location.strip("/").split("/")[-1]
            self.call("GET match page", lambda: self.client.get(answer.location), (200,))
        else:
            body = {"format": "scarto-match/1", "title": f"Load {self.number}", "ruleset": preset,
                    "players": players, "first_dealer": players[0], "end": {"hands": 2 * rules.players},
                    "hands": []}
            answer = self.call("POST /api/matches", lambda: self.client.post_json("/api/matches", body), (201,))
            token = answer.json()["edit_url"].rstrip("/").split("/")[-1]
        self.tally.new_match(token)
        return token

    # --- hands -------------------------------------------------------------------

    def open_entry(self, token: str, form: str) -> dict[str, str]:
        """GET an entry page: the hidden fields a browser posts back."""
        url = f"/m/{token}/hands/new/{form}"
        page = self.call(f"GET entry page ({form})", lambda: self.client.get(url), (200,)).text
        return {"csrf_token": csrf_token(page) or "", "expected_count": hidden(page, "expected_count") or "",
                "version": "", "save_anyway": ""}

    def record(self, token: str, rules: Ruleset, form: str, *, shared: bool = False) -> None:
        """Enter one simulated hand; on a 409 re-read and save it as the next hand."""
        hand = simulate_hand(rules, self.rng)
        note = self.note()
        page_form = "live" if form == "live-json" else form
        while True:
            hidden_fields = self.open_entry(token, page_form)
            if form == "live-json":
                saved = self.save_live_json(token, hand, note, hidden_fields)
            else:
                saved = self.save_form(token, form, hand, note, hidden_fields, conflicts=shared)
            if saved:
                self.tally.ack(token, note)
                return
            with self.tally.lock:
                self.tally.conflicts += 1
            if not self.running():
                return

    def save_form(self, token: str, form: str, hand: HandRecord, note: str, fields: dict[str, str], *,
                  conflicts: bool) -> bool:
        """POST an entry form; True when saved (302), False on a 409 (somebody saved first)."""
        fields = {**fields, "dealer": hand.dealer, "dealer_ok": hand.dealer, "notes": note,  # a random dealer,
                  **entry_fields(form, hand, self.rng)}  # said to be meant: the rotation's question comes once
        url = f"/m/{token}/hands/new/{form}"
        answer = self.call(f"POST hand ({form})", lambda: self.client.post_form(url, fields),
                           (302, 409) if conflicts else (302,))
        if answer.status == 409:
            return False
        self.call("GET match page", lambda: self.client.get(answer.location), (200,))
        return True

    def save_live_json(self, token: str, hand: HandRecord, note: str, fields: dict[str, str]) -> bool:
        """What live.js does: a live check after some tricks, then the save as JSON."""
        tricks = [[CODES[c] for c in t.cards] for t in hand.tricks or ()]
        headers = {"X-CSRFToken": fields["csrf_token"], "Accept": "application/json"}
        for upto in sorted({self.rng.randrange(1, len(tricks)), len(tricks)}):
            check = {"dealer": hand.dealer, "tricks": tricks[:upto]}
            answer = self.call("POST live check", partial(self.client.post_json, f"/m/{token}/hands/live/check",
                                                          check, headers), (200,))
            if answer.json().get("errors"):
                self.tally.error(f"phone {self.number}: a simulated legal hand has errors: {answer.text[:300]}")
                raise Stop
        body = {"dealer": hand.dealer, "dealer_ok": hand.dealer, "tricks": tricks,
                "expected_count": fields["expected_count"], "notes": note}
        url = f"/m/{token}/hands/new/live"
        answer = self.call("POST hand (live JSON)", lambda: self.client.post_json(url, body, headers), (200,))
        if answer.json().get("saved") is not True:
            self.tally.error(f"phone {self.number}: live save not saved: {answer.text[:300]}")
            raise Stop
        return True

    def read_standings(self, token: str) -> None:
        answer = self.call("GET standings.json", lambda: self.client.get(f"/m/{token}/standings.json"), (200,))
        answer.json()

    # --- the two kinds of phone ----------------------------------------------------

    def play_own(self) -> None:
        """Start matches and play them out, every record form in turn, until time is up."""
        turn = self.number
        while self.running():
            try:
                preset = self.rng.choice(list(PRESETS))
                rules = PRESETS[preset]
                token = self.start_match(preset)
                for _ in range(self.rng.randint(3, 2 * rules.players + 2)):
                    if not self.running():
                        break
                    self.record(token, rules, FORMS[turn % len(FORMS)])
                    turn += 1
                    if self.rng.random() < 0.3:
                        self.read_standings(token)
            except Stop:
                self.client.close()

    def play_shared(self, token: str) -> None:
        """Record into the shared match as fast as possible; a 409 is re-read and saved as the next hand."""
        rules = PRESETS["classic"]
        while self.running():
            try:
                self.record(token, rules, self.rng.choice(SHARED_FORMS), shared=True)
                if self.rng.random() < 0.2:
                    self.read_standings(token)
            except Stop:
                self.client.close()


def entry_fields(form: str, hand: HandRecord, rng: random.Random) -> dict[str, str]:
    """The fields of an entry page filled in for a hand, as a player would (one value left blank now and then)."""
    n = len(hand.players)
    if form == "points":
        points = card_points(hand)
        texts = [fraction_text(points[p]) if rng.random() < 0.5 else str(points[p]) for p in hand.players]
        if rng.random() < 0.5:  # the last one fills itself in
            texts[rng.randrange(n)] = ""
        return {f"points_{i}": t for i, t in enumerate(texts)}
    if form == "cards":
        piles = captured_form(hand, exchanged=rng.random() < 0.5).captured or {}
        return {"rest": str(n - 1), **{f"cards_{i}": " ".join(CODES[c] for c in piles[p])
                                       for i, p in enumerate(hand.players)}}
    if form == "honours":
        derived = honours_form(hand, exchanged=rng.random() < 0.5)
        fields = {"rest": str(n - 1)}
        for i, p in enumerate(hand.players):
            fields[f"cards_{i}"] = " ".join(CODES[c] for c in (derived.honours or {})[p])
            fields[f"size_{i}"] = str((derived.sizes or {})[p])
        return fields
    assert form == "live"
    return {"tricks": "\n".join(f"{k}. " + " ".join(CODES[c] for c in t.cards)
                                for k, t in enumerate(hand.tricks or (), start=1))}


# --- a run -----------------------------------------------------------------------------


@dataclass
class Report:
    """The figures of a run and what the check of the stored hands found."""

    clients: int
    shared: int
    seconds: float
    wall: float
    requests: int
    median_ms: float
    p99_ms: float
    mean_ms: float
    errors: list[str]
    conflicts: int
    acknowledged: int
    matches: int
    shared_hands: int
    problems: list[str]
    """Differences between what was acknowledged and what is stored (must be empty)."""
    kinds: dict[str, tuple[int, float, float]]
    """Per kind of request: count, median ms, p99 ms."""
    statuses: dict[int, int]
    server_cpu: float | None = None
    """CPU seconds the server process used while the phones sent."""
    client_cpu: float | None = None
    """CPU seconds the load generator (all its threads) used meanwhile."""
    load_before: float = 0.0
    """The machine's 1-minute load average just before the run (other work on it)."""

    @property
    def per_second(self) -> float:
        return self.requests / self.wall if self.wall else 0.0

    def summary(self) -> str:
        lines = [
            f"{self.clients} phones with their own matches + {self.shared} on one shared match, "
            f"{self.seconds:g} s (wall {self.wall:.1f} s)",
            f"requests: {self.requests} ({self.per_second:.1f}/s); median {self.median_ms:.1f} ms, "
            f"p99 {self.p99_ms:.1f} ms",
            f"statuses: {dict(sorted(self.statuses.items()))}",
            f"hands saved (acknowledged): {self.acknowledged} in {self.matches} matches; "
            f"shared match: {self.shared_hands} hands, {self.conflicts} conflicts (409)",
            f"errors: {len(self.errors)}; stored-exactly-once problems: {len(self.problems)}",
            f"CPU: server {self.server_cpu or 0:.1f} s, load generator {self.client_cpu or 0:.1f} s",
        ]
        for kind, (count, median, p99) in sorted(self.kinds.items()):
            lines.append(f"  {kind:<28} {count:>6}  median {median:7.1f} ms  p99 {p99:7.1f} ms")
        lines += [f"ERROR: {e}" for e in self.errors[:20]]
        lines += [f"STORED: {p}" for p in self.problems[:20]]
        return "\n".join(lines)


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(1, min(len(ordered), round(fraction * len(ordered) + 0.5)))
    return ordered[rank - 1]


def run(clients: int = 50, shared: int = 10, seconds: float = 60.0, *, seed: int = 1, folder: Path | None = None,
        threads: int = 8) -> Report:
    """Start the server, run the phones, stop it, and check the database against what was acknowledged."""
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="scarto-load-") as scratch:
        base = Path(folder or scratch)
        server = Server(base / "load.sqlite", threads=threads)
        server.start()
        tally = Tally()
        try:
            shared_token = ""
            if shared:
                starter = Phone(-1, Client(server.port), random.Random(seed), tally, time.monotonic() + 60)
                shared_token = starter.start_match("classic")
                starter.client.close()
            deadline = time.monotonic() + seconds
            phones = [Phone(i, Client(server.port), random.Random(seed * 1000 + i), tally, deadline)
                      for i in range(clients + shared)]
            workers = [threading.Thread(target=phone.play_own if i < clients else phone.play_shared,
                                        args=() if i < clients else (shared_token,), daemon=True)
                       for i, phone in enumerate(phones)]
            began = time.monotonic()
            server_cpu, client_cpu = server.cpu_seconds(), _own_cpu()
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(seconds + 120)
                if worker.is_alive():
                    tally.error("a phone did not finish within two minutes of the end")
            wall = time.monotonic() - began
            server_cpu = _minus(server.cpu_seconds(), server_cpu)
            client_cpu = _own_cpu() - client_cpu
            for phone in phones:
                phone.client.close()
            problems = check_exports(server.port, tally)
        finally:
            server.stop()
        problems += check_database(server.database, tally)
        if "Traceback" in server.output():
            problems.append("the server logged a traceback:\n" + server.output()[-3000:])
    every = [s for values in tally.latencies.values() for s in values]
    kinds = {kind: (len(v), 1000 * statistics.median(v), 1000 * percentile(v, 0.99))
             for kind, v in tally.latencies.items()}
    return Report(
        clients=clients, shared=shared, seconds=seconds, wall=wall, requests=len(every),
        median_ms=1000 * statistics.median(every) if every else 0.0, p99_ms=1000 * percentile(every, 0.99),
        mean_ms=1000 * statistics.fmean(every) if every else 0.0,
        errors=tally.errors, conflicts=tally.conflicts,
        acknowledged=sum(len(v) for v in tally.acknowledged.values()), matches=len(tally.acknowledged),
        shared_hands=len(tally.acknowledged.get(shared_token, [])), problems=problems, kinds=kinds,
        statuses=dict(tally.statuses), server_cpu=server_cpu, client_cpu=client_cpu, load_before=load_before,
    )


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _minus(after: float | None, before: float | None) -> float | None:
    return None if after is None or before is None else after - before


def check_exports(port: int, tally: Tally) -> list[str]:
    """Each match's export.json lists as many hands as were acknowledged, with their notes in order."""
    problems = []
    client = Client(port)
    try:
        for token, notes in tally.acknowledged.items():
            answer = client.get(f"/m/{token}/export.json")
            if answer.status != 200:
                problems.append(f"export of {token[:6]}…: status {answer.status}")
                continue
            stored = [h.get("notes") for h in answer.json()["hands"]]
            if sorted(stored) != sorted(notes):
                problems.append(f"export of {token[:6]}…: {len(stored)} hands, {len(notes)} acknowledged")
    finally:
        client.close()
    return problems


def check_database(path: Path, tally: Tally) -> list[str]:
    """Every acknowledged hand stored exactly once, nothing else stored, one revision each, positions distinct."""
    problems = []
    conn = sqlite3.connect(str(path))
    try:
        if (ok := conn.execute("PRAGMA integrity_check").fetchone()[0]) != "ok":
            problems.append(f"integrity_check: {ok}")
        tokens = dict(conn.execute("SELECT edit_token, id FROM matches").fetchall())
        for token, notes in tally.acknowledged.items():
            if token not in tokens:
                problems.append(f"match {token[:6]}… is not stored")
                continue
            rows = conn.execute("SELECT id, position, record, version, deleted_at FROM hands WHERE match_id = ?",
                                [tokens[token]]).fetchall()
            stored = Counter(json.loads(record).get("notes") for _id, _pos, record, _v, _d in rows)
            acked = Counter(notes)
            for note, count in acked.items():
                if stored[note] != count:
                    problems.append(f"match {token[:6]}…: {note!r} acknowledged {count}x, stored {stored[note]}x")
            for note in stored.keys() - acked.keys():
                problems.append(f"match {token[:6]}…: {note!r} stored but never acknowledged")
            if len({pos for _id, pos, *_ in rows}) != len(rows):
                problems.append(f"match {token[:6]}…: two hands share a position")
            for hand_id, _pos, record, version, deleted in rows:
                revisions = conn.execute("SELECT version, action, record FROM revisions WHERE hand_id = ?",
                                         [hand_id]).fetchall()
                if deleted is not None or version != 1 or revisions != [(1, "create", record)]:
                    problems.append(f"hand {hand_id}: version {version}, revisions {len(revisions)}")
        created = len(tokens)
        if created != tally.matches_created:
            problems.append(f"{created} matches stored, {tally.matches_created} acknowledged")
    finally:
        conn.close()
    return problems


# --- club nights at a person's pace ---------------------------------------------------------

TABLES_PER_CLUB = 12
PHONES_PER_TABLE = 3
PACE = (3.0, 10.0)
"""Seconds between one phone's actions: a person looking at the scores or entering a hand."""


@dataclass
class PacedPhone:
    """One phone at a table: the table's scorer (enters hands) or a player looking at the scores."""

    number: int
    phone: AsyncPhone
    rng: random.Random
    tally: Tally
    token: str
    scorer: bool
    rules: Ruleset
    saves: int = 0
    entry: dict[str, str] | None = None
    """The entry page's hidden fields, once the scorer has opened it (the next action saves the hand)."""

    async def call(self, kind: str, path: str, expect: tuple[int, ...], fields: dict[str, str] | None = None
                   ) -> Answer:
        """One request, timed; anything but an expected status (or a traceback) is an error (:class:`Stop`)."""
        try:
            answer = await (self.phone.get(path) if fields is None else self.phone.post_form(path, fields))
        except Failed as exc:
            self.tally.error(f"phone {self.number}, {kind}: connection failed: {exc}")
            raise Stop from exc
        self.tally.seen(kind, answer)
        if answer.status not in expect:
            self.tally.error(f"phone {self.number}, {kind}: status {answer.status}: {answer.text[:300]!r}")
            raise Stop
        if b"Traceback" in answer.body or b'File "' in answer.body:
            self.tally.error(f"phone {self.number}, {kind}: a traceback in the answer")
            raise Stop
        return answer

    async def act(self) -> None:
        """One action: a page, or a save; errors are tallied and the phone goes on at its next turn."""
        try:
            if self.scorer and self.entry is not None:
                hand = simulate_hand(self.rules, self.rng)
                self.saves += 1
                note = f"load phone {self.number} save {self.saves}"
                fields = {**self.entry, "dealer": hand.dealer, "dealer_ok": hand.dealer, "notes": note,
                          **entry_fields("points", hand, self.rng)}
                self.entry = None
                answer = await self.call("POST hand (points)", f"/m/{self.token}/hands/new/points", (302, 409),
                                         fields)
                if answer.status == 302:
                    self.tally.ack(self.token, note)
                else:
                    with self.tally.lock:
                        self.tally.conflicts += 1
            elif self.scorer and self.rng.random() < 0.7:
                page = (await self.call("GET entry page (points)", f"/m/{self.token}/hands/new/points",
                                        (200,))).text
                self.entry = {"csrf_token": csrf_token(page) or "",
                              "expected_count": hidden(page, "expected_count") or "", "version": "",
                              "save_anyway": ""}
            elif self.rng.random() < 0.8:
                await self.call("GET match page", f"/m/{self.token}/", (200,))
            else:
                (await self.call("GET standings.json", f"/m/{self.token}/standings.json", (200,))).json()
        except Stop:
            self.phone.close()

    async def look_before(self) -> None:
        """Before the clock, as in an evening under way: the phone's connection open and its page looked at
        once (the scorer's entry form, the others the match page or standings.json), so it has its
        cookies and the server has the page rendered."""
        paths = (f"/m/{self.token}/hands/new/points", f"/m/{self.token}/", f"/m/{self.token}/standings.json")
        try:
            answer = await self.phone.get(paths[self.number % PHONES_PER_TABLE])
        except Failed as exc:
            self.tally.error(f"phone {self.number}, before the clock: connection failed: {exc}")
            return
        if answer.status != 200 or b"Traceback" in answer.body:
            self.tally.error(f"phone {self.number}, before the clock: status {answer.status}: {answer.text[:300]!r}")

    async def live(self, first: float, deadline: float, lags: list[float]) -> None:
        """Act at ``first``, then 3 to 10 s after each action ends, until ``deadline``."""
        when = first
        while when < deadline:
            await asyncio.sleep(max(0.0, when - time.monotonic()))
            lags.append(time.monotonic() - when)  # how late the action starts: the generator too busy?
            await self.act()
            when = time.monotonic() + self.rng.uniform(*PACE)


def first_action(rng: random.Random, together: bool = False) -> float:
    """Seconds from the start to a phone's first action.

    Steady (the default; the phones have looked once before the clock, :meth:`PacedPhone.look_before`):
    as if the phone had been acting every 3 to 10 s long before the clock started,
    the time to its next action drawn from the wait a phone seen at a random moment has left (the residual
    of :data:`PACE`: uniform over the first 3 s with weight 3/6.5, then falling linearly to 0 at 10 s).
    The phones then send at the load's own rate from the first second: 3,600 phones at 554 requests a
    second. ``together``: every phone's first action uniform over the first 10 s, as if all came at once;
    their second actions then fall on the first ones still coming, and seconds 7 to 10 carry up to two
    fifths more than the load's rate (735 requests in one second against 536 a second over the run, at a
    hundred clubs).
    """
    low, high = PACE
    if together:
        return rng.uniform(0, high)
    mean = (low + high) / 2
    if rng.random() < low / mean:
        return rng.uniform(0, low)
    return high - (high - low) * math.sqrt(1 - rng.random())


def busiest_second(starts: list[float]) -> int:
    """The most requests sent in one whole second of the run (``starts``: seconds from its start)."""
    per_second = Counter(int(start) for start in starts)
    return max(per_second.values(), default=0)


ARRIVAL = 20.0
"""Seconds from the start in which a club night's requests count as its arrival: arriving together, every
phone comes within 10 s (its first action) and opens pages no process has rendered yet; the first hands are
saved."""


def run_clubs(clubs: int = 100, seconds: float = 60.0, *, seed: int = 1, folder: Path | None = None,
              together: bool = False) -> Report:
    """``clubs`` x 12 tables x 3 phones, each phone acting every 3 to 10 s, against the real server.

    Each table has its match (made through the API before the clock starts); one phone of
    the table enters the hands (the entry page, then the save a few seconds later), the
    other two look at the match page or standings.json (their first actions as :func:`first_action`
    says, ``together`` or steady; steady phones look once before the clock). The phones keep their
    connections open, as browsers do. One
    event loop carries every phone (bench/paced.py); how late the actions start is reported (a
    load generator too slow would hide latency).
    """
    load_before = os.getloadavg()[0]
    tables = clubs * TABLES_PER_CLUB
    raise_file_limit()  # a connection a phone, as the server's
    with tempfile.TemporaryDirectory(prefix="scarto-clubs-") as scratch:
        base = Path(folder or scratch)
        server = Server(base / "clubs.sqlite")
        server.start()
        tally = Tally()
        rng = random.Random(seed)
        try:
            starter = Phone(-1, Client(server.port), random.Random(seed), tally, time.monotonic() + 3600)
            tokens = []
            for table in range(tables):
                preset = ("classic", "classic", "rulesheet", "saari")[table % 4]
                body = {"format": "scarto-match/1", "title": f"Club {table // TABLES_PER_CLUB} table "
                        f"{table % TABLES_PER_CLUB + 1}", "ruleset": preset, "players": list(NAMES[:3]),
                        "first_dealer": NAMES[0], "end": {"hands": 40}, "hands": []}
                answer = starter.call("setup", partial(starter.client.post_json, "/api/matches", body), (201,))
                token = answer.json()["edit_url"].rstrip("/").split("/")[-1]
                tally.new_match(token)
                tokens.append((token, PRESETS[preset]))
            for token, _rules in tokens[:40]:  # warm both processes' templates and catalogues before the clock
                for path in (f"/m/{token}/", f"/m/{token}/hands/new/points", f"/m/{token}/standings.json"):
                    warm = Client(server.port)
                    warm.get(path)
                    warm.close()
            starter.client.close()
            with tally.lock:
                tally.latencies.pop("setup", None)
                tally.statuses.clear()
                tally.times.clear()
            paced = [PacedPhone(t * PHONES_PER_TABLE + k, AsyncPhone(server.port),
                                random.Random(seed * 100_000 + t * PHONES_PER_TABLE + k), tally, token, k == 0, rules)
                     for t, (token, rules) in enumerate(tokens) for k in range(PHONES_PER_TABLE)]
            lags: list[float] = []
            clock: dict[str, Any] = {}  # the start: the server's CPU (None if unknown), ours, the clock

            async def evening() -> None:
                if not together:  # an evening under way: each phone has looked before, its connection open
                    for first in range(0, len(paced), 200):
                        await asyncio.gather(*(p.look_before() for p in paced[first:first + 200]))
                clock["server"], clock["client"] = server.cpu_seconds(), _own_cpu()
                began = clock["began"] = time.monotonic()
                await asyncio.gather(*(phone.live(began + first_action(rng, together), began + seconds, lags)
                                       for phone in paced))
                for phone in paced:
                    phone.phone.close()

            # in a thread of its own: the caller's thread may run an event loop already (pytest-playwright's)
            failure: list[BaseException] = []

            def run_evening() -> None:
                try:
                    asyncio.run(evening())
                except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                    failure.append(exc)

            carrier = threading.Thread(target=run_evening, name="phones")
            carrier.start()
            carrier.join()
            if failure:
                raise failure[0]
            began = clock["began"]
            wall = time.monotonic() - began
            server_cpu = _minus(server.cpu_seconds(), clock["server"])
            client_cpu = _own_cpu() - clock["client"]
            problems = check_exports(server.port, tally)
        finally:
            server.stop()
        problems += check_database(server.database, tally)
        if "Traceback" in server.output():
            problems.append("the server logged a traceback:\n" + server.output()[-3000:])
    every = [s for values in tally.latencies.values() for s in values]
    kinds = {kind: (len(v), 1000 * statistics.median(v), 1000 * percentile(v, 0.99))
             for kind, v in tally.latencies.items()}
    report = Report(
        clients=len(paced), shared=0, seconds=seconds, wall=wall, requests=len(every),
        median_ms=1000 * statistics.median(every) if every else 0.0, p99_ms=1000 * percentile(every, 0.99),
        mean_ms=1000 * statistics.fmean(every) if every else 0.0,
        errors=tally.errors, conflicts=tally.conflicts,
        acknowledged=sum(len(v) for v in tally.acknowledged.values()), matches=len(tally.acknowledged),
        shared_hands=0, problems=problems, kinds=kinds,
        statuses=dict(tally.statuses), server_cpu=server_cpu, client_cpu=client_cpu, load_before=load_before,
    )
    report.clubs = clubs  # type: ignore[attr-defined]
    report.lag_p99_ms = 1000 * percentile(lags, 0.99)  # type: ignore[attr-defined]
    arriving = [s for when, s in tally.times if when - s - began < ARRIVAL]
    later = [s for when, s in tally.times if when - s - began >= ARRIVAL]
    report.arrival_p99_ms = 1000 * percentile(arriving, 0.99)  # type: ignore[attr-defined]
    report.later_p99_ms = 1000 * percentile(later, 0.99)  # type: ignore[attr-defined]
    report.busiest = busiest_second([when - s - began for when, s in tally.times])  # type: ignore[attr-defined]
    report.together = together  # type: ignore[attr-defined]
    return report


def _outcome(reports: list[Report]) -> str:
    """Which sizes held the targets in every run and which in some, by arrival, and the CPU a request of the
    runs that held and of those that missed (the host's speed): "held in every run up to 75 clubs ..."."""
    def held(r: Report) -> bool:
        return r.p99_ms < 100 and not r.errors and not r.problems

    parts = []
    for together in (False, True):
        runs = [r for r in reports if r.together == together]  # type: ignore[attr-defined]
        sizes = sorted({r.clubs for r in runs})  # type: ignore[attr-defined]
        if not runs:
            continue
        every: list[int] = []  # the sizes up to which every size held in every run
        for c in sizes:
            if not all(held(r) for r in runs if r.clubs == c):  # type: ignore[attr-defined]
                break
            every.append(c)
        some = [(c, len([r for r in runs if r.clubs == c and held(r)]),  # type: ignore[attr-defined]
                 len([r for r in runs if r.clubs == c]))  # type: ignore[attr-defined]
                for c in sizes if c not in every]
        text = f"arriving {'together' if together else 'steady'}, "
        text += f"held in every run up to **{max(every)} clubs**" if every else "held at no size in every run"
        text += "".join(f", and at {c} clubs in {k} of {n} runs" for c, k, n in some)
        parts.append(text)
    top = max(r.clubs for r in reports)  # type: ignore[attr-defined]
    cpu = [(1000 * (r.server_cpu or 0.0) / r.requests, held(r)) for r in reports
           if r.requests and r.clubs == top]  # type: ignore[attr-defined]
    kept = [c for c, ok in cpu if ok]
    missed = [c for c, ok in cpu if not ok]
    if not (kept and missed):
        return "; ".join(parts)
    return "; ".join(parts) + (f" (at {top} clubs a request cost {_span(kept)} of CPU in the runs that held, "
                               f"{_span(missed)} in those that missed: the host's speed)")


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f} ms" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f} to {high:.2f} ms"


def clubs_section(reports: list[Report], command: str) -> str:
    """The "## Club nights" section of RESULTS.md: one row per run, the largest that held the targets."""
    today = datetime.date.today().isoformat()
    cores = os.cpu_count() or 1
    rows = []
    for r in reports:
        held = r.p99_ms < 100 and not r.errors and not r.problems
        share = (r.server_cpu or 0.0) / r.wall if r.wall else 0.0
        arrival = "together" if r.together else "steady"  # type: ignore[attr-defined]
        cpu = 1000 * (r.server_cpu or 0.0) / r.requests if r.requests else 0.0
        rows.append(f"| {r.clubs} | {arrival} | {r.clients} | {r.per_second:.0f}/s | "  # type: ignore[attr-defined]
                    f"{r.busiest}/s | {cpu:.2f} ms | {r.median_ms:.0f} ms | "  # type: ignore[attr-defined]
                    f"**{r.p99_ms:.0f} ms** | {len(r.errors)} | {r.acknowledged} | "
                    f"{'yes' if not r.problems else 'NO'} | {share:.2f} | {(r.client_cpu or 0.0) / r.wall:.2f} | "
                    f"{r.arrival_p99_ms:.0f} ms | {r.later_p99_ms:.0f} ms | "  # type: ignore[attr-defined]
                    f"{r.lag_p99_ms:.0f} ms | "  # type: ignore[attr-defined]
                    f"{r.load_before:.1f} | {'held' if held else 'missed'} |")
    per_request = [1000 * (r.server_cpu or 0) / r.requests for r in reports if r.requests]
    cpu_ms = statistics.median(per_request) if per_request else 0.0
    capacity = 1000 * cores / cpu_ms / (TABLES_PER_CLUB * PHONES_PER_TABLE / 6.5) if cpu_ms else 0.0
    intro = (
        f"`{command}` ({today}, Python {platform.python_version()}, {cores} cores shared with other work: the "
        "1-minute load average before each run is in the table). The real server as `make run` starts it "
        f"(`python -m scorer.serve`: {cores} processes, one per core, of 8 threads each) with its database in a "
        "temporary folder, and on the same machine the load generator (one asyncio event loop for every phone, "
        "bench/paced.py): clubs of 12 tables with 3 phones each, "
        "every phone acting every 3 to 10 s (uniformly; 6.5 s on average): the table's scorer opens the "
        "counted-points entry page, then saves a hand a few seconds later; the other two phones open the match "
        "page (80 %) or standings.json. Every phone keeps its connection open, as a browser does. Afterwards "
        "every acknowledged hand is checked in the database and in each match's export.json. Arrival "
        "\"steady\" is an evening under way: before the clock each phone has its connection open and has "
        "looked at its page once (so the server has every page rendered), and the phones start as if they "
        "had been acting long before (the time to each one's first action drawn from what is left of a "
        "3-to-10-s wait seen at a random moment, `first_action`), so the load's rate holds from the first "
        "second. \"Together\" is every phone arriving at a server just started: each opens its connection "
        "at its first action, uniform over the first 10 s, on pages never rendered, and the second actions "
        "fall on the first ones still coming (the busiest second up to two fifths over the run's rate)."
    )
    outcome = ": " + _outcome(reports) if reports else ""
    reading = (
        f"The targets (p99 under 100 ms, no error, every acknowledged hand stored once){outcome}. "
        f"The server spent about {cpu_ms:.1f} ms of CPU per request (the median of the runs): the {cores} cores' "
        f"throughput alone would answer about {capacity:.0f} clubs, but the answers stay quick only well below "
        "that. Each process answers its own phones and keeps its answers quick only while well short of its "
        "core is busy (bench/bench_ceiling.py, \"One process's ceiling\"): past that knee each request costs "
        "more, as the threads pass the GIL to each other more often, and the queue runs away (see the cores "
        "busy beside the p99). The load generator shares the same cores here, so the measured figure is the "
        f"lower bound. The p99 of the first {ARRIVAL:.0f} s (arriving together: every phone comes within 10 s "
        "of a server just started, so every match's match page and entry form are rendered for the first time "
        "while the first hands are saved) beside the p99 of the rest of the run shows where the tail comes from."
    )
    return f"""## Club nights

{wrap(intro)}

| clubs | arrival | phones | requests | busiest second | server CPU a request | median | p99 | errors | \
hands saved | stored once | server cores busy | generator cores busy | p99, first {ARRIVAL:.0f} s | p99, after | \
actions late, p99 | load before | targets |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

{wrap(reading)}
"""


# --- RESULTS.md --------------------------------------------------------------------------


def section(report: Report, command: str) -> str:
    """The "## Load" section of RESULTS.md."""
    today = datetime.date.today().isoformat()
    cores = os.cpu_count() or 1
    phones = report.clients + report.shared
    little = 1000 * phones / report.per_second if report.per_second else 0.0
    server_share = (report.server_cpu or 0.0) / report.wall if report.wall else 0.0
    per_request = 1000 * (report.server_cpu or 0.0) / report.requests if report.requests else 0.0
    longer = ", many more than a real match" if report.shared_hands > 30 else ""
    rows = "\n".join(f"| {kind} | {count} | {median:.0f} ms | {p99:.0f} ms |"
                     for kind, (count, median, p99) in sorted(report.kinds.items()))
    verdict = "every acknowledged hand stored exactly once, none lost, none extra" if not report.problems else \
        f"{len(report.problems)} differences between acknowledged and stored hands"
    intro = (
        f"`{command}` ({today}, Python {platform.python_version()}, {cores} cores; the machine's 1-minute load "
        f"average just before the run: {report.load_before:.1f}): the real server as `make run` starts it "
        "(`flask --app scorer init-db`, then `python -m scorer.serve`: waitress, 8 threads) on 127.0.0.1 with "
        "its database in a temporary folder; the load generator (standard-library HTTP, one thread per phone) "
        f"on the same machine. {report.clients} phones each play out matches of their own (started through /new "
        "or POST /api/matches; legal simulated hands of every preset entered in turn as counted points, captured "
        "cards, counting cards with pile sizes, the full record typed, and the full record sent by live.js after "
        "live checks; the match page after each save, standings.json now and then), and "
        f"{report.shared} more record into one shared match as fast as they can, for {report.seconds:g} s."
    )
    reading = (
        f"With {phones} phones sending without pause, a request mostly waits its turn: {phones} phones at "
        f"{report.per_second:.0f} requests/s make an expected {little:.0f} ms a request (Little's law; the mean "
        f"measured is {report.mean_ms:.0f} ms), while the server spent {per_request:.1f} ms of CPU per request. "
        f"The server process used {server_share:.1f} of the {cores} cores: one Python process runs Python code "
        "on one core at a time (the GIL); SQLite and waitress's socket work add a little beside it. A real table "
        "sends a handful of requests per hand and a hand takes minutes, so this is far more than a club's "
        "evening asks. Saves into the shared match slow down as it grows, because every entry page judges the "
        f"whole match; it reaches {report.shared_hands} hands here{longer}."
    )
    return f"""## Load

{wrap(intro)}

| what | figure |
|---|---|
| requests | {report.requests} in {report.wall:.1f} s: **{report.per_second:.0f}/s** |
| latency, every request | median **{report.median_ms:.0f} ms**, p99 **{report.p99_ms:.0f} ms** |
| errors (5xx, connection failures, unexpected statuses, tracebacks) | **{len(report.errors)}** |
| hands saved and acknowledged | {report.acknowledged} in {report.matches} matches |
| shared match | {report.shared_hands} hands; {report.conflicts} saves answered 409 (another phone saved that hand \
number first), each re-read and saved as the next hand |
| check of the database and each export.json afterwards | {verdict} |
| CPU used meanwhile | server {report.server_cpu or 0:.0f} s, load generator {report.client_cpu or 0:.0f} s \
(of {cores * report.wall:.0f} core-seconds) |

| request | count | median | p99 |
|---|---|---|---|
{rows}

{wrap(reading)}
"""


def wrap(text: str, width: int = 110) -> str:
    """A paragraph wrapped for RESULTS.md, never inside a `code span`."""
    parts = text.split("`")
    kept = "`".join(part.replace(" ", "\0") if i % 2 else part for i, part in enumerate(parts))
    return textwrap.fill(kept, width, break_long_words=False, break_on_hyphens=False).replace("\0", " ")


def write(text: str) -> None:
    """Replace the "## Load" section of RESULTS.md (or add it), leaving the other sections alone."""
    replace_section(RESULTS, "## Load", text, load_said=True)  # its texts give the load before each run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="phones playing their own matches (50)")
    parser.add_argument("--shared", type=int, default=10, help="phones recording into one shared match (10)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the phones send (60)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="record the figures in bench/RESULTS.md")
    parser.add_argument("--clubs", type=int, nargs="*", default=None,
                        help="club nights instead: 12 tables x 3 phones per club at a person's pace, one run per "
                             "figure given (e.g. --clubs 10 25 50 100)")
    parser.add_argument("--arrival", nargs="+", choices=("steady", "together"), default=["steady"],
                        help="with --clubs: how the phones start, one run of each (steady: at the load's rate "
                             "from the first second; together: every first action within the first 10 s)")
    args = parser.parse_args()
    if args.clubs is not None:
        reports = []
        for clubs, arrival in ((c, a) for c in args.clubs or [100] for a in args.arrival):  # interleaved: the
            # host's speed changes by the minute, and each size's two arrivals are then measured side by side
            report = run_clubs(clubs, args.seconds, seed=args.seed, together=arrival == "together")
            print(f"== {clubs} clubs, {arrival} (busiest second {report.busiest}; "  # type: ignore[attr-defined]
                  f"sender delay p99 {report.lag_p99_ms:.0f} ms; p99 of the first "  # type: ignore[attr-defined]
                  f"{ARRIVAL:.0f} s {report.arrival_p99_ms:.0f} ms, after {report.later_p99_ms:.0f} ms)")  # type: ignore[attr-defined]
            print(report.summary())
            reports.append(report)
        if args.write:
            replace_section(RESULTS, "## Club nights", clubs_section(reports, f"{COMMAND} --seconds "
                            f"{args.seconds:g} --clubs {' '.join(str(c) for c in args.clubs or [100])}"
                            + (f" --arrival {' '.join(args.arrival)}" if args.arrival != ["steady"] else "")))
            print(f"Written to {RESULTS.relative_to(ROOT)}.")
        return 0 if all(r.p99_ms < 100 and not r.errors and not r.problems for r in reports) else 1
    if not (0 <= args.clients <= 500 and 0 <= args.shared <= 100 and 0 < args.seconds <= 3600):
        parser.error("at most 500 + 100 phones for at most an hour")
    report = run(args.clients, args.shared, args.seconds, seed=args.seed)
    print(report.summary())
    failed = bool(report.errors or report.problems)
    if args.write:
        command = COMMAND if (args.clients, args.shared, args.seconds) == (50, 10, 60.0) else \
            f"{COMMAND} --clients {args.clients} --shared {args.shared} --seconds {args.seconds:g}"
        write(section(report, command))
        print(f"Written to {RESULTS.relative_to(ROOT)}.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
