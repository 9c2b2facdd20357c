"""A hand's history: revisions listed and restored, deletes undone, nothing ever lost."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.storage import store
from scorer.web import get_db
from tests.seed import hand_keys, seed_match
from tests.webutil import csrf_token

EDITED = {"dealer": "Bruno", "points": {"Anna": 20, "Bruno": 33, "Carla": 25}}


@pytest.fixture()
def seeded(app: Flask) -> tuple[str, str, list[str]]:
    """A match of four hands: (edit token, view token, hand keys)."""
    edit, view = seed_match(app, 4)
    return edit, view, hand_keys(app, edit)


def with_db(app: Flask, work: Callable[[Any, store.MatchRow], Any], token: str) -> Any:
    with app.app_context():
        db = get_db()
        row, _ = store.find_match(db, token)
        return work(db, row)


def hand(app: Flask, token: str, key: str) -> store.HandRow:
    return with_db(app, lambda db, row: store.get_hand(db, row.id, key), token)  # type: ignore[no-any-return]


def edit_hand(app: Flask, token: str, key: str, record: dict[str, Any]) -> store.HandRow:
    return with_db(app, lambda db, row: store.update_hand(db, row.id, key, record), token)  # type: ignore[no-any-return]


def post(client: FlaskClient, url: str, **data: Any) -> Any:
    """POST a form with a valid CSRF token (read off the start page of this session)."""
    token = csrf_token(client.get("/new").get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **data})


def text(response: Any) -> str:
    return response.get_data(as_text=True)  # type: ignore[no-any-return]


def main_part(page: str) -> str:
    return page.split("<main>", 1)[1]


# --- the history page ---------------------------------------------------------------


def test_history_lists_every_revision_with_its_scores(app: Flask, client: FlaskClient,
                                                      seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    edit_hand(app, edit, keys[1], EDITED)
    page = text(client.get(f"/m/{edit}/hands/{keys[1]}/history"))
    assert "History of hand 2" in page
    versions = re.findall(r'<li id="v(\d+)"', page)
    assert versions == ["2", "1"]  # newest first
    current, first = page.split('<li id="v2"')[1].split('<li id="v1"')
    assert "Version 2: edited" in current and 'aria-current="true"' in current and "current</b>" in current
    assert "Version 1: created" in first and "current</b>" not in first
    # version 1 is the classic-points fixture dealt by Bruno: 31 22 25 rotated, scores against a base of 26
    assert "Bruno dealt" in first and "counted points" in first
    assert re.search(r"<td>Anna</td><td class=\"num\">25</td><td class=\"num\">-1</td>", first)
    assert re.search(r"<td>Bruno</td><td class=\"num\">31</td><td class=\"num\">5</td>", first)
    assert re.search(r"<tr class=\"changed\"><td>Anna</td><td class=\"num\">20</td><td class=\"num\">-6</td>", current)
    # the server says the time in the club zone, named; times.js says it in the phone's own
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ" data-local>[^<]+\(UTC\)</time>', first)
    assert "/static/times.js" in page
    assert "Restore version 1" in first and "Restore version 2" not in page


def test_history_summarises_every_record_form(app: Flask, client: FlaskClient) -> None:
    edit, _view = seed_match(app, 4)
    forms = []
    for key in hand_keys(app, edit):
        page = text(client.get(f"/m/{edit}/hands/{key}/history"))
        forms.append(re.search(r"dealt</span> · ([^<]+)</p>", page).group(1))  # type: ignore[union-attr]
    assert forms == ["full record, trick by trick", "counted points", "captured cards",
                     "counting cards and pile sizes"]


def test_history_names_the_rule_breaches(app: Flask, client: FlaskClient) -> None:
    edit, _view = seed_match(app, 6)
    page = text(client.get(f"/m/{edit}/hands/{hand_keys(app, edit)[5]}/history"))
    assert re.search(r'<p class="warning">Revoke \(trick \d+\)</p>', page)


def test_view_link_sees_the_history_but_no_buttons(client: FlaskClient, seeded: tuple[str, str, list[str]],
                                                   app: Flask) -> None:
    edit, view, keys = seeded
    edit_hand(app, edit, keys[0], EDITED)
    page = text(client.get(f"/m/{view}/hands/{keys[0]}/history"))
    assert "Version 1: created" in page
    assert "<form" not in main_part(page) and edit not in page


def test_unknown_hand_or_token_is_404(client: FlaskClient, seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    assert client.get(f"/m/{edit}/hands/nope/history").status_code == 404
    assert client.get(f"/m/wrong-token/hands/{keys[0]}/history").status_code == 404
    assert post(client, f"/m/{edit}/hands/{keys[0]}/restore/9", version="1").status_code == 404
    assert post(client, f"/m/{edit}/hands/nope/delete", version="1").status_code == 404


def test_a_hand_of_another_match_is_404(app: Flask, client: FlaskClient, seeded: tuple[str, str, list[str]]) -> None:
    _edit, _view, keys = seeded
    other, _ = seed_match(app, 1)
    assert client.get(f"/m/{other}/hands/{keys[0]}/history").status_code == 404
    assert post(client, f"/m/{other}/hands/{keys[0]}/delete", version="1").status_code == 404


def test_an_unreadable_stored_record_is_shown_not_a_500(app: Flask, client: FlaskClient,
                                                        seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded

    def spoil(db: Any, row: store.MatchRow) -> None:
        db.execute("UPDATE revisions SET record = ? WHERE version = 1 AND hand_id = "
                   "(SELECT id FROM hands WHERE key = ?)", [json.dumps({"dealer": "Zoe", "points": {}}), keys[0]])

    with_db(app, spoil, edit)
    edit_hand(app, edit, keys[0], EDITED)
    response = client.get(f"/m/{edit}/hands/{keys[0]}/history")
    assert response.status_code == 200
    assert "This record cannot be read: dealer: &#39;Zoe&#39; is not one of the players" in text(response)
    refused = post(client, f"/m/{edit}/hands/{keys[0]}/restore/1", version="2")
    assert refused.status_code == 400
    assert "Version 1 cannot be restored" in text(refused)
    assert hand(app, edit, keys[0]).record == EDITED


# --- restore ----------------------------------------------------------------------


def test_restore_makes_a_new_revision(app: Flask, client: FlaskClient, seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    original = hand(app, edit, keys[1]).record
    edit_hand(app, edit, keys[1], EDITED)
    response = post(client, f"/m/{edit}/hands/{keys[1]}/restore/1", version="2")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/m/{edit}/hands/{keys[1]}/history")
    restored = hand(app, edit, keys[1])
    assert (restored.version, restored.record) == (3, original)
    page = text(client.get(response.headers["Location"]))
    assert "Version 1 restored: the hand counts it now." in page
    assert "Version 3: restored" in page and re.findall(r'<li id="v(\d+)"', page) == ["3", "2", "1"]
    assert "Restore version 2" in page and "Same as the current version." in page


def test_restore_after_another_phone_saved_is_a_conflict(app: Flask, client: FlaskClient,
                                                         seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    edit_hand(app, edit, keys[1], EDITED)  # version 2, seen by this phone
    other = {"dealer": "Bruno", "points": {"Anna": 40, "Bruno": 13, "Carla": 25}}
    edit_hand(app, edit, keys[1], other)  # version 3, from another phone
    response = post(client, f"/m/{edit}/hands/{keys[1]}/restore/1", version="2")
    assert response.status_code == 409
    page = text(response)
    assert "This hand was changed from another phone while you were editing it." in page
    assert "your change was not made" in page
    current = page.split('<li id="v3"')[1].split("</li>")[0]
    assert "current</b>" in current and '<td class="num">40</td>' in current
    assert hand(app, edit, keys[1]).record == other


def test_restoring_the_current_record_changes_nothing(app: Flask, client: FlaskClient,
                                                      seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    response = post(client, f"/m/{edit}/hands/{keys[0]}/restore/1", version="1")
    assert response.status_code == 303
    assert hand(app, edit, keys[0]).version == 1
    assert "Version 1 is already the current one: nothing changed." in text(client.get(response.headers["Location"]))


# --- delete and undo ----------------------------------------------------------------


def test_delete_then_undo_from_the_match_page(app: Flask, client: FlaskClient,
                                              seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    before = client.get(f"/m/{edit}/export.json").data
    response = post(client, f"/m/{edit}/hands/{keys[2]}/delete", version="1")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/m/{edit}/")
    page = text(client.get(response.headers["Location"]))
    flash = re.search(r'<div class="flash undo" role="status">(.*?)</div>', page, re.S).group(1)  # type: ignore[union-attr]
    assert "Hand 3 deleted." in flash
    assert f'action="/m/{edit}/hands/{keys[2]}/undelete"' in flash
    assert 'name="version" value="2"' in flash and ">Undo</button>" in flash
    assert len(json.loads(client.get(f"/m/{edit}/export.json").data)["hands"]) == 3
    assert hand(app, edit, keys[2]).deleted_at is not None

    undo = client.post(f"/m/{edit}/hands/{keys[2]}/undelete",
                       data={"csrf_token": csrf_token(flash), "version": "2"})
    assert undo.status_code == 303
    assert "Hand 3 is back in the match." in text(client.get(undo.headers["Location"]))
    assert client.get(f"/m/{edit}/export.json").data == before
    actions = with_db(app, lambda db, row: [r.action for r in store.revisions(db, hand(app, edit, keys[2]).id)],
                      edit)
    assert actions == ["create", "delete", "undelete"]


def test_undo_twice_does_nothing_the_second_time(app: Flask, client: FlaskClient,
                                                 seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    post(client, f"/m/{edit}/hands/{keys[0]}/delete", version="1")
    assert post(client, f"/m/{edit}/hands/{keys[0]}/undelete", version="2").status_code == 303
    again = post(client, f"/m/{edit}/hands/{keys[0]}/undelete", version="2")
    assert again.status_code == 303
    assert "Hand 1 is not deleted: nothing to undo." in text(client.get(again.headers["Location"]))
    assert hand(app, edit, keys[0]).version == 3


def test_deleting_a_deleted_hand_is_a_conflict(app: Flask, client: FlaskClient,
                                               seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    post(client, f"/m/{edit}/hands/{keys[0]}/delete", version="1")
    response = post(client, f"/m/{edit}/hands/{keys[0]}/delete", version="2")
    assert response.status_code == 409
    assert "This hand was already deleted." in text(response)
    assert hand(app, edit, keys[0]).version == 2


def test_deleting_a_hand_changed_meanwhile_is_a_conflict(app: Flask, client: FlaskClient,
                                                         seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    edit_hand(app, edit, keys[0], EDITED)
    response = post(client, f"/m/{edit}/hands/{keys[0]}/delete", version="1")
    assert response.status_code == 409
    assert "changed from another phone" in text(response)
    assert hand(app, edit, keys[0]).deleted_at is None


def test_deleted_hands_page_brings_a_hand_back(app: Flask, client: FlaskClient,
                                               seeded: tuple[str, str, list[str]]) -> None:
    edit, view, keys = seeded
    match_page = text(client.get(f"/m/{edit}/"))
    assert f'href="/m/{edit}/deleted"' in match_page
    assert "No hand of this match is deleted." in text(client.get(f"/m/{edit}/deleted"))
    post(client, f"/m/{edit}/hands/{keys[1]}/delete", version="1")
    page = text(client.get(f"/m/{edit}/deleted"))
    item = page.split(f'<li id="hand-{keys[1]}">')[1].split("</li>")[0]
    assert "Would be hand 2" in item and "Bruno dealt" in item
    assert f'action="/m/{edit}/hands/{keys[1]}/undelete"' in item
    assert f'href="/m/{edit}/hands/{keys[1]}/history"' in item
    history = text(client.get(f"/m/{edit}/hands/{keys[1]}/history"))
    assert "History of a deleted hand (would be hand 2)" in history and "Bring the hand back" in history
    assert "Delete hand" not in history
    seen_by_view = text(client.get(f"/m/{view}/deleted"))
    assert "Would be hand 2" in seen_by_view and "<form" not in main_part(seen_by_view)
    assert post(client, f"/m/{edit}/hands/{keys[1]}/undelete", version="2").status_code == 303
    assert "No hand of this match is deleted." in text(client.get(f"/m/{edit}/deleted"))


def test_restoring_a_version_of_a_deleted_hand_brings_it_back(app: Flask, client: FlaskClient,
                                                              seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    original = hand(app, edit, keys[3]).record
    edit_hand(app, edit, keys[3], EDITED)
    post(client, f"/m/{edit}/hands/{keys[3]}/delete", version="2")
    response = post(client, f"/m/{edit}/hands/{keys[3]}/restore/1", version="3")
    assert response.status_code == 303
    back = hand(app, edit, keys[3])
    assert back.deleted_at is None and back.record == original and back.version == 4


# --- refusals ---------------------------------------------------------------------


@pytest.mark.parametrize(("action", "version", "message"), [
    ("delete", None, "The page did not say which version of the hand it showed."),
    ("delete", "two", "Not a valid integer value."),
    ("restore/1", "0", "The page did not say which version of the hand it showed."),
    ("undelete", "", "The page did not say which version of the hand it showed."),
])
def test_a_form_without_a_usable_version_is_refused(app: Flask, client: FlaskClient,
                                                    seeded: tuple[str, str, list[str]], action: str,
                                                    version: str | None, message: str) -> None:
    edit, _view, keys = seeded
    data = {} if version is None else {"version": version}
    response = post(client, f"/m/{edit}/hands/{keys[0]}/{action}", **data)
    assert response.status_code == 400
    assert message in text(response)
    assert hand(app, edit, keys[0]).version == 1


@pytest.mark.parametrize("action", ["delete", "undelete", "restore/1"])
def test_the_view_link_cannot_change_a_hand(app: Flask, client: FlaskClient, seeded: tuple[str, str, list[str]],
                                            action: str) -> None:
    edit, view, keys = seeded
    before = client.get(f"/m/{edit}/export.json").data
    response = post(client, f"/m/{view}/hands/{keys[0]}/{action}", version="1")
    assert response.status_code == 403
    assert "This is the view-only link of the match: it cannot change anything." in text(response)
    assert client.get(f"/m/{edit}/export.json").data == before
    assert hand(app, edit, keys[0]).version == 1


def test_changes_need_the_csrf_token(app: Flask, client: FlaskClient, seeded: tuple[str, str, list[str]]) -> None:
    edit, _view, keys = seeded
    response = client.post(f"/m/{edit}/hands/{keys[0]}/delete", data={"version": "1"})
    assert response.status_code == 400
    assert "The form expired or was sent from elsewhere." in text(response)
    assert hand(app, edit, keys[0]).deleted_at is None


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "the rules this match was recorded under written out"),
    ("it", "le regole con cui è stata registrata questa partita"),
    ("de", "die Regeln, unter denen dieses Spiel aufgezeichnet wurde"),
    ("fi", "säännöt, joilla tämä ottelu kirjattiin"),
    ("es", "las reglas con las que se registró esta partida"),
])
def test_the_history_says_when_a_four_match_kept_its_old_rules(app: Flask, client: FlaskClient, lang: str,
                                                                words: str) -> None:
    """The upgrade that writes out an old ``four`` match's switches shows in each hand's history."""
    from scorer.storage.db import _m003_rules_kept_for_four_and_piccolo

    names = ["Anna", "Bruno", "Carla", "Dario"]
    created = client.post("/api/matches", json={
        "format": "scarto-match/1", "ruleset": "four", "players": names, "first_dealer": "Anna",
        "hands": [{"dealer": "Anna", "points": {"Anna": 30, "Bruno": 20, "Carla": 18, "Dario": 10}}]})
    edit = created.json["edit_url"].rstrip("/").split("/m/")[1]
    with app.app_context():
        db = get_db()
        with db.atomic():
            _m003_rules_kept_for_four_and_piccolo(db)  # as if the match had been stored before the change
    page = text(client.get(f"/m/{edit}/hands/{hand_keys(app, edit)[0]}/history?lang={lang}"))
    assert words in page


def test_a_long_history_is_shown_a_page_at_a_time(app: Flask, client: FlaskClient,
                                                  seeded: tuple[str, str, list[str]]) -> None:
    """Every revision was on one page: a hand changed a thousand times made a page of a megabyte (600 ms)."""
    from scorer.web.history import HISTORY_PAGE

    edit, _view, keys = seeded
    other = {"dealer": "Bruno", "points": {"Anna": 40, "Bruno": 20, "Carla": 18}}
    for i in range(2 * HISTORY_PAGE + 9):  # versions 2 to 110: EDITED and other in turn
        edit_hand(app, edit, keys[0], EDITED if i % 2 else other)
    total = 2 * HISTORY_PAGE + 10
    url = f"/m/{edit}/hands/{keys[0]}/history"
    first = client.get(url).get_data(as_text=True)
    shown = [int(v) for v in re.findall(r'<li id="v(\d+)"', first)]
    assert shown == list(range(total, total - HISTORY_PAGE, -1))
    assert f"Versions {total - HISTORY_PAGE + 1}–{total} of {total}" in first and "Newer versions" not in first
    older = re.search(r'class="older" href="([^"]+)"', first)
    assert older and "page=2" in older.group(1)
    second = client.get(older.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert [int(v) for v in re.findall(r'<li id="v(\d+)"', second)][0] == total - HISTORY_PAGE
    assert "Newer versions" in second
    last = client.get(f"{url}?page=99").get_data(as_text=True)  # past the last page: the last
    assert [int(v) for v in re.findall(r'<li id="v(\d+)"', last)] == list(range(total - 2 * HISTORY_PAGE, 0, -1))
    # the page's oldest version is compared with the one before it, on the next page: its changes are marked
    boundary = first.split(f'<li id="v{total - HISTORY_PAGE + 1}"')[1].split("</li>")[0]
    whole = client.get(url).get_data(as_text=True).split(f'<li id="v{total - 1}"')[1].split("</li>")[0]
    assert boundary.count("changed") == whole.count("changed") > 0


def test_the_deleted_hands_are_listed_a_page_at_a_time(app: Flask, client: FlaskClient) -> None:
    """All deleted hands were on one page: 1,000 of them made a page of a megabyte."""
    from scorer.web.history import HISTORY_PAGE

    edit, _view = seed_match(app, HISTORY_PAGE + 5)
    keys = hand_keys(app, edit)
    with_db(app, lambda db, row: [store.delete_hand(db, row.id, key) for key in keys], edit)
    first = client.get(f"/m/{edit}/deleted").get_data(as_text=True)
    assert first.count('<li id="hand-') == HISTORY_PAGE
    assert f"Deleted hands 1–{HISTORY_PAGE} of {HISTORY_PAGE + 5}" in first and "Deleted later" not in first
    older = re.search(r'class="older" href="([^"]+)"', first)
    assert older
    second = client.get(older.group(1).replace("&amp;", "&")).get_data(as_text=True)
    listed = re.findall(r'<li id="hand-([0-9a-f]+)"', first) + re.findall(r'<li id="hand-([0-9a-f]+)"', second)
    assert sorted(listed) == sorted(keys) and "Deleted later" in second  # each deleted hand on one page
    assert listed[0] == keys[-1]  # the most recently deleted first
