"""Printable and downloadable sheets: the match sheet PDF, the audit sheet PDF, standings CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Blueprint, Response, current_app, g, render_template
from flask_babel import force_locale
from markupsafe import Markup

from ..engine.cards import CODES
from ..engine.records import fraction_json
from ..engine.validation import Problem
from ..sheets import cardfaces
from ..sheets.pdf import Sheet, html_to_pdf, match_sheet_files
from .labels import (
    PRESET_NAMES,
    card_label,
    card_title,
    current_language,
    current_pack,
    problem_text,
    switch_rows,
)
from .matches import _file_name, disposition, match_view

bp = Blueprint("sheets", __name__)


@bp.app_template_global("problem_text")
def _problem_text(problem: Problem) -> str:
    """A problem's sentence in the page's language."""
    return problem_text(problem)


@bp.app_context_processor
def _globals() -> dict[str, Any]:
    return {"switch_rows": switch_rows, "error_attrs": error_attrs}


def error_attrs(field: Any, describedby: str | None = None) -> dict[str, str]:
    """A field with an error says so to screen readers, and which message is about it."""
    if not getattr(field, "errors", None) and describedby is None:
        return {}
    return {"aria-invalid": "true", "aria-describedby": describedby or f"{field.id}-error"}


@bp.app_template_filter("card")
def _card(index: int) -> str:
    return card_label(index)


@bp.app_template_filter("card_face")
def _card_face(index: int, named: bool = True) -> Markup:
    """A card drawn: its rank and suit mark (scorer/sheets/cardfaces.py), in the page's language and pack."""
    return Markup(cardfaces.card_face(index, current_language(), current_pack(), named=named))


@bp.app_template_filter("code_face")
def _code_face(code: str, named: bool = True) -> Markup | str:
    """A card code drawn as :func:`_card_face` (anything else, such as the exchange's "+1", as it is)."""
    return _card_face(CODES.index(code), named) if code in CODES else code


@bp.app_template_filter("card_face_pdf")
def _card_face_pdf(index: int) -> Markup:
    """A card drawn for a PDF sheet: the suit mark inline."""
    return Markup(cardfaces.card_face(index, current_language(), current_pack(), inline=True, named=False))


@bp.app_template_global("card_sprite")
def _card_sprite() -> Markup:
    """The suit marks of the match's pack, once per page, for the drawn cards to refer to."""
    return Markup(cardfaces.sprite(current_pack()))


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


def pdf_response(pdf: bytes, name: str) -> Response:
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": disposition("inline", f"{name}.pdf")})


def sheet_name(title: str | None, date: str | None, fallback: str) -> str:
    """A file name people recognise: the match title and date, safe for every system."""
    return _file_name(" ".join(part for part in (title or fallback, date or "") if part))


@bp.get("/m/<token>/sheet.pdf")
def match_sheet(token: str) -> Response:
    """The match sheet on A4: every hand, running totals, chart, standings, settlement."""
    view = match_view(token)
    sheet = Sheet(view.record, view.results, view.table)
    g.sheet_date = view.record.date or view.row.created_at[:10]  # the sheet is dated, made in the app or not
    with force_locale(view.record.language or current_language()):
        html, files = match_sheet_files(sheet)
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


def audit_pdf_html(**context: Any) -> str:
    return render_template("pdf_audit.html", **context)
