"""tile_configs: a whole autotuner space of tile configurations in one call.

The space is n random configurations (fixed seed): dtype in bf16/f16/e4m3/tf32/s8, major K/MN,
swizzle none/32B/64B/128B, mn a multiple of 8 up to 256, k a multiple of 16 up to 512,
arch sm90/sm100, inst_mn 0 (whole tile)/64/128, so that every error code occurs. The twin
builds one OperandTile per configuration (tens of microseconds each), so its row is timed only
up to TWIN_MAX configurations; above that the core's result is checked against the twin on a
fixed random sample of SAMPLE configurations. Rows: twin, core, sol (four int64 rows of n: the
int8 error row is left out), sol_alloc.
"""

from __future__ import annotations

import numpy as np

import fastswz

FULL = (1024, 16384, 262144, 1 << 20, 1 << 22)
QUICK = (1024, 65536, 1 << 20)
TWIN_MAX = 16384
SAMPLE = 4096
DTYPES = ["bf16", "f16", "e4m3", "tf32", "s8"]


def cases(name, mode):
    sizes = FULL if mode == "full" else QUICK
    out = []
    for n in sizes:
        impls = (["twin"] if n <= TWIN_MAX else []) + ["core", "sol", "sol_alloc"]
        out += [(n, impl) for impl in impls]
    return out


def space(bench, n):
    r = bench.rng("tile_configs", n)
    return dict(dtype=r.choice(DTYPES, n), major=r.choice(["K", "MN"], n),
                swizzle=r.choice(["none", "32B", "64B", "128B"], n),
                mn=r.integers(1, 33, n, dtype=np.int64) * 8,
                k=r.integers(1, 33, n, dtype=np.int64) * 16,
                arch=r.choice(["sm90", "sm100"], n), inst_mn=r.choice([0, 64, 128], n))


_CACHE: dict = {}


def _case(bench, n):
    hit = _CACHE.get(n)
    if hit is None:
        _CACHE.clear()
        args = space(bench, n)
        if n <= TWIN_MAX:
            hit = (args, None, bench.reference.tile_configs(**args))
        else:
            pick = np.sort(bench.rng("tile_configs sample", n).choice(n, SAMPLE, replace=False))
            sample = {k: v[pick] for k, v in args.items()}
            hit = (args, pick, bench.reference.tile_configs(**sample))
        _CACHE[n] = hit
    return hit


def test_tile_configs(bench, benchmark, case):
    n, impl = case
    args, pick, want = _case(bench, n)
    op = "tile_configs"
    out_bytes = n * (1 + 4 * 8)
    if impl in ("sol", "sol_alloc"):
        bench.sol(benchmark, (4, n), np.int64, op=op, n=n, alloc=impl == "sol_alloc")
        return
    fn = bench.reference.tile_configs if impl == "twin" else fastswz.tile_configs
    got = bench.run(benchmark, fn, op=op, n=n, impl=impl, out_bytes=out_bytes, kwargs=args)
    if pick is not None:
        got = {k: v[pick] for k, v in got.items()}
    bench.equal(got, want)
    assert set(np.unique(got["error"]).tolist()) >= {0, 8}  # legal and illegal configurations
