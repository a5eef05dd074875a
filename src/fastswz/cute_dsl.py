"""From a CUTLASS Python DSL (CuTe DSL) shared-memory layout to a fastswz operand tile.

The CuTe DSL prints an operand's shared-memory layout the way CuTe C++ prints a layout built on
``smem_ptr_flag``: the swizzle in *byte* units (it acts on the pointer), the layout in *elements*,
and ``S<B,M,S>`` for the swizzle, e.g. ``cutlass.utils.hopper_helpers.make_smem_layout_a`` for a
bf16 K-major 128 x 64 tile prints ``S<3,4,3> o 0 o ((8,16),(64,1),(1,1)):((64,512),(1,0),(0,0))``
(modes MN, K, pipeline stage). :func:`fastswz.parse` reads that text; :func:`from_cute_dsl`
converts the swizzle to element units (NOTES 1: ``Sw<3,4,3>`` on bytes is ``Sw<3,3,3>`` on 16-bit
elements) and finds the canonical tile that equals it on every element.
"""

from __future__ import annotations

from .algebra import recast
from .bulk import evaluate
from .dtypes import dtype as _dtype
from .errors import FastswzTypeError, TileError, as_int
from .layout import Layout, size
from .modes import SwizzleMode
from .notation import parse
from .swizzle import ComposedLayout, Swizzle
from .tile import OperandTile

__all__ = ["from_cute_dsl"]


def from_cute_dsl(layout, dtype, arch="sm90", stage=0):
    """The :class:`~fastswz.OperandTile` whose element layout equals a CuTe DSL smem layout.

    Parameters
    ----------
    layout : str or ComposedLayout
        What the DSL prints (``str(layout)``), or its parsed form: a byte-unit swizzle composed
        with an element layout of modes (MN, K) or (MN, K, stage).
    dtype : str
        fastswz element type (the DSL's ``a_dtype``).
    arch : {"sm90", "sm100", "sm103"}
    stage : int
        Which pipeline stage to take when the layout has a third mode (stages are whole tiles).

    Returns
    -------
    OperandTile
        The first of (K, MN) x (order mn, k) whose ``layout`` equals the DSL layout, element for
        element.

    Examples
    --------
    >>> from_cute_dsl("S<3,4,3> o 0 o ((8,16),(64,1),(1,1)):((64,512),(1,0),(0,0))", "bf16")
    OperandTile('bf16', 'K', '128B', 128, 64, order='mn', arch='sm90')
    >>> from_cute_dsl("S<3,4,3> o 0 o ((64,2),(8,8),(1,1)):((1,4096),(64,512),(0,0))", "bf16")
    OperandTile('bf16', 'MN', '128B', 128, 64, order='k', arch='sm90')
    """

    text = layout if isinstance(layout, str) else None
    if text is not None:
        layout = parse(text)
    if not isinstance(layout, ComposedLayout) or not isinstance(layout.outer, Swizzle):
        raise FastswzTypeError(
            f"layout={layout!r} must be a swizzled ComposedLayout (S<B,M,S> o 0 o layout), as "
            f"the DSL prints an operand's shared-memory layout")
    if layout.offset != 0:
        raise TileError(f"layout offset {layout.offset} must be 0 (a tile starts at its own origin)")
    dt = _dtype(dtype)
    inner = layout.inner
    stage = as_int("stage", stage)
    if len(inner) == 3:
        stages = size(inner[2])
        if not 0 <= stage < stages:
            raise TileError(f"stage={stage} is outside the layout's {stages} stage(s)")
        # stages are whole tiles: drop the mode and move the origin to the chosen stage
        off = inner[2](stage)
        inner = Layout((inner.shape[0], inner.shape[1]), (inner.stride[0], inner.stride[1]))
        if off:
            raise TileError(
                f"stage={stage} starts at element {off}; fastswz tiles start at their own origin, "
                f"use stage=0 and add {off} elements to the start address")
    elif len(inner) != 2:
        raise TileError(f"layout has {len(inner)} modes; expected (MN, K) or (MN, K, stage)")
    bits = 8 if dt.bits < 8 else dt.bits  # sub-byte types sit one per byte (kind::f8f6f4)
    sw = recast(layout.outer, 8, bits)  # byte swizzle -> element swizzle
    want = evaluate(ComposedLayout(sw, 0, inner)) if sw.bits else evaluate(inner)
    mn, k = size(inner[0]), size(inner[1])
    byte_bits = (layout.outer.bits, layout.outer.base, layout.outer.shift)
    modes = [m for m in SwizzleMode if m.swizzle_bits == byte_bits]
    if not modes:
        raise TileError(
            f"swizzle {layout.outer} is not a tensor-core swizzle (Sw<0..3,4,3> or Sw<2,5,2> on bytes)")
    tried = []
    for mode in modes:
        for major in ("K", "MN"):
            for order in ("mn", "k"):
                try:
                    t = OperandTile(dt, major, mode, mn, k, order, arch)
                except TileError as exc:
                    tried.append(f"{major}/{order}: {exc}")
                    continue
                if (evaluate(t.layout) == want).all():
                    return t
                tried.append(f"{major}/{order}: a different map")
    raise TileError(
        f"no canonical {dt} {arch} tile ({mn} x {k}) equals {text or layout}: " + "; ".join(tried))
