"""linear_evaluate (GF(2) linear layouts): the whole domain (doubling table) and n given inputs.

The layout is the bf16 K-major 128B tile with mn x 64 elements as a LinearLayout (mn, k) ->
element offset; ``linear_evaluate_at`` evaluates it at n random flat inputs. Rows: twin, core,
sol, sol_alloc, and a ``[ll.apply_flat(x) for x in inputs]`` loop at the smallest size.
"""

from __future__ import annotations

import numpy as np

import fastswz
from fastswz.linear import linear_evaluate, to_linear_layout

FULL = (1024, 16384, 262144, 1 << 20, 1 << 22)
QUICK = (1024, 65536, 1 << 20)


def cases(name, mode):
    sizes = FULL if mode == "full" else QUICK
    out = []
    for op in ("linear_evaluate", "linear_evaluate_at"):
        for n in sizes:
            impls = ["twin", "core", "sol", "sol_alloc"] + (["py_loop"] if n == sizes[0] else [])
            out += [(op, n, impl) for impl in impls]
    return out


_CACHE: dict = {}


def _case(bench, op, n):
    hit = _CACHE.get((op, n))
    if hit is None:
        _CACHE.clear()
        ll = to_linear_layout(fastswz.OperandTile("bf16", "K", "128B", n // 64, 64))
        args = (ll,) if op == "linear_evaluate" else (ll, bench.rng(op, n).integers(0, n, n, dtype=np.int64))
        hit = _CACHE[(op, n)] = (args, bench.reference.linear_evaluate(*args))
    return hit


def test_linear_evaluate(bench, benchmark, case):
    op, n, impl = case
    args, want = _case(bench, op, n)
    if impl in ("sol", "sol_alloc"):
        bench.sol(benchmark, want.shape, want.dtype, op=op, n=n, alloc=impl == "sol_alloc")
        return
    kw = dict(op=op, n=n, impl=impl, out_bytes=want.nbytes)
    if impl == "twin":
        got = bench.run(benchmark, bench.reference.linear_evaluate, *args, **kw)
    elif impl == "core":
        got = bench.run(benchmark, linear_evaluate, *args, **kw)
    else:
        ll = args[0]
        xs = args[1].tolist() if len(args) == 2 else range(n)

        def loop():
            return [ll.apply_flat(x) for x in xs]
        got = np.array(bench.run(benchmark, loop, **kw), dtype=np.int64)
    bench.equal(got, want)
