// wgmma conformance suite, host API (extern "C", loaded by conformance.py through ctypes).
// The kernels themselves are in wgmma_conformance.cuh, instantiated in wgmma_tu_*.cu.
// Build (tests/gpu/build.sh does this):
//   nvcc -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC \
//        wgmma_conformance.cu wgmma_tu_f16.cu wgmma_tu_bf16.cu wgmma_tu_other.cu
#include <cstdio>
#include <cstring>

#include "wgmma_conformance.cuh"

// Reads the shared-window address of the dynamic buffer in a kernel that, like the conformance
// kernel, has no static shared memory. fastswz addresses are absolute shared-window addresses,
// and on H100 the window's first 1 KiB is reserved, so the buffer starts at 0x400 (NOTES §10), not 0.
__global__ void fsw_smem_base_kernel(uint32_t* out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  if (threadIdx.x == 0) out[0] = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
}

extern "C" {

const char* fsw_error_string(int e) {
  if (e == -1) return "no kernel instantiated for this (dtype, N, trans) combination";
  if (e == -2) return "bad argument";
  return cudaGetErrorString(static_cast<cudaError_t>(e));
}

// name, compute capability, driver/runtime versions and the opt-in shared-memory limit.
int fsw_device_info(char* buf, int len, int* max_dyn_smem) {
  int dev = 0, drv = 0, rt = 0;
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
  if (e != cudaSuccess) return e;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  snprintf(buf, len, "%s|sm_%d%d|driver_api=%d|runtime=%d", prop.name, prop.major, prop.minor, drv,
           rt);
  *max_dyn_smem = static_cast<int>(prop.sharedMemPerBlockOptin);
  return 0;
}

int fsw_smem_base(uint32_t* out) {
  uint32_t* d = nullptr;
  cudaError_t e = cudaMalloc(&d, sizeof(uint32_t));
  if (e != cudaSuccess) return e;
  fsw_smem_base_kernel<<<1, 32, 1024>>>(d);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(out, d, sizeof(uint32_t), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return e;
}

// One conformance launch. Host arrays in, D (64 x n, f32 or s32, row-major) and info[2] out.
int fsw_run(int dt, int n, int ta, int tb, const void* a_bits, const uint32_t* a_addr, int a_count,
            const void* b_bits, const uint32_t* b_addr, int b_count, const uint64_t* a_desc,
            const uint64_t* b_desc, int ksteps, uint32_t smem_bytes, void* d_out,
            uint32_t* info_out) {
  if (dt < 0 || dt > DT_S8 || a_count <= 0 || b_count <= 0 || ksteps <= 0 || smem_bytes % 16)
    return -2;
  const int E = elem_bytes(dt);
  const size_t d_bytes = static_cast<size_t>(64) * n * 4;
  // One allocation for everything, carved at 256-byte offsets.
  size_t off[8], total = 0;
  const size_t sizes[8] = {static_cast<size_t>(a_count) * E, a_count * 4ul,
                           static_cast<size_t>(b_count) * E, b_count * 4ul,
                           ksteps * 8ul, ksteps * 8ul, d_bytes, 8};
  for (int i = 0; i < 8; ++i) {
    off[i] = total;
    total += (sizes[i] + 255) & ~size_t(255);
  }
  uint8_t* buf = nullptr;
  cudaError_t e = cudaMalloc(&buf, total);
  if (e != cudaSuccess) return e;
  const void* src[6] = {a_bits, a_addr, b_bits, b_addr, a_desc, b_desc};
  for (int i = 0; i < 6 && e == cudaSuccess; ++i)
    e = cudaMemcpy(buf + off[i], src[i], sizes[i], cudaMemcpyHostToDevice);
  // D is pre-filled with a pattern no correct result has here (0x7F7F7F7F: f32 3.4e38, s32
  // 2139062143), so a kernel that never wrote D cannot pass.
  if (e == cudaSuccess) e = cudaMemset(buf + off[6], 0x7F, d_bytes);
  if (e == cudaSuccess) e = cudaMemset(buf + off[7], 0, 8);
  int r = e;
  if (e == cudaSuccess) {
    FswParams p;
    p.a_bits = buf + off[0];
    p.a_addr = reinterpret_cast<const uint32_t*>(buf + off[1]);
    p.b_bits = buf + off[2];
    p.b_addr = reinterpret_cast<const uint32_t*>(buf + off[3]);
    p.a_desc = reinterpret_cast<const uint64_t*>(buf + off[4]);
    p.b_desc = reinterpret_cast<const uint64_t*>(buf + off[5]);
    p.d = buf + off[6];
    p.info = reinterpret_cast<uint32_t*>(buf + off[7]);
    p.a_count = a_count;
    p.b_count = b_count;
    p.ksteps = ksteps;
    p.smem_bytes = smem_bytes;
    if (dt == DT_F16)
      r = fsw_launch_f16(n, ta, tb, p);
    else if (dt == DT_BF16)
      r = fsw_launch_bf16(n, ta, tb, p);
    else
      r = (ta || tb) ? -1 : fsw_launch_other(dt, n, p);
    if (r == 0) r = cudaDeviceSynchronize();
    if (r == 0) r = cudaMemcpy(d_out, buf + off[6], d_bytes, cudaMemcpyDeviceToHost);
    if (r == 0) r = cudaMemcpy(info_out, buf + off[7], 8, cudaMemcpyDeviceToHost);
  }
  cudaFree(buf);
  return r;
}

}  // extern "C"
