// Promotion of the partial sums to f32 every k-tile (FSW_PROMOTE), and with it block-scaled fp8
// (DeepSeek-V3, issue 28, FSW_BLOCK_SCALE): A has one f32 scale per row per 128 of K, B one per
// 128 x 128 block. Hopper's fp8 wgmma accumulates in a reduced-precision f32, so the consumer
// promotes every k-tile (BK = 128 = fastswz_fusion::kBlockK, the plan's promote_k): the
// k-tile's wgmma start from zero, and once they are done their partial sums are added to an f32
// total, times the two scales of that k block. The rows a thread holds are the plan's
// (P::accumulator through fastswz_fusion::kSlotRegister); the scales come by plain global loads
// one k-tile ahead, so their latency hides under a k-tile of tensor-core work.
#pragma once

struct BlockScales {
  float sa[F::kRowSlots];   // A's scale of each row this thread holds, k block kt + 1 (prefetched)
  float sb;                 // B's scale of this tile's 128-column block (BN divides 128), k block kt + 1
  float cur[F::kRowSlots];  // sa[s] * sb of k block kt, what promote() multiplies by
#if FSW_BLOCK_SCALE
  const float* pa[F::kRowSlots];   // this unit's scale rows of A at k block 0 (null past M)
  const float* pb;                 // its scale column block of B at k block 0
#endif

  // At the unit's first k-tile kt: where its scales are, and those of kt (rows past M read
  // nothing and give 0). Without block scales (FSW_PROMOTE alone, torch's use_fast_accum=False)
  // there are none: the factor is 1.
  __device__ __forceinline__ void load(const FswParams& p, int tm, int tn, int w, int thread, int kt) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) {
      const int m = tm * P::kBM + 64 * w + P::accumulator::row(thread, F::kSlotRegister[s]);
      pa[s] = m < p.m ? p.scale_a + (long long)m * p.sa_sm : nullptr;
    }
    pb = p.scale_b + (long long)(tn * P::kBN / F::kBlockK) * p.sb_sn;
    fetch(p, kt);
#endif
  }

  // The scales of k block kt, from the unit's pointers (an add per k-tile, not the index math).
  __device__ __forceinline__ void fetch(const FswParams& p, int kt) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) sa[s] = pa[s] ? __ldg(pa[s] + (long long)kt * p.sa_sk) : 0.f;
    sb = __ldg(pb + (long long)kt * p.sb_sk);
#endif
  }

  // At k-tile kt: take the prefetched scales of kt and start loading those of kt + 1, so a
  // load has a whole k-tile to arrive.
  __device__ __forceinline__ void advance(const FswParams& p, int tm, int tn, int w, int thread, int kt,
                                          int k_tiles) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) cur[s] = sa[s] * sb;
    if (kt + 1 < k_tiles) fetch(p, kt + 1);
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
