// Tile schedulers of the sm90 GEMM kernels: which output tiles a CTA computes, in what order.
// Every constant comes from the plan header (plan.row()["kernel"]).
#pragma once

// One unit of a CTA's work: output tile (tm, tn) over k-tiles [k_begin, k_end), piece `split`
// of the `parts` the tile is cut into (split-K: its nonempty splits; stream-K: the workers that
// share it; 0 of 1 for a whole tile).
struct WorkUnit {
  int tm, tn, k_begin, k_end, split, parts;
};

// Tile t of the grouped order -> (tile row, tile column); see PersistentScheduler.
__device__ __forceinline__ void grouped_tile(int t, int tiles_m, int tiles_n, uint32_t rank, int& tm, int& tn) {
  const int per_group = K::kTileGroup * tiles_n;
  const int first_m = (t / per_group) * K::kTileGroup;
  const int height = min(tiles_m - first_m, K::kTileGroup);
  const int i = t % per_group;
  // cluster rank r = rm + kClusterM rn (plan.with_cluster): tile row rm, tile column rn of the cluster
  tm = (first_m + i % height) * K::kClusterM + (K::kClusterM > 1 ? (int)rank % K::kClusterM : 0);
  tn = i / height * K::kClusterN + (K::kClusterN > 1 ? (int)rank / K::kClusterM : 0);
}

// Persistent, grouped tile order (plan.row()["kernel"]["tile_order"]): CTA b of a grid of G
// takes tiles b, b + G, ...; tiles run in groups of kTileGroup tile rows so that the CTAs of a
// wave share rows of A and columns of B in L2. With a cluster of kClusterM CTAs along M, "tiles"
// are the clusters' tile groups (rows of kClusterM tiles) and the CTA of rank r takes row
// kClusterM * tm + r; with a cluster of kClusterN CTAs along N, column kClusterN * tn + r; with
// both (2 x 2), rank r = rm + kClusterM rn takes (kClusterM tm + rm, kClusterN tn + rn). The
// producer and the consumers walk the same sequence through next().
struct PersistentScheduler {
  static constexpr bool kPartials = false;   // each unit is a whole tile: the epilogue stores D
  int tiles_m, tiles_n, num_tiles, tile, step, k_tiles;
  uint32_t rank;
  __device__ __forceinline__ PersistentScheduler(int M, int N, int k_tiles_, uint32_t cluster_rank) {
    const int rows_m = (M + P::kBM - 1) / P::kBM;                   // output tile rows
    tiles_m = (rows_m + K::kClusterM - 1) / K::kClusterM;           // cluster tile rows
    tiles_n = ((N + P::kBN - 1) / P::kBN + K::kClusterN - 1) / K::kClusterN;   // cluster tile columns
    num_tiles = tiles_m * tiles_n;
    tile = blockIdx.x / cluster::kSize;
    step = gridDim.x / cluster::kSize;
    rank = cluster_rank;
    k_tiles = k_tiles_;
  }
  // The next unit of this CTA: a whole tile, every k-tile; false when none is left.
  __device__ __forceinline__ bool next(WorkUnit& u) {
    if (tile >= num_tiles) return false;
    grouped_tile(tile, tiles_m, tiles_n, rank, u.tm, u.tn);
    u.k_begin = 0;
    u.k_end = k_tiles;
    u.split = 0;
    u.parts = 1;
    tile += step;
    return true;
  }
  // The unit's accumulators are the tile's sums: the epilogue stores D.
  __device__ __forceinline__ void store(float (&acc)[P::accumulator::kRegisters], const WorkUnit& u, Epilogue& epilogue,
                                        const TmaDescriptor* tma_d, uint32_t base, int w, int thread, bool leader,
                                        const FswParams& p) const {
    epilogue.store(acc, tma_d, base, w, thread, leader, u.tm, u.tn, p);
  }
};

// Split-K (plan.row()["kernel"]["scheduler"], kind "split_k"): units are (output tile, split),
// split-major: unit u is split u / tiles of tile u % tiles in the grouped order above, so a wave
// runs neighbouring tiles of one split. Split s of KT k-tiles runs [s KT / S, (s + 1) KT / S);
// when KT < S some of those are empty, and those units are skipped (the reduction skips them too:
// no zero-filled partials, and no branch around the accumulators, which cost spills).
// A unit's f32 partial sums go to the plan's workspace (store); they are added in split order
// by the tile's last split itself (scheduler::kReduceLastCta) or by the reduction kernel
// (splitk.cuh). With a cluster both CTAs walk the same units.
// Stream-K (scheduler::kStreamK; CUTLASS's data-parallel + stream-K hybrid): worker b (a CTA,
// or a cluster) of G = kWorkers first runs whole tiles b, b + G, ... of the floor(tiles / G)
// waves (grouped order); the tail = tiles mod G tiles left are then shared by W = min(G, tail
// (kSplits - 1)) workers, k-tile by k-tile: worker b < W' = min(W, T) runs iterations
// [floor(b T / W'), floor((b + 1) T / W')) of T = tail x KT (tail tile t's k-tile kt:
// t KT + kt), and iteration x is worker floor(((x + 1) W' - 1) / T)'s, so no tile is cut into
// more than kSplits pieces (fastswz.plan.stream_k_units), piece `split` counted from the tile's
// first k-tile. A whole tile stores D; pieces go through the workspace and the tile's last piece
// to arrive adds them in piece order.
#if FSW_SPLIT_K
// Registers per chunk of the last split's read-back (kC): the largest power of two dividing the
// accumulator registers with kC x splits <= `loads` (at least 1, so a plan of 64 splits reads
// one register of each per round trip). The loads sit beside the accumulators: 64 with one
// consumer warpgroup (240 registers a thread), 32 with more (168); seen in ptxas's report
// (NVRTC 13.0): 128 x 128 x 64, 32 splits spilled 352 bytes at 64 loads, 64 bytes at 32.
constexpr int reduce_chunk(int regs, int splits, int loads) {
  int c = 1;
  while (c * 2 <= regs && regs % (c * 2) == 0 && c * 2 * splits <= loads) c *= 2;
  return c;
}
struct SplitKScheduler {
  static constexpr bool kPartials = true;
  int rows_m, tiles_m, tiles_n, num_tiles, num_units, unit, step, k_tiles;
  // stream-K: the next whole tile (`unit`, by steps of kWorkers below first_tail), then this
  // worker's tail iterations [x, end) of total, shared by `workers`
  int first_tail;
  long long total, workers, x, end;
  uint32_t rank;
  __device__ __forceinline__ SplitKScheduler(int M, int N, int k_tiles_, uint32_t cluster_rank) {
    rows_m = (M + P::kBM - 1) / P::kBM;
    tiles_m = (rows_m + K::kClusterM - 1) / K::kClusterM;
    tiles_n = (N + P::kBN - 1) / P::kBN;
    num_tiles = tiles_m * tiles_n;
    num_units = num_tiles * scheduler::kSplits;
    unit = blockIdx.x / cluster::kSize;
    step = gridDim.x / cluster::kSize;
    rank = cluster_rank;
    k_tiles = k_tiles_;
    if constexpr (scheduler::kStreamK) {
      const int tail = num_tiles % scheduler::kWorkers;
      first_tail = num_tiles - tail;
      total = (long long)tail * k_tiles;
      workers = (long long)tail * (scheduler::kSplits - 1);
      if (workers > scheduler::kWorkers) workers = scheduler::kWorkers;
      if (workers > total) workers = total;
      const long long b = unit;
      x = b < workers ? b * total / workers : 0;
      end = b < workers ? (b + 1) * total / workers : 0;
    }
  }
  // The worker that runs iteration x (stream-K).
  __device__ __forceinline__ int worker_of(long long i) const { return (int)(((i + 1) * workers - 1) / total); }
  __device__ __forceinline__ bool next(WorkUnit& u) {
    if constexpr (scheduler::kStreamK) {
      if (unit < first_tail) {   // a whole tile of the data-parallel waves
        grouped_tile(unit, tiles_m, tiles_n, rank, u.tm, u.tn);
        u.k_begin = 0;
        u.k_end = k_tiles;
        u.split = 0;
        u.parts = 1;
        unit += scheduler::kWorkers;
        return true;
      }
      if (x >= end) return false;
      const long long t = x / k_tiles, t0 = t * k_tiles;
      const long long stop = end < t0 + k_tiles ? end : t0 + k_tiles;
      const int first = worker_of(t0);
      u.split = (int)(blockIdx.x / cluster::kSize) - first;
      u.parts = worker_of(t0 + k_tiles - 1) - first + 1;
      // more pieces than the workspace has slots would write into the next tile's block: the
      // partition never cuts one so finely (W <= tail (kSplits - 1)); a kernel that did would stop
      if (u.parts > scheduler::kSplits) __trap();
      u.k_begin = (int)(x - t0);
      u.k_end = (int)(stop - t0);
      grouped_tile(first_tail + (int)t, tiles_m, tiles_n, rank, u.tm, u.tn);
      x = stop;
      return true;
    }
    for (; unit < num_units; unit += step) {
      u.split = unit / num_tiles;
      u.k_begin = split_begin(u.split, k_tiles);
      u.k_end = split_begin(u.split + 1, k_tiles);
      if (u.k_end == u.k_begin) continue;
      u.parts = k_tiles < scheduler::kSplits ? k_tiles : scheduler::kSplits;   // nonempty splits
      grouped_tile(unit % num_tiles, tiles_m, tiles_n, rank, u.tm, u.tn);
      unit += step;
      return true;
    }
    return false;
  }
  // The first k-tile of split s (s = kSplits: KT).
  static __device__ __forceinline__ int split_begin(int s, int k_tiles) {
    return (int)((long long)s * k_tiles / scheduler::kSplits);
  }
  // Consumer warpgroup w's accumulators of unit u -> the unit's block of the workspace (a tile
  // row past M, a cluster's padding, stores nothing). With kReduceLastCta the split that
  // completes the tile then reduces it: every consumer thread of the unit (the epilogue's
  // barrier: all consumer warpgroups, or with ping-pong this one) has written its partials
  // when the leader adds one to the tile's semaphore (acquire-release, GPU scope); the adder
  // that sees count - 1 is last (it sets the semaphore back to 0 for the next launch: no other
  // split of this launch touches it again) and its threads, after the barrier that tells them,
  // read every split's partials from L2 and add them in split order, as the reduction kernel
  // does; the epilogue stores D.
  __device__ __forceinline__ void store(float (&acc)[P::accumulator::kRegisters], const WorkUnit& u, Epilogue& epilogue,
                                        const TmaDescriptor* tma_d, uint32_t base, int w, int thread, bool leader,
                                        const FswParams& p) const {
    if (u.tm >= rows_m) return;
    if (scheduler::kStreamK && u.parts == 1) {   // a stream-K worker ran the whole tile
      epilogue.store(acc, tma_d, base, w, thread, leader, u.tm, u.tn, p);
      return;
    }
    const int tile = u.tm * tiles_n + u.tn;
    float* ws = static_cast<float*>(p.workspace) + (unsigned long long)tile * scheduler::kTileFloats;
#pragma unroll
    for (int r = 0; r < P::accumulator::kRegisters; ++r)
      ws[scheduler::workspace_offset(thread, r, w, u.split)] = acc[r];
    if constexpr (scheduler::kReduceLastCta) {
      named_sync(epilogue.barrier, epilogue.threads);
      bool last = false;
      if (leader) {
        last = atom_add_acq_rel_gpu(p.semaphores + tile, 1u) == (uint32_t)u.parts - 1;
        if (last) p.semaphores[tile] = 0u;
      }
      if (!named_sync_or(epilogue.barrier, epilogue.threads, last)) return;
      // The sum goes into acc; this split's own partials are read back too (this thread's own
      // writes, from L2). A chunk of kC registers of every split is in flight at once (one L2
      // round trip per chunk; reduce_chunk bounds the loads beside the accumulators), then the
      // chunk's adds run in split order; an empty split (no k-tile) wrote nothing.
      constexpr int kR = P::accumulator::kRegisters;
      constexpr int kC = reduce_chunk(kR, scheduler::kSplits, K::kConsumerWarpgroups > 1 ? 32 : 64);
      // (written so that it holds where this branch is discarded: store is no template, so a plan
      // reduced by the second kernel, with more than 64 splits, still compiles it)
      static_assert(!scheduler::kReduceLastCta || (kR % kC == 0 && scheduler::kSplits <= 64),
                    "a last_cta plan has at most 64 splits (plan.LAST_CTA_MAX_SPLITS)");
      unsigned long long live = 0;   // bit s: split s has a k-tile (computed once, not per chunk)
      if constexpr (scheduler::kStreamK) {
        live = ~static_cast<unsigned long long>(0) >> (64 - u.parts);   // pieces 0 .. parts - 1
      } else {
#pragma unroll
        for (int s = 0; s < scheduler::kSplits; ++s)
          live |= (unsigned long long)(split_begin(s + 1, k_tiles) != split_begin(s, k_tiles)) << s;
      }
      // the layout is linear: offset(thread, r, w, s) = offset(thread, 0, w, 0) + offset(0, r, 0, s)
      const float* wt = ws + scheduler::workspace_offset(thread, 0, w, 0);
#pragma unroll
      for (int c0 = 0; c0 < kR; c0 += kC) {
        float v[scheduler::kSplits][kC];
#pragma unroll
        for (int s = 0; s < scheduler::kSplits; ++s)
#pragma unroll
          for (int r = 0; r < kC; ++r)
            v[s][r] = (live >> s) & 1u ? ld_cg(wt + scheduler::workspace_offset(0, c0 + r, 0, s)) : 0.f;
        bool first = true;
#pragma unroll
        for (int s = 0; s < scheduler::kSplits; ++s) {
          if (!((live >> s) & 1u)) continue;
#pragma unroll
          for (int r = 0; r < kC; ++r) acc[c0 + r] = first ? v[s][r] : acc[c0 + r] + v[s][r];
          first = false;
        }
      }
      epilogue.store(acc, tma_d, base, w, thread, leader, u.tm, u.tn, p);
    }
  }
};

typedef SplitKScheduler Scheduler;   // the plan's scheduler (scheduler::kSplitK)
#else
typedef PersistentScheduler Scheduler;
#endif

// Advance a consumer's place in the stage ring past n k-tiles it does not consume.
__device__ __forceinline__ void ring_advance(int& stage, uint32_t& phase, int n) {
  const int s = stage + n;
  phase ^= (uint32_t)((s / P::kStages) & 1);
  stage = s % P::kStages;
}

// The units one consumer warpgroup computes (kernel::kConsumerTiles, plan.row()["kernel"]
// ["consumers"]). Cooperative (1): every unit, all consumer warpgroups together. Ping-pong (2):
// unit i of the CTA's sequence goes to the warpgroup of slot i % 2, so one warpgroup's epilogue
// runs while the other's wgmma run; the producer still loads every unit in order, and a
// warpgroup skips the other's k-tiles in the stage ring.
// The order barrier: a warpgroup starts waiting on the full barriers of its unit only once the
// other has passed every wait of the unit before (named barriers kOrderBarrier + slot, 256
// threads). This is for correctness, not only speed: a wait is on a phase parity, and a
// warpgroup that jumped ahead by two or more ring turns would take an older phase of the same
// parity for its own. It also alternates the warpgroups' wgmma, as CUTLASS's ping-pong does.
struct ConsumerUnits {
  static constexpr uint32_t kOrderBarrier = 3;   // 0: __syncthreads, 1: epilogue, 2: debug dump
  Scheduler units;
  int slot, i, mine;
  __device__ __forceinline__ ConsumerUnits(int M, int N, int k_tiles, uint32_t cluster_rank, int slot_)
      : units(M, N, k_tiles, cluster_rank), slot(slot_), i(0), mine(0) {}
  // Before a unit's first full-barrier wait: the other warpgroup has passed its unit's waits
  // (the CTA's first unit waits for nothing).
  __device__ __forceinline__ void begin_mainloop() {
    if (K::kConsumerTiles == 1) return;
    if (slot != 0 || mine != 0) named_sync(kOrderBarrier + slot, 2 * 128);
    ++mine;
  }
  // After a unit's last full-barrier wait: the other warpgroup may start on its next unit.
  __device__ __forceinline__ void end_mainloop() {
    if (K::kConsumerTiles == 1) return;
    named_arrive(kOrderBarrier + (1 - slot), 2 * 128);
  }
  // After the last unit: match the other warpgroup's arrivals that no unit waited for, so that
  // every named-barrier phase completes (i counts the CTA's units, both slots').
  __device__ __forceinline__ void finish() {
    if (K::kConsumerTiles == 1) return;
    const int theirs = slot == 0 ? i / 2 : (i + 1) / 2;   // arrivals on this warpgroup's barrier
    const int waited = slot == 0 ? (mine > 0 ? mine - 1 : 0) : mine;
    for (int k = waited; k < theirs; ++k) named_sync(kOrderBarrier + slot, 2 * 128);
  }
  __device__ __forceinline__ bool next(WorkUnit& u, int& stage, uint32_t& phase) {
    // At most kConsumerTiles - 1 units to skip. Seen with NVRTC 13: any loop here (even this
    // unrolled one, in the cooperative case) kept the register epilogue's loop over a 128 x 256
    // tile from unrolling, and the accumulators went to local memory.
    if (K::kConsumerTiles == 1) return units.next(u);   // cooperative: straight through
#pragma unroll
    for (int j = 0; j < K::kConsumerTiles; ++j) {
      if (!units.next(u)) return false;
      if (i++ % K::kConsumerTiles == slot) return true;
      ring_advance(stage, phase, u.k_end - u.k_begin);
    }
    return false;
  }
  __device__ __forceinline__ void store(float (&acc)[P::accumulator::kRegisters], const WorkUnit& u, Epilogue& epilogue,
                                        const TmaDescriptor* tma_d, uint32_t base, int w, int thread, bool leader,
                                        const FswParams& p) const {
    units.store(acc, u, epilogue, tma_d, base, w, thread, leader, p);
  }
};
