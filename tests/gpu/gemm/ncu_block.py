#!/usr/bin/env python3
"""Block-scaled e4m3 -> bf16 on one problem, fastswz beside cuBLASLt, for Nsight Compute (GPU machine).

    ncu --profile-from-start off --csv --page details --section SpeedOfLight ... \\
        python3 tests/gpu/gemm/ncu_block.py 4096x4096x7168 [MxNxK ...]

Per problem, in this order inside the profiled range (two warm-up calls of each before it):
fastswz's block-scaled default plan, the same plan without scales (scale="none", promotion kept;
where the family runs it), the same tile unscaled and unpromoted, torch._scaled_mm with 1 x 128 / 128 x 128 block scales
(epilogue.py's layout check picks the layout) and torch._scaled_mm per tensor. The order of the
kernels is printed first so the CSV's rows can be matched to them.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, HERE)

import epilogue  # noqa: E402


def main(argv):
    import torch

    from fastswz.cuda import compile_gemm, default_config, normalize_config, supported

    for spec in argv:
        m, n, k = (int(x) for x in spec.split("x"))
        ops = epilogue._operands(torch, m, n, k)
        blk = default_config(m, n, k, "e4m3", "e4m3", out_dtype="bf16", fusion={"scale": "block"})
        calls = [("fastswz block", blk), ("fastswz same plan, promotion without scales", normalize_config(dict(blk, scale="none"))),
                 ("fastswz same tile unscaled", normalize_config(dict(blk, scale="none", promote=False)))]
        # (without block scales the promotion gets the entry cap's registers only: BN 160 and 192 not)
        calls = [(name, c) for name, c in calls if supported(c) is None]
        fns = [(name, epilogue._prepared(torch, compile_gemm(c), ops, m, n, k)) for name, c in calls]
        tb, how = epilogue._torch_block_fn(torch, m, n, k)
        if tb:
            fns.append((f"torch block ({how})", tb))
        one = ops["one"]
        fns.append(("torch per tensor", lambda a=ops["a"], b=ops["b"].t(): torch._scaled_mm(
            a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)))
        for _, f in fns:
            f(); f()
        torch.cuda.synchronize()
        print(f"ncu_block: {spec}: " + " | ".join(name for name, _ in fns), flush=True)
        torch.cuda.profiler.start()
        for _, f in fns:
            f()
            torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        del ops, fns, tb
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:])
