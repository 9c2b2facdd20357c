"""A club's matches: one started with the roster's players (the club's rules for the table's size),
or a match played elsewhere added through its edit link, its seats mapped to the roster.

Routes of the ``clubs`` blueprint (:mod:`.clubs` makes it; this module adds to its ``bp``, so the
endpoints are ``clubs.start_match`` and ``clubs.add_match``).
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, date, datetime
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import force_locale, format_date
from flask_babel import gettext as _
from werkzeug.datastructures import FileStorage

from ..engine import club_files
from ..engine.errors import ScartoError
from ..engine.limits import MAX_TITLE
from ..engine.records import MATCH_FORMAT, loads, parse_match
from ..engine.rulesets import Ruleset, dealt, find_ruleset
from ..storage import clubs as club_store
from ..storage import store
from .clubs import bp, file_errors
from .clubs_forms import AddForm, PickForm
from .db import get_db
from .labels import current_language, error_text, message_text
from .lookalikes import warn_look_alikes
from .recent import remember
from .roster import pick_players, seat_order, ticked_players
from .tokens import CLUB, load_by_token


def _match_data(club: club_store.ClubRow, names: list[str], first_dealer: str, rules: Any) -> dict[str, Any]:
    today = datetime.now(UTC).date()
    title = _match_title(club, today, club_store.matches_on(get_db(), club.id, today.isoformat()) + 1)
    return {"format": MATCH_FORMAT, "title": title, "date": today.isoformat(), **club.settings,
            "ruleset": rules, "players": names, "first_dealer": first_dealer, "hands": []}


def _table_rules(club: club_store.ClubRow, players: int) -> Any:
    """The rules a table of ``players`` plays: the club's, or the club's with the three- or four-player
    deal when the table is the other size (RULES.md, Deals: a table playing the classic rules with four
    players uses {"preset": "classic", "deal": "four"}); None for a size the club's rules cannot deal."""
    spec = club.settings.get("ruleset", "classic")
    ruleset = find_ruleset(spec)
    if players == ruleset.players:
        return spec
    if ruleset.deal != "piccolo" and {players, ruleset.players} == {3, 4}:
        return dealt(spec, "four" if players == 4 else "three")
    return None


def _table_sizes(ruleset: Ruleset) -> str:
    """How many players a club's table may seat, as the page says it: "3 or 4", or Piccolo's "3"."""
    return str(ruleset.players) if ruleset.deal == "piccolo" else _("3 or 4")


def _match_title(club: club_store.ClubRow, day: date, table: int) -> str:
    """A club match's title: the club, the day and the table, in the club's language ("Circolo del Tarocco,
    6 dic 2026, tavolo 2"): the club's list of matches tells them apart, where the club's name alone did not."""
    with force_locale(club.settings.get("language") or current_language()):
        title = _("%(club)s, %(date)s, table %(n)s", club=club.name, date=format_date(day, "medium"), n=table)
    return title[:MAX_TITLE]


@bp.route("/c/<token>/start", methods=["GET", "POST"])
def start_match(token: str) -> Any:
    """A new match of the club: tick the players (most recent first) or type new names."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    db = get_db()
    ruleset = find_ruleset(club.settings.get("ruleset"))
    form = PickForm()
    problem = None
    ticked = seat_order(ticked_players())
    first = request.form.get("first_dealer", "draw")
    seating = "up" in request.form or "seats" in request.form  # a page without scripts sets the seats first
    if not seating and form.validate_on_submit():
        try:
            names, problems = pick_players(db, club.id, ticked, form.new.data or "")
        except store.NotFound:
            names, problems, problem = [], [], _("That player is not on the club's roster; reload the page.")
        form.new.errors = [*form.new.errors, *problems]  # each typed name's problem, at the box of new names
        rules = _table_rules(club, len(names))
        if problem is None and not problems and rules is None:
            problem = _("Pick %(n)s players: %(k)s picked.", n=_table_sizes(ruleset), k=len(names))
        if problem is None and not problems:
            chosen = [names[ticked.index(int(first))]] if first.isdecimal() and int(first) in ticked else []
            try:
                record = parse_match(_match_data(club, names, chosen[0] if chosen else secrets.choice(names),
                                                 rules))
                row = club_store.add_record(db, club.id, record, names)  # its own write, in turn with the others
            except ScartoError as exc:
                problem = message_text(exc)
            else:
                if not chosen:
                    flash(_("The app drew %(name)s to deal first.", name=record.first_dealer))
                warn_look_alikes([p.name for p in club_store.roster(db, club.id)], new=names)
                return remember(redirect(url_for("matches.match_page", token=row.edit_token)), row.edit_token)
    status = 400 if request.method == "POST" and not seating else 200
    players = club_store.recent_players(db, club.id)
    by_id = {p.id: p for p in players}
    seated = [by_id[pid] for pid in ticked if pid in by_id]
    return render_template("club_start.html", club=club, token=token, form=form, problem=problem,
                           players=players, ticked=set(ticked), first=first,
                           seats=seated, seated=[p.id for p in seated],
                           tables=club_store.recent_tables(db, club.id), ruleset=ruleset), status


MATCH_LINK = re.compile(r"/m/([A-Za-z0-9_-]{10,64})/?")


@bp.route("/c/<token>/add", methods=["GET", "POST"])
def add_match(token: str) -> Any:
    """Add a stand-alone match (its edit link) or a match file to the club, mapping its names to the roster.

    Without ``?match=`` the page asks for the match; with it, for the roster player of each seat.
    """
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    db = get_db()
    form = AddForm()
    problems: list[str] = []
    match_token = request.values.get("match", "")
    if match_token:
        return _map_seats(club, token, match_token)
    if form.validate_on_submit():
        try:
            upload = form.file.data
            if isinstance(upload, FileStorage) and upload.filename:
                record = parse_match(loads(upload.read(), "file"))
                one = club_files.ClubFile("", {}, [], [], [], [(record, [])])
                errors = file_errors(one)
                if errors:
                    raise ScartoError("; ".join(e.replace("matches[0].", "") for e in errors))
                row = store.create_match(db, record, one.results[0])
                return redirect(url_for("clubs.add_match", token=token, match=row.edit_token))
            found = MATCH_LINK.search(form.link.data or "")
            link_token = found.group(1) if found else (form.link.data or "").strip()
            try:
                row, can_edit = store.find_match(db, link_token)
            except store.NotFound:
                message = _("No match has that link; copy the match's edit link from its share page.")
                raise ScartoError(message) from None
            if not can_edit:
                raise ScartoError(_("That is a view-only link; a match joins a club through its edit link."))
            return redirect(url_for("clubs.add_match", token=token, match=row.edit_token))
        except ScartoError as exc:
            problems = [error_text(exc)]
    status = 400 if request.method == "POST" else 200
    return render_template("club_add.html", club=club, token=token, form=form, problems=problems), status


def _map_seats(club: club_store.ClubRow, token: str, match_token: str) -> Any:
    db = get_db()
    try:
        row, can_edit = store.find_match(db, match_token)
    except store.NotFound:
        abort(404)
    if not can_edit:
        abort(403, description=_("That is a view-only link; a match joins a club through its edit link."))
    owner = club_store.club_of(db, row.id)
    if owner is not None and owner != club.id:
        abort(403, description=_("This match belongs to another club."))
    roster = club_store.roster(db, club.id)
    current = club_store.seats(db, club.id).get(row.id)
    form = PickForm()
    problem = None
    if form.validate_on_submit():
        chosen = [request.form.get(f"seat_{i}", "") for i in range(len(row.players))]
        try:
            with store.writing(db):  # a seat's new player joins only with the match: a refusal leaves the roster
                ids = []
                for name, value in zip(row.players, chosen, strict=True):
                    if value == "new":
                        ids.append(club_store.player_for(db, club.id, name).id)
                    elif value.isdecimal() and len(value) < 19:
                        player = club_store.get_player(db, club.id, int(value))
                        if player.merged_into is not None:
                            raise store.NotFound("merged")
                        ids.append(player.id)
                    else:
                        raise ScartoError(_("Choose a roster player for each seat."))
                if len(set(ids)) != len(ids):
                    raise ScartoError(_("Two seats cannot be the same player."))
                club_store.attach_match(db, club.id, row.id, ids, announce=current is None)
                club_store.refresh_summary(db, row.id)
        except store.NotFound:
            problem = _("That player is not on the club's roster; reload the page.")
        except ScartoError as exc:
            problem = error_text(exc)
        else:
            flash(_("The match is in the club, its players mapped to the roster."))
            return redirect(url_for("clubs.club_page", token=token))
    by_fold = {club_files.name_key(p.name): p.id for p in roster}
    if current is not None:
        preset = [str(pid) for pid in current]
    else:
        preset = [str(by_fold[club_files.name_key(n)]) if club_files.name_key(n) in by_fold else "new"
                  for n in row.players]
    status = 400 if request.method == "POST" else 200
    return render_template("club_map.html", club=club, token=token, match=row, match_token=match_token,
                           roster=roster, preset=preset, form=form, problem=problem), status
