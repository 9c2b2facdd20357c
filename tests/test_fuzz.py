"""Thousands of malformed and random inputs against every way in: never a 500, never a traceback.

The JSON interface (random bytes, damaged match files), the file import (a match
file at /import, a hand file into a match; uploaded or pasted), the audit upload,
and every form (a new match, the four entry forms posted as pages and as live.js
posts them, the live check, edits, and the history's restore, delete and undelete),
with random field values. Forms carry a valid CSRF token, so it is their own
validation that is exercised. Every answer is below 500 and shows no traceback;
every refusal (4xx) carries a message: a non-empty ``message``/``messages``/``error``
in JSON, a non-empty alert or problem on a page.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_from_bytes

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from werkzeug.test import TestResponse

from scorer import create_app
from scorer.engine.cards import CODES
from scorer.engine.records import dumps, hand_to_dict, match_to_dict, parse_match
from scorer.engine.rulesets import PRESETS
from scorer.engine.simulation import NAMES, captured_form, honours_form, points_form, simulate_hand
from scorer.storage import store
from scorer.web import get_db
from tests.jsonutil import json_at, json_paths
from tests.webutil import csrf_token

pytestmark = pytest.mark.slow  # make test-fast leaves it out


SCALE = float(os.environ.get("SCARTO_FUZZ_SCALE", "0.3"))
"""The share of each test's examples a run makes: 0.3 (1,400 inputs in all) keeps the whole suite
within its five minutes on two cores in the machine's slow hours; ``SCARTO_FUZZ_SCALE=1`` runs the
4,650 the counts below name, ``10`` a night's worth."""


def fuzz(examples: int) -> settings:
    """Many examples, no deadline (a request takes milliseconds, a slow machine more)."""
    return settings(max_examples=max(50, round(examples * SCALE)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- the world the inputs are thrown at -------------------------------------------------


def hands_of_every_form(preset: str, seed: int) -> list[dict[str, Any]]:
    """Four legal in-match hands of the preset: full record, captured piles, honours and sizes, points."""
    rules = PRESETS[preset]
    rng = random.Random(seed)
    full = simulate_hand(rules, rng)
    return [hand_to_dict(r, in_match=True) for r in (
        full, captured_form(simulate_hand(rules, rng)), honours_form(simulate_hand(rules, rng), exchanged=True),
        points_form(simulate_hand(rules, rng)))]


def match_file(preset: str, seed: int) -> dict[str, Any]:
    rules = PRESETS[preset]
    players = list(NAMES[:rules.players])
    return match_to_dict(parse_match({
        "format": "scarto-match/1", "title": "Fuzz", "ruleset": preset, "players": players,
        "first_dealer": players[0], "end": {"hands": 6}, "settle": "per_point",
        "stake": {"per_point": "0.10", "currency": "EUR"}, "hands": hands_of_every_form(preset, seed),
    }))


MATCH_FILES = [match_file(p, seed) for seed, p in enumerate(PRESETS)]
"""Good match files, one per preset, each with a hand in every record form."""
HAND_FILES = [{"format": "scarto-hand/1", "ruleset": m["ruleset"], "players": m["players"], **h}
              for m in MATCH_FILES for h in m["hands"]]
"""Good hand files of every preset and form."""
CLASSIC_HANDS = [h for h in HAND_FILES if h["ruleset"] == "classic"]


@dataclass(frozen=True)
class World:
    """A classic match with a hand of every form (one edited, one deleted), and a CSRF token."""

    app: Flask
    client: FlaskClient
    edit: str
    view: str
    keys: list[str]
    csrf: str
    entries: list[str]
    """Matches the new-hand forms save into, the current one last."""
    histories: list[tuple[str, list[str]]]
    """Matches (and their hand keys) for restore, delete and undelete, the current one last."""

    def post(self, url: str, data: dict[str, Any], **kwargs: Any) -> TestResponse:
        return self.client.post(url, data={"csrf_token": self.csrf, **data}, **kwargs)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("fuzz")
    app = create_app({"TESTING": True, "DATABASE": str(folder / "fuzz.sqlite"), "SECRET_KEY": "fuzz",
                      "SERVER_NAME": "scarto.test"})
    with app.app_context():
        db = get_db()
        row = store.create_match(db, parse_match(MATCH_FILES[0]))
        hands = store.list_hands(db, row.id)
        store.update_hand(db, row.id, hands[3].key, {**hands[3].record, "notes": "counted again"})
        store.delete_hand(db, row.id, hands[2].key)
        keys = [h.key for h in hands]
        edit, view = row.edit_token, row.view_token
    client = app.test_client()
    csrf = csrf_token(client.get("/new").get_data(as_text=True))
    yield World(app, client, edit, view, keys, csrf, [edit], [(edit, keys)])


# --- what every answer must be -----------------------------------------------------------

_TRACEBACK = re.compile("Trace" + r"back \(most recent call last\)|\bFile \"[^\"\n]+\", line \d+, in ")
"""A Python traceback in an answer. Built at run time: Hypothesis draws strings from the project's own
constants, and once drew the word itself into an uploaded file that the error page quoted back."""
_ALERT = re.compile(r'<(\w+)[^>]*?(?:role="alert"|class="problem")[^>]*>(.*?)</\1>', re.S)


def page_message(body: str) -> str:
    """The text of the page's alerts and problems."""
    return " ".join(" ".join(re.sub(r"<[^>]+>", " ", inner).split()) for _tag, inner in _ALERT.findall(body)).strip()


def json_message(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    parts = [value.get("message"), value.get("error"), *(value.get("messages") or [])]
    return " ".join(str(p) for p in parts if p).strip()


def check(response: TestResponse, *, allowed: tuple[int, ...] = (200, 201, 302, 303, 400, 403, 404, 409, 413,
                                                                     415)) -> None:
    """Never a 500, never a traceback, every refusal with a message a person can read."""
    body = response.get_data(as_text=True)
    status = response.status_code
    event(f"status {status}")
    assert status < 500, (status, body[:1500])
    assert not _TRACEBACK.search(body), body[:1500]
    assert status in allowed, (status, body[:800])
    if 400 <= status < 500:
        if response.mimetype == "application/json":
            message = json_message(response.get_json(silent=True))
        else:
            message = page_message(body)
        assert message, f"a {status} without a message: {body[:1500]}"


# --- values --------------------------------------------------------------------------------

ODD_DIGITS = st.sampled_from(["²", "³", "¹", "①", "٣", "߁", "𝟘", "Ⅻ", "½", "⅓", "0x10", "1e3", "-0", "−3",
                              " 7 ", "007", "9" * 12, "1_000", "３", "\u00a0", "\x00", "NaN", "inf"])
"""Text that looks like a number to some function and not to another."""
PLAIN_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
CARD_TEXT = st.lists(st.sampled_from(list(CODES) + ["KX", "t22", "XX", "Matto", "K♣", "10♥\ufe0f", "0", "A"]),
                     max_size=30).map(" ".join)
FIELD = st.one_of(PLAIN_TEXT, ODD_DIGITS, st.integers(-10**12, 10**12).map(str), CARD_TEXT,
                  st.sampled_from(["", "Anna", "Bruno", "Carla", "Dario", "0", "1", "2", "3", "26", "78", "58/3",
                                   "19½", "19 1/2", "1/0", "true", "draw", "classic", "four", "piccolo", "target"]))
"""A value for any form field."""
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=12)
"""Any text JSON can hold, lone surrogates (written as escapes) included."""
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ANY_TEXT
    | ODD_DIGITS | st.sampled_from([*CODES[:30], *NAMES[:4]]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT | st.sampled_from(
        ["dealer", "tricks", "cards", "points", "captured", "players", "format", "hands", "ruleset", "preset"]),
        inner, max_size=4),
    max_leaves=15,
)




def mutate(data: st.DataObject, value: Any) -> Any:
    """A good file damaged in one to three places: a value replaced, a key dropped or added, an item
    doubled or dropped, two values swapped, a number or card code nudged."""
    value = json.loads(json.dumps(value))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = json_paths(value)[1:]
        if not paths:
            return data.draw(JSON_VALUES)
        path = data.draw(st.sampled_from(paths))
        parent, last = json_at(value, path[:-1]), path[-1]
        op = data.draw(st.sampled_from(["replace", "drop", "add", "double", "swap", "nudge"]))
        if op == "replace":
            parent[last] = data.draw(JSON_VALUES)
        elif op == "drop":
            del parent[last]
        elif op == "add" and isinstance(parent, dict):
            parent[data.draw(ANY_TEXT)] = data.draw(JSON_VALUES)
        elif op == "double" and isinstance(parent, list):
            parent.insert(last, json.loads(json.dumps(parent[last])))
        elif op == "swap":
            other = data.draw(st.sampled_from(paths))
            try:
                other_parent = json_at(value, other[:-1])
                parent[last], other_parent[other[-1]] = other_parent[other[-1]], parent[last]
            except (KeyError, IndexError, TypeError):
                pass
        elif op == "nudge":
            item = parent[last]
            if isinstance(item, bool) or not isinstance(item, int | str):
                continue
            if isinstance(item, int):
                parent[last] = item + data.draw(st.sampled_from([-1, 1, -item - 1, 10**20, 2**63]))
            else:
                parent[last] = data.draw(st.sampled_from([item.lower(), item + "x", item[:-1], item * 2,
                                                          item + "\u0301", f" {item} "]))
    return value


def damaged_bytes(data: st.DataObject, good: bytes) -> bytes:
    """A good file's bytes cut short, bit-flipped, or spliced with random bytes."""
    op = data.draw(st.sampled_from(["cut", "flip", "splice", "random"]))
    if op == "random":
        return data.draw(st.binary(max_size=300))
    at = data.draw(st.integers(0, max(0, len(good) - 1)))
    if op == "cut":
        return good[:at]
    if op == "flip":
        return good[:at] + bytes([good[at] ^ data.draw(st.integers(1, 255))]) + good[at + 1:] if good else good
    return good[:at] + data.draw(st.binary(max_size=20)) + good[at:]


def any_file(data: st.DataObject, goods: list[dict[str, Any]]) -> bytes:
    """A file as someone might upload it: damaged JSON of a good file, damaged bytes, or any JSON."""
    kind = data.draw(st.sampled_from(["mutated", "bytes", "json", "good"]))
    good = data.draw(st.sampled_from(goods))
    if kind == "mutated":
        return json.dumps(mutate(data, good), ensure_ascii=data.draw(st.booleans())).encode("utf-8", "surrogatepass")
    if kind == "bytes":
        return damaged_bytes(data, dumps(good).encode())
    if kind == "json":
        return json.dumps(data.draw(JSON_VALUES)).encode()
    return dumps(good).encode()


def send_file(world: World, url: str, data: st.DataObject, content: bytes) -> TestResponse:
    """Upload the bytes as a file, or paste them (as text) into the box."""
    if data.draw(st.booleans()):
        name = data.draw(st.sampled_from(["match.json", "hand.json", "x", "ä ö.json", "../../etc/passwd"]))
        return world.post(url, {"file": (io.BytesIO(content), name)}, content_type="multipart/form-data")
    text = content.decode("utf-8", errors=data.draw(st.sampled_from(["replace", "ignore"])))
    return world.post(url, {"text": text})


# --- the JSON interface -------------------------------------------------------------------


@fuzz(600)
@given(data=st.data())
def test_the_api_takes_any_bytes_and_any_damaged_match_file(world: World, data: st.DataObject) -> None:
    body = any_file(data, MATCH_FILES)
    content_type = data.draw(st.sampled_from(["application/json", "application/json; charset=utf-8",
                                              "application/json; charset=latin-1", "text/plain",
                                              "application/merge-patch+json"]))
    response = world.client.post("/api/matches", data=body, content_type=content_type)
    check(response, allowed=(201, 400, 413, 415))
    assert response.mimetype == "application/json"


# --- files -----------------------------------------------------------------------------------


@fuzz(400)
@given(data=st.data())
def test_the_import_page_takes_any_file(world: World, data: st.DataObject) -> None:
    content = any_file(data, data.draw(st.sampled_from([MATCH_FILES, HAND_FILES])))
    check(send_file(world, "/import", data, content), allowed=(302, 400, 413))


@fuzz(400)
@given(data=st.data())
def test_importing_a_hand_into_a_match_takes_any_file(world: World, data: st.DataObject) -> None:
    goods = data.draw(st.sampled_from([CLASSIC_HANDS, HAND_FILES, [{k: v for k, v in h.items() if k not in (
        "players", "ruleset", "format")} for h in CLASSIC_HANDS]]))
    content = any_file(data, goods)
    token, _count = entry_match(world)
    check(send_file(world, f"/m/{token}/import", data, content), allowed=(302, 400, 413))


@fuzz(400)
@given(data=st.data())
def test_the_audit_upload_takes_any_file(world: World, data: st.DataObject) -> None:
    content = any_file(data, HAND_FILES)
    response = send_file(world, "/audit", data, content)
    check(response, allowed=(302, 400, 413))
    if response.status_code == 302:  # and the audit link it gives opens
        check(world.client.get(response.headers["Location"]), allowed=(200,))


# --- forms -------------------------------------------------------------------------------------

MATCH_FIELDS = ["title", "place", "preset", "player_1", "player_2", "player_3", "player_4", "first_dealer",
                "top_trump", "discard", "fool_discard", "first_lead", "overtrump", "fool_last_trick", "fool_forfeit",
                "ultimo", "end_kind", "end_hands", "end_target", "settle", "stake", "currency"]
GOOD_MATCH = {"preset": "classic", "player_1": "Anna", "player_2": "Bruno", "player_3": "Carla",
              "first_dealer": "1", "end_kind": "hands", "settle": "per_point", "currency": "EUR", "end_target": "100"}


def form_fields(data: st.DataObject, good: dict[str, str], names: list[str]) -> dict[str, str]:
    """A good form with some fields given random values, some dropped and some added."""
    fields = dict(good)
    for name in data.draw(st.lists(st.sampled_from(names), max_size=6, unique=True)):
        if data.draw(st.integers(0, 5)) == 0:
            fields.pop(name, None)
        else:
            fields[name] = data.draw(FIELD)
    return fields


@fuzz(400)
@given(data=st.data())
def test_the_new_match_form_takes_any_values(world: World, data: st.DataObject) -> None:
    fields = form_fields(data, GOOD_MATCH, MATCH_FIELDS)
    check(world.post("/new", fields), allowed=(302, 400))


@fuzz(150)
@given(data=st.data())
def test_forms_take_any_bytes(world: World, data: st.DataObject) -> None:
    """A form body that is not what a browser sends: random bytes, percent-encoded, in any field."""
    names = ["dealer", "points_0", "points_1", "cards_0", "rest", "tricks", "expected_count", "version", "notes",
             "player_1", "preset", "text", "stake"]
    pairs = [(data.draw(st.sampled_from(names)), data.draw(st.binary(max_size=20))) for _ in range(4)]
    body = "&".join([f"csrf_token={world.csrf}"] + [f"{n}={quote_from_bytes(v)}" for n, v in pairs])
    url = data.draw(st.sampled_from(["/new", f"/m/{world.edit}/hands/new/points", f"/m/{world.edit}/hands/new/cards",
                                     f"/m/{world.edit}/hands/new/live", f"/m/{world.edit}/hands/{world.keys[0]}/edit",
                                     f"/m/{world.edit}/import", "/import", "/audit",
                                     f"/m/{world.edit}/hands/{world.keys[1]}/delete"]))
    response = world.client.post(url, data=body.encode(), content_type="application/x-www-form-urlencoded")
    check(response, allowed=(200, 302, 303, 400, 409))


ENTRY_NAMES = ["dealer", "expected_count", "version", "save_anyway", "ultimo", "notes", "rest", "tricks",
               *[f"{kind}_{i}" for kind in ("points", "cards", "size") for i in range(5)]]


def good_entry(form: str, rng: random.Random) -> dict[str, str]:
    """The fields a phone posts for a legal hand in that form (expected_count left to the caller)."""
    hand = simulate_hand(PRESETS["classic"], rng)
    fields = {"dealer": hand.dealer, "rest": "2"}
    if form == "points":
        points = points_form(hand).points or {}
        fields.update({f"points_{i}": str(points[p]) for i, p in enumerate(hand.players)})
    elif form == "cards":
        piles = captured_form(hand).captured or {}
        fields.update({f"cards_{i}": " ".join(CODES[c] for c in piles[p]) for i, p in enumerate(hand.players)})
    elif form == "honours":
        derived = honours_form(hand)
        for i, p in enumerate(hand.players):
            fields[f"cards_{i}"] = " ".join(CODES[c] for c in (derived.honours or {})[p])
            fields[f"size_{i}"] = str((derived.sizes or {})[p])
    else:
        fields["tricks"] = "\n".join(" ".join(CODES[c] for c in t.cards) for t in hand.tricks or ())
    return fields


def version(world: World, token: str, key: str) -> int:
    """The hand's current version, as its page would carry it."""
    with world.app.app_context():
        row, _ = store.find_match(get_db(), token)
        return store.get_hand(get_db(), row.id, key).version


def history_match(world: World) -> tuple[str, list[str]]:
    """A match for restore, delete and undelete (a fresh one once its histories grow long: kept quick)."""
    token, keys = world.histories[-1]
    with world.app.app_context():
        db = get_db()
        row, _ = store.find_match(db, token)
        if max(h.version for h in store.list_hands(db, row.id, deleted=True)) > 12:
            row = store.create_match(db, parse_match(MATCH_FILES[0]))
            keys = [h.key for h in store.list_hands(db, row.id)]
            store.delete_hand(db, row.id, keys[2])
            world.histories.append((row.edit_token, keys))
    return world.histories[-1]


SMALL = 6
"""Entries that save are kept; past this many hands the entry tests move on to a fresh match (kept quick)."""


def entry_match(world: World) -> tuple[str, int]:
    """A match for the entry forms to save into, and how many hands it holds."""
    with world.app.app_context():
        db = get_db()
        row, _ = store.find_match(db, world.entries[-1])
        count = len(store.list_hands(db, row.id))
        if count > SMALL:
            row = store.create_match(db, parse_match({**MATCH_FILES[0], "hands": []}))
            world.entries.append(row.edit_token)
            count = 0
    return world.entries[-1], count


@fuzz(500)
@given(data=st.data(), form=st.sampled_from(["points", "cards", "honours", "live"]), seed=st.integers(0, 10**6))
def test_the_entry_forms_take_any_values(world: World, data: st.DataObject, form: str, seed: int) -> None:
    token, count = entry_match(world)
    good = {**good_entry(form, random.Random(seed)), "expected_count": str(count)}
    fields = form_fields(data, good, ENTRY_NAMES)
    response = world.post(f"/m/{token}/hands/new/{form}", fields)
    check(response, allowed=(200, 302, 400, 409))


@fuzz(400)
@given(data=st.data(), form=st.sampled_from(["points", "cards", "honours", "live"]), seed=st.integers(0, 10**6))
def test_the_entry_forms_take_any_json_as_live_js_sends_it(world: World, data: st.DataObject, form: str,
                                                          seed: int) -> None:
    token, count = entry_match(world)
    good: dict[str, Any] = {**good_entry(form, random.Random(seed)), "expected_count": count}
    if "tricks" in good:
        good["tricks"] = [line.split() for line in good["tricks"].splitlines()]
    body: Any = dict(good)
    for name in data.draw(st.lists(st.sampled_from(ENTRY_NAMES), max_size=4, unique=True)):
        body[name] = data.draw(JSON_VALUES)
    if data.draw(st.integers(0, 9)) == 0:
        body = data.draw(JSON_VALUES)
    response = world.client.post(f"/m/{token}/hands/new/{form}", json=body,
                                 headers={"X-CSRFToken": world.csrf, "Accept": "application/json"})
    check(response, allowed=(200, 302, 400, 409))


@fuzz(400)
@given(data=st.data(), seed=st.integers(0, 10**6))
def test_the_live_check_takes_any_json(world: World, data: st.DataObject, seed: int) -> None:
    hand = simulate_hand(PRESETS["classic"], random.Random(seed))
    tricks: Any = [[CODES[c] for c in t.cards] for t in hand.tricks or ()][:data.draw(st.integers(0, 25))]
    body: Any = {"dealer": hand.dealer, "tricks": tricks}
    if data.draw(st.booleans()):
        body = mutate(data, body)
    response = world.client.post(f"/m/{world.edit}/hands/live/check", json=body,
                                 headers={"X-CSRFToken": world.csrf})
    check(response, allowed=(200, 400))
    assert response.mimetype == "application/json"


@fuzz(300)
@given(data=st.data(), which=st.integers(0, 3), seed=st.integers(0, 10**6))
def test_the_edit_forms_take_any_values(world: World, data: st.DataObject, which: int, seed: int) -> None:
    form = ["live", "cards", "honours", "points"][which]
    good = {**good_entry(form, random.Random(seed)), "version": str(version(world, world.edit, world.keys[which]))}
    fields = form_fields(data, good, ENTRY_NAMES)
    response = world.post(f"/m/{world.edit}/hands/{world.keys[which]}/edit", fields)
    check(response, allowed=(200, 302, 400, 409))


@fuzz(400)
@given(data=st.data())
def test_restore_delete_and_undelete_take_any_values(world: World, data: st.DataObject) -> None:
    token, keys = history_match(world)
    key = data.draw(st.sampled_from(keys))
    action = data.draw(st.sampled_from(["delete", "undelete", "restore"]))
    url = f"/m/{token}/hands/{key}/{action}"
    if action == "restore":
        url += f"/{data.draw(st.integers(1, 12))}"
    seen = st.just(str(version(world, token, key))) | FIELD | st.integers(1, 12).map(str)
    fields = {} if data.draw(st.integers(0, 9)) == 0 else {"version": data.draw(seen)}
    check(world.post(url, fields), allowed=(302, 303, 400, 404, 409))


@fuzz(300)
@given(data=st.data())
def test_the_audit_page_takes_any_query(world: World, data: st.DataObject) -> None:
    """The audit's own inputs: the trick asked for and the table's what-if awards, in the query string."""
    params = {"t": data.draw(FIELD), "award": data.draw(st.lists(FIELD | st.builds(
        lambda t, s: f"{t}-{s}", st.integers(-2, 30), st.integers(-2, 5)), max_size=3)),
              "annul": data.draw(st.sampled_from(["", "1", "0", "²"]))}
    response = world.client.get(f"/m/{world.edit}/hands/{world.keys[0]}/audit", query_string=params)
    check(response, allowed=(200,))
