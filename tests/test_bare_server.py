"""bench/bare_server.py: the servers the benchmarks measure the app against start and answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_ceiling import BareProcess
from tests.serverutil import Client

pytestmark = pytest.mark.slow  # a server started a case; make test-fast leaves it out


@pytest.mark.parametrize("kind", ["wsgi", "flask", "app"])
def test_each_floor_starts_under_the_apps_server_and_answers_ok(tmp_path: Path, kind: str) -> None:
    """``BARE_APP=wsgi`` (waitress alone), ``flask`` (waitress and Flask) and the app's bare route, each
    served by scorer.serve as bench_ceiling.py's floor starts them (one process)."""
    server = BareProcess(tmp_path / "bare.sqlite", kind).start()
    client = Client(server.port)
    try:
        answer = client.get("/_bare")
        assert (answer.status, answer.body) == (200, b"ok"), server.output()
    finally:
        client.close()
        server.stop()
