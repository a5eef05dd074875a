"""Sub-byte operand tiles (tcgen05): unpacked 4/6-bit, packed e2m1, and K = 96 blocks.

Expected values come from the PTX rules (9.7.16.3.1.2, the tcgen05 valid-combination table) and
from the byte-level identity with 8-bit tiles, derived by hand in the comments; no CuTe vector
exists for these (CuTe 4.2's UMMA atoms are byte-granular and it has no builder for the split).
"""

import numpy as np
import pytest

import fastswz
from fastswz import OperandTile, TileError, reference


@pytest.mark.parametrize("dt", ["e2m1", "e2m3", "e3m2"])
@pytest.mark.parametrize("sw", ["none", "32B", "64B", "128B"])
def test_unpacked_is_the_8bit_geometry(dt, sw):
    # kind::f8f6f4 reads 4/6-bit types one per byte: the same bytes as an 8-bit tile.
    t = OperandTile(dt, "K", sw, 128, 128, arch="sm100")
    u = OperandTile("u8", "K", sw, 128, 128, arch="sm100")
    assert t.element_bits == 8 and t.inst_k == 32
    np.testing.assert_array_equal(t.addresses(0x400), u.addresses(0x400))
    np.testing.assert_array_equal(t.descriptors(0x400, 64), u.descriptors(0x400, 64))
    np.testing.assert_array_equal(t.descriptors(0x400, 64), reference.tile_descriptors(t, 0x400, 64))


@pytest.mark.parametrize("sw", ["none", "32B", "64B", "128B"])
@pytest.mark.parametrize("order", ["mn", "k"])
def test_packed_e2m1_bytes_are_the_8bit_bytes(sw, order):
    # Packed: element (m, k) is in the byte an 8-bit tile of half the K holds at (m, k // 2):
    # the low nibble for even k, the high nibble for odd k.
    t = OperandTile("e2m1", "K", sw, 64, 512, order, "sm100", packed=True)
    u = OperandTile("u8", "K", sw, 64, 256, order, "sm100")
    assert t.element_bits == 4 and t.inst_k == 64 and t.nbytes == u.nbytes
    a = t.addresses(0x400)
    np.testing.assert_array_equal(a, np.repeat(u.addresses(0x400), 2, axis=1))
    np.testing.assert_array_equal(a, reference.tile_addresses(t, 0x400))
    np.testing.assert_array_equal(t.descriptors(0x400, 64), u.descriptors(0x400, 64))
    mn, k = t.coords(a[:, ::2], 0x400)  # byte -> its low-nibble (even k) element
    np.testing.assert_array_equal(k, np.arange(0, 512, 2)[None, :].repeat(64, 0))
    for x, y in zip(t.coords(a, 0x400), reference.tile_coords(t, a, 0x400)):
        np.testing.assert_array_equal(x, y)


def test_packed_layout_prints_the_4bit_swizzle():
    t = OperandTile("e2m1", "K", "128B", 8, 256, arch="sm100", packed=True)
    # NOTES 1: the byte swizzle <3,4,3> is <3,5,3> in 4-bit element units.
    assert str(t.layout).startswith("Sw<3,5,3> o 0 o ")
    assert fastswz.evaluate(t.layout).max() == 8 * 256 - 1


def _fields(d):
    f = fastswz.decode(int(d), "sm100")
    return (f.start_address, f.lbo_mode, f.leading_byte_offset if f.lbo_mode else None)


def test_k96_split_hand_example():
    # e2m1 packed, K-major 128B, 8 x 768 at 0x400, order mn: three 1024-byte atoms along K
    # (8 rows x 128 B), atom q at 0x400 + 0x400 q. 48-byte blocks start at byte 48 j of K:
    # j: 0 1 2 3 4 5 6 7 -> atom byte 0 48 96 | 16 64 112 | 32 80; blocks 2 and 5 cross a
    # 128-byte row and continue at the next atom's first row (0x800, 0xC00).
    t = OperandTile("e2m1", "K", "128B", 8, 768, arch="sm103", packed=True, inst_k=96)
    got = [_fields(d) for d in t.descriptors(0x400)[0]]
    assert got == [(0x400, 0, None), (0x430, 0, None), (0x460, 1, 0x800), (0x810, 0, None),
                   (0x840, 0, None), (0x870, 1, 0xC00), (0xC20, 0, None), (0xC50, 0, None)]
    np.testing.assert_array_equal(t.descriptors(0x400), reference.tile_descriptors(t, 0x400))
    assert [int(t.descriptor(0, k0, 0x400)) for k0 in range(0, 768, 96)] == \
        [int(v) for v in t.descriptors(0x400)[0]]


def test_k96_split_with_mn_blocks_and_stages():
    t = OperandTile("e2m1", "K", "128B", 128, 768, order="k", arch="sm103", packed=True, inst_k=96)
    fast = t.descriptors(0x400, 64, stages=2, stage_stride=t.nbytes)
    np.testing.assert_array_equal(fast, reference.tile_descriptors(t, 0x400, 64, stages=2,
                                                                  stage_stride=t.nbytes))
    f = fastswz.decode(int(fast[1, 1, 2]), "sm100")
    # stage 1, rows 64.., block 2: continues at atom 1 of row group 8 (order k: K atoms first)
    assert f.lbo_mode == 1
    assert f.leading_byte_offset == 0x400 + t.nbytes + t.offset(64, 256)
    assert f.base_offset == 0


def test_k96_restrictions():
    with pytest.raises(TileError, match="sm_103a only: use arch='sm103'"):
        OperandTile("e2m1", "K", "128B", 8, 768, arch="sm100", packed=True, inst_k=96).descriptors(0)
    # blocks that fit are fine on sm100
    t = OperandTile("e2m1", "K", "128B", 8, 768, arch="sm100", packed=True, inst_k=96)
    assert _fields(t.descriptor(0, 96, 0x400)) == (0x430, 0, None)
    t103 = OperandTile("e2m1", "K", "128B", 8, 768, arch="sm103", packed=True, inst_k=96)
    with pytest.raises(TileError, match="needs base_offset 0"):
        t103.descriptors(0x480, swizzle_base="relative")
    with pytest.raises(TileError, match="does not fit a 64-byte swizzle row"):
        OperandTile("e2m1", "K", "64B", 8, 768, arch="sm103", packed=True, inst_k=96)
    with pytest.raises(TileError, match="inst_k=96 is not an MMA K for e4m3"):
        OperandTile("e4m3", "K", "128B", 8, 768, arch="sm103", inst_k=96)
    with pytest.raises(TileError, match="multiple of 96"):
        OperandTile("e2m1", "K", "128B", 8, 512, arch="sm103", packed=True, inst_k=96)
    # no swizzle: LBO is the K core-matrix stride, three chunks, no split
    n = OperandTile("e2m1", "K", "none", 8, 192, arch="sm100", packed=True, inst_k=96)
    np.testing.assert_array_equal(n.descriptors(0), reference.tile_descriptors(n, 0))


@pytest.mark.parametrize("args, kwargs, match", [
    (("e2m1", "MN", "128B", 64, 64, "mn", "sm100"), {}, "K-major only"),
    (("e2m1", "K", "128B", 64, 64, "mn", "sm90"), {}, "not a wgmma"),
    (("e2m3", "K", "128B", 64, 64, "mn", "sm100"), {"packed": True}, "no tcgen05 kind reads packed 6-bit"),
    (("bf16", "K", "128B", 64, 64, "mn", "sm100"), {"packed": True}, "applies to 4-bit types"),
    (("e2m1", "K", "128B", 64, 64, "mn", "sm100"), {"packed": 1}, "must be True or False"),
])
def test_subbyte_errors(args, kwargs, match):
    with pytest.raises(fastswz.FastswzError, match=match):
        OperandTile(*args, **kwargs)
