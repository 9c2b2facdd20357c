"""PDF: HTML and CSS in, PDF out (WeasyPrint), and what a match sheet shows (:class:`Sheet`).

No Flask and no app here: the web layer renders a sheet's HTML through Flask
(``scorer.web.sheets``), the ``scarto pdf`` command through a plain Jinja
environment (:mod:`.render`), both from the same templates, and both hand the
HTML to :func:`html_to_pdf`. WeasyPrint is imported only when a PDF is made, so
the app and the command start without paying for it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from markupsafe import Markup

from ..engine.messages import N_
from ..engine.records import MatchRecord
from ..engine.scoring import HandResult, score_hand
from ..engine.standings import Standings, standings
from .charts import LINE_GLYPHS, cumulative_chart
from .ledger import Ledger, ledger
from .words import Words


@dataclass(frozen=True)
class Sheet:
    """What a match sheet shows: the match, every hand judged, the standings."""

    record: MatchRecord
    results: list[HandResult]
    table: Standings
    words: Words = field(default_factory=Words)
    """The language, pack and translation the sheet is told in."""
    chart_title: str = N_("Running totals")
    x_title: str = N_("Hands")
    y_title: str = N_("Points")

    @property
    def title(self) -> str:
        return self.record.title or "Scarto"

    def chart(self) -> str:
        """The running-totals chart: the match page's SVG, compact (its legend is ``ranking``)."""
        totals = [line.totals for line in self.table.lines]
        return cumulative_chart(self.record.players, totals, width=520, height=190,
                                title=self.words.gettext(self.chart_title), compact=True,
                                x_title=self.words.gettext(self.x_title), y_title=self.words.gettext(self.y_title))

    def ledger(self) -> Ledger:
        gettext = self.words.gettext
        return ledger(self.table, (gettext(N_("pts")), gettext(N_("score")), gettext(N_("total"))))

    def files(self) -> dict[str, bytes]:
        """The files the sheet's HTML shows that are made for it (the chart)."""
        return {"chart.svg": self.chart().encode()}

    @staticmethod
    def ledger_style(ledger: Ledger) -> Markup:
        """A smaller type size when the ledger's lines would not fit the page at the normal one."""
        if ledger.width <= LEDGER_LINE_PT / (MONO_ADVANCE * LEDGER_FONT_PT):
            return Markup("")
        size = LEDGER_LINE_PT / (MONO_ADVANCE * ledger.width)
        return Markup(f"<style>.ledger {{ font-size: {size:.2f}pt; }}</style>")

    def ledger_runs_over(self, ledger: Ledger) -> bool:
        """Whether the ledger may run onto another page, and so needs its heading repeated there.

        About 50 ledger lines fit under the sheet's heading on the first page; a
        short ledger under a heading of ordinary length is spared the repeated
        heading (one box less to lay out). Files can carry titles and places of any
        length, so a long one always gets it.
        """
        lines = sum(1 + 2 * len(line.problems) for line in ledger.lines)
        heading = len(self.record.title or "") + len(self.record.place or "")
        return lines > FIRST_PAGE_LINES or heading > ORDINARY_HEADING

    def ranking(self) -> list[tuple[int, str, Fraction, str]]:
        """(place, player, total, the player's line in the chart), best first; ties share a place."""
        seats = sorted(range(len(self.record.players)), key=lambda seat: -self.table.totals[seat])
        out: list[tuple[int, str, Fraction, str]] = []
        for index, seat in enumerate(seats):
            total = self.table.totals[seat]
            place = out[-1][0] if out and out[-1][2] == total else index + 1
            out.append((place, self.record.players[seat], total, LINE_GLYPHS[seat % len(LINE_GLYPHS)]))
        return out


FIRST_PAGE_LINES = 40
"""Ledger lines (a hand's, or two for each of its problems) sure to fit on the first page..."""
ORDINARY_HEADING = 160
"""...under a title and place of at most this many characters together (the form allows 80 each)."""
LEDGER_FONT_PT = 9.0
"""The ledger's type size in static/pdf.css."""
LEDGER_LINE_PT = 527.0
"""The width of an A4 page inside the sheet's 12 mm margins, in points (the body has no margin of its own)."""
MONO_ADVANCE = 0.602
"""DejaVu Sans Mono's advance width, in ems."""


def sheet_for(match: MatchRecord, results: list[HandResult] | None = None, words: Words | None = None) -> Sheet:
    judged = results if results is not None else [score_hand(h) for h in match.hands]
    return Sheet(match, judged, standings(match, judged), words or Words())


def html_to_pdf(html: str, folder: str, resources: Mapping[str, bytes] | None = None,
                stylesheet: str = "pdf.css") -> bytes:
    """Render HTML, styled by ``stylesheet`` in ``folder``, to PDF bytes.

    The HTML's other files are read from ``folder`` and nowhere else (no network,
    no other file); ``resources`` are files made for this sheet (``{"chart.svg": ...}``),
    served from memory as if they were in that folder.
    """
    from weasyprint import HTML  # heavy: imported only when a PDF is made

    root = Path(folder).resolve()
    fonts, css = _renderer(root / stylesheet)
    fetcher = _fetcher_class()(root, dict(resources or {}))
    document = HTML(string=html, base_url=str(root) + "/", url_fetcher=fetcher)
    return bytes(document.write_pdf(stylesheets=[css], font_config=fonts))


_THREAD = threading.local()


def _renderer(stylesheet: Path) -> tuple[Any, Any]:
    """This thread's font configuration and parsed stylesheet, kept from one PDF to the next.

    A new ``FontConfiguration`` for every PDF makes Pango find and load each font at
    each size again, and parsing the stylesheet takes as long as a short page; kept,
    a match sheet renders in three quarters of the time. They are kept per thread
    because Pango's font maps are not made to be shared between threads; the
    stylesheet is read again when its file changes.
    """
    from weasyprint import CSS
    from weasyprint.text.fonts import FontConfiguration

    key = (stylesheet, stylesheet.stat().st_mtime_ns)
    kept = getattr(_THREAD, "renderer", None)
    if kept is None or kept[0] != key:
        fonts = FontConfiguration()
        fetcher = _fetcher_class()(stylesheet.parent, {})
        kept = (key, fonts, CSS(filename=str(stylesheet), font_config=fonts, url_fetcher=fetcher))
        _THREAD.renderer = kept
    return kept[1], kept[2]


_MEDIA_TYPES = {".svg": "image/svg+xml", ".css": "text/css", ".png": "image/png"}


def sheet_file(folder: Path, url: str) -> Path:
    """The file under ``folder`` a ``file:`` URL names; ValueError for anything else.

    The path is resolved first, so neither ``..`` nor its percent-encoded form
    nor a symbolic link leads out of the folder.
    """
    parts = urlsplit(url)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        raise ValueError(f"{url}: a sheet reads only its own files")
    path = Path(url2pathname(parts.path)).resolve()
    if not path.is_relative_to(folder):
        raise ValueError(f"{url}: a sheet reads only its own files")
    return path


def _fetcher_class() -> type:
    """WeasyPrint's URL fetcher, kept to one folder and this sheet's own files (made on first use)."""
    global _FETCHER
    if _FETCHER is None:
        from weasyprint.urls import URLFetcher, URLFetcherResponse

        class SheetFetcher(URLFetcher):
            def __init__(self, folder: Path, resources: dict[str, bytes]) -> None:
                super().__init__(allowed_protocols=("file",))
                self.folder = folder
                self.resources = resources

            def fetch(self, url: str, headers: Any = None) -> Any:
                path = sheet_file(self.folder, url)
                name = path.relative_to(self.folder).as_posix()
                media_type = _MEDIA_TYPES.get(path.suffix, "application/octet-stream")
                if name in self.resources:
                    return URLFetcherResponse(url, self.resources[name], {"Content-Type": media_type})
                return URLFetcherResponse(url, path.read_bytes(), {"Content-Type": media_type})

        _FETCHER = SheetFetcher
    return _FETCHER


_FETCHER: type | None = None
