"""The real server as `make run` starts it: processes, connection limits, the access log,
malformed hosts and oversized uploads answered by the app, not by a reset or a bare 500."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from scorer.engine.limits import MAX_UPLOAD_BYTES
from scorer.serve import AccessLog, client_bounds, leave_a_thread, redact, settings, worker_count
from tests.matchutil import points_match
from tests.serverutil import HOST, ROOT, Answer, Client, Server, csrf_token


class _Server(Server):
    def __init__(self, *args: Any, extra: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.extra = extra or {}

    def env(self) -> dict[str, str]:
        return {**super().env(), **self.extra}


def _raw(port: int, request: bytes, timeout: float = 30) -> bytes:
    """Send bytes as they are, read the whole answer."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunks.append(b"<reset>")
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_redacted_paths_hold_no_token() -> None:
    assert redact("/m/AbCdEf0123456789abcdEFGH/hands/new/points") == "/m/…/hands/new/points"
    assert redact("/audit/eJzLSM3JyVcozy_KSQEAGgQEXQ.pdf") == "/audit/…"
    assert redact("/audit/k/0123456789abcdef0123456789abcdef") == "/audit/k/…"
    assert redact("/c/MskuG-3Ojy5D-LY5mNnYriNy/table.pdf") == "/c/…/table.pdf"  # a club's edit link
    assert redact("/n/AbCdEf0123456789abcdEFGH/state.json") == "/n/…/state.json"  # a night's
    assert redact("/static/app.css") == "/static/app.css" and redact("/clubs/new") == "/clubs/new"


def test_the_access_log_closes_the_answer_it_passes_on() -> None:
    """WSGI has the server close the app's answer once it is sent: what the answer holds goes then (a
    file's handle, Flask's ``call_on_close``). Behind the log, an answer read to its end was never closed."""
    closed: list[bool] = []

    class Answer(list[bytes]):
        def close(self) -> None:
            closed.append(True)

    def app(environ: dict[str, Any], start_response: Any) -> Answer:
        start_response("200 OK", [("Content-Length", "2")])
        return Answer([b"ok"])

    answer = AccessLog(app)({"REQUEST_METHOD": "GET", "PATH_INFO": "/"}, lambda *args: None)
    assert b"".join(answer) == b"ok"
    answer.close()  # as waitress does, after the last byte (the answer was read to its end: closed by then)
    assert closed == [True]


def test_a_process_per_core_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make run`` sets no WORKERS: as many processes as cores."""
    monkeypatch.delenv("WORKERS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert worker_count() == 6
    monkeypatch.setenv("WORKERS", "")
    assert worker_count() == 6
    monkeypatch.setenv("WORKERS", "3")
    assert worker_count() == 3
    monkeypatch.setattr("os.cpu_count", lambda: None)  # a system that cannot tell
    monkeypatch.delenv("WORKERS")
    assert worker_count() == 1


def test_pdfs_made_and_waiting_leave_a_thread_for_pages() -> None:
    def fewer(renders: object, queue: object, threads: int) -> tuple[int, int] | None:
        return leave_a_thread({"PDF_RENDERS": renders, "PDF_QUEUE": queue}, threads)

    assert fewer(2, 2, 8) is None  # the defaults: 4 of 8 threads at most
    assert fewer(2, 2, 2) == (1, 0)
    assert fewer(2, 2, 4) == (2, 1)
    assert fewer(8, 2, 4) == (3, 0)
    assert fewer(2, 2, 1) == (1, 0)  # one thread: a PDF takes it whatever is done
    assert fewer(4, -3, 4) == (3, 0)  # a negative queue is none
    assert fewer(0, 2, 1) is None  # each PDF in its request's thread: a trial's choice
    with pytest.raises(ValueError):
        fewer("two", 2, 8)


@pytest.mark.slow
def test_a_server_of_two_threads_makes_one_pdf_at_once(tmp_path: Path) -> None:
    """Slow PDFs on a server of 2 threads: one is made, the others are told "busy" (503) at once, and a
    style sheet still answers meanwhile. With two PDFs at once (the default) both threads were held, and
    the style sheet waited for the first sheet to be done (over a second)."""
    with _Server(tmp_path / "two.sqlite", threads=2, extra={"WORKERS": "1"}) as server:
        assert "would leave no thread for pages: 1 PDF at once, 0 waiting" in server.output()
        phone = Client(server.port)
        created = phone.post_json("/api/matches", points_match(1000))  # a sheet of over a second
        token = created.json()["edit_url"].rstrip("/").split("/m/")[1]
        assert phone.get(f"/m/{token}/sheet.pdf").status == 200  # the worker started, the sheet works
        answers: list[Answer] = []

        def sheet() -> None:
            client = Client(server.port, timeout=120)
            answers.append(client.get(f"/m/{token}/sheet.pdf"))
            client.close()

        renders = [threading.Thread(target=sheet) for _ in range(3)]
        for render in renders:
            render.start()
        time.sleep(0.3)
        css = phone.get("/static/app.css")
        for render in renders:
            render.join(120)
        phone.close()
    assert sorted(answer.status for answer in answers) == [200, 503, 503], answers
    made = next(answer for answer in answers if answer.status == 200)
    # two PDFs at once held both threads: the style sheet waited for one of them to be done
    assert css.status == 200 and css.seconds < made.seconds / 2, (css.seconds, made.seconds)


def test_the_connection_limit_and_timeouts_are_set_for_phones() -> None:
    options = settings()
    assert options["connection_limit"] >= 500 and options["channel_timeout"] <= 60
    assert options["max_request_body_size"] > MAX_UPLOAD_BYTES
    bounds = client_bounds()
    assert 6 <= bounds.connections < options["connection_limit"] and bounds.request_seconds <= 30
    assert "127.0.0.1" in bounds.uncounted and client_bounds(trust_proxy=True).connections == 0  # the proxy's


@pytest.mark.slow
def test_the_server_stays_reachable_and_answers_faults_with_our_pages(tmp_path: Path) -> None:
    with _Server(tmp_path / "serve.sqlite") as server:
        phone = Client(server.port)
        created = phone.post_json("/api/matches", points_match(2))
        edit = created.json()["edit_url"].rstrip("/").split("/m/")[1]
        view = created.json()["view_url"].rstrip("/").split("/m/")[1]
        for path in (f"/m/{edit}/", f"/m/{view}/share", f"/m/{edit}/hands/new/points?x=1", f"/m/{edit}/sheet.pdf"):
            assert phone.get(path).status == 200
        club = phone.post_json("/api/clubs", {"name": "Bar", "players": ["Anna", "Bruno", "Carla"]}).json()
        club_edit = club["edit_url"].rstrip("/").split("/c/")[1]
        assert phone.get(f"/c/{club_edit}/").status == 200

        # 150 half-open connections (connected, nothing sent) while a normal request still answers
        idle = [socket.create_connection((HOST, server.port), timeout=10) for _ in range(150)]
        try:
            started = time.monotonic()
            fresh = Client(server.port, timeout=10)
            assert fresh.get("/").status == 200
            assert time.monotonic() - started < 5
            fresh.close()
        finally:
            for sock in idle:
                sock.close()

        # a malformed Host: our 400 page with our headers, through waitress
        answer = _raw(server.port, b"GET /new HTTP/1.1\r\nHost: a..b\r\nConnection: close\r\n\r\n")
        head, _sep, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400") and b"Content-Security-Policy" in head
        assert b"not a valid host name" in body

        # requests waitress cannot read (a malformed request line, headers too large): our page and headers
        # too, not its bare text
        big = b"X-Big: " + b"a" * 300_000 + b"\r\n"
        for sent, status in ((b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n", b"400"),
                             (b"GET / HTTP/1.1\r\nHost: x\r\n" + big + b"\r\n", b"431")):
            head, _sep, body = _raw(server.port, sent).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.0 " + status) and b"Content-Security-Policy" in head, head  # 1.0: unread
            assert b"The request could not be understood" in body and b"generated by" not in body, body[:300]

        # an upload over the limit: our "too large" page, not a reset
        page = phone.get("/import").text
        token, cookies = csrf_token(page) or "", "; ".join(f"{k}={v}" for k, v in phone.cookies.items())
        size = MAX_UPLOAD_BYTES + 1024
        start = (f"POST /import HTTP/1.1\r\nHost: {HOST}:{server.port}\r\nCookie: {cookies}\r\n"
                 f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {size}\r\n"
                 "Connection: close\r\n\r\n").encode()
        body_sent = f"csrf_token={token}&text=".encode()
        answer = _raw(server.port, start + body_sent + b"x" * (size - len(body_sent)), timeout=60)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
        assert b"larger than the app accepts (16 MB)" in answer and b"<reset>" not in answer
        phone.close()
    log = server.output()
    assert "scorer.access GET /m/…/ 200" in log
    assert edit not in log and view not in log and club_edit not in log, "a token in the log"
    assert "scorer.access GET /c/…/ 200" in log


@pytest.mark.slow
def test_make_run_serves_with_a_process_per_core(tmp_path: Path) -> None:
    with _Server(tmp_path / "procs.sqlite", extra={"WORKERS": "2"}) as server:
        assert server.process is not None
        children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
        assert len(children) == 2
        phone = Client(server.port)
        assert phone.get("/").status == 200
        token = phone.post_json("/api/matches", points_match(2)).json()["edit_url"].rstrip("/").split("/")[-1]
        assert phone.get(f"/m/{token}/").status == 200
        phone.close()
        shelf = sqlite3.connect(tmp_path / "procs.cache.sqlite")  # what a process renders, for the other one
        try:
            assert shelf.execute("SELECT count(*) FROM pages").fetchone()[0] >= 1
        finally:
            shelf.close()
    assert "with 2 processes of 8 threads" in server.output()


def test_one_process_shares_nothing_whatever_the_environment_says(tmp_path: Path) -> None:
    """A run mark left in the environment (a unit file) would keep serving an old run's pages."""
    with _Server(tmp_path / "one.sqlite", extra={"WORKERS": "1", "SCARTO_PAGE_CACHE_RUN": "run-stale"}) as server:
        phone = Client(server.port)
        token = phone.post_json("/api/matches", points_match(2)).json()["edit_url"].rstrip("/").split("/")[-1]
        assert phone.get(f"/m/{token}/").status == 200
        phone.close()
    assert not (tmp_path / "one.cache.sqlite").exists()


def _connections_of(pid: int, port: int) -> int:
    """Established connections to ``port`` that process ``pid`` holds (from /proc: no tool needed)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], fields[9]
        if state == "01" and int(local.split(":")[1], 16) == port:  # 01: ESTABLISHED
            inodes.add(inode)
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().name
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            held += 1
    return held


@pytest.mark.slow
def test_the_processes_share_the_phones_that_connect_at_once(tmp_path: Path) -> None:
    """On one shared socket, whichever process woke first took the connections: phones connecting as the
    server had just started went 16 to 0 or 14 to 2 (the second process still making its app)."""
    with _Server(tmp_path / "spread.sqlite", extra={"WORKERS": "2"}) as server:
        assert server.process is not None
        children = [int(pid) for pid in
                    Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()]
        phones = [socket.create_connection((HOST, server.port), timeout=30) for _ in range(40)]  # at once
        try:
            for phone in phones:
                phone.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}:{server.port}\r\n\r\n".encode())
            for phone in phones:
                assert phone.recv(12).startswith(b"HTTP/1.1 200")
            held = [_connections_of(pid, server.port) for pid in children]
        finally:
            for phone in phones:
                phone.close()
    assert sum(held) == 40
    assert min(held) >= 8, f"the 40 connections went {held} between the processes"


def test_a_port_in_use_is_said_plainly(tmp_path: Path) -> None:
    taken = socket.create_server((HOST, 0))
    port = taken.getsockname()[1]
    try:
        for workers in ("1", "2"):
            server = _Server(tmp_path / "busy.sqlite", port=port, extra={"WORKERS": workers})
            done = subprocess.run([sys.executable, "-m", "scorer.serve"], cwd=ROOT, env=server.env(),
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 1
            assert f"Cannot serve on {HOST}:{port}: Address already in use" in done.stderr
            assert "Traceback" not in done.stderr
    finally:
        taken.close()


@pytest.mark.slow
def test_a_second_server_on_the_same_port_is_refused_not_let_share_it(tmp_path: Path) -> None:
    """Each process listens with SO_REUSEPORT: a second server of ours (another database, say) would
    otherwise get half of the phones."""
    with _Server(tmp_path / "first.sqlite", extra={"WORKERS": "2"}) as first:
        second = _Server(tmp_path / "second.sqlite", port=first.port, extra={"WORKERS": "2"})
        done = subprocess.run([sys.executable, "-m", "scorer.serve"], cwd=ROOT, env=second.env(),
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 1
        assert f"Cannot serve on {HOST}:{first.port}: Address already in use" in done.stderr
        phone = Client(first.port)
        assert phone.get("/").status == 200
        phone.close()


def test_a_restart_finds_its_port_while_the_last_runs_connections_linger(tmp_path: Path) -> None:
    """Connections the server closed first stay in TIME_WAIT for a minute; a listener without
    SO_REUSEPORT (the previous version, WORKERS=1) left them, and the reserve must bind beside them."""
    from scorer.serve import _reserve

    listener = socket.create_server((HOST, 0))
    port = listener.getsockname()[1]
    phone = socket.create_connection((HOST, port))
    served, _address = listener.accept()
    served.close()  # the server closes first: its side lingers in TIME_WAIT
    phone.recv(1)
    phone.close()
    listener.close()
    _reserve(HOST, port).close()


def test_an_unknown_poll_way_is_said_plainly(tmp_path: Path) -> None:
    server = _Server(tmp_path / "poll.sqlite", extra={"POLL": "Epoll"})
    done = subprocess.run([sys.executable, "-m", "scorer.serve"], cwd=ROOT, env=server.env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "POLL=Epoll: say one of epoll, poll, waitress" in done.stderr


def _dribblers(port: int, count: int, source: str) -> list[socket.socket]:
    """``count`` connections from ``source`` (another loopback address: another client), each having sent
    the start of a request and no end to it."""
    opened = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((source, 0))
        sock.settimeout(5)
        sock.connect((HOST, port))  # the kernel completes it from its backlog, accepted or not
        sock.setblocking(False)
        try:
            sock.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        except OSError:
            pass
        opened.append(sock)
    return opened


def _dribble(socks: list[socket.socket]) -> int:
    """A header line more on each connection still open; how many are still open."""
    still = 0
    for sock in socks:
        if sock.fileno() < 0:
            continue
        try:
            if sock.recv(1024) == b"":  # closed by the server (a refused connection gets no answer)
                sock.close()
                continue
        except BlockingIOError:
            pass
        except OSError:
            sock.close()
            continue
        try:
            sock.send(b"X-Slow: a\r\n")
            still += 1
        except OSError:
            sock.close()
    return still


@pytest.mark.slow
@pytest.mark.parametrize("poll", ["epoll", "waitress"])
def test_one_slow_client_cannot_shut_the_others_out(tmp_path: Path, poll: str) -> None:
    """Slowloris: connections from one client, each dribbling a header line now and then, took every
    connection the process had (``CHANNEL_TIMEOUT`` counts only silence), and a normal request timed out.
    One address now holds a bounded number of connections, and a request must arrive within its time from
    its first byte, whatever it dribbles. Small figures here (the defaults: 100 connections, 20 s)."""
    extra = {"WORKERS": "1", "CONNECTION_LIMIT": "120", "CLIENT_CONNECTIONS": "20", "REQUEST_TIMEOUT": "2",
             "POLL": poll}  # the cached poll, and waitress's own loop
    with _Server(tmp_path / "slow.sqlite", extra=extra, threads=4) as server:
        slow = _dribblers(server.port, 200, "127.0.0.2")  # more than the whole process's connections
        try:
            started = time.monotonic()
            time.sleep(0.3)
            assert _dribble(slow) <= 20  # the ones past the bound were closed at once
            fresh = Client(server.port, timeout=3)
            assert fresh.get("/").status == 200  # another client is answered at once
            assert time.monotonic() - started < 2
            fresh.close()
            while time.monotonic() - started < 4.5 and _dribble(slow):  # dribbling does not keep them
                time.sleep(0.4)
            assert _dribble(slow) == 0 and time.monotonic() - started < 4.5
            again = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # the slow client's room is back
            again.bind(("127.0.0.2", 0))
            again.settimeout(3)
            again.connect((HOST, server.port))
            again.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}:{server.port}\r\nConnection: close\r\n\r\n".encode())
            assert again.recv(12).startswith(b"HTTP/1.1 200")
            again.close()
        finally:
            for sock in slow:
                sock.close()

        # without SCARTO_TRUSTED_HOSTS, a Host the server does not serve makes no links
        for sent in (b"GET /new HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
                     b'POST /api/matches HTTP/1.1\r\nHost: evil.example:80\r\nContent-Type: application/json\r\n'
                     b'Content-Length: 2\r\nConnection: close\r\n\r\n{}'):
            answer = _raw(server.port, sent)
            assert answer.startswith(b"HTTP/1.1 400") and b"evil.example" not in answer, answer[:200]
        assert _raw(server.port, f"GET /new HTTP/1.1\r\nHost: {HOST}:{server.port}\r\nConnection: close\r\n"
                    "\r\n".encode()).startswith(b"HTTP/1.1 200")
