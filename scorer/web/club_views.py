"""A club as its pages show it: its roster and match summaries read once a request
(:class:`ClubView`), the season a page asks for, and the table of a season (:class:`TableView`).

What the routes of the ``clubs`` blueprint share (:mod:`.clubs` and its parts), as
:mod:`.match_views` is for a match; the key of a club page in the page cache beside, since it is
the club's state that makes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from flask import abort, request
from flask_babel import gettext as _
from flask_babel import ngettext

from ..engine import clubs as stats
from ..engine import seasons as season_rules
from ..engine.seasons import ALL, SeasonRule
from ..engine.settlement import Transfer, settle
from ..storage import clubs as club_store
from ..storage import store
from .db import get_db
from .labels import current_language
from .tokens import CLUB, load_by_token


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


def club_key(page: str, club: club_store.ClubRow, token: str, *more: str | int) -> tuple[str | int, ...]:
    """A club page's key in the page cache: the club's state (any hand, match, roster, season, night or
    rating change of the club makes a new one), the link it was opened with (edit or view), the
    language and the day (a form's dates)."""
    return (page, token, *more, current_language(), club_store.club_state(get_db(), club.id),
            date.today().isoformat())


def season_asked(view: ClubView, raw: str | None = None) -> tuple[club_store.Season | None, str | None, str | None]:
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
    season, start, end = season_asked(view, None if season_id is None else str(season_id))
    by = "per_hand" if request.args.get("sort") == "per_hand" else "score"
    lines = season_rules.season_table(view.summaries, view.seats, season.rule if season else ALL, start, end)
    lines = season_rules.rank_lines(lines, by) if by == "per_hand" else lines
    stake = view.club.stake
    transfers: list[Transfer] = []
    if stake is not None and lines:  # money follows the points played, whatever the ranking
        totals = [(view.name(r.key), r.total) for r in stats.rank(line.stats for line in lines)]
        transfers = settle(totals, view.club.settings.get("settle", "per_point"), Decimal(stake["per_point"]))
    return TableView(view, season, lines, by, transfers, stake)
