"""Matches: start one, see the standings, share the links, export as files."""

from __future__ import annotations

import json
import secrets
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from ..engine.errors import ScartoError
from ..engine.records import dumps, parse_match
from ..engine.rulesets import PRESETS
from ..storage import links as link_store
from ..storage import store
from .db import get_db
from .downloads import disposition, sheet_name
from .forms import said_at
from .labels import current_language, preset_table, switch_rows
from .lookalikes import warn_look_alikes
from .match_views import PAGE_HANDS, match_page_view
from .matches_forms import MatchForm
from .page_cache import cached_answer, cached_page
from .recent import recent_clubs, recent_tokens, remember
from .sharing import share_codes
from .tokens import MATCH, load_by_token, open_each

bp = Blueprint("matches", __name__)



@bp.get("/")
def home() -> str:
    """The start page: start a match, or open one of the matches this phone has seen."""
    return render_template("home.html", matches=open_each(MATCH, recent_tokens()))


@bp.route("/new", methods=["GET", "POST"])
def new_match() -> Any:
    """Start a match: names in seating order, first dealer, rules, end, settlement."""
    if request.method == "GET":
        # the blank form (some 35 fields: 15 ms of CPU to render) is the same for every phone in a
        # language: cached, its CSRF token in a slot (the form made inside, where the slot is)
        return Response(cached_page(("new match", current_language(), store.engine_version()), _form_page))
    form = MatchForm()
    if form.validate_on_submit():
        data = form.match_data(lambda players: secrets.choice(players))
        try:
            match = parse_match(data)
        except ScartoError as exc:
            said_at(form, exc)
        else:
            row = store.create_match(get_db(), match)
            warn_look_alikes(match.players)
            if form.first_dealer.data == "draw":
                flash(_("The app drew %(name)s to deal first.", name=match.first_dealer))
            response = redirect(url_for("matches.match_page", token=row.edit_token))
            return remember(response, row.edit_token)
    return _form_page(form), 400 if request.method == "POST" else 200


def _form_page(form: MatchForm | None = None) -> str:
    """The new-match page; without a form, the blank one in the phone's language, made here, inside the
    page cache's render, where its CSRF token is a slot."""
    if form is None:
        form = MatchForm()
        form.language.data = current_language()
    return render_template("match_new.html", form=form, presets=PRESETS, preset_table=preset_table())


@bp.get("/m/<token>/")
def match_page(token: str) -> Any:
    """The match: standings, hands, chart, whose deal is next, the settlement."""
    raw = request.args.get("page", "1")
    row, can_edit = load_by_token(MATCH, token)
    pages = max(1, -(-store.count_hands(get_db(), row.id) // PAGE_HANDS))
    page = max(1, min(int(raw), pages)) if raw.isdecimal() and len(raw) < 6 else 1  # past the last: the last

    def render() -> str:
        view = match_page_view(token, page=page, loaded=(row, can_edit))
        return render_template("_match_body.html", view=view, switches=switch_rows(view.record.ruleset))

    # the standings, chart and rules are the same for every phone until the match changes: cached, the
    # phone's own link to its club (when it opened the club) in a slot
    key = ("match page", token, page, current_language(), row.changes, row.updated_at, store.engine_version())
    title = row.settings.get("title") or _("Scarto match")

    def frame() -> str:
        return render_template("match.html", title=title, match_id=row.id, body=Markup(render()), tag=row.changes,
                               home=url_for("matches.match_page", token=token))

    club = (lambda: Markup(render_template("_match_club.html", match_id=row.id))) if recent_clubs() else ""
    page_bytes = cached_page((title, *key), frame, {"club": club})
    return remember(Response(page_bytes), token)


@bp.get("/m/<token>/share")
def share(token: str) -> str:
    """The edit and view-only links with QR codes for the other phones to scan."""
    row, can_edit = load_by_token(MATCH, token)
    codes = share_codes("matches.match_page", row.edit_token if can_edit else None, row.view_token)
    changes = link_store.link_changes(get_db(), row.id) if can_edit else []
    return render_template("share.html", row=row, token=token, can_edit=can_edit, codes=codes, changes=changes)


@bp.post("/m/<token>/links/renew")
def renew_links(token: str) -> Any:
    """New edit and view links for a match shared too widely: the old ones answer 404 from now on."""
    row, _can_edit = load_by_token(MATCH, token, edit=True)
    fresh = link_store.renew_links(get_db(), row.id)
    flash(_("New links made: the old edit and view links no longer open this match. Share these instead."))
    return remember(redirect(url_for("matches.share", token=fresh.edit_token)), fresh.edit_token)


@bp.get("/m/<token>/export.json")
def export_json(token: str) -> Response:
    """The match as a ``scarto-match/1`` file (export then import gives the same match)."""
    row, _can_edit = load_by_token(MATCH, token)
    data = store.match_data(get_db(), row)
    # named as the page is titled ("Partita di Scarto" when the match has no title) and dated
    name = sheet_name(row.settings.get("title") or _("Scarto match"), row.settings.get("date") or row.created_at[:10],
                      "scarto-match")
    return Response(dumps(data), mimetype="application/json",
                    headers={"Content-Disposition": disposition("attachment", f"{name}.json")})


@bp.get("/m/<token>/standings.json")
def standings_json(token: str) -> Response:
    """``scarto-standings/1``, as ``scarto match --json`` prints it: the same until the match changes, so
    cached as sent (it lists every hand: a long match's is made once a change, not at every look)."""
    row, _can_edit = load_by_token(MATCH, token)

    def render() -> bytes:
        db = get_db()
        table = store.standings_window(db, row, 0, store.count_hands(db, row.id))  # every hand, stored results
        return (json.dumps(table.to_dict(), ensure_ascii=False) + "\n").encode()

    key = ("standings.json", row.id, row.changes, row.updated_at, store.engine_version())
    return Response(cached_answer(key, render), mimetype="application/json")
