"""Code generation: emit a plan as a CUDA header and compile a kernel against it.

Run: ``python examples/codegen_header.py [--out DIR]``. Needs nvcc for the compile step (it says
so and skips that step when nvcc is absent). The kernel is a skeleton that shows how the tables
are used (stage descriptors, the k-step increment, the TMA box); it is compiled, not run.
"""

import argparse
import shutil
import subprocess
from pathlib import Path

import fastswz

ap = argparse.ArgumentParser()
ap.add_argument("--out", default=".", help="directory for the header, kernel and object file")
args = ap.parse_args()
out = Path(args.out)

plan = fastswz.plan_gemm("sm90", "bf16", "bf16", "K", "K", bm=128, bn=128, bk=64, stages=4)
header = out / "gemm_plan.h"
header.write_text(fastswz.emit_header(plan, name="gemm", command="examples/codegen_header.py"))
row = plan.row(0)
print(f"wrote {header}: {row['instruction']}, {row['smem_bytes']} bytes of shared memory")

kernel = out / "gemm_skeleton.cu"
kernel.write_text(r'''#include <cstdint>
#include "gemm_plan.h"

static_assert(gemm::kSmemBytes <= 232448, "fits the sm90 opt-in shared memory");
static_assert(gemm::a::kKStepIncrement == 2, "32-byte k-steps inside the 128B atom");

// One warpgroup's view of the mainloop descriptors: stage s, k-step j (the wgmma itself is left
// out; see docs/CONFORMANCE.md for the hardware suite that issues it).
__global__ void descriptors(uint64_t* out, uint32_t smem_base) {
  int s = threadIdx.x % gemm::kStages;
  for (int j = 0; j < gemm::kBK / 16; ++j) {
    uint64_t a = gemm::a::kDescriptors[s][0][0] + (smem_base >> 4)
                 + uint64_t(j) * gemm::a::kKStepIncrement;
    out[s * 8 + j] = a;
  }
  out[63] = gemm::a::kTmaBox[0] * 1000u + gemm::a::kTmaBox[1];
}
''')
nvcc = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None)
if nvcc is None:
    print("nvcc not found: skipped compiling", kernel)
else:
    res = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90a", "-c", str(kernel), "-o",
                          str(out / "gemm_skeleton.o")], capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"nvcc failed:\n{res.stderr}")
    print(f"compiled {kernel} with {nvcc} for sm_90a")
