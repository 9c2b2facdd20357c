"""A club player's page (totals, form, ratings, head to head, the points given up) and what the
edit link may do there: rename the player, or merge two entries that are one person.

Routes of the ``clubs`` blueprint (:mod:`.clubs` makes it; this module adds to its ``bp``, so the
endpoints are ``clubs.player_page`` and the like).
"""

from __future__ import annotations

from typing import Any

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from ..engine import club_files
from ..engine import clubs as stats
from ..engine.errors import ScartoError
from ..engine.limits import MAX_NAME
from ..sheets.charts import cumulative_chart
from ..storage import clubs as club_store
from ..storage import store
from .club_views import ClubView, club_key, club_view, season_asked
from .clubs import bp
from .clubs_forms import MergeForm, PlayerForm
from .db import get_db
from .labels import PROBLEM_LABELS, message_text
from .lookalikes import warn_look_alikes
from .page_cache import cached_page
from .ratings import best_and_worst, club_ratings, head_to_head, player_nights, rating_chart
from .reviews import player_given_up
from .tokens import CLUB, load_by_token


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

    key = club_key("player page", club, token, player.id, request.args.get("season", ""))
    return Response(cached_page(key, render, own=rename is not None), status)


def _render_player_page(view: ClubView, player: club_store.PlayerRow, rename: PlayerForm | None) -> str:
    db = get_db()
    season, start, end = season_asked(view)
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
