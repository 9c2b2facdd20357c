"""PDF adapter: match sheets and audit sheets, rendered by WeasyPrint from the page templates.

WeasyPrint is imported only when a PDF is made, so the app and the command
start without paying for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask, g, render_template
from flask_babel import gettext

from .charts import cumulative_chart
from .messages import N_
from .records import MatchRecord
from .scoring import HandResult, score_hand
from .standings import Standings, standings


@dataclass(frozen=True)
class Sheet:
    """What a match sheet shows: the match, every hand judged, the standings."""

    record: MatchRecord
    results: list[HandResult]
    table: Standings
    chart_title: str = N_("Running totals")

    @property
    def title(self) -> str:
        return self.record.title or "Scarto"

    def chart(self) -> str:
        totals = [line.totals for line in self.table.lines]
        return cumulative_chart(self.record.players, totals, width=520, height=210,
                                title=gettext(self.chart_title))


def sheet_for(match: MatchRecord, results: list[HandResult] | None = None) -> Sheet:
    judged = results if results is not None else [score_hand(h) for h in match.hands]
    return Sheet(match, judged, standings(match, judged))


def html_to_pdf(html: str, base_url: str) -> bytes:
    """Render HTML (with its stylesheet under ``base_url``) to PDF bytes."""
    from weasyprint import HTML  # heavy: imported only when a PDF is made

    return bytes(HTML(string=html, base_url=base_url).write_pdf())


def match_sheet_html(sheet: Sheet, **context: Any) -> str:
    """The match sheet as HTML (inside a Flask request or app context)."""
    return render_template("pdf_match.html", sheet=sheet, **context)


def match_sheet_pdf(match: MatchRecord, app: Flask | None = None) -> bytes:
    """The match sheet of a match file, outside any request (the ``scarto pdf`` command)."""
    if app is None:
        from .web import create_app

        app = create_app({"DATABASE": ":memory:", "SKIP_MIGRATIONS": True, "SECRET_KEY": "pdf",
                          "SERVER_NAME": "localhost"})
    language = match.language or "en"
    with app.test_request_context("/", query_string={"lang": language}):
        g.pack = match.pack or "italian"
        html = match_sheet_html(sheet_for(match))
        return html_to_pdf(html, str(app.static_folder) + "/")
