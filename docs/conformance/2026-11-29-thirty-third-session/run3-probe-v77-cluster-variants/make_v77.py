"""cases_v77.json: the corpus and seed 1-16 problems (both operands K-major, one type) under 0.85x of
cuBLAS's speed in the thirty-second session's merged rows (each corpus's latest full H200 run with
the thirty-first and thirty-second sessions' subset rows over it), each with its default (the rules
before QUAD_CLUSTER_MAX_BM's) and that plan's one-pass form (split 1) on 2 x 1, 4 x 1 and 4 x 2
clusters, and for BM > 64 on 64-row tiles alone and on 4 x 1, each at the most stages that run
(probe._fit). From the repository root: python3 THIS > cases_v77.json (the 4 x 2 rows failed in
run 3: the occupancy query's grid was not whole clusters of 8, fixed since)."""
import json, math, os, subprocess, sys
sys.path.insert(0, "src"); sys.path.insert(0, "tests/gpu/gemm"); sys.path.insert(0, "benchmarks")
M32 = "docs/conformance/2026-11-29-thirty-second-session/run3-probe-v75-heldout-subsets-fuzz/merge.py"
src = open(M32).read().split("for label, pattern, sub in names:")[0].replace(
    "sys.argv[1]", repr(os.path.join(os.path.dirname(M32), "subsets")))
exec(src)   # load, latest, names, S31, S32, RAG
import fastswz.cuda as fc
from fastswz.cuda.codegen import supported, normalize_config
from probe import _fit
fc.QUAD_CLUSTER_MAX_BM = 0   # the plans as they were before the rule
rows = []
for label, pattern, sub in names:
    merged = {r["name"]: r for r in load(latest(pattern))["rows"]}
    for d, skip in ((S31, RAG), (S32, set())):
        for ext in (".json.gz", ".json"):
            p = os.path.join(d, sub + ext)
            if os.path.exists(p):
                for r in load(p)["rows"]:
                    if (r["m"], r["n"], r["k"]) not in skip:
                        merged[r["name"]] = r
    rows += merged.values()
L = []
for r in rows:
    f, c = r["fastswz"], r["cublas"]
    if not (isinstance(f, dict) and "median_ms" in f and isinstance(c, dict) and "median_ms" in c):
        continue
    if c["median_ms"] / f["median_ms"] < 0.85 and r["a_major"] == "K" and r["b_major"] == "K" and r["a_dtype"] == r["b_dtype"]:
        L.append((c["median_ms"] / f["median_ms"], r["m"], r["n"], r["k"], r["a_dtype"]))
L.sort()
cases = []
for ratio, m, n, k, dt in L:
    base = fc.choose_plan(m, n, k, dt, dt)
    cfgs, seen = [dict(base)], {json.dumps(normalize_config(base), sort_keys=True)}

    def add(c):
        if c is None or supported(c) is not None:
            return
        key = json.dumps(normalize_config(c), sort_keys=True)
        if key not in seen:
            seen.add(key); cfgs.append(c)
    one = dict(base, split_k=1, stream_k=0, pingpong=False, split_reduce="auto")
    if base["split_k"] > 1 or base.get("stream_k"):
        one = _fit(dict(one, cluster_m=1, cluster_n=1))
    if one is None:
        continue
    for cm, cn in ((2, 1), (4, 1), (4, 2)):
        add(_fit(dict(one, cluster_m=cm, cluster_n=cn, pingpong=False)))
    if one["bm"] > 64:
        for cm in (1, 4):
            add(_fit(dict(one, bm=64, cluster_m=cm, cluster_n=1, epilogue_n=0, epilogue_stages=1)))
    cases.append({"shape": [m, n, k], "dtype": dt, "configs": cfgs})
json.dump(cases, sys.stdout)
