"""CuTe IntTuples in pure Python: the helpers of ``include/cute/int_tuple.hpp`` and ``stride.hpp``.

An IntTuple is an int or a (nested) tuple of IntTuples. Shapes, strides and coordinates are
IntTuples; :class:`fastswz.layout.Layout` pairs a shape with a congruent stride. Every integer is
treated like a CuTe *static* integer, so the conditions CuTe checks at compile time are checked
here and raise :class:`~fastswz.errors.LayoutError`.

* Extents must be positive; numpy integers are accepted and become Python ints; bools and
  floats raise :class:`~fastswz.errors.FastswzTypeError`.
* ``slice_(None, t)`` returns ``t`` itself at the top level (CuTe), so ``L(None) == L``.
"""

from __future__ import annotations

import operator
from itertools import chain

from .errors import FastswzTypeError, LayoutError

__all__ = [
    "ceil_div",
    "congruent",
    "crd2crd",
    "crd2idx",
    "elem_scale",
    "flatten",
    "has_none",
    "idx2crd",
    "inner_product",
    "is_int",
    "is_tuple",
    "prefix_product",
    "product",
    "shape_div",
    "slice_",
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


def _check_shape(shape):
    for s in _flatten(shape):
        if s < 1:
            raise LayoutError(f"shape {_fmt(shape)} has the extent {s}: every extent must be >= 1")


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


def _fmt(t):
    if type(t) is tuple:
        return "(" + ",".join([_fmt(e) for e in t]) + ")"
    return str(t)
