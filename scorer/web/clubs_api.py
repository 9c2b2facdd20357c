"""The JSON interface of clubs, and a hand saved into any match by a program.

Like :mod:`scorer.web.api`, these routes are exempt from CSRF and accept only a
JSON body (``Content-Type: application/json``), which no page on another site
can send without a CORS preflight this app never grants. Every answer is JSON:
a wrong token is 404, the view link 403 (it changes nothing), a bad body 400
with its problems listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint

from .. import rater
from ..engine import club_files
from ..engine.errors import ScartoError
from ..engine.limits import MAX_HANDS
from ..engine.ratings import rated_players, ratings_document
from ..engine.records import hand_to_dict, parse_hand, parse_match
from ..engine.scoring import HandResult, score_hand
from ..storage import club_transfer, store
from ..storage import clubs as club_store
from .db import get_db
from .forms import entry_key
from .jsonio import NOT_FOUND, created, json_request, read_refusal, refuse
from .lookalikes import look_alike_sentences
from .tokens import CLUB, MATCH, request_by_token

bp = Blueprint("clubs_api", __name__)

def _hand_errors(results: list[HandResult], prefix: str = "") -> list[dict[str, Any]]:
    """The errors of a match's hands as the API lists them (each hand numbered from 1)."""
    return [{"hand": number, **({"where": prefix} if prefix else {}), **p.to_dict()}
            for number, result in enumerate(results, start=1) for p in result.errors]


def _take_club_file(value: Any, outcome: str, take: Callable[[club_files.ClubFile], Any]) -> Any:
    """What ``take`` answers for the ``scarto-club/1`` body, or the 400 listing what is wrong in it: a
    read error, the hands with errors, which refuse the file whole (``outcome`` says what did not
    happen), or a limit (docs/LIMITS.md) the file's reading could not see, met as ``take`` stores it.
    A new club and a part added to one read their body alike."""
    try:
        club_file = club_files.parse_club(value)
    except ScartoError as exc:
        return read_refusal(exc)
    problems = [p for i, results in enumerate(club_file.results) for p in _hand_errors(results, f"matches[{i}]")]
    if problems:
        return refuse(400, "bad_request", f"A hand with errors cannot be scored, so {outcome}.", problems=problems)
    try:
        return take(club_file)
    except ScartoError as exc:
        return read_refusal(exc)


@bp.post("/api/clubs")
def create_club() -> Any:
    """``scarto-club/1`` (name, players, optionally matches...) -> 201 with the club's links."""
    value, refusal = json_request()
    if refusal is not None:
        return refusal
    return _take_club_file(value, "the club was not created", _created_club)


def _created_club(club_file: club_files.ClubFile) -> Any:
    """The club the file makes: 201 with its links, and the roster's look-alike names as warnings."""
    club = club_transfer.import_club(get_db(), club_file)
    body, status, headers = created("clubs.club_page", club.edit_token, club.view_token)
    warnings = look_alike_sentences(p.name for p in club_store.roster(get_db(), club.id))
    return ({**body, "warnings": warnings} if warnings else body), status, headers


@bp.post("/c/<token>/matches")
def club_match(token: str) -> Any:
    """A ``scarto-match/1`` body stored as a club match: its names are roster names (new ones join)."""
    club, value, refusal = request_by_token(CLUB, token)
    if refusal is not None:
        return refusal
    try:
        match = parse_match(value)
    except ScartoError as exc:
        return read_refusal(exc)
    results = [score_hand(hand) for hand in match.hands]
    problems = _hand_errors(results)
    if problems:
        return refuse(400, "bad_request", "A hand with errors cannot be scored, so the match was not stored.",
                      problems=problems)
    try:
        row = club_store.add_record(get_db(), club.id, match, list(match.players), results=results)
    except ScartoError as exc:
        return read_refusal(exc)
    except club_store.ClubError:
        return refuse(400, "bad_request", "Two of the match's names are the same roster player.",
                      problems=[{"where": "players", "message": "two names are one roster player"}])
    return created("matches.match_page", row.edit_token, row.view_token)


@bp.post("/c/<token>/parts")
def club_part(token: str) -> Any:
    """A later part of a club's file (``scarto-club/1`` with ``part``) added to the club its first part
    made: 201 ``{"added", "matches"}``, the part's matches and the club's now (docs/CLUB.md)."""
    club, value, refusal = request_by_token(CLUB, token)
    if refusal is not None:
        return refusal
    return _take_club_file(value, "the part was not added", lambda part: _part_added(club, part))


def _part_added(club: club_store.ClubRow, part: club_files.ClubFile) -> Any:
    """201 ``{"added", "matches"}``: the part's matches, and the club's now."""
    added, count = club_transfer.add_part(get_db(), club, part)
    return {"added": added, "matches": count}, 201


@bp.get("/c/<token>/ratings.json")
def club_ratings(token: str) -> Any:
    """``scarto-ratings/1``: every roster player's rating from all the club's counted matches, computed
    afresh (docs/RATINGS.md), the same object ``scarto ratings --json`` prints for the club's file."""
    db = get_db()
    try:
        club, _can_edit = club_store.find_club(db, token)
    except store.NotFound:
        return refuse(404, "not_found", NOT_FOUND)
    ratings = rater.club_ratings(club_store.summaries(db, club.id), club_store.seats(db, club.id),
                                 club=club.view_token)
    names = {p.id: p.name for p in club_store.roster(db, club.id, merged=True)}
    return ratings_document(rated_players(ratings, names), rater.DEFAULT.method)


@bp.post("/m/<token>/hands.json")
def add_hand(token: str) -> Any:
    """One in-match hand record appended: 201 ``{"number": N}``; 409 if ``number`` was taken first.

    A record with errors is refused (400, its problems); one with rule breaches is
    stored and marked by the judgement, as the table's pages show it. An ``Idempotency-Key``
    header makes a retry safe: the same key with the same body is answered as the first time
    (no second hand); the same key with another body is 409, nothing saved.
    """
    db = get_db()
    row, value, refusal = request_by_token(MATCH, token)
    if refusal is not None:
        return refusal
    if not isinstance(value, dict):
        return refuse(400, "bad_request", "Send one hand record (a hands entry of scarto-match/1) as an object.",
                      problems=[{"where": "body", "message": "not an object"}])
    try:
        parsed = parse_hand(store.hand_record_data(row, value))  # read once, judged once, written once
        record = hand_to_dict(parsed, in_match=True)
        judged = score_hand(parsed)
    except ScartoError as exc:
        return read_refusal(exc)
    errors = [p.to_dict() for p in judged.errors]
    if errors:
        return refuse(400, "bad_request", "The hand has errors, so it cannot be scored; nothing was saved.",
                      problems=errors)
    number = value.get("number")
    expected = number - 1 if isinstance(number, int) and not isinstance(number, bool) else None
    count = store.count_hands(db, row.id)
    if expected is None and count >= MAX_HANDS:
        return refuse(400, "bad_request", f"This match has {MAX_HANDS} hands, as many as a match holds.",
                      problems=[{"where": "hands", "message": "the match is full"}])
    if expected is not None and expected > count:
        return refuse(400, "bad_request", f"Hand {number} cannot be saved before the hands before it.",
                      problems=[{"where": "number", "message": "beyond the next hand's number"}])
    try:
        key = entry_key(None)  # the header; the digest is of the body as sent, read as JSON
        entry = store.Entry(key, store.body_digest(value)) if key else None
        saved = store.add_hand(db, row.id, record, expected_count=expected, result=judged, entry=entry)
    except store.KeyReused as exc:
        return refuse(409, "key_reused", "This Idempotency-Key was already used for another request in this match "
                      f"(it saved hand {store.hand_place(db, exc.done.hand)}); nothing was saved. Send each new "
                      "hand with a new key.")
    except store.Conflict as exc:
        return refuse(409, "conflict", f"Hand {number} was saved from another phone first; nothing was saved.",
                      current=exc.current.record if exc.current else None)
    except store.MatchFull as exc:  # the match full, or keeping as many hands as it may with its deleted ones
        return refuse(400, "bad_request", f"{exc} Nothing was saved.",
                      problems=[{"where": "hands", "message": "the match is full"}])
    if club_store.club_of(db, row.id) is not None:
        club_store.refresh_summary(db, row.id)
    return {"number": store.hand_number(db, saved)}, 201
