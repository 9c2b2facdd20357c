"""bench/RESULTS.md holds one section per benchmark; each script replaces only its own."""

from __future__ import annotations

import os
from pathlib import Path


def load_line() -> str:
    """The machine's load averages now, as a line for a section: the benches run on shared cores, and
    a figure read without the load it was taken under says little (the same code, a fifth slower)."""
    one, five, fifteen = os.getloadavg()
    return (f"Written at a load average of {one:.1f} / {five:.1f} / {fifteen:.1f} (1 / 5 / 15 minutes) on "
            f"{os.cpu_count()} cores.")


def replace_section(results: Path, heading: str, text: str, *, load_said: bool = False) -> None:
    """Put ``text`` (which starts with ``heading``) in place of that section, or add it at the end.

    Under the heading goes :func:`load_line` (also printed), unless the bench says the load in its own
    text (``load_said``: a load taken before each run, say)."""
    if not load_said:
        line = load_line()
        print(line)
        text = text.replace(heading + "\n", f"{heading}\n\n{line}\n", 1)
    current = results.read_text() if results.exists() else "# Benchmarks\n"
    lines = current.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == heading), None)
    if start is None:
        updated = current.rstrip("\n") + "\n\n" + text
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        tail = "".join(lines[end:])
        updated = "".join(lines[:start]) + text + ("\n" + tail if tail else "")
    results.write_text(updated)
