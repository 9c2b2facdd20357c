"""One path for a hand: a live save reads the new record once, judges it once, writes it once.

Counted by wrapping the engine's reader and judge wherever the app imported them,
and the store's write; live.js's card codes never go through the name matcher.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.engine import records, scoring
from scorer.storage import db as database
from scorer.storage import store
from scorer.web import db as web_db
from scorer.web import hands_forms
from tests.handutil import csrf_of, export, fixture, hand_keys, open_form, points_data, record, save_live
from tests.webutil import start_match

PLAYERS = ("Anna", "Bruno", "Carla")


def _wrap_everywhere(monkeypatch: pytest.MonkeyPatch, original: Callable[..., Any], seen: list[Any]) -> None:
    """Replace the function in every ``scorer`` module that imported it, noting each call's argument."""
    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[0])
        return original(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if (name == "scorer" or name.startswith("scorer.")) and getattr(module, original.__name__, None) is original:
            monkeypatch.setattr(module, original.__name__, counting)


def test_a_live_save_reads_judges_and_writes_the_new_hand_once(client: FlaskClient,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    token = start_match(client)
    for n in range(5):  # a match with hands already: reading them is not reading the new one
        assert record(client, token, "points", points_data({"Anna": 31, "Bruno": 22}, PLAYERS,
                                                           PLAYERS[n % 3])).status_code == 302
    hand = fixture("classic-valid-1")
    csrf = csrf_of(client, token)
    body = {"dealer": hand["dealer"], "tricks": [t["cards"] for t in hand["tricks"]], "expected_count": "5",
            "dealer_ok": hand["dealer"]}  # Bruno, though Carla deals hand 6 by the rotation: the table said so

    parsed: list[Any] = []
    judged: list[Any] = []
    written: list[Any] = []
    _wrap_everywhere(monkeypatch, records.parse_hand, parsed)
    _wrap_everywhere(monkeypatch, scoring.score_hand, judged)
    insert = store._insert_hand

    def counting_insert(db: Any, match_id: int, position: int, data: dict[str, Any], *rest: Any) -> int:
        written.append(data)
        return insert(db, match_id, position, data, *rest)

    monkeypatch.setattr(store, "_insert_hand", counting_insert)

    def no_names(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("live.js's codes went through the name matcher")

    monkeypatch.setattr(hands_forms, "split_cards", no_names)

    response = save_live(client, f"/m/{token}/hands/new/live", csrf, body)
    assert response.status_code == 200 and response.get_json()["saved"] is True
    monkeypatch.undo()

    new_reads = [d for d in parsed if isinstance(d, dict) and "tricks" in d]
    new_judgements = [r for r in judged if r.tricks is not None]
    assert len(new_reads) == 1
    assert len(new_judgements) == 1
    assert len(written) == 1
    assert parsed  # the wrapping saw the app's reads at all
    stored = export(client, token)["hands"][5]
    assert stored["tricks"] == hand["tricks"]  # with who led each trick, from the one judgement
    assert stored == written[0] | {"recorded_at": stored["recorded_at"]}


# --- one save at a time in a process, in the order they came ------------------------------


def test_turns_are_given_in_the_order_they_were_asked_for() -> None:
    """``threading.Lock`` wakes any waiter: a save could wait behind many that came after it."""
    turns = web_db.Turns()
    assert turns.acquire(timeout=1)
    order: list[int] = []
    threads = []
    def take(n: int) -> None:
        turns.acquire(timeout=10)
        order.append(n)
        turns.release()

    for n in range(8):
        thread = threading.Thread(target=take, args=(n,))
        thread.start()
        threads.append(thread)
        deadline = time.monotonic() + 5
        while len(turns._waiting) <= n and time.monotonic() < deadline:  # queued before the next comes
            time.sleep(0.001)
    turns.release()
    for thread in threads:
        thread.join(10)
    assert order == list(range(8))
    assert turns.acquire(timeout=0.01), "the last one gave the lock back"


def test_a_turn_that_does_not_come_gives_up_and_leaves_the_queue() -> None:
    turns = web_db.Turns()
    assert turns.acquire(timeout=1)
    started = time.monotonic()
    assert not turns.acquire(timeout=0.05)
    assert time.monotonic() - started >= 0.05
    assert not turns._waiting
    turns.release()
    assert turns.acquire(timeout=0.01)


def test_every_hand_save_waits_for_the_process_s_save_in_progress(client: FlaskClient,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The forms, an edit and the JSON hand all take the turn; one that never gets it is the 503 page
    (or answer) to try again, with nothing saved."""
    token = start_match(client)
    hand = {"Anna": 31, "Bruno": 22}
    assert record(client, token, "points", points_data(hand, PLAYERS, "Anna")).status_code == 302
    _page, new = open_form(client, f"/m/{token}/hands/new/points")
    (key,) = hand_keys(client, token)
    _page, edit = open_form(client, f"/m/{token}/hands/{key}/edit")
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.1)
    assert web_db._SAVING.acquire(timeout=1)  # another thread's save in progress
    try:
        refused = [
            client.post(f"/m/{token}/hands/new/points", data={**new, **points_data(hand, PLAYERS, "Bruno")}),
            client.post(f"/m/{token}/hands/{key}/edit", data={**edit, **points_data({"Anna": 40}, PLAYERS, "Anna")}),
            client.post(f"/m/{token}/hands.json", json={"dealer": "Bruno", "points": {"Anna": 30, "Bruno": 24}}),
        ]
    finally:
        web_db._SAVING.release()
    for answer in refused:
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
        assert "busy with other saves" in answer.get_data(as_text=True)
    assert refused[2].is_json
    hands = export(client, token)["hands"]
    assert len(hands) == 1 and hands[0]["points"]["Anna"] == 31
    assert client.post(f"/m/{token}/hands/new/points",
                       data={**new, **points_data(hand, PLAYERS, "Bruno")}).status_code == 302


def test_the_turn_is_taken_before_the_form_is_checked_and_given_back_whatever_happens(
        app: Flask, client: FlaskClient) -> None:
    """Taken in the view, the waiting saves' CSRF checks ran beside the save in turn; a save refused
    (a stale token, an error page) gives the turn back like one stored."""
    assert web_db.SAVES <= {rule.endpoint for rule in app.url_map.iter_rules()}  # a renamed route keeps its turn
    order = [f.__name__ for f in app.before_request_funcs[None]]
    assert order.index("take_save_turn") < order.index("csrf_protect")
    token = start_match(client)
    assert client.post(f"/m/{token}/hands/new/points", data={"csrf_token": "stale"}).status_code == 400
    assert client.post(f"/m/{token}/hands.json", json={"dealer": "Nobody"}).status_code == 400
    assert web_db._SAVING.acquire(timeout=0.01), "a refused save kept the turn"
    web_db._SAVING.release()
