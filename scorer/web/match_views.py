"""A match as its pages show it: the stored standings of one page of hands, or the match judged whole.

A match page reads only the hands it shows (:class:`MatchPage`: its cost does not grow with
the match); the sheet and the pages that need every hand judge the match once a request and
number its hands once (:class:`MatchView`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from flask import url_for
from flask_babel import gettext as _

from ..engine.records import MatchRecord
from ..engine.scoring import HandResult, score_hand
from ..engine.standings import Standings, standings
from ..sheets.charts import cumulative_chart
from ..storage import store
from .db import get_db
from .tokens import MATCH, load_by_token


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
    numbers: dict[str, int] = field(default_factory=dict)
    """Each current hand's number in the match, by its key (1 for the first)."""

    @property
    def title(self) -> str:
        return self.record.title or _("Scarto match")

    @property
    def count(self) -> int:
        """How many hands the match has."""
        return len(self.hands)

    @property
    def next_number(self) -> int:
        return len(self.hands) + 1

    def number_of(self, key: str) -> int | None:
        """The hand's number in the match, None for a hand not counted (deleted)."""
        return self.numbers.get(key)

    def chart(self) -> str:
        totals = [line.totals for line in self.table.lines]
        return cumulative_chart(self.record.players, totals, title=_("Running totals"))


PAGE_HANDS = 20
"""Hands a match page lists at once: the latest, with links to the earlier ones."""


@dataclass(frozen=True)
class MatchPage:
    """A match as its page shows it, from the stored results: the hands of one page and the totals.

    Its cost does not grow with the match: nothing is judged, and only the hands shown
    (and the last one's running totals) are read.
    """

    row: store.MatchRow
    token: str
    can_edit: bool
    table: store.Window
    page: int
    """Which page of hands: 1 the latest, each further page the hands before."""
    pages: int

    @property
    def record(self) -> MatchRecord:
        """The match's settings as the engine reads them (without its hands)."""
        return self.table.match

    @property
    def hands(self) -> tuple[store.Line, ...]:
        return self.table.lines

    @property
    def count(self) -> int:
        return self.table.count

    @property
    def title(self) -> str:
        return self.record.title or _("Scarto match")

    @property
    def next_number(self) -> int:
        return self.table.count + 1

    def number_of(self, key: str) -> int | None:
        """A hand's number in the match (None for a deleted one)."""
        try:
            return store.hand_number(get_db(), store.get_hand(get_db(), self.row.id, key))
        except store.NotFound:
            return None

    @cached_property
    def _hand_url(self) -> str:
        return url_for("hands.hand_page", token=self.token, key="KEY")

    def hand_url(self, key: str) -> str:
        """The address of one of its hands (routed once for the page, not once a hand)."""
        return self._hand_url.replace("/KEY/", f"/{key}/")

    def chart(self) -> str:
        """The running totals of the hands on this page."""
        totals = [line.totals for line in self.table.lines]
        return cumulative_chart(self.record.players, totals, title=_("Running totals"))


def match_page_view(token: str, *, edit: bool = False, page: int = 1, lines: int = PAGE_HANDS,
                    loaded: tuple[store.MatchRow, bool] | None = None) -> MatchPage:
    """The match for a page that shows its standings: ``lines`` hands, page 1 the latest ones,
    page 2 the ones before them, and so on (``lines=0`` for a page that lists none). ``loaded``:
    what :func:`load_by_token` gave for the token, when the caller has it already."""
    row, can_edit = loaded or load_by_token(MATCH, token, edit=edit)
    db = get_db()
    count = store.count_hands(db, row.id)
    pages = max(1, -(-count // PAGE_HANDS))
    page = max(1, min(page, pages))
    end = count - (page - 1) * PAGE_HANDS
    start = max(0, end - lines)
    table = store.standings_window(db, row, start, end - start)
    return MatchPage(row, token, can_edit, table, page, pages)


def match_view(token: str, *, edit: bool = False) -> MatchView:
    """Load and judge the whole match for a page."""
    row, can_edit = load_by_token(MATCH, token, edit=edit)
    db = get_db()
    hands = store.list_hands(db, row.id)
    record = store.match_record(db, row, hands)
    results = [score_hand(h) for h in record.hands]
    numbers = {h.key: number for number, h in enumerate(hands, start=1)}
    return MatchView(row, token, can_edit, record, hands, results, standings(record, results), numbers)
