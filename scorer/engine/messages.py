"""The sentences problems and read errors are told in, one template per kind, with named parameters.

This module imports nothing of the engine (errors and validation import it), so the
reading of cards, which raises errors told from these templates, makes no import cycle.
The core writes them in English; the web layer looks the same template up in its
translation catalogue (``N_`` marks the strings for extraction) and fills in card
and suit names in the page's language and pack. One table, so the English file
output and the translated pages can never say different things.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any


def N_(text: str) -> str:
    """Mark a string for the translation catalogue without translating it here."""
    return text


TEMPLATES: dict[str, str] = {
    "duplicate_card.tricks": N_("%(Card)s (%(code)s) is in trick %(first)s and again in trick %(second)s: a card "
                                "is played once."),
    "duplicate_card.trick": N_("%(Card)s (%(code)s) is twice in trick %(first)s."),
    "duplicate_card.trick_discard": N_("%(Card)s (%(code)s) is in trick %(first)s and in the discard: a card "
                                       "discarded is not played."),
    "duplicate_card.discard": N_("%(Card)s (%(code)s) is twice in the discard."),
    "duplicate_card.piles": N_("%(Card)s (%(code)s) is in %(first)s's pile and in %(second)s's: take it out of "
                               "one."),
    "duplicate_card.pile": N_("%(Card)s (%(code)s) is twice in %(first)s's pile."),
    "card_count.unplayed": N_("%(count)s cards of the pack appear in no trick; only the dealer's %(talon)s "
                              "discards may be missing from the tricks."),
    "card_count.discard_size": N_("The discard has %(count)s cards; the dealer discards exactly %(talon)s."),
    "card_count.missing": N_("%(Card)s (%(code)s) is missing from the record."),
    "card_count.no_pile": N_("%(Card)s (%(code)s) is in no pile."),
    "card_count.sizes_total": N_("The pile sizes add up to %(total)s cards; the pack has %(pack)s."),
    "trick_count.cards": N_("Trick %(trick)s has %(count)s cards; each trick has one card from each of the "
                            "%(players)s players."),
    "trick_count.tricks": N_("The record has %(count)s tricks; a %(preset)s hand has %(tricks)s."),
    "wrong_leader.first": N_("Trick %(trick)s is recorded as led by %(player)s, but %(leader)s must lead it "
                             "(the first lead)."),
    "wrong_leader.winner": N_("Trick %(trick)s is recorded as led by %(player)s, but %(leader)s must lead it "
                              "(the winner of trick %(previous)s)."),
    "points_total": N_("The counted points add up to %(total)s; the %(preset)s pack counts %(deck)s in all. "
                       "Recount the piles."),
    "pile_sizes.dealer": N_("%(name)s's pile has %(size)s cards, fewer than the %(talon)s the dealer "
                            "discarded into it."),
    "pile_sizes.shape": N_("No legal hand leaves piles of these sizes (%(sizes)s): apart from the dealer's "
                           "discards and the Fool's exchange, every pile holds whole tricks of %(players)s cards."),
    "pile_sizes.honours": N_("%(name)s's pile is given %(size)s cards but holds %(count)s counting cards."),
    "ultimo_claim.bagatto": N_("%(player)s is named as winning the last-trick bonus, but %(player)s's pile "
                               "does not hold the Bagatto."),
    "ultimo_claim.bagatto_or_fool": N_("%(player)s is named as winning the last-trick bonus, but %(player)s's "
                                       "pile holds neither the Bagatto nor the Fool."),
    "ultimo_claim.fool_forfeited": N_("%(player)s is named as winning the last-trick bonus, but %(player)s won "
                                      "no trick: the Fool went to %(name)s."),
    "illegal_discard.king": N_("%(player)s (dealer) discarded %(card)s: a King may never be discarded."),
    "illegal_discard.angel": N_("%(player)s (dealer) discarded %(card)s: the Angel (XX) may never be "
                                "discarded."),
    "illegal_discard.world": N_("%(player)s (dealer) discarded %(card)s: under these rules the World (XXI) "
                                "may not be discarded."),
    "illegal_discard.fool": N_("%(player)s (dealer) discarded %(card)s: the Fool may not be discarded."),
    "illegal_discard.fool_holding_trump": N_("%(player)s (dealer) discarded %(card)s: the Fool may be "
                                             "discarded only by a dealer who holds no trump at all."),
    "illegal_discard.bagatto_never": N_("%(player)s (dealer) discarded %(card)s: under these rules the Bagatto "
                                        "may never be discarded."),
    "illegal_discard.bagatto_classic": N_("%(player)s (dealer) discarded %(card)s: the Bagatto may be discarded "
                                          "only when the dealer holds no other trump and not the Fool."),
    "illegal_discard.bagatto_rulesheet": N_("%(player)s (dealer) discarded %(card)s: the Bagatto may be "
                                            "discarded only when the dealer holds no other trump."),
    "revoke.trump": N_("Trick %(trick)s: %(player)s played %(card)s to a trump lead while holding a trump "
                       "(%(player)s plays %(proof_card)s in trick %(proof_trick)s)."),
    "revoke.suit": N_("Trick %(trick)s: %(player)s played %(card)s to a %(suit)s lead while holding a card of "
                      "%(suit)s (%(player)s plays %(proof_card)s in trick %(proof_trick)s)."),
    "failed_to_trump": N_("Trick %(trick)s: %(player)s had no %(suit)s but played %(card)s instead of a trump "
                          "while holding one (%(player)s plays %(proof_card)s in trick %(proof_trick)s)."),
    "failed_to_overtrump": N_("Trick %(trick)s: %(player)s played %(card)s, lower than the trump already in the "
                              "trick, while holding a higher trump (%(player)s plays %(proof_card)s in trick "
                              "%(proof_trick)s)."),
}

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
    # TRANSLATORS: %(name)s is NaN, Infinity or -Infinity as written in the file; keep it.
    "json.constant": N_("not JSON (%(name)s is not a JSON number)"),
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
    "name.empty": N_("the name is empty: write one"),
    "players.control": N_("%(name)s holds a tab, a line break or another control character; a name is one line"),
    "players.invisible": N_("%(name)s shows nothing: it is made only of invisible characters; write a name that "
                            "can be read"),
    "players.format": N_("%(name)s holds an invisible formatting character (%(char)s: a mark of text direction, a "
                         "soft hyphen or the like), so it would look like another name: remove it"),
    "players.too_long": N_("a name is at most %(most)s characters; this one has %(length)s"),
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
    "points.decimal": N_("%(value)s is a decimal: points come in whole numbers or thirds; write %(third)s"),
    "points.negative": N_("%(value)s is negative; counted points are never below zero"),
    "field.not_text": N_("must be text, not %(kind)s"),
    "text.control": N_("holds a control character (%(char)s), a tab or a line break: this text is one line of "
                       "what can be seen, remove it"),
    "text.control_lines": N_("holds a control character (%(char)s): only line breaks and tabs may stand between "
                             "the words here, remove it"),
    "field.not_whole": N_("must be a whole number from 1, not %(value)s"),
    "field.not_number": N_("%(value)s is not a number this can hold"),
    "field.choice": N_("%(value)s is not one of %(allowed)s"),
    # TRANSLATORS: JSON as the file must hold it: keep it as it is.
    "end.shape": N_('must be {"hands": N} or {"target": N}'),
    # TRANSLATORS: JSON as the file must hold it: keep it as it is.
    "stake.shape": N_('must be {"per_point": "0.10", "currency": "EUR"}'),
    "stake.amount": N_('must be a decimal amount such as "0.10"'),
    "stake.not_money": N_("%(value)s is not an amount of money"),
    "stake.currency": N_("must be a currency code such as EUR"),
    # a duplicate session's file (docs/DUPLICATE.md)
    "duplicate.tables": N_("must be a list of the session's tables, each with its round, table, players and hands"),
    "duplicate.players": N_("must be a list of the table's 3 or 4 players in seat order"),
    "duplicate.hands": N_("must be a list of the boards the table played, each {\"board\": N, \"hand\": ...}"),
    "duplicate.board": N_("board %(board)s; the session deals %(boards)s boards"),
    "duplicate.seats": N_("the hand's players are not the table's players in seat order"),
    "duplicate.deal": N_("the hand is played with the %(deal)s deal; this table plays the %(table)s deal's boards"),
    "duplicate.dealer": N_("board %(board)s is dealt by seat %(seat)s (%(name)s), not by %(given)s"),
    "duplicate.card": N_("board %(board)s: %(card)s was dealt to seat %(seat)s (%(name)s), not to %(player)s: "
                         "check the card or the board"),
    "duplicate.talon_card": N_("board %(board)s: %(card)s was in the talon, which the dealer takes, not "
                               "%(player)s: check the card or the board"),
    "duplicate.round_boards": N_("a night's round %(number)s plays boards %(first)s to %(last)s, hand by hand in that "
                                 "order; this table does not"),
    "duplicate.twice": N_("%(name)s plays board %(board)s twice; each player plays a board once"),
    "duplicate.other_set": N_("this file plays the deal set %(seed)s (%(deal)s), not %(first_seed)s (%(first_deal)s): "
                              "only files of one deal set rank together"),
    "duplicate.other_scoring": N_("this file scores by %(scoring)s, the first by %(first)s: rank files of one "
                                  "scoring together"),
    # the limits of scorer/engine/limits.py (docs/LIMITS.md)
    "limit.text": N_("%(length)s characters long; at most %(limit)s are allowed here: shorten it"),
    "limit.hands": N_("%(count)s hands; a match holds at most %(limit)s: split it into matches of %(limit)s "
                      "hands or fewer"),
    "limit.end_hands": N_("a match may be set to end after at most %(limit)s hands"),
    "limit.end_target": N_("a match's target score is at most %(limit)s"),
    "limit.tricks": N_("%(count)s tricks; a hand has at most %(limit)s"),
    "limit.cards": N_("%(count)s cards in one list; the pack has 78"),
    "limit.seasons": N_("%(count)s seasons; a club keeps at most %(limit)s: delete the old ones"),
    "limit.club_matches": N_("%(count)s matches; a club holds at most %(limit)s: start a new club for the next "
                             "ones"),
    "limit.club_hands": N_("%(count)s hands in the club's matches; a club file holds at most %(limit)s: "
                           "leave the oldest matches out"),
    "seed.empty": N_("a deal set needs a seed: a word or a number, such as the day's date"),
    "limit.boards": N_("%(count)s boards; a deal set has at most %(limit)s: play the rest from a new seed"),
    "limit.tables": N_("%(count)s tables; a session file holds at most %(limit)s: split it by rounds"),
    "limit.roster": N_("%(count)s players; a club's roster holds at most %(limit)s: merge the entries that are "
                       "one person"),
    # the hand review (docs/REVIEW.md)
    # TRANSLATORS: tricks is a field of the file, %(found)s a record's form (captured, honours, points): keep them.
    "analysis.form": N_("a review needs the full trick record (tricks), not %(found)s"),
    # TRANSLATORS: %(code)s is an error's code, as written in results: keep it.
    "analysis.errors": N_("the record has errors (the first: %(code)s); a hand is reviewed only once it can be "
                          "scored"),
    "analysis.trick": N_("%(value)s is not a trick of the hand: a %(preset)s hand has tricks 1 to %(count)s"),
    # a club's file in parts (docs/CLUB.md)
    "part.form": N_('write it as {"file": ..., "number": N, "of": M, "first_match": K}, as the app wrote it: '
                    'whole numbers from 1, part 1 beginning with match 1'),
    "part.extra": N_("a later part of a club's file holds only its matches (the club its part 1 made has the "
                     "rest): take the parts as the app wrote them"),
    "part.not_first": N_("this is part %(number)s of %(of)s of a club's file: open part 1 as a club, then add "
                         "this part on that club's file page"),
    "part.whole": N_("this is a whole club's file, not a part of one: open it as a new club"),
    "part.first": N_("part 1 makes a club: open it as a club file, and add only the parts after it here"),
    "part.other_club": N_("this part is of another club's file (%(name)s): add it to the club opened from "
                          "that file's part 1"),
    "part.again": N_("the club has part %(number)s already: add part %(next)s"),
    "part.early": N_("this is part %(number)s: add part %(next)s first"),
    "part.cut": N_("this part begins with match %(first)s, and the parts before it ended with match %(last)s: "
                   "take every part from the same download of the club's file"),
    # a club's file and a night (docs/CLUB.md, docs/NIGHT.md)
    "date.form": N_("Write the date as YYYY-MM-DD."),
    "club.defaults": N_("A club keeps only these defaults: language, pack, ruleset, end, settle, stake."),
    "club.seasons": N_("Write the seasons as a list."),
    "club.season_backwards": N_("The season ends before it begins."),
    "season.ranking": N_("Write the season's ranking as {\"best\": N, \"of\": \"matches\"} or {\"best\": N, "
                         "\"of\": \"nights\"}, N a whole number from 1 to %(most)s (leave it out to rank by the "
                         "total)."),
    "club.roster_map": N_("A match's roster maps names of its players to roster names."),
    "club.same_player": N_("Two seats of the match are the same roster player."),
    "club.history": N_("Write the history as a list of objects, each with \"at\" and \"event\"."),
    "night.rounds": N_("Write the number of rounds as a whole number from 1 to 10."),
    "night.hands_per_round": N_("Write the hands per round as a whole number from 1 to 30."),
    "night.boards_per_round": N_("Write the boards per round as a whole number from 1 to 30."),
    "night.crowd": N_("A night may have at most 60 players."),
    "night.few": N_("A night needs at least 3 players present."),
    "night.seating": N_('Seating is "mixed" or "ranking".'),
    "night.ranking": N_('Ranking is "total" or "placings".'),
    "night.seed": N_("The seed is a whole number from 0 up."),
    "night.ruleset": N_("A night's rules are for three players; tables of four play the four deal."),
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

JSON_REASONS: dict[str, str] = {
    "Expecting value": N_("a value expected"),
    "Expecting property name enclosed in double quotes": N_("a name in double quotes expected"),
    "Expecting ':' delimiter": N_("a colon expected"),
    "Expecting ',' delimiter": N_("a comma expected"),
    "Extra data": N_("more after the end"),
    "Unterminated string starting at": N_("text not closed by a double quote"),
    "Invalid control character at": N_("a tab or line break inside text"),
    "Invalid \\escape": N_("a backslash that escapes nothing"),
    "Invalid \\uXXXX escape": N_("a \\u not followed by four hexadecimal digits"),
}
"""Python's words for a JSON syntax error (``%(reason)s``), told in the reader's language; others as they are."""

CARD_PARAMS = ("card", "proof_card")
"""Parameters holding a card index: named in the reader's language and pack."""
SUIT_PARAMS = ("suit",)
"""Parameters holding a suit number (1 cups ... 4 swords)."""

ENGLISH_SUITS = {0: "trumps", 1: "Cups", 2: "Coins", 3: "Batons", 4: "Swords"}


def render(
    key: str,
    params: Mapping[str, Any],
    *,
    name_card: Callable[[int], str],
    card_code: Callable[[int], str],
    translate: Callable[[str], str] = N_,
    name_suit: Callable[[int], str] = ENGLISH_SUITS.__getitem__,
    show_number: Callable[[Fraction], str] = str,
) -> str:
    """A problem's sentence: the template (translated) filled with the parameters (named).

    Cards come as indices: ``name_card`` names one in the reader's language and pack,
    ``card_code`` gives its code (the engine's English sentences pass
    ``cards.card_name`` and the codes). Numbers are shown by ``show_number`` (``str``
    writes a fraction as a file does, ``58/3``).
    """
    values: dict[str, Any] = {}
    for name, value in params.items():
        if name in CARD_PARAMS and isinstance(value, int):
            values[name] = name_card(value)
            if name == "card":
                named = name_card(value)
                values["Card"] = named[:1].upper() + named[1:]
                values["code"] = card_code(value)
        elif name in SUIT_PARAMS and isinstance(value, int):
            values[name] = name_suit(value)
        elif isinstance(value, Fraction):
            values[name] = show_number(value)
        else:
            values[name] = value
    return translate(TEMPLATES[key]) % values


def render_read(key: str, params: Mapping[str, Any], *, translate: Callable[[str], str] = N_) -> str:
    """A read error's sentence: the template (translated) filled with the parameters, the kind of value named."""
    values = dict(params)
    kind = values.get("kind")
    if isinstance(kind, str) and kind in KINDS:
        values["kind"] = translate(KINDS[kind])
    reason = values.get("reason")
    if isinstance(reason, str) and reason in JSON_REASONS:
        values["reason"] = translate(JSON_REASONS[reason])
    return translate(READ_TEMPLATES[key]) % values
