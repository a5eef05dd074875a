#include "tma_roundtrip.cuh"
// tf32 (2) and e4m3 (3): K-major only (PTX 9.7.15.5.2: imm-trans exists only for .f16/.bf16).
int tma_launch_other(int dt, int n, const CUtensorMap& ma, const CUtensorMap& mb,
                     const TmaParams& p, int threads, uint32_t smem) {
  if (dt == 2) return tma_dispatch_n<2, 0, 0>(n, ma, mb, p, threads, smem);
  if (dt == 3) return tma_dispatch_n<3, 0, 0>(n, ma, mb, p, threads, smem);
  return -1;
}
