"""The server killed (SIGKILL) at random moments while a phone saves hands as fast as it can.

After each restart every hand whose save was acknowledged is stored exactly once,
a save whose answer was lost is stored at most once, nothing is half-written
(every hand has its revision, every stored record reads and scores with the
core), the database passes ``PRAGMA integrity_check`` and the restarted server
exports the same hands.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from scorer.engine.records import parse_hand
from scorer.engine.scoring import score_hand
from tests.serverutil import Client, Server, csrf_token, hidden

pytestmark = pytest.mark.slow  # make test-fast leaves it out

KILLS = 5
PLAYERS = ["Anna", "Bruno", "Carla"]


def prefilled_dealer(page: str) -> str:
    """The dealer the entry page pre-fills from the rotation, as a phone saves it untouched."""
    found = re.search(r'value="([^"]+)" checked', page)
    return found.group(1) if found else PLAYERS[0]


@dataclass
class Phone:
    """A client thread saving counted-points hands into one match without pause."""

    port: int
    token: str
    acknowledged: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    """Saves sent whose answer never came (the server died): stored at most once."""
    unexpected: list[str] = field(default_factory=list)
    pause: threading.Event = field(default_factory=threading.Event)
    idle: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        client = Client(self.port, timeout=10)
        number = 0
        while not self.stop.is_set():
            if self.pause.is_set():
                client.close()
                self.idle.set()
                time.sleep(0.005)
                continue
            self.idle.clear()
            url = f"/m/{self.token}/hands/new/points"
            try:
                page = client.get(url)
            except ConnectionError:
                time.sleep(0.005)  # the server is down: try again until it is back
                continue
            if page.status != 200:
                self.unexpected.append(f"GET {page.status}")
                continue
            number += 1
            note = f"crash save {number}"
            a = 10 + number % 20
            fields = {"csrf_token": csrf_token(page.text) or "", "expected_count": hidden(page.text, "expected_count")
                      or "", "dealer": prefilled_dealer(page.text), "points_0": str(a), "points_1": "30",
                      "points_2": str(48 - a), "notes": note}
            try:
                answer = client.post_form(url, fields)
            except ConnectionError:
                self.lost.append(note)
                continue
            if answer.status == 302:
                self.acknowledged.append(note)
            else:
                self.unexpected.append(f"POST {answer.status}: {answer.text[:200]}")
        client.close()
        self.idle.set()

    def hold(self) -> None:
        """Stop sending and wait until nothing is in flight."""
        self.idle.clear()
        self.pause.set()
        assert self.idle.wait(15), "the phone did not pause"


def create_match(port: int) -> str:
    client = Client(port)
    answer = client.post_json("/api/matches", {"format": "scarto-match/1", "players": PLAYERS,
                                               "first_dealer": "Anna", "hands": []})
    client.close()
    assert answer.status == 201, answer.text
    return str(answer.json()["edit_url"]).rstrip("/").split("/")[-1]


def check_stored(path: Path, token: str, phone: Phone, port: int) -> int:
    """Everything the crash test promises about the database after a restart; the number of hands."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        match_id, settings = conn.execute("SELECT id, settings FROM matches WHERE edit_token = ?", [token]).fetchone()
        match = json.loads(settings)
        hands = conn.execute("SELECT id, position, record, version FROM hands WHERE match_id = ? AND deleted_at "
                             "IS NULL ORDER BY position", [match_id]).fetchall()
        notes: Counter[str] = Counter()
        for hand_id, _position, text, version in hands:
            record = json.loads(text)
            notes[record.get("notes")] += 1
            revisions = conn.execute("SELECT version, action, record FROM revisions WHERE hand_id = ?",
                                     [hand_id]).fetchall()
            assert revisions == [(1, "create", text)] and version == 1, f"hand {hand_id} half-written"
            result = score_hand(parse_hand({"format": "scarto-hand/1", "ruleset": match.get("ruleset", "classic"),
                                            "players": match["players"], **record}))
            assert not result.has_errors
        orphans = conn.execute("SELECT COUNT(*) FROM revisions WHERE hand_id NOT IN (SELECT id FROM hands)")
        assert orphans.fetchone()[0] == 0
        assert len({position for _id, position, _t, _v in hands}) == len(hands)
    finally:
        conn.close()
    acknowledged = Counter(phone.acknowledged)
    assert all(count == 1 for count in notes.values()), [n for n, c in notes.items() if c > 1]
    missing = [note for note in acknowledged if notes[note] != 1]
    assert not missing, f"acknowledged but not stored: {missing}"
    extra = set(notes) - set(acknowledged)
    assert extra <= set(phone.lost), f"stored but never sent: {extra - set(phone.lost)}"
    client = Client(port)
    exported = client.get(f"/m/{token}/export.json")
    client.close()
    assert exported.status == 200
    assert Counter(h.get("notes") for h in exported.json()["hands"]) == notes
    return len(hands)


def test_killed_at_random_moments_loses_no_acknowledged_hand(tmp_path: Path) -> None:
    rng = random.Random()
    seed = rng.randrange(10**6)
    rng.seed(seed)
    server = Server(tmp_path / "crash.sqlite").start()
    try:
        token = create_match(server.port)
        phone = Phone(server.port, token)
        worker = threading.Thread(target=phone.run, daemon=True)
        worker.start()
        stored = 0
        for kill in range(KILLS):
            time.sleep(rng.uniform(0.02, 0.2))
            server.kill()
            server.start(init_db=kill % 5 == 0)  # now and then as `make run` would, init-db first
            phone.hold()
            stored = check_stored(server.database, token, phone, server.port)
            phone.pause.clear()
        phone.stop.set()
        worker.join(15)
        assert not phone.unexpected, (seed, phone.unexpected[:5])
        assert len(phone.acknowledged) >= KILLS, (seed, len(phone.acknowledged))
        assert stored >= len(phone.acknowledged)
        print(f"crash: seed {seed}, {len(phone.acknowledged)} acknowledged, {len(phone.lost)} answers lost, "
              f"{stored} stored")
        assert "Traceback" not in server.output(), server.output()[-3000:]
    finally:
        server.stop()
