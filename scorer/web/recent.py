"""The phone's recent matches and clubs, kept in its cookies for the start page.

No account holds them: a phone remembers the links it opened (the tokens, newest first), and
the start page lists those it still may open.
"""

from __future__ import annotations

from flask import request
from werkzeug.wrappers import Response as BaseResponse

RECENT = 12
"""Matches the start page lists (the tokens kept in the ``recent`` cookie)."""


def recent_tokens() -> list[str]:
    raw = request.cookies.get("recent", "")
    return [t for t in raw.split(".") if t][:RECENT]


CLUBS_COOKIE = "clubs"


def recent_clubs() -> list[str]:
    """The tokens of the clubs this phone opened, newest first (its ``clubs`` cookie)."""
    raw = request.cookies.get(CLUBS_COOKIE, "")
    return [t for t in raw.split(".") if t][:6]


def remember(response: BaseResponse, token: str) -> BaseResponse:
    """Keep the match on this phone's start page (a cookie of tokens, newest first); not sent again
    while the match is already the newest (a table's phones look at the same match all evening), so
    its 400 days run from the last time the list changed."""
    kept = recent_tokens()
    if kept and kept[0] == token:
        return response
    tokens = [token] + [t for t in kept if t != token]
    response.set_cookie("recent", ".".join(tokens[:RECENT]), max_age=400 * 24 * 3600, samesite="Lax",
                        httponly=True)
    return response


def remember_club(response: BaseResponse, token: str) -> BaseResponse:
    """Keep the club on this phone's start page (not sent again while it is the newest there)."""
    known = recent_clubs()
    if known and known[0] == token:
        return response
    tokens = [token] + [t for t in known if t != token]
    response.set_cookie(CLUBS_COOKIE, ".".join(tokens[:6]), max_age=400 * 24 * 3600, samesite="Lax", httponly=True)
    return response
