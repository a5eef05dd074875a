"""Tests for fastswz.swizzle: Swizzle<B,M,S>, ComposedLayout and unit changes."""

import itertools
import pickle

import numpy as np
import pytest

import fastswz as lay_mod
from fastswz.algebra import downcast, recast, upcast
from fastswz.errors import FastswzError, FastswzTypeError, LayoutError, ParseError
from fastswz.layout import Layout, size
from fastswz.notation import parse
from fastswz.swizzle import ComposedLayout, Swizzle, make_composed_layout

L = Layout
K_ATOM = L((8, 64), (64, 1))  # bf16 K-major SW128 atom, elements


def reference_swizzle(b, m, s, x):
    """Bit-by-bit definition (NOTES 1): XOR the B bits at M+max(0,S) into the B bits at M-min(0,S)."""
    src = m + max(0, s)
    dst = m - min(0, s)
    out = x
    for i in range(b):
        out ^= ((x >> (src + i)) & 1) << (dst + i)
    return out


ALL_SMALL = [(b, m, s) for b in range(4) for m in range(6) for s in range(-5, 6) if abs(s) >= b]


@pytest.mark.parametrize("bms", ALL_SMALL, ids=lambda t: f"Sw<{t[0]},{t[1]},{t[2]}>")
def test_swizzle_is_an_involutive_bijection_matching_the_bit_definition(bms):
    sw = Swizzle(*bms)
    n = sw.size()
    assert n == 1 << (sum(map(abs, bms)))
    img = [sw(x) for x in range(n)]
    assert sorted(img) == list(range(n))
    assert all(sw(y) == x for x, y in enumerate(img))
    assert all(img[x] == reference_swizzle(*bms, x) for x in range(n))
    # the function repeats with period size(): high bits pass through untouched
    assert all(sw(x + 5 * n) == img[x] + 5 * n for x in range(0, n, max(1, n // 16)))


@pytest.mark.parametrize(
    "bms, yyy, zzz",
    [
        ((0, 4, 3), 0x000, 0x000),
        ((1, 4, 3), 0x080, 0x010),
        ((2, 4, 3), 0x180, 0x030),
        ((3, 4, 3), 0x380, 0x070),
        ((2, 5, 2), 0x180, 0x060),
        ((3, 4, -3), 0x070, 0x380),
    ],
)
def test_masks_match_notes_table(bms, yyy, zzz):
    sw = Swizzle(*bms)
    assert (sw.yyy_msk, sw.zzz_msk, sw.swizzle_code) == (yyy, zzz, yyy | zzz)
    assert (sw.bits, sw.base, sw.shift) == bms


def test_hardware_patterns_from_notes():
    sw128 = Swizzle(3, 4, 3)
    # bits 4-6 ^= bits 7-9
    assert sw128(0x594) == 0x5A4 and sw128(0x7FE) == 0x78E
    assert Swizzle(1, 4, 3)(0x80) == 0x90
    assert Swizzle(2, 5, 2)(0x180) == 0x1E0
    # element form: bf16 (NOTES 1 worked check) and tf32 SW32
    assert 0x400 + 2 * Swizzle(3, 3, 3)(3 * 64 + 10) == 0x5A4
    assert 0x400 + 2 * Swizzle(3, 3, 3)(7 * 64 + 63) == 0x78E
    assert 0x100 + 4 * Swizzle(1, 2, 3)(37) == 0x184


def test_negative_shift_moves_bits_left():
    sw = Swizzle(2, 0, -3)
    assert sw(0b00011) == 0b11011
    assert sw(0b11000) == 0b11000


def test_str_repr_eq_hash_parse():
    sw = Swizzle(3, 4, 3)
    assert str(sw) == "Sw<3,4,3>" and repr(sw) == "Swizzle(3, 4, 3)"
    assert eval(repr(sw)) == sw and parse(str(sw)) == sw
    assert parse("Sw<2,5,-2>") == Swizzle(2, 5, -2)
    assert parse(" Sw< 1 , 4 , 3 > ") == Swizzle(1, 4, 3)
    assert sw == Swizzle(np.int64(3), np.uint8(4), np.int32(3))
    assert sw != Swizzle(3, 4, 4) and sw != (3, 4, 3)
    assert len({Swizzle(3, 4, 3), Swizzle(3, 4, 3), Swizzle(2, 4, 3)}) == 2
    assert pickle.loads(pickle.dumps(sw)) == sw
    assert sw.cosize() == sw.size() == 1024
    with pytest.raises(AttributeError):
        sw.bits = 2


def test_call_accepts_numpy_ints_and_returns_int():
    sw = Swizzle(3, 4, 3)
    r = sw(np.int64(0x594))
    assert r == 0x5A4 and type(r) is int
    with pytest.raises(FastswzTypeError, match="offset="):
        sw(1.0)


@pytest.mark.parametrize(
    "args, match",
    [
        ((-1, 4, 3), r"B=-1 must be >= 0"),
        ((3, -1, 3), r"M=-1 must be >= 0"),
        ((3, 4, 2), r"S=2 must satisfy \|S\| >= B=3"),
        ((3, 4, -2), r"S=-2 must satisfy \|S\| >= B=3"),
    ],
)
def test_swizzle_validation(args, match):
    with pytest.raises(LayoutError, match=match) as info:
        Swizzle(*args)
    assert isinstance(info.value, ValueError) and isinstance(info.value, FastswzError)


@pytest.mark.parametrize(
    "args, name", [((3.0, 4, 3), "B"), ((3, True, 3), "M"), ((3, 4, "3"), "S"), ((3, 4, (3,)), "S")]
)
def test_swizzle_type_errors(args, name):
    with pytest.raises(FastswzTypeError, match=rf"^{name}="):
        Swizzle(*args)


# ---------------------------------------------------------------------------------------------
# upcast / downcast of swizzles (include/cute/swizzle_layout.hpp; NOTES 1 table)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "byte_sw, bits, element_sw",
    [
        ((3, 4, 3), 4, (3, 5, 3)),
        ((3, 4, 3), 8, (3, 4, 3)),
        ((3, 4, 3), 16, (3, 3, 3)),
        ((3, 4, 3), 32, (3, 2, 3)),
        ((3, 4, 3), 64, (3, 1, 3)),
        ((2, 5, 2), 4, (2, 6, 2)),
        ((2, 5, 2), 16, (2, 4, 2)),
        ((2, 5, 2), 64, (2, 2, 2)),
        ((1, 4, 3), 32, (1, 2, 3)),
    ],
)
def test_recast_table(byte_sw, bits, element_sw):
    assert recast(Swizzle(*byte_sw), 8, bits) == Swizzle(*element_sw)
    assert recast(Swizzle(*element_sw), bits, 8) == Swizzle(*byte_sw)


def test_upcast_past_base_shrinks_bits_like_cute():
    # values printed by host-compiled CuTe 4.2
    assert upcast(Swizzle(3, 4, 3), 32) == Swizzle(2, 0, 3)
    assert upcast(Swizzle(3, 4, 3), 128) == Swizzle(0, 0, 3)
    assert downcast(Swizzle(2, 5, 2), 2) == Swizzle(2, 6, 2)
    assert lay_mod.upcast(Swizzle(3, 4, 3), 2) == Swizzle(3, 3, 3)


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_upcast_commutes_with_element_addressing(n):
    # applying the byte swizzle to n-byte elements equals the upcast swizzle on element indices
    sw = Swizzle(3, 4, 3)
    esw = upcast(sw, n)
    assert all(sw(i * n) == esw(i) * n for i in range(sw.size() // n))


@pytest.mark.parametrize("bad", [3, 6, 0, -2])
def test_unit_change_needs_power_of_two(bad):
    with pytest.raises(LayoutError, match=r"power of two|positive"):
        upcast(Swizzle(3, 4, 3), bad)
    with pytest.raises(LayoutError, match=r"power of two|positive"):
        downcast(Swizzle(3, 4, 3), bad)


# ---------------------------------------------------------------------------------------------
# ComposedLayout
# ---------------------------------------------------------------------------------------------


def test_composed_layout_evaluates_outer_of_offset_plus_inner():
    c = ComposedLayout(Swizzle(3, 3, 3), 0, K_ATOM)
    assert (
        c.shape == (8, 64)
        and c.size() == 512
        and c.cosize() == 512
        and len(c) == 2
        and c.rank() == 2
    )
    assert c.depth() == 1 and size(c) == 512 and lay_mod.rank(c) == 2 and lay_mod.depth(c) == 1
    sw = Swizzle(3, 3, 3)
    for m, k in itertools.product(range(8), range(64)):
        assert c(m, k) == c((m, k)) == sw(K_ATOM(m, k))
    for i in range(c.size()):
        assert c(i) == sw(K_ATOM(i))
    off = ComposedLayout(Swizzle(3, 3, 3), 64, K_ATOM)
    assert all(off(i) == sw(64 + K_ATOM(i)) for i in range(512))
    outer_layout = ComposedLayout(L(16, 2), 3, L((2, 2), (1, 4)))
    assert [outer_layout(i) for i in range(4)] == [6, 8, 14, 16]


def test_composed_str_repr_parse_eq_hash():
    c = ComposedLayout(Swizzle(3, 4, 3), 0, K_ATOM)
    assert str(c) == "Sw<3,4,3> o 0 o (8,64):(64,1)"
    assert repr(c) == "ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))"
    assert eval(repr(c)) == c and parse(str(c)) == c
    assert parse("Sw<3,4,3> o (8,64):(64,1)") == c
    assert parse("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)") == c
    assert parse("Sw<3,4,3> o 16 o 8:1") == ComposedLayout(Swizzle(3, 4, 3), 16, L(8))
    assert parse("8:2 o 1 o (2,2):(1,2)") == ComposedLayout(L(8, 2), 1, L((2, 2)))
    assert c != ComposedLayout(Swizzle(3, 4, 3), 16, K_ATOM)
    assert c != ComposedLayout(Swizzle(3, 3, 3), 0, K_ATOM)
    assert hash(c) == hash(ComposedLayout(Swizzle(3, 4, 3), np.int64(0), K_ATOM))
    assert len({c, parse(str(c))}) == 1
    assert pickle.loads(pickle.dumps(c)) == c
    assert make_composed_layout(Swizzle(3, 4, 3), 0, K_ATOM) == c
    with pytest.raises(AttributeError):
        c.offset = 3


def test_composed_getitem_and_slicing():
    c = ComposedLayout(Swizzle(3, 3, 3), 0, K_ATOM)
    assert c[1] == ComposedLayout(Swizzle(3, 3, 3), 0, L(64, 1))
    assert list(c) == [c[0], c[1]]
    row = c(3, None)  # fix m=3: offset folds the fixed coordinate in
    assert row == ComposedLayout(Swizzle(3, 3, 3), 192, L((64,), (1,)))
    assert all(row(k) == c(3, k) for k in range(64))
    col = c(None, 10)
    assert all(col(m) == c(m, 10) for m in range(8))
    sub, off = lay_mod.slice_and_offset((None, 10), c)
    assert off == 0 and sub == col


def test_composed_algebra_acts_on_inner():
    sw = Swizzle(3, 3, 3)
    c = ComposedLayout(sw, 0, K_ATOM)
    # CuTe 4.2: logical_divide keeps A and O and divides B
    d = lay_mod.logical_divide(c, (2, 16))
    assert str(d) == "Sw<3,3,3> o 0 o ((2,4),(16,4)):((64,128),(1,16))"
    assert lay_mod.composition(c, (4, 16)) == ComposedLayout(
        sw, 0, lay_mod.composition(K_ATOM, (4, 16))
    )
    assert lay_mod.zipped_divide(c, (2, 16)).inner == lay_mod.zipped_divide(K_ATOM, (2, 16))
    assert lay_mod.tiled_divide(c, (2, 16)).inner == lay_mod.tiled_divide(K_ATOM, (2, 16))
    assert lay_mod.flat_divide(c, (2, 16)).inner == lay_mod.flat_divide(K_ATOM, (2, 16))
    assert lay_mod.coalesce(c).inner == lay_mod.coalesce(K_ATOM)
    assert lay_mod.filter(c).inner == lay_mod.filter(K_ATOM)
    assert lay_mod.complement(c, 1024) == lay_mod.complement(K_ATOM, 1024)
    t = lay_mod.tile_to_shape(c, (64, 64))
    # host-compiled CuTe 4.2 prints Sw<3,3,3> o _0 o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0))
    assert str(t) == "Sw<3,3,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))"
    for m, k in itertools.product(range(0, 64, 7), range(64)):
        assert t(m, k) == sw(lay_mod.tile_to_shape(K_ATOM, (64, 64))(m, k))
    p = lay_mod.logical_product(c, 2)
    assert p.outer == sw and p.inner == lay_mod.logical_product(K_ATOM, 2)
    assert lay_mod.blocked_product(c, L((1, 2))).inner == lay_mod.blocked_product(K_ATOM, L((1, 2)))
    # every value of the divided layout is still the swizzled inner value
    assert all(d(i) == sw(d.inner(i)) for i in range(512))


def test_composition_with_swizzle_and_composed_rhs():
    sw = Swizzle(2, 4, 3)
    assert lay_mod.composition(sw, K_ATOM) == ComposedLayout(sw, 0, K_ATOM)
    # CuTe drops an identity (0-bit) swizzle
    assert lay_mod.composition(Swizzle(0, 4, 3), K_ATOM) == K_ATOM
    outer = ComposedLayout(L(64, 2), 0, L((8, 8), (8, 1)))
    r = lay_mod.composition(L(128, 1), outer)
    assert all(r(i) == outer(i) for i in range(64))
    with pytest.raises(LayoutError, match="offset 0"):
        lay_mod.composition(L(128), ComposedLayout(sw, 0, K_ATOM))


def test_composed_upcast_downcast_position_independent_form():
    byte_atom = ComposedLayout(Swizzle(3, 4, 3), 64, L((8, 128), (128, 1)))
    elem = upcast(byte_atom, 2)
    # host-compiled CuTe 4.2 prints Sw<3,3,3> o _32 o (_8,_64):(_64,_1)
    assert str(elem) == "Sw<3,3,3> o 32 o (8,64):(64,1)"
    assert downcast(elem, 2) == byte_atom
    assert lay_mod.recast(byte_atom, 8, 16) == elem and recast(elem, 16, 8) == byte_atom
    assert lay_mod.upcast(byte_atom, 2) == elem and lay_mod.downcast(elem, 2) == byte_atom
    # element e of the element form sits at byte 2*e of the byte form (even bytes)
    for m, k in itertools.product(range(8), range(64)):
        assert byte_atom(m, 2 * k) == 2 * elem(m, k)
    with pytest.raises(LayoutError, match="offset 3 is not a multiple of 2"):
        upcast(ComposedLayout(Swizzle(3, 4, 3), 3, L((8, 128), (128, 1))), 2)


def test_composed_constructor_errors():
    with pytest.raises(FastswzTypeError, match="outer="):
        ComposedLayout(3, 0, K_ATOM)
    with pytest.raises(FastswzTypeError, match="inner="):
        ComposedLayout(Swizzle(3, 4, 3), 0, (8, 64))
    with pytest.raises(FastswzTypeError, match="offset="):
        ComposedLayout(Swizzle(3, 4, 3), 0.0, K_ATOM)
    with pytest.raises(FastswzTypeError, match="ComposedLayout"):
        lay_mod.right_inverse(ComposedLayout(Swizzle(3, 4, 3), 0, K_ATOM))


def test_parse_composed_errors():
    with pytest.raises(ParseError, match="position 15"):
        parse("Sw<3,4,3> o 0 o")
    with pytest.raises(ParseError, match="position 0 .*the swizzle|swizzle at position 0"):
        parse("Sw<1,4,0> o 8:1")
    with pytest.raises(ParseError, match="end of text"):
        parse("Sw<3,4,3> o 0 o 8:1 o 2")


@pytest.mark.parametrize("seed", range(20))
def test_random_composed_roundtrip(seed):
    rng = np.random.default_rng(seed)
    b = int(rng.integers(0, 4))
    sw = Swizzle(b, int(rng.integers(0, 5)), int(rng.choice([-1, 1]) * rng.integers(b, b + 3)))
    shape = tuple(int(x) for x in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    stride = tuple(int(x) for x in rng.integers(-8, 64, size=len(shape)))
    c = ComposedLayout(sw, int(rng.integers(0, 100)), L(shape, stride))
    assert parse(str(c)) == c and eval(repr(c)) == c
