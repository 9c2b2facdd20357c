"""Printable and downloadable sheets: the match sheet PDF and the standings CSV.

The sheet's HTML is rendered here through Flask (the page's filters, the match's
language); :mod:`scorer.sheets.pdf` only turns HTML and CSS into a PDF. The command
renders the same template without Flask (:mod:`scorer.sheets.render`).
"""

from __future__ import annotations

import csv
import io

from flask import Blueprint, Response, current_app, render_template
from flask_babel import force_locale

from ..engine.numbers import fraction_json
from ..sheets.pdf import Sheet, html_to_pdf
from .context import disposition, match_view, pdf_response, sheet_name
from .labels import current_language, page_words

bp = Blueprint("sheets", __name__)


@bp.get("/m/<token>/sheet.pdf")
def match_sheet(token: str) -> Response:
    """The match sheet on A4: every hand, running totals, chart, standings, settlement."""
    view = match_view(token)
    with force_locale(view.record.language or current_language()):
        sheet = Sheet(view.record, view.results, view.table, words=page_words())
        html = render_template("pdf_match.html", sheet=sheet)
        files = sheet.files()
    pdf = html_to_pdf(html, str(current_app.static_folder) + "/", files)
    return pdf_response(pdf, sheet_name(view.record.title, view.record.date or view.row.created_at[:10],
                                        "scarto-match"))


@bp.get("/m/<token>/standings.csv")
def standings_csv(token: str) -> Response:
    """The hands and running totals as CSV, for a spreadsheet."""
    view = match_view(token)
    players = view.record.players
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["hand", "dealer", *[_text_cell(f"{p} points") for p in players],
                     *[_text_cell(f"{p} score") for p in players], *[_text_cell(f"{p} total") for p in players],
                     "problems"])
    for line in view.table.lines:
        counts = line.result.counts
        points = [fraction_json(c.card_points) for c in counts] if counts else [""] * len(players)
        scores = [fraction_json(c.score) for c in counts] if counts else [""] * len(players)
        writer.writerow([
            line.number, _text_cell(line.dealer), *points, *scores,
            *[fraction_json(t) for t in line.totals],
            " ".join(p.code for p in line.result.problems),
        ])
    name = sheet_name(view.record.title, None, "scarto-standings")
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": disposition("attachment", f"{name}.csv")})


def _text_cell(text: str) -> str:
    """A name as a CSV cell a spreadsheet will not run as a formula ("=HYPERLINK(...)")."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
