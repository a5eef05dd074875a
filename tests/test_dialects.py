"""The dialect pages and translations: CuTe DSL layouts as the DSL printed them, the CLI's
``tile --format``, and docs/dialects/ kept equal to what fastswz computes."""
from __future__ import annotations

import doctest
import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz.cli import main
from fastswz.cute_dsl import from_cute_dsl
from fastswz.algebra import recast
from fastswz.swizzle import ComposedLayout

ROOT = Path(__file__).resolve().parents[1]
TSV = ROOT / "tests" / "data" / "dsl_layouts.tsv"


def _dsl_lines():
    out = []
    for line in TSV.read_text().splitlines():
        if line and not line.startswith("#"):
            name, text = line.split("\t")
            out.append((name, text))
    return out


DSL = _dsl_lines()
KINDS = {"INTER": "none", "SW32": "32B", "SW64": "64B", "SW128": "128B", "SW128_32B": "128B_base32B"}
BITS = {"f16": 16, "bf16": 16, "e4m3": 8, "tf32": 32}


def test_dsl_file_is_whole():
    assert TSV.read_text().startswith("# nvidia-cutlass-dsl 4.8.1")
    assert sum("atom" in n for n, _ in DSL) == 8 * 4 + 9 * 4 and sum("make_smem" in n for n, _ in DSL) == 16


@pytest.mark.parametrize("name, text", [x for x in DSL if " atom " in x[0]], ids=[n for n, _ in DSL if " atom " in n])
def test_dsl_atoms_are_fastswz_atoms(name, text):
    arch, _, kind, dt = name.split()
    major, k = kind.split("_", 1)
    mode = fastswz.SwizzleMode.parse(KINDS[k])
    dsl = fastswz.parse(text)
    assert (dsl.outer.bits, dsl.outer.base, dsl.outer.shift) == mode.swizzle_bits  # byte units
    elem = ComposedLayout(recast(dsl.outer, 8, BITS[dt]), 0, dsl.inner)
    big = None
    for a in (arch, "sm100" if arch == "sm90" else "sm90"):
        try:
            big = fastswz.OperandTile(dt, major, mode, 256, 256, "k" if major == "MN" else "mn", a)
            break
        except fastswz.TileError:
            pass
    if big is None:
        # fastswz refuses on both archs: 128B_base32B is for MN-major 32-bit types only, and an
        # MN-major 32-bit type needs it (PTX tcgen05 valid combinations; wgmma: 16-bit only)
        is32 = mode is fastswz.SwizzleMode.B128_BASE32B
        assert (is32 and dt != "tf32") or (not is32 and major == "MN" and dt == "tf32"), name
        return
    # the DSL atom is the first atom-sized block of the tile (base32B: two 4-row atoms stacked)
    amn, ak = fastswz.size(dsl.inner[0]), fastswz.size(dsl.inner[1])
    tile_map = fastswz.evaluate(big.layout).reshape(big.k, big.mn).T[:amn, :ak]
    np.testing.assert_array_equal(fastswz.evaluate(elem).reshape(ak, amn).T, tile_map)


@pytest.mark.parametrize("name, text", [x for x in DSL if "make_smem" in x[0]],
                         ids=[n for n, _ in DSL if "make_smem" in n])
def test_dsl_tiles_are_canonical_tiles(name, text):
    dt = name.split()[-2]
    major_mn = "COL_MAJOR" in name
    try:
        t = from_cute_dsl(text, dt, "sm90")
    except fastswz.TileError:
        # wgmma transposes only 16-bit operands; the DSL still builds the MN-major fp8 layout
        assert dt == "e4m3" and major_mn
        t = from_cute_dsl(text, dt, "sm100")
    assert t.major == ("MN" if major_mn else "K")
    # and fastswz prints what the DSL printed, in the DSL's spelling (byte swizzle, stage mode)
    inner = fastswz.parse(text).inner
    assert str(fastswz.parse(text).outer)[2:] == str(fastswz.Swizzle(*t.swizzle.swizzle_bits))[2:]
    np.testing.assert_array_equal(fastswz.evaluate(t.layout.inner), fastswz.evaluate(
        fastswz.Layout((inner.shape[0], inner.shape[1]), (inner.stride[0], inner.stride[1]))))


@pytest.mark.parametrize("text, msg", [
    ("(8,64):(64,1)", r"must be a swizzled ComposedLayout"),
    ("S<3,4,3> o 8 o (8,64):(64,1)", r"layout offset 8 must be 0"),
    ("S<3,4,3> o 0 o ((8,8),(64,1),(1,2)):((64,512),(1,0),(0,4096))", r"stage=1 starts at element 4096"),
    ("S<1,1,1> o 0 o (8,64):(64,1)", r"not a tensor-core swizzle"),
    ("S<3,4,3> o 0 o (8,64):(1,8)", r"no canonical bf16 sm90 tile \(8 x 64\) equals"),
])
def test_from_cute_dsl_refusals(text, msg):
    stage = 1 if "(1,2)" in text else 0
    with pytest.raises(fastswz.FastswzError, match=msg):
        from_cute_dsl(text, "bf16", stage=stage)


# -- CLI ------------------------------------------------------------------------------------------
TILE = ["tile", "--dtype", "bf16", "--major", "K", "--swizzle", "128B", "--mn", "64", "--k", "64"]


def test_cli_format_cute_is_the_default(capsys):
    assert main(TILE) == 0
    a = capsys.readouterr().out
    assert main(TILE + ["--format", "cute"]) == 0
    assert capsys.readouterr().out == a and "descriptors" in a


def test_cli_format_linear(capsys):
    from fastswz.linear import to_linear_layout

    assert main(TILE + ["--format", "linear"]) == 0
    out = capsys.readouterr().out
    ll = to_linear_layout(fastswz.OperandTile("bf16", "K", "128B", 64, 64))
    assert out.endswith(str(ll) + "\n") and " - mn=1 -> (72)" in out
    assert main(TILE + ["--format", "linear", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["bases"]["mn"][:3] == [[72], [144], [288]] and j["out_dims"] == [["offset", 4096]]


def test_cli_format_gluon(capsys):
    assert main(TILE + ["--format", "gluon", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j == {"format": "gluon", "operand": "A", "swizzle_byte_width": 128, "element_bitwidth": 16,
                 "rank": 2, "transposed": False, "fp4_padded": False, "block_shape": [64, 64]}
    assert main(TILE + ["--format", "gluon", "--operand", "B"]) == 0
    assert "transposed=True" in capsys.readouterr().out


def test_cli_format_gluon_without_equivalent(capsys):
    argv = ["tile", "--dtype", "bf16", "--major", "MN", "--swizzle", "128B", "--mn", "128", "--k", "64",
            "--format", "gluon"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fastswz: error: ") and "use order='k'" in err[0]


# -- docs/dialects ---------------------------------------------------------------------------------
def _generator():
    spec = importlib.util.spec_from_file_location("dialects_docs", ROOT / "tools" / "dialects_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_dialect_pages_are_current():
    for name, text in _generator().pages().items():
        path = ROOT / "docs" / "dialects" / name
        assert path.exists() and path.read_text() == text, \
            f"docs/dialects/{name} is stale: run PYTHONPATH=src python tools/dialects_docs.py"


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs" / "dialects").glob("*.md")))
def test_dialect_page_examples_run(page):
    text = (ROOT / "docs" / "dialects" / page).read_text()
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
        test = parser.get_doctest(block, {}, f"{page}[{i}]", page, 0)
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def _without_stage(text):
    s = text.replace(",(1,1)):(", "):(")
    return s[:-len(",(0,0))")] + ")" if s.endswith(",(0,0))") else s


def test_dsl_page_shows_what_the_dsl_printed():
    # the page's DSL spelling of an example equals what the DSL printed for the same tile
    printed = {_without_stage(t) for _, t in DSL}
    gen = _generator()
    shown = [gen._cell(t, "cute-dsl.md", op, a).split("   ")[0] for t, op, a in gen.EXAMPLES]
    assert sum(s in printed for s in shown) >= 2, shown
