"""PDFs made in worker processes: a few at once, each with a time limit, never a queue that grows.

A WeasyPrint render cannot be interrupted inside a thread, and while it runs it holds the
GIL for most of its time: eight of them in the server's eight threads left nothing to
serve the pages and their CSS. So each render runs in a worker process of its own:

- at most ``size`` at once (fewer than the server's threads, so pages and files keep being
  served); a request that finds every worker busy waits ``wait`` seconds at most, then
  :class:`Busy` (the app answers 503 with Retry-After);
- a render past ``timeout`` seconds is ended by killing its process (:class:`TooSlow`); a
  new worker takes its place on the next request;
- the workers live on between renders, so each keeps its fonts and parsed stylesheet (see
  ``pdf._renderer``): the per-sheet cost is the in-process one plus the copy of the HTML
  there and the PDF back (bench/bench_pdf.py measures both).

Workers are started with ``spawn`` (a fresh interpreter): forking a process that runs
server threads could copy a lock held by another thread.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Mapping
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


def _serve(conn: Connection) -> None:
    """A worker's life: read a job, render it, send the PDF (or the error) back; until the pipe closes."""
    from .pdf import html_to_pdf

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
    def __init__(self, context: Any) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True, name="scarto-pdf")
        self.process.start()
        child.close()

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
        return bool(self.process.is_alive())

    def stop(self) -> None:
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


class RenderPool:
    """At most ``size`` renders at once in worker processes, each stopped after ``timeout`` seconds."""

    def __init__(self, size: int = 2, timeout: float = 30.0, wait: float = 0.5) -> None:
        if size < 1:
            raise ValueError("a render pool needs at least one worker")
        self.size, self.timeout, self.wait = size, timeout, wait
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._context = multiprocessing.get_context("spawn")

    def render(self, html: str, folder: str, resources: Mapping[str, bytes] | None = None,
               stylesheet: str = "pdf.css") -> bytes:
        """The PDF of ``html`` (as ``pdf.html_to_pdf`` makes it); Busy, TooSlow or RenderFailed instead."""
        if not self._slots.acquire(timeout=self.wait):
            raise Busy()
        try:
            worker = self._take()
            pdf = worker.render((html, folder, dict(resources or {}), stylesheet), self.timeout)
            self._give_back(worker)
            return pdf
        finally:
            self._slots.release()

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.stop()
        return _Worker(self._context)

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


_POOLS: dict[tuple[int, float, float], RenderPool] = {}
_POOLS_LOCK = threading.Lock()


def pool(size: int, timeout: float, wait: float) -> RenderPool:
    """The process's pool for these settings (made on first use, kept for the process's life)."""
    key = (size, float(timeout), float(wait))
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = RenderPool(size, timeout, wait)
        return _POOLS[key]
