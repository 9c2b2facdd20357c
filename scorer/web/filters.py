"""Every template filter, global and context value of the pages, registered in one place.

The blueprints register none: what a template may call is listed here, so a
template works whichever blueprint renders it. The words come from
:mod:`.labels` (and through it :mod:`scorer.sheets.words`, which the ``scarto pdf``
command uses without Flask, so a sheet says the same either way).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Flask
from flask_babel import format_date, format_datetime, get_locale, get_timezone
from flask_babel import gettext as _

from ..engine.audit import AuditStep
from ..engine.cards import CODES, SUIT, TRUMP
from ..engine.numbers import fraction_text
from ..engine.records import HandRecord
from ..engine.validation import Problem
from .labels import (
    PRESET_DESCRIPTIONS,
    PRESET_NAMES,
    PROBLEM_LABELS,
    SETTLE_LABELS,
    card_in_sentence,
    card_label,
    card_title,
    page_words,
    problem_text,
    suit_in_sentence,
    switch_rows,
)


def register(app: Flask, languages: tuple[str, ...]) -> None:
    """Give the app's templates their filters, globals and context."""
    app.jinja_env.filters.update({
        "points": fraction_text,
        "money": money,
        "card": card_label,
        "card_title": card_title,
        "code_label": code_label,
        "preset_name": preset_name,
        "local_time": local_time,
        "local_date": local_date,
    })
    app.jinja_env.globals.update({
        "LANGUAGES": languages,
        "problem_text": _problem_text,
        "win_reason": win_reason,
        "switch_rows": switch_rows,
        "preset_descriptions": PRESET_DESCRIPTIONS,
        "settle_labels": SETTLE_LABELS,
        "problem_labels": PROBLEM_LABELS,
        "codes": CODES,
    })
    app.context_processor(lambda: {"current_locale": str(get_locale() or "en")})


def money(amount: Any, currency: str) -> str:
    """Money in the page's locale (1,50 € in Italian, €1.50 in English)."""
    return page_words().money(amount, currency)


def code_label(code: str) -> str:
    """A card code of a breakdown (or the exchange's "+1") as a screen label."""
    return card_label(CODES.index(code)) if code in CODES else code


def preset_name(preset: str) -> str:
    return str(PRESET_NAMES.get(preset, preset))


def _problem_text(problem: Problem) -> str:
    """A problem's sentence in the page's language."""
    return problem_text(problem)


def when(stamp: str) -> str:
    """A stored UTC time in the page's language and the app's time zone."""
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return str(_("%(time)s (%(zone)s)", time=format_datetime(moment, "short"), zone=str(get_timezone())))


def local_time(stamp: str) -> str:
    return when(stamp)


def local_date(stamp: str) -> str:
    """A stored date, or the day of a stored UTC time, as the page's language writes it (1 mag 2024).

    Text that is not an ISO date (a match file may say "Easter 2024") is shown as it is.
    """
    if isinstance(stamp, str) and len(stamp) == 10:
        return page_words().local_date(stamp)  # as the sheets of the command write it
    try:
        return str(format_date(datetime.fromisoformat(stamp.replace("Z", "+00:00")), "medium"))
    except (TypeError, ValueError, AttributeError):
        return stamp


def win_reason(step: AuditStep, record: HandRecord) -> str:
    """Why the trick went where it did, in the page's language and the match's pack."""
    trick = step.trick
    best = trick.winning_card
    winner = record.players[trick.winner]
    if SUIT[best] == TRUMP:
        return str(_("%(name)s won with %(card)s, the highest trump.", name=winner, card=card_in_sentence(best)))
    return str(_("%(name)s won with %(card)s, the highest of %(suit)s, the suit led.", name=winner,
                 card=card_in_sentence(best), suit=suit_in_sentence(SUIT[best])))
