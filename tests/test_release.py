"""The version has one source, and the changelog records it."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

import fastswz
from fastswz import _version

ROOT = Path(__file__).resolve().parents[1]


def test_version_comes_from_version_module():
    assert fastswz.__version__ == _version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|(a|b|rc)\d+)?", fastswz.__version__)


def test_installed_metadata_matches_the_version():
    # Only an installed fastswz has metadata (CI installs it; PYTHONPATH=src runs skip this).
    try:
        installed = metadata.version("fastswz")
    except metadata.PackageNotFoundError:
        pytest.skip("fastswz is not installed (run from the source tree)")
    assert installed == fastswz.__version__


def test_pyproject_reads_the_version_module():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^dynamic = \["version"\]', text, re.M)
    assert 'version = { attr = "fastswz._version.__version__" }' in text
    assert not re.search(r'^version = "', text, re.M), "a second version in pyproject.toml"


def test_changelog_has_the_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    version = fastswz.__version__
    if ".dev" in version:  # a development version: its changes wait under Unreleased
        assert re.search(r"^## \[Unreleased\]", text, re.M)
    else:
        assert re.search(rf"^## \[{re.escape(version)}\]", text, re.M), (
            f"CHANGELOG.md has no section for version {version}")
