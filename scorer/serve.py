"""``make run``: serve the app with waitress (a production WSGI server), not Flask's dev server.

From the environment:

- HOST and PORT (127.0.0.1:5000); HOST=0.0.0.0 serves the phones on the local network.
- WORKERS: server processes, one per core by default. One Python process runs Python
  code on one core at a time (the GIL), so a second core serves only through a second
  process; each listens on the port with SO_REUSEPORT (the kernel spreads the connections
  evenly among them), and they share SQLite (WAL) their database.
- THREADS: threads per process (8). The PDFs a process makes at once (``SCARTO_PDF_RENDERS``, 2) and
  the requests waiting for a turn (``SCARTO_PDF_QUEUE``, 2) are kept fewer together, so a thread is left
  for pages and assets (:func:`leave_a_thread`).
- The processes of one run share the pages they render (the shared cache, :mod:`scorer.storage.shared_cache`):
  the parent marks the run (``SCARTO_PAGE_CACHE_RUN``) and empties the shared cache before they start.
- POLL: how waitress's loop waits on its connections: epoll (the default; registrations
  cached, :mod:`scorer.cached_poll`), poll (cached, on poll()), waitress (its own loop).
- CONNECTION_LIMIT (4000 per process) and CHANNEL_TIMEOUT (30 s): idle or half-open
  connections are dropped after the timeout (waitress's defaults, 100 and 120 s, let 150
  half-open connections lock everyone out). CLIENT_CONNECTIONS (100 per process and address)
  and REQUEST_TIMEOUT (20 s from a request's first byte to its headers' end, its body timed by
  BODY_RATE): one client's slow or many connections cannot use up the connections the phones
  need (:class:`BoundedChannel`). Every phone keeps a connection open between requests; a hundred club nights are
  3,600 phones, so the limit is high, the file-descriptor limit is raised to match, and
  waitress polls with poll() instead of select() (which stops at descriptor 1,024).

A request waitress cannot read (a malformed request line, headers too large) is answered with our
error page and headers (:class:`RefusedPage`), as every other refusal.

Every request is logged (``scorer.access``) with its tokens and audit records blanked out:
a log line never opens a match.
"""

from __future__ import annotations

import gc
import logging
import os
import re
import resource
import secrets
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import click
from waitress import serve
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, WSGITask
from werkzeug.test import EnvironBuilder

from . import cached_poll
from .engine.limits import MAX_SERVER_BODY_BYTES, MAX_UPLOAD_BYTES
from .storage import shared_cache
from .web.safety import REFUSED, SERVED_AT

log = logging.getLogger("scorer.access")

_SECRETS = r"audit/k|audit|m|c|n"
"""The addresses whose next part opens something: a match, a hand's audit, a club, a night (their tokens)."""
_SECRET_PATH = re.compile(rf"^/({_SECRETS})/[^/?]+")


def redact(path: str) -> str:
    """A request path as it may be logged: the token (or the hand carried in an audit link) blanked out."""
    return _SECRET_PATH.sub(lambda m: f"/{m.group(1)}/…", path, count=1)


class Redact(logging.Filter):
    """Blanks tokens out of waitress's own messages ("Exception while serving /m/<token>/")."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = re.sub(rf"/({_SECRETS})/[^/\s?]+", lambda m: f"/{m.group(1)}/…", message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


class AccessLog:
    """One line a request: method, path without its token or query, status, bytes, milliseconds."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        start = time.perf_counter()
        seen: dict[str, str] = {}

        def recording_start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            seen["status"] = status.split(" ", 1)[0]
            seen["length"] = next((v for k, v in headers if k.lower() == "content-length"), "-")
            return start_response(status, headers, exc_info)

        answer: Any = None
        try:
            answer = self.app(environ, recording_start)
            yield from answer
        finally:
            try:
                if hasattr(answer, "close"):  # WSGI's rule: what the answer holds (a file, a turn) is let go
                    answer.close()
            finally:
                log.info("%s %s %s %s %.0fms", environ.get("REQUEST_METHOD", "-"),
                         redact(environ.get("PATH_INFO", "")), seen.get("status", "-"), seen.get("length", "-"),
                         1000 * (time.perf_counter() - start))


class RefusedPage(ErrorTask):
    """waitress's answer to a request it could not read (a malformed request line or header, headers
    too large, a broken chunked body): our error page with our headers, made by the app from a stand-in
    request, instead of waitress's bare text without them. Should the app fail at it, waitress's own."""

    def execute(self) -> None:
        code = self.request.error.code
        environ = EnvironBuilder(path="/", headers=[("Host", "invalid.host")]).get_environ()
        environ.update({REFUSED: code, "REMOTE_ADDR": str((self.channel.addr or ("-",))[0])})
        answered: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            answered.update(status=status, headers=headers)

        try:
            body = b"".join(self.channel.server.application(environ, start_response))
            status, headers = answered["status"], answered["headers"]
        except Exception:  # noqa: BLE001 - the bare answer rather than none
            logging.getLogger("scorer").exception("the error page for a request waitress refused failed")
            super().execute()
            return
        self.status = status
        self.response_headers.extend((k, v) for k, v in headers if k.lower() not in ("content-length", "connection"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class ServedTask(WSGITask):
    """A request as waitress hands it to the app, with the address of this machine its connection arrived
    on (``scarto.served_at``): with ``HOST=0.0.0.0`` the server serves every address of the machine, and a
    ``Host`` naming the one a phone connected to is one the server serves (web/safety.py's HostCheck)."""

    def get_environment(self) -> Any:
        environ = super().get_environment()
        if SERVED_AT not in environ:
            channel = self.channel
            served = getattr(channel, "served_at", None)
            if served is None:
                try:
                    served = str(channel.socket.getsockname()[0]).lower()
                except (OSError, IndexError, TypeError):
                    served = ""
                channel.served_at = served
            environ[SERVED_AT] = served
        return environ


@dataclass(frozen=True)
class ClientBounds:
    """What one client may hold of a server process (see :class:`BoundedChannel`)."""

    connections: int
    """Connections open at once from one address (0: no bound)."""
    request_seconds: float
    """Seconds from a request's first byte to the end of its headers."""
    body_rate: int
    """Bytes a second a body must arrive at, at the least: its size at this rate is added to the time."""
    uncounted: frozenset[str]
    """Addresses whose connections are not counted: this machine's own (the proxy in front, a benchmark)."""


LOOPBACK = frozenset({"127.0.0.1", "::1"})


def client_bounds(*, trust_proxy: bool = False) -> ClientBounds:
    """The bounds from the environment: CLIENT_CONNECTIONS (100), REQUEST_TIMEOUT (20 s), BODY_RATE
    (16 KB/s). Behind a proxy (SCARTO_TRUST_PROXY) every connection comes from the proxy: none is counted
    (the proxy bounds its clients, docs/DEPLOY.md); the time a request may take still holds."""
    connections = 0 if trust_proxy else int(os.environ.get("CLIENT_CONNECTIONS", "100"))
    return ClientBounds(connections, float(os.environ.get("REQUEST_TIMEOUT", "20")),
                        max(1, int(os.environ.get("BODY_RATE", "16384"))), LOOPBACK)


class BoundedChannel(HTTPChannel):
    """A connection of waitress's that one client cannot use to shut the others out (slowloris).

    waitress drops a connection only after ``CHANNEL_TIMEOUT`` seconds of silence, and counts only the
    connections of the whole process: a client sending a header line every ten seconds held a
    connection for good, and 8,200 of them from one address took every connection there was (a normal
    request timed out five times in five). So:

    - a request must arrive within :attr:`ClientBounds.request_seconds` of its first byte, its headers
      and then its body (given time by its size at :attr:`ClientBounds.body_rate`, for a slow phone's
      upload): dribbled bytes do not keep it alive. Checked at each read and, for one gone silent, each
      time the loop asks the connection (at least once a second with the cached poll, scorer/cached_poll.py);
    - one address holds at most :attr:`ClientBounds.connections` connections at once: a connection past
      them is closed as soon as it is accepted. A phone opens six at most, so a hundred leaves room for
      a few phones sharing one address, and the others' connections are always there.

    It also carries the app's own answer to a request waitress could not read (:class:`RefusedPage`) and
    the address the connection arrived on (:class:`ServedTask`).
    """

    task_class = ServedTask
    error_task_class = RefusedPage
    bounds = ClientBounds(0, 20.0, 16384, LOOPBACK)
    _counted: str | None = None
    _timed: Any = None  # the request being read, whose time runs
    _deadline = 0.0
    _body_timed = False

    @classmethod
    def limit(cls, bounds: ClientBounds) -> None:
        """The bounds this process's connections keep (set before it serves)."""
        cls.bounds = bounds

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:  # noqa: A002
        super().__init__(server, sock, addr, adj, map)
        client = str(addr[0]) if isinstance(addr, tuple) and addr else ""
        if not self.bounds.connections or client in self.bounds.uncounted:
            return
        with _CLIENTS_GUARD:
            held = _CLIENTS.get(client, 0)
            if held >= self.bounds.connections:
                refused = True
            else:
                refused = False
                _CLIENTS[client] = held + 1
                self._counted = client
        if refused:
            self.close()

    def del_channel(self, map: Any = None) -> None:  # noqa: A002
        super().del_channel(map)
        client, self._counted = self._counted, None
        if client is not None:
            with _CLIENTS_GUARD:
                left = _CLIENTS.get(client, 1) - 1
                if left > 0:
                    _CLIENTS[client] = left
                else:
                    _CLIENTS.pop(client, None)

    def received(self, data: bytes) -> bool:
        now = time.monotonic()
        if self.request is not None and now > self._deadline:
            self.handle_close()  # dribbled too long: no answer (it would only keep the connection)
            return False
        taken = bool(super().received(data))
        request = self.request
        if request is None:
            self._timed = None
        elif request is not self._timed:  # a request began in these bytes: its time runs from now
            self._timed, self._deadline = request, now + self.bounds.request_seconds
            self._body_timed = False
        if request is not None and request.headers_finished and not self._body_timed:
            self._body_timed = True  # the body's time, by its size (chunked: the largest the app takes)
            size = MAX_UPLOAD_BYTES if getattr(request, "chunked", False) else request.content_length or 0
            self._deadline += size / self.bounds.body_rate
        return taken

    def readable(self) -> bool:
        if self.request is not None and time.monotonic() > self._deadline:
            self.will_close = True  # gone silent before its end: closed from the loop (``writable`` says so)
            return False
        return bool(super().readable())


_CLIENTS: dict[str, int] = {}
"""Connections open in this process by each client address that is counted."""
_CLIENTS_GUARD = threading.Lock()


def raise_file_limit() -> int:
    """This process's limit of open files raised to 16,384 (or the hard limit) and returned: a phone
    keeps a connection open, and a hundred club nights are 3,600 phones (systemd's default is 1,024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 16384 if hard == resource.RLIM_INFINITY else min(hard, 16384)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    return soft


def settings() -> dict[str, Any]:
    """waitress's settings from the environment (see the module's docstring)."""
    soft = raise_file_limit()
    limit = int(os.environ.get("CONNECTION_LIMIT", "4000"))
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, max(10, soft - 50))  # leave descriptors for the database and the PDF workers
    return {
        "threads": int(os.environ.get("THREADS", "8")),
        "connection_limit": limit,
        "channel_timeout": int(os.environ.get("CHANNEL_TIMEOUT", "30")),
        "cleanup_interval": 5,
        "backlog": 2048,
        "max_request_body_size": MAX_SERVER_BODY_BYTES,
        "ident": "scarto",
        "asyncore_use_poll": True,  # select() stops at descriptor 1,024: a club night's phones need more
    }


def _app() -> Any:
    from . import create_app

    return AccessLog(create_app())


POLL_WAYS = ("epoll", "poll", "waitress")


def _serve_socket(sock: socket.socket, options: dict[str, Any]) -> None:
    way = os.environ.get("POLL", "epoll")  # POLL=poll: cached registrations on poll(); POLL=waitress: its own
    if way != "waitress":
        cached_poll.install(epoll=way == "epoll")
    app = _app()
    BoundedChannel.limit(client_bounds(trust_proxy=bool(app.app.config.get("TRUST_PROXY"))))
    TcpWSGIServer.channel_class = BoundedChannel
    gc.collect()
    gc.freeze()  # the app's own objects (modules, templates, catalogues) out of every later collection
    serve(app, sockets=[sock], **options)


def _reserve(host: str, port: int) -> socket.socket:
    """The address the processes will serve, bound (``PORT=0``: a free port chosen) but not listening.

    Each process listens on a socket of its own with ``SO_REUSEPORT``, and the kernel spreads the new
    connections evenly among them. On one shared socket, whichever process woke first took them: 16
    phones connecting at once went 16 to 0 or 14 to 2 in three tries, leaving one core idle while the
    other's phones queued. A socket only bound takes no connections, but holds the port's group, so a
    port in use is refused here, at the start, once.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:  # without SO_REUSEPORT: refused when
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)    # anything holds the port, another
        probe.bind((host, port))                                         # server of ours too (it would share)
        port = probe.getsockname()[1]
    reserve = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        reserve.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the last run's closed connections
        reserve.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)  # (TIME_WAIT) do not hold the port
        reserve.bind((host, port))
    except OSError:
        reserve.close()
        raise
    return reserve


def _share_page_cache(config: Any) -> None:
    """The processes about to start share their rendered pages: a mark of this run (in every key of the
    shared cache, so nothing the last run's code made is served) and an empty shared cache
    (web/page_cache.py)."""
    path = shared_cache.shared_cache_path(str(config.get("DATABASE") or ""))
    if path is None or not int(config.get("PAGE_CACHE_BYTES", config.get("KEPT_PAGE_BYTES", 1))):
        return
    os.environ["SCARTO_PAGE_CACHE_RUN"] = "run-" + secrets.token_hex(8)  # "run-": never read as a JSON number
    shared_cache.reset(path)


def worker_count() -> int:
    """Server processes: ``WORKERS``, or one per core (a process runs Python on one core at a time)."""
    return int(os.environ.get("WORKERS", "0") or 0) or (os.cpu_count() or 1)


def leave_a_thread(config: Any, threads: int) -> tuple[int, int] | None:
    """The PDFs made at once and the requests waiting for a turn, fewer together than a process's threads
    (renders first, one at least), or None when they are already: a PDF holds its thread while its worker
    process renders it (up to PDF_TIMEOUT), and so does a request waiting for its turn (up to PDF_WAIT),
    so that pages and assets are still served while PDFs are made. ``PDF_RENDERS=0`` (each PDF in its
    request's thread, for trials) is left as it is. ValueError when either is not a whole number."""
    renders, queue = int(config.get("PDF_RENDERS") or 0), max(0, int(config.get("PDF_QUEUE") or 0))
    if renders == 0 or renders + queue <= threads - 1:
        return None
    fewer_renders = min(renders, max(1, threads - 1))
    return fewer_renders, min(queue, max(0, threads - 1 - fewer_renders))


def _fit_pdfs(config: Any, threads: int) -> None:
    """:func:`leave_a_thread` for the processes about to start (they read the settings from the
    environment when they make their app), said on the way; a setting that is no number stops the start."""
    try:
        fewer = leave_a_thread(config, threads)
    except (TypeError, ValueError):
        sys.exit(f"SCARTO_PDF_RENDERS={config.get('PDF_RENDERS')!r}, SCARTO_PDF_QUEUE={config.get('PDF_QUEUE')!r}: "
                 "say whole numbers (2 and 2 unless told otherwise).")
    if fewer is None:
        return
    renders, queue = fewer
    os.environ["SCARTO_PDF_RENDERS"], os.environ["SCARTO_PDF_QUEUE"] = str(renders), str(queue)
    print(f"SCARTO_PDF_RENDERS={config.get('PDF_RENDERS')} and SCARTO_PDF_QUEUE={config.get('PDF_QUEUE')} with "
          f"THREADS={threads} would leave no thread for pages: {renders} PDF{'s' if renders > 1 else ''} at once, "
          f"{queue} waiting.", file=sys.stderr, flush=True)


def main() -> None:
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "5000"))
    workers = worker_count()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("waitress").addFilter(Redact())
    options = settings()
    if os.environ.get("POLL", "epoll") not in POLL_WAYS:
        sys.exit(f"POLL={os.environ['POLL']}: say one of {', '.join(POLL_WAYS)} (epoll unless told otherwise).")
    try:
        checked = _app()  # the configuration checked once, before any process serves (a bad secret key stops here)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    _fit_pdfs(checked.app.config, options["threads"])
    if workers > 1:
        _share_page_cache(checked.app.config)
    else:  # one process shares with nobody: a mark left in the environment would keep an old run's pages
        os.environ.pop("SCARTO_PAGE_CACHE_RUN", None)
    try:
        reserve = _reserve(host, port) if workers > 1 else socket.create_server((host, port),
                                                                                backlog=options["backlog"])
    except OSError as exc:
        sys.exit(f"Cannot serve on {host}:{port}: {exc.strerror or exc}. Set PORT (or HOST) to a free one.")
    if workers == 1:
        _serve_socket(reserve, options)
        return
    port = reserve.getsockname()[1]  # the reserve stays open, bound and not listening, until the server stops
    print(f"Serving on http://{host}:{port} with {workers} processes of {options['threads']} threads", flush=True)
    children: set[int] = set()
    stopping = False

    def start_child() -> None:
        pid = os.fork()
        if pid == 0:  # the child: a server of its own, on a listening socket of its own
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            reserve.close()
            try:
                _serve_socket(socket.create_server((host, port), backlog=options["backlog"], reuse_port=True),
                              options)
            finally:
                os._exit(0)
        children.add(pid)

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(workers):
        start_child()
    while children:
        try:
            pid, _status = os.wait()
        except ChildProcessError:
            break
        children.discard(pid)
        if not stopping:  # a process that died is replaced: the others went on serving meanwhile
            logging.getLogger("scorer").error("server process %s ended; starting another", pid)
            time.sleep(0.5)
            start_child()


if __name__ == "__main__":
    main()
