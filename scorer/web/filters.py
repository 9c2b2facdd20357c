"""Every template filter, global and context value of the pages, registered in one place.

The blueprints register none: what a template may call is listed here, so a
template works whichever blueprint renders it. The words come from
:mod:`.labels` (and through it :mod:`scorer.sheets.words`, which the ``scarto pdf``
command uses without Flask, so a sheet says the same either way).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from typing import Any

from flask import Flask
from flask_babel import format_date, format_decimal, get_locale, get_timezone
from flask_babel import gettext as _
from markupsafe import Markup, escape

from ..engine.audit import AuditStep
from ..engine.cards import CODES, SUIT, TRUMP
from ..engine.messages import N_
from ..engine.numbers import fraction_text
from ..engine.records import HandRecord
from ..engine.rulesets import find_ruleset
from ..engine.validation import Problem
from ..sheets import cardfaces
from .labels import (
    PRESET_DESCRIPTIONS,
    PRESET_NAMES,
    PROBLEM_LABELS,
    SETTLE_LABELS,
    card_in_sentence,
    card_label,
    card_title,
    current_language,
    current_pack,
    page_words,
    problem_text,
    suit_in_sentence,
    switch_rows,
)
from .page_cache import messages_here, slot, slot_json
from .polling import poll_attr


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
        "card_face": _card_face,
        "code_face": _code_face,
        "card_face_pdf": _card_face_pdf,
        "code_face_pdf": _code_face_pdf,
        "megabytes": megabytes,
    })
    app.jinja_env.globals.update({
        "LANGUAGES": languages,
        "problem_text": _problem_text,
        "win_reason": win_reason,
        "switch_rows": switch_rows,
        "ruleset_of": find_ruleset,
        "preset_descriptions": PRESET_DESCRIPTIONS,
        "settle_labels": SETTLE_LABELS,
        "problem_labels": PROBLEM_LABELS,
        "codes": CODES,
        "card_sprite": _card_sprite,
        "error_attrs": error_attrs,
        "sync_texts": sync_texts,
        "poll_attr": poll_attr,
        "messages_here": messages_here,
        "slot": slot,
        "slot_json": slot_json,
        "seat_labels": seat_labels,
        "standings_rows": standings_rows,
    })
    app.context_processor(lambda: {"current_locale": str(get_locale() or "en")})


SEAT_LABEL_LETTERS = {3: 8, 4: 6}
"""The letters a player's column heading holds at a table of three or four: what a 320 px phone fits
above each player's scores, in bold."""


def seat_labels(players: tuple[str, ...] | list[str]) -> list[str]:
    """Each player's column heading in a narrow table: the name when it fits, else its first word ("Ugo
    R." when two share it), the first word's first letters with a full stop ("Massimi."), or initials;
    never two alike. The page gives the whole name beside it (a title, a legend): a name broken letter by
    letter reads as two names."""
    letters = SEAT_LABEL_LETTERS.get(len(players), 6)
    firsts = [name.split()[0].casefold() for name in players]
    labels: list[str] = []
    for seat, name in enumerate(players):
        words = name.split()
        first, shared = words[0], firsts.count(words[0].casefold()) > 1
        initials = "".join(w[0] for w in words)[:letters]
        choices = [name, *([] if shared else [first])]
        if len(words) > 1:
            choices.append(f"{first} {words[-1][0]}.")
        choices += [*([] if shared else [first[:letters - 1] + "."]), initials]
        fitting = [c for c in choices if len(c) <= letters and c.casefold() not in map(str.casefold, labels)]
        labels.append(fitting[0] if fitting else f"{initials[:letters - 1]}{seat + 1}")
    return labels


def megabytes(size: int) -> str:
    """A file's size in the page's locale, in megabytes with one decimal ("2.4 MB", "2,4 MB")."""
    return f"{format_decimal(max(size, 1) / 1_000_000, '0.0##' if size < 100_000 else '0.0')} MB"


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
    """A stored UTC time in the page's language, in the club's time zone (``SCARTO_BABEL_DEFAULT_TIMEZONE``).

    The month as a word and the hours as the language writes them ("1 dic 2026, 08:14", "Dec 1, 2026,
    8:14 AM"): never "12/1/26", which reads as two different days.
    """
    from flask_babel import format_time

    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    locale = get_locale()
    pattern = str(locale.datetime_formats.get("medium", "{1}, {0}")) if locale is not None else "{1}, {0}"
    text = pattern.replace("{1}", str(format_date(moment, "medium"))).replace("{0}", str(format_time(moment, "short")))
    return str(_("%(time)s (%(zone)s)", time=text, zone=str(get_timezone())))


def local_time(stamp: str) -> Markup:
    """A stored UTC time as a ``<time>`` the phone says in its own time zone (static/times.js).

    Without the script the server's words stand: the time in the club's zone, that zone named.
    """
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    utc = moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return Markup('<time datetime="{}" data-local>{}</time>').format(utc, when(stamp))


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


# --- cards drawn (scorer/sheets/cardfaces.py) and form errors ----------------------


def error_attrs(field: Any, describedby: str | None = None) -> dict[str, str]:
    """A field with an error says so to screen readers, and which message is about it."""
    if not getattr(field, "errors", None) and describedby is None:
        return {}
    return {"aria-invalid": "true", "aria-describedby": describedby or f"{field.id}-error"}


def _card_face(index: int, named: bool = True) -> Markup:
    """A card drawn: its rank and suit mark (scorer/sheets/cardfaces.py), in the page's language and pack."""
    return Markup(cardfaces.card_face(index, current_language(), current_pack(), named=named))


def _code_face(code: str, named: bool = True) -> Markup | str:
    """A card code drawn as :func:`_card_face` (anything else, such as the exchange's "+1", as it is)."""
    return _card_face(CODES.index(code), named) if code in CODES else code


def _card_face_pdf(index: int) -> Markup:
    """A card drawn for a PDF sheet: the suit mark inline."""
    return Markup(cardfaces.card_face(index, current_language(), current_pack(), inline=True, named=False))


def _code_face_pdf(code: str) -> Markup | str:
    """A card code drawn for a PDF sheet (:func:`_card_face_pdf`); anything else as it is."""
    return _card_face_pdf(CODES.index(code)) if code in CODES else code


def _card_sprite() -> Markup:
    """The suit marks of the match's pack, once per page, for the drawn cards to refer to."""
    return Markup(cardfaces.sprite(current_pack()))


def sync_texts() -> Markup:
    """The sentences sync.js shows on the match page, translated, as JSON for a single-quoted attribute;
    it fills in the %(...)s itself. Made once a process and language (some twenty strings, 0.16 ms, on
    every match page), and written as the page's own UTF-8 ("è", not "\\u00e8", without spaces): the
    match page is within 40 KB by a few hundred bytes (tests/test_page_weight.py)."""
    return _sync_json(current_language())


@cache
def _sync_json(language: str) -> Markup:
    text = json.dumps(_sync_texts(language), ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("'", "\\u0027")):
        text = text.replace(char, escaped)  # as Jinja's tojson: safe inside the attribute and the page
    return Markup(text)


@cache
def _sync_texts(_language: str) -> dict[str, str]:
    """:func:`sync_texts` in the current language, which is ``_language``."""
    def js(text: str, *names: str) -> str:
        return str(_(text, **{name: f"%({name})s" for name in names}))

    return {
        "title": _("Waiting on this phone: sent when the connection returns"),
        "new": js(N_("Hand %(n)s, dealt by %(dealer)s"), "n", "dealer"),
        "edit": _("A change to a hand"),
        "delete": _("Deleting a hand"),
        "undelete": _("Bringing a deleted hand back"),
        "restore": _("Restoring an old version of a hand"),
        "waiting": _("waiting"),
        "taken": js(N_("Not saved: another phone saved hand %(n)s meanwhile. If yours is a different hand, save it as "
                       "hand %(next)s; if it is the same hand, throw yours away."), "n", "next"),
        "changed": _("Not saved: the hand was changed from another phone meanwhile."),
        "confirm": _("The rules were broken in this hand. The table decides: save it marked, or open it and "
                     "correct it."),
        "refused": js(N_("Not saved: the app refused it (error %(status)s). Open it to see why."), "status"),
        "save_as": js(N_("Save as hand %(n)s"), "n"),
        "over": _("Save mine over it"),
        "anyway": _("Save anyway, marked"),
        "open": _("Open it"),
        "discard": _("Throw it away"),
        "discard_sure": _("Throw this entry away? It is not saved anywhere else."),
        "install": _("Keep Scarto on the home screen: it opens even without a connection."),
        "install_yes": _("Add to home screen"),
        "install_no": _("Not now"),
    }


DEALER_CELL = ' class="d"'
"""The dealer's cell in the standings (standings.css draws its dot)."""


def standings_rows(view: Any, link_hands: bool = True) -> Markup:
    """The standings table's rows (_standings.html), made in one pass: the match page's costliest part
    after a change, where a template loop escaped each of its some 340 values one by one. The same HTML
    as that loop: a row a hand, linked to the hand's page, marked for a breach or as after the end; a
    cell a player, the dealer's marked, the hand's score over the running total."""
    players = view.record.players
    hands = view.hands
    not_counted = _("After the end of the match: not counted")  # translations unescaped, as Jinja's
    breach = _("Rule breach marked")
    after_end = f' title="{not_counted}"'
    flag = f' <span class="flag" title="{breach}">!</span>'
    label = Markup(_("Hand %(n)s, dealt by %(dealer)s"))
    rows = []
    for at, line in enumerate(view.table.lines):
        hand = hands[at] if hands else None
        linked = link_hands and hand is not None
        classes = ("open" if linked else "") + (" marked" if line.problems else "") + (
            "" if line.counted else " after-end")
        number = str(line.number)
        if link_hands and hand is not None:
            number = (f'<a class="row-link" href="{escape(view.hand_url(hand.key))}" aria-label="'
                      f'{label % {"n": line.number, "dealer": line.dealer}}">{number}<span> ›</span></a>')
        cells = "".join(
            f'<td{DEALER_CELL if p == line.dealer else ""}>'
            f'{escape(fraction_text(line.scores[p])) if p in line.scores else "–"}<br>'
            f"<small>{escape(fraction_text(total))}</small></td>"
            for p, total in zip(players, line.totals, strict=False))
        rows.append(f'\n  <tr class="{classes}"{"" if line.counted else after_end}>\n'
                    f'<td>{number}{flag if line.problems else ""}</td>\n{cells}\n</tr>')
    return Markup("".join(rows))
