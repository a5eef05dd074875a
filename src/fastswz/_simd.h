/* The hottest loops, compiled once per x86-64 ISA level and picked at load time.
 *
 * Cython cannot attach target attributes, so these loops live in C. GCC's target_clones
 * builds an AVX-512, an AVX2 and a baseline body and an ifunc resolver selects one per CPU
 * when the extension is loaded: a default-flags wheel gets the -march=native speed without
 * failing on older CPUs. Elsewhere (clang, macOS, other ISAs) it is the plain loop.
 * Caller guarantees (see _kernels.pyx): out is nr x nc, C-contiguous; no 32-bit overflow.
 */
#ifndef FASTSWZ_SIMD_H
#define FASTSWZ_SIMD_H
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FSW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FSW_CLONES
#endif

FSW_CLONES void fsw_tile_addresses(const uint32_t *__restrict row, const uint32_t *__restrict col,
                                   uint32_t yyy, int shift, uint32_t post,
                                   uint32_t *__restrict out, ptrdiff_t nr, ptrdiff_t nc)
{
    for (ptrdiff_t i = 0; i < nr; ++i) {
        const uint32_t r = row[i];
        uint32_t *__restrict o = out + i * nc;
        /* The address is separable before the swizzle: row[i] + col[j], then one XOR-shift. */
        for (ptrdiff_t j = 0; j < nc; ++j) {
            const uint32_t x = r + col[j];
            o[j] = (x ^ ((x & yyy) >> shift)) + post;
        }
    }
}

/* CuTe Swizzle<B,M,S> over an int64 array: x ^ shiftr(x & yyy, S), a negative S shifting left. */
FSW_CLONES void fsw_swizzle_offsets(const int64_t *__restrict src, int64_t yyy, int shift,
                                    int64_t *__restrict out, ptrdiff_t n)
{
    if (shift >= 0) {
        for (ptrdiff_t i = 0; i < n; ++i)
            out[i] = src[i] ^ ((src[i] & yyy) >> shift);
    } else {
        for (ptrdiff_t i = 0; i < n; ++i)
            out[i] = src[i] ^ (int64_t)((uint64_t)(src[i] & yyy) << -shift);
    }
}

#endif
