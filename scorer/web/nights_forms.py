"""The forms of the night pages (nights.py): a new night, the next round, another session's file.

Beside their routes by the package's rule (scorer/web/__init__.py): a blueprint ``x.py`` keeps its
form classes in ``x_forms.py``.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField
from wtforms import BooleanField, DateField, HiddenField, IntegerField, RadioField, SelectField, StringField
from wtforms.validators import DataRequired, InputRequired, NumberRange, Optional

from ..engine import night_files
from ..engine.deals import MAX_SEED
from ..engine.limits import MAX_NAME
from ..engine.rulesets import PRESETS
from .forms import Form, Longest, TextBox, choices, typed
from .labels import PRESET_NAMES

SEATING_LABELS = {"mixed": _l("Mixed: meet as many different opponents as possible"),
                  "ranking": _l("By ranking: the leaders play together (Swiss)")}
RANKING_LABELS = {"total": _l("By total of the hand scores"),
                  "placings": _l("By placings: match points for the places at each table")}
SCORING_LABELS = {"matchpoints": _l("Matchpoints: 2 for each player beaten with the same cards, 1 for a tie"),
                  "difference": _l("Difference: the score less the average of the others with the same cards")}




class NightForm(Form):
    """A new night: roster players ticked (read from the request), new names, rounds, rules, methods."""

    title = StringField(_l("Name of the night"), filters=[typed], validators=[DataRequired(), Longest(40)])
    date = DateField(_l("Date"), validators=[DataRequired()])
    new = TextBox(_l("New players, one per line"),
                  validators=[Optional(), Longest(night_files.MAX_PLAYERS * (MAX_NAME + len("\n")))])
    rounds = IntegerField(_l("Rounds"), validators=[InputRequired(), NumberRange(min=1, max=night_files.MAX_ROUNDS)],
                          default=3)
    hands = IntegerField(_l("Hands per round (empty: one deal each)"),
                         validators=[Optional(), NumberRange(min=1, max=night_files.MAX_HANDS)])
    preset = SelectField(_l("Rules"), choices=choices((name, PRESET_NAMES[name]) for name in PRESETS
                                                      if PRESETS[name].players == 3), default="classic")
    seating = RadioField(_l("Seats after the first round"), choices=choices(SEATING_LABELS.items()), default="mixed")
    ranking = RadioField(_l("The night is ranked"), choices=choices(RANKING_LABELS.items()), default="total")
    seed = IntegerField(_l("Seed of the draw (optional: the same seed draws the same seats)"),
                        validators=[Optional(), NumberRange(min=0, max=10**12)])
    duplicate = BooleanField(_l("Duplicate: every table plays the same boards, dealt by the app"))
    deal_seed = StringField(_l("Seed of the boards (empty: the club's name and the date)"), filters=[typed],
                            validators=[Optional(), Longest(MAX_SEED)])
    boards = IntegerField(_l("Boards per round"), default=3,
                          validators=[Optional(), NumberRange(min=1, max=night_files.MAX_HANDS)])
    scoring = RadioField(_l("Duplicate scoring"), choices=choices(SCORING_LABELS.items()), default="matchpoints")


class NextForm(Form):
    force = BooleanField(_l("Start it anyway: some tables have not finished"))
    reason = StringField(_l("Why (kept in the night's history)"), validators=[Optional(), Longest(200)])
    round = HiddenField()  # the round the page offered to start


class SessionFileForm(Form):
    """Another duplicate session's file: imported as a night of the club, or ranked with one of its nights."""

    file = FileField(_l("Session file (scarto-duplicate/1 JSON)"))
    text = TextBox(_l("…or paste it here"))
    night = SelectField(_l("What to do with it"), choices=[])
