// Promotion of the partial sums to f32 every k-tile (FSW_PROMOTE), and with it block-scaled fp8
// (DeepSeek-V3, issue 28, FSW_BLOCK_SCALE): A has one f32 scale per row per 128 of K, B one per
// 128 x 128 block. Hopper's fp8 wgmma accumulates in a reduced-precision f32, so the consumer
// promotes every k-tile (BK = 128 = fastswz_fusion::kBlockK, the plan's promote_k): the
// k-tile's wgmma start from zero, and once they are done their partial sums are added to an f32
// total, times the two scales of that k block. The rows a thread holds are the plan's
// (P::accumulator through fastswz_fusion::kSlotRegister); the scales come by plain global loads
// a group of kAhead k-tiles ahead (FSW_SCALE_AHEAD, fastswz_fusion.h: the plan's
// fusion.scale_ahead): at a group's first k-tile the consumer multiplies the group's scales
// (loaded one group earlier) and issues the next group's loads; the main loop is unrolled kAhead
// times, so each k-tile's scales are registers known at compile time. Seen on an H100 with
// NVRTC 13.0: ptxas gives every scale load one scoreboard and the first use of any loaded
// register waits for all of them, so loads issued at every k-tile (a ring of slots each k-tile
// refills) were waited on a k-tile or two after issue; 4096 x 7168 x 7168 block-scaled took 431
// us with the loads one k-tile ahead, 378 with a four-slot ring, 351 loading by groups of four
// (the same plan promoting without scales: 307; groups of 2, 6 and 8 were slower than 4).
#pragma once

#ifndef FSW_UNDER_MMA
#define FSW_UNDER_MMA 1   // BlockScales::kUnderMma (0: a group's scales before its first wait, for A/B runs)
#endif

// Two B scales per tile (BN does not divide 128, fastswz_fusion::kScaleBBlocks == 2): the tile's
// first column sits V * kScaleBGrain past the start of B's scale block, V one of
// kScaleBVariants, and register r holds columns of 8-column group kColumn8[r]: it takes the
// second block's scale where V * kScaleBGrain + 8 * kColumn8[r] >= 128. Each V is its own
// unrolled loop (which scale a register takes is then known at compile time, no selects in the
// promotion); the tile's V is a run-time branch, uniform over the CTA.
template <int V, int R> __device__ __forceinline__ void fsw_promote_two(
    float (&total)[R], const float (&part)[R], const float (&first)[F::kRowSlots],
    const float (&second)[F::kRowSlots]) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const bool next = V * F::kScaleBGrain + 8 * F::kColumn8[r] >= F::kBlockK;
    total[r] += part[r] * (next ? second[F::kRowSlot[r]] : first[F::kRowSlot[r]]);
  }
}
template <int R> __device__ __forceinline__ void fsw_promote_by_offset(
    int v, float (&total)[R], const float (&part)[R], const float (&first)[F::kRowSlots],
    const float (&second)[F::kRowSlots]) {
  constexpr int kV = F::kScaleBVariants;
  switch (v) {   // (variants past kV fold onto 0: never taken)
    case 0: fsw_promote_two<0, R>(total, part, first, second); break;
    case 1: fsw_promote_two<(kV > 1 ? 1 : 0), R>(total, part, first, second); break;
    case 2: fsw_promote_two<(kV > 2 ? 2 : 0), R>(total, part, first, second); break;
    default: fsw_promote_two<(kV > 3 ? 3 : 0), R>(total, part, first, second); break;
  }
}
static_assert(F::kScaleBVariants <= 4, "at most four register maps (codegen.BLOCK_SCALE_B_GRAIN)");

// Where a tile's columns sit among B's 128-column scale blocks (the plan row's
// fusion.scale_b.per_tile), for the consumers (BlockScales::load) and the producer's scale warp
// alike: the block of its first column, whether a next block holds columns of N (a tile across
// two blocks takes its scales, 0 past N), and its offset into the first block in kScaleBGrain.
struct ScaleBBlock {
  int block;
  bool next;
  int variant;
};
__device__ __forceinline__ ScaleBBlock fsw_scale_b_block(int tn, int n) {
  const int block = tn * P::kBN / F::kBlockK;
  return {block, block + 1 < (n + F::kBlockK - 1) / F::kBlockK, tn * P::kBN % F::kBlockK / F::kScaleBGrain};
}

#if FSW_BLOCK_SCALE && FSW_SCALE_RING
// The plan's scale slots in shared memory (fastswz_fusion.h kScaleOffset ..., plan row
// fusion.scale_ring): the producer warpgroup's second warp copies each k-tile's scales into its
// stage's slot; a consumer reads its rows' after the stage's full barrier.
struct BlockScales {
  static constexpr int kAhead = FSW_SCALE_AHEAD;   // (the main loop's unrolling only)
  static constexpr bool kTwo = F::kScaleBBlocks > 1;
  static constexpr bool kUnderMma = false;   // (group() is empty)
  uint32_t row_at[F::kRowSlots];   // byte offsets of this thread's rows in a slot
  float sa[F::kRowSlots], sb;      // the current k-tile's
  float sa1[F::kRowSlots], sb1;    // with two B scales per tile: the second block's
  int variant;                     // the tile's offset into B's scale block, in kScaleBGrain

  __device__ __forceinline__ void load(const FswParams& p, int, int tn, int w, int thread, int, int) {
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s)
      row_at[s] = (uint32_t)sizeof(float) * (64 * w + P::accumulator::row(thread, F::kSlotRegister[s]));
    variant = fsw_scale_b_block(tn, p.n).variant;
  }
  __device__ __forceinline__ void group(const FswParams&, int, int) {}
  // The k-tile's scales, from its stage's slot (after the stage's full barrier)
  __device__ __forceinline__ void at(uint32_t base, int stage) {
    const uint32_t slot = base + F::kScaleOffset + (uint32_t)stage * F::kScaleSlotBytes;
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) sa[s] = ld_shared_f32(slot + row_at[s]);
    sb = ld_shared_f32(slot + F::kScaleB);
    if (kTwo) sb1 = ld_shared_f32(slot + F::kScaleB + (uint32_t)sizeof(float));
  }
  // sa * sb, before the k-tile's stage is released: the products hold the shared loads' results,
  // so a warp that has them has read its slot
  __device__ __forceinline__ void product() {
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) {
      if (kTwo) {
        sa1[s] = sa[s] * sb1;
        asm volatile("" : "+f"(sa1[s])::"memory");
      }
      sa[s] *= sb;
      asm volatile("" : "+f"(sa[s])::"memory");
    }
  }
  template <int J> __device__ __forceinline__ void promote(float (&total)[P::accumulator::kRegisters],
                                                          const float (&part)[P::accumulator::kRegisters]) {
    if (kTwo) {
      fsw_promote_by_offset(variant, total, part, sa, sa1);
      return;
    }
#pragma unroll
    for (int r = 0; r < P::accumulator::kRegisters; ++r) total[r] += part[r] * sa[F::kRowSlot[r]];
  }
};
#else
struct BlockScales {
  static constexpr int kAhead = FSW_PROMOTE ? FSW_SCALE_AHEAD : 1;
  // Where the kernel calls group(): after the first k-tile of the group has issued its wgmma,
  // under them, for tiles within one of B's scale blocks; before that k-tile's wait otherwise.
  // Before the wait, the products and the next group's loads (about 100 instructions) stood
  // between the last k-tile's wgmma and the next one's, twice the other k-tiles' gap (the 128 x
  // 128 plan's SASS, NVRTC 13.5). H200 (docs/conformance/2026-11-29-twenty-ninth-session): the
  // 6-stage 128 x 128 plan 1.018-1.025x on six problems of 12-56 k-tiles (run 7, FSW_UNDER_MMA 0
  // against 1; the same code built twice 0.997-1.002x); tiles across two blocks 0.96-0.98x.
  static constexpr bool kUnderMma = FSW_UNDER_MMA && FSW_BLOCK_SCALE && F::kScaleBBlocks == 1;
  float sa[kAhead][F::kRowSlots];    // A's scale of each row this thread holds, k blocks of the next group
  float sb[kAhead];                  // B's scale of the 128-column block of this tile's first column, the same
  float cur[kAhead][F::kRowSlots];   // sa * sb of this group's k blocks, what promote<J>() multiplies by
#if FSW_BLOCK_SCALE
  static constexpr bool kTwo = F::kScaleBBlocks > 1;
  static constexpr int kTwoAhead = kTwo ? kAhead : 1;
  float sb1[kTwoAhead];                 // two B scales per tile: the next block's (0 past N)
  float cur1[kTwoAhead][F::kRowSlots];  // sa * sb1
  int variant;                     // the tile's offset into B's scale block, in kScaleBGrain
  const float* qa[F::kRowSlots];   // this unit's scale rows of A at the next load's k block (past M: row M - 1)
  const float* qb;                 // its scale column block of B, the same k block (+ lane0)
  const float* qb1;                // the next block's (past N's last block: qb)
  unsigned ok;                     // bit s: row slot s in M; bit kRowSlots: the next block holds columns of N
#endif

  // At the unit's first k-tile kt: where its scales are, and the loads of the first group's
  // (k blocks kt ... kt + kAhead - 1, those before k_end; rows past M, and a next block past N,
  // read nothing and give 0).
  // Without block scales (FSW_PROMOTE alone, torch's use_fast_accum=False) there are none.
  __device__ __forceinline__ void load(const FswParams& p, int tm, int tn, int w, int thread, int kt, int k_end) {
#if FSW_BLOCK_SCALE
    ok = 0;
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) {
      const int m = tile_row0(tm, p.m) + 64 * w + P::accumulator::row(thread, F::kSlotRegister[s]);
      qa[s] = p.scale_a + (long long)(m < p.m ? m : p.m - 1) * p.sa_sm + (long long)kt * p.sa_sk;
      ok |= (m < p.m ? 1u : 0u) << s;
    }
    const ScaleBBlock b = fsw_scale_b_block(tn, p.n);
    // (+ lane0, see fetch_group)
    qb = p.scale_b + (long long)b.block * p.sb_sn + (long long)kt * p.sb_sk +
         (long long)(threadIdx.x & (unsigned)(p.k >> 31));
    if (kTwo) {
      variant = b.variant;
      qb1 = b.next ? qb + p.sb_sn : qb;
      ok |= (b.next ? 1u : 0u) << F::kRowSlots;
    }
    fetch_group(p, kt, k_end);
#endif
  }

  // At the first k-tile kt of a group of kAhead: the group's products (the loads issued one group
  // earlier), then the loads of the next group's scales. The products wait for every scale load
  // in flight: ptxas gives them one scoreboard and waits for it to drain, so a load issued at
  // any k-tile but a group's first would be waited on within a k-tile or two.
  __device__ __forceinline__ void group(const FswParams& p, int kt, int k_end) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int j = 0; j < kAhead; ++j)
#pragma unroll
      for (int s = 0; s < F::kRowSlots; ++s) {
        cur[j][s] = sa[j][s] * sb[j];
        if (kTwo) cur1[kTwo ? j : 0][s] = sa[j][s] * sb1[kTwo ? j : 0];
      }
    fetch_group(p, kt + kAhead, k_end);
#endif
  }

  // The scales of k blocks kt ... kt + kAhead - 1 (those before k_end) into sa, sb; the
  // pointers step one k block per load, so a load costs no address arithmetic (computing each
  // address from kt took about 11 instructions per load, 130 of a group's 170 instructions for
  // its scales: the 128 x 128 plan's SASS, NVRTC 13.5; 4096 x 4096 x 7168 207.6 -> 199.3 us on
  // an H200, docs/conformance/2026-11-29-twenty-eighth-session, run 8).
  // B's scales are the same for every thread of the CTA, and are loaded at an address ptxas
  // cannot prove the same: qb is offset by lane0 = threadIdx.x & (k >> 31), a 0 it cannot see
  // (k >= 1). With the address uniform, ptxas kept B's scales in uniform registers and moved each
  // there (R2UR) right after its load, waiting for it: four L2 round trips in a row at every
  // group, where the design waits for the loads a group later (217.8 -> 209.1 us, run 3).
  __device__ __forceinline__ void fetch_group(const FswParams& p, int kt, int k_end) {
#if FSW_BLOCK_SCALE
#pragma unroll
    for (int j = 0; j < kAhead; ++j) {
      if (kt + j < k_end) {
#pragma unroll
        for (int s = 0; s < F::kRowSlots; ++s) sa[j][s] = ok >> s & 1u ? __ldg(qa[s]) : 0.f;
        sb[j] = __ldg(qb);
        if (kTwo) sb1[kTwo ? j : 0] = ok >> F::kRowSlots & 1u ? __ldg(qb1) : 0.f;
      }
#pragma unroll
      for (int s = 0; s < F::kRowSlots; ++s) qa[s] += p.sa_sk;
      qb += p.sb_sk;
      if (kTwo) qb1 += p.sb_sk;
    }
#endif
  }

  // total += part * scale_a[row] * scale_b (block scales; J: the k-tile's place in its group),
  // else total += part, register by register.
  template <int J> __device__ __forceinline__ void promote(float (&total)[P::accumulator::kRegisters],
                                                          const float (&part)[P::accumulator::kRegisters]) {
#if FSW_BLOCK_SCALE
    if (kTwo) {
      fsw_promote_by_offset(variant, total, part, cur[J], cur1[kTwo ? J : 0]);
      return;
    }
#endif
#pragma unroll
    for (int r = 0; r < P::accumulator::kRegisters; ++r)
#if FSW_BLOCK_SCALE
      total[r] += part[r] * cur[J][F::kRowSlot[r]];
#else
      total[r] += part[r];
#endif
  }
};
#endif
