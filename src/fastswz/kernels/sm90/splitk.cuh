// Split-K reduction of the sm90 GEMM kernels (plan.row()["kernel"]["scheduler"], kind "split_k"):
// launched after the GEMM kernel on the same stream, one CTA of the consumer threads per output
// tile (t = tm * tiles_n + tn). Each thread adds its accumulators' S partial sums from the
// plan's workspace layout (scheduler::workspace_offset) in split order 0, 1, ..., S - 1, a fixed
// order, so D is bit-identical run to run, and stores them through the register epilogue.
#pragma once

#if FSW_SPLIT_K
extern "C" __global__ void __launch_bounds__(K::kConsumerWarpgroups * 128, 1)
fastswz_splitk_reduce(const __grid_constant__ FswParams p) {
  const int tiles_n = (p.n + P::kBN - 1) / P::kBN;
  const int tm = blockIdx.x / tiles_n, tn = blockIdx.x % tiles_n;
  const int w = threadIdx.x / 128, thread = threadIdx.x % 128;
  const float* ws = static_cast<const float*>(p.workspace) + (unsigned long long)blockIdx.x * scheduler::kTileFloats;
  float acc[P::accumulator::kRegisters];
#pragma unroll
  for (int r = 0; r < P::accumulator::kRegisters; ++r) acc[r] = ws[scheduler::workspace_offset(thread, r, w, 0)];
  for (int s = 1; s < scheduler::kSplits; ++s) {
#pragma unroll
    for (int r = 0; r < P::accumulator::kRegisters; ++r) acc[r] += ws[scheduler::workspace_offset(thread, r, w, s)];
  }
  Epilogue epilogue;
  epilogue.store(acc, nullptr, 0u, w, thread, false, tm, tn, p);
}
#endif
