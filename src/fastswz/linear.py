"""Linear layouts over GF(2): the form Triton lowers every layout to.

A :class:`LinearLayout` maps the bits of one or more named input dimensions to named output
dimensions by XOR: each input bit selects one *basis vector* (one value per output dimension),
and the image of a coordinate is the XOR of the vectors its set bits select (Zhou et al.,
"Linear Layouts", 2025; Triton ``include/triton/Tools/LinearLayout.h``). The ``bases`` are spelled
as Triton spells them: for each input dimension, a list with one output vector per input bit,
lowest bit first.

A CuTe layout with power-of-two extents is such a map exactly when no two of its per-bit
strides share a bit (then the integer sum ``sum(c_i * d_i)`` never carries and equals the XOR),
and a ``Swizzle<B,M,S>`` is GF(2)-linear by construction, so swizzled shared-memory layouts
translate both ways::

    Sw<3,3,3> o 0 o (8,64):(64,1)   <->   mode0: 64^8=72, 128^16=144, 256^32=288  (row bits, with
                                           the 16-byte chunk XOR of the swizzle)
                                           mode1: 1, 2, 4, 8, 16, 32                (k bits)

Units: :func:`to_linear_layout` keeps the layout's own units (element offsets for the
position-independent forms fastswz and CuTe print; Triton's shared layouts also count
elements). For an :class:`~fastswz.OperandTile` the input dimensions are ``mn`` and ``k`` and the
output is the element offset from a tile start on the swizzle pattern boundary, or the byte
offset with ``unit="byte"``.

Composition follows CuTe's order: ``a.compose(b)(x) == a(b(x))`` (Triton's C++ spells this
``b.compose(a)``).
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from .algebra import coalesce
from .bulk import int_array, out_arg
from .errors import FastswzTypeError, LayoutError, as_int
from .int_tuple import flatten
from .layout import Layout, _is_composed, _is_layout, _is_swizzle
from .rules import _choice
from .swizzle import ComposedLayout, Swizzle
from .tile import OperandTile

__all__ = ["LinearLayout", "to_linear_layout", "from_linear_layout", "linear_evaluate"]


def _log2(n):
    return n.bit_length() - 1


def _is_pow2(n):
    return n > 0 and n & (n - 1) == 0


def _name(what, value):
    if not isinstance(value, str) or not value:
        raise FastswzTypeError(f"{what}={value!r} must be a non-empty str")
    return value


class LinearLayout:
    """A linear map over GF(2) from named input dimensions to named output dimensions.

    Parameters
    ----------
    bases : sequence of (str, sequence of vectors) or dict
        For each input dimension, its name and one output vector per input bit (lowest first).
        A vector has one int per output dimension; with one output dimension a bare int is
        accepted. An input dimension of ``n`` bits has size ``2**n``.
    out_dims : sequence of (str, int), or sequence of str
        Output dimension names and sizes (powers of two). Given names only, each size is the
        smallest power of two above every basis entry of that dimension.

    Notes
    -----
    Immutable and hashable. ``ll(c0, c1, ...)`` takes one coordinate per input dimension and
    returns one value per output dimension (a bare int when there is one). ``str()`` prints
    Triton's form (one line per basis vector, then the output dimensions); ``repr()`` evaluates
    back.

    Examples
    --------
    >>> ll = LinearLayout([("offset", [1, 2, 4, 8 ^ 1])], ["addr"])
    >>> ll
    LinearLayout([('offset', [(1,), (2,), (4,), (9,)])], [('addr', 16)])
    >>> [ll(i) for i in (1, 8, 9)]
    [1, 9, 8]
    >>> print(ll)
     - offset=1 -> (1)
       offset=2 -> (2)
       offset=4 -> (4)
       offset=8 -> (9)
    where out dims are: [addr (size 16)]
    >>> eval(repr(ll)) == ll
    True
    """

    __slots__ = ("bases", "out_dims", "_flat", "_shifts")

    def __init__(self, bases, out_dims):
        if isinstance(bases, dict):
            bases = list(bases.items())
        if isinstance(out_dims, (str, bytes)) or not hasattr(out_dims, "__iter__"):
            raise FastswzTypeError(f"out_dims={out_dims!r} must be a sequence of names or (name, size) pairs")
        out_dims = list(out_dims)
        n_out = len(out_dims)
        if n_out == 0:
            raise LayoutError("out_dims=[] is empty: a linear layout needs at least one output dimension")
        try:
            bases = [(k, list(v)) for k, v in bases]
        except (TypeError, ValueError):
            raise FastswzTypeError(
                f"bases={bases!r} must be a sequence of (input name, list of vectors) pairs") from None
        norm = []
        seen = set()
        for name, vecs in bases:
            _name("input dimension name", name)
            if name in seen:
                raise LayoutError(f"input dimension {name!r} appears twice in bases; merge its vectors")
            seen.add(name)
            row = []
            for j, v in enumerate(vecs):
                if not isinstance(v, (tuple, list)):
                    v = (v,)
                if len(v) != n_out:
                    raise LayoutError(
                        f"bases[{name!r}][{j}]={tuple(v)!r} has {len(v)} entries but there are {n_out} "
                        f"output dimensions; give one value per output dimension")
                v = tuple(as_int(f"bases[{name!r}][{j}]", x) for x in v)
                if any(x < 0 for x in v):
                    raise LayoutError(f"bases[{name!r}][{j}]={v!r} has a negative entry; basis vectors are bit patterns >= 0")
                row.append(v)
            norm.append((name, tuple(row)))
        outs = []
        for i, od in enumerate(out_dims):
            if isinstance(od, str):
                name, size = od, None
            else:
                try:
                    name, size = od
                except (TypeError, ValueError):
                    raise FastswzTypeError(f"out_dims[{i}]={od!r} must be a name or a (name, size) pair") from None
            _name("output dimension name", name)
            top = 0
            for _, row in norm:
                for v in row:
                    top |= v[i]
            if size is None:
                size = 1 << top.bit_length()
            size = as_int(f"out_dims[{i}] size", size)
            if not _is_pow2(size):
                raise LayoutError(f"output dimension {name!r} has size {size}, not a power of two")
            if top >= size:
                raise LayoutError(
                    f"output dimension {name!r} has size {size} but a basis vector reaches {top}; "
                    f"use size {1 << top.bit_length()} or smaller vectors")
            outs.append((name, size))
        if len({n for n, _ in outs}) != len(outs):
            raise LayoutError(f"out_dims={out_dims!r} repeats a name")
        set_ = object.__setattr__
        set_(self, "bases", tuple(norm))
        set_(self, "out_dims", tuple(outs))
        shifts, s = [], 0
        for _, size in outs:
            shifts.append(s)
            s += _log2(size)
        set_(self, "_shifts", tuple(shifts))
        # every basis vector packed into one int: output dimension i occupies bits [shift_i, ...)
        set_(self, "_flat", tuple(sum(x << sh for x, sh in zip(v, shifts)) for _, row in norm for v in row))

    def __setattr__(self, name, value):
        raise AttributeError(f"LinearLayout is immutable (tried to set {name!r})")

    def __reduce__(self):
        return (LinearLayout, ([(k, list(v)) for k, v in self.bases], list(self.out_dims)))

    # -- shape ------------------------------------------------------------------------------
    @property
    def in_dims(self):
        """``((name, size), ...)`` of the input dimensions.

        Examples
        --------
        >>> LinearLayout({"lane": [1, 2], "warp": [4]}, ["x"]).in_dims
        (('lane', 4), ('warp', 2))
        """
        return tuple((k, 1 << len(v)) for k, v in self.bases)

    @property
    def in_bits(self):
        """Total number of input bits.

        Examples
        --------
        >>> LinearLayout({"lane": [1, 2], "warp": [4]}, ["x"]).in_bits
        3
        """
        return sum(len(v) for _, v in self.bases)

    @property
    def out_bits(self):
        """Total number of output bits.

        Examples
        --------
        >>> LinearLayout({"i": [(1, 2)]}, [("x", 8), ("y", 4)]).out_bits
        5
        """
        return sum(_log2(s) for _, s in self.out_dims)

    # -- identity ---------------------------------------------------------------------------
    def __eq__(self, other):
        if type(other) is not LinearLayout:
            return NotImplemented
        return self.bases == other.bases and self.out_dims == other.out_dims

    def __hash__(self):
        return hash(("LinearLayout", self.bases, self.out_dims))

    def __repr__(self):
        b = ", ".join(f"({k!r}, {list(v)!r})" for k, v in self.bases)
        return f"LinearLayout([{b}], {list(self.out_dims)!r})"

    def __str__(self):
        # Triton's LinearLayout::toString layout: " - in=1 -> (..)" then "   in=2 -> (..)"
        lines = []
        for name, vecs in self.bases:
            for j, v in enumerate(vecs):
                lead = " - " if j == 0 else "   "
                lines.append(f"{lead}{name}={1 << j} -> ({', '.join(map(str, v))})")
            if not vecs:
                lines.append(f" - {name} is a size 1 dimension")
        outs = ", ".join(f"{n} (size {s})" for n, s in self.out_dims)
        lines.append(f"where out dims are: [{outs}]")
        return "\n".join(lines)

    # -- evaluation -------------------------------------------------------------------------
    def _flat_in(self, crd):
        if len(crd) == 1 and isinstance(crd[0], (tuple, list)):
            crd = tuple(crd[0])
        if len(crd) != len(self.bases):
            raise LayoutError(
                f"{len(crd)} coordinate(s) given for {len(self.bases)} input dimension(s) "
                f"{[k for k, _ in self.bases]}; give one per input dimension")
        x, sh = 0, 0
        for (name, vecs), c in zip(self.bases, crd):
            c = as_int(name, c)
            if not 0 <= c < 1 << len(vecs):
                raise LayoutError(f"{name}={c} is outside [0, {1 << len(vecs)})")
            x |= c << sh
            sh += len(vecs)
        return x

    def _unpack_out(self, y):
        vals = tuple((y >> sh) & (size - 1) for sh, (_, size) in zip(self._shifts, self.out_dims))
        return vals[0] if len(vals) == 1 else vals

    def apply_flat(self, x):
        """Image of a flat input index (input dimensions' bits concatenated, first lowest), as a
        flat output (output dimensions' bits concatenated).

        Examples
        --------
        >>> LinearLayout({"i": [1, 3]}, ["x"]).apply_flat(3)
        2
        """
        y, j = 0, 0
        while x:
            if x & 1:
                y ^= self._flat[j]
            x >>= 1
            j += 1
        return y

    def __call__(self, *crd):
        return self._unpack_out(self.apply_flat(self._flat_in(crd)))

    def evaluate(self, inputs=None, out=None):
        """Bulk evaluation in the Cython core; see :func:`linear_evaluate`.

        Examples
        --------
        >>> LinearLayout({"i": [1, 3]}, ["x"]).evaluate().tolist()
        [0, 1, 3, 2]
        """
        return linear_evaluate(self, inputs, out)

    # -- algebra ----------------------------------------------------------------------------
    def _matrix(self):
        return list(self._flat)

    def flatten_ins(self, name=None):
        """The same map with all input dimensions merged into one (first dimension lowest).

        Examples
        --------
        >>> LinearLayout({"a": [1], "b": [2]}, ["x"]).flatten_ins().bases
        (('a', ((1,), (2,))),)
        """
        name = name or self.bases[0][0] if self.bases else (name or "in")
        vecs = [v for _, row in self.bases for v in row]
        return LinearLayout([(name, vecs)], self.out_dims)

    def flatten_outs(self, name=None):
        """The same map with all output dimensions merged into one (first dimension lowest).

        Examples
        --------
        >>> print(LinearLayout({"i": [(1, 0), (0, 1)]}, [("x", 2), ("y", 2)]).flatten_outs())
         - i=1 -> (1)
           i=2 -> (2)
        where out dims are: [x (size 4)]
        """
        name = name or self.out_dims[0][0]
        it = iter(self._flat)
        bases = [(k, [next(it) for _ in row]) for k, row in self.bases]
        return LinearLayout(bases, [(name, 1 << self.out_bits)])

    def compose(self, inner):
        """``self o inner``: ``result(x) == self(inner(x))`` (CuTe's order).

        ``inner``'s outputs feed ``self``'s inputs: matched by name when the names agree, else
        as flat bit strings (both sides' dimensions concatenated, first lowest), which is how a
        CuTe layout's 1-D index feeds the modes of the next layout. Sizes must fit.

        Examples
        --------
        >>> swz = LinearLayout({"o": [1, 2, 4 ^ 1]}, ["o"])
        >>> row = LinearLayout({"k": [1, 2], "mn": [4]}, ["o"])
        >>> swz.compose(row).bases
        (('k', ((1,), (2,))), ('mn', ((5,),)))
        """
        if type(inner) is not LinearLayout:
            raise FastswzTypeError(f"inner must be a LinearLayout, not {type(inner).__name__}")
        mine = [k for k, _ in self.bases]
        theirs = [k for k, _ in inner.out_dims]
        if mine == theirs:
            for (k, row), (_, size) in zip(self.bases, inner.out_dims):
                if size > 1 << len(row):
                    raise LayoutError(
                        f"inner output {k!r} has size {size} but the outer input {k!r} has size "
                        f"{1 << len(row)}; the composition is undefined past it")
        elif inner.out_bits > self.in_bits:
            raise LayoutError(
                f"inner outputs {list(inner.out_dims)} span {inner.out_bits} bits but the outer "
                f"inputs {list(self.in_dims)} take {self.in_bits}; the composition is undefined")
        # flat output of inner -> flat input of self: with matching names the two flat orders
        # agree bit for bit only if each inner size equals the outer size; re-pack per dimension
        if mine == theirs:
            def route(y):
                x, ish = 0, 0
                for (k, row), sh, (_, size) in zip(self.bases, inner._shifts, inner.out_dims):
                    x |= ((y >> sh) & (size - 1)) << ish
                    ish += len(row)
                return x
        else:
            def route(y):
                return y
        it = iter(inner._flat)
        bases = []
        for k, row in inner.bases:
            vecs = []
            for _ in row:
                y = self.apply_flat(route(next(it)))
                vecs.append(tuple((y >> sh) & (s - 1) for sh, (_, s) in zip(self._shifts, self.out_dims)))
            bases.append((k, vecs))
        return LinearLayout(bases, self.out_dims)

    def invert(self):
        """The inverse map of a bijective layout (as many input as output bits, full rank).

        The result's inputs are this layout's outputs and vice versa.

        Examples
        --------
        >>> ll = LinearLayout({"i": [1, 2, 4 ^ 1]}, ["o"])
        >>> inv = ll.invert()
        >>> all(inv(ll(i)) == i for i in range(8))
        True
        """
        n, m = self.in_bits, self.out_bits
        if n != m:
            raise LayoutError(
                f"the layout maps {n} input bits to {m} output bits; only a bijection (as many "
                f"input as output bits) has an inverse")
        # Gauss-Jordan over GF(2): rows [image | unit vector of the input bit]
        rows = [(v, 1 << j) for j, v in enumerate(self._flat)]
        inv = [0] * m
        for bit in range(m):
            piv = next((i for i in range(bit, n) if rows[i][0] >> bit & 1), None)
            if piv is None:
                raise LayoutError(
                    f"the layout is not injective: output bit {bit} is not reached independently "
                    f"(the basis vectors are linearly dependent over GF(2)), so it has no inverse")
            rows[bit], rows[piv] = rows[piv], rows[bit]
            pv, pu = rows[bit]
            for i in range(n):
                if i != bit and rows[i][0] >> bit & 1:
                    rows[i] = (rows[i][0] ^ pv, rows[i][1] ^ pu)
        for bit in range(m):
            inv[bit] = rows[bit][1]
        ishift = []
        s = 0
        for _, row in self.bases:
            ishift.append(s)
            s += len(row)
        bases, b = [], 0
        for name, size in self.out_dims:
            vecs = []
            for _ in range(_log2(size)):
                x = inv[b]
                vecs.append(tuple((x >> sh) & ((1 << len(row)) - 1) for sh, (_, row) in zip(ishift, self.bases)))
                b += 1
            bases.append((name, vecs))
        return LinearLayout(bases, self.in_dims)


# -- bulk evaluation -----------------------------------------------------------------------------
def linear_args(ll, inputs):
    """Shared validation of :func:`linear_evaluate` and its numpy twin: (flat basis, inputs, n)."""
    if type(ll) is not LinearLayout:
        raise FastswzTypeError(f"ll must be a LinearLayout, not {type(ll).__name__}")
    if ll.in_bits > 62 or ll.out_bits > 62:
        raise LayoutError(
            f"the layout has {ll.in_bits} input and {ll.out_bits} output bits; bulk evaluation "
            f"packs each side into an int64, so both must be <= 62")
    n = 1 << ll.in_bits
    basis = np.array(ll._flat, dtype=np.int64)
    if inputs is None:
        return basis, None, n

    arr = int_array("inputs", inputs)
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= n):
        flat = arr.ravel()
        i = int(np.flatnonzero((flat < 0) | (flat >= n))[0])
        raise LayoutError(f"inputs[{i}]={int(flat[i])} is outside the layout's domain [0, {n})")
    return basis, arr, n


def linear_evaluate(ll, inputs=None, out=None):
    """Evaluate a linear layout at flat input indices, in the Cython core.

    Parameters
    ----------
    ll : LinearLayout
    inputs : array-like of int, optional
        Flat input indices (input dimensions' bits concatenated, first dimension lowest). Default:
        the whole domain ``0 .. 2**in_bits - 1``.
    out : numpy.ndarray of int64, optional
        Caller-owned output, C-contiguous, shaped like the result.

    Returns
    -------
    numpy.ndarray of int64
        Flat outputs (output dimensions' bits concatenated, first lowest), shaped like ``inputs``.

    Examples
    --------
    >>> ll = LinearLayout({"i": [1, 2, 4 ^ 1]}, ["o"])
    >>> linear_evaluate(ll).tolist()
    [0, 1, 2, 3, 5, 4, 7, 6]
    >>> linear_evaluate(ll, [[4, 5]]).tolist()
    [[5, 4]]
    """

    basis, arr, n = linear_args(ll, inputs)
    if arr is None:
        out = out_arg(out, (n,), np.int64)
        _kernels.linear_table(basis, out)
        return out
    res = out_arg(out, arr.shape, np.int64)
    flat = np.ascontiguousarray(arr.ravel(), dtype=np.int64)
    _kernels.linear_apply(flat, basis, res.reshape(-1))
    return res


# -- CuTe -> linear ------------------------------------------------------------------------------
def _mode_vectors(shape, stride, where):
    """Per-bit vectors of one mode (nested shape/stride): c * d for c = 2**j, mode by mode."""

    shapes, strides = flatten(shape), flatten(stride)
    if isinstance(shapes, int):
        shapes, strides = (shapes,), (strides,)
    vecs, labels = [], []
    for s, d in zip(shapes, strides):
        if not _is_pow2(s):
            raise LayoutError(
                f"{where} has extent {s}, not a power of two: a linear layout over GF(2) indexes "
                f"each dimension by bits; pad or split the extent to a power of two")
        if d < 0:
            raise LayoutError(f"{where} has stride {d} < 0: negative strides are not GF(2)-linear")
        for j in range(_log2(s)):
            vecs.append(d << j)
            labels.append(f"{where} extent {s} stride {d} (bit {j}: {d << j})")
    return vecs, labels


def _check_disjoint(vecs, labels):
    seen = 0
    owner = {}
    for v, lab in zip(vecs, labels):
        if v == 0:
            continue
        if v & seen:
            clash = next(owner[b] for b in range(v.bit_length()) if v >> b & 1 and b in owner)
            raise LayoutError(
                f"{lab} shares a bit with {clash}: the integer sum then carries, so the layout is "
                f"not XOR-linear; strides must be 0 or disjoint bit patterns (e.g. powers of two "
                f"that do not collide)")
        for b in range(v.bit_length()):
            if v >> b & 1:
                owner[b] = lab
        seen |= v


def to_linear_layout(x, names=None, unit="element", out_name="offset"):
    """Translate a CuTe layout or an operand tile to a :class:`LinearLayout`.

    Parameters
    ----------
    x : Layout, ComposedLayout or OperandTile
        Every extent a power of two. A ComposedLayout needs a :class:`~fastswz.Swizzle` (or a
        linear Layout) outside and offset 0.
    names : sequence of str, optional
        Input dimension names, one per top-level mode. Default ``mode0, mode1, ...``; ``mn, k``
        for a tile.
    unit : {"element", "byte"}
        Tiles only: output in element offsets (default, the unit of ``tile.layout`` and of
        Triton's shared layouts) or byte offsets.
    out_name : str
        Name of the single output dimension.

    Returns
    -------
    LinearLayout
        One input dimension per mode (the mode's 1-D index, colexicographic inside nested
        modes), one output dimension whose size is the smallest power of two above every value.

    Examples
    --------
    >>> from fastswz import parse, OperandTile
    >>> print(to_linear_layout(parse("Sw<1,1,1> o 0 o (2,4):(4,1)")))
     - mode0=1 -> (6)
     - mode1=1 -> (1)
       mode1=2 -> (2)
    where out dims are: [offset (size 8)]
    >>> ll = to_linear_layout(OperandTile("bf16", "K", "128B", 8, 64))
    >>> ll.bases[0]
    ('mn', ((72,), (144,), (288,)))
    >>> ll(3, 10) == OperandTile("bf16", "K", "128B", 8, 64).layout(3, 10)
    True
    """

    unit = _choice("unit", unit, ("element", "byte"))
    _name("out_name", out_name)
    if isinstance(x, OperandTile):
        ll = to_linear_layout(x.layout, names or ("mn", "k"), out_name=out_name)
        if unit == "element":
            return ll
        if x.element_bits < 8:
            raise LayoutError(
                f"unit='byte' for {x!r}: packed 4-bit elements share bytes, so the byte map is not "
                f"injective; use unit='element' (nibble offsets)")
        e = x.element_bits // 8
        return LinearLayout([(k, [v[0] * e for v in row]) for k, row in ll.bases], [out_name])
    if unit != "element":
        raise LayoutError(f"unit={unit!r} applies to OperandTile only; layouts keep their own units")
    if _is_composed(x):
        if x.offset != 0:
            raise LayoutError(
                f"offset={x.offset} of {x}: a linear layout maps coordinate 0 to 0, and a non-zero "
                f"offset makes the map affine; add the offset to the base address instead")
        inner = to_linear_layout(x.inner, names, out_name=out_name)
        if _is_swizzle(x.outer):
            sw = _swizzle_linear(x.outer, max(inner.out_bits, _log2(x.outer.size())), out_name)
            return _minimal(sw.compose(inner))
        outer = to_linear_layout(x.outer, [out_name], out_name=out_name)
        return _minimal(outer.compose(inner))
    if not _is_layout(x):
        raise FastswzTypeError(f"x={x!r} must be a Layout, ComposedLayout or OperandTile, not {type(x).__name__}")
    modes = [(x.shape, x.stride)] if isinstance(x.shape, int) else list(zip(x.shape, x.stride))
    if names is None:
        names = [f"mode{i}" for i in range(len(modes))]
    names = list(names)
    if len(names) != len(modes):
        raise LayoutError(f"names={names!r} gives {len(names)} names for {len(modes)} modes of {x}")
    allv, alll, bases = [], [], []
    for i, ((s, d), name) in enumerate(zip(modes, names)):
        vecs, labels = _mode_vectors(s, d, f"mode {i}")
        allv += vecs
        alll += labels
        bases.append((name, vecs))
    _check_disjoint(allv, alll)
    return LinearLayout(bases, [out_name])


def _swizzle_linear(sw, nbits, name):
    """The GF(2) matrix of Swizzle<B,M,S> on [0, 2**nbits): bit j maps to sw(2**j)."""
    return LinearLayout([(name, [sw(1 << j) for j in range(nbits)])], [(name, 1 << nbits)])


def _minimal(ll):
    """The same map with each output size shrunk to the smallest power of two above its image."""
    return LinearLayout([(k, list(v)) for k, v in ll.bases], [n for n, _ in ll.out_dims])


# -- linear -> CuTe ------------------------------------------------------------------------------
def from_linear_layout(ll):
    """A CuTe ``Swizzle<B,M,S> o 0 o Layout`` equal to ``ll`` on every coordinate, where one exists.

    The layout gets one mode per input dimension (its 1-D index); the swizzle is the one with
    the fewest bits that makes the unswizzled basis vectors disjoint (a 0-bit swizzle gives a
    plain :class:`~fastswz.Layout`).

    Raises
    ------
    LayoutError
        When ``ll`` has more than one output dimension, or no ``Swizzle<B,M,S>`` turns its basis
        vectors into disjoint bit patterns (a CuTe layout adds its strides; only disjoint ones
        add like XOR).

    Examples
    --------
    >>> from fastswz import OperandTile
    >>> t = OperandTile("bf16", "K", "128B", 64, 64)
    >>> print(from_linear_layout(to_linear_layout(t)))
    Sw<3,3,3> o 0 o (64,64):(64,1)
    >>> from_linear_layout(LinearLayout({"i": [1, 1]}, ["o"]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fastswz.errors.LayoutError: no Swizzle<B,M,S> makes the basis vectors of i disjoint ...
    """

    if type(ll) is not LinearLayout:
        raise FastswzTypeError(f"ll must be a LinearLayout, not {type(ll).__name__}")
    if len(ll.out_dims) != 1:
        raise LayoutError(
            f"ll has {len(ll.out_dims)} output dimensions {[n for n, _ in ll.out_dims]}; a CuTe "
            f"layout has one codomain (an offset): use ll.flatten_outs() if the outputs are bit "
            f"fields of one offset")
    vecs = list(ll._flat)
    nbits = ll.out_bits
    found = None
    for sw in _swizzle_candidates(nbits):
        un = [sw(v) for v in vecs]
        seen, ok = 0, True
        for v in un:
            if v & seen:
                ok = False
                break
            seen |= v
        if ok:
            found = (sw, un)
            break
    if found is None:
        raise LayoutError(
            f"no Swizzle<B,M,S> makes the basis vectors of {ll.bases[0][0] if len(ll.bases) == 1 else [k for k, _ in ll.bases]} "
            f"disjoint (vectors {[v for v in vecs]}): CuTe adds strides, which equals XOR only "
            f"for disjoint bit patterns, and one Swizzle<B,M,S> cannot undo this XOR pattern")
    sw, un = found
    it = iter(un)
    shapes, strides = [], []
    for _, row in ll.bases:
        st = [next(it) for _ in row]
        if not st:
            shapes.append(1)
            strides.append(0)
            continue
        m = coalesce(Layout(tuple([2] * len(st)), tuple(st)))
        shapes.append(m.shape)
        strides.append(m.stride)
    inner = Layout(tuple(shapes), tuple(strides)) if len(shapes) != 1 else Layout(shapes[0], strides[0])
    if sw.bits == 0:
        return inner
    return ComposedLayout(sw, 0, inner)


def _swizzle_candidates(nbits):

    yield Swizzle(0, 0, 0)
    for b in range(1, nbits + 1):
        for s in range(b, nbits + 1):
            for m in range(0, nbits - b - s + 1):
                yield Swizzle(b, m, s)
                yield Swizzle(b, m, -s)  # negative shift: low bits XORed into high ones (CuTe allows it)
