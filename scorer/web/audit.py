"""Auditing a disputed hand: replay it trick by trick, see each breach and its proof, ask "what if".

A stored hand is audited at ``<hand url>/audit``. A hand file or a pasted record
can be audited on its own, without creating a match: the record then travels in
the URL itself (compressed), so the audit link can be shared and nothing is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField
from werkzeug.datastructures import FileStorage
from werkzeug.wrappers import Response

from ..engine.audit import AuditStep, annulled, steps, what_if
from ..engine.errors import ScartoError
from ..engine.records import HandRecord, dumps, hand_to_dict, loads, parse_hand
from ..engine.scoring import HandResult, PlayerCount, score_hand
from ..storage import links, store
from .context import (
    audit_url,
    decode_record,
    get_db,
    load_match,
    make_pdf,
    pdf_response,
    pdf_turn,
    sheet_name,
)
from .forms import Form, TextBox
from .labels import read_error_text

bp = Blueprint("audit", __name__)


@dataclass(frozen=True)
class WhatIf:
    """The table's alternative ruling and the scores it gives, next to the recorded ones."""

    awards: dict[int, int]
    annul: bool
    counts: tuple[PlayerCount, ...] | None
    scores: dict[str, Fraction]


class HandFileForm(Form):
    """Upload a ``scarto-hand/1`` file or paste a record."""

    file = FileField(_l("Hand file (scarto-hand/1 JSON)"))
    text = TextBox(_l("…or paste the record"))


def _result(record: HandRecord) -> HandResult:
    return score_hand(record)


def _small_number(text: str) -> bool:
    """Digits a trick or seat number can be (int() refuses numbers past 4,300 digits)."""
    return text.isdecimal() and len(text) <= 3


def _awards() -> dict[int, int]:
    """``?award=4-2``: trick 4 goes to seat 2 (repeatable); malformed values are ignored."""
    awards: dict[int, int] = {}
    for value in request.args.getlist("award"):
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


def _render(result: HandResult, *, link: Any, title: str, pdf_url: str | None, back_url: str | None,
            status: int = 200) -> tuple[str, int]:
    problems = result.problems
    all_steps = steps(result.record, result.replay, problems) if result.replay else []
    number, step = _step(all_steps)
    return render_template(
        "audit.html", result=result, record=result.record, steps=all_steps, number=number, step=step,
        what=_what_if(result), link=link, title=title, pdf_url=pdf_url, back_url=back_url,
    ), status


# --- a stored hand ----------------------------------------------------------------


def _stored(token: str, key: str) -> tuple[store.MatchRow, store.HandRow, HandResult, int]:
    row, _can_edit = load_match(token)
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

    def link(**params: Any) -> str:
        return url_for("audit.hand_audit", token=token, key=key, **params)

    title = _("Audit of hand %(n)s", n=number) if number else _("Audit of a deleted hand")
    return _render(result, link=link, title=title, pdf_url=url_for("audit.hand_audit_pdf", token=token, key=key),
                   back_url=url_for("matches.match_page", token=token))


@bp.get("/m/<token>/hands/<key>/audit.pdf")
def hand_audit_pdf(token: str, key: str) -> Response:
    """The audit sheet of one hand: the full trick table and the count."""
    row, hand, result, number = _stored(token, key)
    name = sheet_name(row.settings.get("title"), f"hand-{number}-audit" if number else "deleted-hand-audit",
                      "scarto")
    title = _("Audit of hand %(n)s", n=number) if number else _("Audit of a deleted hand")
    return _audit_pdf(result, title, name)


def _audit_pdf(result: HandResult, title: str, name: str) -> Response:
    with pdf_turn():
        all_steps = steps(result.record, result.replay, result.problems) if result.replay else []
        html = render_template("pdf_audit.html", result=result, record=result.record, steps=all_steps, title=title)
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


@bp.get("/audit/k/<key>")
def kept_hand(key: str) -> Any:
    """The audit of a hand kept on the server (too large to travel in its link)."""
    record = _kept_record(key)

    def link(**params: Any) -> str:
        return url_for("audit.kept_hand", key=key, **params)

    return _render(score_hand(record), link=link, title=_("Audit of a hand"),
                   pdf_url=url_for("audit.kept_hand_pdf", key=key), back_url=None)


@bp.get("/audit/k/<key>.pdf")
def kept_hand_pdf(key: str) -> Any:
    return _audit_pdf(score_hand(_kept_record(key)), _("Audit of a hand"), "scarto-hand-audit")


@bp.get("/audit/k/<key>.json")
def kept_hand_json(key: str) -> Any:
    return Response(dumps(hand_to_dict(_kept_record(key))), mimetype="application/json")


@bp.get("/audit/<blob>")
def audit_hand(blob: str) -> Any:
    """The audit of a hand carried in the link."""
    try:
        record = decode_record(blob)
    except ScartoError as exc:
        return render_template("audit_upload.html", form=HandFileForm(), errors=[read_error_text(exc)]), 400

    def link(**params: Any) -> str:
        return url_for("audit.audit_hand", blob=blob, **params)

    return _render(score_hand(record), link=link, title=_("Audit of a hand"),
                   pdf_url=url_for("audit.audit_hand_pdf", blob=blob), back_url=None)


@bp.get("/audit/<blob>.pdf")
def audit_hand_pdf(blob: str) -> Any:
    """The audit sheet of a hand carried in the link."""
    try:
        record = decode_record(blob)
    except ScartoError as exc:
        return render_template("audit_upload.html", form=HandFileForm(), errors=[read_error_text(exc)]), 400
    return _audit_pdf(score_hand(record), _("Audit of a hand"), "scarto-hand-audit")


@bp.get("/audit/<blob>.json")
def audit_hand_json(blob: str) -> Any:
    """The hand of an audit link as a ``scarto-hand/1`` file."""
    try:
        record = decode_record(blob)
    except ScartoError as exc:
        abort(400, description=read_error_text(exc))
    return Response(dumps(hand_to_dict(record)), mimetype="application/json")
