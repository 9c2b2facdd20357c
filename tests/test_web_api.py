"""The JSON interface: matches in and out in the file formats, every refusal a JSON message."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.engine.records import parse_match
from scorer.web import MAX_UPLOAD_BYTES
from tests.jsonutil import json_paths
from tests.seed import dealt_by, match_file, seed_match

ROOT = Path(__file__).resolve().parent.parent
HANDS = Path(__file__).parent / "fixtures" / "hands"


def create(client: FlaskClient, body: Any, content_type: str = "application/json") -> Any:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/api/matches", data=data, content_type=content_type)


def token_of(url: str) -> str:
    return url.rstrip("/").split("/m/")[1]


def test_create_a_match(client: FlaskClient) -> None:
    response = create(client, match_file(5))
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) == {"edit_url", "view_url"}
    assert body["edit_url"].startswith("http://scarto.test/m/") and response.headers["Location"] == body["edit_url"]
    page = client.get(body["view_url"]).get_data(as_text=True)
    assert "Thursday at the circolo" in page and "view only" in page
    assert client.get(body["edit_url"]).status_code == 200


def test_export_import_export_is_byte_for_byte(app: Flask, client: FlaskClient) -> None:
    edit, _view = seed_match(app, 20)
    exported = client.get(f"/m/{edit}/export.json").data
    created = client.post("/api/matches", data=exported, content_type="application/json")
    assert created.status_code == 201, created.get_json()
    again = client.get(f"/m/{token_of(created.get_json()['edit_url'])}/export.json").data
    assert again == exported
    assert token_of(created.get_json()["edit_url"]).encode() not in again and edit.encode() not in exported


def test_standings_json_is_what_the_command_prints(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    edit, _view = seed_match(app, 20)
    path = tmp_path / "match.json"
    path.write_bytes(client.get(f"/m/{edit}/export.json").data)
    command = subprocess.run([sys.executable, "-m", "scorer", "match", "--json", str(path)],
                             capture_output=True, text=True, cwd=ROOT, check=False)
    assert command.returncode == 1, command.stderr  # the match holds rule breaches (violations)
    web = client.get(f"/m/{edit}/standings.json")
    assert web.mimetype == "application/json"
    assert web.get_json() == json.loads(command.stdout)
    assert web.get_data(as_text=True) == command.stdout


def test_standings_json_from_the_stored_results_after_edits_deletes_and_the_end(app: Flask, client: FlaskClient,
                                                                                 tmp_path: Path) -> None:
    """standings.json reads the results stored with each hand; it must say what judging the file says."""
    from scorer.storage import store
    from scorer.web import get_db

    data = match_file(12)
    data["end"] = {"hands": 9}  # the last three are after the end: listed, not counted
    with app.app_context():
        row = store.create_match(get_db(), parse_match(data))
        hands = store.list_hands(get_db(), row.id)
        store.delete_hand(get_db(), row.id, hands[2].key)
        store.update_hand(get_db(), row.id, hands[5].key, {**hands[5].record, "dealer": hands[4].record["dealer"]})
    path = tmp_path / "match.json"
    path.write_bytes(client.get(f"/m/{row.edit_token}/export.json").data)
    command = subprocess.run([sys.executable, "-m", "scorer", "match", "--json", str(path)],
                             capture_output=True, text=True, cwd=ROOT, check=False)
    web = client.get(f"/m/{row.view_token}/standings.json")
    assert json.loads(command.stdout)["hands"][-1].get("counted") is False
    assert web.get_data(as_text=True) == command.stdout


def test_a_hand_with_errors_is_refused_with_its_number(client: FlaskClient) -> None:
    data = match_file(3)
    bad = json.loads((HANDS / "classic-points-bad-total.json").read_text())
    data["hands"].insert(1, {"dealer": "Bruno", "points": bad["points"]})
    response = create(client, data)
    assert response.status_code == 400
    body = response.get_json()
    assert body["error"] == "bad_request"
    assert "see hand 2" in body["message"]
    assert [(p["hand"], p["code"], p["severity"]) for p in body["problems"]] == [(2, "points_total", "error")]


def test_every_hand_with_errors_is_listed(client: FlaskClient) -> None:
    data = match_file(2)
    for name in ("classic-duplicate-card", "classic-missing-trick"):
        data["hands"].append(dealt_by(name, "Anna"))
    response = create(client, data)
    assert response.status_code == 400
    problems = response.get_json()["problems"]
    assert {(p["hand"], p["code"]) for p in problems} >= {(3, "duplicate_card"), (4, "trick_count")}
    assert all(p["message"] for p in problems)


def test_rule_breaches_are_not_errors(client: FlaskClient) -> None:
    data = match_file(0)
    data["hands"] = [dealt_by("classic-breach", "Anna")]
    assert create(client, data).status_code == 201


def test_a_body_with_a_bom_is_read(client: FlaskClient) -> None:
    assert create(client, b"\xef\xbb\xbf" + json.dumps(match_file(1)).encode()).status_code == 201


@pytest.mark.parametrize("content_type", [
    "application/json; charset=utf-8", "application/json;charset=UTF-8", "application/scarto+json",
])
def test_json_content_types_are_accepted(client: FlaskClient, content_type: str) -> None:
    assert create(client, match_file(1), content_type).status_code == 201


DEEP = b"[" * 100_000 + b"]" * 100_000


def _nested(depth: int) -> Any:
    value: Any = 31
    for _ in range(depth):
        value = [value]
    return value


def _deep_points() -> bytes:
    data = match_file(0)
    data["hands"] = [{"dealer": "Anna", "points": {"Anna": _nested(900), "Bruno": 22, "Carla": 25}}]
    return json.dumps(data).encode()


def _deep_key(key: str, depth: int) -> bytes:
    data = match_file(0)
    data[key] = _nested(depth)
    return json.dumps(data).encode()


@pytest.mark.parametrize(("body", "content_type", "status", "message"), [
    (json.dumps(match_file(1)).encode(), "text/plain", 415, "Content-Type: application/json"),
    (b"format=scarto-match/1", "application/x-www-form-urlencoded", 415, "Content-Type: application/json"),
    (json.dumps(match_file(1)).encode(), "", 415, "Content-Type: application/json"),
    (json.dumps(match_file(1)).encode(), "multipart/form-data; boundary=x", 415, "Content-Type: application/json"),
    (json.dumps(match_file(1)).encode(), "application/json; charset=latin-1", 415,
     "The body must be UTF-8, not latin-1."),
    (b"", "application/json", 400, "body: empty; send the match file as the body"),
    (b" ", "application/json", 400, "body: not JSON (a value expected at line 1, column 2)"),
    (b"{\"players\": ", "application/json", 400, "body: not JSON"),
    (b"\xff\xfe{\x00}\x00", "application/json", 400, "body: not UTF-8 text"),
    (json.dumps(match_file(1)).encode("utf-16"), "application/json", 400, "body: not UTF-8 text"),
    (b"{\"title\": \"caf\xe9\"}", "application/json", 400, "body: not UTF-8 text"),
    (b"[]", "application/json", 400, "record: must be a JSON object, not a list"),
    (b"\"scarto\"", "application/json", 400, "record: must be a JSON object, not text"),
    (b"42", "application/json", 400, "record: must be a JSON object, not a number"),
    (b"null", "application/json", 400, "record: must be a JSON object, not null"),
    (b"{}", "application/json", 400, "players: must be a list of player names in seating order"),
    (b"{\"format\": \"scarto-hand/1\"}", "application/json", 400, "is not a format this reads"),
    (DEEP, "application/json", 400, "body: not JSON (nested too deeply)"),
    (_deep_points(), "application/json", 400, "body: nested more than 32 levels deep"),
    (_deep_key("title", 33), "application/json", 400, "body: nested more than 32 levels deep"),
    (_deep_key("title", 20), "application/json", 400, "title: must be text, not a list"),
    (b"{\"players\": [" + b"1" * 5000 + b"]}", "application/json", 400, "a number with too many digits"),
    (b"{\"players\": NaN}", "application/json", 400, "body: not JSON (NaN is not a JSON number)"),
    (b'{"title": "\\ud800", "players": []}', "application/json", 400,
     "body: not text: holds an escaped lone surrogate"),
    (b'{"players": ["\\udc00x", "B", "C"]}', "application/json", 400, "holds an escaped lone surrogate"),
    (b'{"\\ud83d": 1}', "application/json", 400, "holds an escaped lone surrogate"),
    (b'{"title": "\\ud83c\\udccf", "players": []}', "application/json", 400, "0 players given"),
], ids=["text-plain", "form", "no-type", "multipart", "latin-1", "empty", "blank", "truncated", "utf-16-bytes",
        "utf-16",
        "latin-1-bytes", "list", "string", "number", "null", "empty-object", "hand-format", "deep-100000",
        "deep-900-in-points", "deep-33", "deep-20", "huge-integer", "nan", "surrogate", "surrogate-name",
        "surrogate-key", "surrogate-pair-is-fine"])
def test_bad_bodies_are_refused_with_a_message(client: FlaskClient, body: bytes, content_type: str, status: int,
                                               message: str) -> None:
    response = client.post("/api/matches", data=body, content_type=content_type or None)
    assert response.status_code == status
    assert response.mimetype == "application/json"
    payload = response.get_json()
    assert message in payload["message"]
    assert payload["error"]


@pytest.mark.parametrize(("change", "where", "message"), [
    ({"players": ["Anna", "Anna", "Carla"]}, "players", "'Anna' is named twice"),
    ({"first_dealer": "Zoe"}, "first_dealer", "'Zoe' is not one of the players"),
    ({"ruleset": "tarocchino"}, "ruleset", "tarocchino"),
    ({"hands": {"dealer": "Anna"}}, "hands", "must be a list of hand records"),
    ({"hands": [{"dealer": "Anna", "points": {"Anna": -1, "Bruno": 54, "Carla": 25}}]}, "hands[0].points.Anna",
     "negative"),
    ({"hands": [{"dealer": "Anna", "tricks": [["KX"]]}]}, "hands[0].tricks[0][0]", "'KX' is not a card"),
    ({"stake": {"per_point": "1e999999999"}}, "stake.per_point", "is not an amount of money"),
], ids=["twice", "dealer", "preset", "hands", "negative", "card", "stake"])
def test_read_errors_say_where(client: FlaskClient, change: dict[str, Any], where: str, message: str) -> None:
    data = {**match_file(1), **change}
    response = create(client, data)
    assert response.status_code == 400
    (problem,) = response.get_json()["problems"]
    assert problem["where"].startswith(where.split(".")[0]) and message in problem["message"]
    assert problem["code"] in ("read_error", "unknown_ruleset")


def test_a_huge_body_is_413_as_json(client: FlaskClient) -> None:
    data = match_file(1)
    data["notes"] = "x" * (MAX_UPLOAD_BYTES + 10)
    response = create(client, data)
    assert response.status_code == 413
    assert response.get_json() == {"error": "too_large",
                                   "message": f"The body is larger than {MAX_UPLOAD_BYTES // 1024} KB; "
                                              "a match file is much smaller."}


def test_a_huge_streamed_body_is_413_too(client: FlaskClient) -> None:
    """A chunked body (no Content-Length) from a server that ends the stream, as waitress does."""
    stream = io.BytesIO(b"[" + b"0," * MAX_UPLOAD_BYTES + b"0]")
    response = client.post("/api/matches", input_stream=stream, content_type="application/json",
                           headers={"Transfer-Encoding": "chunked"},
                           environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == 413
    assert response.get_json()["error"] == "too_large"


def test_a_streamed_body_under_the_limit_is_read(client: FlaskClient) -> None:
    stream = io.BytesIO(json.dumps(match_file(3)).encode())
    response = client.post("/api/matches", input_stream=stream, content_type="application/json",
                           headers={"Transfer-Encoding": "chunked"},
                           environ_overrides={"wsgi.input_terminated": True})
    assert response.status_code == 201


@pytest.mark.parametrize(("method", "url", "status"), [
    ("GET", "/api/matches", 405),
    ("PUT", "/api/matches", 405),
    ("GET", "/api/nothing", 404),
    ("POST", "/api/matches/1", 404),
])
def test_other_api_addresses_answer_json(client: FlaskClient, method: str, url: str, status: int) -> None:
    response = client.open(url, method=method, data=b"{}", content_type="application/json")
    assert response.status_code == status
    assert response.mimetype == "application/json" and response.get_json()["message"]


def test_the_api_needs_no_csrf_token_but_only_takes_json(app: Flask, client: FlaskClient) -> None:
    """A page on another site can send a form or text/plain without asking; neither is accepted."""
    body = json.dumps(match_file(1))
    assert client.post("/api/matches", data={"json": body}).status_code == 415
    assert client.post("/api/matches", data=body, content_type="text/plain").status_code == 415
    assert client.post("/api/matches", data=body, content_type="application/json").status_code == 201


TEXT = st.characters(categories=["L", "N", "P", "Zs", "Cc", "Cs"])
"""Letters, digits, punctuation, spaces, control characters and lone surrogates (JSON escapes them)."""
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(TEXT, max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(TEXT, max_size=8), inner, max_size=4),
    max_leaves=12,
)



@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_to_a_match_file_is_201_or_400_never_500(client: FlaskClient, data: st.DataObject) -> None:
    """One value anywhere in a good match file replaced by any JSON value."""
    match = match_file(3)
    path = data.draw(st.sampled_from(json_paths(match)[1:]))
    replacement = data.draw(JSON_VALUES)
    target = match
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = replacement
    response = create(client, match)
    assert response.status_code in (201, 400), (path, replacement, response.get_data(as_text=True)[:500])
    assert response.mimetype == "application/json"
    if response.status_code == 400:
        assert response.get_json()["message"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=JSON_VALUES)
def test_any_json_body_is_answered_with_json(client: FlaskClient, body: Any) -> None:
    response = create(client, body)
    assert response.status_code == 400 and response.get_json()["message"]
