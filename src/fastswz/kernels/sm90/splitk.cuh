// Split-K reduction of the sm90 GEMM kernels (plan.row()["kernel"]["scheduler"], kind "split_k"):
// launched after the GEMM kernel on the same stream (a programmatic dependent launch), one CTA of 128 threads per MN block of A
// (P::kWarpgroups) per (output tile, accumulator register pair): CTA b reduces register pair
// b % scheduler::kReduceCtasPerTile of tile b / scheduler::kReduceCtasPerTile (t = tm * tiles_n +
// tn), so a handful of output tiles (the problems split-K is for) still spreads over every SM. Each thread adds its two registers'
// S partial sums from the plan's workspace layout (scheduler::workspace_offset) in split order
// 0, 1, ..., S - 1 (skipping splits with no k-tile, as the GEMM kernel did), a fixed order, so
// D is bit-identical run to run, and stores the pair as the register epilogue does.
#pragma once

#if FSW_SPLIT_K
extern "C" __global__ void __launch_bounds__(P::kWarpgroups * 128)
fastswz_splitk_reduce(const __grid_constant__ FswParams p) {
  // The grid is tiles x the plan's kReduceCtasPerTile (kernel.scheduler.workspace), one
  // register pair per CTA.
  static_assert(2 * scheduler::kReduceCtasPerTile == P::accumulator::kRegisters,
                "the plan's reduce_ctas_per_tile must be one CTA per accumulator register pair");
  // Launched as a programmatic dependent of the GEMM kernel (runtime.GemmKernel: the
  // launch overlaps the GEMM's tail): wait until that grid has finished and its partial sums are
  // visible (PTX ISA: griddepcontrol; returns at once after an ordinary launch).
  asm volatile("griddepcontrol.wait;" ::: "memory");
  // (a stream-K plan reduces each tile in its last piece, fastswz.plan.with_schedule: never launched)
  if constexpr (scheduler::kStreamK) return;
  const int tile = blockIdx.x / scheduler::kReduceCtasPerTile;
  const int r = 2 * (blockIdx.x % scheduler::kReduceCtasPerTile);
  const int tiles_n = (p.n + P::kBN - 1) / P::kBN;
  const int tm = tile / tiles_n, tn = tile % tiles_n;
  const int w = threadIdx.x / 128, thread = threadIdx.x % 128;
  const float* ws = static_cast<const float*>(p.workspace) + (unsigned long long)tile * scheduler::kTileFloats;
  const int k_tiles = (p.k + P::kBK - 1) / P::kBK;
  // kBatch splits' loads are issued before any add (independent loads in flight: the reduction
  // is bound by memory latency, not by the adds); the adds then run in split order.
  constexpr int kBatch = 8;
  float x0 = 0.0f, x1 = 0.0f;
  bool first = true;
  for (int s0 = 0; s0 < scheduler::kSplits; s0 += kBatch) {
    float v0[kBatch], v1[kBatch];
    bool ok[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int s = s0 + i;
      ok[i] = s < scheduler::kSplits &&
              SplitKScheduler::split_begin(s + 1, k_tiles) != SplitKScheduler::split_begin(s, k_tiles);
      v0[i] = ok[i] ? ws[scheduler::workspace_offset(thread, r, w, s)] : 0.0f;
      v1[i] = ok[i] ? ws[scheduler::workspace_offset(thread, r + 1, w, s)] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      if (!ok[i]) continue;
      x0 = first ? v0[i] : x0 + v0[i];
      x1 = first ? v1[i] : x1 + v1[i];
      first = false;
    }
  }
  // A split-K kernel fuses scales alone (codegen.scheduled_fusion): per tensor, or the rows'
  // scale_a and the pair's columns' scale_b (its chunk of column operands, loaded as the
  // single-pass epilogue loads them). Unscaled, alpha is the ops' one operand (the whole
  // init(p) cost the reduction 500 bytes of spills in ptxas's report).
  Epilogue epilogue;
#if FSW_SCALE
  epilogue.ops.init(p);
  epilogue.ops.tile(tm, w, thread, p);
  epilogue.ops.load_chunk(0, r / F::kChunkRegisters, tm, tn, w, thread, p);
#else
  epilogue.ops.alpha = p.alpha;
#endif
  epilogue.store_pair(x0, x1, r, w, thread, tm, tn, p);
}
#endif
