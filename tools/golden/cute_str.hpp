// Shared by the golden generators' headers (golden.hpp, fragments.hpp); test tooling only.
#pragma once

#include <sstream>
#include <string>

namespace cute_print {

// Print with CuTe's ostream printer, then drop the '_' that marks static integers.
template <class X>
std::string cute_str(X const& x) {
  std::ostringstream os;
  os << x;
  std::string s = os.str(), out;
  for (char c : s) {
    if (c != '_') out.push_back(c);
  }
  return out;
}

}  // namespace cute_print
