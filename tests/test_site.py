"""The documentation site (docs/site) is complete and its examples run.

The site's examples come from three places, each run by the test suite: the API docstrings
(``tests/test_doctests.py`` runs every module in ``MODULES``; here: every public name is on the
API page and its module is in ``MODULES``), the error catalogue (``tests/test_error_catalogue.py``
runs every example of docs/errors.md) and any ``>>>`` block in the other Markdown pages, which
this file runs. Building the site itself (Sphinx, warnings as errors) is a CI step
(``.ci/run``), not a test: it needs the ``docs`` extra.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import fastswz

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "docs" / "site"


def _conf():
    spec = importlib.util.spec_from_file_location("fastswz_site_conf", SITE / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)  # defines the page generators; writes nothing until setup()
    return conf


def _pages():
    """Every Markdown file the site shows: its own pages and the files they include."""
    pages = sorted(SITE.glob("*.md"))
    for page in list(pages):
        for inc in re.findall(r"```\{include\} (\S+)", page.read_text()):
            pages.append((page.parent / inc).resolve())
    return pages


def test_api_page_lists_every_public_name():
    top, gpu = _conf()._api_page().split("GPU runtime (fastswz.cuda)")
    documented = set(re.findall(r"^\.\. auto\w+:: fastswz\.(?:\w+\.)?(\w+)$", top, re.M))
    assert documented == set(fastswz.__all__)
    # The GPU section documents names beyond fastswz.__all__: each must exist where the page says.
    for dotted in re.findall(r"^\.\. auto\w+:: (fastswz\.[\w.]+)$", gpu, re.M):
        module, name = dotted.rsplit(".", 1)
        assert name in importlib.import_module(module).__all__, dotted
    assert {"gemm", "compile_gemm", "supported", "choose_plan"} <= set(re.findall(r"fastswz\.cuda\.(\w+)$", gpu, re.M))


def test_every_documented_module_runs_its_doctests():
    spec = importlib.util.spec_from_file_location("td", ROOT / "tests" / "test_doctests.py")
    td = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(td)
    homes = {getattr(fastswz, n).__module__ for n in fastswz.__all__
             if hasattr(getattr(fastswz, n), "__module__") and callable(getattr(fastswz, n))}
    assert homes <= set(td.MODULES), homes - set(td.MODULES)


def test_cli_page_covers_every_subcommand():
    from fastswz.cli import _parser

    page = _conf()._cli_page()
    sub = next(a for a in _parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(re.findall(r"^## fastswz (\w+)$", page, re.M)) == set(sub.choices)


def test_site_includes_the_repository_pages():
    names = {p.name for p in _pages()}
    assert {"README.md", "CUTE_COMPARISON.md", "CONFORMANCE.md", "errors.md", "gluon.md", "linear.md"} <= names
    index = (SITE / "index.md").read_text()
    for page in ("_generated/api", "_generated/cli", "gallery", "comparison", "dialects", "conformance",
                 "errors"):
        assert f"\n{page}\n" in index


@pytest.mark.parametrize("page", [p for p in _pages() if p.name != "errors.md"],
                         ids=lambda p: p.name)
def test_markdown_examples_run(page):
    # errors.md's examples are run (with their exact messages) by test_error_catalogue.py
    blocks = re.findall(r"```(?:python|pycon)\n(.*?)```", page.read_text(), re.S)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for i, text in enumerate(blocks):
        runner.run(parser.get_doctest(text, {}, f"{page.name}[{i}]", str(page), 0))
    assert runner.failures == 0
