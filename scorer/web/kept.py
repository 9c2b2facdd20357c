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
or the whole page is kept with marks where the phone's messages and CSRF token go, filled in
for each request (:func:`kept_page` for the entry forms, :func:`kept_frame` for pages
without a form).

Whole pages are kept as the UTF-8 bytes they are sent as (half the memory of a str with a "—" in it,
and no encoding at each request). Bounded by bytes (``KEPT_PAGE_BYTES``, 64 MB a process by
default; 0 keeps nothing), the least recently used part going first: a hundred club nights'
1,200 matches take about 25 MB (a match page and an entry form, about 20 KB together).

The server's processes share what they render through the shelf (:mod:`scorer.storage.shelf`, a
file beside the database, bounded by the same figure): a part one process does not hold is looked
for there before it is rendered, and put there when it is. ``KEPT_RUN`` (set by scorer/serve.py
for its processes) turns the shelf on and is part of every key on it; without it (one process,
the tests, ``flask run``) each process renders its own.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from flask import current_app, g, get_flashed_messages, request, url_for
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup, escape

from ..storage.shelf import Shelf, digest, shelf_path

DEFAULT_BYTES = 64 * 1024 * 1024


class Kept:
    """A bounded store of rendered parts, least recently used out first; safe across threads."""

    def __init__(self) -> None:
        self._parts: OrderedDict[Hashable, str | bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> str | bytes | None:
        with self._lock:
            part = self._parts.get(key)
            if part is None:
                self.misses += 1
                return None
            self._parts.move_to_end(key)
            self.hits += 1
            return part

    def put(self, key: Hashable, part: str | bytes, limit: int) -> None:
        size = sys.getsizeof(part)  # what it takes in memory: a str with a "—" in it is two bytes a character
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
    process may serve several), the host, the path the app is served under (a proxy's prefix) and
    the static files' version the links name (``?v=``: a page goes with the files it was made with);
    and the server's run (the shelf outlives a process)."""
    return (current_app.config.get("DATABASE"), current_app.config.get("KEPT_RUN"), request.host,
            request.script_root, url_for("static", filename="app.css"), *key)


_SHELVES: dict[tuple[str, int], Shelf | None] = {}
_SHELVES_GUARD = threading.Lock()


def shelf(config: dict[str, object], limit: int) -> Shelf | None:
    """The shelf the app's processes share (None when ``KEPT_RUN`` is not set, or nothing is kept);
    found by the database's name at each page rendered, made (its file's path worked out) once."""
    if not config.get("KEPT_RUN") or not limit:
        return None
    database = str(config.get("DATABASE") or "")
    key = (database, limit)
    if key not in _SHELVES:
        with _SHELVES_GUARD:
            path = shelf_path(database)
            _SHELVES.setdefault(key, Shelf(path, limit) if path else None)
    return _SHELVES[key]


def _looked_up(full: tuple[Hashable, ...], limit: int, render: Callable[[], bytes]) -> bytes:
    """What is kept under ``full``: in this process, else on the shelf, else rendered (and kept in both)."""
    shared = shelf(current_app.config, limit)
    name = digest(full) if shared is not None else ""
    page = shared.get(name) if shared is not None else None
    if page is None:
        page = render()
        if shared is not None:
            shared.put(name, page)
    KEPT.put(full, page, limit)
    return page


def kept_part(key: tuple[Hashable, ...], render: Callable[[], str]) -> Markup:
    """The part under ``key``, rendered by ``render`` when it is not kept."""
    limit = int(current_app.config.get("KEPT_PAGE_BYTES", DEFAULT_BYTES))
    if not limit:
        return Markup(render())
    full = ("part", *_full(key))
    part = KEPT.get(full)
    if not isinstance(part, bytes):
        part = _looked_up(full, limit, lambda: render().encode())
    return Markup(part.decode())


def kept_answer(key: tuple[Hashable, ...], render: Callable[[], bytes]) -> bytes:
    """An answer that depends on nothing of the request but ``key`` (a JSON file), as sent."""
    limit = int(current_app.config.get("KEPT_PAGE_BYTES", DEFAULT_BYTES))
    if not limit:
        return render()
    full = ("answer", *_full(key))
    answer = KEPT.get(full)
    return answer if isinstance(answer, bytes) else _looked_up(full, limit, render)


def kept_page(key: tuple[Hashable, ...], render: Callable[[], str]) -> bytes:
    """A whole page under ``key`` (as sent: UTF-8), the phone's own messages and CSRF token put in."""

    def marked() -> str:  # Flask-WTF makes one token a request: the one the page carries
        return render().replace(generate_csrf(), CSRF_MARK)

    return _whole(key, marked).replace(CSRF_MARK.encode(), generate_csrf().encode())


def kept_frame(key: tuple[Hashable, ...], render: Callable[[], str], *, keep: bool = True) -> bytes:
    """A whole page without a form under ``key`` (as sent: UTF-8), the phone's own messages put in;
    rendered and not kept when the caller says the page is the phone's own."""
    return _whole(key, render) if keep else render().encode()


def _whole(key: tuple[Hashable, ...], render: Callable[[], str]) -> bytes:
    """The kept page under ``key`` (rendered with marks and kept when it is not), its messages put in."""
    limit = int(current_app.config.get("KEPT_PAGE_BYTES", DEFAULT_BYTES))
    if not limit:
        return _messages_in(_render_marked(render).encode())
    full = _full(key)
    page = KEPT.get(full)
    if not isinstance(page, bytes):
        page = _looked_up(full, limit, lambda: _render_marked(render).encode())
    return _messages_in(page)


FLASH_MARK = "\x00messages\x00"
"""Where a kept page shows the phone's messages (base.html's ``messages_here()``)."""


def _render_marked(render: Callable[[], str]) -> str:
    """Render with :data:`FLASH_MARK` where the messages go, leaving them in the session."""
    g.kept_render = True
    try:
        return render()
    finally:
        g.kept_render = False


def _messages_in(page: bytes) -> bytes:
    mark = FLASH_MARK.encode()
    return page.replace(mark, messages_html().encode(), 1) if mark in page else page


def messages_here() -> Markup:
    """base.html's messages: the phone's own (taken from the session), or the mark a kept page fills."""
    return Markup(FLASH_MARK) if g.get("kept_render") else Markup(messages_html())


WARM_HEADER = "X-Scarto-Warm"


def messages_html() -> str:
    """The messages waiting for this phone, taken from the session, as the page shows them.

    A page the service worker fetches in the background to keep for offline use (it sends
    :data:`WARM_HEADER`) leaves them there: it may run while the player deletes a hand, and the
    "Hand 2 deleted — undo" would be taken by a page nobody sees.
    """
    if request.headers.get(WARM_HEADER):
        return ""
    messages: list[tuple[str, str]] = get_flashed_messages(with_categories=True)  # type: ignore[assignment]
    return "".join(f'<div class="flash {escape(category)}" role="status">{escape(message)}</div>'
                   for category, message in messages)
