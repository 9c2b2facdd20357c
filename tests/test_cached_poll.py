"""waitress's loop with cached registrations (scorer/cached_poll.py) serves as waitress's own does:
many kept-alive connections in any order, answers larger than a socket takes at once, idle
connections closed after the timeout, and closed ones forgotten; a connection whose request is
with a worker is asked again when that worker is done, not at every round of the loop."""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from waitress import wasyncore
from waitress.server import create_server

from scorer import cached_poll

BIG = 24 * 1024 * 1024
"""More than the sockets between server and client hold: the server has to wait to write the rest."""


HELD = threading.Event()
"""``/held`` answers once this is set (a request that keeps its worker busy meanwhile)."""


def _app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    path = environ["PATH_INFO"]
    if path == "/held":
        HELD.wait(10)
    body = b"x" * BIG if path == "/big" else path.encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


@pytest.fixture(params=["epoll", "poll"])
def server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(wasyncore, "poll2", cached_poll.CachedPoll(epoll=request.param == "epoll"))
    monkeypatch.setattr(cached_poll, "SWEEP", 0.2)
    served = create_server(_app, host="127.0.0.1", port=0, threads=4, channel_timeout=1, cleanup_interval=1,
                           asyncore_use_poll=True, ident="test")
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    yield served
    served.close()
    thread.join(5)


def _ask(sock: socket.socket, path: str) -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(65536)
        assert chunk, "closed before the answer"
        head += chunk
    head, _, body = head.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    while len(body) < length:
        chunk = sock.recv(1 << 20)
        assert chunk
        body += chunk
    return body


def test_many_kept_alive_connections_asked_in_any_order(server: Any) -> None:
    port = server.effective_port
    phones = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(60)]
    try:
        order = [i for i in range(len(phones)) for _ in range(4)]
        random.Random(3).shuffle(order)
        for n, i in enumerate(order):
            assert _ask(phones[i], f"/{i}/{n}") == f"/{i}/{n}".encode()
    finally:
        for phone in phones:
            phone.close()


def test_an_answer_larger_than_the_socket_takes_is_sent_whole(server: Any) -> None:
    with socket.create_connection(("127.0.0.1", server.effective_port), timeout=10) as phone:
        phone.sendall(b"GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        time.sleep(0.3)  # the server fills the socket and must wait to write the rest
        received = b""
        while b"\r\n\r\n" not in received or len(received.partition(b"\r\n\r\n")[2]) < BIG:
            chunk = phone.recv(1 << 20)
            assert chunk, "closed before the end"
            received += chunk
        assert received.partition(b"\r\n\r\n")[2] == b"x" * BIG
        assert _ask(phone, "/after") == b"/after"  # and the connection goes on


def test_an_idle_connection_is_closed_after_the_timeout_and_forgotten(server: Any) -> None:
    poll = wasyncore.poll2
    with socket.create_connection(("127.0.0.1", server.effective_port), timeout=10) as phone:
        assert _ask(phone, "/one") == b"/one"
        started = time.monotonic()
        assert phone.recv(10) == b"", "closed by the server"
        assert 0.9 < time.monotonic() - started < 5
    deadline = time.monotonic() + 5
    while len(server._map) > 2 and time.monotonic() < deadline:  # the server and its trigger stay
        time.sleep(0.05)
    time.sleep(0.3)
    assert len(server._map) == 2
    assert set(poll.registered) <= set(server._map)


def test_a_closed_connection_makes_room_for_the_next(server: Any) -> None:
    port = server.effective_port
    for n in range(30):  # descriptors are reused: each new connection must be asked as itself
        with socket.create_connection(("127.0.0.1", port), timeout=10) as phone:
            assert _ask(phone, f"/{n}") == f"/{n}".encode()


def test_the_next_request_on_a_connection_is_read_when_its_worker_is_done_not_at_the_sweep(
        server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cached_poll, "SWEEP", 30.0)  # a connection forgotten would wait that long
    with socket.create_connection(("127.0.0.1", server.effective_port), timeout=10) as phone:
        for n in range(20):
            started = time.monotonic()
            assert _ask(phone, f"/{n}") == f"/{n}".encode()
            assert time.monotonic() - started < 2, f"request {n} waited for the sweep"


def test_connections_with_a_worker_are_not_asked_at_every_round(
        server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cached_poll, "SWEEP", 30.0)
    asked: list[Any] = []
    flags = cached_poll._flags

    def asking(obj: Any) -> int:
        asked.append(obj)
        return flags(obj)

    monkeypatch.setattr(cached_poll, "_flags", asking)
    port = server.effective_port
    HELD.clear()
    held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]  # 3 of the 4 workers
    try:
        for phone in held:
            phone.sendall(b"GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
        time.sleep(0.3)  # read and handed to the workers
        busy = {id(obj) for obj in server._map.values() if getattr(obj, "requests", None)}
        assert len(busy) == 3
        asked.clear()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as other:
            for n in range(40):  # each a few rounds of the loop
                assert _ask(other, f"/{n}") == f"/{n}".encode()
        assert sum(id(obj) in busy for obj in asked) <= 3, "the busy connections were asked round after round"
        HELD.set()
        for phone in held:  # each answered, and its next request read, once its worker is done
            received = b""
            while not received.endswith(b"/held"):
                chunk = phone.recv(4096)
                assert chunk, "closed before the answer"
                received += chunk
            started = time.monotonic()
            assert _ask(phone, "/then") == b"/then"
            assert time.monotonic() - started < 2
    finally:
        HELD.set()
        for phone in held:
            phone.close()


def test_a_connection_its_worker_closed_is_named_for_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed send closes the socket in the worker; the descriptor may go to the next connection,
    which the loop must then ask as itself."""
    poll = cached_poll.CachedPoll(epoll=False)
    socket_map: dict[int, Any] = {}
    poll(0.0, socket_map)  # the loop's first round: the map's workers name their connections to it

    class Channel:
        _fileno: int | None = 97
        server = type("Server", (), {"_map": socket_map})()

    def closing(channel: Any) -> None:
        channel._fileno = None

    monkeypatch.setattr(cached_poll, "_service", closing)
    cached_poll._served(Channel())  # type: ignore[arg-type]
    assert list(poll.touched) == [97]
