"""Hand-checked values from the PTX ISA excerpts (../shared/spec/ptx/) and NOTES.md section 4.

Every expected number here is copied from the spec text, never computed by fastswz.
"""

import numpy as np
import pytest

import fastswz
from fastswz import Layout, OperandTile, SwizzleMode, evaluate


# -- SwizzleMode: the hardware encodings (PTX 9.7.15.5.1.2.2 and 9.7.16.4.1) ---------------------
@pytest.mark.parametrize("name, sm90, sm100, bits, width", [
    ("none", 0, 0, (0, 4, 3), 16),
    ("32B", 3, 6, (1, 4, 3), 32),
    ("64B", 2, 4, (2, 4, 3), 64),
    ("128B", 1, 2, (3, 4, 3), 128),
    ("128B_base32B", None, 1, (2, 5, 2), 128),
])
def test_swizzle_mode_encodings(name, sm90, sm100, bits, width):
    mode = SwizzleMode.parse(name)
    assert mode.sm100_layout_type == sm100
    assert mode.swizzle_bits == bits
    assert mode.byte_width == width
    assert SwizzleMode.from_layout_type(sm100, "sm100") is mode
    if sm90 is None:
        with pytest.raises(fastswz.DescriptorFieldError, match="sm90"):
            mode.sm90_layout_type
    else:
        assert mode.sm90_layout_type == sm90
        assert SwizzleMode.from_layout_type(sm90, "sm90") is mode


@pytest.mark.parametrize("code", [3, 5, 7])
def test_undefined_sm100_layout_codes(code):
    with pytest.raises(fastswz.DescriptorFieldError, match="3, 5, 7"):
        SwizzleMode.from_layout_type(code, "sm100")


# -- PTX canonical-layout examples (wgmma-canonical-layouts.md, tcgen05 9.7.16.3.3) --------------
# (dtype, major, swizzle, mn, k, exact layout (elements), LBO field, SBO field)
PTX_EXAMPLES = [
    ("tf32", "K", "none", 16, 16, Layout(((8, 2), (4, 4)), ((4, 32), (1, 64))), 16, 8),
    ("bf16", "MN", "none", 16, 16, Layout(((8, 1, 2), (8, 2)), ((1, 8, 64), (8, 128))), 16, 8),
    ("bf16", "MN", "32B", 32, 16, Layout(((8, 2, 2), (8, 2)), ((1, 8, 128), (16, 256))), 16, 32),
    ("bf16", "MN", "64B", 64, 16, Layout(((8, 4, 2), (8, 2)), ((1, 8, 256), (32, 512))), 32, 64),
]


@pytest.mark.parametrize("arch", ["sm90", "sm100"])
@pytest.mark.parametrize("dt, major, sw, mn, k, exact, lbo_field, sbo_field", PTX_EXAMPLES)
def test_ptx_canonical_examples(arch, dt, major, sw, mn, k, exact, lbo_field, sbo_field):
    tile = OperandTile(dt, major, sw, mn, k, arch=arch)
    # the PTX "exact layout" is the unswizzled element layout of the whole tile
    for m in range(mn):
        for kk in range(k):
            assert tile.offset(m, kk) == exact((m, kk)) * tile.element_bytes
    lbo, sbo = tile.strides(inst_mn=mn)
    assert (lbo >> 4, sbo >> 4) == (lbo_field, sbo_field)
    desc = fastswz.decode(int(tile.descriptor(inst_mn=mn)), arch)
    assert (desc.leading_byte_offset >> 4, desc.stride_byte_offset >> 4) == (lbo_field, sbo_field)


def test_ptx_tf32_k_sw32_example():
    # Swizzle<1,4,3> o ((8,2),(4,4)):((8,64),(1,4)); SBO = 64 * sizeof(tf32) -> 16, LBO "1 (assumed)".
    # The PTX K extent (16 tf32 = 64 B) overruns the 32-byte row (NOTES 7.3); one row of K is the atom.
    tile = OperandTile("tf32", "K", "32B", 16, 8)
    lbo, sbo = tile.strides(inst_mn=16)
    assert sbo >> 4 == 16 and lbo >> 4 == 1
    exact = Layout(((8, 2), (4, 2)), ((8, 64), (1, 4)))
    for m in range(16):
        for kk in range(8):
            assert tile.offset(m, kk) == exact((m, kk)) * 4


# -- NOTES section 1 and 4 worked examples ---------------------------------------------------------
def test_notes_swizzle_checks():
    a = OperandTile("bf16", "K", "128B", 64, 64).addresses(0x400)
    assert int(a[3, 10]) == 0x5A4 and int(a[7, 63]) == 0x78E
    b = OperandTile("tf32", "K", "32B", 64, 8).addresses(0x100)
    assert int(b[4, 5]) == 0x184
    # element form: 0x400 + 2 * Sw<3,3,3>(3*64 + 10)
    assert 0x400 + 2 * fastswz.Swizzle(3, 3, 3)(3 * 64 + 10) == 0x5A4


def _hex(arr):
    return [f"0x{int(v):016x}" for v in np.ravel(arr)]


def test_notes_ex1_bf16_k_sw128():
    t = OperandTile("bf16", "K", "128B", 128, 64)
    d = t.descriptors(0x400, inst_mn=64)
    assert _hex(d[0]) == ["0x4000004000010040", "0x4000004000010042",
                          "0x4000004000010044", "0x4000004000010046"]
    assert _hex(d[1, :1]) == ["0x4000004000010240"]
    assert _hex(t.descriptors(0x400, 64, lbo_policy="deepgemm")[0, :1]) == ["0x4000004000000040"]
    t100 = OperandTile("bf16", "K", "128B", 128, 64, arch="sm100")
    assert _hex(t100.descriptors(0x400, 64)[0, :1]) == ["0x4000404000010040"]


def test_notes_ex2_bf16_mn_sw128_both_orders():
    t = OperandTile("bf16", "MN", "128B", 128, 64)
    assert str(t.layout.inner) in ("((64,2),(8,8)):((1,512),(64,1024))",)
    assert (t.lbo_bytes, t.sbo_bytes) == (1024, 2048)
    assert _hex(t.descriptors(0x800)[0]) == ["0x4000008000400080", "0x4000008000400180",
                                              "0x4000008000400280", "0x4000008000400380"]
    assert _hex(OperandTile("bf16", "MN", "128B", 128, 64, arch="sm100").descriptors(0x800)[0, :1]) \
        == ["0x4000408000400080"]
    deep = OperandTile("bf16", "MN", "128B", 128, 64, order="k")
    assert (deep.lbo_bytes, deep.sbo_bytes) == (8192, 1024)
    assert _hex(deep.descriptors(0x800)[0, :1]) == ["0x4000004002000080"]


def test_notes_ex3_tf32_k_sw32():
    t = OperandTile("tf32", "K", "32B", 64, 32)
    assert _hex(t.descriptors(0x100)[0]) == ["0xc000001000010010", "0xc000001000010090",
                                              "0xc000001000010110", "0xc000001000010190"]
    assert _hex(OperandTile("tf32", "K", "32B", 64, 8, arch="sm100").descriptors(0x100)) \
        == ["0xc000401000010010"]


def test_notes_ex4_f16_k_interleave():
    assert _hex(OperandTile("f16", "K", "none", 64, 16).descriptors(0)) == ["0x0000000800400000"]


def test_notes_ex5_relative_base_offset():
    t = OperandTile("bf16", "K", "128B", 64, 64)
    assert _hex(t.descriptors(0x480, swizzle_base="relative")[0, :1]) == ["0x4002004000010048"]
    # the absolute (CuTe) convention keeps base_offset 0 for the same start
    assert _hex(t.descriptors(0x480)[0, :1]) == ["0x4000004000010048"]


def test_notes_ex6_tf32_mn_base32b():
    t = OperandTile("tf32", "MN", "128B_base32B", 128, 32, order="k", arch="sm100")
    assert (t.lbo_bytes, t.sbo_bytes) == (4096, 512)
    assert _hex(t.descriptors(0x1000)[0, :1]) == ["0x2000402001000100"]


def test_notes_instr_examples():
    I = fastswz.InstrDescriptorSM100
    assert I("f16", "bf16", "bf16", "f32", 128, 256).value == 0x08400490
    assert I("tf32", "tf32", "tf32", "f32", 128, 128, b_major="MN").value == 0x08210910
    assert I("f16", "f16", "f16", "f16", 64, 64).value == 0x04100000
    assert I("f16", "bf16", "bf16", "f32", 128, 64, "MN", "MN").value == 0x08118490


# -- the relative convention: what the hardware reads with base_offset ------------------------------
@pytest.mark.parametrize("sw", ["32B", "64B", "128B"])
def test_relative_map_is_anchored_at_start(sw):
    t = OperandTile("bf16", "K", sw, 64, 64)
    start = 0x480
    rel = t.addresses(start, swizzle_base="relative").astype(np.int64)
    aligned = t.addresses(0).astype(np.int64)
    np.testing.assert_array_equal(rel - start, aligned)
    d = fastswz.decode(int(t.descriptor(start=start, swizzle_base="relative")))
    assert d.base_offset == (start >> 7) & 7


def test_absolute_swizzle_off_boundary_moves_the_map():
    # NOTES 11: with a start off the 1024-byte boundary, CuTe's (absolute) map is not a shift.
    t = OperandTile("bf16", "K", "128B", 8, 64)
    a = t.addresses(0x480).astype(np.int64)
    assert not np.array_equal(a - 0x480, t.addresses(0).astype(np.int64))
    # the XOR only permutes 16-byte chunks inside each aligned 1024-byte pattern
    assert set(a.ravel() >> 10) <= {0x480 >> 10, (0x480 + t.nbytes - 1) >> 10}
    off = np.array([[t.offset(m, kk) for kk in range(t.k)] for m in range(t.mn)])
    np.testing.assert_array_equal(a, fastswz.swizzle_offsets(fastswz.Swizzle(3, 4, 3), off + 0x480))


def test_tile_map_is_a_bijection_onto_its_footprint():
    for args in [("bf16", "K", "128B", 128, 128), ("e4m3", "MN", "64B", 128, 64, "mn", "sm100"),
                 ("tf32", "MN", "128B_base32B", 64, 16, "k", "sm100"), ("f16", "MN", "none", 32, 32)]:
        t = OperandTile(*args)
        a = t.addresses(0x400)
        e = t.element_bytes
        assert np.array_equal(np.sort(a.ravel()), np.arange(0x400, 0x400 + t.nbytes, e))


def test_evaluate_matches_swizzled_layout_definition():
    L = fastswz.parse("Sw<3,4,3> o 0 o (8,128):(128,1)")
    vals = evaluate(L)
    assert vals.tolist() == [L(i) for i in range(fastswz.size(L))]
