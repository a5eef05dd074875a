#!/usr/bin/env python3
"""Plan variants of gemm()'s default plan timed in turn (a GPU A/B of plan parameters, where
ab_defines.py varies the kernel's defines): exact check on small integers, then rounds of A B C ...
(GemmKernel.time), per problem; the best round per variant and its ratio to the default.
    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/ab_configs.py 'VARIANTS-JSON' MxNxK:dtype[:FUSION-JSON] ...
VARIANTS-JSON: a list of {key: value} changes to the default plan (e.g. [{"epilogue_stages": 2}]),
each with the kernel's defines under "defines" if it needs any (e.g. {"stages": 5, "defines": {"FSW_SCALE_AHEAD": 2}});
FUSION-JSON as ab_defines.py's (with "out_dtype"). PRECOMPILE=1 compiles every variant and exits
(those without defines JOBS at a time, default: the CPUs).
"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_defines import default_plans  # noqa: E402 - the same specs as ab_defines.py
from fastswz.cuda import normalize_config, supported  # noqa: E402
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin  # noqa: E402

variants = json.loads(sys.argv[1])
probs = []
for m, n, k, dt, base in default_plans(sys.argv[2:]):
    cfgs = [("default", base, None)] + [
        (json.dumps(v, separators=(",", ":")),
         normalize_config(dict(base, **{k_: x for k_, x in v.items() if k_ != "defines"})), v.get("defines"))
        for v in variants]
    run = []
    for name, c, d in cfgs:
        why = supported(c)
        if why is None:
            run.append((name, c, d))
        else:
            print(f"{m}x{n}x{k} {dt} {name}: not run ({why})", flush=True)
    probs.append((m, n, k, dt, run))
if os.environ.get("PRECOMPILE"):
    # the plans without defines in parallel (JOBS, default: the CPUs), the others one by one
    from fastswz.cuda import compile_many
    plain = [c for *_, cfgs in probs for _, c, d in cfgs if not d]
    bad = [k for k in compile_many(plain, jobs=int(os.environ.get("JOBS", "0")) or None) if not hasattr(k, "cubin")]
    for *_, cfgs in probs:
        for _, c, d in cfgs:
            if d:
                compile_cubin(c, defines=d)
    print(f"precompiled {len(plain)} plans without defines, {len(bad)} failed", bad[:3])
    sys.exit(1 if bad else 0)
for m, n, k, dt, cfgs in probs:
    kerns = [GemmKernel(c, *compile_cubin(c, defines=d)) for _, c, d in cfgs]
    names = [nm for nm, _, _ in cfgs]
    cfgs = [c for _, c, _ in cfgs]
    bad = [check(kern, min(m, 1024), min(n, 1024), min(k, 1024), ints=True) for kern in kerns]
    t = [[] for _ in kerns]
    for _ in range(3):
        for i, kern in enumerate(kerns):
            t[i].append(kern.time(m, n, k, warmup=3, reps=15)["median_ms"])
    best = [min(x) for x in t]
    print(f"{m}x{n}x{k} {dt} {json.dumps({k_: cfgs[0][k_] for k_ in ('bm', 'bn', 'stages', 'epilogue_n', 'epilogue_stages', 'tile_group', 'activation', 'out_dtype')})}: "
          + "; ".join(f"{nm} {b * 1e3:.1f} us ({best[0] / b:.3f}x, check {c.get('mismatches')}/{c.get('unwritten')})"
                      for nm, b, c in zip(names, best, bad)), flush=True)
