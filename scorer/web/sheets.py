"""Printable and downloadable sheets: the match sheet PDF and the standings CSV.

The sheet's HTML is rendered here through Flask (the page's filters, the match's
language); :mod:`scorer.sheets.pdf` only turns HTML and CSS into a PDF. The command
renders the same template without Flask (:mod:`scorer.sheets.render`).
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction

from flask import Blueprint, Response, g, render_template
from flask_babel import force_locale

from ..sheets.pdf import Sheet
from .context import disposition, make_pdf, match_view, pdf_response, pdf_turn, sheet_name, text_cell
from .labels import current_language, page_words

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
    """The hands and running totals as CSV, for a spreadsheet."""
    view = match_view(token)
    players = view.record.players
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["hand", "dealer", *[text_cell(f"{p} points") for p in players],
                     *[text_cell(f"{p} score") for p in players], *[text_cell(f"{p} total") for p in players],
                     "problems"])
    for line in view.table.lines:
        counts = line.result.counts
        points = [number_cell(c.card_points) for c in counts] if counts else [""] * len(players)
        scores = [number_cell(c.score) for c in counts] if counts else [""] * len(players)
        writer.writerow([
            line.number, text_cell(line.dealer), *points, *scores,
            *[number_cell(t) for t in line.totals],
            " ".join(p.code for p in line.result.problems),
        ])
    name = sheet_name(view.record.title, None, "scarto-standings")
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": disposition("attachment", f"{name}.csv")})


def number_cell(value: Fraction) -> int | str:
    """A number as a CSV cell every spreadsheet reads as that number: 19, or a fraction as a mixed number.

    "1/3" is read as the 1st of March and "-77/3" run as a formula; "0 1/3" and "-25 2/3" are
    how Excel and LibreOffice are told a fraction (their help pages: "type 0 1/2"), read as
    the numbers 0.333... and -25.666..., never as a date or a formula.
    """
    if value.denominator == 1:
        return value.numerator
    whole, rest = divmod(abs(value.numerator), value.denominator)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole} {rest}/{value.denominator}"


