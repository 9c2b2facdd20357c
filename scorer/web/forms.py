"""What every form shares: the base ``Form``, its fields and validators, and the forms two blueprints post.

Forms parse and validate requests; the core then does the work. A blueprint's own forms live
beside it, ``x.py``'s in ``x_forms.py`` (the package's rule, scorer/web/__init__.py); here is
what more than one of them needs, and the idempotency key a phone sends with an entry.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from functools import cache
from typing import Any

from babel import support
from flask import current_app, has_request_context, request
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Field, IntegerField, RadioField, SelectChoice, SelectField, TextAreaField
from wtforms.i18n import messages_path
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from ..engine.errors import ScartoError
from ..engine.limits import MAX_END_HANDS, MAX_END_TARGET
from ..engine.records import check_name, check_text, one_space, player_name
from ..engine.rulesets import PRESETS, SWITCH_VALUES
from .jsonio import json_fields, posted_json
from .labels import SWITCH_LABELS, SWITCH_ORDER, error_text, message_text, value_label

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
