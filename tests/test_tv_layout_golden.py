"""fastswz's thread-value layouts against CuTe's, compiled from CUTLASS (golden_cute_fragments*.json).

MMA traits (ALayout/BLayout/CLayout), the wgmma register A and accumulator layouts and the UMMA
accumulator's TMEM layout must be *identical* layouts (same shape and stride as CuTe prints
them). Copy traits count bits: CuTe's ``DstLayout``/``SrcLayout`` of ldmatrix, stmatrix and
tcgen05.ld/st must be the same function as fastswz's element layout widened to bits
(``bit = element * bits + b``), over the whole domain (docs/CUTE_COMPARISON.md §9).
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import Layout, evaluate, parse
from fastswz.tv_layout import (ldmatrix, mma_sync, stmatrix, tcgen05_ld, tcgen05_st, tmem_accumulator,
                               wgmma_a, wgmma_d)

DATA = Path(__file__).resolve().parent / "data"
FILES = sorted(DATA.glob("golden_cute_fragments*.json"))
SETS = {f.name: json.loads(f.read_text()) for f in FILES}
COUNTS = collections.Counter()


def _cases(section):
    out = []
    for name, data in SETS.items():
        for rec in data[section]:
            out.append(pytest.param(rec, id=f"{name.removesuffix('.json')}-{rec['atom'] if 'atom' in rec else rec['m']}"
                                    + ("" if "atom" in rec else f"-{rec['n_sm']}sm-n{rec['n']}")))
    return out


def test_golden_files_present():
    assert "golden_cute_fragments.json" in SETS
    meta = SETS["golden_cute_fragments.json"]["meta"]
    assert meta["cutlass_version"] == "4.2.0"


#: Traits where CuTe's printed layout is wrong, with what CuTe prints and what the PTX figure (and
#: fastswz) says; docs/CUTE_COMPARISON.md §9 describes them. The test pins CuTe's text, so a fix
#: upstream shows up here.
CUTE_DEFECTS = {
    # 4.2 only (fixed in 4.7.0): thread stride 32 makes k = 4 (t%4) + i overlap and miss k >= 20
    ("golden_cute_fragments.json", "SM80_16x8x32_S32S4S4S32_TN", "B"):
        ("((4,8),(8)):((32,1),(8))", "((4,8),(8)):((64,1),(8))"),
    # 4.2 and 4.7.0: the value stride is nested once more than its shape (not congruent; CuTe
    # itself cannot evaluate this ALayout: crd2idx fails to compile)
    ("golden_cute_fragments.json", "SM80_16x8x128_S32U1U1S32_TN_XORPOPC", "A"):
        ("((4,8),(32,2)):((512,1),((16,8)))", "((4,8),(32,2)):((512,1),(16,8))"),
    ("golden_cute_fragments_4.7.0.json", "SM80_16x8x128_S32U1U1S32_TN_XORPOPC", "A"):
        ("((4,8),(32,2)):((512,1),((16,8)))", "((4,8),(32,2)):((512,1),(16,8))"),
}


@pytest.mark.parametrize("rec", _cases("mma"))
def test_mma_sync_traits(rec, request):
    fname = request.node.callspec.id.split("-")[0] + ".json"
    for op in "ABC":
        tv = mma_sync(rec["shape"], rec["dtype"], op)
        defect = CUTE_DEFECTS.get((fname, rec["atom"], op))
        if defect:
            assert rec[op] == defect[0], (rec["atom"], op, "CuTe changed: update CUTE_DEFECTS")
            assert str(tv) == defect[1]
            continue
        assert str(tv) == rec[op], (rec["atom"], op)
        assert tv.layout == parse(rec[op])
        COUNTS[f"mma.{rec['shape']}"] += 1


def test_cute_42_s4_b_layout_is_not_a_bijection():
    """The defect recorded above, shown: CuTe 4.2's B map of m16n8k32.s4 covers 20 of 32 k."""
    L = parse("((4,8),(8)):((32,1),(8))")
    k = np.unique(evaluate(L) // 8)
    assert len(k) == 20 and k.max() == 19


@pytest.mark.parametrize("rec", _cases("gmma"))
def test_wgmma_register_a_and_accumulator(rec):
    assert str(wgmma_a(rec["dtype"])) == rec["A"]
    assert str(wgmma_d(rec["n"], "s32" if rec["dtype"] == "s8" else "f32")) == rec["C"]


def _bits_equal(tv, cute_text, bits):
    """CuTe's bit-level TV layout equals fastswz's element-level one widened to bits."""
    cute = parse(cute_text)
    T, V = cute[0].size(), cute[1].size()
    assert T == tv.threads and V == tv.values * bits, (T, V, tv.threads, tv.values)
    got = evaluate(cute).reshape(V, T).T                        # (thread, bit)
    elem = tv.index()                                           # (thread, value)
    want = np.repeat(elem, bits, axis=1) * bits + np.tile(np.arange(bits), tv.values)
    np.testing.assert_array_equal(got, want)


def _through_lanes(regs_text, addr_text, bits):
    """CuTe's copy traits as (lane that supplies the row, element column, bit) for every
    (thread, register bit): independent of how CuTe numbers the rows of its bit buffer."""
    regs, addr = parse(regs_text), parse(addr_text)
    T, V = regs[0].size(), regs[1].size()
    got = evaluate(regs).reshape(V, T).T                         # (thread, bit) -> buffer bit
    a = evaluate(addr).reshape(addr[1].size(), addr[0].size()).T   # (lane, bit)
    row_lane = {}
    for lane in range(a.shape[0]):
        for r in np.unique(a[lane] // 128).tolist():
            row_lane.setdefault(r, lane)
    lanes = np.vectorize(row_lane.__getitem__)(got // 128)
    return lanes, (got % 128) // bits, got % bits


def _mine_through_lanes(regs, addrs):
    t, _ = addrs.inverse()
    r, c = regs.coords()
    bits = regs.bits
    lanes = np.repeat(t[r, c], bits, axis=1)
    cols = np.repeat(c, bits, axis=1)
    return lanes, cols, np.tile(np.arange(bits), (regs.threads, regs.values))


@pytest.mark.parametrize("rec", _cases("matrix"))
def test_ldmatrix_stmatrix_traits(rec):
    fn = ldmatrix if rec["op"] == "ldmatrix" else stmatrix
    shape = rec.get("shape", "m8n8")
    regs = fn(rec["x"], rec["trans"], "registers", shape)
    addrs = fn(rec["x"], rec["trans"], "addresses", shape)
    # ldmatrix: Src = addresses, Dst = registers; stmatrix: the other way round
    regs_text, addr_text = (rec["dst"], rec["src"]) if rec["op"] == "ldmatrix" else (rec["src"], rec["dst"])
    # 1. through the lanes: which lane's row and which column every register bit comes from
    for got, want in zip(_through_lanes(regs_text, addr_text, regs.bits), _mine_through_lanes(regs, addrs)):
        np.testing.assert_array_equal(got, want)
    # 2. where CuTe's bit buffer numbers rows as the lanes do (all but ldmatrix.m16n16), the
    #    layouts are the same function outright
    if shape != "m16n16":
        _bits_equal(regs, regs_text, regs.bits)
        _bits_equal(addrs, addr_text, regs.bits)


def _tmem_bits(tv):
    """fastswz's TMEM address layout as CuTe's per-warp bit buffer: lane-major rows of
    ``columns * 32`` bits."""
    lanes, cols = tv.extents
    idx = tv.index()
    lane, col = idx >> 16, idx & 0xFFFF
    return lane * cols + col


@pytest.mark.parametrize("rec", _cases("tmem_copy"))
def test_tcgen05_ld_st_traits(rec):
    fn = tcgen05_ld if rec["op"] == "ld" else tcgen05_st
    tv = fn(rec["shape"], rec["num"])
    regs_text = rec["dst"] if rec["op"] == "ld" else rec["src"]
    cute = parse(regs_text)
    T, V = cute[0].size(), cute[1].size()
    assert (T, V) == (32, tv.values * 32)
    got = evaluate(cute).reshape(V, T).T
    flat = _tmem_bits(tv)
    want = np.repeat(flat, 32, axis=1) * 32 + np.tile(np.arange(32), tv.values)
    np.testing.assert_array_equal(got, want)
    # the TMEM side: every thread may name any bit of the warp's buffer (stride-0 thread mode)
    tm = parse(rec["src"] if rec["op"] == "ld" else rec["dst"])
    lanes, cols = tv.extents
    assert tm[1].size() == lanes * cols * 32 and set(fastswz.flatten(tm[0].stride)) == {0}


@pytest.mark.parametrize("rec", _cases("tmem_frg"))
def test_tmem_accumulator_matches_umma_tmem_frg(rec):
    m_total = rec["m"] * rec["n_sm"]
    acc = tmem_accumulator(m_total, rec["n"], cta_group=rec["n_sm"])
    cute = parse(rec["layout"])[0]
    assert acc == cute, (acc, cute)


def test_counts_per_instruction():
    """Every instruction family is covered by the 4.2 vectors (a summary the docs quote)."""
    data = SETS["golden_cute_fragments.json"]
    per = collections.Counter()
    for r in data["mma"]:
        per[f"mma.sync.{r['shape']}"] += 3
    for r in data["gmma"]:
        per["wgmma.A(RS)"] += 1
        per["wgmma.D"] += 1
    for r in data["matrix"]:
        per[f"{r['op']}.{r.get('shape', 'm8n8')}{'.trans' if r['trans'] else ''}"] += 2
    for r in data["tmem_copy"]:
        per[f"tcgen05.{r['op']}.{r['shape']}"] += 1
    per["tcgen05.mma accumulator (TMEM)"] = len(data["tmem_frg"])
    assert per["wgmma.D"] == 32 + 3 + 3 + 3 + 18
    assert per["ldmatrix.m8n8"] == per["stmatrix.m8n8"] == 6
    assert per["ldmatrix.m16n16.trans"] == 4 and per["ldmatrix.m8n16"] == 12 and per["stmatrix.m16n8.trans"] == 6
    assert sum(per.values()) == 84 + 118 + 46 + 74 + 12
    assert Layout is fastswz.Layout
