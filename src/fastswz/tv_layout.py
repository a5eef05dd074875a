"""Register fragments and tensor memory: CuTe's thread-value (TV) layouts.

CuTe names the map from a thread and one of its values to the element it holds a *TV layout*:
``MMA_Traits<...>::ALayout`` / ``BLayout`` / ``CLayout`` (``include/cute/atom/mma_traits_sm80.hpp``,
``mma_traits_sm90_gmma.hpp``) and ``Copy_Traits<...>::SrcLayout`` / ``DstLayout``
(``copy_traits_sm75.hpp``, ``copy_traits_sm90.hpp``, ``copy_traits_sm100.hpp``), read back with
``get_layoutA_TV`` and friends. This module is named after that concept. A :class:`TVLayout` is
a fastswz :class:`~fastswz.Layout` from ``(thread, value)`` to a flat coordinate index, plus the
2-D extents it maps into and how that index splits into a coordinate:

* ``order="col"`` (MMA operands, CuTe's convention): ``index = m + rows * n``. A is (M, K), B is
  (N, K) (CuTe's ``BLayout`` is N-major-first too), C/D is (M, N).
* ``order="row"`` (ldmatrix / stmatrix): ``index = row * cols + col``, the rows being the 16-byte
  shared-memory rows that lanes address (CuTe's copy layouts count bits row by row; fastswz
  counts elements).
* ``order="tmem"`` (tcgen05.ld / st): ``index = lane << 16 | column``, a tensor-memory address
  relative to the warp's base (CuTe's ``TMEM::DP`` stride is ``1 << 16`` columns).

Thread ``t`` of a warp is ``(t % 4, t // 4)`` in the layouts of the PTX figures (the "group"
``t // 4`` and the "thread in group" ``t % 4``), as CuTe writes them; a warpgroup adds a warp mode
of stride 16 rows. A value is one element; its 32-bit register is ``value * bits // 32`` (packed
``.f16x2`` / ``.b8x4`` registers hold consecutive values; an f64 value takes two registers).

Every layout here is derived from the PTX ISA fragment figures (mma.sync 9.7.14.5, ldmatrix /
stmatrix 9.7.14.5.15-16, wgmma 9.7.15.5, tcgen05 data paths and ld/st shapes 9.7.16.x) and checked
against CuTe's traits compiled from CUTLASS 4.2 and 4.7.0 (``tests/data/golden_cute_fragments*.json``;
two CuTe defects are recorded in ``docs/CUTE_COMPARISON.md`` §9) and, for everything the H100 runs,
against the registers of a kernel (``tests/gpu/fragments``). ``docs/fragments.md`` is the guide.

Examples
--------
>>> d = wgmma_d(64)                    # the accumulator of wgmma m64n64k*, per warpgroup
>>> print(d)
((4,8,4),(2,2,8)):((128,1,16),(64,8,512))
>>> m, n = d.coords()
>>> int(m[37, 6]), int(n[37, 6])       # thread 37, register 6
(25, 10)
"""

from __future__ import annotations

import re

import numpy as np

from . import _kernels
from .bulk import evaluate
from .errors import FastswzTypeError, FragmentError, as_int
from .layout import Layout
from .notation import parse

__all__ = ["TVLayout", "fragment", "mma_sync", "wgmma_d", "wgmma_d_coords", "wgmma_a", "ldmatrix",
           "stmatrix", "tmem_accumulator", "tcgen05_ld", "tcgen05_st", "tmem_fragment", "tv_coords",
           "tv_inverse", "FRAGMENT_EXAMPLES", "LDMATRIX_SHAPES", "STMATRIX_SHAPES", "MMA_SYNC_SHAPES",
           "TCGEN05_SHAPES"]

ORDERS = ("col", "row", "tmem")
#: Lane stride of a tensor-memory address (``TMEM::DP`` in CuTe): lane << 16 | column.
TMEM_LANE = 1 << 16


def _check_order(order):
    if order not in ORDERS:
        raise FragmentError(f"order={order!r} is not one of {list(ORDERS)} (col: m + rows*n, "
                            f"row: row*cols + col, tmem: lane << 16 | column)")
    return order


class TVLayout:
    """A thread-value layout: ``(thread, value) -> (row, col)`` of a register fragment.

    Parameters
    ----------
    layout : Layout
        Rank 2: mode 0 the thread, mode 1 the value; maps to a flat coordinate index.
    extents : (int, int)
        The (rows, cols) of the matrix the fragment tiles: (M, K) for A, (N, K) for B, (M, N)
        for C/D, (rows the lanes address, elements per 16-byte row) for ldmatrix / stmatrix,
        (lanes, columns) of tensor memory for tcgen05.ld / st.
    order : {"col", "row", "tmem"}
        How the flat index splits (module docstring).
    name : str
        The instruction and operand, e.g. ``"mma.m16n8k16.f16.A"``.
    bits : int
        Element width (16 for f16/bf16, 32 for f32/tf32/s32, 8 for 8-bit types, 64 for f64,
        4 for s4/u4, 1 for b1).

    Notes
    -----
    ``str()`` prints the layout as CuTe prints the trait (``TVLayout.parse(str(x), x.extents,
    ...)`` rebuilds it); ``repr()`` evaluates back. Equality and hashing are structural.

    Examples
    --------
    >>> c = mma_sync("m16n8k16", "f16", "C")
    >>> print(c), c.threads, c.values, c.extents
    ((4,8),(2,2)):((32,1),(16,8))
    (None, 32, 4, (16, 8))
    >>> c.coords()[0][5].tolist(), c.coords()[1][5].tolist()   # thread 5: rows, cols
    ([1, 1, 9, 9], [2, 3, 2, 3])
    >>> eval(repr(c)) == c
    True
    """

    __slots__ = ("layout", "extents", "order", "name", "bits")

    def __init__(self, layout, extents, order="col", name="", bits=32):
        if not isinstance(layout, Layout):
            raise FastswzTypeError(f"layout must be a Layout, not {type(layout).__name__}")
        if len(layout) != 2:
            raise FragmentError(f"layout {layout} has rank {len(layout)}: a TV layout has two modes "
                                f"(thread, value); group the modes, e.g. '((4,8),(2,2)):((32,1),(16,8))'")
        if not isinstance(extents, (tuple, list)) or len(extents) != 2:
            raise FragmentError(f"extents={extents!r} must be (rows, cols)")
        rows, cols = as_int("rows", extents[0]), as_int("cols", extents[1])
        if rows < 1 or cols < 1:
            raise FragmentError(f"extents=({rows}, {cols}) must both be >= 1")
        order = _check_order(order)
        if not isinstance(name, str):
            raise FastswzTypeError(f"name={name!r} must be a string")
        bits = as_int("bits", bits)
        if bits not in (1, 4, 6, 8, 16, 32, 64):
            raise FragmentError(f"bits={bits} is not an element width: use 1, 4, 6, 8, 16, 32 or 64")
        if order == "tmem" and cols > TMEM_LANE:
            raise FragmentError(f"extents=({rows}, {cols}): tensor memory has at most {TMEM_LANE} "
                                f"columns per lane in an address")
        lo, hi = _span(layout)
        cap = rows * (TMEM_LANE if order == "tmem" else cols)
        if lo < 0 or hi >= cap:
            raise FragmentError(f"layout {layout} reaches index {lo if lo < 0 else hi}, outside the "
                                f"{rows} x {cols} extents (order={order!r}): index must be in [0, {cap})")
        if order == "tmem":
            col = evaluate(layout) & (TMEM_LANE - 1)
            if col.size and int(col.max()) >= cols:
                raise FragmentError(f"layout {layout} reaches TMEM column {int(col.max())}, outside the "
                                    f"{cols} columns of the extents ({rows}, {cols})")
        for k, v in (("layout", layout), ("extents", (rows, cols)), ("order", order),
                     ("name", name), ("bits", bits)):
            object.__setattr__(self, k, v)

    def __setattr__(self, name, value):
        raise AttributeError("TVLayout is immutable")

    def __reduce__(self):
        return (TVLayout, (self.layout, self.extents, self.order, self.name, self.bits))

    def __eq__(self, other):
        if not isinstance(other, TVLayout):
            return NotImplemented
        return (self.layout, self.extents, self.order, self.name, self.bits) == \
            (other.layout, other.extents, other.order, other.name, other.bits)

    def __hash__(self):
        return hash((self.layout, self.extents, self.order, self.name, self.bits))

    def __str__(self):
        return str(self.layout)

    def __repr__(self):
        return (f"TVLayout({self.layout!r}, {self.extents!r}, order={self.order!r}, "
                f"name={self.name!r}, bits={self.bits})")

    @classmethod
    def parse(cls, text, extents, order="col", name="", bits=32):
        """Build from CuTe notation (what ``str()`` prints).

        Examples
        --------
        >>> c = mma_sync("m16n8k8", "f16", "C")
        >>> TVLayout.parse(str(c), c.extents, name=c.name, bits=c.bits) == c
        True
        """
        layout = parse(text)
        if not isinstance(layout, Layout):
            raise FragmentError(f"{text!r} is a swizzled layout; a TV layout is a plain Layout")
        return cls(layout, extents, order, name, bits)

    threads = property(lambda self: self.layout[0].size(), doc="Threads (size of mode 0).")
    values = property(lambda self: self.layout[1].size(), doc="Values per thread (size of mode 1).")

    @property
    def registers(self):
        """32-bit registers per thread: ``ceil(values * bits / 32)``.

        Examples
        --------
        >>> mma_sync("m16n8k16", "bf16", "A").registers, wgmma_d(256).registers
        (4, 128)
        """
        return -(-self.values * self.bits // 32)

    def index(self):
        """Flat coordinate index of every (thread, value): int64 array (threads, values).

        Examples
        --------
        >>> ldmatrix(1).index()[:2].tolist()
        [[0, 1], [2, 3]]
        """
        return evaluate(self.layout).reshape(self.values, self.threads).T

    def coords(self):
        """Bulk map: ``(rows, cols)`` int64 arrays of shape (threads, values), through the
        Cython core (twin: :func:`fastswz.reference.tv_coords`).

        Examples
        --------
        >>> r, c = ldmatrix(4, trans=True).coords()
        >>> r[4].tolist(), c[4].tolist()   # lane 4, .trans: rows 0, 1 of each matrix, column 1
        ([0, 1, 8, 9, 16, 17, 24, 25], [1, 1, 1, 1, 1, 1, 1, 1])
        """
        return tv_coords(self)

    def inverse(self):
        """Inverse bulk map: ``(thread, value)`` int64 arrays of shape ``extents``; -1 where no
        thread holds the element. Where several hold it (ldmatrix x1 address lanes), the first
        in CuTe's order (lowest value, then lowest thread) is given.

        Examples
        --------
        >>> t, v = mma_sync("m16n8k16", "f16", "C").inverse()
        >>> int(t[9, 3]), int(v[9, 3])
        (5, 3)
        """
        return tv_inverse(self)

    def addresses(self, byte_map):
        """Shared-memory byte address of every (thread, value) in a tile: ``byte_map[r, c]``.

        ``byte_map`` is a 2-D (rows, cols) array covering the extents, e.g.
        ``OperandTile.addresses()`` for A (M, K) and B (N, K) or :func:`fastswz.banks.epilogue_tile`
        for C/D (M, N); a larger map is read at its top-left corner (pass a slice for another
        block). Returns int64 (threads, values).

        Examples
        --------
        >>> from fastswz.banks import epilogue_tile
        >>> a = mma_sync("m16n8k16", "f32", "C").addresses(epilogue_tile("f32", "rowmajor", 16, 8))
        >>> a[1].tolist()   # thread 1: (0, 2), (0, 3), (8, 2), (8, 3) of a 32-byte-pitch tile
        [8, 12, 264, 268]
        """
        m = np.asarray(byte_map)
        if m.ndim != 2 or m.dtype.kind not in "iu":
            raise FragmentError(f"byte_map must be a 2-D integer array (rows, cols), not {m.dtype} "
                                f"with shape {m.shape}")
        rows, cols = self.extents
        if self.order == "tmem":
            raise FragmentError(f"{self.name or 'this layout'} maps into tensor memory, not into a "
                                f"shared-memory tile: compose it with tmem_fragment() first")
        if m.shape[0] < rows or m.shape[1] < cols:
            raise FragmentError(f"byte_map has shape {m.shape}, smaller than the fragment's "
                                f"extents ({rows}, {cols})")
        r, c = self.coords()
        return m.astype(np.int64, copy=False)[r, c]

    def table(self, byte_map=None):
        """Per (thread, value): ``thread, value, register, row, col`` [, ``address``] as one int64
        array of shape (threads * values, 5 or 6), thread-major (what :func:`fastswz.emit` writes).

        Examples
        --------
        >>> mma_sync("m8n8k4", "f64", "C").table()[:3].tolist()
        [[0, 0, 0, 0, 0], [0, 1, 2, 0, 1], [1, 0, 0, 0, 2]]
        """
        r, c = self.coords()
        t = np.repeat(np.arange(self.threads, dtype=np.int64), self.values)
        v = np.tile(np.arange(self.values, dtype=np.int64), self.threads)
        cols = [t, v, v * self.bits // 32, r.ravel(), c.ravel()]
        if byte_map is not None:
            cols.append(self.addresses(byte_map).ravel())
        return np.stack(cols, axis=1)

    def repeat(self, m_reps=1, n_reps=1):
        """The fragment of ``m_reps x n_reps`` instructions issued by the same threads, tiling a
        ``(rows * m_reps) x (cols * n_reps)`` matrix: values ordered ``(value, m-rep, n-rep)`` as
        CuTe's TiledMMA orders a thread's accumulators (``make_tiled_mma`` with one atom per
        thread group). For column-major fragments (MMA operands and accumulators).

        Examples
        --------
        >>> acc = wgmma_d(256).repeat(2)        # a 128 x 256 tile: two m64 wgmmas per warpgroup
        >>> print(acc), acc.extents, acc.registers
        ((4,8,4),((2,2,32),2)):((256,1,16),((128,8,1024),64))
        (None, (128, 256), 256)
        >>> m, n = acc.coords()
        >>> int(m[37, 6 + 128]), int(n[37, 6 + 128])   # the second wgmma's register 6: m + 64
        (89, 10)
        """
        mr, nr = as_int("m_reps", m_reps), as_int("n_reps", n_reps)
        if mr < 1 or nr < 1:
            raise FragmentError(f"m_reps={mr}, n_reps={nr} must both be >= 1")
        if self.order != "col":
            raise FragmentError(f"{self.name or 'this layout'} is not a column-major MMA fragment "
                                f"(order={self.order!r}); repeat() tiles MMA operands and accumulators")
        rows, cols = self.extents
        R = rows * mr

        def conv(d):       # an index step of the old (rows x cols) matrix in the new (R x ...) one
            if 0 <= d < rows or d % rows == 0:
                return d % rows + R * (d // rows)
            raise FragmentError(f"{self.name or 'this layout'}: stride {d} moves both row and column, "
                                f"so the fragment cannot be repeated by re-striding")

        def restride(x):
            return tuple(restride(e) for e in x) if isinstance(x, tuple) else conv(x)
        thr = self.layout[0]
        val = self.layout[1]
        shape = (thr.shape, (val.shape, mr, nr))
        stride = (restride(thr.stride), (restride(val.stride), rows, R * cols))
        if mr == 1 and nr == 1:
            shape, stride = (thr.shape, val.shape), (restride(thr.stride), restride(val.stride))
        elif nr == 1:
            shape, stride = (thr.shape, (val.shape, mr)), (restride(thr.stride), (restride(val.stride), rows))
        elif mr == 1:
            shape, stride = (thr.shape, (val.shape, nr)), (restride(thr.stride), (restride(val.stride), R * cols))
        name = self.name if (mr, nr) == (1, 1) else f"{self.name}.x{mr}x{nr}"
        return TVLayout(Layout(shape, stride), (R, cols * nr), "col", name, self.bits)

    def to_linear(self, transpose=False):
        """This fragment as a Triton linear layout over ``(register, lane, warp)`` (a
        :class:`fastswz.LinearLayout` to ``(dim0, dim1)`` = (row, col) of :attr:`extents`).

        Triton names a register by the value index CuTe uses here, a lane by the thread's
        index in its warp and a warp by ``thread // 32``. ``transpose=True`` swaps the output
        dimensions (Triton's B operand is the K x N tensor, fastswz's is (n, k)). Needs
        power-of-two thread and value counts, and a map that is linear over GF(2) (every layout
        of this module with power-of-two extents is).

        Examples
        --------
        >>> print(mma_sync("m16n8k16", "f32", "C").to_linear())
         - register=1 -> (0, 1)
           register=2 -> (8, 0)
         - lane=1 -> (0, 2)
           lane=2 -> (0, 4)
           lane=4 -> (1, 0)
           lane=8 -> (2, 0)
           lane=16 -> (4, 0)
        where out dims are: [dim0 (size 16), dim1 (size 8)]
        """
        from .linear import LinearLayout, linear_evaluate
        if self.order == "tmem":
            raise FragmentError(f"{self.name}: a tensor-memory layout has no Triton register "
                                f"layout; compose it with tmem_fragment() first")
        T, V = self.threads, self.values
        if T & (T - 1) or V & (V - 1) or T < 32 and T != 1:
            raise FragmentError(f"{self.name} has {T} threads and {V} values: a Triton linear "
                                f"layout needs powers of two (and whole warps)")
        r, c = self.coords()
        rows, cols = self.extents
        if transpose:
            r, c, rows, cols = c, r, cols, rows

        def vec(t, v):
            return (int(r[t, v]), int(c[t, v]))
        reg = [vec(0, 1 << j) for j in range(V.bit_length() - 1)]
        lane = [vec(1 << j, 0) for j in range(min(T, 32).bit_length() - 1)]
        warp = [vec(32 << j, 0) for j in range((T // 32).bit_length() - 1)] if T > 32 else []
        ins = [("register", reg), ("lane", lane)] + ([("warp", warp)] if T > 32 else [])
        ll = LinearLayout(ins, [("dim0", _pow2(rows)), ("dim1", _pow2(cols))])
        # a linear layout must reproduce the whole map (XOR of the basis images)
        t = np.arange(T)[:, None]
        v = np.arange(V)[None, :]
        flat = (v + V * (t % 32) + 32 * V * (t // 32)).ravel()
        got = linear_evaluate(ll, flat)
        dbits = _pow2(rows).bit_length() - 1
        want = r.ravel() | (c.ravel() << dbits)
        if not np.array_equal(got, want):
            raise FragmentError(f"{self.name}: the map is not linear over GF(2), so it has no "
                                f"Triton linear layout")
        return ll

    def gluon(self):
        """The Triton/Gluon distributed layout with this register map, as the constructor call
        text, or None where Gluon has none (copy layouts, tensor memory).

        Examples
        --------
        >>> wgmma_d(128).gluon()
        'NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 128, 16])'
        >>> mma_sync("m16n8k16", "bf16", "A").gluon()
        'DotOperandLayout(operand_index=0, parent=NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8]), k_width=2)'
        """
        base = re.sub(r"\.x\d+x\d+$", "", self.name)      # a repeated fragment: the same layout
        parts = base.split(".")
        if parts[0] == "wgmma" and parts[-1] == "D":
            n = int(parts[1].split("n")[1])
            return (f"NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], "
                    f"instr_shape=[16, {n}, 16])")
        mma2 = "NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])"
        if parts[0] == "mma" and parts[1].startswith("m16n8"):
            if parts[-1] == "C":
                return mma2
            return (f"DotOperandLayout(operand_index={'AB'.index(parts[-1])}, parent={mma2}, "
                    f"k_width={max(1, 32 // self.bits)})")
        if parts[0] == "wgmma" and parts[-1] == "A":
            k = int(parts[1].split("k")[1])
            mma3 = (f"NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], "
                    f"instr_shape=[16, 8, {k}])")
            return f"DotOperandLayout(operand_index=0, parent={mma3}, k_width={max(1, 32 // self.bits)})"
        return None


def _pow2(n):
    return 1 << (int(n) - 1).bit_length()


def _span(layout):
    lo = hi = 0
    for s, d in zip(_flat(layout.shape), _flat(layout.stride)):
        if d > 0:
            hi += (s - 1) * d
        else:
            lo += (s - 1) * d
    return lo, hi


def _flat(x):
    if isinstance(x, tuple):
        out = []
        for e in x:
            out.extend(_flat(e))
        return out
    return [x]


# -- bulk maps (Cython core; numpy twins in fastswz.reference) -------------------------------------
def _tv_arg(tv):
    if not isinstance(tv, TVLayout):
        raise FastswzTypeError(f"expected a TVLayout, not {type(tv).__name__}")
    rows, cols = tv.extents
    pitch = {"col": rows, "row": cols, "tmem": TMEM_LANE}[tv.order]
    return np.ascontiguousarray(evaluate(tv.layout), dtype=np.int64), pitch, tv.order != "col"


def tv_coords(tv):
    """``(rows, cols)`` of every (thread, value) of ``tv``: int64 arrays (threads, values).

    Examples
    --------
    >>> r, c = tv_coords(wgmma_d(8))
    >>> r.shape, int(r[127, 3]), int(c[127, 3])
    ((128, 4), 63, 7)
    """
    idx, pitch, row_major = _tv_arg(tv)
    a = np.empty(idx.shape[0], dtype=np.int64)
    b = np.empty(idx.shape[0], dtype=np.int64)
    _kernels.tv_coords(idx, pitch, row_major, a, b)
    shape = (tv.values, tv.threads)
    return a.reshape(shape).T, b.reshape(shape).T


def tv_inverse(tv):
    """``(thread, value)`` holding each (row, col) of ``tv.extents``, -1 where none.

    Examples
    --------
    >>> t, v = tv_inverse(wgmma_d(16))
    >>> int(t[63, 15]), int(v[63, 15])
    (127, 7)
    """
    idx, pitch, row_major = _tv_arg(tv)
    rows, cols = tv.extents
    a = np.empty(idx.shape[0], dtype=np.int64)
    b = np.empty(idx.shape[0], dtype=np.int64)
    _kernels.tv_coords(idx, pitch, row_major, a, b)
    flat = np.ascontiguousarray(a * cols + b if row_major else a + rows * b)
    out_t = np.full(rows * cols, -1, dtype=np.int64)
    out_v = np.full(rows * cols, -1, dtype=np.int64)
    _kernels.tv_inverse(flat, tv.threads, out_t, out_v)
    shape = (rows, cols) if row_major else (cols, rows)
    out_t, out_v = out_t.reshape(shape), out_v.reshape(shape)
    return (out_t, out_v) if row_major else (out_t.T, out_v.T)


# -- mma.sync (PTX 9.7.14.5) ------------------------------------------------------------------------
# A warp's thread mode is (4, 8) = (t % 4, t // 4): "thread in group", "group" of the PTX figures.
_F16, _TF32, _B8, _F64, _B4, _B1 = "16-bit", "tf32", "8-bit", "f64", "4-bit", "1-bit"
_FAMILY = {"f16": _F16, "bf16": _F16, "tf32": _TF32, "e4m3": _B8, "e5m2": _B8,
           "s8": _B8, "u8": _B8, "f64": _F64, "s4": _B4, "u4": _B4, "b1": _B1}
_BITS = {_F16: 16, _TF32: 32, _B8: 8, _F64: 64, _B4: 4, _B1: 1}
# C/D of every 16 x 8 shape: c0,c1 at (g, 2*(t%4) + {0,1}), c2,c3 at row g + 8 (f32, f16, s32).
_FP8 = ("e4m3", "e5m2")       # no m8n8k16 (that shape is s8/u8 only)
_C16x8 = (((4, 8), (2, 2)), ((32, 1), (16, 8)))
_C8x8 = (((4, 8), 2), ((16, 1), 8))
# (family, shape) -> {operand: (shape, stride)} in CuTe's column-major (m,k) / (n,k) / (m,n).
_MMA = {
    (_F16, "m16n8k8"): {"A": (((4, 8), (2, 2)), ((32, 1), (16, 8))),
                        "B": (((4, 8), 2), ((16, 1), 8)), "C": _C16x8},
    (_F16, "m16n8k16"): {"A": (((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128))),
                         "B": (((4, 8), (2, 2)), ((16, 1), (8, 64))), "C": _C16x8},
    (_TF32, "m16n8k4"): {"A": (((4, 8), 2), ((16, 1), 8)),
                         "B": (((4, 8), 1), ((8, 1), 0)), "C": _C16x8},
    (_TF32, "m16n8k8"): {"A": (((4, 8), (2, 2)), ((16, 1), (8, 64))),
                         "B": (((4, 8), 2), ((8, 1), 32)), "C": _C16x8},
    (_B8, "m8n8k16"): {"A": (((4, 8), 4), ((32, 1), 8)),
                       "B": (((4, 8), 4), ((32, 1), 8)), "C": _C8x8},
    (_B8, "m16n8k16"): {"A": (((4, 8), (4, 2)), ((64, 1), (16, 8))),
                        "B": (((4, 8), 4), ((32, 1), 8)), "C": _C16x8},
    (_B8, "m16n8k32"): {"A": (((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256))),
                        "B": (((4, 8), (4, 2)), ((32, 1), (8, 128))), "C": _C16x8},
    (_F64, "m8n8k4"): {"A": (((4, 8), 1), ((8, 1), 0)),
                       "B": (((4, 8), 1), ((8, 1), 0)), "C": _C8x8},
    (_F64, "m16n8k4"): {"A": (((4, 8), 2), ((16, 1), 8)),
                        "B": (((4, 8), 1), ((8, 1), 0)), "C": _C16x8},
    (_F64, "m16n8k8"): {"A": (((4, 8), (2, 2)), ((16, 1), (8, 64))),
                        "B": (((4, 8), 2), ((8, 1), 32)), "C": _C16x8},
    (_F64, "m16n8k16"): {"A": (((4, 8), (2, 4)), ((16, 1), (8, 64))),
                         "B": (((4, 8), 4), ((8, 1), 32)), "C": _C16x8},
}
# Sub-byte integer shapes (s4/u4: E = 8 values per register, b1: E = 32): the 8-bit pattern
# widened, lane t holding E consecutive k of rows t//4 (and t//4 + 8).
# (CuTe writes the single value mode as (8) for s4/u4 and as 32 for b1; fastswz prints as CuTe.)
for _fam, _E in ((_B4, 8), (_B1, 32)):
    _V, _D = ((_E,), (8,)) if _fam == _B4 else (_E, 8)
    _MMA[(_fam, f"m8n8k{4 * _E}")] = {"A": (((4, 8), _V), ((8 * _E, 1), _D)),
                                      "B": (((4, 8), _V), ((8 * _E, 1), _D)), "C": _C8x8}
    _MMA[(_fam, f"m16n8k{4 * _E}")] = {"A": (((4, 8), (_E, 2)), ((16 * _E, 1), (16, 8))),
                                       "B": (((4, 8), _V), ((8 * _E, 1), _D)), "C": _C16x8}
    _MMA[(_fam, f"m16n8k{8 * _E}")] = {"A": (((4, 8), (_E, 2, 2)), ((16 * _E, 1), (16, 8, 64 * _E))),
                                       "B": (((4, 8), (_E, 2)), ((8 * _E, 1), (8, 32 * _E))),
                                       "C": _C16x8}
#: mma.sync shapes per input type, as the PTX ISA lists them (sm80+; f64 m16n8k* sm90; s4/u4
#: and b1 sm80+ as in PTX, not run on Hopper's hardware here).
MMA_SYNC_SHAPES = {dt: tuple(s for (f, s) in _MMA if f == fam and not (dt in _FP8 and s == "m8n8k16"))
                   for dt, fam in _FAMILY.items()}
_C_DTYPES = ("f32", "f16", "s32", "f64")


def _mnk(shape):
    if not isinstance(shape, str):
        raise FastswzTypeError(f"shape={shape!r} must be a string such as 'm16n8k16'")
    g = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", shape)
    if not g:
        raise FragmentError(f"shape={shape!r} is not of the form 'mMnNkK' (e.g. 'm16n8k16')")
    return tuple(int(x) for x in g.groups())


def mma_sync(shape, dtype, operand):
    """The A, B or C/D fragment of ``mma.sync.aligned`` ``shape`` for input type ``dtype``.

    Parameters
    ----------
    shape : str
        ``"m16n8k16"``, ``"m16n8k8"``, ... (:data:`MMA_SYNC_SHAPES` lists them per type).
    dtype : str
        The A/B element type: ``f16``, ``bf16``, ``tf32``, ``e4m3``, ``e5m2``, ``s8``, ``u8``,
        ``f64``. For C/D the layout is the same for every accumulator type (f32, f16 packed in
        pairs, s32); pass the accumulator type (``f32``, ``f16``, ``s32``, ``f64``) to get its
        ``bits``, or the input type.
    operand : {"A", "B", "C", "D"}
        A maps to (m, k) of M x K, B to (n, k) of N x K, C and D to (m, n) of M x N.

    Examples
    --------
    >>> print(mma_sync("m16n8k16", "bf16", "A"))
    ((4,8),(2,2,2)):((32,1),(16,8,128))
    >>> b = mma_sync("m16n8k32", "e4m3", "B")
    >>> b.extents, b.registers
    ((8, 32), 2)
    """
    M, N, K = _mnk(shape)
    if not isinstance(dtype, str):
        raise FastswzTypeError(f"dtype={dtype!r} must be a string")
    if operand not in ("A", "B", "C", "D"):
        raise FragmentError(f"operand={operand!r} is not 'A', 'B', 'C' or 'D'")
    acc = operand in ("C", "D")
    if dtype not in _FAMILY and not (acc and dtype in _C_DTYPES):
        raise FragmentError(f"dtype={dtype!r} is not an mma.sync input type: use one of "
                            f"{sorted(_FAMILY)}" + (" (or an accumulator type f32, f16, s32)"
                                                    if acc else ""))
    if acc:
        # C/D depend on the shape only; an input type must still have that shape.
        fams = [_FAMILY[dtype]] if dtype in _FAMILY else \
            [f for (f, s) in _MMA if s == shape]
        fam = fams[0] if fams else None
        bits = {"f16": 16, "f64": 64}.get(dtype, 32)
    else:
        fam = _FAMILY[dtype]
        bits = _BITS[fam]
    if (fam, shape) not in _MMA or (dtype in _FP8 and shape == "m8n8k16"):
        ok = MMA_SYNC_SHAPES.get(dtype) or sorted({s for (_, s) in _MMA})
        raise FragmentError(f"shape={shape!r} is not an mma.sync shape for {dtype}: use one of "
                            f"{list(ok)}")
    sh, st = _MMA[(fam, shape)]["C" if acc else operand]
    ext = {"A": (M, K), "B": (N, K), "C": (M, N), "D": (M, N)}[operand]
    op = "C" if acc else operand
    return TVLayout(Layout(sh, st), ext, "col", f"mma.{shape}.{dtype}.{op}", bits)


# -- wgmma (PTX 9.7.15.5) ---------------------------------------------------------------------------
_WGMMA_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}


def wgmma_d_coords(thread, register):
    """The wgmma m64nNk* accumulator map as arithmetic: ``(m, n)`` of accumulator ``register``
    of warpgroup ``thread`` (0..127), for scalars or arrays (the same as :func:`wgmma_d`).

    ``m = 16 * (t // 32) + (t % 32) // 4 + 8 * ((r // 2) % 2)``,
    ``n = 8 * (r // 4) + 2 * (t % 4) + r % 2`` (PTX 9.7.15.5.1, figure "WGMMA .m64nNk16 register
    fragment layout for accumulator matrix D"); for f16 accumulators ``r`` counts halves
    (register ``r // 2``, half ``r % 2``).

    Examples
    --------
    >>> wgmma_d_coords(37, 6)
    (25, 10)
    """
    t = np.asarray(thread)
    r = np.asarray(register)
    m = 16 * (t // 32) + (t % 32) // 4 + 8 * ((r // 2) % 2)
    n = 8 * (r // 4) + 2 * (t % 4) + r % 2
    if m.ndim == 0:
        return int(m), int(n)
    return m, n


def wgmma_d(n, dtype="f32"):
    """The D accumulator of ``wgmma.mma_async.m64nNk*`` (any K, any input type), per warpgroup:
    thread 0..127, value 0..N/2-1 -> (m, n) of the 64 x N tile, column-major ``m + 64 n``.

    CuTe ``GMMA::CLayout_64xN``: ``((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))``.
    ``dtype`` is the accumulator type (``f32``, ``s32`` or ``f16``; f16 packs two values in a
    register, value ``v`` in register ``v // 2``).

    Examples
    --------
    >>> d = wgmma_d(256)
    >>> print(d), d.values
    ((4,8,4),(2,2,32)):((128,1,16),(64,8,512))
    (None, 128)
    >>> m, nn = d.coords()
    >>> wm, wn = wgmma_d_coords(np.arange(128)[:, None], np.arange(128))
    >>> bool((m == wm).all() and (nn == wn).all())
    True
    """
    n = as_int("n", n)
    if n < 8 or n > 256 or n % 8:
        raise FragmentError(f"n={n} is not a wgmma N: use a multiple of 8 from 8 to 256")
    if dtype not in ("f32", "s32", "f16"):
        raise FragmentError(f"dtype={dtype!r} is not a wgmma accumulator type: use 'f32', 's32' "
                            f"or 'f16'")
    lay = Layout(((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512)))
    return TVLayout(lay, (64, n), "col", f"wgmma.m64n{n}.{dtype}.D", 16 if dtype == "f16" else 32)


def wgmma_a(dtype):
    """The register-sourced A fragment of ``wgmma.mma_async.m64nNkK`` (A in registers), per
    warpgroup: (thread, value) -> (m, k) of the 64 x K slice, K = 32 bytes of ``dtype``.

    Warp ``w`` holds rows 16w..16w+15, laid out as the mma.sync m16n8k16 (16-bit), m16n8k32
    (8-bit) or m16n8k8 (tf32) A fragment (PTX 9.7.15.5.1, "WGMMA .m64nNk16 register fragment
    layout for matrix A"). CuTe ``GMMA::ALayout_64x16`` and friends.

    Examples
    --------
    >>> print(wgmma_a("bf16"))
    ((4,8,4),(2,2,2)):((128,1,16),(64,8,512))
    >>> wgmma_a("e4m3").extents
    (64, 32)
    """
    if dtype not in _WGMMA_K:
        raise FragmentError(f"dtype={dtype!r} is not a wgmma A type in registers: use one of "
                            f"{sorted(_WGMMA_K)}")
    k = _WGMMA_K[dtype]
    (t, v), (td, vd) = _MMA[(_FAMILY[dtype], {16: "m16n8k16", 32: "m16n8k32", 8: "m16n8k8"}[k])]["A"]
    # The warp mode (stride 16 rows) joins the thread mode; every column stride scales 16 -> 64.
    def scale(d):
        return d // 16 * 64 + d % 16
    vd = tuple(scale(x) for x in vd)
    lay = Layout(((4, 8, 4), v), ((scale(td[0]), 1, 16), vd))
    return TVLayout(lay, (64, k), "col", f"wgmma.m64nNk{k}.{dtype}.A", _BITS[_FAMILY[dtype]])


# -- ldmatrix / stmatrix (PTX 9.7.14.5.15, 9.7.14.5.16) ----------------------------------------------
#: ldmatrix / stmatrix shapes: m8n8 (.b16, sm75 / sm90), and the sm100 8-bit forms m16n16
#: (ldmatrix ``.trans.b8``, ``.b8x16`` from 6/4-bit), m8n16 (ldmatrix ``.b8x16`` from 6/4-bit) and
#: m16n8 (stmatrix ``.trans.b8``).
LDMATRIX_SHAPES = ("m8n8", "m16n16", "m8n16")
STMATRIX_SHAPES = ("m8n8", "m16n8")


def _matrix_args(x, trans, shape, op):
    shapes = LDMATRIX_SHAPES if op == "ldmatrix" else STMATRIX_SHAPES
    if shape not in shapes:
        raise FragmentError(f"shape={shape!r} is not an {op} shape: use one of {list(shapes)}")
    x = as_int("x", x)
    counts = (1, 2) if shape == "m16n16" else (1, 2, 4)
    if x not in counts:
        raise FragmentError(f"x={x} is not a matrix count of {op}.{shape}: use "
                            f"{', '.join(map(str, counts))}")
    if not isinstance(trans, bool):
        raise FastswzTypeError(f"trans={trans!r} must be True or False")
    if shape in ("m16n16", "m16n8") and not trans:
        raise FragmentError(f"{op}.{shape} (8-bit) exists only with .trans: pass trans=True")
    if shape == "m8n16" and trans:
        raise FragmentError(f"{op}.m8n16 (.b8x16 from 6/4-bit) has no .trans form")
    return x


def _matrix(x, trans, role, op, shape="m8n8"):
    if role not in ("registers", "addresses"):
        raise FragmentError(f"role={role!r} is not 'registers' (the values each lane holds) or "
                            f"'addresses' (the row each lane points at)")
    b16 = shape == "m8n8"
    cols = 8 if b16 else 16                         # elements per 16-byte row
    rows = (16 if shape == "m16n16" else 8) * x     # rows the lanes address
    kind = {"m8n8": "b16", "m16n16": "b8", "m8n16": "b8x16", "m16n8": "b8"}[shape]
    name = f"{op}.{shape}.x{x}{'.trans' if trans else ''}.{kind}.{role}"
    bits = 16 if b16 else 8
    if role == "addresses":
        # lane i points at row i (row r of matrix j: lane rows_per_matrix * j + r); lanes past
        # the last row repeat the first ones (the hardware ignores their addresses)
        lay = Layout((32, cols), (cols, 1)) if rows == 32 else Layout(((rows, 32 // rows), cols),
                                                                      ((cols, 0), 1))
        return TVLayout(lay, (rows, cols), "row", name, bits)
    if shape == "m8n8" and trans:     # lane t holds (row 2(t%4) + i, column t//4) of each matrix
        lay = Layout(((4, 8), (2, x)), ((16, 1), (8, 64)))
    elif shape == "m8n8":             # lane t holds (row t//4, column 2(t%4) + i) of each matrix
        lay = Layout(((4, 8), (2, x)), ((2, 8), (1, 64)))
    elif shape == "m8n16":            # lane t holds (row t//4, columns 4(t%4) .. +3) of each matrix
        lay = Layout(((4, 8), (4, x)), ((4, 16), (1, 128)))
    elif shape == "m16n8":            # lane t holds rows 2(t%4) + i, columns t//4 and t//4 + 8
        lay = Layout(((4, 8), (2, 2, x)), ((32, 1), (16, 8, 128)))
    else:                             # m16n16: rows 4(t%4) + {0,1} (+2 in the second register),
        lay = Layout(((4, 8), (2, 2, 2, x)), ((64, 1), (16, 8, 32, 256)))  # columns t//4, +8
    return TVLayout(lay, (rows, cols), "row", name, bits)


def ldmatrix(x, trans=False, role="registers", shape="m8n8"):
    """``ldmatrix.sync.aligned.<shape>.x{1,2,4}[.trans]``: which lane receives which elements
    (``role="registers"``, CuTe's ``DstLayout``) or which lane supplies which row address
    (``role="addresses"``, CuTe's ``SrcLayout``).

    Coordinates are (row, col) of the shared-memory rows the lanes address, 16 bytes each
    (8 elements of ``.b16``, 16 of ``.b8``), lane ``i`` pointing at row ``i`` (row-major index,
    ``order="row"``). ``shape``:

    * ``"m8n8"`` (``.b16``, sm75+): register ``j`` holds matrix ``j`` (rows ``8j .. 8j+7``).
    * ``"m16n16"`` (``.trans.b8`` and ``.trans.b8x16`` from 6/4-bit, sm100; ``x`` 1 or 2): per
      16 x 16 matrix two registers; lane ``t`` holds rows ``4(t%4) .. +3`` of columns ``t//4``
      and ``t//4 + 8``, which after the transpose are "4 consecutive columns across 2 rows"
      (PTX ISA). CuTe's ``SM100_U8x8_LDSM_T`` numbers the rows of its bit buffer differently
      (lane ``t`` fills its row ``t%2 + 8((t//2)%2) + 2(t//4)``); through the lanes both say the
      same (``tests/test_tv_layout_golden.py``).
    * ``"m8n16"`` (``.b8x16`` from ``.b6x16_p32`` / ``.b4x16_p64``, sm100): lane ``t`` holds row
      ``t//4``, columns ``4(t%4) .. +3`` of each matrix.

    Examples
    --------
    >>> print(ldmatrix(4)), print(ldmatrix(2, role="addresses"))
    ((4,8),(2,4)):((2,8),(1,64))
    ((16,2),8):((8,0),1)
    (None, None)
    >>> r, c = ldmatrix(1, True, shape="m16n16").coords()
    >>> r[5].tolist(), c[5].tolist()     # lane 5: rows 4, 5 then 6, 7 of columns 1 and 9
    ([4, 5, 4, 5, 6, 7, 6, 7], [1, 1, 9, 9, 1, 1, 9, 9])
    """
    return _matrix(_matrix_args(x, trans, shape, "ldmatrix"), trans, role, "ldmatrix", shape)


def stmatrix(x, trans=False, role="registers", shape="m8n8"):
    """``stmatrix.sync.aligned.<shape>.x{1,2,4}[.trans]``: the lanes' registers
    (``role="registers"``, CuTe's ``SrcLayout``) and row addresses (``"addresses"``,
    ``DstLayout``). ``"m8n8"`` (``.b16``, sm90) is :func:`ldmatrix`'s map in the other direction;
    ``"m16n8"`` (``.trans.b8``, sm100): lane ``t`` writes rows ``2(t%4)`` and ``+1`` (``+8``
    per further register), columns ``t//4`` and ``t//4 + 8`` of 16-byte rows.

    Examples
    --------
    >>> stmatrix(4).coords()[0][0].tolist()   # lane 0 writes row 0 of each matrix
    [0, 0, 8, 8, 16, 16, 24, 24]
    >>> stmatrix(1, True, shape="m16n8").coords()[1][9].tolist()
    [2, 2, 10, 10]
    """
    return _matrix(_matrix_args(x, trans, shape, "stmatrix"), trans, role, "stmatrix", shape)


# -- tcgen05 (PTX 9.7.16) ------------------------------------------------------------------------------
#: tcgen05.ld / tcgen05.st shapes.
TCGEN05_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
_NUMS = (1, 2, 4, 8, 16, 32, 64, 128)


def tmem_accumulator(m, n, cta_group=1, ws=False):
    """Where ``tcgen05.mma`` leaves its accumulator in tensor memory: a :class:`~fastswz.Layout`
    from (m, n) of this CTA's rows to the TMEM address ``lane << 16 | column`` (32-bit
    accumulators; PTX 9.7.16.10.5 "data path layouts").

    * M=128 cta_group::1 (layout D) and M=256 cta_group::2 (layout A, 128 rows per CTA): row m in
      lane m, column n in column n.
    * M=64 cta_group::1 (layout F): 16 rows per warp quarter, lanes 0-15, 32-47, 64-79, 96-111.
    * M=128 cta_group::2 (layout B, 64 rows per CTA) and M=64 ``.ws`` (layout E): the columns'
      halves fold onto lanes 0-63 and 64-127.
    * M=32 ``.ws`` (layout G): the columns' quarters fold onto the four 32-lane quarters.

    No hardware here runs tcgen05: these follow the PTX figures and CuTe's traits only.

    Examples
    --------
    >>> print(tmem_accumulator(128, 256)), print(tmem_accumulator(64, 64))
    (128,256):(65536,1)
    ((16,4),64):((65536,2097152),1)
    (None, None)
    >>> print(tmem_accumulator(128, 64, cta_group=2))
    (64,(32,2)):(65536,(1,4194304))
    """
    m, n = as_int("m", m), as_int("n", n)
    cta_group = as_int("cta_group", cta_group)
    if cta_group not in (1, 2):
        raise FragmentError(f"cta_group={cta_group} must be 1 or 2")
    if n < 8 or n > 256 or n % 8:
        raise FragmentError(f"n={n} is not a tcgen05.mma N: use a multiple of 8 from 8 to 256")
    L = TMEM_LANE
    key = (m, cta_group, bool(ws))
    if key in ((128, 1, False), (256, 2, False), (128, 1, True)):
        return Layout((128, n), (L, 1))
    if key == (64, 1, False):
        return Layout(((16, 4), n), ((L, 32 * L), 1))
    if key in ((128, 2, False), (64, 1, True)):
        if n % 16:
            raise FragmentError(f"n={n}: this data path folds the columns in halves, so n must "
                                f"be a multiple of 16")
        return Layout((64, (n // 2, 2)), (L, (1, 64 * L)))
    if key == (32, 1, True):
        if n % 32:
            raise FragmentError(f"n={n}: M=32 .ws folds the columns in quarters, so n must be a "
                                f"multiple of 32")
        return Layout((32, (n // 4, 4)), (L, (1, 32 * L)))
    raise FragmentError(f"m={m}, cta_group={cta_group}, ws={bool(ws)} is not a tcgen05.mma "
                        f"accumulator: use M=64/128 (cta_group 1), M=128/256 (cta_group 2), or "
                        f"M=32/64/128 with ws=True")


def tcgen05_ld(shape, num=1, warps=1, half_offset=None, op="ld"):
    """``tcgen05.ld.sync.aligned.<shape>.x<num>.b32``: (thread, register) -> TMEM address
    ``lane << 16 | column`` relative to the base address of each warp's access.

    Per warp (``warps=1``); ``warps=4`` adds the warpgroup, warp ``w`` reaching lanes
    ``32w ..`` (a warp may only access its own 32-lane quarter). ``.16x32bx2`` takes the
    immediate column offset of its second half as ``half_offset`` (default ``num``).

    * ``.32x32b``: lane t, column r.
    * ``.16x64b``: lane ``t//4 + 8 (t%2)``, column ``(t//2)%2 + 2r``.
    * ``.16x128b``: lane ``t//4 + 8 (r%2)``, column ``t%4 + 4 (r//2)``.
    * ``.16x256b``: lane ``t//4 + 8 ((r//2)%2)``, column ``r%2 + 2 (t%4) + 8 (r//4)``.
    * ``.16x32bx2``: lane ``t%16``, column ``r + half_offset (t//16)``.

    Examples
    --------
    >>> ld = tcgen05_ld("16x256b")
    >>> print(ld), ld.registers
    ((4,8),(2,2)):((2,65536),(1,524288))
    (None, 4)
    >>> [divmod(int(a), 65536) for a in ld.index()[5]]   # thread 5: (lane, column)
    [(1, 2), (1, 3), (9, 2), (9, 3)]
    """
    if shape not in TCGEN05_SHAPES:
        raise FragmentError(f"shape={shape!r} is not a tcgen05.{op} shape: use one of "
                            f"{list(TCGEN05_SHAPES)}")
    num = as_int("num", num)
    if num not in _NUMS:
        raise FragmentError(f"num={num} is not a tcgen05.{op} .num: use one of {list(_NUMS)}")
    warps = as_int("warps", warps)
    if warps not in (1, 4):
        raise FragmentError(f"warps={warps} must be 1 (one warp) or 4 (a warpgroup)")
    L = TMEM_LANE
    if shape == "32x32b":
        thr, thr_d, val, val_d, lanes, cols = 32, L, num, 1, 32, num
    elif shape == "16x64b":
        thr, thr_d, val, val_d, lanes, cols = (2, 2, 8), (8 * L, 1, L), num, 2, 16, 2 * num
    elif shape == "16x128b":
        thr, thr_d, val, val_d, lanes, cols = (4, 8), (1, L), (2, num), (8 * L, 4), 16, 4 * num
    elif shape == "16x256b":
        thr, thr_d, val, val_d, lanes, cols = (4, 8), (2, L), (2, 2, num), (1, 8 * L, 8), 16, 8 * num
    else:
        h = num if half_offset is None else as_int("half_offset", half_offset)
        if h < num:
            raise FragmentError(f"half_offset={h} is smaller than num={num}: the two halves of "
                                f".16x32bx2 would overlap")
        thr, thr_d, val, val_d, lanes, cols = (16, 2), (L, h), num, 1, 16, h + num
    if num == 1 and isinstance(val, tuple):     # .x1: no repetition mode
        val, val_d = val[:-1], val_d[:-1]
        if len(val) == 1:
            val, val_d = val[0], val_d[0]
    if warps == 4:
        thr = (thr, 4) if isinstance(thr, int) else thr + (4,)
        thr_d = (thr_d, 32 * L) if isinstance(thr_d, int) else thr_d + (32 * L,)
        lanes = 128
    if cols > 512:
        raise FragmentError(f"tcgen05.{op}.{shape}.x{num} spans {cols} columns, more than the 512 "
                            f"of tensor memory")
    return TVLayout(Layout((thr, val), (thr_d, val_d)), (lanes, cols), "tmem",
                    f"tcgen05.{op}.{shape}.x{num}" + (".warpgroup" if warps == 4 else ""), 32)


def tcgen05_st(shape, num=1, warps=1, half_offset=None):
    """``tcgen05.st``: the same (thread, register) -> TMEM address map as :func:`tcgen05_ld`.

    Examples
    --------
    >>> tcgen05_st("32x32b", 4).index()[1].tolist() == [65536, 65537, 65538, 65539]
    True
    """
    return tcgen05_ld(shape, num, warps, half_offset, op="st")


def tmem_fragment(accumulator, ld, lane0=0, col0=0):
    """Compose a tcgen05.ld with the accumulator's TMEM layout: (m, n) of every (thread,
    register), -1 where the register reads a TMEM cell the accumulator does not use.

    Parameters
    ----------
    accumulator : Layout
        (m, n) -> TMEM address, from :func:`tmem_accumulator`.
    ld : TVLayout
        From :func:`tcgen05_ld` (order ``"tmem"``).
    lane0, col0 : int
        The TMEM lane and column the load starts at (relative to the accumulator's base).

    Returns
    -------
    (m, n) : int64 arrays (threads, registers)

    Examples
    --------
    >>> acc = tmem_accumulator(128, 64)
    >>> m, n = tmem_fragment(acc, tcgen05_ld("32x32b", 8, warps=4))
    >>> m[40].tolist(), n[40].tolist()
    ([40, 40, 40, 40, 40, 40, 40, 40], [0, 1, 2, 3, 4, 5, 6, 7])
    """
    if not isinstance(accumulator, Layout):
        raise FastswzTypeError(f"accumulator must be a Layout, not {type(accumulator).__name__}")
    if not isinstance(ld, TVLayout) or ld.order != "tmem":
        raise FragmentError("ld must be a TVLayout into tensor memory (tcgen05_ld / tcgen05_st)")
    lane0, col0 = as_int("lane0", lane0), as_int("col0", col0)
    if len(accumulator) != 2:
        raise FragmentError(f"accumulator {accumulator} must have two modes (m, n)")
    rows = accumulator[0].size()
    # the inverse of the accumulator by sorting its addresses; colex order: m fastest
    addr = evaluate(accumulator)
    order = np.argsort(addr, kind="stable")
    sorted_addr = addr[order]
    want = ld.index() + (lane0 << 16) + col0
    pos = np.minimum(np.searchsorted(sorted_addr, want), len(sorted_addr) - 1)
    hit = sorted_addr[pos] == want
    flat = order[pos]
    return np.where(hit, flat % rows, -1), np.where(hit, flat // rows, -1)


#: One name of each kind :func:`fragment` reads (every TVLayout's ``name`` is such a name).
FRAGMENT_EXAMPLES = ("mma.m16n8k16.bf16.A", "mma.m16n8k16.f32.C", "wgmma.m64n128.f32.D",
                     "wgmma.m64nNk16.bf16.A", "ldmatrix.m8n8.x4.trans.b16.registers",
                     "stmatrix.m8n8.x4.b16.addresses", "tcgen05.ld.16x256b.x4.warpgroup")


def fragment(name):
    """The TV layout an instruction name describes: the inverse of ``TVLayout.name``, and what
    ``fastswz fragment NAME`` reads.

    Names: ``mma.<shape>.<type>.<A|B|C|D>``; ``wgmma.m64n<N>.<f32|s32|f16>.D``;
    ``wgmma.m64nNk<K>.<type>.A``; ``<ldmatrix|stmatrix>.m8n8.x<1|2|4>[.trans][.b16]
    [.registers|.addresses]``; ``tcgen05.<ld|st>.<shape>.x<num>[.warpgroup]``
    (:data:`FRAGMENT_EXAMPLES` has one of each); an MMA name followed by ``.x<m>x<n>`` is
    :meth:`TVLayout.repeat`.

    Examples
    --------
    >>> fragment("wgmma.m64n64.f32.D") == wgmma_d(64)
    True
    >>> all(fragment(x).name == x for x in FRAGMENT_EXAMPLES)
    True
    >>> fragment("wgmma.m64n256.f32.D.x2x1").extents
    (128, 256)
    """
    if not isinstance(name, str):
        raise FastswzTypeError(f"name={name!r} must be a string such as 'mma.m16n8k16.bf16.A'")
    rep = re.fullmatch(r"(.*\.[ABCD])\.x(\d+)x(\d+)", name)
    if rep:          # a repeated MMA fragment (TVLayout.repeat)
        return fragment(rep.group(1)).repeat(int(rep.group(2)), int(rep.group(3)))
    p = name.split(".")
    bad = FragmentError(f"fragment name {name!r} is not one fastswz knows: use forms like "
                        f"{', '.join(FRAGMENT_EXAMPLES)}")
    try:
        if p[0] == "mma" and len(p) == 4:
            return mma_sync(p[1], p[2], p[3])
        if p[0] == "wgmma" and len(p) == 4 and p[3] == "D" and p[1].startswith("m64n"):
            return wgmma_d(int(p[1][4:]), p[2])
        if p[0] == "wgmma" and len(p) == 4 and p[3] == "A":
            tv = wgmma_a(p[2])
            if tv.name != name:
                raise bad
            return tv
        if p[0] in ("ldmatrix", "stmatrix") and len(p) >= 3 and p[2][:1] == "x":
            rest = p[3:]
            trans = bool(rest) and rest[0] == "trans"
            rest = rest[1:] if trans else rest
            rest = rest[1:] if rest and rest[0] in ("b16", "b8", "b8x16") else rest
            role = rest[0] if rest else "registers"
            if len(rest) > 1:
                raise bad
            fn = ldmatrix if p[0] == "ldmatrix" else stmatrix
            return fn(int(p[2][1:]), trans, role, p[1])
        if p[0] == "tcgen05" and len(p) in (4, 5) and p[1] in ("ld", "st") and p[3][:1] == "x":
            if len(p) == 5 and p[4] != "warpgroup":
                raise bad
            return tcgen05_ld(p[2], int(p[3][1:]), 4 if len(p) == 5 else 1, op=p[1])
    except ValueError as exc:
        if isinstance(exc, FragmentError):
            raise
        raise bad from None
    raise bad
