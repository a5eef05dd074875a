#!/usr/bin/env python3
"""Plan variants of gemm()'s default plan timed in turn (a GPU A/B of plan parameters, where
ab_defines.py varies the kernel's defines): exact check on small integers, then rounds of A B C ...
(GemmKernel.time), per problem; the best round per variant and its ratio to the default.
    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/ab_configs.py 'VARIANTS-JSON' MxNxK:dtype[:FUSION-JSON] ...
VARIANTS-JSON: a list of {key: value} changes to the default plan (e.g. [{"epilogue_stages": 2}]);
FUSION-JSON as ab_defines.py's (with "out_dtype"). PRECOMPILE=1 compiles every variant and exits.
"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda import default_config, normalize_config, supported
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin

variants = json.loads(sys.argv[1])
probs = []
for spec in sys.argv[2:]:
    shape, dt, *fusion = spec.split(":", 2)
    m, n, k = (int(x) for x in shape.split("x"))
    fusion = json.loads(fusion[0]) if fusion else {}
    out = fusion.pop("out_dtype", "bf16")
    base = default_config(m, n, k, dt, dt, out_dtype=out, fusion=fusion)
    cfgs = [base] + [normalize_config(dict(base, **v)) for v in variants]
    cfgs = [c for c in cfgs if supported(c) is None]
    probs.append((m, n, k, dt, cfgs))
if os.environ.get("PRECOMPILE"):
    for *_, cfgs in probs:
        for c in cfgs:
            compile_cubin(c)
    sys.exit()
for m, n, k, dt, cfgs in probs:
    kerns = [GemmKernel(c, *compile_cubin(c)) for c in cfgs]
    bad = [check(kern, min(m, 1024), min(n, 1024), min(k, 1024), ints=True) for kern in kerns]
    t = [[] for _ in kerns]
    for _ in range(3):
        for i, kern in enumerate(kerns):
            t[i].append(kern.time(m, n, k, warmup=3, reps=15)["median_ms"])
    best = [min(x) for x in t]
    names = ["default"] + [json.dumps(v, separators=(",", ":")) for v in variants]
    print(f"{m}x{n}x{k} {dt} {json.dumps({k_: cfgs[0][k_] for k_ in ('bm', 'bn', 'stages', 'epilogue_n', 'epilogue_stages', 'tile_group', 'activation', 'out_dtype')})}: "
          + "; ".join(f"{nm} {b * 1e3:.1f} us ({best[0] / b:.3f}x, check {c.get('mismatches')}/{c.get('unwritten')})"
                      for nm, b, c in zip(names, best, bad)), flush=True)
