"""Words the pages show for the engine's names: presets, switches, problem codes, read errors.

All through gettext. The tables the sheets share live in :mod:`scorer.sheets.words`
(plain source strings); here they are wrapped for Flask-Babel (lazy, for the forms
built at import) and told in the page's language and the match's pack.
"""

from __future__ import annotations

import re
from typing import Any

from flask import current_app, g, has_app_context
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from ..engine.cardnames import short_name
from ..engine.errors import ScartoError
from ..engine.messages import N_, render_read
from ..engine.rulesets import PRESETS, Ruleset
from ..sheets import words

PRESET_DESCRIPTIONS = {key: _l(text) for key, text in words.PRESET_DESCRIPTIONS.items()}
PRESET_NAMES = {key: _l(text) for key, text in words.PRESET_NAMES.items()}
"""How the pages name each preset (the files keep the preset's own name)."""
SWITCH_LABELS = {key: _l(text) for key, text in words.SWITCH_LABELS.items()}
VALUE_LABELS: dict[tuple[str, Any], Any] = {key: _l(text) for key, text in words.VALUE_LABELS.items()}
SWITCH_ORDER = words.SWITCH_ORDER
"""The tables of :mod:`scorer.sheets.words`, translated when shown (the forms are built at import)."""

PROBLEM_LABELS = {
    "duplicate_card": _l("Card twice"),
    "card_count": _l("Card count"),
    "trick_count": _l("Wrong number of tricks"),
    "wrong_leader": _l("Wrong leader"),
    "points_total": _l("Points do not add up"),
    "pile_sizes": _l("Impossible pile sizes"),
    "ultimo_claim": _l("Last-trick bonus not possible"),
    "illegal_discard": _l("Forbidden discard"),
    "revoke": _l("Revoke"),
    "failed_to_trump": _l("Failed to trump"),
    "failed_to_overtrump": _l("Failed to overtrump"),
}

SETTLE_LABELS = {key: _l(text) for key, text in words.SETTLE_LABELS.items()}


def value_label(switch: str, value: Any) -> Any:
    """The words for one switch value ("on"/"off" for the yes/no switches)."""
    named = VALUE_LABELS.get((switch, value))  # ultimo's values have words of their own
    if named is not None:
        return named
    if isinstance(value, bool):
        return _l(words.ON_OFF[0] if value else words.ON_OFF[1])
    return value


def switch_rows(ruleset: Ruleset) -> list[tuple[str, str, bool]]:
    """(label, value label, differs from the preset) for each switch of a ruleset."""
    return page_words().switch_rows(ruleset)


def preset_table() -> list[tuple[Any, list[Any]]]:
    """The full switch table of every preset, one row a switch (RULES.md's Presets table), the deal
    first and what it means after it."""
    rows: list[tuple[Any, list[Any]]] = [
        (SWITCH_LABELS["deal"], [value_label("deal", r.deal) for r in PRESETS.values()]),
        (_l("Players / cards each / talon"),
         [f"{r.players} / {r.cards_each} / {r.talon}" for r in PRESETS.values()]),
        (_l("Cards in the pack"), [str(r.pack_size) for r in PRESETS.values()]),
    ]
    for name in SWITCH_ORDER[1:]:
        rows.append((SWITCH_LABELS[name], [value_label(name, getattr(r, name)) for r in PRESETS.values()]))
    return rows


def current_language() -> str:
    """The page's language code (en, it, de, fi, es)."""
    from flask_babel import get_locale

    locale = get_locale() if has_app_context() else None
    return locale.language if locale is not None else "en"


def current_pack() -> str:
    """The pack of the match on the page (italian or french): set on ``g`` when a match is loaded."""
    return str(g.get("pack") or "italian") if has_app_context() else "italian"


def page_words() -> words.Words:
    """The engine's names in the page's language and the match's pack (:class:`scorer.sheets.words.Words`)."""
    from flask_babel import get_translations

    # the catalogue's own gettext, looked up once: Flask-Babel's finds the catalogue for every string
    return words.Words(current_language(), current_pack(), get_translations().gettext)


def card_label(index: int) -> str:
    """A card as a short label on screen, in the page's language and the match's pack: XXI, R♥, CB."""
    return short_name(index, current_language(), current_pack())


def card_title(index: int) -> str:
    """A card's full name in the page's language and pack, e.g. "Cavallo di Coppe"."""
    return page_words().card_title(index)


def card_in_sentence(index: int) -> str:
    """A card's name inside a sentence: English wants "the King of Cups"."""
    return page_words().card_in_sentence(index)


def suit_in_sentence(suit: int) -> str:
    """A suit's name for problem sentences, in the page's language and the match's pack."""
    return page_words().suit_in_sentence(suit)


def problem_text(problem: Any) -> str:
    """A problem's sentence in the page's language, card and suit names in the match's pack."""
    return page_words().problem_text(problem)


WHERE_WORDS = {"record": _l("record"), "file": _l("file"), "text": _l("text")}
"""Places a read error may stand that are not a field of the file: the whole record, the upload,
the pasted text. Fields (``hands[3].points.Anna``) keep the file's own names."""


PLACES = re.compile(r"(hands|tricks|matches|players)\[(\d+)\](?:(?:\.cards)?\[(\d+)\])?")
"""The numbered places of a file's path: a player counts from 1 where the file counts from 0."""


def place_words(where: str) -> str:
    """Where a file's path points, counted as players count: ``hands[6].tricks[3][1]`` is hand 7, trick 4,
    card 2 ("" when the path numbers nothing)."""
    words = {"hands": N_("hand %(n)s"), "tricks": N_("trick %(n)s"), "matches": N_("match %(n)s"),
             "players": N_("player %(n)s")}
    out = []
    for found in PLACES.finditer(where):
        out.append(_(words[found.group(1)], n=int(found.group(2)) + 1))
        if found.group(3) is not None:
            out.append(_("card %(n)s", n=int(found.group(3)) + 1))
    return ", ".join(out)


def read_error_text(exc: ScartoError) -> str:
    """A core error in the page's language, after where it stands: ``hands[0].tricks[0][0] (hand 1, trick 1,
    card 1): 'KX' ...``: the file's path finds the place in the file, the words in the hand's pages."""
    from flask_babel import gettext

    message = render_read(exc.key, exc.params, translate=gettext) if exc.key else exc.message
    if not exc.where:
        return message
    place = place_words(exc.where)
    where = f"{exc.where} ({place})" if place else str(WHERE_WORDS.get(exc.where, exc.where))
    return f"{where}: {message}"


def error_text(exc: ScartoError) -> str:
    """A core error in the page's language: a read error from its template, else its own message."""
    if exc.key:
        return read_error_text(exc)
    message = _(exc.message)
    return f"{exc.where}: {message}" if exc.where else message


def message_text(exc: ScartoError) -> str:
    """A core error's sentence in the page's language, without where it stands in a file: for a form,
    whose fields say where (``players[3]`` means nothing there)."""
    from flask_babel import gettext

    return render_read(exc.key, exc.params, translate=gettext) if exc.key else _(exc.message)


def name_error_text(name: str, exc: ScartoError) -> str:
    """A name's error told with the name as it was typed. A long name is shortened: the message is about
    it, not a copy of it."""
    return named(name, message_text(exc))


def named(name: str, message: str) -> str:
    """A message about one typed name, the name first (quoted, at most 24 characters shown)."""
    name = name.strip()
    shown = name if len(name) <= 24 else name[:23] + "…"
    return _("“%(name)s”: %(problem)s", name=shown, problem=message)


def error_sentence(code: int) -> str:
    """What an error says for its status, in the page's language: on its page and in a JSON answer alike
    (a JSON route answered Werkzeug's English "The requested URL was not found on the server...")."""
    if code == 404:
        return _("There is nothing at this address. Check the link you were given: match links are long and "
                 "must be copied whole.")
    if code == 403:
        return _("This link does not allow that.")
    if code == 413:
        size = (current_app.config.get("MAX_CONTENT_LENGTH") or 0) // (1024 * 1024)
        return _("The file or form is larger than the app accepts (%(size)s MB). A match file is much smaller: "
                 "check you chose the right file.", size=size)
    if code == 405:
        return _("This address cannot be used that way. Use the buttons of the app.")
    if code >= 500:
        return _("Sorry: the app failed on our side. What you entered before this page is safe; try again.")
    return _("The request could not be understood. Go back and try again.")
