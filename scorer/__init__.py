"""Scarto table companion: a pure rules engine (cards, rulesets, records, validation,
scoring, settlement) under a thin Flask app.

Importing this package imports no web code: ``create_app`` loads Flask only when
called, so the core and the ``scarto`` command stay standard-library only.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def create_app(test_config: dict[str, Any] | None = None) -> Any:
    """The Flask application (``flask --app scorer``); see :mod:`scorer.web`."""
    from .web import create_app as _create_app

    return _create_app(test_config)
