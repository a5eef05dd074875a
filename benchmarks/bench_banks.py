"""bank_wavefronts: shared-memory wavefronts of n warp instructions (32 lane addresses each).

Rows per group: twin (numpy: sort + bincount per phase) and core (per bank group a 64-bit mask
of the 128-byte rows seen: popcount for 1-4 bytes, a count in the top byte for 8/16). Inputs:
random width-aligned addresses in a 4 KiB window (many conflicts, some broadcast), all lanes
active, loads; every access width (1, 2, 4: one 32-lane phase; 8: half-warps; 16:
quarter-warps). Target: twin/core >= 10 at n = 1e6 instructions.
"""

from __future__ import annotations

import functools

import numpy as np

import fastswz

FULL = (1000, 100_000, 1_000_000)
QUICK = (1_000_000,)


def cases(name, mode):
    sizes = FULL if mode == "full" else QUICK
    return [(w, n, impl) for w in (1, 2, 4, 8, 16) for n in sizes for impl in ("twin", "core")]


@functools.lru_cache(maxsize=1)
def _inputs(bench, width, n):
    a = bench.rng("banks", width, n).integers(0, 4096 // width, (n, 32)) * width
    return np.ascontiguousarray(a, dtype=np.int64)


def test_bank_wavefronts(bench, benchmark, case):
    width, n, impl = case
    addr = _inputs(bench, width, n)
    fn = bench.reference.bank_wavefronts if impl == "twin" else fastswz.bank_wavefronts
    got = bench.run(benchmark, fn, addr, width, op=f"bank_wavefronts[{width}B]", n=n, impl=impl,
                    out_bytes=n * 8)
    bench.equal(got, bench.reference.bank_wavefronts(addr, width) if impl == "core" else got)
