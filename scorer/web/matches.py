"""Matches: start one, see the standings, share the links, export as files."""

from __future__ import annotations

import json
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import segno
from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response as BaseResponse

from ..engine.errors import ScartoError
from ..engine.records import MatchRecord, dumps, parse_match
from ..engine.rulesets import PRESETS
from ..engine.scoring import HandResult, score_hand
from ..engine.standings import Standings, standings
from ..sheets.charts import cumulative_chart
from ..storage import store
from . import get_db
from .forms import MatchForm
from .labels import PRESET_DESCRIPTIONS, SETTLE_LABELS, current_language, preset_table, read_error_text, switch_rows

bp = Blueprint("matches", __name__)


@dataclass(frozen=True)
class MatchView:
    """Everything a match page (or sheet) shows, computed once per request."""

    row: store.MatchRow
    token: str
    can_edit: bool
    record: MatchRecord
    hands: list[store.HandRow]
    results: list[HandResult]
    table: Standings

    @property
    def title(self) -> str:
        return self.record.title or _("Scarto match")

    @property
    def next_number(self) -> int:
        return len(self.hands) + 1

    def chart(self) -> str:
        totals = [line.totals for line in self.table.lines]
        return cumulative_chart(self.record.players, totals, title=_("Running totals"))


def load_match(token: str, *, edit: bool = False) -> tuple[store.MatchRow, bool]:
    """The match a token opens: 404 for an unknown token, 403 for a view token on an edit page."""
    try:
        row, can_edit = store.find_match(get_db(), token)
    except store.NotFound:
        abort(404)
    if edit and not can_edit:
        abort(403, description=_("This is the view-only link of the match: it cannot change anything."))
    g.pack = row.settings.get("pack") or "italian"  # cards on its pages look like the table's pack
    return row, can_edit


def match_view(token: str, *, edit: bool = False) -> MatchView:
    """Load and judge the whole match for a page."""
    row, can_edit = load_match(token, edit=edit)
    db = get_db()
    hands = store.list_hands(db, row.id)
    record = store.match_record(db, row, hands)
    results = [score_hand(h) for h in record.hands]
    return MatchView(row, token, can_edit, record, hands, results, standings(record, results))


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"preset_descriptions": PRESET_DESCRIPTIONS, "settle_labels": SETTLE_LABELS}


@bp.get("/")
def home() -> str:
    """The start page: start a match, or open one of the matches this phone has seen."""
    recent = _recent_tokens()
    db = get_db()
    matches = []
    for token in recent:
        try:
            row, can_edit = store.find_match(db, token)
        except store.NotFound:
            continue
        matches.append((token, row, can_edit))
    return render_template("home.html", matches=matches)


def _recent_tokens() -> list[str]:
    raw = request.cookies.get("recent", "")
    return [t for t in raw.split(".") if t][:12]


def remember(response: BaseResponse, token: str) -> BaseResponse:
    """Keep the match on this phone's start page (a cookie of tokens, newest first)."""
    tokens = [token] + [t for t in _recent_tokens() if t != token]
    response.set_cookie("recent", ".".join(tokens[:12]), max_age=400 * 24 * 3600, samesite="Lax", httponly=True)
    return response


@bp.route("/new", methods=["GET", "POST"])
def new_match() -> Any:
    """Start a match: names in seating order, first dealer, rules, end, settlement."""
    form = MatchForm()
    if request.method == "GET":
        form.language.data = current_language()
    if form.validate_on_submit():
        data = form.match_data(lambda players: secrets.choice(players))
        try:
            match = parse_match(data)
        except ScartoError as exc:
            form.form_errors.append(read_error_text(exc))
        else:
            row = store.create_match(get_db(), match)
            if form.first_dealer.data == "draw":
                flash(_("The app drew %(name)s to deal first.", name=match.first_dealer))
            response = redirect(url_for("matches.match_page", token=row.edit_token))
            return remember(response, row.edit_token)
    status = 400 if request.method == "POST" else 200
    return render_template("match_new.html", form=form, presets=PRESETS, preset_table=preset_table()), status


@bp.get("/m/<token>/")
def match_page(token: str) -> Any:
    """The match: standings, hands, chart, whose deal is next, the settlement."""
    view = match_view(token)
    response = Response(render_template("match.html", view=view, switches=switch_rows(view.record.ruleset)))
    return remember(response, token)


@bp.get("/m/<token>/share")
def share(token: str) -> str:
    """The edit and view-only links with QR codes for the other phones to scan."""
    row, can_edit = load_match(token)
    links = []
    if can_edit:
        links.append(("edit", url_for("matches.match_page", token=row.edit_token, _external=True)))
    links.append(("view", url_for("matches.match_page", token=row.view_token, _external=True)))
    # a quiet zone of four modules (what scanners need), drawn to scale by its viewBox
    codes = [(kind, url, segno.make(url, error="m").svg_inline(scale=4, border=4, omitsize=True))
             for kind, url in links]
    return render_template("share.html", row=row, token=token, can_edit=can_edit, codes=codes)


@bp.get("/m/<token>/export.json")
def export_json(token: str) -> Response:
    """The match as a ``scarto-match/1`` file (export then import gives the same match)."""
    row, _can_edit = load_match(token)
    data = store.match_data(get_db(), row)
    name = _file_name(row.settings.get("title") or "scarto-match")
    return Response(dumps(data), mimetype="application/json",
                    headers={"Content-Disposition": disposition("attachment", f"{name}.json")})


@bp.get("/m/<token>/standings.json")
def standings_json(token: str) -> Response:
    """``scarto-standings/1``, as ``scarto match --json`` prints it."""
    view = match_view(token)
    return Response(json.dumps(view.table.to_dict(), ensure_ascii=False) + "\n", mimetype="application/json")


def _file_name(title: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in title.strip().lower())
    return "-".join(part for part in safe.split("-") if part)[:60] or "scarto-match"


def disposition(kind: str, name: str) -> str:
    """A Content-Disposition header for a file name in any script (RFC 6266).

    Headers travel as Latin-1, so the plain ``filename`` is the name folded to ASCII and
    ``filename*`` carries it whole in UTF-8 for the browsers that read it.
    """
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    plain = "-".join(part for part in folded.replace('"', "").split("-") if part) or "scarto"
    return f"{kind}; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"
