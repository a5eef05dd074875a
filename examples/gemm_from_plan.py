"""From a fastswz plan to a running GEMM: plan, header, compile, run, check, time.

Run: ``python examples/gemm_from_plan.py [--out DIR]``. Without a Hopper GPU and the ``cuda`` extra
it writes the plan header and the generated MMA header and stops there (saying why); with them
it compiles the kernel with NVRTC, runs it on torch tensors (or on its own buffers without
torch), checks D and prints TFLOP/s.
"""

import argparse
from pathlib import Path

import fastswz
from fastswz.cuda import codegen

ap = argparse.ArgumentParser()
ap.add_argument("--out", default=".", help="directory for the generated sources")
ap.add_argument("--m", type=int, default=4096)
ap.add_argument("--n", type=int, default=4096)
ap.add_argument("--k", type=int, default=4096)
args = ap.parse_args()
out = Path(args.out)
out.mkdir(parents=True, exist_ok=True)

# 1. The configuration: the plan fields, as `fastswz tune` prints them, plus types and majors.
# D leaves in 4 column blocks through two 128 x 64 epilogue tiles, which leaves room for 4
# stages (the plan fastswz.cuda.choose_plan picks for this shape).
config = dict(a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", bm=128, bn=256, bk=64,
              stages=4, out_dtype="bf16", epilogue=True, epilogue_n=64, epilogue_stages=2)
plan = codegen.plan_for(config)
row = plan.row(0)
print(f"plan: {row['instruction']}, {row['smem_bytes']} B smem, "
      f"{row['kernel']['threads']} threads, A box {row['a']['tma_box']}, B box {row['b']['tma_box']}")

# 2. The sources the kernel is compiled from: every layout constant is in fastswz_plan.h (the
#    kernel's pieces live under sm90/).
for name, text in codegen.kernel_sources(config).items():
    (out / name).parent.mkdir(parents=True, exist_ok=True)   # the kernel's pieces sit in sm90/
    (out / name).write_text(text)
    print(f"wrote {out / name} ({len(text.splitlines())} lines)")

# 3. Compile, run, check and time (needs the GPU runtime).
try:
    from fastswz.cuda import compile_gemm, device_info
    from fastswz.cuda.runtime import check

    info = device_info()
except (ImportError, fastswz.FastswzError) as e:
    print(f"not run: {e}")
    raise SystemExit(0)
kernel = compile_gemm(config)
print(f"compiled {kernel} for {info['name']}")
print("check (integers, exact):", check(kernel, 1000, 1000, 1000, ints=True))
print("timing:", kernel.time(args.m, args.n, args.k))
try:
    import torch
except ImportError:
    raise SystemExit(0)
a = torch.randn(args.m, args.k, device="cuda", dtype=torch.bfloat16)
w = torch.randn(args.n, args.k, device="cuda", dtype=torch.bfloat16)   # a linear layer's weight
d = fastswz.cuda.gemm(a, w.t(), plan=config)                            # D = A W^T
print("max |D - torch|:", float((d.float() - (a @ w.t()).float()).abs().max()))
