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
    """Coerce an array-like of integers; reject floats, bools and out-of-range values."""
    arr = as_array(name, values)
    if arr.dtype == object:
        try:
            arr = np.array([operator.index(v) for v in arr.ravel()], dtype=np.int64).reshape(arr.shape)
        except (TypeError, OverflowError) as exc:
            raise FastswzTypeError(f"{name} must hold integers ({exc})") from None
    if arr.dtype.kind not in "iu" or arr.dtype == np.bool_:
        raise FastswzTypeError(f"{name} must be an integer array, not dtype {arr.dtype}")
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) >= 1 << 63:
        raise LayoutError(f"{name} holds {int(arr.max())}, beyond int64; offsets must be < 2**63")
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
    n = 1
    for s in shape:
        n *= s
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
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= 1 << 32):
        bad = int(np.flatnonzero((arr.ravel() < 0) | (arr.ravel() >= 1 << 32))[0])
        raise TileError(f"addresses[{bad}]={int(arr.ravel()[bad])} is not a 32-bit byte address")
    return arr


def coords_error(tile, flat_addresses, bad, start):
    return TileError(
        f"addresses[{bad}]=0x{int(flat_addresses[bad]):x} is not the first byte of an element of "
        f"{tile!r} at start=0x{start:x}")


def tile_coords(tile, addresses, start=0, swizzle_base="absolute"):
    """Inverse of :func:`tile_addresses`: the (mn, k) of the element at each byte address.

    Returns
    -------
    (mn, k) : tuple of int64 arrays shaped like ``addresses``.

    Raises :class:`fastswz.TileError` naming the first address that is not an element start.

    Examples
    --------
    >>> from fastswz import OperandTile
    >>> t = OperandTile("bf16", "K", "128B", 64, 64)
    >>> mn, k = tile_coords(t, [0x5A4], start=0x400)
    >>> int(mn[0]), int(k[0])
    (3, 10)
    """
    start = tile.check_start(start, swizzle_base, tile.nbytes, 1 << 32)
    relative = swizzle_base.strip().lower() == "relative"
    arr = coords_args(addresses)
    flat = np.ascontiguousarray(arr.ravel(), dtype=np.uint32)
    modes = sorted((m for m in tile._g.modes() if m[0] > 1), key=lambda m: m[1])
    cols = [np.array([m[c] for m in modes], dtype=np.int64) for c in range(4)]
    b, mm, s = tile.swizzle.swizzle_bits
    yyy = ((1 << b) - 1) << (mm + s)
    out_mn = np.empty(flat.shape[0], dtype=np.int64)
    out_k = np.empty(flat.shape[0], dtype=np.int64)
    bad = _kernels.tile_coords(flat, start, yyy, s, relative, tile.nbytes, tile.element_bits,
                               cols[0], cols[1], cols[2], cols[3], out_mn, out_k)
    if bad >= 0:
        raise coords_error(tile, flat, bad, start)
    return out_mn.reshape(arr.shape), out_k.reshape(arr.shape)


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
    bad = _kernels.pack_smem(rows[0], rows[1], rows[2], rows[3], rows[4], rows[5],
                             np.array(steps, dtype=np.int64), spec["layout_type"][0], allowed,
                             arch == "sm100", const, out)
    if bad >= 0:
        i, f = divmod(bad, 8)
        name = "lbo_mode_combination" if f == 6 else _SMEM_NAMES[f]
        value = int(rows[min(f, 5)][i * steps[min(f, 5)]])
        raise smem_field_error(arch, name, i, value)
    return out.reshape(shape)


def unpack_smem_descriptors(arch, values, strict=True):
    """Unpack 64-bit descriptors into a dict of int64 field arrays (bytes for address fields).

    ``layout_type`` comes back as hardware codes. ``strict`` rejects set reserved bits, an
    undefined layout code and (sm100) a version field other than 1.

    Examples
    --------
    >>> f = unpack_smem_descriptors("sm90", [0x4000004000010040])
    >>> int(f["stride_byte_offset"][0]), int(f["layout_type"][0])
    (1024, 1)
    """
    arr = unpack_args(arch, values)
    flat = np.ascontiguousarray(arr.ravel(), dtype=np.uint64)
    spec = SM90_FIELDS if arch == "sm90" else SM100_FIELDS
    reserved = SM90_RESERVED if arch == "sm90" else SM100_RESERVED
    allowed = [0] * len(spec)
    if strict:
        for f, (name, *_rest) in enumerate(spec):
            if name == "layout_type":
                allowed[f] = sum(1 << c for c in LAYOUT_CODES[arch])
            elif name == "version":
                allowed[f] = 1 << 1
    out = np.empty((len(spec), flat.shape[0]), dtype=np.int64)
    bad = _kernels.unpack_fields(flat, np.array([s[1] for s in spec], dtype=np.int64),
                                 np.array([s[2] for s in spec], dtype=np.int64),
                                 np.array([s[3] for s in spec], dtype=np.int64),
                                 np.array(allowed, dtype=np.uint64), reserved if strict else 0, out)
    if bad >= 0:
        raise unpack_error(arch, int(flat[bad]), bad)
    res = {name: out[f].reshape(arr.shape) for f, (name, *_rest) in enumerate(spec)}
    if strict and arch == "sm100":
        check_lbo_mode_rules(res, flat)
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
    _check_categories(cats, shape)
    return cats, nums, shape, start


def _check_categories(cats, shape):
    """Raise the error of the first configuration (flat order) whose names are not valid, for its
    first bad field in the order dtype, major, swizzle, arch, order."""
    checks = (("dtype", lookup), ("major", lambda v: _choice("major", v, ("K", "MN"))),
              ("swizzle", SwizzleMode.parse), ("arch", lambda v: _choice("arch", v, ARCHS)),
              ("order", lambda v: _choice("order", v, ORDERS)))
    first, error = None, None
    for name, check in checks:
        a = cats[name]
        values = a.ravel().tolist()
        if not all(isinstance(v, str) for v in values):
            bad = next(v for v in values if not isinstance(v, str))
            raise FastswzTypeError(f"{name} must hold strings; it holds {bad!r} ({type(bad).__name__})")
        errors = {}
        for v in dict.fromkeys(values):
            try:
                check(v)
            except (FastswzError, TypeError) as exc:
                errors[v] = exc if isinstance(exc, FastswzError) else FastswzTypeError(
                    f"{name}={v!r} must be a string")
        if not errors:
            continue
        bad = np.zeros(a.shape, dtype=bool)
        for v in errors:
            bad |= a == v
        hits = np.flatnonzero(np.broadcast_to(bad, shape).ravel())
        # An empty space still names its bad value (the first one, in the check order).
        i = int(hits[0]) if hits.size else 0
        if first is None or i < first:
            first = i
            error = errors[np.broadcast_to(a, shape).ravel()[i]] if hits.size else next(iter(errors.values()))
    if error is not None:
        raise error


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
    cats, nums, shape, start = config_args(dtype, major, swizzle, mn, k, order, arch, inst_mn,
                                           start, lbo_policy)
    n = int(np.prod(shape, dtype=np.int64))
    # Factorise the categorical arguments (few distinct values, possibly millions of entries):
    # the per-combination work below runs once per distinct (dtype, major, swizzle, order, arch).
    keys, combo = [], None
    for a in cats.values():
        a = a.astype(str)
        uniq = np.array(sorted(set(a.ravel().tolist())))
        keys.append(uniq)
        if len(uniq) > 1:
            inv = np.broadcast_to(np.searchsorted(uniq, a), shape).ravel().astype(np.int64)
            combo = inv if combo is None else combo * len(uniq) + inv
    if combo is None:
        combo = np.zeros(n, dtype=np.int64)
    uniq_combo, combo_inv = np.unique(combo, return_inverse=True)
    props = np.zeros((len(uniq_combo), 7), dtype=np.int64)  # ebits kmajor width rows korder swz legal
    his = np.zeros(len(uniq_combo), dtype=np.uint64)  # layout type (+ sm100 version bit), in place
    for c, value in enumerate(uniq_combo):
        idx = []
        for uniq in reversed(keys):
            value, r = divmod(int(value), len(uniq))
            idx.append(str(uniq[r]))
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
    per = props[combo_inv]
    col = [np.ascontiguousarray(per[:, j]) for j in range(6)] + [his[combo_inv]]
    flat = {name: np.ascontiguousarray(np.broadcast_to(a, shape).ravel(), dtype=np.int64)
            for name, a in nums.items()}
    err = np.empty(n, dtype=np.int8)
    out = {"lbo_bytes": np.empty(n, np.int64), "sbo_bytes": np.empty(n, np.int64),
           "nbytes": np.empty(n, np.int64), "descriptor": np.empty(n, np.uint64)}
    _kernels.tile_configs(col[0], col[1], col[2], col[3], flat["mn"], flat["k"], col[4],
                          flat["inst_mn"], col[5], col[6],
                          min(start, SMEM_WINDOW),  # past the window every config is code 7 anyway
                          SMEM_WINDOW,
                          16 if lbo_policy.strip().lower() == "cutlass" else 0, err,
                          out["lbo_bytes"], out["sbo_bytes"], out["nbytes"], out["descriptor"])
    illegal = per[:, 6] == 0
    if illegal.any():
        err[illegal] = 8
        for a in out.values():
            a[illegal] = 0
    res = {"error": err.reshape(shape)}
    res.update({name: a.reshape(shape) for name, a in out.items()})
    return res
