// Which rows of the kernel's A (and of D) an output tile row covers (plan.row()["kernel"]
// ["tile_order"]["last_row"]). Tile row tm covers rows tm BM .. tm BM + BM - 1, except that with
// K::kShiftLastRow the last one of a problem whose M is not a multiple of BM (M at least BM)
// covers M - BM .. M - 1, overlapping the one before it: no row of its A box is out of bounds.
// Seen on an H100 (tests/gpu/gemm/partial_tiles.py): one wave of 128 x 112 tiles over K = 18944
// took 104 us at M = 512 and 384, 134 us at M = 449 and 145 us at M = 425, where a quarter of
// the CTAs loaded boxes of A with 63-87 of their 128 rows past M (the TMA's zero fill).
// The rows it shares with the tile row before it are computed by both, by the same wgmma
// sequence over the same k-tiles, so both write the same bits (the register store skips them;
// the shared-memory epilogue's TMA store writes them again): seen on an H100 for every kind of
// plan (tests/gpu/gemm/shift_check.py). A plan with a residual C keeps the plain rows
// (codegen.kernel_row): with C the output itself, the second tile would read C where the first
// had stored D.
#pragma once

#ifndef FSW_SHIFT_LAST_ROW
#define FSW_SHIFT_LAST_ROW 1   // 0: the plain tile rows whatever the plan says (A/B timing)
#endif

// The first row tile row tm's accumulators hold (the epilogue's, the row operands'): tm BM, or
// M - BM for the last tile row when shifted. A cluster's padding row (tm BM >= M) stays past M,
// so it stores nothing.
__device__ __forceinline__ int tile_row0(int tm, int m) {
  const int r = tm * P::kBM;
  if constexpr (K::kShiftLastRow && FSW_SHIFT_LAST_ROW)
    return r < m && r + P::kBM > m && m >= P::kBM ? m - P::kBM : r;
  return r;
}
// The first row of A the producer loads for tile row tm: tile_row0's, and for a cluster's
// padding row the last tile row's (in bounds; what it computes is never stored).
__device__ __forceinline__ int load_row0(int tm, int m) {
  const int r = tm * P::kBM;
  if constexpr (K::kShiftLastRow && FSW_SHIFT_LAST_ROW)
    return r + P::kBM > m && m >= P::kBM ? m - P::kBM : r;
  return r;
}
