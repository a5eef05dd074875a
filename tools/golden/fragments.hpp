// Host-side printer of CuTe's thread-value layouts for the fastswz fragment golden vectors
// (test tooling only). It includes the CUTLASS/CuTe headers of the installed `nvidia-cutlass`
// wheel, instantiates MMA_Traits / Copy_Traits / UMMA::tmem_frg, and prints the layouts CuTe
// holds (ALayout/BLayout/CLayout, SrcLayout/DstLayout, the accumulator's TMEM layout). Nothing
// here is copied from CUTLASS. See tools/golden/README.md ("golden_cute_fragments.json").
#pragma once

// Every wgmma N (the N not a multiple of 32 live in the "extended shapes" headers).
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED 1

#include <cute/tensor.hpp>
#include "cute_str.hpp"
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm89.hpp>
#include <cute/atom/mma_traits_sm90.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/mma_traits_sm90_gmma_ext.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cute/atom/copy_traits_sm100.hpp>

#include <cstdio>
#include <sstream>
#include <string>

namespace fgolden {

using namespace cute;

using cute_print::cute_str;   // cute_str.hpp

// "M <atom> <A> <B> <C>": the TV layouts of an MMA atom's traits.
template <class Op>
void mma(const char* name) {
  using T = MMA_Traits<Op>;
  std::printf("M %s %s %s %s\n", name, cute_str(typename T::ALayout{}).c_str(),
              cute_str(typename T::BLayout{}).c_str(), cute_str(typename T::CLayout{}).c_str());
}

// "C <atom> <src> <dst>": the TV layouts (in bits) of a copy atom's traits.
template <class Op>
void copy(const char* name) {
  using T = Copy_Traits<Op>;
  std::printf("C %s %s %s\n", name, cute_str(typename T::SrcLayout{}).c_str(),
              cute_str(typename T::DstLayout{}).c_str());
}

// "F <n_sm> <m> <n> <alloc> <layout>": (m, n) -> TMEM address of a UMMA accumulator fragment.
template <int NSM, int M, int N, UMMA::TmemAllocMode Mode>
void tmem(const char* mode) {
  auto t = UMMA::tmem_frg<float, uint32_t, NSM, Mode>::make(
      make_shape(make_shape(Int<M>{}, Int<N>{}), _1{}, _1{}));
  std::printf("F %d %d %d %s %s\n", NSM, M, N, mode, cute_str(layout(t)).c_str());
}

}  // namespace fgolden
