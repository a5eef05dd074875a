// Promotion of the partial sums to f32 every k-tile (FSW_PROMOTE), and with it block-scaled fp8
// (DeepSeek-V3, issue 28, FSW_BLOCK_SCALE): A has one f32 scale per row per 128 of K, B one per
// 128 x 128 block. Hopper's fp8 wgmma accumulates in a reduced-precision f32, so the consumer
// promotes every k-tile (BK = 128 = fastswz_fusion::kBlockK, the plan's promote_k): the
// k-tile's wgmma start from zero, and once they are done their partial sums are added to an f32
// total, times the two scales of that k block. The rows a thread holds are the plan's
// (P::accumulator through fastswz_fusion::kSlotRegister); the scales come by plain global loads
// kAhead k-tiles ahead (FSW_SCALE_AHEAD, fastswz_fusion.h: the plan's fusion.scale_ahead), into a ring of registers the main loop indexes at
// compile time (it is unrolled kAhead times). Seen on an H100 (Nsight Compute, 4096 x 4096 x 7168,
// 128 x 128): with the loads one k-tile ahead, a tenth of the consumers' stall samples sat on the
// product of the scales, waiting for them (a ring rotated by register moves did no better: a
// move of a register still being loaded waits for the load); 4096 x 7168 x 7168 took 431 us one
// k-tile ahead, 402 two, 388 three, 378 four (the same plan promoting without scales: 307).
#pragma once

struct BlockScales {
  static constexpr int kAhead = FSW_PROMOTE ? FSW_SCALE_AHEAD : 1;
  float sa[kAhead][F::kRowSlots];   // A's scale of each row this thread holds, per ring slot (k block kt + kAhead ... )
  float sb[kAhead];                 // B's scale of this tile's 128-column block (BN divides 128), per ring slot
  float cur[F::kRowSlots];          // sa * sb of k block kt, what promote() multiplies by
#if FSW_BLOCK_SCALE
  const float* pa[F::kRowSlots];   // this unit's scale rows of A at k block 0 (null past M)
  const float* pb;                 // its scale column block of B at k block 0
#endif

  // At the unit's first k-tile kt: where its scales are, and those of kt ... kt + kAhead - 1 into
  // ring slots 0 ... kAhead - 1 (rows past M read nothing and give 0). Without block scales
  // (FSW_PROMOTE alone, torch's use_fast_accum=False) there are none: the factor is 1.
  __device__ __forceinline__ void load(const FswParams& p, int tm, int tn, int w, int thread, int kt, int k_tiles) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) {
      const int m = tm * P::kBM + 64 * w + P::accumulator::row(thread, F::kSlotRegister[s]);
      pa[s] = m < p.m ? p.scale_a + (long long)m * p.sa_sm : nullptr;
    }
    pb = p.scale_b + (long long)(tn * P::kBN / F::kBlockK) * p.sb_sn;
    fill<0>(p, kt, k_tiles);
#endif
  }

  // Ring slots J ... kAhead - 1: the scales of k blocks kt + J ... (those before k_tiles).
  template <int J> __device__ __forceinline__ void fill(const FswParams& p, int kt, int k_tiles) {
#if FSW_BLOCK_SCALE
    if constexpr (J < kAhead) {
      if (kt + J < k_tiles) fetch<J>(p, kt + J);
      fill<J + 1>(p, kt, k_tiles);
    }
#endif
  }

  // The scales of k block kt into ring slot J, from the unit's pointers.
  template <int J> __device__ __forceinline__ void fetch(const FswParams& p, int kt) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) sa[J][s] = pa[s] ? __ldg(pa[s] + (long long)kt * p.sa_sk) : 0.f;
    sb[J] = __ldg(pb + (long long)kt * p.sb_sk);
#endif
  }

  // At k-tile kt, whose scales are in ring slot J (= (kt - the unit's first) % kAhead): take them
  // and start loading those of kt + kAhead into the slot, so a load has kAhead k-tiles to arrive.
  template <int J> __device__ __forceinline__ void advance(const FswParams& p, int kt, int k_tiles) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) cur[s] = sa[J][s] * sb[J];
    if (kt + kAhead < k_tiles) fetch<J>(p, kt + kAhead);
#endif
  }

  // total += part * scale_a[row] * scale_b (block scales), else total += part, register by register.
  __device__ __forceinline__ void promote(float (&total)[P::accumulator::kRegisters],
                                          const float (&part)[P::accumulator::kRegisters]) {
#pragma unroll
    for (int r = 0; r < P::accumulator::kRegisters; ++r)
#if FSW_BLOCK_SCALE
      total[r] += part[r] * cur[F::kRowSlot[r]];
#else
      total[r] += part[r];
#endif
  }
};
