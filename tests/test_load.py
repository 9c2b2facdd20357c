"""Many phones at once: a short run of bench/load.py against the real server, and the race it found."""

from __future__ import annotations

import importlib.util
import random
import statistics
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from scorer.engine.records import parse_match
from scorer.storage import db as database
from scorer.storage import store
from tests.matchutil import points_match

pytestmark = pytest.mark.slow  # make test-fast leaves it out

ROOT = Path(__file__).resolve().parent.parent


def _load_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_load", ROOT / "bench" / "load.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


load = _load_module()


def test_a_short_load_run_has_no_errors_and_stores_every_acknowledged_hand_once(tmp_path: Path) -> None:
    """6 phones with matches of their own and 3 racing on a shared match, for 3 seconds."""
    report = load.run(6, 3, 3.0, seed=7, folder=tmp_path)
    assert report.errors == [], report.summary()
    assert report.problems == [], report.summary()
    # enough saves to have raced on the shared match (a busy machine makes fewer: 15 with three test workers)
    assert report.acknowledged >= 10 and report.shared_hands >= 3, report.summary()
    assert report.matches > 3
    assert set(report.statuses) <= {200, 201, 302, 409}
    every_form = {"POST hand (points)", "POST hand (cards)", "POST hand (honours)", "POST hand (live)",
                  "POST hand (live JSON)", "POST live check", "POST /new", "POST /api/matches"}
    assert every_form <= set(report.kinds), sorted(report.kinds)


def test_matches_created_at_the_same_moment_all_wait_their_turn(tmp_path: Path) -> None:
    """The load run's first finding: creating a match read the schema before writing, so a second
    writer got "database is locked" at once instead of waiting (a 500 on /new and /api/matches)."""
    path = tmp_path / "race.sqlite"
    setup = database.connect(path)
    database.migrate(setup)
    setup.conn.close()
    match = parse_match(points_match(2))
    failures: list[BaseException] = []
    start = threading.Barrier(8)

    def create() -> None:
        db = database.connect(path)
        try:
            start.wait()
            for _ in range(15):
                store.create_match(db, match)
        except BaseException as exc:  # any failure is what the test reports
            failures.append(exc)
        finally:
            db.conn.close()

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    check = database.connect(path)
    assert check.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 8 * 15
    assert check.execute("SELECT COUNT(*) FROM hands").fetchone()[0] == 8 * 15 * 2
    check.conn.close()


def test_write_replaces_only_the_load_section(tmp_path: Path, monkeypatch: Any) -> None:
    results = tmp_path / "RESULTS.md"
    monkeypatch.setattr(load, "RESULTS", results)
    results.write_text("# Benchmarks\n\n## PDF\n\npdf figures\n\n## Load\n\nold figures\n\n## Web\n\nweb figures\n")
    load.write("## Load\n\nnew figures\n")
    assert results.read_text() == ("# Benchmarks\n\n## PDF\n\npdf figures\n\n## Load\n\nnew figures\n\n"
                                   "## Web\n\nweb figures\n")
    results.write_text("# Benchmarks\n\n## PDF\n\npdf figures\n")
    load.write("## Load\n\nnew figures\n")
    assert results.read_text() == "# Benchmarks\n\n## PDF\n\npdf figures\n\n## Load\n\nnew figures\n"


@pytest.mark.slow
def test_a_short_club_night_run_stores_every_acknowledged_hand_once(tmp_path: Path) -> None:
    """bench/load.py --clubs, shortened: 6 clubs x 12 tables x 3 phones at a person's pace for 9 seconds
    (more phones for fewer seconds: more hands saved, 13 here, in a shorter run that mostly waits)."""
    report = load.run_clubs(6, 9.0, seed=3, folder=tmp_path)
    assert report.errors == [], report.summary()
    assert report.problems == [], report.summary()
    assert report.clients == 216 and report.acknowledged >= 5, report.summary()
    assert set(report.statuses) <= {200, 302, 409}
    assert {"GET match page", "GET entry page (points)", "POST hand (points)"} <= set(report.kinds)
    assert report.arrival_p99_ms > 0  # type: ignore[attr-defined]  # 9 s: all of it the arrival
    section = load.clubs_section([report], "bench/load.py --clubs 6")
    assert "## Club nights" in section and "| 6 | steady | 216 |" in section


def _busiest_share(together: bool) -> float:
    """The busiest whole second of the first 20 over the mean rate, for 3,600 phones acting every 3 to 10 s
    from their first actions (made as bench/load.py makes them, without a server: each action instant)."""
    rng = random.Random(7)
    starts = []
    for _phone in range(3600):
        when = load.first_action(rng, together)
        while when < 60:
            starts.append(when)
            when += rng.uniform(*load.PACE)
    mean = len(starts) / 60
    busiest = load.busiest_second([s for s in starts if s < 20])
    return busiest / mean


def test_a_steady_arrival_holds_the_loads_rate_from_the_first_second() -> None:
    """The phones start at the load's own rate (3,600 / 6.5 s = 554 a second): no second of the first 20 has
    a tenth more; all together in the first 10 s, the second actions pile onto the first ones (two fifths more)."""
    assert _busiest_share(together=False) < 1.1
    assert _busiest_share(together=True) > 1.25


def test_a_first_action_waits_what_is_left_of_a_phones_wait() -> None:
    """Steady: the wait a phone has left when seen at a random moment of its 3-to-10-s waits, whose mean is
    E[X^2] / 2E[X] = (49/12 + 6.5^2) / 13 = 3.56 s, never more than 10 s; together: uniform over 10 s."""
    rng = random.Random(3)
    steady = [load.first_action(rng) for _ in range(40_000)]
    assert 0 <= min(steady) and max(steady) <= 10
    assert abs(statistics.fmean(steady) - (49 / 12 + 6.5 ** 2) / 13) < 0.05
    assert abs(sum(s < 3 for s in steady) / len(steady) - 3 / 6.5) < 0.01
    together = [load.first_action(rng, True) for _ in range(40_000)]
    assert abs(statistics.fmean(together) - 5) < 0.05


def _report(clubs: int, together: bool, p99: float, cpu_seconds: float) -> Any:
    report = load.Report(clients=clubs * 36, shared=0, seconds=60, wall=60, requests=1000, median_ms=2, p99_ms=p99,
                         mean_ms=3, errors=[], conflicts=0, acknowledged=10, matches=12 * clubs, shared_hands=0,
                         problems=[], kinds={}, statuses={200: 1000}, server_cpu=cpu_seconds, client_cpu=0.1,
                         load_before=0.5)
    report.clubs, report.together = clubs, together
    report.lag_p99_ms = report.arrival_p99_ms = report.later_p99_ms = p99
    report.busiest = 600
    return report


def test_the_club_nights_reading_says_which_sizes_held_in_every_run_and_at_what_speed() -> None:
    """A size that held in some runs only is told as such (not "held up to 100"), beside the CPU a request
    of the runs that held and of those that missed."""
    reports = [_report(75, False, 33, 2.15), _report(100, False, 306, 2.19), _report(100, False, 16, 1.29),
               _report(100, True, 12, 1.06)]
    section = load.clubs_section(reports, "bench/load.py --clubs 75 100")
    flat = " ".join(section.split())
    assert ("stored once): arriving steady, held in every run up to **75 clubs**, and at 100 clubs in 1 of 2 runs; "
            "arriving together, held in every run up to **100 clubs** (at 100 clubs a request cost 1.06 to 1.29 ms "
            "of CPU in the runs that held, 2.19 ms in those that missed: the host's speed).") in flat
    assert "| 100 | steady | 3600 |" in section and "| 100 | together | 3600 |" in section


def test_the_reading_says_up_to_only_below_the_first_size_that_missed() -> None:
    """Held at 50, missed at 75, held at 100: not "up to 100"; runs arriving together alone are read too."""
    flat = " ".join(load.clubs_section([_report(50, False, 20, 1.5), _report(75, False, 300, 2.3),
                                        _report(100, False, 40, 1.4)], "x").split())
    assert ("arriving steady, held in every run up to **50 clubs**, and at 75 clubs in 0 of 1 runs, and at 100 "
            "clubs in 1 of 1 runs") in flat
    together = " ".join(load.clubs_section([_report(100, True, 20, 1.2)], "x").split())
    assert "stored once): arriving together, held in every run up to **100 clubs**." in together
