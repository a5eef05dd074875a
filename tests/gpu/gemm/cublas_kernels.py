#!/usr/bin/env python3
"""Which kernels cuBLAS runs on corpus problems, beside fastswz's default plan (GPU machine).

    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/cublas_kernels.py \
        --subset 'llama3-8b.o.m128.e4m3,ragged.*' [--corpus FILE] [--reps 5] [--flush read] [--out DIR]

For each selected problem both libraries run ``--reps`` times under ``torch.profiler`` (CUDA
activity only); the kineto trace gives every kernel's name (cuBLAS's names carry its tile,
cluster and split-K choice), grid, block, registers, shared memory and duration. One line per
distinct kernel and library: the mean duration over the repeats. The trace JSON goes to --out.

``--flush read`` (or ``memset``) evicts the L2 before every repeat as ``gpu_corpus``'s timing
loop does (the flush's own kernels are left out of the listing) and also times each library
with that loop (CUDA events around each launch, median): the two figures side by side show what
the event-timed loop adds to the kernels' own durations. The line ``event floor`` is the same
loop around a one-element torch kernel.
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
    ap.add_argument("--corpus", default=None, help="a corpus file (default: the shipped corpus)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=None)
    ap.add_argument("--flush", choices=("none", "read", "memset"), default="none")
    args = ap.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    from fastswz.corpus import load_corpus
    from fastswz.cuda import device_info

    device_info()
    problems = gpu_corpus.select(load_corpus(args.corpus), subset=args.subset)
    ops = gpu_corpus._Operands(torch)
    out_dir = args.out or tempfile.mkdtemp()
    os.makedirs(out_dir, exist_ok=True)
    summary = []
    gpu = gpu_corpus._Gpu("read" if args.flush == "none" else args.flush)
    flush_names = set()
    if args.flush != "none":
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            gpu._flush(0)
            torch.cuda.synchronize()
        path = os.path.join(out_dir, "flush.json")
        prof.export_chrome_trace(path)
        flush_names = {name for name, _, _ in kernels(path)}
        os.remove(path)
        one = torch.zeros(1, device="cuda")
        floor = gpu.time(lambda: one.add_(1), 30, 3)["median_ms"] * 1e3
        print(f"event floor: {floor:.1f} us per launch (a one-element kernel, {args.flush} flush)")
    for p in problems:
        cfg, go, fn, library, operands = default_pair(torch, ops, p)
        rows = {}
        for lib, f in (("fastswz", go), ("cublas", fn)):
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for i in range(args.reps):
                    if args.flush != "none":
                        gpu._flush(i)
                    f()
                torch.cuda.synchronize()
            path = os.path.join(out_dir, f"{p.name}.{lib}.json")
            prof.export_chrome_trace(path)
            rows[lib] = {key: r for key, r in kernels(path).items() if key[0] not in flush_names}
            os.remove(path)
        events = {}
        if args.flush != "none":
            for lib, f in (("fastswz", go), ("cublas", fn)):
                events[lib] = gpu.time(f, 20, 3)["median_ms"] * 1e3
        print(f"{p.name}  {p.m}x{p.n}x{p.k} {p.a_dtype}  plan {gpu_corpus.plan_text(cfg)}  ({library})"
              + "".join(f"  {lib} events {t:.1f} us" for lib, t in events.items()))
        rec = {"name": p.name, "shape": [p.m, p.n, p.k], "dtype": p.a_dtype, "plan": cfg, "kernels": [],
               "events_us": events}
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
