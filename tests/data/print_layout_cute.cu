// Produced tests/data/print_layout_cute.txt: CuTe's own print_layout (cute/util/print_tensor.hpp,
// CUTLASS 4.2.0) on four small layouts, run on the host:
//   nvcc -std=c++17 -I<site-packages>/cutlass_library/source/include print_layout_cute.cu -o pl && ./pl
#include <cute/tensor.hpp>
using namespace cute;
int main() {
  print_layout(make_layout(make_shape(4, 2), make_stride(2, 1)));
  print_layout(make_composed_layout(Swizzle<1,0,1>{}, 0, make_layout(make_shape(4, 2), make_stride(2, 1))));
  print_layout(make_composed_layout(Swizzle<3,4,3>{}, 0, make_layout(make_shape(8, 4), make_stride(64, 1))));
  print_layout(make_layout(make_shape(make_shape(2, 2), 3), make_stride(make_stride(1, 6), 2)));
}
