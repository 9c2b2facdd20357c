"""Cards drawn like the ones in the hand: a rank and a small drawn suit mark, trumps as Roman numerals.

The same drawings serve the web pages and the PDF sheets. The pages carry each suit mark once
(:func:`sprite`, SVG symbols) and every card refers to it, so the 78-card grid stays light; a PDF
gets each mark inline (``inline=True``), which WeasyPrint draws without cross-references.

Italian pack: cups, coins, batons, swords. French pack: hearts, diamonds, clubs, spades. The Fool
has a mark of its own (a star) beside its name. No Flask here: the caller says the language and
the pack, and marks the returned markup safe.
"""

from __future__ import annotations

from html import escape

from ..engine.cardnames import full_name, short_name
from ..engine.cards import FOOL_INDEX, SUIT

VIEWBOX = "0 0 20 20"

_ITALIAN = {
    # a goblet: bowl, stem and foot
    1: '<path d="M3.5 2.5h13c0 5.2-2.6 8.3-5.3 8.9V15h3.3v2.5H5.5V15h3.3v-3.6C6.1 10.8 3.5 7.7 3.5 2.5z"/>',
    # a coin: a ring with a boss in the middle
    2: '<path fill-rule="evenodd" d="M10 1.5a8.5 8.5 0 1 0 0 17a8.5 8.5 0 1 0 0-17zm0 3.2a5.3 5.3 0 1 1 0 10.6'
       'a5.3 5.3 0 1 1 0-10.6z"/><circle cx="10" cy="10" r="2.2"/>',
    # a baton: a knotted club laid across
    3: '<path d="M2.6 15.3L14.7 3.2a2.3 2.3 0 0 1 3.3 3.3L5.9 18.6a2.3 2.3 0 0 1-3.3-3.3z"/>'
       '<circle cx="7.2" cy="9.3" r="1.6"/><circle cx="11.3" cy="12.9" r="1.6"/>',
    # a sword: blade, cross guard, grip, pommel
    4: '<path d="M10 .8l1.6 2.2-.2 9.2H8.6l-.2-9.2z"/><path d="M4.5 12.2h11v1.9h-11z"/>'
       '<path d="M9 14.1h2v3.4H9z"/><circle cx="10" cy="18.2" r="1.4"/>',
}
_FRENCH = {
    1: '<path d="M10 18C4.2 13.6 1.5 10.2 1.5 6.6A4.3 4.3 0 0 1 10 5.2a4.3 4.3 0 0 1 8.5 1.4c0 3.6-2.7 7-8.5 11.4z"/>',
    2: '<path d="M10 1.2L17.2 10 10 18.8 2.8 10z"/>',
    3: '<circle cx="10" cy="5.6" r="3.8"/><circle cx="5.4" cy="11.4" r="3.8"/><circle cx="14.6" cy="11.4" r="3.8"/>'
       '<path d="M9 9.5h2l1.6 8.8H7.4z"/>',
    4: '<path d="M10 1.2c2.9 3.9 8 6.7 8 10.6a3.9 3.9 0 0 1-7 2.3l1.5 4.2h-5l1.5-4.2a3.9 3.9 0 0 1-7-2.3'
       'c0-3.9 5.1-6.7 8-10.6z"/>',
}
_FOOL = '<path d="M10 1.2l2.6 5.6 6.1.7-4.5 4.2 1.2 6.1L10 14.8l-5.4 3 1.2-6.1-4.5-4.2 6.1-.7z"/>'

SUIT_COLOURS = {1: "#b3132b", 2: "#8a5a00", 3: "#1d5e2f", 4: "#18386b", 5: "#5b2a86"}
"""Ink for each mark in a PDF (the pages colour them from the style sheet, light and dark)."""
FRENCH_COLOURS = {1: "#b3132b", 2: "#b3132b", 3: "#111111", 4: "#111111", 5: "#5b2a86"}

FOOL_MARK = 5
"""The Fool's mark stands in the suit table at 5, the Fool's own suit number."""


def _pack(pack: str | None) -> str:
    return "french" if pack == "french" else "italian"


def mark_paths(suit: int, pack: str | None) -> str:
    """The SVG shapes of a suit mark (1..4 as cups..swords or hearts..spades, 5 the Fool)."""
    if suit == FOOL_MARK:
        return _FOOL
    return (_FRENCH if _pack(pack) == "french" else _ITALIAN)[suit]


def symbol_id(suit: int, pack: str | None) -> str:
    return f"mark-{_pack(pack)[0]}{suit}"


def sprite(pack: str | None) -> str:
    """The marks of one pack as SVG symbols, once per page, for :func:`card_face` to refer to."""
    symbols = "".join(f'<symbol id="{symbol_id(s, pack)}" viewBox="{VIEWBOX}">{mark_paths(s, pack)}</symbol>'
                      for s in (1, 2, 3, 4, FOOL_MARK))
    return f'<svg class="sprite" aria-hidden="true" focusable="false" width="0" height="0">{symbols}</svg>'


def mark(suit: int, pack: str | None, *, inline: bool = False) -> str:
    """One suit mark: a reference to the page's sprite, or the drawing itself (for a PDF)."""
    if inline:
        colours = FRENCH_COLOURS if _pack(pack) == "french" else SUIT_COLOURS
        return (f'<svg class="mark" viewBox="{VIEWBOX}" width="9pt" height="9pt" fill="{colours[suit]}" '
                f'aria-hidden="true">{mark_paths(suit, pack)}</svg>')
    return f'<svg class="mark"><use href="#{symbol_id(suit, pack)}"/></svg>'  # inside an aria-hidden face


def rank_text(index: int, language: str | None, pack: str | None) -> str:
    """What the corner of the card says: XXI, K (R in Italian), 10; the Fool's name."""
    label = short_name(index, language, pack)
    if SUIT[index] in (1, 2, 3, 4):
        return label[:-1]  # the short name is the rank then one suit letter (or ♥): the mark replaces it
    return label


def card_face(index: int, language: str | None = "en", pack: str | None = "italian", *,
              inline: bool = False, named: bool = True) -> str:
    """A card as HTML: the rank and its drawn mark, with the full name for screen readers.

    ``named`` adds the full name as hidden text (off inside a button that carries it as its label).
    Unnamed, the drawing is not hidden from screen readers either: it goes inside a control whose
    ``aria-label`` names the card (the grid's 78 buttons), which replaces what the drawing says.
    """
    suit = SUIT[index]
    rank = escape(rank_text(index, language, pack))
    name = escape(full_name(index, language, pack))
    tail = f'<span class="sr">{name}</span>' if named else ""
    hidden = ' aria-hidden="true"' if named else ""
    if suit == 0:
        return f'<span class="cf cf-t"{hidden}>{rank}</span>{tail}'
    which = FOOL_MARK if index == FOOL_INDEX else suit
    if index == FOOL_INDEX:
        return (f'<span class="cf cf-m"{hidden}>{mark(which, pack, inline=inline)}'
                f'<small>{rank}</small></span>{tail}')
    return (f'<span class="cf cf-{_pack(pack)[0]}{which}"{hidden}>{rank}'
            f'{mark(which, pack, inline=inline)}</span>{tail}')
