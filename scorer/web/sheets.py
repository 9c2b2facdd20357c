"""Printable and downloadable sheets: the match sheet PDF, the audit sheet PDF, standings CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from flask import Blueprint, Response, current_app, render_template
from flask_babel import force_locale

from ..engine.cards import CODES
from ..engine.validation import Problem
from ..sheets.pdf import Sheet, html_to_pdf, match_sheet_files
from ..sheets.worker import RenderPool, pool
from .labels import PRESET_NAMES, card_label, card_title, current_language, problem_text, switch_rows
from .matches import _file_name, disposition, match_view

bp = Blueprint("sheets", __name__)


@bp.app_template_global("problem_text")
def _problem_text(problem: Problem) -> str:
    """A problem's sentence in the page's language."""
    return problem_text(problem)


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"switch_rows": switch_rows}


@bp.app_template_filter("card")
def _card(index: int) -> str:
    return card_label(index)


@bp.app_template_filter("preset_name")
def _preset_name(preset: str) -> str:
    return str(PRESET_NAMES.get(preset, preset))


@bp.app_template_filter("code_label")
def _code_label(code: str) -> str:
    """A card code of a breakdown (or the exchange's "+1") as a screen label."""
    return card_label(CODES.index(code)) if code in CODES else code


@bp.app_template_filter("card_title")
def _card_title(index: int) -> str:
    return card_title(index)


def _pool() -> RenderPool | None:
    config = current_app.config
    size = int(config["PDF_RENDERS"])
    return pool(size, float(config["PDF_TIMEOUT"]), float(config["PDF_WAIT"])) if size > 0 else None


@contextmanager
def pdf_turn() -> Iterator[None]:
    """One of the PDF_RENDERS turns, held while a sheet is made (its HTML and its PDF): Busy when all are taken."""
    workers = _pool()
    if workers is None:
        yield
    else:
        with workers.turn():
            yield


def make_pdf(html: str, resources: dict[str, bytes] | None = None) -> bytes:
    """The PDF of a sheet's HTML, made in a worker process (PDF_RENDERS at once, each PDF_TIMEOUT seconds
    at most; Busy or TooSlow otherwise, answered with a 503 page). PDF_RENDERS = 0 renders in this thread."""
    folder = str(current_app.static_folder) + "/"
    workers = _pool()
    if workers is None:
        return html_to_pdf(html, folder, resources)
    return workers.render(html, folder, resources)


def pdf_response(pdf: bytes, name: str) -> Response:
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": disposition("inline", f"{name}.pdf")})


def sheet_name(title: str | None, date: str | None, fallback: str) -> str:
    """A file name people recognise: the match title and date, safe for every system."""
    return _file_name(" ".join(part for part in (title or fallback, date or "") if part))


@bp.get("/m/<token>/sheet.pdf")
def match_sheet(token: str) -> Response:
    """The match sheet on A4: every hand, running totals, chart, standings, settlement."""
    with pdf_turn():
        view = match_view(token)
        sheet = Sheet(view.record, view.results, view.table)
        with force_locale(view.record.language or current_language()):
            html, files = match_sheet_files(sheet)
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
    writer.writerow(["hand", "dealer", *[_text_cell(f"{p} points") for p in players],
                     *[_text_cell(f"{p} score") for p in players], *[_text_cell(f"{p} total") for p in players],
                     "problems"])
    for line in view.table.lines:
        counts = line.result.counts
        points = [number_cell(c.card_points) for c in counts] if counts else [""] * len(players)
        scores = [number_cell(c.score) for c in counts] if counts else [""] * len(players)
        writer.writerow([
            line.number, _text_cell(line.dealer), *points, *scores,
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


def _text_cell(text: str) -> str:
    """A name as a CSV cell a spreadsheet will not run as a formula ("=HYPERLINK(...)")."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def audit_pdf_html(**context: Any) -> str:
    return render_template("pdf_audit.html", **context)
