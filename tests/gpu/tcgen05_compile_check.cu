// tcgen05 (sm_100a) compile check: a kernel that issues tcgen05.mma with shared-memory descriptors
// and an instruction descriptor taken from kernel arguments, so fastswz's values
// (OperandTile(..., arch="sm100").descriptors(), InstrDescriptorSM100) can be fed unchanged.
// No Blackwell GPU is available here: tests/test_gpu.py only compiles this
//   nvcc -gencode=arch=compute_100a,code=sm_100a -c tcgen05_compile_check.cu
// so the PTX spellings below keep assembling. It is written to be runnable (alloc, mma, commit to
// an mbarrier, wait, load D from tensor memory, dealloc) should an sm_100a machine appear.
//
// PTX references (ISA 8.7+ numbering; tcgen05 is 9.7.16 in some versions, 9.7.17 in others):
//   tcgen05.alloc / dealloc / relinquish_alloc_permit ..... "Tensor Memory Allocation"
//   tcgen05.mma (kinds f16, tf32, f8f6f4, i8) ............. "tcgen05.mma"; the 32-bit instruction
//       descriptor is "Instruction descriptor format", the 64-bit smem descriptor "Shared Memory
//       Descriptor" (bit 46 = version 1, layout at 61-63)
//   tcgen05.commit ........................................ "tcgen05.commit" (arrives on an mbarrier)
//   tcgen05.ld / wait::ld ................................. "tcgen05.ld", "tcgen05.wait"
//   tcgen05.fence::before/after_thread_sync ............... "tcgen05 memory consistency"
#include <cstdint>

enum : int { KIND_F16 = 0, KIND_TF32 = 1, KIND_F8F6F4 = 2, KIND_I8 = 3 };

template <int KIND>
__device__ __forceinline__ void umma_ss(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                        uint32_t idesc, uint32_t accumulate) {
  // tcgen05.mma.cta_group::1.kind::K [d], a-desc, b-desc, idesc, enable-input-d;
  // idesc is the 32-bit instruction descriptor (CUTLASS passes the upper half of its 64-bit
  // runtime value, NOTES 3).
  if constexpr (KIND == KIND_F16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n"
        ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate));
  } else if constexpr (KIND == KIND_TF32) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, p;\n}\n"
        ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate));
  } else if constexpr (KIND == KIND_F8F6F4) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n}\n"
        ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, p;\n}\n"
        ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate));
  }
}

// One CTA of 128 threads (M = 128: one TMEM lane per thread). Operands are expected in dynamic
// shared memory already laid out by the caller's scatter (as in wgmma_conformance.cuh); this
// check only needs the instruction stream, so it zero-fills and multiplies.
template <int KIND>
__global__ void __launch_bounds__(128, 1)
tcgen05_mma_check(const uint64_t* __restrict__ a_desc, const uint64_t* __restrict__ b_desc,
                  uint32_t idesc, int ksteps, uint32_t* __restrict__ out) {
  __shared__ __align__(8) uint64_t mbar;
  __shared__ uint32_t tmem_base;
  const int warp = threadIdx.x / 32;
  const uint32_t mbar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&mbar));
  constexpr uint32_t kCols = 256;  // f32/s32 accumulators, N <= 256 columns (power of 2 >= 32)

  if (warp == 0) {
    // Allocation is warp-wide (.sync.aligned); the TMEM address is written to shared memory.
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base));
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n"
                 ::"r"(dst), "r"(kCols));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(mbar_addr));
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  // Operands written by st.shared would need fence.proxy.async.shared::cta here (async proxy).
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  const uint32_t d_tmem = tmem_base;

  if (threadIdx.x == 0) {
    for (int j = 0; j < ksteps; ++j) umma_ss<KIND>(d_tmem, a_desc[j], b_desc[j], idesc, j > 0);
    // Completion of all prior tcgen05.mma of this thread arrives once on the mbarrier.
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n"
        ::"r"(mbar_addr) : "memory");
  }
  // Everyone waits for phase 0 of the mbarrier to complete.
  asm volatile(
      "{\n.reg .pred done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(mbar_addr) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");

  // Each warp may read only its 32-lane quarter of TMEM: lane = 32*warp + laneid, column 0.
  uint32_t v;
  const uint32_t taddr = d_tmem + (static_cast<uint32_t>(warp * 32) << 16);
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];\n" : "=r"(v) : "r"(taddr));
  asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
  out[threadIdx.x] = v;

  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(d_tmem), "r"(kCols));
  }
}

// Host entry points (extern "C", one per kind) so a ctypes driver could feed fastswz's values.
#define FSW_TCGEN05_ENTRY(NAME, KIND)                                                          \
  extern "C" int NAME(const uint64_t* a_desc, const uint64_t* b_desc, uint32_t idesc, int ksteps, \
                      uint32_t* out) {                                                         \
    tcgen05_mma_check<KIND><<<1, 128>>>(a_desc, b_desc, idesc, ksteps, out);                   \
    return static_cast<int>(cudaGetLastError());                                               \
  }
FSW_TCGEN05_ENTRY(fsw_tcgen05_f16, KIND_F16)
FSW_TCGEN05_ENTRY(fsw_tcgen05_tf32, KIND_TF32)
FSW_TCGEN05_ENTRY(fsw_tcgen05_f8f6f4, KIND_F8F6F4)
FSW_TCGEN05_ENTRY(fsw_tcgen05_i8, KIND_I8)
