"""Names that look alike: two players a table cannot tell apart on a page ("Anna", and "Аnna" written
with a Cyrillic А), so that one person's hands would be counted under two names.

A warning, never a refusal: "Ivo" and "lvo" may be two real people. The look-alikes are Unicode's
(UTS #39 confusables), as the ``confusable-homoglyphs`` package ships them (its ``confusables.json``,
made from Unicode's ``confusables.txt``): read once a process, outside the engine, which stays standard
library only. Two names look alike when their skeletons are the same: each character (decomposed, NFD)
replaced by one chosen among those it can be taken for.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from functools import cache
from importlib import resources

from flask import flash
from flask_babel import gettext as _

DATA_PACKAGE = "confusable_homoglyphs"


@cache
def _prototypes() -> dict[str, str]:
    """Each character that can be taken for another, mapped to one of its kind (the lowest code point):
    the data lists pairs both ways, so the kinds are the connected groups of those pairs."""
    text = resources.files(DATA_PACKAGE).joinpath("confusables.json").read_text(encoding="utf-8")
    parent: dict[str, str] = {}

    def root(ch: str) -> str:
        while (up := parent.setdefault(ch, ch)) != ch:
            parent[ch] = parent.setdefault(up, up)
            ch = up
        return ch

    for ch, glyphs in json.loads(text).items():
        for glyph in glyphs:
            other = glyph.get("c", "")
            if len(ch) == 1 and len(other) == 1:  # one character for one: "rn" for "m" is left out
                first, second = sorted((root(ch), root(other)))
                parent[second] = first
    return {ch: root(ch) for ch in parent}


def skeleton(name: str) -> str:
    """What ``name`` looks like: two names with the same skeleton can be taken one for the other."""
    kinds = _prototypes()
    return unicodedata.normalize("NFD", "".join(kinds.get(ch, ch) for ch in unicodedata.normalize("NFD", name)))


def look_alikes(names: Iterable[str]) -> list[tuple[str, str]]:
    """The pairs of different names that look alike, each once, in the order given."""
    seen: dict[str, str] = {}
    pairs = []
    for name in names:
        key = skeleton(name)
        first = seen.setdefault(key, name)
        if first != name:
            pairs.append((first, name))
    return pairs


def look_alike_sentences(names: Iterable[str], new: Iterable[str] | None = None) -> list[str]:
    """What to say of each pair of ``names`` that look alike; with ``new``, only of the pairs one of whose
    names is new (a roster's old look-alikes were told when they came)."""
    fresh = None if new is None else set(new)
    return [_("“%(first)s” and “%(second)s” look alike but are written with different letters, so they are two "
              "players. If they are one person, give them one name.", first=first, second=second)
            for first, second in look_alikes(names)
            if fresh is None or first in fresh or second in fresh]


def warn_look_alikes(names: Iterable[str], new: Iterable[str] | None = None) -> None:
    """Each pair of look-alike names said on the next page, as a warning (:func:`look_alike_sentences`)."""
    for sentence in look_alike_sentences(names, new):
        flash(sentence, "warning")
