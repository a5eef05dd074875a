"""Sphinx configuration of the fastswz documentation site.

Build (from the repository root, with the extension module built in place or fastswz installed):

    pip install '.[docs]'
    sphinx-build -W --keep-going -b html docs/site /tmp/fastswz-site

The API page is generated here from ``fastswz.__all__`` (so every public name is on it), the CLI
page from the argparse parser (``fastswz.cli._parser``), and the Markdown pages (gallery,
comparison, conformance, errors) are the repository's own files, included through MyST.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
try:  # an installed fastswz (CI), else the in-place build of this checkout
    import fastswz
except ImportError:
    sys.path.insert(0, str(ROOT / "src"))
    import fastswz

project = "fastswz"
author = "the fastswz authors"
copyright = "the fastswz authors"  # noqa: A001 - Sphinx's name
release = version = fastswz.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",   # numpydoc-style docstrings
    "myst_parser",           # the repository's Markdown pages
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the signatures carry no annotations worth repeating
myst_heading_anchors = 3
html_theme = "alabaster"
html_title = f"fastswz {release}"
# Links in the included Markdown pages point at repository files (logs, results) that are not
# site pages; they stay plain links on the site.
suppress_warnings = ["myst.xref_missing"]


def _api_page() -> str:
    """One autodoc entry per name in ``fastswz.__all__``, grouped as the package groups them."""
    lines = ["API reference", "=============", "",
             "Every public name of :mod:`fastswz` (``fastswz.__all__``), from its docstring; the",
             "examples in them are doctests that ``tests/test_doctests.py`` runs.", "",
             ".. module:: fastswz", ""]
    groups = {"Classes": [], "Functions": [], "Data": []}
    for name in fastswz.__all__:
        obj = getattr(fastswz, name)
        if inspect.isclass(obj):
            groups["Classes"].append(f".. autoclass:: fastswz.{name}\n   :members:\n")
        elif callable(obj):
            groups["Functions"].append(f".. autofunction:: fastswz.{name}\n")
        else:  # data: autodoc reads the ``#:`` comment in the module that assigns it
            home = next(m for m in sorted(sys.modules) if m.startswith("fastswz.")
                        and str(getattr(sys.modules[m], "__file__", "")).endswith(".py")
                        and re.search(rf"^{name}\b[^\n]*=", Path(sys.modules[m].__file__).read_text(), re.M))
            groups["Data"].append(f".. autodata:: {home}.{name}\n   :no-value:\n")
    for title, entries in groups.items():
        lines += [title, "-" * len(title), "", *entries, ""]
    # The optional GPU runtime (extra ``cuda``): importable without a GPU or cuda-bindings.
    lines += ["GPU runtime (fastswz.cuda)", "-" * 26, "",
              *(f".. autofunction:: fastswz.cuda.{n}\n" for n in
                ("gemm", "compile_gemm", "compile_many", "supported", "choose_plan",
                 "default_out_dtype", "normalize_config", "kernel_sources")),
              ".. autodata:: fastswz.cuda.EPILOGUE_MIN_STAGES\n   :no-value:\n",
              ".. autoclass:: fastswz.cuda.runtime.GemmKernel\n   :members:\n",
              ".. autofunction:: fastswz.cuda.runtime.check\n",
              ".. autofunction:: fastswz.cuda.codegen.mma_header\n",
              ".. autofunction:: fastswz.plan.with_cluster\n", ""]
    # The GEMM shape corpus (package data) and its loader: no GPU needed.
    lines += ["Shape corpus (fastswz.corpus)", "-" * 29, "",
              *(f".. autofunction:: fastswz.corpus.{n}\n" for n in
                ("load_corpus", "validate_corpus", "corpus_header", "token_bucket")),
              ".. autoclass:: fastswz.corpus.GemmProblem\n   :members: flops, bytes, key\n",
              ".. autodata:: fastswz.corpus.CORPUS_PATH\n   :no-value:\n",
              ".. autodata:: fastswz.corpus.BUCKETS\n   :no-value:\n", ""]
    return "\n".join(lines)


def _cli_page() -> str:
    """The ``--help`` of ``fastswz`` and of every subcommand, from the argparse parser itself."""
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal; fix the width for the page
    from fastswz.cli import _parser

    parser = _parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    lines = ["# Command line", "",
             "`fastswz` (or `python -m fastswz`), generated from the argparse parser "
             "(`fastswz.cli`). Bad input exits with status 2 and one line `fastswz: error: ...`; "
             "the [error catalogue](../errors.md) lists every message.", "",
             "```text", parser.format_help().rstrip(), "```", ""]
    for name, p in sub.choices.items():
        lines += [f"## fastswz {name}", "", "```text", p.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def setup(app):
    # Sphinx calls this while loading the configuration, before it reads any source.
    _write_if_changed(HERE / "_generated" / "api.rst", _api_page())
    _write_if_changed(HERE / "_generated" / "cli.md", _cli_page())
    return {"parallel_read_safe": True}
