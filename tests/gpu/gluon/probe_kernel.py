"""The Gluon kernel of the NVMMA placement probe (imported only where triton is installed).

Each element's logical row-major index ``i * C + j`` is stored from a blocked register layout
into a shared buffer with the NVMMASharedLayout under test; the same bytes are then read back
through a 1-D unswizzled view (``SwizzledSharedLayout(1, 1, 1, [0])`` of the same allocation) and
written to global memory in physical order. Indices wider than the element are stored in two
passes (low and high ``element_bitwidth`` bits; ``MASK`` is ``2**EBITS - 1``, or -1 for 32-bit).
"""

import triton.experimental.gluon.language as ttgl
from triton.experimental import gluon


@gluon.jit
def nvmma_probe(out_lo, out_hi, R: ttgl.constexpr, C: ttgl.constexpr, SWZ: ttgl.constexpr,
                EBITS: ttgl.constexpr, TRANS: ttgl.constexpr, DT: ttgl.constexpr,
                MASK: ttgl.constexpr, NW: ttgl.constexpr):
    reg2d: ttgl.constexpr = ttgl.BlockedLayout([1, 1], [1, 32], [NW, 1], [1, 0])
    reg1d: ttgl.constexpr = ttgl.BlockedLayout([1], [32], [NW], [0])
    nvmma: ttgl.constexpr = ttgl.NVMMASharedLayout(swizzle_byte_width=SWZ, element_bitwidth=EBITS,
                                                   rank=2, transposed=TRANS)
    flat: ttgl.constexpr = ttgl.SwizzledSharedLayout(1, 1, 1, [0])
    i = ttgl.arange(0, R, layout=ttgl.SliceLayout(1, reg2d))
    j = ttgl.arange(0, C, layout=ttgl.SliceLayout(0, reg2d))
    idx = i[:, None] * C + j[None, :]
    smem = ttgl.allocate_shared_memory(DT, [R, C], nvmma)
    raw = smem._reinterpret(DT, [R * C], flat)
    p = ttgl.arange(0, R * C, layout=reg1d)
    smem.store((idx & MASK).to(DT))
    ttgl.thread_barrier()
    ttgl.store(out_lo + p, raw.load(reg1d).to(ttgl.int32) & MASK)
    ttgl.thread_barrier()
    smem.store(((idx >> (EBITS // 2)) >> (EBITS // 2)).to(DT))
    ttgl.thread_barrier()
    ttgl.store(out_hi + p, raw.load(reg1d).to(ttgl.int32) & MASK)
