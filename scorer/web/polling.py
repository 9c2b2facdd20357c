"""Phones in sync (static/sync.js): how often a watching page asks whether something changed.

The pace is the app's setting, read by the pages that poll (a match, a night, the waiting
hands' state) and by the template that loads sync.js.
"""

from __future__ import annotations

from flask import current_app
from markupsafe import Markup

POLL_SECONDS = 3
"""How often a watching page asks whether something changed (the figure bench/bench_sync.py measured);
sync.js's own pace, unless the app's ``POLL_SECONDS`` setting says another (the browser tests' 1 s)."""


def poll_seconds() -> int:
    """The pace the app asks of watching pages: its ``POLL_SECONDS`` setting, or :data:`POLL_SECONDS`."""
    return int(current_app.config.get("POLL_SECONDS", POLL_SECONDS))


def poll_attr() -> Markup:
    """``data-poll`` on sync.js's script when the pace is not sync.js's own: the first ask is answered 304
    (the page carries its tag), so the pace must come with the page. Nothing at the usual pace, so the
    match page stays within its 40 KB."""
    pace = poll_seconds()
    return Markup("") if pace == POLL_SECONDS else Markup(f' data-poll="{pace}"')
