"""Fragments in the workflows: names, Triton linear forms, emit tables, drawings, the CLI and
the bank model."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import fastswz
from fastswz import banks
from fastswz.banks import epilogue_tile, fragment_accesses, fragment_score, score
from fastswz.cli import main
from fastswz.tv_layout import FRAGMENT_EXAMPLES, fragment, ldmatrix, mma_sync, tcgen05_ld, wgmma_a, wgmma_d

ALL_NAMES = (
    [f"mma.{s}.{dt}.{op}" for dt, shapes in fastswz.tv_layout.MMA_SYNC_SHAPES.items() for s in shapes
     for op in "ABC"]
    + [f"wgmma.m64n{n}.f32.D" for n in range(8, 257, 8)]
    + [wgmma_a(dt).name for dt in ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8")]
    + [f"{op}.m8n8.x{x}{t}.b16.{r}" for op in ("ldmatrix", "stmatrix") for x in (1, 2, 4)
       for t in ("", ".trans") for r in ("registers", "addresses")]
    + [f"ldmatrix.m16n16.x{x}.trans.b8.{r}" for x in (1, 2) for r in ("registers", "addresses")]
    + [f"ldmatrix.m8n16.x{x}.b8x16.{r}" for x in (1, 2, 4) for r in ("registers", "addresses")]
    + [f"stmatrix.m16n8.x{x}.trans.b8.{r}" for x in (1, 2, 4) for r in ("registers", "addresses")]
    + [f"tcgen05.{o}.{s}.x{n}{w}" for o in ("ld", "st") for s in fastswz.tv_layout.TCGEN05_SHAPES
       for n in (1, 4) for w in ("", ".warpgroup")])


@pytest.mark.parametrize("name", ALL_NAMES)
def test_fragment_names_round_trip(name):
    assert fragment(name).name == name


@pytest.mark.parametrize("name", ["mma.m16n8k16.bf16", "wgmma.m64nNk16.tf32.A", "ldmatrix.m8n8.x3",
                                  "ldmatrix.m8n8.x4.b16.rows.extra", "tcgen05.ld.32x32b.x2.cta",
                                  "wgmma.m64nx.f32.D", "mma.m16n8k16.bf16.Q", "foo", ""])
def test_bad_fragment_names(name):
    with pytest.raises(fastswz.FragmentError):
        fragment(name)


def test_fragment_name_type():
    with pytest.raises(fastswz.FastswzTypeError):
        fragment(3)


# -- Triton linear forms ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", [n for n in ALL_NAMES if not n.startswith("tcgen05")])
def test_to_linear_reproduces_the_map(name):
    tv = fragment(name)
    T, V = tv.threads, tv.values
    if T & (T - 1) or V & (V - 1):
        with pytest.raises(fastswz.FragmentError, match="powers of two"):
            tv.to_linear()
        return
    ll = tv.to_linear()
    r, c = tv.coords()
    rows = 1 << (tv.extents[0] - 1).bit_length()
    for t in (0, 1, 5, T - 1):
        for v in (0, V - 1):
            got = ll(v, t % 32, t // 32) if T > 32 else ll(v, t)
            assert tuple(got) == (r[t, v], c[t, v])
    assert rows >= tv.extents[0]
    llT = tv.to_linear(transpose=True)
    assert llT.bases[0][1][:1] == tuple(tuple(x[::-1]) for x in ll.bases[0][1][:1])


def test_to_linear_matches_triton_conventions():
    # Triton's NVMMA v3 accumulator for instr_shape [16, 64, 16], warps [4, 1]
    b = dict(wgmma_d(64).to_linear().bases)
    assert b["register"] == ((0, 1), (8, 0), (0, 8), (0, 16), (0, 32))
    assert b["lane"] == ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))
    assert b["warp"] == ((16, 0), (32, 0))
    with pytest.raises(fastswz.FragmentError, match="tensor-memory"):
        tcgen05_ld("32x32b").to_linear()


def test_gluon_names():
    assert wgmma_d(64).gluon().startswith("NVMMADistributedLayout(version=[3, 0]")
    assert "operand_index=1" in mma_sync("m16n8k16", "f16", "B").gluon()
    assert "k_width=4" in mma_sync("m16n8k32", "s8", "A").gluon()
    assert ldmatrix(4).gluon() is None and tcgen05_ld("32x32b").gluon() is None
    assert mma_sync("m8n8k4", "f64", "C").gluon() is None


# -- emit ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["header", "json", "python"])
def test_emit_fragment_tables(fmt):
    tile = fastswz.OperandTile("bf16", "K", "128B", 64, 64)
    text = fastswz.emit(wgmma_a("bf16"), fmt, addresses=tile, start=0x400)
    assert text == fastswz.emit(wgmma_a("bf16"), fmt, addresses=tile, start=0x400)   # deterministic
    if fmt == "json":
        d = json.loads(text)
        r, c = wgmma_a("bf16").coords()
        assert d["row"] == r.tolist() and d["col"] == c.tolist()
        assert d["addresses"] == wgmma_a("bf16").addresses(tile.addresses(0x400)).tolist()
    if fmt == "python":
        ns = {}
        exec(text, ns)
        assert ns["FRAGMENT"]["instruction"] == "wgmma.m64nNk16.bf16.A"
    if fmt == "header":
        assert "kAddress[128][8]" in text and "kRow[128][8]" in text


def test_emit_fragment_needs_a_map_for_addresses():
    with pytest.raises(fastswz.PlanError, match="fragment needs the tile"):
        fastswz.emit(wgmma_d(8), "json", addresses=True)


def test_emitted_fragment_header_compiles(tmp_path):
    cxx = shutil.which("g++")
    if not cxx:
        pytest.skip("no g++")
    h = tmp_path / "frag.h"
    h.write_text(fastswz.emit(wgmma_d(64), "header", name="acc",
                              addresses=epilogue_tile("bf16", "128B", 64, 64)))
    src = tmp_path / "t.cpp"
    src.write_text('#include "frag.h"\nstatic_assert(acc::kRow[37][6] == 25 && acc::kCol[37][6] == 10);\n'
                   'int main() { return acc::kAddress[0][0]; }\n')
    p = subprocess.run([cxx, "-std=c++17", "-c", str(src), "-o", str(tmp_path / "t.o")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


# -- pictures --------------------------------------------------------------------------------------
def test_show_fragment_cells_match_inverse():
    tv = mma_sync("m16n8k16", "bf16", "B")
    text = fastswz.show_fragment(tv)
    t, v = tv.inverse()
    assert f"T{t[3, 9]}V{v[3, 9]}" in text.splitlines()[3 + 2 * 3].split("|")[10]
    assert text.splitlines()[0].startswith("mma.m16n8k16.bf16.B: ((4,8),(2,2)):((16,1),(8,64))")


def test_draw_fragment_cells():
    tv = wgmma_d(16)
    root = ET.fromstring(fastswz.draw_fragment(tv))
    cells = root.findall(".//{http://www.w3.org/2000/svg}g[@class='cell']")
    assert len(cells) == 64 * 16
    t, v = tv.inverse()
    for cell in cells[::97]:
        r, c = int(cell.get("data-row")), int(cell.get("data-col"))
        assert (int(cell.get("data-thread")), int(cell.get("data-value"))) == (t[r, c], v[r, c])


def test_draw_tmem_fragment_and_limits():
    svg = fastswz.draw_fragment(tcgen05_ld("16x128b", 2))
    assert 'data-fragment="tcgen05.ld.16x128b.x2"' in svg
    with pytest.raises(fastswz.LayoutError, match="max_cells"):
        fastswz.show_fragment(wgmma_d(256))
    with pytest.raises(fastswz.FastswzTypeError):
        fastswz.draw_fragment(fastswz.Layout(8))


# -- bank model ------------------------------------------------------------------------------------
def test_fragment_accesses_equal_accumulator_stores():
    for dt in ("f32", "bf16"):
        cmap = epilogue_tile(dt, "128B", 64, 64)
        e = 4 if dt == "f32" else 2
        a, w = fragment_accesses(wgmma_d(64, "f32" if dt == "f32" else "f16"), cmap)
        b, wb = banks.accumulator_stores(cmap, e)
        assert w == wb
        # the same set of lane addresses per instruction, instruction order aside
        assert sorted(map(tuple, a.tolist())) == sorted(map(tuple, b.tolist()))


def test_fragment_score_of_operand_loads():
    t = fastswz.OperandTile("bf16", "K", "none", 64, 64).addresses().astype(np.int64)
    s = fragment_score(mma_sync("m16n8k16", "bf16", "A"), t)
    assert s.instructions == 4 and s.access_bytes == 4
    rowmajor = epilogue_tile("bf16", "rowmajor", 16, 16)
    assert fragment_score(mma_sync("m16n8k16", "bf16", "A"), rowmajor).excess >= 0
    a, w = fragment_accesses(wgmma_d(8), epilogue_tile("f32", "rowmajor", 64, 8), vector=False)
    assert w == 4 and a.shape == (16, 32)
    assert score(a, w, "st").total >= 16


def test_fragment_accesses_refuse_scattered_registers():
    t = fastswz.OperandTile("bf16", "MN", "128B", 64, 64).addresses().astype(np.int64)
    with pytest.raises(fastswz.BankError, match="not adjacent"):
        fragment_accesses(mma_sync("m16n8k16", "bf16", "A"), t)
    with pytest.raises(fastswz.FastswzTypeError):
        fragment_accesses(fastswz.Layout(8), t)


# -- CLI -------------------------------------------------------------------------------------------
def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_fragment_text_and_json(capsys):
    rc, out, _ = _run(capsys, "fragment", "wgmma.m64n16.f32.D")
    assert rc == 0 and "T37   " in out and out.splitlines()[1].startswith("layout     ((4,8,4),(2,2,2))")
    rc, out, _ = _run(capsys, "fragment", "mma.m16n8k16.f32.C", "--json", "--dtype", "f32", "--swizzle",
                      "rowmajor", "--banks", "st")
    d = json.loads(out)
    assert rc == 0 and d["banks"]["instructions"] == 2 and len(d["addresses"]) == 32


def test_cli_fragment_show_draw_emit(capsys, tmp_path):
    rc, out, _ = _run(capsys, "fragment", "ldmatrix.m8n8.x1.trans", "--show")
    assert rc == 0 and "T0V1" in out
    rc, out, _ = _run(capsys, "fragment", "mma.m8n8k4.f64.A", "--draw", "-o", str(tmp_path / "f.svg"))
    assert rc == 0 and (tmp_path / "f.svg").read_text().startswith("<svg")
    rc, out, _ = _run(capsys, "fragment", "wgmma.m64nNk16.bf16.A", "--emit", "header", "--dtype", "bf16",
                      "--swizzle", "128B", "--k", "64")
    assert rc == 0 and "kAddress[128][8]" in out


@pytest.mark.parametrize("argv, msg", [
    (["fragment", "mma.m16n8k16.f16.Q"], "operand='Q'"),
    (["fragment", "bogus"], "is not one fastswz knows"),
    (["fragment", "wgmma.m64n8.f32.D", "--banks", "st"], "--banks needs the tile"),
    (["fragment", "wgmma.m64n8.f32.D", "--dtype", "f32"], "give both --dtype and --swizzle"),
])
def test_cli_fragment_errors_exit_2_with_one_line(capsys, argv, msg):
    rc, out, err = _run(capsys, *argv)
    assert rc == 2 and msg in err and err.count("\n") == 1


def test_examples_constant():
    assert len(FRAGMENT_EXAMPLES) == 7


def test_cli_draw_and_show_take_a_fragment(capsys):
    rc, out, _ = _run(capsys, "show", "--fragment", "mma.m8n8k4.f64.C")
    assert rc == 0 and out.splitlines()[3].split("|")[1].strip() == "T0V0"
    rc, out, _ = _run(capsys, "draw", "--fragment", "wgmma.m64n8.f32.D")
    assert rc == 0 and 'data-fragment="wgmma.m64n8.f32.D"' in out
    rc, out, err = _run(capsys, "show", "--fragment", "mma.m8n8k4.f64.C", "--dtype", "bf16")
    assert rc == 2 and "--fragment draws a register fragment by itself" in err


def test_fragment_score_of_ldmatrix_is_the_instruction():
    rowmajor = epilogue_tile("bf16", "rowmajor", 32, 64)
    for x in (1, 2, 4):
        s = fragment_score(ldmatrix(x), rowmajor)
        rows = rowmajor[np.arange(32) % (8 * x), 0]
        assert s.total == int(banks.matrix_wavefronts(rows, x)) == 8 * x
        assert fragment_score(fastswz.stmatrix(x, True), rowmajor).op == "stmatrix"
    sw = fastswz.OperandTile("bf16", "K", "128B", 64, 64).addresses().astype(np.int64)
    assert fragment_score(ldmatrix(4, role="addresses"), sw).excess == 0
