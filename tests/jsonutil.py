"""Walking JSON values in tests: every place in one, and the value at a place."""

from __future__ import annotations

from typing import Any


def json_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (dictionary keys and list positions), the whole value first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += json_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += json_paths(item, (*prefix, index))
    return found


def json_at(value: Any, path: tuple[Any, ...]) -> Any:
    """The part of ``value`` at ``path``."""
    for step in path:
        value = value[step]
    return value
