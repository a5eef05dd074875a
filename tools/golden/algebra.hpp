// Host driver for tools/golden/generate_algebra.py (test tooling only; never part of fastswz).
//
// Every case is one line of a generated translation unit that builds CuTe layouts from static
// integers (Int<N>), calls one algebra operation of the installed CUTLASS/CuTe headers and
// prints what CuTe returns with CuTe's own printer.  Nothing here is copied from CUTLASS.
#pragma once

#include <cute/layout.hpp>
#include <cute/layout_composed.hpp>
#include <cute/swizzle.hpp>
#include <cute/swizzle_layout.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

// An element type of N bits, so recast_layout<Old, New> can take any pair of widths.
template <int N>
struct galg_bits {};
namespace cutlass {
template <int N>
struct sizeof_bits<galg_bits<N>> {
  static constexpr int value = N;
};
}  // namespace cutlass

namespace galg {

using namespace cute;

template <class X>
std::string str(X const& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

// One result line: "<id>\t<printed result>[\t<printed offset>]".  Flushed at once, so a case
// that aborts at run time is the one after the last line printed.
template <class X>
void emit(int id, X const& x) {
  std::printf("%d\t%s\n", id, str(x).c_str());
  std::fflush(stdout);
}

template <class X, class Y>
void emit2(int id, X const& x, Y const& y) {
  std::printf("%d\t%s\t%s\n", id, str(x).c_str(), str(y).c_str());
  std::fflush(stdout);
}

}  // namespace galg
