// Debug instrumentation of the sm90 GEMM kernels (off unless a build defines it; see
// tests/gpu/gemm/debug_hang.py and cluster_dump.py). Nothing here changes a release build.
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
