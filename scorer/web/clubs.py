"""Clubs: a roster that persists across matches, its statistics, seasons and table.

A club is reached by capability links, like a match: the edit link changes the
roster and starts matches, the view link only looks. Statistics are computed
from the stored per-match summaries (scorer/storage/clubs.py), never by judging
every hand again.

The blueprint ``clubs`` is made here and holds the club's own pages (new, import, the club page,
share, settings, its file); its other routes are in modules of their own that add them to this
``bp``, so their endpoint names stay ``clubs.*``: :mod:`.clubs_matches` (a club's matches: starting
one, adding one), :mod:`.clubs_players` (a player's page, rename, merge) and :mod:`.clubs_seasons`
(the table and seasons). What they share of a club's reading is in :mod:`.club_views`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from werkzeug.datastructures import FileStorage
from werkzeug.wrappers import Response as BaseResponse

from ..engine import club_files
from ..engine import clubs as stats
from ..engine import seasons as season_rules
from ..engine.errors import ScartoError
from ..engine.limits import MAX_ROSTER
from ..engine.ratings import PROVISIONAL_MATCHES
from ..engine.records import dumps, loads
from ..engine.seasons import ALL
from ..storage import club_transfer, store
from ..storage import clubs as club_store
from ..storage import links as link_store
from .club_views import club_key, club_view, table_places
from .clubs_forms import ClubForm, ImportClubForm, SeasonForm
from .db import get_db
from .downloads import disposition
from .downloads import file_name as _file_name
from .forms import said_at
from .labels import PRESET_NAMES, current_language, error_text
from .lookalikes import warn_look_alikes
from .page_cache import cached_page
from .ratings import club_ratings, night_ratings, rating_rows
from .recent import recent_clubs, remember_club
from .roster import roster_lines, roster_problems
from .sharing import share_codes
from .tokens import CLUB, load_by_token, open_each

bp = Blueprint("clubs", __name__)


# --- loading ---------------------------------------------------------------------


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"recent_clubs": _recent_club_rows, "match_club": _match_club, "provisional_matches": PROVISIONAL_MATCHES,
            "night_ratings": night_ratings}


def _match_club(match_id: int) -> tuple[str, str] | None:
    """(name, link) of the match's club, when this phone has opened the club (a match's link alone
    does not lead to its club: that would hand the club's link to whoever has the match's)."""
    known = recent_clubs()
    if not known:  # a phone that opened no club: no link to look up
        return None
    db = get_db()
    club_id = club_store.club_of(db, match_id)
    if club_id is None:
        return None
    club = club_store.get_club(db, club_id)
    for token in (club.edit_token, club.view_token):
        if token in known:
            return club.name, url_for("clubs.club_page", token=token)
    return None


@bp.app_template_filter("round_points")
def round_points(value: Fraction) -> str:
    """An average to two decimals in the page's language (3,14 in Italian)."""
    from flask_babel import format_decimal

    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(format_decimal(exact.quantize(Decimal("0.01")), format="#,##0.00"))


def _recent_club_rows() -> list[tuple[str, club_store.ClubRow, bool]]:
    """The clubs this phone has opened (for the start page)."""
    return open_each(CLUB, recent_clubs())


# --- creating and opening clubs ----------------------------------------------------


@bp.route("/clubs/new", methods=["GET", "POST"])
def new_club() -> Any:
    """A new club: its name, its roster, the defaults of its matches."""
    form = ClubForm()
    if request.method == "GET":
        form.language.data = current_language()
    if form.validate_on_submit():
        players = roster_lines(form.roster.data or "")
        problems = [_("A club may have at most %(n)s players.", n=MAX_ROSTER)] if len(players) > MAX_ROSTER \
            else roster_problems(players)
        form.roster.errors = [*form.roster.errors, *problems]  # said at the box, each with its name
        try:
            club = None if problems else club_store.create_club(get_db(), form.name.data or "", players,
                                                                 form.defaults())
        except ScartoError as exc:
            said_at(form, exc)
        else:
            if club is not None:
                flash(_("Club created. Keep the edit link: it is the key to the club."))
                warn_look_alikes(name for name, _short in players)
                return remember_club(redirect(url_for("clubs.share", token=club.edit_token)), club.edit_token)
    status = 400 if request.method == "POST" else 200
    return render_template("club_new.html", form=form), status


@bp.route("/clubs/import", methods=["GET", "POST"])
def import_club() -> Any:
    """A club from a ``scarto-club/1`` file (a backup, or another installation's export), or from the
    first part of a club's file written in parts (the others are added on the club's file page)."""
    form = ImportClubForm()
    answer, problems = _take_club_file(form, _import_club_file)
    if answer is not None:
        return answer
    status = 400 if request.method == "POST" else 200
    return render_template("club_import.html", form=form, problems=problems), status


def _import_club_file(club_file: club_files.ClubFile) -> Any:
    """The club a file makes, told, and its share page."""
    club = club_transfer.import_club(get_db(), club_file)
    warn_look_alikes(p.name for p in club_store.roster(get_db(), club.id))
    if club_file.part is None:
        flash(ngettext("Club imported: %(num)s match.", "Club imported: %(num)s matches.", len(club_file.matches)))
    else:
        flash(ngettext("Part 1 of %(of)s imported: %(num)s match. Add the other parts on the club's "
                       "file page.", "Part 1 of %(of)s imported: %(num)s matches. Add the other parts "
                       "on the club's file page.", len(club_file.matches), of=club_file.part.of))
    return remember_club(redirect(url_for("clubs.share", token=club.edit_token)), club.edit_token)


def _take_club_file(form: ImportClubForm, take: Callable[[club_files.ClubFile], Any]) -> tuple[Any, list[str]]:
    """(what ``take`` answers for the club file the form posts, []), or (None, why the file is refused: it
    cannot be read, a hand in it has errors, or the storage refuses it, e.g. past a limit): a club's import
    and the part added to it read their file alike. (None, []) while nothing valid is posted."""
    if not form.validate_on_submit():
        return None, []
    try:
        club_file = _uploaded_club_file(form)
        problems = file_errors(club_file)
        return (None, problems) if problems else (take(club_file), [])
    except ScartoError as exc:
        return None, [error_text(exc)]


def _uploaded_club_file(form: ImportClubForm) -> club_files.ClubFile:
    """The club file a form brings, as a file or pasted; ScartoError saying what is wrong otherwise."""
    upload = form.file.data
    if isinstance(upload, FileStorage) and upload.filename:
        value = loads(upload.read(), "file")
    elif (form.text.data or "").strip():
        value = loads((form.text.data or "").strip().encode(), "text")
    else:
        raise ScartoError(_("Choose a file or paste its text."))
    return club_files.parse_club(value)


def file_errors(club_file: club_files.ClubFile) -> list[str]:
    """The hands with errors in a club file: such a file is refused whole, as a match file is."""
    from .labels import problem_text

    return [f"matches[{m}].hands[{h}]: {problem_text(problem)}" for m, results in enumerate(club_file.results)
            for h, result in enumerate(results) for problem in result.errors]


@bp.get("/c/<token>/")
def club_page(token: str) -> Any:
    """The club: start a match, the table, the players, the seasons, the matches, the history."""
    return render_club_page(token)


def render_club_page(token: str, season_form: SeasonForm | None = None) -> BaseResponse:
    """The club's page, cached until anything it shows changes; with ``season_form``, the season form as
    it was sent (refused: what was typed stays, on a page of the phone's own)."""
    club, _can_edit = load_by_token(CLUB, token)

    def render() -> str:
        view = club_view(token)
        db = get_db()
        matches = club_store.club_matches(db, view.club.id, limit=30)
        by_id = {s.match_id: s for s in view.summaries}
        history = list(reversed(club_store.events(db, view.club.id)))[:20]
        table = view.table()[:10]
        ratings = club_ratings(view.club, view.summaries, view.seats)
        return render_template(
            "club_page.html", view=view, table=table, places=table_places(table),
            ratings=rating_rows(ratings, {k: p.name for k, p in view.players.items()})[:10],
            seasons=club_store.seasons(db, view.club.id),
            season_form=season_form or SeasonForm(formdata=None), matches=matches,
            more_matches=max(0, len(view.summaries) - len(matches)), by_id=by_id,
            history=history, preset_names=PRESET_NAMES)

    page = cached_page(club_key("club page", club, token), render, own=season_form is not None)
    return remember_club(Response(page), token)


@bp.get("/c/<token>/share")
def share(token: str) -> str:
    """The club's edit and view links with QR codes."""
    club, can_edit = load_by_token(CLUB, token)
    codes = share_codes("clubs.club_page", club.edit_token if can_edit else None, club.view_token)
    changes = link_store.owner_link_changes(get_db(), "club", club.id) if can_edit else []
    return render_template("club_share.html", club=club, token=token, codes=codes, can_edit=can_edit,
                           changes=changes)


@bp.post("/c/<token>/links/renew")
def renew_links(token: str) -> Any:
    """New links for a club shared too widely, and for its matches and nights (its edit page hands out
    theirs): every old one answers 404 from now on."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    fresh = link_store.renew_club_links(get_db(), club.id)
    flash(_("New links made: the old edit and view links no longer open this club, nor its matches and nights. "
            "Share these instead."))
    return remember_club(redirect(url_for("clubs.share", token=fresh.edit_token)), fresh.edit_token)


@bp.route("/c/<token>/settings", methods=["GET", "POST"])
def settings(token: str) -> Any:
    """The club's name and its defaults for new matches."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    form = ClubForm()
    if request.method == "GET":
        form.name.data = club.name
        form.fill(club.settings)
    if form.validate_on_submit():
        try:
            club_store.update_club(get_db(), club.id, form.name.data or "", form.defaults(club.settings))
        except ScartoError as exc:
            said_at(form, exc)
        else:
            flash(_("Settings saved; they apply to the club's new matches."))
            return redirect(url_for("clubs.club_page", token=token))
    status = 400 if request.method == "POST" else 200
    return render_template("club_settings.html", form=form, club=club, token=token), status


# --- the club file and the roster as data ------------------------------------------


@bp.get("/c/<token>/export.json")
def export_json(token: str) -> Any:
    """The club as a ``scarto-club/1`` file: export, import and export again gives the same bytes.

    A club too large for one file is written in parts (``?part=1`` and on, docs/CLUB.md); asked
    for whole, it answers 409 with the parts' addresses."""
    club, _can_edit = load_by_token(CLUB, token)
    raw = request.args.get("part")
    if raw is not None and not (raw.isascii() and raw.isdigit() and 0 < len(raw) < 7):
        return {"error": "bad_request", "message": "part: write the part's number, from 1.",
                "problems": [{"where": "part", "message": "not a part's number"}]}, 400
    try:
        data = club_transfer.export_club(get_db(), club, int(raw) if raw else None)
    except club_transfer.InParts as exc:
        return {"error": "in_parts", "message": f"The club's file is in {exc.parts} parts: ask for each with "
                                                f"?part=1 to ?part={exc.parts}.",
                "parts": [url_for("clubs.export_json", token=token, part=n, _external=True)
                          for n in range(1, exc.parts + 1)]}, 409
    except store.NotFound:
        abort(404)
    name = _file_name(club.name) or "club"
    mark = data.get("part")
    if mark:
        name = f"{name}-{mark['number']}-of-{mark['of']}"
    return Response(dumps(data), mimetype="application/json",
                    headers={"Content-Disposition": disposition("attachment", f"{name}.json")})


@bp.get("/c/<token>/file")
def club_file(token: str) -> Any:
    """The club's file to download, whole or in parts; with the edit link, the next part to add."""
    club, can_edit = load_by_token(CLUB, token)
    return _file_page(club, token, can_edit, ImportClubForm(), [], 200)


@bp.post("/c/<token>/file/part")
def add_part(token: str) -> Any:
    """The next part of a club's file, added to the club its first part made (docs/CLUB.md)."""
    club, can_edit = load_by_token(CLUB, token, edit=True)
    form = ImportClubForm()
    answer, problems = _take_club_file(form, lambda part: _add_part_file(club, token, part))
    if answer is not None:
        return answer
    return _file_page(club, token, can_edit, form, problems, 400)


def _add_part_file(club: club_store.ClubRow, token: str, part: club_files.ClubFile) -> Any:
    """The part added to the club, told, and the club's file page."""
    added, _count = club_transfer.add_part(get_db(), club, part)
    mark = part.part
    assert mark is not None  # add_part takes only a part
    flash(ngettext("Part %(number)s of %(of)s added: %(num)s match.",
                   "Part %(number)s of %(of)s added: %(num)s matches.", added, number=mark.number, of=mark.of))
    return redirect(url_for("clubs.club_file", token=token))


def _file_page(club: club_store.ClubRow, token: str, can_edit: bool, form: ImportClubForm, problems: list[str],
               status: int) -> Any:
    parts = club_transfer.file_parts(get_db(), club)
    return render_template("club_file.html", club=club, token=token, can_edit=can_edit, parts=parts,
                           count=sum(p.count for p in parts), form=form, problems=problems), status


@bp.get("/c/<token>/players.json")
def players_json(token: str) -> Any:
    """``scarto-players/1`` for the club (``?from=`` and ``?to=`` limit it to matches in that range)."""
    try:
        club, _can_edit = club_store.find_club(get_db(), token)
    except store.NotFound:
        return {"error": "not_found", "message": "No club has this link."}, 404
    bounds: list[str | None] = []
    for key in ("from", "to"):
        raw = request.args.get(key)
        if raw is None:
            bounds.append(None)
            continue
        try:
            bounds.append(date.fromisoformat(raw).isoformat())
        except ValueError:
            return {"error": "bad_request", "message": f"{key}: write the date as YYYY-MM-DD.",
                    "problems": [{"where": key, "message": "write the date as YYYY-MM-DD"}]}, 400
    db = get_db()
    season = None
    raw = request.args.get("season")
    if raw is not None:
        try:
            if bounds != [None, None] or not (raw.isascii() and raw.isdigit() and len(raw) < 19):
                raise store.NotFound(raw)
            season = club_store.get_season(db, club.id, int(raw))
        except store.NotFound:
            return {"error": "bad_request", "message": "season: the number of one of the club's seasons, "
                                                       "without from or to.",
                    "problems": [{"where": "season", "message": "no such season of the club"}]}, 400
        bounds = [season.start, season.end]
    rule = season.rule if season else ALL
    lines = season_rules.season_table(club_store.summaries(db, club.id), club_store.seats(db, club.id), rule,
                                      bounds[0], bounds[1])
    names = {p.id: p.name for p in club_store.roster(db, club.id, merged=True)}
    document = stats.players_document([line.stats for line in lines], names)
    if season is not None:
        document = season_rules.season_document(document, lines, season.name, season.start, season.end, rule)
    return document
