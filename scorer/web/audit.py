"""Auditing a disputed hand: replay it trick by trick, see each breach and its proof, ask "what if".

A stored hand is audited at ``<hand url>/audit``. A hand file or a pasted record
can be audited on its own, without creating a match: the record then travels in
the URL itself (compressed), so the audit link can be shared and nothing is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flask import Blueprint, abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.datastructures import FileStorage
from werkzeug.wrappers import Response

from ..engine.audit import AuditStep, annulled, annulled_record, ruled_record, steps, what_if
from ..engine.errors import ScartoError
from ..engine.records import HandRecord, dumps, hand_to_dict, loads, parse_hand
from ..engine.scoring import HandResult, PlayerCount, score_hand
from ..storage import links, store
from .audit_forms import HandFileForm
from .audit_links import audit_url, decode_record
from .db import get_db
from .downloads import make_pdf, pdf_response, pdf_turn, sheet_name
from .forms import KEY_USED, Form, VersionForm, entry_key
from .labels import read_error_text
from .reviews import ReviewState, hand_review, loose_review
from .tokens import MATCH, load_by_token

bp = Blueprint("audit", __name__)


@dataclass(frozen=True)
class WhatIf:
    """The table's alternative ruling and the scores it gives, next to the recorded ones."""

    awards: dict[int, int]
    annul: bool
    counts: tuple[PlayerCount, ...] | None
    scores: dict[str, Fraction]


def _result(record: HandRecord) -> HandResult:
    return score_hand(record)


def _small_number(text: str) -> bool:
    """Digits a trick or seat number can be (int() refuses numbers past 4,300 digits)."""
    return text.isdecimal() and len(text) <= 3


def _awards(values: list[str] | None = None) -> dict[int, int]:
    """``?award=4-2``: trick 4 goes to seat 2 (repeatable); malformed values are ignored."""
    awards: dict[int, int] = {}
    for value in request.args.getlist("award") if values is None else values:
        trick, _sep, seat = value.partition("-")
        if _small_number(trick) and _small_number(seat):
            awards[int(trick)] = int(seat)
    return awards


def _what_if(result: HandResult) -> WhatIf | None:
    annul = request.args.get("annul") == "1"
    awards = {t: s for t, s in _awards().items() if _valid_award(result, t, s)}
    if not annul and not awards:
        return None
    if annul:
        return WhatIf({}, True, None, annulled(result))
    counts = what_if(result, awards)
    if counts is None:
        return None
    return WhatIf(awards, False, counts, {c.name: c.score for c in counts})


def _valid_award(result: HandResult, trick: int, seat: int) -> bool:
    replay = result.replay
    return replay is not None and 1 <= trick <= len(replay.tricks) and 0 <= seat < len(result.record.players)


def _step(all_steps: list[AuditStep]) -> tuple[int, AuditStep | None]:
    """The trick asked for with ``?t=N`` (0: the overview), clamped to the hand."""
    raw = request.args.get("t", "0")
    number = int(raw) if _small_number(raw) else 0
    number = max(0, min(number, len(all_steps)))
    return number, all_steps[number - 1] if number else None


@dataclass(frozen=True)
class Ruling:
    """Where a stored hand's "what if" is recorded as its revision, and the version the page shows."""

    url: str
    version: int
    problem: str | None = None
    """Why the last try was not recorded (the hand changed meanwhile)."""


def _render(result: HandResult, *, link: Any, title: str, pdf_url: str | None, back_url: str | None,
            status: int = 200, ruling: Ruling | None = None, review: ReviewState | None = None) -> tuple[str, int]:
    problems = result.problems
    all_steps = steps(result.record, result.replay, problems) if result.replay else []
    number, step = _step(all_steps)
    return render_template(
        "audit.html", result=result, record=result.record, steps=all_steps, number=number, step=step,
        what=_what_if(result), link=link, title=title, pdf_url=pdf_url, back_url=back_url, ruling=ruling,
        form=Form(), review=review or loose_review(result.record),
    ), status


# --- a stored hand ----------------------------------------------------------------


def _stored(token: str, key: str) -> tuple[store.MatchRow, store.HandRow, HandResult, int]:
    row, _can_edit = load_by_token(MATCH, token)
    db = get_db()
    try:
        hand = store.get_hand(db, row.id, key)
    except store.NotFound:
        abort(404)
    number = store.hand_number(db, hand) or 0
    return row, hand, _result(hand.parsed), number


@bp.get("/m/<token>/hands/<key>/audit")
def hand_audit(token: str, key: str) -> Any:
    """The audit of a recorded hand."""
    row, hand, result, number = _stored(token, key)
    return _hand_audit_page(token, row, hand, result, number)


def _hand_audit_page(token: str, row: store.MatchRow, hand: store.HandRow, result: HandResult, number: int,
                     *, status: int = 200, problem: str | None = None) -> tuple[str, int]:
    def link(**params: Any) -> str:
        return url_for("audit.hand_audit", token=token, key=hand.key, **params)

    title = _("Audit of hand %(n)s", n=number) if number else _("Audit of a deleted hand")
    # the edit link may keep a "what if" as the hand's revision; a deleted hand is brought back first
    ruling = (Ruling(url_for("audit.record_ruling", token=token, key=hand.key), hand.version, problem)
              if token == row.edit_token and hand.deleted_at is None else None)
    return _render(result, link=link, title=title, pdf_url=url_for("audit.hand_audit_pdf", token=token, key=hand.key),
                   back_url=url_for("matches.match_page", token=token), status=status, ruling=ruling,
                   review=hand_review(hand, result.record))


@bp.post("/m/<token>/hands/<key>/audit/ruling")
def record_ruling(token: str, key: str) -> Any:
    """The audit's "what if" (tricks awarded to other players, or the hand annulled) kept as a new revision
    of the hand, which the hand's history can undo by restoring the version before."""
    load_by_token(MATCH, token, edit=True)  # 403 for the view-only link
    row, hand, result, number = _stored(token, key)
    entry = _ruling_entry()
    done = store.entry_done(get_db(), row.id, entry.key) if entry else None
    if entry is not None and done is not None:  # sent again (a double tap, the back button): recorded once
        if done.replays("edit", entry, key):
            return redirect(url_for("history.hand_history", token=token, key=key), 303)
        return _hand_audit_page(token, row, hand, result, number, status=409, problem=str(KEY_USED))
    form = VersionForm()
    awards = {t: s for t, s in _awards(request.form.getlist("award")).items() if _valid_award(result, t, s)}
    annul = request.form.get("annul") == "1" and result.counts is not None
    ruled = annulled_record(result.record) if annul else ruled_record(result, awards) if awards else None
    if not form.validate() or ruled is None or hand.deleted_at is not None:
        problem = next(iter(form.version.errors), None) or _("Choose a trick to award before recording it.")
        return _hand_audit_page(token, row, hand, result, number, status=400, problem=str(problem))
    body = hand_to_dict(ruled, in_match=True)
    try:
        saved = store.update_hand(get_db(), row.id, key, body, expected_version=int(form.version.data),
                                  entry=entry)
    except store.Conflict:
        fresh = store.get_hand(get_db(), row.id, key)
        return _hand_audit_page(token, row, fresh, _result(fresh.parsed), number, status=409, problem=_(
            "This hand was changed from another phone while you were looking at it: nothing was recorded. "
            "Here it is as saved now."))
    players = result.record.players
    told = _("the hand annulled") if annul else ", ".join(
        _("trick %(n)s to %(name)s", n=t, name=players[s]) for t, s in sorted(awards.items()))
    flash(_("Recorded as version %(v)s of the hand: %(ruling)s. To undo it, restore version %(old)s.",
            v=saved.version, ruling=told, old=hand.version))
    return redirect(url_for("history.hand_history", token=token, key=key), 303)


def _ruling_entry() -> store.Entry | None:
    """The ruling form's idempotency key with the digest of what it asked (the awards, the annulment, the
    version it was made on): once recorded the hand has changed, so the ruling cannot be worked out again
    to compare it."""
    given = entry_key(request.form.get("entry_key"))
    if given is None:
        return None
    asked = {"award": sorted(request.form.getlist("award")), "annul": request.form.get("annul") == "1",
             "version": request.form.get("version")}
    return store.Entry(given, store.body_digest(asked))


@bp.get("/m/<token>/hands/<key>/audit.pdf")
def hand_audit_pdf(token: str, key: str) -> Response:
    """The audit sheet of one hand: the full trick table and the count."""
    row, hand, result, number = _stored(token, key)
    name = sheet_name(row.settings.get("title"), f"hand-{number}-audit" if number else "deleted-hand-audit",
                      "scarto")
    title = _("Audit of hand %(n)s", n=number) if number else _("Audit of a deleted hand")
    return _audit_pdf(result, title, name, hand_review(hand, result.record))


def _audit_pdf(result: HandResult, title: str, name: str, review: ReviewState | None = None) -> Response:
    with pdf_turn():
        all_steps = steps(result.record, result.replay, result.problems) if result.replay else []
        html = render_template("pdf_audit.html", result=result, record=result.record, steps=all_steps, title=title,
                               review=review or loose_review(result.record))
        return pdf_response(make_pdf(html), name)


# --- a hand on its own --------------------------------------------------------------


@bp.route("/audit", methods=["GET", "POST"])
def audit_upload() -> Any:
    """Audit a hand file or a pasted record without creating a match."""
    form = HandFileForm()
    errors: list[str] = []
    if form.validate_on_submit():
        try:
            record = parse_hand(loads(_uploaded_text(form), "record"))
        except ScartoError as exc:
            errors.append(read_error_text(exc))
        else:
            return redirect(audit_url(record))
    elif request.method == "POST" and not form.errors:
        errors.append(_("Choose a hand file or paste a record."))
    status = 400 if request.method == "POST" else 200
    return render_template("audit_upload.html", form=form, errors=errors), status


def _uploaded_text(form: HandFileForm) -> bytes:
    upload = form.file.data
    if isinstance(upload, FileStorage) and upload.filename:
        return bytes(upload.read())
    text = (form.text.data or "").strip()
    if not text:
        raise ScartoError(_("Choose a hand file or paste a record."))
    return text.encode()


def _kept_record(key: str) -> HandRecord:
    try:
        return parse_hand(links.kept_audit(get_db(), key))
    except store.NotFound:
        abort(404)


def _carried_record(blob: str) -> HandRecord:
    """The hand carried in an audit link; a link that holds none is answered with the upload page saying
    what is wrong with it (400), whether the page or its sheet was asked for."""
    try:
        return decode_record(blob)
    except ScartoError as exc:
        abort(make_response(render_template("audit_upload.html", form=HandFileForm(),
                                            errors=[read_error_text(exc)]), 400))


def _loose_audit(record: HandRecord, endpoint: str, **where: Any) -> Any:
    """The audit page of a hand of no match (kept on the server or carried in its link): its steps'
    links and its sheet (``endpoint`` + ``_pdf``) at the address it was opened with."""

    def link(**params: Any) -> str:
        return url_for(endpoint, **where, **params)

    return _render(score_hand(record), link=link, title=_("Audit of a hand"),
                   pdf_url=url_for(f"{endpoint}_pdf", **where), back_url=None)


@bp.get("/audit/k/<key>")
def kept_hand(key: str) -> Any:
    """The audit of a hand kept on the server (too large to travel in its link)."""
    return _loose_audit(_kept_record(key), "audit.kept_hand", key=key)


@bp.get("/audit/k/<key>.pdf")
def kept_hand_pdf(key: str) -> Any:
    return _audit_pdf(score_hand(_kept_record(key)), _("Audit of a hand"), "scarto-hand-audit")


@bp.get("/audit/k/<key>.json")
def kept_hand_json(key: str) -> Any:
    return Response(dumps(hand_to_dict(_kept_record(key))), mimetype="application/json")


@bp.get("/audit/<blob>")
def audit_hand(blob: str) -> Any:
    """The audit of a hand carried in the link."""
    return _loose_audit(_carried_record(blob), "audit.audit_hand", blob=blob)


@bp.get("/audit/<blob>.pdf")
def audit_hand_pdf(blob: str) -> Any:
    """The audit sheet of a hand carried in the link."""
    return _audit_pdf(score_hand(_carried_record(blob)), _("Audit of a hand"), "scarto-hand-audit")


@bp.get("/audit/<blob>.json")
def audit_hand_json(blob: str) -> Any:
    """The hand of an audit link as a ``scarto-hand/1`` file."""
    try:
        record = decode_record(blob)
    except ScartoError as exc:
        abort(400, description=read_error_text(exc))
    return Response(dumps(hand_to_dict(record)), mimetype="application/json")
