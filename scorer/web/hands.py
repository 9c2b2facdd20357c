"""Recording hands: counted points, captured cards, counting cards, or the full record live.

Every entry goes through the engine before it is stored, on one path: the form
makes an in-match hand value (live.js's card codes stay codes; only typed text goes
through the name matcher), the engine reads it once and judges it once, and the
store writes it once (with who led each trick, from that judgement). A record with
errors is refused with the engine's messages; one with violations (a revoke...) is
saved only when the table confirms, because the table decides. The page carries how
many hands (or which version) the phone saw, so a hand saved from another phone
meanwhile is a 409 that keeps what was typed. What the live page is made of (live.js's
settings, its sentences, the JSON of a hand being played) is in :mod:`.live`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import HTTPException

from ..engine.cards import CODES, SUIT
from ..engine.duplicate import check_play
from ..engine.errors import ScartoError
from ..engine.limits import MAX_CHECK_BYTES, MAX_HANDS, MAX_HANDS_KEPT, MAX_TRICKS_TEXT
from ..engine.numbers import fraction_text
from ..engine.records import HandRecord, hand_to_dict, parse_hand
from ..engine.rulesets import find_ruleset
from ..engine.scoring import HandResult, score_hand
from ..engine.validation import Problem
from ..storage import store
from .db import get_db
from .forms import entry_key
from .hands_forms import FORM_OF_BODY, FORMS, EntryError, HandForm, LiveForm, tricks_from_codes, tricks_from_text
from .jsonio import json_fields, posted_json
from .labels import (
    PROBLEM_LABELS,
    card_label,
    card_title,
    current_language,
    message_text,
    read_error_text,
)
from .live import OUT_OF_TURN, entry_board, live_config, live_json, live_texts, problem_json
from .match_views import MatchPage, match_page_view
from .page_cache import Slot, SlotValue, cached_page, slot
from .tokens import MATCH, load_by_token

bp = Blueprint("hands", __name__)

SUIT_CLASS = ("t", "c", "d", "b", "s", "m")
"""CSS class suffix per suit number (trumps, cups, coins, batons, swords, the Fool)."""


@dataclass(frozen=True)
class Saved:
    """A stored hand as the table sees it: its number, dealer and scores."""

    number: int
    dealer: str
    scores: list[tuple[str, str]]
    problems: list[Problem]
    deleted: bool = False


@dataclass(frozen=True)
class Outcome:
    """Why a submitted entry was not saved, for the page (or the JSON answer)."""

    status: int
    messages: list[str]
    problems: tuple[Problem, ...] = ()
    field: str | None = None
    confirm: bool = False
    conflict: Saved | None = None
    rotation: str | None = None
    """The dealer by the rotation, when the one tapped is another: the table is asked before saving."""
    next_dealer: str | None = None
    """After another phone saved a hand: who deals the hand this one becomes, by the rotation."""


# --- pages --------------------------------------------------------------------------


@bp.route("/m/<token>/hands/new/<form>", methods=["GET", "POST"])
def new_hand(token: str, form: str) -> Any:
    """Record the next hand: points, cards, honours or live (the dealer from the rotation)."""
    if form not in FORMS:
        abort(404)
    if request.method in ("GET", "HEAD"):  # HEAD: the page's headers, not a refused save
        view = match_page_view(token, edit=True, lines=0)
        # the same empty form from hand to hand: cached, the hand's number, count and dealer in its slots
        board = entry_board(view, None)  # a duplicate table's next board: the live page offers its cards
        return cached_page(("entry", token, form, current_language(), _settings_key(view.row),
                            store.engine_version(), board[1].number if board else None),
                           lambda: _empty_page(view, form), _next_hand(view))
    view = match_page_view(token, edit=True, lines=0)  # what the form needs, whatever the match's length
    return _save(view, _form(FORMS[form], view), None)


@bp.route("/m/<token>/hands/<key>/edit", methods=["GET", "POST"])
def edit_hand(token: str, key: str) -> Any:
    """Change a recorded hand in the form it was recorded in (a new revision)."""
    view = match_page_view(token, edit=True, lines=0)
    hand = _hand(view, key)
    entry = _form(FORMS[FORM_OF_BODY[hand.parsed.form]], view)
    if hand.deleted_at is not None:
        return _hand_page(view, hand, status=409, notice=_(
            "This hand is deleted: bring it back from its history before changing it."))
    if request.method in ("GET", "HEAD"):
        entry.fill(hand.record)
        entry.version.data = str(hand.version)
        return _page(view, entry, hand)
    return _save(view, entry, hand)


@bp.get("/m/<token>/hands/<key>/")
def hand_page(token: str, key: str) -> Any:
    """One hand: its scores, the count a player can check, its problems, the standings after it."""
    view = match_page_view(token, lines=0)
    return _hand_page(view, _hand(view, key))


@bp.post("/m/<token>/hands/live/check")
def live_check(token: str) -> Any:
    """Judge a hand still being played: problems provable so far, winners, whose turn, cards left."""
    if (request.content_length or 0) > MAX_CHECK_BYTES:  # a hand's tricks: never megabytes to read
        return {"error": _("The tricks sent are larger than %(limit)s KB: no hand has that many cards.",
                           limit=MAX_CHECK_BYTES // 1024)}, 413
    request.max_content_length = MAX_CHECK_BYTES  # a streamed body is cut there
    try:
        row, _can_edit = load_by_token(MATCH, token, edit=True)
    except HTTPException as exc:  # live.js reads JSON: say it in JSON
        message = exc.description if exc.code == 403 else _("There is no match at this address.")
        return {"error": message}, exc.code or 404
    body = posted_json()
    if not isinstance(body, dict):
        return {"error": _("The app sent something it cannot read: reload the page.")}, 400
    players = tuple(row.players)
    dealer = body.get("dealer")
    if not isinstance(dealer, str) or dealer not in players:
        return {"error": _("Choose who dealt this hand.")}, 400
    try:
        rules = find_ruleset(row.settings.get("ruleset"))
        value = body.get("tricks")
        if isinstance(value, str) and len(value) > MAX_TRICKS_TEXT:
            raise EntryError("tricks", _("The tricks sent are longer than %(limit)s characters: no hand has "
                                         "that many cards.", limit=MAX_TRICKS_TEXT))
        tricks = tricks_from_text(value, rules) if isinstance(value, str) else tricks_from_codes(value)
        record = parse_hand(store.hand_record_data(row, {"dealer": dealer,
                                                         "tricks": [{"cards": t} for t in tricks]}))
    except EntryError as exc:
        return {"error": exc.message}, 400
    except ScartoError as exc:  # the tricks as a whole (too many): the sentence, not the file's "tricks:"
        return {"error": message_text(exc) if exc.where == "tricks" else read_error_text(exc)}, 400
    return live_json(record)


# --- the entry forms ----------------------------------------------------------------


def _form(cls: type[HandForm], view: MatchPage) -> HandForm:
    """The entry form for this match, read from the posted form or from live.js's JSON."""
    formdata = _formdata() if request.method == "POST" else None
    form = cls(formdata=formdata)
    form.setup(view.record.players, view.record.ruleset)
    form.unreadable = formdata is not None and "_bad" in formdata
    if isinstance(form, LiveForm) and request.method == "POST" and request.is_json:
        body = posted_json()
        if isinstance(body, dict) and isinstance(body.get("tricks"), list):
            form.codes = body["tricks"]  # live.js's card codes, read as codes (not as typed text)
    return form


def _formdata() -> Any:
    """The posted fields; live.js posts the same fields as JSON (tricks as lists of codes)."""
    if not request.is_json:
        return request.form
    body = posted_json()
    if not isinstance(body, dict):
        return MultiDict({"_bad": "1"})
    codes = isinstance(body.get("tricks"), list)  # live.js's card codes, read by LiveForm.trick_list (see _form)
    return json_fields({k: v for k, v in body.items() if not (codes and k == "tricks")})


def _save(view: MatchPage, form: HandForm, hand: store.HandRow | None) -> Any:
    """Check the entry through the core and store it, or say why not (keeping what was typed)."""
    outcome, data, result = _judge(view, form, hand)
    if outcome is not None:
        return _refused(view, form, hand, outcome)
    assert data is not None and result is not None
    db = get_db()
    try:
        expected = form.int_field("expected_count")
        entry = _entry(form, data)  # a retry after a lost answer finds its hand stored: answered alike
        if hand is None:
            saved = store.add_hand(db, view.row.id, data, expected_count=expected, result=result, entry=entry)
        else:
            saved = store.update_hand(db, view.row.id, hand.key, data, expected_version=form.int_field("version"),
                                      entry=entry)
    except store.Conflict as exc:
        return _refused(view, form, hand, _conflict(view, form, hand, exc))
    except store.KeyReused as exc:
        return _refused(view, form, hand, _key_reused(view, form, hand, exc.done))
    except store.MatchKeepsAll:  # the form, what was typed in it kept, saying why (not the bare error page)
        return _refused(view, form, hand, Outcome(400, [_(
            "This match keeps %(limit)s hands with its deleted ones, as many as a match keeps: start a new match "
            "for the next hands.", limit=MAX_HANDS_KEPT)]))
    except EntryError as exc:
        return _refused(view, form, hand, Outcome(400, [exc.message], field=exc.field))
    except store.NotFound:
        abort(404)
    number = store.hand_number(db, saved) or view.next_number  # a retry answered as its first save was
    message = _saved_message(number, result, edited=hand is not None)
    if hand is None and view.table.finished:  # listed, but the match had ended: said where the table reads it
        message += " " + _("The match was over: this hand counts for nothing.")
    if ("message", message) not in session.get("_flashes", []):  # a retry whose first answer was lost: once
        flash(message)
    target = url_for("matches.match_page", token=view.token)
    if request.is_json:
        return {"saved": True, "url": target, "hand_url": url_for(".hand_page", token=view.token, key=saved.key),
                "message": message}
    return redirect(target)


def _check_board(view: MatchPage, record: HandRecord, hand: store.HandRow | None) -> None:
    """At a duplicate night the board was dealt by the app: a hand dealt by another seat, or telling of a card
    a seat did not hold, is refused with the engine's sentence naming the card and the seat that held it."""
    board = entry_board(view, hand)
    if board is not None:
        check_play(record, board[0], board[1].number, "")


def _judge(view: MatchPage, form: HandForm, hand: store.HandRow | None
           ) -> tuple[Outcome | None, dict[str, Any] | None, HandResult | None]:
    """The record the form describes, checked: (why not, None, None) or (None, record, result)."""
    if form.unreadable:
        return Outcome(400, [_("The app sent something it cannot read: reload the page.")]), None, None
    if hand is None and view.count >= MAX_HANDS:
        return Outcome(400, [_("This match has %(limit)s hands, as many as a match holds: start a new match "
                               "for the next hands.", limit=MAX_HANDS)]), None, None
    if not form.validate():
        messages = [f"{field.label.text}: {e}" if field.label.text else str(e)
                    for field in form if field.errors for e in field.errors]
        return Outcome(400, messages or [_("The form could not be read: reload the page.")]), None, None
    if hand is None and request.form.get("dealer_by_rotation"):  # "Save with Anna", the rotation's dealer
        form.dealer.data = view.table.next_dealer
    try:
        if hand is None and form.int_field("expected_count") is None:
            raise EntryError("expected_count", _("The form was damaged in transit: reload the page and enter the "
                                                 "hand again."))
        if hand is not None and form.int_field("version") is None:
            raise EntryError("version", _("The form was damaged in transit: reload the page and enter the "
                                          "hand again."))
        data = form.record_data()
    except EntryError as exc:
        return Outcome(400, [exc.message], field=exc.field), None, None
    if hand is None:
        data["recorded_at"] = store.now()
    else:
        data = {**{k: v for k, v in hand.record.items() if k in ("number", "recorded_at", "talon")}, **data}
    try:  # read once...
        record = parse_hand(store.hand_record_data(view.row, data))
        _check_board(view, record, hand)
    except ScartoError as exc:
        return Outcome(400, [read_error_text(exc)]), None, None
    result = score_hand(record)  # ...judged once...
    if result.has_errors:
        return Outcome(400, [_("This hand cannot be saved: fix what is listed below.")], result.problems), None, None
    canonical = _with_leaders(hand_to_dict(record, in_match=True), result)  # ...written once (by _save)
    rotation = _out_of_turn(view, form, hand, record.dealer)
    if rotation is not None:
        return Outcome(200, [_(OUT_OF_TURN, rotation=rotation, dealer=record.dealer)], rotation=rotation), None, None
    if result.problems and not form.wants_save_anyway():
        return Outcome(200, [_("The rules were broken in this hand. The table decides: save it marked, or "
                               "correct it.")], result.problems, confirm=True), None, None
    return None, canonical, result


def _out_of_turn(view: MatchPage, form: HandForm, hand: store.HandRow | None, dealer: str) -> str | None:
    """The rotation's dealer, when a new hand names another and the table has not confirmed that one yet
    (a tap on the wrong name would pass the deal on wrongly for the rest of the match). Not when the
    phone saw fewer hands than are stored: that hand is told first, as a conflict, with its own dealer.
    Asked of pages: the phone's scripts ask themselves (live.js, which sends JSON; cards.js, which says so
    in ``dealer_ok``), offline too, against the hands waiting on the phone."""
    rotation = view.table.next_dealer
    if hand is not None or request.is_json or dealer == rotation or rotation not in view.record.players:
        return None
    if (form.dealer_ok.data or "") == dealer or form.int_field("expected_count") != view.count:
        return None
    return rotation


def _with_leaders(data: dict[str, Any], result: HandResult) -> dict[str, Any]:
    """The full record as stored: who led each trick and the inferred discard, from the replay."""
    replay = result.replay
    if replay is None:
        return data
    players = result.record.players
    out: dict[str, Any] = {}
    for name, value in data.items():  # the record's own order: the discard comes before the tricks
        if name == "tricks":
            out["discard"] = [CODES[c] for c in replay.discard]
            out["tricks"] = [{"leader": players[t.leader], "cards": [CODES[c] for c in t.cards]}
                             for t in replay.tricks]
        elif name != "discard":
            out[name] = value
    return out


def _entry(form: HandForm, data: dict[str, Any]) -> store.Entry | None:
    """The form's idempotency key with the digest of the hand it describes, or None without a key.

    The digest is of the record as it would be stored, less the time the server stamps on it: the
    same entry sent again (a retry, the back button) is the same body, whatever its spelling.
    """
    key = entry_key(form.entry_key.data)
    if key is None:
        return None
    return store.Entry(key, store.body_digest({k: v for k, v in data.items() if k != "recorded_at"}))


def _key_reused(view: MatchPage, form: HandForm, hand: store.HandRow | None, done: store.Done) -> Outcome:
    """The form's key already saved something else (other values, another change): nothing saved, the
    entry shown again as typed, with a new key so that saving it again stores it as what it is now."""
    db = get_db()
    number = store.hand_number(db, done.hand) or store.hand_place(db, done.hand)
    form.entry_key.data = store.new_token()
    if hand is None:
        count = store.count_hands(db, view.row.id)
        form.expected_count.data = str(count)
        text = _("This entry was already saved once, as hand %(n)s, with other values than these: nothing was "
                 "saved now. If this is another hand, save it again as hand %(next)s; to correct hand %(n)s, "
                 "change it from its page.", n=number, next=count + 1)
    else:
        current = store.get_hand(db, view.row.id, hand.key)
        form.version.data = str(current.version)
        text = _("This entry was already saved once (hand %(n)s) with other values than these: nothing was "
                 "saved now. Save again to store what is shown as a new change, or leave this page to keep what "
                 "is saved.", n=number)
    return Outcome(409, [text], conflict=_saved(done.hand))


def _conflict(view: MatchPage, form: HandForm, hand: store.HandRow | None, exc: store.Conflict) -> Outcome:
    """Somebody saved first: say what is stored now and let this phone save its entry after all."""
    count = store.count_hands(get_db(), view.row.id)
    saved = _saved(exc.current) if exc.current is not None else None
    next_dealer = None
    if hand is None:
        form.expected_count.data = str(count)
        # the hand this one becomes is dealt by the next in the rotation, not by whoever dealt the one saved
        fresh = match_page_view(view.token, edit=True, lines=0, loaded=(view.row, True))
        next_dealer = fresh.table.next_dealer
        form.dealer.data = next_dealer
        form.dealer_ok.data = ""
        text = _("Another phone saved a hand while you were entering this one. If yours is a different hand, "
                 "save it now as hand %(n)s; if it is the same hand, it is already recorded: leave this page.",
                 n=count + 1)
    else:
        if exc.current is not None:
            form.version.data = str(exc.current.version)
        text = _("This hand was changed from another phone while you were editing it. Save again to replace "
                 "it with your version, or leave this page to keep what is saved.")
    return Outcome(409, [text], conflict=saved, next_dealer=next_dealer)


def _refused(view: MatchPage, form: HandForm, hand: store.HandRow | None, outcome: Outcome) -> Any:
    if request.is_json:
        body: dict[str, Any] = {"saved": False, "messages": outcome.messages, "confirm": outcome.confirm,
                                "problems": [problem_json(p) for p in outcome.problems]}
        if outcome.status == 409:
            body["conflict"] = _saved_json(outcome.conflict)
            body["expected_count"] = form.expected_count.data
            body["version"] = form.version.data
            body["entry_key"] = form.entry_key.data
            if outcome.next_dealer is not None:
                body["dealer"] = outcome.next_dealer
        return body, outcome.status
    return _page(view, form, hand, outcome)


def _saved(hand: store.HandRow) -> Saved:
    number = store.hand_number(get_db(), hand) or 0
    result = score_hand(hand.parsed)
    scores = [(p, fraction_text(s)) for p, s in result.scores().items()]
    return Saved(number, hand.record.get("dealer", ""), scores, list(result.problems), hand.deleted_at is not None)


def _saved_json(saved: Saved | None) -> dict[str, Any] | None:
    if saved is None:
        return None
    return {"number": saved.number, "dealer": saved.dealer, "scores": saved.scores, "deleted": saved.deleted,
            "problems": [str(PROBLEM_LABELS.get(p.code, p.code)) for p in saved.problems]}


def _saved_message(number: int, result: HandResult, *, edited: bool) -> str:
    scores = " · ".join(f"{p} {fraction_text(s)}" for p, s in result.scores().items())
    if edited:
        message = _("Hand %(n)s changed: %(scores)s.", n=number, scores=scores)
    else:
        message = _("Hand %(n)s saved: %(scores)s.", n=number, scores=scores)
    if result.problems:
        marked = ", ".join(_problem_short(p) for p in result.problems)
        message += " " + _("Marked: %(problems)s.", problems=marked)
    return message


def _problem_short(problem: Problem) -> str:
    label = str(PROBLEM_LABELS.get(problem.code, problem.code))
    if problem.trick is not None:
        return _("%(label)s in trick %(n)s", label=label, n=problem.trick)
    return label


def _page(view: MatchPage, form: HandForm, hand: store.HandRow | None, outcome: Outcome | None = None, *,
          number: str | None = None, kept: bool = False) -> Any:
    """The entry page for the form (with what went wrong, if anything); ``number``: the hand's number as
    the page shows it, when the caller puts it in; ``kept``: the page is cached for every next hand, the
    hand's count and dealer in its slots (``_next_hand``)."""
    rules = view.record.ruleset
    if number is None and hand is None:
        seen = (form.expected_count.data or "").strip()
        number = str((int(seen) if seen.isdecimal() and len(seen) < 6 else view.count) + 1)
    elif number is None and hand is not None:
        number = str(view.number_of(hand.key) or 0)
    rotation = None if hand is not None or kept else (outcome.next_dealer if outcome and outcome.next_dealer
                                                       else view.table.next_dealer)
    context: dict[str, Any] = {
        "view": view, "form": form, "hand": hand, "rules": rules, "number": number, "outcome": outcome,
        "rotation": rotation, "out_of_turn": OUT_OF_TURN,
        "problems": outcome.problems if outcome else (), "cards": _card_buttons(form),
        "action": (url_for(".edit_hand", token=view.token, key=hand.key) if hand is not None
                   else url_for(".new_hand", token=view.token, form=form.form_name)),
    }
    if isinstance(form, LiveForm):
        context["config"] = live_config(view, form, hand, rotation)
        if kept:  # the next hand's count and dealer: the cached page's slots
            context["config"].update(count=Slot("count"), dealer=Slot("dealer"), rotation=Slot("dealer"))
        context["texts"] = live_texts(tuple(view.record.players), new_hand=hand is None)
        template = "hand_live.html"
    else:
        template = "hand_form.html"
    status = outcome.status if outcome else 200
    return render_template(template, **context), status


def _empty_page(view: MatchPage, form: str) -> str:
    """The entry page for the next hand, nothing typed yet: what varies from hand to hand (its number,
    the count of hands it expects, the dealer) in the page's slots, filled by :func:`_next_hand`."""
    entry = _form(FORMS[form], view)
    entry.expected_count.data = slot("count")
    page, _status = _page(view, entry, None, number=slot("number"), kept=True)
    return str(page)


def _next_hand(view: MatchPage) -> dict[str, SlotValue]:
    """The values of a cached entry page's slots for this match now: the next hand's number, the count
    of hands the form expects, and the dealer by the rotation (checked among the dealer's choices
    with ``dealer-checked-<seat>``, marked as the rotation's with ``dealer-rotation-<seat>`` for the
    phone's question about another dealer, and in live.js's data)."""
    players = view.record.players
    dealer = view.table.next_dealer if view.table.next_dealer in players else None
    marks: dict[str, SlotValue] = {}
    for seat, name in enumerate(players):
        marks[f"dealer-checked-{seat}"] = " checked" if name == dealer else ""
        marks[f"dealer-rotation-{seat}"] = " data-rotation" if name == dealer else ""
    return {"count": str(view.count), "number": str(view.next_number), "dealer": dealer, **marks}


def _settings_key(row: store.MatchRow) -> str:
    """What the entry page shows of the match besides its hands (names, rules): part of its kept key."""
    return json.dumps(row.settings, sort_keys=True, separators=(",", ":"))


def _card_buttons(form: HandForm) -> list[dict[str, Any]]:
    """The cards the page's grid shows, with their labels and the suit (for colour)."""
    return [{"code": CODES[c], "label": card_label(c), "title": _title(card_title(c)), "suit": SUIT_CLASS[SUIT[c]]}
            for c in form.grid()]


def _title(name: str) -> str:
    """A card's name as a button's tooltip: "King of Cups", not "the King of Cups"."""
    return name[4:5].upper() + name[5:] if name.startswith("the ") else name[:1].upper() + name[1:]


# --- the hand page ------------------------------------------------------------------


def _hand(view: MatchPage, key: str) -> store.HandRow:
    try:
        return store.get_hand(get_db(), view.row.id, key)
    except store.NotFound:
        abort(404)


def _hand_page(view: MatchPage, hand: store.HandRow, *, status: int = 200, notice: str | None = None) -> Any:
    """The hand judged on its own, and (unless it is deleted) its line of the stored standings."""
    number = view.number_of(hand.key)
    result, line = score_hand(hand.parsed), None
    if number is not None:
        window = store.standings_window(get_db(), view.row, number - 1, 1)
        line = window.lines[0] if window.lines else None
    return render_template(
        "hand_page.html", view=view, hand=hand, result=result, line=line, number=number,
        notice=notice, form_name=FORM_OF_BODY[result.record.form],
    ), status
