"""Import for people: upload or paste a match file, or a hand file into a match.

A file with errors creates nothing: the page lists what is wrong and where.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.datastructures import FileStorage

from ..engine.club_files import CLUB_FORMAT
from ..engine.errors import ScartoError
from ..engine.limits import MAX_HANDS
from ..engine.records import HAND_FORMAT, MATCH_FORMAT, hand_to_dict, loads, parse_hand, parse_match
from ..engine.rulesets import find_ruleset
from ..engine.scoring import HandResult, score_hand
from ..storage import store
from .audit_links import audit_url
from .db import get_db
from .labels import SWITCH_LABELS, SWITCH_ORDER, problem_text, read_error_text, value_label
from .recent import remember
from .tokens import MATCH, load_by_token
from .transfer_forms import ImportForm

bp = Blueprint("transfer", __name__)


def _read(form: ImportForm) -> Any:
    upload = form.file.data
    if isinstance(upload, FileStorage) and upload.filename:
        return loads(upload.read(), "file")
    text = (form.text.data or "").strip()
    if not text:
        raise ScartoError(_("Choose a file or paste its text."))
    return loads(text.encode(), "text")


def _differences(file: dict[str, Any], match: dict[str, Any]) -> str:
    """Each switch the two rulesets set apart, in words: "Overtrump: on in the file, off in this match"."""
    return "; ".join(_("%(switch)s: %(file)s in the file, %(match)s in this match", switch=SWITCH_LABELS[key],
                       file=value_label(key, file.get(key)), match=value_label(key, match.get(key)))
                     for key in SWITCH_ORDER if file.get(key) != match.get(key))


def _hand_errors(results: list[HandResult]) -> list[str]:
    """Every error of every hand, numbered, for a file that must be refused."""
    return [_("Hand %(n)s: %(message)s", n=number, message=problem_text(problem))
            for number, result in enumerate(results, start=1) for problem in result.errors]


@bp.route("/import", methods=["GET", "POST"])
def import_file() -> Any:
    """Start from a file: a match file becomes a match; a hand file is audited on its own."""
    form = ImportForm()
    errors: list[str] = []
    if request.method == "POST" and form.validate_on_submit():
        try:
            data = _read(form)
            kind = data.get("format") if isinstance(data, dict) else None
            if kind == HAND_FORMAT or (isinstance(data, dict) and "dealer" in data and "hands" not in data):
                record = parse_hand(data)
                return redirect(audit_url(record))
            if kind == CLUB_FORMAT:  # the right app, the wrong door
                raise ScartoError(_("This is a club's file (scarto-club/1): open it with “Open a club file”, "
                                    "at %(address)s.", address=url_for("clubs.import_club", _external=True)))
            if kind not in (None, MATCH_FORMAT):
                raise ScartoError(_("%(format)r is not a file this app reads (scarto-match/1 or scarto-hand/1).",
                                    format=kind))
            match = parse_match(data)
        except ScartoError as exc:
            errors.append(read_error_text(exc))
        else:
            results = [score_hand(hand) for hand in match.hands]  # judged once: to refuse the file, or to store it
            errors = _hand_errors(results)
            if not errors:
                row = store.create_match(get_db(), match, results)
                return remember(redirect(url_for("matches.match_page", token=row.edit_token)), row.edit_token)
    elif request.method == "POST":
        errors = [str(e) for field in form.errors.values() for e in field]
    status = 400 if request.method == "POST" else 200
    return render_template("import.html", form=form, errors=errors, match=None, token=None), status


@bp.route("/m/<token>/import", methods=["GET", "POST"])
def import_hand(token: str) -> Any:
    """Add a hand from a ``scarto-hand/1`` file (or pasted record) to this match."""
    row, _can_edit = load_by_token(MATCH, token, edit=True)
    form = ImportForm()
    errors: list[str] = []
    if request.method == "POST" and form.validate_on_submit():
        try:
            data = _read(form)
            if not isinstance(data, dict):
                raise ScartoError(_("A hand record is a JSON object."))
            data = {"players": row.players, "ruleset": row.settings.get("ruleset", "classic"), **data}
            record = parse_hand(data)
            if list(record.players) != row.players:
                raise ScartoError(_("The file's players (%(file)s) are not this match's (%(match)s), in this order.",
                                    file=", ".join(record.players), match=", ".join(row.players)))
            # the same rules, however written (a match stored before the presets were revised spells out every switch)
            ours = find_ruleset(row.settings.get("ruleset")).switches()
            if record.ruleset.switches() != ours:
                raise ScartoError(_("The file's rules are not this match's rules: %(differences)s.",
                                    differences=_differences(record.ruleset.switches(), ours)))
        except ScartoError as exc:
            errors.append(read_error_text(exc))
        else:
            result = score_hand(record)
            errors = [problem_text(p) for p in result.errors]
            if not errors:
                if store.count_hands(get_db(), row.id) >= MAX_HANDS:
                    errors = [_("This match has %(limit)s hands, as many as a match holds: start a new match "
                                "for the next hands.", limit=MAX_HANDS)]
                    return render_template("import.html", form=form, errors=errors, match=row, token=token), 400
                store.add_hand(get_db(), row.id, hand_to_dict(record, in_match=True), result=result)
                return redirect(url_for("matches.match_page", token=token))
    elif request.method == "POST":
        errors = [str(e) for field in form.errors.values() for e in field]
    status = 400 if request.method == "POST" else 200
    return render_template("import.html", form=form, errors=errors, match=row, token=token), status
