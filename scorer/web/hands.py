"""Recording hands: counted points, captured cards, or the full record live."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort

bp = Blueprint("hands", __name__)


@bp.get("/m/<token>/hands/new/<form>")
def new_hand(token: str, form: str) -> Any:
    """Placeholder until the entry forms land."""
    abort(501)


@bp.get("/m/<token>/hands/<key>/")
def hand_page(token: str, key: str) -> Any:
    """Placeholder until the hand page lands."""
    abort(501)
