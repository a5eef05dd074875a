"""Tests for fastswz.int_tuple, fastswz.layout, fastswz.algebra and fastswz.notation: IntTuple
helpers, Layout, the layout algebra and parse()."""

import itertools
import pickle
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastswz.errors import FastswzError, FastswzTypeError, LayoutError, ParseError
from fastswz import (
    Layout,
    blocked_product,
    ceil_div,
    coalesce,
    complement,
    composition,
    congruent,
    cosize,
    crd2crd,
    crd2idx,
    depth,
    downcast,
    elem_scale,
    filter,
    flat_divide,
    flat_product,
    flatten,
    has_none,
    idx2crd,
    inner_product,
    is_int,
    is_tuple,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    make_ordered_layout,
    max_common_layout,
    max_common_vector,
    parse,
    prefix_product,
    product,
    raked_product,
    rank,
    recast,
    right_inverse,
    shape_div,
    size,
    slice_,
    slice_and_offset,
    tile_to_shape,
    tiled_divide,
    tiled_product,
    upcast,
    zipped_divide,
    zipped_product,
)
from fastswz.swizzle import ComposedLayout, Swizzle

L = Layout
K_SW128_BF16 = L((8, 64), (64, 1))


def values(layout):
    """The layout as a function on its whole domain."""
    return [layout(i) for i in range(size(layout))]


# ---------------------------------------------------------------------------------------------
# IntTuple helpers
# ---------------------------------------------------------------------------------------------


def test_int_tuple_helpers():
    assert (
        is_int(3)
        and is_int(np.int32(3))
        and not is_int(True)
        and not is_int(3.0)
        and not is_int((3,))
    )
    assert is_tuple(()) and not is_tuple(3)
    assert flatten(((2, 3), (4, (5, 6)))) == (2, 3, 4, 5, 6)
    assert flatten(7) == (7,)
    assert flatten(()) == ()
    assert product(((2, 3), 4)) == 24 and product(()) == 1 and product(5) == 5
    assert inner_product((2, (3, 4)), (1, (10, 100))) == 432
    assert prefix_product((2, (3, 4), 5)) == (1, (2, 6), 24)
    assert prefix_product((2, 3), 4) == (4, 8)
    assert prefix_product(7) == 1
    assert shape_div((4, 5, 6), 40) == (1, 1, 3)
    assert shape_div((4, 6), (2, 3)) == (2, 2)
    assert shape_div(6, (2, 3)) == 1
    assert shape_div(2, 8) == 1
    assert ceil_div((4, 6), 8) == (1, 3)
    assert ceil_div((64, 65), (8, 8)) == (8, 9)
    assert ceil_div((64, 65, 3), (8,)) == (8, 65, 3)
    assert ceil_div(7, (2, 2)) == 2
    assert elem_scale((2, 3), (4, (5, 6))) == (8, 90)
    assert depth(8) == 0 and depth((8, 64)) == 1 and depth(((8, 8), 64)) == 2 and depth(()) == 1
    assert rank(8) == 1 and rank((8, (2, 2))) == 2 and rank(()) == 0
    assert (
        congruent((2, (3, 4)), (1, (5, 6)))
        and not congruent(8, (8,))
        and not congruent((1, 2), (1, 2, 3))
    )
    assert has_none((1, (None, 2))) and not has_none((1, 2)) and has_none(None)


def test_idx2crd_crd2idx_roundtrip_whole_domain():
    shape = (2, (3, 4), 5)
    for i in range(product(shape)):
        c = idx2crd(i, shape)
        assert crd2idx(c, shape) == i
        assert crd2idx(i, shape) == i
    assert idx2crd(11, (2, (3, 4))) == (1, (2, 1))
    # An int coordinate past the last mode's extent keeps going in the last mode.
    assert crd2idx(40, (4, 8), (1, 4)) == 40


def test_crd2idx_with_strides_and_none():
    assert crd2idx((1, 2), (8, 64), (64, 1)) == 66
    assert crd2idx(9, (8, 64), (64, 1)) == 65
    assert crd2idx((None, 2), (8, 64), (64, 1)) == 2


def test_crd2crd():
    assert crd2crd(5, (2, 3)) == (1, 2)
    assert crd2crd((1, 2), 6, (2, 3)) == 5
    assert crd2crd((1, 5), (2, (3, 2))) == (1, (2, 1))
    assert crd2crd(3, 4) == 3
    with pytest.raises(LayoutError, match="outside shape"):
        crd2crd(4, 4)
    with pytest.raises(LayoutError, match="src_shape"):
        crd2crd((1, 2), 6)


def test_slice():
    assert slice_((None, 3), (8, 64)) == (8,)
    assert slice_(((None, 1), None), ((2, 3), 4)) == (2, 4)
    assert slice_((1, 2), (8, 64)) == ()
    # CuTe: slice(_, t) == t at the top level (pycute returns (t,))
    assert slice_(None, (8, 64)) == (8, 64)
    with pytest.raises(LayoutError, match="does not match"):
        slice_((None, 1, 2), (8, 64))


def test_helper_errors_name_the_problem():
    with pytest.raises(LayoutError, match="divisibility"):
        shape_div(6, 4)
    with pytest.raises(LayoutError, match="mismatched ranks"):
        shape_div((2, 3), (1, 2, 3))
    with pytest.raises(LayoutError, match="mismatched ranks"):
        inner_product((1, 2), (1, 2, 3))
    with pytest.raises(LayoutError, match="not congruent"):
        inner_product((1, 2), 3)
    with pytest.raises(LayoutError, match="cannot be scaled"):
        elem_scale((1, 2), 3)
    with pytest.raises(LayoutError, match="more modes"):
        ceil_div((4,), (1, 2))
    with pytest.raises(LayoutError, match="has 3 modes but shape"):
        crd2idx((1, 2, 3), (4, 4))
    with pytest.raises(LayoutError, match="not congruent"):
        crd2idx(1, (4, 4), (1, 4, 16))


# ---------------------------------------------------------------------------------------------
# Input normalisation: numpy ints are welcome, bools and floats are not
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("np_int", [np.int8, np.int32, np.int64, np.uint16, np.uint64])
def test_numpy_ints_accepted_everywhere(np_int):
    lay = L((np_int(8), np_int(64)), (np_int(64), np_int(1)))
    assert lay == K_SW128_BF16
    assert type(lay.shape[0]) is int and type(lay.stride[1]) is int
    assert lay(np_int(9)) == 65 and type(lay(np_int(9))) is int
    assert lay(np_int(1), np_int(1)) == 65
    assert composition(lay, np_int(4)) == L(4, 64)
    assert logical_divide(lay, (np_int(2), np_int(16))) == logical_divide(lay, (2, 16))
    assert product((np_int(2), np_int(3))) == 6
    assert crd2idx(np_int(5), (np_int(2), np_int(3))) == 5
    assert upcast(L((8, 128), (128, 1)), np_int(2)) == K_SW128_BF16
    assert complement(L(4, 2), np_int(24)) == complement(L(4, 2), 24)
    assert tile_to_shape(lay, (np_int(64), np_int(64))) == tile_to_shape(lay, (64, 64))


@pytest.mark.parametrize(
    "bad, argname",
    [
        (lambda: L(8.0), "shape"),
        (lambda: L((8, True)), "shape"),
        (lambda: L((8, 64), (64, 1.0)), "stride"),
        (lambda: L([8, 64]), "shape"),
        (lambda: L("8"), "shape"),
        (lambda: L((8, np.float32(2))), "shape"),
        (lambda: L(8, np.bool_(True)), "stride"),
        (lambda: K_SW128_BF16(1.5), "crd"),
        (lambda: K_SW128_BF16((1, 2.0)), "crd"),
        (lambda: product((2, 3.0)), "a"),
        (lambda: crd2idx(1, (2, 3), (1, "2")), "stride"),
        (lambda: composition(K_SW128_BF16, 4.0), "b"),
        (lambda: complement(L(4, 2), 2.5), "cotarget"),
        (lambda: upcast(K_SW128_BF16, 2.0), "n"),
        (lambda: tile_to_shape(K_SW128_BF16, (64.0, 64)), "target_shape"),
        (lambda: make_ordered_layout((2, 3), (0, 1.5)), "order"),
    ],
)
def test_wrong_kinds_raise_type_error_naming_argument(bad, argname):
    with pytest.raises(FastswzTypeError, match=rf"^{argname}=") as info:
        bad()
    assert isinstance(info.value, TypeError) and isinstance(info.value, FastswzError)


def test_layout_value_errors():
    with pytest.raises(LayoutError, match=r"stride \(64\) is not congruent with shape \(8,64\)"):
        L((8, 64), (64,))
    with pytest.raises(LayoutError, match="not congruent"):
        L((8, 64), 1)
    with pytest.raises(LayoutError, match="not congruent"):
        L(((2, 4), 64), ((1, 2, 3), 8))
    with pytest.raises(LayoutError, match="extent 0"):
        L((8, 0))
    with pytest.raises(LayoutError, match="extent -2"):
        L(-2, 1)
    with pytest.raises(LayoutError, match="coordinate"):
        K_SW128_BF16((1, 2, 3))
    with pytest.raises(LayoutError, match="coordinate"):
        L(8)((1, 2))
    with pytest.raises(FastswzTypeError, match="needs a coordinate"):
        K_SW128_BF16()
    with pytest.raises(IndexError):
        L(8)[1]
    err = LayoutError("x")
    assert isinstance(err, ValueError)


# ---------------------------------------------------------------------------------------------
# Layout object
# ---------------------------------------------------------------------------------------------


def test_layout_basics():
    lay = K_SW128_BF16
    assert lay.shape == (8, 64) and lay.stride == (64, 1)
    assert lay.size() == 512 == size(lay) and lay.cosize() == 512 == cosize(lay)
    assert lay.rank() == 2 == len(lay) == rank(lay) and lay.depth() == 1 == depth(lay)
    assert lay[0] == L(8, 64) and lay[1] == L(64, 1) and lay[-1] == L(64, 1)
    assert list(lay) == [L(8, 64), L(64, 1)]
    assert L(8)[0] == L(8) and len(L(8)) == 1
    assert L((2, 3, 4))[1:] == L((3, 4), (2, 6))


def test_default_stride_is_compact_column_major():
    assert L((2, (3, 4), 5)).stride == (1, (2, 6), 24)
    assert L(8).stride == 1
    assert L(()).stride == () and L(()).size() == 1 and L(())(0) == 0


def test_call_flat_index_coordinate_and_slice():
    lay = L(((2, 4), 8), ((1, 16), 2))
    for i in range(size(lay)):
        crd = idx2crd(i, lay.shape)
        assert lay(i) == lay(crd) == lay(*crd) == crd2idx(crd, lay.shape, lay.stride)
    # hierarchical coordinates: ((0,1),3) and the rank-2 form (2,3) agree
    assert lay((0, 1), 3) == lay(2, 3) == 16 + 6
    assert lay(None, 3) == L(((2, 4),), ((1, 16),))
    assert lay((None, 1), None) == L((2, 8), (1, 2))
    assert lay(None) == lay  # CuTe: layout(_) is the layout itself
    assert K_SW128_BF16(1, None) == L((64,), (1,))


def test_cosize_with_zero_and_negative_strides():
    assert L((4, 2), (2, 16)).cosize() == 23
    assert L((4, 2), (0, 1)).cosize() == 2
    assert L((4, 3), (-1, 4)).cosize() == 12
    assert L(1, 0).cosize() == 1


def test_equality_is_structural_and_hash_consistent():
    assert L(8) != L((8,))
    assert L(8) == L(8, 1)
    assert L((8, 64), (64, 1)) == L((8, 64), (64, 1))
    assert L((8, 64)) != L((8, 64), (64, 1))
    assert hash(L((8, 64), (64, 1))) == hash(L((np.int64(8), 64), (64, 1)))
    assert len({L(8), L((8,)), L(8, 1), L(8, 2)}) == 3
    assert L(8) != "8:1" and (L(8) == 8) is False


def test_immutable_and_picklable():
    lay = K_SW128_BF16
    with pytest.raises(AttributeError):
        lay.shape = (1,)
    with pytest.raises(AttributeError):
        del lay.stride
    with pytest.raises(AttributeError):
        lay.extra = 1
    assert pickle.loads(pickle.dumps(lay)) == lay


@pytest.mark.parametrize(
    "lay, text",
    [
        (L((8, 64), (64, 1)), "(8,64):(64,1)"),
        (L(((8, 8), 64), ((64, 512), 1)), "((8,8),64):((64,512),1)"),
        (L(8), "8:1"),
        (L(8, 0), "8:0"),
        (L((8,)), "(8):(1)"),
        (L((2, 3), (-1, 4)), "(2,3):(-1,4)"),
        (L(()), "():()"),
    ],
)
def test_str_repr_parse_roundtrip(lay, text):
    assert str(lay) == text
    assert parse(text) == lay
    assert eval(repr(lay)) == lay
    assert parse(str(lay)) == lay


def test_repr_format():
    assert repr(K_SW128_BF16) == "Layout((8, 64), (64, 1))"
    assert repr(L((8,))) == "Layout((8,), (1,))"


# ---------------------------------------------------------------------------------------------
# Layout algebra: results printed by host-compiled CuTe (CUTLASS 4.2.0, include/cute, static
# ints with the leading "_" removed). Every case also gets a whole-domain check below.
# ---------------------------------------------------------------------------------------------

CUTE_CASES = [
    (lambda: coalesce(L((2, (1, 6)), (1, (6, 2)))), "12:1"),
    (lambda: coalesce(L((2, 4), (1, 3))), "(2,4):(1,3)"),
    (lambda: coalesce(L((2, 4, 3), (1, 2, 16)), (1, 1)), "(2,4,3):(1,2,16)"),
    (lambda: coalesce(L((1, 1), (3, 5))), "1:0"),
    (lambda: filter(L((4, 2, 3), (1, 0, 4))), "12:1"),
    (lambda: composition(L((6, 2), (8, 2)), L((4, 3), (3, 1))), "((2,2),3):((24,2),8)"),
    (lambda: composition(L((10, 2), (16, 4)), L((5, 4), (1, 5))), "(5,(2,2)):(16,(80,4))"),
    (lambda: composition(L(20, 2), L((4, 5), (1, 4))), "(4,5):(2,8)"),
    (lambda: composition(L((4, 1), (1, 0)), L(8, 1)), "(4,2):(1,0)"),
    (lambda: composition(K_SW128_BF16, (4, 16)), "(4,16):(64,1)"),
    (
        lambda: composition(L((12, (4, 8)), (59, (13, 1))), (L(3, 4), L(8, 2))),
        "(3,(2,4)):(236,(26,1))",
    ),
    (lambda: composition(L((8, 8), (8, 1)), L((2, 4), (-1, 2))), "(2,4):(-8,16)"),
    (lambda: composition(L((4, 8), (1, 4)), (2,)), "(2):(1)"),
    (lambda: complement(L(4, 2), 24), "(2,3):(1,8)"),
    (lambda: complement(L((2, 2), (1, 6)), 24), "(3,2):(2,12)"),
    (lambda: complement(L((2, 4), (1, 6)), 32), "(3,2):(2,24)"),
    (lambda: complement(L(4, 2)), "2:1"),
    (lambda: complement(L((4, 6), (1, 4)), (8, 8)), "3:24"),
    (lambda: complement(L(3, 1), (4, 6)), "12:3"),
    (lambda: complement(L(1, 0)), "1:0"),
    (lambda: right_inverse(L((4, 2), (2, 1))), "(2,4):(4,1)"),
    (lambda: right_inverse(L((8, 4), (4, 1))), "(4,8):(8,1)"),
    (lambda: right_inverse(L((2, 3), (3, 1))), "(3,2):(2,1)"),
    (lambda: right_inverse(L((4, 2, 2), (1, 3, 4))), "(4,2):(1,8)"),
    (lambda: left_inverse(L((4, 2), (2, 1))), "(2,4):(4,1)"),
    (lambda: left_inverse(L((2, 4), (1, 4))), "(4,4):(1,2)"),
    (lambda: left_inverse(L((4, 2), (0, 3))), "(3,2):(0,4)"),
    (lambda: left_inverse(L(4, 0)), "4:0"),
    (lambda: logical_divide(L(16, 1), L(4, 2)), "(4,(2,2)):(2,(1,8))"),
    (lambda: logical_divide(L((4, 2, 3), (2, 1, 8)), L(4, 2)), "((2,2),(2,3)):((4,1),(2,8))"),
    (lambda: logical_divide(K_SW128_BF16, (2, 16)), "((2,4),(16,4)):((64,128),(1,16))"),
    (
        lambda: logical_divide(L((9, (4, 8)), (59, (13, 1))), (L(3, 3), L((2, 4), (1, 8)))),
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))",
    ),
    (lambda: zipped_divide(K_SW128_BF16, (2, 16)), "((2,16),(4,4)):((64,1),(128,16))"),
    (lambda: tiled_divide(K_SW128_BF16, (2, 16)), "((2,16),4,4):((64,1),128,16)"),
    (lambda: flat_divide(K_SW128_BF16, (2, 16)), "(2,16,4,4):(64,1,128,16)"),
    (lambda: tiled_divide(K_SW128_BF16, (2,)), "((2),4,64):((64),128,1)"),
    (lambda: flat_divide(K_SW128_BF16, (2,)), "((2),4,64):((64),128,1)"),
    (
        lambda: zipped_divide(L((9, (4, 8)), (59, (13, 1))), (L(3, 3), L((2, 4), (1, 8)))),
        "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))",
    ),
    (
        lambda: zipped_divide(L((4, 8, 2), (16, 1, 64)), (2, (4,))),
        "((2,(4)),(2,(2),2)):((16,(1)),(32,(4),64))",
    ),
    (lambda: logical_product(L((2, 2), (4, 1)), L(6, 1)), "((2,2),(2,3)):((4,1),(2,8))"),
    (lambda: logical_product(L(4, 1), 2), "(4,2):(1,4)"),
    (lambda: logical_product(L((2, 5), (5, 1)), (3, 4)), "((2,3),(5,4)):((5,1),(1,5))"),
    (
        lambda: zipped_product(L((2, 5), (5, 1)), (L(3, 5), L(4, 6))),
        "((2,5),(3,4)):((5,1),(10,30))",
    ),
    (lambda: zipped_product(L((2, 2)), (3, 4)), "((2,2),(3,(2,2))):((1,2),(2,(1,4)))"),
    (lambda: tiled_product(L((2, 2), (1, 2)), L((3, 4), (1, 3))), "((2,2),3,4):((1,2),4,12)"),
    (lambda: flat_product(L((2, 2), (1, 2)), L((3, 4), (1, 3))), "(2,2,3,4):(1,2,4,12)"),
    (lambda: blocked_product(L((2, 2), (1, 2)), L((2, 3), (3, 1))), "((2,2),(2,3)):((1,12),(2,4))"),
    (lambda: raked_product(L((2, 2), (1, 2)), L((2, 3), (3, 1))), "((2,2),(3,2)):((12,1),(4,2))"),
    (lambda: blocked_product(L((2, 2), (2, 1)), L(4, 1)), "((2,4),(2,1)):((2,4),(1,0))"),
    (lambda: raked_product(L(4, 1), L((2, 2), (2, 1))), "((2,4),(2,1)):((8,1),(4,0))"),
    (lambda: blocked_product(L(4, 1), L(2, 1)), "((4,2)):((1,4))"),
    (lambda: make_ordered_layout((2, 3, 4), (1, 0, 2)), "(2,3,4):(3,1,6)"),
    (lambda: make_ordered_layout((2, 2, 2, 2), (0, 2, 3, 1)), "(2,2,2,2):(1,4,8,2)"),
    (lambda: make_ordered_layout(((2, 3), 4), (1, 0)), "((2,3),4):((4,8),1)"),
    (lambda: upcast(L((8, 128), (128, 1)), 2), "(8,64):(64,1)"),
    (lambda: upcast(L((2, (4, 8)), (0, (1, 16))), 4), "(2,(1,8)):(0,(1,4))"),
    (lambda: upcast(L((3, 4), (2, -16)), 8), "(1,4):(1,-2)"),
    (lambda: downcast(K_SW128_BF16, 2), "(8,128):(128,1)"),
    (lambda: downcast(L((4, (2, 3)), (1, (8, -1))), 4), "(16,(2,12)):(1,(32,-1))"),
    (lambda: max_common_layout(L((4, 8), (1, 4)), L((4, 8), (1, 16))), "4:1"),
    (lambda: max_common_layout(K_SW128_BF16, L((8, 64), (1, 8))), "1:0"),
    (lambda: tile_to_shape(L((64, 8), (1, 64)), (128, 64)), "((64,2),(8,8)):((1,512),(64,1024))"),
]


@pytest.mark.parametrize("case, expected", CUTE_CASES, ids=[c[1] for c in CUTE_CASES])
def test_matches_compiled_cute(case, expected):
    result = case()
    assert str(result) == expected
    assert parse(expected) == result


def test_max_common_vector_matches_cute():
    assert max_common_vector(L((4, 8), (1, 4)), L((4, 8), (1, 16))) == 4
    assert max_common_vector(L((8, 2), (2, 1)), L((8, 2), (2, 1))) == 16
    assert max_common_vector(K_SW128_BF16, L((8, 64), (1, 8))) == 1


def test_tile_to_shape_prints_like_cute_4_2():
    # Printed by compiled CuTe 4.2 (tile_to_shape returns the blocked product uncoalesced);
    # CuTe 3.x coalesced by product_shape, which is the same function.
    cute42 = {
        ((8, 64), (64, 1), (64, 64), None): "((8,8),(64,1)):((64,512),(1,0))",
        ((64, 8), (1, 64), (128, 64), (1, 0)): "((64,2),(8,8)):((1,4096),(64,512))",
    }
    for (shape, stride, target, order), text in cute42.items():
        block = L(shape, stride)
        ours = tile_to_shape(block, target, order)
        assert str(ours) == text
        assert ours == parse(text)
        product_shape = tuple(t // b for t, b in zip(target, shape))
        assert values(coalesce(ours, product_shape)) == values(ours)


# ---------------------------------------------------------------------------------------------
# Whole-domain properties of the algebra
# ---------------------------------------------------------------------------------------------

SMALL = [
    L(8),
    L((8,)),
    L(1, 0),
    L((2, (1, 6)), (1, (6, 2))),
    L((4, 2), (2, 1)),
    L((4, 3), (3, 1)),
    L((2, 4), (1, 8)),
    L(((2, 2), 4), ((1, 8), 2)),
    L((3, 1, 5), (5, 7, 1)),
    L((4, 2, 3), (1, 0, 4)),
    L((8, 8), (8, 1)),
    L((2, 3), (-1, 4)),
    K_SW128_BF16,
]


@pytest.mark.parametrize("lay", SMALL, ids=str)
def test_coalesce_and_filter_keep_the_function(lay):
    c = coalesce(lay)
    assert size(c) == size(lay) and values(c) == values(lay) and depth(c) <= 1
    f = filter(lay)
    assert sorted(set(values(f))) == sorted(set(values(lay)))
    if type(lay.shape) is tuple:
        cp = coalesce(lay, (1,) * len(lay))
        assert len(cp) == len(lay) and values(cp) == values(lay)


@pytest.mark.parametrize("lay", SMALL, ids=str)
def test_composition_whole_domain(lay):
    for b in (
        L(size(lay)),
        L((2, size(lay) // 2), (size(lay) // 2, 1)) if size(lay) % 2 == 0 else L(1, 0),
        1,
    ):
        b = b if isinstance(b, Layout) else L(b)
        try:
            r = composition(lay, b)
        except LayoutError:
            continue
        assert [r(i) for i in range(size(b))] == [lay(b(i)) for i in range(size(b))]


def _injective(lay):
    v = values(lay)
    return len(set(v)) == len(v)


@pytest.mark.parametrize(
    "lay", [x for x in SMALL if all(d >= 0 for d in flatten(x.stride))], ids=str
)
def test_complement_is_disjoint_and_ordered(lay):
    f = filter(lay)
    if not _injective(f):
        return
    for cotarget in (cosize(lay), 2 * cosize(lay), 64):
        comp = complement(lay, cotarget)
        cv = values(comp)
        assert cv == sorted(cv)
        assert not set(cv[1:]) & set(values(f))
        whole = make_layout(f, comp)
        if _injective(whole) and sorted(values(whole)) == list(range(size(whole))):
            assert size(whole) >= cotarget


@pytest.mark.parametrize("lay", SMALL, ids=str)
def test_inverses(lay):
    r = right_inverse(lay)
    assert all(lay(r(i)) == i for i in range(size(r)))
    if _injective(lay) and all(d >= 0 for d in flatten(lay.stride)):
        try:
            li = left_inverse(lay)
        except LayoutError:
            return
        assert all(li(lay(i)) == i for i in range(size(lay)))


@pytest.mark.parametrize(
    "lay, tiler",
    [
        (L(16), L(4, 2)),
        (L((8, 64), (64, 1)), (2, 16)),
        (L((4, 2, 3), (2, 1, 8)), L(4, 2)),
        (L(((2, 2), 8), ((1, 16), 2)), (L(2, 2), 4)),
        (L((12, (2, 2)), (4, (1, 24))), (3, None)),  # _ on a mode of two sub-modes (CuTe)
    ],
    ids=str,
)
def test_divide_family_whole_domain(lay, tiler):
    d = logical_divide(lay, tiler)
    z = zipped_divide(lay, tiler)
    t = tiled_divide(lay, tiler)
    f = flat_divide(lay, tiler)
    assert size(d) == size(z) == size(t) == size(f) == size(lay)
    # the tile + rest split is a permutation of the original domain
    assert sorted(values(d)) == sorted(values(lay))
    assert sorted(values(z)) == sorted(values(t)) == sorted(values(f)) == sorted(values(lay))
    # the tile mode of zipped_divide walks the first tile
    assert values(z[0]) == values(coalesce(z[0]))


def test_logical_product_by_int_means_int_colon_1():
    # pycute's bug: logical_product(L, n) divided instead of multiplying
    assert logical_product(L(4, 1), 2) == logical_product(L(4, 1), L(2, 1)) == L((4, 2), (1, 4))
    assert logical_product(L((2, 2), (1, 2)), (3, None)) == make_layout(
        logical_product(L(2), L(3)), L(2, 2)
    )
    assert logical_product(L(4), None) == L(4)


@pytest.mark.parametrize(
    "block, tiler",
    [
        (L((2, 2), (1, 2)), L((2, 3))),
        (L((2, 2), (2, 1)), L(4)),
        (L(4), L((2, 2), (2, 1))),
        (L((8, 64), (64, 1)), L((8, 1))),
    ],
    ids=str,
)
def test_products_tile_the_codomain(block, tiler):
    for prod in (
        blocked_product(block, tiler),
        raked_product(block, tiler),
        zipped_product(block, tiler),
        tiled_product(block, tiler),
        flat_product(block, tiler),
        logical_product(block, tiler),
    ):
        assert size(prod) == size(block) * size(tiler)
        assert sorted(values(prod)) == list(range(size(prod)))


def test_make_ordered_layout_ties_and_nested():
    # CuTe 4.2 gives equal static orders equal strides, (2,3,4):(4,4,1); fastswz ranks them left
    # to right (what CuTe does for dynamic orders), so the result stays compact.
    assert str(make_ordered_layout((2, 3, 4), (1, 1, 0))) == "(2,3,4):(4,4,1)"
    assert make_ordered_layout((2, 3)) == L((2, 3))
    assert make_ordered_layout((2, (3, 4)), (1, (0, 2))) == L((2, (3, 4)), (3, (1, 6)))
    with pytest.raises(LayoutError, match="does not match"):
        make_ordered_layout((2, 3), (0, 1, 2))


def test_tile_to_shape_checks():
    # CuTe 4.2 keeps the blocked product's structure (same functions as 8:1, (8,):(1,), (8,3):(1,8));
    # an int-shaped block pairs with a rank-1 tuple repeat (compiled: 4:1 to 8)
    assert tile_to_shape(L(4), 8) == parse("((4,(2))):((1,(4)))")
    assert tile_to_shape(L((4,)), (8,)) == parse("((4,2)):((1,4))")
    assert tile_to_shape(L(4), (8, 3)) == parse("((4,2),(1,3)):((1,4),(0,8))")
    assert values(tile_to_shape(L(4), (8, 3))) == values(L((8, 3)))
    with pytest.raises(LayoutError, match="does not divide"):
        tile_to_shape(K_SW128_BF16, (60, 64))
    with pytest.raises(LayoutError, match="rank"):
        tile_to_shape(L((2, 2, 2)), (4, 4))


@pytest.mark.parametrize(
    "lay", [K_SW128_BF16, L((64, 8), (1, 64)), L((8, (2, 4)), (8, (1, 64)))], ids=str
)
@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_upcast_downcast_roundtrip(lay, n):
    down = downcast(lay, n)
    assert upcast(down, n) == lay
    assert recast(lay, 16, 16 // n if 16 % n == 0 else 16) is not None
    assert recast(lay, 16 * n, 16) == down
    assert recast(down, 16, 16 * n) == lay
    # each coarse offset v becomes the n fine offsets v*n .. v*n+n-1
    assert sorted(values(down)) == sorted(v * n + j for v in values(lay) for j in range(n))


def test_recast_mixed_ratio_and_errors():
    assert recast(K_SW128_BF16, 16, 16) is K_SW128_BF16
    assert recast(L((8, 96), (96, 1)), 32, 48) == downcast(upcast(L((8, 96), (96, 1)), 3), 2)
    with pytest.raises(LayoutError, match="divisibility"):
        upcast(L((4, 4), (1, 6)), 4)
    with pytest.raises(LayoutError, match="no stride-1 mode"):
        downcast(L((4, 4), (2, 8)), 2)
    with pytest.raises(LayoutError, match="positive"):
        upcast(K_SW128_BF16, 0)


def test_slice_and_offset():
    sub, off = slice_and_offset((None, 3), K_SW128_BF16)
    assert sub == L((8,), (64,)) and off == 3
    sub, off = slice_and_offset(((1, None), 2), L(((2, 4), 8), ((1, 16), 2)))
    assert sub == L((4,), (16,)) and off == 1 + 4
    for m in range(4):
        assert sub(m) + off == L(((2, 4), 8), ((1, 16), 2))((1, m), 2)


def test_algebra_errors():
    with pytest.raises(LayoutError, match="stride divisibility"):
        composition(L((4, 3), (1, 5)), L(2, 6))
    with pytest.raises(LayoutError, match="shape divisibility"):
        composition(L((4, 6), (1, 5)), L(6, 1))
    # CuTe 4.2 accepts this (stride 2 < extent 3) and returns (2,2):(1,2), which maps 3 to 3
    # where a(b(3)) = a(3) = 10: fastswz returns CuTe's layout (docs/CUTE_COMPARISON.md 8)
    assert composition(L((3, 4), (1, 10)), L((2, 2), (1, 2))) == L((2, 2), (1, 2))
    # ... where the weak condition gives a o b, fastswz answers as CuTe does
    assert composition(L((4, 3), (1, 5)), L(2, 3)) == L(2, 3)
    assert composition(L((3, 1), (0, 1)), L((2,), (2,))) == L((2,), (0,))
    assert str(composition(L((8, 1), (3, 4)), L((3, 3), (1, 3)))) == "(3,3):(3,9)"  # issue 14
    with pytest.raises(LayoutError, match="shape divisibility"):
        composition(L((4, 3), (1, 5)), L(3, 3))  # CuTe: Shape Divisibility Condition
    # CuTe checks the stride of an extent-1 mode too (Stride Divisibility Condition)
    with pytest.raises(LayoutError, match="stride divisibility"):
        composition(L((3, 1), (0, 1)), L((2, 1), (1, 4)))
    # CuTe 4.2 rejects this at compile time (Stride Divisibility Condition)
    with pytest.raises(LayoutError):
        logical_product(L((2, 2), (4, 1)), L((4, 3), (3, 1)))
    with pytest.raises(LayoutError, match="not injective"):
        complement(L((2, 2), (1, 1)))
    with pytest.raises(LayoutError, match="negative stride"):
        complement(L(4, -1), 8)
    with pytest.raises(LayoutError, match="left_inverse"):
        left_inverse(L((2, 2), (3, 2)))
    with pytest.raises(LayoutError, match="too|modes"):
        logical_divide(L(8), (2, 2))
    with pytest.raises(LayoutError, match="modes"):
        coalesce(L(8), (1, 1))
    with pytest.raises(FastswzTypeError, match="make_layout"):
        make_layout(1, 2, 3)


def test_make_layout_forms():
    assert make_layout(L(8, 64), L(64, 1)) == K_SW128_BF16
    assert make_layout(L(8)) == L((8,))
    assert make_layout((2, 3)) == L((2, 3))
    assert make_layout(8, 2) == L(8, 2)
    assert make_layout(m for m in K_SW128_BF16) == K_SW128_BF16
    assert make_layout([L(2), L(3, 2)]) == L((2, 3))


# ---------------------------------------------------------------------------------------------
# parse()
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("(_8,_64):(_64,_1)", L((8, 64), (64, 1))),
        ("  ( 8 , 64 ) : ( 64 , 1 )  ", L((8, 64), (64, 1))),
        ("(8,64)", L((8, 64))),
        ("8", L(8)),
        ("_8:_0", L(8, 0)),
        ("(2,3):(-1,_-4)", L((2, 3), (-1, -4))),
        ("((8,8),64):((64,512),1)", L(((8, 8), 64), ((64, 512), 1))),
        ("(8):(1)", L((8,))),
    ],
)
def test_parse_forms(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    "text, where, what",
    [
        ("", 0, "a layout"),
        ("(8,64", 5, "',' or ')'"),
        ("(8,64):", 7, "an integer"),
        ("(8,64):(64,1) x", 14, "end of text"),
        ("(8,,64)", 3, "an integer"),
        ("Sw<3,4>", 6, "','"),
        ("Sw<3,4,3", 8, "'>'"),
        ("Sw<3,4,3> o", 11, "an integer"),
        ("Sw<3,4,3> o 0 o", 15, "an integer"),
        ("abc", 0, "a layout"),
        ("(8,64):(1)", 0, "not congruent"),
        ("Sw<4,4,3>", 0, "|S| >= B"),
        ("(8,0)", 0, "extent 0"),
    ],
)
def test_parse_errors_name_position_and_expectation(text, where, what):
    with pytest.raises(ParseError) as info:
        parse(text)
    msg = str(info.value)
    assert f"position {where}" in msg and what in msg
    assert isinstance(info.value, ValueError)


def test_parse_rejects_non_str():
    with pytest.raises(FastswzTypeError, match="text="):
        parse(b"8:1")


def _unflatten(flat, like):
    it = iter(flat)

    def build(s):
        return tuple(build(e) for e in s) if isinstance(s, tuple) else next(it)

    return build(like)


def test_parse_str_roundtrip_exhaustive_small():
    shapes = [1, 3, (2,), (2, 3), ((2, 2), 3), (2, (3, (1, 4)))]
    for shape in shapes:
        n = len(flatten(shape))
        for strides in itertools.product((0, 1, -2, 7), repeat=n):
            lay = L(shape, _unflatten(strides, shape))
            assert parse(str(lay)) == lay
            assert eval(repr(lay)) == lay


# ---------------------------------------------------------------------------------------------
# Random round trips: parse(str(x)) == x and eval(repr(x)) == x
# ---------------------------------------------------------------------------------------------

_int_tuples = st.recursive(
    st.integers(1, 64),
    lambda inner: st.lists(inner, min_size=0, max_size=3).map(tuple),
    max_leaves=8,
)


@st.composite
def _layouts(draw):
    shape = draw(_int_tuples)
    flat = flatten(shape)
    strides = iter(draw(st.lists(st.integers(-100, 10**6), min_size=len(flat), max_size=len(flat))))

    def build(s):
        return tuple(build(e) for e in s) if isinstance(s, tuple) else next(strides)

    return L(shape, build(shape))


@st.composite
def _swizzles(draw):
    b = draw(st.integers(0, 5))
    s = draw(st.integers(b, 8)) * draw(st.sampled_from([1, -1]))
    return Swizzle(b, draw(st.integers(0, 8)), s)


_objects = st.one_of(
    _layouts(),
    _swizzles(),
    st.builds(
        ComposedLayout, st.one_of(_swizzles(), _layouts()), st.integers(-(10**6), 10**6), _layouts()
    ),
)


@settings(max_examples=300, deadline=None)
@given(_objects)
def test_random_objects_roundtrip_through_str_and_repr(obj):
    assert parse(str(obj)) == obj
    assert eval(repr(obj)) == obj
    assert hash(parse(str(obj))) == hash(obj)
    # CuTe's static spelling parses to the same object
    if isinstance(obj, Layout):
        assert parse(re.sub(r"(-?\d+)", r"_\1", str(obj))) == obj
