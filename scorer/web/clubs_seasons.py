"""A club's table, for a season or all time, on the page, in CSV and on A4; the seasons themselves
(added, deleted, ranked by all results or each player's best N).

Routes of the ``clubs`` blueprint (:mod:`.clubs` makes it; this module adds to its ``bp``, so the
endpoints are ``clubs.table``, ``clubs.add_season`` and the like).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Response, abort, flash, redirect, render_template, url_for
from flask_babel import force_locale
from flask_babel import gettext as _

from ..engine.errors import ScartoError
from ..storage import clubs as club_store
from ..storage import store
from .club_views import table_view
from .clubs import bp, render_club_page
from .clubs_forms import SeasonForm, SeasonRuleForm
from .db import get_db
from .downloads import Spreadsheet, make_pdf, pdf_response, pdf_turn, text_cell
from .downloads import file_name as _file_name
from .forms import Form
from .labels import current_language, message_text
from .ratings import club_ratings, rating_at
from .tokens import CLUB, load_by_token


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
    return pdf_response(pdf, _file_name(f"{tv.view.club.name} {tv.season.name if tv.season else ''}") or "club")


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
    return render_club_page(token, form), 400


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
