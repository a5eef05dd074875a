"""The Cython core against its pure-numpy twin (fastswz.reference), bottleneck-style.

Every array function is paired with its twin; each pair runs over a grid of cases and must give
exactly equal integers, and on bad input both must raise the same exception type.
"""

import itertools

import numpy as np
import pytest

import fastswz
from fastswz import OperandTile, reference

DTYPES = ["f16", "bf16", "tf32", "e4m3", "s8"]
SWIZZLES = ["none", "32B", "64B", "128B", "128B_base32B"]


def _tiles():
    out = []
    for arch, dt, major, sw, order in itertools.product(("sm90", "sm100"), DTYPES, ("K", "MN"),
                                                        SWIZZLES, ("mn", "k")):
        for mn, k in ((64, 64), (128, 32), (256, 128), (192, 96)):
            try:
                out.append(OperandTile(dt, major, sw, mn, k, order, arch))
            except fastswz.TileError:
                pass
    return out


TILES = _tiles()
STARTS = [0, 0x400, 0x480, 0x410, 0x2300]


def _start_bases(tile):
    """Every start with the CuTe convention; the relative one only on 128-byte lines (else it raises)."""
    out = [(s, "absolute") for s in STARTS]
    for s in STARTS:
        if s % 128 == 0 or not tile.swizzle.is_swizzled:
            out.append((s, "relative"))
        else:
            with pytest.raises(fastswz.TileError, match="128-byte line"):
                fastswz.tile_addresses(tile, s, "relative")
            with pytest.raises(fastswz.TileError, match="128-byte line"):
                reference.tile_descriptors(tile, s, None, "relative")
            with pytest.raises(fastswz.TileError, match="128-byte line"):
                tile.descriptor(0, 0, s, None, "relative")
    return out


def test_grid_is_not_empty():
    assert len(TILES) > 250


@pytest.mark.parametrize("tile", TILES, ids=repr)
def test_tile_addresses_and_coords(tile):
    for start, base in _start_bases(tile):
        fast = fastswz.tile_addresses(tile, start, base)
        slow = reference.tile_addresses(tile, start, base)
        assert fast.dtype == slow.dtype == np.uint32
        np.testing.assert_array_equal(fast, slow)
        probe = fast[::7, ::5]
        for a, b in zip(fastswz.tile_coords(tile, probe, start, base),
                        reference.tile_coords(tile, probe, start, base)):
            np.testing.assert_array_equal(a, b)
        mn, k = fastswz.tile_coords(tile, fast, start, base)
        np.testing.assert_array_equal(mn, np.arange(tile.mn)[:, None].repeat(tile.k, 1))
        np.testing.assert_array_equal(k, np.arange(tile.k)[None, :].repeat(tile.mn, 0))


@pytest.mark.parametrize("tile", TILES, ids=repr)
def test_tile_descriptors(tile):
    insts = {tile.mn} | {i for i in (8, 16, 64, 128, 256) if tile.mn % i == 0}
    for inst in sorted(insts):
        try:
            tile.check_inst_mn(inst)
        except fastswz.TileError:
            with pytest.raises(fastswz.TileError):
                reference.tile_descriptors(tile, 0, inst)
            continue
        for (start, base), policy in itertools.product(_start_bases(tile), ("cutlass", "deepgemm")):
            fast = fastswz.tile_descriptors(tile, start, inst, base, policy)
            slow = reference.tile_descriptors(tile, start, inst, base, policy)
            np.testing.assert_array_equal(fast, slow)
            first = tile.descriptor(0, 0, start, inst, base, policy)
            assert int(first) == int(fast[0, 0])
        stride = (tile.nbytes + 0x3FF) & ~0x3FF
        if 0x400 + 3 * stride <= 1 << 18:
            fast = fastswz.tile_descriptors(tile, 0x400, inst, "relative", stages=3, stage_stride=stride)
            slow = reference.tile_descriptors(tile, 0x400, inst, "relative", stages=3, stage_stride=stride)
            assert fast.shape[0] == 3
            np.testing.assert_array_equal(fast, slow)


LAYOUTS = [
    "(8,64):(64,1)", "Sw<3,4,3> o 0 o (8,64):(64,1)", "((2,4),(4,(2,8))):((1,16),(2,(64,128)))",
    "Sw<2,5,2> o 7 o ((4,8),(2,16)):((256,1),(8,32))", "(3,(5,7)):(-1,(40,3))", "Sw<1,1,-2> o (16,4):(1,16)",
    "7:3", "(1,1):(0,0)",
    # the kernel's tabulated inner block (first modes up to 2048 elements) and its outer odometer
    "Sw<3,4,3> o 0 o ((8,16),(64,4)):((64,8192),(1,512))", "(2048,3,5):(1,4096,-7)",
    "Sw<1,1,-2> o 5 o (16,64,3):(1,16,1024)", "(2,5000):(1,2)", "(64,(3,1,2)):(0,(64,9,1))",
]


@pytest.mark.parametrize("text", LAYOUTS)
def test_evaluate(text):
    L = fastswz.parse(text)
    np.testing.assert_array_equal(fastswz.evaluate(L), reference.evaluate(L))
    n = fastswz.size(L)
    idx = np.random.default_rng(0).integers(0, n, size=(3, 5))
    np.testing.assert_array_equal(fastswz.evaluate(L, idx), reference.evaluate(L, idx))
    assert fastswz.evaluate(L).tolist() == [L(i) for i in range(n)]


@pytest.mark.parametrize("bms", [(0, 4, 3), (3, 4, 3), (2, 5, 2), (1, 2, 3), (2, 3, -3), (3, 0, 3)])
def test_swizzle_offsets(bms):
    sw = fastswz.Swizzle(*bms)
    x = np.random.default_rng(1).integers(-(1 << 40), 1 << 40, size=1000)
    fast = fastswz.swizzle_offsets(sw, x)
    np.testing.assert_array_equal(fast, reference.swizzle_offsets(sw, x))
    assert fast[:50].tolist() == [sw(int(v)) for v in x[:50]]
    np.testing.assert_array_equal(fastswz.swizzle_offsets(sw, fast), x)  # involution


@pytest.mark.parametrize("arch", ["sm90", "sm100"])
def test_pack_unpack_smem(arch):
    rng = np.random.default_rng(2)
    n = 5000
    start = rng.integers(0, 1 << 14, n) << 4
    lbo = rng.integers(0, 1 << 14, n) << 4
    sbo = rng.integers(0, 1 << 14, n) << 4
    base = rng.integers(0, 8, n)
    codes = np.array(fastswz.bulk.LAYOUT_CODES[arch])[rng.integers(0, len(fastswz.bulk.LAYOUT_CODES[arch]), n)]
    fast = fastswz.pack_smem_descriptors(arch, start, lbo, sbo, base, codes)
    slow = reference.pack_smem_descriptors(arch, start, lbo, sbo, base, codes)
    np.testing.assert_array_equal(fast, slow)
    cls = fastswz.SmemDescriptorSM90 if arch == "sm90" else fastswz.SmemDescriptorSM100
    for i in range(0, n, 997):
        mode = fastswz.SwizzleMode.from_layout_type(int(codes[i]), arch)
        assert int(cls(int(start[i]), int(lbo[i]), int(sbo[i]), int(base[i]), layout_type=mode)) == int(fast[i])
    f1 = fastswz.unpack_smem_descriptors(arch, fast)
    f2 = reference.unpack_smem_descriptors(arch, fast)
    for name in f1:
        np.testing.assert_array_equal(f1[name], f2[name])
    np.testing.assert_array_equal(f1["start_address"], start)
    np.testing.assert_array_equal(f1["layout_type"], codes)
    # broadcasting of scalar fields, and a 2-D shape
    g = fastswz.pack_smem_descriptors(arch, start.reshape(50, 100), 16, 1024, 0, "128B")
    np.testing.assert_array_equal(g, reference.pack_smem_descriptors(arch, start.reshape(50, 100), 16, 1024, 0, "128B"))
    assert g.shape == (50, 100)


def test_sm100_lbo_mode_pack():
    v = fastswz.pack_smem_descriptors("sm100", [0x400], [0x880], 1024, 0, "128B", lbo_mode=1)
    assert int(v[0]) == int(fastswz.SmemDescriptorSM100(0x400, 0x880, 1024, 0, 1, "128B"))
    np.testing.assert_array_equal(v, reference.pack_smem_descriptors("sm100", [0x400], [0x880], 1024, 0, "128B", 1))


# -- both implementations raise the same errors -------------------------------------------------------
T = OperandTile("bf16", "K", "128B", 64, 64)
BAD_CALLS = [
    ("tile_addresses", (T, 0x408)),
    ("tile_addresses", (T, -16)),
    ("tile_addresses", (T, 0, "sideways")),
    ("tile_addresses", (T, 0, "absolute", 0)),
    ("tile_addresses", (T, 1.5)),
    ("tile_addresses", (T, 0x430, "relative")),
    ("tile_descriptors", (T, 0x410, 64, "relative")),
    ("tile_coords", (T, [0x401], 0x400)),
    ("tile_coords", (T, [0x400 + T.nbytes], 0x400)),
    ("tile_coords", (T, [-1], 0)),
    ("tile_coords", (T, [1.0], 0)),
    ("tile_descriptors", (T, 1 << 18)),
    ("tile_descriptors", (T, 0, 12)),
    ("tile_descriptors", (T, 0, 64, "absolute", "triton")),
    ("tile_descriptors", (T, 0, 64, "absolute", "cutlass", 2)),
    ("tile_descriptors", (T, 0, 64, "absolute", "cutlass", 2, 100)),
    ("tile_descriptors", (T, 0x3F000, 64, "absolute", "cutlass", 4, 0x2000)),
    ("pack_smem_descriptors", ("sm90", [0x400, 0x408], 16, 1024)),
    ("pack_smem_descriptors", ("sm90", 0x400, 1 << 18, 1024)),
    ("pack_smem_descriptors", ("sm90", 0x400, 16, 1024, 8)),
    ("pack_smem_descriptors", ("sm90", 0x400, 16, 1024, 0, "128B_base32B")),
    ("pack_smem_descriptors", ("sm100", 0x400, 16, 1024, 0, [3])),
    ("pack_smem_descriptors", ("sm100", 0x400, 16, 1024, 1, "128B", 1)),
    ("pack_smem_descriptors", ("sm90", 0x400, 16, 1024, 0, "none", 1)),
    ("pack_smem_descriptors", ("sm80", 0x400, 16, 1024)),
    ("pack_smem_descriptors", ("sm90", [0x400, 0x410], [16, 32, 48], 1024)),
    ("pack_smem_descriptors", ("sm90", [0.5], 16, 1024)),
    ("unpack_smem_descriptors", ("sm90", [0x4000004000010040 | (1 << 14)])),
    ("unpack_smem_descriptors", ("sm100", [0x4000004000010040])),
    ("unpack_smem_descriptors", ("sm100", [0x6000404000010040])),
    ("unpack_smem_descriptors", ("sm90", [-1])),
    ("unpack_smem_descriptors", ("sm90", [1.0])),
    ("evaluate", (fastswz.Layout(8, 1), [8])),
    ("evaluate", (fastswz.Layout(8, 1), [0.5])),
    ("evaluate", ("(8,1)",)),
    ("swizzle_offsets", (fastswz.Swizzle(3, 4, 3), [1.5])),
    ("swizzle_offsets", ((3, 4, 3), [1])),
    ("tile_configs", ("bf16", "K", "128B", [64, -64], 64)),
    ("tile_configs", ("bf16", "K", "128B", [64, 128], [64, 64, 64])),
    ("tile_configs", ("bf16", "K", "128B", 64, 64, "mn", "sm90", None, 8)),
    ("tile_configs", ("bf16", "K", "96B", 64, 64)),
    ("tile_configs", ("bf16", "X", "128B", 64, 64)),
    ("tile_configs", ("bf17", "K", "128B", 64, 64)),
    ("tile_configs", (3, "K", "128B", 64, 64)),
    ("tile_configs", ("bf16", "K", "128B", 64.0, 64)),
    ("tile_configs", ("bf16", "K", "128B", 64, 64, "mn", "sm90", None, 0, "triton")),
    ("tv_coords", (fastswz.Layout(8),)),
    ("tv_inverse", ("((4,8),2):((16,1),8)",)),
]


@pytest.mark.parametrize("name, args", BAD_CALLS, ids=[f"{n}{i}" for i, (n, _) in enumerate(BAD_CALLS)])
def test_same_errors(name, args):
    with pytest.raises(fastswz.FastswzError) as fast:
        getattr(fastswz, name)(*args)
    with pytest.raises(fastswz.FastswzError) as slow:
        getattr(reference, name)(*args)
    assert type(fast.value) is type(slow.value)
    assert str(fast.value) == str(slow.value)


def test_errors_leave_no_partial_output():
    out = np.zeros(3, dtype=np.uint64)
    with pytest.raises(fastswz.DescriptorFieldError, match=r"stride_byte_offset\[2\]"):
        out[:] = fastswz.pack_smem_descriptors("sm90", 0x400, 16, [1024, 2048, 7])
    assert not out.any()


CONFIG_SPACE = dict(
    dtype=np.array(["bf16", "tf32", "e4m3", "s8", "f16", "e2m1", "f32"])[:, None, None, None, None],
    major=np.array(["K", "MN"])[None, :, None, None, None],
    swizzle=np.array(["none", "32B", "64B", "128B", "128B_base32B"])[None, None, :, None, None],
    mn=np.array([8, 16, 60, 64, 128, 256, 4096])[None, None, None, :, None],
    k=np.array([8, 16, 32, 64, 96, 128, 512, 8192])[None, None, None, None, :])


@pytest.mark.parametrize("arch", ["sm90", "sm100"])
@pytest.mark.parametrize("order", ["mn", "k"])
@pytest.mark.parametrize("inst_mn", [None, 8, 64])
def test_tile_configs(arch, order, inst_mn):
    fast = fastswz.tile_configs(**CONFIG_SPACE, order=order, arch=arch, inst_mn=inst_mn, start=0x400)
    slow = reference.tile_configs(**CONFIG_SPACE, order=order, arch=arch, inst_mn=inst_mn, start=0x400)
    assert set(fast) == set(slow) == {"error", "lbo_bytes", "sbo_bytes", "nbytes", "descriptor"}
    for name in fast:
        np.testing.assert_array_equal(fast[name], slow[name], err_msg=name)
    assert fast["error"].shape == (7, 2, 5, 7, 8)
    # every error code but "does not fit" paths shows up somewhere in this space
    assert {0, 1, 2, 3, 8} <= set(np.unique(fast["error"]).tolist())


def test_tile_configs_codes_and_mixed_categoricals():
    r = fastswz.tile_configs(["bf16", "bf16", "tf32", "bf16", "bf16"], ["K", "K", "MN", "K", "K"],
                             "128B", [64, 60, 64, 4096, 64], [64, 64, 64, 8192, 64],
                             inst_mn=[64, 64, 64, 4096, 48], start=0x400)
    assert [fastswz.CONFIG_ERRORS[e] for e in r["error"]] == [
        "", "mn is not a whole number of swizzle atoms",
        "dtype / major / swizzle is not allowed on this architecture",
        "start + tile bytes ends past the 256 KiB shared window",
        "inst_mn does not divide mn"]
    t = OperandTile("bf16", "K", "128B", 64, 64)
    assert int(r["descriptor"][0]) == int(t.descriptor(0, 0, 0x400, 64))
    big = fastswz.tile_configs("bf16", "MN", "128B", 4096, 8192, "k", inst_mn=128)
    assert fastswz.CONFIG_ERRORS[int(big["error"])] == "LBO or SBO does not fit the 14-bit descriptor field"


def test_out_argument_is_filled_and_checked():
    t = OperandTile("bf16", "K", "64B", 64, 64)
    for impl in (fastswz.tile_addresses, reference.tile_addresses):
        buf = np.zeros((64, 64), dtype=np.uint32)
        assert impl(t, 0x400, out=buf) is buf
        np.testing.assert_array_equal(buf, fastswz.tile_addresses(t, 0x400))
        for bad, err in ((np.zeros((64, 64), np.int64), fastswz.FastswzTypeError),
                         (np.zeros((64, 32), np.uint32), fastswz.TileError),
                         (np.zeros((64, 128), np.uint32)[:, ::2], fastswz.TileError),
                         ([[0] * 64] * 64, fastswz.FastswzTypeError)):
            with pytest.raises(err):
                impl(t, 0x400, out=bad)
        ro = np.zeros((64, 64), np.uint32)
        ro.flags.writeable = False
        with pytest.raises(fastswz.TileError, match="writeable"):
            impl(t, 0x400, out=ro)
        bad_start = np.zeros((64, 64), np.uint32)
        with pytest.raises(fastswz.TileError):
            impl(t, 0x408, out=bad_start)
        assert not bad_start.any()  # nothing written on error


def test_threads_give_identical_results():
    t = OperandTile("bf16", "MN", "64B", 2048, 1024)  # 2**21 elements: up to 8 chunks
    one = fastswz.tile_addresses(t, 0x400)
    for threads in (2, 3, 8, 1000):
        np.testing.assert_array_equal(fastswz.tile_addresses(t, 0x400, threads=threads), one)


@pytest.mark.parametrize("text", [
    "Sw<3,4,3> o 0 o ((8,128),(64,16)):((64,8192),(1,512))",   # 2^20: per-digit weight tables
    "(1024,(1,1024),1024):(3,(5,-1024),1048576)",                  # 2^30: three full digits
    "Sw<2,4,-3> o 9 o (2048,1024,1024):(1,2048,2097152)",          # 2^31: past the tables
    "(3,(1024,4)):(1,(3,-3072))",                                   # not a power of two
])
def test_evaluate_at_large(text):
    L = fastswz.parse(text)
    n = fastswz.size(L)
    rng = np.random.default_rng(3)
    idx = np.concatenate([rng.integers(0, n, size=2000), [0, n - 1, n // 2, n - 1024]])
    fast = fastswz.evaluate(L, idx)
    np.testing.assert_array_equal(fast, reference.evaluate(L, idx))
    assert fast[:50].tolist() == [L(int(i)) for i in idx[:50]]


@pytest.mark.parametrize("tv", [fastswz.wgmma_d(72), fastswz.mma_sync("m16n8k32", "e4m3", "A"),
                                fastswz.ldmatrix(2, True, "addresses"), fastswz.tcgen05_ld("16x32bx2", 8)],
                         ids=lambda tv: tv.name)
def test_tv_layout_maps(tv):
    for fast, slow in ((fastswz.tv_coords, reference.tv_coords), (fastswz.tv_inverse, reference.tv_inverse)):
        for a, b in zip(fast(tv), slow(tv)):
            np.testing.assert_array_equal(a, b)
