"""Security of the whole app, route by route from ``app.url_map``.

New routes are covered as they are added: every POST needs its CSRF token (the
JSON API takes only JSON instead), every match address answers 404 to a wrong
token, the view link changes nothing, every answer carries the security
headers, and bad input is a 4xx with a message, never a 500.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import Headers
from werkzeug.routing import Rule

from scorer import create_app
from scorer.engine import night_files
from scorer.engine.limits import MAX_UPLOAD_BYTES
from scorer.engine.records import parse_hand
from scorer.storage import clubs, nights, store
from scorer.web import get_db
from scorer.web.audit_links import encode_record
from scorer.web.safety import OPEN_FILES
from tests.seed import dealt_by, hand_keys, seed_match
from tests.webutil import csrf_token


def _rules() -> list[Rule]:
    """The app's routes, read once from an app on a throwaway folder."""
    folder = tempfile.mkdtemp()
    app = create_app({"TESTING": True, "DATABASE": f"{folder}/rules.sqlite", "SECRET_KEY": "x",
                      "SKIP_MIGRATIONS": True})
    return sorted(app.url_map.iter_rules(), key=lambda r: r.rule)


RULES = _rules()
ARGUMENT = re.compile(r"<(?:[^:>]+:)?(\w+)>")


def methods(rule: Rule) -> set[str]:
    return set(rule.methods or ()) - {"HEAD", "OPTIONS"}


def rule_id(rule: Rule) -> str:
    return f"{'+'.join(sorted(methods(rule)))} {rule.rule}"


POST_RULES = [r for r in RULES if "POST" in methods(r)]


def json_only(rule: Rule) -> bool:
    """The JSON interface: under /api/, and the club API's addresses under a club's or a match's link."""
    return rule.rule.startswith("/api/") or rule.endpoint.startswith(("clubs_api.", "nights_api."))


FORM_POSTS = [r for r in POST_RULES if not json_only(r)]
API_POSTS = [r for r in POST_RULES if json_only(r)]
MATCH_RULES = [r for r in RULES if "token" in r.arguments]
HAND_RULES = [r for r in MATCH_RULES if "key" in r.arguments]
CHANGING_MATCH_RULES = [r for r in MATCH_RULES if "POST" in methods(r)]
GET_RULES = [r for r in RULES if "GET" in methods(r)]


@dataclass(frozen=True)
class World:
    """A stored match of four hands and everything needed to fill in any route."""

    edit: str
    view: str
    keys: list[str]
    blob: str
    club_edit: str = ""
    club_view: str = ""
    player_id: str = "1"
    season_id: str = "1"
    night_edit: str = ""
    night_view: str = ""

    def values(self, token: str | None = None, **override: str) -> dict[str, str]:
        return {"token": self.edit if token is None else token, "key": self.keys[1], "version": "1",
                "form": "points", "blob": self.blob, "filename": "app.css", "kind": "any", "size": "192",
                "player_id": self.player_id, "season_id": self.season_id,
                "deal": "three", "boards": "4", "board": "2", "seed": "club", **override}

    def url(self, rule: Rule, token: str | None = None, **override: str) -> str:
        if rule.rule.startswith("/c/"):  # a club's address: the club's own links stand for the match's
            token = {None: self.club_edit, self.edit: self.club_edit, self.view: self.club_view}.get(token, token)
        if rule.rule.startswith("/n/"):  # a club night's address: the night's own links
            token = {None: self.night_edit, self.edit: self.night_edit, self.view: self.night_view}.get(token, token)
        values = self.values(token, **override)
        return ARGUMENT.sub(lambda m: values[m.group(1)], rule.rule)


def build_world(app: Flask) -> World:
    edit, view = seed_match(app, 4)
    record = parse_hand({"format": "scarto-hand/1", "ruleset": "classic", "players": ["Anna", "Bruno", "Carla"],
                         **dealt_by("classic-breach", "Anna")})
    with app.app_context():  # a club holding the match, with a player and a season, for the club's addresses
        db = get_db()
        club = clubs.create_club(db, "Circolo", [("Anna", None), ("Bruno", None), ("Carla", None), ("Dora", None)])
        row, _ = store.find_match(db, edit)
        roster = clubs.roster(db, club.id)
        clubs.attach_match(db, club.id, row.id, [p.id for p in roster[:3]])
        season = clubs.add_season(db, club.id, "Autunno", "2026-09-01", "2026-12-31")
        spec = night_files.parse_night({"players": ["Anna", "Bruno", "Carla"], "seed": 1})
        night = nights.create_night(db, club, spec)
    return World(edit, view, hand_keys(app, edit), encode_record(record), club.edit_token, club.view_token,
                 str(roster[3].id), str(season.id), night.edit_token, night.view_token)


@pytest.fixture()
def world(app: Flask) -> World:
    return build_world(app)


@pytest.fixture(scope="module")
def read_world(_made_app: tuple[Flask, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One world for the tests that only read it (pages, and requests refused for a wrong token),
    made once per module: building it for each of their 330 cases took more than the requests."""
    app, template = _made_app
    database = tmp_path_factory.mktemp("read-world") / "test.sqlite"
    shutil.copyfile(template, database)
    config = dict(app.config)
    app.config["DATABASE"] = str(database)
    try:
        yield build_world(app)
    finally:
        app.config.clear()
        app.config.update(config)


@pytest.fixture()
def read_client(_made_app: tuple[Flask, Path], read_world: World) -> FlaskClient:
    """A fresh client (no cookies) of the app holding ``read_world``."""
    return _made_app[0].test_client()


@dataclass(frozen=True)
class Answer:
    """A GET answer as the checks read it."""

    status_code: int
    headers: Headers
    mimetype: str
    data: bytes


@pytest.fixture(scope="module")
def read_page(_made_app: tuple[Flask, Path], read_world: World) -> Callable[[str], Answer]:
    """The answer to a GET of an address of ``read_world``, fetched once (by a client of its own, no
    cookies) for every check that reads it: the headers, the inline code and the caching are checked
    on the same answers, and the sheets' PDFs cost more than all the checks."""
    app, fetched = _made_app[0], {}

    def get(url: str) -> Answer:
        if url not in fetched:
            with app.test_client().get(url) as response:
                fetched[url] = Answer(response.status_code, response.headers, response.mimetype, response.data)
        return fetched[url]

    return get


def form_token(client: FlaskClient) -> str:
    return csrf_token(client.get("/new").get_data(as_text=True))


def snapshot(app: Flask, client: FlaskClient, world: World) -> tuple[Any, ...]:
    """Everything stored: the match file, and the number of rows of every table."""
    with app.app_context():
        db = get_db()
        counts = tuple(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                       for t in ("matches", "hands", "revisions", "clubs", "club_players", "club_seats",
                                 "club_seasons", "club_events", "nights", "night_tables"))
        counts += tuple(db.execute("SELECT club_players.name, short, merged_into, clubs.name, settings "
                                   "FROM club_players JOIN clubs ON clubs.id = club_id "
                                   "ORDER BY club_players.id").fetchall())
        counts += tuple(db.execute("SELECT settings, updated_at FROM nights ORDER BY id").fetchall())
        versions = tuple(r[0] for r in db.execute("SELECT version FROM hands ORDER BY id").fetchall())
    return client.get(f"/m/{world.edit}/export.json").data, counts, versions


FORM_DATA = {"version": "1", "expected_count": "4", "dealer": "Anna", "points_Anna": "31", "points_Bruno": "22",
             "points_Carla": "25", "text": "{}", "confirm": "1"}
"""Plausible fields for any form of the app: a refusal must not depend on their absence."""


def test_the_walk_sees_the_routes_it_must() -> None:
    endpoints = {r.endpoint for r in RULES}
    assert {"history.restore", "history.delete_hand", "history.undelete", "history.hand_history",
            "history.deleted_hands", "api.create_match", "matches.match_page", "nights.night_page",
            "nights.next_round", "nights_api.create_night", "nights_api.start_round"} <= endpoints
    assert len(FORM_POSTS) >= 5 and API_POSTS and CHANGING_MATCH_RULES


# --- CSRF ---------------------------------------------------------------------------


@pytest.mark.parametrize("rule", FORM_POSTS, ids=rule_id)
def test_a_post_without_the_csrf_token_is_refused(app: Flask, client: FlaskClient, world: World,
                                                  rule: Rule) -> None:
    before = snapshot(app, client, world)
    response = client.post(world.url(rule), data=FORM_DATA)
    assert response.status_code == 400
    if rule.rule.endswith("/live/check"):  # a JSON route: the refusal in JSON, for live.js to show
        assert "The page expired" in response.get_json()["message"]
    else:
        assert "The form expired or was sent from elsewhere." in response.get_data(as_text=True)
    json_post = client.post(world.url(rule), json={"dealer": "Anna", "tricks": []})
    assert json_post.status_code == 400
    assert json_post.mimetype == "application/json" and json_post.get_json()["message"]
    assert snapshot(app, client, world) == before


@pytest.mark.parametrize("rule", FORM_POSTS, ids=rule_id)
def test_a_post_with_a_forged_csrf_token_is_refused(app: Flask, client: FlaskClient, world: World,
                                                    rule: Rule) -> None:
    other = app.test_client()  # another browser's token is no good here
    before = snapshot(app, client, world)
    form_token(client)
    response = client.post(world.url(rule), data={"csrf_token": form_token(other), **FORM_DATA})
    assert response.status_code == 400
    assert snapshot(app, client, world) == before


@pytest.mark.parametrize("rule", API_POSTS, ids=rule_id)
@pytest.mark.parametrize(("content_type", "body"), [
    ("application/x-www-form-urlencoded", b"format=scarto-match%2F1"),
    ("multipart/form-data; boundary=x", b"--x--\r\n"),
    ("text/plain", b'{"format": "scarto-match/1"}'),
    (None, b'{"format": "scarto-match/1"}'),
], ids=["form", "multipart", "text-plain", "no-type"])
def test_the_api_is_csrf_exempt_but_refuses_what_a_form_can_send(app: Flask, client: FlaskClient, world: World,
                                                                 rule: Rule, content_type: str | None,
                                                                 body: bytes) -> None:
    before = snapshot(app, client, world)
    response = client.post(world.url(rule), data=body, content_type=content_type)
    assert response.status_code in (400, 415)
    assert response.mimetype == "application/json" and response.get_json()["message"]
    assert snapshot(app, client, world) == before


# --- tokens -------------------------------------------------------------------------


WRONG_TOKENS = ["A" * 24, "x", "y" * 100, "%C3%A9" * 10]


@pytest.mark.parametrize("wrong", WRONG_TOKENS, ids=["random-24", "short", "long", "non-ascii"])
@pytest.mark.parametrize("rule", MATCH_RULES, ids=rule_id)
def test_a_wrong_token_is_404(read_client: FlaskClient, read_world: World, rule: Rule, wrong: str) -> None:
    client, url = read_client, read_world.url(rule, token=wrong)
    if "GET" in methods(rule):
        assert client.get(url).status_code == 404
    if "POST" in methods(rule):
        assert client.post(url, data={"csrf_token": form_token(client), **FORM_DATA}).status_code == 404


@pytest.mark.parametrize("rule", HAND_RULES, ids=rule_id)
def test_the_other_matchs_token_does_not_open_this_matchs_hands(app: Flask, client: FlaskClient, world: World,
                                                                rule: Rule) -> None:
    other, _view = seed_match(app, 1)
    url = world.url(rule, token=other)
    if "GET" in methods(rule):
        assert client.get(url).status_code == 404
    if "POST" in methods(rule):
        assert client.post(url, data={"csrf_token": form_token(client), **FORM_DATA}).status_code == 404


def test_the_edit_token_never_reaches_a_view_link_page(client: FlaskClient, world: World) -> None:
    for rule in MATCH_RULES:
        if "GET" in methods(rule) and "POST" not in methods(rule):
            response = client.get(world.url(rule, token=world.view))
            assert world.edit.encode() not in response.data, rule.rule


@pytest.mark.parametrize("rule", CHANGING_MATCH_RULES, ids=rule_id)
def test_the_view_token_changes_nothing(app: Flask, client: FlaskClient, world: World, rule: Rule) -> None:
    before = snapshot(app, client, world)
    url = world.url(rule, token=world.view)
    response = client.post(url, data={"csrf_token": form_token(client), **FORM_DATA})
    assert response.status_code == 403
    assert re.search(r"This is the view-only link of the (match|club|night): it cannot change anything\.",
                     response.get_data(as_text=True))
    if "GET" in methods(rule):  # the entry form itself is not offered to the view link
        assert client.get(url).status_code == 403
    assert snapshot(app, client, world) == before


# --- headers ------------------------------------------------------------------------


def check_headers(response: Any, where: str) -> None:
    headers = response.headers
    policy = headers.get("Content-Security-Policy", "")
    assert policy, where
    directives = dict((part.strip().split(" ", 1) + [""])[:2] for part in policy.split(";") if part.strip())
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy, where
    assert directives.get("frame-ancestors") == "'none'", where
    assert directives.get("default-src") == "'self'", where
    assert directives.get("script-src", "'self'") == "'self'" and directives.get("style-src", "'self'") == "'self'"
    assert directives.get("object-src") == "'none'", where
    assert headers.get("Referrer-Policy") == "no-referrer", where
    assert headers.get("X-Content-Type-Options") == "nosniff", where
    assert headers.get("X-Frame-Options") == "DENY", where


@pytest.mark.parametrize("rule", GET_RULES, ids=rule_id)
def test_every_page_carries_the_security_headers(read_page: Callable[[str], Answer], read_world: World,
                                                 rule: Rule) -> None:
    for token in (read_world.edit, read_world.view):
        response = read_page(read_world.url(rule, token=token))
        assert response.status_code < 500, rule.rule
        check_headers(response, f"{rule.rule} ({response.status_code})")
        if "token" not in rule.arguments:
            break


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/nowhere"), ("GET", "/m/wrong/"), ("POST", "/new"), ("DELETE", "/new"), ("GET", "/api/matches"),
    ("POST", "/api/matches"),
])
def test_error_answers_carry_the_security_headers_too(client: FlaskClient, method: str, path: str) -> None:
    response = client.open(path, method=method)
    assert 400 <= response.status_code < 500
    check_headers(response, f"{method} {path}")


def test_cookies_are_not_for_scripts_or_other_sites(client: FlaskClient, world: World) -> None:
    client.get("/new")
    session = client.get_cookie("session", domain="scarto.test")
    assert session is not None and session.http_only and session.same_site == "Lax"
    client.get(f"/m/{world.edit}/")
    recent = client.get_cookie("recent", domain="scarto.test")
    assert recent is not None and recent.http_only and recent.same_site == "Lax"


@pytest.mark.parametrize("rule", GET_RULES, ids=rule_id)
def test_pages_hold_nothing_inline(read_page: Callable[[str], Answer], read_world: World, rule: Rule) -> None:
    """What the policy would block anyway: inline scripts, styles, handlers, javascript: links."""
    response = read_page(read_world.url(rule))
    if response.mimetype != "text/html":  # a file: the browser must not sniff it into a page
        assert response.headers["X-Content-Type-Options"] == "nosniff", rule.rule
        assert response.mimetype in ("application/json", "application/pdf", "text/csv", "text/css",
                                     "text/javascript", "image/svg+xml", "image/png",
                                     "application/manifest+json"), rule.rule
        return
    page = response.data.decode()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page), rule.rule
    assert not re.search(r"<style\b", page), rule.rule
    assert not re.search(r"\sstyle=", page), rule.rule
    assert not re.search(r"\son[a-z]+=", page), rule.rule
    assert "javascript:" not in page.lower(), rule.rule


# --- bad input ----------------------------------------------------------------------


BAD_INPUTS = [
    # (method, address with {edit} {view} {key}, form fields, status, message)
    ("GET", "/m/{edit}/hands/no-such-hand/history", None, 404, "There is nothing at this address."),
    ("GET", "/m/{edit}/hands/{key}/history/extra", None, 404, "There is nothing at this address."),
    ("GET", "/m/{edit}", None, 308, ""),
    ("GET", "/m/" + "A" * 5000 + "/", None, 404, "There is nothing at this address."),
    ("GET", "/m/%00/deleted", None, 404, "There is nothing at this address."),
    ("POST", "/m/{edit}/hands/{key}/restore/99999999999999999999", {"version": "1"}, 404,
     "There is nothing at this address."),
    ("POST", "/m/{edit}/hands/{key}/restore/0", {"version": "1"}, 404, "There is nothing at this address."),
    ("POST", "/m/{edit}/hands/{key}/restore/-1", {"version": "1"}, 404, "There is nothing at this address."),
    ("POST", "/m/{edit}/hands/{key}/restore/1", {"version": "99999999999999999999"}, 400,
     "The page did not say which version of the hand it showed."),
    ("POST", "/m/{edit}/hands/{key}/delete", {"version": "1e3"}, 400, "Not a valid integer value."),
    ("POST", "/m/{edit}/hands/{key}/delete", {}, 400, "The page did not say which version of the hand it showed."),
    ("POST", "/m/{edit}/hands/{key}/undelete", {"version": "-5"}, 400,
     "The page did not say which version of the hand it showed."),
    ("POST", "/m/{edit}/hands/{key}/delete", {"version": "7"}, 409,
     "This hand was changed from another phone while you were editing it."),
    ("GET", "/m/{edit}/hands/{key}/delete", None, 405, "This address cannot be used that way."),
    ("PUT", "/m/{edit}/hands/{key}/history", None, 405, "This address cannot be used that way."),
    ("POST", "/m/{view}/hands/{key}/delete", {"version": "1"}, 403, "it cannot change anything."),
    ("POST", "/new", {"preset": "nonsense", "player_1": "A"}, 400, "Not a valid choice."),
    ("POST", "/new", {"player_1": "x" * (MAX_UPLOAD_BYTES + 1)}, 413, "larger than the app accepts"),
    ("GET", "/m/{edit}/hands/new/nonsense", None, 404, "There is nothing at this address."),
    ("GET", "/audit/not-a-record", None, 400, "the audit link is damaged"),
    ("POST", "/api/matches", b"[1, 2", 400, "body: not JSON"),
    ("POST", "/api/matches", b"\x80\x81", 400, "body: not UTF-8 text"),
]


@pytest.mark.parametrize(("method", "address", "data", "status", "message"), BAD_INPUTS,
                         ids=[f"{m} {a[:60]} {status}" for m, a, _d, status, _msg in BAD_INPUTS])
def test_bad_input_is_a_4xx_with_a_message(app: Flask, client: FlaskClient, world: World, method: str,
                                           address: str, data: dict[str, str] | bytes | None, status: int,
                                           message: str) -> None:
    before = snapshot(app, client, world)
    url = address.format(edit=world.edit, view=world.view, key=world.keys[1])
    if isinstance(data, bytes):
        response = client.open(url, method=method, data=data, content_type="application/json")
    elif data is not None:
        response = client.open(url, method=method, data={"csrf_token": form_token(client), **data})
    else:
        response = client.open(url, method=method)
    assert response.status_code == status
    assert message in response.get_data(as_text=True)
    assert snapshot(app, client, world) == before


ODD_VALUES = ["%00", "..%2F..%2Fetc", "%C3%A9t%C3%A9", "A" * 3000, "%F0%9F%83%8F", "'%20OR%201=1--", "%FF"]


@pytest.mark.parametrize("odd", ODD_VALUES, ids=["nul", "dots", "accents", "long", "emoji", "sql", "bad-utf8"])
def test_odd_values_in_every_address_are_never_a_500(client: FlaskClient, world: World, odd: str) -> None:
    for rule in RULES:
        for argument in rule.arguments:
            url = world.url(rule, **{argument: odd})
            for method in sorted(methods(rule)):
                data = {"csrf_token": form_token(client), **FORM_DATA} if method == "POST" else None
                with client.open(url, method=method, data=data) as response:
                    assert response.status_code < 500, f"{method} {url[:120]}: {response.status_code}"


@pytest.mark.parametrize(("address", "mimetype", "message"), [
    ("/m/{edit}/", "text/html", "Sorry: the app failed on our side."),
    ("/m/{edit}/export.json", "application/json", "Sorry: the app failed on our side."),
    ("/m/{edit}/standings.json", "application/json", "Sorry: the app failed on our side."),
])
def test_a_failure_is_an_apology_without_a_traceback(client: FlaskClient, world: World,
                                                     monkeypatch: pytest.MonkeyPatch, address: str, mimetype: str,
                                                     message: str) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("secret detail of the server")

    monkeypatch.setattr(store, "match_record", broken)  # the files
    monkeypatch.setattr(store, "standings_window", broken)  # the match page
    response = client.get(address.format(edit=world.edit))
    assert response.status_code == 500
    assert response.mimetype == mimetype
    body = response.get_data(as_text=True)
    assert message in body
    assert "secret detail" not in body and "Traceback" not in body
    check_headers(response, address)


SURROGATE_MATCH = '{"format": "scarto-match/1", "title": "\\ud800", "players": ["Anna", "Bruno", "Carla"], ' \
                  '"first_dealer": "Anna", "hands": []}'
SURROGATE_HAND = '{"format": "scarto-hand/1", "players": ["Anna", "Bruno", "Carla"], "dealer": "Anna", ' \
                 '"notes": "\\ud800", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}}'


@pytest.mark.parametrize(("address", "text"), [
    ("/api/matches", SURROGATE_MATCH),
    ("/import", SURROGATE_MATCH),
    ("/audit", SURROGATE_HAND),
])
def test_a_lone_surrogate_escape_is_refused(client: FlaskClient, address: str, text: str) -> None:
    """JSON can escape half a surrogate pair; such a string cannot be stored or shown as UTF-8."""
    if address.startswith("/api/"):
        response = client.post(address, data=text, content_type="application/json")
    else:
        response = client.post(address, data={"csrf_token": form_token(client), "text": text})
    assert 400 <= response.status_code < 500


# --- caches, the proxy, the log --------------------------------------------------------------------


@pytest.mark.parametrize("rule", [r for r in GET_RULES if r.endpoint not in OPEN_FILES], ids=rule_id)
def test_no_token_answer_may_be_kept_by_a_cache(read_page: Callable[[str], Answer], read_world: World,
                                                rule: Rule) -> None:
    """HTML, JSON, CSV, PDF: nothing a token (or a hand in an audit link) opens may be stored by a browser or proxy."""
    for token in (read_world.edit, read_world.view):
        response = read_page(read_world.url(rule, token=token))
        assert response.headers.get("Cache-Control") == "no-store", f"{rule.rule} ({response.status_code})"
        if "token" not in rule.arguments:
            break


def test_only_the_apps_own_files_keep_their_caching() -> None:
    """The service worker, the manifest and the icons are the same for everyone and take no token."""
    assert OPEN_FILES == {"static", "offline.service_worker", "offline.manifest", "offline.icon"}
    assert all("token" not in r.arguments for r in GET_RULES if r.endpoint in OPEN_FILES)


def test_the_api_answer_with_the_edit_link_and_error_answers_are_not_cached(client: FlaskClient) -> None:
    created = client.post("/api/matches", json={"format": "scarto-match/1", "players": ["A", "B", "C"],
                                                "first_dealer": "A", "hands": []})
    assert created.status_code == 201 and created.headers["Cache-Control"] == "no-store"
    for path in ("/nowhere", "/m/wrong/", "/audit/not-a-record"):
        assert client.get(path).headers["Cache-Control"] == "no-store", path
    assert client.post(f"/m/{created.get_json()['edit_url'].split('/m/')[1].strip('/')}/links/renew").headers[
        "Cache-Control"] == "no-store"


PROXY_HEADERS = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "scarto.example.org", "X-Forwarded-For": "10.0.0.7"}


def _proxied_app(tmp_path: Any, trust: bool) -> Flask:
    config: dict[str, Any] = {"TESTING": True, "DATABASE": str(tmp_path / "proxy.sqlite"), "SECRET_KEY": "p" * 40}
    if trust:
        config["TRUST_PROXY"] = 1
    return create_app(config)


@pytest.mark.parametrize("trust", [True, False], ids=["proxy-trusted", "no-setting"])
def test_behind_the_proxy_links_say_https_and_cookies_are_secure_only_with_the_setting(tmp_path: Any,
                                                                                       trust: bool) -> None:
    app = _proxied_app(tmp_path, trust)
    client = app.test_client()
    page = client.get("/new?lang=it", headers=PROXY_HEADERS)
    created = client.post("/api/matches", headers=PROXY_HEADERS, json={
        "format": "scarto-match/1", "players": ["A", "B", "C"], "first_dealer": "A", "hands": []})
    edit = created.get_json()["edit_url"]
    path = urlsplit(edit).path
    share = client.get(path + "share", headers=PROXY_HEADERS).get_data(as_text=True)
    match_page = client.get(path, headers=PROXY_HEADERS)
    cookies = page.headers.getlist("Set-Cookie") + match_page.headers.getlist("Set-Cookie")
    assert {c.split("=", 1)[0] for c in cookies} >= {"session", "lang", "recent"}
    if trust:
        assert edit.startswith("https://scarto.example.org/m/")
        assert 'value="https://scarto.example.org/m/' in share
        assert all("; Secure" in c for c in cookies), cookies
    else:
        assert edit.startswith("http://localhost/m/")  # the Host the request came with; X-Forwarded-* ignored
        assert "https://" not in share
        assert not any("Secure" in c for c in cookies), cookies


def test_no_token_in_the_access_log(world: World, app: Flask, caplog: pytest.LogCaptureFixture) -> None:
    from werkzeug.test import Client as WsgiClient

    from scorer.serve import AccessLog

    logged = WsgiClient(AccessLog(app))
    caplog.set_level("INFO", logger="scorer.access")
    paths = [f"/m/{world.edit}/", f"/m/{world.view}/share", f"/m/{world.edit}/export.json?lang=it",
             f"/audit/{world.blob}", f"/m/{world.edit}/hands/{world.keys[0]}/audit"]
    for path in paths:
        response = logged.get(path, headers={"Host": "scarto.test"})
        assert response.status_code == 200, path
        response.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "scorer.access"]
    assert len(lines) == len(paths) and lines[0] == lines[0].replace(world.edit, "")
    for secret in (world.edit, world.view, world.blob[:40]):
        assert not any(secret in line for line in lines), lines
    assert lines[0].startswith("GET /m/…/ 200")


def test_a_long_accept_language_is_read_but_not_kept(client: FlaskClient) -> None:
    """The browser's header is kept parsed, for the phones that send the same one again; a long one
    (a hostile client sending many) is read each time, not kept."""
    from scorer.web import _browser_language

    before = _browser_language.cache_info().currsize
    header = "de;q=0.9, " + ", ".join(f"x{i};q=0.1" for i in range(300))
    assert 'lang="de"' in client.get("/", headers={"Accept-Language": header}).get_data(as_text=True)
    assert _browser_language.cache_info().currsize == before
    assert 'lang="fi"' in client.get("/", headers={"Accept-Language": "fi, en;q=0.5"}).get_data(as_text=True)
