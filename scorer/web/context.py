"""What the blueprints share about a request: the database, the match a token opens, its view.

The blueprints hold routes only; anything two of them need lives here (or in
:mod:`.labels`, :mod:`.filters`), so no blueprint imports another one's module and
none imports the factory. A match page's view judges the match once a request, and
numbers its hands once (:attr:`MatchView.numbers`).
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import json
import math
import os
import re
import sqlite3
import threading
import unicodedata
import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any
from urllib.parse import quote

import segno
from babel.numbers import get_decimal_symbol
from flask import Response, abort, current_app, g, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup
from werkzeug.wrappers import Response as BaseResponse

from ..engine.errors import ScartoError
from ..engine.limits import MAX_AUDIT_LINK, MAX_AUDIT_LINK_READ
from ..engine.numbers import fraction_text
from ..engine.records import HandRecord, MatchRecord, hand_to_dict, loads, parse_hand
from ..engine.scoring import HandResult, score_hand
from ..engine.standings import Standings, standings
from ..sheets.charts import cumulative_chart
from ..sheets.pdf import html_to_pdf
from ..sheets.worker import RenderPool, pool
from ..storage import clubs as club_store
from ..storage import db as database
from ..storage import links, store
from .jsonio import NOT_FOUND, json_request, refuse

# --- the database -------------------------------------------------------------------


def get_db() -> Any:
    """The request's database handle (its thread's connection, opened on first use)."""
    if "db" not in g:
        g.db = _thread_connection(current_app.config["DATABASE"])
    return g.db


def close_db(_: BaseException | None = None) -> None:
    """End of the request: its connection goes back to its thread, no transaction left open."""
    db = g.pop("db", None)
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


# --- saves, one at a time in a process ------------------------------------------------


class Turns:
    """A lock taken in the order it was asked for (``threading.Lock`` wakes any waiter, so a save
    could wait behind many that came later: the p99 it is here for). The holder hands it straight
    to the longest waiter; a wait gives up after ``timeout`` seconds with ``False``."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._waiting: deque[threading.Lock] = deque()
        self._held = False

    def acquire(self, timeout: float) -> bool:
        with self._guard:
            if not self._held:
                self._held = True
                return True
            turn = threading.Lock()
            turn.acquire()
            self._waiting.append(turn)
        if turn.acquire(timeout=timeout):
            return True
        with self._guard:
            if turn in self._waiting:  # still waiting: leave the queue
                self._waiting.remove(turn)
                return False
        return True  # handed over as the wait ended: it is ours

    def release(self) -> None:
        with self._guard:
            if self._waiting:
                self._waiting.popleft().release()  # the lock stays held, by the next in line
            else:
                self._held = False


_SAVING = Turns()


SAVES = frozenset({"hands.new_hand", "hands.edit_hand", "clubs_api.add_hand"})
"""The routes that save a hand when they are posted to."""


def take_save_turn() -> None:
    """Let one request of this process save a hand at a time, from its first hook to its answer
    (a ``before_request`` registered ahead of the CSRF check; :func:`end_save_turn` gives it back).

    SQLite writes one transaction at a time anyway, and the GIL runs one thread's Python at a time:
    eight threads reading, judging and writing saves together only interleave, and the one holding
    the writer lock waits for the GIL behind the others at every statement (a convoy: with 16 phones
    saving, a p99 of 114-119 ms with 8 threads against 50-59 ms with one). Queued here in turn, the
    waiting threads sleep without the GIL and each save runs through as with one thread, while the
    threads not saving serve pages, assets and sheets (saves waiting hold their threads, as they did
    interleaved: eight saves at once still take eight). The turn is taken before the CSRF check reads
    and verifies the form, so that the waiting saves' checks do not run beside the save in turn (taken
    in the view: a p99 of 43-83 ms with 8 threads against 35-75 ms with one; taken here: 55-63 ms
    against 51-59, the same within the runs' noise). The wait is bounded as the writer lock's is (the
    503 page).
    """
    if request.method == "POST" and request.endpoint in SAVES:
        if not _SAVING.acquire(timeout=database.BUSY_TIMEOUT):
            raise sqlite3.OperationalError("database is locked")
        g.save_turn = True


def end_save_turn(_error: BaseException | None = None) -> None:
    """The request's end (``teardown_request``, whatever happened): its turn to the next save."""
    if g.pop("save_turn", False):
        _SAVING.release()


_KEPT = threading.local()


def _thread_connection(path: str) -> Any:
    """Each server thread keeps its connection from one request to the next.

    Opening one costs four PRAGMAs, and closing the last connection to a WAL database
    checkpoints it and syncs the file: per request, that was most of a save's time. The
    connection is made again if the file it opened is no longer the one at ``path``
    (replaced, or deleted), when the thread turns to another database, and when it was
    opened read-only and the file can be written again (:func:`_writable`).
    """
    kept = getattr(_KEPT, "connection", None)
    if kept is not None:
        kept_path, identity, db, writable = kept
        if kept_path == path and identity == _identity(path) and (writable or not _writable(path)):
            return db
        _KEPT.connection = None
        db.conn.close()
    writable = _writable(path)
    # create=False: a database deleted while the app runs is a 503 page, not a new empty one
    db = database.connect(path, create=False)
    _KEPT.connection = (path, _identity(path), db, writable and _writable(path))
    return db


def _writable(path: str) -> bool:
    """Whether this process may write the file at ``path`` now.

    SQLite opens a file it may not write read-only, without a word, and the connection stays so: a
    thread that opened its connection while the file was read-only (a permission change, a read-only
    mount) answered every save with "cannot write to its database" long after the file was writable
    again, until a restart (86 saves in 100 after a brief spell). So a connection opened while the file
    was not writable, before or after the opening, is opened again once it is; a connection opened
    writable keeps its descriptor's right to write whatever happens to the file's permissions.
    """
    try:
        return os.access(path, os.W_OK)
    except (OSError, ValueError):
        return False


def _identity(path: str) -> tuple[int, int] | None:
    """Which file is at ``path`` (device and inode), None if none (or an in-memory database)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


# --- the match a token opens --------------------------------------------------------


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
    what :func:`load_match` gave for the token, when the caller has it already."""
    row, can_edit = loaded or load_match(token, edit=edit)
    db = get_db()
    count = store.count_hands(db, row.id)
    pages = max(1, -(-count // PAGE_HANDS))
    page = max(1, min(page, pages))
    end = count - (page - 1) * PAGE_HANDS
    start = max(0, end - lines)
    table = store.standings_window(db, row, start, end - start)
    return MatchPage(row, token, can_edit, table, page, pages)


def load_match(token: str, *, edit: bool = False) -> tuple[store.MatchRow, bool]:
    """The match a token opens: 404 for an unknown token, 403 for a view token on an edit page."""
    try:
        row, can_edit = store.find_match(get_db(), token)
    except store.NotFound:
        abort(404)
    if edit and not can_edit:
        abort(403, description=_("This is the view-only link of the match: it cannot change anything."))
    g.pack = row.settings.get("pack") or "italian"  # cards on its pages look like the table's pack
    return row, can_edit


def match_view(token: str, *, edit: bool = False) -> MatchView:
    """Load and judge the whole match for a page."""
    row, can_edit = load_match(token, edit=edit)
    db = get_db()
    hands = store.list_hands(db, row.id)
    record = store.match_record(db, row, hands)
    results = [score_hand(h) for h in record.hands]
    numbers = {h.key: number for number, h in enumerate(hands, start=1)}
    return MatchView(row, token, can_edit, record, hands, results, standings(record, results), numbers)


# --- the phone's recent matches -------------------------------------------------------


RECENT = 12
"""Matches the start page lists (the tokens kept in the ``recent`` cookie)."""


def recent_tokens() -> list[str]:
    raw = request.cookies.get("recent", "")
    return [t for t in raw.split(".") if t][:RECENT]


CLUBS_COOKIE = "clubs"


def recent_clubs() -> list[str]:
    """The tokens of the clubs this phone opened, newest first (its ``clubs`` cookie)."""
    raw = request.cookies.get(CLUBS_COOKIE, "")
    return [t for t in raw.split(".") if t][:6]


def remember(response: BaseResponse, token: str) -> BaseResponse:
    """Keep the match on this phone's start page (a cookie of tokens, newest first); not sent again
    while the match is already the newest (a table's phones look at the same match all evening), so
    its 400 days run from the last time the list changed."""
    kept = recent_tokens()
    if kept and kept[0] == token:
        return response
    tokens = [token] + [t for t in kept if t != token]
    response.set_cookie("recent", ".".join(tokens[:RECENT]), max_age=400 * 24 * 3600, samesite="Lax",
                        httponly=True)
    return response


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
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": disposition("inline", f"{name}.pdf")})


# --- a hand carried in a link (the audit of a hand on its own) ------------------------


UNPACKED_LINK_BYTES = 256 * 1024
"""What an audit link's hand may unpack to: a full record takes about 3 KB, its longest notes and names
some 10 KB more."""


def encode_record(record: HandRecord) -> str:
    """A record packed into a URL segment (canonical JSON, deflated, base64url)."""
    text = json.dumps(hand_to_dict(record), separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(zlib.compress(text.encode(), 9)).decode().rstrip("=")


def decode_record(blob: str) -> HandRecord:
    """The record of :func:`encode_record`; ScartoError if the link was damaged."""
    if len(blob) > MAX_AUDIT_LINK_READ:
        raise ScartoError(_("the audit link is too long to be a hand record"))
    try:
        raw = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
        inflater = zlib.decompressobj()
        text = inflater.decompress(raw, UNPACKED_LINK_BYTES)
    except (binascii.Error, ValueError, zlib.error) as exc:
        raise ScartoError(_("the audit link is damaged: copy it whole")) from exc
    if not inflater.eof:  # stopped at the cap (what any hand holds), or the link was cut short
        if inflater.unconsumed_tail or len(text) >= UNPACKED_LINK_BYTES:
            raise ScartoError(_("the audit link is too long to be a hand record"))
        raise ScartoError(_("the audit link is damaged: copy it whole"))
    return parse_hand(loads(text))


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


# --- audit links ------------------------------------------------------------------


def audit_url(record: HandRecord) -> str:
    """Where a hand on its own is audited: the record in the link, or, when the link would be too long
    for a browser, kept on the server for a while (limits.AUDIT_KEEP_DAYS) under the hash of the record."""
    blob = encode_record(record)
    if len(blob) <= MAX_AUDIT_LINK:
        return url_for("audit.audit_hand", blob=blob)
    return url_for("audit.kept_hand", key=links.keep_audit(get_db(), hand_to_dict(record)))


PROGRAMS_ONLY = re.compile(r"/(?:c/[^/]+/(?:matches|nights|parts)|n/[^/]+/rounds)/?")
"""The programs' addresses outside /api/ (clubs_api.py, nights.py's API): JSON is all they read and
answer, whatever the method."""


def wants_json() -> bool:
    """Programs' addresses (the API, the .json files) get errors as JSON, people get a page."""
    return (request.path.startswith("/api/") or request.path.endswith((".json", "/live/check"))
            or PROGRAMS_ONLY.fullmatch(request.path) is not None or request.is_json)


# --- phones in sync (static/sync.js) ------------------------------------------------

POLL_SECONDS = 3
"""How often a watching page asks whether something changed (the figure bench/bench_sync.py measured);
sync.js's own pace, unless the app's ``POLL_SECONDS`` setting says another (the browser tests' 1 s)."""


def poll_seconds() -> int:
    """The pace the app asks of watching pages: its ``POLL_SECONDS`` setting, or :data:`POLL_SECONDS`."""
    return int(current_app.config.get("POLL_SECONDS", POLL_SECONDS))


def poll_attr() -> Markup:
    """``data-poll`` on sync.js's script when the pace is not sync.js's own: the first ask is answered 304
    (the page carries its tag), so the pace must come with the page. Nothing at the usual pace, so the
    match page stays within its 40 KB."""
    pace = poll_seconds()
    return Markup("") if pace == POLL_SECONDS else Markup(f' data-poll="{pace}"')


# --- idempotency keys (static/offline.js) -------------------------------------------

_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")


def entry_key(value: str | None) -> str | None:
    """A phone's idempotency key for one entry (offline.js makes one per form), or None.

    A key that does not look like one (a damaged or hand-made form) is ignored: the entry is
    then simply saved without the protection against a retry.
    """
    value = (value or request.headers.get("Idempotency-Key") or "").strip()
    return value if _KEY.fullmatch(value) else None


# --- sharing ------------------------------------------------------------------------


def share_codes(endpoint: str, edit_token: str | None, view_token: str) -> list[tuple[str, str, str]]:
    """(kind, link, QR code as SVG) for a share page: the edit link (if the page may show it) and the view link.

    A quiet zone of four modules (what scanners need), drawn to scale by its viewBox.
    """
    links = [("edit", edit_token)] if edit_token else []
    links.append(("view", view_token))
    out = []
    for kind, token in links:
        url = url_for(endpoint, token=token, _external=True)
        out.append((kind, url, segno.make(url, error="m").svg_inline(scale=4, border=4, omitsize=True)))
    return out


# --- clubs --------------------------------------------------------------------------


def load_club(token: str, *, edit: bool = False) -> tuple[club_store.ClubRow, bool]:
    """The club a token opens: 404 for an unknown token, 403 for the view link on a page that changes things."""
    try:
        club, can_edit = club_store.find_club(get_db(), token)
    except store.NotFound:
        abort(404)
    if edit and not can_edit:
        abort(403, description=_("This is the view-only link of the club: it cannot change anything."))
    return club, can_edit


def club_request(token: str) -> tuple[Any, Any, Any]:
    """(the club an edit link opens, the JSON body sent to it, None), or (None, None, the refusal to answer):
    404 for an unknown token, 403 for the view link, 415 or 400 for a body that is not JSON."""
    try:
        club, can_edit = club_store.find_club(get_db(), token)
    except store.NotFound:
        return None, None, refuse(404, "not_found", NOT_FOUND)
    if not can_edit:
        return None, None, refuse(403, "forbidden", "This is the view-only link of the club: it cannot change "
                                                    "anything.")
    value, refusal = json_request()
    return (None, None, refusal) if refusal is not None else (club, value, None)


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
