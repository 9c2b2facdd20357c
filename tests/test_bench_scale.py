"""bench/bench_scale.py: its matches can be made, and its savers save as a phone does."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_scale import BareServer, Saver, seed

pytestmark = pytest.mark.slow  # a server started; make test-fast leaves it out


def test_a_saver_follows_each_save_to_the_page_so_no_message_waits_in_its_cookie(tmp_path: Path) -> None:
    """A browser follows a save's redirect to the match page, which shows the flashed message and so
    takes it out of the session. The savers did not: every save's message waited in the session cookie
    (kept to the newest three), carried and read by every later request, which measured the saves on a
    cookie no phone has."""
    database = tmp_path / "scale.sqlite"
    small, large = seed(database, [20, 1000 - 4])
    server = BareServer(database).start(init_db=False)
    try:
        savers = [Saver(server.port, small), Saver(server.port, large)]
        before = [len(saver.client.cookies["session"]) for saver in savers]
        for _ in range(4):
            for saver in savers:
                assert saver.save() > 0
        assert [len(saver.client.cookies["session"]) for saver in savers] == before
        assert [saver.count for saver in savers] == [24, 1000]
        for saver in savers:
            saver.client.close()
    finally:
        server.stop()
