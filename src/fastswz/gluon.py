"""Triton Gluon's ``NVMMASharedLayout`` and the equivalent fastswz operand tile.

Gluon describes a tensor-core operand buffer by ``NVMMASharedLayout(swizzle_byte_width,
element_bitwidth, rank, transposed, fp4_padded)`` over a block shape; Triton lowers it to a linear
layout from the shared-memory element offset to the tensor index (``nvmmaSharedToLinearLayout``
in ``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp``). The rules read there (facts only):

* The contiguous dimension is the last one, or the first when ``transposed``. A *core tile* is
  8 rows of ``swizzle_byte_width`` bytes of the contiguous dimension, its 16-byte chunks XORed
  with the row index (``vec = 128 / element_bitwidth`` elements per chunk; per-phase/max-phase
  (4, 2), (2, 4), (1, 8) for 32/64/128 B): CuTe's ``Swizzle<B,4,3>`` on byte offsets.
* Inside one TMA block (every dimension clamped to 256, the contiguous one to the swizzle
  width: ``getTMABlockShape``) the core tiles stack along the rows first; further blocks repeat
  dimension 0 first, then dimension 1.
* ``swizzle_byte_width == 0``: the block is plain row-major (last dimension contiguous, the
  ``transposed`` flag does not enter), clamped to 256 per dimension.

In fastswz terms, with Gluon's operand conventions (A is ``[M, K]``, B is ``[K, N]``):

============  ===========  =====================  ==========================
operand       transposed   fastswz major          tiling order (``order=``)
============  ===========  =====================  ==========================
A ``[M, K]``  False        K                      ``"mn"`` (MN atoms first)
A ``[M, K]``  True         MN                     ``"k"`` (K rows first)
B ``[K, N]``  False        MN                     ``"k"``
B ``[K, N]``  True         K                      ``"mn"``
============  ===========  =====================  ==========================

Both readings of one buffer are the same address map (the tile is only relabelled). The
placement was checked element by element against Triton 3.6 on an H100 (``tests/gpu/gluon``,
``docs/CONFORMANCE.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .bulk import evaluate
from .dtypes import dtype as _dtype
from .errors import FastswzTypeError, TileError, as_flag, as_int
from .linear import LinearLayout
from .modes import SwizzleMode
from .tile import OperandTile

__all__ = ["GluonNVMMA", "gluon_nvmma_shared", "nvmma_linear_layout", "to_gluon"]

#: Triton clamps every TMA block dimension to 256 elements (getTMABlockShape).
TMA_DIM_MAX = 256
_DEFAULT_DTYPE = {8: "e4m3", 16: "bf16", 32: "tf32"}


@dataclass(frozen=True)
class GluonNVMMA:
    """The arguments of a Gluon ``NVMMASharedLayout`` plus the block shape it is used with.

    ``str()`` is the Gluon constructor call; :meth:`kwargs` gives the keyword arguments.

    Examples
    --------
    >>> g = GluonNVMMA(128, 16, 2, False, False, (64, 64))
    >>> print(g)
    NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False, fp4_padded=False) over [64, 64]
    >>> g.kwargs()["swizzle_byte_width"]
    128
    """

    swizzle_byte_width: int
    element_bitwidth: int
    rank: int
    transposed: bool
    fp4_padded: bool
    block_shape: tuple

    def kwargs(self) -> dict:
        """Keyword arguments of ``ttgl.NVMMASharedLayout(**kwargs)``.

        Examples
        --------
        >>> sorted(GluonNVMMA(0, 8, 2, True, False, (16, 8)).kwargs())
        ['element_bitwidth', 'fp4_padded', 'rank', 'swizzle_byte_width', 'transposed']
        """
        return {"swizzle_byte_width": self.swizzle_byte_width, "element_bitwidth": self.element_bitwidth,
                "rank": self.rank, "transposed": self.transposed, "fp4_padded": self.fp4_padded}

    def __str__(self):
        args = ", ".join(f"{k}={v}" for k, v in self.kwargs().items())
        return f"NVMMASharedLayout({args}) over {list(self.block_shape)}"


def _operand(operand):
    if not isinstance(operand, str):
        raise FastswzTypeError(f"operand={operand!r} must be 'A' or 'B', not {type(operand).__name__}")
    op = operand.strip().upper()
    if op not in ("A", "B"):
        raise TileError(f"operand={operand!r} must be 'A' (block [M, K]) or 'B' (block [K, N])")
    return op


def gluon_nvmma_shared(swizzle_byte_width, element_bitwidth, rank=2, transposed=False,
                       fp4_padded=False, block_shape=None, *, operand="A", dtype=None, arch="sm90"):
    """The fastswz :class:`~fastswz.OperandTile` that places a Gluon NVMMA buffer's elements.

    Parameters
    ----------
    swizzle_byte_width : {0, 32, 64, 128}
    element_bitwidth : {8, 16, 32}
    rank : int
        Must be 2 (reshape batched buffers to 2-D first).
    transposed : bool
        Gluon's flag: the first dimension is contiguous.
    fp4_padded : bool
        Gluon's padded-FP4 form (8 real and 8 padding bytes per 16); fastswz has no equivalent.
    block_shape : (int, int)
        The buffer's shape, ``[M, K]`` for operand A or ``[K, N]`` for operand B.
    operand : {"A", "B"}, keyword-only
        Which dimension is K (see the module table).
    dtype : str, keyword-only
        fastswz element type; default ``e4m3`` / ``bf16`` / ``tf32`` by width. Must have
        ``element_bitwidth`` bits.
    arch : {"sm90", "sm100", "sm103"}, keyword-only
        Passed to the tile (it decides which major-ness is legal).

    Returns
    -------
    OperandTile
        Element ``(i, j)`` of the block is element ``(mn, k)`` of the tile, with ``(mn, k) = (i, j)``
        for A and ``(j, i)`` for B; its shared-memory element offset is ``tile.layout(mn, k)``.

    Examples
    --------
    >>> gluon_nvmma_shared(128, 16, block_shape=(64, 64))
    OperandTile('bf16', 'K', '128B', 64, 64, order='mn', arch='sm90')
    >>> gluon_nvmma_shared(128, 16, transposed=True, block_shape=(128, 64))
    OperandTile('bf16', 'MN', '128B', 128, 64, order='k', arch='sm90')
    >>> gluon_nvmma_shared(64, 8, block_shape=(64, 128), operand="B", arch="sm100")
    OperandTile('e4m3', 'MN', '64B', 128, 64, order='k', arch='sm100')
    """

    swz = as_int("swizzle_byte_width", swizzle_byte_width)
    if swz not in (0, 32, 64, 128):
        raise TileError(f"swizzle_byte_width={swz} is not one of Gluon's 0, 32, 64, 128")
    ebits = as_int("element_bitwidth", element_bitwidth)
    if ebits not in (8, 16, 32):
        raise TileError(
            f"element_bitwidth={ebits}: tensor-core operands are 8, 16 or 32 bits wide; a "
            f"{ebits}-bit NVMMA buffer has no fastswz operand tile")
    rank = as_int("rank", rank)
    transposed = as_flag("transposed", transposed)
    if as_flag("fp4_padded", fp4_padded):
        raise TileError(
            "fp4_padded=True: Gluon's padded FP4 buffer holds 8 data bytes and 8 padding bytes per "
            "16, which no fastswz tile describes; use an unpadded layout (fastswz packed e2m1 is "
            "dense: OperandTile('e2m1', ..., packed=True))")
    if rank != 2:
        raise TileError(f"rank={rank}: fastswz tiles are 2-D; reshape the block to 2-D (rank=2)")
    if block_shape is None or isinstance(block_shape, (str, bytes)) or len(block_shape) != 2:
        raise TileError(f"block_shape={block_shape!r} must be two extents, e.g. (64, 64)")
    r, c = (as_int(f"block_shape[{i}]", v) for i, v in enumerate(block_shape))
    op = _operand(operand)
    dt = _dtype(dtype if dtype is not None else _DEFAULT_DTYPE[ebits])
    if dt.bits != ebits:
        raise TileError(f"dtype={dt} is {dt.bits}-bit but element_bitwidth={ebits}")
    if swz == 0:
        # Row-major block, last dimension contiguous whatever `transposed` says. The canonical
        # interleave tile is row-major only when the contiguous extent is one 16-byte chunk.
        t = 128 // ebits
        if c != t:
            raise TileError(
                f"swizzle_byte_width=0 over {[r, c]}: Triton stores the block row-major, which is "
                f"the canonical interleave layout only when the last extent is one 16-byte chunk "
                f"({t} {ebits}-bit elements); use block_shape[1]={t} or a swizzled layout")
        contig_first = False
    else:
        contig_first = transposed
        rows = c if contig_first else r
        contig = r if contig_first else c
        width = swz * 8 // ebits
        if contig < width or rows < 8:
            raise TileError(
                f"block_shape={[r, c]} is smaller than one {swz}B core tile (8 rows x {width} "
                f"{ebits}-bit elements along the contiguous dimension); Triton refuses it too")
        if contig_first and rows > TMA_DIM_MAX:
            raise TileError(
                f"transposed block {[r, c]} has {rows} rows > {TMA_DIM_MAX}: Triton then places "
                f"further contiguous-dimension tiles before the rows past {TMA_DIM_MAX}, an order "
                f"no CuTe tile_to_shape gives; split the block at {TMA_DIM_MAX} rows")
    # K is dimension 1 of A and dimension 0 of B; the contiguous dimension decides the major.
    kdim = 1 if op == "A" else 0
    cdim = 0 if contig_first else 1
    major = "K" if cdim == kdim else "MN"
    mn, k = (r, c) if op == "A" else (c, r)
    order = "mn" if major == "K" else "k"
    swizzle = "none" if swz == 0 else f"{swz}B"
    try:
        return OperandTile(dt, major, swizzle, mn, k, order, arch)
    except TileError as exc:
        raise TileError(
            f"NVMMASharedLayout({swz}, {ebits}, transposed={transposed}) over {[r, c]} as operand "
            f"{op} is a {major}-major {dt} {swizzle} tile ({mn} x {k}), which fastswz refuses: {exc}"
        ) from None


def to_gluon(tile, operand="A"):
    """The Gluon ``NVMMASharedLayout`` (and block shape) that places ``tile``'s elements.

    Parameters
    ----------
    tile : OperandTile
    operand : {"A", "B"}
        Whether the Gluon block is ``[M, K]`` (A) or ``[K, N]`` (B).

    Returns
    -------
    GluonNVMMA

    Raises
    ------
    TileError
        Where Gluon has no equivalent: the 128B_base32B mode, packed 4-bit elements, a tiling
        order Triton does not use for that major-ness, an interleave tile wider than 16 bytes.

    Examples
    --------
    >>> from fastswz import OperandTile
    >>> print(to_gluon(OperandTile("bf16", "K", "128B", 64, 64)))
    NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False, fp4_padded=False) over [64, 64]
    >>> print(to_gluon(OperandTile("bf16", "MN", "64B", 64, 32, order="k"), operand="B"))
    NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2, transposed=False, fp4_padded=False) over [32, 64]
    """

    if not isinstance(tile, OperandTile):
        raise FastswzTypeError(f"tile must be an OperandTile, not {type(tile).__name__}")
    op = _operand(operand)
    if tile.swizzle is SwizzleMode.B128_BASE32B:
        raise TileError(
            f"{tile!r}: Gluon's NVMMASharedLayout has no 32-byte-atomicity (128B_base32B) mode; "
            f"no equivalent")
    if tile.packed:
        raise TileError(
            f"{tile!r}: packed 4-bit elements; Gluon describes those bytes as an 8-bit buffer "
            f"(element_bitwidth=8 over K/2 bytes): no element-wise equivalent")
    ebits = tile.element_bits
    kdim = 1 if op == "A" else 0
    shape = (tile.mn, tile.k) if op == "A" else (tile.k, tile.mn)
    if tile.swizzle is SwizzleMode.NONE:
        transposed = False
        swz = 0
    else:
        swz = tile.swizzle.byte_width
        cdim = kdim if tile.major == "K" else 1 - kdim
        transposed = cdim == 0
    g = GluonNVMMA(swz, ebits, 2, transposed, False, shape)
    # The map must be the same function, not only the same atom: check it on every element.
    try:
        back = gluon_nvmma_shared(swz, ebits, 2, transposed, False, shape, operand=op,
                                  dtype=tile.dtype, arch=tile.arch)
    except TileError as exc:
        raise TileError(f"{tile!r} has no Gluon equivalent as operand {op}: {exc}") from None
    if back.layout != tile.layout and not _same_map(back, tile):
        raise TileError(
            f"{tile!r} has no Gluon equivalent as operand {op}: Triton places {tile.major}-major "
            f"atoms in order={back.order!r} ({'MN atoms first' if back.order == 'mn' else 'K rows first'}), "
            f"this tile uses order={tile.order!r}; use order={back.order!r}")
    return g


def _same_map(a, b):

    return (a.mn, a.k) == (b.mn, b.k) and bool((evaluate(a.layout) == evaluate(b.layout)).all())


def _log2(n):
    return n.bit_length() - 1


def nvmma_linear_layout(swizzle_byte_width, element_bitwidth, block_shape, transposed=False):
    """Triton's linear layout of a 2-D NVMMA buffer, as fastswz models it: element offset ->
    (dim0, dim1), the direction Triton uses (``nvmmaSharedToLinearLayout``).

    ``.invert()`` gives the map from the tensor index to the element offset. This model covers
    every power-of-two block, including those with no :class:`~fastswz.OperandTile` equivalent
    (row-major interleave wider than 16 bytes, transposed blocks past 256 rows).

    Examples
    --------
    >>> ll = nvmma_linear_layout(128, 16, (8, 64))
    >>> ll.bases[0][1][:3], ll.bases[0][1][6:]
    (((0, 1), (0, 2), (0, 4)), ((1, 8), (2, 16), (4, 32)))
    >>> ll.invert()(3, 10) == gluon_nvmma_shared(128, 16, block_shape=(8, 64)).layout(3, 10)
    True
    """

    swz = as_int("swizzle_byte_width", swizzle_byte_width)
    ebits = as_int("element_bitwidth", element_bitwidth)
    transposed = as_flag("transposed", transposed)
    if swz not in (0, 32, 64, 128):
        raise TileError(f"swizzle_byte_width={swz} is not one of Gluon's 0, 32, 64, 128")
    if ebits not in (8, 16, 32, 64):
        raise TileError(f"element_bitwidth={ebits} is not one of Gluon's 8, 16, 32, 64")
    if block_shape is None or isinstance(block_shape, (str, bytes)) or len(block_shape) != 2:
        raise TileError(f"block_shape={block_shape!r} must be two extents, e.g. (64, 64)")
    shape = [as_int(f"block_shape[{i}]", v) for i, v in enumerate(block_shape)]
    for i, s in enumerate(shape):
        if s < 1 or s & (s - 1):
            raise TileError(f"block_shape[{i}]={s} is not a power of two; a linear layout needs one")
    bases = []
    if swz == 0:
        # getTMABlockShape clamps each dimension to 256; the block is row-major (dim1 fastest),
        # then further blocks along dim0, then dim1
        blk = [min(s, TMA_DIM_MAX) for s in shape]
        bases += [(0, 1 << b) for b in range(_log2(blk[1]))]
        bases += [(1 << b, 0) for b in range(_log2(blk[0]))]
        bases += [(blk[0] << b, 0) for b in range(_log2(shape[0] // blk[0]))]
        bases += [(0, blk[1] << b) for b in range(_log2(shape[1] // blk[1]))]
    else:
        cd = 0 if transposed else 1
        od = 1 - cd
        width = swz * 8 // ebits
        vec = 128 // ebits
        per_phase, max_phase = {32: (4, 2), 64: (2, 4), 128: (1, 8)}[swz]
        if shape[cd] < width or shape[od] < 8:
            raise TileError(
                f"block_shape={shape} is smaller than one {swz}B core tile (8 rows x {width} "
                f"{ebits}-bit elements along the contiguous dimension); Triton refuses it too")

        def at(d, x, y=0):
            v = [0, 0]
            v[d] = x
            v[1 - d] = y
            return tuple(v)

        rows_blk = min(shape[od], TMA_DIM_MAX)
        bases += [at(cd, 1 << b) for b in range(_log2(width))]
        # the 8 rows of a core tile: 16-byte chunk index XOR (row / perPhase) % maxPhase
        bases += [at(od, r, vec * ((r // per_phase) % max_phase)) for r in (1, 2, 4)]
        bases += [at(od, 8 << b) for b in range(_log2(rows_blk // 8))]
        unit = {od: rows_blk, cd: width}
        for d in (0, 1):  # ensureLayoutNotSmallerThan: dim0 first, then dim1
            bases += [at(d, unit[d] << b) for b in range(_log2(shape[d] // unit[d]))]
    return LinearLayout([("offset", bases)], [("dim0", shape[0]), ("dim1", shape[1])])
