// Instantiations for tf32, e4m3, e5m2 and s8: K-major only (PTX §9.7.15.5.2 allows imm-trans
// only for .f16/.bf16), every N, 16 kernels.
#include "wgmma_conformance.cuh"

int fsw_launch_other(int dt, int n, const FswParams& p) {
  switch (dt) {
    case DT_TF32: return fsw_dispatch_n<DT_TF32, 0, 0>(n, p);
    case DT_E4M3: return fsw_dispatch_n<DT_E4M3, 0, 0>(n, p);
    case DT_E5M2: return fsw_dispatch_n<DT_E5M2, 0, 0>(n, p);
    case DT_S8: return fsw_dispatch_n<DT_S8, 0, 0>(n, p);
    default: return -1;
  }
}
