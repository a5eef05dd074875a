"""Register fragments and tensor memory (fastswz.tv_layout): the PTX figures, the bulk maps
against their numpy twins, round trips and errors.

The ``_ptx_*`` functions below restate the PTX ISA fragment figures as arithmetic, written
independently of the CuTe-form layouts in the module (PTX 9.7.14.5 mma.sync, 9.7.15.5.1 wgmma,
9.7.14.5.15 ldmatrix, 9.7.16.8 tcgen05.ld shapes).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fastswz
from fastswz import reference
from fastswz.banks import epilogue_tile
from fastswz.tv_layout import (MMA_SYNC_SHAPES, TCGEN05_SHAPES, TVLayout, ldmatrix, mma_sync, stmatrix,
                               tcgen05_ld, tcgen05_st, tmem_accumulator, tmem_fragment, tv_coords,
                               tv_inverse, wgmma_a, wgmma_d, wgmma_d_coords)


def _all():
    out = []
    for dt, shapes in MMA_SYNC_SHAPES.items():
        for s in shapes:
            for op in "ABC":
                out.append(mma_sync(s, dt, op))
    out += [wgmma_d(n) for n in (8, 16, 24, 64, 136, 256)] + [wgmma_d(64, "f16")]
    out += [wgmma_a(d) for d in ("f16", "bf16", "tf32", "e4m3", "s8")]
    for fn in (ldmatrix, stmatrix):
        for x in (1, 2, 4):
            for trans in (False, True):
                for role in ("registers", "addresses"):
                    out.append(fn(x, trans, role))
    for shape in TCGEN05_SHAPES:
        for num in (1, 2, 8):
            out.append(tcgen05_ld(shape, num))
        out.append(tcgen05_ld(shape, 4, warps=4))
    out.append(tcgen05_ld("16x32bx2", 4, half_offset=16))
    return out


ALL = _all()
IDS = [f"{tv.name}-{i}" for i, tv in enumerate(ALL)]


# -- the PTX figures as arithmetic ----------------------------------------------------------------------
def _ptx_mma(shape, dt, op, t, i):
    """(row, col) of value ``i`` of lane ``t``; B as (n, k)."""
    g, q = t // 4, t % 4
    fam = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "f64": 64,
           "s4": 4, "u4": 4, "b1": 1}[dt]
    if op == "C":
        if shape in ("m8n8k4", "m8n8k16"):
            return g, 2 * q + i
        return g + 8 * (i // 2), 2 * q + i % 2
    if fam == 16:
        if op == "A":   # a0..a7: (g | g+8, 2q + i%2 (+8 for a4..a7))
            return g + 8 * ((i // 2) % 2), 2 * q + i % 2 + 8 * (i // 4)
        return g, 2 * q + i % 2 + 8 * (i // 2)       # B (n, k)
    if fam <= 8:     # E = 32 / bits values per register: lane holds E consecutive k
        E = 32 // fam
        if shape.startswith("m8n8"):
            return g, E * q + i
        if op == "A":
            return g + 8 * ((i // E) % 2), E * q + i % E + 4 * E * (i // (2 * E))
        return g, E * q + i % E + 4 * E * (i // E)
    # tf32 and f64: one element per (32- or 64-bit) register, k = q (+4)
    if op == "A":
        if shape == "m8n8k4":
            return g, q
        return g + 8 * (i % 2), q + 4 * (i // 2)
    return g, q + 4 * i


def _ptx_wgmma_a(dt, t, i):
    w, lane = t // 32, t % 32
    r, c = _ptx_mma({"tf32": "m16n8k8", "e4m3": "m16n8k32", "s8": "m16n8k32"}.get(dt, "m16n8k16"),
                    dt, "A", lane, i)
    return 16 * w + r, c


def _ptx_ldmatrix(x, trans, t, i):
    j, e = i // 2, i % 2          # register j = matrix j, element e of the pair
    if trans:
        return 8 * j + 2 * (t % 4) + e, t // 4
    return 8 * j + t // 4, 2 * (t % 4) + e


def _ptx_tcgen05(shape, t, r, num):
    if shape == "32x32b":
        return t, r
    if shape == "16x64b":
        return t // 4 + 8 * (t % 2), (t // 2) % 2 + 2 * r
    if shape == "16x128b":
        return t // 4 + 8 * (r % 2), t % 4 + 4 * (r // 2)
    if shape == "16x256b":
        return t // 4 + 8 * ((r // 2) % 2), r % 2 + 2 * (t % 4) + 8 * (r // 4)
    return t % 16, r + num * (t // 16)


def _grid(tv):
    return np.arange(tv.threads)[:, None], np.arange(tv.values)[None, :]


@pytest.mark.parametrize("dt", sorted(MMA_SYNC_SHAPES))
def test_mma_sync_matches_ptx_figures(dt):
    for shape in MMA_SYNC_SHAPES[dt]:
        for op in "ABC":
            tv = mma_sync(shape, dt, op)
            r, c = tv.coords()
            t, i = _grid(tv)
            want_r, want_c = np.vectorize(lambda tt, ii: _ptx_mma(shape, dt, op, tt, ii))(t, i)
            np.testing.assert_array_equal(r, want_r, err_msg=f"{shape} {dt} {op}")
            np.testing.assert_array_equal(c, want_c, err_msg=f"{shape} {dt} {op}")


@pytest.mark.parametrize("n", range(8, 257, 8))
def test_wgmma_d_matches_ptx_figure_and_formula(n):
    d = wgmma_d(n)
    m, nn = d.coords()
    t, r = _grid(d)
    wm, wn = wgmma_d_coords(t, r)
    np.testing.assert_array_equal(m, wm)
    np.testing.assert_array_equal(nn, wn)
    # per warp, each 16 x 8 block is the mma.sync C fragment (the PTX figure says so)
    c = mma_sync("m16n8k16", "f32", "C")
    cm, cn = c.coords()
    for w in range(4):
        for blk in range(n // 8):
            np.testing.assert_array_equal(m[32 * w:32 * w + 32, 4 * blk:4 * blk + 4], cm + 16 * w)
            np.testing.assert_array_equal(nn[32 * w:32 * w + 32, 4 * blk:4 * blk + 4], cn + 8 * blk)
    assert d.registers == n // 2 and wgmma_d(n, "f16").registers == n // 4


@pytest.mark.parametrize("dt", ["f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"])
def test_wgmma_a_matches_ptx_figure(dt):
    a = wgmma_a(dt)
    r, c = a.coords()
    t, i = _grid(a)
    want = np.vectorize(lambda tt, ii: _ptx_wgmma_a(dt, tt, ii))(t, i)
    np.testing.assert_array_equal(r, want[0])
    np.testing.assert_array_equal(c, want[1])
    assert a.registers == 4


@pytest.mark.parametrize("fn", [ldmatrix, stmatrix])
@pytest.mark.parametrize("x", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_stmatrix_match_ptx(fn, x, trans):
    regs = fn(x, trans)
    r, c = regs.coords()
    t, i = _grid(regs)
    want = np.vectorize(lambda tt, ii: _ptx_ldmatrix(x, trans, tt, ii))(t, i)
    np.testing.assert_array_equal(r, want[0])
    np.testing.assert_array_equal(c, want[1])
    addr = fn(x, trans, "addresses")
    ar, ac = addr.coords()
    np.testing.assert_array_equal(ar[:, 0], np.arange(32) % (8 * x))   # lane 8j + r: row r of matrix j
    np.testing.assert_array_equal(ac, np.broadcast_to(np.arange(8), (32, 8)))


@pytest.mark.parametrize("shape", TCGEN05_SHAPES)
@pytest.mark.parametrize("num", [1, 2, 4, 16])
def test_tcgen05_ld_matches_ptx(shape, num):
    ld = tcgen05_ld(shape, num)
    lane, col = ld.coords()
    t, r = _grid(ld)
    want = np.vectorize(lambda tt, rr: _ptx_tcgen05(shape, tt, rr, num))(t, r)
    np.testing.assert_array_equal(lane, want[0])
    np.testing.assert_array_equal(col, want[1])
    # every TMEM cell of the shape is read exactly once
    tt, vv = ld.inverse()
    assert (tt >= 0).all() or shape == "16x32bx2"
    assert ld.threads * ld.values == len(set(zip(lane.ravel().tolist(), col.ravel().tolist())))


# -- structure: bijections, twins, round trips ----------------------------------------------------------
@pytest.mark.parametrize("tv", ALL, ids=IDS)
def test_parity_with_numpy_twin(tv):
    r, c = tv_coords(tv)
    rr, rc = reference.tv_coords(tv)
    np.testing.assert_array_equal(r, rr)
    np.testing.assert_array_equal(c, rc)
    t, v = tv_inverse(tv)
    rt, rv = reference.tv_inverse(tv)
    np.testing.assert_array_equal(t, rt)
    np.testing.assert_array_equal(v, rv)
    assert r.dtype == np.int64 and r.shape == (tv.threads, tv.values)
    assert t.shape == tv.extents


@pytest.mark.parametrize("tv", ALL, ids=IDS)
def test_inverse_undoes_coords(tv):
    r, c = tv.coords()
    t, v = tv.inverse()
    # every (thread, value) lands on a coordinate whose first holder holds the same coordinate
    ft, fv = t[r, c], v[r, c]
    assert (ft >= 0).all()
    np.testing.assert_array_equal(r[ft, fv], r)
    np.testing.assert_array_equal(c[ft, fv], c)
    if tv.order != "tmem" and "addresses" not in tv.name and tv.layout[1].size() > 1 or "mma" in tv.name:
        # register fragments cover their matrix exactly once (stride-0 value modes aside)
        if 0 not in fastswz.flatten(tv.layout.stride):
            assert (t >= 0).all()
            assert tv.threads * tv.values == tv.extents[0] * tv.extents[1]


@pytest.mark.parametrize("tv", ALL, ids=IDS)
def test_print_parse_repr_pickle(tv):
    again = TVLayout.parse(str(tv), tv.extents, tv.order, tv.name, tv.bits)
    assert again == tv and hash(again) == hash(tv)
    assert eval(repr(tv), {"TVLayout": TVLayout, "Layout": fastswz.Layout}) == tv
    assert pickle.loads(pickle.dumps(tv)) == tv
    with pytest.raises(AttributeError):
        tv.bits = 8


def test_addresses_compose_with_tiles():
    a = fastswz.OperandTile("bf16", "K", "128B", 64, 64).addresses().astype(np.int64)
    frag = wgmma_a("bf16")
    got = frag.addresses(a)
    r, c = frag.coords()
    np.testing.assert_array_equal(got, a[r, c])
    cmap = epilogue_tile("f32", "rowmajor", 64, 128)
    d = wgmma_d(128)
    np.testing.assert_array_equal(d.addresses(cmap), cmap[d.coords()])
    tab = d.table(cmap)
    assert tab.shape == (128 * 64, 6)
    assert tab[6].tolist() == [0, 6, 6, 8, 8, int(cmap[8, 8])]


def test_tmem_fragment_composes_ld_with_accumulator():
    acc = tmem_accumulator(128, 256)
    m, n = tmem_fragment(acc, tcgen05_ld("32x32b", 32, warps=4), col0=64)
    assert m.shape == (128, 32)
    np.testing.assert_array_equal(m, np.broadcast_to(np.arange(128)[:, None], (128, 32)))
    np.testing.assert_array_equal(n, np.broadcast_to(64 + np.arange(32), (128, 32)))
    # M=64 (layout F): lanes 16..31 of each warp hold nothing
    m64, n64 = tmem_fragment(tmem_accumulator(64, 64), tcgen05_ld("32x32b", 4, warps=4))
    assert (m64[16:32] == -1).all() and m64[32:48, 0].tolist() == list(range(16, 32))
    # 16x256b over M=128: thread t of warp 1 reads rows 32 + t//4 (+8)
    m2, n2 = tmem_fragment(acc, tcgen05_ld("16x256b", 1, warps=4))
    assert m2[32 + 5].tolist() == [33, 33, 41, 41] and n2[37].tolist() == [2, 3, 2, 3]
    # cta_group::2, M=128: the column halves fold onto lanes 64..127
    mb, nb = tmem_fragment(tmem_accumulator(128, 64, cta_group=2), tcgen05_ld("32x32b", 1, warps=4))
    assert mb[:, 0].tolist() == list(range(64)) * 2
    assert nb[:, 0].tolist() == [0] * 64 + [32] * 64


def test_tmem_accumulator_data_paths():
    assert str(tmem_accumulator(256, 64, cta_group=2)) == "(128,64):(65536,1)"
    assert str(tmem_accumulator(64, 64, ws=True)) == "(64,(32,2)):(65536,(1,4194304))"
    assert str(tmem_accumulator(32, 64, ws=True)) == "(32,(16,4)):(65536,(1,2097152))"


# -- errors -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, err", [
    (lambda: mma_sync("m16n8k16", "tf32", "A"), fastswz.FragmentError),
    (lambda: mma_sync("m8n8k16", "e4m3", "A"), fastswz.FragmentError),
    (lambda: mma_sync("m16n8k16", "f8", "A"), fastswz.FragmentError),
    (lambda: mma_sync("16x8x16", "f16", "A"), fastswz.FragmentError),
    (lambda: mma_sync("m16n8k16", "f16", "E"), fastswz.FragmentError),
    (lambda: mma_sync(16, "f16", "A"), fastswz.FastswzTypeError),
    (lambda: mma_sync("m16n8k16", 16, "A"), fastswz.FastswzTypeError),
    (lambda: wgmma_d(12), fastswz.FragmentError),
    (lambda: wgmma_d(264), fastswz.FragmentError),
    (lambda: wgmma_d(64, "bf16"), fastswz.FragmentError),
    (lambda: wgmma_d(64.0), fastswz.FastswzTypeError),
    (lambda: wgmma_a("f64"), fastswz.FragmentError),
    (lambda: ldmatrix(3), fastswz.FragmentError),
    (lambda: ldmatrix(4, "yes"), fastswz.FastswzTypeError),
    (lambda: stmatrix(4, role="rows"), fastswz.FragmentError),
    (lambda: tcgen05_ld("32x64b"), fastswz.FragmentError),
    (lambda: tcgen05_ld("32x32b", 3), fastswz.FragmentError),
    (lambda: tcgen05_ld("16x256b", 128), fastswz.FragmentError),
    (lambda: tcgen05_ld("32x32b", 1, warps=2), fastswz.FragmentError),
    (lambda: tcgen05_ld("16x32bx2", 4, half_offset=2), fastswz.FragmentError),
    (lambda: tmem_accumulator(96, 64), fastswz.FragmentError),
    (lambda: tmem_accumulator(128, 64, cta_group=3), fastswz.FragmentError),
    (lambda: tmem_accumulator(128, 65), fastswz.FragmentError),
    (lambda: tmem_accumulator(128, 8, cta_group=2), fastswz.FragmentError),
    (lambda: tmem_accumulator(32, 48, ws=True), fastswz.FragmentError),
    (lambda: tmem_fragment("x", tcgen05_ld("32x32b")), fastswz.FastswzTypeError),
    (lambda: tmem_fragment(tmem_accumulator(128, 8), wgmma_d(8)), fastswz.FragmentError),
    (lambda: tmem_fragment(fastswz.Layout(8), tcgen05_ld("32x32b")), fastswz.FragmentError),
    (lambda: TVLayout("x", (1, 1)), fastswz.FastswzTypeError),
    (lambda: TVLayout(fastswz.Layout(8), (8, 1)), fastswz.FragmentError),
    (lambda: TVLayout(fastswz.Layout((8, 2)), (4, 2)), fastswz.FragmentError),
    (lambda: TVLayout(fastswz.Layout((8, 2)), (16,)), fastswz.FragmentError),
    (lambda: TVLayout(fastswz.Layout((8, 2)), (0, 16)), fastswz.FragmentError),
    (lambda: TVLayout(fastswz.Layout((8, 2)), (8, 2), order="diag"), fastswz.FragmentError),
    (lambda: TVLayout(fastswz.Layout((8, 2)), (8, 2), name=3), fastswz.FastswzTypeError),
    (lambda: TVLayout(fastswz.Layout((8, 2)), (8, 2), bits=12), fastswz.FragmentError),
    (lambda: TVLayout(fastswz.Layout((8, 2)), (8, 70000), order="tmem"), fastswz.FragmentError),
    (lambda: TVLayout.parse("Sw<1,1,1> o 0 o (2,2):(1,2)", (2, 2)), fastswz.FragmentError),
    (lambda: wgmma_d(8).addresses(np.zeros((8, 8), np.int64)), fastswz.FragmentError),
    (lambda: wgmma_d(8).addresses(np.zeros((64, 8))), fastswz.FragmentError),
    (lambda: tcgen05_ld("32x32b").addresses(np.zeros((64, 8), np.int64)), fastswz.FragmentError),
])
def test_errors(call, err):
    with pytest.raises(err):
        call()


@pytest.mark.parametrize("fn", [tv_coords, tv_inverse, reference.tv_coords, reference.tv_inverse])
def test_twins_refuse_the_same(fn):
    with pytest.raises(fastswz.FastswzTypeError, match="expected a TVLayout"):
        fn(fastswz.Layout(8))


# -- the sm100 8-bit ldmatrix / stmatrix forms (CuTe's traits and the PTX text; no hardware here) ----
@pytest.mark.parametrize("x", [1, 2])
def test_ldmatrix_m16n16_b8(x):
    regs = ldmatrix(x, True, shape="m16n16")
    r, c = regs.coords()
    assert regs.registers == 2 * x and regs.extents == (16 * x, 16)
    for t in range(32):
        q, g = t % 4, t // 4
        for j in range(x):
            # after the transpose (result (i, k) = memory (k, i)): "4 consecutive columns across
            # 2 rows" -- result rows g and g + 8, result columns 4q .. 4q + 3 of matrix j
            vals = slice(8 * j, 8 * j + 8)
            got = sorted(zip((c[t, vals]).tolist(), (r[t, vals] - 16 * j).tolist()))
            assert got == sorted((i, 4 * q + k) for i in (g, g + 8) for k in range(4))
    addr = ldmatrix(x, True, "addresses", "m16n16").coords()[0][:, 0]
    np.testing.assert_array_equal(addr, np.arange(32) % (16 * x))


@pytest.mark.parametrize("x", [1, 2, 4])
def test_ldmatrix_m8n16_and_stmatrix_m16n8(x):
    r, c = ldmatrix(x, shape="m8n16").coords()
    t = np.arange(32)[:, None]
    v = np.arange(4 * x)[None, :]
    np.testing.assert_array_equal(r, 8 * (v // 4) + t // 4)          # "4 consecutive columns"
    np.testing.assert_array_equal(c, 4 * (t % 4) + v % 4)
    r, c = stmatrix(x, True, shape="m16n8").coords()
    v = np.arange(4 * x)[None, :]
    np.testing.assert_array_equal(r, 2 * (t % 4) + v % 2 + 8 * (v // 4))
    np.testing.assert_array_equal(c, t // 4 + 8 * ((v // 2) % 2))
    for tv in (ldmatrix(x, shape="m8n16"), stmatrix(x, True, shape="m16n8"),
               ldmatrix(x, shape="m8n16", role="addresses")):
        rt, rv = reference.tv_coords(tv)
        np.testing.assert_array_equal(tv.coords()[0], rt)
        assert fastswz.fragment(tv.name) == tv


@pytest.mark.parametrize("call", [
    lambda: ldmatrix(4, True, shape="m16n16"),
    lambda: ldmatrix(1, shape="m16n16"),
    lambda: ldmatrix(1, True, shape="m8n16"),
    lambda: stmatrix(1, shape="m16n8"),
    lambda: stmatrix(1, True, shape="m16n16"),
    lambda: ldmatrix(1, shape="m16n8"),
])
def test_b8_form_errors(call):
    with pytest.raises(fastswz.FragmentError):
        call()


# -- repeat: the tiled fragment of several instructions ---------------------------------------------
@pytest.mark.parametrize("tv, mr, nr", [(wgmma_d(64), 2, 1), (wgmma_d(128), 2, 2), (wgmma_d(24), 1, 3),
                                        (mma_sync("m16n8k16", "f32", "C"), 4, 2),
                                        (mma_sync("m16n8k16", "bf16", "A"), 2, 4),
                                        (mma_sync("m16n8k32", "s8", "B"), 2, 2),
                                        (wgmma_a("e4m3"), 1, 2), (mma_sync("m8n8k4", "f64", "B"), 1, 1)])
def test_repeat_tiles_the_atom(tv, mr, nr):
    big = tv.repeat(mr, nr)
    rows, cols = tv.extents
    assert big.extents == (rows * mr, cols * nr) and big.threads == tv.threads
    assert big.values == tv.values * mr * nr
    r, c = tv.coords()
    R, C = big.coords()
    for j in range(nr):
        for i in range(mr):
            blk = slice(tv.values * (i + mr * j), tv.values * (i + mr * j + 1))
            np.testing.assert_array_equal(R[:, blk], r + rows * i)
            np.testing.assert_array_equal(C[:, blk], c + cols * j)
    t, v = big.inverse()
    assert (t >= 0).sum() == np.unique(tv.index()).size * mr * nr
    assert fastswz.TVLayout.parse(str(big), big.extents, "col", big.name, big.bits) == big
    assert fastswz.fragment(big.name) == big


def test_repeat_errors():
    with pytest.raises(fastswz.FragmentError, match="not a column-major MMA fragment"):
        ldmatrix(4).repeat(2)
    with pytest.raises(fastswz.FragmentError, match="must both be >= 1"):
        wgmma_d(8).repeat(0)
    with pytest.raises(fastswz.FragmentError, match="moves both row and column"):
        TVLayout(fastswz.Layout((2, 2), (5, 1)), (4, 4)).repeat(2)
