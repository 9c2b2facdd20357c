"""The JSON interface for programs: the same formats as the files."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request, url_for

from .. import store
from ..errors import ScartoError
from ..records import loads, parse_match
from ..scoring import score_hand
from . import get_db

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.post("/matches")
def create_match() -> Any:
    """Create a match from a ``scarto-match/1`` body: 201 with its links, 400 with the problems."""
    try:
        match = parse_match(loads(request.get_data(cache=False), "body"))
    except ScartoError as exc:
        return {"error": "bad_request", "problems": [{"code": exc.code, "where": exc.where,
                                                      "message": exc.message}]}, 400
    problems = []
    for number, hand in enumerate(match.hands, start=1):
        result = score_hand(hand)
        errors = [p for p in result.problems if p.severity == "error"]
        problems += [{"hand": number, **p.to_dict()} for p in errors]
    if problems:
        return {"error": "bad_request", "problems": problems}, 400
    row = store.create_match(get_db(), match)
    body = {
        "edit_url": url_for("matches.match_page", token=row.edit_token, _external=True),
        "view_url": url_for("matches.match_page", token=row.view_token, _external=True),
    }
    return body, 201, {"Location": body["edit_url"]}
