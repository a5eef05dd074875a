"""The import graph of src/fastswz has no cycle, counting imports inside functions too.

Every module is parsed with ``ast`` (nothing is imported), each ``import``/``from ... import``
anywhere in it (module level, function bodies, ``if TYPE_CHECKING`` blocks) and each
``importlib.import_module("fastswz....")`` / ``__import__`` of a literal name becomes an edge to
the fastswz module it names, and the graph must be acyclic: dependencies point one way
(int_tuple <- layout <- swizzle <- algebra <- notation; rules <- bulk <- tile; ...), so a
parameter walks from the CLI to the kernel without returning to a module it left.

The GPU runtime ``fastswz.cuda`` (a subpackage) is one node, ``cuda``: it imports plan, emit and
tune, and nothing below it imports it; only the CLI (the top layer) reaches into it. Edges between
its own modules are its business.
"""

from __future__ import annotations

import ast
from pathlib import Path

import fastswz

SRC = Path(fastswz.__file__).resolve().parent
PKG = "fastswz"


def _target(module: str, node: ast.AST, package: str = PKG) -> list[str]:
    """The fastswz modules an import node names, relative to ``module`` of ``package``."""
    out = []
    if isinstance(node, ast.Call):
        # importlib.import_module("fastswz.x") / __import__("fastswz.x"): an import all the same
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if (name in ("import_module", "__import__") and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            v = node.args[0].value
            if v == PKG or v.startswith(PKG + "."):
                out.append(v)
        return out
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == PKG or alias.name.startswith(PKG + "."):
                out.append(alias.name)
        return out
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        # fastswz is flat but for its cuda subpackage: levels climb from the module's package
        parts = package.split(".")
        assert node.level <= len(parts), f"{module}: import {node.level} levels up"
        base = ".".join(parts[:len(parts) - node.level + 1])
        parent = base + ("." + node.module if node.module else "")
    else:
        parent = node.module or ""
        if not (parent == PKG or parent.startswith(PKG + ".")):
            return out
    if parent == PKG:
        # "from fastswz import layout" names a submodule; "from fastswz import Layout" the package
        for alias in node.names:
            sub = PKG + "." + alias.name
            if ((SRC / (alias.name + ".py")).exists() or (SRC / (alias.name + ".pyx")).exists()
                    or (SRC / alias.name / "__init__.py").exists()):
                out.append(sub)
            else:
                out.append(PKG)
        return out
    return [parent]


def module_deps(module: str, source: str, package: str = PKG) -> set[str]:
    """The graph nodes a module's source imports (``__init__`` for the package itself, ``cuda``
    for anything in the runtime subpackage)."""
    deps = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Call)):
            for name in _target(module, node, package):
                short = "__init__" if name == PKG else name[len(PKG) + 1:].split(".")[0]
                if short != module:
                    deps.add(short)
    return deps


def import_graph() -> dict[str, set[str]]:
    """module -> set of fastswz modules it imports (short names; the package is ``__init__``,
    the runtime subpackage with all its modules ``cuda``)."""
    graph = {}
    for path in sorted(SRC.glob("*.py")):
        graph[path.stem] = module_deps(path.stem, path.read_text(encoding="utf-8"))
    cuda = set()
    for path in sorted((SRC / "cuda").glob("*.py")):
        cuda |= module_deps("cuda", path.read_text(encoding="utf-8"), PKG + ".cuda")
    graph["cuda"] = cuda
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
    # the runtime's imports of the layers below it, from its modules' "from ..x import"
    assert {"tune", "plan", "emit", "errors", "dtypes"} <= graph["cuda"]
    assert "cuda" in graph["cli"]


def test_graph_sees_every_way_to_import_the_runtime():
    # the circle issue 29 removed went tune -> measure -> importlib.import_module("fastswz.cuda")
    # -> (fastswz.cuda imports tune); each spelling of that edge is seen
    for src in ('import importlib\ndef f():\n    return importlib.import_module("fastswz.cuda")\n',
                'def f():\n    from .cuda import search\n',
                'def f():\n    from . import cuda\n',
                'def f():\n    import fastswz.cuda.search\n',
                'def f():\n    return __import__("fastswz.cuda")\n'):
        assert "cuda" in module_deps("tune", src), src
    # and makes the cycle the test below refuses
    graph = import_graph()
    graph["tune"] = graph["tune"] | {"cuda"}
    cycle = find_cycle(graph)
    assert cycle is not None and "cuda" in cycle and "tune" in cycle


def test_find_cycle_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_import_graph_is_acyclic():
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_nothing_below_the_runtime_imports_it():
    # fastswz.cuda is the optional top of the library: the model, plans and emitters never reach
    # into it (import fastswz works without the extra); the CLI alone may, lazily
    graph = import_graph()
    above = {"cli", "__main__", "cuda"}
    bad = {m: sorted(d & {"cuda"}) for m, d in graph.items() if m not in above and "cuda" in d}
    assert not bad, f"modules below the runtime import it: {bad}"
    assert not (SRC / "measure.py").exists()   # the measured search lives in cuda/search.py


def test_only_the_package_and_cli_sit_above_everything():
    # nothing imports the CLI or the package's __init__ (they are the top of the graph)
    graph = import_graph()
    for module, deps in graph.items():
        if module not in ("__main__", "__init__"):
            assert "cli" not in deps and "__init__" not in deps, (module, deps)
