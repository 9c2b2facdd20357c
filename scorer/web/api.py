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

from flask import Blueprint, current_app, request, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from ..engine.errors import ReadError, ScartoError
from ..engine.limits import MAX_UPLOAD_BYTES
from ..engine.records import loads, parse_match
from ..engine.scoring import score_hand
from ..storage import store
from .context import get_db

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_DEPTH = 32
"""A match file nests six levels deep (match, hands, hand, tricks, trick, cards); far more is not one."""


def refuse(status: int, error: str, message: str, **extra: Any) -> tuple[dict[str, Any], int]:
    """A JSON refusal: a stable ``error`` code for programs and a ``message`` for people."""
    return {"error": error, "message": message, **extra}, status


def check_value(value: Any, limit: int = MAX_DEPTH) -> None:
    """Refuse what JSON allows but no match file holds: deep nesting, text that is not Unicode.

    JSON may escape half of a surrogate pair (``"\\ud800"``); Python reads it into a
    string that cannot be written as UTF-8, so it must be refused here, not fail later.
    Checked without recursion.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _text(item)
            continue
        if isinstance(item, dict):
            children: Any = item.values()
            for key in item:
                _text(key)
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            raise ReadError(f"nested more than {limit} levels deep; a match file is not", "body")
        stack.extend((child, depth + 1) for child in children)


def _text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ReadError(f"{text[:40]!r} holds a lone surrogate escape; that is not text", "body") from exc


def json_body() -> Any:
    """The request's JSON value; ReadError with the reason it cannot be one."""
    raw = request.get_data(cache=False)  # RequestEntityTooLarge past MAX_CONTENT_LENGTH
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if request.content_length is None and limit is not None and len(raw) >= limit:
        # a streamed (chunked) body is cut at the limit, not refused: refuse it here
        raise RequestEntityTooLarge()
    if not raw:
        raise ReadError("empty; send the match file as the body", "body")
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark is tolerated, as RFC 8259 allows
    except UnicodeDecodeError as exc:
        raise ReadError("not UTF-8 text; send the JSON encoded as UTF-8", "body") from exc
    value = loads(text, "body")
    check_value(value)
    return value


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
    problems = []
    for number, hand in enumerate(match.hands, start=1):
        result = score_hand(hand)
        problems += [{"hand": number, **p.to_dict()} for p in result.errors]
    if problems:
        hands = sorted({p["hand"] for p in problems})
        message = ("A hand with errors cannot be scored, so the match was not created; see hand "
                   + ", ".join(str(n) for n in hands) + ".")
        return refuse(400, "bad_request", message, problems=problems)
    row = store.create_match(get_db(), match)
    body = {
        "edit_url": url_for("matches.match_page", token=row.edit_token, _external=True),
        "view_url": url_for("matches.match_page", token=row.view_token, _external=True),
    }
    return body, 201, {"Location": body["edit_url"]}
