"""The layers of the code, read from its imports: engine, sheets, storage, web; no cycle, no arrow back.

Every import statement of ``scorer/`` counts, deferred ones (inside a function) too,
so a cycle cannot hide in a function body.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "scorer"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def imports_of(module: str, path: Path) -> set[str]:
    """The modules of ``scorer`` this module imports (a name imported from a package that is a
    submodule counts as that submodule)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        found.update(name for name in names if name == "scorer" or name.startswith("scorer."))
    return found


GRAPH = {module: imports_of(module, path) for module, path in MODULES.items()}


def blueprints() -> set[str]:
    """The web modules that define a blueprint (``bp = Blueprint(...)``)."""
    out = set()
    for module, path in MODULES.items():
        if not module.startswith("scorer.web."):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and getattr(node.value.func, "id", None) == "Blueprint"):
                out.add(module)
    return out


def in_layer(module: str, layer: str) -> bool:
    return module == layer or module.startswith(layer + ".")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), and self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                out.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_the_reader_sees_the_imports_it_must_judge() -> None:
    """The checks below are only as good as the graph: it knows the arrows the code has today."""
    assert "scorer.engine.cards" in GRAPH["scorer.engine.records"]
    assert "scorer.web.db" in GRAPH["scorer.web.hands"]
    assert "scorer.web" in GRAPH["scorer"]  # create_app's deferred import counts
    assert {"scorer.web.matches", "scorer.web.hands", "scorer.web.sheets"} <= blueprints()
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle() -> None:
    assert cycles(GRAPH) == []


def test_the_engine_imports_nothing_outside_it() -> None:
    arrows = sorted((m, i) for m, deps in GRAPH.items() if in_layer(m, "scorer.engine")
                    for i in deps if not in_layer(i, "scorer.engine") and i != "scorer")
    assert arrows == []


def _outside_imports(path: Path) -> set[str]:
    """The top-level packages outside ``scorer`` a module imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - {"scorer"}


def test_the_rating_maths_sits_on_the_engine_alone() -> None:
    """``scorer.rater``, between the engine and the rest, is the one module that imports openskill, and
    imports nothing of ``scorer`` but the engine: the engine decides, the library only computes."""
    assert "openskill" in _outside_imports(MODULES["scorer.rater"])
    assert [m for m, path in MODULES.items() if "openskill" in _outside_imports(path)] == ["scorer.rater"]
    assert all(in_layer(i, "scorer.engine") for i in GRAPH["scorer.rater"])
    assert "scorer.rater" in GRAPH["scorer.web.clubs_api"] | GRAPH["scorer.cli"]


@pytest.mark.parametrize("layer", ["scorer.sheets", "scorer.storage"])
def test_sheets_and_storage_import_nothing_of_the_web(layer: str) -> None:
    arrows = sorted((m, i) for m, deps in GRAPH.items() if in_layer(m, layer)
                    for i in deps if in_layer(i, "scorer.web"))
    assert arrows == []


def test_no_blueprint_imports_another_blueprint_or_the_factory() -> None:
    bps = blueprints()
    arrows = sorted((m, i) for m in bps for i in GRAPH[m] if (i in bps and i != m) or i == "scorer.web")
    assert arrows == []


def test_importing_the_engine_loads_only_the_standard_library() -> None:
    """In a fresh interpreter: every engine module imported, then nothing but the standard library
    and the engine itself (and the light ``scorer`` package) in ``sys.modules``."""
    engine = sorted(m for m in MODULES if in_layer(m, "scorer.engine"))
    code = ("import importlib, sys; before = set(sys.modules); "  # what the interpreter's start loaded
            f"[importlib.import_module(m) for m in {engine!r}]; "
            "print('\\n'.join(sorted(set(sys.modules) - before)))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    loaded = run.stdout.split()
    outside = [m for m in loaded if m.split(".")[0] not in sys.stdlib_module_names
               and m != "scorer" and not in_layer(m, "scorer.engine")]
    assert outside == []
    assert "scorer.engine.cards" in loaded
