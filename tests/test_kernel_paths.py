"""The vectorised kernel paths of issue 14 part 4 against the numpy twin, edge by edge.

Each fast path has a fallback (tile_coords: the division loop for other geometry and for bad
addresses; pack/unpack: an exact rescan when the branch-free pass flags a bad value;
tile_configs: np.unique / a Python pass for names the one-pass coder does not take). These tests
drive both sides of every switch and hold results, dtypes and error messages equal to the twin.
"""

import numpy as np
import pytest

import fastswz
from fastswz import OperandTile, reference

COORD_TILES = [
    OperandTile("bf16", "K", "128B", 128, 64),            # power-of-two geometry: fast path
    OperandTile("bf16", "MN", "none", 64, 32, order="k"),
    OperandTile("tf32", "MN", "128B_base32B", 96, 32, arch="sm100"),  # mn = 3 atoms
    OperandTile("s8", "K", "none", 200, 96),              # non-power-of-two modes: fallback
    OperandTile("e4m3", "K", "32B", 64, 128),
    OperandTile("e2m1", "K", "128B", 24, 768, arch="sm103", packed=True, inst_k=96),  # 4-bit
    OperandTile("f16", "K", "128B", 8, 64),
]


@pytest.mark.parametrize("tile", COORD_TILES, ids=repr)
@pytest.mark.parametrize("start,base", [(0, "absolute"), (0x410, "absolute"), (0x880, "relative")])
def test_tile_coords_out_and_dtypes(tile, start, base):
    if base == "relative" and tile.swizzle.is_swizzled and start % 128:
        pytest.skip("relative needs a 128-byte line")
    addr = fastswz.tile_addresses(tile, start, base)
    want = reference.tile_coords(tile, addr, start, base)
    np.testing.assert_array_equal(want[0], np.arange(tile.mn)[:, None].repeat(tile.k, 1))
    got = fastswz.tile_coords(tile, addr, start, base)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.int64 and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    for dt in (np.int64, np.int32):
        for impl in (fastswz.tile_coords, reference.tile_coords):
            pair = (np.full(addr.shape, -7, dt), np.full(addr.shape, -7, dt))
            res = impl(tile, addr, start, base, out=pair)
            assert res[0] is pair[0] and res[1] is pair[1]
            np.testing.assert_array_equal(pair[0], want[0])
            np.testing.assert_array_equal(pair[1], want[1])
    # addresses given as int64 (the range-checked path) and in a scrambled order
    perm = np.random.default_rng(5).permutation(addr.size)
    flat = addr.ravel()[perm].astype(np.int64)
    mn, k = fastswz.tile_coords(tile, flat, start, base)
    np.testing.assert_array_equal(mn, want[0].ravel()[perm])
    np.testing.assert_array_equal(k, want[1].ravel()[perm])


@pytest.mark.parametrize("tile", COORD_TILES, ids=repr)
def test_tile_coords_bad_address_is_named_as_by_the_twin(tile):
    addr = fastswz.tile_addresses(tile, 0x400).ravel().astype(np.int64)
    probes = [addr[: 37].copy() for _ in range(4)]
    probes[0][20] = 0x3F0                       # below the start
    probes[1][20] = 0x400 + tile.nbytes         # past the end
    probes[2][20] = addr[20] + (1 if tile.element_bits > 8 else 0x40000)  # not an element start
    probes[3][[5, 30]] = 0x400 + tile.nbytes + 64  # two bad ones: the first is named
    for p in probes:
        for out in (None, (np.empty(p.shape, np.int32), np.empty(p.shape, np.int32))):
            with pytest.raises(fastswz.TileError) as fast:
                fastswz.tile_coords(tile, p, 0x400, out=out)
            with pytest.raises(fastswz.TileError) as slow:
                reference.tile_coords(tile, p, 0x400, out=out)
            assert str(fast.value) == str(slow.value)


def test_tile_coords_out_is_checked_like_the_twin():
    t = COORD_TILES[0]
    addr = fastswz.tile_addresses(t, 0)
    buf = np.empty(addr.shape, np.int64)
    bad_outs = [np.empty(addr.shape, np.int64), (buf,), (buf, buf),
                (buf, np.empty(addr.shape, np.int32)), (buf, np.empty(addr.shape, np.int16)),
                (np.empty(addr.shape, np.int16), np.empty(addr.shape, np.int16)),
                (buf, np.empty((3,), np.int64)), (buf, np.empty(addr.shape[::-1], np.int64).T)]
    for out in bad_outs:
        with pytest.raises(fastswz.FastswzError) as fast:
            fastswz.tile_coords(t, addr, 0, out=out)
        with pytest.raises(fastswz.FastswzError) as slow:
            reference.tile_coords(t, addr, 0, out=out)
        assert type(fast.value) is type(slow.value) and str(fast.value) == str(slow.value)


def _fields(arch, n, seed=3):
    rng = np.random.default_rng(seed)
    codes = np.array(fastswz.bulk.LAYOUT_CODES[arch])
    return dict(start_address=rng.integers(0, 1 << 14, n) << 4,
                leading_byte_offset=rng.integers(0, 1 << 14, n) << 4,
                stride_byte_offset=rng.integers(0, 1 << 14, n) << 4,
                base_offset=rng.integers(0, 8, n), layout_type=codes[rng.integers(0, len(codes), n)])


@pytest.mark.parametrize("arch", ["sm90", "sm100"])
@pytest.mark.parametrize("n", [1, 255, 256, 257, 3000])
def test_pack_every_mix_of_scalars_and_arrays(arch, n):
    f = _fields(arch, n)
    names = list(f)
    for mask in range(1 << len(names)):  # which fields are given as one broadcast value
        args = {k: (v[0] if mask >> i & 1 else v) for i, (k, v) in enumerate(f.items())}
        got = fastswz.pack_smem_descriptors(arch, **args)
        want = reference.pack_smem_descriptors(arch, **args)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("arch", ["sm90", "sm100"])
def test_pack_first_bad_value_across_chunks(arch):
    f = _fields(arch, 1000)
    for field, value, where in (("start_address", 8, 999), ("base_offset", 8, 256),
                                ("stride_byte_offset", 1 << 18, 255), ("layout_type", 5, 511)):
        args = {k: v.copy() for k, v in f.items()}
        args[field][where] = value
        args["base_offset"][700] = 9  # a later bad value must not be the one named
        with pytest.raises(fastswz.DescriptorFieldError) as fast:
            fastswz.pack_smem_descriptors(arch, **args)
        with pytest.raises(fastswz.DescriptorFieldError) as slow:
            reference.pack_smem_descriptors(arch, **args)
        assert str(fast.value) == str(slow.value)


@pytest.mark.parametrize("arch", ["sm90", "sm100"])
@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("n", [0, 1, 1023, 1024, 1025, 5000])
def test_unpack_compact_equals_twin(arch, compact, n):
    words = reference.pack_smem_descriptors(arch, **_fields(arch, n)).reshape(-1)
    if n:
        words = words.reshape(1, n)
    got = fastswz.unpack_smem_descriptors(arch, words, compact=compact)
    want = reference.unpack_smem_descriptors(arch, words, compact=compact)
    assert list(got) == list(want)
    for name in want:
        assert got[name].dtype == want[name].dtype and got[name].shape == want[name].shape, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
        if compact:
            assert got[name].dtype == (np.uint32 if name.endswith(("address", "offset")) and
                                       name != "base_offset" else np.uint8)
    wide = fastswz.unpack_smem_descriptors(arch, words)
    for name in want:
        np.testing.assert_array_equal(got[name].astype(np.int64), wide[name])


def test_unpack_errors_in_the_twins_order():
    ok = int(fastswz.SmemDescriptorSM100(0x400, 16, 1024, layout_type="128B"))
    lbo_rule = ok | (1 << 52) | (1 << 49)        # lbo_mode 1 with base_offset 1
    reserved = ok | (1 << 14)
    cases = [[ok] * 3000 + [lbo_rule], [lbo_rule, ok, reserved], [ok, lbo_rule, lbo_rule],
             [ok] * 1500 + [ok & ~(7 << 61) | (3 << 61)]]  # an undefined layout code
    for words in cases:
        for compact in (False, True):
            arr = np.array(words, dtype=np.uint64)
            with pytest.raises(fastswz.DescriptorFieldError) as fast:
                fastswz.unpack_smem_descriptors("sm100", arr, compact=compact)
            with pytest.raises(fastswz.DescriptorFieldError) as slow:
                reference.unpack_smem_descriptors("sm100", arr, compact=compact)
            assert str(fast.value) == str(slow.value)
    # strict=False accepts all of them
    arr = np.array(cases[1], dtype=np.uint64)
    for name, a in fastswz.unpack_smem_descriptors("sm100", arr, strict=False).items():
        np.testing.assert_array_equal(a, reference.unpack_smem_descriptors("sm100", arr, strict=False)[name])


def _configs_equal(*args, **kw):
    try:
        want = reference.tile_configs(*args, **kw)
    except fastswz.FastswzError as exc:
        with pytest.raises(type(exc)) as fast:
            fastswz.tile_configs(*args, **kw)
        assert str(fast.value) == str(exc)
        return
    got = fastswz.tile_configs(*args, **kw)
    for name in want:
        assert got[name].dtype == want[name].dtype
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_tile_configs_name_coding_paths():
    rng = np.random.default_rng(9)
    n = 400
    dt = rng.choice(["bf16", "f16", "e4m3", "tf32", "s8"], n)
    sw = rng.choice(["none", "32B", "64B", "128B"], n)
    mj = rng.choice(["K", "MN"], n)
    ar = rng.choice(["sm90", "sm100", "sm103"], n)
    mn = rng.integers(1, 33, n) * 8
    k = rng.integers(1, 33, n) * 16
    _configs_equal(dt, mj, sw, mn, k, arch=ar)                       # one-pass coder
    _configs_equal(dt.astype(object), mj, sw.astype(object), mn, k)  # object arrays
    _configs_equal(dt, mj, rng.choice(["128B_base32B", "128B"], n), mn, k, arch="sm100")  # > 9 chars
    many = np.array([f"bf{i}" for i in range(20)])[rng.integers(0, 20, n)]  # > 16 distinct
    _configs_equal(many, mj, sw, mn, k)
    bad = dt.copy()
    bad[[50, 300]] = "bf17"
    _configs_equal(bad, mj, sw, mn, k)
    mixed = mj.astype("<U3")
    mixed[[7, 200]] = "MNx"
    _configs_equal(bad, mixed, sw, mn, k)                            # first bad config wins
    uni = dt.copy().astype("<U5")
    uni[3] = "bf1\u00e9"                                             # non-ASCII: np.unique path
    _configs_equal(uni, mj, sw, mn, k)
    _configs_equal(np.array([], dtype="<U4"), "K", "128B", 64, 64)  # empty space
    _configs_equal(np.array([["bf16"], ["f16"]]), ["K", "MN"], "128B", [[64], [128]], 64)
