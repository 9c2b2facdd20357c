"""On the home screen and at a table with no signal: the manifest, the service worker, the state tag.

- ``/manifest.webmanifest`` and its icons (PNGs drawn here, so nothing binary is committed)
  make the app installable;
- ``/sw.js`` is ``static/sw.js`` served from the root so that it controls every page, with
  the version of the static files in front of it: a change to any static file is a new
  service worker, which takes over at the next page load and never mixes old and new files
  (every page names its files with ``?v=<version>``, and each version has its own cache);
- ``/m/<token>/state.json`` is a small tag that changes with every change to the match's
  hands, answered 304 when it has not changed: the match pages poll it to update themselves.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, request, session, url_for
from flask_babel import get_locale, get_translations
from flask_babel import gettext as _
from flask_wtf.csrf import generate_csrf

from ..engine.messages import N_
from ..engine.tally import tally_rules, tally_state
from ..storage import store
from .db import get_db
from .labels import current_language
from .match_views import match_page_view
from .polling import poll_seconds
from .tokens import MATCH, load_by_token

bp = Blueprint("offline", __name__)

THEME = "#8b1e1e"
"""The top bar's colour (app.css --accent): the phone's status bar takes it."""
THEME_DARK = "#3d0f0f"
BACKGROUND = "#fbf8f1"
"""The page's paper (app.css --paper), shown while the app starts."""
BACKGROUND_DARK = "#1c1a17"
ICON_SIZES = (192, 512)
ICON_KINDS = ("any", "maskable")
NOT_PRECACHED = ("pdf.css", "sw.js")
"""Static files the phone never needs offline (the PDF's style sheet) or that are not assets."""



# --- the version of the static files --------------------------------------------------


@lru_cache(maxsize=4)
def _version_of(folder: str) -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(_worker_source(folder).encode())
    return digest.hexdigest()[:12]


def static_version() -> str:
    """12 hex digits of the static files' content (the service worker's own text included)."""
    return _version_of(str(current_app.static_folder))


def _worker_source(folder: str) -> str:
    return (Path(folder) / "sw.js").read_text(encoding="utf-8")


@bp.app_url_defaults
def _versioned_static(endpoint: str, values: dict[str, Any]) -> None:
    """``url_for('static', ...)`` names the version, so a page always loads the files it was made with."""
    if endpoint == "static" and "v" not in values:
        values["v"] = static_version()


@bp.after_app_request
def _assets_header(response: Response) -> Response:
    """Pages say which version of the files they name, so the service worker keeps those while needed.

    Every page also starts the phone's CSRF secret if it has none: the service worker fetches the
    entry forms right after the match page, and two requests that each started a secret of their
    own would leave the phone with forms whose tokens its cookie no longer matches.
    """
    if response.mimetype == "text/html":
        response.headers["X-Scarto-Assets"] = static_version()
        if "csrf_token" not in session:
            generate_csrf()
    return response


CSS_COMMENT = re.compile(r"/\*.*?\*/[ \t]*\n?", re.S)
"""A style sheet's comment (no sheet holds "/*" in a string): kept in the files for whoever reads them."""
JS_COMMENT_LINE = re.compile(r"^[ \t]*(?:/\*(?:[^*]|\*(?!/))*\*/|//[^\n]*)[ \t]*\n", re.M)
"""A script's comment that fills its lines alone (a block comment ended on its line's end, or a ``//``
line): nothing else can sit on those lines, and none of the app's scripts has a string over several
lines (no template literal does), so they are only comments. Comments after code are kept."""


LEAN = {"text/css": CSS_COMMENT, "text/javascript": JS_COMMENT_LINE}
"""What each kind of static file is sent without."""


@bp.after_app_request
def _lean_static_files(response: Response) -> Response:
    """Style sheets and scripts are sent without their comments: 1.6 KB of style sheets and 4 to 6 KB of
    scripts that the entry and match pages would load and no browser reads, and those pages are within
    their budget by less (tests/test_page_weight.py). The files keep them for whoever reads them."""
    comment = LEAN.get(response.mimetype or "") if request.endpoint == "static" else None
    if comment is not None and response.status_code == 200:
        response.direct_passthrough = False
        sent = response.response  # the file, read by get_data and closed here: set_data drops it
        response.set_data(comment.sub("", response.get_data(as_text=True)))
        if hasattr(sent, "close"):
            sent.close()
    return response


def _assets() -> list[str]:
    folder = Path(str(current_app.static_folder))
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    urls = [url_for("static", filename=f) for f in files if f not in NOT_PRECACHED]
    urls += [url_for(".icon", kind=k, size=s) for k in ICON_KINDS for s in ICON_SIZES]  # drawn by code, not files
    return urls + [url_for(".manifest")]


SEND_WAIT_SECONDS = 10
"""How long the service worker waits for a change's answer to begin before giving it up as a network
failure (docs/OFFLINE.md); the app's ``SEND_WAIT_SECONDS`` setting says another (the browser tests')."""


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, from the root so that its scope is the whole app."""
    head = (f"const VERSION = {json.dumps(static_version())};\nconst ASSETS = {json.dumps(_assets())};\n"
            f"const SEND_WAIT = {1000 * int(current_app.config.get('SEND_WAIT_SECONDS', SEND_WAIT_SECONDS))};\n")
    response = Response(head + _worker_source(str(current_app.static_folder)), mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response


# --- installable ----------------------------------------------------------------------


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest: names, icons, colours, standalone, the start page."""
    data = {
        "name": _("Scarto score keeper"),
        "short_name": _("Scarto"),
        "lang": str(get_locale() or "en"),
        "start_url": "/",
        "display": "standalone",
        "theme_color": THEME,
        "background_color": BACKGROUND,
        "icons": [{"src": url_for(".icon", kind=k, size=s), "sizes": f"{s}x{s}",
                   "type": "image/png", "purpose": k} for k in ICON_KINDS for s in ICON_SIZES],
    }
    response = Response(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                        mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/icons/<kind>-<int:size>.png")
def icon(kind: str, size: int) -> Response:
    """The home-screen icon: a card on the app's red (full bleed when maskable)."""
    if kind not in ICON_KINDS or size not in ICON_SIZES:
        abort(404)
    response = Response(draw_icon(size, kind == "maskable"), mimetype="image/png")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _round_rect(x: float, y: float, half_w: float, half_h: float, radius: float) -> float:
    """Signed distance from (x, y) to a rounded rectangle centred at 0 (negative inside)."""
    qx, qy = abs(x) - half_w + radius, abs(y) - half_h + radius
    outside = (max(qx, 0.0) ** 2 + max(qy, 0.0) ** 2) ** 0.5
    return outside + min(max(qx, qy), 0.0) - radius


BLOCK = 8
"""Pixels are drawn in blocks of BLOCK x BLOCK: a block far from every shape's edge is one colour."""
SLOPES = (1.0, 1.03, 1.61)
"""How fast each shape's distance (background, card, pip) can change per unit moved: a bound on
its gradient (the card is skewed by 0.02, the pip's diamond has slopes 1.25 and 1)."""


def _distances(x: float, y: float) -> tuple[float, float, float]:
    """Signed distances from (x, y) to the background square, the card and its pip."""
    return (_round_rect(x, y, 0.5, 0.5, 0.2), _round_rect(x + 0.02 * y, y, 0.21, 0.3, 0.045),
            abs(x) * 1.25 + abs(y) - 0.13)


def _pixel(distances: tuple[float, float, float], s: float, maskable: bool,
           red: tuple[int, int, int], paper: tuple[int, int, int]) -> bytes:
    """One RGBA pixel: each shape covers it by how far inside its edge it is (anti-aliasing)."""
    d_bg, d_card, d_pip = distances
    bg = 1.0 if maskable else min(max(0.5 - d_bg * s, 0.0), 1.0)
    card = min(max(0.5 - d_card * s, 0.0), 1.0)
    pip = min(max(0.5 - d_pip * s, 0.0), 1.0)
    colour = [r * (1 - card) + p * card for r, p in zip(red, paper, strict=True)]
    colour = [c * (1 - pip) + r * pip for c, r in zip(colour, red, strict=True)]
    alpha = max(bg, card)
    return bytes((round(colour[0]), round(colour[1]), round(colour[2]), round(alpha * 255)))


def icon_pixels(size: int, maskable: bool) -> list[bytearray]:
    """The icon's rows of RGBA pixels.

    Each pixel is worked out only near an edge: a block whose centre lies further from every edge
    than the block can reach (its half-diagonal times the shape's slope, plus the half pixel of
    anti-aliasing) has every pixel fully in or out of each shape, so it is one colour. The same
    bytes as pixel by pixel (tests/test_offline.py), in a fifth of the time: drawn pixel by pixel in
    Python the four icons took about 4 s of a server thread, holding the interpreter lock while
    the first phone installed the app.
    """
    red, paper = _hex(THEME), _hex(BACKGROUND)
    s = float(size)
    rows = [bytearray(4 * size) for _ in range(size)]
    for top in range(0, size, BLOCK):
        high = min(BLOCK, size - top)
        for left in range(0, size, BLOCK):
            wide = min(BLOCK, size - left)
            centre = _distances((left + wide / 2) / s - 0.5, (top + high / 2) / s - 0.5)
            reach = ((wide - 1) ** 2 + (high - 1) ** 2) ** 0.5 / 2
            if all(abs(d) * s > 0.5 + slope * reach + 0.01 for d, slope in zip(centre, SLOPES, strict=True)):
                colour = _pixel(centre, s, maskable, red, paper) * wide
                for j in range(top, top + high):
                    rows[j][4 * left:4 * (left + wide)] = colour
                continue
            for j in range(top, top + high):
                y = (j + 0.5) / s - 0.5
                for i in range(left, left + wide):
                    rows[j][4 * i:4 * i + 4] = _pixel(_distances((i + 0.5) / s - 0.5, y), s, maskable, red, paper)
    return rows


@lru_cache(maxsize=8)
def draw_icon(size: int, maskable: bool) -> bytes:
    """A PNG (RGBA) of the icon, anti-aliased by the distance to each shape's edge.

    Maskable icons fill the square and keep the card inside the central safe circle (radius 40%).
    """
    rows = [b"\0" + bytes(row) for row in icon_pixels(size, maskable)]  # PNG filter type 0 on each row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
            + chunk(b"IEND", b""))


# --- phones in sync -------------------------------------------------------------------


@bp.get("/m/<token>/state.json")
def match_state(token: str) -> Response:
    """A tag that changes with every change to the match's hands; 304 when the phone has it already."""
    row, _can_edit = load_by_token(MATCH, token)
    tag = store.match_state(get_db(), row.id)
    etag = f'"{tag}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=304, headers=headers)
    body = json.dumps({"state": tag, "poll": poll_seconds()})
    return Response(body, mimetype="application/json", headers=headers)


@bp.get("/m/<token>/tally.json")
def match_tally(token: str) -> Response:
    """What the match page needs to count the hands waiting on the phone (static/tally.js): the
    engine's numbers for the match, where its stored hands leave it, and the page's sentences.

    Fetched with the match page and kept by the service worker (warmed beside the entry forms),
    so that it is there when the signal is not; not written into the match page, which is within
    its weight budget by a few hundred bytes and needs it only while hands wait on a phone."""
    table = match_page_view(token, lines=0).table
    body = {**tally_rules(table.match),
            **tally_state(table.totals, table.count, table.next_dealer, table.finished),
            "texts": tally_texts(current_language())}
    return Response(json.dumps(body, ensure_ascii=False, separators=(",", ":")), mimetype="application/json")


@lru_cache(maxsize=8)
def tally_texts(_language: str) -> dict[str, str]:
    """The sentences tally.js shows, in the current language (``_language``), the %(...)s left for it."""
    def js(text: str, *names: str) -> str:
        return str(_(text, **{name: f"%({name})s" for name in names}))

    def plural(one: str, other: str, count: int) -> str:  # the template's own plurals, the %(...)s left in
        return str(get_translations().ungettext(one, other, count))

    return {
        "unsent": _("with the hands not yet sent"),
        "later": _("Scored when it is sent."),
        "limit": _("This phone counts the hands entered as points; the others count once they are sent."),
        "changes": _("Changes to saved hands count once they are sent."),
        "hand": js(N_("Hand %(n)s, dealt by %(dealer)s"), "n", "dealer"),
        "next": js(N_("Hand %(n)s — %(dealer)s deals"), "n", "dealer"),
        "left1": plural("%(num)s hand to play.", "%(num)s hands to play.", 1),
        "left": plural("%(num)s hand to play.", "%(num)s hands to play.", 2),
        "pay1": plural("%(payer)s pays %(payee)s %(points)s point", "%(payer)s pays %(payee)s %(points)s points", 1),
        "pay": plural("%(payer)s pays %(payee)s %(points)s point", "%(payer)s pays %(payee)s %(points)s points", 2),
        "stake": js(N_("%(payer)s pays %(payee)s one stake"), "payer", "payee"),
        "nobody": _("Nobody owes anything yet."),
        "standings": _("Standings"),
        "pays": _("Who pays whom"),
        "total": _("Total"),
        "over": js(N_("Match over. Winner: %(names)s."), "names"),
    }
