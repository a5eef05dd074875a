"""docs/errors.md is true and complete.

* Every entry's example raises the class it lists, with exactly the message it shows, and that
  message names the entry's field and offending value (entries marked ``bug:`` are strict xfails
  until the message does).
* Every error construction and ``raise`` in ``src/fastswz/*.py`` (found with ``ast``) maps to an
  entry, by class and by the entry's ``matches`` fragments (literal pieces of the message
  template, ``{}`` for a formatted value); every entry maps to at least one site.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import errors

DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"
SRC = Path(fastswz.__file__).resolve().parent
ERROR_CLASSES = {name for name in errors.__all__
                 if isinstance(getattr(errors, name), type)
                 and issubclass(getattr(errors, name), errors.FastswzError)}
CLASSES = {**{name: getattr(errors, name) for name in ERROR_CLASSES},
           "AttributeError": AttributeError, "IndexError": IndexError,
           "ArgumentTypeError": argparse.ArgumentTypeError}

# Raise sites that are not errors a caller can meet, so the catalogue leaves them out.
# (module, exception name, fragment of the message template) -> why.
INTERNAL = {
    ("layout.py", "_NotExact", ""):
        "control flow inside Layout.__call__: raised and caught in layout.py",
    ("reference.py", "LayoutError", "not a canonical"):
        "the numpy twin's self-check of CuTe's LBO/SBO procedure; only a fastswz bug reaches it",
    ("algebra.py", "LayoutError", "zip: {} and {} have different ranks"):
        "blocked_product/raked_product pad both layouts to one rank first; only bug 14 "
        "(tests/test_fuzz.py) reaches it, with two rank-1 layouts",
    ("bulk.py", "FastswzTypeError", "{}={} must be a string"):
        "tile_configs wraps a bare TypeError from a categorical check; every check raises a "
        "FastswzError for a non-string first, so this is a safety net",
    ("bulk.py", "DescriptorFieldError", "is not a valid {} descriptor"):
        "unpack_error's fallback when decode() accepts a word the kernel flagged; they check the "
        "same rules, so it is unreachable while they agree",
}
# ``raise helper(...)``: the helper returns an error built at a catalogued construction site.
HELPERS = {"coords_error", "smem_field_error", "unpack_error"}


# -- the catalogue ---------------------------------------------------------------------------------
def _entries():
    text = DOC.read_text(encoding="utf-8")
    module = None
    out = []
    for block in re.split(r"^(?=##+ )", text, flags=re.M):
        head = block.splitlines()[0] if block.strip() else ""
        m = re.match(r"## .*\(`(\w+\.py)`\)\s*$", head)
        if m:
            module = m.group(1)
            continue
        m = re.match(r"### (\w+): (.+)$", head)
        if not m:
            continue
        fields = dict(re.findall(r"^- ([a-z ]+): (.*)$", block, flags=re.M))
        field_value = re.match(r"`([^`]*)` · value: `([^`]*)`$", fields.get("field", ""))
        code = re.search(r"```python\n(.*?)\n```", block, flags=re.S)
        message = re.search(r"```text\n(.*?)\n```", block, flags=re.S)
        assert module and field_value and code and message, f"malformed entry: {head}"
        out.append({
            "module": module, "cls": m.group(1), "title": m.group(2).strip(),
            "field": field_value.group(1), "value": field_value.group(2),
            "matches": re.findall(r"`([^`]+)`", fields.get("matches", "")),
            "also": re.findall(r"`([^`]+)`", fields.get("also raised in", "")),
            "bug": fields.get("bug"), "code": code.group(1), "message": message.group(1),
        })
    return out


ENTRIES = _entries()


def _id(entry):
    return f"{entry['module'][:-3]}:{entry['title']}"


def test_catalogue_parses():
    assert len(ENTRIES) > 150
    assert len({_id(e) for e in ENTRIES}) == len(ENTRIES), "two entries share a title"
    for e in ENTRIES:
        assert e["cls"] in CLASSES, e["cls"]
        assert e["matches"], _id(e)


def test_every_error_class_is_catalogued():
    used = {e["cls"] for e in ENTRIES}
    assert ERROR_CLASSES - {"FastswzError"} <= used


def _params():
    for e in ENTRIES:
        marks = [pytest.mark.xfail(strict=True, reason=e["bug"])] if e["bug"] else []
        yield pytest.param(e, id=_id(e), marks=marks)


@pytest.mark.parametrize("entry", list(_params()))
def test_example_raises_what_the_catalogue_says(entry):
    env = {"fastswz": fastswz, "np": np}
    with pytest.raises(CLASSES[entry["cls"]]) as info:
        exec(entry["code"], env)  # noqa: S102 - the catalogue's own examples
    exc = info.value
    assert type(exc).__name__ == entry["cls"]
    if entry["cls"] in ERROR_CLASSES:
        assert isinstance(exc, fastswz.FastswzError)
    message = str(exc)
    if not entry["bug"]:  # a fixed bug changes the message: the field/value check decides
        assert message == entry["message"], f"docs/errors.md shows a stale message; now:\n{message}"
    assert entry["field"] in message, f"the message does not name the field {entry['field']!r}"
    assert entry["value"] in message, f"the message does not name the value {entry['value']!r}"


# -- the raise sites -------------------------------------------------------------------------------
def _template(node):
    """The message template of an error constructor's first argument ({} for values)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left) + _template(node.right)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"):
        return _template(node.func.value)
    if isinstance(node, ast.IfExp):
        return _template(node.body) + "|" + _template(node.orelse)
    return "{}"


def _name(func):
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return "?"


def _sites():
    """(module, line, exception name, template) of every error a caller can meet."""
    sites, unknown = [], []
    for path in sorted(SRC.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        built = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node.func) in ERROR_CLASSES:
                built.add(id(node))
                sites.append((path.name, node.lineno, _name(node.func),
                              _template(node.args[0]) if node.args else ""))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or node.exc is None:  # bare re-raise
                continue
            exc = node.exc
            if id(exc) in built:
                continue
            name = _name(exc.func) if isinstance(exc, ast.Call) else _name(exc)
            if name in HELPERS or (isinstance(exc, ast.Name) and name[:1].islower()):
                continue  # an error built by a helper, or one held in a variable (built above)
            if isinstance(exc, ast.Call) and name in CLASSES:
                sites.append((path.name, node.lineno, name,
                              _template(exc.args[0]) if exc.args else ""))
            elif any(k[0] == path.name and k[1] == name for k in INTERNAL):
                sites.append((path.name, node.lineno, name, ""))
            else:
                unknown.append(f"{path.name}:{node.lineno} raise {name}")
    return sites, unknown


SITES, UNKNOWN_RAISES = _sites()


def _internal(site):
    module, _, name, template = site
    return any(module == m and name == n and frag in template for m, n, frag in INTERNAL)


def _covers(entry, site):
    module, _, name, template = site
    return (name == entry["cls"] and module in (entry["module"], *entry["also"])
            and all(frag in template for frag in entry["matches"]))


def test_raise_statements_are_understood():
    assert not UNKNOWN_RAISES, "raise of an unknown kind (add a class or helper above)"


def test_every_raise_site_is_catalogued():
    assert len(SITES) > 150
    missing = [f"{m}:{line} {name}: {template!r}" for m, line, name, template in SITES
               if not _internal((m, line, name, template))
               and not any(_covers(e, (m, line, name, template)) for e in ENTRIES)]
    assert not missing, "not in docs/errors.md:\n" + "\n".join(missing)


def test_every_entry_matches_a_site():
    stale = [_id(e) for e in ENTRIES if not any(_covers(e, s) for s in SITES)]
    assert not stale, f"entries whose fragments match no raise site: {stale}"


def test_internal_skips_still_exist():
    for key, why in INTERNAL.items():
        assert any(_internal(s) and s[0] == key[0] and s[2] == key[1] for s in SITES), (key, why)
