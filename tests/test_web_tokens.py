"""What a link's token opens (scorer/web/tokens.py): matches, clubs and nights answered alike.

A page that changes things refuses the view link with 403 and the kind's sentence in the page's
language; a program's address refuses it with 403 and the sentence in English; a token nobody
made is 404 on both; the edit link opens both.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.seed import match_file

UNKNOWN = "A" * 24


def _tokens(response: Any, prefix: str) -> tuple[str, str]:
    assert response.status_code == 201, response.get_json()
    data = response.get_json()
    return data["edit_url"].split(prefix)[1].strip("/"), data["view_url"].split(prefix)[1].strip("/")


def _club(client: FlaskClient) -> tuple[str, str]:
    body = {"format": "scarto-club/1", "name": "Circolo Arci", "players": ["Anna", "Bruno", "Carla"],
            "defaults": {"language": "it", "ruleset": "classic"}}
    return _tokens(client.post("/api/clubs", json=body), "/c/")


def _night(client: FlaskClient) -> tuple[str, str]:
    club, _view = _club(client)
    body = {"format": "scarto-night/1", "title": "Giovedì", "date": "2026-12-03",
            "players": ["Anna", "Bruno", "Carla"], "rounds": 1, "seating": "mixed", "ranking": "total", "seed": 7}
    return _tokens(client.post(f"/c/{club}/nights", json=body), "/n/")


def _match(client: FlaskClient) -> tuple[str, str]:
    return _tokens(client.post("/api/matches", json=match_file(0)), "/m/")


KINDS = {
    # kind: (made by, a page that changes things, a program's address that changes things)
    "match": (_match, "/m/{}/hands/new/points", "/m/{}/hands.json"),
    "club": (_club, "/c/{}/settings", "/c/{}/parts"),
    "night": (_night, "/n/{}/cards.pdf", "/n/{}/rounds"),
}
ENGLISH = "This is the view-only link of the {}: it cannot change anything."
ITALIAN = {"match": "Questo è il link in sola lettura della partita: non può modificare nulla.",
           "club": "Questo è il link in sola lettura del circolo: non può modificare nulla.",
           "night": "Questo è il link di sola lettura della serata: non può cambiare nulla."}


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_view_link_is_refused_where_things_change_with_its_kinds_sentence(client: FlaskClient,
                                                                             kind: str) -> None:
    make, page, program = KINDS[kind]
    edit, view = make(client)
    refused = client.get(page.format(view) + "?lang=it")
    assert refused.status_code == 403
    assert ITALIAN[kind] in refused.get_data(as_text=True)
    answer = client.post(program.format(view), json={})
    assert answer.status_code == 403 and answer.get_json() == {
        "error": "forbidden", "message": ENGLISH.format(kind)}
    assert client.get(page.format(edit)).status_code == 200


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_token_nobody_made_opens_nothing(client: FlaskClient, kind: str) -> None:
    _make, page, program = KINDS[kind]
    assert client.get(page.format(UNKNOWN)).status_code == 404
    answer = client.post(program.format(UNKNOWN), json={})
    assert answer.status_code == 404 and answer.get_json()["error"] == "not_found"


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_edit_link_gets_past_the_loader_to_the_body(client: FlaskClient, kind: str) -> None:
    """Past the token, a program's body that is not JSON is the next refusal (415), for every kind."""
    make, _page, program = KINDS[kind]
    edit, _view = make(client)
    assert client.post(program.format(edit), data="x=1").status_code == 415
