"""CuTe layouts in pure Python: IntTuple helpers, :class:`Layout` and the layout algebra.

A layout maps a (nested) coordinate to an integer offset: ``L(c) = sum(c_i * d_i)`` over the
flattened modes, with a flat index first split into a coordinate colexicographically (leftmost
mode fastest). The names and semantics follow NVIDIA CuTe (``include/cute/int_tuple.hpp``,
``include/cute/layout.hpp``, CUTLASS 4.2); every integer is treated like a CuTe *static* integer,
so the divisibility conditions CuTe checks at compile time are checked here and raise
:class:`~fastswz.errors.LayoutError`.

Where this module differs from CUTLASS's pycute (listed so nobody "fixes" it back):

* ``composition`` flattens the left layout like CuTe's ``coalesce_x``, so values past the
  left layout's domain follow its natural extension; a tuple tiler drops the left modes it does
  not name (CuTe ``composition(Layout, Tiler)``). It takes CuTe's weak stride condition only
  where it is exact (a single-mode right layout) and pycute's strong one otherwise, and skips
  the check for extent-1 modes, which CuTe and pycute reject.
* ``logical_product(L, n)`` means ``L x n:1`` (pycute divides by mistake).
* ``complement(L)`` defaults its cotarget to ``cosize(filter(L))`` (CuTe), and ``logical_divide``
  uses ``shape(coalesce(L))`` as the cotarget (CuTe), not ``size(L)``.
* ``slice_(None, t)`` returns ``t`` itself at the top level (CuTe), so ``L(None) == L``.
* Shapes must be positive; numpy integers are accepted and become Python ints; bools and
  floats raise :class:`~fastswz.errors.FastswzTypeError`.

Where it differs from CuTe 4.2 (each checked by host-compiling CuTe):

* ``Layout(shape)`` takes strides ``prefix_product(shape)``, CuTe's rule for dynamic ints;
  CuTe gives a *static* extent-1 mode stride 0 (``make_layout((8,1))`` prints
  ``(_8,_1):(_1,_0)``). The algebra builds its own compact layouts (int tilers, orders) with
  the static rule, and ``tile_to_shape`` zeroes extent-1 strides in its result, so results
  print as CuTe's do (a randomised comparison with host-compiled CuTe agreed on all 583
  cases that CuTe compiles).
* ``make_ordered_layout`` ranks equal order values left to right, so the result stays compact;
  CuTe gives equal static orders equal strides.
* ``composition`` refuses the weak-condition cases where CuTe's result is not ``a o b`` (see
  above).
* ``None`` at a terminal of a divide/product tiler gives an empty tile ``1:0`` for that mode
  (pycute's ``hier_unzip``); CuTe has no such case.
"""

from __future__ import annotations

import operator
from itertools import chain

from fastswz.errors import FastswzTypeError, LayoutError, ParseError

__all__ = [
    "Layout",
    "blocked_product",
    "ceil_div",
    "coalesce",
    "complement",
    "composition",
    "congruent",
    "cosize",
    "crd2crd",
    "crd2idx",
    "depth",
    "downcast",
    "elem_scale",
    "filter",
    "flat_divide",
    "flat_product",
    "flatten",
    "has_none",
    "idx2crd",
    "inner_product",
    "is_int",
    "is_tuple",
    "left_inverse",
    "logical_divide",
    "logical_product",
    "make_layout",
    "make_ordered_layout",
    "max_common_layout",
    "max_common_vector",
    "parse",
    "prefix_product",
    "product",
    "raked_product",
    "rank",
    "recast",
    "right_inverse",
    "shape_div",
    "size",
    "slice_",
    "slice_and_offset",
    "tile_to_shape",
    "tiled_divide",
    "tiled_product",
    "upcast",
    "zipped_divide",
    "zipped_product",
]


# ---------------------------------------------------------------------------------------------
# Normalisation of user input
# ---------------------------------------------------------------------------------------------


def _norm(x, name, allow_none=False):
    """Return ``x`` as an IntTuple of Python ints, or raise FastswzTypeError naming ``name``."""
    t = type(x)
    if t is int:
        return x
    if isinstance(x, tuple):
        return tuple([_norm(e, name, allow_none) for e in x])
    if x is None and allow_none:
        return None
    # bool is an int subclass and numpy bools define __index__ in some versions: neither is a
    # length or a stride, so reject them before operator.index can accept them.
    if not isinstance(x, bool) and type(x).__name__ not in ("bool_", "bool"):
        try:
            return operator.index(x)
        except TypeError:
            pass
    want = "an int, None or a tuple of those" if allow_none else "an int or a tuple of ints"
    raise FastswzTypeError(
        f"{name}={x!r} ({type(x).__name__}) is not an IntTuple: expected {want} "
        "(numpy integers are fine; floats, bools and lists are not)"
    )


def _as_layout(x, name):
    """A Layout as is; an IntTuple as the compact layout of that shape."""
    if isinstance(x, Layout):
        return x
    if hasattr(x, "outer"):
        raise FastswzTypeError(f"{name}={x} is a ComposedLayout; this operation needs a Layout")
    return _compact_layout(_norm(x, name))


def _compact_strides(shape, start=1):
    # include/cute/stride.hpp (compact_major with static ints): column-major, except that an
    # extent-1 mode gets stride 0. The algebra builds its internal layouts this way so that its
    # results print as CuTe's do; Layout(shape) itself keeps prefix_product (pycute, and CuTe's
    # rule for dynamic ints).
    if type(shape) is tuple:
        out = []
        for s in shape:
            out.append(_compact_strides(s, start))
            start *= _product(s)
        return tuple(out)
    return 0 if shape == 1 else start


def _compact_layout(shape):
    return Layout(shape, _compact_strides(shape))


def _is_layout(x):
    # The name test also accepts this module's Layout when the file has been imported a second
    # time (pytest --doctest-modules with --import-mode=importlib does that).
    return isinstance(x, Layout) or (type(x).__name__ == "Layout" and hasattr(x, "stride"))


def _is_composed(x):
    # swizzle.py imports this module, so ComposedLayout is recognised by its attribute instead of
    # by isinstance (no import cycle).
    return hasattr(x, "outer") and hasattr(x, "inner")


def _is_swizzle(x):
    return hasattr(x, "yyy_msk")


# ---------------------------------------------------------------------------------------------
# IntTuple helpers (include/cute/int_tuple.hpp)
# ---------------------------------------------------------------------------------------------


def is_int(x):
    """True for an integer that CuTe would accept as an int (not bool).

    Examples
    --------
    >>> is_int(3), is_int((3,)), is_int(True)
    (True, False, False)
    """
    # include/cute/numeric/integral_constant.hpp (is_integral); pycute's is_int also refuses bool
    if type(x) is int:
        return True
    if isinstance(x, bool) or type(x).__name__ == "bool_":
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def is_tuple(x):
    """True for a tuple (an IntTuple with modes).

    Examples
    --------
    >>> is_tuple((8, 64)), is_tuple(8)
    (True, False)
    """
    # include/cute/container/tuple.hpp (is_tuple)
    return isinstance(x, tuple)


def _flatten(t):
    if type(t) is not tuple:
        return (t,)
    out = []
    for e in t:
        if type(e) is tuple:
            out.extend(_flatten(e))
        else:
            out.append(e)
    return tuple(out)


def flatten(t):
    """Flatten an IntTuple into a tuple of ints (an int becomes a 1-tuple).

    Examples
    --------
    >>> flatten(((2, 3), (4, (5, 6))))
    (2, 3, 4, 5, 6)
    >>> flatten(7)
    (7,)
    """
    # include/cute/algorithm/tuple_algorithms.hpp (flatten); an int flattens to (int,) as in pycute.
    return _flatten(_norm(t, "t"))


def _product(a):
    if type(a) is int:
        return a
    p = 1
    for e in a:
        p *= _product(e)
    return p


def product(a):
    """Product of all ints in an IntTuple (``product(()) == 1``).

    Examples
    --------
    >>> product(((2, 3), 4))
    24
    """
    # include/cute/int_tuple.hpp (product)
    return _product(_norm(a, "a"))


def _check_same_rank(a, b, what):
    if len(a) != len(b):
        raise LayoutError(
            f"{what}: mismatched ranks, {_fmt(a)} has {len(a)} modes and {_fmt(b)} has {len(b)}"
        )


def _inner_product(a, b):
    if type(a) is tuple:
        if type(b) is not tuple:
            raise LayoutError(f"inner_product: {_fmt(a)} and {_fmt(b)} are not congruent")
        _check_same_rank(a, b, "inner_product")
        return sum(_inner_product(x, y) for x, y in zip(a, b))
    if type(b) is tuple:
        raise LayoutError(f"inner_product: {_fmt(a)} and {_fmt(b)} are not congruent")
    return a * b


def inner_product(a, b):
    """Sum of elementwise products of two congruent IntTuples.

    Examples
    --------
    >>> inner_product((2, (3, 4)), (1, (10, 100)))
    432
    """
    # include/cute/int_tuple.hpp (inner_product)
    return _inner_product(_norm(a, "a"), _norm(b, "b"))


def _prefix_product(a, init=1):
    if type(a) is tuple:
        if type(init) is tuple:
            _check_same_rank(a, init, "prefix_product")
            return tuple(_prefix_product(x, i) for x, i in zip(a, init))
        out = []
        for v in a:
            out.append(_prefix_product(v, init))
            init = init * _product(v)
        return tuple(out)
    if type(init) is tuple:
        raise LayoutError(f"prefix_product: int {a} cannot take the tuple init {_fmt(init)}")
    return init


def prefix_product(a, init=1):
    """Exclusive prefix product: the compact column-major strides of shape ``a``.

    Examples
    --------
    >>> prefix_product((2, (3, 4), 5))
    (1, (2, 6), 24)
    """
    # include/cute/int_tuple.hpp and stride.hpp (compact_col_major with dynamic ints)
    return _prefix_product(_norm(a, "a"), _norm(init, "init"))


def _shape_div(a, b):
    if type(a) is tuple:
        if type(b) is tuple:
            _check_same_rank(a, b, "shape_div")
            return tuple(_shape_div(x, y) for x, y in zip(a, b))
        out = []
        for v in a:
            out.append(_shape_div(v, b))
            b = _shape_div(b, _product(v))
        return tuple(out)
    if type(b) is tuple:
        return _shape_div(a, _product(b))
    if b == 0 or (a % b != 0 and b % a != 0):
        raise LayoutError(
            f"shape_div({a}, {b}): divisibility condition violated (one of {a}, {b} must divide the other)"
        )
    return -(-a // b)


def shape_div(a, b):
    """Divide shape ``a`` by ``b``, folding an int divisor across the modes of ``a``.

    Each int/int step needs one of the two to divide the other and returns ``ceil(a / b)``.

    Examples
    --------
    >>> shape_div((4, 5, 6), 40)
    (1, 1, 3)
    >>> shape_div(6, 12)
    1
    """
    # include/cute/int_tuple.hpp (shape_div)
    return _shape_div(_norm(a, "a"), _norm(b, "b"))


def _ceil_div(a, b):
    if type(a) is tuple:
        if type(b) is tuple:
            if len(b) > len(a):
                raise LayoutError(f"ceil_div: {_fmt(b)} has more modes than {_fmt(a)}")
            # missing modes of b count as 1
            b = b + (1,) * (len(a) - len(b))
            return tuple(_ceil_div(x, y) for x, y in zip(a, b))
        out = []
        for v in a:
            out.append(_ceil_div(v, b))
            b = _ceil_div(b, _product(v))
        return tuple(out)
    if type(b) is tuple:
        return _ceil_div(a, _product(b))
    if b <= 0:
        raise LayoutError(f"ceil_div({a}, {b}): the divisor must be positive")
    return -(-a // b)


def ceil_div(a, b):
    """``ceil(a / b)`` for IntTuples (an int divisor folds across the modes of ``a``).

    Examples
    --------
    >>> ceil_div((4, 6), 8)
    (1, 3)
    >>> ceil_div((64, 65), (8, 8))
    (8, 9)
    """
    # include/cute/int_tuple.hpp (ceil_div)
    return _ceil_div(_norm(a, "a"), _norm(b, "b"))


def _elem_scale(a, b):
    if type(a) is tuple:
        if type(b) is not tuple:
            raise LayoutError(f"elem_scale: tuple {_fmt(a)} cannot be scaled by the int {b}")
        _check_same_rank(a, b, "elem_scale")
        return tuple(_elem_scale(x, y) for x, y in zip(a, b))
    return a * _product(b)


def elem_scale(a, b):
    """Scale each element of ``a`` by the product of the matching part of ``b``.

    Examples
    --------
    >>> elem_scale((2, 3), (4, (5, 6)))
    (8, 90)
    """
    # include/cute/int_tuple.hpp (elem_scale)
    return _elem_scale(_norm(a, "a"), _norm(b, "b"))


def _idx2crd(idx, shape, stride):
    if type(idx) is tuple:
        if type(shape) is not tuple:
            raise LayoutError(f"idx2crd: coordinate {_fmt(idx)} is deeper than shape {shape}")
        _check_same_rank(idx, shape, "idx2crd")
        return tuple(_idx2crd(i, s, d) for i, s, d in zip(idx, shape, stride))
    if type(shape) is tuple:
        return tuple(_idx2crd(idx, s, d) for s, d in zip(shape, stride))
    return (idx // stride) % shape


def idx2crd(idx, shape, stride=None):
    """Split index ``idx`` into a coordinate of ``shape`` (colexicographic: first mode fastest).

    Examples
    --------
    >>> idx2crd(11, (2, (3, 4)))
    (1, (2, 1))
    """
    # include/cute/stride.hpp (idx2crd)
    shape = _norm(shape, "shape")
    _check_shape(shape)
    stride = _prefix_product(shape) if stride is None else _norm(stride, "stride")
    if not _congruent(shape, stride):
        raise LayoutError(
            f"idx2crd: shape {_fmt(shape)} and stride {_fmt(stride)} are not congruent"
        )
    return _idx2crd(_norm(idx, "idx"), shape, stride)


def _crd2idx(crd, shape, stride):
    if crd is None:
        crd = 0
    if type(crd) is tuple:
        if type(shape) is not tuple:
            raise LayoutError(
                f"crd2idx: coordinate {_fmt(crd)} does not match the int shape {shape}"
            )
        if len(crd) != len(shape):
            raise LayoutError(
                f"crd2idx: coordinate {_fmt(crd)} has {len(crd)} modes but shape {_fmt(shape)} has {len(shape)}"
            )
        return sum(_crd2idx(c, s, d) for c, s, d in zip(crd, shape, stride))
    if type(shape) is tuple:
        # An int coordinate is split colexicographically; the last mode takes what is left.
        result = 0
        last = len(shape) - 1
        for i in range(last):
            s = _product(shape[i])
            result += _crd2idx(crd % s, shape[i], stride[i])
            crd //= s
        return result + (_crd2idx(crd, shape[last], stride[last]) if last >= 0 else 0)
    return crd * stride


def crd2idx(crd, shape, stride=None):
    """Map a coordinate (an int or a tuple congruent with ``shape``) to an index.

    ``stride`` defaults to the compact column-major strides of ``shape``. ``None`` in the
    coordinate counts as 0 (CuTe's ``_``).

    Examples
    --------
    >>> crd2idx((1, 2), (8, 64), (64, 1))
    66
    >>> crd2idx(9, (8, 64), (64, 1))
    65
    """
    # include/cute/stride.hpp (crd2idx)
    shape = _norm(shape, "shape")
    _check_shape(shape)
    stride = _prefix_product(shape) if stride is None else _norm(stride, "stride")
    if not _congruent(shape, stride):
        raise LayoutError(
            f"crd2idx: shape {_fmt(shape)} and stride {_fmt(stride)} are not congruent"
        )
    return _crd2idx(_norm(crd, "crd", allow_none=True), shape, stride)


def crd2crd(crd, dst_shape, src_shape=None):
    """Convert a coordinate to the congruent coordinate of ``dst_shape``.

    Examples
    --------
    >>> crd2crd(5, (2, 3))
    (1, 2)
    >>> crd2crd((1, 2), 6, (2, 3))
    5
    """
    # include/cute/stride.hpp (crd2crd)
    crd = _norm(crd, "crd")
    dst_shape = _norm(dst_shape, "dst_shape")
    src_shape = None if src_shape is None else _norm(src_shape, "src_shape")
    _check_shape(dst_shape)
    if src_shape is not None:
        _check_shape(src_shape)
    return _crd2crd(crd, dst_shape, src_shape)


def _crd2crd(crd, dst, src):
    if type(crd) is tuple:
        if type(dst) is tuple:
            _check_same_rank(crd, dst, "crd2crd")
            return tuple(
                _crd2crd(c, d, None if src is None or type(src) is not tuple else s)
                for c, d, s in zip(crd, dst, src if type(src) is tuple else (None,) * len(crd))
            )
        if src is None:
            raise LayoutError(
                f"crd2crd: tuple coordinate {_fmt(crd)} into int shape {dst} needs src_shape"
            )
        return _crd2idx(crd, src, _prefix_product(src))
    if type(dst) is tuple:
        return _idx2crd(crd, dst, _prefix_product(dst))
    if not 0 <= crd < dst:
        raise LayoutError(f"crd2crd: coordinate {crd} is outside shape {dst}")
    return crd


def _slice_lift(crd, trg):
    # Inside a tuple a kept mode is wrapped in a 1-tuple so that tuple concatenation drops the
    # fixed modes and keeps the rest (include/cute/underscore.hpp, lift_slice).
    if type(crd) is tuple:
        if type(trg) is not tuple or len(crd) != len(trg):
            raise LayoutError(f"slice: coordinate {_fmt(crd)} does not match {_fmt(trg)}")
        return tuple(chain.from_iterable(_slice_lift(c, t) for c, t in zip(crd, trg)))
    if crd is None:
        return (trg,)
    return ()


def slice_(crd, trg):
    """Keep the parts of ``trg`` where ``crd`` has ``None`` (CuTe's ``_``).

    Examples
    --------
    >>> slice_((None, 3), (8, 64))
    (8,)
    >>> slice_(((None, 1), None), ((2, 3), 4))
    (2, 4)
    >>> slice_(None, (8, 64))
    (8, 64)
    """
    # include/cute/underscore.hpp (slice): at the top level slice(_, t) == t.
    crd = _norm(crd, "crd", allow_none=True)
    trg = _norm(trg, "trg")
    if crd is None:
        return trg
    return _slice_lift(crd, trg)


def _has_none(a):
    if a is None:
        return True
    if type(a) is tuple:
        return any(_has_none(v) for v in a)
    return False


def has_none(a):
    """True if the coordinate ``a`` contains ``None`` (a slice marker).

    Examples
    --------
    >>> has_none((1, (None, 2))), has_none((1, 2))
    (True, False)
    """
    # include/cute/underscore.hpp (has_underscore), None standing for _
    return _has_none(a)


def _congruent(a, b):
    if type(a) is tuple:
        if type(b) is not tuple or len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if (type(x) is tuple or type(y) is tuple) and not _congruent(x, y):
                return False
        return True
    return type(b) is not tuple


def congruent(a, b):
    """True if two IntTuples have the same nesting profile.

    Examples
    --------
    >>> congruent((2, (3, 4)), (1, (5, 6))), congruent(8, (8,))
    (True, False)
    """
    # include/cute/int_tuple.hpp (congruent)
    return _congruent(_norm(a, "a", allow_none=True), _norm(b, "b", allow_none=True))


def _depth(a):
    if type(a) is tuple:
        return 1 + max((_depth(e) for e in a), default=0)
    return 0


def depth(x):
    """Nesting depth: 0 for an int, 1 for a flat tuple; a Layout's depth is its shape's.

    Examples
    --------
    >>> depth(8), depth((8, 64)), depth(Layout(((8, 8), 64)))
    (0, 1, 2)
    """
    # include/cute/int_tuple.hpp (depth), include/cute/layout.hpp (depth)
    if isinstance(x, Layout):
        return _depth(x.shape)
    if _is_composed(x):
        return _depth(x.inner.shape)
    return _depth(_norm(x, "x"))


def rank(x):
    """Number of top-level modes: 1 for an int, ``len`` for a tuple.

    Examples
    --------
    >>> rank(8), rank((8, (2, 2))), rank(Layout((8, 64)))
    (1, 2, 2)
    """
    # include/cute/int_tuple.hpp (rank), include/cute/layout.hpp (rank)
    if isinstance(x, Layout):
        s = x.shape
    elif _is_composed(x):
        s = x.inner.shape
    else:
        s = _norm(x, "x")
    return len(s) if type(s) is tuple else 1


def _fmt(t):
    if type(t) is tuple:
        return "(" + ",".join([_fmt(e) for e in t]) + ")"
    return str(t)


# ---------------------------------------------------------------------------------------------
# Layout
# ---------------------------------------------------------------------------------------------


def _walk(x, name, leaves):
    """_norm that also collects the leaves; the all-int cases take no detour."""
    t = type(x)
    if t is int:
        leaves.append(x)
        return x
    if t is tuple:
        for e in x:
            if type(e) is not int:
                return tuple([_walk(e, name, leaves) for e in x])
        leaves.extend(x)
        return x
    x = _norm(x, name)
    leaves.extend(_flatten(x))
    return x


class _NotExact(Exception):
    """Internal: a coordinate that the fast path does not handle."""


def _crd2idx_exact(crd, shape, stride):
    # Fast path of crd2idx for coordinates made only of Python ints that match the shape's
    # nesting; anything else goes to the careful path (which normalises and reports errors).
    if type(crd) is tuple:
        if type(shape) is not tuple or len(crd) != len(shape):
            raise _NotExact
        r = 0
        for c, s, d in zip(crd, shape, stride):
            if type(c) is int and type(s) is int:
                r += c * d
            else:
                r += _crd2idx_exact(c, s, d)
        return r
    if type(crd) is int:
        return crd * stride if type(shape) is int else _crd2idx(crd, shape, stride)
    raise _NotExact


def _check_shape(shape):
    for s in _flatten(shape):
        if s < 1:
            raise LayoutError(f"shape {_fmt(shape)} has the extent {s}: every extent must be >= 1")


class Layout:
    """A CuTe layout: a shape and a congruent stride (``include/cute/layout.hpp``).

    Parameters
    ----------
    shape : IntTuple
        Extents of the (nested) modes; every extent must be >= 1.
    stride : IntTuple, optional
        Same nesting as ``shape``; defaults to compact column-major (``prefix_product(shape)``).

    Notes
    -----
    Immutable and hashable. Equality is structural, as in CuTe: ``Layout(8) != Layout((8,))``
    although both map ``i -> i``. Calling with one int maps a flat index (colexicographic);
    with a coordinate tuple (or several ints) maps that coordinate; a coordinate containing
    ``None`` slices and returns a Layout.

    Examples
    --------
    >>> L = Layout((8, 64), (64, 1))
    >>> L
    Layout((8, 64), (64, 1))
    >>> print(L)
    (8,64):(64,1)
    >>> L(9), L(1, 1), L((1, 1)), L(None, 1)
    (65, 65, 65, Layout((8,), (64,)))
    >>> L.size(), L.cosize(), len(L)
    (512, 512, 2)
    """

    __slots__ = ("_head", "_last", "shape", "stride")

    def __init__(self, shape, stride=None):
        leaves = []
        shape = _walk(shape, "shape", leaves)
        if leaves and min(leaves) < 1:
            _check_shape(shape)
        if stride is None:
            stride = _prefix_product(shape)
        else:
            n = len(leaves)
            stride = _walk(stride, "stride", leaves)
            # a different leaf count settles it at once; otherwise compare the nesting
            if len(leaves) != 2 * n or not _congruent(shape, stride):
                raise LayoutError(
                    f"stride {_fmt(stride)} is not congruent with shape {_fmt(shape)}: "
                    "give the stride the same nesting (one stride per extent)"
                )
        setattr_ = object.__setattr__
        setattr_(self, "shape", shape)
        setattr_(self, "stride", stride)

    def _flat_cache(self):
        # Flattened (extent, stride) pairs for the int path of __call__, built on first use:
        # splitting a flat index over a nested shape equals splitting it over the flat shape.
        fs = _flatten(self.shape)
        fd = _flatten(self.stride)
        object.__setattr__(self, "_head", tuple(zip(fs[:-1], fd[:-1])))
        object.__setattr__(self, "_last", fd[-1] if fd else 0)

    def __setattr__(self, name, value):
        raise AttributeError(f"Layout is immutable (tried to set {name!r}); build a new Layout")

    def __delattr__(self, name):
        raise AttributeError(f"Layout is immutable (tried to delete {name!r})")

    def __reduce__(self):
        return (Layout, (self.shape, self.stride))

    def __eq__(self, other):
        if type(other) is not Layout:
            return NotImplemented
        return self.shape == other.shape and self.stride == other.stride

    def __hash__(self):
        return hash((self.shape, self.stride))

    def __call__(self, *crd):
        if len(crd) == 1:
            c = crd[0]
            if type(c) is not int:
                if type(c) is tuple:
                    return self._call_coord(c)
                if c is None:
                    return self  # CuTe: layout(_) is the layout
                c = _norm(c, "crd")
            # include/cute/stride.hpp crd2idx(int, shape, stride), on the flattened modes
            try:
                head = self._head
            except AttributeError:
                self._flat_cache()
                head = self._head
            r = 0
            for s, d in head:
                c, m = divmod(c, s)
                r += m * d
            return r + c * self._last
        if not crd:
            raise FastswzTypeError("Layout() needs a coordinate: an int, a tuple or several ints")
        return self._call_coord(crd)

    def _call_coord(self, crd):
        try:
            return _crd2idx_exact(crd, self.shape, self.stride)
        except _NotExact:
            pass
        # numpy ints, None (slicing) or a coordinate that does not match: the careful path
        crd = _norm(crd, "crd", allow_none=True)
        if _has_none(crd):
            return Layout(slice_(crd, self.shape), slice_(crd, self.stride))
        return _crd2idx(crd, self.shape, self.stride)

    def __getitem__(self, i):
        if type(self.shape) is tuple:
            # an int gives mode i; a slice gives the layout of those modes
            return Layout(self.shape[i], self.stride[i])
        if i in (0, -1):
            return self
        raise IndexError(f"mode {i} out of range for the rank-1 layout {self}")

    def __len__(self):
        return len(self.shape) if type(self.shape) is tuple else 1

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def size(self):
        """Number of coordinates (product of the shape).

        Examples
        --------
        >>> Layout((8, 64), (64, 1)).size()
        512
        """
        return _product(self.shape)

    def cosize(self):
        """One past the largest offset: ``sum((s - 1) * |d|) + 1`` (CuTe ``cosize``).

        Examples
        --------
        >>> Layout((4, 2), (2, 16)).cosize()
        23
        """
        # include/cute/layout.hpp (coshape/cosize)
        return (
            sum((s - 1) * abs(d) for s, d in zip(_flatten(self.shape), _flatten(self.stride))) + 1
        )

    def rank(self):
        """Number of top-level modes.

        Examples
        --------
        >>> Layout(((8, 8), 64)).rank()
        2
        """
        return len(self)

    def depth(self):
        """Nesting depth of the shape.

        Examples
        --------
        >>> Layout(((8, 8), 64)).depth()
        2
        """
        return _depth(self.shape)

    def __str__(self):
        return _fmt(self.shape) + ":" + _fmt(self.stride)

    def __repr__(self):
        return f"Layout({self.shape!r}, {self.stride!r})"


# ---------------------------------------------------------------------------------------------
# Construction, size and friends (include/cute/layout.hpp)
# ---------------------------------------------------------------------------------------------


def make_layout(*args):
    """Concatenate layouts into the modes of a new layout, or build one from (shape, stride).

    Examples
    --------
    >>> print(make_layout(Layout(8, 64), Layout(64, 1)))
    (8,64):(64,1)
    >>> print(make_layout((2, 3)))
    (2,3):(1,2)
    >>> print(make_layout(8, 2))
    8:2
    """
    # include/cute/layout.hpp (make_layout overloads)
    if args and all(isinstance(a, Layout) for a in args):
        return Layout(tuple(a.shape for a in args), tuple(a.stride for a in args))
    if len(args) == 1 and not isinstance(args[0], tuple) and not is_int(args[0]):
        try:
            layouts = list(args[0])
        except TypeError:
            layouts = None
        if layouts is not None and all(isinstance(a, Layout) for a in layouts):
            # pycute accepts one iterable of layouts
            return Layout(tuple(a.shape for a in layouts), tuple(a.stride for a in layouts))
    if len(args) in (1, 2):
        return Layout(*args)
    raise FastswzTypeError(
        f"make_layout expects Layouts, a shape, or a shape and a stride; got {len(args)} arguments"
    )


def size(x):
    """Size of a layout's domain, or product of an IntTuple.

    Examples
    --------
    >>> size(Layout((8, 64))), size((2, (3, 4)))
    (512, 24)
    """
    # include/cute/layout.hpp (size), int_tuple.hpp (size of an IntTuple)
    if isinstance(x, Layout) or _is_composed(x):
        return x.size()
    return _product(_norm(x, "x"))


def cosize(x):
    """Size of a layout's codomain (``cosize`` of the inner layout for a ComposedLayout).

    Examples
    --------
    >>> cosize(Layout((8, 64), (64, 1)))
    512
    """
    # include/cute/layout.hpp (cosize), layout_composed.hpp (cosize of layout_b)
    if isinstance(x, Layout) or _is_composed(x):
        return x.cosize()
    return _as_layout(x, "x").cosize()


def _modes(L):
    return [L] if type(L.shape) is not tuple else [Layout(s, d) for s, d in zip(L.shape, L.stride)]


def _flat_pairs(L):
    return list(zip(_flatten(L.shape), _flatten(L.stride)))


def _from_lists(shapes, strides):
    if len(shapes) == 1:
        return Layout(shapes[0], strides[0])
    return Layout(tuple(shapes), tuple(strides))


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


def _compose_int(ls, ld, rs, rd, single=True):
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
        # Stride condition. CuTe 4.2 accepts "a multiple of cs, or below cs", but a stride below
        # cs that does not divide it is exact only when b is a single mode that ends inside this
        # mode of a; otherwise the modes of b no longer add up: (3,4):(1,10) o (2,2):(1,2)
        # gives CuTe (2,2):(1,2), which maps 3 to 3 instead of a(3) = 10. A size-1 rest maps
        # only 0 and needs no condition (CuTe asserts anyway).
        if (
            rest_s != 1
            and ad % cs != 0
            and cs % ad != 0
            and not (single and ad < cs and rest_s <= next_shape)
        ):
            raise LayoutError(
                f"composition: stride divisibility condition violated: stride {rest_d} of the right "
                f"layout and the left extent {cs} must divide one another"
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


def _compose_tree(ls, ld, rs, rd, single):
    # right-distributivity over the modes of the RHS
    if type(rs) is tuple:
        return (
            make_layout(*[_compose_tree(ls, ld, s, d, single) for s, d in zip(rs, rd)])
            if rs
            else Layout((), ())
        )
    return _compose_int(ls, ld, rs, rd, single)


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
        from fastswz.swizzle import ComposedLayout

        b = _as_layout(b, "b")
        # swizzle_layout.hpp: a swizzle of 0 bits is the identity, so CuTe returns b itself
        return b if a.bits == 0 else ComposedLayout(a, 0, b)
    a = _as_layout(a, "a")
    if b is None:
        return a
    if isinstance(b, Layout):
        ls, ld = _coalesce_x(a)
        single = sum(1 for s in _flatten(b.shape) if s != 1) <= 1
        return _compose_tree(ls, ld, b.shape, b.stride, single)
    if _is_composed(b):
        if b.offset != 0 or _is_swizzle(b.outer):
            raise LayoutError(
                "composition(Layout, ComposedLayout) needs offset 0 and a Layout outer function "
                f"(got {b})"
            )
        return composition(composition(a, b.outer), b.inner)
    if type(b) is tuple or isinstance(b, tuple):
        b = tuple(b)
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
    for i in sorted(range(len(c)), key=strides.__getitem__):
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
    order = sorted(range(len(c)), key=strides.__getitem__)
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


def _tiler(t, name):
    if t is None or isinstance(t, Layout) or _is_composed(t):
        return t
    if isinstance(t, tuple):
        return tuple(_tiler(e, name) for e in t)
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
    if guide is None:
        # pycute's hier_unzip: an untiled mode contributes an empty tile
        return make_layout(Layout(1, 0), L)
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
    # include/cute/algorithm/tuple_algorithms.hpp (zip of two layouts): pair mode i with mode i;
    # an int-shaped layout is rank 1, like a 1-tuple.
    if type(a.shape) is not tuple and type(b.shape) is not tuple:
        return Layout(((a.shape, b.shape),), ((a.stride, b.stride),))
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

    The mode with the smallest order value gets stride 1; equal order values are ranked left
    to right. ``order=None`` means column-major.

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
    rank_of = sorted(range(len(terms)), key=lambda j: (terms[j][0], j))
    starts = [0] * len(terms)
    acc = 1
    for j in rank_of:
        starts[j] = acc
        acc *= terms[j][1]
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
    r = len(target) if type(target) is tuple else 1
    if len(block) > r:
        raise LayoutError(
            f"tile_to_shape: block {block} has rank {len(block)}, more than the target shape {_fmt(target)}"
        )
    if type(target) is tuple:
        padded = make_layout(*_modes(block), *[Layout(1, 0)] * (r - len(block)))
        block_shape = _product_each(padded.shape)
    else:
        padded = block
        block_shape = block.size()
    target_shape = _product_each(target)
    bs, ts = (
        (block_shape, target_shape) if type(target) is tuple else ((block_shape,), (target_shape,))
    )
    for b, t in zip(bs, ts):
        if t % b != 0:
            raise LayoutError(
                f"tile_to_shape: block shape {_fmt(block_shape)} does not divide the target shape "
                f"{_fmt(target_shape)} ({t} % {b} != 0)"
            )
    product_shape = (
        tuple(t // b for b, t in zip(bs, ts)) if type(target) is tuple else ts[0] // bs[0]
    )
    tiles = make_ordered_layout(product_shape, order)
    # CuTe 4.x returns the blocked product as is (3.x coalesced it by product_shape); printing
    # the same form is what lets a user diff fastswz's output against CuTe's print(). With the
    # static tile shapes kernels use, CuTe's compact strides give every extent-1 mode stride 0.
    result = blocked_product(padded, tiles)
    return Layout(result.shape, _zero_unit_strides(result.shape, result.stride))


def _zero_unit_strides(shape, stride):
    if type(shape) is tuple:
        return tuple(_zero_unit_strides(s, d) for s, d in zip(shape, stride))
    return 0 if shape == 1 else stride


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


def upcast(layout, n):
    """Re-express a layout in units ``n`` times larger (e.g. bytes to 16-bit elements: n=2).

    Stride-±1 modes shrink their extent by ``n``; other strides are divided by ``n``; stride-0
    modes are kept. A Swizzle or ComposedLayout is converted by :func:`fastswz.swizzle.upcast`.

    Examples
    --------
    >>> print(upcast(Layout((8, 128), (128, 1)), 2))
    (8,64):(64,1)
    """
    # include/cute/layout.hpp (upcast)
    if _is_composed(layout) or _is_swizzle(layout):
        from fastswz import swizzle

        return swizzle.upcast(layout, n)
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
    """Re-express a layout in units ``n`` times smaller (e.g. 16-bit elements to bytes: n=2).

    Stride-±1 modes grow their extent by ``n``; other strides are multiplied by ``n``.

    Examples
    --------
    >>> print(downcast(Layout((8, 64), (64, 1)), 2))
    (8,128):(128,1)
    """
    # include/cute/layout.hpp (downcast)
    if _is_composed(layout) or _is_swizzle(layout):
        from fastswz import swizzle

        return swizzle.downcast(layout, n)
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
    """
    # include/cute/layout.hpp (recast_layout)
    from math import gcd

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


# ---------------------------------------------------------------------------------------------
# Parsing CuTe notation
# ---------------------------------------------------------------------------------------------


# ASCII digits only: str.isdigit() also accepts superscripts that int() refuses.
_DIGITS = frozenset("0123456789")

class _Parser:
    # Grammar (whitespace allowed between tokens):
    #   top      := object EOF
    #   object   := function ['o' [int 'o'] layout]
    #   function := swizzle | layout
    #   swizzle  := 'Sw' '<' int ',' int ',' int '>'
    #   layout   := inttuple [':' inttuple]
    #   inttuple := int | '(' [inttuple (',' inttuple)*] ')'
    #   int      := ['_'] ['-'] digits        (CuTe prints static ints as _8)

    def __init__(self, text):
        self.text = text
        self.pos = 0

    def error(self, expected, pos=None):
        pos = self.pos if pos is None else pos
        found = repr(self.text[pos : pos + 10]) if pos < len(self.text) else "end of text"
        raise ParseError(
            f"cannot parse {self.text!r}: at position {pos} expected {expected}, found {found}"
        )

    def skip(self):
        t, p = self.text, self.pos
        while p < len(t) and t[p].isspace():
            p += 1
        self.pos = p

    def peek(self, s):
        self.skip()
        return self.text.startswith(s, self.pos)

    def expect(self, s):
        if not self.peek(s):
            self.error(repr(s))
        self.pos += len(s)

    def int_(self):
        self.skip()
        t, start = self.text, self.pos
        p = start + 1 if t.startswith("_", start) else start
        sign = p
        if p < len(t) and t[p] in "+-":
            p += 1
        q = p
        while q < len(t) and t[q] in _DIGITS:
            q += 1
        if q == p:
            self.error("an integer", start)
        self.pos = q
        return int(t[sign:q])

    def inttuple(self):
        if self.peek("("):
            self.pos += 1
            items = []
            if self.peek(")"):
                self.pos += 1
                return ()
            while True:
                items.append(self.inttuple())
                if self.peek(","):
                    self.pos += 1
                    continue
                if self.peek(")"):
                    self.pos += 1
                    return tuple(items)
                self.error("',' or ')'")
        return self.int_()

    def layout_parts(self):
        self.skip()
        start = self.pos
        shape = self.inttuple()
        stride = None
        if self.peek(":"):
            self.pos += 1
            stride = self.inttuple()
        return start, shape, stride

    def build(self, start, shape, stride):
        try:
            return Layout(shape, stride)
        except LayoutError as e:
            raise ParseError(
                f"cannot parse {self.text!r}: the layout at position {start} is invalid: {e}"
            ) from None

    def layout(self):
        return self.build(*self.layout_parts())

    def swizzle(self):
        from fastswz.swizzle import Swizzle

        self.skip()
        start = self.pos
        self.expect("Sw" if self.peek("Sw") else "S")  # the CuTe DSL prints S<3,4,3>
        self.expect("<")
        b = self.int_()
        self.expect(",")
        m = self.int_()
        self.expect(",")
        s = self.int_()
        self.expect(">")
        try:
            return Swizzle(b, m, s)
        except LayoutError as e:
            raise ParseError(
                f"cannot parse {self.text!r}: the swizzle at position {start} is invalid: {e}"
            ) from None

    def parse(self):
        self.skip()
        if self.peek("Sw") or self.peek("S<"):
            fn = self.swizzle()
        elif (
            self.peek("(")
            or self.peek("_")
            or self.peek("-")
            or (self.pos < len(self.text) and self.text[self.pos] in _DIGITS)
        ):
            fn = self.layout()
        else:
            self.error("a layout such as (8,64):(64,1) or a swizzle such as Sw<3,4,3>")
        if self.peek("o"):
            self.pos += 1
            start, shape, stride = self.layout_parts()
            offset = 0
            if stride is None and type(shape) is int and self.peek("o"):
                # "A o 16 o B": a bare int followed by another "o" is the offset
                self.pos += 1
                offset = shape
                start, shape, stride = self.layout_parts()
            inner = self.build(start, shape, stride)
            from fastswz.swizzle import ComposedLayout

            self.done()
            return ComposedLayout(fn, offset, inner)
        self.done()
        return fn

    def done(self):
        self.skip()
        if self.pos != len(self.text):
            self.error("end of text or ' o '")


def parse(text):
    """Parse CuTe notation into a Layout, Swizzle or ComposedLayout.

    Accepts what ``str()`` prints (``(8,64):(64,1)``, ``Sw<3,4,3>``, ``Sw<3,4,3> o 0 o 8:1``),
    CuTe's static spelling (``(_8,_64):(_64,_1)``), a shape alone (compact column-major), a
    composed layout without offset (``Sw<3,4,3> o (8,64):(64,1)``, offset 0), and the CuTe DSL's
    ``S<3,4,3>`` for a swizzle.

    Raises
    ------
    fastswz.errors.ParseError
        With the position and what was expected there.

    Examples
    --------
    >>> parse("(_8,_64):(_64,_1)")
    Layout((8, 64), (64, 1))
    >>> parse("(8,64)")
    Layout((8, 64), (1, 8))
    >>> parse("Sw<3,4,3> o (8,64):(64,1)")
    ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    >>> parse("S<3,4,3> o 0 o (8,64):(64,1)") == parse("Sw<3,4,3> o 0 o (8,64):(64,1)")
    True
    """
    # The inverse of CuTe's printers: include/cute/layout.hpp (print), swizzle.hpp (print),
    # layout_composed.hpp (print); static ints print there as _8.
    if not isinstance(text, str):
        raise FastswzTypeError(f"text={text!r} must be a str")
    return _Parser(text).parse()
