#!/usr/bin/env python3
"""Kernel time and per-call time of stream-K plans beside the default plan and torch (H100).

    python3 tests/gpu/gemm/streamk_call.py PLANS.json

PLANS.json: [{"shape": [M, N, K], "plans": {"name": config, ...}}, ...] (bf16, K-major). Per
problem and plan: the kernel time (gpu_corpus's loop: launches back to back, each after an L2
read flush, between its own events; median), and what a caller sees per call: ``gemm(a, b,
out=d, plan=...)`` (``torch.mm(a, b.t(), out=d)`` for torch) called 50 times back to back, the
wall time over the calls after one synchronize (so the larger of host and kernel time), and the
host time of one call into a drained queue (median of 30). D is checked against torch's.
"""
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))


def main():
    import torch

    import gpu_corpus
    from fastswz.cuda import gemm

    gpu = gpu_corpus._Gpu("read")
    out = []
    for case in json.load(open(sys.argv[1])):
        m, n, k = case["shape"]
        a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        b = torch.randn(n, k, device="cuda").to(torch.bfloat16)
        d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        ref = torch.mm(a, b.t())
        calls = {name: (lambda c=c: gemm(a, b.t(), out=d, plan=c)) for name, c in case["plans"].items()}
        calls["torch"] = lambda: torch.mm(a, b.t(), out=d)
        row = {"shape": case["shape"]}
        for name, fn in calls.items():
            fn()
            torch.cuda.synchronize()
            err = float((d.float() - ref.float()).norm() / ref.float().norm())
            kern = gpu.time(fn, 20, 3)["median_ms"] * 1e3
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(50):
                fn()
            torch.cuda.synchronize()
            wall = (time.perf_counter() - t0) / 50 * 1e6
            host = []
            for _ in range(30):
                torch.cuda.synchronize()
                t1 = time.perf_counter()
                fn()
                host.append((time.perf_counter() - t1) * 1e6)
            torch.cuda.synchronize()
            row[name] = {"kernel_us": kern, "per_call_us": wall, "host_us": statistics.median(host),
                         "rel_err_vs_torch": err}
            print(f"{m}x{n}x{k} {name:8s} kernel {kern:8.1f} us  per call {wall:8.1f} us  host {statistics.median(host):6.1f} us  err {err:.1e}",
                  flush=True)
        out.append(row)
    json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "streamk_call.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
