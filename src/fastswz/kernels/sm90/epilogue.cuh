// Epilogues of the sm90 GEMM kernels: the consumer warpgroups' f32 accumulators -> D.
// The (thread, register) -> (m, n) map is the plan's (P::accumulator, from fastswz.wgmma_d), the
// shared-memory tile's addresses and TMA boxes are the plan's (P::epilogue); the conversion to
// D's type is fastswz_mma.h's (fsw_store_*); between the two, the fused epilogue
// (epilogue_ops.cuh: scales, bias, residual, activation, amax, fp8 output scale) applies to each
// pair of registers, its operands loaded a chunk of registers at a time (ops.chunk).
#pragma once
#include "epilogue_ops.cuh"

// f(StaticInt<I>()), ..., f(StaticInt<N - 1>()): register indices known at compile time whatever
// the unroller decides. Seen with NVRTC 13: `#pragma unroll` over the 128 registers of a 64 x 256
// accumulator stopped unrolling once the unit loop around it grew (ping-pong's unit filter), and
// the accumulators went to local memory; a binary split keeps the instantiation depth at log2(N).
template <int I> struct StaticInt { static constexpr int value = I; };
template <int I, int N, class Fn> __device__ __forceinline__ void static_for(Fn&& f) {
  if constexpr (N - I == 1) f(StaticInt<I>());
  else if constexpr (N > I) { static_for<I, (I + N) / 2>(f); static_for<(I + N) / 2, N>(f); }
}

#if FSW_EPILOGUE_TILE
static_assert(P::accumulator::kSubtileRegisters % F::kChunkRegisters == 0,
              "a fused-epilogue chunk spans two epilogue column blocks");
#endif

// Ping-pong consumers (kernel::kConsumerTiles 2) store different tiles at different times, so
// each warpgroup has its own epilogue tiles (slot s: tiles [s H, (s + 1) H), H = the plan's
// epilogue stages / 2), its own named barrier (kEpilogueBarrier + s, 128 threads) and its own
// TMA-store thread (its thread 0, whose bulk groups are its own); each of its MN blocks (64 rows
// of the tile) is stored by the boxes of those rows (the plan's ping-pong epilogue boxes are 64
// rows high). Cooperative consumers store each tile together: all the tiles, barrier 1 over
// every consumer thread, the first consumer thread storing.
struct Epilogue {
  static constexpr bool kOwnTiles = K::kConsumerTiles == 2;
  static constexpr uint32_t kEpilogueBarrier = 5;   // 0 __syncthreads, 1 cooperative epilogue, 2 debug, 3-4 order
#if FSW_EPILOGUE_TILE
  static constexpr int kTiles = kOwnTiles ? P::epilogue::kStages / 2 : P::epilogue::kStages;
  static_assert(!kOwnTiles || P::epilogue::kStages % 2 == 0, "ping-pong warpgroups split the epilogue tiles");
  int first = 0, ebuf = 0;   // this warpgroup's first epilogue tile; the tile the next column block goes through
#endif
  uint32_t barrier = 1, threads = K::kConsumerWarpgroups * 128;
  EpilogueOps ops;   // the fused epilogue (its init(p) runs before the first tile)

  // Consumer warpgroup slot `slot` (kernel::kConsumerSlots): its tiles and barrier.
  __device__ __forceinline__ void init(int slot) {
    if (kOwnTiles) {
      barrier = kEpilogueBarrier + slot;
      threads = 128;
#if FSW_EPILOGUE_TILE
      first = ebuf = slot * kTiles;
#endif
    }
  }

  // Store the tile (tm, tn) of consumer warpgroup w (its 64 rows of the BM x BN tile).
  __device__ __forceinline__ void store(float (&acc)[P::accumulator::kRegisters], const TmaDescriptor* tma_d,
                                        uint32_t base, int w, int thread, bool leader, int tm, int tn,
                                        const FswParams& p) {
    ops.tile(tm, w, thread, p);
#if FSW_EPILOGUE_TILE
    const int n0 = tn * P::kBN;
    // Registers -> the plan's epilogue tile (swizzled, row-major D) -> TMA store per box, one
    // column block of kCols at a time: registers [j R, j R + R) hold block j (the plan's
    // kSubtileRegisters R). The blocks rotate through the plan's kStages tiles, one bulk group
    // each: a tile is written again once the group that stored from it kStages blocks ago has
    // read it (at most kStages - 1 groups still reading).
#pragma unroll
    for (int j = 0; j < P::epilogue::kSubtiles; ++j) {
      const uint32_t epi = base + P::epilogue::kStageOffsets[ebuf];
      if (++ebuf == first + kTiles) ebuf = first;
      if (leader) bulk_wait_read<kTiles - 1>();
      named_sync(barrier, threads);
#pragma unroll
      for (int i = 0; i < P::accumulator::kSubtileRegisters; i += 2) {
        const int r = j * P::accumulator::kSubtileRegisters + i;
        if (r % F::kChunkRegisters == 0) ops.chunk(r / F::kChunkRegisters, tm, tn, w, thread, p);
        const uint32_t m = 64 * w + P::accumulator::row(thread, r);
        const uint32_t n = P::accumulator::col(thread, r) - j * P::epilogue::kCols;
        float x0 = acc[r], x1 = acc[r + 1];
        ops.apply(x0, x1, r);
        fsw_store_shared_pair(epi + P::epilogue::offset(m, n), x0, x1);
      }
      fence_async_shared();
      named_sync(barrier, threads);
      if (leader) {
#pragma unroll
        for (int c = 0; c < P::epilogue::kTmaCopies; ++c)
          if (!kOwnTiles || P::epilogue::kTmaBoxCoords[c][1] == (uint32_t)(64 * w))   // ping-pong: block w's rows
          tma_store(tma_d, epi + P::epilogue::kTmaBoxSmemOffsets[c],
                    n0 + j * P::epilogue::kCols + P::epilogue::kTmaBoxCoords[c][0],
                    tile_row0(tm, p.m) + P::epilogue::kTmaBoxCoords[c][1]);
        bulk_commit();
      }
    }
    ops.tile_done(tm, w, thread, p);
#else
    if constexpr (F::kColSmem) named_sync(barrier, threads);   // the unit's staged column operands
    static_for<0, P::accumulator::kRegisters / 2>([&](auto i) {
      constexpr int r = 2 * decltype(i)::value;
      if (r % F::kChunkRegisters == 0) ops.chunk(r / F::kChunkRegisters, tm, tn, w, thread, p);
      store_pair(acc[r], acc[r + 1], r, w, thread, tm, tn, p);
    });
    ops.tile_done(tm, w, thread, p);
#endif
  }

  // Registers r, r + 1 of consumer warpgroup w's thread (tile tm, tn) -> global memory: the
  // register epilogue's store (also the split-K reduction's), each lane's adjacent pair at once
  // where it fits.
  __device__ __forceinline__ void store_pair(float x0, float x1, int r, int w, int thread, int tm, int tn,
                                             const FswParams& p) {
    FSW_OUT_T* d = static_cast<FSW_OUT_T*>(p.d);
    const int m = tile_row0(tm, p.m) + 64 * w + P::accumulator::row(thread, r);
    const int n = tn * P::kBN + P::accumulator::col(thread, r);
    const bool fresh = m >= tm * P::kBM;   // not a row of the tile row before (tile_rows.cuh)
    ops.apply(x0, x1, r);
    if (K::kSwapAB) {
      // D^T = B^T A^T: the kernel's (m, n) is D[n][m] (p.m, p.n are the kernel's extents); a
      // register pair is two rows of D, so each element is stored alone.
      if (fresh && m < p.m && n < p.n) fsw_store_global(d + (long long)n * p.ldd + m, x0);
      if (fresh && m < p.m && n + 1 < p.n) fsw_store_global(d + (long long)(n + 1) * p.ldd + m, x1);
      return;
    }
    if (fresh && m < p.m) {
      FSW_OUT_T* q = d + (long long)m * p.ldd + n;
      if ((p.ldd & 1) == 0 && n + 1 < p.n) fsw_store_global_pair(q, x0, x1);
      else {
        if (n < p.n) fsw_store_global(q, x0);
        if (n + 1 < p.n) fsw_store_global(q + 1, x1);
      }
    }
  }

  // Before the CTA exits: its last TMA stores have completed.
  __device__ __forceinline__ void finish(bool leader) {
#if FSW_EPILOGUE_TILE
    if (leader) bulk_wait();
#endif
  }
};
