#!/usr/bin/env python3
"""Which kernels cuBLAS runs on corpus problems, beside fastswz's default plan (GPU machine).

    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/cublas_kernels.py \
        --subset 'llama3-8b.o.m128.e4m3,ragged.*' [--reps 5] [--out DIR]

For each selected problem both libraries run ``--reps`` times under ``torch.profiler`` (CUDA
activity only); the kineto trace gives every kernel's name (cuBLAS's names carry its tile,
cluster and split-K choice), grid, block, registers, shared memory and duration. One line per
distinct kernel and library: the mean duration over the repeats. The trace JSON goes to --out.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))

import gpu_corpus  # noqa: E402
from probe import default_pair  # noqa: E402


def kernels(trace_path):
    with open(trace_path) as f:
        events = json.load(f).get("traceEvents", [])
    out = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        a = e.get("args", {})
        key = (e["name"], tuple(a.get("grid", ())), tuple(a.get("block", ())))
        rec = out.setdefault(key, {"durs": [], "regs": a.get("registers per thread"),
                                   "smem": a.get("shared memory"), "cluster": a.get("cluster")})
        rec["durs"].append(float(e.get("dur", 0.0)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subset", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    from fastswz.corpus import load_corpus
    from fastswz.cuda import device_info

    device_info()
    problems = gpu_corpus.select(load_corpus(), subset=args.subset)
    ops = gpu_corpus._Operands(torch)
    out_dir = args.out or tempfile.mkdtemp()
    os.makedirs(out_dir, exist_ok=True)
    summary = []
    for p in problems:
        cfg, go, fn, library, operands = default_pair(torch, ops, p)
        rows = {}
        for lib, f in (("fastswz", go), ("cublas", fn)):
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(args.reps):
                    f()
                torch.cuda.synchronize()
            path = os.path.join(out_dir, f"{p.name}.{lib}.json")
            prof.export_chrome_trace(path)
            rows[lib] = kernels(path)
            os.remove(path)
        print(f"{p.name}  {p.m}x{p.n}x{p.k} {p.a_dtype}  plan {gpu_corpus.plan_text(cfg)}  ({library})")
        rec = {"name": p.name, "shape": [p.m, p.n, p.k], "dtype": p.a_dtype, "plan": cfg, "kernels": []}
        for lib, ks in rows.items():
            for (name, grid, block), r in ks.items():
                mean = statistics.mean(r["durs"])
                print(f"   {lib:8s} {mean:8.1f} us x{len(r['durs'])} grid {list(grid)} block {list(block)} "
                      f"regs {r['regs']} smem {r['smem']} cluster {r['cluster']}  {name[:150]}")
                rec["kernels"].append({"lib": lib, "name": name, "grid": list(grid), "block": list(block),
                                       "mean_us": mean, "n": len(r["durs"]), "regs": r["regs"],
                                       "smem": r["smem"]})
        summary.append(rec)
        sys.stdout.flush()
    with open(os.path.join(out_dir, "cublas_kernels.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
