"""The import graph of src/fastswz has no cycle, counting imports inside functions too.

Every module is parsed with ``ast`` (nothing is imported), each ``import``/``from ... import``
anywhere in it (module level, function bodies, ``if TYPE_CHECKING`` blocks) becomes an edge to
the fastswz module it names, and the graph must be acyclic: dependencies point one way
(int_tuple <- layout <- swizzle <- algebra <- notation; rules <- bulk <- tile; ...), so a
parameter walks from the CLI to the kernel without returning to a module it left.
"""

from __future__ import annotations

import ast
from pathlib import Path

import fastswz

SRC = Path(fastswz.__file__).resolve().parent
PKG = "fastswz"


def _target(module: str, node: ast.AST) -> list[str]:
    """The fastswz modules an import node names, relative to ``module``."""
    out = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == PKG or alias.name.startswith(PKG + "."):
                out.append(alias.name)
        return out
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        # the package is flat: "from . import x" and "from .x import y" are relative to fastswz
        assert node.level == 1, f"{module}: import {node.level} levels up"
        parent = PKG + ("." + node.module if node.module else "")
    else:
        parent = node.module or ""
        if not (parent == PKG or parent.startswith(PKG + ".")):
            return out
    if parent == PKG:
        # "from fastswz import layout" names a submodule; "from fastswz import Layout" the package
        for alias in node.names:
            sub = PKG + "." + alias.name
            if (SRC / (alias.name + ".py")).exists() or (SRC / (alias.name + ".pyx")).exists():
                out.append(sub)
            else:
                out.append(PKG)
        return out
    return [parent]


def import_graph() -> dict[str, set[str]]:
    """module -> set of fastswz modules it imports (short names; the package is ``__init__``)."""
    graph = {}
    for path in sorted(SRC.glob("*.py")):
        module = path.stem
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name in _target(module, node):
                    short = "__init__" if name == PKG else name[len(PKG) + 1:].split(".")[0]
                    if short != module:
                        deps.add(short)
        graph[module] = deps
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules (first == last), or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if d not in graph:  # the compiled _kernels, or a module that does not exist here
                continue
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_graph_sees_imports():
    # the parser finds relative, absolute and function-level imports alike
    graph = import_graph()
    assert {"errors", "int_tuple"} <= graph["layout"]
    assert "tile" in graph["__init__"] and "cli" in graph["__main__"]


def test_find_cycle_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_import_graph_is_acyclic():
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_only_the_package_and_cli_sit_above_everything():
    # nothing imports the CLI or the package's __init__ (they are the top of the graph)
    graph = import_graph()
    for module, deps in graph.items():
        if module not in ("__main__", "__init__"):
            assert "cli" not in deps and "__init__" not in deps, (module, deps)
