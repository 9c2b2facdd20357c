"""The real server as a separate process, started the way ``make run`` starts it.

``make run`` brings the schema up to date with ``flask --app scorer init-db`` and
then runs ``python -m scorer.serve`` (waitress) with HOST and PORT from the
environment. :class:`Server` does the same on a free loopback port with the
database in a file of the caller's choosing, waits until the app answers, and
stops it: politely (SIGTERM) or, for the crash tests, with SIGKILL. The server runs
in a session of its own, so that SIGKILL takes all of it at once, as a power cut
does: the supervisor, its server processes and their PDF workers (killing only the
supervisor left its processes serving on the port, unkilled and never ended). The secret
key is given in the environment so that forms fetched before a restart can still
be posted after it, and nothing is written into the repository's ``instance/``.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlencode, urlsplit

from scorer.storage import db as database

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
"""Only loopback: these servers are never reachable from another machine."""


def free_port() -> int:
    """A TCP port nobody listens on at the moment (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class ServerError(RuntimeError):
    """The server did not start (its output is in the message)."""


class Server:
    """``python -m scorer.serve`` on 127.0.0.1 with its own database file."""

    def __init__(self, database: Path | str, *, port: int | None = None, threads: int = 8) -> None:
        self.database = Path(database)
        self.port = port or free_port()
        self.threads = threads
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.database.with_suffix(".log")
        self._secret = "k-" + secrets.token_hex(16)  # "k-": never read as a JSON number by from_prefixed_env

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCARTO_")}
        env.update(HOST=HOST, PORT=str(self.port), THREADS=str(self.threads),
                   SCARTO_DATABASE=str(self.database), SCARTO_SECRET_KEY=self._secret)
        return env

    def command(self) -> list[str]:
        """What starts the server: ``python -m scorer.serve``, as ``make run`` runs it."""
        return [sys.executable, "-m", "scorer.serve"]

    def init_db(self) -> None:
        """What ``flask --app scorer init-db`` does before ``make run`` serves (tests/test_db.py runs the
        command itself), done here: the command in a process of its own cost some 0.8 s of processor
        time for each server a test starts, Flask's start-up rather than the migrations."""
        db = database.connect(str(self.database))
        try:
            database.migrate(db)
        finally:
            db.conn.close()

    def start(self, *, init_db: bool = True, timeout: float = 20.0) -> Server:
        """Start serving (after ``init-db`` unless told not to) and wait until the start page answers."""
        if self.process is not None and self.process.poll() is None:
            raise ServerError("already running")
        if init_db:
            self.init_db()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command(), cwd=ROOT, env=self.env(),
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise ServerError(f"the server exited with {self.process.returncode}:\n{self.output()}")
            conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
            try:
                conn.request("GET", "/")
                if conn.getresponse().status == 200:
                    return
            except (OSError, http.client.HTTPException):  # not listening yet, or slow to answer on a busy machine
                pass
            finally:
                conn.close()
            if time.monotonic() > deadline:
                self.kill()
                raise ServerError(f"the server did not answer within {timeout} s:\n{self.output()}")
            time.sleep(0.02)

    def cpu_seconds(self) -> float | None:
        """CPU time the server has used so far, its processes and their PDF workers together (Linux; None
        elsewhere or when not running)."""
        if self.process is None or self.process.poll() is not None:
            return None
        total, pending = 0, [self.process.pid]
        while pending:
            pid = pending.pop()
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                pending += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
            except OSError:
                if pid == self.process.pid:
                    return None
                continue
            total += int(fields[11]) + int(fields[12])  # utime + stime
        return total / os.sysconf("SC_CLK_TCK")

    def output(self) -> str:
        """What the server printed (waitress's start line, any logged exception)."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def _group(self) -> list[int]:
        """The live (not yet dead) processes of the server's session: its supervisor, server processes and
        PDF workers (Linux: read from /proc)."""
        if self.process is None:
            return []
        alive = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == self.process.pid and fields[0] not in "ZX":  # process group, state
                alive.append(int(stat.parent.name))
        return alive

    def kill(self) -> None:
        """SIGKILL to every process of the server at once: it dies mid-whatever, as on a power cut. Returns
        when none of them is left (the port and the database files are free again)."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if self.process.poll() is None:
            self.process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while self._group() and time.monotonic() < deadline:
            time.sleep(0.005)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM and wait (SIGKILL if it does not go); whatever of it is left after that is killed."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def __enter__(self) -> Server:
        return self.start() if self.process is None else self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


# --- a phone's side of the conversation ------------------------------------------------

_CSRF = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"')


def hidden(page: str, name: str) -> str | None:
    """The value of a hidden field of a page (None if the page has no such field)."""
    match = re.search(rf'name="{name}" type="hidden" value="([^"]*)"', page)
    return match.group(1) if match else None


def csrf_token(page: str) -> str | None:
    match = _CSRF.search(page)
    return (match.group(1) or match.group(2)) if match else None


@dataclass
class Answer:
    """One response: status, headers (lower-case names), body, and how long it took."""

    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def location(self) -> str:
        """The path a redirect points to."""
        return urlsplit(self.headers.get("location", "")).path


@dataclass
class Client:
    """One phone: a kept-alive HTTP connection to the server and its own cookies (standard library only)."""

    port: int
    timeout: float = 30.0
    cookies: dict[str, str] = field(default_factory=dict)
    conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> Answer:
        """Send one request and read the whole answer; OSError (connection refused, reset...) is raised."""
        sent = {"Host": f"{HOST}:{self.port}", "Accept-Language": "en", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        start = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=sent)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise ConnectionError(f"{method} {path}: {exc!r}") from exc
        seconds = time.perf_counter() - start
        answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data, seconds)
        for header in response.headers.get_all("Set-Cookie") or ():
            self._keep(header)
        if response.will_close:
            self.close()
        return answer

    def _keep(self, header: str) -> None:
        for name, morsel in SimpleCookie(header).items():
            if morsel["max-age"] == "0" or (morsel["expires"] and "1970" in morsel["expires"]):
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = morsel.value

    def get(self, path: str, **headers: str) -> Answer:
        return self.request("GET", path, headers=headers)

    def post_form(self, path: str, fields: dict[str, str]) -> Answer:
        return self.request("POST", path, urlencode(fields).encode(),
                            {"Content-Type": "application/x-www-form-urlencoded"})

    def post_json(self, path: str, value: Any, headers: dict[str, str] | None = None) -> Answer:
        return self.request("POST", path, json.dumps(value).encode(),
                            {"Content-Type": "application/json", **(headers or {})})
