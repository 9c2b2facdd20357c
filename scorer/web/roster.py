"""The players a club's forms name: typed one a line on the roster's box, or ticked on the roster.

Shared by the club's pages and the night's (blueprints do not import one another). Each typed name's
problem is said with the name, at the box it was typed in: a form has no ``players[3]``.
"""

from __future__ import annotations

from typing import Any

from flask import request
from flask_babel import gettext as _

from ..engine import club_files
from ..engine.errors import ScartoError
from ..storage import clubs as club_store
from ..storage import store
from .labels import name_error_text, named


def roster_lines(text: str) -> list[tuple[str, str | None]]:
    """``Name`` or ``Name, Short`` per line, blank lines skipped."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        name, _sep, short = line.partition(",")
        out.append((name.strip(), short.strip() or None))
    return out


def roster_problems(lines: list[tuple[str, str | None]]) -> list[str]:
    """What is wrong with a typed roster, each said with its name (a line number means little in a box
    that skips blank lines): a name that cannot be one, a name twice, a short name too long."""
    problems, seen = [], set()
    shorts: dict[str, str] = {}  # a short name's key -> the name that has it
    for name, short in lines:
        shown = name or f", {short}"
        try:
            key = club_files.name_key(club_files.clean_name(name))
        except ScartoError as exc:
            problems.append(name_error_text(shown, exc))
            continue
        if key in seen:
            problems.append(named(name, _("named twice: each player is listed once")))
        seen.add(key)
        if short is None:
            continue
        short_key = club_files.name_key(short)
        if len(short) > club_files.MAX_SHORT:
            problems.append(named(f"{name}, {short}", _(
                "a short name is at most %(most)s characters; this one has %(length)s",
                most=club_files.MAX_SHORT, length=len(short))))
        elif short_key in shorts:  # two "An" in a narrow column
            problems.append(named(f"{name}, {short}", _("%(other)s has this short name already",
                                                        other=shorts[short_key])))
        shorts.setdefault(short_key, name)
    return problems


def ticked_players() -> list[int]:
    """The roster players ticked on a form (ids), read whether or not the rest of it is right: a form
    answered with a problem shows them ticked still."""
    return [int(v) for v in request.form.getlist("player") if v.isdecimal() and len(v) < 19]


def seat_order(ticked: list[int]) -> list[int]:
    """The ticked players in seating order: as tapped (the phone's ``order``: ids, comma-separated), any
    other ticked one after them as listed, and one seat moved up by a page without scripts (its ``up``)."""
    given = [int(v) for v in request.form.get("order", "").split(",") if v.isdecimal() and len(v) < 19]
    order = [pid for pid in dict.fromkeys(given) if pid in ticked]
    order += [pid for pid in dict.fromkeys(ticked) if pid not in order]
    up = request.form.get("up", "")
    if up.isdecimal() and len(up) < 19 and int(up) in order[1:]:
        i = order.index(int(up))
        order[i - 1], order[i] = order[i], order[i - 1]
    return order


def pick_players(db: Any, club_id: int, ticked: list[int], typed: str) -> tuple[list[str], list[str]]:
    """The names of the players ticked, then of those typed (one a line), and what is wrong with the typed
    ones, each said with its name: one that cannot be a name, one given twice (or typed and ticked).

    store.NotFound when a ticked player is not on the roster (a page from before a merge).
    """
    players = [club_store.get_player(db, club_id, pid) for pid in dict.fromkeys(ticked)]
    if any(p.merged_into is not None for p in players):
        raise store.NotFound("merged")
    names = [p.name for p in players]
    seen = {club_files.name_key(n) for n in names}
    problems = []
    lines = [line for line in typed.splitlines() if line.strip()]
    spelled = _spelled(club_store.roster(db, club_id)) if lines else {}
    for line in lines:
        try:
            name = club_files.clean_name(line)
        except ScartoError as exc:
            problems.append(name_error_text(line, exc))
            continue
        full = spelled.get(club_files.name_key(name), name)  # "anna" typed is the roster's Anna, spelled as it is
        key = club_files.name_key(full)
        if key in seen:
            problems.append(named(name, _("named twice: each player is listed once")))
        seen.add(key)
        names.append(full)
    return names, problems


def _spelled(roster: list[club_store.PlayerRow]) -> dict[str, str]:
    """Each roster player's full name by the key of their name and of their short name: "Giulia" typed is
    Giulia Ferrari (a match carries full names; a short name is for narrow columns, not a new player)."""
    out = {club_files.name_key(p.short): p.name for p in roster if p.short}
    out.update({club_files.name_key(p.name): p.name for p in roster})  # a name wins over another's short name
    return out
