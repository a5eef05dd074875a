// The plan's per-stage tables (descriptors, shared-memory and barrier offsets) read at a
// run-time stage without a memory load. Indexed by a run-time stage, a table lives in global
// memory and every k-tile waits on an ld.global for its entries before it can issue its wgmma
// (seen in ptxas's SASS of the block-scaled plan: 8 LDG.E.64 of kDescriptors per k-tile, on the
// path the tensor cores wait on once the partial sums are promoted). Most tables are affine in
// their indices (a stage, an MN block, a k-step each move the start address by a fixed amount);
// Table<T>::ok checks that for every entry at compile time, and then at() adds the steps instead
// of loading; a table that is not affine is read as before.
#pragma once

template <const auto& T> struct Table1 {
  using E = decltype(T[0] + 0);
  static constexpr int N = sizeof(T) / sizeof(T[0]);
  static constexpr E step = N > 1 ? T[N > 1 ? 1 : 0] - T[0] : E(0);
  static constexpr bool check() {
    for (int i = 0; i < N; ++i)
      if (T[i] != T[0] + E(i) * step) return false;
    return true;
  }
  static constexpr bool ok = check();
  static __device__ __forceinline__ E at(int i) {
    if constexpr (ok) return T[0] + E(i) * step;
    else return T[i];
  }
};

template <const auto& T> struct Table3 {
  using E = decltype(T[0][0][0] + 0);
  static constexpr int S = sizeof(T) / sizeof(T[0]);
  static constexpr int W = sizeof(T[0]) / sizeof(T[0][0]);
  static constexpr int KS = sizeof(T[0][0]) / sizeof(T[0][0][0]);
  static constexpr E ds = S > 1 ? T[S > 1 ? 1 : 0][0][0] - T[0][0][0] : E(0);
  static constexpr E dw = W > 1 ? T[0][W > 1 ? 1 : 0][0] - T[0][0][0] : E(0);
  static constexpr E dk = KS > 1 ? T[0][0][KS > 1 ? 1 : 0] - T[0][0][0] : E(0);
  static constexpr bool check() {
    for (int s = 0; s < S; ++s)
      for (int w = 0; w < W; ++w)
        for (int k = 0; k < KS; ++k)
          if (T[s][w][k] != T[0][0][0] + E(s) * ds + E(w) * dw + E(k) * dk) return false;
    return true;
  }
  static constexpr bool ok = check();
  static __device__ __forceinline__ E at(int s, int w, int k) {
    if constexpr (ok) return T[0][0][0] + E(s) * ds + E(w) * dw + E(k) * dk;
    else return T[s][w][k];
  }
};
