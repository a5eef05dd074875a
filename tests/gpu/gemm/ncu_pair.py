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
from probe import ShapeProblem, default_pair  # noqa: E402


def main(argv):
    import torch

    from fastswz.cuda import device_info

    device_info()
    ops = gpu_corpus._Operands(torch)
    for spec in argv:
        shape, dt = spec.split(":")
        m, n, k = (int(x) for x in shape.split("x"))
        cfg, go, fn, library, operands = default_pair(torch, ops, ShapeProblem(m, n, k, dt))
        print(f"ncu_pair: {spec} plan {gpu_corpus.plan_text(cfg)}; cuBLAS: {library}", flush=True)
        torch.cuda.profiler.start()
        go()
        torch.cuda.synchronize()
        fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
