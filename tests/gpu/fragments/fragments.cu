// H100 (sm_90a) witness for fastswz's register fragments (fastswz.tv_layout).
//
// Every entry point is "registers in, registers out": the host hands each thread the 32-bit
// words of its operand registers (or the shared-memory image and each lane's row address), one
// instruction runs, and each thread's result registers (or the shared-memory image) come back.
// No layout is known here; tests/gpu/fragments/check.py builds the inputs from fastswz's claimed
// maps and checks that the same maps explain the outputs. Built by run.sh as a shared library:
//   nvcc -O2 -std=c++17 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a \
//        fragments.cu -o libfragments.so
#include <cuda_runtime.h>
#include <cstdint>
#include <cstring>

#include "ops.cuh"

#define FSW_CHECK(x)                         \
  do {                                       \
    cudaError_t e_ = (x);                    \
    if (e_ != cudaSuccess) return (int)e_;   \
  } while (0)

namespace {

// -- mma.sync: one warp; thread t's A/B/C words at [t * words + i] --------------------------------
template <int OP, int NA, int NB, int NC>
__global__ void mma_kernel(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d);

#define FSW_MMA_KERNEL(IDX, NAME, NA, NB, NC)                                                     \
  template <>                                                                                     \
  __global__ void mma_kernel<IDX, NA, NB, NC>(const uint32_t* a, const uint32_t* b,               \
                                              const uint32_t* c, uint32_t* d) {                   \
    const int t = threadIdx.x;                                                                    \
    uint32_t out[NC];                                                                             \
    mma_op_##IDX(a + t * NA, b + t * NB, c + t * NC, out);                                        \
    for (int i = 0; i < NC; ++i) d[t * NC + i] = out[i];                                          \
  }
FSW_MMA_OPS(FSW_MMA_KERNEL)

struct MmaInfo {
  const char* name;
  int na, nb, nc;
};
#define FSW_MMA_INFO(IDX, NAME, NA, NB, NC) {NAME, NA, NB, NC},
const MmaInfo kMma[] = {FSW_MMA_OPS(FSW_MMA_INFO)};
constexpr int kNumMma = sizeof(kMma) / sizeof(kMma[0]);

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// -- ldmatrix / stmatrix: one warp over a 1 KiB shared image ---------------------------------------
template <int X, bool T>
__device__ __forceinline__ void ldsm(uint32_t* r, uint32_t addr) {
  if constexpr (X == 1 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  if constexpr (X == 2 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if constexpr (X == 4 && !T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  if constexpr (X == 1 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  if constexpr (X == 2 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if constexpr (X == 4 && T) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

template <int X, bool T>
__device__ __forceinline__ void stsm(const uint32_t* r, uint32_t addr) {
  if constexpr (X == 1 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" :: "r"(addr), "r"(r[0]));
  if constexpr (X == 2 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" :: "r"(addr), "r"(r[0]), "r"(r[1]));
  if constexpr (X == 4 && !T) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
  if constexpr (X == 1 && T) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};\n" :: "r"(addr), "r"(r[0]));
  if constexpr (X == 2 && T) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" :: "r"(addr), "r"(r[0]), "r"(r[1]));
  if constexpr (X == 4 && T) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
}

constexpr int kImageWords = 256;  // 1 KiB of shared memory

template <int X, bool T>
__global__ void ldmatrix_kernel(const uint32_t* image, const int32_t* lane_off, uint32_t* regs) {
  __shared__ alignas(128) uint32_t s[kImageWords];
  const int t = threadIdx.x;
  for (int i = t; i < kImageWords; i += 32) s[i] = image[i];
  __syncwarp();
  uint32_t r[X];
  ldsm<X, T>(r, smem_u32(s) + lane_off[t]);
  for (int i = 0; i < X; ++i) regs[t * X + i] = r[i];
}

template <int X, bool T>
__global__ void stmatrix_kernel(const uint32_t* regs, const int32_t* lane_off, uint32_t* image) {
  __shared__ alignas(128) uint32_t s[kImageWords];
  const int t = threadIdx.x;
  for (int i = t; i < kImageWords; i += 32) s[i] = 0xFFFFFFFFu;   // untouched bytes stay all-ones
  __syncwarp();
  uint32_t r[X];
  for (int i = 0; i < X; ++i) r[i] = regs[t * X + i];
  stsm<X, T>(r, smem_u32(s) + lane_off[t]);
  __syncwarp();
  for (int i = t; i < kImageWords; i += 32) image[i] = s[i];
}

// -- wgmma: one warpgroup; A and B images copied to 1 KiB-aligned dynamic shared memory ----------
__device__ __forceinline__ void wgmma_begin() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_end() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

// Descriptors come from the host with start address 0; the image's shared-window address is
// added here (1 KiB aligned, so the swizzle phase is unchanged; no carry leaves the 14-bit field).
__device__ __forceinline__ uint64_t rebase(uint64_t desc, const void* p) {
  return desc + ((smem_u32(p) >> 4) & 0x3FFF);
}

__device__ __forceinline__ void copy_image(uint8_t* dst, const uint8_t* src, int bytes) {
  for (int i = threadIdx.x * 16; i < bytes; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(dst + i) = *reinterpret_cast<const uint4*>(src + i);
}

template <int N>
__global__ void wgmma_ss_kernel(const uint8_t* a_img, int a_bytes, const uint8_t* b_img, int b_bytes,
                                uint64_t da, uint64_t db, uint32_t* d_out) {
  extern __shared__ uint8_t dyn[];
  uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(dyn) + 1023) & ~uintptr_t(1023));
  uint8_t* sa = base;
  uint8_t* sb = base + ((a_bytes + 1023) & ~1023);
  copy_image(sa, a_img, a_bytes);
  copy_image(sb, b_img, b_bytes);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  float d[N / 2];
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  wgmma_begin();
  if constexpr (N == 8) wgmma_ss_8(d, rebase(da, sa), rebase(db, sb));
  if constexpr (N == 16) wgmma_ss_16(d, rebase(da, sa), rebase(db, sb));
  if constexpr (N == 24) wgmma_ss_24(d, rebase(da, sa), rebase(db, sb));
  if constexpr (N == 64) wgmma_ss_64(d, rebase(da, sa), rebase(db, sb));
  if constexpr (N == 128) wgmma_ss_128(d, rebase(da, sa), rebase(db, sb));
  if constexpr (N == 136) wgmma_ss_136(d, rebase(da, sa), rebase(db, sb));
  if constexpr (N == 256) wgmma_ss_256(d, rebase(da, sa), rebase(db, sb));
  wgmma_end();
  for (int i = 0; i < N / 2; ++i) d_out[threadIdx.x * (N / 2) + i] = __float_as_uint(d[i]);
}

template <int N>
__global__ void wgmma_ss_f16_kernel(const uint8_t* a_img, int a_bytes, const uint8_t* b_img, int b_bytes,
                                    uint64_t da, uint64_t db, uint32_t* d_out) {
  extern __shared__ uint8_t dyn[];
  uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(dyn) + 1023) & ~uintptr_t(1023));
  uint8_t* sa = base;
  uint8_t* sb = base + ((a_bytes + 1023) & ~1023);
  copy_image(sa, a_img, a_bytes);
  copy_image(sb, b_img, b_bytes);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  uint32_t d[N / 4];
  for (int i = 0; i < N / 4; ++i) d[i] = 0u;
  wgmma_begin();
  if constexpr (N == 16) wgmma_ss_f16acc_16(d, rebase(da, sa), rebase(db, sb));
  if constexpr (N == 32) wgmma_ss_f16acc_32(d, rebase(da, sa), rebase(db, sb));
  wgmma_end();
  for (int i = 0; i < N / 4; ++i) d_out[threadIdx.x * (N / 4) + i] = d[i];
}

template <int IDX, int N, class Acc>
__global__ void wgmma_rs_kernel(const uint32_t* a_regs, const uint8_t* b_img, int b_bytes, uint64_t db,
                                uint32_t* d_out);

#define FSW_RS_KERNEL(IDX, DT, NAME, N, ACC)                                                        \
  template <>                                                                                       \
  __global__ void wgmma_rs_kernel<IDX, N, ACC>(const uint32_t* a_regs, const uint8_t* b_img,         \
                                               int b_bytes, uint64_t db, uint32_t* d_out) {          \
    extern __shared__ uint8_t dyn[];                                                                \
    uint8_t* sb = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(dyn) + 1023) & ~uintptr_t(1023)); \
    copy_image(sb, b_img, b_bytes);                                                                 \
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");                                  \
    __syncthreads();                                                                                \
    ACC d[N / 2];                                                                                   \
    for (int i = 0; i < N / 2; ++i) d[i] = ACC(0);                                                  \
    uint32_t a[4];                                                                                  \
    for (int i = 0; i < 4; ++i) a[i] = a_regs[threadIdx.x * 4 + i];                                 \
    wgmma_begin();                                                                                  \
    wgmma_rs_##DT##_##N(d, a, rebase(db, sb));                                                      \
    wgmma_end();                                                                                    \
    for (int i = 0; i < N / 2; ++i) {                                                               \
      ACC v = d[i];                                                                                 \
      uint32_t w;                                                                                   \
      memcpy(&w, &v, 4);                                                                            \
      d_out[threadIdx.x * (N / 2) + i] = w;                                                         \
    }                                                                                               \
  }
FSW_WGMMA_RS(FSW_RS_KERNEL)

struct RsInfo {
  const char* dtype;
  int n;
};
#define FSW_RS_INFO(IDX, DT, NAME, N, ACC) {NAME, N},
const RsInfo kRs[] = {FSW_WGMMA_RS(FSW_RS_INFO)};
constexpr int kNumRs = sizeof(kRs) / sizeof(kRs[0]);

template <class T>
int to_device(T** dst, const T* src, size_t n) {
  FSW_CHECK(cudaMalloc(dst, n * sizeof(T) + 16));
  if (src) FSW_CHECK(cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}

}  // namespace

extern "C" {

// Instruction tables, so the Python driver never hard-codes an index.
int fsw_mma_count() { return kNumMma; }
const char* fsw_mma_name(int op) { return op >= 0 && op < kNumMma ? kMma[op].name : ""; }
int fsw_mma_words(int op, int* na, int* nb, int* nc) {
  if (op < 0 || op >= kNumMma) return -1;
  *na = kMma[op].na;
  *nb = kMma[op].nb;
  *nc = kMma[op].nc;
  return 0;
}
int fsw_rs_count() { return kNumRs; }
const char* fsw_rs_dtype(int op) { return op >= 0 && op < kNumRs ? kRs[op].dtype : ""; }
int fsw_rs_n(int op) { return op >= 0 && op < kNumRs ? kRs[op].n : -1; }

// Compute capability (e.g. 90), or minus the CUDA error when there is no usable device.
int fsw_device_name(char* buf, int len) {
  cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) return -(int)e;
  std::strncpy(buf, p.name, len - 1);
  buf[len - 1] = 0;
  return p.major * 10 + p.minor;
}

int fsw_mma(int op, const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  if (op < 0 || op >= kNumMma) return -1;
  const MmaInfo& m = kMma[op];
  uint32_t *da, *db, *dc, *dd;
  if (int e = to_device(&da, a, 32 * m.na)) return e;
  if (int e = to_device(&db, b, 32 * m.nb)) return e;
  if (int e = to_device(&dc, c, 32 * m.nc)) return e;
  if (int e = to_device(&dd, (const uint32_t*)nullptr, 32 * m.nc)) return e;
  switch (op) {
#define FSW_MMA_CASE(IDX, NAME, NA, NB, NC) \
  case IDX: mma_kernel<IDX, NA, NB, NC><<<1, 32>>>(da, db, dc, dd); break;
    FSW_MMA_OPS(FSW_MMA_CASE)
  }
  FSW_CHECK(cudaGetLastError());
  FSW_CHECK(cudaDeviceSynchronize());
  FSW_CHECK(cudaMemcpy(d, dd, 32 * m.nc * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd);
  return 0;
}

// image: 256 words (1 KiB); lane_off: 32 byte offsets into it; regs: 32 * x words.
int fsw_ldmatrix(int x, int trans, const uint32_t* image, const int32_t* lane_off, uint32_t* regs) {
  uint32_t *di, *dr;
  int32_t* dl;
  if (int e = to_device(&di, image, kImageWords)) return e;
  if (int e = to_device(&dl, lane_off, 32)) return e;
  if (int e = to_device(&dr, (const uint32_t*)nullptr, 32 * 4)) return e;
  if (x == 1 && !trans) ldmatrix_kernel<1, false><<<1, 32>>>(di, dl, dr);
  else if (x == 2 && !trans) ldmatrix_kernel<2, false><<<1, 32>>>(di, dl, dr);
  else if (x == 4 && !trans) ldmatrix_kernel<4, false><<<1, 32>>>(di, dl, dr);
  else if (x == 1) ldmatrix_kernel<1, true><<<1, 32>>>(di, dl, dr);
  else if (x == 2) ldmatrix_kernel<2, true><<<1, 32>>>(di, dl, dr);
  else if (x == 4) ldmatrix_kernel<4, true><<<1, 32>>>(di, dl, dr);
  else return -1;
  FSW_CHECK(cudaGetLastError());
  FSW_CHECK(cudaDeviceSynchronize());
  FSW_CHECK(cudaMemcpy(regs, dr, 32 * x * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(di); cudaFree(dl); cudaFree(dr);
  return 0;
}

int fsw_stmatrix(int x, int trans, const uint32_t* regs, const int32_t* lane_off, uint32_t* image) {
  uint32_t *di, *dr;
  int32_t* dl;
  if (int e = to_device(&dr, regs, 32 * x)) return e;
  if (int e = to_device(&dl, lane_off, 32)) return e;
  if (int e = to_device(&di, (const uint32_t*)nullptr, kImageWords)) return e;
  if (x == 1 && !trans) stmatrix_kernel<1, false><<<1, 32>>>(dr, dl, di);
  else if (x == 2 && !trans) stmatrix_kernel<2, false><<<1, 32>>>(dr, dl, di);
  else if (x == 4 && !trans) stmatrix_kernel<4, false><<<1, 32>>>(dr, dl, di);
  else if (x == 1) stmatrix_kernel<1, true><<<1, 32>>>(dr, dl, di);
  else if (x == 2) stmatrix_kernel<2, true><<<1, 32>>>(dr, dl, di);
  else if (x == 4) stmatrix_kernel<4, true><<<1, 32>>>(dr, dl, di);
  else return -1;
  FSW_CHECK(cudaGetLastError());
  FSW_CHECK(cudaDeviceSynchronize());
  FSW_CHECK(cudaMemcpy(image, di, kImageWords * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(di); cudaFree(dl); cudaFree(dr);
  return 0;
}

// A (64 x K) and B (N x K) f16 images with their descriptors (start address 0); d: 128 * N/2 words.
int fsw_wgmma_ss(int n, const uint8_t* a_img, int a_bytes, const uint8_t* b_img, int b_bytes,
                 uint64_t desc_a, uint64_t desc_b, uint32_t* d) {
  uint8_t *da, *db;
  uint32_t* dd;
  if (a_bytes % 16 || b_bytes % 16) return -1;
  if (int e = to_device(&da, a_img, a_bytes)) return e;
  if (int e = to_device(&db, b_img, b_bytes)) return e;
  if (int e = to_device(&dd, (const uint32_t*)nullptr, 128 * 128)) return e;
  const int smem = 1024 + ((a_bytes + 1023) & ~1023) + b_bytes;
  switch (n) {
#define FSW_SS_CASE(N)                                                                          \
  case N:                                                                                       \
    FSW_CHECK(cudaFuncSetAttribute(wgmma_ss_kernel<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); \
    wgmma_ss_kernel<N><<<1, 128, smem>>>(da, a_bytes, db, b_bytes, desc_a, desc_b, dd);          \
    break;
    FSW_WGMMA_SS(FSW_SS_CASE)
    default: return -1;
  }
  FSW_CHECK(cudaGetLastError());
  FSW_CHECK(cudaDeviceSynchronize());
  FSW_CHECK(cudaMemcpy(d, dd, 128 * (n / 2) * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(da); cudaFree(db); cudaFree(dd);
  return 0;
}

// As fsw_wgmma_ss with f16 accumulators (two per register); d: 128 * N/4 words.
int fsw_wgmma_ss_f16(int n, const uint8_t* a_img, int a_bytes, const uint8_t* b_img, int b_bytes,
                     uint64_t desc_a, uint64_t desc_b, uint32_t* d) {
  uint8_t *da, *db;
  uint32_t* dd;
  if (a_bytes % 16 || b_bytes % 16) return -1;
  if (int e = to_device(&da, a_img, a_bytes)) return e;
  if (int e = to_device(&db, b_img, b_bytes)) return e;
  if (int e = to_device(&dd, (const uint32_t*)nullptr, 128 * 64)) return e;
  const int smem = 1024 + ((a_bytes + 1023) & ~1023) + b_bytes;
  switch (n) {
#define FSW_SS_F16_CASE(N)                                                                      \
  case N:                                                                                       \
    FSW_CHECK(cudaFuncSetAttribute(wgmma_ss_f16_kernel<N>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); \
    wgmma_ss_f16_kernel<N><<<1, 128, smem>>>(da, a_bytes, db, b_bytes, desc_a, desc_b, dd);      \
    break;
    FSW_WGMMA_SS_F16(FSW_SS_F16_CASE)
    default: return -1;
  }
  FSW_CHECK(cudaGetLastError());
  FSW_CHECK(cudaDeviceSynchronize());
  FSW_CHECK(cudaMemcpy(d, dd, 128 * (n / 4) * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(da); cudaFree(db); cudaFree(dd);
  return 0;
}

// A from registers (128 threads x 4 words), B image (N x K) and its descriptor; d: 128 * N/2 words.
int fsw_wgmma_rs(int op, const uint32_t* a_regs, const uint8_t* b_img, int b_bytes, uint64_t desc_b,
                 uint32_t* d) {
  if (op < 0 || op >= kNumRs || b_bytes % 16) return -1;
  uint32_t *da, *dd;
  uint8_t* db;
  if (int e = to_device(&da, a_regs, 128 * 4)) return e;
  if (int e = to_device(&db, b_img, b_bytes)) return e;
  if (int e = to_device(&dd, (const uint32_t*)nullptr, 128 * 128)) return e;
  const int smem = 1024 + b_bytes;
  switch (op) {
#define FSW_RS_CASE(IDX, DT, NAME, N, ACC)                                                       \
  case IDX:                                                                                      \
    FSW_CHECK(cudaFuncSetAttribute(wgmma_rs_kernel<IDX, N, ACC>,                                 \
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, smem));          \
    wgmma_rs_kernel<IDX, N, ACC><<<1, 128, smem>>>(da, db, b_bytes, desc_b, dd);                 \
    break;
    FSW_WGMMA_RS(FSW_RS_CASE)
  }
  FSW_CHECK(cudaGetLastError());
  FSW_CHECK(cudaDeviceSynchronize());
  FSW_CHECK(cudaMemcpy(d, dd, 128 * (kRs[op].n / 2) * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  cudaFree(da); cudaFree(db); cudaFree(dd);
  return 0;
}

}  // extern "C"
