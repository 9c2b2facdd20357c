"""Helpers for web tests: read the CSRF token off a page, post a form as a browser would."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

_TOKEN = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"')


def csrf_token(page: str) -> str:
    match = _TOKEN.search(page)
    assert match, "the page has no CSRF token"
    return match.group(1) or match.group(2)


def submit(client: FlaskClient, url: str, data: dict[str, Any], *, page_url: str | None = None,
           follow: bool = False) -> TestResponse:
    """GET the page holding the form, then POST the data with the page's CSRF token."""
    page = client.get(page_url or url)
    assert page.status_code == 200, page.status_code
    return client.post(url, data={"csrf_token": csrf_token(page.get_data(as_text=True)), **data},
                       follow_redirects=follow)


def start_match(client: FlaskClient, names: tuple[str, ...] = ("Anna", "Bruno", "Carla"), **extra: Any) -> str:
    """Create a match through the form; returns its edit token."""
    data = {"preset": "classic", "first_dealer": "1", "end_kind": "hands", "settle": "per_point",
            "currency": "EUR", "end_target": "100"}
    for i, name in enumerate(names, start=1):
        data[f"player_{i}"] = name
    data.update(extra)
    response = submit(client, "/new", data)
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    location = response.headers["Location"]
    return location.rstrip("/").split("/m/")[1]
