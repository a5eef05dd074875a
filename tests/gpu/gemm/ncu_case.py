#!/usr/bin/env python3
"""One plan, a few launches on one shape, for Nsight Compute (-k regex:fastswz).
    python3 tests/gpu/gemm/ncu_case.py '{"bm":128,"bn":256,"bk":64,"stages":3,"epilogue":true}' M N K [DEFINES-JSON]
"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda.codegen import normalize_config
from fastswz.cuda.runtime import GemmKernel, compile_cubin

cfg = normalize_config(json.loads(sys.argv[1]))
m, n, k = (int(x) for x in sys.argv[2:5])
defines = json.loads(sys.argv[5]) if len(sys.argv) > 5 else None
if os.environ.get("PRECOMPILE"):
    compile_cubin(cfg, defines=defines)
    sys.exit()
cubin, key = compile_cubin(cfg, defines=defines)
kern = GemmKernel(cfg, cubin, key)
r = kern.time(m, n, k, warmup=2, reps=5)
print(json.dumps({"config": cfg, "defines": defines, "shape": [m, n, k], "grid": kern.grid(m, n), **r}))
