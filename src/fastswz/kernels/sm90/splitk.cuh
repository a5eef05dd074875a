// Split-K reduction of the sm90 GEMM kernels (plan.row()["kernel"]["scheduler"], kind "split_k"):
// launched after the GEMM kernel on the same stream, one CTA of 128 threads per MN block of A
// (P::kWarpgroups) per output tile (t = tm * tiles_n + tn). Each thread adds its accumulators'
// S partial sums from the plan's workspace layout (scheduler::workspace_offset) in split order
// 0, 1, ..., S - 1 (skipping splits with no k-tile, as the GEMM kernel did), a fixed order, so
// D is bit-identical run to run, and stores them through the register epilogue.
#pragma once

#if FSW_SPLIT_K
extern "C" __global__ void __launch_bounds__(P::kWarpgroups * 128, 1)
fastswz_splitk_reduce(const __grid_constant__ FswParams p) {
  const int tiles_n = (p.n + P::kBN - 1) / P::kBN;
  const int tm = blockIdx.x / tiles_n, tn = blockIdx.x % tiles_n;
  const int w = threadIdx.x / 128, thread = threadIdx.x % 128;
  const float* ws = static_cast<const float*>(p.workspace) + (unsigned long long)blockIdx.x * scheduler::kTileFloats;
  const int k_tiles = (p.k + P::kBK - 1) / P::kBK;
  // Register by register, so that only the finished sums and one partial are live; the splits
  // with no k-tile (KT < S) were skipped by the GEMM kernel and are skipped here.
  float acc[P::accumulator::kRegisters];
  static_for<0, P::accumulator::kRegisters>([&](auto i) {
    constexpr int r = decltype(i)::value;
    float sum = 0.0f;
    bool first = true;
    for (int s = 0; s < scheduler::kSplits; ++s) {
      if (SplitKScheduler::split_begin(s + 1, k_tiles) == SplitKScheduler::split_begin(s, k_tiles)) continue;
      const float v = ws[scheduler::workspace_offset(thread, r, w, s)];
      sum = first ? v : sum + v;
      first = false;
    }
    acc[r] = sum;
  });
  Epilogue epilogue;
  // split-K kernels are never fused (supported() refuses it): the epilogue ops' one operand is
  // alpha. (The whole init(p) cost the reduction 500 bytes of spills in ptxas's report.)
  epilogue.ops.alpha = p.alpha;
  epilogue.store(acc, nullptr, 0u, w, thread, false, tm, tn, p);
}
#endif
