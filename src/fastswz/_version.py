"""The package version, in one place: ``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``)
and :mod:`fastswz` exports it as ``fastswz.__version__``. Record each release in CHANGELOG.md."""

__version__ = "0.2.0"
