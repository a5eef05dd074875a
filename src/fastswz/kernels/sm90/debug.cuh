// Debug instrumentation of the sm90 GEMM kernels (off unless a build defines it; see
// tests/gpu/gemm/debug_hang.py, cluster_dump.py and trace.py). Nothing here changes a release build.
#pragma once
#ifndef FSW_DEBUG_HANG
#define FSW_DEBUG_HANG 0
#endif
#if FSW_DEBUG_HANG
// A wait that spins too long records where it is stuck in host-mapped memory (the host sets
// fsw_debug_out) and goes on spinning.
extern "C" __device__ unsigned int* fsw_debug_out;
__device__ unsigned int* fsw_debug_out = nullptr;
#endif
#ifndef FSW_DEBUG_DUMP
#define FSW_DEBUG_DUMP 0
#endif
#if FSW_DEBUG_DUMP
// The first CTAs copy each stage's A and B bytes of their first tile to fsw_dump_out when its
// full barrier completes and again a while later (a difference means the barrier completed
// before the data landed).
extern "C" __device__ unsigned char* fsw_dump_out;
__device__ unsigned char* fsw_dump_out = nullptr;
#endif
#ifndef FSW_TRACE
#define FSW_TRACE 0
#endif
// The first FSW_TRACE CTAs record, per consumer warpgroup (the first two) and unit it computes, the SM clock (clock64)
// at the points of the consumer loop named by FswTrace (tests/gpu/gemm/trace.py reads them):
// fsw_trace_out[((cta * 2 + warpgroup) * kTraceUnits + unit) * kTraceEvents + event].
// Events 6 and 7 are %globaltimer nanoseconds (comparable across SMs), in unit 0's row: when the
// warpgroup starts its consumer loop and when it has left it; unit 1's event 6: when the kernel
// entered (before the barriers' initialization and the CTA's or cluster's first sync), its event
// 7: when the warpgroup leaves; unit 2's event 6: when D's last stores are done.
enum FswTrace { kTraceUnitStart, kTraceOrdered, kTraceFirstFull, kTraceLoopEnd, kTraceMmaDone, kTraceStored,
                kTraceStartNs, kTraceEndNs, kTraceEvents };
constexpr int kTraceUnits = 64;
#if FSW_TRACE
#define FSW_TRACE_AT(warpgroup, unit, event) fsw_trace(warpgroup, unit, event)
extern "C" __device__ unsigned long long* fsw_trace_out;
__device__ unsigned long long* fsw_trace_out = nullptr;
__device__ __forceinline__ void fsw_trace(int slot, int unit, int event) {
  if (fsw_trace_out && blockIdx.x < FSW_TRACE && slot < 2 && unit < kTraceUnits && threadIdx.x % 128 == 0) {
    unsigned long long t;
    if (event >= kTraceStartNs) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    else asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    fsw_trace_out[((blockIdx.x * 2 + slot) * kTraceUnits + unit) * kTraceEvents + event] = t;
  }
}
#else
#define FSW_TRACE_AT(warpgroup, unit, event) ((void)0)
#endif
