"""PDFs made in worker processes: a few at once, each with a time limit, never a queue that grows.

A WeasyPrint render cannot be interrupted inside a thread, and while it runs it holds the
GIL for most of its time: eight of them in the server's eight threads left nothing to
serve the pages and their CSS. So each render runs in a worker process of its own:

- at most ``size`` at once, and at most ``queue`` requests waiting ``wait`` seconds for one of
  them (together fewer than the server's threads, so pages and files keep being served:
  scorer/serve.py sees to it); a request that finds every worker busy and the queue full, or
  that waited its ``wait`` out, gets :class:`Busy` (the app answers 503 with Retry-After);
- a render past ``timeout`` seconds is ended by killing its process (:class:`TooSlow`); a
  new worker takes its place on the next request;
- the workers live on between renders, so each keeps its fonts and parsed stylesheet (see
  ``pdf._renderer``): the per-sheet cost is the in-process one plus the copy of the HTML
  there and the PDF back (bench/bench_pdf.py measures both).

Workers are fresh interpreters (``python -m scorer.sheets.worker``), not forks: forking a
process that runs server threads could copy a lock held by another thread, and
multiprocessing's ``spawn`` would import the caller's main script again.
"""

from __future__ import annotations

import atexit
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any


class Busy(Exception):
    """Every worker is making a PDF: try again in a few seconds."""


class TooSlow(Exception):
    """The render took longer than its time limit and was stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the PDF took longer than {seconds:g} s and was stopped")
        self.seconds = round(seconds) if seconds >= 1 else seconds


class RenderFailed(Exception):
    """The worker failed (an error in the render, or the process died)."""


Job = tuple[str, str, dict[str, bytes], str]
STARTUP_SECONDS = 60
"""How long a new worker may take to import WeasyPrint (about a second on an idle machine)."""


def _serve(conn: Connection) -> None:
    """A worker's life: read a job, render it, send the PDF (or the error) back; until the pipe closes."""
    from .pdf import html_to_pdf

    conn.send(("ready", None))  # imported: the time limits count from here
    while True:
        try:
            html, folder, resources, stylesheet = conn.recv()
        except (EOFError, OSError):
            return
        try:
            result: tuple[str, Any] = ("pdf", html_to_pdf(html, folder, resources, stylesheet))
        except Exception as exc:  # reported to the app, which logs it and answers with its page
            result = ("error", f"{type(exc).__name__}: {exc}")
        conn.send(result)


class _Worker:
    """``python -m scorer.sheets.worker FD``: a fresh interpreter talking over one end of a socket pair."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen([sys.executable, "-m", "scorer.sheets.worker", str(theirs.fileno())],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                            close_fds=True)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        if not self.conn.poll(STARTUP_SECONDS):
            self.stop()
            raise RenderFailed(f"the PDF worker did not start within {STARTUP_SECONDS} s")
        try:
            self.conn.recv()
        except (EOFError, OSError) as exc:
            self.stop()
            raise RenderFailed(f"the PDF worker died at start: {exc!r}") from exc

    def render(self, job: Job, timeout: float) -> bytes:
        self.conn.send(job)
        if not self.conn.poll(timeout):
            self.stop()
            raise TooSlow(timeout)
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError) as exc:
            self.stop()
            raise RenderFailed(f"the PDF worker died: {exc!r}") from exc
        if kind != "pdf":
            raise RenderFailed(value)
        return bytes(value)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self.conn.close()
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            pass


class RenderPool:
    """At most ``size`` renders at once in worker processes, each stopped after ``timeout`` seconds, and at
    most ``queue`` requests waiting (``wait`` seconds) for one of them: a request waiting holds its server
    thread as a render does, so the two together bound the threads PDFs can take."""

    def __init__(self, size: int = 2, timeout: float = 30.0, wait: float = 0.5, queue: int = 2) -> None:
        if size < 1:
            raise ValueError("a render pool needs at least one worker")
        self.size, self.timeout, self.wait = size, timeout, wait
        self._slots = threading.BoundedSemaphore(size)
        self._queue = threading.Semaphore(max(0, queue))
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._held = threading.local()

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Hold one of the ``size`` turns (Busy after ``wait`` seconds): taken before the sheet's HTML is
        made, so a request that will be refused does no work, and only ``size`` sheets are made at once."""
        if getattr(self._held, "turn", False):
            yield
            return
        if not self._slots.acquire(blocking=False):
            if not self._queue.acquire(blocking=False):  # the queue full too: refused at once
                raise Busy()
            try:
                taken = self._slots.acquire(timeout=self.wait)
            finally:
                self._queue.release()
            if not taken:
                raise Busy()
        self._held.turn = True
        try:
            yield
        finally:
            self._held.turn = False
            self._slots.release()

    def render(self, html: str, folder: str, resources: Mapping[str, bytes] | None = None,
               stylesheet: str = "pdf.css") -> bytes:
        """The PDF of ``html`` (as ``pdf.html_to_pdf`` makes it); Busy, TooSlow or RenderFailed instead."""
        with self.turn():
            worker = self._take()
            pdf = worker.render((html, folder, dict(resources or {}), stylesheet), self.timeout)
            self._give_back(worker)
            return pdf

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.stop()
        return _Worker()

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def warm(self) -> None:
        """Start the workers now (the first render then pays no interpreter start)."""
        started = [self._take() for _ in range(self.size)]
        for worker in started:
            self._give_back(worker)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()


_POOLS: dict[tuple[int, float, float, int], RenderPool] = {}
_POOLS_LOCK = threading.Lock()


@atexit.register
def _close_pools() -> None:
    """The workers end with the process (they would end anyway when their socket closes)."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
    for each in pools:
        each.close()


def pool(size: int, timeout: float, wait: float, queue: int = 2) -> RenderPool:
    """The process's pool for these settings (made on first use, kept for the process's life)."""
    key = (size, float(timeout), float(wait), queue)
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = RenderPool(size, timeout, wait, queue)
        return _POOLS[key]


def main() -> None:
    """The worker's side: serve renders over the socket whose descriptor is the first argument."""
    _serve(Connection(int(sys.argv[1])))


if __name__ == "__main__":
    main()
