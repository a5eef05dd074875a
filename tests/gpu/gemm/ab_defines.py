#!/usr/bin/env python3
"""Default plans compiled with and without a set of defines: exact check on small integers, then
alternating timings (GemmKernel.time, A B A B), per problem (a GPU A/B of a kernel variant).
    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/ab_defines.py 'DEFINES-JSON' MxNxK:dtype[:FUSION-JSON] ...
(FUSION-JSON: the fused epilogue and scales, as default_config's fusion=, e.g. {"scale": "block"},
and "out_dtype" (bf16 when absent); its plan is gemm()'s default for them.)
PRECOMPILE=1 compiles both variants of every problem's plan into the cache and exits.
"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda import default_config
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin


def default_plans(specs):
    """``[(m, n, k, dtype, gemm()'s default configuration)]`` of ``MxNxK:dtype[:FUSION-JSON]`` specs."""
    probs = []
    for spec in specs:
        shape, dt, *fusion = spec.split(":", 2)
        m, n, k = (int(x) for x in shape.split("x"))
        fusion = json.loads(fusion[0]) if fusion else {}
        out = fusion.pop("out_dtype", "bf16")
        probs.append((m, n, k, dt, default_config(m, n, k, dt, dt, out_dtype=out, fusion=fusion)))
    return probs


def main(argv):
    defs = json.loads(argv[0])
    probs = default_plans(argv[1:])
    if os.environ.get("PRECOMPILE"):
        for *_, c in probs:
            for d in (None, defs):
                compile_cubin(c, defines=d)
        return
    for m, n, k, dt, c in probs:
        kerns = [GemmKernel(c, *compile_cubin(c, defines=d)) for d in (None, defs)]
        checks = [check(kern, min(m, 1024), min(n, 1024), min(k, 1024), ints=True) for kern in kerns]
        t = [[], []]
        for _ in range(2):
            for i, kern in enumerate(kerns):
                t[i].append(kern.time(m, n, k, warmup=3, reps=15)["median_ms"])
        a, b = min(t[0]), min(t[1])
        print(f"{m}x{n}x{k} {dt} {c['bm']}x{c['bn']} s{c['stages']} scale={c['scale']}: base {a * 1e3:.1f} us, defines {b * 1e3:.1f} us ({a / b:.3f}x); "
              f"check base {checks[0].get('mismatches')}/{checks[0].get('unwritten')}, "
              f"defines {checks[1].get('mismatches')}/{checks[1].get('unwritten')}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
