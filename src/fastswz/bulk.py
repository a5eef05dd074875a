"""Array entry points: validate, coerce, allocate the output, call the Cython kernel.

Each function here has a pure-numpy twin of the same name and signature in
:mod:`fastswz.reference` that raises the same errors; the tests hold the two equal.
"""

from __future__ import annotations

import operator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _kernels
from .descriptor import SM90_FIELDS, SM100_FIELDS, SM90_RESERVED, SM100_RESERVED, decode
from .dtypes import dtype as lookup
from .errors import (DescriptorFieldError, FastswzError, FastswzTypeError, LayoutError, TileError,
                     as_int)
from .int_tuple import flatten
from .layout import Layout
from .modes import SwizzleMode
from .rules import (ARCHS, LBO_POLICIES, ORDERS, SMEM_WINDOW, _check_legal, _choice, _int,
                    _storage_bits, check_stride_fields)
from .swizzle import ComposedLayout, Swizzle

__all__ = ["evaluate", "swizzle_offsets", "tile_addresses", "tile_coords", "tile_descriptors",
           "pack_smem_descriptors", "unpack_smem_descriptors", "tile_configs", "CONFIG_ERRORS"]

_I64_LIMIT = 1 << 62


# -- shared validation (the twin imports these so both raise identical errors) -----------------
def as_array(name, values):
    """np.asarray that turns numpy's complaints about ragged nesting into a FastswzTypeError."""
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise FastswzTypeError(f"{name} must be a rectangular array ({exc})") from None


def int_array(name, values, dtype=np.int64):
    """Coerce an array-like of integers; reject floats, bools and out-of-range values.

    A value beyond int64 raises a LayoutError whose ``value`` attribute holds it, so that a
    caller with a narrower rule (``plan_gemm``'s BM, stages, budget, ...) can name its own range
    instead of int64's."""
    arr = as_array(name, values)
    if arr.dtype.kind == "f" and not isinstance(values, np.ndarray):
        # numpy turns a list mixing int64 and uint64-range ints into float64: keep them ints
        obj = np.asarray(values, dtype=object)
        if all(isinstance(v, (int, np.integer)) for v in obj.ravel().tolist()):
            arr = obj
    if arr.dtype == object:  # Python ints (numpy keeps those beyond int64 as objects), or junk
        try:
            ints = [operator.index(v) for v in arr.ravel()]
        except TypeError as exc:
            raise FastswzTypeError(f"{name} must hold integers ({exc})") from None
        big = next((v for v in ints if not -(1 << 63) <= v < 1 << 63), None)
        if big is not None:
            err = LayoutError(f"{name} holds {big}, beyond int64; values must lie in "
                              f"[-2**63, 2**63)")
            err.value = big  # callers with a narrower range name it (plan_gemm's fields)
            raise err
        arr = np.array(ints, dtype=np.int64).reshape(arr.shape)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise FastswzTypeError(f"{name} must be an integer array, not dtype {arr.dtype}")
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) >= 1 << 63:
        err = LayoutError(f"{name} holds {int(arr.max())}, beyond int64; offsets must be < 2**63")
        err.value = int(arr.max())
        raise err
    return arr


def threads_arg(threads):
    if threads is None:
        return 1
    t = as_int("threads", threads)
    if t < 1:
        raise TileError(f"threads={t} must be >= 1 (None means 1)")
    return t


def flat_layout(layout):
    """(shape, stride, offset, yyy, shift, outer_layout) for a Layout or ComposedLayout."""
    offset, yyy, shift, outer = 0, 0, 0, None
    if isinstance(layout, ComposedLayout):
        offset = layout.offset
        if isinstance(layout.outer, Swizzle):
            yyy, shift = layout.outer.yyy_msk, layout.outer.shift
        else:
            outer = layout.outer
        layout = layout.inner
    if not isinstance(layout, Layout):
        raise FastswzTypeError(f"layout must be a Layout or ComposedLayout, not {type(layout).__name__}")
    shape = flatten(layout.shape)
    stride = flatten(layout.stride)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    stride = (stride,) if isinstance(stride, int) else tuple(stride)
    if len(shape) > 64:
        raise LayoutError(f"layout has {len(shape)} flat modes; bulk evaluation handles at most 64")
    reach = abs(offset) + sum(abs(d) * (s - 1) for s, d in zip(shape, stride))
    size = 1
    for s in shape:
        size *= s
    big = [v for v in (*shape, *stride) if abs(v) >= _I64_LIMIT]
    if reach >= _I64_LIMIT or size >= _I64_LIMIT or big:
        raise LayoutError(
            f"layout {layout} has extents, strides or offsets beyond 2**62; bulk evaluation "
            f"works in int64 (evaluate single coordinates with layout(...) instead)")
    return shape, stride, offset, yyy, shift, outer


#: Most elements :func:`evaluate` computes over a whole domain in one call (one int64 each, so
#: 32 GiB of output): a larger layout is refused up front instead of failing inside numpy's
#: allocation; pass ``indices=`` to evaluate part of its domain at a time.
EVALUATE_LIMIT = 1 << 32


def domain_size(layout, shape, indices):
    """Size of the layout's domain; refuse a whole-domain evaluate past EVALUATE_LIMIT."""
    n = 1
    for s in shape:
        n *= s
    if indices is None and n > EVALUATE_LIMIT:
        raise LayoutError(
            f"layout {layout} has {n} elements, more than the 2**32 that evaluate computes over a "
            f"whole domain in one call (an int64 each: 32 GiB); pass indices= (flat indices, e.g. "
            f"np.arange(0, 1 << 24), then the next chunk) to evaluate part of the domain at a time")
    return n


def indices_arg(indices, n):
    idx = int_array("indices", indices)
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        bad = int(np.flatnonzero((idx.ravel() < 0) | (idx.ravel() >= n))[0])
        raise LayoutError(f"indices[{bad}]={int(idx.ravel()[bad])} is outside the layout's domain [0, {n})")
    return idx


def outer_check(outer, values):
    n = outer.size() if callable(getattr(outer, "size", None)) else outer.size
    if values.size and (int(values.min()) < 0 or int(values.max()) >= n):
        raise LayoutError(f"the inner layout reaches {int(values.max())}, outside the outer layout's domain [0, {n})")


def stages_arg(tile, start, stages, stage_stride):
    if stages is None:
        return [start], False
    stages = as_int("stages", stages)
    if stages < 1:
        raise TileError(f"stages={stages!r} must be a positive int or None")
    if stages > 1:
        if stage_stride is None:
            raise TileError(f"stages={stages} needs stage_stride (bytes between stage starts)")
        stage_stride = as_int("stage_stride", stage_stride)
        if stage_stride % 16 or stage_stride < tile.nbytes:
            raise TileError(
                f"stage_stride={stage_stride} must be a multiple of 16 and at least the tile's "
                f"{tile.nbytes} bytes, so that stages do not overlap")
    else:
        stage_stride = 0
    return [start + s * stage_stride for s in range(stages)], True


def descriptor_const_bits(tile, lbo, sbo):
    mode = tile.swizzle
    if tile.desc_arch == "sm90":
        return (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode.sm90_layout_type << 62
    return (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 46 | mode.sm100_layout_type << 61


def descriptor_plan(tile, start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride):
    """Validate tile_descriptors' arguments; returns what both implementations need."""
    inst_mn = tile.check_inst_mn(inst_mn)
    _choice("lbo_policy", lbo_policy, LBO_POLICIES)
    start = tile.check_start(start, swizzle_base, tile.nbytes, SMEM_WINDOW)
    lbo, sbo = tile.strides(inst_mn, lbo_policy)
    check_stride_fields(lbo, sbo)
    starts, staged = stages_arg(tile, start, stages, stage_stride)
    tile.check_start(starts[-1], swizzle_base, tile.nbytes, SMEM_WINDOW)
    relative = swizzle_base.strip().lower() == "relative" and tile.swizzle.is_swizzled
    return inst_mn, lbo, sbo, starts, staged, relative


_SMEM_NAMES = ("start_address", "leading_byte_offset", "stride_byte_offset", "base_offset",
               "lbo_mode", "layout_type")


def smem_pack_args(arch, fields):
    """Validate the arch and turn every field into an int64 array (layout names into codes)."""
    if arch not in ("sm90", "sm100"):
        raise DescriptorFieldError(f"arch={arch!r} is not one of ['sm90', 'sm100']")
    out = {}
    for name, v in fields.items():
        if name == "layout_type" and isinstance(v, (str, SwizzleMode)):
            v = SwizzleMode.parse(v, "layout_type").layout_type(arch)
        out[name] = int_array(name, v)
    if arch == "sm90" and np.any(out["lbo_mode"] != 0):
        i = int(np.flatnonzero(out["lbo_mode"].ravel() != 0)[0])
        raise DescriptorFieldError(
            f"lbo_mode[{i}]={int(out['lbo_mode'].ravel()[i])}: lbo_mode is a tcgen05 (sm100) field; "
            f"sm90 descriptors have none (pass 0, or arch='sm100')")
    try:
        shape = np.broadcast_shapes(*(a.shape for a in out.values()))
    except ValueError:
        raise DescriptorFieldError(
            "field arrays do not broadcast together: "
            + ", ".join(f"{k}{tuple(a.shape)}" for k, a in out.items())) from None
    return out, shape


SMEM_LIMITS = {  # (lo, hi, alignment) per field, shared by both implementations
    "start_address": (0, (1 << 18) - 1, 16), "leading_byte_offset": (0, (1 << 18) - 1, 16),
    "stride_byte_offset": (0, (1 << 18) - 1, 16), "base_offset": (0, 7, 1), "lbo_mode": (0, 1, 1),
}
LAYOUT_CODES = {"sm90": (0, 1, 2, 3), "sm100": (0, 1, 2, 4, 6)}


def smem_field_error(arch, name, flat_index, value):
    lo, hi, align = SMEM_LIMITS.get(name, (0, 0, 1))
    if name == "layout_type":
        rule = f"a valid {arch} layout_type code {list(LAYOUT_CODES[arch])}"
    elif name == "lbo_mode_combination":
        return DescriptorFieldError(
            f"lbo_mode[{flat_index}]=1 requires layout_type=128B and base_offset=0 (PTX 9.7.16.3.1.2.1)")
    elif align > 1:
        rule = f"a multiple of {align} in [0, 0x{hi + 1:x}) (14-bit field of 16-byte units)"
    else:
        rule = f"in [{lo}, {hi}]"
    return DescriptorFieldError(f"{name}[{flat_index}]={value} is not {rule}")


# -- layouts -------------------------------------------------------------------------------------
def evaluate(layout, indices=None):
    """Evaluate a layout at flat indices (default: its whole domain, in CuTe's colex order).

    Parameters
    ----------
    layout : Layout or ComposedLayout
    indices : array-like of int, optional
        Flat indices in ``[0, size(layout))`` to evaluate. Without them the whole domain is
        evaluated, which is refused past ``EVALUATE_LIMIT`` (2**32) elements: evaluate a larger
        layout in chunks of indices.

    Returns
    -------
    numpy.ndarray of int64, shaped like ``indices`` (or ``(size(layout),)``).

    Examples
    --------
    >>> from fastswz import parse
    >>> evaluate(parse("Sw<1,1,1> o 0 o (2,4):(4,1)")).tolist()
    [0, 6, 1, 7, 2, 4, 3, 5]
    """
    shape, stride, offset, yyy, shift, outer = flat_layout(layout)
    n = domain_size(layout, shape, indices)
    sh = np.array(shape, dtype=np.int64)
    st = np.array(stride, dtype=np.int64)
    if indices is None:
        out = np.empty(n, dtype=np.int64)
        _kernels.layout_offsets(sh, st, offset, yyy, shift, out)
    else:
        idx = indices_arg(indices, n)
        flat = np.ascontiguousarray(idx.ravel(), dtype=np.int64)
        out = np.empty(flat.shape[0], dtype=np.int64)
        _kernels.layout_offsets_at(sh, st, offset, yyy, shift, flat, out)
        out = out.reshape(idx.shape)
    if outer is not None:
        outer_check(outer, out)
        out = evaluate(outer, out)
    return out


def swizzle_offsets(swizzle, offsets):
    """Apply a :class:`fastswz.Swizzle` to every value of an integer array.

    Examples
    --------
    >>> from fastswz import Swizzle
    >>> swizzle_offsets(Swizzle(3, 4, 3), [0x594, 0x7FE]).tolist() == [0x5A4, 0x78E]
    True
    """
    if not isinstance(swizzle, Swizzle):
        raise FastswzTypeError(f"swizzle must be a Swizzle, not {type(swizzle).__name__}")
    arr = int_array("offsets", offsets)
    flat = np.ascontiguousarray(arr.ravel(), dtype=np.int64)
    out = np.empty(flat.shape[0], dtype=np.int64)
    _kernels.swizzle_offsets(swizzle.yyy_msk, swizzle.shift, flat, out)
    return out.reshape(arr.shape)


# -- tiles ---------------------------------------------------------------------------------------
def _tile_rows_cols(tile):
    cached = tile._cache.get("rowcol")
    if cached is None:
        g = tile._g
        i = np.arange(tile.mn, dtype=np.int64)
        j = np.arange(tile.k, dtype=np.int64)
        if g.kmajor:
            row = (i % g.amn) * g.ak + (i // g.amn) * g.smn
            col = (j % g.ak) + (j // g.ak) * g.sk
        else:
            row = (i % g.amn) + (i // g.amn) * g.smn
            col = (j % g.ak) * g.amn + (j // g.ak) * g.sk
        cached = tile._cache["rowcol"] = ((row * g.ebits) >> 3, (col * g.ebits) >> 3)
    return cached


_POOL = None
_MIN_PER_THREAD = 1 << 18  # elements: below this a thread costs more than it saves (BENCHMARKS.md)


def _pool():
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="fastswz")
    return _POOL


def _split_rows(nrows, ncols, threads):
    """Row ranges for ``threads`` workers, at least _MIN_PER_THREAD elements each."""
    threads = max(1, min(threads, nrows, (nrows * ncols) // _MIN_PER_THREAD))
    bounds = [nrows * t // threads for t in range(threads + 1)]
    return [(bounds[t], bounds[t + 1]) for t in range(threads) if bounds[t] < bounds[t + 1]]


def out_arg(out, shape, dtype):
    """Validate a caller-owned output array (checked before anything is written)."""
    if out is None:
        return np.empty(shape, dtype=dtype)
    if not isinstance(out, np.ndarray):
        raise FastswzTypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.dtype != dtype:
        raise FastswzTypeError(f"out has dtype {out.dtype}; it must be {np.dtype(dtype).name}")
    if out.shape != tuple(shape):
        raise TileError(f"out has shape {out.shape}; it must be {tuple(shape)}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise TileError("out must be C-contiguous and writeable (np.empty(shape, dtype) is)")
    return out


def tile_addresses(tile, start=0, swizzle_base="absolute", threads=None, out=None):
    """Byte address of every element of ``tile``: ``uint32`` array of shape (mn, k).

    ``swizzle_base="absolute"`` (default, CuTe and the hardware): ``swz(start + offset)``.
    ``"relative"``: ``start + swz(offset)``, the pattern anchored at the tile start (pair it
    with descriptors of the same convention, which carry base_offset).
    ``threads`` splits the rows across up to that many threads (the kernel releases the GIL;
    each thread gets at least 2**18 elements, so small maps stay on the calling thread).
    ``out``: an optional C-contiguous uint32 (mn, k) array to fill and return; reusing one
    across calls saves the page faults of a fresh allocation, which cost more than the loop.
    For packed 4-bit tiles each entry is the byte holding the element: the low nibble for
    even k, the high nibble for odd k.

    Examples
    --------
    >>> from fastswz import OperandTile
    >>> a = tile_addresses(OperandTile("tf32", "K", "32B", 64, 8), start=0x100)
    >>> hex(int(a[4, 5]))
    '0x184'
    """
    threads = threads_arg(threads)
    start = tile.check_start(start, swizzle_base, tile.nbytes, 1 << 32)
    relative = swizzle_base.strip().lower() == "relative"
    row, col = _tile_rows_cols(tile)
    b, m, s = tile.swizzle.swizzle_bits
    yyy = ((1 << b) - 1) << (m + s)
    row32 = (row + (0 if relative else start)).astype(np.uint32)
    col32 = col.astype(np.uint32)
    post = start if relative else 0
    out = out_arg(out, (tile.mn, tile.k), np.uint32)
    chunks = _split_rows(tile.mn, tile.k, threads)
    if len(chunks) == 1:
        _kernels.tile_addresses(row32, col32, yyy, s, post, out)
    else:
        list(_pool().map(lambda ab: _kernels.tile_addresses(
            row32[ab[0]:ab[1]], col32, yyy, s, post, out[ab[0]:ab[1]]), chunks))
    return out


def coords_args(addresses):
    arr = int_array("addresses", addresses)
    if arr.dtype in (np.uint32, np.uint16, np.uint8):
        return arr  # every value is a 32-bit address: skip the two reductions
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= 1 << 32):
        bad = int(np.flatnonzero((arr.ravel() < 0) | (arr.ravel() >= 1 << 32))[0])
        raise TileError(f"addresses[{bad}]={int(arr.ravel()[bad])} is not a 32-bit byte address")
    return arr


def coords_error(tile, flat_addresses, bad, start):
    return TileError(
        f"addresses[{bad}]=0x{int(flat_addresses[bad]):x} is not the first byte of an element of "
        f"{tile!r} at start=0x{start:x}")


def _coords_pow2_params(tile, modes, shift):
    """(lsh, rsh, uint32 params) of the vectorised inverse map, or None where it does not apply.

    It applies when the element width and every mode but the last (largest stride) are powers
    of two, the tile has < 2**31 bytes, at most 4 modes and a right-shifting swizzle: then the
    element index of a byte offset is a shift and each mode coordinate a shift and a mask.
    """
    cached = tile._cache.get("coords_pow2", False)
    if cached is not False:
        return cached
    res = None
    eb = tile.element_bits
    pow2 = lambda v: v > 0 and v & (v - 1) == 0  # noqa: E731
    if (pow2(eb) and eb <= 256 and len(modes) <= 4 and shift >= 0 and tile.nbytes < 1 << 31
            and all(pow2(m[1]) for m in modes)
            and all(pow2(m[0]) for m in modes[:-1])):
        lg = eb.bit_length() - 1
        sh = [m[1].bit_length() - 1 for m in modes] + [0] * (4 - len(modes))
        mask = [m[0] - 1 for m in modes[:-1]] + [0xFFFFFFFF] * bool(modes)
        mask += [0] * (4 - len(mask))
        mmn = [m[2] for m in modes] + [0] * (4 - len(modes))
        mk = [m[3] for m in modes] + [0] * (4 - len(modes))
        res = (max(0, 3 - lg), max(0, lg - 3), np.array(sh + mask + mmn + mk, dtype=np.uint32))
    tile._cache["coords_pow2"] = res
    return res


def coords_out_arg(out, shape):
    """Validate tile_coords' ``out=``: a pair of C-contiguous int64 or int32 arrays shaped like
    the addresses (shared with the twin, so both raise the same errors)."""
    if not isinstance(out, tuple) or len(out) != 2:
        raise FastswzTypeError(
            f"out must be a pair (mn, k) of numpy arrays, not {type(out).__name__}")
    dtypes = [getattr(o, "dtype", None) for o in out]
    if dtypes[0] != dtypes[1] or dtypes[0] not in (np.int64, np.int32):
        raise FastswzTypeError(
            f"out holds dtypes {dtypes[0]} and {dtypes[1]}; both must be int64 or both int32")
    for o in out:
        out_arg(o, shape, dtypes[0])
    # Both are C-contiguous, so overlapping bounds mean shared memory.
    if np.may_share_memory(out[0], out[1]):
        raise TileError("out's two arrays overlap; give two separate arrays")
    return out


def _coords_plan(tile):
    """(modes, their four columns as int64 arrays), cached on the tile."""
    plan = tile._cache.get("coords_plan")
    if plan is None:
        modes = sorted((m for m in tile._g.modes() if m[0] > 1), key=lambda m: m[1])
        cols = [np.array([m[c] for m in modes], dtype=np.int64) for c in range(4)]
        plan = tile._cache["coords_plan"] = (modes, cols)
    return plan


def tile_coords(tile, addresses, start=0, swizzle_base="absolute", out=None):
    """Inverse of :func:`tile_addresses`: the (mn, k) of the element at each byte address.

    ``out``: an optional pair ``(mn, k)`` of C-contiguous arrays shaped like ``addresses``,
    both int64 or both int32, to fill and return (reusing them saves the page faults of fresh
    outputs; int32 halves the bytes written).

    Returns
    -------
    (mn, k) : tuple of int64 arrays shaped like ``addresses`` (``out`` when given).

    Raises :class:`fastswz.TileError` naming the first address that is not an element start.

    Examples
    --------
    >>> from fastswz import OperandTile
    >>> t = OperandTile("bf16", "K", "128B", 64, 64)
    >>> mn, k = tile_coords(t, [0x5A4], start=0x400)
    >>> int(mn[0]), int(k[0])
    (3, 10)
    >>> pair = (np.empty(2, np.int32), np.empty(2, np.int32))
    >>> [a.tolist() for a in tile_coords(t, [0x400, 0x5A4], start=0x400, out=pair)]
    [[0, 3], [0, 10]]
    """
    start = tile.check_start(start, swizzle_base, tile.nbytes, 1 << 32)
    relative = swizzle_base.strip().lower() == "relative"
    arr = coords_args(addresses)
    flat = np.ascontiguousarray(arr.ravel(), dtype=np.uint32)
    modes, cols = _coords_plan(tile)
    b, mm, s = tile.swizzle.swizzle_bits
    yyy = ((1 << b) - 1) << (mm + s)
    if out is None:
        res = (np.empty(arr.shape, dtype=np.int64), np.empty(arr.shape, dtype=np.int64))
    else:
        res = coords_out_arg(out, arr.shape)
    out_mn, out_k = res[0].reshape(-1), res[1].reshape(-1)
    params = _coords_pow2_params(tile, modes, s)
    if params is not None and not _kernels.tile_coords_pow2(
            flat, start, yyy, s, relative, tile.nbytes, params[0], params[1], params[2],
            out_mn, out_k):
        return res
    # Other geometry, or some address is not an element (the exact loop names the first one).
    wide = out_mn if out_mn.dtype == np.int64 else np.empty(flat.shape[0], dtype=np.int64)
    wide_k = out_k if out_k.dtype == np.int64 else np.empty(flat.shape[0], dtype=np.int64)
    bad = _kernels.tile_coords(flat, start, yyy, s, relative, tile.nbytes, tile.element_bits,
                               cols[0], cols[1], cols[2], cols[3], wide, wide_k)
    if bad >= 0:
        raise coords_error(tile, flat, bad, start)
    if wide is not out_mn:
        out_mn[...] = wide
        out_k[...] = wide_k
    return res


def tile_descriptors(tile, start=0, inst_mn=None, swizzle_base="absolute", lbo_policy="cutlass",
                     stages=None, stage_stride=None):
    """Descriptors of every ``inst_mn`` x ``inst_k`` MMA sub-tile of ``tile``.

    Parameters
    ----------
    tile : OperandTile
    start : int
        Shared-window byte address of the tile (16-byte aligned).
    inst_mn : int, optional
        MN extent of one MMA (M = 64 for a wgmma A operand, N for B). Default: the whole tile.
    swizzle_base : {"absolute", "relative"}
        See :func:`tile_addresses`; ``"relative"`` sets base_offset = (start >> 7) & 7.
    lbo_policy : {"cutlass", "deepgemm"}
        LBO encoding of K-major swizzled tiles: 1 (CUTLASS) or 0 (DeepGEMM).
    stages, stage_stride : int, optional
        Pipeline stages: stage s starts at ``start + s * stage_stride``.

    Returns
    -------
    numpy.ndarray of uint64, (MN blocks, K blocks), or (stages, MN blocks, K blocks) when
    ``stages`` is given. K blocks are 32 bytes of K each.

    Examples
    --------
    >>> from fastswz import OperandTile
    >>> t = OperandTile("bf16", "MN", "128B", 128, 64)
    >>> [hex(d) for d in tile_descriptors(t, start=0x800)[0]]
    ['0x4000008000400080', '0x4000008000400180', '0x4000008000400280', '0x4000008000400380']
    """
    inst_mn, lbo, sbo, starts, staged, relative = descriptor_plan(
        tile, start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride)
    g = tile._g
    row_off = np.array([g.bytes(g.row(b)) for b in range(0, tile.mn, inst_mn)], dtype=np.int64)
    col_off = np.array([g.bytes(g.col(j)) for j in range(0, tile.k, tile.inst_k)], dtype=np.int64)
    out = np.empty((len(starts), row_off.shape[0], col_off.shape[0]), dtype=np.uint64)
    _kernels.tile_descriptors(row_off, col_off, np.array(starts, dtype=np.int64),
                              descriptor_const_bits(tile, lbo, sbo), relative, out)
    if tile._split_k:
        _split_k_blocks(tile, inst_mn, starts, relative, out)
    return out if staged else out[0]


def _split_k_blocks(tile, inst_mn, starts, relative, out):
    """Rewrite the 48-byte K blocks that cross a 128-byte row: lbo_mode 1, LBO = chunk 2's address."""
    for j, k0 in enumerate(range(0, tile.k, tile.inst_k)):
        for s, start in enumerate(starts):
            base = ((start >> 7) & 7) if relative else 0
            for b, mn0 in enumerate(range(0, tile.mn, inst_mn)):
                chunk2 = tile.k_split(mn0, k0, start, base)
                if chunk2 is None:
                    break
                w = int(out[s, b, j]) & ~(0x3FFF << 16)
                out[s, b, j] = w | ((chunk2 >> 4) << 16) | (1 << 52)


# -- descriptor fields ---------------------------------------------------------------------------
def pack_smem_descriptors(arch, start_address, leading_byte_offset, stride_byte_offset,
                          base_offset=0, layout_type="none", lbo_mode=0):
    """Pack shared-memory descriptors from field arrays (broadcast together).

    Address/offset fields are bytes. ``layout_type`` is a mode name (one for all) or an
    array of the architecture's hardware codes.

    Examples
    --------
    >>> v = pack_smem_descriptors("sm90", [0x400, 0x420], 16, 1024, layout_type="128B")
    >>> [hex(x) for x in v]
    ['0x4000004000010040', '0x4000004000010042']
    """
    fields, shape = smem_pack_args(arch, dict(zip(_SMEM_NAMES, (
        start_address, leading_byte_offset, stride_byte_offset, base_offset, lbo_mode, layout_type))))
    n = int(np.prod(shape, dtype=np.int64))
    spec = {name: (lsb, lshift) for name, lsb, _, lshift in (SM90_FIELDS if arch == "sm90" else SM100_FIELDS)}
    spec.setdefault("lbo_mode", (52, 0))
    rows, steps = [], []
    for name in _SMEM_NAMES:
        a = fields[name]
        if a.size == 1:
            rows.append(np.full(1, a.reshape(()), dtype=np.int64))
            steps.append(0)
        else:
            rows.append(np.ascontiguousarray(np.broadcast_to(a, shape).ravel(), dtype=np.int64))
            steps.append(1)
    out = np.empty(n, dtype=np.uint64)
    codes = LAYOUT_CODES[arch]
    allowed = sum(1 << c for c in codes)
    const = (1 << 46) if arch == "sm100" else 0
    kargs = (rows[0], rows[1], rows[2], rows[3], rows[4], rows[5],
             np.array(steps, dtype=np.int64), spec["layout_type"][0], allowed, arch == "sm100",
             const, out)
    # The chunked loop vectorises; only when it flags a bad value does the exact loop name it.
    bad = _kernels.pack_smem(*kargs) if _kernels.pack_smem_chunked(*kargs) else -1
    if bad >= 0:
        i, f = divmod(bad, 8)
        name = "lbo_mode_combination" if f == 6 else _SMEM_NAMES[f]
        value = int(rows[min(f, 5)][i * steps[min(f, 5)]])
        raise smem_field_error(arch, name, i, value)
    return out.reshape(shape)


def unpack_dtypes(spec, compact):
    """Per-field output dtypes: int64, or with ``compact`` uint32 for fields wider than 8 bits
    (the byte-address fields, < 2**18) and uint8 for the rest (shared with the twin)."""
    if not isinstance(compact, (bool, np.bool_)):
        raise FastswzTypeError(f"compact={compact!r} must be True or False")
    if not compact:
        return [np.dtype(np.int64)] * len(spec)
    return [np.dtype(np.uint32 if width + lshift > 8 else np.uint8)
            for _name, _lsb, width, lshift in spec]


def unpack_smem_descriptors(arch, values, strict=True, compact=False):
    """Unpack 64-bit descriptors into a dict of field arrays (bytes for address fields).

    ``layout_type`` comes back as hardware codes. ``strict`` rejects set reserved bits, an
    undefined layout code and (sm100) a version field other than 1. The arrays are int64, or
    with ``compact=True`` the narrowest that hold every field: uint32 for ``start_address``,
    ``leading_byte_offset`` and ``stride_byte_offset`` (< 2**18), uint8 for the others (a fifth
    of the bytes written, and of the page faults of a fresh output).

    Examples
    --------
    >>> f = unpack_smem_descriptors("sm90", [0x4000004000010040])
    >>> int(f["stride_byte_offset"][0]), int(f["layout_type"][0])
    (1024, 1)
    >>> c = unpack_smem_descriptors("sm90", [0x4000004000010040], compact=True)
    >>> c["stride_byte_offset"].dtype.name, c["layout_type"].dtype.name, int(c["layout_type"][0])
    ('uint32', 'uint8', 1)
    """
    arr = unpack_args(arch, values)
    spec = SM90_FIELDS if arch == "sm90" else SM100_FIELDS
    dtypes = unpack_dtypes(spec, compact)
    flat = np.ascontiguousarray(arr.ravel(), dtype=np.uint64)
    reserved = SM90_RESERVED if arch == "sm90" else SM100_RESERVED
    allowed = [0] * len(spec)
    rule = [0, 0, 0, 2, 0]
    lsbs = {name: lsb for name, lsb, *_rest in spec}
    if strict:
        for f, (name, *_rest) in enumerate(spec):
            if name == "layout_type":
                allowed[f] = sum(1 << c for c in LAYOUT_CODES[arch])
            elif name == "version":
                allowed[f] = 1 << 1
        if arch == "sm100":  # PTX 9.7.16.3.1.2.1: lbo_mode 1 needs layout 128B (2), base 0
            rule = [1, lsbs["lbo_mode"], lsbs["layout_type"], 2, lsbs["base_offset"]]
    n = flat.shape[0]
    if compact:
        rows = [np.empty(n, dtype=dt) for dt in dtypes]
    else:
        block = np.empty((len(spec), n), dtype=np.int64)
        rows = list(block)
    bad = _kernels.unpack_fields_rows(flat, np.array([s[1] for s in spec], dtype=np.int64),
                                      np.array([s[2] for s in spec], dtype=np.int64),
                                      np.array([s[3] for s in spec], dtype=np.int64),
                                      np.array(allowed, dtype=np.uint64),
                                      reserved if strict else 0, np.array(rule, dtype=np.int64),
                                      rows)
    if bad >= 0:
        raise unpack_error(arch, int(flat[bad]), bad)
    res = {name: rows[f].reshape(arr.shape) for f, (name, *_rest) in enumerate(spec)}
    if bad == -2:
        check_lbo_mode_rules(res, flat)  # raises, naming the first such word
    return res


def check_lbo_mode_rules(fields, flat):
    """PTX 9.7.16.3.1.2.1: lbo_mode 1 needs the 128B layout (code 2) and base_offset 0."""
    absolute = fields["lbo_mode"].ravel() == 1
    if absolute.any():
        bad = absolute & ((fields["layout_type"].ravel() != 2) | (fields["base_offset"].ravel() != 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise unpack_error("sm100", int(flat[i]), i)


def unpack_args(arch, values):
    """Validate unpack_smem_descriptors' arguments (shared with the numpy twin)."""
    if arch not in ("sm90", "sm100"):
        raise DescriptorFieldError(f"arch={arch!r} is not one of ['sm90', 'sm100']")
    arr = as_array("values", values)
    if arr.dtype == object:
        # Python ints beyond int64 arrive as objects: check each, then hold them as uint64.
        try:
            ints = [operator.index(v) for v in arr.ravel()]
        except TypeError:
            raise FastswzTypeError("values must hold integers (descriptor words)") from None
        bad = [v for v in ints if not 0 <= v < 1 << 64]
        if bad:
            raise DescriptorFieldError(f"values holds {bad[0]:#x}: descriptors are 64-bit words in [0, 2**64)")
        return np.array(ints, dtype=np.uint64).reshape(arr.shape)
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise FastswzTypeError(f"values must be an integer array, not dtype {arr.dtype}")
    if arr.dtype.kind == "i" and arr.size and int(arr.min()) < 0:
        i = int(np.flatnonzero(arr.ravel() < 0)[0])
        raise DescriptorFieldError(
            f"values[{i}]={int(arr.ravel()[i])}: values must be non-negative 64-bit descriptors")
    return arr


def unpack_error(arch, value, index):
    try:
        decode(value, arch)
    except DescriptorFieldError as exc:
        return DescriptorFieldError(f"values[{index}]: {exc}")
    return DescriptorFieldError(f"values[{index}]=0x{value:016x} is not a valid {arch} descriptor")


# -- configuration spaces ------------------------------------------------------------------------
#: Meaning of the ``error`` codes :func:`tile_configs` returns (0 = a legal configuration).
CONFIG_ERRORS = (
    "",
    "mn is not a whole number of swizzle atoms",
    "k is not a whole number of swizzle atoms",
    "k is not a whole number of 32-byte MMA K steps",
    "inst_mn does not divide mn",
    "inst_mn is not a multiple of 8 rows (K-major) or of the MN atom width (MN-major)",
    "LBO or SBO does not fit the 14-bit descriptor field",
    "start + tile bytes ends past the 256 KiB shared window",
    "dtype / major / swizzle is not allowed on this architecture",
)


def config_args(dtype, major, swizzle, mn, k, order, arch, inst_mn, start, lbo_policy):
    """Broadcast and validate tile_configs' arguments (shared with the numpy twin)."""
    return _config_args(dtype, major, swizzle, mn, k, order, arch, inst_mn, start, lbo_policy)[:4]


def _config_args(dtype, major, swizzle, mn, k, order, arch, inst_mn, start, lbo_policy):
    """config_args, plus each categorical argument factorised: {name: (values, codes)}."""
    start = _int("start", start, 0)
    if start % 16:
        raise TileError(f"start=0x{start:x} is not 16-byte aligned")
    _choice("lbo_policy", lbo_policy, LBO_POLICIES)
    cats = {name: as_array(name, v) for name, v in
            (("dtype", dtype), ("major", major), ("swizzle", swizzle), ("order", order), ("arch", arch))}
    for name, a in cats.items():
        if a.dtype.kind not in "UO":
            raise FastswzTypeError(f"{name} must be a string or an array of strings, not dtype {a.dtype}")
    nums = {"mn": int_array("mn", mn), "k": int_array("k", k),
            "inst_mn": int_array("inst_mn", 0 if inst_mn is None else inst_mn)}
    for name, a in nums.items():
        lo = 0 if name == "inst_mn" else 1
        if a.size and int(a.min()) < lo:
            raise TileError(f"{name} holds {int(a.min())}; it must be >= {lo}"
                            + (" (0 or None: the whole mn)" if name == "inst_mn" else ""))
        if a.size and int(a.max()) >= 1 << 31:
            raise TileError(f"{name} holds {int(a.max())}; it must be < 2**31")
    try:
        shape = np.broadcast_shapes(*(a.shape for a in (*cats.values(), *nums.values())))
    except ValueError:
        raise TileError("configuration arrays do not broadcast together: " + ", ".join(
            f"{n}{a.shape}" for n, a in (*cats.items(), *nums.items()))) from None
    factors = _check_categories(cats, shape)
    return cats, nums, shape, start, factors


def _check_categories(cats, shape):
    """Raise the error of the first configuration (flat order) whose names are not valid, for its
    first bad field in the order dtype, major, swizzle, arch, order."""
    checks = (("dtype", lookup), ("major", lambda v: _choice("major", v, ("K", "MN"))),
              ("swizzle", SwizzleMode.parse), ("arch", lambda v: _choice("arch", v, ARCHS)),
              ("order", lambda v: _choice("order", v, ORDERS)))
    first, error = None, None
    factors = {}
    for name, check in checks:
        a = cats[name]
        values, codes = factors[name] = _factorize(name, a)
        errors = {}
        for v in values:
            try:
                check(v)
            except (FastswzError, TypeError) as exc:
                errors[v] = exc if isinstance(exc, FastswzError) else FastswzTypeError(
                    f"{name}={v!r} must be a string")
        if not errors:
            continue
        bad = np.isin(codes, [values.index(v) for v in errors])
        hits = np.flatnonzero(np.broadcast_to(bad, shape).ravel())
        # An empty space still names its bad value (the first one, in the check order).
        i = int(hits[0]) if hits.size else 0
        if first is None or i < first:
            first = i
            error = errors[np.broadcast_to(a, shape).ravel()[i]] if hits.size else next(iter(errors.values()))
    if error is not None:
        raise error
    return factors


_PEEL_MAX = 16  # distinct names coded in one kernel pass before falling back to a sort


def _factorize(name, a):
    """(distinct values in order of first appearance, int64 codes shaped like ``a``).

    A fixed-width string array (dtype U) holds only strings. Short ASCII names (<= 9
    characters) with at most 16 distinct values are coded in one kernel pass (each name an
    exact 7-bit-a-character key; far cheaper than a Python object per element); other U
    arrays go through np.unique; object arrays are checked element by element for non-strings.
    Codes are int8 in the first case, int64 otherwise."""
    if a.dtype.kind == "U" and a.size:
        width = a.dtype.itemsize // 4
        chars = np.ascontiguousarray(a).reshape(-1).view(np.uint32).reshape(-1, width)
        found_keys = np.empty(_PEEL_MAX, dtype=np.uint64)
        found_pos = np.empty(_PEEL_MAX, dtype=np.int64)
        codes = np.empty(chars.shape[0], dtype=np.int8)
        nfound = _kernels.factorize_names(chars, found_keys, found_pos, codes)
        if nfound >= 0:  # short ASCII names, few distinct: one pass, no Python object each
            flat = a.reshape(-1)
            return [str(flat[i]) for i in found_pos[:nfound]], codes.reshape(a.shape)
        uniq, first, inv = np.unique(a.reshape(-1), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return [str(uniq[i]) for i in order], rank[inv.reshape(-1)].reshape(a.shape)
    values = a.ravel().tolist()
    if not all(isinstance(v, str) for v in values):
        bad = next(v for v in values if not isinstance(v, str))
        raise FastswzTypeError(f"{name} must hold strings; it holds {bad!r} ({type(bad).__name__})")
    index = {v: i for i, v in enumerate(dict.fromkeys(values))}
    return list(index), np.array([index[v] for v in values], dtype=np.int64).reshape(a.shape)


def tile_configs(dtype, major, swizzle, mn, k, order="mn", arch="sm90", inst_mn=None, start=0,
                 lbo_policy="cutlass"):
    """Evaluate a whole space of canonical tile configurations at once (autotuners).

    Every argument broadcasts (strings or arrays of strings for the categorical ones). Each
    configuration is what ``OperandTile(dtype, major, swizzle, mn, k, order, arch)`` with
    ``inst_mn`` would give; sub-byte types are taken unpacked (one element per byte).

    Returns
    -------
    dict of arrays shaped like the broadcast arguments: ``error`` (int8, an index into
    :data:`CONFIG_ERRORS`, 0 = legal), ``lbo_bytes``, ``sbo_bytes``, ``nbytes`` (int64) and
    ``descriptor`` (uint64: the first sub-tile's descriptor at ``start``, CuTe conventions).
    Illegal configurations hold 0 in every field but ``error``.

    Examples
    --------
    >>> r = tile_configs("bf16", "K", ["32B", "64B", "128B"], [[64], [128]], 64, inst_mn=64)
    >>> r["sbo_bytes"].tolist()
    [[256, 512, 1024], [256, 512, 1024]]
    >>> hex(int(r["descriptor"][0, 2])), int(tile_configs("bf16", "K", "128B", 60, 64)["error"])
    ('0x4000004000010000', 1)
    """
    cats, nums, shape, start, factors = _config_args(dtype, major, swizzle, mn, k, order, arch,
                                                     inst_mn, start, lbo_policy)
    n = int(np.prod(shape, dtype=np.int64))
    # The categorical arguments arrive factorised (few distinct names, possibly millions of
    # entries): the per-combination work below runs once per (dtype, major, swizzle, order,
    # arch) combination, and the kernel looks each configuration's combination up.
    names = ("dtype", "major", "swizzle", "order", "arch")
    radix = [len(factors[name][0]) for name in names]
    combo = None
    for name, r in zip(names, radix):
        codes = factors[name][1]
        if r > 1:
            codes = np.broadcast_to(codes, shape).reshape(-1)
            combo = codes.astype(np.int64) if combo is None else combo * r + codes
    if combo is None:
        combo = np.zeros(n, dtype=np.int64)
    space = int(np.prod(radix, dtype=np.int64))
    if space <= 4096:  # every combination of the distinct names: the code is the index
        present = range(space)
    else:
        present, combo = np.unique(combo, return_inverse=True)
    combo = np.ascontiguousarray(combo.reshape(-1), dtype=np.int64)
    props = np.zeros((len(present), 7), dtype=np.int64)  # ebits kmajor width rows korder swz legal
    his = np.zeros(len(present), dtype=np.uint64)  # layout type (+ sm100 version bit), in place
    for c, value in enumerate(present):
        idx = []
        for name, r in zip(reversed(names), reversed(radix)):
            value, q = divmod(int(value), r)
            idx.append(factors[name][0][q])
        dname, mname, sname, oname, aname = reversed(idx)
        dt = lookup(dname)
        mjr = _choice("major", mname, ("K", "MN"))
        mode = SwizzleMode.parse(sname)
        ordr = _choice("order", oname, ("mn", "k"))
        arc = _choice("arch", aname, ("sm90", "sm100", "sm103"))
        try:
            _check_legal(dt, mjr, mode, arc)
            legal = 1
        except TileError:
            legal = 0
        code = mode.layout_type("sm90" if arc == "sm90" else "sm100") if legal else 0
        hi = code << 62 if arc == "sm90" else (code << 61 | 1 << 46)
        props[c] = (_storage_bits(dt, False), mjr == "K", mode.byte_width, mode.atom_rows,
                    ordr == "k", mode.is_swizzled, legal)
        his[c] = hi
    flat = {name: np.ascontiguousarray(np.broadcast_to(a, shape).reshape(-1), dtype=np.int64)
            for name, a in nums.items()}
    err = np.empty(n, dtype=np.int8)
    out = {"lbo_bytes": np.empty(n, np.int64), "sbo_bytes": np.empty(n, np.int64),
           "nbytes": np.empty(n, np.int64), "descriptor": np.empty(n, np.uint64)}
    _kernels.tile_configs_lut(combo, props, his, flat["mn"], flat["k"], flat["inst_mn"],
                              min(start, SMEM_WINDOW),  # past the window: code 7 anyway
                              SMEM_WINDOW, 16 if lbo_policy.strip().lower() == "cutlass" else 0,
                              err, out["lbo_bytes"], out["sbo_bytes"], out["nbytes"],
                              out["descriptor"])
    res = {"error": err.reshape(shape)}
    res.update({name: a.reshape(shape) for name, a in out.items()})
    return res
