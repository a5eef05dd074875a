#!/usr/bin/env python3
"""How many clusters of S CTAs of a plan fit on the GPU at once (cuOccupancyMaxActiveClusters),
S = 1..8, for a few plans of the split-K cluster reduction (GPU machine)."""
import json
import sys

from fastswz.cuda import compile_gemm

PLANS = [dict(bm=64, bn=128, bk=128, stages=6, a_dtype="e4m3", b_dtype="e4m3", epilogue=False),
         dict(bm=128, bn=128, bk=128, stages=5, a_dtype="e4m3", b_dtype="e4m3", epilogue=False)]
out = []
for p in PLANS:
    for s in range(2, 9):
        k = compile_gemm(dict(p, split_k=s, split_reduce="cluster"))
        c = k._clusters(0)
        out.append({"plan": p, "splits": s, "clusters": c, "ctas": c * s})
        print(f"{p['bm']}x{p['bn']}x{p['bk']} s{p['stages']} S={s}: {c} clusters ({c * s} CTAs)", flush=True)
if len(sys.argv) > 1:
    json.dump(out, open(sys.argv[1], "w"))
