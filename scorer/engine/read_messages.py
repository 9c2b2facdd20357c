"""The sentences read errors are told in (a file or a form that cannot be used), and ``N_``.

Apart from :mod:`.messages` (the rule problems, which name cards) so that
:mod:`.errors` can tell a read error without importing the cards, whose parser raises
read errors: no import cycle. :mod:`.messages` re-exports everything here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def N_(text: str) -> str:
    """Mark a string for the translation catalogue without translating it here."""
    return text


READ_TEMPLATES: dict[str, str] = {
    "ruleset.kind": N_("must be a preset name or an object of switches"),
    # TRANSLATORS: %(name)s is a switch name as written in the file; keep it as it is.
    "ruleset.switch": N_("%(name)s is not a switch (switches: %(known)s)"),
    # TRANSLATORS: %(name)s is a switch name and %(shown)s its values, as written in files; keep them.
    "ruleset.value": N_("%(value)s is not a value of %(name)s (use %(shown)s)"),
    # TRANSLATORS: %(known)s lists the preset names as written in files; keep them.
    "ruleset.preset": N_("%(name)s is not a preset (presets: %(known)s)"),
    "json.lone_surrogate": N_("not text: holds an escaped lone surrogate (\\ud800-\\udfff)"),
    "json.not_utf8": N_("not UTF-8 text"),
    "json.syntax": N_("not JSON (%(reason)s at line %(line)s, column %(column)s)"),
    "json.too_deep": N_("not JSON (nested too deeply)"),
    "json.long_number": N_("not usable JSON (a number with too many digits)"),
    "record.not_object": N_("must be a JSON object, not %(kind)s"),
    "record.format": N_("%(given)s is not a format this reads (expected %(expected)s)"),
    "record.hands": N_("must be a list of hand records"),
    # TRANSLATORS: tricks, captured, honours, sizes and points are the names of fields in the file: keep them.
    "record.no_body": N_("a hand needs exactly one of tricks, captured, honours (with sizes) or points; "
                         "found none"),
    # TRANSLATORS: tricks, captured, honours, sizes and points are the names of fields in the file: keep them.
    "record.bodies": N_("a hand needs exactly one of tricks, captured, honours (with sizes) or points; "
                        "found %(found)s"),
    "record.no_dealer": N_("missing: every hand names its dealer"),
    "players.not_list": N_("must be a list of player names in seating order"),
    "players.empty_name": N_("a player name must be non-empty text"),
    "players.control": N_("%(name)s holds a tab, a line break or another control character; a name is one line"),
    "players.named_twice": N_("%(name)s is named twice; names must be unique"),
    "players.count": N_("%(count)s players given; %(preset)s is played by %(players)s"),
    "player.not_text": N_("must be a player's name, not %(kind)s"),
    "player.unknown": N_("%(name)s is not one of the players (%(players)s)"),
    "by_player.not_object": N_("must be an object keyed by player name, not %(kind)s"),
    "by_player.twice": N_("%(name)s appears twice"),
    "by_player.missing": N_("every player must be named; missing %(missing)s"),
    "card.not_text": N_("%(value)s is not a card code"),
    "card.unknown": N_("%(text)s is not a card"),
    "cards.not_list": N_("must be a list of card codes, not %(kind)s"),
    "cards.not_in_pack": N_("%(code)s is not in the %(preset)s pack"),
    "tricks.not_list": N_("must be a list of tricks, not %(kind)s"),
    # TRANSLATORS: cards and leader are the names of fields in the file: keep them.
    "trick.not_object": N_("must be an object with cards (and optionally leader), not %(kind)s"),
    # TRANSLATORS: cards and leader are the names of fields in the file: keep them.
    "trick.no_cards": N_("missing cards"),
    "sizes.missing": N_("missing: honours go with the number of cards in each pile"),
    "sizes.not_whole": N_("must be a whole number of cards, not %(value)s"),
    "points.not_a_number": N_('%(value)s is not a number of points (use e.g. 31 or "58/3")'),
    "points.negative": N_("%(value)s is negative; counted points are never below zero"),
    "field.not_text": N_("must be text, not %(kind)s"),
    "field.not_whole": N_("must be a whole number from 1, not %(value)s"),
    "field.choice": N_("%(value)s is not one of %(allowed)s"),
    # TRANSLATORS: JSON as the file must hold it: keep it as it is.
    "end.shape": N_('must be {"hands": N} or {"target": N}'),
    # TRANSLATORS: JSON as the file must hold it: keep it as it is.
    "stake.shape": N_('must be {"per_point": "0.10", "currency": "EUR"}'),
    "stake.amount": N_('must be a decimal amount such as "0.10"'),
    "stake.not_money": N_("%(value)s is not an amount of money"),
    "stake.currency": N_("must be a currency code such as EUR"),
}
"""The sentences read errors are told in, each after where it stands in the file
(``hands[3].points.Anna: ...``). Values quoted from the input (a card code that is none, a
number that is not one) come in as parameters, already quoted as the file wrote them."""

KINDS: dict[str, str] = {
    "null": N_("null"),
    "bool": N_("true/false"),
    "number": N_("a number"),
    "text": N_("text"),
    "list": N_("a list"),
    "object": N_("an object"),
}
"""What a JSON value is, for ``%(kind)s`` ("must be a list, not text"); other kinds keep their name."""


def render_read(key: str, params: Mapping[str, Any], *, translate: Callable[[str], str] = N_) -> str:
    """A read error's sentence: the template (translated) filled with the parameters, the kind of value named."""
    values = dict(params)
    kind = values.get("kind")
    if isinstance(kind, str) and kind in KINDS:
        values["kind"] = translate(KINDS[kind])
    return translate(READ_TEMPLATES[key]) % values
