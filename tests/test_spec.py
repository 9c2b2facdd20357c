"""The spec and the golden data kept in the repo are the shared ones, word for word.

The product is judged against ``../shared`` (the rules, the formats, the fixtures); the repo
keeps copies so that it builds, tests and reads without it. Where ``../shared`` stands beside
the checkout (a developer's machine, CI), a copy that drifted fails here rather than in a
dispute at the table."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

COPIES = [(SHARED / "spec", ROOT / "docs" / "spec"), (SHARED / "fixtures", ROOT / "tests" / "fixtures")]


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("shared", "copy"), COPIES, ids=["spec", "fixtures"])
def test_copy_is_the_shared_one(shared: Path, copy: Path) -> None:
    if not shared.is_dir():
        pytest.skip(f"{shared} is not beside this checkout: nothing to compare with")
    theirs, ours = _files(shared), _files(copy)
    assert sorted(theirs) == sorted(ours), "files differ in name: copy the shared folder again"
    changed = [name for name in theirs if theirs[name] != ours[name]]
    assert changed == [], f"copy again from {shared}: {changed}"


def test_the_spec_is_in_the_repo() -> None:
    """What the code cites (RULES.md, RECORD.md) is readable from the checkout alone."""
    for name in ("RULES.md", "RECORD.md"):
        assert (ROOT / "docs" / "spec" / name).stat().st_size > 1000
