#!/usr/bin/env python3
"""runtime.check of a few configurations, each with and without a set of defines (a GPU bisect).
    python3 tests/gpu/gemm/debug_cfg.py 'CFG-JSON;CFG-JSON' 'DEFINES-JSON' M,N,K
"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda.codegen import normalize_config
from fastswz.cuda.runtime import GemmKernel, compile_cubin, check

cfgs = [normalize_config(json.loads(c)) for c in sys.argv[1].split(";")]
defs = json.loads(sys.argv[2])
m, n, k = (int(x) for x in sys.argv[3].split(","))
if os.environ.get("PRECOMPILE"):
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(16) as ex:
        list(ex.map(lambda a: compile_cubin(*a), [(c, True, d) for c in cfgs for d in (None, defs)]))
    sys.exit()
for c in cfgs:
    for d in (defs, None):
        cubin, key = compile_cubin(c, defines=d)
        kern = GemmKernel(c, cubin, key)
        r = check(kern, m, n, k, ints=True)
        print(json.dumps({k2: c[k2] for k2 in ("bm", "bn", "epilogue", "scale", "out_dtype", "bias", "amax")}), d, {x: r.get(x) for x in ("mismatches", "unwritten", "error", "rel_err")}, flush=True)
