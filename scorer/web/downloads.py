"""Files sent to the phone: their names, the PDFs made in worker processes, the CSV files.

Every download of the app (match sheet, club table, night ranking, deal sets) goes through
here, so a file is named, headed and made the same way whichever page offers it: names safe
on every system and in every script (:func:`disposition`), PDFs a few at a time with a time
limit (:func:`make_pdf`), CSV cells no spreadsheet runs as a formula (:class:`Spreadsheet`).
"""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any
from urllib.parse import quote

from babel.numbers import get_decimal_symbol
from flask import Response, current_app
from flask_babel import get_locale

from ..engine.numbers import fraction_text
from ..sheets.pdf import html_to_pdf
from ..sheets.worker import RenderPool, pool

# --- files sent -----------------------------------------------------------------------


def file_name(title: str) -> str:
    """A title as a file name safe on every system ("Sunday at Anna's" -> sunday-at-anna-s)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in title.strip().lower())
    return "-".join(part for part in safe.split("-") if part)[:60] or "scarto-match"


def sheet_name(title: str | None, date: str | None, fallback: str) -> str:
    """A file name people recognise: the match title and date, safe for every system.

    The title gives way to the date, not the other way: a long title is cut so that the date
    (what tells one week's file from the next) stays whole.
    """
    name = file_name(title or fallback)
    suffix = file_name(date) if date else ""
    if not suffix:
        return name
    return f"{name[:59 - len(suffix)].rstrip('-')}-{suffix}"


def disposition(kind: str, name: str) -> str:
    """A Content-Disposition header for a file name in any script (RFC 6266).

    Headers travel as Latin-1, so the plain ``filename`` is the name folded to ASCII and
    ``filename*`` carries it whole in UTF-8 for the browsers that read it.
    """
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    plain = "-".join(part for part in folded.replace('"', "").split("-") if part) or "scarto"
    return f"{kind}; filename=\"{plain}\"; filename*=UTF-8''{quote(name)}"


def pdf_response(pdf: bytes, name: str) -> Response:
    """A PDF for the browser to show (inline), saved as ``name``.pdf: every sheet's one answer."""
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": disposition("inline", f"{name}.pdf")})


# --- PDFs in worker processes ------------------------------------------------------


def _pool() -> RenderPool | None:
    config = current_app.config
    size = int(config["PDF_RENDERS"])
    return pool(size, float(config["PDF_TIMEOUT"]), float(config["PDF_WAIT"]),
                int(config["PDF_QUEUE"])) if size > 0 else None


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


# --- CSV ------------------------------------------------------------------------------


def text_cell(text: str) -> str:
    """A name as a CSV cell a spreadsheet will not run as a formula ("=HYPERLINK(...)")."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def decimal_cell(value: Fraction, mark: str) -> str:
    """A number to two places (half away from zero) with the language's decimal mark: 19,33 or -25.67.

    Never "58/3": a spreadsheet takes "1/3" for the 1st of March and "-77/3" for a formula.
    """
    cents = math.floor(abs(value) * 100 + Fraction(1, 2))
    sign = "-" if value < 0 and cents else ""
    return f"{sign}{cents // 100}{mark}{cents % 100:02d}"


def exact_cell(value: Fraction) -> int | str:
    """The exact number: a whole one as that number, else as text no spreadsheet reads as a number,
    a date or a formula: 19⅓, −25⅔.

    As the sheet writes it (fraction_text), with the minus sign U+2212 (a leading "-" before
    text starts a formula in Excel) and the fraction slash U+2044 where no glyph exists
    ("7/12" is a date).
    """
    if value.denominator == 1:
        return value.numerator
    return fraction_text(value).replace("-", "\u2212").replace("/", "\u2044")


class Spreadsheet:
    """A CSV file written for a spreadsheet in the page's language.

    Italian, German, Finnish and Spanish spreadsheets read "19,33" as a number and split
    lines at ";" (the comma is their decimal mark); English ones read "19.33" and split at
    ",". The file starts with a byte-order mark: without it Excel reads UTF-8 names as
    Latin-1. Build it inside the language's ``force_locale``.
    """

    def __init__(self) -> None:
        self.mark = get_decimal_symbol(get_locale() or "en")
        self.out = io.StringIO()
        self.out.write("\ufeff")
        self.writer = csv.writer(self.out, delimiter=";" if self.mark == "," else ",")

    def row(self, cells: Iterable[Any]) -> None:
        self.writer.writerow(cells)

    def head(self, names: Iterable[str]) -> None:
        """The header line: the page's words without the soft hyphens that break them in narrow columns."""
        self.writer.writerow([text_cell(str(name).replace("\u00ad", "")) for name in names])

    def decimal(self, value: Fraction) -> str:
        return decimal_cell(value, self.mark)

    exact = staticmethod(exact_cell)  # the name the rows read best with: sheet.decimal(v), sheet.exact(v)

    def response(self, name: str) -> Response:
        return Response(self.out.getvalue(), mimetype="text/csv",
                        headers={"Content-Disposition": disposition("attachment", f"{name}.csv")})
