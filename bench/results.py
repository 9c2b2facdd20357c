"""bench/RESULTS.md holds one section per benchmark; each script replaces only its own."""

from __future__ import annotations

from pathlib import Path


def replace_section(results: Path, heading: str, text: str) -> None:
    """Put ``text`` (which starts with ``heading``) in place of that section, or add it at the end."""
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
