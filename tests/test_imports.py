"""No module of kb imports one that imports it back: the graph of kb's own imports, read from
the source, has no cycle. Every import counts: at module level, inside a function, under ``if
TYPE_CHECKING``, and ``importlib.import_module("kb....")`` with the name written out. A name
made at run time (the CLI's table of commands) is not an import of the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from realdata import ROOT

KB = ROOT / "kb"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def kb_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(KB.rglob("*.py"))}


def imported(module: str, source: str, modules: set[str], package: bool) -> set[str]:
    """The kb modules ``source`` (the text of ``module``) imports: ``from kb import db`` is
    kb.db when kb/db.py exists, else kb itself; relative imports are resolved."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: len(module.split(".")) - node.level + package]
                base = ".".join([*parent, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    edges = set()
    for name in found:
        # the innermost kb module the name is, or is in (``import kb.site.build`` is kb.site.build)
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            edges.add(name)
    return edges


def import_graph() -> dict[str, set[str]]:
    modules = kb_modules()
    names = set(modules)
    return {
        module: imported(module, path.read_text("utf-8"), names, path.name == "__init__.py")
        for module, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan's algorithm), each
    starting at its first module in name order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(_cycle_in(graph, group) for group in groups)


def _cycle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"{sorted(group)} holds no cycle")  # pragma: no cover


def test_kb_has_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in found)


MODULES = {"kb", "kb.a", "kb.a.b", "kb.c"}


@pytest.mark.parametrize(
    "module,source,package,expected",
    [
        ("kb.c", "import kb.a.b\nimport os", False, {"kb.a.b"}),
        ("kb.c", "from kb import a\nfrom kb import version", False, {"kb.a", "kb"}),
        ("kb.c", "def f():\n    from kb.a.b import thing\n", False, {"kb.a.b"}),
        ("kb.a.b", "from . import x\nfrom .. import c", False, {"kb.a", "kb.c"}),
        ("kb.a", "from .b import thing", True, {"kb.a.b"}),
        ("kb.a", "import kbx\nfrom kb.a import y", True, set()),
        ("kb.a", "importlib.import_module('kb.c')\nimport_module(name)", True, {"kb.c"}),
    ],
)
def test_imports_are_read_from_the_source(
    module: str, source: str, package: bool, expected: set[str]
) -> None:
    assert imported(module, source, MODULES, package) == expected


def test_a_cycle_is_named() -> None:
    graph = {"kb.a": {"kb.b"}, "kb.b": {"kb.c"}, "kb.c": {"kb.a", "kb.d"}, "kb.d": set()}
    assert cycles(graph) == [["kb.a", "kb.b", "kb.c", "kb.a"]]
    assert cycles({"kb.a": {"kb.d"}, "kb.d": set()}) == []


def test_the_parser_process_loads_no_database_code() -> None:
    """The import's parser process loads kb.parsing and what it imports: the parsers, not
    SQLAlchemy nor the loader (a third of its start, docs/importing.md)."""
    import subprocess
    import sys

    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, kb.parsing; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    assert "'kb.importers.mtgjson'" in loaded
    assert "sqlalchemy" not in loaded
    assert "'kb.loader'" not in loaded
