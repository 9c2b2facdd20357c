"""The forms of the club pages (the ``clubs`` blueprint: clubs.py and its parts): a club and its
defaults, seasons, roster players, merging, starting or adding a match, importing a club file.

Beside their routes by the package's rule (scorer/web/__init__.py): a blueprint ``x.py`` keeps its
form classes in ``x_forms.py``.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField
from wtforms import DateField, RadioField, SelectField, StringField
from wtforms.validators import DataRequired, Optional, ValidationError

from ..engine import club_files
from ..engine.cardnames import LANGUAGE_NAMES
from ..engine.limits import MAX_BEST_RESULTS, MAX_CURRENCY, MAX_NAME, MAX_ROSTER
from ..engine.rulesets import PRESETS
from ..engine.seasons import ALL, SeasonRule
from .forms import (
    Form,
    Longest,
    MatchEndFields,
    RuleSwitchFields,
    TextBox,
    choices,
    currency_text,
    read_stake,
    typed,
)
from .labels import PRESET_NAMES, SETTLE_LABELS

ROSTER_TEXT = MAX_ROSTER * (MAX_NAME + len(", ") + club_files.MAX_SHORT + len("\n"))
"""Characters of a new club's roster box: as many players as a roster holds, each with the longest name
and short name (8,000 stopped a pasted roster at about 150 players of 40 characters, cut mid-name)."""


class ClubForm(Form, MatchEndFields, RuleSwitchFields):
    """A club's name, its roster (new clubs) and its defaults for new matches."""

    name = StringField(_l("Name of the club"), filters=[typed], validators=[DataRequired(), Longest(40)])
    roster = TextBox(_l("Players, one per line (a short name after a comma: Anna Rossi, Anna)"),
                     validators=[Optional(), Longest(ROSTER_TEXT)])
    preset = SelectField(_l("Rules"), choices=choices((name, PRESET_NAMES[name]) for name in PRESETS),
                         default="classic")
    settle = RadioField(_l("Settlement"), choices=choices(SETTLE_LABELS.items()), default="per_point")
    stake = StringField(_l("Stake per point (optional)"), validators=[Optional(), Longest(12)])
    currency = StringField(_l("Currency"), validators=[Optional(), Longest(MAX_CURRENCY)], default="EUR")
    pack = RadioField(_l("Your pack"), choices=choices([("italian", _l("Italian suits")),
                                                       ("french", _l("French suits"))]), default="italian")
    language = SelectField(_l("Language of the match sheet"), choices=choices(LANGUAGE_NAMES.items()), default="en")

    def validate_stake(self, field: Any) -> None:
        read_stake(field.data or "")

    def defaults(self, keep: dict[str, Any] | None = None) -> dict[str, Any]:
        """The club's defaults as ``scarto-match/1`` keys: the preset with the switches chosen (a deal that
        a club file set, which the form does not show, is kept while the preset stays)."""
        preset = self.preset.data if self.preset.data in PRESETS else "classic"
        kept = (keep or {}).get("ruleset")
        switches = self.switches(preset)
        if isinstance(kept, dict) and kept.get("preset") == preset and "deal" in kept:
            switches["deal"] = kept["deal"]
        out: dict[str, Any] = {"language": self.language.data or "en", "pack": self.pack.data or "italian",
                               "ruleset": {"preset": preset, **switches} if switches else preset,
                               "settle": self.settle.data or "per_point"}
        if self.end_kind.data == "target":
            out["end"] = {"target": self.end_target.data or 100}
        else:
            out["end"] = {"hands": self.end_hands.data or PRESETS[preset].players}
        amount = read_stake(self.stake.data or "")
        if amount is not None:
            out["stake"] = {"per_point": str(amount), "currency": currency_text(self.currency.data or "")}
        return club_files.check_defaults(out)

    def fill(self, settings: dict[str, Any]) -> None:
        ruleset = settings.get("ruleset", "classic")
        self.preset.data = ruleset.get("preset", "classic") if isinstance(ruleset, dict) else ruleset
        self.fill_switches(ruleset)
        end = settings.get("end") or {}
        self.end_kind.data = "target" if "target" in end else "hands"
        self.end_hands.data = end.get("hands")
        self.end_target.data = end.get("target", 100)
        self.settle.data = settings.get("settle", "per_point")
        stake = settings.get("stake")
        self.stake.data = stake["per_point"] if stake else ""
        self.currency.data = stake["currency"] if stake else "EUR"
        self.pack.data = settings.get("pack", "italian")
        self.language.data = settings.get("language", "en")


class SeasonRuleFields:
    """How a season's table ranks (engine/seasons.py): the new season's form and its table's share them."""

    counts = SelectField(_l("The table ranks by"), choices=choices([
        ("all", _l("the total of all matches")), ("matches", _l("each player's best N matches")),
        ("nights", _l("each player's best N nights"))]), default="all")
    best = StringField(_l("N (how many count)"), filters=[typed], validators=[Longest(6)])

    def validate_best(self, field: Any) -> None:
        """N is needed for "best N", a whole number within the bound (docs/LIMITS.md); the field has no
        ``Optional()``, which would stop the check here for an empty N."""
        text = field.data or ""
        if self.counts.data != "all" and not (text.isascii() and text.isdigit()
                                               and 1 <= int(text) <= MAX_BEST_RESULTS):
            raise ValidationError(_("Write how many of each player's results count: a whole number from 1 to "
                                    "%(most)s.", most=MAX_BEST_RESULTS))

    def season_rule(self) -> SeasonRule:
        """The rule chosen (validated: N is a number when it counts)."""
        counts = self.counts.data
        if counts in ("matches", "nights") and self.best.data:
            return SeasonRule("matches" if counts == "matches" else "nights", int(self.best.data))
        return ALL

    def fill_rule(self, rule: SeasonRule) -> None:
        self.counts.data = rule.counts
        self.best.data = str(rule.best) if rule.best else ""


class SeasonForm(Form, SeasonRuleFields):
    name = StringField(_l("Name of the season"), filters=[typed], validators=[DataRequired(), Longest(40)])
    start = DateField(_l("From"), validators=[DataRequired()])
    end = DateField(_l("To (included)"), validators=[DataRequired()])


class SeasonRuleForm(Form, SeasonRuleFields):
    """A season's ranking rule changed on its table (the edit link)."""


class PlayerForm(Form):
    name = StringField(_l("Name"), filters=[typed], validators=[DataRequired(), Longest(MAX_NAME)])
    short = StringField(_l("Short name (optional)"), validators=[Optional(), Longest(club_files.MAX_SHORT)])


class MergeForm(Form):
    into = SelectField(_l("The same person as"), coerce=int, validate_choice=False)


class PickForm(Form):
    """Starting a match: roster players ticked, new names typed (read from the request)."""

    new = TextBox(_l("New players, one per line"), validators=[Optional(), Longest(400)])


class AddForm(Form):
    link = StringField(_l("The match's edit link"), validators=[Optional(), Longest(400)])
    file = FileField(_l("…or a match file (JSON)"))


class ImportClubForm(Form):
    file = FileField(_l("Club file (JSON)"))
    text = TextBox(_l("…or paste it here"))
