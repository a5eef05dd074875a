#!/usr/bin/env python3
"""Kernel time and per-call time of plans beside the default plan and torch (H100, H200).

    python3 tests/gpu/gemm/streamk_call.py PLANS.json

PLANS.json: [{"shape": [M, N, K], "dtype": "bf16" | "e4m3" (default bf16), "plans": {"name":
config or null, ...}, "pad_a": false}, ...] (K-major operands; a null plan is gemm's default,
``plan=None``; ``pad_a``: also the default on a copy of A with 128-byte rows made by the caller,
which ``fastswz.cuda.stages_a``'s copy is then not needed for). Per problem and plan: the kernel
time (gpu_corpus's loop: launches back to back, each after an L2 read flush, between its own
events; median; ``gemm``'s own copies included), and what a caller sees per call: ``gemm(a, b,
out=d, plan=...)`` (``torch.mm(a, b.t(), out=d)``, or ``torch._scaled_mm`` with unit scales for
e4m3, for torch) called 50 times back to back, the wall time over the calls after one synchronize
(so the larger of host and kernel time), and the host time of one call into a drained queue
(median of 30). D is checked against torch's.
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
        fp8 = case.get("dtype", "bf16") == "e4m3"
        td = torch.float8_e4m3fn if fp8 else torch.bfloat16
        a = torch.randn(m, k, device="cuda").to(td)
        b = torch.randn(n, k, device="cuda").to(td)
        d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        one = torch.ones((), device="cuda")
        if fp8:
            def torch_call():   # the out= overload where this torch has it (no copy of D), else a copy
                try:
                    torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16, out=d)
                except (TypeError, RuntimeError):
                    d.copy_(torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        else:
            def torch_call():
                torch.mm(a, b.t(), out=d)
        torch_call()
        ref = d.clone()
        calls = {name: (lambda c=c: gemm(a, b.t(), out=d, plan=c)) for name, c in case["plans"].items()}
        if case.get("pad_a"):
            pad = torch.zeros(m, -(-k * a.element_size() // 128) * 128 // a.element_size(), device="cuda", dtype=td)
            pad[:, :k] = a
            calls["A padded"] = lambda: gemm(pad[:, :k], b.t(), out=d)
        calls["torch"] = torch_call
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
            print(f"{m}x{n}x{k} {case.get('dtype', 'bf16')} {name:8s} kernel {kern:8.1f} us  per call {wall:8.1f} us  host {statistics.median(host):6.1f} us  err {err:.1e}",
                  flush=True)
        out.append(row)
    json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "streamk_call.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
