"""Parts of pages kept as rendered while what they show has not changed.

A table's phones open the same match page again and again between two hands: the standings,
the chart, the settlement and the rules are the same each time until the next change to the
match's hands. Rendering them is most of a page's cost (about 2 ms of templates against
0.3 ms for everything else), so each server process keeps the rendered part under a key that
names everything it depends on: the match's state (its count of changes, kept on its row),
its token (the links in it), the page of hands, the language and the engine's version. A
change makes a new key; the old rendering is never served again and ages out.

What depends on the request itself (flashed messages, the phone's cookies, the CSRF token)
is never kept: the caller renders it around the kept part every time (:func:`kept_part`),
or the whole page is kept with its CSRF token left out and made again for each request, and
only while no message waits for the phone (:func:`kept_page`, the entry forms).

Bounded by bytes (``KEPT_PAGE_BYTES``, 32 MB a process by default; 0 keeps nothing), the
least recently used part going first.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from flask import current_app, request, session
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

DEFAULT_BYTES = 32 * 1024 * 1024


class Kept:
    """A bounded store of rendered parts, least recently used out first; safe across threads."""

    def __init__(self) -> None:
        self._parts: OrderedDict[Hashable, str] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> str | None:
        with self._lock:
            part = self._parts.get(key)
            if part is None:
                self.misses += 1
                return None
            self._parts.move_to_end(key)
            self.hits += 1
            return part

    def put(self, key: Hashable, part: str, limit: int) -> None:
        size = sys.getsizeof(part)  # what it takes in memory: a page with a "—" in it is two bytes a character
        if size > limit:
            return
        with self._lock:
            old = self._parts.pop(key, None)
            if old is not None:
                self._size -= sys.getsizeof(old)
            self._parts[key] = part
            self._size += size
            while self._size > limit:
                _key, dropped = self._parts.popitem(last=False)
                self._size -= sys.getsizeof(dropped)

    def clear(self) -> None:
        """Nothing kept, nothing counted."""
        with self._lock:
            self._parts.clear()
            self._size = 0
            self.hits = self.misses = 0

    @property
    def size(self) -> int:
        """Bytes of memory the kept parts take."""
        return self._size

    def __len__(self) -> int:
        return len(self._parts)


KEPT = Kept()
CSRF_MARK = "\x00csrf\x00"
"""Where a kept page had its CSRF token (a string no page contains)."""


def _full(key: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
    """The key with what the links in a page depend on beside the caller's: the app's database (one
    process may serve several), the host and the path the app is served under (a proxy's prefix)."""
    return (current_app.config.get("DATABASE"), request.host, request.script_root, *key)


def kept_part(key: tuple[Hashable, ...], render: Callable[[], str]) -> Markup:
    """The part under ``key``, rendered by ``render`` when it is not kept."""
    limit = int(current_app.config.get("KEPT_PAGE_BYTES", DEFAULT_BYTES))
    full = _full(key)
    part = KEPT.get(full) if limit else None
    if part is None:
        part = render()
        if limit:
            KEPT.put(full, part, limit)
    return Markup(part)


def kept_page(key: tuple[Hashable, ...], render: Callable[[], str]) -> str:
    """A whole page under ``key``, the phone's own CSRF token put in; rendered (and not kept) while a
    message waits in the session, since the page would show it."""
    limit = int(current_app.config.get("KEPT_PAGE_BYTES", DEFAULT_BYTES))
    if not limit or session.get("_flashes"):
        return render()
    full = _full(key)
    page = KEPT.get(full)
    if page is not None:
        return page.replace(CSRF_MARK, generate_csrf())
    page = render()
    token = generate_csrf()  # the one the page carries (Flask-WTF makes it once a request)
    if token in page:
        KEPT.put(full, page.replace(token, CSRF_MARK), limit)
    return page
