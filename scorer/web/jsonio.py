"""Reading and answering JSON for the programs' addresses (the match API, the club API), and
telling a program's request from a person's (:func:`wants_json`: errors as JSON or as a page).

Not a blueprint: the modules with routes import it, never each other.
"""

from __future__ import annotations

import re
from typing import Any

from flask import current_app, request, url_for
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.exceptions import RequestEntityTooLarge

from ..engine.errors import ReadError, ScartoError
from ..engine.limits import MAX_UPLOAD_BYTES
from ..engine.records import loads

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


def posted_json() -> Any:
    """The JSON a page's script posted in place of a form (live.js), or None when the body is not JSON
    the app would write: not JSON at all, nested past :data:`MAX_DEPTH` (Python's reader gives up on
    deep nesting with a RecursionError, not a ValueError) or holding a lone surrogate. Never raises:
    the form it stands for then says what is missing."""
    try:
        value = request.get_json(silent=True)
        if value is not None:
            check_value(value)
    except (RecursionError, ReadError):
        return None
    return value


def json_fields(body: Any) -> ImmutableMultiDict[str, str]:
    """A posted JSON object's members as a form's fields: text as it is, numbers as text (5.0 as 5),
    true and false as a ticked and an empty box, a list of those as the field given once for each.
    Anything else (an object, null, a body that is no object) is left out, as a field the form did
    not get."""
    fields: list[tuple[str, str]] = []
    for name, value in (body.items() if isinstance(body, dict) else ()):
        fields += [(name, text) for item in (value if isinstance(value, list) else [value])
                   if (text := _field_text(item)) is not None]
    return ImmutableMultiDict(fields)


def _field_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "1" if value else ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


NOT_FOUND = "Nothing is at this address: check the link (a token is 24 characters)."


def json_request() -> tuple[Any, tuple[dict[str, Any], int] | None]:
    """The request's JSON value, or the refusal to answer with (415, 413 or 400)."""
    if not request.is_json:
        return None, refuse(415, "unsupported_media_type",
                            "Send a JSON body with Content-Type: application/json.")
    charset = request.mimetype_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        return None, refuse(415, "unsupported_media_type", f"The body must be UTF-8, not {charset}.")
    try:
        return json_body(), None
    except RequestEntityTooLarge:
        limit = current_app.config.get("MAX_CONTENT_LENGTH") or MAX_UPLOAD_BYTES
        return None, refuse(413, "too_large", f"The body is larger than {limit // 1024} KB.")
    except ScartoError as exc:
        return None, read_refusal(exc)


def read_refusal(exc: ScartoError) -> tuple[dict[str, Any], int]:
    """A read error as a 400 refusal listing it as a problem."""
    problem = {"code": exc.key or "read_error", "where": exc.where, "message": exc.message}
    return refuse(400, "bad_request", str(exc), problems=[problem])


def created(endpoint: str, edit_token: str, view_token: str) -> tuple[dict[str, str], int, dict[str, str]]:
    """201 with the new thing's edit and view links (the edit link also as ``Location``)."""
    body = {"edit_url": url_for(endpoint, token=edit_token, _external=True),
            "view_url": url_for(endpoint, token=view_token, _external=True)}
    return body, 201, {"Location": body["edit_url"]}


PROGRAMS_ONLY = re.compile(r"/(?:c/[^/]+/(?:matches|nights|parts)|n/[^/]+/rounds)/?")
"""The programs' addresses outside /api/ (clubs_api.py, nights_api.py): JSON is all they read and
answer, whatever the method."""


def wants_json() -> bool:
    """Programs' addresses (the API, the .json files) get errors as JSON, people get a page."""
    return (request.path.startswith("/api/") or request.path.endswith((".json", "/live/check"))
            or PROGRAMS_ONLY.fullmatch(request.path) is not None or request.is_json)
