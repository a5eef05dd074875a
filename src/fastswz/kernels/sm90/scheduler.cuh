// Tile schedulers of the sm90 GEMM kernels: which output tiles a CTA computes, in what order.
// Every constant comes from the plan header (plan.row()["kernel"]).
#pragma once

// Persistent, grouped tile order (plan.row()["kernel"]["tile_order"]): CTA b of a grid of G
// takes tiles b, b + G, ...; tiles run in groups of kTileGroup tile rows so that the CTAs of a
// wave share rows of A and columns of B in L2. With a cluster of kClusterM CTAs along M, "tiles"
// are the clusters' tile groups (rows of kClusterM tiles) and the CTA of rank r takes row
// kClusterM * tm + r. The producer and the consumers walk the same sequence through next().
struct PersistentScheduler {
  int tiles_m, tiles_n, num_tiles, tile, step;
  uint32_t rank;
  __device__ __forceinline__ PersistentScheduler(int M, int N, uint32_t cluster_rank) {
    const int rows_m = (M + P::kBM - 1) / P::kBM;                   // output tile rows
    tiles_m = (rows_m + K::kClusterM - 1) / K::kClusterM;           // cluster tile rows
    tiles_n = (N + P::kBN - 1) / P::kBN;
    num_tiles = tiles_m * tiles_n;
    tile = blockIdx.x / cluster::kSize;
    step = gridDim.x / cluster::kSize;
    rank = cluster_rank;
  }
  // The next tile of this CTA as (tile row tm, tile column tn); false when none is left.
  __device__ __forceinline__ bool next(int& tm, int& tn) {
    if (tile >= num_tiles) return false;
    const int per_group = K::kTileGroup * tiles_n;
    const int first_m = (tile / per_group) * K::kTileGroup;
    const int height = min(tiles_m - first_m, K::kTileGroup);
    const int i = tile % per_group;
    tm = (first_m + i % height) * K::kClusterM + rank;
    tn = i / height;
    tile += step;
    return true;
  }
};
