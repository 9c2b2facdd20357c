"""Links that can be changed, and audits of hands too large for their link."""

from __future__ import annotations

import json
import random

from flask import Flask
from flask.testing import FlaskClient

from scorer.engine import limits
from scorer.engine.records import dumps, hand_to_dict, parse_hand
from scorer.engine.rulesets import PRESETS
from scorer.engine.simulation import simulate_hand
from scorer.storage import links, store
from scorer.web import get_db
from scorer.web.context import encode_record
from tests.matchutil import points_match
from tests.webutil import csrf_token


def _created(client: FlaskClient) -> tuple[str, str]:
    body = client.post("/api/matches", json=points_match(3)).get_json()
    return body["edit_url"].rstrip("/").split("/m/")[1], body["view_url"].rstrip("/").split("/m/")[1]


def test_new_links_replace_the_old_ones_which_then_open_nothing(app: Flask, client: FlaskClient) -> None:
    """A group that shared its edit link too widely had no remedy: tokens never changed."""
    edit, view = _created(client)
    share = client.get(f"/m/{edit}/share?lang=fi").get_data(as_text=True)
    assert "Tee uudet linkit" in share and "Linkit vaihdettu" not in share
    # one tap more: the button that replaces them sits in a section opened first, with what it does
    confirm = share.index('id="renew-confirm"')
    assert share.rindex('<details id="renew">', 0, confirm) < share.rindex("lakkaavat toimimasta heti", 0, confirm)
    response = client.post(f"/m/{edit}/links/renew", data={"csrf_token": csrf_token(share)})
    assert response.status_code == 302
    new_edit = response.headers["Location"].split("/m/")[1].split("/")[0]
    assert new_edit != edit
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Uudet linkit tehty" in page and "Linkit vaihdettu:" in page and '<time datetime="20' in page
    for old in (edit, view):
        for path in ("", "share", "export.json", "standings.csv", "sheet.pdf", "hands/new/points"):
            assert client.get(f"/m/{old}/{path}").status_code == 404, (old, path)
    assert client.get(f"/m/{new_edit}/").status_code == 200
    assert len(client.get(f"/m/{new_edit}/export.json").get_json()["hands"]) == 3  # the match itself kept
    with app.app_context():
        row, can_edit = store.find_match(get_db(), new_edit)
        assert can_edit and len(links.link_changes(get_db(), row.id)) == 1
        assert client.get(f"/m/{row.view_token}/").status_code == 200


def test_the_view_link_cannot_make_new_links(client: FlaskClient) -> None:
    edit, view = _created(client)
    share = client.get(f"/m/{view}/share").get_data(as_text=True)
    assert "Make new links" not in share
    token = csrf_token(client.get("/new").get_data(as_text=True))
    assert client.post(f"/m/{view}/links/renew", data={"csrf_token": token}).status_code == 403
    assert client.get(f"/m/{edit}/").status_code == 200


def _long_hand() -> dict[str, object]:
    """A legal hand whose audit link would be too long: long names (each character its own) and long notes."""
    rng = random.Random(3)
    hand = simulate_hand(PRESETS["classic"], rng)
    data = hand_to_dict(hand)
    names = ["".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(40)) for _ in range(3)]
    rename = dict(zip(data["players"], names, strict=True))
    text = dumps(data)
    for old, new in rename.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    record = parse_hand(json.loads(text))
    out = hand_to_dict(record)
    out["notes"] = "".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(limits.MAX_NOTES))
    return out


def test_a_hand_too_large_for_its_link_is_audited_from_the_server(app: Flask, client: FlaskClient) -> None:
    """A valid hand file with ~7.5 KB of notes could not be audited: the redirect URL was refused as too long."""
    data = _long_hand()
    record = parse_hand(data)
    assert len(encode_record(record)) > limits.MAX_AUDIT_LINK
    page = client.get("/audit").get_data(as_text=True)
    response = client.post("/audit", data={"csrf_token": csrf_token(page), "text": dumps(data)})
    assert response.status_code == 302
    location = response.headers["Location"]
    assert "/audit/k/" in location and len(location) < 100
    audit = client.get(location)
    assert audit.status_code == 200 and audit.headers["Cache-Control"] == "no-store"
    assert client.get(location + "?t=3").status_code == 200
    assert client.get(location + ".json").get_json() == data
    assert client.get(location + ".pdf").data.startswith(b"%PDF")
    again = client.post("/audit", data={"csrf_token": csrf_token(page), "text": dumps(data)})
    assert again.headers["Location"] == location  # the same record, the same link, kept once
    with app.app_context():
        assert get_db().execute("SELECT COUNT(*) FROM kept_audits").fetchone()[0] == 1
    assert client.get("/audit/k/" + "0" * 32).status_code == 404
    assert client.get("/audit/k/not-a-key").status_code == 404


def test_a_small_hand_still_travels_in_its_link(client: FlaskClient) -> None:
    hand = hand_to_dict(simulate_hand(PRESETS["classic"], random.Random(1)))
    page = client.get("/audit").get_data(as_text=True)
    response = client.post("/audit", data={"csrf_token": csrf_token(page), "text": dumps(hand)})
    assert response.status_code == 302 and "/audit/k/" not in response.headers["Location"]
