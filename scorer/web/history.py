"""A hand's history: every revision, restore one, delete a hand and undo it.

Nothing is ever lost. Each change makes a new revision (the store keeps them
all), a delete only marks the hand, and deleted hands stay listed where each can
be brought back. Every changing form carries the version of the hand the page
showed: if another phone changed the hand meanwhile, the answer is 409 with what
is saved now, and nothing is overwritten.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from ..engine.scoring import HandResult, score_hand
from ..storage import store
from .db import get_db
from .forms import KEY_USED, MAX_VERSION, RELOAD, VersionForm, entry_key
from .labels import PROBLEM_LABELS, read_error_text
from .tokens import MATCH, load_by_token

bp = Blueprint("history", __name__)

ACTION_LABELS = {
    "create": _l("created"),
    "edit": _l("edited"),
    "delete": _l("deleted"),
    "restore": _l("restored"),
    "undelete": _l("undeleted"),
    # storage.db.RULES_KEPT: the four and piccolo presets changed (DECISIONS.md); a match stored before keeps its rules
    "rules_kept": _l("the rules this match was recorded under written out (the four-player and piccolo presets "
                     "now follow the rule sheet; this match keeps the classic switches it was played with)"),
}

FORM_LABELS = {
    "tricks": _l("full record, trick by trick"),
    "captured": _l("captured cards"),
    "honours": _l("counting cards and pile sizes"),
    "points": _l("counted points"),
}


_CHANGED = _l("This hand was changed from another phone while you were editing it.")
"""The store's Conflict, in the page's language."""


@dataclass(frozen=True)
class Judged:
    """A stored record read back and scored by the core (or the reason it could not be)."""

    result: HandResult | None
    error: str | None

    @property
    def dealer(self) -> str | None:
        return self.result.record.dealer if self.result else None

    @property
    def form_label(self) -> Any:
        return FORM_LABELS[self.result.record.form] if self.result else ""

    def points(self) -> dict[str, Any]:
        """Card points per player, for spotting what a revision changed."""
        return {c.name: c.card_points for c in (self.result.counts or ())} if self.result else {}


@dataclass(frozen=True)
class RevisionView:
    """One line of the history: the revision, its record judged, and what it changed."""

    revision: store.Revision
    judged: Judged
    current: bool
    same_as_current: bool
    changed: frozenset[str]
    """Players whose card points differ from the revision before."""
    dealer_changed: bool

    @property
    def action(self) -> Any:
        return ACTION_LABELS.get(self.revision.action, self.revision.action)


@dataclass(frozen=True)
class HandState:
    """A stored hand on a page: its place in the match and its current record judged."""

    hand: store.HandRow
    number: int
    """Its number in the match; for a deleted hand, the number it would have if brought back."""
    judged: Judged

    @property
    def deleted(self) -> bool:
        return self.hand.deleted_at is not None


# --- reading ----------------------------------------------------------------------


def _judge(row: store.MatchRow, stored: store.HandRow | store.Revision, memo: dict[str, Judged]) -> Judged:
    """A stored record as the store read it, scored; identical records once."""
    key = json.dumps(stored.record, sort_keys=True)
    if key not in memo:
        if stored.error is not None:  # stored under an older engine: show why instead of failing
            memo[key] = Judged(None, read_error_text(stored.error))
        else:
            memo[key] = Judged(score_hand(stored.parsed), None)
    return memo[key]


def _load(token: str, key: str, *, edit: bool = False) -> tuple[store.MatchRow, bool, store.HandRow]:
    """The match and the hand: 404 for an unknown token or hand, 403 for a view token on a change."""
    row, can_edit = load_by_token(MATCH, token, edit=edit)
    try:
        hand = store.get_hand(get_db(), row.id, key)
    except store.NotFound:
        abort(404)
    return row, can_edit, hand


def _state(row: store.MatchRow, hand: store.HandRow, memo: dict[str, Judged]) -> HandState:
    return HandState(hand, store.hand_place(get_db(), hand), _judge(row, hand, memo))


HISTORY_PAGE = 50
"""Versions a history page shows: a hand changed a thousand times made a page of a megabyte."""


@dataclass(frozen=True)
class HistoryPage:
    """Which versions a history page shows: page 1 the newest :data:`HISTORY_PAGE`, each next page older."""

    page: int
    pages: int
    count: int

    @property
    def skip(self) -> int:
        return (self.page - 1) * HISTORY_PAGE

    @property
    def newest(self) -> int:
        return self.count - self.skip

    @property
    def oldest(self) -> int:
        return max(1, self.newest - HISTORY_PAGE + 1)


def _history_window(hand: store.HandRow) -> HistoryPage:
    """The page of the hand's history asked for (``?page=``; past the last: the last)."""
    count = store.count_revisions(get_db(), hand.id)
    pages = max(1, -(-count // HISTORY_PAGE))
    raw = request.args.get("page", "1") if request.method in ("GET", "HEAD") else "1"
    page = max(1, min(int(raw), pages)) if raw.isdecimal() and len(raw) < 6 else 1
    return HistoryPage(page, pages, count)


def _revision_views(row: store.MatchRow, hand: store.HandRow, memo: dict[str, Judged],
                    window: HistoryPage) -> list[RevisionView]:
    """The page's revisions, newest first, each with what it changed against the one before (read with
    them: the page's oldest is compared with the version before it, on the next page)."""
    views = []
    previous: Judged | None = None
    shown = store.revisions(get_db(), hand.id, newest=HISTORY_PAGE + 1, skip=window.skip)
    if len(shown) > HISTORY_PAGE:
        previous = _judge(row, shown[0], memo)
        shown = shown[1:]
    for revision in shown:
        judged = _judge(row, revision, memo)
        changed: frozenset[str] = frozenset()
        if previous is not None:
            before, after = previous.points(), judged.points()
            changed = frozenset(p for p in row.players if before.get(p) != after.get(p))
        views.append(RevisionView(revision, judged, revision.version == hand.version,
                                  revision.record == hand.record, changed,
                                  previous is not None and previous.dealer != judged.dealer))
        previous = judged
    return views[::-1]


def _title(state: HandState) -> str:
    if state.deleted:
        return str(_("History of a deleted hand (would be hand %(n)s)", n=state.number))
    return str(_("History of hand %(n)s", n=state.number))


def _history_page(token: str, row: store.MatchRow, can_edit: bool, hand: store.HandRow, *,
                  conflict: str | None = None, problem: str | None = None, status: int = 200) -> Any:
    memo: dict[str, Judged] = {}
    state = _state(row, hand, memo)
    window = _history_window(hand)
    return render_template(
        "history.html", token=token, row=row, can_edit=can_edit, state=state, window=window,
        revisions=_revision_views(row, hand, memo, window), title=_title(state),
        conflict=conflict, problem=problem, problem_labels=PROBLEM_LABELS,
    ), status


def _version(token: str, row: store.MatchRow, can_edit: bool, hand: store.HandRow) -> int | Any:
    """The version the page showed, or a 400 page that says what is wrong with the form."""
    form = VersionForm()
    if form.validate():
        return int(form.version.data)
    message = next(iter(form.version.errors), None) or RELOAD
    return _history_page(token, row, can_edit, hand, problem=str(message), status=400)


def _conflict(token: str, row: store.MatchRow, can_edit: bool, key: str, message: Any) -> Any:
    """409: the page shows what is saved now; nothing was changed."""
    hand = store.get_hand(get_db(), row.id, key)
    return _history_page(token, row, can_edit, hand, conflict=str(message), status=409)


def _retried(row: store.MatchRow, hand: store.HandRow, action: str, body: dict[str, Any]
             ) -> tuple[bool, bool, store.Entry | None]:
    """(whether this form's idempotency key already made this very change: a retry; whether it made
    another one: refused; the key with the digest of ``body``, what identifies the change)."""
    key = entry_key(request.form.get("entry_key"))
    if key is None:
        return False, False, None
    entry = store.Entry(key, store.body_digest(body))
    done = store.entry_done(get_db(), row.id, key)
    if done is None:
        return False, False, entry
    again = done.replays(action, entry, hand.key)
    return again, not again, entry


def _not_again(token: str, row: store.MatchRow, can_edit: bool, hand: store.HandRow) -> Any:
    """409: the key already made another change (a create's key, another version restored); nothing changed."""
    return _conflict(token, row, can_edit, hand.key, KEY_USED)


@contextmanager
def _unless_refused(token: str, row: store.MatchRow, can_edit: bool, hand: store.HandRow) -> Iterator[None]:
    """Around a change of the hand: the store's refusals answered alike for every change, a 409 with the
    history as it is now (the hand changed meanwhile, or the key was used meanwhile by another request).
    The answer is raised (``abort`` with it), so the route goes on only when the change was written."""
    try:
        yield
    except store.Conflict:
        abort(make_response(_conflict(token, row, can_edit, hand.key, _CHANGED)))
    except store.KeyReused:
        abort(make_response(_not_again(token, row, can_edit, hand)))


# --- pages ------------------------------------------------------------------------


@bp.get("/m/<token>/hands/<key>/history")
def hand_history(token: str, key: str) -> Any:
    """Every revision of a hand with its time, what made it and its scores; the current one marked."""
    row, can_edit, hand = _load(token, key)
    return _history_page(token, row, can_edit, hand)


@bp.get("/m/<token>/deleted")
def deleted_hands(token: str) -> Any:
    """The match's deleted hands, each with its scores and a button to bring it back."""
    row, can_edit = load_by_token(MATCH, token)
    memo: dict[str, Judged] = {}
    db = get_db()
    count = store.count_deleted(db, row.id)
    pages = max(1, -(-count // HISTORY_PAGE))
    raw = request.args.get("page", "1")
    page = max(1, min(int(raw), pages)) if raw.isdecimal() and len(raw) < 6 else 1
    shown = store.deleted_hands(db, row.id, HISTORY_PAGE, (page - 1) * HISTORY_PAGE)  # a page: 1,000 made 1 MB
    states = [HandState(h, store.hand_place(db, h), _judge(row, h, memo)) for h in shown]
    return render_template("history_deleted.html", token=token, row=row, can_edit=can_edit, states=states,
                           problem_labels=PROBLEM_LABELS, page=page, pages=pages, count=count,
                           first=(page - 1) * HISTORY_PAGE + 1)


# --- changes (edit token only) ----------------------------------------------------


@bp.post(f"/m/<token>/hands/<key>/restore/<int(min=1, max={MAX_VERSION}):version>")
def restore(token: str, key: str, version: int) -> Any:
    """Make an old revision the current record (a new revision; undeletes a deleted hand)."""
    row, can_edit, hand = _load(token, key, edit=True)
    again, refused, entry = _retried(row, hand, "restore", {"version": version})
    if again:
        return _restored(token, key, version)
    if refused:
        return _not_again(token, row, can_edit, hand)
    seen = _version(token, row, can_edit, hand)
    if not isinstance(seen, int):
        return seen
    db = get_db()
    try:
        old = store.get_revision(db, hand.id, version)
    except store.NotFound:
        abort(404)
    if old.record == hand.record and hand.deleted_at is None and seen == hand.version:
        flash(_("Version %(v)s is already the current one: nothing changed.", v=version))
        return redirect(url_for("history.hand_history", token=token, key=key), 303)
    judged = _judge(row, old, {})
    if judged.result is None or not judged.result.scored:
        return _history_page(token, row, can_edit, hand, status=400, problem=_(
            "Version %(v)s cannot be restored: the rules no longer accept it as a hand that can be scored.",
            v=version))
    with _unless_refused(token, row, can_edit, hand):
        store.restore_revision(db, row.id, key, version, expected_version=seen, entry=entry)
    return _restored(token, key, version)


def _restored(token: str, key: str, version: int) -> Any:
    flash(_("Version %(v)s restored: the hand counts it now.", v=version))
    return redirect(url_for("history.hand_history", token=token, key=key), 303)


@bp.post("/m/<token>/hands/<key>/delete")
def delete_hand(token: str, key: str) -> Any:
    """Delete a hand (it stays stored and listed) and offer to undo it on the match page."""
    row, can_edit, hand = _load(token, key, edit=True)
    again, refused, entry = _retried(row, hand, "delete", {})
    if again:
        return _deleted(token, key, store.hand_place(get_db(), hand), hand.version)
    if refused:
        return _not_again(token, row, can_edit, hand)
    seen = _version(token, row, can_edit, hand)
    if not isinstance(seen, int):
        return seen
    if hand.deleted_at is not None:
        return _conflict(token, row, can_edit, key, _("This hand was already deleted."))
    db = get_db()
    number = store.hand_place(db, hand)
    with _unless_refused(token, row, can_edit, hand):
        deleted = store.delete_hand(db, row.id, key, expected_version=seen, entry=entry)
    return _deleted(token, key, number, deleted.version)


def _deleted(token: str, key: str, number: int, version: int) -> Any:
    # the message holds the Undo form; it is our own template's output, so it is safe markup
    undo = render_template("history_undo.html", token=token, key=key, number=number, version=version)
    flash(Markup(undo), "undo")
    return redirect(url_for("matches.match_page", token=token), 303)


@bp.post("/m/<token>/hands/<key>/undelete")
def undelete(token: str, key: str) -> Any:
    """Bring a deleted hand back to its place in the match (the Undo of a delete)."""
    row, can_edit, hand = _load(token, key, edit=True)
    again, refused, entry = _retried(row, hand, "undelete", {})
    if refused:
        return _not_again(token, row, can_edit, hand)
    if again:
        flash(_("Hand %(n)s is back in the match.", n=store.hand_place(get_db(), hand)))
        return redirect(url_for("matches.match_page", token=token), 303)
    seen = _version(token, row, can_edit, hand)
    if not isinstance(seen, int):
        return seen
    db = get_db()
    if hand.deleted_at is None:
        number = store.hand_place(db, hand)
        flash(_("Hand %(n)s is not deleted: nothing to undo.", n=number))
        return redirect(url_for("matches.match_page", token=token), 303)
    with _unless_refused(token, row, can_edit, hand):
        back = store.undelete_hand(db, row.id, key, expected_version=seen, entry=entry)
    flash(_("Hand %(n)s is back in the match.", n=store.hand_place(db, back)))
    return redirect(url_for("matches.match_page", token=token), 303)
