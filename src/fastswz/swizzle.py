"""CuTe's ``Swizzle<B,M,S>`` and ``ComposedLayout`` (``include/cute/swizzle.hpp``,
``include/cute/layout_composed.hpp``, ``include/cute/swizzle_layout.hpp``).

A swizzle XORs ``B`` bits of an offset, taken ``S`` bits above bit ``M``, into the ``B`` bits
starting at bit ``M``::

    0bxxxxxxxxxxxxxxxYYYxxxxxxxZZZxxxx
                                  ^--^  M: low bits kept as they are
                     ^-^       ^-^      B: bits in each mask
                       ^---------^      S: distance from ZZZ up to YYY (negative: YYY below ZZZ)

A :class:`ComposedLayout` ``A o O o B`` maps a coordinate ``c`` to ``A(O + B(c))``; with a
Swizzle as ``A`` it is how CuTe spells a swizzled shared-memory layout.
"""

from __future__ import annotations

from .errors import FastswzTypeError, LayoutError
from .int_tuple import _crd2idx, _norm
from .layout import Layout, _is_layout  # noqa: F401 - Layout: the doctests build layouts

__all__ = ["ComposedLayout", "Swizzle", "make_composed_layout"]


def _int(x, name):
    if type(x) is int:
        return x
    return _norm(x, name) if not isinstance(x, tuple) else _not_int(x, name)


def _not_int(x, name):
    raise FastswzTypeError(f"{name}={x!r} must be an int, not a tuple")


class Swizzle:
    """CuTe ``Swizzle<B,M,S>``: ``f(x) = x ^ shiftr(x & yyy_msk, S)``.

    Parameters
    ----------
    B : int
        Number of bits XORed (``bits``), ``B >= 0``.
    M : int
        Number of low bits left alone (``base``), ``M >= 0``.
    S : int
        Shift from the ZZZ bits up to the YYY bits (``shift``), ``|S| >= B``; negative shifts left.

    Notes
    -----
    The function is an involution and a bijection on every aligned block of ``size()`` offsets.
    It has no unit: ``Sw<3,4,3>`` on byte offsets is ``Sw<3,3,3>`` on 16-bit element offsets
    (see :func:`fastswz.upcast`).

    Examples
    --------
    >>> sw = Swizzle(3, 4, 3)
    >>> sw, str(sw)
    (Swizzle(3, 4, 3), 'Sw<3,4,3>')
    >>> hex(sw.yyy_msk), hex(sw.zzz_msk), sw.size()
    ('0x380', '0x70', 1024)
    >>> hex(sw(0x594 - 0x400) + 0x400)
    '0x5a4'
    """

    __slots__ = ("base", "bits", "shift", "yyy_msk", "zzz_msk")

    def __init__(self, B, M, S):
        B = _int(B, "B")
        M = _int(M, "M")
        S = _int(S, "S")
        # include/cute/swizzle.hpp (struct Swizzle static_asserts)
        if B < 0:
            raise LayoutError(f"Swizzle B={B} must be >= 0 (B is the number of bits XORed)")
        if M < 0:
            raise LayoutError(f"Swizzle M={M} must be >= 0 (M is the number of low bits kept)")
        if abs(S) < B:
            raise LayoutError(
                f"Swizzle S={S} must satisfy |S| >= B={B}, so the two bit fields do not overlap"
            )
        if B + M + abs(S) > 63:
            # Offsets are int64 (and addresses far smaller): a swizzle reaching bit 63 or beyond
            # cannot act on any of them, and its masks would overflow the bulk kernels.
            raise LayoutError(
                f"Swizzle<{B},{M},{S}> reaches bit {B + M + abs(S)}: B + M + |S| must be <= 63 "
                f"so the swizzled bits lie inside a 64-bit offset"
            )
        msk = (1 << B) - 1
        set_ = object.__setattr__
        set_(self, "bits", B)
        set_(self, "base", M)
        set_(self, "shift", S)
        set_(self, "yyy_msk", msk << (M + max(0, S)))
        set_(self, "zzz_msk", msk << (M - min(0, S)))

    def __setattr__(self, name, value):
        raise AttributeError(f"Swizzle is immutable (tried to set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"Swizzle is immutable (tried to delete {name!r})")

    def __reduce__(self):
        return (Swizzle, (self.bits, self.base, self.shift))

    @property
    def swizzle_code(self):
        """``yyy_msk | zzz_msk``: every bit the swizzle reads or writes.

        Examples
        --------
        >>> hex(Swizzle(3, 4, 3).swizzle_code)
        '0x3f0'
        """
        return self.yyy_msk | self.zzz_msk

    def __call__(self, offset):
        if type(offset) is not int:
            offset = _int(offset, "offset")
        s = self.shift
        y = offset & self.yyy_msk
        return offset ^ (y >> s if s >= 0 else y << -s)

    def size(self):
        """Period of the function: ``2**(B + M + |S|)``.

        Examples
        --------
        >>> Swizzle(2, 4, 3).size()
        512
        """
        return 1 << (self.bits + self.base + abs(self.shift))

    def cosize(self):
        """Same as :meth:`size` (the swizzle permutes each period).

        Examples
        --------
        >>> Swizzle(1, 4, 3).cosize()
        256
        """
        return self.size()

    def __eq__(self, other):
        if type(other) is not Swizzle:
            return NotImplemented
        return (self.bits, self.base, self.shift) == (other.bits, other.base, other.shift)

    def __hash__(self):
        return hash(("Swizzle", self.bits, self.base, self.shift))

    def __str__(self):
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def __repr__(self):
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"


class ComposedLayout:
    """CuTe ``ComposedLayout<A,O,B>``: ``f(c) = outer(offset + inner(c))``.

    Parameters
    ----------
    outer : Swizzle or Layout
        The function applied last (CuTe's ``layout_a``).
    offset : int
        Added to the inner layout's value before ``outer``.
    inner : Layout
        Maps coordinates to offsets (CuTe's ``layout_b``); it gives the shape, size and rank.

    Notes
    -----
    The argument order is CuTe's ``A o O o B``. pycute's ``ComposedLayout(layoutB, offset, layoutA)``
    also takes the outer function first, only with the names swapped; its ``cosize`` is the outer
    function's, while CuTe (and this class) report the inner layout's cosize.

    Examples
    --------
    >>> C = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1)))
    >>> print(C)
    Sw<3,4,3> o 0 o (8,64):(64,1)
    >>> C(2, 0), C((2, 16)), C.shape, C.size()
    (144, 128, (8, 64), 512)
    >>> print(C[1])
    Sw<3,4,3> o 0 o 64:1
    """

    __slots__ = ("inner", "offset", "outer")

    def __init__(self, outer, offset, inner):
        if not (isinstance(outer, Swizzle) or _is_layout(outer)):
            raise FastswzTypeError(f"outer={outer!r} must be a Swizzle or a Layout")
        if not _is_layout(inner):
            raise FastswzTypeError(f"inner={inner!r} must be a Layout")
        offset = _int(offset, "offset")
        set_ = object.__setattr__
        set_(self, "outer", outer)
        set_(self, "offset", offset)
        set_(self, "inner", inner)

    def __setattr__(self, name, value):
        raise AttributeError(f"ComposedLayout is immutable (tried to set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"ComposedLayout is immutable (tried to delete {name!r})")

    def __reduce__(self):
        return (ComposedLayout, (self.outer, self.offset, self.inner))

    def _with_inner(self, inner):
        # layout_composed.hpp: the layout algebra acts on the inner layout and keeps A and O
        if not _is_layout(inner):
            return inner
        return _compose3(self.outer, self.offset, inner)

    @property
    def shape(self):
        """Shape of the inner layout.

        Examples
        --------
        >>> ComposedLayout(Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1))).shape
        (8, 64)
        """
        return self.inner.shape

    def size(self):
        """Size of the domain (the inner layout's size).

        Examples
        --------
        >>> ComposedLayout(Swizzle(1, 4, 3), 0, Layout((8, 16))).size()
        128
        """
        return self.inner.size()

    def cosize(self):
        """The inner layout's cosize (CuTe ``cosize(ComposedLayout)``).

        Examples
        --------
        >>> ComposedLayout(Swizzle(1, 4, 3), 0, Layout((8, 16))).cosize()
        128
        """
        return self.inner.cosize()

    def rank(self):
        """Rank of the inner layout.

        Examples
        --------
        >>> ComposedLayout(Swizzle(3, 4, 3), 0, Layout(((8, 8), 64))).rank()
        2
        """
        return len(self.inner)

    def depth(self):
        """Depth of the inner layout.

        Examples
        --------
        >>> ComposedLayout(Swizzle(3, 4, 3), 0, Layout(((8, 8), 64))).depth()
        2
        """
        return self.inner.depth()

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        return ComposedLayout(self.outer, self.offset, self.inner[i])

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __call__(self, *crd):
        r = self.inner(*crd)
        if type(r) is not int:
            # a slice: fold the fixed coordinates into the offset (layout_composed.hpp slice_and_offset)
            # r is the sliced inner layout; the offset is crd2idx with None counting as 0
            c = _norm(crd[0] if len(crd) == 1 else crd, "crd", allow_none=True)
            off = _crd2idx(c, self.inner.shape, self.inner.stride)
            return ComposedLayout(self.outer, self.offset + off, r)
        return self.outer(self.offset + r)

    def __eq__(self, other):
        if type(other) is not ComposedLayout:
            return NotImplemented
        return (
            self.outer == other.outer and self.offset == other.offset and self.inner == other.inner
        )

    def __hash__(self):
        return hash(("ComposedLayout", self.outer, self.offset, self.inner))

    def __str__(self):
        return f"{self.outer} o {self.offset} o {self.inner}"

    def __repr__(self):
        return f"ComposedLayout({self.outer!r}, {self.offset!r}, {self.inner!r})"


def _compose3(outer, offset, inner):
    # swizzle_layout.hpp (composition(Swizzle<0,M,S>, Int<0>, Layout)): the algebra's results
    # drop a swizzle of 0 bits at offset 0 and return the layout itself
    if isinstance(outer, Swizzle) and outer.bits == 0 and offset == 0:
        return inner
    return ComposedLayout(outer, offset, inner)


def make_composed_layout(outer, offset, inner):
    """Build ``outer o offset o inner`` (CuTe ``make_composed_layout``).

    Examples
    --------
    >>> print(make_composed_layout(Swizzle(2, 4, 3), 0, Layout((8, 32), (32, 1))))
    Sw<2,4,3> o 0 o (8,32):(32,1)
    """
    # include/cute/layout_composed.hpp (make_composed_layout)
    return ComposedLayout(outer, offset, inner)
