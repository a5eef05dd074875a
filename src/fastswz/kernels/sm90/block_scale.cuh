// Promotion of the partial sums to f32 every k-tile (FSW_PROMOTE), and with it block-scaled fp8
// (DeepSeek-V3, issue 28, FSW_BLOCK_SCALE): A has one f32 scale per row per 128 of K, B one per
// 128 x 128 block. Hopper's fp8 wgmma accumulates in a reduced-precision f32, so the consumer
// promotes every k-tile (BK = 128 = fastswz_fusion::kBlockK, the plan's promote_k): the
// k-tile's wgmma start from zero, and once they are done their partial sums are added to an f32
// total, times the two scales of that k block. The rows a thread holds are the plan's
// (P::accumulator through fastswz_fusion::kSlotRegister); the scales come by plain global loads
// one k-tile ahead, so their latency hides under a k-tile of tensor-core work. Split promotion
// (FSW_PROMOTE_SPLIT, the plan's fusion.promote_buffers 2): each k-tile's wgmma are issued as two
// halves of BN/2 columns, each its own commit group and its own half-width partial sum, and the
// consumer promotes one half while the other half's wgmma run, so the tensor cores do not wait
// for promotions (with one group per k-tile they idle from the k-tile's last wgmma to the next
// k-tile's first). The two halves take the registers of one 64 x BN partial sum: ptxas compiles
// the consumers to the kernel's 65536 / threads registers (168 at 384 threads) whatever
// setmaxnreg gives them at run time, so a second whole partial sum would spill.
#pragma once

struct BlockScales {
  float sa[F::kRowSlots];   // A's scale of each row this thread holds, k block kt + 1 (prefetched)
  float sb;                 // B's scale of this tile's 128-column block (BN divides 128), k block kt + 1
  float cur[F::kRowSlots];  // sa[s] * sb of k block kt, what promote() multiplies by
  float last[F::kRowSlots]; // with two partial-sum buffers: cur of the k-tile before, promoted now
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
    add(total, part, cur);
  }
  // The same with the factors kept by keep(): the k-tile before the one just issued.
  __device__ __forceinline__ void promote_last(float (&total)[P::accumulator::kRegisters],
                                               const float (&part)[P::accumulator::kRegisters]) {
    add(total, part, last);
  }
  __device__ __forceinline__ void keep() {
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) last[s] = cur[s];
  }

  // The split promotion (FSW_PROMOTE_SPLIT): half h of the accumulator, registers
  // [h R/2, (h + 1) R/2), is columns [h BN/2, (h + 1) BN/2) (register r holds column
  // 8 (r / 4) + 2 (lane % 4) + r % 2, PTX 9.7.15.5.1.1), so the two half-width wgmma's
  // accumulators side by side are the full one's registers in order.
  template <int H>
  __device__ __forceinline__ void add_half(float (&total)[P::accumulator::kRegisters],
                                           const float (&part)[P::accumulator::kRegisters / 2],
                                           const float (&factor)[F::kRowSlots]) {
    constexpr int R = P::accumulator::kRegisters / 2;
#pragma unroll
    for (int i = 0; i < R; ++i)
#if FSW_BLOCK_SCALE
      total[H * R + i] += part[i] * factor[F::kRowSlot[H * R + i]];
#else
      total[H * R + i] += part[i];
#endif
  }

  __device__ __forceinline__ void add(float (&total)[P::accumulator::kRegisters],
                                      const float (&part)[P::accumulator::kRegisters],
                                      const float (&factor)[F::kRowSlots]) {
#pragma unroll
    for (int r = 0; r < P::accumulator::kRegisters; ++r)
#if FSW_BLOCK_SCALE
      total[r] += part[r] * factor[F::kRowSlot[r]];
#else
      total[r] += part[r];
#endif
  }
};
