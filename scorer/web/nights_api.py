"""The JSON interface of club nights (docs/NIGHT.md): a night created from a ``scarto-night/1`` body
with the club's edit link, the next round started with the night's.

A blueprint of its own, ``nights_api``, exempt from CSRF and JSON only, as the clubs' is
(:mod:`.clubs_api`); the pages of a night are :mod:`.nights`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from ..engine import night_files
from ..engine.errors import ScartoError
from ..storage import clubs as club_store
from ..storage import nights as night_store
from .db import get_db
from .jsonio import created, read_refusal, refuse
from .night_views import club_language, round_data, title_for
from .tokens import CLUB, NIGHT, request_by_token

bp = Blueprint("nights_api", __name__)


@bp.post("/c/<token>/nights")
def create_night(token: str) -> Any:
    """``scarto-night/1`` -> 201 ``{"edit_url", "view_url"}``; the club's edit link only."""
    club, value, refusal = request_by_token(CLUB, token)
    if refusal is not None:
        return refusal
    try:
        spec = night_files.parse_night(value, club.settings, club.name)
        night = night_store.create_night(get_db(), club, spec, title_for(club_language(club)))
    except ScartoError as exc:
        return read_refusal(exc)
    return created("nights.night_page", night.edit_token, night.view_token)


@bp.post("/n/<token>/rounds")
def start_round(token: str) -> Any:
    """Start the next round: 201 with it; 409 while a table plays (unless ``{"force": true}``) or after the last."""
    night, value, refusal = request_by_token(NIGHT, token)
    if refusal is not None:
        return refusal
    if value is None:
        value = {}
    problems = []
    if not isinstance(value, dict):
        problems.append({"where": "body", "message": "send an object, {} or {\"force\": true, \"reason\": \"...\"}"})
    else:
        if not isinstance(value.get("force", False), bool):
            problems.append({"where": "force", "message": "true or false"})
        reason = value.get("reason", "")
        if not isinstance(reason, str) or len(reason) > night_store.MAX_REASON:
            problems.append({"where": "reason", "message": "a text of at most 200 characters"})
    if problems:
        return refuse(400, "bad_request", "The body is not a round request.", problems=problems)
    club = club_store.get_club(get_db(), night.club_id)
    try:
        number = night_store.start_round(get_db(), night.id, force=bool(value.get("force")),
                                         reason=str(value.get("reason", "")).strip(),
                                         title_for=title_for(club_language(club)))
    except night_store.NotDone as exc:
        return refuse(409, "conflict", "A table of the current round has not finished; send "
                      "{\"force\": true, \"reason\": \"...\"} to start the next round anyway.", tables=exc.tables)
    except night_store.NightOver:
        return refuse(409, "conflict", "Every round of the night has been seated.")
    except ScartoError as exc:
        return read_refusal(exc)
    state = night_store.night_state(get_db(), night_store.get_night(get_db(), night.id))
    return round_data(state, number, True), 201
