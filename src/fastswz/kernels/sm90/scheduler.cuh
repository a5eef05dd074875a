// Tile schedulers of the sm90 GEMM kernels: which output tiles a CTA computes, in what order.
// Every constant comes from the plan header (plan.row()["kernel"]).
#pragma once

// One unit of a CTA's work: output tile (tm, tn) over k-tiles [k_begin, k_end), split `split`
// of that tile (0 without split-K).
struct WorkUnit {
  int tm, tn, k_begin, k_end, split;
};

// Tile t of the grouped order -> (tile row, tile column); see PersistentScheduler.
__device__ __forceinline__ void grouped_tile(int t, int tiles_m, int tiles_n, uint32_t rank, int& tm, int& tn) {
  const int per_group = K::kTileGroup * tiles_n;
  const int first_m = (t / per_group) * K::kTileGroup;
  const int height = min(tiles_m - first_m, K::kTileGroup);
  const int i = t % per_group;
  tm = (first_m + i % height) * K::kClusterM + rank;
  tn = i / height;
}

// Persistent, grouped tile order (plan.row()["kernel"]["tile_order"]): CTA b of a grid of G
// takes tiles b, b + G, ...; tiles run in groups of kTileGroup tile rows so that the CTAs of a
// wave share rows of A and columns of B in L2. With a cluster of kClusterM CTAs along M, "tiles"
// are the clusters' tile groups (rows of kClusterM tiles) and the CTA of rank r takes row
// kClusterM * tm + r. The producer and the consumers walk the same sequence through next().
struct PersistentScheduler {
  static constexpr bool kPartials = false;   // each unit is a whole tile: the epilogue stores D
  int tiles_m, tiles_n, num_tiles, tile, step, k_tiles;
  uint32_t rank;
  __device__ __forceinline__ PersistentScheduler(int M, int N, int k_tiles_, uint32_t cluster_rank) {
    const int rows_m = (M + P::kBM - 1) / P::kBM;                   // output tile rows
    tiles_m = (rows_m + K::kClusterM - 1) / K::kClusterM;           // cluster tile rows
    tiles_n = (N + P::kBN - 1) / P::kBN;
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
// runs neighbouring tiles of one split. Split s of KT k-tiles runs [s KT / S, (s + 1) KT / S).
// A unit's f32 partial sums go to the plan's workspace (store_partial); the reduction kernel
// (splitk.cuh) adds them in split order. With a cluster both CTAs walk the same units.
#if FSW_SPLIT_K
struct SplitKScheduler {
  static constexpr bool kPartials = true;
  int rows_m, tiles_m, tiles_n, num_tiles, num_units, unit, step, k_tiles;
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
  }
  __device__ __forceinline__ bool next(WorkUnit& u) {
    if (unit >= num_units) return false;
    u.split = unit / num_tiles;
    grouped_tile(unit % num_tiles, tiles_m, tiles_n, rank, u.tm, u.tn);
    u.k_begin = (int)((long long)u.split * k_tiles / scheduler::kSplits);
    u.k_end = (int)((long long)(u.split + 1) * k_tiles / scheduler::kSplits);
    unit += step;
    return true;
  }
  // Consumer warpgroup w's accumulators of unit u -> the unit's block of the workspace (a tile
  // row past M, a cluster's padding, stores nothing); the epilogue is the reduction's.
  __device__ __forceinline__ void store(float (&acc)[P::accumulator::kRegisters], const WorkUnit& u, Epilogue&,
                                        const TmaDescriptor*, uint32_t, int w, int thread, bool,
                                        const FswParams& p) const {
    if (u.tm >= rows_m) return;
    float* ws = static_cast<float*>(p.workspace) + (unsigned long long)(u.tm * tiles_n + u.tn) * scheduler::kTileFloats;
#pragma unroll
    for (int r = 0; r < P::accumulator::kRegisters; ++r)
      ws[scheduler::workspace_offset(thread, r, w, u.split)] = acc[r];
  }
};

typedef SplitKScheduler Scheduler;   // the plan's scheduler (scheduler::kSplitK)
#else
typedef PersistentScheduler Scheduler;
#endif
