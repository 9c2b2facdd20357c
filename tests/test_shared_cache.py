"""The shared cache (scorer/storage/shared_cache.py): rendered pages the server's processes share,
bounded, and a cache only: a fault of its file never fails a page."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from scorer.storage import shared_cache as shared_cache_module
from scorer.storage.shared_cache import SharedCache, digest, reset, shared_cache_path
from tests.serverutil import ROOT


def rows(path: str) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [key for (key,) in conn.execute("SELECT key FROM pages ORDER BY rowid")]


def test_the_shared_cache_sits_beside_the_database_and_not_for_one_in_memory() -> None:
    assert shared_cache_path("/srv/instance/scarto.sqlite") == "/srv/instance/scarto.cache.sqlite"
    assert shared_cache_path(":memory:") is None and shared_cache_path("") is None


def test_a_page_put_by_one_process_is_found_by_another(tmp_path: Path) -> None:
    path = str(tmp_path / "x.cache.sqlite")
    SharedCache(path, 10_000).put("a", b"<p>page</p>")
    found = subprocess.run([sys.executable, "-c", "from scorer.storage.shared_cache import SharedCache; import sys; "
                            f"sys.stdout.buffer.write(SharedCache({path!r}, 10_000).get('a'))"],
                           cwd=ROOT, capture_output=True, check=True).stdout
    assert found == b"<p>page</p>"
    assert SharedCache(path, 10_000).get("b") is None


def test_a_key_has_the_same_name_in_every_process() -> None:
    key = ("match page", "Club 1 — table 2", 3, None, "/tmp/x.sqlite")
    other = subprocess.run([sys.executable, "-c", "from scorer.storage.shared_cache import digest; "
                            f"print(digest({key!r}))"], cwd=ROOT, capture_output=True, check=True, text=True,
                           env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout.strip()
    assert other == digest(key) and digest(key) != digest(key[:-1])


def test_a_key_that_could_name_an_address_is_refused() -> None:
    with pytest.raises(TypeError):
        digest(("match page", object()))


def test_the_oldest_pages_go_first_past_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_cache_module, "TRIM_EVERY", 1)
    path = str(tmp_path / "x.cache.sqlite")
    cache = SharedCache(path, limit=350)
    for name in "abcd":
        cache.put(name, b"x" * 100)
    assert rows(path) == ["b", "c", "d"]  # 400 bytes past 350: the oldest went
    cache.put("b", b"y" * 100)  # put again: counts as new
    cache.put("e", b"z" * 100)
    assert rows(path) == ["d", "b", "e"]
    cache.put("big", b"x" * 351)  # larger than the whole bound: not kept, nothing pushed out
    assert rows(path) == ["d", "b", "e"]


def test_a_write_that_finds_the_file_busy_is_skipped_not_waited_for(tmp_path: Path) -> None:
    path = str(tmp_path / "x.cache.sqlite")
    cache = SharedCache(path, 10_000)
    cache.put("a", b"one")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    try:
        done = threading.Event()

        def put() -> None:
            cache.put("b", b"two")
            done.set()

        threading.Thread(target=put).start()
        assert done.wait(2), "the put waited for the other writer"
        assert cache.get("a") == b"one" and not cache.broken  # reads go on (WAL), the cache stays on
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert cache.get("b") is None


def test_a_file_that_cannot_be_used_turns_the_shared_cache_off_with_one_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "x.cache.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    cache = SharedCache(str(path), 10_000)
    with caplog.at_level(logging.WARNING, logger="scorer"):
        assert cache.get("a") is None
        cache.put("a", b"page")
        assert cache.get("a") is None
    assert cache.broken
    assert len([r for r in caplog.records if "cannot be used" in r.getMessage()]) == 1


def test_after_a_fault_the_shared_cache_is_tried_again_a_while_later(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.cache.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    cache = SharedCache(str(path), 10_000)
    monkeypatch.setattr(shared_cache_module, "RETRY_AFTER", 0.2)
    cache.put("a", b"page")
    assert cache.broken
    path.unlink()  # mended (a disk that was full has room again)
    cache.put("a", b"page")
    assert cache.get("a") is None  # still left alone
    time.sleep(0.25)
    cache.put("a", b"page")
    assert cache.get("a") == b"page" and not cache.broken


def test_a_start_empties_the_shared_cache_and_makes_a_damaged_one_again(tmp_path: Path) -> None:
    path = str(tmp_path / "x.cache.sqlite")
    SharedCache(path, 10_000).put("a", b"last run")
    reset(path)
    assert rows(path) == []
    Path(path).write_bytes(b"damaged" * 1000)
    Path(path + "-wal").unlink(missing_ok=True)
    reset(path)
    cache = SharedCache(path, 10_000)
    cache.put("a", b"page")
    assert cache.get("a") == b"page" and not cache.broken
