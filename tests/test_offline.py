"""The offline pieces on the server: manifest, icons, service worker, versioned files, the state tag,
and the idempotency key that makes a retried save (or edit, delete, restore) count once."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.storage import store
from scorer.web import TRANSLATED, get_db, offline
from scorer.web.offline import _version_of
from tests.handutil import open_form, points_data, record
from tests.webutil import csrf_token, start_match

PLAYERS = ("Anna", "Bruno", "Carla")
BUDGET = 40 * 1024
KEY = "3f0c2a9e-7d1b-4c55-9a43-0e5b8f7c6d21"


def points(client: FlaskClient, token: str, key: str | None, values: dict[str, int], dealer: str = "Anna"
           ) -> Any:
    data = {**points_data(values, PLAYERS, dealer), "dealer_ok": dealer}  # whoever deals: not what these test
    if key is not None:
        data["entry_key"] = key
    return record(client, token, "points", data)


def hand_rows(app: Flask, token: str) -> list[store.HandRow]:
    with app.app_context():
        db = get_db()
        row, _ = store.find_match(db, token)
        return store.list_hands(db, row.id, deleted=True)


def revision_count(app: Flask, token: str) -> int:
    with app.app_context():
        db = get_db()
        return sum(len(store.revisions(db, h.id)) for h in hand_rows(app, token))


# --- installable --------------------------------------------------------------------------


def test_every_page_links_the_manifest_and_the_worker_script(client: FlaskClient) -> None:
    token = start_match(client)
    for url in ("/", f"/m/{token}/", f"/m/{token}/hands/new/points", "/new"):
        page = client.get(url).get_data(as_text=True)
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page, url
        assert re.search(r'<script src="/static/offline\.js\?v=[0-9a-f]{12}" defer', page), url
        assert "<script>" not in page  # nothing inline under the CSP


def test_the_manifest_makes_the_app_installable(client: FlaskClient) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    data = json.loads(response.get_data(as_text=True))
    assert data["name"] == "Scarto score keeper" and data["short_name"] == "Scarto"
    assert data["display"] == "standalone" and data["start_url"] == "/"
    assert re.fullmatch(r"#[0-9a-f]{6}", data["theme_color"]) and re.fullmatch(r"#[0-9a-f]{6}",
                                                                                data["background_color"])
    kinds = {(i["purpose"], i["sizes"]) for i in data["icons"]}
    assert kinds == {("any", "192x192"), ("any", "512x512"), ("maskable", "192x192"), ("maskable", "512x512")}
    for icon in data["icons"]:
        assert icon["src"].startswith("/")  # from this host only
        png = client.get(icon["src"])
        assert png.status_code == 200 and png.mimetype == "image/png"
        body = png.get_data()
        assert body[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", body[16:24])
        assert f"{width}x{height}" == icon["sizes"]


def test_the_manifest_speaks_the_phones_language(client: FlaskClient) -> None:
    data = json.loads(client.get("/manifest.webmanifest", headers={"Accept-Language": "it"}).get_data(as_text=True))
    assert data["lang"] == "it" and data["name"] == "Segnapunti per Scarto"


def test_an_unknown_icon_is_404(client: FlaskClient) -> None:
    assert client.get("/icons/any-100.png").status_code == 404
    assert client.get("/icons/round-192.png").status_code == 404


def test_a_maskable_icon_fills_its_square_and_an_ordinary_one_has_round_corners(client: FlaskClient) -> None:
    import zlib

    def corner_alpha(body: bytes) -> int:
        data = b""
        at = 8
        while at < len(body):
            length = struct.unpack(">I", body[at:at + 4])[0]
            if body[at + 4:at + 8] == b"IDAT":
                data += body[at + 8:at + 8 + length]
            at += 12 + length
        raw = zlib.decompress(data)
        return raw[1 + 3]  # first row, after the filter byte: the first pixel's alpha

    assert corner_alpha(client.get("/icons/maskable-192.png").get_data()) == 255
    assert corner_alpha(client.get("/icons/any-192.png").get_data()) == 0


@pytest.mark.parametrize(("size", "maskable"), [(61, False), (61, True), (192, False), (192, True)])
def test_the_icon_drawn_by_blocks_is_the_icon_drawn_pixel_by_pixel(size: int, maskable: bool) -> None:
    """Blocks far from every edge are filled in one colour: not one pixel may differ (61 px leaves
    blocks cut short at the right and the bottom)."""
    red, paper = offline._hex(offline.THEME), offline._hex(offline.BACKGROUND)
    one_by_one = [bytearray(b"".join(
        offline._pixel(offline._distances((i + 0.5) / size - 0.5, (j + 0.5) / size - 0.5), float(size), maskable,
                       red, paper) for i in range(size))) for j in range(size)]
    drawn = offline.icon_pixels(size, maskable)
    assert drawn == one_by_one
    assert len({bytes(row[k:k + 4]) for row in drawn for k in range(0, 4 * size, 4)}) > 40  # edges shaded


# --- the service worker and the versioned files ----------------------------------------------


def test_style_sheets_are_sent_without_their_comments(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    url = re.search(r'href="(/static/app\.css\?v=[0-9a-f]+)"', page)
    assert url is not None
    sent = client.get(url.group(1))
    kept = (Path(client.application.static_folder or "") / "app.css").read_text()
    body = sent.get_data(as_text=True)
    assert sent.status_code == 200 and "/*" in kept and "/*" not in body
    assert int(sent.headers["Content-Length"]) == len(sent.get_data()) < len(kept.encode())
    rules = [line for line in kept.splitlines() if line.startswith(".dot.seat")]
    assert rules and all(rule in body for rule in rules)  # the rules themselves as written
    with client.get(url.group(1), headers={"If-None-Match": sent.headers["ETag"]}) as again:
        assert again.status_code == 304


def test_scripts_are_sent_without_the_lines_that_only_comment(client: FlaskClient) -> None:
    """Every line of code is sent as written, a comment after code too; only the lines a comment fills
    alone are left out."""
    folder = Path(client.application.static_folder or "")
    for script in sorted(folder.glob("*.js")):
        kept = script.read_text()
        sent = client.get(f"/static/{script.name}")
        body = sent.get_data(as_text=True)
        assert sent.status_code == 200 and sent.mimetype == "text/javascript"
        assert int(sent.headers["Content-Length"]) == len(sent.get_data())
        assert [line for line in body.splitlines() if line.strip()] == _code_lines(kept), script.name
    sent_offline = client.get("/static/offline.js").get_data(as_text=True)
    assert "/* Every page" in (folder / "offline.js").read_text() and "/* Every page" not in sent_offline
    assert "// fetched before the worker" in sent_offline  # a comment after code stays


def _code_lines(text: str) -> list[str]:
    """The lines of a script that hold code, read line by line (not by the server's pattern): a ``//``
    line is a comment; a ``/*`` at a line's start opens one that fills its lines alone when its first
    ``*/`` ends a line."""
    lines, code, at = text.splitlines(), [], 0
    while at < len(lines):
        stripped = lines[at].strip()
        if stripped.startswith("/*"):
            end = at
            while "*/" not in (lines[end].strip()[2:] if end == at else lines[end]):
                end += 1
            closing = lines[end].strip()[2:] if end == at else lines[end]
            if closing.split("*/", 1)[1].strip() == "":
                at = end + 1
                continue
        if stripped and not stripped.startswith("//"):
            code.append(lines[at])
        at += 1
    return code


def test_the_paces_are_the_apps_to_set_and_reach_the_page_and_the_worker(tmp_path: Path) -> None:
    """POLL_SECONDS reaches the page (the first ask is a 304, which says no pace) and every state.json;
    SEND_WAIT_SECONDS the worker's head. At the usual paces the page carries nothing more."""
    from scorer import create_app

    for settings, poll, attr, wait in (({}, 3, "", 10_000),
                                       ({"POLL_SECONDS": 1, "SEND_WAIT_SECONDS": 4}, 1, ' data-poll="1"', 4_000)):
        app = create_app({"TESTING": True, "DATABASE": str(tmp_path / f"{poll}.sqlite"), "SECRET_KEY": "x",
                          **settings})
        client = app.test_client()
        token = start_match(client)
        page = client.get(f"/m/{token}/").get_data(as_text=True)
        script = re.search(r'<script src="/static/sync\.js[^>]*>', page)
        assert script is not None and ("data-poll" in script.group(0)) == bool(attr)
        assert attr in script.group(0)
        assert client.get(f"/m/{token}/state.json").get_json()["poll"] == poll
        assert f"const SEND_WAIT = {wait};" in client.get("/sw.js").get_data(as_text=True)


def test_the_service_worker_is_served_from_the_root_with_the_version(client: FlaskClient) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["Service-Worker-Allowed"] == "/"
    assert response.headers["Cache-Control"] == "no-cache"  # an upgrade is seen at the next load
    text = response.get_data(as_text=True)
    version = re.match(r'const VERSION = "([0-9a-f]{12})";', text)
    assert version
    page = client.get("/").get_data(as_text=True)
    assert f"/static/app.css?v={version.group(1)}" in page
    assets = json.loads(re.search(r"const ASSETS = (\[.*?\]);", text).group(1))  # type: ignore[union-attr]
    assert f"/static/offline.js?v={version.group(1)}" in assets and "/manifest.webmanifest" in assets
    for url in assets:
        with client.get(url) as asset:
            assert asset.status_code == 200, url


def test_the_worker_and_the_manifest_are_light_and_load_nothing_from_elsewhere(client: FlaskClient) -> None:
    worker = client.get("/sw.js").get_data()
    manifest = client.get("/manifest.webmanifest").get_data()
    assert len(worker) + len(manifest) <= BUDGET
    for text in (worker.decode(), manifest.decode(), Path("static/sync.js").read_text(),
                 Path("static/offline.js").read_text()):
        assert not re.search(r"https?://", text)  # every address is this host's


def test_the_version_follows_the_content_of_the_static_files(tmp_path: Path) -> None:
    (tmp_path / "sw.js").write_text("// worker")
    (tmp_path / "app.css").write_text("body { color: red }")
    before = _version_of(str(tmp_path))
    (tmp_path / "app.css").write_text("body { color: blue }")
    _version_of.cache_clear()
    after = _version_of(str(tmp_path))
    assert re.fullmatch(r"[0-9a-f]{12}", before) and before != after
    (tmp_path / "app.css").write_text("body { color: red }")
    _version_of.cache_clear()
    assert _version_of(str(tmp_path)) == before


def test_pages_say_which_version_of_the_files_they_name(client: FlaskClient) -> None:
    response = client.get("/")
    version = re.search(r"/static/app\.css\?v=([0-9a-f]{12})", response.get_data(as_text=True))
    assert version and response.headers["X-Scarto-Assets"] == version.group(1)


# --- the state tag -------------------------------------------------------------------------


def test_the_state_tag_changes_with_every_change_and_is_304_otherwise(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    url = f"/m/{token}/state.json"
    first = client.get(url)
    assert first.status_code == 200 and first.mimetype == "application/json"
    tag = first.headers["ETag"]
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 304
    tags = {tag}

    def changed() -> str:
        response = client.get(url, headers={"If-None-Match": tag})
        assert response.status_code == 200
        assert response.headers["ETag"] not in tags
        tags.add(response.headers["ETag"])
        return str(response.headers["ETag"])

    assert points(client, token, None, {"Anna": 31, "Bruno": 22}).status_code == 302
    tag = changed()
    (hand,) = hand_rows(app, token)
    page, fields = open_form(client, f"/m/{token}/hands/{hand.key}/edit")
    assert client.post(f"/m/{token}/hands/{hand.key}/edit",
                       data={**fields, **points_data({"Anna": 40, "Bruno": 20, "Carla": 18}, PLAYERS, "Anna")}
                       ).status_code == 302
    tag = changed()
    page = client.get(f"/m/{token}/hands/{hand.key}/").get_data(as_text=True)
    assert client.post(f"/m/{token}/hands/{hand.key}/delete",
                       data={"csrf_token": csrf_token(page), "version": "2"}).status_code == 303
    tag = changed()
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 304


def test_the_view_link_has_the_state_tag_too_and_an_unknown_match_has_none(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    with app.app_context():
        row, _ = store.find_match(get_db(), token)
    edit = client.get(f"/m/{token}/state.json").headers["ETag"]
    assert client.get(f"/m/{row.view_token}/state.json").headers["ETag"] == edit
    missing = client.get("/m/no-such-match/state.json")
    assert missing.status_code == 404 and missing.is_json


def sync_attributes(page: str) -> tuple[str, str]:
    """The address and state tag a page gives sync.js (its script's data-sync and data-tag)."""
    found = re.search(r'<script src="[^"]*sync\.js[^"]*" defer data-sync="([^"]*)" data-tag="([^"]*)"', page)
    assert found, "the page's sync.js names no address or tag"
    return found.group(1), found.group(2)


def test_the_match_page_carries_its_own_address_and_the_tag_of_what_it_shows(app: Flask, client: FlaskClient) -> None:
    """sync.js starts from the page's tag (a change saved between the page and its first ask is seen)
    and asks its own match's state.json (a copy shown offline in place of another page asked that page's)."""
    token = start_match(client)
    with app.app_context():
        row, _ = store.find_match(get_db(), token)
    for link in (token, row.view_token):
        home, tag = sync_attributes(client.get(f"/m/{link}/").get_data(as_text=True))
        assert home == f"/m/{link}/"
        assert f'"{tag}"' == client.get(f"/m/{link}/state.json").headers["ETag"]
    assert points(client, token, None, {"Anna": 31, "Bruno": 22}).status_code == 302
    home, tag = sync_attributes(client.get(f"/m/{token}/").get_data(as_text=True))  # a kept page too
    assert f'"{tag}"' == client.get(f"/m/{token}/state.json").headers["ETag"]
    assert sync_attributes(client.get(f"/m/{token}/").get_data(as_text=True)) == (home, tag)


# --- once, however often it is sent -----------------------------------------------------------


def test_a_hand_sent_twice_with_its_key_is_stored_once_and_answered_alike(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    first = points(client, token, KEY, {"Anna": 31, "Bruno": 22})
    # the phone never saw that answer; it sends the same entry again (the count it saw is now stale)
    again = client.post(f"/m/{token}/hands/new/points", data={
        "csrf_token": csrf_token(client.get(f"/m/{token}/hands/new/points").get_data(as_text=True)),
        "expected_count": "0", "entry_key": KEY, **points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna")})
    assert first.status_code == again.status_code == 302
    assert first.headers["Location"] == again.headers["Location"]
    assert len(hand_rows(app, token)) == 1
    page = client.get(f"/m/{token}/").get_data(as_text=True)
    assert page.count("Hand 1 saved: Anna 5 · Bruno -4 · Carla -1.") == 1  # told once, not twice


def test_live_json_sent_twice_with_its_key_is_stored_once(app: Flask, client: FlaskClient) -> None:
    token = start_match(client, first_dealer="2")  # Bruno deals hand 1
    page, fields = open_form(client, f"/m/{token}/hands/new/live")
    from tests.handutil import fixture
    tricks = [t["cards"] for t in fixture("classic-valid-1")["tricks"]]
    body = {"dealer": "Bruno", "tricks": tricks, "expected_count": "0", "entry_key": KEY}
    headers = {"X-CSRFToken": fields["csrf_token"]}
    answers = [client.post(f"/m/{token}/hands/new/live", json=body, headers=headers) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].get_json() == answers[1].get_json()
    assert answers[0].get_json()["saved"] is True
    assert len(hand_rows(app, token)) == 1


def test_the_key_may_come_as_a_header(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    _page, fields = open_form(client, f"/m/{token}/hands/new/points")
    data = {**fields, **points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna")}
    for _ in range(2):
        client.post(f"/m/{token}/hands/new/points", data=data, headers={"Idempotency-Key": KEY})
    assert len(hand_rows(app, token)) == 1


def test_different_keys_are_different_hands_and_a_stale_count_is_still_a_conflict(
        app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    assert points(client, token, KEY, {"Anna": 31, "Bruno": 22}).status_code == 302
    late = client.post(f"/m/{token}/hands/new/points", data={
        "csrf_token": csrf_token(client.get(f"/m/{token}/hands/new/points").get_data(as_text=True)),
        "expected_count": "0", "entry_key": KEY.replace("3f", "4f"),
        **points_data({"Anna": 40, "Bruno": 20}, PLAYERS, "Anna")})
    assert late.status_code == 409  # another entry, made before hand 1 was seen: the player decides
    assert len(hand_rows(app, token)) == 1


def test_a_malformed_key_is_ignored_not_an_error(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    _page, fields = open_form(client, f"/m/{token}/hands/new/points")
    data = {**fields, "entry_key": "<x>", **points_data({"Anna": 31, "Bruno": 22}, PLAYERS, "Anna")}
    answers = [client.post(f"/m/{token}/hands/new/points", data=data).status_code for _ in range(2)]
    assert answers == [302, 409]  # saved; then, unprotected, only the count the page saw stops a second hand
    assert len(hand_rows(app, token)) == 1


def test_an_edit_sent_twice_is_one_revision(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    points(client, token, None, {"Anna": 31, "Bruno": 22})
    (hand,) = hand_rows(app, token)
    _page, fields = open_form(client, f"/m/{token}/hands/{hand.key}/edit")
    data = {**fields, "entry_key": KEY, **points_data({"Anna": 40, "Bruno": 20, "Carla": 18}, PLAYERS, "Anna")}
    answers = [client.post(f"/m/{token}/hands/{hand.key}/edit", data=data) for _ in range(2)]
    assert [a.status_code for a in answers] == [302, 302]  # not 409: the second is the first, again
    assert revision_count(app, token) == 2
    assert hand_rows(app, token)[0].record["points"]["Anna"] == 40


def test_a_delete_an_undelete_and_a_restore_sent_twice_each_count_once(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    points(client, token, None, {"Anna": 31, "Bruno": 22})
    (hand,) = hand_rows(app, token)
    base = f"/m/{token}/hands/{hand.key}"
    csrf = csrf_token(client.get(f"{base}/").get_data(as_text=True))
    for path, version, key in (("delete", 1, "k-delete-0001"), ("undelete", 2, "k-undelete-01"),
                               ("restore/1", 3, "k-restore-001")):
        answers = [client.post(f"{base}/{path}", data={"csrf_token": csrf, "version": str(version),
                                                       "entry_key": key}) for _ in range(2)]
        assert [a.status_code for a in answers] == [303, 303], (path, answers[1].get_data(as_text=True)[:500])
        assert answers[0].headers["Location"] == answers[1].headers["Location"]
    assert [r.action for r in store_revisions(app, token)] == ["create", "delete", "undelete"]
    # restoring version 1 over an identical record changes nothing ("already the current one"), both times


def store_revisions(app: Flask, token: str) -> list[store.Revision]:
    with app.app_context():
        (hand,) = hand_rows(app, token)
        return store.revisions(get_db(), hand.id)


def test_a_key_used_for_a_delete_does_not_undelete(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    points(client, token, None, {"Anna": 31, "Bruno": 22})
    (hand,) = hand_rows(app, token)
    base = f"/m/{token}/hands/{hand.key}"
    csrf = csrf_token(client.get(f"{base}/").get_data(as_text=True))
    assert client.post(f"{base}/delete", data={"csrf_token": csrf, "version": "1", "entry_key": KEY}).status_code == 303
    refused = client.post(f"{base}/undelete", data={"csrf_token": csrf, "version": "2", "entry_key": KEY})
    assert refused.status_code == 409
    assert "already used for another change" in refused.get_data(as_text=True)
    assert hand_rows(app, token)[0].deleted_at is not None


def test_a_key_reused_with_other_points_is_refused_and_the_form_keeps_them(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    assert points(client, token, KEY, {"Anna": 30, "Bruno": 28}).status_code == 302
    # the back button, other numbers typed, the same form (and key) sent again: not "saved"
    again = points(client, token, KEY, {"Anna": 10, "Bruno": 10})
    assert again.status_code == 409
    page = again.get_data(as_text=True)
    assert "already saved once, as hand 1, with other values" in page
    assert 'value="10"' in page and 'value="58"' not in page  # what was typed, shown again (Carla's is filled in)
    fresh = re.search(r'name="entry_key" type="hidden" value="([^"]+)"', page)
    assert fresh is not None and fresh.group(1) != KEY  # saving it again is a new entry
    assert [h.record["points"]["Anna"] for h in hand_rows(app, token)] == [30]
    # saved again from that page: the second hand, with what was typed
    fields = dict(re.findall(r'name="(csrf_token|expected_count|entry_key)" type="hidden" value="([^"]*)"', page))
    assert fields["expected_count"] == "1"
    saved = client.post(f"/m/{token}/hands/new/points",
                        data={**fields, **points_data({"Anna": 10, "Bruno": 10}, PLAYERS, "Anna"), "dealer_ok": "Anna"})
    assert saved.status_code == 302
    assert [h.record["points"]["Anna"] for h in hand_rows(app, token)] == [30, 10]


def test_a_resent_form_replays_before_its_stale_count_is_looked_at(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    assert points(client, token, KEY, {"Anna": 30, "Bruno": 28}).status_code == 302
    assert points(client, token, None, {"Anna": 20, "Bruno": 28}).status_code == 302  # hand 2, another phone
    again = points(client, token, KEY, {"Anna": 30, "Bruno": 28})  # its count (0) is stale twice over
    assert again.status_code == 302
    assert len(hand_rows(app, token)) == 2


def test_an_edit_key_reused_with_other_points_is_refused(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    points(client, token, None, {"Anna": 31, "Bruno": 22})
    (hand,) = hand_rows(app, token)
    _page, fields = open_form(client, f"/m/{token}/hands/{hand.key}/edit")
    first = {**fields, "entry_key": KEY, **points_data({"Anna": 40, "Bruno": 20, "Carla": 18}, PLAYERS, "Anna")}
    assert client.post(f"/m/{token}/hands/{hand.key}/edit", data=first).status_code == 302
    other = {**fields, "entry_key": KEY, **points_data({"Anna": 12, "Bruno": 20, "Carla": 46}, PLAYERS, "Anna")}
    refused = client.post(f"/m/{token}/hands/{hand.key}/edit", data=other)
    assert refused.status_code == 409
    page = refused.get_data(as_text=True)
    assert "already saved once (hand 1) with other values" in page and 'value="12"' in page
    assert hand_rows(app, token)[0].record["points"]["Anna"] == 40
    assert revision_count(app, token) == 2


def test_a_creates_key_on_an_edit_is_refused_not_a_silent_no_op(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    points(client, token, KEY, {"Anna": 31, "Bruno": 22})
    (hand,) = hand_rows(app, token)
    _page, fields = open_form(client, f"/m/{token}/hands/{hand.key}/edit")
    data = {**fields, "entry_key": KEY, **points_data({"Anna": 40, "Bruno": 20, "Carla": 18}, PLAYERS, "Anna")}
    refused = client.post(f"/m/{token}/hands/{hand.key}/edit", data=data)
    assert refused.status_code == 409
    assert 'value="40"' in refused.get_data(as_text=True)
    assert hand_rows(app, token)[0].record["points"]["Anna"] == 31


def test_a_restore_key_reused_for_another_version_is_refused(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    points(client, token, None, {"Anna": 31, "Bruno": 22})
    (hand,) = hand_rows(app, token)
    for anna in (40, 50):
        _page, fields = open_form(client, f"/m/{token}/hands/{hand.key}/edit")
        client.post(f"/m/{token}/hands/{hand.key}/edit",
                    data={**fields, **points_data({"Anna": anna, "Bruno": 20}, PLAYERS, "Anna")})
    base = f"/m/{token}/hands/{hand.key}"
    csrf = csrf_token(client.get(f"{base}/").get_data(as_text=True))
    assert client.post(f"{base}/restore/1", data={"csrf_token": csrf, "version": "3", "entry_key": KEY}
                       ).status_code == 303
    refused = client.post(f"{base}/restore/2", data={"csrf_token": csrf, "version": "4", "entry_key": KEY})
    assert refused.status_code == 409
    assert hand_rows(app, token)[0].record["points"]["Anna"] == 31


def test_live_json_with_a_reused_key_is_409_with_a_new_key(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    _page, fields = open_form(client, f"/m/{token}/hands/new/live")
    from tests.handutil import fixture
    tricks = [t["cards"] for t in fixture("classic-valid-1")["tricks"]]
    headers = {"X-CSRFToken": fields["csrf_token"]}
    body = {"dealer": "Bruno", "tricks": tricks, "expected_count": "0", "entry_key": KEY}
    assert client.post(f"/m/{token}/hands/new/live", json=body, headers=headers).get_json()["saved"] is True
    other = client.post(f"/m/{token}/hands/new/live", json={**body, "notes": "another hand"}, headers=headers)
    assert other.status_code == 409
    answer = other.get_json()
    assert answer["saved"] is False and answer["entry_key"] not in ("", KEY) and answer["expected_count"] == "1"
    assert len(hand_rows(app, token)) == 1


def test_the_store_returns_the_hand_already_saved_under_a_key(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    with app.app_context():
        db = get_db()
        row, _ = store.find_match(db, token)
        record = {"dealer": "Anna", "points": {"Anna": 31, "Bruno": 22, "Carla": 25}}
        entry = store.Entry(KEY, store.body_digest(record))
        first = store.add_hand(db, row.id, record, expected_count=0, entry=entry)
        again = store.add_hand(db, row.id, record, expected_count=0, entry=entry)
        assert again == first
        done = store.entry_done(db, row.id, KEY)
        assert done is not None and done.action == "create" and done.hand.key == first.key
        assert done.digest == entry.digest
        other = {**record, "points": {"Anna": 10, "Bruno": 10, "Carla": 58}}
        with pytest.raises(store.KeyReused):
            store.add_hand(db, row.id, other, expected_count=1, entry=store.Entry(KEY, store.body_digest(other)))
        with pytest.raises(store.KeyReused):  # a create's key is no edit's
            store.update_hand(db, row.id, first.key, other, entry=store.Entry(KEY, store.body_digest(other)))
        assert [h.record for h in store.list_hands(db, row.id)] == [record]
        assert store.entry_done(db, row.id + 1, KEY) is None  # keys belong to their match
        assert store.entry_done(db, row.id, None) is None


# --- the numbers for counting the hands waiting on a phone -----------------------------------


def test_tally_json_has_the_engines_numbers_and_where_the_stored_hands_leave_the_match(
        app: Flask, client: FlaskClient) -> None:
    token = start_match(client, end_hands="6", stake="0.10")
    assert points(client, token, None, {"Anna": 31, "Bruno": 22}).status_code == 302
    response = client.get(f"/m/{token}/tally.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "no-store"  # opened by a token: kept by the service worker only
    body = response.get_json()
    assert {k: v for k, v in body.items() if k != "texts"} == {
        "players": list(PLAYERS), "deck": 78, "base": 26, "ultimo": False, "bonus": [5, "-5/2"],
        "hands": 6, "target": None, "settle": "per_point", "stake": "0.10", "currency": "EUR",
        "totals": [5, -4, -1], "count": 1, "next": "Bruno", "finished": False}
    assert body["texts"]["next"] == "Hand %(n)s — %(dealer)s deals"
    assert body["texts"]["left"] == "%(num)s hands to play."


@pytest.mark.parametrize("language", TRANSLATED)
def test_tally_json_speaks_the_pages_language(client: FlaskClient, language: str) -> None:
    token = start_match(client)
    english = client.get(f"/m/{token}/tally.json?lang=en").get_json()["texts"]
    texts = client.get(f"/m/{token}/tally.json?lang={language}").get_json()["texts"]
    assert texts.keys() == english.keys()
    assert all(texts[k] != english[k] for k in ("unsent", "later", "limit", "changes", "next", "left", "pays"))
    assert all(re.findall(r"%\(\w+\)s", texts[k]) == re.findall(r"%\(\w+\)s", english[k]) for k in texts)


def test_tally_json_opens_with_the_view_link_and_not_for_an_unknown_match(app: Flask, client: FlaskClient) -> None:
    token = start_match(client)
    with app.app_context():
        row, _ = store.find_match(get_db(), token)
    assert client.get(f"/m/{row.view_token}/tally.json").get_json()["next"] == "Anna"
    assert client.get("/m/no-such-match/tally.json").status_code == 404
