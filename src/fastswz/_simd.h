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

/* Inverse tile map, power-of-two geometry (issue 14 part 4): the whole loop in uint32 lanes,
 * no division and no branch, so it vectorises; a bad address only sets the returned flag and
 * the caller rescans with the exact (Cython) loop to name the first one. Per element:
 *   x = addr (relative) or swz(addr) (absolute); lin = x - start (wraps below start, caught by
 *   x < start); relative: lin = swz(lin);
 *   e = (lin << lsh) >> rsh (element index; 4-bit: lin * 2), low rsh bits of lin must be 0;
 *   c_m = (e >> sh[m]) & mask[m] (mode coordinate; padded modes have mask 0);
 *   mn = sum c_m * mmn[m], k = sum c_m * mk[m].
 * Caller guarantees: shift >= 0, total < 2**31, every mode a power of two but the last
 * (mask all ones), coordinates < 2**31. */
#define FSW_TILE_COORDS_BODY(NAME, OUT_T)                                                      \
static inline int NAME(const uint32_t *__restrict addr, ptrdiff_t n, uint32_t start,            \
                       uint32_t yyy, int shift, const int relative, uint32_t total, int lsh,     \
                       int rsh, const uint32_t *p, OUT_T *__restrict out_mn,                    \
                       OUT_T *__restrict out_k)                                                  \
{                                                                                               \
    const uint32_t s0 = p[0], s1 = p[1], s2 = p[2], s3 = p[3];                                  \
    const uint32_t k0 = p[4], k1 = p[5], k2 = p[6], k3 = p[7];                                  \
    const uint32_t a0 = p[8], a1 = p[9], a2 = p[10], a3 = p[11];                                \
    const uint32_t b0 = p[12], b1 = p[13], b2 = p[14], b3 = p[15];                              \
    const uint32_t amask = (1u << rsh) - 1u;                                                    \
    uint32_t bad = 0;                                                                           \
    for (ptrdiff_t i = 0; i < n; ++i) {                                                         \
        const uint32_t a = addr[i];                                                             \
        const uint32_t x = relative ? a : (a ^ ((a & yyy) >> shift));                           \
        uint32_t lin = x - start;                                                               \
        bad |= (uint32_t)(x < start);                                                           \
        if (relative)                                                                           \
            lin = lin ^ ((lin & yyy) >> shift);                                                 \
        bad |= (uint32_t)(lin >= total) | (lin & amask);                                        \
        const uint32_t e = (lin << lsh) >> rsh;                                                 \
        const uint32_t c0 = (e >> s0) & k0, c1 = (e >> s1) & k1;                                \
        const uint32_t c2 = (e >> s2) & k2, c3 = (e >> s3) & k3;                                \
        out_mn[i] = (OUT_T)(c0 * a0 + c1 * a1 + c2 * a2 + c3 * a3);                             \
        out_k[i] = (OUT_T)(c0 * b0 + c1 * b1 + c2 * b2 + c3 * b3);                              \
    }                                                                                           \
    return bad != 0;                                                                            \
}
FSW_TILE_COORDS_BODY(fsw_tile_coords_i64, int64_t)
FSW_TILE_COORDS_BODY(fsw_tile_coords_i32, int32_t)

/* out_size: 8 (int64 outputs) or 4 (int32). */
FSW_CLONES int fsw_tile_coords(const uint32_t *addr, ptrdiff_t n, uint32_t start, uint32_t yyy,
                               int shift, int relative, uint32_t total, int lsh, int rsh,
                               const uint32_t *params, void *out_mn, void *out_k, int out_size)
{
    if (out_size == 4) {
        if (relative)
            return fsw_tile_coords_i32(addr, n, start, yyy, shift, 1, total, lsh, rsh, params,
                                       (int32_t *)out_mn, (int32_t *)out_k);
        return fsw_tile_coords_i32(addr, n, start, yyy, shift, 0, total, lsh, rsh, params,
                                   (int32_t *)out_mn, (int32_t *)out_k);
    }
    if (relative)
        return fsw_tile_coords_i64(addr, n, start, yyy, shift, 1, total, lsh, rsh, params,
                                   (int64_t *)out_mn, (int64_t *)out_k);
    return fsw_tile_coords_i64(addr, n, start, yyy, shift, 0, total, lsh, rsh, params,
                               (int64_t *)out_mn, (int64_t *)out_k);
}

/* Shared-memory descriptor pack over 256-element chunks. A field given as one value (a
 * broadcast scalar) is expanded once into a chunk-long local buffer, so the inner loop always
 * reads six contiguous streams and vectorises whatever mix of scalars and arrays the caller
 * passes. The range checks are OR-ed into a flag (PTX matrix-descriptor-encode: 14-bit fields of
 * 16-byte units, base_offset 3 bits, lbo_mode 1 bit, a defined layout code; sm100: lbo_mode 1
 * only with layout 2 and base_offset 0); the caller rescans exactly when it is set. */
#define FSW_PACK_CHUNK 256
static inline uint64_t fsw_pack_chunk(const int64_t *__restrict a, const int64_t *__restrict l,
                                      const int64_t *__restrict s, const int64_t *__restrict bo,
                                      const int64_t *__restrict lm, const int64_t *__restrict lt,
                                      ptrdiff_t m, int layout_lsb, uint64_t lay_ok, int sm100,
                                      uint64_t const_bits, uint64_t *__restrict out)
{
    uint64_t bad = 0;
    for (ptrdiff_t j = 0; j < m; ++j) {
        const uint64_t A = (uint64_t)a[j], L = (uint64_t)l[j], S = (uint64_t)s[j];
        const uint64_t B = (uint64_t)bo[j], M = (uint64_t)lm[j], T = (uint64_t)lt[j];
        bad |= ((A | L | S) >> 18) | ((A | L | S) & 15) | (B >> 3) | (M >> 1) | (T >> 3);
        bad |= ((lay_ok >> (T & 7)) & 1) ^ 1;
        if (sm100)
            bad |= M & (uint64_t)((T != 2) | (B != 0));
        out[j] = const_bits | (A >> 4) | ((L >> 4) << 16) | ((S >> 4) << 32) | (B << 49)
                 | (M << 52) | (T << layout_lsb);
    }
    return bad;
}

FSW_CLONES int fsw_pack_smem(const int64_t *const *fields, const int64_t *steps, ptrdiff_t n,
                             int layout_lsb, uint64_t lay_ok, int sm100, uint64_t const_bits,
                             uint64_t *out)
{
    int64_t bcast[6][FSW_PACK_CHUNK];
    const int64_t *p[6];
    uint64_t bad = 0;
    for (int f = 0; f < 6; ++f)
        if (!steps[f])
            for (int j = 0; j < FSW_PACK_CHUNK; ++j)
                bcast[f][j] = fields[f][0];
    for (ptrdiff_t i0 = 0; i0 < n; i0 += FSW_PACK_CHUNK) {
        const ptrdiff_t m = n - i0 < FSW_PACK_CHUNK ? n - i0 : FSW_PACK_CHUNK;
        for (int f = 0; f < 6; ++f)
            p[f] = steps[f] ? fields[f] + i0 : bcast[f];
        if (sm100)
            bad |= fsw_pack_chunk(p[0], p[1], p[2], p[3], p[4], p[5], m, layout_lsb, lay_ok, 1,
                                  const_bits, out + i0);
        else
            bad |= fsw_pack_chunk(p[0], p[1], p[2], p[3], p[4], p[5], m, layout_lsb, lay_ok, 0,
                                  const_bits, out + i0);
    }
    return bad != 0;
}

/* Descriptor unpack in one pass over the input: 1024-word chunks (8 KiB, in L1) are checked
 * (reserved bits, and the allowed-value sets of up to 8 checked fields) and then cut into every
 * field's output row, each row a contiguous stream of 1-, 2-, 4- or 8-byte integers (osize[f]).
 * rule = {on, lbo_mode lsb, layout lsb, layout code, base_offset lsb}: when on, also flags a
 * word with lbo_mode 1 whose 3-bit layout is not that code or whose base_offset is not 0
 * (tcgen05, PTX 9.7.16.3.1.2.1). Returns bit 0: some word breaks a field rule; bit 1: some word
 * breaks the lbo_mode rule. The caller rescans to name the first one. */
#define FSW_UNPACK_CHUNK 1024
#define FSW_UNPACK_ROW(T)                                                                       \
    do {                                                                                        \
        T *__restrict o = (T *)outs[f] + i0;                                                    \
        for (ptrdiff_t j = 0; j < m; ++j)                                                       \
            o[j] = (T)(((w[j] >> lo) & mask) << sh);                                            \
    } while (0)

FSW_CLONES int fsw_unpack_fields(const uint64_t *values, ptrdiff_t n, int nf, const int64_t *lsb,
                                 const int64_t *width, const int64_t *lshift,
                                 const uint64_t *allowed, uint64_t reserved, void *const *outs,
                                 const int64_t *osize, const int64_t *rule)
{
    int nchk = 0, chk_lo[8];
    uint64_t chk_mask[8], chk_ok[8], bad = 0, bad_rule = 0;
    const int r_lm = (int)rule[1], r_lt = (int)rule[2], r_bo = (int)rule[4];
    const uint64_t r_code = (uint64_t)rule[3];
    for (int f = 0; f < nf && nchk < 8; ++f)
        if (allowed[f]) {
            chk_lo[nchk] = (int)lsb[f];
            chk_mask[nchk] = (UINT64_C(1) << width[f]) - 1;
            chk_ok[nchk] = allowed[f];
            ++nchk;
        }
    for (ptrdiff_t i0 = 0; i0 < n; i0 += FSW_UNPACK_CHUNK) {
        const ptrdiff_t m = n - i0 < FSW_UNPACK_CHUNK ? n - i0 : FSW_UNPACK_CHUNK;
        const uint64_t *__restrict w = values + i0;
        for (ptrdiff_t j = 0; j < m; ++j)
            bad |= w[j] & reserved;
        for (int c = 0; c < nchk; ++c) {
            const int lo = chk_lo[c];
            const uint64_t mask = chk_mask[c], ok = chk_ok[c];
            for (ptrdiff_t j = 0; j < m; ++j)
                bad |= ((ok >> ((w[j] >> lo) & mask)) & 1) ^ 1;
        }
        if (rule[0])
            for (ptrdiff_t j = 0; j < m; ++j)
                bad_rule |= ((w[j] >> r_lm) & 1)
                            & (uint64_t)((((w[j] >> r_lt) & 7) != r_code)
                                         | (((w[j] >> r_bo) & 7) != 0));
        for (int f = 0; f < nf; ++f) {
            const int lo = (int)lsb[f], sh = (int)lshift[f];
            const uint64_t mask = (UINT64_C(1) << width[f]) - 1;
            switch (osize[f]) {
            case 1: FSW_UNPACK_ROW(uint8_t); break;
            case 2: FSW_UNPACK_ROW(uint16_t); break;
            case 4: FSW_UNPACK_ROW(uint32_t); break;
            default: FSW_UNPACK_ROW(uint64_t); break;
            }
        }
    }
    return (bad != 0) | ((bad_rule != 0) << 1);
}

/* Shared-memory wavefronts of n warp instructions of 1-, 2- or 4-byte accesses (fastswz.banks:
 * one 32-lane phase; 32 banks of 4-byte words; lanes in one word broadcast). Per bank, the
 * distinct 4-byte words are the distinct 128-byte rows it is asked for, so each bank keeps the
 * rows seen as bits of one 64-bit mask (row - the phase's lowest row) and the answer is the
 * largest popcount. The ORs have no count to carry from lane to lane, so the lanes' stores do not
 * chain through a data-dependent add (1.4x over the counting version on random addresses, and
 * POPCNT comes with the AVX2/AVX-512 clones). A row whose active lanes span 64 or more 128-byte
 * rows gets -1: the caller counts it another way. masked: act holds n rows of 32 lane flags,
 * else it is ignored and every lane is active. Returns the OR of the active addresses (the
 * caller checks the sign and the alignment bits). */
static inline uint64_t fsw_bank_words32_body(const int64_t *__restrict addr,
                                             const int8_t *__restrict act, int masked,
                                             ptrdiff_t n, int64_t *__restrict out)
{
    uint64_t rows[32] = {0}, seen = 0;
    for (ptrdiff_t i = 0; i < n; ++i) {
        const int64_t *__restrict a = addr + 32 * i;
        const int8_t *__restrict m = masked ? act + 32 * i : act;
        int64_t rmin = INT64_MAX, rmax = INT64_MIN;
        for (int l = 0; l < 32; ++l) {
            const int on = masked ? m[l] != 0 : 1;
            const int64_t r = a[l] >> 7;
            seen |= on ? (uint64_t)a[l] : 0;
            rmin = (on && r < rmin) ? r : rmin;
            rmax = (on && r > rmax) ? r : rmax;
        }
        if (rmax < rmin) {          /* no active lane */
            out[i] = 0;
            continue;
        }
        if (rmax - rmin >= 64) {
            out[i] = -1;
            continue;
        }
        for (int l = 0; l < 32; ++l) {
            const int64_t w = a[l] >> 2;
            const uint64_t on = masked ? (uint64_t)(m[l] != 0) : 1;
            rows[w & 31] |= on << (((w >> 5) - rmin) & 63);
        }
        int64_t best = 0;
        for (int g = 0; g < 32; ++g) {
            const int64_t c = __builtin_popcountll(rows[g]);
            best = c > best ? c : best;
            rows[g] = 0;
        }
        out[i] = best;
    }
    return seen;
}

FSW_CLONES uint64_t fsw_bank_words32(const int64_t *addr, const int8_t *act, int masked,
                                     ptrdiff_t n, int64_t *out)
{
    /* two bodies, so the unmasked one has no lane flags to read */
    return masked ? fsw_bank_words32_body(addr, act, 1, n, out)
                  : fsw_bank_words32_body(addr, act, 0, n, out);
}

#endif
