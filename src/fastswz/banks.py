"""Shared-memory bank conflicts: the wavefronts one warp instruction needs, before anything runs.

Shared memory has 32 banks of 4 bytes; the bank of byte address ``a`` is ``(a >> 2) & 31``. A
warp's shared-memory instruction is served in *wavefronts*: in one wavefront each bank delivers
one 4-byte word, to every lane that wants that word (broadcast for loads; for stores the lanes'
bytes are merged into the word). The rule below was found on an H100 (sm_90a, Nsight Compute
2025.3) and reproduces every one of the 3090 launches (1094 distinct warp instructions, held-out
random sets among them) recorded in ``docs/conformance/banks/`` (``docs/CONFORMANCE.md``):

1. The warp is split into *phases* of consecutive lanes: 32 lanes for 1-, 2- and 4-byte accesses,
   16 lanes (half-warps) for 8-byte, 8 lanes (quarter-warps) for 16-byte accesses. ldmatrix and
   stmatrix (x1/x2/x4, with or without ``.trans``, which changes nothing) are 16-byte row accesses
   of lanes ``0 .. 8x-1``: one phase per 8x8 matrix.
2. A phase needs as many wavefronts as the most distinct 4-byte words any one bank holds among
   its active lanes (aligned accesses of one width either coincide or touch disjoint words).
   Phases add up; a phase with no active lane costs nothing.
3. Loads only (``ld.shared.v2``/``.v4``, not stores, not ldmatrix): when every lane pair
   ``(i, i^1)`` reads one address, or every lane pair ``(i, i^2)`` does (a pair with an idle
   lane always qualifies), the whole warp is served in phases twice as wide: 32 lanes for
   8-byte, 16 lanes for 16-byte loads. The test is warp-wide: one disagreeing pair anywhere
   keeps the narrow phases for all. The ``(i, i^2)`` pairing was found by held-out random
   patterns: sparse loads with one split ``(i, i^1)`` pair that the H100 served in the wide
   phases (22 of 62 such patterns); the two pairings together reproduce all 285 distinct 8- and
   16-byte load measurements recorded, and a probe set where only ``(i, i^2)`` shares checks it.

So a 16-byte load of one address by all 32 lanes takes 2 wavefronts, a 16-byte store 4; a
quarter-warp-identical 16-byte load takes 4 (no merging across phases beyond rule 3).
``ideal_wavefronts`` is the bandwidth floor: one wavefront per 32 distinct words touched.

The pattern builders below turn fastswz byte maps (``OperandTile.addresses()``, or
:func:`epilogue_tile` for a C tile) into the lane addresses of standard warp instructions:
ldmatrix of mma.sync / register-sourced wgmma A and B fragments, stmatrix and ``st.shared`` of
wgmma accumulators into an epilogue tile, and row-by-row vectorised copies.
"""

from __future__ import annotations

import sys

import numpy as np

from . import _kernels
from .dtypes import dtype as _dtype
from .errors import BankError, FastswzTypeError, TileError, as_int
from .tile import OperandTile
from .tv_layout import ldmatrix, mma_sync, stmatrix

__all__ = ["bank_wavefronts", "ideal_wavefronts", "matrix_wavefronts", "BankScore", "score",
           "mma_a_rows", "mma_b_rows", "fragment_rows", "epilogue_tile", "stmatrix_rows",
           "accumulator_stores", "row_copy", "epilogue_access", "best_swizzle", "EPILOGUE_ACCESSES",
           "EPILOGUE_SWIZZLES", "ACCESS_BYTES", "OPS", "PATTERNS", "pattern_scores", "epilogue_column",
           "fragment_accesses", "fragment_score"]

ACCESS_BYTES = (1, 2, 4, 8, 16)
OPS = ("ld", "st")
#: Epilogue tiles best_swizzle compares: plain row-major (pitch = row bytes), the interleaved
#: 8x16-byte core-matrix layout ("none") and the three swizzles, as a K-major operand atom.
EPILOGUE_SWIZZLES = ("rowmajor", "none", "32B", "64B", "128B")
#: How the accumulator reaches the epilogue tile: stmatrix.x4 of 16x16 blocks, or st.shared of
#: the two adjacent elements each lane holds per 8 columns (the wgmma/mma.sync D fragment).
EPILOGUE_ACCESSES = ("stmatrix", "st")


def _width(access_bytes) -> int:
    w = as_int("access_bytes", access_bytes)
    if w not in ACCESS_BYTES:
        raise BankError(f"access_bytes={w} is not a shared-memory access width: use one of "
                        f"{list(ACCESS_BYTES)}")
    return w


def bank_args(addresses, access_bytes, active, op, check=True):
    """Validate and coerce the arguments of :func:`bank_wavefronts` (shared with the twin):
    ``(addr int64 (n, 32), act, width, is_load, batch shape)``. ``act`` is int8 (n, 32), or
    None for "every lane" when ``active`` is None. ``check=False`` leaves out the scan for
    negative / misaligned addresses (the core flags them as it reads them and then calls
    :func:`check_addresses`)."""
    width = _width(access_bytes)
    if op not in OPS:
        raise BankError(f"op={op!r} is not one of {list(OPS)} (ld: loads, st: stores)")
    a = np.asarray(addresses)
    if a.dtype == bool or a.dtype.kind not in "iu":
        raise FastswzTypeError(f"addresses must be an integer array, not {a.dtype}")
    if a.ndim == 0 or a.shape[-1] != 32:
        raise BankError(f"addresses has shape {a.shape}: the last axis must hold the 32 lanes "
                        f"of a warp (shape (..., 32))")
    shape = a.shape[:-1]
    addr = np.ascontiguousarray(a.reshape(-1, 32), dtype=np.int64)
    act = None
    if active is not None:
        m = np.asarray(active)
        if m.dtype != bool:
            raise FastswzTypeError(f"active must be a boolean array, not {m.dtype}")
        try:
            m = np.broadcast_to(m, a.shape)
        except ValueError:
            raise BankError(f"active has shape {m.shape}, which does not broadcast to the "
                            f"addresses' shape {a.shape}") from None
        act = np.ascontiguousarray(m.reshape(-1, 32)).view(np.int8)
    if check:
        check_addresses(addr, act, width, a.shape)
    return addr, act, width, op == "ld", shape


def check_addresses(addr, act, width, shape):
    """Raise for the first active address that is negative or not a multiple of ``width``."""
    # Fast test first, without temporaries the size of the input: the minimum, and the OR of
    # every address's low byte (a strided view) for the alignment bits.
    if act is None:
        lo = addr.min(initial=0)
        low = addr.reshape(-1).view(np.uint8)[0 if sys.byteorder == "little" else 7::8]
        odd = int(np.bitwise_or.reduce(low)) & (width - 1) if low.size else 0
    else:
        lo = np.where(act, addr, 0).min(initial=0)
        odd = ((addr & (width - 1)) * act).any()
    if lo < 0 or odd:
        live = np.ones(addr.shape, dtype=bool) if act is None else act.astype(bool)
        bad = np.flatnonzero((((addr < 0) | (addr % width != 0)) & live).ravel())
        i = int(bad[0])
        where = ", ".join(str(int(x)) for x in np.unravel_index(i, shape))
        raise BankError(f"addresses[{where}]={int(addr.ravel()[i])} must be "
                        f">= 0 and a multiple of access_bytes={width} (aligned access)")


_ALL_LANES = np.ones((1, 32), dtype=np.int8)   # the core's act argument when every lane is active


def bank_wavefronts(addresses, access_bytes, active=None, op="ld"):
    """Shared-memory wavefronts of warp ``ld.shared`` / ``st.shared`` instructions.

    Parameters
    ----------
    addresses : array_like of int, shape (..., 32)
        Byte addresses (any consistent origin 128-byte aligned, e.g. shared-window addresses),
        one row per warp instruction, one column per lane.
    access_bytes : {1, 2, 4, 8, 16}
        Bytes each lane accesses (``.u8``, ``.u16``, ``.b32``, ``.v2.b32``, ``.v4.b32``).
    active : array_like of bool, optional
        Lanes that execute the instruction (broadcast against ``addresses``); default all.
    op : {"ld", "st"}
        Loads may merge lane pairs (rule 3 of the module docstring); stores never do.

    Returns
    -------
    numpy.ndarray of int64, shape (...)
        Wavefronts per instruction, as Nsight Compute counts them
        (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st``).

    Examples
    --------
    >>> import numpy as np
    >>> lane = np.arange(32)
    >>> bank_wavefronts(np.stack([lane * 4, lane * 128, lane * 0]), 4).tolist()
    [1, 32, 1]
    >>> int(bank_wavefronts(lane * 16, 16)), int(bank_wavefronts(lane * 0, 16, op="st"))
    (4, 4)
    >>> int(bank_wavefronts(lane * 0, 16))      # lane pairs agree: half-warp phases
    2
    """
    addr, act, width, is_load, shape = bank_args(addresses, access_bytes, active, op, check=False)
    out = np.empty(addr.shape[0], dtype=np.int64)
    masked = act is not None
    if _kernels.bank_wavefronts(addr, act if masked else _ALL_LANES, width, is_load, masked, out):
        check_addresses(addr, act, width, np.shape(addresses))
    return out.reshape(shape)


def ideal_wavefronts(addresses, access_bytes, active=None):
    """The bandwidth floor: ``ceil(distinct 4-byte words / 32)`` per instruction.

    One wavefront moves at most one word per bank, so no instruction needs fewer. Compare
    with :func:`bank_wavefronts`; the difference is the cost of conflicts (and of the phase
    split of 8- and 16-byte accesses).

    Examples
    --------
    >>> import numpy as np
    >>> ideal_wavefronts(np.arange(32) * 16, 16).tolist()   # 512 bytes = 4 x 128
    4
    """
    addr, act, width, _, shape = bank_args(addresses, access_bytes, active, "ld")
    per = max(1, width // 4)
    words = ((addr >> 2)[:, :, None] + np.arange(per)).reshape(addr.shape[0], -1)
    if act is not None:
        words = np.where(np.repeat(act.astype(bool), per, axis=1), words, -1)
    words = np.sort(words, axis=1)
    distinct = (words >= 0) & np.concatenate(
        [np.ones((words.shape[0], 1), dtype=bool), words[:, 1:] != words[:, :-1]], axis=1)
    return ((distinct.sum(axis=1) + 31) // 32).astype(np.int64).reshape(shape)


def matrix_wavefronts(addresses, x, op="ldmatrix"):
    """Wavefronts of ``ldmatrix`` / ``stmatrix`` ``.m8n8.x{1,2,4}`` (``.trans`` or not).

    Lanes ``0 .. 8x-1`` supply the 16-byte row addresses (lane ``8j + r``: row ``r`` of matrix
    ``j``); the other lanes' entries are ignored. Each matrix is one phase (rule 1); neither
    instruction merges lane pairs, and ``.trans`` does not change the count (measured).

    Examples
    --------
    >>> import numpy as np
    >>> int(matrix_wavefronts(np.arange(32) * 16, 4)), int(matrix_wavefronts(np.arange(32) * 128, 4))
    (4, 32)
    """
    if op not in ("ldmatrix", "stmatrix"):
        raise BankError(f"op={op!r} is not 'ldmatrix' or 'stmatrix'")
    x = as_int("x", x)
    if x not in (1, 2, 4):
        raise BankError(f"x={x} is not a matrix count of ldmatrix/stmatrix: use 1, 2 or 4")
    a = np.asarray(addresses)
    act = np.arange(32) < 8 * x
    return bank_wavefronts(a, 16, act, op="st")


class BankScore:
    """Wavefronts of a sequence of warp instructions: per instruction, in total, and the ideal.

    Attributes: ``wavefronts`` (int64 array), ``ideal`` (int64 array), ``instructions``,
    ``total``, ``ideal_total``, ``excess`` (total - ideal_total, 0 when conflict free).

    Examples
    --------
    >>> import numpy as np
    >>> s = score(np.arange(64).reshape(2, 32) * 8, 8)
    >>> s.instructions, s.total, s.ideal_total, s.excess
    (2, 4, 4, 0)
    """

    __slots__ = ("wavefronts", "ideal", "access_bytes", "op")

    def __init__(self, wavefronts, ideal, access_bytes, op):
        self.wavefronts = wavefronts
        self.ideal = ideal
        self.access_bytes = access_bytes
        self.op = op

    instructions = property(lambda self: int(self.wavefronts.size))
    total = property(lambda self: int(self.wavefronts.sum()))
    ideal_total = property(lambda self: int(self.ideal.sum()))
    excess = property(lambda self: self.total - self.ideal_total)

    def as_dict(self):
        """JSON-ready summary."""
        return {"op": self.op, "access_bytes": self.access_bytes,
                "instructions": self.instructions, "wavefronts": self.total,
                "ideal": self.ideal_total, "excess": self.excess,
                "max_per_instruction": int(self.wavefronts.max()) if self.wavefronts.size else 0}

    def __repr__(self):
        return (f"BankScore(op={self.op!r}, access_bytes={self.access_bytes}, instructions="
                f"{self.instructions}, total={self.total}, ideal={self.ideal_total})")


def score(addresses, access_bytes, op="ld", active=None):
    """Score warp instructions (rows of 32 lane addresses); ``op`` is ``"ld"``, ``"st"``,
    ``"ldmatrix"`` or ``"stmatrix"`` (then ``access_bytes`` must be 16: x4, all lanes).

    Examples
    --------
    >>> import numpy as np
    >>> score(np.arange(32) * 128, 4, "st").total
    32
    """
    a = np.asarray(addresses).reshape(-1, 32) if np.ndim(addresses) else np.asarray(addresses)
    if op in ("ldmatrix", "stmatrix"):
        if _width(access_bytes) != 16:
            raise BankError(f"access_bytes={access_bytes}: {op} moves 16-byte rows, use 16")
        w = matrix_wavefronts(a, 4, op)
    else:
        w = bank_wavefronts(a, access_bytes, active, op)
    return BankScore(w, ideal_wavefronts(a, access_bytes, active), _width(access_bytes), op)


# -- patterns ----------------------------------------------------------------------------------------
def _amap(amap, elem_bytes):
    m = np.asarray(amap)
    if m.ndim != 2 or m.dtype.kind not in "iu":
        raise BankError(f"the byte map must be a 2-D integer array (rows, cols), not "
                        f"{m.dtype} with shape {m.shape}")
    e = as_int("elem_bytes", elem_bytes)
    if e not in (1, 2, 4):
        raise BankError(f"elem_bytes={e} must be 1, 2 or 4")
    return m.astype(np.int64, copy=False), e   # no copy: fragment_rows calls this per fragment


def _matrix_rows(op, x):
    """(matrix, row) each lane points at in an ldmatrix/stmatrix ``.x{x}``: the public address
    map (:func:`fastswz.tv_layout.ldmatrix` with ``role="addresses"``); lanes past ``8x``
    repeat the first ones, as the hardware ignores them."""
    rows = op(x, role="addresses").coords()[0][:, 0]
    return rows // 8, rows % 8


def mma_a_rows(amap, elem_bytes, mn0=0, k0=0, trans=False):
    """Row addresses of one ``ldmatrix.x4`` loading a 16 x (32 bytes of K) A fragment.

    mma.sync m16n8k16 (16-bit) / m16n8k32 (8-bit) A, and the per-warp slice of a register-sourced
    wgmma A (warp ``w`` of the warpgroup loads rows ``16 w .. 16 w + 15``). ``amap`` is the
    (mn, k) byte map of the tile (``OperandTile.addresses()``). Lane ``8j + r`` points at row
    ``r`` of matrix ``j``; matrices are (mn 0-7, k lo), (mn 8-15, k lo), (mn 0-7, k hi),
    (mn 8-15, k hi). ``trans=True`` (16-bit MN-major tiles, ``ldmatrix.trans``): the rows are K.

    Examples
    --------
    >>> import fastswz
    >>> a = fastswz.OperandTile("bf16", "K", "128B", 64, 64).addresses()
    >>> int(matrix_wavefronts(mma_a_rows(a, 2), 4))
    4
    """
    m, e = _amap(amap, elem_bytes)
    j, r = _matrix_rows(ldmatrix, 4)
    if trans:
        return m[mn0 + (j % 2) * 8, k0 + (j // 2) * 8 + r]
    return m[mn0 + (j % 2) * 8 + r, k0 + (j // 2) * (16 // e)]


def mma_b_rows(amap, elem_bytes, n0=0, k0=0, trans=False):
    """Row addresses of one ``ldmatrix.x2`` loading an 8 x (32 bytes of K) B fragment
    (mma.sync m16n8k16 B, stored N x K); lanes 16-31 repeat lanes 0-15 (ignored by x2).

    Examples
    --------
    >>> import fastswz
    >>> b = fastswz.OperandTile("bf16", "K", "64B", 64, 64).addresses()
    >>> int(matrix_wavefronts(mma_b_rows(b, 2), 2))
    2
    """
    m, e = _amap(amap, elem_bytes)
    j, r = _matrix_rows(ldmatrix, 2)
    if trans:
        return m[n0, k0 + j * 8 + r]
    return m[n0 + r, k0 + j * (16 // e)]


def fragment_rows(amap, elem_bytes, operand="A", trans=False):
    """Every ldmatrix of an operand tile, fragment by fragment: shape (instructions, 32).

    ``operand="A"``: x4 per 16 (mn) x 32-byte (k) block; ``"B"``: x2 per 8 x 32-byte block.

    Examples
    --------
    >>> import fastswz
    >>> a = fastswz.OperandTile("bf16", "K", "128B", 64, 64).addresses()
    >>> fragment_rows(a, 2).shape
    (16, 32)
    """
    m, e = _amap(amap, elem_bytes)
    if operand not in ("A", "B"):
        raise BankError(f"operand={operand!r} is not 'A' or 'B'")
    step_mn, step_k = (16, 32 // e) if operand == "A" else (8, 32 // e)
    if trans:
        step_k = 16
    if m.shape[0] % step_mn or m.shape[1] % step_k:
        raise BankError(f"a {m.shape[0]} x {m.shape[1]} tile is not a whole number of "
                        f"{step_mn} x {step_k} {operand} fragments")
    rows = mma_a_rows if operand == "A" else mma_b_rows
    # every fragment at once: fragment origins broadcast against the 32 lanes (MN outer, K inner)
    mn0 = np.arange(0, m.shape[0], step_mn)[:, None, None]
    k0 = np.arange(0, m.shape[1], step_k)[None, :, None]
    return rows(m, e, mn0, k0, trans).reshape(-1, 32)


def epilogue_tile(dtype, swizzle, m, n, pad_bytes=0, start=0):
    """Byte map (m, n) of an M x N epilogue (C/D) tile in shared memory, rows = M.

    ``swizzle="rowmajor"``: plain row-major, row pitch ``n * size + pad_bytes``; ``"none"``,
    ``"32B"``, ``"64B"``, ``"128B"``: the K-major canonical atom of that mode with N as the
    contiguous extent (CuTe's smem layouts for a row-major epilogue), via :class:`OperandTile`.

    Examples
    --------
    >>> epilogue_tile("bf16", "rowmajor", 2, 4, pad_bytes=8).tolist()
    [[0, 2, 4, 6], [16, 18, 20, 22]]
    """

    dt = _dtype(dtype)
    if swizzle == "rowmajor":
        e = dt.bits // 8
        m, n, pad = as_int("m", m), as_int("n", n), as_int("pad_bytes", pad_bytes)
        if m < 1 or n < 1 or pad < 0 or pad % e:
            raise BankError(f"rowmajor epilogue tile needs m, n >= 1 and pad_bytes a multiple of "
                            f"{e} (got m={m}, n={n}, pad_bytes={pad})")
        return start + (np.arange(m)[:, None] * (n * e + pad) + np.arange(n)[None, :] * e)
    return OperandTile(dt, "K", swizzle, m, n).addresses(start).astype(np.int64)


def stmatrix_rows(cmap, elem_bytes):
    """Every ``stmatrix.x4`` that writes a 16-bit accumulator tile: one per 16 x 16 block.

    Examples
    --------
    >>> int(score(stmatrix_rows(epilogue_tile("bf16", "128B", 64, 64), 2), 16, "stmatrix").excess)
    0
    """
    m, e = _amap(cmap, elem_bytes)
    if e != 2:
        raise BankError(f"stmatrix stores 16-bit elements (b16), not elem_bytes={e}")
    if m.shape[0] % 16 or m.shape[1] % 16:
        raise BankError(f"a {m.shape[0]} x {m.shape[1]} tile is not a whole number of "
                        f"16 x 16 A fragments")
    # lane 8j + r: row r of matrix j; matrices (rows 0-7 | 8-15) x (columns 0-7 | 8-15)
    j, r = _matrix_rows(stmatrix, 4)
    r0 = np.arange(0, m.shape[0], 16)[:, None, None]
    c0 = np.arange(0, m.shape[1], 16)[None, :, None]
    return m[r0 + (j % 2) * 8 + r, c0 + (j // 2) * 8].reshape(-1, 32)


def accumulator_stores(cmap, elem_bytes):
    """Lane addresses of the ``st.shared`` that write a wgmma / mma.sync accumulator tile.

    Lane ``l`` of a warp holds, per 16-row slab and per 8 columns, the element pairs at rows
    ``l // 4`` and ``l // 4 + 8``, columns ``2 (l % 4)`` and ``+1`` (PTX wgmma D fragment,
    9.7.15.5.1; the same as mma.sync m16n8). Each pair is one ``2 * elem_bytes`` store.
    Returns ``(addresses (instructions, 32), access_bytes)``.

    Examples
    --------
    >>> a, w = accumulator_stores(epilogue_tile("f32", "rowmajor", 64, 64), 4)
    >>> a.shape, w, score(a, w, "st").total      # 64 stores of 8 bytes, 4-way per half-warp
    ((64, 32), 8, 512)
    """
    m, e = _amap(cmap, elem_bytes)
    if m.shape[0] % 16 or m.shape[1] % 8:
        raise BankError(f"a {m.shape[0]} x {m.shape[1]} accumulator tile is not whole 16 x 8 blocks")
    # The public D map (mma.sync C = one warp's slab of the wgmma D): values 0,1 and 2,3 of each
    # lane are the adjacent pairs, stored as one 2 * elem_bytes access each.
    rows, cols = mma_sync("m16n8k16", "f32", "C").coords()      # (32 lanes, 4 values)
    pr, pc = rows[:, 0::2].T, cols[:, 0::2].T                   # (upper/lower pair, lane)
    # per (16-row slab, 8 columns, upper/lower 8 rows), in that order
    r0 = np.arange(0, m.shape[0], 16)[:, None, None, None]
    c0 = np.arange(0, m.shape[1], 8)[None, :, None, None]
    return m[r0 + pr, c0 + pc].reshape(-1, 32), 2 * e


def row_copy(amap, elem_bytes, access_bytes):
    """Lane addresses of a row-by-row vectorised copy: chunk ``c`` (of ``access_bytes``) of the
    tile in row-major order is copied by lane ``c % 32`` of instruction ``c // 32``.

    Examples
    --------
    >>> import fastswz
    >>> a = fastswz.OperandTile("bf16", "K", "128B", 64, 64).addresses()
    >>> score(row_copy(a, 2, 16), 16).excess
    0
    """
    m, e = _amap(amap, elem_bytes)
    w = _width(access_bytes)
    v = w // e
    if v < 1 or m.shape[1] % v or (m.size // v) % 32:
        raise BankError(f"access_bytes={w}: a {m.shape[0]} x {m.shape[1]} tile of {e}-byte elements "
                        f"does not split into whole warps of {w}-byte chunks")
    starts = m[:, ::v]
    if v > 1 and not np.all(m.reshape(m.shape[0], -1, v) - starts[:, :, None] == np.arange(v) * e):
        raise BankError(f"access_bytes={w}: {w}-byte chunks are not contiguous in this tile's "
                        f"layout; use a smaller access_bytes")
    return starts.reshape(-1, 32)


def epilogue_access(dtype, swizzle, m, n, access="stmatrix", pad_bytes=0):
    """Score the epilogue writing an M x N accumulator tile of ``dtype`` into ``swizzle``.

    Examples
    --------
    >>> epilogue_access("bf16", "rowmajor", 64, 64).total      # 16 x4 stores, 8-way per matrix
    512
    >>> epilogue_access("bf16", "128B", 64, 64).excess
    0
    """

    dt = _dtype(dtype)
    cmap = epilogue_tile(dt, swizzle, m, n, pad_bytes)
    if access == "stmatrix":
        return score(stmatrix_rows(cmap, dt.bits // 8), 16, "stmatrix")
    if access == "st":
        a, w = accumulator_stores(cmap, dt.bits // 8)
        return score(a, w, "st")
    raise BankError(f"access={access!r} is not one of {list(EPILOGUE_ACCESSES)}")


def best_swizzle(dtype, m, n, access="stmatrix", candidates=EPILOGUE_SWIZZLES):
    """The epilogue tile layout with the fewest wavefronts for ``access``, and every score.

    Ties go to the later candidate (with the defaults: the widest swizzle, which TMA moves in
    the fewest boxes). Candidates whose atom does not divide the tile are skipped. Returns
    ``(name, {name: BankScore})``.

    Examples
    --------
    >>> name, table = best_swizzle("f32", 64, 64, "st")      # 8-byte accumulator pair stores
    >>> name, {k: v.total for k, v in table.items()}
    ('32B', {'rowmajor': 512, 'none': 256, '32B': 128, '64B': 256, '128B': 256})
    >>> best_swizzle("bf16", 64, 64)[0]                       # stmatrix: every swizzle is ideal
    '128B'
    """

    table = {}
    for c in candidates:
        try:
            table[c] = epilogue_access(dtype, c, m, n, access)
        except (TileError, BankError):
            continue
    if not table:
        raise BankError(f"candidates={list(candidates)}: no epilogue layout fits a {m} x {n} "
                        f"{dtype} tile (each needs whole atoms; add 'rowmajor')")
    order = list(table)
    best = min(order, key=lambda c: (table[c].total, -order.index(c)))
    return best, table


#: Patterns :func:`pattern_scores` (and ``fastswz banks --pattern``) knows.
PATTERNS = ("stmatrix", "st", "copy", "ldmatrix-a", "ldmatrix-b")


def pattern_scores(pattern, dtype, mn, k, swizzles=None, major="K", access_bytes=16, pad_bytes=0):
    """Score a standard access pattern on an MN x K tile under each layout in ``swizzles``.

    ``"stmatrix"`` / ``"st"``: the epilogue writes an MN x K (M x N) accumulator tile
    (:func:`epilogue_access`); ``"copy"``: a row-by-row copy of ``access_bytes`` per lane
    (:func:`row_copy`); ``"ldmatrix-a"`` / ``"ldmatrix-b"``: every mma fragment of an operand
    tile (:func:`fragment_rows`; ``.trans`` for MN-major). Layouts are the
    :data:`EPILOGUE_SWIZZLES` names ("rowmajor" is the plain K-contiguous tile, pitch
    ``k * size + pad_bytes``); those that do not fit the tile are left out. Returns
    ``(best, {name: BankScore})`` as :func:`best_swizzle` does.

    Examples
    --------
    >>> best, table = pattern_scores("ldmatrix-a", "bf16", 64, 64)
    >>> best, {s: t.total for s, t in table.items()}
    ('128B', {'rowmajor': 512, 'none': 64, '32B': 64, '64B': 64, '128B': 64})
    """

    if pattern not in PATTERNS:
        raise BankError(f"pattern={pattern!r} is not one of {list(PATTERNS)}")
    if major not in ("K", "MN"):
        raise BankError(f"major={major!r} is not 'K' or 'MN'")
    dt = _dtype(dtype)
    e = dt.bits // 8
    swizzles = list(EPILOGUE_SWIZZLES if swizzles is None else swizzles)
    table, why = {}, ""
    for sw in swizzles:
        if sw not in EPILOGUE_SWIZZLES:
            raise BankError(f"swizzle={sw!r} is not one of {list(EPILOGUE_SWIZZLES)}")
        try:
            if pattern in ("stmatrix", "st"):
                table[sw] = epilogue_access(dt, sw, mn, k, pattern, pad_bytes)
                continue
            trans = major == "MN"
            if sw == "rowmajor":
                rows, cols = (mn, k) if not trans else (k, mn)
                plain = epilogue_tile(dt, "rowmajor", rows, cols, pad_bytes)
                amap = plain if not trans else plain.T
            else:
                amap = OperandTile(dt, major, sw, mn, k).addresses().astype(np.int64)
            if pattern == "copy":
                src = amap if not trans else amap.T        # rows of the contiguous extent
                table[sw] = score(row_copy(src, e, access_bytes), access_bytes, "ld")
            else:
                rows = fragment_rows(amap, e, "A" if pattern == "ldmatrix-a" else "B", trans)
                x = 4 if pattern == "ldmatrix-a" else 2
                table[sw] = BankScore(matrix_wavefronts(rows, x), np.full(len(rows), x, np.int64),
                                      16, "ldmatrix")
        except (TileError, BankError) as exc:
            why = str(exc)
    if not table:
        raise BankError(f"no layout in {swizzles} fits {pattern} on a {mn} x {k} {dt} tile "
                        f"(last reason: {why})")
    order = list(table)
    best = min(order, key=lambda c: (table[c].total, -order.index(c)))
    return best, table


def epilogue_column(dtype, m, n, swizzle, access="stmatrix"):
    """One row of a bank-conflict column for a GEMM plan: the epilogue of an M x N tile.

    Returns ``{"epilogue_wavefronts", "epilogue_ideal", "epilogue_excess",
    "epilogue_best_swizzle"}`` (the best over :data:`EPILOGUE_SWIZZLES`).

    Examples
    --------
    >>> epilogue_column("bf16", 128, 128, "rowmajor")["epilogue_excess"]
    1792
    """
    s = epilogue_access(dtype, swizzle, m, n, access)
    best, _ = best_swizzle(dtype, m, n, access)
    return {"epilogue_wavefronts": s.total, "epilogue_ideal": s.ideal_total,
            "epilogue_excess": s.excess, "epilogue_best_swizzle": best}


def fragment_accesses(tv, byte_map, vector=True):
    """Lane addresses of the ``ld.shared`` / ``st.shared`` that move a register fragment between
    registers and a tile: one warp instruction per (warp, access), lanes = the warp's threads.

    Each thread moves its values in order; with ``vector=True`` consecutive values whose bytes
    are adjacent in the tile (and together at most 16 bytes, aligned) share one access, as a
    compiler vectorises them; otherwise every 32-bit register (or 64-bit value) is one access.
    The access width must be the same for every thread (it is for every fragment here).
    ``byte_map`` is as for :meth:`fastswz.TVLayout.addresses`.

    Returns ``(addresses (instructions, 32), access_bytes)``.

    Examples
    --------
    >>> from fastswz import wgmma_d
    >>> a, w = fragment_accesses(wgmma_d(64), epilogue_tile("f32", "rowmajor", 64, 64))
    >>> a.shape, w, score(a, w, "st").total                  # the pairs of accumulator_stores
    ((64, 32), 8, 512)
    """
    from .tv_layout import TVLayout
    if not isinstance(tv, TVLayout):
        raise FastswzTypeError(f"fragment must be a TVLayout, not {type(tv).__name__}")
    addr = tv.addresses(byte_map)                                  # (threads, values)
    e = max(1, tv.bits // 8)
    per = max(1, 32 // tv.bits)                                    # values per 32-bit register
    group = per
    if vector:
        # grow the group while every thread's next values stay adjacent and aligned
        while (group * 2 <= tv.values and group * 2 * e <= 16 and tv.values % (group * 2) == 0):
            g2 = addr.reshape(tv.threads, -1, group * 2)
            if not (np.all(g2 - g2[:, :, :1] == np.arange(group * 2) * e) and np.all(g2[:, :, 0] % (group * 2 * e) == 0)):
                break
            group *= 2
    group = min(group, tv.values)
    g = addr.reshape(tv.threads, -1, group)
    if group > 1 and not np.all(g - g[:, :, :1] == np.arange(group) * e):
        raise BankError(f"{tv.name}: the values of one register are not adjacent in this tile, so "
                        f"no single ld/st moves them; move them with ldmatrix/stmatrix instead "
                        f"(fastswz.ldmatrix), or use a tile where they are adjacent")
    width = group * e          # 1..16: a power of two times the element bytes, at most 16
    first = g[:, :, 0]                                             # (threads, accesses)
    warps = tv.threads // 32
    if tv.threads % 32:
        raise BankError(f"{tv.name}: {tv.threads} threads are not whole warps")
    return first.reshape(warps, 32, -1).transpose(0, 2, 1).reshape(-1, 32), width


def fragment_score(tv, byte_map, op="ld", vector=True):
    """:func:`score` of :func:`fragment_accesses`: the wavefronts of moving a fragment. For an
    ``ldmatrix`` / ``stmatrix`` ``.m8n8`` fragment (either role) it scores the instruction itself
    (:func:`matrix_wavefronts` of the rows its lanes address in ``byte_map``).

    Examples
    --------
    >>> from fastswz import OperandTile, wgmma_a
    >>> t = OperandTile("bf16", "K", "128B", 64, 64).addresses().astype("int64")
    >>> fragment_score(wgmma_a("bf16"), t).excess      # A from registers, loaded with ld.shared.b32
    0
    >>> from fastswz import ldmatrix
    >>> fragment_score(ldmatrix(4), t).total             # ldmatrix.x4 of 32 swizzled rows
    4
    >>> fragment_score(ldmatrix(4), epilogue_tile("bf16", "rowmajor", 32, 64)).total  # 8-way
    32
    """
    from .tv_layout import TVLayout
    if isinstance(tv, TVLayout) and tv.name.startswith(("ldmatrix.m8n8", "stmatrix.m8n8")):
        # the instruction itself: lanes 0 .. 8x-1 give the 16-byte rows (role "addresses", or the
        # address map of the same instruction for a register map)
        from .tv_layout import ldmatrix, stmatrix
        x = tv.extents[0] // 8
        fn = ldmatrix if tv.name.startswith("ldmatrix") else stmatrix
        rows = fn(x, ".trans" in tv.name, "addresses").addresses(byte_map)[:, 0]
        kind = "ldmatrix" if fn is ldmatrix else "stmatrix"
        return BankScore(matrix_wavefronts(rows, x, kind), np.full(1, x, np.int64), 16, kind)
    a, w = fragment_accesses(tv, byte_map, vector)
    return score(a, w, op)
