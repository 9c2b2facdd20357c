"""The form of the new-match page (matches.py): players in seating order, first dealer, rules, end,
settlement.

Beside its routes by the package's rule (scorer/web/__init__.py): a blueprint ``x.py`` keeps its
form classes in ``x_forms.py``. The end and the rule switches it shares with a club's defaults
are fields of forms.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask_babel import lazy_gettext as _l
from wtforms import RadioField, SelectField, StringField
from wtforms.validators import Optional

from ..engine.cardnames import LANGUAGE_NAMES
from ..engine.club_files import name_key
from ..engine.limits import MAX_CURRENCY, MAX_NAME, MAX_PLACE, MAX_TITLE
from ..engine.records import MATCH_FORMAT, one_space
from ..engine.rulesets import PRESETS, SWITCH_VALUES, Ruleset
from .forms import (
    AS_PRESET,
    Form,
    Longest,
    MatchEndFields,
    Readable,
    RuleSwitchFields,
    Visible,
    choices,
    currency_text,
    read_stake,
    typed,
)
from .labels import SETTLE_LABELS, SWITCH_LABELS, value_label


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
