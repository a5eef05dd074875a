"""bank_wavefronts: shared-memory wavefronts of n warp instructions (32 lane addresses each).

Rows per group: twin (numpy: sort + bincount per phase) and core (Cython: a 64-slot set per
phase). Inputs: random 16-byte-aligned addresses in a 4 KiB window (many conflicts, some
broadcast), all lanes active, loads; width 4 and 16 (quarter-warp phases). Target: twin/core >= 10
at n = 1e6 instructions.
"""

from __future__ import annotations

import functools

import numpy as np

import fastswz

FULL = (1000, 100_000, 1_000_000)
QUICK = (1_000_000,)


def cases(name, mode):
    sizes = FULL if mode == "full" else QUICK
    return [(w, n, impl) for w in (4, 16) for n in sizes for impl in ("twin", "core")]


@functools.lru_cache(maxsize=2)
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
