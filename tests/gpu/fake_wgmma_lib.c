/* Host-only stand-in for libwgmma_conformance.so, for testing the harness without a GPU.
 *
 * Same extern "C" API as wgmma_conformance.cu. fsw_run scatters the element bits exactly like the
 * kernel, then computes D the way PTX documents the descriptor (canonical layouts, PTX ISA
 * 9.7.15.5.1.2; the same model as conformance.py's emulator) from the *bits*, so the ctypes
 * marshalling, argument order and the value encodings of every dtype are exercised end to end.
 * It proves nothing about the hardware. Build: cc -O1 -shared -fPIC -o libfake.so fake_wgmma_lib.c -lm
 */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const int kElem[6] = {2, 2, 4, 1, 1, 1}; /* f16 bf16 tf32 e4m3 e5m2 s8 */
static uint8_t smem[256 * 1024];

const char* fsw_error_string(int e) { return e == 0 ? "no error" : e == -1 ? "no kernel" : "fake error"; }

int fsw_device_info(char* buf, int len, int* max_dyn_smem) {
  snprintf(buf, len, "fake host library|sm_90|driver_api=0|runtime=0");
  *max_dyn_smem = 232448;
  return 0;
}

int fsw_smem_base(uint32_t* out) {
  *out = 0x400;
  return 0;
}

static double fp8(uint8_t b, int ebits, int mbits) {
  int bias = (1 << (ebits - 1)) - 1, e = (b >> mbits) & ((1 << ebits) - 1), m = b & ((1 << mbits) - 1);
  double v = e ? ldexp(1.0 + m / (double)(1 << mbits), e - bias) : ldexp(m / (double)(1 << mbits), 1 - bias);
  return (b & 0x80) ? -v : v;
}

static double value(int dt, const uint8_t* p) {
  uint32_t u;
  float f;
  switch (dt) {
    case 0: { /* IEEE half */
      uint16_t h = (uint16_t)(p[0] | (p[1] << 8));
      int e = (h >> 10) & 31, m = h & 1023;
      double v = e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14);
      return (h & 0x8000) ? -v : v;
    }
    case 1: u = (uint32_t)(p[0] | (p[1] << 8)) << 16; memcpy(&f, &u, 4); return f;
    case 2: memcpy(&u, p, 4); u &= 0xFFFFE000u; memcpy(&f, &u, 4); return f; /* tf32: top 19 bits */
    case 3: return fp8(p[0], 4, 3);
    case 4: return fp8(p[0], 5, 2);
    default: return (int8_t)p[0];
  }
}

/* Byte address of element (r, k) of one k-step under the descriptor (see conformance.py). */
static int64_t read_addr(uint64_t d, int mn_major, int r, int k, int e) {
  int64_t start = (int64_t)(d & 0x3FFF) << 4, lbo = (int64_t)((d >> 16) & 0x3FFF) << 4;
  int64_t sbo = (int64_t)((d >> 32) & 0x3FFF) << 4, bo = (d >> 49) & 7;
  int lt = (int)(d >> 62), S = lt == 0 ? 16 : lt == 1 ? 128 : lt == 2 ? 64 : 32, a;
  if (!mn_major) {
    if (lt == 0) a = start + (r % 8) * 16 + (r / 8) * sbo + (k * e / 16) * lbo + (k * e) % 16;
    else a = start + (r % 8) * S + (r / 8) * sbo + k * e;
  } else {
    if (lt == 0) { int t = 16 / e; a = start + (r % t) * e + (r / t) * sbo + (k % 8) * 16 + (k / 8) * lbo; }
    else { int per = S / e; a = start + (r % per) * e + (r / per) * lbo + (k % 8) * S + (k / 8) * sbo; }
  }
  if (lt) a ^= ((((int64_t)a >> 7) - bo) & (S / 16 - 1)) << 4;
  return a;
}

int fsw_run(int dt, int n, int ta, int tb, const void* a_bits, const uint32_t* a_addr, int a_count,
            const void* b_bits, const uint32_t* b_addr, int b_count, const uint64_t* a_desc,
            const uint64_t* b_desc, int ksteps, uint32_t smem_bytes, void* d_out, uint32_t* info) {
  /* Fault injection for the driver's restart path, once per marker file (FSW_FAKE_MARK):
   * FSW_FAKE_CRASH_AT=i aborts on the i-th call of a process, like a GPU fault killing the worker;
   * FSW_FAKE_STICKY_AT=i returns CUDA error 700 (illegal address, sticky) on the i-th call. */
  static int calls = 0;
  const char* mark = getenv("FSW_FAKE_MARK");
  const char* crash = getenv("FSW_FAKE_CRASH_AT");
  const char* sticky = getenv("FSW_FAKE_STICKY_AT");
  ++calls;
  if (mark && (crash || sticky)) {
    char path[512];
    snprintf(path, sizeof path, "%s.%s", mark, crash && atoi(crash) == calls ? "crash" : "sticky");
    FILE* f = fopen(path, "r");
    if (f) fclose(f);
    else if ((crash && atoi(crash) == calls) || (sticky && atoi(sticky) == calls)) {
      f = fopen(path, "w");
      if (f) fclose(f);
      if (crash && atoi(crash) == calls) abort();
      return 700;
    }
  }
  if (dt < 0 || dt > 5 || smem_bytes > sizeof(smem) || smem_bytes % 16) return -2;
  if (dt >= 2 && (ta || tb)) return -1;
  const int e = kElem[dt], inst_k = 32 / e;
  const uint32_t base = 0x400;
  memset(smem, 0, sizeof(smem));
  info[0] = base;
  info[1] = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const uint8_t* bits = pass ? (const uint8_t*)b_bits : (const uint8_t*)a_bits;
    const uint32_t* addr = pass ? b_addr : a_addr;
    for (int i = 0, cnt = pass ? b_count : a_count; i < cnt; ++i) {
      uint32_t off = addr[i] - base;
      if (off > smem_bytes - e || off % e) { info[1]++; continue; }
      memcpy(smem + off, bits + (size_t)i * e, e);
    }
  }
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < n; ++c) {
      double acc = 0;
      for (int j = 0; j < ksteps; ++j)
        for (int k = 0; k < inst_k; ++k) {
          int64_t pa = read_addr(a_desc[j], ta, r, k, e) - base, pb = read_addr(b_desc[j], tb, c, k, e) - base;
          if (pa < 0 || pb < 0 || pa > smem_bytes - e || pb > smem_bytes - e) return 700; /* "illegal address" */
          acc += value(dt, smem + pa) * value(dt, smem + pb);
        }
      if (dt == 5) ((int32_t*)d_out)[r * n + c] = (int32_t)acc;
      else ((float*)d_out)[r * n + c] = (float)acc;
    }
  return 0;
}
