// wgmma conformance kernel (sm_90a): one warpgroup scatters operands to the shared-memory
// addresses fastswz computed, runs wgmma.mma_async with fastswz's descriptors, writes D.
//
// The kernel deliberately knows nothing about layouts: it receives, for every element, its value
// bits and its absolute shared-window byte address, plus one 64-bit descriptor per k-step and
// operand. If D == A*B^T then the addresses and the descriptors describe the same layout as the
// tensor core reads. Everything layout-specific stays in the Python driver.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>

#include "wgmma_ops.cuh"

// dtype codes: keep in sync with gen_wgmma_ops.py DTYPES and conformance.py DTYPE_CODE.
enum : int { DT_F16 = 0, DT_BF16 = 1, DT_TF32 = 2, DT_E4M3 = 3, DT_E5M2 = 4, DT_S8 = 5 };

__host__ __device__ constexpr int elem_bytes(int dt) {
  return dt == DT_TF32 ? 4 : (dt == DT_F16 || dt == DT_BF16) ? 2 : 1;
}

// Device pointers and counts for one launch (passed by value as a kernel parameter).
struct FswParams {
  const uint8_t* a_bits;    // a_count elements, elem_bytes each (raw bit patterns)
  const uint32_t* a_addr;   // absolute shared-window byte address of each A element
  const uint8_t* b_bits;
  const uint32_t* b_addr;
  const uint64_t* a_desc;   // ksteps descriptors for A
  const uint64_t* b_desc;   // ksteps descriptors for B
  void* d;                  // 64 x N accumulators, row-major
  uint32_t* info;           // [0] = shared-window address of the dynamic buffer,
                            // [1] = elements whose address fell outside the buffer (not written)
  int a_count, b_count, ksteps;
  uint32_t smem_bytes;      // dynamic shared memory size (multiple of 16)
};

// Writes `count` elements of E bytes to their addresses. Addresses are absolute shared-window
// addresses (what a descriptor's start field holds), so subtract the buffer's own window address.
template <int E>
__device__ __forceinline__ void scatter(uint8_t* smem, uint32_t base, uint32_t smem_bytes,
                                        const uint8_t* bits, const uint32_t* addr, int count,
                                        uint32_t* bad) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    const uint32_t off = addr[i] - base;  // wraps to a huge value when addr < base
    if (off > smem_bytes - E || (off % E) != 0) {
      atomicAdd(bad, 1u);
      continue;
    }
    if constexpr (E == 1) {
      smem[off] = bits[i];
    } else if constexpr (E == 2) {
      *reinterpret_cast<uint16_t*>(smem + off) = reinterpret_cast<const uint16_t*>(bits)[i];
    } else {
      *reinterpret_cast<uint32_t*>(smem + off) = reinterpret_cast<const uint32_t*>(bits)[i];
    }
  }
}

// Keeps the compiler from moving accumulator reads/writes across the asynchronous wgmma
// (the same trick as CUTLASS's warpgroup_fence_operand): the asm "touches" each register.
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void fence_operand(int32_t& r) { asm volatile("" : "+r"(r)::"memory"); }

template <int DT, int N, int TA, int TB>
__global__ void __launch_bounds__(128, 1) wgmma_conformance_kernel(const FswParams p) {
  using Op = Wgmma<DT, N, TA, TB>;
  using Acc = typename Op::Acc;
  constexpr int E = elem_bytes(DT);
  // 1024-byte alignment is only a request: the test does not rely on it, because fastswz's
  // addresses are absolute and the kernel rebases them on the address it reads below.
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));

  // Zero-fill first, so bytes no element claims read as 0 (a wrong descriptor then reads zeros
  // or other elements, never stale data from an earlier launch that happens to be right).
  for (uint32_t i = threadIdx.x * 16; i < p.smem_bytes; i += blockDim.x * 16) {
    *reinterpret_cast<uint4*>(smem + i) = make_uint4(0, 0, 0, 0);
  }
  __syncthreads();
  scatter<E>(smem, base, p.smem_bytes, p.a_bits, p.a_addr, p.a_count, &p.info[1]);
  scatter<E>(smem, base, p.smem_bytes, p.b_bits, p.b_addr, p.b_count, &p.info[1]);
  // The tensor core reads shared memory through the async proxy; ordinary st.shared writes are in
  // the generic proxy. Each writing thread must order its writes for the async proxy before the
  // barrier (PTX "membar/fence": fence.proxy.async; wgmma.mma_async §9.7.15.5.2 operands are read
  // via the async proxy, see "Async proxy" §8.x of the memory consistency model).
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) p.info[0] = base;

  Acc d[Op::kRegs];
#pragma unroll
  for (int i = 0; i < Op::kRegs; ++i) {
    d[i] = Acc(0);
    fence_operand(d[i]);
  }
  // wgmma.fence (§9.7.15.7.1): required before the first wgmma.mma_async and after any ordinary
  // register write to its accumulators (the zeroing above).
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int j = 0; j < p.ksteps; ++j) {
    // Consecutive wgmma.mma_async with the same shape and accumulators need no fence between them.
    Op::run(d, p.a_desc[j], p.b_desc[j]);
  }
  // Group the issued wgmmas and wait for all of them (§9.7.15.7.2 commit_group, §9.7.15.7.3
  // wait_group): until then the accumulator registers must not be read.
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
  for (int i = 0; i < Op::kRegs; ++i) fence_operand(d[i]);

  // Accumulator fragment of m64nN (§9.7.15.5.1.1, "Matrix D" figure for .f32/.s32 accumulators):
  // warp w of the warpgroup owns rows 16w..16w+15; lane l, register i holds
  //   row = 16w + l/4 + 8*((i/2)%2),  col = 8*(i/4) + 2*(l%4) + (i%2).
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  Acc* out = static_cast<Acc*>(p.d);
#pragma unroll
  for (int i = 0; i < Op::kRegs; ++i) {
    const int row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    const int col = 8 * (i / 4) + 2 * (lane % 4) + (i % 2);
    out[row * N + col] = d[i];
  }
}

// Host side: launch one instantiation (1 CTA, one warpgroup). Returns a cudaError_t value.
template <int DT, int N, int TA, int TB>
int fsw_launch_one(const FswParams& p) {
  auto k = wgmma_conformance_kernel<DT, N, TA, TB>;
  cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(p.smem_bytes));
  if (e != cudaSuccess) return e;
  k<<<1, 128, p.smem_bytes>>>(p);
  return cudaGetLastError();
}

// Dispatch over N in {8, 64, 128, 256} for a fixed (DT, TA, TB). -1 = no such instantiation.
template <int DT, int TA, int TB>
int fsw_dispatch_n(int n, const FswParams& p) {
  switch (n) {
    case 8: return fsw_launch_one<DT, 8, TA, TB>(p);
    case 64: return fsw_launch_one<DT, 64, TA, TB>(p);
    case 128: return fsw_launch_one<DT, 128, TA, TB>(p);
    case 256: return fsw_launch_one<DT, 256, TA, TB>(p);
    default: return -1;
  }
}

// Per-translation-unit entry points (defined in wgmma_tu_*.cu), so the 48 instantiations are
// compiled in parallel on a small machine.
int fsw_launch_f16(int n, int ta, int tb, const FswParams& p);   // wgmma_tu_f16.cu
int fsw_launch_bf16(int n, int ta, int tb, const FswParams& p);  // wgmma_tu_bf16.cu
int fsw_launch_other(int dt, int n, const FswParams& p);         // wgmma_tu_other.cu: tf32, fp8, s8

// The two 16-bit TUs share this: every N and both imm-trans values for A and B (PTX §9.7.15.5.2:
// transpose exists only for .f16/.bf16 operands read through descriptors), 16 kernels each.
template <int DT>
int fsw_dispatch_trans(int n, int ta, int tb, const FswParams& p) {
  if (ta == 0 && tb == 0) return fsw_dispatch_n<DT, 0, 0>(n, p);
  if (ta == 0 && tb == 1) return fsw_dispatch_n<DT, 0, 1>(n, p);
  if (ta == 1 && tb == 0) return fsw_dispatch_n<DT, 1, 0>(n, p);
  if (ta == 1 && tb == 1) return fsw_dispatch_n<DT, 1, 1>(n, p);
  return -1;
}
