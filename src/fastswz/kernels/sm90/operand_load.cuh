// A cp_async plan's producer (plan.row()["kernel"]["operand_load"], fastswz.plan.with_operand_load):
// the producer warpgroup's load::kThreads threads copy a stage's A and B tiles in
// load::kChunkBytes chunks (cp.async.cg, PTX ISA 9.7.9.3) to the bytes the header's
// load::a_offset / load::b_offset give for the chunk's first element (mn, k): the operand's
// canonical layout, where its TMA boxes would have put them. Chunks past the operand's MN or K
// extent are zero-filled (a source size of 0; fewer bytes where a row ends inside a chunk), as
// the TMA fills its boxes. Each thread then arrives on the stage's full barrier when its copies
// have landed (cp.async.mbarrier.arrive.noinc, 9.7.9.4; the barrier counts load::kThreads).
// Why: a chunk is 16-byte aligned in global memory, so it never spans two 32-byte sectors,
// where a TMA box row of rows 16 but not 32 bytes aligned does (sm90 GEMM, H200: such rows
// cost the TMA kernel 1.3-1.96x against 128-byte rows).
#pragma once

namespace load = fastswz_plan::load;

// One operand's tile of kRows x P::kBK elements (kEBytes each) from ``src`` (row pitch ``ld``
// elements; K-major: rows along MN) into the stage buffer at ``dst``: rows mn0.. of mn_end,
// k-elements k0.. of k_end. ``t``: this thread's index among the copying threads.
template <int kRows, bool kMajorK, int kEBytes, typename Offset>
__device__ __forceinline__ void copy_stage_tile(uint32_t dst, const unsigned char* src, long long ld, int mn0,
                                                int mn_end, int k0, int k_end, int t, Offset offset) {
  constexpr int kPer = load::kChunkBytes / kEBytes;                  // elements per chunk
  constexpr int kInner = (kMajorK ? P::kBK : kRows) / kPer;          // chunks along the inner dimension
  constexpr int kChunks = (kMajorK ? kRows : P::kBK) * kInner;
#pragma unroll 4
  for (int i = t; i < kChunks; i += load::kThreads) {
    const int outer = i / kInner, inner = (i % kInner) * kPer;
    const int mn = kMajorK ? outer : inner, k = kMajorK ? inner : outer;
    const int gm = mn0 + mn, gk = k0 + k;
    const int left = kMajorK ? k_end - gk : mn_end - gm;             // elements left in the row
    const bool in = gm < mn_end && gk < k_end;
    const uint32_t bytes = in ? (uint32_t)(left < kPer ? left * kEBytes : load::kChunkBytes) : 0u;
    const long long at = kMajorK ? (long long)gm * ld + gk : (long long)gk * ld + gm;
    cp_async16(dst + offset((uint32_t)mn, (uint32_t)k), in ? src + at * kEBytes : src, bytes);
  }
}
