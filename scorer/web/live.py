"""The live entry of a hand, as live.js plays it: its settings on the page, its sentences, and the
JSON of a hand being played.

live.js judges nothing: the page gives it the match's players, the ruleset's trick rules as data
(whose turn, who wins a trick), at a duplicate night the cards each seat holds, and the sentences
in the page's language; while the hand is played it posts the tricks to the live check (a route
of :mod:`.hands`), answered by :func:`live_json` from the engine's judgement. Kept out of
:mod:`.hands` so that the blueprint holds the routes and the save path, and this what the live
page is made of.
"""

from __future__ import annotations

from typing import Any

from flask import request, url_for
from flask_babel import gettext as _

from ..engine.cards import CODES, FOOL_INDEX, SUIT, TRUMP
from ..engine.deals import Board
from ..engine.messages import N_
from ..engine.numbers import fraction_text
from ..engine.play import play_state
from ..engine.records import HandRecord
from ..engine.validation import Problem
from ..sheets.words import euphonic
from ..storage import nights as night_store
from ..storage import store
from .db import get_db
from .hands_forms import EntryError, LiveForm
from .labels import PROBLEM_LABELS, card_label, current_language, problem_text
from .match_views import MatchPage


def entry_board(view: MatchPage, hand: store.HandRow | None) -> tuple[str, Board] | None:
    """The duplicate board this entry records (its seed beside), at a duplicate night's table."""
    number = view.next_number if hand is None else store.hand_number(get_db(), hand)
    return night_store.board_of(get_db(), view.row.id, number) if number else None


def live_config(view: MatchPage, form: LiveForm, hand: store.HandRow | None,
                 rotation: str | None) -> dict[str, Any]:
    """What live.js needs, as data on the page (no inline script under our CSP)."""
    rules = form.rules
    try:
        tricks = form.trick_list()
    except EntryError:
        tricks = []
    return {
        "check": url_for("hands.live_check", token=view.token),
        "save": (url_for("hands.edit_hand", token=view.token, key=hand.key) if hand is not None
                 else url_for("hands.new_hand", token=view.token, form="live")),
        "match": url_for("matches.match_page", token=view.token),
        "storage": f"scarto-live:{view.row.id}:{hand.key if hand is not None else 'new'}",
        "players": list(view.record.players),
        "tricks_total": rules.tricks,
        "dealer": form.dealer.data,
        **({"rotation": rotation} if hand is None else {}),  # the dealer by the rotation: live.js asks about another
        "count": form.expected_count.data or "",
        "version": form.version.data or "",
        "entry": tricks,
        "posted": request.method == "POST",
        "edit": hand is not None,
        "rules": _play_rules(rules),
        **_held(view, hand),
    }


def _held(view: MatchPage, hand: store.HandRow | None) -> dict[str, Any]:
    """At a duplicate night, what each seat holds of the board (the dealer the talon too): live.js offers a
    player only their own cards."""
    board = entry_board(view, hand)
    if board is None:
        return {}
    dealt = board[1]
    held = {name: [CODES[c] for c in cards] for name, cards in zip(view.record.players, dealt.hands, strict=True)}
    held[view.record.players[dealt.dealer - 1]] += [CODES[c] for c in dealt.talon]
    return {"held": held, "board": dealt.number}


def _play_rules(rules: Any) -> dict[str, Any]:
    """The engine's trick rules as data, so live.js can say whose turn it is without the server:
    each card's suit and strength (the ruleset's card order, ``Ruleset.strength``), the Fool, who leads first."""
    order = rules.pack_order
    return {"codes": " ".join(CODES[c] for c in order), "suit": [SUIT[c] for c in order],
            "strength": [rules.strength[c] for c in order],
            "trump": TRUMP, "fool": CODES[FOOL_INDEX], "first_lead": rules.first_lead}


TURN = N_("Trick %(n)s: %(name)s to play")
OUT_OF_TURN = N_("%(rotation)s deals this hand by the rotation: save with %(dealer)s?")
"""Asked before a new hand is saved with a dealer other than the rotation's (the page, live.js, cards.js)."""


def live_texts(players: tuple[str, ...] = (), *, new_hand: bool = True) -> dict[str, Any]:
    """The sentences live.js shows, translated; it fills in the %(...)s placeholders itself.

    ``N_`` marks the sentences for extraction: ``js`` translates them. ``turn_by``: whose turn it is
    for the players whose name changes the sentence around it ("tocca ad %(name)s" for Anna in
    Italian, :func:`scorer.sheets.words.euphonic`). The name stays a placeholder there, filled in by
    live.js in the same single pass as the trick's number: a name filled in here would be read again
    by that pass, and a player called "a%(n)s" would become "a3".
    """
    def js(text: str, *names: str) -> str:
        return _(text, **{name: f"%({name})s" for name in names})

    turn = js(TURN, "n", "name")
    language = current_language()
    turn_by: dict[str, str] = {}
    for player in players:
        stand_in = player[:1] + "\ue000"  # the euphony looks at the first letter only; no text has this mark
        filled = turn.replace("%(name)s", stand_in)
        if (said := euphonic(language, filled, [stand_in])) != filled:
            turn_by[player] = said.replace(stand_in, "%(name)s")
    return {
        "turn": turn,
        "turn_by": turn_by,
        "leads": js(N_("Trick %(n)s: %(name)s leads"), "n", "name"),
        "waiting": js(N_("Trick %(n)s"), "n"),
        "wins": js(N_("%(name)s wins"), "name"),
        "flag": js(N_("%(label)s in trick %(n)s: see below the cards"), "label", "n"),
        "flag_hand": js(N_("%(label)s: see below the cards"), "label"),
        "complete": js(N_("All %(n)s tricks played."), "n"),
        "discard": js(N_("Dealer's discard (the cards not played): %(cards)s"), "cards"),
        "offline": _("Not checked yet: no connection. Your entry is kept on this phone."),
        "restored": _("Your unsaved entry on this phone was brought back."),
        "stale": _("This unfinished entry was started before another hand was saved. If it is that hand, "
                   "start over; if not, save it and the app will say what was saved meanwhile."),
        "start_over": _("Throw away the tricks entered and start over?"),
        "saving": _("Saving…"),
        **({"save_as": js(N_("Save as hand %(n)s"), "n"),  # a new hand's only: a page that changes one
            "out_of_turn": js(OUT_OF_TURN, "rotation", "dealer")} if new_hand else {}),  # stays under its weight
        "not_saved": _("Not saved: no connection. Your entry is kept on this phone; try again."),
        "saved_now": js(N_("Now saved as hand %(n)s, dealt by %(dealer)s"), "n", "dealer"),
        "score": js(N_("%(name)s: %(points)s card points, score %(score)s"), "name", "points", "score"),
        "undo_empty": _("Nothing to undo."),
        "refused": js(N_("The app refused this (error %(status)s): reload the page. Your entry is kept on "
                         "this phone."), "status"),
    }


# --- the live check -----------------------------------------------------------------


def live_json(record: HandRecord) -> dict[str, Any]:
    """What the live page shows for a hand being played (:func:`scorer.engine.play.play_state`), as JSON."""
    state = play_state(record)
    players = record.players
    out: dict[str, Any] = {
        "entered": [[CODES[c] for c in t.cards] for t in record.tricks or ()],
        "problems": [problem_json(p) for p in state.problems],
        "errors": state.errors,
        "complete": state.complete,
        "tricks": [],
        "turn": None if state.turn is None else players[state.turn],
        "leader": None if state.leader is None or state.complete else players[state.leader],
        "remaining": [CODES[c] for c in state.remaining],
        "discard": [],
        "scores": None,
        "can_save": state.can_save,
    }
    replay = state.replay
    if replay is None:
        return out
    out["tricks"] = [
        {"number": t.number, "leader": players[t.leader], "players": [players[s] for s in t.seats],
         "cards": [CODES[c] for c in t.cards],
         "winner": None if (w := state.winner(t.number)) is None else players[w]}
        for t in replay.tricks
    ]
    result = state.result
    if result is not None and result.counts is not None:
        out["discard"] = [CODES[c] for c in replay.discard]
        out["scores"] = [{"name": c.name, "card_points": fraction_text(c.card_points), "score": fraction_text(c.score)}
                         for c in result.counts]
    return out


def problem_json(problem: Problem) -> dict[str, Any]:
    """The result format's problem, told in the page's language, with the labels the page shows."""
    out = problem.to_dict() | {"label": str(PROBLEM_LABELS.get(problem.code, problem.code)),
                               "message": problem_text(problem)}
    if problem.trick is not None:  # the page points at the trick even where the file format says none
        out["trick"] = problem.trick
    if problem.card is not None:
        out["card_label"] = card_label(problem.card)
    if problem.proof_trick is not None:
        out["proof_trick"] = problem.proof_trick
    return out
