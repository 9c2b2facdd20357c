"""A night as its pages and its programs say it: the tables' titles in the club's language, a round's
tables and the whole night as data (``scarto-night/1``, docs/NIGHT.md).

What the night pages (:mod:`.nights`) and the night's JSON interface (:mod:`.nights_api`) share.
"""

from __future__ import annotations

from typing import Any

from flask import url_for
from flask_babel import force_locale
from flask_babel import gettext as _

from ..engine import night_files
from ..engine.duplicate import ranking_to_dict
from ..storage import clubs as club_store
from ..storage import nights as night_store
from .labels import current_language


def club_language(club: club_store.ClubRow) -> str:
    return str(club.settings.get("language") or current_language())


def title_for(language: str) -> night_store.TitleFor:
    """Table titles in the club's language ("Giovedì, turno 2, tavolo 3")."""
    def make(night: str, round_: int, table: int) -> str:
        with force_locale(language):
            return str(_("%(night)s, round %(round)s, table %(table)s", night=night, round=round_, table=table))
    return make


def round_data(state: night_store.NightState, number: int, can_edit: bool) -> dict[str, Any]:
    night = state.night
    return {"number": number, "bye": night.bye(number), "tables": [
        {"number": t.table.number, "players": list(t.table.players),
         "match_url": url_for("matches.match_page", token=t.match.edit_token if can_edit else t.match.view_token,
                              _external=True),
         "hands": t.hands, "done": t.done,
         **({"boards": [b.number for b in night.boards(number, len(t.table.players))]} if night.duplicate else {})}
        for t in state.rounds[number - 1]]}


def night_document(state: night_store.NightState, can_edit: bool) -> dict[str, Any]:
    """The night as ``scarto-night/1`` (docs/NIGHT.md): its tables' links those of this link; a duplicate
    night's deal set and its ranking with every board's results beside."""
    out = night_files.night_document(state.night.spec, [round_data(state, n, can_edit)
                                                        for n in range(1, state.current + 1)], state.ranking)
    if state.night.duplicate is not None and state.duplicate is not None:
        out["duplicate"] = {**state.night.duplicate.to_dict(), "ranking": ranking_to_dict(state.duplicate)}
    return out
