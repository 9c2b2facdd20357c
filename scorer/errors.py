"""Typed errors of the core: each carries a code and says what, where and why."""

from __future__ import annotations


class ScartoError(ValueError):
    """Base of the core's errors; ``code`` is stable, ``message`` is for people."""

    code = "error"

    def __init__(self, message: str, where: str = "") -> None:
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class ReadError(ScartoError):
    """The input is not a usable record: not JSON, a wrong type, an unknown card..."""

    code = "read_error"


class UnknownRuleset(ReadError):
    """A preset, switch or switch value that RULES.md does not define."""

    code = "unknown_ruleset"
