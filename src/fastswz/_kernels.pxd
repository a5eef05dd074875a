# Bit primitives shared by the batch loops (cimportable). All noexcept nogil, no Python objects.
from libc.stdint cimport int64_t, uint64_t, uint32_t

cdef inline int64_t swizzle_apply(int64_t x, int64_t yyy_msk, int shift) noexcept nogil:
    # CuTe Swizzle<B,M,S>: x ^ shiftr(x & yyy_msk, S); a negative S shifts left (swizzle.hpp).
    if shift >= 0:
        return x ^ ((x & yyy_msk) >> shift)
    return x ^ ((x & yyy_msk) << (-shift))

cdef inline uint64_t field_insert(uint64_t word, uint64_t value, int lsb) noexcept nogil:
    return word | (value << lsb)

cdef inline int64_t field_extract(uint64_t word, int lsb, int width) noexcept nogil:
    return <int64_t>((word >> lsb) & ((<uint64_t>1 << width) - 1))
