"""Helpers for the hand-recording tests: fixtures, the entry forms as a phone posts them, the live check."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.webutil import csrf_token

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    """A hand record of tests/fixtures/hands."""
    return json.loads((FIXTURES / "hands" / f"{name}.json").read_text())


def expected(name: str) -> dict[str, Any]:
    """The expected ``scarto-result/1`` of a fixture hand."""
    return json.loads((FIXTURES / "expected" / f"{name}.json").read_text())


def hidden(page: str, name: str) -> str:
    """The value of a hidden field of a page."""
    match = re.search(rf'id="{name}" name="{name}" type="hidden" value="([^"]*)"', page)
    assert match, f"no hidden field {name}"
    return match.group(1)


def open_form(client: FlaskClient, url: str) -> tuple[str, dict[str, str]]:
    """GET an entry page; its text and the hidden fields a browser would post back."""
    response = client.get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    page = response.get_data(as_text=True)
    fields = {"csrf_token": csrf_token(page)}
    for name in ("expected_count", "version"):
        if f'name="{name}"' in page:
            fields[name] = hidden(page, name)
    return page, fields


def record(client: FlaskClient, token: str, form: str, data: dict[str, Any], *, follow: bool = False
           ) -> TestResponse:
    """Open the new-hand form and post the data, as a phone would (hidden fields included)."""
    _page, fields = open_form(client, f"/m/{token}/hands/new/{form}")
    return client.post(f"/m/{token}/hands/new/{form}", data={**fields, **data}, follow_redirects=follow)


def points_data(points: dict[str, Any], players: tuple[str, ...], dealer: str) -> dict[str, str]:
    """Form fields for counted points (a name left out is left blank)."""
    data = {"dealer": dealer}
    for i, name in enumerate(players):
        data[f"points_{i}"] = str(points.get(name, ""))
    return data


def csrf_of(client: FlaskClient, token: str) -> str:
    """A CSRF token for JSON requests (live.js sends it in the X-CSRFToken header)."""
    _page, fields = open_form(client, f"/m/{token}/hands/new/live")
    return fields["csrf_token"]


def check(client: FlaskClient, token: str, csrf: str, dealer: str, tricks: Any) -> TestResponse:
    """What live.js posts after each tap."""
    return client.post(f"/m/{token}/hands/live/check", json={"dealer": dealer, "tricks": tricks},
                       headers={"X-CSRFToken": csrf})


def save_live(client: FlaskClient, url: str, csrf: str, body: dict[str, Any]) -> TestResponse:
    """live.js saving the hand: the same fields as the form, as JSON."""
    return client.post(url, json=body, headers={"X-CSRFToken": csrf, "Accept": "application/json"})


def export(client: FlaskClient, token: str) -> dict[str, Any]:
    """The match file, to see what was stored."""
    response = client.get(f"/m/{token}/export.json")
    assert response.status_code == 200
    return json.loads(response.data)


def hand_keys(client: FlaskClient, token: str) -> list[str]:
    """The keys of the match's hands, in order, read off the standings links."""
    page = client.get(f"/m/{token}/").get_data(as_text=True)
    return list(dict.fromkeys(re.findall(rf"/m/{re.escape(token)}/hands/([0-9a-f]+)/", page)))


def view_token(client: FlaskClient, token: str) -> str:
    """The view-only token of a match, from its share page."""
    share = client.get(f"/m/{token}/share").get_data(as_text=True)
    tokens = set(re.findall(r"/m/([A-Za-z0-9_-]{20,})/", share))
    (other,) = tokens - {token}
    return other


def flashes(client: FlaskClient, token: str) -> list[str]:
    page = client.get(f"/m/{token}/").get_data(as_text=True)
    found = re.findall(r'<(p|div) class="flash[^"]*" role="status">(.*?)</\1>', page, re.S)
    return [re.sub(r"<[^>]+>", "", message).strip() for _tag, message in found]


def text(response: TestResponse) -> str:
    """A page's text with tags removed and entities of the messages decoded, for asserting words."""
    import html

    body = response.get_data(as_text=True)
    words = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))
    return re.sub(r" ([:.,;])", r"\1", words)
