"""The CuTe layout algebra in pure Python (``include/cute/layout.hpp``, ``layout_composed.hpp``,
``swizzle_layout.hpp``): coalesce, filter, composition, complement, the inverses, the divides and
products, ``make_ordered_layout``, ``tile_to_shape``, the unit changes (upcast, downcast,
recast), ``slice_and_offset`` and the common vectors.

Each operation takes :class:`~fastswz.layout.Layout` objects (or IntTuples, read as compact
layouts); where CuTe defines it for a :class:`~fastswz.swizzle.ComposedLayout` it acts on the
inner layout and keeps the outer function and offset.

Where this module differs from CUTLASS's pycute (listed so nobody "fixes" it back):

* ``composition`` flattens the left layout like CuTe's ``coalesce_x``, so values past the
  left layout's domain follow its natural extension; a tuple tiler drops the left modes it does
  not name (CuTe ``composition(Layout, Tiler)``). It takes CuTe 4.2's weak stride condition (a
  stride that is a multiple of the left extent or below it), checked on extent-1 modes too.
* ``logical_product(L, n)`` means ``L x n:1`` (pycute divides by mistake).
* ``complement(L)`` defaults its cotarget to ``cosize(filter(L))`` (CuTe), and ``logical_divide``
  uses ``shape(coalesce(L))`` as the cotarget (CuTe), not ``size(L)``.

Where it differs from CuTe 4.2 (each checked by host-compiling CuTe):

* ``Layout(shape)`` takes strides ``prefix_product(shape)``, CuTe's rule for dynamic ints;
  CuTe gives a *static* extent-1 mode stride 0 (``make_layout((8,1))`` prints
  ``(_8,_1):(_1,_0)``). The algebra builds its own compact layouts (int tilers, orders) with
  the static rule, so results print as CuTe's do.
* Nothing else, on the golden vectors of host-compiled CuTe (``tests/test_golden_algebra.py``,
  docs/CUTE_COMPARISON.md section 8): fastswz returns CuTe's layout even where CuTe's weak
  stride condition makes a composition that is not ``a o b`` inside ``a``'s domain
  (``(3,4):(1,10) o (2,2):(1,2)`` is ``(2,2):(1,2)``), so a user comparing with CuTe sees the
  same layout; it computes the slices of swizzled composed layouts that CuTe 4.2 refuses.
"""

from __future__ import annotations

from math import gcd

from .errors import LayoutError
from .int_tuple import (MAX_DEPTH, _ceil_div, _crd2idx, _flatten, _fmt, _norm, _prefix_product,
                        _product, slice_)
from .layout import (Layout, _as_layout, _compact_layout, _compact_strides, _flat_pairs,
                     _from_lists, _is_composed, _is_swizzle, _modes, make_layout)
from .swizzle import ComposedLayout, Swizzle

__all__ = [
    "blocked_product",
    "coalesce",
    "complement",
    "composition",
    "downcast",
    "filter",
    "flat_divide",
    "flat_product",
    "left_inverse",
    "logical_divide",
    "logical_product",
    "make_ordered_layout",
    "max_common_layout",
    "max_common_vector",
    "raked_product",
    "recast",
    "right_inverse",
    "slice_and_offset",
    "tile_to_shape",
    "tiled_divide",
    "tiled_product",
    "upcast",
    "zipped_divide",
    "zipped_product",
]


# ---------------------------------------------------------------------------------------------
# Coalesce and filter
# ---------------------------------------------------------------------------------------------


def _coalesce_flat(pairs):
    # CuTe merges back to front (bw_coalesce); merging front to back gives the same modes
    # because "s0*d0 == d1" is checked on the same neighbours either way.
    rs, rd = [], []
    for s, d in pairs:
        if s == 1:
            continue
        if rs and rs[-1] * rd[-1] == d:
            rs[-1] *= s
        else:
            rs.append(s)
            rd.append(d)
    if not rs:
        return Layout(1, 0)
    return _from_lists(rs, rd)


def coalesce(layout, profile=None):
    """Merge adjacent modes that can be merged, without changing the function on the domain.

    With a tuple ``profile``, coalesce each mode named by the profile on its own and keep the
    rest. Size-1 modes are dropped; a layout of size 1 becomes ``1:0``.

    Examples
    --------
    >>> print(coalesce(Layout((2, (1, 6)), (1, (6, 2)))))
    12:1
    >>> print(coalesce(Layout(((2, 4), (3, 5)), ((1, 2), (8, 24))), (1, 1)))
    (8,15):(1,8)
    """
    # include/cute/layout.hpp (coalesce, bw_coalesce)
    if _is_composed(layout):
        return layout._with_inner(coalesce(layout.inner, profile))
    layout = _as_layout(layout, "layout")
    if profile is not None:
        profile = _norm(profile, "profile")
        if type(profile) is tuple:
            return _by_mode(coalesce, layout, profile, "coalesce", keep_rest=True)
    return _coalesce_flat(_flat_pairs(layout))


def _by_mode(fn, layout, tiler, what, keep_rest):
    # include/cute/layout.hpp (transform_layout): apply fn mode by mode; modes of the layout
    # beyond the tiler are kept (divide/product/coalesce) or dropped (composition).
    modes = _modes(layout)
    if len(tiler) > len(modes):
        raise LayoutError(
            f"{what}: the tiler {_tiler_str(tiler)} has {len(tiler)} modes but the layout {layout} has only {len(modes)}"
        )
    out = [fn(m, t) for m, t in zip(modes, tiler)]
    if keep_rest:
        out.extend(modes[len(tiler) :])
    return make_layout(*out) if out else Layout((), ())


def _tiler_str(t):
    if type(t) is tuple:
        return "(" + ",".join(_tiler_str(e) for e in t) + ")"
    return "_" if t is None else str(t)


def filter(layout, profile=None):  # noqa: A001 - mirrors CuTe
    """Drop stride-0 and size-1 modes, then coalesce.

    Examples
    --------
    >>> print(filter(Layout((4, 2, 3), (1, 0, 4))))
    12:1
    """
    # include/cute/layout.hpp (filter, filter_zeros)
    if _is_composed(layout):
        return layout._with_inner(filter(layout.inner, profile))
    layout = _as_layout(layout, "layout")
    if profile is not None:
        profile = _norm(profile, "profile")
        if type(profile) is tuple:
            return _by_mode(filter, layout, profile, "filter", keep_rest=True)
    return _coalesce_flat([(s if d != 0 else 1, d) for s, d in _flat_pairs(layout)])


# ---------------------------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------------------------


def _coalesce_x(layout):
    """Flat (shapes, strides) of ``layout`` that agree with it outside its domain too."""
    # include/cute/layout.hpp (detail::coalesce_x): the last mode is never dropped (a size-1 last
    # mode is given a dummy extent 2), so its stride still extends the layout past its size.
    pairs = _flat_pairs(layout)
    if not pairs:
        return [2], [0]
    s_last, d_last = pairs[-1]
    shapes, strides = [2 if s_last == 1 else s_last], [d_last]  # built back to front
    for s, d in reversed(pairs[:-1]):
        if s == 1:
            continue
        if s * d == strides[-1]:
            shapes[-1] *= s
            strides[-1] = d
        else:
            shapes.append(s)
            strides.append(d)
    shapes.reverse()
    strides.reverse()
    return shapes, strides


def _compose_int(ls, ld, rs, rd):
    # include/cute/layout.hpp (detail::composition_impl), RHS integral
    if rd == 0:
        return Layout(rs, 0)
    if len(ls) == 1:
        return Layout(rs, rd * ld[0])
    res_s, res_d = [], []
    rest_s, rest_d = rs, rd
    for cs, cd in zip(ls[:-1], ld[:-1]):
        ad = abs(rest_d)
        next_shape = -(-cs // ad)
        # Stride condition, CuTe 4.2's weak one: rest_d a multiple of cs, or below cs (a negative
        # stride always passes), checked even for a size-1 rest as CuTe does. A stride below cs
        # that does not divide it can give a layout that is not a o b inside a's domain; fastswz
        # returns CuTe's layout all the same (docs/CUTE_COMPARISON.md section 8).
        if not (rest_d % cs == 0 or rest_d < cs):
            raise LayoutError(
                f"composition: stride divisibility condition violated: stride {rest_d} of the right "
                f"layout must be a multiple of the left extent {cs} or below it"
            )
        next_stride = -(-ad // cs) * (1 if rest_d > 0 else -1)
        if next_shape == 1 or rest_s == 1:
            rest_d = next_stride
            continue
        new_shape = min(next_shape, rest_s)
        if rest_s % new_shape != 0:
            raise LayoutError(
                f"composition: shape divisibility condition violated: extent {rest_s} of the right "
                f"layout is not divisible by {new_shape}"
            )
        res_s.append(new_shape)
        res_d.append(rest_d * cd)
        rest_s //= new_shape
        rest_d = next_stride
    if not res_s:
        return Layout(rest_s, rest_d * ld[-1])
    if rest_s != 1:
        res_s.append(rest_s)
        res_d.append(rest_d * ld[-1])
    return _from_lists(res_s, res_d)


def _compose_tree(ls, ld, rs, rd):
    # right-distributivity over the modes of the RHS
    if type(rs) is tuple:
        return (
            make_layout(*[_compose_tree(ls, ld, s, d) for s, d in zip(rs, rd)])
            if rs
            else Layout((), ())
        )
    return _compose_int(ls, ld, rs, rd)


def composition(a, b):
    """Functional composition ``a o b``: ``result(c) == a(b(c))`` for ``c`` in ``b``'s domain.

    ``b`` may be a Layout, an int ``n`` (meaning ``n:1``), ``None`` (identity), or a tuple tiler
    applied mode by mode (modes of ``a`` that the tiler does not name are dropped, as in CuTe).
    ``a`` may be a ComposedLayout (the inner layout is composed) or a Swizzle (the result is
    ``ComposedLayout(a, 0, b)``, or ``b`` itself for a 0-bit swizzle, as in CuTe).

    Examples
    --------
    >>> print(composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))))
    ((2,2),3):((24,2),8)
    >>> print(composition(Layout((8, 64), (64, 1)), (4, 16)))
    (4,16):(64,1)
    """
    # include/cute/layout.hpp (composition), layout_composed.hpp, swizzle_layout.hpp
    if _is_composed(a):
        return a._with_inner(composition(a.inner, b))
    if _is_swizzle(a):
        b = _as_layout(b, "b")
        # swizzle_layout.hpp: a swizzle of 0 bits is the identity, so CuTe returns b itself
        return b if a.bits == 0 else ComposedLayout(a, 0, b)
    a = _as_layout(a, "a")
    if b is None:
        return a
    if isinstance(b, Layout):
        ls, ld = _coalesce_x(a)
        return _compose_tree(ls, ld, b.shape, b.stride)
    if _is_composed(b):
        if b.offset != 0 or _is_swizzle(b.outer):
            raise LayoutError(
                "composition(Layout, ComposedLayout) needs offset 0 and a Layout outer function "
                f"(got {b})"
            )
        return composition(composition(a, b.outer), b.inner)
    if type(b) is tuple or isinstance(b, tuple):
        b = _tiler(tuple(b), "b")
        return _by_mode(composition, a, b, "composition", keep_rest=False)
    n = _norm(b, "b")
    ls, ld = _coalesce_x(a)
    return _compose_int(ls, ld, n, 1)


# ---------------------------------------------------------------------------------------------
# Complement and inverses
# ---------------------------------------------------------------------------------------------


def complement(layout, cotarget=None):
    """The layout of the offsets below ``cotarget`` that ``layout`` does not reach.

    ``cotarget`` (an int, a shape or a Layout, whose shape is used) defaults to
    ``cosize(filter(layout))``. ``make_layout(layout, complement(layout, n))`` covers ``[0, n)``
    when ``layout`` is injective and its strides divide one another.

    Examples
    --------
    >>> print(complement(Layout(4, 2), 24))
    (2,3):(1,8)
    >>> print(complement(Layout((2, 2), (1, 6)), 24))
    (3,2):(2,12)
    """
    # include/cute/layout.hpp (complement, detail::complement)
    if _is_composed(layout):
        return complement(layout.inner, cotarget)
    layout = _as_layout(layout, "layout")
    f = filter(layout)
    if cotarget is None:
        cotarget = f.cosize()
    elif isinstance(cotarget, Layout):
        cotarget = cotarget.shape
    else:
        cotarget = _norm(cotarget, "cotarget")
    pairs = _flat_pairs(f)
    if pairs[0][1] == 0:  # filter() left 1:0, so nothing is reached but 0
        n = _product(cotarget)
        return Layout(n, 1) if n != 1 else Layout(1, 0)
    shapes = [s for s, _ in pairs]
    strides = [d for _, d in pairs]
    if any(d < 0 for d in strides):
        raise LayoutError(
            f"complement: layout {layout} has a negative stride; complement needs strides >= 0"
        )
    res_s, res_d = [], [1]
    while True:
        i = strides.index(min(strides))
        new_shape = strides[i] // res_d[-1]
        if new_shape == 0:
            raise LayoutError(f"complement: layout {layout} is not injective (its modes overlap)")
        res_s.append(new_shape)
        new_stride = strides[i] * shapes[i]
        del shapes[i], strides[i]
        if not shapes:
            break
        res_d.append(new_stride)
    rest = _product(_ceil_div(cotarget, new_stride))
    return _coalesce_flat(list(zip(res_s + [rest], res_d + [new_stride])))


def _cute_sort_order(keys):
    # CuTe orders strides with an exchange sort (include/cute/int_tuple.hpp, detail::SortByKey),
    # which is not stable: equal strides can come out in another order than a stable sort
    # gives, and the inverses of a non-injective layout depend on that order.
    idx = list(range(len(keys)))
    for i in range(len(idx)):
        for j in range(i + 1, len(idx)):
            if keys[idx[j]] < keys[idx[i]]:
                idx[i], idx[j] = idx[j], idx[i]
    return idx


def right_inverse(layout):
    """A layout ``R`` with ``layout(R(i)) == i`` for ``i < size(R)``, as large as possible.

    Examples
    --------
    >>> print(right_inverse(Layout((4, 2), (2, 1))))
    (2,4):(4,1)
    """
    # include/cute/layout.hpp (right_inverse)
    if layout is None:
        return None
    layout = _as_layout(layout, "layout")
    c = _flat_pairs(coalesce(layout))
    shapes = [s for s, _ in c]
    strides = [d for _, d in c]
    pre = _prefix_product(tuple(shapes))
    rs, rd, curr = [1], [0], 1
    for i in _cute_sort_order(strides):
        if strides[i] == curr:
            rs.append(shapes[i])
            rd.append(pre[i])
            curr = shapes[i] * strides[i]
    return _coalesce_flat(list(zip(rs, rd)))


def left_inverse(layout):
    """A layout ``R`` with ``R(layout(i)) == i`` for every ``i`` in the domain of an injective ``layout``.

    Examples
    --------
    >>> print(left_inverse(Layout((4, 2), (2, 1))))
    (2,4):(4,1)
    """
    # include/cute/layout.hpp (left_inverse)
    if layout is None:
        return None
    layout = _as_layout(layout, "layout")
    c = _flat_pairs(coalesce(layout))
    shapes = [s for s, _ in c]
    strides = [d for _, d in c]
    pre = _prefix_product(tuple(shapes))
    order = _cute_sort_order(strides)
    rs, rd, sz = [], [0], 1
    for i in order:
        d = strides[i]
        if d == 0:
            continue
        if d < 0 or d % sz != 0:
            raise LayoutError(
                f"left_inverse: divisibility condition violated: stride {d} of {layout} is not a "
                f"multiple of {sz}, the size covered by the smaller strides"
            )
        rs.append(d // sz)
        rd.append(pre[i])
        sz *= d // sz
    rs.append(shapes[order[-1]])
    return _coalesce_flat(list(zip(rs, rd)))


# ---------------------------------------------------------------------------------------------
# Divide and product
# ---------------------------------------------------------------------------------------------


def _tiler(t, name, level=0):
    if t is None or isinstance(t, Layout) or _is_composed(t):
        return t
    if isinstance(t, tuple):
        if level >= MAX_DEPTH:
            return _norm(t, name, level=level)  # refuses the nesting (MAX_DEPTH)
        return tuple(_tiler(e, name, level + 1) for e in t)
    return _norm(t, name)


def logical_divide(layout, tiler):
    """Split ``layout`` into (tile, rest): ``composition(layout, (tiler, complement(tiler)))``.

    ``tiler`` is a Layout, an int ``n`` (``n:1``), ``None`` (keep the mode) or a tuple of
    those applied mode by mode.

    Examples
    --------
    >>> print(logical_divide(Layout(16), Layout(4, 2)))
    (4,(2,2)):(2,(1,8))
    >>> print(logical_divide(Layout((8, 64), (64, 1)), (2, 16)))
    ((2,4),(16,4)):((64,128),(1,16))
    """
    # include/cute/layout.hpp (logical_divide)
    if _is_composed(layout):
        return layout._with_inner(logical_divide(layout.inner, tiler))
    layout = _as_layout(layout, "layout")
    tiler = _tiler(tiler, "tiler")
    if tiler is None:
        return layout
    if type(tiler) is tuple:
        return _by_mode(logical_divide, layout, tiler, "logical_divide", keep_rest=True)
    if not isinstance(tiler, Layout):
        tiler = _compact_layout(tiler)
    rest = complement(tiler, coalesce(layout).shape)
    return composition(layout, make_layout(tiler, rest))


def _zip2_by(L, guide):
    # include/cute/algorithm/tuple_algorithms.hpp (zip2_by): gather ((tiles...),(rests...,extra))
    if type(guide) is tuple:
        modes = _modes(L)
        split = [_zip2_by(m, g) for m, g in zip(modes, guide)]
        first = make_layout(*[s[0] for s in split])
        second = make_layout(*[s[1] for s in split], *modes[len(guide) :])
        return make_layout(first, second)
    # A leaf of the guide (a tiler, or _): CuTe takes the mode's two sub-modes as (tile, rest).
    # logical_divide made them so; a mode that _ left alone must have two modes of its own, else
    # CuTe static_asserts "Mismatched ranks" (pycute's hier_unzip gives it an empty tile instead).
    if type(L.shape) is not tuple or len(L.shape) != 2:
        raise LayoutError(
            f"zip2_by: the mode {L} left whole by the tiler _ has rank {len(L)}, but CuTe splits an "
            "untiled mode into its two sub-modes (tile, rest): tile it (e.g. with its extent) or "
            "use logical_divide / logical_product"
        )
    return L


def zipped_divide(layout, tiler):
    """``logical_divide`` with the tiles gathered in mode 0 and the rests in mode 1.

    Examples
    --------
    >>> print(zipped_divide(Layout((8, 64), (64, 1)), (2, 16)))
    ((2,16),(4,4)):((64,1),(128,16))
    """
    # include/cute/layout.hpp (zipped_divide, tile_unzip)
    if _is_composed(layout):
        return layout._with_inner(zipped_divide(layout.inner, tiler))
    tiler = _tiler(tiler, "tiler")
    return _zip2_by(logical_divide(layout, tiler), tiler)


def _unpack(L):
    # CuTe slices a rank-1 mode with a single "_", which keeps it whole
    return [L] if len(L) == 1 else _modes(L)


def tiled_divide(layout, tiler):
    """``zipped_divide`` with the rest modes unpacked: ``((tile), rest0, rest1, ...)``.

    Examples
    --------
    >>> print(tiled_divide(Layout((8, 64), (64, 1)), (2, 16)))
    ((2,16),4,4):((64,1),128,16)
    """
    # include/cute/layout.hpp (tiled_divide)
    if _is_composed(layout):
        return layout._with_inner(tiled_divide(layout.inner, tiler))
    r = zipped_divide(layout, tiler)
    return make_layout(r[0], *_unpack(r[1]))


def flat_divide(layout, tiler):
    """``zipped_divide`` with both modes unpacked: ``(tile0, tile1, ..., rest0, rest1, ...)``.

    Examples
    --------
    >>> print(flat_divide(Layout((8, 64), (64, 1)), (2, 16)))
    (2,16,4,4):(64,1,128,16)
    """
    # include/cute/layout.hpp (flat_divide)
    if _is_composed(layout):
        return layout._with_inner(flat_divide(layout.inner, tiler))
    r = zipped_divide(layout, tiler)
    return make_layout(*_unpack(r[0]), *_unpack(r[1]))


def logical_product(block, tiler):
    """Repeat ``block`` over ``tiler``: ``(block, composition(complement(block, ...), tiler))``.

    ``tiler`` is a Layout, an int ``n`` (meaning ``n:1``; pycute divides here by mistake),
    ``None`` or a tuple of those applied mode by mode.

    Examples
    --------
    >>> print(logical_product(Layout(4), 2))
    (4,2):(1,4)
    >>> print(logical_product(Layout((2, 2), (4, 1)), Layout(6)))
    ((2,2),(2,3)):((4,1),(2,8))
    """
    # include/cute/layout.hpp (logical_product)
    if _is_composed(block):
        return block._with_inner(logical_product(block.inner, tiler))
    block = _as_layout(block, "block")
    tiler = _tiler(tiler, "tiler")
    if tiler is None:
        return block
    if type(tiler) is tuple:
        return _by_mode(logical_product, block, tiler, "logical_product", keep_rest=True)
    if not isinstance(tiler, Layout):
        tiler = _compact_layout(tiler)
    comp = complement(block, block.size() * tiler.cosize())
    return make_layout(block, composition(comp, tiler))


def zipped_product(block, tiler):
    """``logical_product`` with the blocks gathered in mode 0 and the repeats in mode 1.

    Examples
    --------
    >>> print(zipped_product(Layout((2, 2)), Layout((3, 4))))
    ((2,2),(3,4)):((1,2),(4,12))
    """
    # include/cute/layout.hpp (zipped_product, tile_unzip)
    if _is_composed(block):
        return block._with_inner(zipped_product(block.inner, tiler))
    tiler = _tiler(tiler, "tiler")
    return _zip2_by(logical_product(block, tiler), tiler)


def tiled_product(block, tiler):
    """``zipped_product`` with the repeat modes unpacked.

    Examples
    --------
    >>> print(tiled_product(Layout((2, 2)), Layout((3, 4))))
    ((2,2),3,4):((1,2),4,12)
    """
    # include/cute/layout.hpp (tiled_product)
    if _is_composed(block):
        return block._with_inner(tiled_product(block.inner, tiler))
    r = zipped_product(block, tiler)
    return make_layout(r[0], *_unpack(r[1]))


def flat_product(block, tiler):
    """``zipped_product`` with both modes unpacked.

    Examples
    --------
    >>> print(flat_product(Layout((2, 2)), Layout((3, 4))))
    (2,2,3,4):(1,2,4,12)
    """
    # include/cute/layout.hpp (flat_product)
    if _is_composed(block):
        return block._with_inner(flat_product(block.inner, tiler))
    r = zipped_product(block, tiler)
    return make_layout(*_unpack(r[0]), *_unpack(r[1]))


def _append(L, r):
    # include/cute/layout.hpp (append<R>): pad with 1:0 modes up to rank r
    if len(L) >= r:
        return L
    return make_layout(*_modes(L), *[Layout(1, 0)] * (r - len(L)))


def _zip(a, b):
    # include/cute/algorithm/tuple_algorithms.hpp (zip of two layouts): pair mode i of a with
    # mode i of b; an int-shaped a pairs with the whole of b, ((a, b)); a tuple-shaped a needs
    # a tuple-shaped b (CuTe fails to compile the other way round).
    if type(a.shape) is not tuple:
        return Layout(((a.shape, b.shape),), ((a.stride, b.stride),))
    if type(b.shape) is not tuple:
        raise LayoutError(
            f"zip: {a} has a tuple shape and {b} an int one, so CuTe cannot pair their modes: give "
            "block and tiler the same mode structure (e.g. both 1-tuple shapes)"
        )
    am, bm = _modes(a), _modes(b)
    if len(am) != len(bm):
        raise LayoutError(f"zip: {a} and {b} have different ranks")
    return Layout(tuple((x.shape, y.shape) for x, y in zip(am, bm)),
                  tuple((x.stride, y.stride) for x, y in zip(am, bm)))


def _rank_sensitive(block, tiler, raked):
    block = _as_layout(block, "block")
    tiler = _as_layout(tiler, "tiler")
    r = max(len(block), len(tiler))
    res = logical_product(_append(block, r), _append(tiler, r))
    return _zip(res[1], res[0]) if raked else _zip(res[0], res[1])


def blocked_product(block, tiler):
    """Repeat ``block`` over ``tiler``, mode by mode: result mode i is ``(block_i, tiler_i)``.

    Examples
    --------
    >>> print(blocked_product(Layout((2, 2), (1, 2)), Layout((2, 3), (3, 1))))
    ((2,2),(2,3)):((1,12),(2,4))
    """
    # include/cute/layout.hpp (blocked_product)
    if _is_composed(block):
        return block._with_inner(blocked_product(block.inner, tiler))
    return _rank_sensitive(block, tiler, raked=False)


def raked_product(block, tiler):
    """Like :func:`blocked_product` with the repeats interleaved: mode i is ``(tiler_i, block_i)``.

    Examples
    --------
    >>> print(raked_product(Layout((2, 2), (1, 2)), Layout((2, 3), (3, 1))))
    ((2,2),(3,2)):((12,1),(4,2))
    """
    # include/cute/layout.hpp (raked_product)
    if _is_composed(block):
        return block._with_inner(raked_product(block.inner, tiler))
    return _rank_sensitive(block, tiler, raked=True)


def _order_strides(shape, order, starts, pos):
    # Walk shape and order together; at each terminal of order the whole sub-shape gets compact
    # column-major strides that start at that terminal's precomputed start.
    if type(order) is tuple:
        if type(shape) is not tuple or len(shape) != len(order):
            raise LayoutError(
                f"make_ordered_layout: order {_fmt(order)} does not match the shape {_fmt(shape)}"
            )
        return tuple(_order_strides(s, o, starts, pos) for s, o in zip(shape, order))
    i = pos[0]
    pos[0] += 1
    return _compact_strides(shape, starts[i])


def _order_terminals(shape, order, out):
    if type(order) is tuple:
        if type(shape) is not tuple or len(shape) != len(order):
            raise LayoutError(
                f"make_ordered_layout: order {_fmt(order)} does not match the shape {_fmt(shape)}"
            )
        for s, o in zip(shape, order):
            _order_terminals(s, o, out)
    else:
        out.append((order, _product(shape)))


def make_ordered_layout(shape, order=None):
    """Compact layout of ``shape`` whose modes take strides in increasing ``order``.

    The mode with the smallest order value gets stride 1; each mode starts at the product of the
    extents of the modes with smaller order values, so equal values share a stride (CuTe's
    ``compact_order``). ``order=None`` means column-major.

    Examples
    --------
    >>> print(make_ordered_layout((2, 3, 4), (1, 0, 2)))
    (2,3,4):(3,1,6)
    >>> print(make_ordered_layout((2, 2, 2, 2), (0, 2, 3, 1)))
    (2,2,2,2):(1,4,8,2)
    """
    # include/cute/layout.hpp (make_ordered_layout), stride.hpp (compact_order)
    shape = _norm(shape, "shape")
    if order is None:
        return _compact_layout(shape)
    order = _norm(order, "order")
    terms = []
    _order_terminals(shape, order, terms)
    # stride.hpp (compact_order): a terminal starts at the product of the sizes of the terminals
    # with a smaller order value; equal values therefore start at the same stride, as in CuTe.
    starts = [
        _product(tuple(n for o, n in terms if o < oj)) if any(o < oj for o, _ in terms) else 1
        for oj, _ in terms
    ]
    return Layout(shape, _order_strides(shape, order, starts, [0]))


def _product_each(t):
    return tuple(_product(e) for e in t) if type(t) is tuple else _product(t)


def tile_to_shape(block, target_shape, order=None):
    """Repeat ``block`` until it covers ``target_shape`` (atoms along mode 0 first by default).

    ``product_shape = target / block`` (every block extent must divide the target extent);
    the result is ``blocked_product(block, make_ordered_layout(product_shape, order))``, as in
    CuTe 4.x (CuTe 3.x also coalesced it by ``product_shape``: the same function, printed
    shorter). A ComposedLayout keeps its outer function and offset.

    Examples
    --------
    >>> print(tile_to_shape(Layout((8, 64), (64, 1)), (64, 64)))
    ((8,8),(64,1)):((64,512),(1,0))
    >>> print(tile_to_shape(Layout((8, 64), (64, 1)), (16, 128), (1, 0)))
    ((8,2),(64,2)):((64,1024),(1,512))
    """
    # include/cute/layout.hpp (tile_to_shape), layout_composed.hpp (tile_to_shape)
    if _is_composed(block):
        return block._with_inner(tile_to_shape(block.inner, target_shape, order))
    block = _as_layout(block, "block")
    target = _norm(target_shape, "target_shape")
    if type(target) is not tuple:
        # CuTe's product_each wraps an int target, so product_each/ceil_div follow a rank-1
        # tuple: (4):(1) to 4 gives ((4,1)):((1,0)), 7:1 to 14 gives ((7,(2))):((1,(7)))
        # (CuTe 4.2, compiled; the order may be an int or a rank-1 tuple either way)
        target = (target,)
    r = len(target)
    if len(block) > r:
        raise LayoutError(
            f"tile_to_shape: block {block} has rank {len(block)}, more than the target shape {_fmt(target)}"
        )
    if type(block.shape) is not tuple and r == 1:
        # CuTe's append<1> leaves a rank-1 block as it is, so its zip pairs the int-shaped block
        # with the whole repeat: 2:1 to (4) gives ((2,(2))):((1,(2))) (CuTe 4.2, compiled)
        padded = block
        block_shape = (block.size(),)
    else:
        padded = make_layout(*_modes(block), *[Layout(1, 0)] * (r - len(block)))
        block_shape = _product_each(padded.shape)
    target_shape = _product_each(target)
    for b, t in zip(block_shape, target_shape):
        if t % b != 0:
            shown = (block_shape, target_shape) if r > 1 else (block_shape[0], target_shape[0])
            raise LayoutError(
                f"tile_to_shape: block shape {_fmt(shown[0])} does not divide the target shape "
                f"{_fmt(shown[1])} ({t} % {b} != 0)"
            )
    product_shape = tuple(t // b for b, t in zip(block_shape, target_shape))
    tiles = make_ordered_layout(product_shape, order)
    # CuTe 4.x returns the blocked product as is (3.x coalesced it by product_shape); printing
    # the same form is what lets a user diff fastswz's output against CuTe's print(). Extent-1
    # modes of the repeat get stride 0 (compact strides of static shapes); the block keeps its own.
    return blocked_product(padded, tiles)


# ---------------------------------------------------------------------------------------------
# Changing the unit: upcast / downcast / recast (include/cute/layout.hpp)
# ---------------------------------------------------------------------------------------------


def _check_factor(n, name="n"):
    n = _norm(n, name)
    if type(n) is not int or n < 1:
        raise LayoutError(f"{name}={n!r} must be a positive int")
    return n


def _upcast_tree(shape, stride, n):
    if type(shape) is tuple:
        pairs = [_upcast_tree(s, d, n) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if stride == 0:
        return shape, 0
    a = abs(stride)
    if a % n != 0 and n % a != 0:
        raise LayoutError(
            f"upcast: stride {stride} and factor {n} violate the divisibility condition (one must divide the other)"
        )
    sign = 1 if stride > 0 else -1
    return -(-shape // -(-n // a)), sign * -(-a // n)


def _log2(n):
    n = _check_factor(n)
    if n & (n - 1):
        raise LayoutError(f"n={n} must be a power of two to change the unit of a swizzle")
    return n.bit_length() - 1


def _upcast_offset(offset, n):
    if offset % n != 0:
        raise LayoutError(
            f"offset {offset} is not a multiple of {n}, so it cannot be expressed in units {n} times larger"
        )
    return offset // n


def upcast(layout, n):
    """Re-express a Layout, Swizzle or ComposedLayout in units ``n`` times larger (bytes to
    16-bit elements: n=2).

    Layout: stride-±1 modes shrink their extent by ``n``; other strides are divided by ``n``;
    stride-0 modes are kept. A swizzle keeps its bit fields in place: ``Sw<B,M,S>`` becomes
    ``Sw<B,M-log2(n),S>`` (when ``M - log2(n) < 0``, ``Sw<max(B+M-log2(n),0),0,S>``). A
    ComposedLayout converts its outer function, its offset (which must be a multiple of ``n``)
    and its inner layout, giving the element-unit ("position independent") form.

    Examples
    --------
    >>> print(upcast(Layout((8, 128), (128, 1)), 2))
    (8,64):(64,1)
    >>> upcast(Swizzle(3, 4, 3), 2)
    Swizzle(3, 3, 3)
    >>> print(upcast(ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 128), (128, 1))), 2))
    Sw<3,3,3> o 0 o (8,64):(64,1)
    """
    # include/cute/layout.hpp (upcast), swizzle_layout.hpp (upcast), layout_composed.hpp (upcast)
    if _is_swizzle(layout):
        m = layout.base - _log2(n)
        if m >= 0:
            return Swizzle(layout.bits, m, layout.shift)
        return Swizzle(max(layout.bits + m, 0), 0, layout.shift)
    if _is_composed(layout):
        return ComposedLayout(upcast(layout.outer, n),
                              _upcast_offset(layout.offset, _check_factor(n)),
                              upcast(layout.inner, n))
    n = _check_factor(n)
    layout = _as_layout(layout, "layout")
    return Layout(*_upcast_tree(layout.shape, layout.stride, n))


def _downcast_tree(shape, stride, n):
    if type(shape) is tuple:
        pairs = [_downcast_tree(s, d, n) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if stride in (1, -1):
        return shape * n, stride
    return shape, stride * n


def downcast(layout, n):
    """Re-express a Layout, Swizzle or ComposedLayout in units ``n`` times smaller (16-bit
    elements to bytes: n=2).

    Layout: stride-±1 modes grow their extent by ``n``; other strides are multiplied by ``n``.
    A swizzle moves its bit fields up by ``log2(n)``; a ComposedLayout converts its three parts.

    Examples
    --------
    >>> print(downcast(Layout((8, 64), (64, 1)), 2))
    (8,128):(128,1)
    >>> downcast(Swizzle(3, 3, 3), 2)
    Swizzle(3, 4, 3)
    >>> print(downcast(ComposedLayout(Swizzle(3, 3, 3), 8, Layout((8, 64), (64, 1))), 2))
    Sw<3,4,3> o 16 o (8,128):(128,1)
    """
    # include/cute/layout.hpp (downcast), swizzle_layout.hpp (downcast), layout_composed.hpp
    if _is_swizzle(layout):
        return Swizzle(layout.bits, layout.base + _log2(n), layout.shift)
    if _is_composed(layout):
        return ComposedLayout(downcast(layout.outer, n), layout.offset * _check_factor(n),
                              downcast(layout.inner, n))
    n = _check_factor(n)
    layout = _as_layout(layout, "layout")
    if not any(abs(d) == 1 for d in _flatten(layout.stride)):
        raise LayoutError(
            f"downcast: layout {layout} has no stride-1 mode, so its elements cannot be split"
        )
    return Layout(*_downcast_tree(layout.shape, layout.stride, n))


def recast(layout, old_bits, new_bits):
    """Convert a layout (or Swizzle / ComposedLayout) from ``old_bits``-wide to ``new_bits``-wide units.

    Examples
    --------
    >>> print(recast(Layout((8, 64), (64, 1)), 16, 32))
    (8,32):(32,1)
    >>> print(recast(Layout((8, 64), (64, 1)), 16, 8))
    (8,128):(128,1)
    >>> recast(Swizzle(3, 4, 3), 8, 16)
    Swizzle(3, 3, 3)
    """
    # include/cute/layout.hpp (recast_layout), swizzle_layout.hpp, layout_composed.hpp
    old_bits = _check_factor(old_bits, "old_bits")
    new_bits = _check_factor(new_bits, "new_bits")
    g = gcd(old_bits, new_bits)
    num, den = new_bits // g, old_bits // g
    if num == 1 and den == 1:
        return layout
    if num == 1:
        return downcast(layout, den)
    if den == 1:
        return upcast(layout, num)
    return downcast(upcast(layout, num), den)


# ---------------------------------------------------------------------------------------------
# Slicing and common vectors
# ---------------------------------------------------------------------------------------------


def slice_and_offset(crd, layout):
    """Split a layout at a coordinate with ``None`` for the kept modes: (sub-layout, offset).

    Examples
    --------
    >>> L, off = slice_and_offset((None, 3), Layout((8, 64), (64, 1)))
    >>> print(L), off
    (8):(64)
    (None, 3)
    """
    # include/cute/layout.hpp (slice_and_offset), layout_composed.hpp (slice_and_offset)
    if _is_composed(layout):
        sub, off = slice_and_offset(crd, layout.inner)
        return type(layout)(layout.outer, layout.offset + off, sub), 0
    layout = _as_layout(layout, "layout")
    crd = _norm(crd, "crd", allow_none=True)
    return Layout(slice_(crd, layout.shape), slice_(crd, layout.stride)), _crd2idx(
        crd, layout.shape, layout.stride
    )


def max_common_layout(a, b):
    """The largest layout ``R`` with ``a(R(i)) == i`` and ``b(R(i)) == i`` (contiguous in both).

    Examples
    --------
    >>> print(max_common_layout(Layout((8, 64), (64, 1)), Layout((8, 64), (1, 8))))
    1:0
    >>> print(max_common_layout(Layout((4, 8)), Layout((4, 8), (1, 16))))
    4:1
    """
    # include/cute/layout.hpp (max_common_layout)
    a = _as_layout(a, "a")
    b = _as_layout(b, "b")
    inv_b = right_inverse(b)
    common = coalesce(composition(a, inv_b))
    head = _modes(common)[0]
    if head.stride == 1:
        return composition(inv_b, head)
    return Layout(1, 0)


def max_common_vector(a, b):
    """How many leading elements ``a`` and ``b`` both store contiguously (>= 1).

    Examples
    --------
    >>> max_common_vector(Layout((4, 8)), Layout((4, 8), (1, 16)))
    4
    """
    # include/cute/layout.hpp (max_common_vector)
    a = _as_layout(a, "a")
    b = _as_layout(b, "b")
    common = coalesce(composition(a, right_inverse(b)))
    head = _modes(common)[0]
    return head.shape if head.stride == 1 else 1
