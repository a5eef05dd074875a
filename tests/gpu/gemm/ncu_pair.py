#!/usr/bin/env python3
"""fastswz's default plan and cuBLAS on the same problems, for Nsight Compute (GPU machine).

    ncu --profile-from-start off --csv --page details --section SpeedOfLight ... \
        python3 tests/gpu/gemm/ncu_pair.py 8x4096x4096:e4m3 128x4096x4096:e4m3 ...

Per problem: two warm-up calls of each library outside the profiled range, then
``cudaProfilerStart``, one call of fastswz (its GEMM kernel and, for split-K, the reduction),
one of cuBLAS (torch.matmul, or torch._scaled_mm with unit scales for e4m3), ``cudaProfilerStop``.
Nsight Compute replays each kernel with its caches flushed (its default ``--cache-control all``).
The order of the problems is printed first so the CSV's kernels can be matched to them.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))

import gpu_corpus  # noqa: E402


class _P:
    def __init__(self, m, n, k, dt):
        self.m, self.n, self.k = m, n, k
        self.a_dtype = self.b_dtype = dt
        self.a_major = self.b_major = "K"
        self.out_dtype = "bf16"


def main(argv):
    import torch

    from fastswz.cuda import choose_plan, compile_gemm, device_info

    device_info()
    ops = gpu_corpus._Operands(torch)
    for spec in argv:
        shape, dt = spec.split(":")
        m, n, k = (int(x) for x in shape.split("x"))
        p = _P(m, n, k, dt)
        cfg = choose_plan(m, n, k, dt, dt)
        kern = compile_gemm(cfg)
        a, b, d, ptrs, lds = ops.make(p)
        go, _ = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
        fn, _, library = gpu_corpus._cublas(torch, p, a, b)
        for f in (go, fn, go, fn):
            f()
        torch.cuda.synchronize()
        print(f"ncu_pair: {spec} plan {gpu_corpus.plan_text(cfg)}; cuBLAS: {library}", flush=True)
        torch.cuda.profiler.start()
        go()
        torch.cuda.synchronize()
        fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
