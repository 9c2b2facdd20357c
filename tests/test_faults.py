"""Faults end in a clear page, never a bare 500: the secret key, the database, the Host
header, the session cookie, JSON routes, HEAD, spreadsheet cells."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import socket
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import sqlite_utils
from flask import Flask, flash, get_flashed_messages, session
from flask.testing import FlaskClient

from scorer import create_app
from scorer.storage import db as database
from scorer.web import db as web_db
from scorer.web import safety
from scorer.web.downloads import decimal_cell, exact_cell
from tests.matchutil import points_match
from tests.serverutil import Client, Server
from tests.webutil import csrf_token, start_match

ROOT = Path(__file__).resolve().parent.parent


def _token(created: Any) -> str:
    return str(created.get_json()["edit_url"].rstrip("/").split("/m/")[1])


# --- the secret key ---------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"   \n", b"\n\n"], ids=["empty", "spaces", "newlines"])
def test_an_empty_secret_key_file_gets_a_new_key(tmp_path: Path, content: bytes) -> None:
    """An empty instance/secret_key made GET /new a 500 and every POST a 400."""
    (tmp_path / "secret_key").write_bytes(content)
    key = safety.secret_key(tmp_path)
    assert len(key) == 64 and (tmp_path / "secret_key").read_text() == key
    assert safety.secret_key(tmp_path) == key  # kept from then on
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "db.sqlite"), "SECRET_KEY": key})
    assert app.test_client().get("/new").status_code == 200


@pytest.mark.parametrize(("content", "says"), [
    (b"\xff\xfe\x00garbage", "is damaged (it is not text)"),
    (b"x", "too weak (1 characters; at least 32"),
    (b"0123456789", "too weak (10 characters"),
], ids=["not-utf8", "one-character", "ten-characters"])
def test_a_damaged_or_weak_secret_key_stops_the_start_with_a_message(tmp_path: Path, content: bytes,
                                                                     says: str) -> None:
    (tmp_path / "secret_key").write_bytes(content)
    with pytest.raises(safety.ConfigError) as caught:
        safety.secret_key(tmp_path)
    assert says in str(caught.value) and "Delete" in str(caught.value)


def test_the_server_says_what_is_wrong_with_the_key_and_no_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCARTO_")}
    env.update(SCARTO_SECRET_KEY="k-short", SCARTO_DATABASE=str(tmp_path / "db.sqlite"), PORT="0")
    done = subprocess.run([sys.executable, "-m", "scorer.serve"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "Error: The secret key in SCARTO_SECRET_KEY is too weak (7 characters" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


# --- the database -----------------------------------------------------------------------


def test_a_database_deleted_while_running_is_a_503_and_is_not_made_again(app: Flask, client: FlaskClient) -> None:
    token = _token(client.post("/api/matches", json=points_match(2)))
    path = Path(app.config["DATABASE"])
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    response = client.get(f"/m/{token}/")
    assert response.status_code == 503 and response.headers["Retry-After"]
    text = response.get_data(as_text=True)
    assert "database file is missing" in text and "no empty database was made" in text
    assert response.headers["Content-Security-Policy"]
    assert not path.exists()
    api = client.post("/api/matches", json=points_match(1))
    assert api.status_code == 503 and "database file is missing" in api.get_json()["message"]
    assert not path.exists()


def test_a_read_only_database_is_a_503_saying_what_to_do(app: Flask, client: FlaskClient,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    token = start_match(client)
    page = client.get(f"/m/{token}/hands/new/points?lang=de").get_data(as_text=True)

    def read_only(path: str, *, create: bool = True) -> Any:  # as the file is when its permissions say so
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
        return sqlite_utils.Database(conn)

    monkeypatch.setattr(database, "connect", read_only)
    monkeypatch.setattr(web_db._KEPT, "connection", None)  # the thread's kept connection is opened again
    response = client.post(f"/m/{token}/hands/new/points?lang=de", data={
        "csrf_token": csrf_token(page), "dealer": "Anna", "expected_count": "0",
        "points_0": "30", "points_1": "30", "points_2": "18"})
    assert response.status_code == 503
    text = response.get_data(as_text=True)
    assert "schreibgeschützt" in text and "Es wurde nichts gespeichert" in text


class _WithoutRootsOverride(Server):
    """The server without root's file-permission override (as root, chmod 444 would not stop a write)."""

    def command(self) -> list[str]:
        if os.geteuid() != 0:
            return super().command()
        drop = "-dac_override,-dac_read_search"
        return ["setpriv", "--bounding-set", drop, "--inh-caps", drop, *super().command()]


@pytest.mark.slow
def test_a_brief_read_only_spell_leaves_every_thread_able_to_save(tmp_path: Path) -> None:
    """Connections opened while the database file was read-only stayed read-only: after the file was
    writable again, 86 saves of 100 answered 503 "cannot write to its database" until a restart. Read
    from 24 phones while the file is read-only, make it writable, and every save goes through."""
    path = tmp_path / "spell.sqlite"
    with _WithoutRootsOverride(path) as server, contextlib.closing(Client(server.port)) as phone:
        created = phone.post_json("/api/matches", points_match(1))
        assert created.status == 201
        token = _token_of(created.json()["edit_url"])
        path.chmod(0o444)
        try:
            # the spell is real: a thread whose connection opens now cannot write (one that served the
            # create kept its connection, opened writable, so a save may still land there)
            spell = [phone.post_json(f"/m/{token}/hands.json", _hand(1000 + i)).status for i in range(8)]
            assert 503 in spell and set(spell) <= {201, 503}, spell

            def reads(_n: int) -> list[int]:
                reader = Client(server.port, timeout=30)
                try:
                    return [reader.get(f"/m/{token}/export.json").status for _ in range(8)]
                finally:
                    reader.close()

            with ThreadPoolExecutor(24) as pool:
                statuses = [s for batch in pool.map(reads, range(24)) for s in batch]
            assert set(statuses) == {200}
        finally:
            path.chmod(0o644)

        def saves(n: int) -> list[int]:
            saver = Client(server.port, timeout=30)
            try:
                return [saver.post_json(f"/m/{token}/hands.json", _hand(n * 10 + i)).status for i in range(10)]
            finally:
                saver.close()

        with ThreadPoolExecutor(10) as pool:
            statuses = [s for batch in pool.map(saves, range(10)) for s in batch]
        assert statuses.count(201) == 100, statuses
        assert len(phone.get(f"/m/{token}/export.json").json()["hands"]) == 101 + spell.count(201)


def _token_of(url: str) -> str:
    return url.rstrip("/").split("/m/")[1]


def _hand(number: int) -> dict[str, Any]:
    players = ("Anna", "Bruno", "Carla")
    return {"dealer": players[number % 3], "points": dict(zip(players, (30, 28, 20), strict=True))}


def test_a_locked_database_is_a_503_to_try_again(app: Flask, client: FlaskClient,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    token = start_match(client)
    page = client.get(f"/m/{token}/hands/new/points").get_data(as_text=True)
    holder = sqlite3.connect(app.config["DATABASE"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    connect = database.connect

    def impatient(path: str, *, create: bool = True) -> Any:
        db = connect(path, create=create)
        db.execute("PRAGMA busy_timeout=100")
        return db

    monkeypatch.setattr(database, "connect", impatient)
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.1)  # what a write waits for in all (the writer lock too)
    monkeypatch.setattr(web_db._KEPT, "connection", None)  # the thread's kept connection is opened again
    try:
        response = client.post(f"/m/{token}/hands/new/points", data={
            "csrf_token": csrf_token(page), "dealer": "Anna", "expected_count": "0",
            "points_0": "30", "points_1": "30", "points_2": "18"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert response.status_code == 503 and response.headers["Retry-After"] == "5"
    assert "busy with other saves" in response.get_data(as_text=True)


# --- the Host header ----------------------------------------------------------------------


@pytest.mark.parametrize("host", ["a..b", "exa mple.org", "[::1", "host:port", "-a.b", "a" * 300])
def test_a_malformed_host_is_a_400_page_with_our_headers(client: FlaskClient, host: str) -> None:
    """`Host: a..b` was a bare 500 from waitress, without our headers, on every route."""
    for path in ("/", "/new", "/m/whatever/", "/api/matches"):
        response = client.get(path, headers={"Host": host})
        assert response.status_code == 400, (host, path)
        assert response.headers["Content-Security-Policy"] and response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("host", ["scarto.example.org", "localhost:5000", "192.168.1.23:5000", "[::1]:5000",
                                  "my_box.lan"])
def test_good_hosts_pass(host: str) -> None:
    assert safety.good_host(host)


# --- the session cookie --------------------------------------------------------------------


def test_the_session_cookie_stays_under_the_browsers_limit_whatever_the_messages(app: Flask) -> None:
    """Long names made the saved-hand message push the cookie past 4 KB: the browser dropped it."""
    with app.test_request_context("/"):
        for n in range(12):
            flash(f"Hand {n} saved: " + "Bartolomeo-Giovanni " * 60)
        response = app.response_class("")
        app.session_interface.save_session(app, session, response)
        cookie = response.headers["Set-Cookie"]
    assert len(cookie) < 4000
    with app.test_request_context("/", headers={"Cookie": cookie.split(";")[0]}):
        kept = get_flashed_messages()
    assert kept and str(kept[-1]).startswith("Hand 11 saved: Bartolomeo")  # the newest message is the one kept


# --- JSON routes, HEAD ------------------------------------------------------------------------


def test_json_routes_answer_errors_as_json(client: FlaskClient) -> None:
    token = start_match(client)
    for method, path in (("GET", "/api/nothing"), ("GET", "/m/nope/standings.json"),
                         ("POST", f"/m/{token}/hands/live/check"), ("GET", f"/m/{token}/hands/live/check")):
        response = client.open(path, method=method, json={"dealer": "Anna"})
        assert response.mimetype == "application/json", (method, path, response.status_code)
        assert response.status_code in (400, 404, 405) and response.get_json()["message"]


def test_the_club_and_night_apis_answer_every_method_in_json(client: FlaskClient) -> None:
    """Outside /api/ the programs' addresses of clubs and nights answered a wrong method with the HTML page."""
    club = client.post("/api/clubs", json={"name": "Bar", "players": ["Anna", "Bruno", "Carla"]}).get_json()
    token = club["edit_url"].rstrip("/").split("/c/")[1]
    for path in (f"/c/{token}/matches", f"/c/{token}/nights", "/n/nothing/rounds"):
        for method in ("GET", "PUT", "DELETE", "PATCH"):
            response = client.open(path, method=method, headers={"Accept": "application/json"})
            assert response.status_code in (404, 405), (method, path)
            assert response.mimetype == "application/json" and response.get_json()["message"], (method, path)
    assert client.get(f"/c/{token}/").mimetype == "text/html"  # the club's own page is still a page


DEEP = "[" * 5000 + "]" * 5000
"""Nested deeper than Python's JSON reader goes: it gives up with a RecursionError, not a ValueError."""


@pytest.mark.parametrize("body", [b"[1]", b"5", b'"x"', DEEP.encode(), b'{"title": 5, "name": 7, "date": 5}',
                                  b'{"title": ["a"], "notes": {"a": 1}, "dealer": null}', b'{"x": "\\ud800"}'],
                         ids=["list", "number", "text", "deep", "numbers-for-text", "lists-for-text", "surrogate"])
def test_a_form_posted_as_json_gets_the_forms_answer_not_a_500(client: FlaskClient, body: bytes) -> None:
    """Flask-WTF handed a posted JSON value to WTForms as it was: a body that was no object, nested too
    deep, or with a number where text goes, ended in a 500 on every form (a hostile probe's finding)."""
    match = start_match(client)
    club = client.post("/api/clubs", json={"name": "Bar", "players": ["Anna", "Bruno", "Carla"]}).get_json()
    club_token = club["edit_url"].rstrip("/").split("/c/")[1]
    csrf = csrf_token(client.get("/new").get_data(as_text=True))
    paths = ["/new", "/import", "/audit", "/clubs/new", "/clubs/import", f"/c/{club_token}/settings",
             f"/c/{club_token}/nights/new", f"/c/{club_token}/seasons", f"/m/{match}/hands/live/check",
             *(f"/m/{match}/hands/new/{form}" for form in ("points", "cards", "honours", "live"))]
    for path in paths:
        response = client.post(path, data=body, content_type="application/json", headers={"X-CSRFToken": csrf})
        assert response.status_code in (200, 302, 400), (path, response.status_code, response.data[:300])
        assert b"Traceback" not in response.data and b"Internal Server Error" not in response.data, path
    assert client.get(f"/m/{match}/export.json").get_json()["hands"] == []  # no hand was saved from it


def test_json_fields_are_what_a_form_would_have_posted(app: Flask) -> None:
    from scorer.web.jsonio import json_fields

    fields = json_fields({"end_hands": 5.0, "stake": 0.5, "title": "Bar", "tick": True, "off": False,
                          "player": ["Anna", 2, None], "nested": {"a": 1}, "none": None, "big": 1e300})
    assert fields.to_dict(flat=False) == {"end_hands": ["5"], "stake": ["0.5"], "title": ["Bar"], "tick": ["1"],
                                          "off": [""], "player": ["Anna", "2"], "big": ["1e+300"]}
    assert json_fields([1, 2]).to_dict() == {} and json_fields(None).to_dict() == {}


def test_head_is_answered_on_the_entry_pages(client: FlaskClient) -> None:
    """HEAD on an entry page answered 400 (it went down the save path)."""
    token = start_match(client)
    for form in ("points", "cards", "honours", "live"):
        head = client.head(f"/m/{token}/hands/new/{form}")
        assert head.status_code == 200 and head.data == b"", form
    for path in ("/", "/new", "/import", "/audit", f"/m/{token}/", f"/m/{token}/share"):
        assert client.head(path).status_code == 200, path


# --- spreadsheet cells ------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "mark", "cell"), [
    (Fraction(-77, 3), ",", "-25,67"), (Fraction(1, 3), ",", "0,33"), (Fraction(58, 3), ".", "19.33"),
    (Fraction(-1, 2), ".", "-0.50"), (Fraction(1, 8), ",", "0,13"), (Fraction(-1, 300), ",", "0,00"),
    (Fraction(31), ",", "31,00"), (Fraction(-4), ".", "-4.00"), (Fraction(123456, 3), ",", "41152,00"),
])
def test_csv_numbers_are_decimals_to_two_places_in_the_languages_mark(value: Fraction, mark: str, cell: str) -> None:
    assert decimal_cell(value, mark) == cell


@pytest.mark.parametrize(("value", "cell"), [
    (Fraction(-77, 3), "−25⅔"), (Fraction(1, 3), "⅓"), (Fraction(58, 3), "19⅓"), (Fraction(-1, 2), "−½"),
    (Fraction(43, 12), "3 7⁄12"), (Fraction(7, 12), "7⁄12"), (Fraction(31), 31), (Fraction(-4), -4),
])
def test_exact_csv_numbers_are_text_no_spreadsheet_takes_for_a_date_or_a_formula(value: Fraction, cell: Any) -> None:
    assert exact_cell(value) == cell


def test_the_standings_csv_has_no_cell_a_spreadsheet_takes_for_a_date_or_a_formula(client: FlaskClient) -> None:
    data = {**points_match(3), "language": "en"}
    data["hands"][0]["points"] = {"Anna": "58/3", "Bruno": "77/3", "Carla": "99/3"}
    token = _token(client.post("/api/matches", json=data))
    text = client.get(f"/m/{token}/standings.csv").get_data(as_text=True)
    cells = [cell for row in list(csv.reader(io.StringIO(text)))[1:] for cell in row]
    assert not [c for c in cells if "/" in c], cells  # 1/3: a date; -77/3: a formula
    assert not [c for c in cells if c[:1] in ("=", "+", "@")]
    assert "19⅓" in cells and "19.33" in cells


def test_with_trusted_hosts_set_another_host_is_our_400_page(tmp_path: Path) -> None:
    """Flask's TRUSTED_HOSTS alone failed before our error page could be made (a bare 500)."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "hosts.sqlite"), "SECRET_KEY": "h" * 40,
                      "TRUSTED_HOSTS": ["scarto.example.org"]})
    client = app.test_client()
    refused = client.get("/new", headers={"Host": "evil.example"})
    assert refused.status_code == 400 and "not a valid host name" in refused.get_data(as_text=True)
    assert refused.headers["Content-Security-Policy"]
    assert client.get("/new", headers={"Host": "scarto.example.org"}).status_code == 200


def test_without_trusted_hosts_only_the_addresses_served_make_links(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``make run`` on the Wi-Fi without SCARTO_TRUSTED_HOSTS: a request with ``Host: evil.example`` got share
    links and QR codes pointing there. Now only the addresses the server serves make links: loopback, HOST,
    the address the phone's connection arrived on (scorer/serve.py says which)."""
    monkeypatch.setenv("HOST", "10.1.2.3")
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "hosts.sqlite"), "SECRET_KEY": "h" * 40})
    client = app.test_client()
    on_wifi = {safety.SERVED_AT: "192.168.1.23"}  # what serve.py sets: the address the phone connected to
    created = client.post("/api/matches", json=points_match(1), headers={"Host": "192.168.1.23:5000"},
                          environ_base=on_wifi)
    assert created.status_code == 201 and created.get_json()["edit_url"].startswith("http://192.168.1.23:5000/m/")
    share = urlsplit(created.get_json()["edit_url"]).path + "share"
    for host in ("evil.example", "evil.example:5000", "192.168.1.99:5000", "localhost.evil.example"):
        refused = client.get(share, headers={"Host": host}, environ_base=on_wifi)
        assert refused.status_code == 400 and "evil" not in refused.get_data(as_text=True), host
        assert "not a valid host name" in refused.get_data(as_text=True)
        refused = client.post("/api/matches", json=points_match(1), headers={"Host": host}, environ_base=on_wifi)
        assert refused.status_code == 400 and "edit_url" not in (refused.get_json() or {}), host
    for host in ("localhost", "127.0.0.1:5000", "[::1]:5000", "10.1.2.3:5000", "LOCALHOST.",
                 f"{socket.gethostname()}.local:5000"):
        page = client.get(share, headers={"Host": host})
        assert page.status_code == 200, host
        assert f"http://{host.lower()}/m/" in page.get_data(as_text=True), host
    page = client.get(share, headers={"Host": "192.168.1.23:5000"}, environ_base=on_wifi)
    assert page.status_code == 200 and "http://192.168.1.23:5000/m/" in page.get_data(as_text=True)
    assert client.get(share, headers={"Host": "192.168.1.23:5000"}).status_code == 400  # not the one it came to


def test_a_database_error_that_is_a_bug_stays_a_500_apology(client: FlaskClient,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the database's state (read-only, missing, locked, damaged) is a 503 "what to do" page."""
    from scorer.storage import store

    def broken(*_args: Any) -> Any:
        raise sqlite3.IntegrityError("UNIQUE constraint failed: matches.edit_key")

    monkeypatch.setattr(store, "find_match", broken)
    response = client.get("/m/whatever/")
    assert response.status_code == 500 and "failed on our side" in response.get_data(as_text=True)
    assert client.get("/m/whatever/standings.json").get_json()["error"] == "Internal Server Error"
