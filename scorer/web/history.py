"""A hand's history: every revision, restore one, delete and undo a delete."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort

bp = Blueprint("history", __name__)


@bp.get("/m/<token>/hands/<key>/history")
def hand_history(token: str, key: str) -> Any:
    """Placeholder until the history pages land."""
    abort(501)


@bp.post("/m/<token>/hands/<key>/delete")
def delete_hand(token: str, key: str) -> Any:
    """Placeholder until the history pages land."""
    abort(501)
