"""The words the sheets and the pages show for the engine's names, in any language, without Flask.

The tables hold the English source strings (``N_`` marks them for the catalogue);
:class:`Words` translates them with whatever ``gettext`` it is given: Flask-Babel's
on the pages (:mod:`scorer.web.labels`), the catalogue of the chosen language for
``scarto pdf`` (:mod:`scorer.sheets.render`). One table and one set of functions, so
a sheet says the same from the web and from the command.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any

from ..engine import rulesets
from ..engine.cardnames import SUITS, full_name
from ..engine.cards import ANGEL_INDEX, BAGATTO_INDEX, CODES, FIRST_SUIT_CARD, FOOL_INDEX, RANK, WORLD_INDEX
from ..engine.messages import N_, render
from ..engine.numbers import fraction_text
from ..engine.rulesets import PRESETS, SWITCH_VALUES, Ruleset

PRESET_DESCRIPTIONS = rulesets.PRESET_DESCRIPTIONS
"""Each preset's one line, RULES.md's words as the engine keeps them (translated when shown)."""

PRESET_NAMES = {
    "classic": N_("classic"),
    "rulesheet": N_("rule sheet"),
    "saari": N_("Saari"),
    "four": N_("four players"),
    "piccolo": N_("piccolo"),
}
"""How the pages name each preset (the files keep the preset's own name)."""

SWITCH_LABELS = {
    "top_trump": N_("Highest trump"),
    "discard": N_("Forbidden discards"),
    "fool_discard": N_("Fool in the discard"),
    "first_lead": N_("First lead"),
    "overtrump": N_("Must overtrump"),
    "fool_last_trick": N_("Fool in the last trick"),
    "fool_forfeit": N_("Fool forfeited by a player with no tricks"),
    "ultimo": N_("Bonus for the last trick (ultimo)"),
    "deal": N_("Deal"),
}

SWITCH_ORDER = ("deal", *(name for name in SWITCH_VALUES if name != "deal"))
"""The switches as the pages list them: the deal first, as RULES.md's Presets table has it."""

VALUE_LABELS: dict[tuple[str, Any], str] = {
    ("top_trump", "T20"): N_("XX, the Angel"),
    ("top_trump", "T21"): N_("XXI, the World"),
    ("discard", "classic"): N_("classic: no King, XX or Fool"),
    ("discard", "rulesheet"): N_("rule sheet: no King, XX, XXI or Fool"),
    ("discard", "saari"): N_("Saari: no King, I, XX; Fool only without trumps"),
    ("fool_discard", "restricted"): N_("restricted"),
    ("fool_discard", "free"): N_("free"),
    ("first_lead", "after_dealer"): N_("the player after the dealer"),
    ("first_lead", "dealer"): N_("the dealer"),
    ("fool_last_trick", "kept"): N_("kept by its player"),
    ("fool_last_trick", "captured"): N_("captured by the winner"),
    ("ultimo", True): N_("the Bagatto in the last trick"),
    ("ultimo", "bagatto_or_fool"): N_("the Bagatto or the Fool taken in the last trick"),
    ("deal", "three"): N_("three players: 25 cards each, a 3-card talon"),
    ("deal", "four"): N_("four players: 19 cards each, a 2-card talon"),
    ("deal", "piccolo"): N_("piccolo: three players, 42 cards, 12 each, a 6-card talon"),
}

ON_OFF = (N_("on"), N_("off"))

SETTLE_LABELS = {
    "per_point": N_("Per point: those below zero pay those above"),
    "loser_pays": N_("Loser pays: the lowest pays each other player one stake"),
}

TRUMPS = N_("trumps")
"""The trump suit's name in problem sentences (the other suits are named by the pack)."""


def _same(text: str) -> str:
    return text


@cache
def _locale(language: str) -> Any:
    """babel's Locale of a language, read once (parsing it for every number is most of the cost)."""
    from babel import Locale

    return Locale.parse(language)


ARTICLES: dict[str, dict[str, str]] = {
    "it": {"K": "il", "Q": "la", "C": "il", "J": "il", "1": "l'", "8": "l'", "": "il"},
    "es": {"K": "el", "Q": "la", "C": "el", "J": "la", "": "el"},
}
"""The article before a suit card's name in a sentence, by rank ("" for the rest): German and Finnish
need none."""
TRUMP_ARTICLES = {"it": "il", "es": "el"}
"""The article before a numbered trump's name in a sentence (Italian, Spanish)."""
NAMED_TRUMPS = (BAGATTO_INDEX, ANGEL_INDEX, WORLD_INDEX, FOOL_INDEX)
"""The trumps called by a name that carries its article already ("il Bagatto (I)", "el Loco")."""


EUPHONIC = {"it": (" a ", " ad ", ("a", "à"))}
"""Per language: a preposition before a name, its euphonic form, and the first letters that call for it.
Italian writes "ad" before a word that starts with "a" ("paga ad Anna", "tocca ad Alberto"); the
catalogue's sentences say "a %(payee)s", not knowing the name."""
EUPHONIC_LETTERS = frozenset(letter for _plain, _changed, letters in EUPHONIC.values() for letter in letters)
"""The first letters (lower case) of a name that may call for a euphonic form in some language."""


def euphonic(language: str, text: str, names: Iterable[object]) -> str:
    """``text`` with the preposition before each of ``names`` (strings; others are passed over) in its
    euphonic form where the language and the name's first letter call for it: "paga a Anna" is "paga
    ad Anna" in Italian. The names as they stand in ``text`` (escaped, on a page: ``str(escape(name))``)."""
    rule = EUPHONIC.get(language)
    if rule is None:
        return text
    plain, changed, letters = rule
    for name in names:
        if isinstance(name, str) and name[:1].lower() in letters and plain + name in text:
            text = text.replace(plain + name, changed + name)
    return text


def euphonic_templates(env: Any, language: Callable[[], str]) -> None:
    """A Jinja environment's ``_()``, ``ngettext()`` ... (newstyle, installed) made to write the
    preposition before a name as the language wants it (:func:`euphonic`); ``language`` is asked only
    when a value could call for it (a string starting with "a"), so other pages pay nothing more."""
    for name in ("gettext", "ngettext", "pgettext", "npgettext"):
        env.globals[name] = _euphonic_call(env.globals[name], language)
    env.globals["_"] = env.globals["gettext"]


def _euphonic_call(translate: Any, language: Callable[[], str]) -> Any:
    from jinja2 import pass_context
    from markupsafe import Markup, escape

    @pass_context
    def translated(context: Any, *args: Any, **values: Any) -> Any:
        text = translate(context, *args, **values)
        if not values:  # most of a page's sentences
            return text
        names = [v for v in values.values() if isinstance(v, str) and v[:1].lower() in EUPHONIC_LETTERS]
        if not names or (spoken := language()) not in EUPHONIC:
            return text
        if context.eval_ctx.autoescape:  # the names stand escaped in the text
            return Markup(euphonic(spoken, str(text), [str(escape(v)) for v in names]))
        return euphonic(spoken, text, names)

    return translated


@dataclass(frozen=True)
class Words:
    """The engine's names in one language and pack, translated by ``gettext``."""

    language: str = "en"
    pack: str = "italian"
    gettext: Callable[[str], str] = field(default=_same, compare=False)

    def card_title(self, index: int) -> str:
        """A card's full name, e.g. "Cavallo di Coppe"."""
        return full_name(index, self.language, self.pack)

    def card_in_sentence(self, index: int) -> str:
        """A card's name inside a sentence: English wants "the King of Cups", Italian and Spanish their
        article ("ha giocato il Cavallo di Bastoni", "l'8 di Coppe", "jugó la Sota de Oros"); the named
        trumps carry theirs already ("il Bagatto (I)")."""
        name = self.card_title(index)
        if index >= FIRST_SUIT_CARD:
            if self.language == "en":
                return f"the {name}"
            article = ARTICLES.get(self.language, {})
            word = article.get(RANK[index], article.get("", ""))
        elif index in NAMED_TRUMPS:
            return name
        else:  # "il Tarocco XV", "el Triunfo XV"
            word = TRUMP_ARTICLES.get(self.language, "")
        return f"{word}{name}" if word.endswith("'") else f"{word} {name}" if word else name

    def suit_in_sentence(self, suit: int) -> str:
        """A suit's name for problem sentences, in the pack of the match."""
        if suit == 0:
            return self.gettext(TRUMPS)
        return SUITS[self.language][self.pack][suit - 1]

    def problem_text(self, problem: Any) -> str:
        """A problem's sentence, card and suit names in the language and pack."""
        if not problem.key:
            return str(problem.message)
        params = problem.params
        if isinstance(params.get("preset"), str):  # "the classico pack" in Italian, not "the classic pack"
            params = {**params, "preset": self.preset_name(params["preset"])}
        return render(problem.key, params, translate=self.gettext, name_card=self.card_in_sentence,
                      card_code=CODES.__getitem__, name_suit=self.suit_in_sentence, show_number=fraction_text)

    def preset_name(self, preset: str) -> str:
        """A preset's name in the language; a ruleset's ``classic/four`` (a preset and another's deal) part by part."""
        return "/".join(self.gettext(PRESET_NAMES[part]) if part in PRESET_NAMES else part
                        for part in preset.split("/"))

    def preset_description(self, preset: str) -> str:
        return self.gettext(PRESET_DESCRIPTIONS[preset]) if preset in PRESET_DESCRIPTIONS else ""

    def settle_label(self, settle: str) -> str:
        return self.gettext(SETTLE_LABELS[settle]) if settle in SETTLE_LABELS else settle

    def value_label(self, switch: str, value: Any) -> str:
        """The words for one switch value ("on"/"off" for the yes/no switches)."""
        label = VALUE_LABELS.get((switch, value))  # ultimo's values have words of their own
        if label is not None:
            return self.gettext(label)
        if isinstance(value, bool):
            return self.gettext(ON_OFF[0] if value else ON_OFF[1])
        return str(value)

    def switch_rows(self, ruleset: Ruleset) -> list[tuple[str, str, bool]]:
        """(label, value label, differs from the preset) for each switch of a ruleset."""
        preset = PRESETS[ruleset.preset]
        return [
            (self.gettext(SWITCH_LABELS[name]), self.value_label(name, getattr(ruleset, name)),
             repr(getattr(ruleset, name)) != repr(getattr(preset, name)))
            for name in SWITCH_ORDER
        ]

    def local_date(self, stamp: str) -> str:
        """A date (``2024-05-01``) as the language writes it (1 mag 2024); other text as it is."""
        from babel.dates import format_date

        try:
            return str(format_date(date.fromisoformat(stamp), "medium", locale=_locale(self.language)))
        except (TypeError, ValueError):
            return stamp

    def money(self, amount: Any, currency: str) -> str:
        """Money as the language writes it (1,50 € in Italian, €1.50 in English)."""
        return _money(str(amount), currency, self.language)


@lru_cache(maxsize=4096)
def _money(amount: str, currency: str, language: str) -> str:
    """Formatting money is slow in babel and the same amounts come back on every page: kept."""
    from babel.numbers import format_currency

    try:
        return str(format_currency(Decimal(amount), currency, locale=_locale(language)))
    except (ValueError, LookupError, TypeError, ArithmeticError):
        return f"{amount} {currency}"
