"""Points as exact numbers: read from a file, written to one, shown to players.

Card points and scores are ``Fraction``s: a pile of n cards is worth its values less
2n/3, and a four-player base is 19½. A file holds an integer or a reduced fraction
(``"58/3"``, RECORD.md); a sheet or a page shows the fraction as players write it (19⅓).
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

from .errors import ReadError

_POINTS_TEXT = re.compile(r"[+-]?[0-9]{1,12}(?:/[0-9]{1,12})?")
"""An integer or a fraction, as RECORD.md has them; no decimals or exponents (1e999999999)."""
_DECIMAL_TEXT = re.compile(r"[0-9]{1,12}[.,][0-9]{1,12}")
"""A decimal as a phone or a spreadsheet writes it ("25.33", "25,33"): never points, but worth a hint."""


def points_text(text: str) -> Fraction:
    """ "31" or "58/3" (spaces allowed around the slash); ValueError for anything else.

    The app's forms read what people type (19½, 19 1/2, 19,5) and store the
    fraction; a file holds only what RECORD.md allows.
    """
    compact = re.sub(r"\s*/\s*", "/", text.strip())  # " 58 / 3 " reads as 58/3
    if not _POINTS_TEXT.fullmatch(compact):
        raise ValueError(text)
    return Fraction(compact)


def parse_points(value: object, where: str) -> Fraction:
    """Counted card points: an integer, or a string holding one or a fraction ("58/3").

    A JSON number with a fraction part or an exponent (``26.0``) and a decimal string
    (``"19.5"``) are read errors: points come in whole numbers or thirds, never decimals.
    """
    if isinstance(value, float) and math.isfinite(value) or isinstance(value, str) and _DECIMAL_TEXT.fullmatch(
            value.strip()):
        decimal = Fraction(str(value).strip().replace(",", "."))
        raise ReadError.of("points.decimal", where, value=json.dumps(value),
                           third=json.dumps(fraction_json(nearest_third(decimal))))
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ReadError.of("points.not_a_number", where, value=json.dumps(value))
    try:
        points = points_text(value) if isinstance(value, str) else Fraction(value)
    except (ValueError, ZeroDivisionError) as exc:
        raise ReadError.of("points.not_a_number", where, value=repr(value)) from exc
    if points < 0:
        raise ReadError.of("points.negative", where, value=str(value))
    return points


def nearest_third(value: Fraction) -> Fraction:
    """The third nearest a number: what "25,33" or "25.33" meant (76/3). Counted points are whole or
    thirds (a pile is its values less 2/3 a card), so a decimal is a rounded third: never stored as it
    is (2533/100), only named in the hint of the error that refuses it."""
    return Fraction(round(value * 3), 3)


def fraction_json(value: Fraction) -> int | str:
    """An exact number as RECORD.md writes it: an integer, or a reduced "p/q" string."""
    return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


_GLYPHS = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 6): "⅙", (5, 6): "⅚"}


def fraction_text(value: Fraction) -> str:
    """A number as players write it on the sheet: 19, 19½, -3⅓, 7 2/9."""
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    whole, rest = divmod(abs(value.numerator), value.denominator)
    glyph = _GLYPHS.get((rest, value.denominator))
    if glyph:
        return f"{sign}{whole or ''}{glyph}"
    return f"{sign}{whole} {rest}/{value.denominator}" if whole else f"{sign}{rest}/{value.denominator}"
