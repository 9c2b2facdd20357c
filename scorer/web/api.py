"""The JSON interface for programs: the same formats as the files.

The API is exempt from CSRF (a program has no session or form to carry a
token), so it accepts only what a page on another site cannot send without
asking first: a JSON body (``Content-Type: application/json``), which a browser
only sends across sites after a CORS preflight that this app never grants.
Every refusal is a JSON object with a ``message`` a person can act on, never a
page or a traceback.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

from ..engine.errors import ScartoError
from ..engine.limits import MAX_UPLOAD_BYTES
from ..engine.records import parse_match
from ..engine.scoring import score_hand
from ..storage import store
from .db import get_db
from .jsonio import created, json_body, refuse
from .lookalikes import look_alike_sentences

bp = Blueprint("api", __name__, url_prefix="/api")

@bp.post("/matches")
def create_match() -> Any:
    """Create a match from a ``scarto-match/1`` body: 201 with its links, 4xx JSON saying what is wrong."""
    if not request.is_json:
        return refuse(415, "unsupported_media_type",
                      "Send the match as a scarto-match/1 JSON body with Content-Type: application/json.")
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        return refuse(415, "unsupported_media_type", f"The body must be UTF-8, not {charset}.")
    try:
        match = parse_match(json_body())
    except RequestEntityTooLarge:
        limit = current_app.config.get("MAX_CONTENT_LENGTH") or MAX_UPLOAD_BYTES
        return refuse(413, "too_large", f"The body is larger than {limit // 1024} KB; a match file is much smaller.")
    except ScartoError as exc:
        problem = {"code": exc.code, "where": exc.where, "message": exc.message}
        return refuse(400, "bad_request", str(exc), problems=[problem])
    results = [score_hand(hand) for hand in match.hands]  # judged once: to refuse the match, or to store it
    problems = [{"hand": number, **p.to_dict()} for number, result in enumerate(results, start=1)
                for p in result.errors]
    if problems:
        hands = sorted({p["hand"] for p in problems})
        message = ("A hand with errors cannot be scored, so the match was not created; see hand "
                   + ", ".join(str(n) for n in hands) + ".")
        return refuse(400, "bad_request", message, problems=problems)
    row = store.create_match(get_db(), match, results)
    body, status, headers = created("matches.match_page", row.edit_token, row.view_token)
    warnings = look_alike_sentences(match.players)  # kept as two players, but said
    return ({**body, "warnings": warnings} if warnings else body), status, headers
