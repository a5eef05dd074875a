# fuzz.py's plans for the given seeds compiled in parallel (fuzz.py precompile compiles one by one)
import sys
sys.path.insert(0, "tests/gpu/gemm")
import fuzz
from fastswz.cuda import compile_many
cfgs = {}
for seed in map(int, sys.argv[2:]):
    for c in fuzz.cases(seed, int(sys.argv[1])):
        cfg = fuzz.config(c)
        cfgs[repr(sorted(cfg.items()))] = cfg
bad = [k for k in compile_many(list(cfgs.values()), jobs=16) if not hasattr(k, "cubin")]
print(len(cfgs), "plans compiled,", len(bad), "failed", bad[:3])
