// bf16 instantiations (separate TU so the build parallelises; see wgmma_conformance.cuh).
#include "wgmma_conformance.cuh"
int fsw_launch_bf16(int n, int ta, int tb, const FswParams& p) {
  return fsw_dispatch_trans<DT_BF16>(n, ta, tb, p);
}
