"""Forms that parse and validate requests; the core then does the work."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from decimal import Decimal
from functools import cache
from typing import Any

from babel import support
from flask import current_app, has_request_context, request
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Field, IntegerField, RadioField, SelectChoice, SelectField, StringField, TextAreaField
from wtforms.i18n import messages_path
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from ..engine.cardnames import LANGUAGE_NAMES
from ..engine.club_files import name_key
from ..engine.errors import ScartoError
from ..engine.limits import MAX_CURRENCY, MAX_END_HANDS, MAX_END_TARGET, MAX_NAME, MAX_PLACE, MAX_TITLE
from ..engine.records import MATCH_FORMAT, check_name, check_text, one_space, player_name
from ..engine.rulesets import PRESETS, SWITCH_VALUES, Ruleset
from .jsonio import json_fields, posted_json
from .labels import SETTLE_LABELS, SWITCH_LABELS, SWITCH_ORDER, error_text, message_text, value_label

SUBMITTED = frozenset({"POST", "PUT", "PATCH", "DELETE"})
"""The methods Flask-WTF reads a form from (its ``SUBMIT_METHODS``)."""
AS_PRESET = ""
MAX_PLAYERS = 4


@cache
def _wtforms_catalogue(locale: str) -> support.NullTranslations:
    """WTForms' own messages ("Not a valid integer value.") in a language, read once a process
    (Flask-WTF reads and parses the catalogue file again for every request with a form)."""
    return support.Translations.load(messages_path(), [locale], domain="wtforms")


class Form(FlaskForm):
    """Every form of the app: Flask-WTF's (CSRF), with WTForms' messages in the page's language.

    A form posted as JSON is read as the fields that JSON names (:func:`json_fields`): Flask-WTF would
    hand the JSON value to WTForms as it is, and a body that is no object, too deep, or with a number
    where text goes ended in a 500.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if (not args and "formdata" not in kwargs and has_request_context() and request.method in SUBMITTED
                and request.is_json and not request.form and not request.files):
            kwargs["formdata"] = json_fields(posted_json())
        super().__init__(*args, **kwargs)

    class Meta(FlaskForm.Meta):
        def get_translations(self, form: Any) -> Any:
            if not current_app.config.get("WTF_I18N_ENABLED", True):
                return super().get_translations(form)
            return _wtforms_catalogue(str(get_locale() or "en"))


class TextBox(TextAreaField):
    """A text area whose line breaks count as its box counted them: a browser sends each one as CR LF,
    two characters, where the box's ``maxlength`` counted one, so a box typed full to its limit (16 lines
    of notes) was refused as too long. Every text area of the app is one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["filters"] = [_one_line_break, *kwargs.get("filters", ())]
        super().__init__(*args, **kwargs)


def _one_line_break(value: Any) -> Any:
    return value.replace("\r\n", "\n") if isinstance(value, str) else value


class Longest(Length):
    """A box's limit (rendered as its ``maxlength``), told as the file reader tells a text's: "81
    characters long; at most 80 are allowed here: shorten it" (WTForms' own sentence said only the
    limit, not how far past it the text was)."""

    def __init__(self, most: int) -> None:
        super().__init__(max=most)

    def __call__(self, form: Any, field: Any) -> None:
        length = len(field.data) if isinstance(field.data, str) else 0
        if length > self.max:
            raise ValidationError(_("%(length)s characters long; at most %(limit)s are allowed here: shorten it",
                                    length=length, limit=self.max))


class Readable:
    """A text box refused as the file reader refuses its text (records.check_text): a title or a place with
    a NUL or a line separator in it, notes with a control character other than a line break or a tab. Told
    at the box, in the reader's sentence."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __call__(self, form: Any, field: Any) -> None:
        if isinstance(field.data, str):
            try:
                check_text(field.data, self.key, self.key)
            except ScartoError as exc:
                raise ValidationError(message_text(exc)) from None


class Visible:
    """A player's box refused as the file reader refuses a name (records.check_name: invisible only, a
    format character inside), said with the other boxes' errors rather than after them."""

    def __call__(self, form: Any, field: Any) -> None:
        name = player_name(one_space(field.data)) if isinstance(field.data, str) else ""
        if name:
            try:
                check_name(name, field.name)
            except ScartoError as exc:
                raise ValidationError(message_text(exc)) from None


def said_at(form: Any, exc: ScartoError) -> None:
    """A core error about a name told at its box (a club's ``name``, ``players[2]`` at the third player's
    box), in the sentence alone: the box says where. Anything else at the top, with where it stands (only
    those boxes show their errors on every form that asks)."""
    where = exc.where or ""
    seat = re.fullmatch(r"players\[(\d+)\]", where)
    box = f"player_{int(seat.group(1)) + 1}" if seat else "name" if where == "name" else None
    field = getattr(form, box, None) if box else None
    if isinstance(field, Field):
        field.errors = [*field.errors, message_text(exc)]
    else:
        form.form_errors.append(error_text(exc))


def typed(value: Any) -> Any:
    """A typed name as the app will read it (NFC, no spaces around it), so that its length is judged on
    what is kept: "Anna" with spaces after it, or an "é" sent as e and its accent, was over 40."""
    return unicodedata.normalize("NFC", value).strip() if isinstance(value, str) else value


def choices(pairs: Any) -> list[SelectChoice]:
    """(value, label) pairs as WTForms' choices."""
    return [SelectChoice(value, label) for value, label in pairs]


def _switch_choices(name: str) -> list[SelectChoice]:
    pairs: list[tuple[str, Any]] = [(AS_PRESET, _l("as the preset says"))]
    for value in SWITCH_VALUES[name]:
        key = "true" if value is True else "false" if value is False else str(value)
        pairs.append((key, value_label(name, value)))
    return choices(pairs)


def _switch_value(name: str, key: str) -> Any:
    for value in SWITCH_VALUES[name]:
        if key == ("true" if value is True else "false" if value is False else str(value)):
            return value
    raise ValueError(key)


class MatchEndFields:
    """How a match ends: the fields the new-match form and a club's defaults share."""

    end_kind = RadioField(
        _l("The match ends"),
        choices=choices([("hands", _l("after a number of hands")), ("target", _l("when someone reaches a score"))]),
        default="hands",
    )
    end_hands = IntegerField(_l("Hands"), validators=[Optional(), NumberRange(min=1, max=MAX_END_HANDS)])
    end_target = IntegerField(_l("Target score"), validators=[Optional(), NumberRange(min=1, max=MAX_END_TARGET)],
                              default=100)


class RuleSwitchFields:
    """The house-rule switches over a preset (the deal apart: the new-match form chooses it beside the
    preset): the fields the new-match form and a club's defaults share."""

    top_trump = SelectField(SWITCH_LABELS["top_trump"], choices=_switch_choices("top_trump"), default=AS_PRESET)
    discard = SelectField(SWITCH_LABELS["discard"], choices=_switch_choices("discard"), default=AS_PRESET)
    fool_discard = SelectField(SWITCH_LABELS["fool_discard"], choices=_switch_choices("fool_discard"),
                               default=AS_PRESET)
    first_lead = SelectField(SWITCH_LABELS["first_lead"], choices=_switch_choices("first_lead"), default=AS_PRESET)
    overtrump = SelectField(SWITCH_LABELS["overtrump"], choices=_switch_choices("overtrump"), default=AS_PRESET)
    fool_last_trick = SelectField(SWITCH_LABELS["fool_last_trick"], choices=_switch_choices("fool_last_trick"),
                                  default=AS_PRESET)
    fool_forfeit = SelectField(SWITCH_LABELS["fool_forfeit"], choices=_switch_choices("fool_forfeit"),
                               default=AS_PRESET)
    ultimo = SelectField(SWITCH_LABELS["ultimo"], choices=_switch_choices("ultimo"), default=AS_PRESET)

    def switch_fields(self) -> list[Any]:
        """The switch fields, in the rules' order."""
        return [getattr(self, name) for name in SWITCH_ORDER if name != "deal"]

    def switches(self, preset: str) -> dict[str, Any]:
        """The switches set otherwise than ``preset`` sets them, as a ruleset object's keys."""
        chosen = {field.name: _switch_value(field.name, field.data) for field in self.switch_fields()
                  if field.data not in (None, AS_PRESET)}
        return {name: value for name, value in chosen.items() if repr(value) != repr(getattr(PRESETS[preset], name))}

    def any_switch_set(self) -> bool:
        """Whether a switch is set otherwise than "as the preset says" (the switches are shown open)."""
        return any(field.data not in (None, AS_PRESET) for field in self.switch_fields())

    def fill_switches(self, ruleset: object) -> None:
        """The fields set from a ruleset object's switches (a preset's name sets none)."""
        given = ruleset if isinstance(ruleset, dict) else {}
        for field in self.switch_fields():
            value = given.get(field.name)
            field.data = AS_PRESET if value is None else "true" if value is True else "false" if value is False \
                else str(value)


class MatchForm(Form, MatchEndFields, RuleSwitchFields):
    """Start a match: players in seating order, first dealer, ruleset, end, settlement."""

    title = StringField(_l("Title"), validators=[Optional(), Longest(MAX_TITLE), Readable("title")])
    place = StringField(_l("Place"), validators=[Optional(), Longest(MAX_PLACE), Readable("place")])
    preset = RadioField(
        _l("Rules"),
        choices=choices((name, name) for name in PRESETS),
        default="classic",
    )
    deal = RadioField(
        SWITCH_LABELS["deal"],
        choices=choices([(AS_PRESET, _l("as the preset says")),
                         *((value, value_label("deal", value)) for value in SWITCH_VALUES["deal"])]),
        default=AS_PRESET,
    )
    """Beside the preset: any reading of the rules played three- or four-handed or as Piccolo."""
    player_1 = StringField(_l("Player 1"), filters=[typed], validators=[Optional(), Longest(MAX_NAME), Visible()])
    player_2 = StringField(_l("Player 2"), filters=[typed], validators=[Optional(), Longest(MAX_NAME), Visible()])
    player_3 = StringField(_l("Player 3"), filters=[typed], validators=[Optional(), Longest(MAX_NAME), Visible()])
    player_4 = StringField(_l("Player 4 (four-player deal only)"), filters=[typed],
                           validators=[Optional(), Longest(MAX_NAME), Visible()])
    first_dealer = RadioField(
        _l("First dealer"),
        choices=choices([("1", "1"), ("2", "2"), ("3", "3"), ("4", "4"), ("draw", _l("Draw for it"))]),
        default="1",
    )
    pack = RadioField(
        _l("Your pack"),
        choices=choices([("italian", _l("Italian suits: Coppe, Denari, Bastoni, Spade")),
                         ("french", _l("French suits: ♥ ♦ ♣ ♠"))]),
        default="italian",
    )
    language = SelectField(
        _l("Language of the match sheet"),
        choices=choices(LANGUAGE_NAMES.items()),
        default="en",
    )
    settle = RadioField(_l("Settlement"), choices=choices(SETTLE_LABELS.items()), default="per_point")
    stake = StringField(_l("Stake per point (optional)"), validators=[Optional(), Longest(12)])
    currency = StringField(_l("Currency"), validators=[Optional(), Longest(MAX_CURRENCY)], default="EUR")

    def player_fields(self) -> list[Any]:
        return [self.player_1, self.player_2, self.player_3, self.player_4]

    def names(self) -> list[str]:
        """The names of the players the deal seats, as typed but with one space between words: "Anna  Maria"
        typed with two spaces is Anna Maria, not a second player who looks the same everywhere."""
        return [one_space(f.data or "") for f in self.player_fields()[: self.ruleset().players]]

    def ruleset(self) -> Ruleset:
        """The preset with the chosen deal, which says how many players there are."""
        preset = PRESETS.get(self.preset.data or "classic", PRESETS["classic"])
        deal = self.deal.data if self.deal.data in SWITCH_VALUES["deal"] else preset.deal
        return replace(preset, deal=deal)

    def validate_stake(self, field: Any) -> None:
        read_stake(field.data or "")

    def validate(self, extra_validators: Any = None) -> bool:
        """The fields, then the players as a whole (a field validator would skip an empty name)."""
        valid = super().validate(extra_validators)
        ruleset = self.ruleset()
        names = self.names()
        problem = None
        if not all(names):
            problem = _l("Enter the names of all %(n)s players, in seating order.", n=ruleset.players)
        elif twice := _named_twice(names):  # "Anna", "anna", "Anna\u200b" and "Anna " are one name
            problem = _l("%(name)s is given twice: each player needs a different name (capitals and spaces "
                         "do not make another).", name=twice)
        if problem is not None:
            self.player_1.errors = [*self.player_1.errors, problem]
            return False
        extra = self.player_fields()[ruleset.players:]
        if any((f.data or "").strip() for f in extra):  # a fourth name with a deal for three was dropped unsaid
            extra[0].errors = [*extra[0].errors, _l(
                "A fourth player plays only the four-player deal: choose that deal, or clear the name.")]
            return False
        choice = self.first_dealer.data or "1"
        if choice != "draw" and (not choice.isdecimal() or int(choice) > ruleset.players):
            self.first_dealer.errors = [*self.first_dealer.errors, _l("Tick who deals first.")]
            return False
        return valid

    def match_data(self, draw: Any) -> dict[str, Any]:
        """The form as a ``scarto-match/1`` value without hands (the core validates it).

        ``draw`` picks the first dealer when the table asks the app to draw for it.
        """
        preset = self.preset.data or "classic"
        ruleset = self.ruleset()
        players = self.names()
        switches = self.switches(preset)
        if self.deal.data not in (None, AS_PRESET) and self.deal.data != PRESETS[preset].deal:
            switches = {**switches, "deal": self.deal.data}
        dealer_choice = self.first_dealer.data or "1"
        if dealer_choice == "draw":
            first_dealer = draw(players)
        else:
            first_dealer = players[int(dealer_choice) - 1]
        data: dict[str, Any] = {
            "format": MATCH_FORMAT,
            "ruleset": {"preset": preset, **switches} if switches else preset,
            "players": players,
            "first_dealer": first_dealer,
            "settle": self.settle.data or "per_point",
            "pack": self.pack.data or "italian",
            "language": self.language.data or "en",
            "hands": [],
        }
        if self.title.data and self.title.data.strip():
            data["title"] = self.title.data.strip()
        if self.place.data and self.place.data.strip():
            data["place"] = self.place.data.strip()
        if self.end_kind.data == "target":
            data["end"] = {"target": self.end_target.data or 100}
        else:
            data["end"] = {"hands": self.end_hands.data or ruleset.players}
        amount = read_stake(self.stake.data or "")
        if amount is not None:
            data["stake"] = {"per_point": str(amount), "currency": currency_text(self.currency.data or "")}
        return data


def _named_twice(names: list[str]) -> str | None:
    """The first name given twice, compared as a club's roster compares names (capitals, zero-width
    characters and inner spaces aside)."""
    seen: set[str] = set()
    for name in names:
        if name_key(name) in seen:
            return name
        seen.add(name_key(name))
    return None


STAKE_TYPED = re.compile(r"\d{1,7}(?:[.,]\d{1,2})?")
"""A stake as a form takes it: money, with at most two decimals (0.10, 1,50); no exponent (1e3)."""


def read_stake(text: str) -> Decimal | None:
    """The stake typed on a match's or a club's form; None when left empty, ValidationError when it is not
    an amount of money ("0.001" gave 4 points = 0.00 EUR; "1e3" was stored as 1E+3), or is nothing."""
    text = text.strip()
    if not text:
        return None
    if not STAKE_TYPED.fullmatch(text) or not Decimal(text.replace(",", ".")):
        raise ValidationError(_l("Write the stake as an amount of money with at most two decimals, e.g. 0.10."))
    return Decimal(text.replace(",", "."))


def currency_text(text: str) -> str:
    """The currency as typed: a three-letter code in capitals (eur: EUR), anything else as written (Bier)."""
    text = text.strip() or "EUR"
    return text.upper() if len(text) == 3 and text.isascii() and text.isalpha() else text


# --- a hand's version -------------------------------------------------------------------

MAX_VERSION = 2**31
"""Beyond any hand's history; a larger number in a URL is not a version (and not an SQLite integer)."""
RELOAD = _l("The page did not say which version of the hand it showed. Reload it and try again.")
KEY_USED = _l("This button's form was already used for another change to this hand: nothing was changed now. "
              "Reload the page and try again.")
"""A form's idempotency key already stored with another change (another action, another version)."""


class VersionForm(Form):
    """The version of the hand the page showed, so that a change made meanwhile is not overwritten."""

    version = IntegerField(validators=[InputRequired(message=RELOAD),
                                       NumberRange(min=1, max=MAX_VERSION, message=RELOAD)])


# --- idempotency keys (static/offline.js) -------------------------------------------

_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")


def entry_key(value: str | None) -> str | None:
    """A phone's idempotency key for one entry (offline.js makes one per form), or None.

    A key that does not look like one (a damaged or hand-made form) is ignored: the entry is
    then simply saved without the protection against a retry.
    """
    value = (value or request.headers.get("Idempotency-Key") or "").strip()
    return value if _KEY.fullmatch(value) else None
