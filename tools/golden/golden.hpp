// Host-side driver templates for the fastswz golden-vector generator (test tooling only).
//
// This file is compiled together with the CUTLASS/CuTe headers of the installed `nvidia-cutlass`
// wheel; it only *calls* CuTe's public API and prints what CuTe returns.  Nothing here is copied
// from CUTLASS.  See tools/golden/README.md for the output schema.
//
// Host trick (spec NOTES.md section 11): CuTe turns a generic smem pointer into a shared-window
// address through __cvta_generic_to_shared when CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED is set.  We
// define that conversion as the identity (truncated to 32 bits, as the intrinsic's result is), and
// hand CuTe fake pointers whose value is BIAS + shared-window byte address.  BIAS only occupies
// bit 40, far above every swizzle bit and above the 32-bit truncation, so it never shows in a
// result; it just keeps the fake pointers away from null.  Nothing is ever dereferenced.
#pragma once

#include <cstddef>
#include <cstdint>

static inline std::size_t __cvta_generic_to_shared(const void* p) {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(p));
}
#define CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED 1

#include <cute/tensor.hpp>
#include "cute_str.hpp"
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/mma_traits_sm100.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace golden {

using namespace cute;

constexpr std::uint64_t kBias = std::uint64_t(1) << 40;

template <class T>
T* fake_smem(std::uint64_t start) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(kBias + start));
}

using cute_print::cute_str;   // cute_str.hpp

template <class P>
struct is_swz_ptr : std::false_type {};
template <class S, class P>
struct is_swz_ptr<swizzle_ptr<S, P>> : std::true_type {};

// Byte address that CuTe's (possibly swizzled) smem iterator would dereference.
template <class Iter>
std::uint64_t deref_address(Iter const& it) {
  if constexpr (is_swz_ptr<Iter>::value) {
    auto q = Iter::apply_swizzle(it.get());
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(raw_pointer_cast(q))) - kBias;
  } else {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(raw_pointer_cast(it))) - kBias;
  }
}

template <class Atom, int MN, int K, bool KFirst>
auto make_tile() {
  if constexpr (KFirst) {
    return tile_to_shape(Atom{}, make_shape(Int<MN>{}, Int<K>{}), Step<_2, _1>{});
  } else {
    return tile_to_shape(Atom{}, make_shape(Int<MN>{}, Int<K>{}));
  }
}

// Line "T id cute_swizzle cute_layout cute_layout_bymode_coalesced", then one line per start:
// "A id start checksum head0 .. head63" (decimal).  Order of elements: i = m*K + k.
template <class T, class Atom, int MN, int K, bool KFirst>
void emit_tile(std::FILE* f, int id, std::vector<std::uint64_t> const& starts) {
  auto tile = make_tile<Atom, MN, K, KFirst>();
  std::fprintf(f, "T %d %s %s %s\n", id, cute_str(tile.layout_a()).c_str(),
               cute_str(tile.layout_b()).c_str(),
               cute_str(coalesce(tile.layout_b(), Step<_1, _1>{})).c_str());
  for (std::uint64_t start : starts) {
    Tensor t = make_tensor(make_smem_ptr(fake_smem<T>(start)), tile);
    std::uint64_t checksum = 0;
    std::vector<std::uint64_t> head;
    std::uint64_t i = 0;
    for (int m = 0; m < MN; ++m) {
      for (int k = 0; k < K; ++k) {
        std::uint64_t a = deref_address(t.data() + t.layout()(m, k));
        ++i;
        checksum += a * i;
        if (head.size() < 64) head.push_back(a);
      }
    }
    std::fprintf(f, "A %d %llu %llu", id, (unsigned long long)start, (unsigned long long)checksum);
    for (auto a : head) std::fprintf(f, " %llu", (unsigned long long)a);
    std::fprintf(f, "\n");
  }
}

// Line "D id arch inst start nI nJ d(0,0) d(0,1) ..." with descriptors in hex, row-major over
// (MN block i, K block j).  Each sub-tensor is CuTe's local_tile of the smem tensor with a tile of
// (INST, KB) elements, KB = 32 bytes of K.
template <class T, class Atom, int MN, int K, bool KFirst, int INST, int ARCH, bool MNMajor>
void emit_desc(std::FILE* f, int id, std::vector<std::uint64_t> const& starts) {
  auto tile = make_tile<Atom, MN, K, KFirst>();
  constexpr int KB = 256 / int(sizeof_bits<T>::value);
  constexpr int NI = MN / INST;
  constexpr int NJ = K / KB;
  static_assert(MN % INST == 0 && K % KB == 0, "grid must tile the operand");
  for (std::uint64_t start : starts) {
    Tensor t = make_tensor(make_smem_ptr(fake_smem<T>(start)), tile);
    std::fprintf(f, "D %d %d %d %llu %d %d", id, ARCH, INST, (unsigned long long)start, NI, NJ);
    for (int i = 0; i < NI; ++i) {
      for (int j = 0; j < NJ; ++j) {
        auto sub = local_tile(t, make_shape(Int<INST>{}, Int<KB>{}), make_coord(i, j));
        std::uint64_t d;
        if constexpr (ARCH == 90) {
          d = GMMA::make_gmma_desc<MNMajor ? GMMA::Major::MN : GMMA::Major::K>(sub).desc_;
        } else {
          d = std::uint64_t(UMMA::make_umma_desc<MNMajor ? UMMA::Major::MN : UMMA::Major::K>(sub));
        }
        std::fprintf(f, " 0x%016llx", (unsigned long long)d);
      }
    }
    std::fprintf(f, "\n");
  }
}

// Line "I id 0x........" : UMMA::make_instr_desc<...>() as its 32-bit value.
template <class TA, class TB, class TD, int M, int N, bool AMN, bool BMN, bool NEGA, bool NEGB, bool SAT>
void emit_instr(std::FILE* f, int id) {
  auto d = UMMA::make_instr_desc<TA, TB, TD, M, N,
                                 AMN ? UMMA::Major::MN : UMMA::Major::K,
                                 BMN ? UMMA::Major::MN : UMMA::Major::K,
                                 NEGA ? UMMA::ScaleIn::Neg : UMMA::ScaleIn::One,
                                 NEGB ? UMMA::ScaleIn::Neg : UMMA::ScaleIn::One,
                                 SAT ? UMMA::Saturate::True : UMMA::Saturate::False>();
  std::fprintf(f, "I %d 0x%08x\n", id, static_cast<unsigned>(static_cast<std::uint32_t>(d)));
}

// Line "B id 0x........ scale_format a_sf_id b_sf_id k_size": UMMA::make_instr_desc_block_scaled<...>()
// as its 32-bit value, then the scale-factor bitfields read back from CuTe's union.
template <class TA, class TB, class TD, class SF, int M, int N, bool AMN, bool BMN, bool NEGA, bool NEGB>
void emit_instr_bs(std::FILE* f, int id) {
  auto d = UMMA::make_instr_desc_block_scaled<TA, TB, TD, SF, M, N,
                                              AMN ? UMMA::Major::MN : UMMA::Major::K,
                                              BMN ? UMMA::Major::MN : UMMA::Major::K,
                                              NEGA ? UMMA::ScaleIn::Neg : UMMA::ScaleIn::One,
                                              NEGB ? UMMA::ScaleIn::Neg : UMMA::ScaleIn::One>();
  std::fprintf(f, "B %d 0x%08x %d %d %d %d\n", id, static_cast<unsigned>(static_cast<std::uint32_t>(d)),
               int(d.scale_format_), int(d.a_sf_id_), int(d.b_sf_id_), int(d.k_size_));
}

}  // namespace golden
