"""waitress's poll loop with each connection's registration cached between rounds.

waitress (3.0, ``asyncore_use_poll``) asks every connection on every round of its loop whether it
wants to read or write, calling two Python methods for each, and registers them all with a new
poll object. A club night's phones keep their connections open between requests: at 100 clubs a
process holds about 1,800 of them, and those questions took 27% of the server's time (py-spy
``--gil``), once per round, several rounds per request.

A connection waiting for its phone's next request wants to read and nothing else, and stays so
until something happens on its socket. So a connection is asked again only after an event on it,
while it is busy (a request in hand, an answer to send, a close pending: waitress's worker
threads change only such connections) and, all of them, once every :data:`SWEEP` seconds (the
idle timeout and shutdown mark quiet connections to be closed from the loop's own thread). A new
connection wants to read, as waitress's own answer would say. (That holds with waitress's
``channel_request_lookahead`` at 0, its default and ours: with requests read ahead, a worker could
leave a connection waiting to read with a close pending, seen only at the sweep.) The poll object keeps the
registrations (Python's ``select.poll`` holds them by descriptor, as waitress's loop did), so
what each round hands the kernel is what waitress's loop would have.

A connection whose request is with a worker thread wants nothing from the loop (waitress's
``readable`` and ``writable`` both say no) until that worker is done with it, and a worker says so
the one way waitress has: it pulls the server's trigger, which wakes the loop. So such a
connection is not asked every round, which made each round cost as many questions as requests
were waiting (at the knee of a process's load, hundreds: the queue grew the loop's work, which
grew the queue): the worker names it as it pulls the trigger (:func:`_pull_trigger`), and only
then is it asked.
"""

from __future__ import annotations

import select
import threading
import time
from collections import deque
from errno import EINTR
from typing import Any

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer

SWEEP = 1.0
"""Seconds between two rounds that ask every connection (a timeout closes at most this late)."""

_WAITING = select.POLLIN | select.POLLPRI
"""A connection between requests: it wants to read (waitress's ``readable``) and not to write."""


class _Epoll:
    """``select.poll``'s calls over epoll, where the kernel keeps the registrations: a round costs
    what is ready, where poll() looks at every descriptor in the kernel too (at 1,800 connections a
    process, the server's system time was a third of its CPU)."""

    def __init__(self) -> None:
        self.epoll = select.epoll()

    def register(self, fd: int, flags: int) -> None:  # POLLIN, POLLPRI, POLLOUT: the same bits as EPOLL*
        try:
            self.epoll.register(fd, flags)
        except FileExistsError:
            self.epoll.modify(fd, flags)

    def unregister(self, fd: int) -> None:
        try:
            self.epoll.unregister(fd)
        except OSError:  # closed already: the kernel dropped it with its socket
            pass

    def poll(self, timeout: int | None) -> list[tuple[int, int]]:
        return self.epoll.poll(-1 if timeout is None else timeout / 1000)


class CachedPoll:
    """A drop-in for ``waitress.wasyncore.poll2`` over one socket map (a server process has one)."""

    def __init__(self, *, epoll: bool = hasattr(select, "epoll")) -> None:
        self.pollster: Any = _Epoll() if epoll else select.poll()
        self.registered: dict[int, tuple[Any, int]] = {}  # descriptor: (its dispatcher, the flags registered)
        self.asking: set[int] = set()  # asked next round: had an event, named by a worker, writing, or not a connection
        self.swept = 0.0
        self.accepted = False
        self.touched: deque[int | None] = deque()  # named by workers as they pull the trigger
        self.watched: dict[int, Any] | None = None  # the socket map its workers name connections for
        _watch_workers()

    def __call__(self, timeout: float | None = 0.0, map: dict[int, Any] | None = None) -> None:  # noqa: A002
        socket_map = wasyncore.socket_map if map is None else map
        if self.watched is not socket_map:  # the workers of this map's server name their connections to it
            self.watched = socket_map
            _WATCHING[id(socket_map)] = self
        self._update(socket_map)
        try:
            events = self.pollster.poll(None if timeout is None else int(timeout * 1000))
        except OSError as err:
            if err.args[0] != EINTR:
                raise
            events = []
        for fd, flags in events:
            obj = socket_map.get(fd)
            if obj is None:  # closed meanwhile (poll() says so until it is unregistered)
                self._forget(fd)
                continue
            self.asking.add(fd)  # whatever it did (a close too), it is asked again next round
            if obj.accepting:
                self.accepted = True  # new connections: looked for next round
            wasyncore.readwrite(obj, flags)

    def _update(self, socket_map: dict[int, Any]) -> None:
        """Register what changed. The loop's own thread opens and closes connections, and only on an
        event (an accept; a read, a write or a close on the socket itself), so the descriptors to look
        at are the ones that had one; all of them at each sweep, in case."""
        now = time.monotonic()
        sweep = now - self.swept >= SWEEP
        if sweep or self.accepted:
            self.accepted = False
            self.asking.update(socket_map.keys() - self.registered.keys())  # opened since the last look
        touched = self.touched
        while touched:  # popleft: a worker may append meanwhile (deque's ends are thread-safe)
            fd = touched.popleft()
            if fd is not None:
                self.asking.add(fd)
        if sweep:
            self.swept = now
            for fd in self.registered.keys() - socket_map.keys():
                self._forget(fd)
            ask: Any = list(socket_map)  # a copy, as waitress's loop takes (a close from another thread)
        else:
            ask = list(self.asking)
        for fd in ask:
            obj = socket_map.get(fd)
            if obj is None:  # closed since the last round
                self._forget(fd)
                continue
            flags = _flags(obj)
            if (flags == _WAITING or not flags) and isinstance(obj, HTTPChannel):
                self.asking.discard(fd)  # quiet until its socket has something, or its worker is done
            else:
                self.asking.add(fd)
            registered = self.registered.get(fd)
            if registered is not None and registered[0] is obj and registered[1] == flags:
                continue
            if registered is not None and registered[1]:
                self.pollster.unregister(fd)
            if flags:  # as waitress's loop: a dispatcher that wants nothing is not polled
                self.pollster.register(fd, flags)
            self.registered[fd] = (obj, flags)

    def _forget(self, fd: int) -> None:
        registered = self.registered.pop(fd, None)
        self.asking.discard(fd)
        if registered is not None and registered[1]:
            self.pollster.unregister(fd)


def _flags(obj: Any) -> int:
    """What waitress's loop registers for a dispatcher (its ``poll2``, line for line)."""
    flags = 0
    if obj.readable():
        flags |= select.POLLIN | select.POLLPRI
    if obj.writable() and not obj.accepting:  # accepting sockets should not be writable
        flags |= select.POLLOUT
    return flags


_serving = threading.local()
"""The connection a worker thread is serving (waitress's ``HTTPChannel.service``), if any."""
_WATCHING: dict[int, CachedPoll] = {}
"""The cached poll running each socket map, by the map's id: a server's workers name their connections to
the loop of their own server's map (waitress's own loop has none: nothing is cached for it)."""
_service = HTTPChannel.service


def _name(server: Any, fd: int | None) -> None:
    """Tell the cached poll of ``server``'s map to ask ``fd`` at its next round."""
    poll = _WATCHING.get(id(server._map))
    if poll is not None and fd is not None:
        poll.touched.append(fd)


def _served(channel: HTTPChannel) -> None:
    """``HTTPChannel.service``, with the connection known to the thread while it runs.

    A connection the worker closed itself (a failed send) is named too, as its descriptor may be
    given to the next connection (known to the loop only as the one it had); and when ``service``
    fails after changing the connection, the loop is woken to see it."""
    fd = channel._fileno
    _serving.channel = channel
    try:
        _service(channel)
    except BaseException:
        _name(channel.server, fd)
        channel.server.trigger.pull_trigger()
        raise
    finally:
        _serving.channel = None
        if channel._fileno != fd:
            _name(channel.server, fd)


def _pull_trigger(server: BaseWSGIServer) -> None:
    """``BaseWSGIServer.pull_trigger``: a worker names the connection it changed, then wakes the loop.

    waitress's worker pulls it after every change the loop has to see (an answer to send, the
    request done, a close to make), as the last thing it does to the connection."""
    channel = getattr(_serving, "channel", None)
    if channel is not None:
        _name(server, channel._fileno)
    server.trigger.pull_trigger()


def _watch_workers() -> None:
    """Have waitress's workers name their connections to the cached polls (the classes patched once)."""
    if HTTPChannel.service is not _served:
        HTTPChannel.service = _served
        BaseWSGIServer.pull_trigger = _pull_trigger


def install(*, epoll: bool = hasattr(select, "epoll")) -> None:
    """Make waitress's loop (in this process) use a cached poll; its ``loop`` looks ``poll2`` up at each call."""
    wasyncore.poll2 = CachedPoll(epoll=epoll)
