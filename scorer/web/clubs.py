"""Clubs: a roster that persists across matches, its statistics, seasons and table.

A club is reached by capability links, like a match: the edit link changes the
roster and starts matches, the view link only looks. Statistics are computed
from the stored per-match summaries (scorer/storage/clubs.py), never by judging
every hand again.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import force_locale, format_date, ngettext
from flask_babel import gettext as _
from werkzeug.datastructures import FileStorage
from werkzeug.wrappers import Response as BaseResponse

from ..engine import club_files
from ..engine import clubs as stats
from ..engine import seasons as season_rules
from ..engine.errors import ScartoError
from ..engine.limits import MAX_NAME, MAX_ROSTER, MAX_TITLE
from ..engine.ratings import PROVISIONAL_MATCHES
from ..engine.records import MATCH_FORMAT, dumps, loads, parse_match
from ..engine.rulesets import Ruleset, dealt, find_ruleset
from ..engine.seasons import ALL, SeasonRule
from ..engine.settlement import Transfer, settle
from ..sheets.charts import cumulative_chart
from ..storage import clubs as club_store
from ..storage import links as link_store
from ..storage import store
from .clubs_forms import (
    AddForm,
    ClubForm,
    ImportClubForm,
    MergeForm,
    PickForm,
    PlayerForm,
    SeasonForm,
    SeasonRuleForm,
)
from .db import get_db
from .downloads import Spreadsheet, disposition, make_pdf, pdf_turn, text_cell
from .downloads import file_name as _file_name
from .forms import (
    Form,
    said_at,
)
from .labels import (
    PRESET_NAMES,
    PROBLEM_LABELS,
    current_language,
    error_text,
    message_text,
)
from .lookalikes import warn_look_alikes
from .page_cache import cached_page
from .ratings import (
    best_and_worst,
    club_ratings,
    head_to_head,
    night_ratings,
    player_nights,
    rating_at,
    rating_chart,
    rating_rows,
)
from .recent import recent_clubs, remember, remember_club
from .reviews import player_given_up
from .roster import pick_players, roster_lines, roster_problems, seat_order, ticked_players
from .sharing import share_codes
from .tokens import CLUB, load_by_token, open_each

bp = Blueprint("clubs", __name__)



# --- loading ---------------------------------------------------------------------


@dataclass
class ClubView:
    """A club with its roster and its matches' summaries, read once per request."""

    club: club_store.ClubRow
    token: str
    can_edit: bool
    players: dict[int, club_store.PlayerRow]
    """Every roster entry, merged ones too (so old seats can be named)."""
    summaries: list[stats.MatchSummary]
    seats: dict[int, tuple[int, ...]]

    @property
    def active(self) -> list[club_store.PlayerRow]:
        return [p for p in self.players.values() if p.merged_into is None]

    def name(self, key: Any) -> str:
        player = self.players.get(key)
        return player.name if player else "?"

    def table(self, start: str | None = None, end: str | None = None, by: str = "total") -> list[stats.PlayerStats]:
        return stats.rank(stats.club_table(self.summaries, self.seats, start, end), by)


def club_view(token: str, *, edit: bool = False) -> ClubView:
    club, can_edit = load_by_token(CLUB, token, edit=edit)
    db = get_db()
    players = {p.id: p for p in club_store.roster(db, club.id, merged=True)}
    return ClubView(club, token, can_edit, players, club_store.summaries(db, club.id),
                    club_store.seats(db, club.id))


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
    problems: list[str] = []
    if form.validate_on_submit():
        try:
            club_file = _uploaded_club_file(form)
            problems = _file_errors(club_file)
            if not problems:
                club = club_store.import_club(get_db(), club_file)
                warn_look_alikes(p.name for p in club_store.roster(get_db(), club.id))
                if club_file.part is None:
                    flash(ngettext("Club imported: %(num)s match.", "Club imported: %(num)s matches.",
                                   len(club_file.matches)))
                else:
                    flash(ngettext("Part 1 of %(of)s imported: %(num)s match. Add the other parts on the club's "
                                   "file page.", "Part 1 of %(of)s imported: %(num)s matches. Add the other parts "
                                   "on the club's file page.", len(club_file.matches), of=club_file.part.of))
                return remember_club(redirect(url_for("clubs.share", token=club.edit_token)), club.edit_token)
        except ScartoError as exc:
            problems = [error_text(exc)]
    status = 400 if request.method == "POST" else 200
    return render_template("club_import.html", form=form, problems=problems), status


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


def _file_errors(club_file: club_files.ClubFile) -> list[str]:
    """The hands with errors in a club file: such a file is refused whole, as a match file is."""
    from .labels import problem_text

    return [f"matches[{m}].hands[{h}]: {problem_text(problem)}" for m, results in enumerate(club_file.results)
            for h, result in enumerate(results) for problem in result.errors]


@bp.get("/c/<token>/")
def club_page(token: str) -> Any:
    """The club: start a match, the table, the players, the seasons, the matches, the history."""
    return _club_page(token)


def _club_page(token: str, season_form: SeasonForm | None = None) -> BaseResponse:
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

    page = cached_page(_club_key("club page", club, token), render, own=season_form is not None)
    return remember_club(Response(page), token)


def _club_key(page: str, club: club_store.ClubRow, token: str, *more: str | int) -> tuple[str | int, ...]:
    """A club page's key in the page cache: the club's state (any hand, match, roster, season, night or
    rating change of the club makes a new one), the link it was opened with (edit or view), the
    language and the day (a form's dates)."""
    return (page, token, *more, current_language(), club_store.club_state(get_db(), club.id),
            date.today().isoformat())


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


# --- matches ---------------------------------------------------------------------


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
                errors = _file_errors(one)
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


# --- players ---------------------------------------------------------------------


@bp.get("/c/<token>/p/<int:player_id>")
def player_page(token: str, player_id: int) -> Any:
    """A player's figures: totals, wins, deals, breaches, best and worst hand, form, head to head, chart."""
    return _player_page(token, player_id)


def _player_page(token: str, player_id: int, rename: PlayerForm | None = None, status: int = 200) -> Any:
    """The player's page, cached until anything of the club changes; with ``rename``, the rename form as
    it was sent (refused: what was typed stays, on a page of the phone's own)."""
    club, _can_edit = load_by_token(CLUB, token)
    try:
        player = club_store.get_player(get_db(), club.id, player_id)
    except store.NotFound:
        abort(404)
    if player.merged_into is not None:
        return redirect(url_for("clubs.player_page", token=token, player_id=player.merged_into))

    def render() -> str:
        return _render_player_page(club_view(token), player, rename)

    key = _club_key("player page", club, token, player.id, request.args.get("season", ""))
    return Response(cached_page(key, render, own=rename is not None), status)


def _render_player_page(view: ClubView, player: club_store.PlayerRow, rename: PlayerForm | None) -> str:
    db = get_db()
    season, start, end = _season(view)
    detail = stats.player_detail(view.summaries, view.seats, player.id, start, end)
    chart = cumulative_chart([player.name], [[v] for v in detail.running()][-200:],
                             title=_("Running total, match by match")) if detail.history else ""
    if rename is None:
        rename = PlayerForm(formdata=None, name=player.name, short=player.short or "")
    merge = MergeForm(formdata=None)
    merge.into.choices = [(p.id, p.name) for p in view.active if p.id != player.id]
    ratings = club_ratings(view.club, view.summaries, view.seats)
    rating = ratings.get(player.id)
    return render_template("club_player.html", view=view, player=player, detail=detail, chart=chart,
                           rating=rating, rating_chart=rating_chart(rating, player.name) if rating else "",
                           nights=best_and_worst(player_nights(rating, view.can_edit)) if rating else None,
                           expected=head_to_head(ratings, player.id, start, end),
                           aliases=club_store.aliases(db, view.club.id, player.id), rename=rename, merge=merge,
                           season=season, seasons=club_store.seasons(db, view.club.id),
                           problem_labels=PROBLEM_LABELS,
                           given_up=player_given_up(view.summaries, view.seats, player.id, player.name, start, end),
                           form_matches=club_store.club_match_rows(db, view.club.id,
                                                                   [line.match_id for line in detail.form]))


@bp.post("/c/<token>/p/<int:player_id>/rename")
def rename_player(token: str, player_id: int) -> Any:
    """A new name (or short name) for a player; their past matches stay theirs."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    form = PlayerForm()
    if not form.validate_on_submit():
        flash(_("A short name is at most %(most)s characters.", most=club_files.MAX_SHORT) if form.short.errors
              and not form.name.errors else _("Write the new name (at most %(most)s characters).", most=MAX_NAME),
              "error")
        return _player_page(token, player_id, form, 400)  # what was typed stays in the boxes
    try:
        club_store.rename_player(get_db(), club.id, player_id, form.name.data or "", form.short.data)
    except store.NotFound:
        abort(404)
    except club_store.NameTaken:
        flash(_("Another player of the club is called %(name)s; merge the two if they are the same person.",
                name=(form.name.data or "").strip()), "error")
        return _player_page(token, player_id, form, 409)
    except ScartoError as exc:
        flash(message_text(exc), "error")  # about the name just typed, in the box below
        return _player_page(token, player_id, form, 400)
    except club_store.ClubError:
        abort(404)
    flash(_("Saved: the player's past matches and statistics stay with them."))
    renamed = club_store.get_player(get_db(), club.id, player_id).name
    warn_look_alikes([p.name for p in club_store.roster(get_db(), club.id)], new=[renamed])
    return redirect(url_for("clubs.player_page", token=token, player_id=player_id))


@bp.post("/c/<token>/p/<int:player_id>/merge")
def merge_player(token: str, player_id: int) -> Any:
    """This entry and another are the same person: one player, every hand of both."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    form = MergeForm()
    if not form.validate_on_submit() or not isinstance(form.into.data, int):
        flash(_("Choose the player this entry is the same person as."), "error")
        return redirect(url_for("clubs.player_page", token=token, player_id=player_id))
    try:
        target = club_store.merge_players(get_db(), club.id, player_id, form.into.data)
    except store.NotFound:
        abort(404)
    except club_store.ClubError as exc:
        if str(exc) == "together":
            flash(_("These two sat at the same table, so they are not the same person."), "error")
        else:
            flash(_("Choose another player of the club."), "error")
        return redirect(url_for("clubs.player_page", token=token, player_id=player_id))
    flash(_("Merged: %(name)s now has every match of both.", name=target.name))
    return redirect(url_for("clubs.player_page", token=token, player_id=target.id))


# --- the table and seasons -------------------------------------------------------


def _season(view: ClubView, raw: str | None = None) -> tuple[club_store.Season | None, str | None, str | None]:
    """The season asked for (``?season=``, or ``raw``), its first and last day; none for all time."""
    raw = request.args.get("season", "") if raw is None else raw
    if not raw:
        return None, None, None
    if not raw.isdecimal() or len(raw) > 18:
        abort(404)
    try:
        season = club_store.get_season(get_db(), view.club.id, int(raw))
    except store.NotFound:
        abort(404)
    return season, season.start, season.end


@dataclass(frozen=True)
class TableView:
    view: ClubView
    season: club_store.Season | None
    lines: list[season_rules.SeasonLine]
    by: str
    settlement: list[Transfer]
    stake: dict[str, Any] | None

    @property
    def title(self) -> str:
        return self.season.name if self.season else _("All time")

    @property
    def rows(self) -> list[stats.PlayerStats]:
        return [line.stats for line in self.lines]

    @property
    def rule(self) -> SeasonRule:
        return self.season.rule if self.season else ALL

    def places(self) -> list[int]:
        return season_rules.places(self.lines, self.by)

    def rule_text(self) -> str:
        """Which rule the table ranks by, in words (the page and the sheet say it above the table)."""
        rule = self.rule
        if rule.best is None:
            return _("Ranked by each player's total over the season's matches.") if self.season else \
                _("Ranked by each player's total over every match.")
        if rule.counts == "nights":
            nights = len({result.day for line in self.lines for result in line.results})
            if rule.best == 1:
                return _("Ranked by each player's best night of the %(of)s played in the season: their total that "
                         "night.", of=nights)
            return ngettext("Ranked by each player's best %(num)s night of the %(of)s played in the season: the sum "
                            "of their totals on those nights; a player with fewer nights counts them all.",
                            "Ranked by each player's best %(num)s nights of the %(of)s played in the season: the "
                            "sum of their totals on those nights; a player with fewer nights counts them all.",
                            rule.best, of=nights)
        if rule.best == 1:
            return _("Ranked by each player's best match of the season: their total in it.")
        return ngettext("Ranked by each player's best %(num)s match of the season: the sum of their totals in "
                        "them; a player with fewer matches counts them all.",
                        "Ranked by each player's best %(num)s matches of the season: the sum of their totals in "
                        "them; a player with fewer matches counts them all.", rule.best)

    def score_heading(self) -> str:
        """The heading of the score's column under "best N"."""
        return _("Best %(num)s", num=self.rule.best)

    def counted_text(self, line: season_rules.SeasonLine) -> str:
        """How many of the player's results counted: "3 of 5 nights"."""
        if self.rule.counts == "nights":
            return ngettext("%(counted)s of %(num)s night", "%(counted)s of %(num)s nights", len(line.results),
                            counted=line.counted)
        return ngettext("%(counted)s of %(num)s match", "%(counted)s of %(num)s matches", len(line.results),
                        counted=line.counted)


def table_places(rows: list[stats.PlayerStats], by: str = "total") -> list[int]:
    """Each row's place; equal totals share a place (under the total ranking), on the club's page as on
    its table (the page once numbered tied players 1, 2, 3)."""
    out: list[int] = []
    for i, row in enumerate(rows):
        same = by == "total" and i and row.total == rows[i - 1].total
        out.append(out[-1] if same else i + 1)
    return out


def table_view(token: str, season_id: int | None = None) -> TableView:
    view = club_view(token)
    season, start, end = _season(view, None if season_id is None else str(season_id))
    by = "per_hand" if request.args.get("sort") == "per_hand" else "score"
    lines = season_rules.season_table(view.summaries, view.seats, season.rule if season else ALL, start, end)
    lines = season_rules.rank_lines(lines, by) if by == "per_hand" else lines
    stake = view.club.stake
    transfers: list[Transfer] = []
    if stake is not None and lines:  # money follows the points played, whatever the ranking
        totals = [(view.name(r.key), r.total) for r in stats.rank(line.stats for line in lines)]
        transfers = settle(totals, view.club.settings.get("settle", "per_point"), Decimal(stake["per_point"]))
    return TableView(view, season, lines, by, transfers, stake)


@bp.get("/c/<token>/table")
def table(token: str) -> str:
    """The club's table for a season (or all time), by total or by average per hand."""
    return _table_page(token, None)


def _table_page(token: str, rule_form: SeasonRuleForm | None, season_id: int | None = None) -> str:
    tv = table_view(token, season_id)
    if rule_form is None:
        rule_form = SeasonRuleForm(formdata=None)
        rule_form.fill_rule(tv.rule)
    return render_template("club_table.html", tv=tv, view=tv.view, form=Form(), rule_form=rule_form,
                           seasons=club_store.seasons(get_db(), tv.view.club.id))


@bp.post("/c/<token>/seasons/<int:season_id>/rule")
def season_rule(token: str, season_id: int) -> Any:
    """A season ranked by another rule, from its table's form; refused, the table again saying why."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    form = SeasonRuleForm()
    if form.validate_on_submit():
        try:
            club_store.set_season_rule(get_db(), club.id, season_id, form.season_rule())
        except store.NotFound:
            abort(404)
        flash(_("The season's ranking is changed."))
        return redirect(url_for("clubs.table", token=token, season=season_id))
    return _table_page(token, form, season_id), 400


@bp.get("/c/<token>/table.csv")
def table_csv(token: str) -> Response:
    """The season's table as CSV, for a spreadsheet in the club's language: the total to two places
    beside its exact value as text, the average per hand to two places."""
    tv = table_view(token)
    with force_locale(tv.view.club.settings.get("language") or current_language()):
        sheet = Spreadsheet()
        best = [tv.score_heading(), _("%(column)s (exact fraction)", column=tv.score_heading()),
                _("Counted")] if tv.rule.best else []
        sheet.head([_("Rank"), _("Player"), _("Matches"), _("Hands"), _("Total"),
                   _("%(column)s (exact fraction)", column=_("Total")), _("Per hand"), _("Wins"), _("Last places"),
                   _("Deals"), _("Rule breaches"), *best])
        for place, line in zip(tv.places(), tv.lines, strict=True):
            row = line.stats
            counted = [sheet.decimal(line.score), sheet.exact(line.score),
                       text_cell(tv.counted_text(line))] if tv.rule.best else []
            sheet.row([place, text_cell(tv.view.name(row.key)), row.matches, row.hands, sheet.decimal(row.total),
                       sheet.exact(row.total), sheet.decimal(row.per_hand), row.wins, row.last, row.deals,
                       row.breach_count, *counted])
        season = tv.season.name if tv.season else _("All time")
    return sheet.response(_file_name(f"{tv.view.club.name} {season}"))


@bp.get("/c/<token>/table.pdf")
def table_pdf(token: str) -> Response:
    """The season's table on A4 for the notice board, through the match sheet's PDF machinery."""
    with pdf_turn():  # a few PDFs at once, each in a worker process with a time limit
        tv = table_view(token)
        language = tv.view.club.settings.get("language") or current_language()
        ratings = club_ratings(tv.view.club, tv.view.summaries, tv.view.seats)
        shown = {row.key: rating_at(ratings.get(row.key), tv.season.end if tv.season else None) for row in tv.rows}
        with force_locale(language):
            html = render_template("pdf_club.html", tv=tv, view=tv.view, today=date.today().isoformat(),
                                   ratings=shown)
        pdf = make_pdf(html)
    name = _file_name(f"{tv.view.club.name} {tv.season.name if tv.season else ''}")
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": disposition("inline", f"{name or 'club'}.pdf")})


@bp.post("/c/<token>/seasons")
def add_season(token: str) -> Any:
    """A season from the club page's form; refused, the page again with what was typed and, at each field,
    what is wrong with it."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    form = SeasonForm()
    if form.validate_on_submit() and form.start.data is not None and form.end.data is not None:
        if form.end.data < form.start.data:
            form.end.errors = [*form.end.errors, _("The last day cannot come before the first.")]
        else:
            try:
                season = club_store.add_season(get_db(), club.id, form.name.data or "",
                                               form.start.data.isoformat(), form.end.data.isoformat(),
                                               form.season_rule())
            except club_store.NameTaken as exc:
                form.name.errors = [*form.name.errors, _("The club has a season called %(name)s already.",
                                                          name=str(exc))]
            except ScartoError as exc:
                form.name.errors = [*form.name.errors, message_text(exc)]
            else:
                return redirect(url_for("clubs.table", token=token, season=season.id))
    return _club_page(token, form), 400


@bp.post("/c/<token>/seasons/<int:season_id>/delete")
def delete_season(token: str, season_id: int) -> Any:
    """A season removed (its matches stay in the club: a season is only a range of dates)."""
    club, _can_edit = load_by_token(CLUB, token, edit=True)
    if not Form().validate_on_submit():
        abort(400)
    try:
        club_store.delete_season(get_db(), club.id, season_id)
    except store.NotFound:
        abort(404)
    flash(_("Season removed; its matches stay in the club."))
    return redirect(url_for("clubs.club_page", token=token))


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
        data = club_store.export_club(get_db(), club, int(raw) if raw else None)
    except club_store.InParts as exc:
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
    problems: list[str] = []
    if form.validate_on_submit():
        try:
            part = _uploaded_club_file(form)
            problems = _file_errors(part)
            if not problems:
                added, _count = club_store.add_part(get_db(), club, part)
                mark = part.part
                assert mark is not None  # add_part takes only a part
                flash(ngettext("Part %(number)s of %(of)s added: %(num)s match.",
                               "Part %(number)s of %(of)s added: %(num)s matches.", added, number=mark.number,
                               of=mark.of))
                return redirect(url_for("clubs.club_file", token=token))
        except ScartoError as exc:
            problems = [error_text(exc)]
    return _file_page(club, token, can_edit, form, problems, 400)


def _file_page(club: club_store.ClubRow, token: str, can_edit: bool, form: ImportClubForm, problems: list[str],
               status: int) -> Any:
    parts = club_store.file_parts(get_db(), club)
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
