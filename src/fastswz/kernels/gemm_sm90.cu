// fastswz GEMM for sm_90a: D (M x N) = A (M x K) x B (K x N), f32 accumulation.
//
// One source for every plan. Every shared-memory offset, descriptor, k-step, TMA box and box
// offset, mbarrier offset and arrival count, swizzle, epilogue address and accumulator
// (thread, register) -> (m, n) map comes from fastswz_plan.h, the header `fastswz emit` writes
// for the plan; the MMA instruction and the output conversion come from fastswz_mma.h, which
// fastswz.cuda writes from the same plan. This file holds the roles and the control flow only.
//
// Roles (plan.row()["kernel"]): warpgroup kProducerWarpgroup issues the TMA copies of each
// stage (one thread), the consumer warpgroups issue one m64nBNk* wgmma each per k-step on their
// 64 rows of A. Persistent: each CTA walks output tiles blockIdx.x, + gridDim.x, ... in the
// plan's grouped tile order; the stage ring (stage, phase) runs on across tiles, so the producer
// loads the next tile while the consumers finish this one. With a 2-CTA cluster (namespace
// cluster) the two CTAs take tile rows 2p and 2p + 1 of one column, each loads its half of B and
// multicasts it to both, and a stage is refilled once both CTAs' consumers have released it.
// Descriptors are moved to this CTA's buffer by P::descriptor_rebase, which masks the shared
// address as PTX does: in a CTA of cluster rank r > 0 the address carries r from bit 24 up.
// PTX ISA references: mbarrier 9.7.13.15, cp.async.bulk.tensor 9.7.9.25, wgmma 9.7.15,
// setmaxnreg 9.7.17.1, fence.proxy.async 9.7.13.4.
#include "fastswz_plan.h"
#include "fastswz_mma.h"

namespace P = fastswz_plan;
namespace K = fastswz_plan::kernel;
namespace cluster = fastswz_plan::cluster;

struct alignas(64) TmaDescriptor { unsigned long long opaque[16]; };  // CUtensorMap, 128 bytes

__device__ __forceinline__ uint32_t shared_addr(const void* p) {
  uint32_t r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
#ifndef FSW_DEBUG_HANG
#define FSW_DEBUG_HANG 0
#endif
#ifndef FSW_SETMAXNREG
// Register reallocation between the roles (setmaxnreg). Seen on an H100: with four consumer
// warpgroups (640 threads) setmaxnreg.inc to 112 never returned, while 1-3 consumer warpgroups
// ran; at 640 threads the entry cap (96) already holds a BN <= 128 accumulator.
#define FSW_SETMAXNREG -1  // -1: by the number of consumer warpgroups
#endif
#if FSW_DEBUG_HANG
// Debug builds only: a wait that spins too long records where it is stuck in host-mapped
// memory (the host sets fsw_debug_out) and goes on spinning.
extern "C" __device__ unsigned int* fsw_debug_out;
__device__ unsigned int* fsw_debug_out = nullptr;
#endif
#ifndef FSW_DEBUG_DUMP
#define FSW_DEBUG_DUMP 0
#endif
#if FSW_DEBUG_DUMP
// Debug builds only: the first CTAs copy each stage's A and B bytes of their first tile to
// fsw_dump_out when its full barrier completes and again a while later (a difference means the
// barrier completed before the data landed).
extern "C" __device__ unsigned char* fsw_dump_out;
__device__ unsigned char* fsw_dump_out = nullptr;
#endif
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
#if FSW_DEBUG_HANG
  long spins = 0;
#endif
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done) : "r"(bar), "r"(parity) : "memory");
#if FSW_DEBUG_HANG
    if (++spins == (1L << 24) && fsw_debug_out && threadIdx.x % 128 == 0) {
      unsigned long long state;
      asm volatile("ld.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar));
      volatile unsigned int* o = fsw_debug_out + 8 * (blockIdx.x * 8 + threadIdx.x / 128);
      o[0] = 1; o[1] = blockIdx.x; o[2] = threadIdx.x; o[3] = bar; o[4] = parity;
      o[5] = (unsigned)state; o[6] = (unsigned)(state >> 32);
      __threadfence_system();
    }
#endif
  } while (!done);
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tma_load(const TmaDescriptor* map, uint32_t dst, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory");
}
__device__ __forceinline__ void tma_load_multicast(const TmaDescriptor* map, uint32_t dst, uint32_t bar, int c0,
                                                   int c1, unsigned short mask) {
  // The box lands at dst in every CTA of mask and completes bytes on each one's bar (same offsets).
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;"
      ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"(mask) : "memory");
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  // not .aligned: the producer warp's lanes reach the final sync from different branches
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_peer(uint32_t bar, uint32_t peer) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(bar), "r"(peer));
  // Default semantics (release at CTA scope), as CUTLASS's ClusterBarrier::arrive(cta_id): the
  // wgmma reads of the stage are complete (wgmma.wait_group) before this arrive, so the peer's
  // next multicast cannot overtake them. release.cluster cost a third of the throughput on the
  // H100 (8192^3 bf16: 480 against 677 TFLOP/s).
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}
__device__ __forceinline__ void tma_store(const TmaDescriptor* map, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(map), "r"(c0), "r"(c1), "r"(src) : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void named_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
template <int R> __device__ __forceinline__ void reg_dealloc() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}
template <int R> __device__ __forceinline__ void reg_alloc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}

// The plan's tile order (plan.row()["kernel"]["tile_order"]): groups of kTileGroup tile rows.
// With a cluster of kClusterM CTAs along M, "tiles" are the clusters' tile groups (rows of
// kClusterM tiles) and the CTA of rank r takes row kClusterM * tm + r. The producer and the
// consumers walk the same sequence through this one function.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, uint32_t rank, int& tm, int& tn) {
  const int per_group = K::kTileGroup * tiles_n;
  const int first_m = (t / per_group) * K::kTileGroup;
  const int height = min(tiles_m - first_m, K::kTileGroup);
  const int i = t % per_group;
  tm = (first_m + i % height) * K::kClusterM + rank;
  tn = i / height;
}

constexpr bool kSetMaxNReg = FSW_SETMAXNREG == 1 || (FSW_SETMAXNREG < 0 && K::kConsumerWarpgroups < 4);
constexpr int kKSteps = P::kMmaPerKTile / P::kWarpgroups;      // wgmma per warpgroup per k-tile
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegsRaw = (65536 - 128 * kProducerRegs) / (K::kConsumerWarpgroups * 128);
constexpr int kConsumerRegs = (kConsumerRegsRaw > 240 ? 240 : kConsumerRegsRaw) / 8 * 8;

extern "C" __global__ void __launch_bounds__(K::kThreads, 1)
fastswz_gemm_sm90(const __grid_constant__ TmaDescriptor tma_a, const __grid_constant__ TmaDescriptor tma_b,
                  const __grid_constant__ TmaDescriptor tma_d, FSW_OUT_T* __restrict__ d_ptr,
                  long long ldd, int M, int N, int Kdim) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // The plan's offsets and descriptors assume a base on the 1024-byte swizzle pattern at
  // P::kSmemBase; the host asks for 1 KiB more and the base is rounded up here.
  const uint32_t base = (shared_addr(smem_raw) + 1023u) & ~1023u;
  const unsigned long long desc_shift = P::descriptor_rebase(base);
  const int wg = threadIdx.x / 128;
  const int rows_m = (M + P::kBM - 1) / P::kBM;                  // output tile rows
  const int tiles_m = (rows_m + K::kClusterM - 1) / K::kClusterM; // cluster tile rows
  const int tiles_n = (N + P::kBN - 1) / P::kBN;
  const int num_tiles = tiles_m * tiles_n;
  const uint32_t rank = cluster::kSize > 1 ? cluster_rank() : 0u;
  const int first_tile = blockIdx.x / cluster::kSize, tile_step = gridDim.x / cluster::kSize;
  const int k_tiles = (Kdim + P::kBK - 1) / P::kBK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < P::kStages; ++s) {
      mbar_init(base + K::kFullBarrierOffsets[s], K::kFullArrivals);
      mbar_init(base + K::kEmptyBarrierOffsets[s], K::kEmptyArrivals);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    fence_async_shared();
  }
  if (cluster::kSize > 1) cluster_sync();   // the peer's barriers exist before any multicast
  else __syncthreads();

  if (wg == K::kProducerWarpgroup) {
    if (kSetMaxNReg) reg_dealloc<kProducerRegs>();
    if (threadIdx.x % 128 == 0) {
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_a) : "memory");
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_b) : "memory");
      int stage = 0;
      uint32_t phase = 0;
      for (int t = first_tile; t < num_tiles; t += tile_step) {
        int tm, tn;
        tile_coords(t, tiles_m, tiles_n, rank, tm, tn);
        for (int kt = 0; kt < k_tiles; ++kt) {
          const uint32_t full = base + K::kFullBarrierOffsets[stage];
          mbar_wait(base + K::kEmptyBarrierOffsets[stage], phase ^ 1u);
          mbar_expect_tx(full, K::kTxBytes);
#pragma unroll
          for (int c = 0; c < P::a::kTmaCopiesPerStage; ++c) {
            const uint32_t dst = base + P::a::kStageOffsets[stage] + P::a::kTmaBoxSmemOffsets[c];
            if (P::a::kMajorK)
              tma_load(&tma_a, dst, full, kt * P::kBK + P::a::kTmaBoxCoords[c][0], tm * P::kBM + P::a::kTmaBoxCoords[c][1]);
            else
              tma_load(&tma_a, dst, full, tm * P::kBM + P::a::kTmaBoxCoords[c][0], kt * P::kBK + P::a::kTmaBoxCoords[c][1]);
          }
#pragma unroll
          for (int c = 0; c < cluster::kBCopies; ++c) {   // this CTA's share of B
            const uint32_t dst = base + P::b::kStageOffsets[stage] + cluster::kBBoxSmemOffsets[rank][c];
            const int c0 = P::b::kMajorK ? kt * P::kBK + cluster::kBBoxCoords[rank][c][0]
                                         : tn * P::kBN + cluster::kBBoxCoords[rank][c][0];
            const int c1 = P::b::kMajorK ? tn * P::kBN + cluster::kBBoxCoords[rank][c][1]
                                         : kt * P::kBK + cluster::kBBoxCoords[rank][c][1];
            if (cluster::kSize > 1)
              tma_load_multicast(&tma_b, dst, full, c0, c1, (unsigned short)cluster::kMulticastMask);
            else
              tma_load(&tma_b, dst, full, c0, c1);
          }
          if (++stage == P::kStages) { stage = 0; phase ^= 1u; }
        }
      }
    }
  } else {
    if (kSetMaxNReg) reg_alloc<kConsumerRegs>();
    const int w = wg - K::kFirstConsumerWarpgroup;   // A's MN block (64 rows) of this warpgroup
    const int thread = threadIdx.x % 128;
    const bool leader = threadIdx.x == K::kFirstConsumerWarpgroup * 128;
    // A stage is free again when the consumers of every CTA it was multicast to are done.
    auto release = [&](uint32_t bar) {
      mbar_arrive(bar);
      for (uint32_t peer = 0; peer < (uint32_t)cluster::kSize; ++peer)
        if (peer != rank) mbar_arrive_peer(bar, peer);
    };
    float acc[P::accumulator::kRegisters];
    int stage = 0;
    uint32_t phase = 0;
#if FSW_EPILOGUE_TILE
    int ebuf = 0;   // the epilogue tile the next column block goes through
#endif
    for (int t = first_tile; t < num_tiles; t += tile_step) {
      int tm, tn;
      tile_coords(t, tiles_m, tiles_n, rank, tm, tn);
      int prev = -1;
      for (int kt = 0; kt < k_tiles; ++kt) {
        mbar_wait(base + K::kFullBarrierOffsets[stage], phase);
#if FSW_DEBUG_DUMP
        if (fsw_dump_out && w == 0 && t == first_tile && kt < P::kStages && blockIdx.x < FSW_DEBUG_DUMP) {
          constexpr uint32_t bytes = P::a::kStageBytes + P::b::kStageBytes;
          for (int copy = 0; copy < 2; ++copy) {
            unsigned char* o = fsw_dump_out + ((size_t)(blockIdx.x * P::kStages + kt) * 2 + copy) * bytes;
            for (uint32_t i = thread; i < bytes; i += 128) {
              const uint32_t a = i < P::a::kStageBytes ? base + P::a::kStageOffsets[stage] + i
                                                       : base + P::b::kStageOffsets[stage] + i - P::a::kStageBytes;
              uint32_t v;
              asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
              o[i] = (unsigned char)v;
            }
            if (copy == 0) __nanosleep(100000);
          }
          named_sync(2, 128);
        }
#endif
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kKSteps; ++ks) {
          fsw_mma(acc, P::a::kDescriptors[stage][w][ks] + desc_shift,
                  P::b::kDescriptors[stage][0][ks] + desc_shift, (kt | ks) != 0);
        }
        wgmma_commit();
        wgmma_wait<1>();   // the previous k-tile's wgmma are done: its stage may be refilled
        if (prev >= 0 && thread == 0) release(base + K::kEmptyBarrierOffsets[prev]);
        prev = stage;
        if (++stage == P::kStages) { stage = 0; phase ^= 1u; }
      }
      wgmma_wait<0>();
      if (thread == 0) release(base + K::kEmptyBarrierOffsets[prev]);

      const int n0 = tn * P::kBN;
#if FSW_EPILOGUE_TILE
      // Registers -> the plan's epilogue tile (swizzled, row-major D) -> TMA store per box, one
      // column block of kCols at a time: registers [j R, j R + R) hold block j (the plan's
      // kSubtileRegisters R). The blocks rotate through the plan's kStages tiles, one bulk
      // group each: a tile is written again once the group that stored from it kStages blocks
      // ago has read it (at most kStages - 1 groups still reading).
#pragma unroll
      for (int j = 0; j < P::epilogue::kSubtiles; ++j) {
        const uint32_t epi = base + P::epilogue::kStageOffsets[ebuf];
        if (++ebuf == P::epilogue::kStages) ebuf = 0;
        if (leader) bulk_wait_read<P::epilogue::kStages - 1>();
        named_sync(1, K::kConsumerWarpgroups * 128);
#pragma unroll
        for (int i = 0; i < P::accumulator::kSubtileRegisters; i += 2) {
          const int r = j * P::accumulator::kSubtileRegisters + i;
          const uint32_t m = 64 * w + P::accumulator::row(thread, r);
          const uint32_t n = P::accumulator::col(thread, r) - j * P::epilogue::kCols;
          fsw_store_shared_pair(epi + P::epilogue::offset(m, n), acc[r], acc[r + 1]);
        }
        fence_async_shared();
        named_sync(1, K::kConsumerWarpgroups * 128);
        if (leader) {
#pragma unroll
          for (int c = 0; c < P::epilogue::kTmaCopies; ++c)
            tma_store(&tma_d, epi + P::epilogue::kTmaBoxSmemOffsets[c],
                      n0 + j * P::epilogue::kCols + P::epilogue::kTmaBoxCoords[c][0],
                      tm * P::kBM + P::epilogue::kTmaBoxCoords[c][1]);
          bulk_commit();
        }
      }
#else
      // Registers -> global memory, each lane's adjacent pair at once where it fits.
      const bool pairs = (ldd & 1) == 0;
      const int m0 = tm * P::kBM + 64 * w;
#pragma unroll
      for (int r = 0; r < P::accumulator::kRegisters; r += 2) {
        const int m = m0 + P::accumulator::row(thread, r);
        const int n = n0 + P::accumulator::col(thread, r);
        if (m < M) {
          FSW_OUT_T* p = d_ptr + (long long)m * ldd + n;
          if (pairs && n + 1 < N) fsw_store_global_pair(p, acc[r], acc[r + 1]);
          else {
            if (n < N) fsw_store_global(p, acc[r]);
            if (n + 1 < N) fsw_store_global(p + 1, acc[r + 1]);
          }
        }
      }
#endif
    }
#if FSW_EPILOGUE_TILE
    if (leader) bulk_wait();
#endif
  }
  // No CTA leaves while its peer may still multicast into it or arrive on its barriers.
  if (cluster::kSize > 1) cluster_sync();
}
