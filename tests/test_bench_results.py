"""bench/results.py: each bench replaces its own section of bench/RESULTS.md, the load beside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.results import replace_section

LOAD = re.compile(r"Written at a load average of \d+\.\d / \d+\.\d / \d+\.\d \(1 / 5 / 15 minutes\) on \d+ cores\.")


def test_a_section_written_says_the_machines_load_under_its_heading(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmarks\n\n## PDF\n\npdf figures\n\n## Web\n\nold figures\n")
    replace_section(results, "## Web", "## Web\n\nnew figures\n")
    head, line, figures = results.read_text().rsplit("\n\n", 2)
    assert head == "# Benchmarks\n\n## PDF\n\npdf figures\n\n## Web"
    assert LOAD.fullmatch(line) and figures == "new figures\n"
    assert LOAD.search(capsys.readouterr().out)  # printed beside the figures too


def test_a_section_that_says_its_load_itself_gets_no_second_line(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    replace_section(results, "## Load", "## Load\n\nfigures (load average 0.8 before the run)\n", load_said=True)
    assert results.read_text() == "# Benchmarks\n\n## Load\n\nfigures (load average 0.8 before the run)\n"
