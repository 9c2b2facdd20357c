"""Phones at a person's pace, many thousands of them, from one thread: asyncio over kept-alive HTTP/1.1.

bench/load.py's club nights need 3,600 phones each acting every 3 to 10 s on the same 2-core
machine as the server. Threads with ``http.client`` (one connection each) cost the generator
0.6-0.9 ms of CPU a request, and a request's answer waited for the generator's own GIL before
it was timed: the generator took a third of a core at 550 requests/s and added its own delays
to the latencies it reported. Here one event loop carries every phone: a request is written,
its answer read by Content-Length and timed the moment it is complete. Standard library only.

The server's answers are all ``Content-Length`` framed (Flask's responses, waitress's errors);
anything else is reported as an error, not guessed at.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from tests.serverutil import HOST, Answer


class Failed(Exception):
    """The connection failed or the answer could not be read (the phone reconnects next time)."""


@dataclass
class AsyncPhone:
    """One phone's connection and cookies."""

    port: int
    timeout: float = 30.0
    cookies: dict[str, str] = field(default_factory=dict)
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> Answer:
        return await self.request("GET", path)

    async def post_form(self, path: str, fields: dict[str, str]) -> Answer:
        return await self.request("POST", path, urlencode(fields).encode(),
                                  {"Content-Type": "application/x-www-form-urlencoded"})

    async def request(self, method: str, path: str, body: bytes = b"",
                      headers: dict[str, str] | None = None) -> Answer:
        """Send one request and read its whole answer; :class:`Failed` if that cannot be done."""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}", "Accept-Language: en"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        data = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        start = time.perf_counter()
        try:
            answer = await asyncio.wait_for(self._exchange(data), self.timeout)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self.close()
            raise Failed(f"{method} {path}: {exc!r}") from exc
        answer.seconds = time.perf_counter() - start
        return answer

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The phone's connection, opened now if it has none (before its first request, or again after a
        failure)."""
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        return self.reader, self.writer

    async def _exchange(self, data: bytes) -> Answer:
        reader, writer = await self.connect()
        writer.write(data)
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in header_lines:
            if not line:
                continue
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                self._keep(value)
            headers[name] = value
        if "content-length" not in headers:
            raise ValueError(f"an answer without Content-Length: {status_line}")
        body = await reader.readexactly(int(headers["content-length"]))
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Answer(status, headers, body, 0.0)

    def _keep(self, header: str) -> None:
        """One Set-Cookie header (the app's: a name, a plain value, attributes; http.cookies took 40 us)."""
        pair, _, attributes = header.partition(";")
        name, _, value = pair.strip().partition("=")
        gone = "max-age=0" in attributes.lower().replace(" ", "") or "1970" in attributes
        if gone:
            self.cookies.pop(name, None)
        else:
            self.cookies[name] = value

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None
