"""Printable and downloadable sheets: the match sheet PDF and the standings CSV.

The sheet's HTML is rendered here through Flask (the page's filters, the match's
language); :mod:`scorer.sheets.pdf` only turns HTML and CSS into a PDF. The command
renders the same template without Flask (:mod:`scorer.sheets.render`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g, render_template
from flask_babel import force_locale
from flask_babel import gettext as _

from ..sheets.pdf import Sheet
from .downloads import Spreadsheet, make_pdf, pdf_response, pdf_turn, sheet_name, text_cell
from .labels import PROBLEM_LABELS, current_language, page_words
from .match_views import match_view

bp = Blueprint("sheets", __name__)


@bp.get("/m/<token>/sheet.pdf")
def match_sheet(token: str) -> Response:
    """The match sheet on A4: every hand, running totals, chart, standings, settlement."""
    with pdf_turn():
        view = match_view(token)
        with force_locale(view.record.language or current_language()):
            sheet = Sheet(view.record, view.results, view.table, words=page_words())
            g.sheet_date = view.record.date or view.row.created_at[:10]  # the sheet is dated, in the app or not
            html = render_template("pdf_match.html", sheet=sheet)
            files = sheet.files()
        pdf = make_pdf(html, files)
    return pdf_response(pdf, sheet_name(view.record.title, view.record.date or view.row.created_at[:10],
                                        "scarto-match"))


@bp.get("/m/<token>/standings.csv")
def standings_csv(token: str) -> Response:
    """The hands and running totals as CSV, for a spreadsheet in the match's language: each number
    to two places (a number the spreadsheet can add up) beside its exact value as text."""
    view = match_view(token)
    players = view.record.players
    with force_locale(view.record.language or current_language()):
        sheet = Spreadsheet()
        columns = (_("Card points"), _("Score"), _("Total"))
        head: list[str] = [_("Hand"), _("Dealer")]
        for column in columns:
            for p in players:
                head += [f"{p} · {column}", f"{p} · {_('%(column)s (exact fraction)', column=column)}"]
        sheet.head([*head, _("Problems")])
        for line in view.table.lines:
            counts = line.result.counts
            values = ([[c.card_points for c in counts], [c.score for c in counts]] if counts
                      else [[None] * len(players)] * 2)
            cells: list[Any] = [line.number, text_cell(line.dealer)]
            for value in (*values, line.totals):
                for v in value:
                    cells += ["", ""] if v is None else [sheet.decimal(v), sheet.exact(v)]
            sheet.row([*cells, ", ".join(str(PROBLEM_LABELS.get(p.code, p.code)) for p in line.result.problems)])
    return sheet.response(sheet_name(view.record.title, None, "scarto-standings"))
