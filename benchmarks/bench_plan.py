"""plan_gemm: whole GEMM plans for an autotuner's space in one call (issue 10: >= 5e6 configs/s).

Two spaces of n configurations (fixed seed):

* ``plan_gemm``: a cartesian product built by broadcasting, as an autotuner writes it: arch x
  A dtype (B the same) x A major x B major x BM x BN x BK x stages x swizzle A, trimmed to n.
  Every categorical argument is a short axis, so argument handling is O(axes), not O(n).
* ``plan_gemm_random``: every argument an independent random array of n entries (strings
  included): the worst case for argument handling (a dictionary lookup per distinct name and an
  ``np.unique`` over each n-long string array).

The twin builds two OperandTiles per configuration (about 100 us each), so it is timed only up
to TWIN_MAX configurations; above that the core's result is checked on a fixed random sample.
Rows: twin, core, sol (the 31 int32 + 2 uint64 output rows filled), sol_alloc.
"""

from __future__ import annotations

import numpy as np

import fastswz

FULL = (1024, 16384, 262144, 1 << 20, 1 << 22)
QUICK = (1024, 65536, 1 << 20)
TWIN_MAX = 4096
SAMPLE = 2048
DTYPES = ["bf16", "f16", "e4m3", "tf32", "s8"]
SWIZZLES = ["auto", "none", "32B", "64B", "128B"]


def cases(name, mode):
    sizes = FULL if mode == "full" else QUICK
    out = []
    for n in sizes:
        impls = (["twin"] if n <= TWIN_MAX else []) + ["core", "sol", "sol_alloc"]
        out += [(n, impl) for impl in impls]
    return out


def grid_space(n):
    """A broadcast product with at least n configurations, then the first n of its BM axis.

    The leading axis (stages) is sized to give exactly n when n is a multiple of the rest."""
    ax = lambda v, d: np.array(v).reshape([-1] + [1] * d)  # noqa: E731
    rest = dict(arch=ax(["sm90", "sm100"], 7), a_dtype=ax(DTYPES, 6), a_major=ax(["K", "MN"], 5),
                b_major=ax(["K", "MN"], 4), bm=ax([64, 128, 256, 192], 3),
                bn=ax(list(range(16, 257, 16)), 2), bk=ax([32, 64, 128, 256], 1),
                swizzle_a=np.array(SWIZZLES))
    per = int(np.prod(np.broadcast_shapes(*(np.shape(v) for v in rest.values()))))
    # stages cycle through 1..64 (plan_gemm's range) so the axis can be as long as n needs
    stages = (np.arange(max(1, n // per)) % 64 + 1).reshape([-1] + [1] * 8) if n >= per else 1
    if n < per:  # small n: trim the BN axis
        rest["bn"] = rest["bn"][: max(1, n // (per // 16))]
    return dict(rest, b_dtype=rest["a_dtype"], stages=stages)


def random_space(bench, n):
    r = bench.rng("plan_gemm", n)
    return dict(arch=r.choice(["sm90", "sm100"], n), a_dtype=r.choice(DTYPES, n),
                b_dtype=r.choice(DTYPES, n), a_major=r.choice(["K", "MN"], n),
                b_major=r.choice(["K", "MN"], n), bm=r.choice([64, 128, 192, 256], n),
                bn=r.integers(1, 33, n, dtype=np.int64) * 8, bk=r.choice([16, 32, 64, 128, 256], n),
                stages=r.integers(1, 9, n), swizzle_a=r.choice(SWIZZLES, n),
                swizzle_b=r.choice(SWIZZLES, n), cta_group=r.choice([1, 2], n))


_CACHE: dict = {}


def _case(bench, kind, n):
    key = (kind, n)
    hit = _CACHE.get(key)
    if hit is None:
        _CACHE.clear()
        args = grid_space(n) if kind == "grid" else random_space(bench, n)
        size = int(np.prod(np.broadcast_shapes(*(np.shape(v) for v in args.values()))))
        if size <= TWIN_MAX:
            hit = (args, size, None, bench.reference.plan_gemm(**args).to_dict())
        else:
            # The sample: the same configurations, flattened and picked, as 1-D arrays.
            pick = np.sort(bench.rng("plan_gemm sample", kind, n).choice(size, SAMPLE, replace=False))
            shape = np.broadcast_shapes(*(np.shape(v) for v in args.values()))
            flat = {k: np.broadcast_to(np.asarray(v), shape).ravel()[pick] for k, v in args.items()}
            hit = (args, size, pick, bench.reference.plan_gemm(**flat).to_dict())
        _CACHE[key] = hit
    return hit


def _run(bench, benchmark, case, kind):
    n, impl = case
    args, size, pick, want = _case(bench, kind, n)
    op = "plan_gemm" if kind == "grid" else "plan_gemm_random"
    out_bytes = size * (31 * 4 + 2 * 8)
    if impl in ("sol", "sol_alloc"):
        bench.sol(benchmark, (33, size), np.int32, op=op, n=size, alloc=impl == "sol_alloc")
        return
    fn = bench.reference.plan_gemm if impl == "twin" else fastswz.plan_gemm
    got = bench.run(benchmark, fn, op=op, n=size, impl=impl, out_bytes=out_bytes, kwargs=args).to_dict()
    if pick is not None:
        got = {k: v.ravel()[pick] for k, v in got.items()}
    bench.equal(got, want)
    assert got["legal"].any() and not got["legal"].all()  # legal and illegal configurations


def test_plan_gemm(bench, benchmark, case):
    _run(bench, benchmark, case, "grid")


def test_plan_gemm_random(bench, benchmark, case):
    _run(bench, benchmark, case, "random")
