"""Links that can be changed (a match's, a club's, a night's), and audits of hands too large for their link."""

from __future__ import annotations

import html
import json
import random
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from scorer.engine import limits
from scorer.engine.records import dumps, hand_to_dict, parse_hand
from scorer.engine.rulesets import PRESETS
from scorer.engine.simulation import simulate_hand
from scorer.storage import clubs as club_store
from scorer.storage import links, store
from scorer.web import get_db
from scorer.web.audit_links import encode_record
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


# --- a club's and a night's links ---------------------------------------------------------


def _club_with_a_match_and_a_night(client: FlaskClient) -> dict[str, Any]:
    """A club with a match of its own and a night (three tables, each a club match): every old token."""
    from tests.seed import match_file
    from tests.test_web_nights import NINE, new_club, new_night, night, token_of

    club, club_view = new_club(client, NINE)
    match = client.post(f"/c/{club}/matches", json=match_file(3)).get_json()
    night_edit, night_view = new_night(client, club)
    tables = [token_of(t["match_url"]) for t in night(client, night_edit)["rounds"][0]["tables"]]
    match_edit = token_of(match["edit_url"])
    return {"club": club, "club_view": club_view, "match": match_edit, "match_view": token_of(match["view_url"]),
            "night": night_edit, "night_view": night_view, "tables": tables}


def _renew(client: FlaskClient, page: str, action: str) -> Any:
    return client.post(action, data={"csrf_token": csrf_token(client.get(page).get_data(as_text=True))})


def test_new_club_links_leave_the_old_club_edit_link_no_club_match(app: Flask, client: FlaskClient) -> None:
    """Renewing a club match's links made its old ones 404, but the club's edit page showed the new edit
    link: a club edit link that got out kept edit rights on every club match for good."""
    old = _club_with_a_match_and_a_night(client)
    share = client.get(f"/c/{old['club']}/share").get_data(as_text=True)
    confirm = share.index('id="renew-confirm"')
    assert share.rindex('<details id="renew">', 0, confirm) < confirm  # one tap more, as a match's
    response = _renew(client, f"/c/{old['club']}/share", f"/c/{old['club']}/links/renew")
    assert response.status_code == 302
    club = response.headers["Location"].split("/c/")[1].split("/")[0]
    assert club != old["club"]
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "no longer open this club, nor its matches and nights" in page and "Links replaced:" in page
    for token in (old["club"], old["club_view"]):
        for path in ("", "share", "start", "export.json", "table", "nights/new"):
            assert client.get(f"/c/{token}/{path}").status_code == 404, (token, path)
        assert client.post(f"/c/{token}/matches", json={}).status_code == 404
    for token in (old["match"], old["match_view"], *old["tables"]):  # every club match, the night's too
        assert client.get(f"/m/{token}/").status_code == 404
        assert client.post(f"/m/{token}/hands.json", json={"dealer": "Anna"}).status_code == 404
    for token in (old["night"], old["night_view"]):
        assert client.get(f"/n/{token}/").status_code == 404
        assert client.get(f"/n/{token}/night.json").status_code == 404
    club_page = client.get(f"/c/{club}/").get_data(as_text=True)
    matches = set(re.findall(r'href="/m/([A-Za-z0-9_-]{24})/"', club_page))
    assert matches and not matches & {old["match"], *old["tables"]}
    for token in matches:  # the new links open the same matches, hands and all
        assert client.get(f"/m/{token}/").status_code == 200
    with app.app_context():
        row, _ = club_store.find_club(get_db(), club)
        assert len(links.owner_link_changes(get_db(), "club", row.id)) == 1
        ids = [r[0] for r in get_db().execute("SELECT match_id FROM club_matches WHERE club_id = ?", [row.id])]
        assert len(ids) == 4 and all(len(links.link_changes(get_db(), m)) == 1 for m in ids)


def test_new_night_links_leave_the_old_ones_and_its_tables_nothing(app: Flask, client: FlaskClient) -> None:
    old = _club_with_a_match_and_a_night(client)
    page = html.unescape(client.get(f"/n/{old['night']}/").get_data(as_text=True))
    assert 'id="renew-confirm"' in page and "print the table cards again" in page
    response = _renew(client, f"/n/{old['night']}/", f"/n/{old['night']}/links/renew")
    assert response.status_code == 302
    fresh = response.headers["Location"].split("/n/")[1].split("/")[0]
    assert fresh != old["night"]
    page = html.unescape(client.get(response.headers["Location"]).get_data(as_text=True))
    assert "no longer open this night, nor its tables' matches" in page and "Links replaced:" in page
    for token in (old["night"], old["night_view"]):
        for path in ("", "night.json", "state.json", "results.csv", "cards.pdf"):
            assert client.get(f"/n/{token}/{path}").status_code == 404, (token, path)
    for token in old["tables"]:
        assert client.get(f"/m/{token}/").status_code == 404
    from tests.test_web_nights import night, token_of
    tables = [token_of(t["match_url"]) for t in night(client, fresh)["rounds"][0]["tables"]]
    assert len(tables) == 3 and not set(tables) & set(old["tables"])
    assert all(client.get(f"/m/{t}/").status_code == 200 for t in tables)
    # the club's own links, and its match outside the night, stay as they were
    assert client.get(f"/c/{old['club']}/").status_code == 200
    assert client.get(f"/m/{old['match']}/").status_code == 200


def test_the_view_links_of_a_club_and_a_night_cannot_make_new_links(client: FlaskClient) -> None:
    old = _club_with_a_match_and_a_night(client)
    assert "Make new links" not in client.get(f"/c/{old['club_view']}/share").get_data(as_text=True)
    assert "Make new links" not in client.get(f"/n/{old['night_view']}/").get_data(as_text=True)
    token = csrf_token(client.get("/new").get_data(as_text=True))
    assert client.post(f"/c/{old['club_view']}/links/renew", data={"csrf_token": token}).status_code == 403
    assert client.post(f"/n/{old['night_view']}/links/renew", data={"csrf_token": token}).status_code == 403
    assert client.get(f"/c/{old['club']}/").status_code == 200 and client.get(f"/n/{old['night']}/").status_code == 200


def test_a_clubs_matches_get_their_new_links_in_steps(app: Flask, client: FlaskClient,
                                                       monkeypatch: Any) -> None:
    """A club of 10,000 matches held every save for 1.3 s in one write: its matches go a step at a time,
    after the club's own links, and every one of them is renewed all the same."""
    old = _club_with_a_match_and_a_night(client)
    monkeypatch.setattr(links, "RENEW_STEP", 3)
    writes: list[tuple[str, int]] = []
    real = links._write_links

    def counted(db: Any, table: str, rows: list[Any]) -> None:
        writes.append((table, len(rows)))
        real(db, table, rows)

    monkeypatch.setattr(links, "_write_links", counted)
    with app.app_context():
        row, _ = club_store.find_club(get_db(), old["club"])
        links.renew_club_links(get_db(), row.id)
    assert writes == [("clubs", 1), ("nights", 1), ("matches", 3), ("matches", 1)]
    for token in (old["match"], *old["tables"]):
        assert client.get(f"/m/{token}/").status_code == 404
