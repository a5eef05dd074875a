// Shared-memory bank-conflict probe for fastswz.banks (sm_90a).
//
// Reads a pattern file (one warp instruction per line: kind, lane mask, 32 byte offsets into a
// 1024-byte-aligned dynamic shared buffer) and launches, per line, ONE warp (one block of 32
// threads) of the kernel for that kind. Each kernel loads its lane's offset from global memory
// and executes exactly one shared-memory instruction of the measured kind (inline PTX, so the
// compiler can neither split nor merge it; run.sh checks the SASS), so Nsight Compute's
// per-launch shared wavefront counters measure that one instruction.
//
//   usage: banks PATTERNS.txt
//   kinds: 0 baseline (no shared access); 1..5 ld.shared of 1,2,4,8,16 bytes; 6..10 st.shared
//   of 1,2,4,8,16 bytes; 11..13 ldmatrix x1,x2,x4; 14..16 ldmatrix .trans x1,x2,x4;
//   17..19 stmatrix x1,x2,x4; 20..22 stmatrix .trans x1,x2,x4.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "banks: %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
  exit(1); } } while (0)

static const int kSmemBytes = 64 * 1024 + 1024;
extern __shared__ __align__(1024) unsigned char smem[];

__device__ __forceinline__ unsigned lane_address(const unsigned* addr) {
  // Round the window address of the dynamic buffer up to 1024 bytes, so that offset bits
  // (and so banks, which depend on bits [2,7)) are the absolute address bits.
  unsigned base = (unsigned)__cvta_generic_to_shared(smem);
  return ((base + 1023u) & ~1023u) + addr[threadIdx.x];
}

#define ACTIVE ((mask >> threadIdx.x) & 1u)

__global__ void k_baseline(const unsigned* addr, unsigned mask, unsigned* out) {
  out[threadIdx.x] = lane_address(addr) ^ mask;
}
__global__ void k_ld1(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = 0;
  if (ACTIVE) asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  out[threadIdx.x] = v;
}
__global__ void k_ld2(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = 0;
  if (ACTIVE) asm volatile("ld.shared.u16 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  out[threadIdx.x] = v;
}
__global__ void k_ld4(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = 0;
  if (ACTIVE) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  out[threadIdx.x] = v;
}
__global__ void k_ld8(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0 = 0, v1 = 0;
  if (ACTIVE) asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory");
  out[threadIdx.x] = v0 ^ v1;
}
__global__ void k_ld16(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0 = 0, v1 = 0, v2 = 0, v3 = 0;
  if (ACTIVE) asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                           : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory");
  out[threadIdx.x] = v0 ^ v1 ^ v2 ^ v3;
}
__global__ void k_st1(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  if (ACTIVE) asm volatile("st.shared.u8 [%0], %1;" :: "r"(a), "r"(v) : "memory");
}
__global__ void k_st2(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  if (ACTIVE) asm volatile("st.shared.u16 [%0], %1;" :: "r"(a), "r"(v) : "memory");
}
__global__ void k_st4(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  if (ACTIVE) asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory");
}
__global__ void k_st8(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  if (ACTIVE) asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "r"(a), "r"(v), "r"(v + 1) : "memory");
}
__global__ void k_st16(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  if (ACTIVE) asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};"
                           :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");
}
// ldmatrix / stmatrix are .sync.aligned: every lane executes them; lanes 8*x.. supply no row.
__global__ void k_ldsm_x1(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(v0) : "r"(a) : "memory");
  out[threadIdx.x] = v0;
}
__global__ void k_ldsm_x2(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0, v1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory");
  out[threadIdx.x] = v0 ^ v1;
}
__global__ void k_ldsm_x4(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0, v1, v2, v3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory");
  out[threadIdx.x] = v0 ^ v1 ^ v2 ^ v3;
}
__global__ void k_ldsm_x1_trans(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(v0) : "r"(a) : "memory");
  out[threadIdx.x] = v0;
}
__global__ void k_ldsm_x2_trans(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0, v1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "r"(a) : "memory");
  out[threadIdx.x] = v0 ^ v1;
}
__global__ void k_ldsm_x4_trans(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v0, v1, v2, v3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a) : "memory");
  out[threadIdx.x] = v0 ^ v1 ^ v2 ^ v3;
}
__global__ void k_stsm_x1(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(v) : "memory");
}
__global__ void k_stsm_x2(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v), "r"(v + 1) : "memory");
}
__global__ void k_stsm_x4(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");
}
__global__ void k_stsm_x1_trans(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(v) : "memory");
}
__global__ void k_stsm_x2_trans(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v), "r"(v + 1) : "memory");
}
__global__ void k_stsm_x4_trans(const unsigned* addr, unsigned mask, unsigned* out) {
  unsigned a = lane_address(addr), v = threadIdx.x;
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
               :: "r"(a), "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3) : "memory");
}

typedef void (*Kernel)(const unsigned*, unsigned, unsigned*);
static const Kernel kKernels[] = {
  k_baseline, k_ld1, k_ld2, k_ld4, k_ld8, k_ld16, k_st1, k_st2, k_st4, k_st8, k_st16,
  k_ldsm_x1, k_ldsm_x2, k_ldsm_x4, k_ldsm_x1_trans, k_ldsm_x2_trans, k_ldsm_x4_trans,
  k_stsm_x1, k_stsm_x2, k_stsm_x4, k_stsm_x1_trans, k_stsm_x2_trans, k_stsm_x4_trans,
};
static const int kNumKinds = sizeof(kKernels) / sizeof(kKernels[0]);

int main(int argc, char** argv) {
  if (argc != 2) { fprintf(stderr, "usage: banks PATTERNS.txt\n"); return 2; }
  FILE* f = fopen(argv[1], "r");
  if (!f) { fprintf(stderr, "banks: cannot open %s\n", argv[1]); return 2; }
  for (int k = 0; k < kNumKinds; ++k)
    CK(cudaFuncSetAttribute(kKernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  unsigned *d_addr, *d_out;
  CK(cudaMalloc(&d_addr, 32 * sizeof(unsigned)));
  CK(cudaMalloc(&d_out, 32 * sizeof(unsigned)));
  int n = 0, kind;
  unsigned mask, addr[32];
  while (fscanf(f, "%d %x", &kind, &mask) == 2) {
    for (int i = 0; i < 32; ++i)
      if (fscanf(f, "%u", &addr[i]) != 1 || addr[i] + 16 > 64 * 1024) {
        fprintf(stderr, "banks: pattern %d: bad address %d\n", n, i); return 2; }
    if (kind < 0 || kind >= kNumKinds) { fprintf(stderr, "banks: pattern %d: bad kind %d\n", n, kind); return 2; }
    CK(cudaMemcpy(d_addr, addr, sizeof addr, cudaMemcpyHostToDevice));
    kKernels[kind]<<<1, 32, kSmemBytes>>>(d_addr, mask, d_out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    ++n;
  }
  fclose(f);
  fprintf(stderr, "banks: %d launches\n", n);
  return 0;
}
