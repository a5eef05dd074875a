// TMA round trip, host API (extern "C", loaded by tma_roundtrip.py through ctypes).
// Build: tests/gpu/tma/build.sh. Kernels: tma_roundtrip.cuh, instantiated in tma_tu_*.cu.
#include <cstdio>
#include <cstring>
#include <vector>

#include "tma_roundtrip.cuh"

// One operand as the Python driver hands it over (mirrored by a ctypes.Structure).
struct TmaOperandHost {
  const void* data;        // the global tensor, dims[1] rows of dims[0] elements, packed
  uint64_t dims[2];        // innermost first
  uint32_t box[2];         // innermost first (the plan's tma_box)
  uint32_t elem_strides[2];
  int interleave;          // CUtensorMapInterleave
  int swizzle;             // CUtensorMapSwizzle
  int map_dtype;           // CUtensorMapDataType
  int elem_bytes;
  int kdim, ncopies, mnblocks, stages, ksteps;
  uint32_t stage_bytes;
  const int32_t* copies;       // ncopies x 3
  const uint64_t* desc0;       // stages x mnblocks
  const int64_t* kdelta;       // ksteps
  const uint32_t* stage_off;   // stages
};

typedef CUresult (*EncodeTiledFn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                  const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                  const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static EncodeTiledFn get_encode() {
  static EncodeTiledFn fn = nullptr;
  if (!fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q;
    // cudaGetDriverEntryPoint is deprecated in CUDA 13; the by-version form pins the 12.0 ABI.
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                         &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<EncodeTiledFn>(p);
  }
  return fn;
}

extern "C" {

// Encodes one tensor map on a device pointer; returns the CUresult (0 = accepted).
static int encode(CUtensorMap* m, const TmaOperandHost& o, void* dptr) {
  EncodeTiledFn fn = get_encode();
  if (!fn) return -3;
  const cuuint64_t dims[2] = {o.dims[0], o.dims[1]};
  const cuuint64_t strides[1] = {o.dims[0] * static_cast<uint64_t>(o.elem_bytes)};
  const cuuint32_t box[2] = {o.box[0], o.box[1]};
  const cuuint32_t es[2] = {o.elem_strides[0], o.elem_strides[1]};
  return fn(m, static_cast<CUtensorMapDataType>(o.map_dtype), 2, dptr, dims, strides, box, es,
            static_cast<CUtensorMapInterleave>(o.interleave),
            static_cast<CUtensorMapSwizzle>(o.swizzle), CU_TENSOR_MAP_L2_PROMOTION_NONE,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

const char* tma_error_string(int e) {
  if (e == -1) return "no kernel instantiated for this (dtype, N, trans) combination";
  if (e == -2) return "bad argument";
  if (e == -3) return "cuTensorMapEncodeTiled entry point not found";
  return cudaGetErrorString(static_cast<cudaError_t>(e));
}

// One launch. Returns 0, a cudaError_t, -1/-2/-3, or 100000 + CUresult when encoding operand
// A failed, 200000 + CUresult for B. dump_out: stages x dump_bytes; d_out: bm x bn f32;
// info_out[3] (see TmaParams).
int tma_run(int dt, int bm, int bn, int ta, int tb, int bk, int ktiles, uint32_t tx_bytes,
            uint32_t dump_bytes, const TmaOperandHost* A, const TmaOperandHost* B,
            void* dump_out, float* d_out, uint32_t* info_out) {
  if (bm % 64 || bm > 128 || A->stages != B->stages || A->ksteps != B->ksteps || dump_bytes % 16)
    return -2;
  const int stages = A->stages;
  std::vector<void*> allocs;
  auto dev = [&](const void* src, size_t n) -> void* {
    void* d = nullptr;
    if (cudaMalloc(&d, n ? n : 16) != cudaSuccess) return nullptr;
    allocs.push_back(d);
    if (src && n && cudaMemcpy(d, src, n, cudaMemcpyHostToDevice) != cudaSuccess) return nullptr;
    return d;
  };
  int r = 0;
  const TmaOperandHost* ops[2] = {A, B};
  TmaOperandDev od[2];
  void* gdata[2];
  for (int i = 0; i < 2 && r == 0; ++i) {
    const TmaOperandHost& o = *ops[i];
    gdata[i] = dev(o.data, o.dims[0] * o.dims[1] * o.elem_bytes);
    od[i].copies = static_cast<const int32_t*>(dev(o.copies, o.ncopies * 12ul));
    od[i].desc0 = static_cast<const uint64_t*>(dev(o.desc0, stages * o.mnblocks * 8ul));
    od[i].kdelta = static_cast<const int64_t*>(dev(o.kdelta, o.ksteps * 8ul));
    od[i].stage_off = static_cast<const uint32_t*>(dev(o.stage_off, stages * 4ul));
    od[i].ncopies = o.ncopies;
    od[i].mnblocks = o.mnblocks;
    od[i].kdim = o.kdim;
    od[i].stage_bytes = o.stage_bytes;
    if (!gdata[i] || !od[i].copies || !od[i].desc0 || !od[i].kdelta || !od[i].stage_off) r = -2;
  }
  CUtensorMap maps[2];
  for (int i = 0; i < 2 && r == 0; ++i) {
    const int e = encode(&maps[i], *ops[i], gdata[i]);
    if (e) r = (e < 0) ? e : (i + 1) * 100000 + e;
  }
  TmaParams p;
  p.a = od[0];
  p.b = od[1];
  p.dump = static_cast<uint8_t*>(dev(nullptr, static_cast<size_t>(stages) * dump_bytes));
  p.d = static_cast<float*>(dev(nullptr, static_cast<size_t>(bm) * bn * 4));
  p.info = static_cast<uint32_t*>(dev(nullptr, 16));
  p.stages = stages;
  p.ktiles = ktiles;
  p.ksteps = A->ksteps;
  p.bk = bk;
  p.dump_bytes = dump_bytes;
  p.bar_off = dump_bytes;  // barriers after the dumped region (data + guard)
  p.tx_bytes = tx_bytes;
  const uint32_t smem = dump_bytes + 8 * stages;
  if (r == 0 && (!p.dump || !p.d || !p.info)) r = -2;
  // D pre-filled with a pattern no correct result has (0x7F7F7F7F = 3.4e38).
  if (r == 0) r = cudaMemset(p.d, 0x7F, static_cast<size_t>(bm) * bn * 4);
  if (r == 0) r = cudaMemset(p.info, 0, 16);
  if (r == 0) r = cudaMemset(p.dump, 0xEE, static_cast<size_t>(stages) * dump_bytes);
  if (r == 0) {
    const int threads = 128 * (bm / 64);
    if (dt == DT_F16_CODE)
      r = tma_launch_f16(bn, ta, tb, maps[0], maps[1], p, threads, smem);
    else if (dt == DT_BF16_CODE)
      r = tma_launch_bf16(bn, ta, tb, maps[0], maps[1], p, threads, smem);
    else
      r = (ta || tb) ? -1 : tma_launch_other(dt, bn, maps[0], maps[1], p, threads, smem);
    if (r == 0) r = cudaDeviceSynchronize();
    // A fault of the kernel itself (launch or execution) is a result, not a setup error: 300000 +
    // cudaError_t. It is sticky: the caller must not use this process's context afterwards.
    if (r > 0) r += 300000;
    if (r == 0)
      r = cudaMemcpy(dump_out, p.dump, static_cast<size_t>(stages) * dump_bytes,
                     cudaMemcpyDeviceToHost);
    if (r == 0) r = cudaMemcpy(d_out, p.d, static_cast<size_t>(bm) * bn * 4, cudaMemcpyDeviceToHost);
    if (r == 0) r = cudaMemcpy(info_out, p.info, 12, cudaMemcpyDeviceToHost);
  }
  for (void* a : allocs) cudaFree(a);
  return r;
}

}  // extern "C"
