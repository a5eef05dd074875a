"""An H100 bf16 GEMM tile search with fastswz: plan a space, rank it, emit the winner.

Run: ``python examples/h100_bf16_tile_search.py [--out DIR]``. The ranking is fastswz's cost
model (a ranking aid, not measured speed); the plan and the header are exact.
"""

import argparse
from pathlib import Path

import numpy as np

import fastswz

ap = argparse.ArgumentParser()
ap.add_argument("--out", default=".", help="directory for the emitted header")
ap.add_argument("--m", type=int, default=8192)
ap.add_argument("--n", type=int, default=8192)
ap.add_argument("--k", type=int, default=4096)
args = ap.parse_args()

# 1. The whole space in one call: BM x BN x BK x stages, K-major A and B, swizzle "auto".
bm = np.array([64, 128, 192, 256]).reshape(-1, 1, 1, 1)
bn = np.arange(16, 257, 16).reshape(-1, 1, 1)
bk = np.array([32, 64, 128]).reshape(-1, 1)
stages = np.arange(1, 9)
space = fastswz.plan_gemm("sm90", "bf16", "bf16", "K", "K", bm, bn, bk, stages)
reasons = np.bincount(space["reason"].ravel(), minlength=len(fastswz.PLAN_ERRORS))
print(f"{space['legal'].sum()} of {len(space)} configurations are legal on sm90; illegal because:")
for code in np.flatnonzero(reasons[1:]) + 1:
    print(f"  {reasons[code]:5d}  {fastswz.plan_reason(code)}")

# 2. Rank the legal plans for the problem (model cycles; see fastswz.tune's docstring).
best = fastswz.tune(args.m, args.n, args.k, "bf16", "bf16", top=5)
print(f"\ntop plans for {args.m} x {args.n} x {args.k} on 132 SMs (model, not measured):")
for p in best:
    print(f"  #{p['rank']} {p['bm']}x{p['bn']}x{p['bk']} {p['stages']} stages "
          f"{p['swizzle_a']}/{p['swizzle_b']} {p['smem_bytes']} B smem, {p['waves']} waves, "
          f"{p['bound']}-bound, model efficiency {p['efficiency']:.2f}: {p['instruction']}")

# 3. The winner in full, and as a header a kernel can include.
w = best[0]
plan = fastswz.plan_gemm("sm90", "bf16", "bf16", "K", "K", w["bm"], w["bn"], w["bk"], w["stages"],
                         w["swizzle_a"], w["swizzle_b"])
row = plan.row(0)
a = row["a"]
print(f"\nA: {a['layout']}  TMA box {a['tma_box']} {a['tma_swizzle_enum']}, "
      f"descriptor {a['descriptors'][0][0][0]}, k-step +{a['k_step_increment']}")
out = Path(args.out) / "h100_bf16_plan.h"
out.write_text(fastswz.emit_header(plan, name="h100_bf16", command="examples/h100_bf16_tile_search.py"))
print(f"wrote {out}")
