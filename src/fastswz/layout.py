"""CuTe's ``Layout`` in pure Python (``include/cute/layout.hpp``): the class, ``make_layout``,
``size``, ``cosize``, ``rank`` and ``depth``.

A layout maps a (nested) coordinate to an integer offset: ``L(c) = sum(c_i * d_i)`` over the
flattened modes, with a flat index first split into a coordinate colexicographically (leftmost
mode fastest). The IntTuple helpers are in :mod:`fastswz.int_tuple`, the layout algebra
(coalesce, composition, complement, divides, products, ...) in :mod:`fastswz.algebra` and the
parser of CuTe notation in :mod:`fastswz.notation`; their public names are all exported by
:mod:`fastswz`.

Where this module differs from CuTe 4.2 (checked by host-compiling CuTe):

* ``Layout(shape)`` takes strides ``prefix_product(shape)``, CuTe's rule for dynamic ints;
  CuTe gives a *static* extent-1 mode stride 0 (``make_layout((8,1))`` prints
  ``(_8,_1):(_1,_0)``). The algebra builds its own compact layouts (int tilers, orders) with
  the static rule (:func:`_compact_layout` here), so its results print as CuTe's do.
"""

from __future__ import annotations

from .errors import FastswzTypeError, LayoutError
from .int_tuple import (_check_shape, _congruent, _crd2idx, _depth, _flatten, _fmt, _has_none,
                        _norm, _prefix_product, _product, is_int, slice_)

__all__ = ["Layout", "cosize", "depth", "make_layout", "rank", "size"]


# ---------------------------------------------------------------------------------------------
# Helpers the algebra shares (Layout-aware normalisation)
# ---------------------------------------------------------------------------------------------


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
