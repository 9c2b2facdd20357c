"""Deal sets on the phone and on paper: the boards of a seed, each seat's cards to lay out.

A duplicate night needs the same cards at every table. The app deals them from a seed
(:mod:`scorer.engine.deals`), so nothing is stored: the seed, the deal and the board number
are the whole address. The director prints the deal sheets (a board a page, each seat's
cards drawn large, the talon apart, a QR code of the board's page); whoever lays a board out
can follow the sheet or the board's page on a phone, one seat at a time, ticking cards off.

The seed stands last in the path (it may hold a slash) so that the language links, which
replace the query, keep the page.
"""

from __future__ import annotations

import io
from datetime import date
from itertools import groupby

import segno
from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from ..engine.cards import FOOL_SUIT, SUIT, TRUMP, CardIndex
from ..engine.deals import MAX_BOARDS, MAX_SEED, Board, deal_board, deal_set, read_seed
from ..engine.errors import ReadError
from ..engine.rulesets import DEALS
from .downloads import file_name, make_pdf, pdf_response, pdf_turn
from .labels import page_words, read_error_text

bp = Blueprint("deals", __name__)

PACKS = ("italian", "french")
DEFAULT_BOARDS = 8


def _pack() -> str:
    """The pack the cards are drawn for: ``?pack=french``, else the Italian-suited pack."""
    pack = request.args.get("pack", "italian")
    g.pack = pack if pack in PACKS else "italian"
    return str(g.pack)


def _checked(deal: str, seed: str) -> str:
    """The seed read as the engine reads it; 404 for an address no form makes."""
    if deal not in DEALS:
        abort(404)
    try:
        return read_seed(seed)
    except ReadError:
        abort(404)


@bp.get("/deals/")
def deal_form() -> Response | str:
    """Choose a seed, the number of boards and the deal; a valid choice goes to its deal set."""
    args = request.args
    errors: dict[str, str] = {}
    seed, boards, deal = args.get("seed", ""), args.get("boards", str(DEFAULT_BOARDS)), args.get("deal", "three")
    if "seed" in args:
        try:
            seed = read_seed(seed)
        except ReadError as exc:
            errors["seed"] = read_error_text(ReadError.of(exc.key, "", **exc.params))
        count = int(boards) if boards.strip().isdecimal() and len(boards.strip()) <= 4 else 0
        if not 1 <= count <= MAX_BOARDS:
            errors["boards"] = read_error_text(ReadError.of("limit.boards", "", count=boards.strip()[:8] or 0,
                                                            limit=MAX_BOARDS) if count > MAX_BOARDS
                                               else ReadError.of("field.not_whole", "", value=boards.strip()[:8]))
        if deal not in DEALS:
            deal = "three"
        if not errors:
            return redirect(url_for("deals.deal_set_page", deal=deal, boards=count, seed=seed))
    return render_template("deals_form.html", seed=seed, boards=boards, deal=deal, deals=tuple(DEALS),
                           deal_labels=_deal_labels(), errors=errors, max_seed=MAX_SEED, max_boards=MAX_BOARDS,
                           today=date.today().isoformat())


def _deal_labels() -> dict[str, str]:
    """Each deal in the page's language, as the rules' pages name it ("four players: 19 cards each...")."""
    words = page_words()
    return {deal: words.value_label("deal", deal) for deal in DEALS}


@bp.get("/deals/<deal>/<int:boards>/<path:seed>")
def deal_set_page(deal: str, boards: int, seed: str) -> str:
    """The deal set: each board's dealer and a link to lay it out; the sheets to print."""
    seed = _checked(deal, seed)
    if not 1 <= boards <= MAX_BOARDS:
        abort(404)
    pack = _pack()
    return render_template("deals_set.html", seed=seed, deal=deal, boards=deal_set(seed, boards, deal),
                           shape=DEALS[deal], pack=pack, deal_label=_deal_labels()[deal])


@bp.get("/deals/<deal>/<int:boards>/board/<int:board>/<path:seed>")
def board_page(deal: str, boards: int, board: int, seed: str) -> str:
    """One board to lay out: one seat's cards at a time, ticked off as they are laid."""
    seed = _checked(deal, seed)
    if not 1 <= board <= boards <= MAX_BOARDS:
        abort(404)
    pack = _pack()
    return render_template("deals_board.html", seed=seed, deal=deal, boards=boards, board=deal_board(seed, board, deal),
                           pack=pack, deal_label=_deal_labels()[deal], suit_rows=suit_rows)


@bp.get("/deals/<deal>/<int:boards>/sheets.pdf")
def deal_sheets(deal: str, boards: int) -> Response:
    """The deal sheets: a board a page, each seat's cards large, the talon apart, the board's QR code.
    The seed travels in the query here (``?seed=``): a path would have to end with it."""
    seed = _checked(deal, request.args.get("seed", ""))
    if not 1 <= boards <= MAX_BOARDS:
        abort(404)
    pack = _pack()
    dealt = deal_set(seed, boards, deal)
    resources = {f"qr{b.number}.svg": _qr(deal, boards, b, seed, pack) for b in dealt}
    with pdf_turn():
        html = render_template("pdf_deals.html", seed=seed, deal=deal, boards=dealt, pack=pack, suit_rows=suit_rows,
                               deal_label=_deal_labels()[deal])
        pdf = make_pdf(html, resources)
    return pdf_response(pdf, file_name(f"deals {seed} {deal}"))


def suit_rows(cards: tuple[CardIndex, ...]) -> list[tuple[CardIndex, ...]]:
    """A sorted hand cut into a row a suit (the Fool with the trumps), as the sheet and the page lay it out."""
    rows: list[tuple[CardIndex, ...]] = []
    for _suit, run in groupby(cards, key=lambda c: TRUMP if SUIT[c] == FOOL_SUIT else SUIT[c]):
        rows.append(tuple(run))
    return rows


def _qr(deal: str, boards: int, board: Board, seed: str, pack: str) -> bytes:
    """The board page's address as a QR code, for the phone of whoever lays the board out."""
    url = url_for("deals.board_page", deal=deal, boards=boards, board=board.number, seed=seed, _external=True,
                  **({"pack": pack} if pack != "italian" else {}))
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=4, border=4)
    return buffer.getvalue()
