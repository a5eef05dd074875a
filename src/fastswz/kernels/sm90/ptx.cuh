// One-line PTX wrappers of the sm90 GEMM kernels, each with its PTX ISA section: mbarrier
// 9.7.13.15, cp.async.bulk.tensor 9.7.9.25, cp.async.bulk wait/commit 9.7.9.24.x, wgmma 9.7.15,
// setmaxnreg 9.7.17.1, fence.proxy.async 9.7.13.4, barrier.cluster 9.7.13.2, mapa 9.7.9.21.
#pragma once
#include "debug.cuh"

struct alignas(64) TmaDescriptor { unsigned long long opaque[16]; };  // CUtensorMap, 128 bytes

__device__ __forceinline__ uint32_t shared_addr(const void* p) {
  uint32_t r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
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
// 4 bytes from global to shared memory, asynchronously (cp.async 9.7.9.3: .ca is the only cache
// hint for 4-byte copies); src_size 0 writes zeros and reads nothing
__device__ __forceinline__ void cp_async4(uint32_t dst, const void* src, uint32_t src_size) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(src_size) : "memory");
}
// An arrival on the mbarrier once this thread's cp.async before it have landed (cp.async.mbarrier.arrive
// 9.7.9.4; .noinc: the barrier's expected count includes these arrivals)
__device__ __forceinline__ void cp_async_arrive_noinc(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ float ld_shared_f32(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
  return v;
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
// The start of a cluster kernel (FSW_CLUSTER_START 1): every thread of the CTA arrives, converged
// (.aligned), with no memory ordering of its own (.relaxed): the barriers' initialization reaches
// the peers through fence.mbarrier_init.release.cluster before it, the pattern the PTX ISA gives
// for that fence (barrier.cluster 9.7.13.2, fence 9.7.13.4).
__device__ __forceinline__ void cluster_sync_start() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;" ::: "memory");
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
__device__ __forceinline__ void named_arrive(uint32_t id, uint32_t threads) {   // barrier 9.7.13.1
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// bar.red.or over named barrier id: every participating thread gets the OR of their predicates
// (barrier 9.7.13.1; like bar.sync it orders the threads' memory accesses at CTA scope).
__device__ __forceinline__ bool named_sync_or(uint32_t id, uint32_t threads, bool pred) {
  uint32_t out;
  asm volatile("{\n.reg .pred p, q;\nsetp.ne.u32 p, %1, 0;\nbar.red.or.pred q, %2, %3, p;\nselp.u32 %0, 1, 0, q;\n}"
               : "=r"(out) : "r"((uint32_t)pred), "r"(id), "r"(threads) : "memory");
  return out != 0;
}
// An acquire-release add at GPU scope (atom 9.7.13.5, the memory consistency model's release and
// acquire patterns): the writes before it (this CTA's, ordered by a barrier) are visible to the
// thread whose add comes later, and that thread sees every earlier adder's writes.
__device__ __forceinline__ uint32_t atom_add_acq_rel_gpu(unsigned int* p, uint32_t v) {
  uint32_t old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
// A global load cached in L2 only (ld.global.cg): data other CTAs wrote during this kernel.
__device__ __forceinline__ float ld_cg(const float* p) {
  float v;
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
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
