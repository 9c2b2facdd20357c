"""The page cache: pages kept as rendered while what they show has not changed.

A table's phones open the same match page again and again between two hands: the standings,
the chart, the settlement and the rules are the same each time until the next change to the
match's hands. Rendering them is most of a page's cost (about 6 ms of templates against
0.6 ms served from the cache), so each server process keeps the rendered page under a key that
names everything it depends on: the match's state (its count of changes, kept on its row),
its token (the links in it), the page of hands, the language and the engine's version. A
change makes a new key; the old rendering is never served again and ages out.

A view asks for its page with one call, :func:`cached_page`. What depends on the request itself
(the phone's flashed messages, its CSRF token, the next hand's number on an entry form, a link to
the phone's club) is never cached: the template marks each such place with :func:`slot`, the
page is cached with the slots empty, and each request fills them from its own data (a mapping of
the slot's name to its value). A template renders the same whether cached or not: out of the
cache, a slot is its value straight away. Nothing else of a cached page is ever changed.

Pages are cached as the UTF-8 bytes they are sent as (half the memory of a str with a "—" in it,
and no encoding at each request). Bounded by bytes (``PAGE_CACHE_BYTES``, 64 MB a process by
default; 0 caches nothing), the least recently used page going first: a hundred club nights'
1,200 matches take about 25 MB (a match page and an entry form, about 20 KB together).

The server's processes share what they render through the shared cache
(:mod:`scorer.storage.shared_cache`, a file beside the database, bounded by the same figure): a
page one process does not hold is looked for there before it is rendered, and put there when it
is. ``PAGE_CACHE_RUN`` (set by scorer/serve.py for its processes) turns the shared cache on and is
part of every key in it; without it (one process, the tests, ``flask run``) each process renders
its own.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from flask import current_app, g, get_flashed_messages, request, url_for
from flask_wtf.csrf import generate_csrf
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

from ..storage.shared_cache import SharedCache, digest, shared_cache_path

DEFAULT_BYTES = 64 * 1024 * 1024

SlotValue = str | int | bool | None | Markup | Callable[[], Any]
"""A slot's value for one request: text (escaped), markup, or a function giving either (called only
when the page has that slot: the phone's messages are taken from its session when shown)."""


class PageCache:
    """A bounded store of rendered pages, least recently used out first; safe across threads."""

    def __init__(self) -> None:
        self._pages: OrderedDict[Hashable, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> bytes | None:
        with self._lock:
            page = self._pages.get(key)
            if page is None:
                self.misses += 1
                return None
            self._pages.move_to_end(key)
            self.hits += 1
            return page

    def put(self, key: Hashable, page: bytes, limit: int) -> None:
        size = sys.getsizeof(page)  # what it takes in memory
        if size > limit:
            return
        with self._lock:
            old = self._pages.pop(key, None)
            if old is not None:
                self._size -= sys.getsizeof(old)
            self._pages[key] = page
            self._size += size
            while self._size > limit:
                _key, dropped = self._pages.popitem(last=False)
                self._size -= sys.getsizeof(dropped)

    def clear(self) -> None:
        """Nothing cached, nothing counted."""
        with self._lock:
            self._pages.clear()
            self._size = 0
            self.hits = self.misses = 0

    @property
    def size(self) -> int:
        """Bytes of memory the cached pages take."""
        return self._size

    def __len__(self) -> int:
        return len(self._pages)


PAGE_CACHE = PageCache()

_EDGE = "\x00"
"""What a slot's mark starts and ends with in a cached page: a character no page contains (the app
refuses it in any text it stores), so a cached page splits into its text and its slots at it."""


def limit() -> int:
    """The cache's bound in bytes for this app (``PAGE_CACHE_BYTES``; 0: nothing cached)."""
    config = current_app.config
    return int(config.get("PAGE_CACHE_BYTES", config.get("KEPT_PAGE_BYTES", DEFAULT_BYTES)))


def _full(key: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
    """The key with what the links in a page depend on beside the caller's: the app's database (one
    process may serve several), the host, the path the app is served under (a proxy's prefix) and
    the static files' version the links name (``?v=``: a page goes with the files it was made with);
    and the server's run (the shared cache outlives a process)."""
    return (current_app.config.get("DATABASE"), current_app.config.get("PAGE_CACHE_RUN"), request.host,
            request.script_root, url_for("static", filename="app.css"), *key)


_SHARED: dict[tuple[str, int], SharedCache | None] = {}
_SHARED_GUARD = threading.Lock()


def shared_cache(config: Mapping[str, object], bound: int) -> SharedCache | None:
    """The cache the app's processes share (None when ``PAGE_CACHE_RUN`` is not set, or nothing is
    cached); found by the database's name at each page rendered, made (its file's path worked out) once."""
    if not config.get("PAGE_CACHE_RUN") or not bound:
        return None
    database = str(config.get("DATABASE") or "")
    key = (database, bound)
    if key not in _SHARED:
        with _SHARED_GUARD:
            path = shared_cache_path(database)
            _SHARED.setdefault(key, SharedCache(path, bound) if path else None)
    return _SHARED[key]


def _looked_up(full: tuple[Hashable, ...], bound: int, render: Callable[[], bytes]) -> bytes:
    """What is cached under ``full``: in this process, else in the shared cache, else rendered (and
    cached in both)."""
    page = PAGE_CACHE.get(full)
    if page is not None:
        return page
    shared = shared_cache(current_app.config, bound)
    name = digest(full) if shared is not None else ""
    page = shared.get(name) if shared is not None else None
    if page is None:
        page = render()
        if shared is not None:
            shared.put(name, page)
    PAGE_CACHE.put(full, page, bound)
    return page


def cached_page(key: tuple[Hashable, ...], render: Callable[[], str],
                slots: Mapping[str, SlotValue] | None = None, *, own: bool = False) -> bytes:
    """The page under ``key`` as sent (UTF-8), rendered by ``render`` when it is not cached, its slots
    filled with this request's values: ``slots``, besides the phone's messages and CSRF token that
    every page may show. ``own``: the page is the phone's own (rendered, not cached)."""
    values: dict[str, SlotValue] = {"messages": messages_html, "csrf": generate_csrf, **(slots or {})}
    bound = limit()
    if own or not bound:
        g.page_slots = values
        try:
            return render().encode()
        finally:
            g.page_slots = None
    page = _looked_up(("page", *_full(key)), bound, lambda: _render_with_slots(render).encode())
    return _filled(page, values)


def cached_answer(key: tuple[Hashable, ...], render: Callable[[], bytes]) -> bytes:
    """An answer that depends on nothing of the request but ``key`` (a JSON file), as sent."""
    bound = limit()
    return _looked_up(("answer", *_full(key)), bound, render) if bound else render()


def _render_with_slots(render: Callable[[], str]) -> str:
    """Render for the cache: each slot its mark, the CSRF token's too (Flask-WTF makes one token a
    request and keeps it on ``g``: the forms take theirs from there), nothing taken from the session."""
    field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    token = g.pop(field, None)
    g.page_slots = None
    g.page_cache_render = True
    setattr(g, field, _mark("csrf"))
    try:
        return render()
    finally:
        g.page_cache_render = False
        g.pop(field, None)
        if token is not None:
            setattr(g, field, token)


def _mark(name: str, kind: str = "html") -> str:
    return f"{_EDGE}{kind}:{name}{_EDGE}"


def _filled(page: bytes, values: Mapping[str, SlotValue]) -> bytes:
    """A cached page with its slots filled from ``values``: the text between the marks as it was."""
    parts = page.split(_EDGE.encode())
    for at in range(1, len(parts), 2):
        kind, _colon, name = parts[at].decode().partition(":")
        value = _value(values, name)
        text = _json(value) if kind == "json" else escape(value) if value is not None else ""
        parts[at] = str(text).encode()
    return b"".join(parts)


def _value(values: Mapping[str, SlotValue], name: str) -> Any:
    value = values[name]
    return value() if callable(value) else value


def _json(value: object) -> str:
    """A value as a page carries it in a JSON attribute (as Jinja's ``tojson`` writes it)."""
    return str(htmlsafe_json_dumps(value, dumps=current_app.json.dumps))


class Slot:
    """A per-request value inside data a template writes as JSON (:func:`slot_json`)."""

    def __init__(self, name: str, default: object = None) -> None:
        self.name = name
        self.default = default


def slot(name: str, default: SlotValue = None) -> Markup:
    """A place in a template for the request's value named ``name``: its mark in a page rendered for
    the cache, else the value (``default`` when the request has none: a page that is not cached)."""
    if g.get("page_cache_render"):
        return Markup(_mark(name))
    values = g.get("page_slots") or {}
    value = _value(values, name) if name in values else default() if callable(default) else default
    return escape(value) if value is not None else Markup("")


def slot_json(data: Mapping[str, object]) -> Markup:
    """``tojson`` for data holding per-request values (:class:`Slot`): each is its slot's mark in a
    page rendered for the cache, filled at every request with the value as JSON."""
    cache_render = bool(g.get("page_cache_render"))
    values = g.get("page_slots") or {}
    plain: dict[str, object] = {}
    marks: dict[str, str] = {}
    for field, value in data.items():
        if not isinstance(value, Slot):
            plain[field] = value
        elif cache_render:
            marks[field] = _mark(value.name, "json")
        else:
            plain[field] = _value(values, value.name) if value.name in values else value.default
    text = _json(plain)
    if marks:  # after the data's own fields (a JSON object's fields have no order)
        text = text[:-1] + (", " if plain else "") + ", ".join(f"{json.dumps(f)}: {m}" for f, m in marks.items()) + "}"
    return Markup(text)


def messages_here() -> Markup:
    """base.html's messages: the phone's own, taken from the session (a slot of every page)."""
    return slot("messages", messages_html)


WARM_HEADER = "X-Scarto-Warm"


def messages_html() -> Markup:
    """The messages waiting for this phone, taken from the session, as the page shows them.

    A page the service worker fetches in the background to keep for offline use (it sends
    :data:`WARM_HEADER`) leaves them there: it may run while the player deletes a hand, and the
    "Hand 2 deleted — undo" would be taken by a page nobody sees.
    """
    if request.headers.get(WARM_HEADER):
        return Markup("")
    messages: list[tuple[str, str]] = get_flashed_messages(with_categories=True)  # type: ignore[assignment]
    return Markup("".join(f'<div class="flash {escape(category)}" role="status">{escape(message)}</div>'
                          for category, message in messages))
