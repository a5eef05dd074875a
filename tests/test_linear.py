"""Linear layouts over GF(2): exactness of the translation on every coordinate, the algebra
(composition, inversion) commuting with it, the Cython core against its numpy twin."""

import random

import numpy as np
import pytest

import fastswz
from fastswz import reference
from fastswz.errors import FastswzTypeError, LayoutError
from fastswz.algebra import composition, right_inverse
from fastswz.layout import Layout
from fastswz.linear import LinearLayout, from_linear_layout, linear_evaluate, to_linear_layout
from fastswz.swizzle import ComposedLayout, Swizzle


def _random_linear_layout(rng, max_bits=12):
    """A random CuTe layout with power-of-two extents whose per-bit strides are disjoint
    (random bit positions, some stride-0 broadcast bits), nested modes included."""
    nbits = rng.randint(1, max_bits)
    positions = rng.sample(range(nbits + rng.randint(0, 4)), nbits)
    vecs = [1 << p if rng.random() > 0.1 else 0 for p in positions]
    modes, i = [], 0
    while i < nbits:
        take = rng.randint(1, nbits - i)
        sub, j = [], 0
        chunk = vecs[i:i + take]
        while j < len(chunk):
            # a sub-mode of 2**w with stride v covers bits v, 2v, ... only if they are the next
            # vectors: otherwise it gets extent 2 (one bit)
            w = 1
            while j + w < len(chunk) and chunk[j + w] == chunk[j] << w and chunk[j]:
                w += 1
            sub.append((1 << w, chunk[j]))
            j += w
        i += take
        modes.append(sub)
    shape = tuple(tuple(s for s, _ in m) if len(m) > 1 else m[0][0] for m in modes)
    stride = tuple(tuple(d for _, d in m) if len(m) > 1 else m[0][1] for m in modes)
    return Layout(shape, stride)


def _random_swizzle(rng, nbits):
    b = rng.randint(1, max(1, nbits // 3))
    s = rng.randint(b, max(b, nbits - b))
    m = rng.randint(0, max(0, nbits - b - s))
    return Swizzle(b, m, s if rng.random() < 0.8 else -s)


SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_layout_every_coordinate(seed):
    rng = random.Random(seed)
    L = _random_linear_layout(rng)
    ll = to_linear_layout(L)
    # the flat input index of ll (modes' bits concatenated) is CuTe's colex 1-D index
    np.testing.assert_array_equal(linear_evaluate(ll), fastswz.evaluate(L))
    assert [k for k, _ in ll.in_dims] == [f"mode{i}" for i in range(len(L))]
    # scalar call: one coordinate per mode
    for _ in range(20):
        crd = tuple(rng.randrange(fastswz.size(m)) for m in L)
        assert ll(*crd) == L(crd)


@pytest.mark.parametrize("seed", SEEDS)
def test_swizzled_every_coordinate(seed):
    rng = random.Random(1000 + seed)
    L = _random_linear_layout(rng, 14)
    sw = _random_swizzle(rng, max(3, L.cosize().bit_length()))
    C = ComposedLayout(sw, 0, L)
    ll = to_linear_layout(C)
    np.testing.assert_array_equal(linear_evaluate(ll), fastswz.evaluate(C))
    back = from_linear_layout(ll)
    np.testing.assert_array_equal(fastswz.evaluate(back), fastswz.evaluate(C))


def _tiles():
    out = []
    for arch in ("sm90", "sm100"):
        for dt in ("e4m3", "bf16", "tf32", "e2m1"):
            for major in ("K", "MN"):
                for sw in ("none", "32B", "64B", "128B", "128B_base32B"):
                    for order in ("mn", "k"):
                        for mn, k in ((64, 64), (128, 128), (256, 64)):
                            for packed in ((False, True) if dt == "e2m1" else (False,)):
                                try:
                                    out.append(fastswz.OperandTile(dt, major, sw, mn, k, order, arch,
                                                                   packed=packed))
                                except fastswz.TileError:
                                    pass
    return out


TILES = _tiles()


def test_tile_grid_is_large():
    assert len(TILES) > 150


@pytest.mark.parametrize("tile", TILES, ids=repr)
def test_tile_every_coordinate(tile):
    ll = to_linear_layout(tile)
    assert ll.in_dims == (("mn", tile.mn), ("k", tile.k))
    want = fastswz.evaluate(tile.layout)  # colex: mn fastest, as ll's flat input (mn bits low)
    np.testing.assert_array_equal(linear_evaluate(ll), want)
    if tile.element_bits >= 8:
        lb = to_linear_layout(tile, unit="byte")
        got = linear_evaluate(lb).reshape(tile.k, tile.mn).T
        # absolute swizzle at start 0 is the pattern from the boundary: the tile's own byte map
        np.testing.assert_array_equal(got, tile.addresses(0).astype(np.int64))
    back = from_linear_layout(ll)
    np.testing.assert_array_equal(fastswz.evaluate(back), want)
    # a tile is a bijection onto [0, size): its GF(2) inverse is the inverse map
    inv = ll.invert()
    y = linear_evaluate(inv.flatten_ins())
    np.testing.assert_array_equal(want[y], np.arange(want.size))


def test_tile_bases_match_the_atom_rules():
    # bf16 K-major 128B, 64 x 64: k bits are the element offsets 1..32 (one 128-byte row),
    # mn bits the 64-element rows XORed into 16-byte chunks (Sw<3,3,3>: bits 6..8 into 3..5)
    ll = to_linear_layout(fastswz.OperandTile("bf16", "K", "128B", 64, 64))
    assert ll.bases == (("mn", ((64 ^ 8,), (128 ^ 16,), (256 ^ 32,), (512,), (1024,), (2048,))),
                        ("k", ((1,), (2,), (4,), (8,), (16,), (32,))))


@pytest.mark.parametrize("seed", range(40))
def test_fast_matches_twin(seed):
    rng = np.random.default_rng(seed)
    nin, nout = int(rng.integers(0, 14)), int(rng.integers(1, 20))
    vecs = [int(v) for v in rng.integers(0, 1 << nout, nin)]
    ll = LinearLayout([("i", vecs)], [("o", 1 << nout)])
    np.testing.assert_array_equal(linear_evaluate(ll), reference.linear_evaluate(ll))
    x = rng.integers(0, 1 << nin, (3, 5))
    np.testing.assert_array_equal(linear_evaluate(ll, x), reference.linear_evaluate(ll, x))
    out = np.empty((3, 5), dtype=np.int64)
    assert linear_evaluate(ll, x, out=out) is out
    # and the scalar path agrees
    assert [ll.apply_flat(int(v)) for v in x.ravel()] == linear_evaluate(ll, x).ravel().tolist()


@pytest.mark.parametrize("bad", [[-1], [1 << 20], [[0, 1 << 40]]])
def test_fast_and_twin_refuse_the_same(bad):
    ll = LinearLayout([("i", [1, 2, 4])], ["o"])
    for f in (linear_evaluate, reference.linear_evaluate):
        with pytest.raises(LayoutError, match=r"outside the layout's domain \[0, 8\)"):
            f(ll, bad)
    for f in (linear_evaluate, reference.linear_evaluate):
        with pytest.raises(FastswzTypeError):
            f(ll, [0.5])


def test_multi_output_dims_pack_and_unpack():
    ll = LinearLayout({"lane": [(1, 0), (0, 1), (2, 1)], "warp": [(0, 2)]}, [("x", 4), ("y", 4)])
    assert ll(5, 1) == (1 ^ 2, 1 ^ 2)
    flat = linear_evaluate(ll)
    assert flat[5 | 8] == (3 | 3 << 2)
    assert ll.flatten_outs().bases[0][1] == ((1,), (4,), (2 | 4,))


@pytest.mark.parametrize("seed", range(40))
def test_composition_commutes(seed):
    rng = random.Random(5000 + seed)
    # b: a compact (bijective) layout onto [0, 2**n); a: any linear layout on that domain
    n = rng.randint(1, 10)
    bits = list(range(n))
    rng.shuffle(bits)
    cut = rng.randint(1, n)
    b = Layout(tuple([2] * n), tuple(1 << p for p in bits))
    b = Layout((tuple([2] * cut), tuple([2] * (n - cut))) if cut < n else tuple([2] * n),
               (tuple(1 << p for p in bits[:cut]), tuple(1 << p for p in bits[cut:])) if cut < n
               else tuple(1 << p for p in bits))
    a = _random_linear_layout(rng, n)
    while fastswz.size(a) != 1 << n:
        a = _random_linear_layout(rng, n)
    comp = composition(a, b)
    la, lb = to_linear_layout(a), to_linear_layout(b)
    got = la.compose(lb)
    want = to_linear_layout(comp)
    # same function of b's coordinates (CuTe may refine b's modes, so compare flattened)
    assert got.flatten_ins().bases[0][1] == want.flatten_ins().bases[0][1]
    np.testing.assert_array_equal(linear_evaluate(got), fastswz.evaluate(comp))


def test_compose_with_swizzle_is_the_composed_layout():
    inner = Layout((8, 64), (64, 1))
    C = ComposedLayout(Swizzle(3, 3, 3), 0, inner)
    sw = LinearLayout([("offset", [Swizzle(3, 3, 3)(1 << j) for j in range(9)])], ["offset"])
    assert sw.compose(to_linear_layout(inner)) == to_linear_layout(C)


@pytest.mark.parametrize("seed", range(40))
def test_inversion_commutes(seed):
    rng = random.Random(9000 + seed)
    n = rng.randint(1, 12)
    bits = list(range(n))
    rng.shuffle(bits)
    L = Layout(tuple([2] * n), tuple(1 << p for p in bits))  # a bijection of [0, 2**n)
    R = right_inverse(L)
    ll = to_linear_layout(L).flatten_ins("i")
    inv = ll.invert()  # inputs: L's offsets; outputs: L's 1-D index
    assert to_linear_layout(R).flatten_ins().bases[0][1] == inv.bases[0][1]
    # and for a swizzled bijection, where CuTe's right_inverse does not apply
    sw = ComposedLayout(Swizzle(min(3, n // 2) or 1, 0, max(n // 2, 1)), 0, L) if n >= 2 else L
    lls = to_linear_layout(sw)
    y = linear_evaluate(lls.invert())
    np.testing.assert_array_equal(fastswz.evaluate(sw)[y], np.arange(1 << n))


def test_str_repr_round_trip():
    ll = to_linear_layout(fastswz.OperandTile("e4m3", "MN", "64B", 64, 32, "k", "sm100"), unit="byte")
    assert eval(repr(ll)) == ll
    assert hash(eval(repr(ll))) == hash(ll)
    s = str(ll)
    assert s.startswith(" - mn=1 -> (") and s.endswith("where out dims are: [offset (size 2048)]")
    with pytest.raises(AttributeError):
        ll.bases = ()


@pytest.mark.parametrize("layout, msg", [
    (Layout((3, 4), (4, 1)), r"mode 0 has extent 3, not a power of two"),
    (Layout((4, 4), (3, 1)), r"mode 0 extent 4 stride 3 \(bit 1: 6\) shares a bit with mode 0 extent 4"),
    (Layout((4, 4), (4, 2)), r"mode 1 extent 4 stride 2 \(bit 1: 4\) shares a bit with mode 0 extent 4 stride 4 \(bit 0: 4\)"),
    (Layout((2, 2), (1, 1)), r"mode 1 extent 2 stride 1 \(bit 0: 1\) shares a bit with mode 0"),
    (ComposedLayout(Swizzle(1, 1, 1), 4, Layout(4, 1)), r"offset=4 .* makes the map affine"),
])
def test_nonlinear_layouts_are_refused(layout, msg):
    with pytest.raises(LayoutError, match=msg):
        to_linear_layout(layout)


def test_from_linear_refusals():
    with pytest.raises(LayoutError, match="no Swizzle<B,M,S> makes the basis vectors"):
        from_linear_layout(LinearLayout({"i": [1, 1]}, ["o"]))
    with pytest.raises(LayoutError, match="2 output dimensions"):
        from_linear_layout(LinearLayout({"i": [(1, 0)]}, [("x", 2), ("y", 1)]))
    # a pattern no single Swizzle<B,M,S> spells: two XOR sources into one bit
    with pytest.raises(LayoutError, match="cannot undo this XOR pattern"):
        from_linear_layout(LinearLayout({"i": [1, 2, 4 ^ 1, 8 ^ 1 ^ 2]}, ["o"]))
