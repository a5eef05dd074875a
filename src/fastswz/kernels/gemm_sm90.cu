// fastswz GEMM for sm_90a: D (M x N) = A (M x K) x B (K x N), f32 accumulation.
//
// One source for every plan, composed of the pieces in sm90/ (PTX wrappers, the tile scheduler,
// the epilogue). Every shared-memory offset, descriptor, k-step, TMA box and box offset, mbarrier offset and arrival count, swizzle, epilogue address and accumulator
// (thread, register) -> (m, n) map comes from fastswz_plan.h, the header `fastswz emit` writes
// for the plan; the MMA instruction and the output conversion come from fastswz_mma.h, which
// fastswz.cuda writes from the same plan. This file holds the roles and the control flow only.
//
// Roles (plan.row()["kernel"]): warpgroup kProducerWarpgroup issues the TMA copies of each
// stage (one thread), the consumer warpgroups issue one m64nBNk* wgmma each per k-step on their
// 64 rows of A. Persistent: each CTA walks work units blockIdx.x, + gridDim.x, ... of the plan's
// scheduler (sm90/scheduler.cuh: whole output tiles in the grouped tile order, or split-K's
// (tile, split) units whose partial sums sm90/splitk.cuh reduces); the stage ring (stage, phase)
// runs on across units, so the producer loads the next unit while the consumers finish this
// one. With kernel::kSwapAB the operands arrive swapped (the host passes the caller's B as A)
// and the epilogue stores the transpose. Consumers (kernel::kConsumerTiles): cooperative, every
// consumer warpgroup on each unit (its MN block kConsumerBlocks[w]), or ping-pong, two warpgroups
// on alternate units (ConsumerUnits; each on every MN block of its unit, kBlocksPerConsumer), so
// one's epilogue overlaps the other's wgmma. With a 2-CTA cluster (namespace
// cluster) the two CTAs take tile rows 2p and 2p + 1 of one column, each loads its half of B and
// multicasts it to both, and a stage is refilled once both CTAs' consumers have released it;
// with a 2-CTA cluster along N (kClusterN) the two take columns 2q and 2q + 1 of one row and
// share A the same way; a 2 x 2 cluster shares B along its columns and A along its rows (each
// CTA's half and destination CTAs: cluster::kAShare/kAMasks, kBShare/kBMasks by rank), and a
// stage is refilled once all four CTAs' consumers have released it.
// Descriptors are moved to this CTA's buffer by P::descriptor_rebase, which masks the shared
// address as PTX does: in a CTA of cluster rank r > 0 the address carries r from bit 24 up.
// PTX ISA references: mbarrier 9.7.13.15, cp.async.bulk.tensor 9.7.9.25, wgmma 9.7.15,
// setmaxnreg 9.7.17.1, fence.proxy.async 9.7.13.4.
// The plan's tables (descriptors, barrier offsets, box offsets) in the constant bank: every lane
// of a warp indexes them with the same run-time stage, so the constant cache serves each read in
// one LDC instead of a global load. Measured on an H100 (tests/gpu/gemm/ab_defines.py, the same
// cubin otherwise, results identical): 2.5-19% faster on the 12 default plans timed, most on
// short main loops (1024^3 bf16 11.8 -> 9.9 us, 512 x 4096 x 14336 bf16 104 -> 89 us).
// The run-time-indexed ones are read through the header's functions (stage_offset, descriptor,
// full_barrier, empty_barrier), which compute an affine table from the plan's numbers as
// immediates (FASTSWZ_AFFINE_TABLES, emit.py checks every entry).
#ifndef FASTSWZ_TABLE
#define FASTSWZ_TABLE __constant__ constexpr
#endif
#include "fastswz_plan.h"
#include "fastswz_mma.h"

namespace P = fastswz_plan;
namespace K = fastswz_plan::kernel;
namespace cluster = fastswz_plan::cluster;
namespace scheduler = fastswz_plan::scheduler;

#include "sm90/ptx.cuh"
#include "sm90/tile_rows.cuh"
#include "sm90/epilogue.cuh"
#include "sm90/scheduler.cuh"
#include "sm90/splitk.cuh"
#include "sm90/block_scale.cuh"

#ifndef FSW_SETMAXNREG
// Register reallocation between the roles (setmaxnreg). Seen on an H100: with four consumer
// warpgroups (640 threads) setmaxnreg.inc to 112 never returned, while 1-3 consumer warpgroups
// ran; at 640 threads the entry cap (96) already holds a BN <= 128 accumulator.
#define FSW_SETMAXNREG -1  // -1: by the number of consumer warpgroups
#endif
#ifndef FSW_UNIFORM_WG
// The warpgroup index broadcast from lane 0 (__shfl_sync), as CUTLASS's canonical_warp_group_idx
// does: ptxas then knows it is the same in every lane of a warp, and a consumer's A descriptors
// (its MN block's) are computed in uniform registers. From threadIdx.x / 128 they were 64-bit
// vector adds moved to uniform registers (R2UR) before each wgmma: the k-tile loop of a plan
// with two or more consumer warpgroups 81 -> 56 instructions, the block-scaled 128 x 128 plan's
// loop over a group of four k-tiles 654 -> 552 (NVRTC 13.5). H200 (docs/conformance/
// 2026-11-29-thirtieth-session, run 3): block-scaled 1.005-1.029x on five DeepSeek-V3 shapes,
// 10169 x 640 x 2176 bf16 1.06x, neutral on eleven others. 0: threadIdx.x / 128 (A/B runs).
#define FSW_UNIFORM_WG 1
#endif
#ifndef FSW_CLUSTER_START
// A cluster kernel's first sync: 1, every thread's relaxed arrive after the barriers' init fence
// (ptx.cuh, cluster_sync_start); 0, the release/acquire pair of the last sync (A/B runs). Traced
// on an H200 (docs/conformance/2026-11-29-thirty-third-session run 2): the consumers start their
// loop 320 ns after entry instead of 608-928, a 2-CTA cluster's launch 0.1-0.3 us shorter.
#define FSW_CLUSTER_START 1
#endif
#ifndef FSW_CLUSTER_END
// How a cluster kernel's CTA waits for its peers before it leaves: 1, its producer waits until
// every consumer of the cluster has released each stage for the last time (CUTLASS's producer
// tail, PipelineTmaAsync::producer_tail), so no peer arrives on its barriers after it left, and
// the peers' multicasts into it have landed once its own consumers saw their last full barrier;
// 0, a cluster barrier after the last stores (A/B runs): every thread's release at cluster scope
// (MEMBAR.ALL.GPU) and wait, the producer warpgroup's idle threads waiting there from the start.
// H200 (docs/conformance/2026-11-30-thirty-eighth-session, runs 4-5): the last stores to exit
// 600 ns -> 100 ns; 22 clustered default plans 1.003-1.067x faster (1143 x 13887 x 20888 bf16
// 1104.6 -> 1069.8 us), every D exact; compute-sanitizer clean on five cluster plans (run 6).
#define FSW_CLUSTER_END 1
#endif
#ifndef FSW_LATE_STAGE
// The fused epilogue's column operands (bias, rowwise scale_b) reach shared memory after the
// unit's first k-tile of wgmma is issued (sm90/epilogue_ops.cuh, stage_load / stage_store); 0:
// before the main loop.
#define FSW_LATE_STAGE 1
#endif
// Block scales through shared memory (sm90/block_scale.cuh): 32 more arrivals on each full
// barrier (the scale warp's cp.async), and each consumer warp releases a stage itself (its
// shared loads of the stage's scales are done when it does)
constexpr bool kScaleRing = FSW_BLOCK_SCALE && FSW_SCALE_RING;
constexpr uint32_t kFullArrivals = K::kFullArrivals + (kScaleRing ? (uint32_t)32 : 0u);   // a warp's lanes
constexpr uint32_t kEmptyArrivals = K::kEmptyArrivals * (kScaleRing ? (uint32_t)(128 / 32) : 1u);   // a warpgroup's warps
constexpr bool kSetMaxNReg = FSW_SETMAXNREG == 1 || (FSW_SETMAXNREG < 0 && K::kConsumerWarpgroups < 4);
constexpr int kKSteps = P::kMmaPerKTile / P::kWarpgroups;      // wgmma per warpgroup per k-tile
constexpr int kProducerRegs = FSW_PRODUCER_REGS;   // fastswz_fusion.h: codegen.PRODUCER_REGS
constexpr int kConsumerRegsRaw = (65536 - 128 * kProducerRegs) / (K::kConsumerWarpgroups * 128);
constexpr int kConsumerRegs = (kConsumerRegsRaw > 240 ? 240 : kConsumerRegsRaw) / 8 * 8;

// A descriptor of the plan moved to this CTA's buffer (P::descriptor_rebase). The shift lands in
// the start-address field, the low 14 bits of the low word (PTX 9.7.15.5.1.2.2), which stays in
// range for every buffer in shared memory: the low word takes it without a carry and the high
// word is the plan's. A 64-bit add (FSW_DESC_ADD64=1, for A/B runs) cost ptxas a third uniform
// instruction per descriptor: the k-tile loop of a 4-k-step plan 56 -> 48 instructions (NVRTC
// 13.5); H200, block-scaled 1.005-1.009x, the rest level (docs/conformance/
// 2026-11-29-thirtieth-session, run 6).
#ifndef FSW_DESC_ADD64
#define FSW_DESC_ADD64 0
#endif
__device__ __forceinline__ uint64_t fsw_rebase(uint64_t desc, uint32_t shift) {
#if FSW_DESC_ADD64
  return desc + (uint64_t)(long long)(int)shift;
#else
  return P::join64((uint32_t)desc + shift, (uint32_t)(desc >> 32));
#endif
}

extern "C" __global__ void __launch_bounds__(K::kThreads, 1)
fastswz_gemm_sm90(const __grid_constant__ TmaDescriptor tma_a, const __grid_constant__ TmaDescriptor tma_b,
                  const __grid_constant__ TmaDescriptor tma_d, const __grid_constant__ FswParams p) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // The plan's offsets and descriptors assume a base on the 1024-byte swizzle pattern at
  // P::kSmemBase; the host asks for 1 KiB more and the base is rounded up here.
  const uint32_t base = (shared_addr(smem_raw) + 1023u) & ~1023u;
  const uint32_t desc_shift = (uint32_t)P::descriptor_rebase(base);
  const int wg = FSW_UNIFORM_WG ? __shfl_sync(0xffffffffu, (int)(threadIdx.x / 128), 0) : (int)(threadIdx.x / 128);
  const uint32_t rank = cluster::kSize > 1 ? cluster_rank() : 0u;
  const int k_tiles = (p.k + P::kBK - 1) / P::kBK;
  // (traced builds: each consumer warpgroup's entry time, unit 1's kTraceStartNs; sm90/debug.cuh)
  if (wg >= K::kFirstConsumerWarpgroup) FSW_TRACE_AT(wg - K::kFirstConsumerWarpgroup, 1, kTraceStartNs);

  if (threadIdx.x == 0) {
    for (int s = 0; s < P::kStages; ++s) {
      mbar_init(base + K::full_barrier(s), kFullArrivals);
      mbar_init(base + K::empty_barrier(s), kEmptyArrivals);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    fence_async_shared();
  }
  if (cluster::kSize > 1) {   // the peer's barriers exist before any multicast
    if (FSW_CLUSTER_START) cluster_sync_start();
    else cluster_sync();
  }
  else __syncthreads();
#if FSW_SPLIT_K
  // The split-K reduction may be launched now (it waits for this grid's end itself:
  // griddepcontrol.wait), so its launch overlaps this kernel (PTX ISA, parallel synchronization
  // and communication instructions: griddepcontrol; every thread, as CUTLASS's kernels do).
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif

  if (wg == K::kProducerWarpgroup) {
    if (kSetMaxNReg) reg_dealloc<kProducerRegs>();
    if (threadIdx.x % 128 == 0) {
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_a) : "memory");
      asm volatile("prefetch.tensormap [%0];" ::"l"(&tma_b) : "memory");
      int stage = 0;
      uint32_t phase = 0;
      // the row of each operand's copy tables (the half this CTA loads) and the CTAs its copies
      // land in, by cluster rank (plan.row()["kernel"]["multicast"]: share, masks)
      const uint32_t ra = cluster::kAShare[rank], rb = cluster::kBShare[rank];
      const unsigned short mask_a = (unsigned short)cluster::kAMasks[rank];
      const unsigned short mask_b = (unsigned short)cluster::kBMasks[rank];
      Scheduler tiles(p.m, p.n, k_tiles, rank);
      WorkUnit u;
      while (tiles.next(u)) {
        const int tm = u.tm, row0 = load_row0(tm, p.m);
        // a cluster's padding column (tn BN >= N) loads the last tile column's B (in bounds; what
        // it computes is never stored), as load_row0 does for a padding row
        const int tn = K::kClusterN > 1 && u.tn * P::kBN >= p.n ? (p.n - 1) / P::kBN : u.tn;
        for (int kt = u.k_begin; kt < u.k_end; ++kt) {
          const uint32_t full = base + K::full_barrier(stage);
          mbar_wait(base + K::empty_barrier(stage), phase ^ 1u);
          mbar_expect_tx(full, K::kTxBytes);
#pragma unroll
          for (int c = 0; c < cluster::kACopies; ++c) {   // this CTA's share of A (all of it, but with a cluster along N)
            const uint32_t dst = base + P::a::stage_offset(stage) + cluster::kABoxSmemOffsets[ra][c];
            const int a0 = P::a::kMajorK ? kt * P::kBK + cluster::kABoxCoords[ra][c][0] : row0 + cluster::kABoxCoords[ra][c][0];
            const int a1 = P::a::kMajorK ? row0 + cluster::kABoxCoords[ra][c][1] : kt * P::kBK + cluster::kABoxCoords[ra][c][1];
            if (cluster::kAMulticast)
              tma_load_multicast(&tma_a, dst, full, a0, a1, mask_a);
            else
              tma_load(&tma_a, dst, full, a0, a1);
          }
#pragma unroll
          for (int c = 0; c < cluster::kBCopies; ++c) {   // this CTA's share of B (all of it, but with a cluster along M)
            const uint32_t dst = base + P::b::stage_offset(stage) + cluster::kBBoxSmemOffsets[rb][c];
            const int c0 = P::b::kMajorK ? kt * P::kBK + cluster::kBBoxCoords[rb][c][0]
                                         : tn * P::kBN + cluster::kBBoxCoords[rb][c][0];
            const int c1 = P::b::kMajorK ? tn * P::kBN + cluster::kBBoxCoords[rb][c][1]
                                         : kt * P::kBK + cluster::kBBoxCoords[rb][c][1];
            if (cluster::kBMulticast)
              tma_load_multicast(&tma_b, dst, full, c0, c1, mask_b);
            else
              tma_load(&tma_b, dst, full, c0, c1);
          }
          if (++stage == P::kStages) { stage = 0; phase ^= 1u; }
        }
      }
      if (cluster::kSize > 1 && FSW_CLUSTER_END) {   // the producer tail (FSW_CLUSTER_END)
        for (int s = 0; s < P::kStages; ++s) {
          mbar_wait(base + K::empty_barrier(stage), phase ^ 1u);
          if (++stage == P::kStages) { stage = 0; phase ^= 1u; }
        }
      }
    }
#if FSW_BLOCK_SCALE && FSW_SCALE_RING
    else if (threadIdx.x % 128 / 32 == 1) {
      // The block scales' warp: once a stage is free, the k-tile's BM scales of A (lane l: rows
      // l, l + 32, ...; zeros past M) and its B scale(s) into the stage's slot, arriving on the
      // stage's full barrier when they land
      const int lane = threadIdx.x % 32;
      int stage = 0;
      uint32_t phase = 0;
      Scheduler tiles(p.m, p.n, k_tiles, rank);
      WorkUnit u;
      while (tiles.next(u)) {
        constexpr int kRows = P::kBM / 32;
        const float* ra[kRows];
        uint32_t bytes[kRows];
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
          const int m = tile_row0(u.tm, p.m) + lane + 32 * i;
          bytes[i] = m < p.m ? (uint32_t)sizeof(float) : 0u;
          ra[i] = p.scale_a + (m < p.m ? (long long)m * p.sa_sm : (long long)0);
        }
        const ScaleBBlock b = fsw_scale_b_block(u.tn, p.n);
        const float* rb = p.scale_b + (long long)b.block * p.sb_sn;
        for (int kt = u.k_begin; kt < u.k_end; ++kt) {
          mbar_wait(base + K::empty_barrier(stage), phase ^ 1u);
          const uint32_t slot = base + F::kScaleOffset + (uint32_t)stage * F::kScaleSlotBytes;
#pragma unroll
          for (int i = 0; i < kRows; ++i)
            cp_async4(slot + (uint32_t)sizeof(float) * (lane + 32 * i), ra[i] + (long long)kt * p.sa_sk, bytes[i]);
          if (lane == 0) cp_async4(slot + F::kScaleB, rb + (long long)kt * p.sb_sk, (uint32_t)sizeof(float));
          // two B scales per tile (sm90/block_scale.cuh): the next block's beside it, 0 past N
          if (F::kScaleBBlocks > 1 && lane == 1)
            cp_async4(slot + F::kScaleB + (uint32_t)sizeof(float), rb + (b.next ? p.sb_sn : 0) + (long long)kt * p.sb_sk,
                      b.next ? (uint32_t)sizeof(float) : 0u);
          cp_async_arrive_noinc(base + K::full_barrier(stage));
          if (++stage == P::kStages) { stage = 0; phase ^= 1u; }
        }
      }
    }
#endif
  } else {
    if (kSetMaxNReg) reg_alloc<kConsumerRegs>();
    const int wi = wg - K::kFirstConsumerWarpgroup;  // this consumer warpgroup
    const int w = K::kConsumerBlocks[wi];             // A's (first) MN block (64 rows) it multiplies
    const int thread = threadIdx.x % 128;
    // The thread that issues the TMA stores of D: the first consumer thread, or with ping-pong
    // consumers each warpgroup's first (sm90/epilogue.cuh)
    const bool leader = Epilogue::kOwnTiles ? thread == 0 : threadIdx.x == K::kFirstConsumerWarpgroup * 128;
    // A stage is free again when the consumers of every CTA it was multicast to are done.
    auto release = [&](uint32_t bar) {
      mbar_arrive(bar);
      for (uint32_t peer = 0; peer < (uint32_t)cluster::kSize; ++peer)
        if (peer != rank) mbar_arrive_peer(bar, peer);
    };
    // One accumulator per MN block the warpgroup multiplies (ping-pong with BM = 128: both)
    constexpr int kBlocks = K::kBlocksPerConsumer;
    static_assert(kBlocks == 1 || !FSW_PROMOTE, "promotion keeps one MN block per consumer warpgroup");
    float acc[kBlocks][P::accumulator::kRegisters];
    int stage = 0;
    uint32_t phase = 0;
    Epilogue epilogue;
    epilogue.init(K::kConsumerSlots[wi]);
    epilogue.ops.init(p);
    // the unit's column operands in shared memory (fusion.col_operands): this warpgroup's slot,
    // staged by the threads that store the unit (cooperative: all consumer threads)
    epilogue.ops.col_smem = base + F::kColOffset + K::kConsumerSlots[wi] * F::kColSlotBytes;
    const int stage_index = Epilogue::kOwnTiles ? thread : wi * 128 + thread;
    constexpr int kStageCount = Epilogue::kOwnTiles ? 128 : K::kConsumerWarpgroups * 128;
#if FSW_PROMOTE
    float total[P::accumulator::kRegisters];   // the promoted f32 sum of the k-tiles (block scales, or promote)
    BlockScales scales;
#endif
    ConsumerUnits tiles(p.m, p.n, k_tiles, rank, K::kConsumerSlots[wi]);
#if FSW_DEBUG_DUMP
    bool first = true;
#endif
    WorkUnit u;
#if FSW_TRACE
    int traced = 0;   // this warpgroup's units so far
#endif
    FSW_TRACE_AT(wi, 0, kTraceStartNs);
    while (tiles.next(u, stage, phase)) {
      int prev = -1;
      FSW_TRACE_AT(wi, traced, kTraceUnitStart);
#if FSW_PROMOTE
#pragma unroll
      for (int r = 0; r < P::accumulator::kRegisters; ++r) total[r] = 0.f;
      scales.load(p, u.tm, u.tn, w, thread, u.k_begin, u.k_end);
#endif
      EpilogueOps::Staged<kStageCount> staged;
      epilogue.ops.stage_load(staged, u.tn, stage_index, p);
      if (!FSW_LATE_STAGE) epilogue.ops.stage_store(staged, stage_index, epilogue.barrier, epilogue.threads);
#pragma unroll
      for (int b = 0; b < kBlocks; ++b)   // the tile's epilogue operands, under the main loop
        epilogue.ops.prefetch(u.tm, u.tn, w + b, thread, p);
      tiles.begin_mainloop();   // ping-pong: the other consumer warpgroup is past its waits
      FSW_TRACE_AT(wi, traced, kTraceOrdered);
      // One k-tile; jj: its place in its group of BlockScales::kAhead k-tiles (the block scales are
      // loaded a group ahead), an index known at compile time, so the scales need no register
      // moves (moving a register that is still being loaded waits for the load)
      auto k_tile = [&](auto jj, int kt) {
        mbar_wait(base + K::full_barrier(stage), phase);
#if FSW_BLOCK_SCALE && FSW_SCALE_RING
        scales.at(base, stage);   // (read before the wgmma: under them, 0.93-0.94x at 56 k-tiles)
#endif
        if (kt == u.k_begin) FSW_TRACE_AT(wi, traced, kTraceFirstFull);
#if FSW_DEBUG_DUMP
        if (fsw_dump_out && wi == 0 && first && kt - u.k_begin < P::kStages && blockIdx.x < FSW_DEBUG_DUMP) {
          constexpr uint32_t bytes = P::a::kStageBytes + P::b::kStageBytes;
          for (int copy = 0; copy < 2; ++copy) {
            unsigned char* o = fsw_dump_out + ((size_t)(blockIdx.x * P::kStages + kt) * 2 + copy) * bytes;
            for (uint32_t i = thread; i < bytes; i += 128) {
              const uint32_t a = i < P::a::kStageBytes ? base + P::a::stage_offset(stage) + i
                                                       : base + P::b::stage_offset(stage) + i - P::a::kStageBytes;
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
          // (promote: each k-tile's wgmma start from zero, its sum is promoted below); blocks by
          // static_for: seen with NVRTC 13.5, a `#pragma unroll` loop over them left acc[b]
          // indexed at run time, in local memory
          static_for<0, kBlocks>([&](auto bb) {
            constexpr int b = decltype(bb)::value;
            fsw_mma(acc[b], fsw_rebase(P::a::descriptor(stage, w + b, ks), desc_shift),
                    fsw_rebase(P::b::descriptor(stage, 0, ks), desc_shift),
                    FSW_PROMOTE ? (ks != 0) : ((kt != u.k_begin) | (ks != 0)));
          });
        }
        wgmma_commit();
#if FSW_PROMOTE
        if (BlockScales::kUnderMma && decltype(jj)::value == 0) scales.group(p, kt, u.k_end);
#endif
        // the unit's column operands to shared memory, their loads waited on under this k-tile's wgmma
        if (FSW_LATE_STAGE && kt == u.k_begin) epilogue.ops.stage_store(staged, stage_index, epilogue.barrier, epilogue.threads);
#if FSW_PROMOTE
#if FSW_BLOCK_SCALE && FSW_SCALE_RING
        scales.product();
#endif
        wgmma_wait<0>();   // this k-tile's partial sums are in acc, its stage may be refilled
        if (kScaleRing) {
          // the warp's shared loads of the slot happen before its first lane's release (bar.warp.sync
          // orders memory among the warp's threads: PTX memory consistency model)
          __syncwarp();
          if (thread % 32 == 0) release(base + K::empty_barrier(stage));
        } else if (thread == 0) {
          release(base + K::empty_barrier(stage));
        }
        scales.template promote<decltype(jj)::value>(total, acc[0]);
#else
        wgmma_wait<1>();   // the previous k-tile's wgmma are done: its stage may be refilled
        if (prev >= 0 && thread == 0) release(base + K::empty_barrier(prev));
        prev = stage;
#endif
        if (++stage == P::kStages) { stage = 0; phase ^= 1u; }
      };
#if FSW_PROMOTE
      constexpr int kAhead = BlockScales::kAhead;
      int kt = u.k_begin;
      for (; kt + kAhead <= u.k_end; kt += kAhead) {
        if (!BlockScales::kUnderMma) scales.group(p, kt, u.k_end);
        static_for<0, kAhead>([&](auto jj) { k_tile(jj, kt + decltype(jj)::value); });
      }
      if (kt < u.k_end) {   // the unit's last (k-tiles % kAhead)
        if (!BlockScales::kUnderMma) scales.group(p, kt, u.k_end);
        static_for<0, kAhead - 1>([&](auto jj) {
          if (kt + decltype(jj)::value < u.k_end) k_tile(jj, kt + decltype(jj)::value);
        });
      }
#else
      for (int kt = u.k_begin; kt < u.k_end; ++kt) k_tile(StaticInt<0>(), kt);
#endif
      tiles.end_mainloop();
      FSW_TRACE_AT(wi, traced, kTraceLoopEnd);
      wgmma_wait<0>();   // a unit has at least one k-tile (schedulers skip empty ones)
      FSW_TRACE_AT(wi, traced, kTraceMmaDone);
      if (prev >= 0 && thread == 0) release(base + K::empty_barrier(prev));   // (promote released each)
#if FSW_DEBUG_DUMP
      first = false;
#endif
#if FSW_PROMOTE
      tiles.store(total, u, epilogue, &tma_d, base, w, thread, leader, p);
#else
      static_for<0, kBlocks>([&](auto bb) {   // D, or split-K's partials
        constexpr int b = decltype(bb)::value;
        tiles.store(acc[b], u, epilogue, &tma_d, base, w + b, thread, leader, p);
      });
#endif
      FSW_TRACE_AT(wi, traced++, kTraceStored);
    }
    FSW_TRACE_AT(wi, 0, kTraceEndNs);
    tiles.finish();
    epilogue.finish(leader);
    epilogue.ops.finish(p);   // amax: one atomic per warp
    FSW_TRACE_AT(wi, 2, kTraceStartNs);   // (traced builds: D's last stores done, unit 2's event 6)
  }
  // No CTA leaves while its peer may still multicast into it or arrive on its barriers (with
  // FSW_CLUSTER_END 1 the producer's tail above sees to it).
  if (cluster::kSize > 1 && !FSW_CLUSTER_END) cluster_sync();
  // (traced builds: each consumer warpgroup's exit time, unit 1's kTraceEndNs)
  if (wg >= K::kFirstConsumerWarpgroup) FSW_TRACE_AT(wg - K::kFirstConsumerWarpgroup, 1, kTraceEndNs);
}
