// TMA round trip (sm_90a): fill the stage buffers a GEMM plan laid out with cp.async.bulk.tensor
// from tensor maps encoded from the plan's TMA parameters, dump the raw stage buffers, and run
// wgmma on them with the plan's descriptors. The kernel knows nothing about layouts: offsets,
// box origins and descriptors all come from the plan (tma_roundtrip.py).
#pragma once
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

#include "../wgmma_ops.cuh"

// dtype codes of wgmma_ops.cuh (tests/gpu/gen_wgmma_ops.py): f16 0, bf16 1, tf32 2, e4m3 3.
enum : int { DT_F16_CODE = 0, DT_BF16_CODE = 1, DT_TF32_CODE = 2, DT_E4M3_CODE = 3 };

// Per operand, device-side view of the plan (all arrays in device memory).
struct TmaOperandDev {
  const uint64_t* desc0;      // stages x mnblocks: the plan's k-step-0 descriptors (smem base 0)
  const int64_t* kdelta;      // ksteps: added to desc0 for k-step j (descriptor units)
  const int32_t* copies;      // ncopies x 3: smem byte offset in the stage, box origin c0, c1
  const uint32_t* stage_off;  // stages: byte offset of each stage buffer from the smem base
  int ncopies, mnblocks, kdim;  // kdim: which box coordinate (0 innermost) runs along K
  uint32_t stage_bytes;
};

struct TmaParams {
  TmaOperandDev a, b;
  uint8_t* dump;    // the whole data region after stage s was filled (k-tile s), per stage
  float* d;         // BM x BN, row-major
  uint32_t* info;   // [0] smem base, [1] mbarrier waits that timed out, [2] base not 1024-aligned
  int stages, ktiles, ksteps, bk;
  uint32_t dump_bytes;  // bytes dumped per stage (data region + guard)
  uint32_t bar_off;     // byte offset of the stage mbarriers (after the dump region)
  uint32_t tx_bytes;    // bytes the plan says one stage receives (A + B): the expect-tx count
};

__device__ __forceinline__ void fence_acc(float& r) { asm volatile("" : "+f"(r)::"memory"); }

__device__ __forceinline__ void tma_issue(const CUtensorMap* map, const TmaOperandDev& op,
                                          uint32_t stage_base, uint32_t bar, int kt, int bk) {
  for (int c = 0; c < op.ncopies; ++c) {
    const uint32_t dst = stage_base + static_cast<uint32_t>(op.copies[3 * c]);
    int c0 = op.copies[3 * c + 1], c1 = op.copies[3 * c + 2];
    if (op.kdim == 0) c0 += kt * bk; else c1 += kt * bk;
    // PTX 9.7.9.25.5.2 cp.async.bulk.tensor: the box lands at dst in the tensor map's swizzle,
    // completion is signalled to the mbarrier as transaction bytes.
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
        : "memory");
  }
}

template <int DT, int N, int TA, int TB>
__global__ void __launch_bounds__(256, 1)
    tma_roundtrip_kernel(const __grid_constant__ CUtensorMap map_a,
                         const __grid_constant__ CUtensorMap map_b, const TmaParams p) {
  using Op = Wgmma<DT, N, TA, TB>;
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    p.info[0] = base;
    if (base % 1024) p.info[2] = 1;
  }
  // Zero the data region so bytes no copy writes read as 0, never stale data.
  for (uint32_t i = threadIdx.x * 16; i < p.bar_off; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(smem + i) = make_uint4(0, 0, 0, 0);
  const uint32_t bars = base + p.bar_off;
  if (threadIdx.x == 0) {
    for (int s = 0; s < p.stages; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bars + 8 * s) : "memory");
  }
  // Make the zero fill and the barrier init visible to the async proxy (TMA) before any copy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  __syncthreads();

  auto issue = [&](int kt) {
    const int s = kt % p.stages;
    const uint32_t bar = bars + 8 * s;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(p.tx_bytes)
                 : "memory");
    tma_issue(&map_a, p.a, base + p.a.stage_off[s], bar, kt, p.bk);
    tma_issue(&map_b, p.b, base + p.b.stage_off[s], bar, kt, p.bk);
  };
  if (threadIdx.x == 0)
    for (int kt = 0; kt < p.stages && kt < p.ktiles; ++kt) issue(kt);

  float d[Op::kRegs];
#pragma unroll
  for (int i = 0; i < Op::kRegs; ++i) {
    d[i] = 0.f;
    fence_acc(d[i]);
  }
  for (int kt = 0; kt < p.ktiles; ++kt) {
    const int s = kt % p.stages;
    const uint32_t parity = (kt / p.stages) & 1;
    // Bounded wait: a negative control may never complete the phase; count it, do not hang.
    uint32_t done = 0;
    for (long spin = 0; spin < (1L << 20) && !done; ++spin) {
      asm volatile(
          "{\n.reg .pred P;\n"
          "mbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2;\n"
          "selp.u32 %0, 1, 0, P;\n}\n"
          : "=r"(done)
          : "r"(bars + 8 * s), "r"(parity)
          : "memory");
    }
    if (!done && threadIdx.x == 0) atomicAdd(&p.info[1], 1u);
    if (kt < p.stages) {
      // First fill of stage s: dump the whole data region (all stages and the guard after them),
      // so the host sees both this stage's buffer and anything a copy wrote outside it.
      uint8_t* out = p.dump + static_cast<size_t>(s) * p.dump_bytes;
      for (uint32_t i = threadIdx.x * 16; i < p.dump_bytes; i += blockDim.x * 16)
        *reinterpret_cast<uint4*>(out + i) = *reinterpret_cast<const uint4*>(smem + i);
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const uint64_t a0 = p.a.desc0[s * p.a.mnblocks + wg] + (base >> 4);
    const uint64_t b0 = p.b.desc0[s * p.b.mnblocks] + (base >> 4);
    for (int j = 0; j < p.ksteps; ++j) Op::run(d, a0 + p.a.kdelta[j], b0 + p.b.kdelta[j]);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
    for (int i = 0; i < Op::kRegs; ++i) fence_acc(d[i]);
    // Generic-proxy reads (the dump) of stage s happen before the next async-proxy write to it.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0 && kt + p.stages < p.ktiles) issue(kt + p.stages);
  }
  // m64nN f32 accumulator fragment (PTX 9.7.15.5.1.1): warp w of the warpgroup owns rows
  // 16w..16w+15; lane l, register i -> row 16w + l/4 + 8((i/2)%2), col 8(i/4) + 2(l%4) + i%2.
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < Op::kRegs; ++i) {
    const int row = 64 * wg + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    const int col = 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
    p.d[row * N + col] = d[i];
  }
}

template <int DT, int N, int TA, int TB>
int tma_launch_one(const CUtensorMap& ma, const CUtensorMap& mb, const TmaParams& p, int threads,
                   uint32_t smem) {
  auto k = tma_roundtrip_kernel<DT, N, TA, TB>;
  cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem));
  if (e != cudaSuccess) return e;
  k<<<1, threads, smem>>>(ma, mb, p);
  return cudaGetLastError();
}

template <int DT, int TA, int TB>
int tma_dispatch_n(int n, const CUtensorMap& ma, const CUtensorMap& mb, const TmaParams& p,
                   int threads, uint32_t smem) {
  switch (n) {
    case 64: return tma_launch_one<DT, 64, TA, TB>(ma, mb, p, threads, smem);
    case 128: return tma_launch_one<DT, 128, TA, TB>(ma, mb, p, threads, smem);
    case 256: return tma_launch_one<DT, 256, TA, TB>(ma, mb, p, threads, smem);
    default: return -1;
  }
}

template <int DT>
int tma_dispatch_trans(int n, int ta, int tb, const CUtensorMap& ma, const CUtensorMap& mb,
                       const TmaParams& p, int threads, uint32_t smem) {
  if (ta == 0 && tb == 0) return tma_dispatch_n<DT, 0, 0>(n, ma, mb, p, threads, smem);
  if (ta == 0 && tb == 1) return tma_dispatch_n<DT, 0, 1>(n, ma, mb, p, threads, smem);
  if (ta == 1 && tb == 0) return tma_dispatch_n<DT, 1, 0>(n, ma, mb, p, threads, smem);
  if (ta == 1 && tb == 1) return tma_dispatch_n<DT, 1, 1>(n, ma, mb, p, threads, smem);
  return -1;
}

int tma_launch_f16(int n, int ta, int tb, const CUtensorMap& ma, const CUtensorMap& mb,
                   const TmaParams& p, int threads, uint32_t smem);
int tma_launch_bf16(int n, int ta, int tb, const CUtensorMap& ma, const CUtensorMap& mb,
                    const TmaParams& p, int threads, uint32_t smem);
int tma_launch_other(int dt, int n, const CUtensorMap& ma, const CUtensorMap& mb,
                     const TmaParams& p, int threads, uint32_t smem);
