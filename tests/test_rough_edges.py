"""Hostile input that used to escape as a Python or numpy error (issue 14, part 2).

* deeply nested text in ``parse`` and deeply nested IntTuples anywhere: RecursionError before,
  now a ParseError / LayoutError naming the nesting limit (``int_tuple.MAX_DEPTH`` = 64);
* ``evaluate`` of a layout with 2**40 elements: numpy's MemoryError before, now a LayoutError
  naming the size and pointing to ``indices=``, in the fast path and its numpy twin alike;
* a tile larger than the 256 KiB window: "use a start below 0x0" before, now a message saying
  that the tile is larger than the window.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastswz
from fastswz import LayoutError, ParseError, TileError, reference
from fastswz.bulk import EVALUATE_LIMIT
from fastswz.int_tuple import MAX_DEPTH


def nest(levels, leaf=8):
    """``leaf`` wrapped in ``levels`` 1-tuples: an IntTuple of depth levels + depth(leaf)."""
    for _ in range(levels):
        leaf = (leaf,)
    return leaf


# -- nesting depth ---------------------------------------------------------------------------------
def test_max_depth_is_far_below_the_recursion_limit():
    import sys

    assert MAX_DEPTH == 64 and MAX_DEPTH * 8 < sys.getrecursionlimit()


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1000, 5000])
def test_parse_of_deeply_nested_text_is_a_parse_error(levels):
    text = "(" * levels + "1" + ")" * levels
    with pytest.raises(ParseError) as info:
        fastswz.parse(text)
    msg = str(info.value)
    assert f"nest more than {MAX_DEPTH} levels deep" in msg and f"at position {MAX_DEPTH}" in msg
    assert f"({len(text)} characters)" in msg and len(msg) < 300  # the text is cut short


def test_parse_accepts_the_deepest_allowed_nesting():
    for text, shape in [("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH, nest(MAX_DEPTH, 1)),
                        ("(" * MAX_DEPTH + "2,3" + ")" * MAX_DEPTH, nest(MAX_DEPTH - 1, (2, 3)))]:
        L = fastswz.parse(text)
        assert L == fastswz.Layout(shape) and fastswz.depth(L) == MAX_DEPTH
        assert fastswz.parse(str(L)) == L
    deep = ("Sw<3,4,3> o " + "(" * MAX_DEPTH + "8" + ")" * MAX_DEPTH + ":"
            + "(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH)
    assert fastswz.parse(deep).inner == fastswz.Layout(nest(MAX_DEPTH), nest(MAX_DEPTH, 1))
    with pytest.raises(ParseError, match="nest more than 64 levels"):  # in the stride too
        fastswz.parse("8:" + "(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1))


L8 = fastswz.Layout(8)
DEEP_CALLS = {
    "Layout shape": (lambda t: fastswz.Layout(t), "shape"),
    "Layout stride": (lambda t: fastswz.Layout(nest(MAX_DEPTH + 1), t), "shape"),
    "Layout stride only": (lambda t: fastswz.Layout(8, t), "stride"),
    "make_layout": (lambda t: fastswz.make_layout(t), "shape"),
    "Layout call": (lambda t: L8(t), "crd"),
    "flatten": (lambda t: fastswz.flatten(t), "t"),
    "product": (lambda t: fastswz.product(t), "a"),
    "depth": (lambda t: fastswz.depth(t), "x"),
    "crd2idx": (lambda t: fastswz.crd2idx(t, 8), "crd"),
    "idx2crd": (lambda t: fastswz.idx2crd(3, t), "shape"),
    "congruent": (lambda t: fastswz.congruent(t, t), "a"),
    "slice_": (lambda t: fastswz.slice_(t, 8), "crd"),
    "composition": (lambda t: fastswz.composition(L8, t), "b"),
    "logical_divide": (lambda t: fastswz.logical_divide(L8, t), "tiler"),
    "logical_product": (lambda t: fastswz.logical_product(L8, t), "tiler"),
    "zipped_divide": (lambda t: fastswz.zipped_divide(L8, t), "tiler"),
    "coalesce profile": (lambda t: fastswz.coalesce(L8, t), "profile"),
    "make_ordered_layout": (lambda t: fastswz.make_ordered_layout(t), "shape"),
    "tile_to_shape": (lambda t: fastswz.tile_to_shape(L8, t), "target_shape"),
}


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 5000], ids=["65", "5000"])
@pytest.mark.parametrize("case", sorted(DEEP_CALLS))
def test_deep_inttuples_are_refused_with_the_limit(case, levels):
    fn, name = DEEP_CALLS[case]
    with pytest.raises(LayoutError) as info:
        fn(nest(levels))
    assert str(info.value).startswith(f"{name} nests tuples more than {MAX_DEPTH} levels deep")


def test_deepest_allowed_inttuples_work_through_the_algebra():
    shape = nest(MAX_DEPTH - 1, (2, 4))
    L = fastswz.Layout(shape)
    assert L.depth() == MAX_DEPTH and fastswz.flatten(L.shape) == (2, 4)
    assert [L(i) for i in range(8)] == list(range(8))
    assert fastswz.coalesce(L) == fastswz.Layout(8, 1)
    assert fastswz.composition(L, L).depth() == MAX_DEPTH
    assert fastswz.logical_divide(L, nest(MAX_DEPTH - 1, 2)).depth() == MAX_DEPTH
    np.testing.assert_array_equal(fastswz.evaluate(L), reference.evaluate(L))


# -- evaluate of huge layouts ----------------------------------------------------------------------
HUGE_LAYOUTS = {
    "2**40": fastswz.Layout(2**40),
    "2**20 x 2**20": fastswz.Layout((2**20, 2**20)),
    "limit + 1": fastswz.Layout(EVALUATE_LIMIT + 1, 0),
    "swizzled": fastswz.ComposedLayout(fastswz.Swizzle(3, 4, 3), 0, fastswz.Layout((2**20, 2**20))),
}


@pytest.mark.parametrize("case", sorted(HUGE_LAYOUTS))
def test_evaluate_of_a_huge_domain_is_refused_early(case):
    layout = HUGE_LAYOUTS[case]
    messages = []
    for impl in (fastswz, reference):
        with pytest.raises(LayoutError) as info:
            impl.evaluate(layout)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    n = fastswz.size(layout)
    assert f"has {n} elements, more than the 2**32" in messages[0]
    assert "pass indices=" in messages[0]


@pytest.mark.parametrize("case", sorted(HUGE_LAYOUTS))
def test_evaluate_of_a_huge_layout_at_indices_still_works(case):
    layout = HUGE_LAYOUTS[case]
    n = fastswz.size(layout)
    idx = np.array([0, 1, 12345, n // 3, n - 1], dtype=np.int64)
    fast = fastswz.evaluate(layout, idx)
    np.testing.assert_array_equal(fast, reference.evaluate(layout, idx))
    assert fast.tolist() == [layout(int(i)) for i in idx]


def test_evaluate_limit():
    assert EVALUATE_LIMIT == 2**32


# -- a tile larger than the window -----------------------------------------------------------------
BIG = fastswz.OperandTile("bf16", "K", "128B", 512, 512)  # 512 KiB, twice the window


@pytest.mark.parametrize("call", [
    lambda: BIG.descriptor(),
    lambda: BIG.descriptors(),
    lambda: fastswz.tile_descriptors(BIG, 0),
    lambda: reference.tile_descriptors(BIG, 0),
], ids=["descriptor", "descriptors", "tile_descriptors", "reference"])
def test_tile_larger_than_the_window_says_so(call):
    with pytest.raises(TileError) as info:
        call()
    msg = str(info.value)
    assert msg.startswith("the tile is larger than the window: its 524288 bytes are more than "
                          "the 0x40000 bytes (256 KiB)")
    assert "below 0x0" not in msg and "use a smaller tile" in msg


def test_tile_filling_the_window_exactly():
    t = fastswz.OperandTile("bf16", "K", "128B", 256, 512)
    assert t.nbytes == 0x40000
    assert int(t.descriptor(start=0)) == int(t.descriptors(0)[0, 0])
    with pytest.raises(TileError, match=r"ends past 0x40000: .* use a start of at most 0x0$"):
        t.descriptor(start=16)


def test_tile_larger_than_uint32_addresses_says_so():
    t = fastswz.OperandTile("bf16", "K", "128B", 65536, 65536)  # 8 GiB
    calls = (lambda: t.addresses(), lambda: reference.tile_addresses(t), lambda: t.address(0, 0))
    for call in calls:
        with pytest.raises(TileError, match="^the tile is larger than the window: its 8589934592 "
                                            "bytes are more than the 0x100000000 bytes"):
            call()
