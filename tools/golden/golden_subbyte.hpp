// Sub-byte (4-bit) additions to golden.hpp: CuTe smem tiles of packed float_e2m1_t and of
// detail::float_e2m1_unpacksmem_t.  Same host trick and output lines as golden.hpp, but the
// addresses are *bit* addresses: 8 * (byte address) + (bit index inside that byte), read from the
// subbyte_iterator that CuTe's swizzled smem iterator would dereference.
#pragma once

#include "golden.hpp"

namespace golden {

// subbyte_iterator keeps its storage pointer and bit index private; reading them through an
// explicit instantiation (which skips access checks) avoids re-deriving CuTe's arithmetic.
template <class Tag, typename Tag::type M>
struct Peek {
  friend typename Tag::type peek(Tag) { return M; }
};
template <class T>
struct IdxTag {
  using type = std::uint8_t subbyte_iterator<T>::*;
  friend type peek(IdxTag);
};
template <class T>
struct PtrTag {
  using type = typename subbyte_iterator<T>::storage_type* subbyte_iterator<T>::*;
  friend type peek(PtrTag);
};
template struct Peek<IdxTag<float_e2m1_t>, &subbyte_iterator<float_e2m1_t>::idx_>;
template struct Peek<PtrTag<float_e2m1_t>, &subbyte_iterator<float_e2m1_t>::ptr_>;
template struct Peek<IdxTag<detail::float_e2m1_unpacksmem_t>,
                     &subbyte_iterator<detail::float_e2m1_unpacksmem_t>::idx_>;
template struct Peek<PtrTag<detail::float_e2m1_unpacksmem_t>,
                     &subbyte_iterator<detail::float_e2m1_unpacksmem_t>::ptr_>;

template <class T>
std::uint64_t bit_address(subbyte_iterator<T> const& s) {
  auto p = s.*peek(PtrTag<T>{});
  auto i = s.*peek(IdxTag<T>{});
  return (static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p)) - kBias) * 8 + i;
}

// Bit address that CuTe's (possibly swizzled) sub-byte smem iterator would dereference.
template <class Iter>
std::uint64_t deref_bit_address(Iter const& it) {
  if constexpr (is_swz_ptr<Iter>::value) {
    return bit_address(Iter::apply_swizzle(it.get()).get());
  } else {
    return bit_address(it.get());
  }
}

template <class T>
auto fake_smem_sub(std::uint64_t start) {
  return make_smem_ptr<T>(static_cast<void*>(fake_smem<std::uint8_t>(start)));
}

// As emit_tile, with "A" lines carrying bit addresses.
template <class T, class Atom, int MN, int K, bool KFirst>
void emit_tile_sub(std::FILE* f, int id, std::vector<std::uint64_t> const& starts) {
  auto tile = make_tile<Atom, MN, K, KFirst>();
  std::fprintf(f, "T %d %s %s %s\n", id, cute_str(tile.layout_a()).c_str(),
               cute_str(tile.layout_b()).c_str(),
               cute_str(coalesce(tile.layout_b(), Step<_1, _1>{})).c_str());
  for (std::uint64_t start : starts) {
    Tensor t = make_tensor(fake_smem_sub<T>(start), tile);
    std::uint64_t checksum = 0, i = 0;
    std::vector<std::uint64_t> head;
    for (int m = 0; m < MN; ++m) {
      for (int k = 0; k < K; ++k) {
        std::uint64_t a = deref_bit_address(t.data() + t.layout()(m, k));
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

// As emit_desc (sm100 only); KB = 32 bytes of K = 64 four-bit elements.
template <class T, class Atom, int MN, int K, bool KFirst, int INST, bool MNMajor>
void emit_desc_sub(std::FILE* f, int id, std::vector<std::uint64_t> const& starts) {
  auto tile = make_tile<Atom, MN, K, KFirst>();
  constexpr int KB = 256 / int(sizeof_bits<T>::value);
  constexpr int NI = MN / INST;
  constexpr int NJ = K / KB;
  static_assert(MN % INST == 0 && K % KB == 0, "grid must tile the operand");
  for (std::uint64_t start : starts) {
    Tensor t = make_tensor(fake_smem_sub<T>(start), tile);
    std::fprintf(f, "D %d %d %d %llu %d %d", id, 100, INST, (unsigned long long)start, NI, NJ);
    for (int i = 0; i < NI; ++i) {
      for (int j = 0; j < NJ; ++j) {
        auto sub = local_tile(t, make_shape(Int<INST>{}, Int<KB>{}), make_coord(i, j));
        std::uint64_t d = std::uint64_t(UMMA::make_umma_desc<MNMajor ? UMMA::Major::MN : UMMA::Major::K>(sub));
        std::fprintf(f, " 0x%016llx", (unsigned long long)d);
      }
    }
    std::fprintf(f, "\n");
  }
}

}  // namespace golden
