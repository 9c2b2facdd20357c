"""Forms for recording a hand (hands.py): counted points, captured cards, counting cards, or the full record.

Each form parses the request into an in-match hand value (RECORD.md); the core
then reads and judges it. What the forms add is what a phone at the table needs:
the last player's points (or pile size) filled in, the rest of the pack given to
one player, cards and points typed the way people write them (``19½``, ``K♣``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from wtforms import HiddenField, RadioField, StringField
from wtforms.validators import Optional

from ..engine.cardnames import aliases
from ..engine.cards import CODES, split_cards
from ..engine.limits import MAX_CARDS, MAX_NOTES, MAX_TRICKS, MAX_TRICKS_TEXT
from ..engine.numbers import fraction_json, fraction_text, nearest_third
from ..engine.rulesets import Ruleset
from ..engine.validation import counting_cards
from .forms import Form, Longest, Readable, TextBox
from .labels import page_words

Number = TypeVar("Number", int, Fraction)
"""A count typed per seat: card points (a Fraction) or cards in a pile."""

MAX_PLAYERS = 4
"""The most players a preset has (``four``); forms have a field per seat up to it."""


class EntryError(ValueError):
    """Something typed into one field that is not usable; ``field`` names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


# --- numbers as people write them ----------------------------------------------------

_GLYPHS = {"½": Fraction(1, 2), "⅓": Fraction(1, 3), "⅔": Fraction(2, 3), "¼": Fraction(1, 4),
           "¾": Fraction(3, 4), "⅙": Fraction(1, 6), "⅚": Fraction(5, 6)}
_GLYPH = re.compile(r"(\d{1,6})?\s*([½⅓⅔¼¾⅙⅚])")
_MIXED = re.compile(r"(\d{1,6})\s+(\d{1,6})\s*/\s*(\d{1,6})")
_RATIO = re.compile(r"(\d{1,6})\s*/\s*(\d{1,6})")
_DECIMAL = re.compile(r"\d{1,6}(?:\.\d{1,6})?")


def parse_points_text(text: str) -> Fraction:
    """Points as typed: 31, 19½, 19 1/2, 58/3, 25,0; ValueError with a message otherwise (a decimal
    such as 25,33 with the third it stands for)."""
    s = text.strip().replace(",", ".")
    if s[:1] in ("-", "−"):
        raise ValueError(_("%(value)s is negative: counted points are never below zero.", value=text.strip()))
    if m := _GLYPH.fullmatch(s):
        return int(m.group(1) or 0) + _GLYPHS[m.group(2)]
    if m := _MIXED.fullmatch(s):
        whole, num, den = (int(g) for g in m.groups())
        if den == 0:
            raise ValueError(_("%(value)s divides by zero.", value=text.strip()))
        return whole + Fraction(num, den)
    if m := _RATIO.fullmatch(s):
        num, den = int(m.group(1)), int(m.group(2))
        if den == 0:
            raise ValueError(_("%(value)s divides by zero.", value=text.strip()))
        return Fraction(num, den)
    if _DECIMAL.fullmatch(s):
        return _whole_decimal(Fraction(s), text.strip())
    raise ValueError(_("“%(value)s” is not a number of points: write e.g. 31, 19½ or 58/3.", value=text.strip()))


def _whole_decimal(value: Fraction, typed: str) -> Fraction:
    """A decimal read as points only when it is whole ("25,0"): "25,33" is a third rounded, and stored
    as it is it would be 2533/100 points. The hint names the third, as it is typed (25 1/3)."""
    if value.denominator == 1:
        return value
    whole, thirds = divmod(int(nearest_third(value) * 3), 3)
    third = f"{whole} {thirds}/3" if whole and thirds else f"{thirds}/3" if thirds else str(whole)
    raise ValueError(_("“%(value)s” is a decimal: points come in thirds: write %(third)s.", value=typed, third=third))


def parse_count_text(text: str) -> int:
    """A number of cards: a whole number from 0."""
    s = text.strip()
    if not re.fullmatch(r"\d{1,3}", s):
        raise ValueError(_("“%(value)s” is not a number of cards.", value=s))
    return int(s)


# --- cards as people type them --------------------------------------------------------

_TRICK_NUMBER = re.compile(r"^\s*\d{1,2}\s*[.:)]\s*")


def parse_cards(text: str, rules: Ruleset, field: str, whose: str) -> list[int]:
    """Typed cards (codes, or names in any language) to card indices of the ruleset's pack.

    EntryError naming every word that is not a card (all of them: a player fixing the first should not
    meet the next only on saving again), or the first card not in the pack.
    """
    cards, unknown = [], []
    for token, card in split_cards(text, aliases()):  # the names of every language, for typed text only
        if card is None:
            unknown.append(token)
        elif card not in rules.pack:
            raise EntryError(field, _("%(whose)s: %(card)s is not in the %(preset)s pack.",
                                      whose=whose, card=CODES[card], preset=page_words().preset_name(rules.name)))
        else:
            cards.append(card)
    if unknown:
        shown = ", ".join(_("“%(text)s”", text=token) for token in unknown[:UNKNOWN_SHOWN])  # the language's quotes
        if len(unknown) > UNKNOWN_SHOWN:
            shown += " …"
        raise EntryError(field, ngettext("%(whose)s: %(cards)s is not a card.", "%(whose)s: %(cards)s are not cards.",
                                         len(unknown), whose=whose, cards=shown))
    return cards


UNKNOWN_SHOWN = 8
"""At most this many words that are not cards are quoted back; more are "…"."""


def tricks_from_text(text: str, rules: Ruleset) -> list[list[str]]:
    """Tricks typed one per line, cards in the order played ("4. T19 T13 CB"), as canonical codes."""
    tricks: list[list[str]] = []
    for line in (text or "").splitlines():
        line = _TRICK_NUMBER.sub("", line)
        if not line.strip():
            continue
        where = _("Trick %(n)s", n=len(tricks) + 1)
        tricks.append([CODES[c] for c in parse_cards(line, rules, "tricks", where)])
    return tricks


"""More tricks than any preset has, so a bad request is refused before it is read."""


def tricks_from_codes(value: object) -> list[list[str]]:
    """live.js's tricks: lists of card codes, passed on as codes for the record's parser to read
    (RECORD.md's codes only: the name matcher is for typed text). EntryError for another shape. A trick
    of more cards than players is passed on for the engine to name ("trick 1 has 4 cards"): live.js
    keeps what was typed in its text box and sends it again after a reload, which was refused with
    "reload the page" at every reload."""
    if isinstance(value, list) and len(value) > MAX_TRICKS:  # the engine's own sentence for its limit
        raise EntryError("tricks", _("%(count)s tricks; a hand has at most %(limit)s", count=len(value),
                                     limit=MAX_TRICKS))
    if not isinstance(value, list) or not all(
            isinstance(t, list) and len(t) <= MAX_CARDS and all(isinstance(c, str) for c in t) for t in value):
        raise EntryError("tricks", _("The app sent something it cannot read: reload the page."))
    return [list(t) for t in value if t]


def tricks_to_text(tricks: list[list[str]]) -> str:
    return "\n".join(" ".join(cards) for cards in tricks)


# --- the forms ------------------------------------------------------------------------


class HandForm(Form):
    """What every way of recording a hand has: the dealer, and what the phone saw."""

    dealer = RadioField(_l("Dealer"), choices=[], validate_choice=False)
    expected_count = HiddenField()
    version = HiddenField()
    save_anyway = HiddenField()
    dealer_ok = HiddenField()
    """The dealer the table confirmed although the rotation names another: asked once, not again."""
    entry_key = HiddenField()
    """The phone's idempotency key for this entry (set by offline.js): a retry is not stored twice."""
    ultimo = RadioField(_l("Last trick won with the Bagatto by"), choices=[], validate_choice=False, default="")
    notes = TextBox(_l("Notes (optional)"), validators=[Optional(), Longest(MAX_NOTES), Readable("notes")])

    form_name = ""
    unreadable = False
    """Set when the request could not be read as fields at all (a broken JSON body)."""

    def setup(self, players: tuple[str, ...], rules: Ruleset) -> None:
        """Fit the form to the match: its players, seats and pack."""
        self.players = players
        self.rules = rules
        self.dealer.choices = [(p, p) for p in players]
        self.ultimo.choices = [("", _l("nobody"))] + [(p, p) for p in players]
        if rules.ultimo == "bagatto_or_fool":
            self.ultimo.label.text = _l("Last trick won with the Bagatto or the Fool by")

    def seats(self) -> range:
        return range(len(self.players))

    def grid(self) -> tuple[int, ...]:
        """The cards the page's grid shows (none for counted points)."""
        return ()

    def int_field(self, name: str) -> int | None:
        """A hidden number the page carried (hands seen, version); EntryError if it was tampered with."""
        value = (getattr(self, name).data or "").strip()
        if not value:
            return None
        if not value.isdecimal() or len(value) > 9:
            raise EntryError(name, _("The form was damaged in transit: reload the page and enter the hand again."))
        return int(value)

    def wants_save_anyway(self) -> bool:
        return (self.save_anyway.data or "") == "1"

    def record_data(self) -> dict[str, Any]:
        """The in-match hand value the form describes; EntryError for anything unusable."""
        dealer = (self.dealer.data or "").strip()
        if dealer not in self.players:
            raise EntryError("dealer", _("Choose who dealt this hand."))
        data: dict[str, Any] = {"dealer": dealer}
        data.update(self.body())
        ultimo = (self.ultimo.data or "").strip()
        if self.rules.ultimo and self.form_name != "live" and ultimo:
            if ultimo not in self.players:
                if self.rules.ultimo == "bagatto_or_fool":
                    raise EntryError("ultimo", _("Choose who won the last trick with the Bagatto or the Fool, "
                                                 "or nobody."))
                raise EntryError("ultimo", _("Choose who won the last trick with the Bagatto, or nobody."))
            data["ultimo"] = ultimo
        notes = (self.notes.data or "").strip()
        if notes:
            data["notes"] = notes
        return data

    def body(self) -> dict[str, Any]:
        raise NotImplementedError

    def one_blank_filled(self, fields: list[Any], read: Callable[[str], Number], total: Number, blanks: str,
                         too_much: str) -> list[Number]:
        """Each seat's number as typed in ``fields`` (read by ``read``), the one left blank filled in as
        ``total`` less the others: the last player's points or pile need not be counted, the pack says
        them. EntryError at the field for a number ``read`` refuses, at the first field for more than
        one blank (``blanks``), at the blank one for numbers already past the total (``too_much``)."""
        values: list[Number | None] = []
        for i, field in enumerate(fields):
            text = (field.data or "").strip()
            try:
                values.append(read(text) if text else None)
            except ValueError as exc:
                raise EntryError(field.name, f"{self.players[i]}: {exc}") from exc
        blank = [i for i, v in enumerate(values) if v is None]
        if len(blank) > 1:
            raise EntryError(fields[0].name, blanks)
        rest = total - sum(v for v in values if v is not None)
        if blank and rest < 0:
            raise EntryError(fields[blank[0]].name, too_much)
        return [rest if v is None else v for v in values]

    def fill(self, record: dict[str, Any]) -> None:
        """Prefill the form from a stored in-match record (editing)."""
        self.dealer.data = record.get("dealer")
        self.ultimo.data = record.get("ultimo") or ""
        self.notes.data = record.get("notes") or ""


def _seat_fields(cls: type, prefix: str, make: Any) -> None:
    for i in range(MAX_PLAYERS):
        setattr(cls, f"{prefix}_{i}", make())


class PointsForm(HandForm):
    """Counted card points per player; one left blank is the deck total less the others."""

    form_name = "points"

    def point_fields(self) -> list[Any]:
        return [getattr(self, f"points_{i}") for i in self.seats()]

    def body(self) -> dict[str, Any]:
        total = fraction_text(self.rules.deck_total)
        values = self.one_blank_filled(
            self.point_fields(), parse_points_text, self.rules.deck_total,
            _("Enter the points of every player but one: the last one fills itself in (%(total)s in all).",
              total=total),
            _("The points entered already add up to more than %(total)s, the whole pack: check them.", total=total))
        return {"points": {p: fraction_json(v) for p, v in zip(self.players, values, strict=True)}}

    def fill(self, record: dict[str, Any]) -> None:
        super().fill(record)
        for i, p in enumerate(self.players):
            value = record.get("points", {}).get(p)
            getattr(self, f"points_{i}").data = "" if value is None else fraction_text(Fraction(value))


_seat_fields(PointsForm, "points", lambda: StringField(validators=[Optional(), Longest(20)]))


class _PilesForm(HandForm):
    """Cards per player typed or tapped; every card of the list not given to anyone goes to ``rest``."""

    rest = RadioField(_l("The rest goes to"), choices=[], validate_choice=False)

    def setup(self, players: tuple[str, ...], rules: Ruleset) -> None:
        super().setup(players, rules)
        self.rest.choices = [(str(i), p) for i, p in enumerate(players)]
        if self.rest.data is None or self.rest.data == "":
            self.rest.data = str(len(players) - 1)

    def card_fields(self) -> list[Any]:
        return [getattr(self, f"cards_{i}") for i in self.seats()]

    def rest_seat(self) -> int:
        value = (self.rest.data or "").strip()
        if not value.isdecimal() or int(value) >= len(self.players):
            raise EntryError("rest", _("Choose who gets the cards not given to anyone."))
        return int(value)

    def piles(self) -> dict[str, list[str]]:
        """Each player's cards, the rest player's completed with every card nobody was given."""
        given = [parse_cards(f.data or "", self.rules, f.name, p) for f, p in zip(self.card_fields(), self.players,
                                                                                   strict=True)]
        rest = self.rest_seat()
        listed = {c for pile in given for c in pile}
        given[rest] = given[rest] + [c for c in self.grid() if c not in listed]
        return {p: [CODES[c] for c in pile] for p, pile in zip(self.players, given, strict=True)}

    def fill_piles(self, piles: dict[str, list[str]]) -> None:
        for i, p in enumerate(self.players):
            getattr(self, f"cards_{i}").data = " ".join(piles.get(p, []))
        self.rest.data = str(len(self.players) - 1)


_seat_fields(_PilesForm, "cards", lambda: TextBox(validators=[Optional(), Longest(1500)]))


class CardsForm(_PilesForm):
    """Each player's trick pile as it lies at the end (the ``captured`` form)."""

    form_name = "cards"

    def grid(self) -> tuple[int, ...]:
        return self.rules.pack_order

    def body(self) -> dict[str, Any]:
        return {"captured": self.piles()}

    def fill(self, record: dict[str, Any]) -> None:
        super().fill(record)
        self.fill_piles(record.get("captured", {}))


class HonoursForm(_PilesForm):
    """Each player's counting cards and the number of cards in their pile (``honours`` + ``sizes``)."""

    form_name = "honours"

    def grid(self) -> tuple[int, ...]:
        return counting_cards(self.rules)

    def size_fields(self) -> list[Any]:
        return [getattr(self, f"size_{i}") for i in self.seats()]

    def body(self) -> dict[str, Any]:
        total = self.rules.pack_size
        sizes = self.one_blank_filled(
            self.size_fields(), parse_count_text, total,
            _("Enter the number of cards in every pile but one: the last one fills itself in (%(total)s in all).",
              total=total),
            _("The pile sizes entered already add up to more than the %(total)s cards of the pack.", total=total))
        return {"honours": self.piles(), "sizes": dict(zip(self.players, sizes, strict=True))}

    def fill(self, record: dict[str, Any]) -> None:
        super().fill(record)
        self.fill_piles(record.get("honours", {}))
        for i, p in enumerate(self.players):
            getattr(self, f"size_{i}").data = str(record.get("sizes", {}).get(p, ""))


_seat_fields(HonoursForm, "size", lambda: StringField(validators=[Optional(), Longest(5)]))


class LiveForm(HandForm):
    """The full record, trick by trick: tapped in live (static/live.js) or typed one trick a line."""

    form_name = "live"
    tricks = TextBox(_l("Tricks, one a line, cards in the order played"),
                     validators=[Optional(), Longest(MAX_TRICKS_TEXT)])

    def grid(self) -> tuple[int, ...]:
        return self.rules.pack_order

    codes: object = None
    """The tricks as live.js posts them (lists of card codes), when it does; else the text is read."""

    def trick_list(self) -> list[list[str]]:
        if self.codes is not None:
            return tricks_from_codes(self.codes)
        return tricks_from_text(self.tricks.data or "", self.rules)

    def body(self) -> dict[str, Any]:
        tricks = self.trick_list()
        if not tricks:
            raise EntryError("tricks", _("No trick entered yet."))
        return {"tricks": [{"cards": cards} for cards in tricks]}

    def fill(self, record: dict[str, Any]) -> None:
        super().fill(record)
        self.tricks.data = tricks_to_text([list(t["cards"]) if isinstance(t, dict) else list(t)
                                           for t in record.get("tricks", [])])


FORMS: dict[str, type[HandForm]] = {"points": PointsForm, "cards": CardsForm, "honours": HonoursForm,
                                    "live": LiveForm}
"""The entry forms by the name in the URL (``/hands/new/<form>``)."""

FORM_OF_BODY = {"points": "points", "captured": "cards", "honours": "honours", "tricks": "live"}
"""Which form reopens a stored record, by its body."""
