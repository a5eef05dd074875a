// Host-compiled CuTe peer for fastswz's benchmarks (benchmark tooling only).
//
// Includes the CuTe headers of the installed `nvidia-cutlass` wheel and *calls* CuTe's public
// layout API; nothing here is copied from CUTLASS. Built by build.py into a cached shared library
// and called through ctypes by benchmarks/bench_peer.py.
//
// The layout is CuTe's canonical bf16 K-major 128-byte-swizzle operand tile:
//   tile_to_shape(GMMA::Layout_K_SW128_Atom<bf16>, (M, K))  in element units
//   = Sw<3,3,3> o 0 o tile_to_shape((8,64):(64,1), (M,K))
// (the byte swizzle Sw<3,4,3> upcast by the 2-byte element, as fastswz's OperandTile.layout).
#include <cstdint>

#include <cute/layout.hpp>
#include <cute/layout_composed.hpp>
#include <cute/swizzle.hpp>
#include <cute/swizzle_layout.hpp>

using namespace cute;

extern "C" {

// out[m * K + k] = start + 2 * layout(m, k): the byte address of element (m, k) of a tile whose
// start is 1024-byte aligned (there the swizzle of the absolute address equals start + the
// swizzle of the offset). Returns 0, or -1 unless M % 8 == 0, K % 64 == 0 and start % 1024 == 0.
int cute_k_sw128_bf16(int M, int K, uint32_t start, uint32_t* out) {
  if (M % 8 || K % 64 || start % 1024) return -1;
  auto atom = composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{});
  auto tile = tile_to_shape(atom, make_shape(M, K));
  for (int m = 0; m < M; ++m) {
    uint32_t* row = out + static_cast<int64_t>(m) * K;
    for (int k = 0; k < K; ++k) row[k] = start + static_cast<uint32_t>(2 * tile(m, k));
  }
  return 0;
}
}
