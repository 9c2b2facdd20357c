"""What a link's token opens: a match, a club or a night, or the refusal to open it.

Matches, clubs and nights are reached by capability links alike: an edit link changes things,
a view link only looks, and a token nobody made opens nothing. One loader says so for the three
(:func:`load_by_token` for pages, :func:`request_by_token` for programs), each told what it
opens by a :class:`TokenKind`, so that the 404 and 403 answers cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from flask import abort, g
from flask_babel import gettext as _

from ..engine.messages import N_
from ..storage import clubs as club_store
from ..storage import nights as night_store
from ..storage import store
from .db import get_db
from .jsonio import NOT_FOUND, json_request, refuse

Row = TypeVar("Row")


def _as_it_is(row: Any) -> None:
    """A page opened by the token needs nothing set for its templates."""


@dataclass(frozen=True)
class TokenKind(Generic[Row]):
    """A kind of thing a token opens: how its row is found, and what its view link is told where
    things change."""

    find: Callable[[Any, str], tuple[Row, bool]]
    """The storage's lookup: (the row, whether the token is its edit link); store.NotFound if none."""
    view_only: str
    """Why the view link may not change anything: in English for programs, translated on pages."""
    for_pages: Callable[[Row], None] = _as_it_is
    """What a page opened by the token sets for its templates."""


def _table_pack(row: store.MatchRow) -> None:
    g.pack = row.settings.get("pack") or "italian"  # cards on its pages look like the table's pack


# The storage's lookups are named at each call, not taken once here: the function in force is the one
# the storage module has then (a test replaces one to see a database fault answered).
MATCH: TokenKind[store.MatchRow] = TokenKind(
    lambda db, token: store.find_match(db, token),
    N_("This is the view-only link of the match: it cannot change anything."), _table_pack)
CLUB: TokenKind[club_store.ClubRow] = TokenKind(
    lambda db, token: club_store.find_club(db, token),
    N_("This is the view-only link of the club: it cannot change anything."))
NIGHT: TokenKind[night_store.NightRow] = TokenKind(
    lambda db, token: night_store.find_night(db, token),
    N_("This is the view-only link of the night: it cannot change anything."))


def load_by_token(kind: TokenKind[Row], token: str, *, edit: bool = False) -> tuple[Row, bool]:
    """What a token opens for a page, and whether it may change it: 404 for an unknown token, 403 for
    the view link on a page that changes things (``edit``)."""
    try:
        row, can_edit = kind.find(get_db(), token)
    except store.NotFound:
        abort(404)
    if edit and not can_edit:
        abort(403, description=_(kind.view_only))
    kind.for_pages(row)
    return row, can_edit


def request_by_token(kind: TokenKind[Row], token: str) -> tuple[Any, Any, Any]:
    """(what an edit link opens, the JSON body a program sent to it, None), or (None, None, the refusal
    to answer): 404 for an unknown token, 403 for the view link, 415 or 400 for a body that is not JSON."""
    try:
        row, can_edit = kind.find(get_db(), token)
    except store.NotFound:
        return None, None, refuse(404, "not_found", NOT_FOUND)
    if not can_edit:
        return None, None, refuse(403, "forbidden", kind.view_only)
    value, refusal = json_request()
    return (None, None, refusal) if refusal is not None else (row, value, None)


def open_each(kind: TokenKind[Row], tokens: Iterable[str]) -> list[tuple[str, Row, bool]]:
    """(token, what it opens, whether it may change it) for each token that still opens something, in
    their order: the start page's recent matches and clubs, where one deleted since is simply left out."""
    out = []
    for token in tokens:
        try:
            row, can_edit = kind.find(get_db(), token)
        except store.NotFound:
            continue
        out.append((token, row, can_edit))
    return out
