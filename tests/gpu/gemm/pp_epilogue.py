#!/usr/bin/env python3
"""Ping-pong consumers with the shared-memory (TMA-store) epilogue beside the cooperative plans
(GPU machine): correctness on small integers with ragged edges, then kernel times of each plan's
plain GEMM (bf16 out) and fused epilogue (bias + GELU + e4m3 out + amax), GemmKernel.time.

    FASTSWZ_CACHE=$PWD/.fswcache python3 tests/gpu/gemm/pp_epilogue.py [--precompile] [--shapes M,N,K ...]
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
from fastswz.cuda import compile_many, normalize_config  # noqa: E402

FP8 = dict(a_dtype="e4m3", b_dtype="e4m3", bk=128)
PLANS = {
    "coop 128x256 s4 e2x64": dict(FP8, bm=128, bn=256, stages=4, epilogue=True, epilogue_n=64, epilogue_stages=2),
    "coop 128x128 s5 e1": dict(FP8, bm=128, bn=128, stages=5, epilogue=True),
    "pp 128x128 s5 e2x64": dict(FP8, bm=128, bn=128, stages=5, pingpong=True, epilogue=True, epilogue_n=64,
                                epilogue_stages=2),
    "pp 128x128 s5 e4x64": dict(FP8, bm=128, bn=128, stages=5, pingpong=True, epilogue=True, epilogue_n=64,
                                epilogue_stages=4),
    "pp 128x128 s4 e2x128": dict(FP8, bm=128, bn=128, stages=4, pingpong=True, epilogue=True, epilogue_stages=2),
    "pp 128x128 s5 e2x64 c2": dict(FP8, bm=128, bn=128, stages=5, pingpong=True, epilogue=True, epilogue_n=64,
                                   epilogue_stages=2, cluster_m=2),
    "pp 64x256 s4 e2x64 c2": dict(FP8, bm=64, bn=256, stages=4, pingpong=True, epilogue=True, epilogue_n=64,
                                  epilogue_stages=2, cluster_m=2),
    "pp 64x256 s4 e2x64": dict(FP8, bm=64, bn=256, stages=4, pingpong=True, epilogue=True, epilogue_n=64,
                               epilogue_stages=2),
}
FUSED = dict(scale="tensor", bias="bf16", activation="gelu", out_dtype="e4m3", amax=True)
SHAPES = ["4096,14336,4096", "4096,4096,7168", "8192,8192,8192", "2048,2048,2048", "16384,1024,4096"]


def configs():
    out = []
    for name, plan in PLANS.items():
        out.append((name, "plain", normalize_config(plan)))
        out.append((name, "fused", normalize_config(plan, **FUSED)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--precompile", action="store_true")
    ap.add_argument("--shapes", nargs="*", default=SHAPES)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    cfgs = configs()
    kerns = compile_many([c for *_, c in cfgs])
    if args.precompile:
        print(f"compiled {len(kerns)} kernels")
        return
    from fastswz.cuda.runtime import check
    for (name, kind, c), kern in zip(cfgs, kerns):
        for shape in ((777, 1500, 1000), (1000, 1000, 520)):
            r = check(kern, *shape, ints=True)
            print(f"check {name:24s} {kind:5s} {shape}: mismatches {r.get('mismatches')} unwritten "
                  f"{r.get('unwritten')} error {r.get('error')} rel_err {r.get('rel_err')}", flush=True)
    rows = []
    for s in args.shapes:
        m, n, k = (int(x) for x in s.split(","))
        base = None
        for (name, kind, c), kern in zip(cfgs, kerns):
            t = kern.time(m, n, k, reps=args.reps)
            if base is None:
                base = t["median_ms"]   # the cooperative 128 x 256 plan's plain GEMM
            rows.append({"shape": [m, n, k], "plan": name, "kind": kind, "config": c, **t})
            print(f"{m}x{n}x{k} {name:24s} {kind:5s} {t['median_ms'] * 1e3:8.1f} us {t['tflops']:7.1f} TF "
                  f"{base / t['median_ms']:6.1%} of coop plain (spread {t['spread']:.1%})", flush=True)
    out = os.environ.get("OUT")
    if out:
        json.dump(rows, open(os.path.join(out, "pp_epilogue.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
