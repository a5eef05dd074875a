#include "tma_roundtrip.cuh"
int tma_launch_f16(int n, int ta, int tb, const CUtensorMap& ma, const CUtensorMap& mb,
                   const TmaParams& p, int threads, uint32_t smem) {
  return tma_dispatch_trans<0>(n, ta, tb, ma, mb, p, threads, smem);
}
