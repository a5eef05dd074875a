#!/usr/bin/env python3
"""A/B of the producer's L2 prefetch (issue 27): corpus problems on their default plan compiled
with ``FSW_L2_PREFETCH`` = each of ``--depths`` (k-tiles of A and B prefetched into the L2 beyond
the stage ring; 0: none), timed beside cuBLAS in the same process as gpu_corpus times them
(launches back to back, each after an L2 flush by a read, between its own events; median).

    FASTSWZ_CACHE=.fswcache python3 tests/gpu/gemm/l2pf.py precompile   # no GPU
    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/l2pf.py run [--out F.json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))

#: the H100 corpus run's (run 7) decode and small problems under 0.9x, and controls above it
PROBLEMS = [
    "deepseek-v2.qkv_a.m1.e4m3", "deepseek-v2.qkv_a.m16.e4m3", "deepseek-v2.qkv_a.m64.e4m3",
    "llama3-8b.o.m8.e4m3", "llama3-8b.o.m32.e4m3", "qwen2.5-7b.o.m8.e4m3", "qwen2.5-7b.qkv.m8.e4m3",
    "deepseek-v3.kv_b.m64.e4m3", "llama3-8b.down.m128.e4m3", "qwen2.5-7b.qkv.m128.e4m3",
    "qwen2.5-7b.o.m1.bf16", "qwen2.5-7b.o.m32.bf16", "llama3-8b.o.m64.bf16", "qwen2.5-7b.qkv.m128.bf16",
    "deepseek-v3.qkv_a.m128.bf16", "llama3-8b.qkv.m1.bf16",
    # controls: long decode layers and prefill, at or above cuBLAS without prefetch
    "llama3-70b.down.m8.e4m3", "llama3-70b.down.m8.bf16", "qwen2.5-7b.down.m32.bf16",
    "llama3-8b.qkv.m512.e4m3", "llama3-8b.o.m2048.bf16",
]
DEPTHS = (0, 4, 8, 16, 64)


def problems(names):
    from fastswz.corpus import load_corpus

    by = {p.name: p for p in load_corpus()}
    return [by[n] for n in names]


def builds(names, depths):
    from fastswz.cuda import choose_plan

    for p in problems(names):
        cfg = choose_plan(p.m, p.n, p.k, p.a_dtype, p.b_dtype, p.a_major, p.b_major, p.out_dtype)
        yield p, cfg, [{"FSW_L2_PREFETCH": d} for d in depths]


def precompile(args):
    from concurrent.futures import ThreadPoolExecutor

    from fastswz.cuda.runtime import compile_cubin

    todo = [(c, d) for _, c, ds in builds(args.problems, args.depths) for d in ds]
    with ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        list(ex.map(lambda t: compile_cubin(t[0], defines=t[1]), todo))
    print(f"l2pf: {len(todo)} cubins in the cache")


def run(args):
    import gpu_corpus as gc
    from fastswz.cuda import device_info
    from fastswz.cuda.runtime import GemmKernel, compile_cubin

    gpu = gc._Gpu("read")
    torch = gpu.torch
    print(device_info(), flush=True)
    ops = gc._Operands(torch)
    out = []
    for p, cfg, ds in builds(args.problems, args.depths):
        a, b, d, ptrs, lds = ops.make(p)
        fn, kind, lib = gc._cublas(torch, p, a, b)
        ref = fn()
        row = {"name": p.name, "plan": gc.plan_text(cfg), "cublas_ms": gpu.time(fn, args.reps, 2)["median_ms"]}
        for defs in ds:
            kern = GemmKernel(cfg, *compile_cubin(cfg, defines=defs))
            go, how = gc._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
            d.fill_(float("nan"))
            go()
            chk = gc._check(torch, p, d, ref)
            t = gpu.time(go, args.reps, 2)
            row[f"d{defs['FSW_L2_PREFETCH']}"] = {"ms": t["median_ms"], "spread": t["spread"], "ok": chk["ok"],
                                                  "how": how}
        row["cublas_again_ms"] = gpu.time(fn, args.reps, 2)["median_ms"]
        out.append(row)
        cb = min(row["cublas_ms"], row["cublas_again_ms"])
        cells = " ".join(f"d{k[1:]}={1e3 * v['ms']:6.1f}{'' if v['ok'] else '!'}" for k, v in row.items()
                         if k.startswith("d") and isinstance(v, dict))
        print(f"{p.name:30s} {row['plan']:44s} cuBLAS {1e3 * row['cublas_ms']:6.1f}/{1e3 * row['cublas_again_ms']:6.1f} us | {cells} "
              f"| best/cuBLAS {cb / min(v['ms'] for k, v in row.items() if k.startswith('d') and isinstance(v, dict)):.2f}x "
              f"d0/cuBLAS {cb / row['d0']['ms']:.2f}x", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": device_info(), "rows": out}, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["precompile", "run"])
    ap.add_argument("--problems", nargs="*", default=PROBLEMS)
    ap.add_argument("--depths", type=int, nargs="*", default=list(DEPTHS))
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--out")
    args = ap.parse_args()
    precompile(args) if args.what == "precompile" else run(args)


if __name__ == "__main__":
    main()
