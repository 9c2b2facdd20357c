"""Typed errors of the core: each carries a code and says what, where and why.

A read error is told like a rule problem: a template of
:data:`scorer.engine.messages.READ_TEMPLATES` filled with named parameters. ``message`` is
the English sentence (files and the command line show it); ``key`` and ``params``
let the pages tell the same thing in their own language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from .read_messages import render_read


class ScartoError(ValueError):
    """Base of the core's errors; ``code`` is stable, ``message`` is for people."""

    code = "error"

    def __init__(self, message: str, where: str = "", *, key: str = "",
                 params: Mapping[str, Any] | None = None) -> None:
        self.message = message
        self.where = where
        self.key = key
        """Which sentence of READ_TEMPLATES tells the error; "" for a sentence given whole."""
        self.params: dict[str, Any] = dict(params or {})
        """The sentence's parameters, values quoted from the input among them."""
        super().__init__(f"{where}: {message}" if where else message)


class ReadError(ScartoError):
    """The input is not a usable record: not JSON, a wrong type, an unknown card..."""

    code = "read_error"

    @classmethod
    def of(cls, key: str, where: str, /, **params: Any) -> Self:
        """The error told by template ``key``, in English, keeping key and parameters for the pages."""
        return cls(render_read(key, params), where, key=key, params=params)


class UnknownRuleset(ReadError):
    """A preset, switch or switch value that RULES.md does not define."""

    code = "unknown_ruleset"
