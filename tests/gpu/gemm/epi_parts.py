#!/usr/bin/env python3
"""Where the fused epilogue's time goes: one plan, one shape, each epilogue part alone and
together (kernel time, GemmKernel.time: CUDA events, L2 flushed, median).

    FASTSWZ_CACHE=$PWD/.fswcache python3 tests/gpu/gemm/epi_parts.py [--shape M,N,K] [--plan JSON] [--precompile]
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
from fastswz.cuda import compile_many, normalize_config  # noqa: E402

PLAN = dict(a_dtype="e4m3", b_dtype="e4m3", bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=64)
PARTS = {
    "plain bf16": {},
    "bias": dict(bias="bf16"),
    "gelu_tanh": dict(activation="gelu_tanh"),
    "gelu (erf)": dict(activation="gelu"),
    "amax": dict(amax=True),
    "e4m3 out": dict(out_dtype="e4m3"),
    "rowwise": dict(scale="row"),
    "bias+gelu_tanh": dict(bias="bf16", activation="gelu_tanh"),
    "bias+gelu_tanh+e4m3+amax": dict(bias="bf16", activation="gelu_tanh", out_dtype="e4m3", amax=True),
    "residual bf16": dict(residual="bf16"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="4096,14336,4096")
    ap.add_argument("--plan", default=None, help="JSON plan fields replacing the default plan's")
    ap.add_argument("--precompile", action="store_true")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    plan = dict(PLAN, **json.loads(args.plan)) if args.plan else PLAN
    cfgs = {name: normalize_config(dict(plan, **extra)) for name, extra in PARTS.items()}
    kerns = compile_many(list(cfgs.values()))
    if args.precompile:
        return
    m, n, k = (int(x) for x in args.shape.split(","))
    base = None
    print(f"plan {json.dumps(plan)}  shape {m}x{n}x{k}")
    for (name, cfg), kern in zip(cfgs.items(), kerns):
        r = kern.time(m, n, k, reps=args.reps)
        base = base or r["median_ms"]
        print(f"{name:28s} {r['median_ms'] * 1e3:9.1f} us  {r['tflops']:7.1f} TFLOP/s  {base / r['median_ms']:6.1%} of plain")


if __name__ == "__main__":
    main()
