// The fused epilogue of the sm90 GEMM kernels (issue 28): what happens to a pair of f32
// accumulators (row m, columns n and n + 1 of D, global coordinates from the plan's accumulator
// map in epilogue.cuh) between the main loop and fsw_store_*, in f32, in this order:
//   v = alpha * acc * scales + beta * C[m][n] + bias[n]   (beta * C skipped when beta == 0, as
//       torch.addmm ignores C then; scales: per tensor or per row of A and column of B)
//   D = act(v)                                            (identity, relu, gelu, gelu_tanh, silu)
//   amax = max(amax, |D|)                                 (NaN wins: max.NaN, and its bits exceed Inf's)
//   fp8 D: D * out_scale, then fsw_store_* rounds and saturates (cvt.rn.satfinite)
// Every switch is a macro of fastswz_fusion.h, generated from the configuration; with nothing
// fused (FSW_FUSED 0) apply() multiplies by alpha only. PTX: redux.sync 9.7.13.11, atom 9.7.13.5.
#pragma once
#include "fastswz_fusion.h"

namespace F = fastswz_fusion;

// bf16 / f16 bits or f32 -> f32 (FSW_*_KIND: 0 bf16, 1 f16, 2 f32)
template <int Kind> __device__ __forceinline__ float fsw_to_f32(float x) { return x; }
#ifndef FSW_HOST_EMULATION   // tests/test_epilogue_fusion.py runs this file on the host
__device__ __forceinline__ float fsw_f16_to_f32(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
#endif
template <int Kind> __device__ __forceinline__ float fsw_to_f32(unsigned short h) {
  return Kind == 0 ? __uint_as_float((uint32_t)h << 16) : fsw_f16_to_f32(h);
}

// 2^x and 1/x on the SFU (ex2.approx.ftz.f32, rcp.approx.ftz.f32: the PTX ISA's floating-point
// instructions ex2 and rcp, a few f32 ulps each), on the host the library's.
__device__ __forceinline__ float fsw_ex2(float x) {
#ifdef FSW_HOST_EMULATION
  return exp2f(x);
#else
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#endif
}
__device__ __forceinline__ float fsw_rcp(float x) {
#ifdef FSW_HOST_EMULATION
  return 1.f / x;
#else
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#endif
}

// max(a, b) with NaN winning (max.NaN.f32, PTX ISA 9.7.3.11, sm_80): the running amax of a row
// slot; the caller passes |x|, which ptxas folds into the instruction's operand.
__device__ __forceinline__ float fsw_max_nan(float a, float b) {
#ifdef FSW_HOST_EMULATION
  return (a != a || b != b) ? __builtin_nanf("") : (a > b ? a : b);
#else
  float y;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
#endif
}

// The activation in f32. With FSW_FAST_ACT 0 (an f32 output) as torch evaluates it (erff,
// tanhf, expf); with FSW_FAST_ACT 1 (bf16, f16 and fp8 outputs) GELU (erf) from a polynomial in
// the exponent (below), and GELU-tanh and SiLU as
// x * sigmoid(t) = x / (1 + 2^(-t log2 e)) on the SFU: 0.5 x (1 + tanh(u)) = x sigmoid(2u), with
// about 2^-19 of x of f32 error (mostly t's rounding, which moves 2^-t by |t| ln 2 2^-24 of
// itself, |t| up to about 30 before the sigmoid is 0 or 1 in f32), far below half an output ulp
// (2^-9 of D for bf16), where the precise forms cost about 20 instructions more per element (the
// fused epilogue runs while the tensor cores wait). Inf and NaN come out as torch's: -inf gives NaN, +inf gives inf.
// FSW_FAST_ERF picks GELU (erf)'s form: 0 erff, 1 erfc's rational approximation (two SFU
// operations), 2 (the default of FSW_FAST_ACT 1) the exponent polynomial (one); a define of its
// own so tests/gpu/gemm/ab_defines.py can time the forms against each other.
#ifndef FSW_FAST_ERF
#define FSW_FAST_ERF (2 * FSW_FAST_ACT)
#endif
// log2 Phi(-a) for 0 <= a <= 7, highest power first (tools/fit_gelu.py fits them, minimax on
// [0, 7] with P(0) = -1, and --check holds these f32 values to their bounds when evaluated in f32
// as below). Degree 7 for bf16 and f16 outputs: |error| <= 2^-15.4, Phi(-|x|) within 2^-15.9 of
// itself. Degree 5 for fp8 outputs without amax, whose half ulp is 2^-4 (e4m3) or 2^-3 (e5m2) of
// the value: |error| <= 2^-9.7, Phi(-|x|) within 2^-10.2 of itself, two FMAs an element fewer
// (amax, reported in f32, keeps degree 7). Past 7 both keep falling, so Phi(-|x|) comes out under
// Phi(-7) = 1.3e-12.
constexpr float kGeluLog2Phi[] = {-1.597169898559514e-06f, 5.6395583669655025e-05f, -0.0008858584333211184f,
                                  0.008318084292113781f, -0.053546931594610214f, -0.45889022946357727f,
                                  -1.1510918140411377f, -1.0f};
constexpr float kGeluLog2PhiFp8[] = {-0.0001587403821758926f, 0.0038856512401252985f, -0.0402156263589859f,
                                     -0.47704967856407166f, -1.1429243087768555f, -1.0f};
__device__ __forceinline__ float fsw_act(float x) {
#if FSW_ACT == 1
  return x < 0.f ? 0.f : x;   // (torch.relu keeps NaN: no fmaxf here)
#elif FSW_ACT == 2 && FSW_FAST_ERF == 2
  // x Phi(x) with Phi(-|x|) = 2^P(|x|): five or seven FMAs and one ex2.approx, where erfc's rational
  // approximation also needs a reciprocal (the SFU runs a quarter of the FMA rate: two SFU
  // operations an element cost as much issue time as the epilogue's other instructions).
  // Phi(|x|) = 1 - Phi(-|x|) >= 1/2 loses nothing to the subtraction; NaN stays NaN, -0 gives -0,
  // -inf NaN and +inf inf, as torch's formula.
  const float a = fabsf(x);
#if FSW_OUT_FP8 && !FSW_AMAX
  constexpr int kTerms = sizeof(kGeluLog2PhiFp8) / sizeof(float);
  const float* c = kGeluLog2PhiFp8;
#else
  constexpr int kTerms = sizeof(kGeluLog2Phi) / sizeof(float);
  const float* c = kGeluLog2Phi;
#endif
  float q = c[0];
#pragma unroll
  for (int i = 1; i < kTerms; ++i) q = fmaf(q, a, c[i]);
  const float e = fsw_ex2(q);   // Phi(-|x|)
  return x * (x < 0.f ? e : 1.f - e);
#elif FSW_ACT == 2 && FSW_FAST_ERF == 1
  // x Phi(x) with Phi(-|x|) = erfc(|x| / sqrt 2) / 2 by Abramowitz & Stegun 7.1.26: erfc(z) =
  // t (a1 + a2 t + ... + a5 t^4) e^(-z^2), t = 1 / (1 + p z), |error| <= 1.5e-7 (here p / sqrt 2,
  // a_i / 2 and log2(e) / 2 fold the 1/sqrt 2 and the 1/2 in). About 14 instructions and no
  // branch, where erff runs two polynomial paths (both when a warp's elements straddle |z| = 1).
  // Its f32 error is at most 2^-21.6 |x| (tests/test_epilogue_fusion.py measures it against
  // math.erfc), torch's own f32 formula's 2^-23 |x|: both far below half an output ulp.
  const float t = fsw_rcp(fmaf(0.2316418882663604f, fabsf(x), 1.f));
  float q = fmaf(0.5307027145f, t, -0.7265760135f);
  q = fmaf(q, t, 0.7107068705f);
  q = fmaf(q, t, -0.142248368f);
  q = fmaf(q, t, 0.127414796f);
  const float e = q * t * fsw_ex2(x * -0.7213475204444817f * x);   // Phi(-|x|)
  return x * (x < 0.f ? e : 1.f - e);
#elif FSW_ACT == 2
  return 0.5f * x * (1.f + erff(x * 0.7071067811865476f));                  // x Phi(x)
#elif FSW_ACT == 3 && FSW_FAST_ACT
  // 2u log2(e), u = sqrt(2/pi) (x + 0.044715 x^3)
  const float t = x * (2.302208198144325f + 0.1029432395800235f * x * x);
  return x * fsw_rcp(1.f + fsw_ex2(-t));
#elif FSW_ACT == 3
  return 0.5f * x * (1.f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
#elif FSW_ACT == 4 && FSW_FAST_ACT
  return x * fsw_rcp(1.f + fsw_ex2(-1.4426950408889634f * x));
#elif FSW_ACT == 4
  return x / (1.f + expf(-x));
#else
  return x;
#endif
}

// An address into L1 (column operands, read by every warp of the tile) or L2 (the residual,
// read once), ahead of its load (the PTX ISA's prefetch instruction).
__device__ __forceinline__ void fsw_prefetch_l1(const void* p) {
#ifndef FSW_HOST_EMULATION
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#endif
}
__device__ __forceinline__ void fsw_prefetch_l2(const void* p) {
#ifndef FSW_HOST_EMULATION
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#endif
}

struct EpilogueOps {
  float alpha, beta, scale, out_scale;   // scale: the per-tensor scales' product (else 1)
  unsigned int amax;                     // this thread's max |D| so far, as f32 bits
#if FSW_AMAX
  float amax_slot[F::kRowSlots];         // this tile's max |D| per row the thread holds (tile_done folds it in)
#endif
  uint32_t col_smem;                     // F::kColSmem: this warpgroup's slot of column operands
#if FSW_SCALE == 2
  float row_scale[F::kRowSlots];         // rowwise: scale_a of each row this thread holds, this tile
  float col_scale[2][2 * F::kChunkSlots];   // rowwise: scale_b of the chunk's columns [this, next]
#endif
#if FSW_BIAS
  float col_bias[2][2 * F::kChunkSlots];    // bias of the chunk's columns [this, next]
#endif
#if FSW_RESIDUAL
  float c_val[2][F::kChunkRegisters];       // beta C of the chunk's registers [this, next]
#endif

  __device__ __forceinline__ void init(const FswParams& p) {
    alpha = p.alpha;
    beta = p.beta;
    scale = 1.f;
    out_scale = 1.f;
    amax = 0u;
#if FSW_SCALE == 1
    scale = __ldg(p.scale_a) * __ldg(p.scale_b);
#endif
#if FSW_OUT_FP8
    if (p.out_scale) out_scale = __ldg(p.out_scale);
#endif
  }

  // A unit's BN columns of bias and scale_b as f32 into the slot at col_smem (F::kColSmem), 0
  // past N, by the consumer threads that store the unit (`index` of `count`, a compile-time
  // count), in two halves: stage_load() before the unit's main loop issues the global loads into
  // registers, stage_store() writes them to shared memory once the unit's first k-tile of wgmma
  // is issued, so the loads' L2 latency passes under the tensor cores' work instead of in front
  // of it (FSW_LATE_STAGE 0: both halves before the main loop, as before). The slot's previous
  // values were last read before the epilogue's final barrier (the epilogue tile's; the register
  // epilogue has none, so one here), and the epilogue reads these after a barrier of its own.
  // The loaded values stay raw bits in registers (bias: bf16 or f16 bits, or f32), converted to
  // f32 by the asm statement that stores them: a conversion in C++ would be loop-invariant code
  // the compiler hoists in front of the main loop, and with it the wait for the loads.
  template <int Count> struct Staged {
    static constexpr int kPer = (P::kBN + Count - 1) / Count;
    uint32_t bias[kPer];
    float scale_b[kPer];
  };
  template <int Count>
  __device__ __forceinline__ void stage_load(Staged<Count>& st, int tn, int index, const FswParams& p) {
#if FSW_FUSED && !FSW_HOST_EMULATION
    if constexpr (F::kColSmem) {
#pragma unroll
      for (int j = 0; j < Staged<Count>::kPer; ++j) {
        const int i = index + j * Count, n = tn * P::kBN + i;
        const bool in = i < P::kBN && n < p.n;
#if FSW_BIAS
        st.bias[j] = 0u;   // 0 bits: +0 in every bias type
        if (in) {
          const FSW_BIAS_T* b = static_cast<const FSW_BIAS_T*>(p.bias) + n;
          if constexpr (FSW_BIAS_KIND == 2) st.bias[j] = __float_as_uint(__ldg(reinterpret_cast<const float*>(b)));
          else st.bias[j] = __ldg(reinterpret_cast<const unsigned short*>(b));
        }
#endif
#if FSW_SCALE == 2
        st.scale_b[j] = in ? __ldg(p.scale_b + n * p.sb_sn) : 0.f;
#endif
      }
    }
#endif
  }
  template <int Count>
  __device__ __forceinline__ void stage_store(const Staged<Count>& st, int index, uint32_t barrier, uint32_t threads) {
#if FSW_FUSED && !FSW_HOST_EMULATION
    if constexpr (F::kColSmem) {
#if !FSW_EPILOGUE_TILE
      named_sync(barrier, threads);
#endif
#pragma unroll
      for (int j = 0; j < Staged<Count>::kPer; ++j) {
        const int i = index + j * Count;
        if (i < P::kBN) {
#if FSW_BIAS
          const uint32_t a = col_smem + 4 * i;
          if constexpr (FSW_BIAS_KIND == 0)   // bf16: the f32 with the same high half
            asm volatile("{ .reg .b32 t; shl.b32 t, %1, 16; st.shared.b32 [%0], t; }" ::"r"(a), "r"(st.bias[j]) : "memory");
          else if constexpr (FSW_BIAS_KIND == 1)
            asm volatile("{ .reg .b16 h; .reg .f32 f; cvt.u16.u32 h, %1; cvt.f32.f16 f, h; st.shared.f32 [%0], f; }"
                         ::"r"(a), "r"(st.bias[j]) : "memory");
          else
            asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(st.bias[j]) : "memory");
#endif
#if FSW_SCALE == 2
          asm volatile("st.shared.f32 [%0], %1;" ::"r"(col_smem + F::kColScaleB + 4 * i), "f"(st.scale_b[j]) : "memory");
#endif
        }
      }
    }
#endif
  }

  // When warpgroup w starts the tile (tm, tn), before its main loop: the epilogue's operands of
  // the tile into the caches, so the epilogue's loads of them do not wait on DRAM or L2. Column
  // operands (bias, scale_b; unless staged in shared memory) and this thread's rows' scale_a go
  // to L1; C, read once, to L2 (this warpgroup's 64 rows, a 128-byte line per prefetch).
  __device__ __forceinline__ void prefetch(int tm, int tn, int w, int thread, const FswParams& p) {
#if FSW_FUSED
#pragma unroll
    for (int i = thread; i < P::kBN; i += 128) {
      const int n = tn * P::kBN + i;
      if (!F::kColSmem && n < p.n) {
#if FSW_SCALE == 2
        fsw_prefetch_l1(p.scale_b + n * p.sb_sn);
#endif
#if FSW_BIAS
        fsw_prefetch_l1(static_cast<const FSW_BIAS_T*>(p.bias) + n);
#endif
      }
    }
#if FSW_SCALE == 2
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) {
      const int m = tile_row0(tm, p.m) + 64 * w + P::accumulator::row(thread, F::kSlotRegister[s]);
      if (m < p.m) fsw_prefetch_l1(p.scale_a + m * p.sa_sm);
    }
#endif
#if FSW_RESIDUAL
    constexpr int kLineElems = 128 / sizeof(FSW_C_T);
    constexpr int kLines = (P::kBN + kLineElems - 1) / kLineElems;   // per row
    if (beta != 0.f) {
      for (int i = thread; i < 64 * kLines; i += 128) {
        const int m = tile_row0(tm, p.m) + 64 * w + i / kLines, n = tn * P::kBN + (i % kLines) * kLineElems;
        if (m < p.m && n < p.n) fsw_prefetch_l2(static_cast<const FSW_C_T*>(p.c) + (long long)m * p.ldc + n);
      }
    }
#endif
#endif
  }

  // Before a tile's registers are stored: the per-row operands of the rows this thread holds
  // (the plan's accumulator rows, through fastswz_fusion::kSlotRegister).
  __device__ __forceinline__ void tile(int tm, int w, int thread, const FswParams& p) {
#if FSW_AMAX
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) amax_slot[s] = 0.f;
#endif
#if FSW_SCALE == 2
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) {
      const int m = tile_row0(tm, p.m) + 64 * w + P::accumulator::row(thread, F::kSlotRegister[s]);
      row_scale[s] = m < p.m ? __ldg(p.scale_a + m * p.sa_sm) : 0.f;
    }
#endif
  }

  // The operands of chunk q (registers [q R, q R + R), R = F::kChunkRegisters, holding column
  // slots [q S, q S + S)) into buffer b: column operands and residual values, every load issued
  // before any is used, predicated rather than branched around (0 past M and N).
  __device__ __forceinline__ void load_chunk(int b, int q, int tm, int tn, int w, int thread, const FswParams& p) {
#if FSW_FUSED
#pragma unroll
    for (int s = 0; s < F::kChunkSlots; ++s) {
      const int c = P::accumulator::col(thread, F::kColSlotRegister[q * F::kChunkSlots + s]);   // even
      const int n = tn * P::kBN + c;
      const bool in0 = n < p.n, in1 = n + 1 < p.n;
#if !FSW_HOST_EMULATION
      if constexpr (F::kColSmem) {   // staged before the main loop: two shared loads per pair
#if FSW_SCALE == 2
        asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(col_scale[b][2 * s]), "=f"(col_scale[b][2 * s + 1])
                     : "r"(col_smem + F::kColScaleB + 4 * c));
#endif
#if FSW_BIAS
        asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(col_bias[b][2 * s]), "=f"(col_bias[b][2 * s + 1])
                     : "r"(col_smem + 4 * c));
#endif
        continue;
      }
#endif
#if FSW_SCALE == 2
      col_scale[b][2 * s] = in0 ? __ldg(p.scale_b + n * p.sb_sn) : 0.f;
      col_scale[b][2 * s + 1] = in1 ? __ldg(p.scale_b + (n + 1) * p.sb_sn) : 0.f;
#endif
#if FSW_BIAS
      const FSW_BIAS_T* bias = static_cast<const FSW_BIAS_T*>(p.bias) + n;
      col_bias[b][2 * s] = in0 ? fsw_to_f32<FSW_BIAS_KIND>(__ldg(bias)) : 0.f;
      col_bias[b][2 * s + 1] = in1 ? fsw_to_f32<FSW_BIAS_KIND>(__ldg(bias + 1)) : 0.f;
#endif
    }
#if FSW_RESIDUAL
    // beta C, or -0 when beta is 0 (C unread, as torch.addmm ignores it then): adding -0 leaves
    // every value as it is, -0 included, so apply() adds without a branch.
    const bool use_c = beta != 0.f;
#pragma unroll
    for (int i = 0; i < F::kChunkRegisters; i += 2) {
      const int r = q * F::kChunkRegisters + i;
      const int m = tile_row0(tm, p.m) + 64 * w + P::accumulator::row(thread, r);
      const int n = tn * P::kBN + P::accumulator::col(thread, r);
      const bool in0 = use_c && m < p.m && n < p.n, in1 = use_c && m < p.m && n + 1 < p.n;
      // C may be D itself (an in-place residual): coherent loads, not ld.global.nc
      const FSW_C_T* c = static_cast<const FSW_C_T*>(p.c) + (long long)m * p.ldc + n;
      c_val[b][i] = in0 ? beta * fsw_to_f32<FSW_RESIDUAL_KIND>(c[0]) : -0.f;
      c_val[b][i + 1] = in1 ? beta * fsw_to_f32<FSW_RESIDUAL_KIND>(c[1]) : -0.f;
    }
#endif
#endif
  }

  // Before the register pairs of chunk q (q = 0, 1, ... in order, per tile): its operands, loaded
  // while chunk q - 1 was applied (chunk 0 now), and those of chunk q + 1 set loading, so a
  // chunk's loads wait behind the previous chunk's math and stores, not in front of them.
  __device__ __forceinline__ void chunk(int q, int tm, int tn, int w, int thread, const FswParams& p) {
#if FSW_FUSED
    constexpr int kChunks = P::accumulator::kRegisters / F::kChunkRegisters;
    if (q == 0) load_chunk(1, 0, tm, tn, w, thread, p);
#pragma unroll
    for (int i = 0; i < 2 * F::kChunkSlots; ++i) {
#if FSW_SCALE == 2
      col_scale[0][i] = col_scale[1][i];
#endif
#if FSW_BIAS
      col_bias[0][i] = col_bias[1][i];
#endif
    }
#if FSW_RESIDUAL
#pragma unroll
    for (int i = 0; i < F::kChunkRegisters; ++i) c_val[0][i] = c_val[1][i];
#endif
    if (q + 1 < kChunks) load_chunk(1, q + 1, tm, tn, w, thread, p);
#endif
  }

  // Register pair (r, r + 1) (one row, two adjacent columns of D), in the chunk chunk() loaded
  // last: x0, x1 (the accumulators) become the values to store. (Elements past M and N are
  // computed like the rest: the stores clip them, and amax leaves their rows out in tile_done.)
  __device__ __forceinline__ void apply(float& x0, float& x1, int r) {
#if FSW_FUSED
    const int cs = 2 * (F::kColSlot[r] % F::kChunkSlots);   // the pair's columns in the chunk
    float s0 = alpha * scale, s1 = s0;
#if FSW_SCALE == 2
    s0 *= row_scale[F::kRowSlot[r]];
    s1 = s0 * col_scale[0][cs + 1];
    s0 *= col_scale[0][cs];
#endif
    float v0 = x0 * s0, v1 = x1 * s1;
#if FSW_RESIDUAL
    v0 += c_val[0][r % F::kChunkRegisters];   // beta C[m][n], or -0
    v1 += c_val[0][r % F::kChunkRegisters + 1];
#endif
#if FSW_BIAS
    v0 += col_bias[0][cs];
    v1 += col_bias[0][cs + 1];
#endif
    v0 = fsw_act(v0);
    v1 = fsw_act(v1);
#if FSW_AMAX
    // Per row slot, no bounds test: columns past N hold act(0) = 0 (zero-filled operands, 0 column
    // operands, -0 residual), which adds nothing; rows past M (act(bias), not 0) are left out by
    // tile_done, once per row.
    const int rs = F::kRowSlot[r];
    amax_slot[rs] = fsw_max_nan(amax_slot[rs], fabsf(v0));
    amax_slot[rs] = fsw_max_nan(amax_slot[rs], fabsf(v1));
#endif
#if FSW_OUT_FP8
    v0 *= out_scale;
    v1 *= out_scale;
#endif
    x0 = v0;
    x1 = v1;
#else
    x0 *= alpha;   // nothing fused: D = alpha * acc (alpha 1 unless the call gives it)
    x1 *= alpha;
#endif
  }

  // After a tile's registers are stored: its rows' maxima into amax, the rows past M left out.
  __device__ __forceinline__ void tile_done(int tm, int w, int thread, const FswParams& p) {
#if FSW_AMAX
#pragma unroll
    for (int s = 0; s < F::kRowSlots; ++s) {
      const int m = tile_row0(tm, p.m) + 64 * w + P::accumulator::row(thread, F::kSlotRegister[s]);
      if (m < p.m) amax = max(amax, __float_as_uint(amax_slot[s]));
    }
#endif
  }

  // After the CTA's last tile (every thread of the consumer warps): one atomic per warp. For
  // non-negative floats the order of the bits is the order of the values, so an unsigned max
  // is the float max; *p.amax must hold 0 (or an earlier max) before the launch.
  __device__ __forceinline__ void finish(const FswParams& p) {
#if FSW_AMAX
    const unsigned int w = __reduce_max_sync(0xffffffffu, amax);
    if ((threadIdx.x & 31) == 0 && p.amax) atomicMax(p.amax, w);
#endif
  }
};
