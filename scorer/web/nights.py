"""Club nights: several tables, seats drawn and rotated, one live ranking.

A night is created by the club's director from the club's edit link; it gets links of
its own, like a match: the edit link is the director's view (every table of the round,
start the next round, the table cards), the view link the members' (the ranking and each
round's tables). Both pages keep themselves up to date with static/sync.js, the match
pages' conditional polling of ``state.json`` (a 304 while nothing changed at any table).

Each table is an ordinary match of the club (scorer/storage/nights.py), recorded with
the match pages that exist. The JSON interface (docs/NIGHT.md) is the blueprint of
:mod:`.nights_api`, exempt from CSRF and JSON only, as the clubs' is; what both say of a
night (table titles, a round as data, the night's document) is in :mod:`.night_views`.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import segno
from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import force_locale, ngettext
from flask_babel import gettext as _
from werkzeug.datastructures import FileStorage

from ..engine import club_files, night_files
from ..engine.duplicate import duplicate_to_dict, merge, parse_duplicate, rank
from ..engine.errors import ScartoError
from ..engine.nights import places as ranking_places
from ..engine.records import loads
from ..engine.rulesets import PRESETS
from ..storage import clubs as club_store
from ..storage import links as link_store
from ..storage import nights as night_store
from ..storage import store
from .db import get_db
from .downloads import Spreadsheet, disposition, make_pdf, pdf_response, pdf_turn, text_cell
from .downloads import file_name as _file_name
from .jsonio import NOT_FOUND, refuse
from .labels import PRESET_NAMES, error_text, message_text, name_error_text
from .lookalikes import warn_look_alikes
from .night_views import club_language, night_document, title_for
from .nights_forms import NextForm, NightForm, SessionFileForm
from .polling import poll_seconds
from .roster import pick_players, ticked_players
from .tokens import CLUB, NIGHT, load_by_token

bp = Blueprint("nights", __name__)


# --- the club's nights ------------------------------------------------------------


@bp.app_template_global()
def nights_of(club_id: int) -> list[night_store.NightRow]:
    """The club's nights, newest first (for the club's page)."""
    return night_store.club_nights(get_db(), club_id)[:10]


# --- creating a night ----------------------------------------------------------------


@bp.route("/c/<token>/nights/new", methods=["GET", "POST"])
def new_night(token: str) -> Any:
    """The director picks the players present and how the night is played."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    db = get_db()
    form = NightForm()
    ruleset = club.settings.get("ruleset", "classic")
    default_preset = ruleset.get("preset", "classic") if isinstance(ruleset, dict) else str(ruleset)
    if request.method == "GET":
        form.title.data = club.name
        form.date.data = datetime.now(UTC).date()
        form.preset.data = default_preset if default_preset in PRESETS and PRESETS[default_preset].players == 3 \
            else "classic"
    problem = None
    ticked = ticked_players()
    if form.validate_on_submit():
        try:
            names, problems = pick_players(db, club.id, ticked, form.new.data or "")
        except store.NotFound:
            names, problems, problem = [], [], _("That player is not on the club's roster; reload the page.")
        form.new.errors = [*form.new.errors, *problems]  # each typed name's problem, at the box of new names
        if problem is None and not problems:
            preset = form.preset.data or "classic"
            data: dict[str, Any] = {
                "title": form.title.data, "date": form.date.data.isoformat() if form.date.data else None,
                "players": names, "rounds": form.rounds.data, "seating": form.seating.data or "mixed",
                "ranking": form.ranking.data or "total",
                "ruleset": ruleset if preset == default_preset else preset}
            if form.hands.data:
                data["hands_per_round"] = form.hands.data
            if form.seed.data is not None:
                data["seed"] = form.seed.data
            if form.duplicate.data:
                data["duplicate"] = {"boards_per_round": form.boards.data or 3,
                                     "scoring": form.scoring.data or "matchpoints"}
                if form.deal_seed.data:
                    data["duplicate"]["seed"] = form.deal_seed.data
            try:
                spec = night_files.parse_night(data, club.settings, club.name)
                night = night_store.create_night(db, club, spec, title_for(club_language(club)))
            except ScartoError as exc:
                problem = _form_problem(exc, names)
            else:
                flash(_("The night is seated: round 1 is at the tables."))
                warn_look_alikes([p.name for p in club_store.roster(db, club.id)], new=names)
                return redirect(url_for("nights.night_page", token=night.edit_token))
    status = 400 if request.method == "POST" else 200
    return render_template("night_new.html", club=club, token=token, form=form, problem=problem,
                           players=club_store.recent_players(db, club.id), ticked=set(ticked)), status


# --- duplicate boards ----------------------------------------------------------------------


@bp.app_template_global()
def board_links(night: night_store.NightRow, round_: int, players: tuple[str, ...]) -> list[dict[str, Any]]:
    """A duplicate table's boards in the order its hands play them: the board, who deals it, its page."""
    plan = night.duplicate
    if plan is None:
        return []
    size = night.rounds_planned * plan.boards
    return [{"hand": i, "board": b.number, "dealer": players[b.dealer - 1],
             "url": url_for("deals.board_page", deal="four" if len(players) == 4 else night.deal, boards=size,
                            board=b.number, seed=plan.seed)}
            for i, b in enumerate(night.boards(round_, len(players)), start=1)]


@bp.app_template_filter("groupby_board")
def groupby_board(results: Any) -> list[tuple[tuple[str, int], list[Any]]]:
    """A duplicate ranking's results as travellers: board by board (three deal before four), seat by seat."""
    out: dict[tuple[str, int], list[Any]] = {}
    for r in results:
        out.setdefault((r.deal, r.board), []).append(r)
    return sorted(out.items(), key=lambda item: (item[0][1], item[0][0] == "four", item[0][0]))


@bp.app_template_global()
def night_boards(match_id: int) -> list[dict[str, Any]]:
    """The boards of a duplicate night's table, for its match page (none for any other match)."""
    found = night_store.night_of(get_db(), match_id)
    if found is None:
        return []
    night, table = found
    return board_links(night, table.round, table.players)


def _form_problem(exc: ScartoError, names: list[str]) -> str:
    """The night's refusal said on the form: about a player, with their name (not ``players[3]``)."""
    seat = re.fullmatch(r"players\[(\d+)\]", exc.where)
    if seat and int(seat.group(1)) < len(names):
        return name_error_text(names[int(seat.group(1))], exc)
    return message_text(exc)


# --- the night's pages ----------------------------------------------------------------


@bp.get("/n/<token>/")
def night_page(token: str) -> Any:
    """The director's view (edit link) or the members' view (view link), both updating by themselves."""
    night, can_edit = load_by_token(NIGHT, token)
    db = get_db()
    state, tag = night_store.current_state(db, night)
    club = club_store.get_club(db, night.club_id)
    codes = {}
    if can_edit:
        for t in state.current_tables:
            url = url_for("matches.match_page", token=t.match.edit_token, _external=True)
            codes[t.table.number] = segno.make(url, error="m").svg_inline(scale=3, border=4, omitsize=True)
    members = url_for("nights.night_page", token=night.view_token, _external=True)
    changes = link_store.owner_link_changes(db, "night", night.id) if can_edit else []
    return render_template("night_page.html", night=night, state=state, club=club, token=token,
                           can_edit=can_edit, codes=codes, form=NextForm(), members=members,
                           preset_names=PRESET_NAMES, tag=tag, changes=changes, error_text=error_text)


@bp.post("/n/<token>/links/renew")
def renew_links(token: str) -> Any:
    """New links for a night shared too widely, and for its tables' matches (its page and table cards hand
    out theirs): every old one answers 404 from now on."""
    night, _can_edit = load_by_token(NIGHT, token, edit=True)
    fresh = link_store.renew_night_links(get_db(), night.id)
    flash(_("New links made: the old links no longer open this night, nor its tables' matches. Print the table "
            "cards again and share these instead."))
    return redirect(url_for("nights.night_page", token=fresh.edit_token))


@bp.get("/n/<token>/state.json")
def night_state_tag(token: str) -> Response:
    """A tag that changes with any hand saved at any table of the night; 304 when the phone has it already."""
    night, _can_edit = load_by_token(NIGHT, token)
    tag = night_store.state_tag(get_db(), night)
    etag = f'"{tag}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=304, headers=headers)
    return Response(f'{{"state": "{tag}", "poll": {poll_seconds()}}}', mimetype="application/json", headers=headers)


@bp.get("/n/<token>/night.json")
def night_json(token: str) -> Any:
    try:
        night, can_edit = night_store.find_night(get_db(), token)
    except store.NotFound:
        return refuse(404, "not_found", NOT_FOUND)
    return night_document(night_store.current_state(get_db(), night)[0], can_edit)


@bp.post("/n/<token>/next")
def next_round(token: str) -> Any:
    """The director starts the next round (or forces it while a table plays, with the reason)."""
    night, _can_edit = load_by_token(NIGHT, token, edit=True)
    form = NextForm()
    if not form.validate_on_submit():
        flash(_("The reason may be at most 200 characters long."), "error")
        return redirect(url_for("nights.night_page", token=token))
    club = club_store.get_club(get_db(), night.club_id)
    offered = (form.round.data or "").strip()
    try:
        number = night_store.start_round(get_db(), night.id, force=bool(form.force.data),
                                         reason=(form.reason.data or "").strip(),
                                         title_for=title_for(club_language(club)),
                                         expected=int(offered) if offered.isdecimal() and len(offered) < 4 else None)
    except night_store.AlreadyStarted as exc:
        flash(_("Round %(n)s is at the tables already (started by a second tap or another phone): nothing more "
                "was started.", n=exc.current), "error")
    except night_store.NotDone as exc:
        flash(ngettext("Table %(tables)s has not finished the round. Wait for it, or tick \"Start it anyway\" "
                       "and say why.",
                       "Tables %(tables)s have not finished the round. Wait for them, or tick \"Start it anyway\" "
                       "and say why.", len(exc.tables), tables=", ".join(str(t) for t in exc.tables)), "error")
    except night_store.NightOver:
        flash(_("Every round of the night has been played."), "error")
    except ScartoError as exc:  # a limit of the club's (docs/LIMITS.md): its matches
        flash(error_text(exc), "error")
    else:
        flash(_("Round %(n)s is seated.", n=number))
    return redirect(url_for("nights.night_page", token=token))


# --- sheets ----------------------------------------------------------------------------


def _language(night: night_store.NightRow) -> str:
    return club_language(club_store.get_club(get_db(), night.club_id))


@bp.get("/n/<token>/cards.pdf")
def cards_pdf(token: str) -> Response:
    """The table cards of a round (the current one, or ``?round=``): number, players in seating order, QR."""
    night, _can_edit = load_by_token(NIGHT, token, edit=True)
    state, _tag = night_store.current_state(get_db(), night)
    raw = request.args.get("round", "")
    number = state.current
    if raw:
        if not raw.isdecimal() or not 0 < int(raw[:3]) <= state.current or len(raw) > 3:
            abort(404)
        number = int(raw)
    resources = {}
    for t in state.rounds[number - 1]:
        url = url_for("matches.match_page", token=t.match.edit_token, _external=True)
        buffer = io.BytesIO()
        segno.make(url, error="m").save(buffer, kind="svg", scale=4, border=4)
        resources[f"qr{t.table.number}.svg"] = buffer.getvalue()
    with pdf_turn(), force_locale(_language(night)):  # a few PDFs at once, each in a worker with a time limit
        html = render_template("pdf_night_cards.html", night=night, state=state, number=number)
        pdf = make_pdf(html, resources)
    return pdf_response(pdf, _file_name(f"{night.title} {number}") or "night")


@bp.get("/n/<token>/results.pdf")
def results_pdf(token: str) -> Response:
    """The night's results: the ranking, each round's tables and scores."""
    night, _can_edit = load_by_token(NIGHT, token)
    state, _tag = night_store.current_state(get_db(), night)
    with pdf_turn(), force_locale(_language(night)):
        html = render_template("pdf_night_results.html", night=night, state=state)
        pdf = make_pdf(html)
    return pdf_response(pdf, _file_name(night.title) or "night")


@bp.get("/n/<token>/results.csv")
def results_csv(token: str) -> Response:
    """The ranking, a line per player, with each round's table, total and place."""
    night, _can_edit = load_by_token(NIGHT, token)
    state, _tag = night_store.current_state(get_db(), night)
    if state.duplicate is not None:
        return _duplicate_csv(night, state.duplicate)
    at: dict[tuple[str, int], tuple[int, Fraction, int | None]] = {}
    for r, round_ in enumerate(state.rounds, start=1):
        for t in round_:
            places = ranking_places(t.totals()) if t.hands else {}
            for name, total in t.totals():
                at[(name, r)] = (t.table.number, total, places.get(name))
    with force_locale(_language(night)):  # for the club's spreadsheet, as the PDFs are for its room
        sheet = Spreadsheet()
        head = [_("Rank"), _("Player"), _("Total"), _("%(column)s (exact fraction)", column=_("Total")),
                _("Match points"), _("Hands")]
        for r in range(1, state.current + 1):
            total = _("Round %(n)s: total", n=r)
            head += [_("Round %(n)s: table", n=r), total, _("%(column)s (exact fraction)", column=total),
                     _("Round %(n)s: place", n=r)]
        sheet.head(head)
        for line in state.ranking:
            row: list[Any] = [line.place, text_cell(line.name), sheet.decimal(line.total), sheet.exact(line.total),
                              sheet.decimal(line.match_points), line.hands]
            for r in range(1, state.current + 1):
                seat = at.get((line.name, r))
                if seat is None:
                    row += [_("bye") if line.name in night.bye(r) else "", "", "", ""]
                else:
                    row += [seat[0], sheet.decimal(seat[1]), sheet.exact(seat[1]), "" if seat[2] is None else seat[2]]
            sheet.row(row)
    return sheet.response(_file_name(night.title) or "night")


def _duplicate_csv(night: night_store.NightRow, ranking: Any) -> Response:
    """A duplicate night's ranking, a line per player, then the travellers: a line per result of each board."""
    with force_locale(_language(night)):
        sheet = Spreadsheet()
        sheet.head([_("Rank"), _("Player"), _("Percentage"), _("Difference"),
                    _("%(column)s (exact fraction)", column=_("Difference")), _("Boards")])
        for p in ranking.players:
            sheet.row([p.rank, text_cell(p.name), sheet.decimal(p.percent), sheet.decimal(p.difference),
                       sheet.exact(p.difference), p.boards])
        sheet.row([])
        sheet.row([_("Board"), _("Seat"), _("Round"), _("Table number"), _("Player"), _("Score"), _("Matchpoints"),
                   _("Top"), _("Percentage")])
        for r in ranking.results:
            board = f"{r.board} ({_('four deal')})" if r.deal == "four" else r.board
            sheet.row([board, r.seat, r.round, r.table, text_cell(r.player), sheet.decimal(r.score),
                       r.matchpoints, r.top, sheet.decimal(r.percent)])
    return sheet.response(_file_name(night.title) or "night")


@bp.get("/n/<token>/session.json")
def session_json(token: str) -> Response:
    """A duplicate night as its ``scarto-duplicate/1`` file (docs/DUPLICATE.md): what another club
    merges with its own, and what imports back as the same night."""
    night, _can_edit = load_by_token(NIGHT, token)
    if night.duplicate is None:
        abort(404)
    db = get_db()
    state, _tag = night_store.current_state(db, night)
    club = club_store.get_club(db, night.club_id)
    session, _misdealt = night_store.duplicate_session(db, night, state.rounds, club.name)
    plan = night.duplicate
    # beside the engine's keys, what makes the file a night again: its title, date and boards a round
    document = {**duplicate_to_dict(session), "title": night.title, "date": night.date,
                "boards_per_round": plan.boards}
    body = json.dumps(document, ensure_ascii=False, indent=1)
    name = _file_name(night.title) or "night"
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": disposition("attachment", f"{name}.json")})


def _session_choices(club: club_store.ClubRow) -> list[tuple[str, str]]:
    nights = [n for n in night_store.club_nights(get_db(), club.id) if n.duplicate is not None][:20]
    return [("", _("Import it as a night of this club")),
            *((str(n.id), _("Rank it with “%(title)s” (%(date)s)", title=n.title, date=n.date)) for n in nights)]


@bp.route("/c/<token>/duplicate", methods=["GET", "POST"])
def session_file(token: str) -> Any:
    """A ``scarto-duplicate/1`` file brought to the club: a night of its own (the club's export read back),
    or another club's session of the same boards ranked together with one of the club's nights."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    form = SessionFileForm()
    form.night.choices = _session_choices(club)
    problems: list[str] = []
    if form.validate_on_submit():
        try:
            value = _uploaded_session(form)
            session = parse_duplicate(value)
            if form.night.data:
                return _merged_page(club, token, int(form.night.data), session)
            night = _imported(club, value, session)
        except ScartoError as exc:
            problems = [error_text(exc)]
        else:
            flash(_("The session is imported as a night of the club."))
            return redirect(url_for("nights.night_page", token=night.edit_token))
    elif request.method == "POST":
        problems = [_("Choose a file or paste its text.")]
    status = 400 if request.method == "POST" else 200
    return render_template("night_session.html", club=club, token=token, form=form, problems=problems), status


def _uploaded_session(form: SessionFileForm) -> Any:
    upload = form.file.data
    if isinstance(upload, FileStorage) and upload.filename:
        return loads(upload.read(), "file")
    if (form.text.data or "").strip():
        return loads((form.text.data or "").strip().encode(), "text")
    raise ScartoError(_("Choose a file or paste its text."))


def _imported(club: club_store.ClubRow, value: Any, session: Any) -> night_store.NightRow:
    """The file as a new night: its title and date as this app writes them, else the seed and today."""
    title = value.get("title") if isinstance(value.get("title"), str) else session.seed
    day = value.get("date") if isinstance(value.get("date"), str) else datetime.now(UTC).date().isoformat()
    per_round = value.get("boards_per_round")
    per_round = per_round if isinstance(per_round, int) and not isinstance(per_round, bool) and \
        1 <= per_round <= night_files.MAX_HANDS else None
    return night_store.import_session(get_db(), club, session, per_round,
                                      club_files.clean_name(title[:40], "title", player=False),
                                      club_files.read_date(day, "date"), title_for(club_language(club)))


def _merged_page(club: club_store.ClubRow, token: str, night_id: int, other: Any) -> Any:
    """The club's night and another club's session of the same deal set, ranked as one tournament."""
    db = get_db()
    night = night_store.get_night(db, night_id)
    if night.club_id != club.id or night.duplicate is None:
        abort(404)
    state, _tag = night_store.current_state(db, night)
    mine, _misdealt = night_store.duplicate_session(db, night, state.rounds, club.name)
    label = other.club if other.club and other.club != club.name else _("the other club")
    ranking = rank(merge([mine, replace(other, club=label)]))
    return render_template("night_merged.html", club=club, token=token, night=night, other=label,
                           merged={"duplicate": ranking})
