"""Batch integer loops of fastswz: typed memoryviews in, caller-owned outputs, no validation.

Every public function here is a thin ``def`` that releases the GIL around a ``noexcept nogil``
loop, so callers may split work across threads. Callers (``fastswz.bulk``) guarantee shapes,
ranges and dtypes; nothing here raises or allocates.
"""
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t, uint32_t, INT64_MAX, INT64_MIN
from cpython.buffer cimport (PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release,
                            PyObject_GetBuffer)
from libc.string cimport memset

cdef enum:
    MAX_MODES = 64  # flat rank limit; bulk.py checks it
    EVAL_BLOCK = 2048  # evaluate's inner block of offsets, on the stack (16 KiB)
    AT_BITS = 10       # evaluate_at's per-digit weight tables: 3 x 1024 int64 on the stack
    AT_DIGITS = 3
    AT_MASK = 1023

cdef extern from "_simd.h" nogil:
    # C loops built per ISA (AVX-512 / AVX2 / baseline) and chosen at load time.
    void fsw_tile_addresses(const uint32_t* row, const uint32_t* col, uint32_t yyy, int shift,
                            uint32_t post, uint32_t* out, Py_ssize_t nr, Py_ssize_t nc)
    void fsw_swizzle_offsets(const int64_t* src, int64_t yyy, int shift, int64_t* out,
                             Py_ssize_t n)
    int fsw_tile_coords(const uint32_t* addr, Py_ssize_t n, uint32_t start, uint32_t yyy,
                        int shift, int relative, uint32_t total, int lsh, int rsh,
                        const uint32_t* params, void* out_mn, void* out_k, int out_size)
    int fsw_pack_smem(const int64_t* const* fields, const int64_t* steps, Py_ssize_t n,
                      int layout_lsb, uint64_t lay_ok, int sm100, uint64_t const_bits,
                      uint64_t* out)
    int fsw_unpack_fields(const uint64_t* values, Py_ssize_t n, int nf, const int64_t* lsb,
                          const int64_t* width, const int64_t* lshift, const uint64_t* allowed,
                          uint64_t reserved, void* const* outs, const int64_t* osize,
                          const int64_t* rule)
    uint64_t fsw_bank_words32(const int64_t* addr, const int8_t* act, int masked, Py_ssize_t n,
                              int64_t* out)


cdef void _layout_odometer(const int64_t[::1] shape, const int64_t[::1] stride, int64_t offset,
                           int64_t yyy, int shift, int64_t[::1] out) noexcept nogil:
    # Odometer over the flat modes, first mode fastest (CuTe's colexicographic order): one add
    # per element instead of a div/mod per mode.
    cdef Py_ssize_t n = out.shape[0], r = shape.shape[0], i, m
    cdef int64_t crd[MAX_MODES]
    cdef int64_t x = offset, s0 = stride[0] if r > 0 else 0, e0 = shape[0] if r > 0 else 1
    cdef int64_t c0 = 0
    for m in range(r):
        crd[m] = 0
    for i in range(n):
        out[i] = swizzle_apply(x, yyy, shift) if yyy != 0 else x
        c0 += 1
        x += s0
        if c0 == e0:
            c0 = 0
            x -= s0 * e0
            m = 1
            while m < r:
                crd[m] += 1
                x += stride[m]
                if crd[m] < shape[m]:
                    break
                x -= stride[m] * shape[m]
                crd[m] = 0
                m += 1


cdef void _layout_offsets(const int64_t[::1] shape, const int64_t[::1] stride, int64_t offset,
                          int64_t yyy, int shift, int64_t[::1] out) noexcept nogil:
    # The first modes whose extents multiply to at most EVAL_BLOCK form an inner block whose
    # offsets T are tabulated once; the whole domain is then blocks out[b*P + j] = swz(x_b + T[j])
    # with x_b from an odometer over the remaining modes. The block loop has no branch and
    # vectorises (the per-element odometer's carry branch kept it scalar: about 3x slower with a
    # swizzle on the 2-core machine). Small inner blocks keep the plain odometer.
    cdef Py_ssize_t n = out.shape[0], r = shape.shape[0], q = 0, m, j, c, b, P = 1, size
    cdef int64_t T[EVAL_BLOCK]
    cdef int64_t crd[MAX_MODES]
    cdef int64_t x = offset, v
    cdef int64_t* o
    while q < r and P * shape[q] <= EVAL_BLOCK:
        P *= shape[q]
        q += 1
    if P < 16 or n != P * (n // P):
        _layout_odometer(shape, stride, offset, yyy, shift, out)
        return
    T[0] = 0
    size = 1
    for m in range(q):
        for c in range(1, shape[m]):
            for j in range(size):
                T[c * size + j] = T[j] + c * stride[m]
        size *= shape[m]
    for m in range(r):
        crd[m] = 0
    for b in range(n // P):
        o = &out[b * P]
        if yyy == 0:
            for j in range(P):
                o[j] = x + T[j]
        elif shift >= 0:
            for j in range(P):
                v = x + T[j]
                o[j] = v ^ ((v & yyy) >> shift)
        else:
            for j in range(P):
                v = x + T[j]
                o[j] = v ^ ((v & yyy) << (-shift))
        m = q
        while m < r:
            crd[m] += 1
            x += stride[m]
            if crd[m] < shape[m]:
                break
            x -= stride[m] * shape[m]
            crd[m] = 0
            m += 1


def layout_offsets(const int64_t[::1] shape, const int64_t[::1] stride, int64_t offset,
                   int64_t yyy, int shift, int64_t[::1] out):
    """out[i] = swz(offset + L(i)) for i in range(len(out)), L the flat layout shape:stride.

    Caller guarantees: len(shape) == len(stride) <= 64, len(out) == product(shape) >= 0,
    no int64 overflow; yyy == 0 means no swizzle."""
    with nogil:
        _layout_offsets(shape, stride, offset, yyy, shift, out)


cdef inline int _log2_or_neg(int64_t v) noexcept nogil:
    # log2(v) for a power of two, else -1.
    cdef int k = 0
    if v <= 0 or (v & (v - 1)) != 0:
        return -1
    while (<int64_t>1 << k) != v:
        k += 1
    return k


cdef bint _offsets_at_tables(const int64_t[::1] shape, const int64_t[::1] stride, int64_t offset,
                             int64_t yyy, int shift, const int* lg, const int64_t[::1] idx,
                             int64_t[::1] out) noexcept nogil:
    # With power-of-two extents each bit of a flat index adds a fixed amount to the offset
    # (bit j of mode m's field adds stride[m] << j), so the offset is a sum of per-bit weights:
    # three 1024-entry tables, one per 10-bit digit of the index, turn idx2crd into three L1
    # loads. Returns False (nothing written) when the index has more than 30 bits.
    cdef int64_t w[AT_DIGITS * AT_BITS]
    cdef int64_t T[AT_DIGITS][1 << AT_BITS]
    cdef Py_ssize_t n = idx.shape[0], r = shape.shape[0], i, m, d, v
    cdef int nb = 0, j
    cdef int64_t q, x
    for m in range(r):
        for j in range(lg[m]):
            if nb == AT_DIGITS * AT_BITS:
                return False
            w[nb] = stride[m] * (<int64_t>1 << j)
            nb += 1
    for j in range(nb, AT_DIGITS * AT_BITS):
        w[j] = 0
    for d in range(AT_DIGITS):
        T[d][0] = offset if d == 0 else 0
        for v in range(1, 1 << AT_BITS):
            # v's lowest set bit is bit j: T[v] = T[v without it] + its weight
            j = 0
            while not (v >> j) & 1:
                j += 1
            T[d][v] = T[d][v & (v - 1)] + w[d * AT_BITS + j]
    if yyy == 0:
        for i in range(n):
            q = idx[i]
            out[i] = T[0][q & AT_MASK] + T[1][(q >> AT_BITS) & AT_MASK] + T[2][q >> (2 * AT_BITS)]
    else:
        for i in range(n):
            q = idx[i]
            x = T[0][q & AT_MASK] + T[1][(q >> AT_BITS) & AT_MASK] + T[2][q >> (2 * AT_BITS)]
            out[i] = swizzle_apply(x, yyy, shift)
    return True


cdef void _layout_offsets_at(const int64_t[::1] shape, const int64_t[::1] stride, int64_t offset,
                             int64_t yyy, int shift, const int64_t[::1] idx,
                             int64_t[::1] out) noexcept nogil:
    cdef Py_ssize_t n = idx.shape[0], r = shape.shape[0], i, m
    cdef int64_t q, x
    cdef int lg[MAX_MODES]
    cdef bint pow2 = True
    for m in range(r):
        lg[m] = _log2_or_neg(shape[m])
        pow2 = pow2 and lg[m] >= 0
    if pow2 and _offsets_at_tables(shape, stride, offset, yyy, shift, lg, idx, out):
        return
    if pow2:
        # Power-of-two extents (the common case for tiles): idx2crd by shifts and masks, not
        # one division and one remainder per mode.
        for i in range(n):
            q = idx[i]
            x = offset
            for m in range(r):
                x += (q & (shape[m] - 1)) * stride[m]
                q = q >> lg[m]
            out[i] = swizzle_apply(x, yyy, shift) if yyy != 0 else x
        return
    for i in range(n):
        q = idx[i]
        x = offset
        for m in range(r):
            x += (q % shape[m]) * stride[m]
            q = q // shape[m]
        out[i] = swizzle_apply(x, yyy, shift) if yyy != 0 else x


def layout_offsets_at(const int64_t[::1] shape, const int64_t[::1] stride, int64_t offset,
                      int64_t yyy, int shift, const int64_t[::1] idx, int64_t[::1] out):
    """out[i] = swz(offset + L(idx[i])).

    Caller guarantees: 0 <= idx[i] < product(shape), len(out) == len(idx), shapes >= 1."""
    with nogil:
        _layout_offsets_at(shape, stride, offset, yyy, shift, idx, out)


def swizzle_offsets(int64_t yyy, int shift, const int64_t[::1] src, int64_t[::1] out):
    """out[i] = src[i] ^ shiftr(src[i] & yyy, shift).  Caller guarantees: len(out) == len(src)."""
    if src.shape[0] == 0:
        return
    with nogil:
        fsw_swizzle_offsets(&src[0], yyy, shift, &out[0], src.shape[0])




def tile_addresses(const uint32_t[::1] row, const uint32_t[::1] col, uint32_t yyy, int shift,
                   uint32_t post, uint32_t[:, ::1] out):
    """out[i, j] = swz(row[i] + col[j]) + post, swz(x) = x ^ ((x & yyy) >> shift).

    Caller guarantees: out.shape == (len(row), len(col)), both >= 1; no 32-bit overflow."""
    with nogil:
        fsw_tile_addresses(&row[0], &col[0], yyy, shift, post, &out[0, 0], out.shape[0],
                           out.shape[1])


cdef int64_t _tile_coords(const uint32_t[::1] addr, int64_t start, int64_t yyy, int shift,
                          bint relative, int64_t total, int64_t ebits,
                          const int64_t[::1] mshape, const int64_t[::1] mstride,
                          const int64_t[::1] mmn, const int64_t[::1] mk,
                          int64_t[::1] out_mn, int64_t[::1] out_k) noexcept nogil:
    # Undo the swizzle (an involution), then decode the compact tile layout by mixed radix.
    cdef Py_ssize_t n = addr.shape[0], nm = mshape.shape[0], i, m
    cdef int64_t a, lin, e, c, im, ik
    cdef int lg_e = _log2_or_neg(ebits)
    cdef int sh[MAX_MODES]
    cdef int64_t mask[MAX_MODES]
    cdef bint pow2 = lg_e >= 0
    for m in range(nm):
        sh[m] = _log2_or_neg(mstride[m])
        # the last (largest-stride) mode needs no mask: e < total bounds it
        mask[m] = mshape[m] - 1 if m < nm - 1 else -1
        pow2 = pow2 and sh[m] >= 0 and (m == nm - 1 or _log2_or_neg(mshape[m]) >= 0)
    for i in range(n):
        a = addr[i]
        if relative:
            lin = a - start
            if lin < 0:
                return i
            lin = swizzle_apply(lin, yyy, shift)
        else:
            lin = swizzle_apply(a, yyy, shift) - start
        # Packed 4-bit tiles: a byte holds two elements; it maps to the even (low-nibble) one.
        if lin < 0 or lin >= total or ((lin << 3) & (ebits - 1)) != 0:
            return i
        im = 0
        ik = 0
        if pow2:
            e = (lin << 3) >> lg_e
            for m in range(nm):
                c = (e >> sh[m]) & mask[m]
                im += c * mmn[m]
                ik += c * mk[m]
        else:
            e = (lin * 8) // ebits
            for m in range(nm):
                c = (e // mstride[m]) % mshape[m]
                im += c * mmn[m]
                ik += c * mk[m]
        out_mn[i] = im
        out_k[i] = ik
    return -1


def tile_coords(const uint32_t[::1] addr, int64_t start, int64_t yyy, int shift, bint relative,
                int64_t total, int64_t ebits, const int64_t[::1] mshape,
                const int64_t[::1] mstride, const int64_t[::1] mmn, const int64_t[::1] mk,
                int64_t[::1] out_mn, int64_t[::1] out_k):
    """Inverse tile map; returns -1, or the index of the first address that is not an element.

    Caller guarantees: modes sorted so that mstride[m] is the element stride of mode m of a
    compact layout; outputs as long as addr."""
    cdef int64_t r
    with nogil:
        r = _tile_coords(addr, start, yyy, shift, relative, total, ebits, mshape, mstride,
                         mmn, mk, out_mn, out_k)
    return r


cdef void _tile_descriptors(const int64_t[::1] row_off, const int64_t[::1] col_off,
                            const int64_t[::1] stage_start, uint64_t const_bits,
                            bint relative, uint64_t[:, :, ::1] out) noexcept nogil:
    cdef Py_ssize_t s, i, j
    cdef int64_t a, base
    cdef uint64_t hi
    for s in range(out.shape[0]):
        hi = const_bits
        if relative:
            # PTX 9.7.15.5.1.2.2: base offset = (pattern start addr >> 7) & 7, bits 49-51.
            hi = hi | (<uint64_t>((stage_start[s] >> 7) & 7) << 49)
        for i in range(out.shape[1]):
            base = stage_start[s] + row_off[i]
            for j in range(out.shape[2]):
                a = base + col_off[j]
                # start_address, bits 0-13: (addr & 0x3FFFF) >> 4.
                out[s, i, j] = hi | <uint64_t>((a & 0x3FFFF) >> 4)


def tile_descriptors(const int64_t[::1] row_off, const int64_t[::1] col_off,
                     const int64_t[::1] stage_start, uint64_t const_bits, bint relative,
                     uint64_t[:, :, ::1] out):
    """out[s, i, j] = const_bits | enc(stage_start[s] + row_off[i] + col_off[j]) [| base_offset].

    Caller guarantees: out.shape == (len(stage_start), len(row_off), len(col_off)); every
    address in [0, 2**18) and 16-byte aligned."""
    with nogil:
        _tile_descriptors(row_off, col_off, stage_start, const_bits, relative, out)


cdef inline bint _bad_addr(int64_t v) noexcept nogil:
    # 14-bit field of 16-byte units: [0, 2**18) and a multiple of 16 (PTX matrix-descriptor-encode).
    return v < 0 or v >= (1 << 18) or (v & 15) != 0


cdef inline int64_t _smem_bad(int64_t a, int64_t l, int64_t s, int64_t bo, int64_t lm, int64_t lt,
                              uint64_t allowed_layouts, bint sm100) noexcept nogil:
    # 0, or 1 + the index of the first field that breaks its rule (6: the lbo_mode=1
    # combination PTX 9.7.16.3.1.2.1 forbids).
    if _bad_addr(a):
        return 1
    if _bad_addr(l):
        return 2
    if _bad_addr(s):
        return 3
    if bo < 0 or bo > 7:
        return 4
    if lm < 0 or lm > 1:
        return 5
    if lt < 0 or lt > 7 or ((allowed_layouts >> lt) & 1) == 0:
        return 6
    if sm100 and lm == 1 and (lt != 2 or bo != 0):
        return 7
    return 0


cdef int64_t _pack_smem(const int64_t[::1] start, const int64_t[::1] lbo, const int64_t[::1] sbo,
                        const int64_t[::1] base, const int64_t[::1] lbo_mode,
                        const int64_t[::1] layout, const int64_t[::1] step, int layout_lsb,
                        uint64_t allowed_layouts, bint sm100, uint64_t const_bits,
                        uint64_t[::1] out) noexcept nogil:
    # One branch-free pass packs and ORs the range checks together; only when something is
    # wrong does a second pass find the first bad value. Returns i * 8 + field, or -1.
    cdef Py_ssize_t i, n = out.shape[0]
    cdef Py_ssize_t s0 = step[0], s1 = step[1], s2 = step[2], s3 = step[3], s4 = step[4], s5 = step[5]
    cdef int64_t a, l, s, bo, lm, lt
    cdef uint64_t bad = 0
    cdef uint64_t lay_ok = allowed_layouts
    for i in range(n):
        a = start[i * s0]
        l = lbo[i * s1]
        s = sbo[i * s2]
        bo = base[i * s3]
        lm = lbo_mode[i * s4]
        lt = layout[i * s5]
        bad |= (<uint64_t>(a | l | s) >> 18) | <uint64_t>((a | l | s) & 15)
        bad |= (<uint64_t>bo >> 3) | (<uint64_t>lm >> 1) | (<uint64_t>lt >> 3)
        bad |= ((lay_ok >> (lt & 7)) & 1) ^ 1
        if sm100:
            bad |= <uint64_t>(lm & ((lt != 2) | (bo != 0)))
        out[i] = (const_bits | <uint64_t>(a >> 4) | (<uint64_t>(l >> 4) << 16)
                  | (<uint64_t>(s >> 4) << 32) | (<uint64_t>bo << 49) | (<uint64_t>lm << 52)
                  | (<uint64_t>lt << layout_lsb))
    if bad == 0:
        return -1
    cdef int64_t f
    for i in range(n):
        f = _smem_bad(start[i * s0], lbo[i * s1], sbo[i * s2], base[i * s3], lbo_mode[i * s4],
                      layout[i * s5], allowed_layouts, sm100)
        if f:
            return i * 8 + f - 1
    return -1


def pack_smem(const int64_t[::1] start, const int64_t[::1] lbo, const int64_t[::1] sbo,
              const int64_t[::1] base, const int64_t[::1] lbo_mode, const int64_t[::1] layout,
              const int64_t[::1] step, int layout_lsb, uint64_t allowed_layouts, bint sm100,
              uint64_t const_bits, uint64_t[::1] out):
    """Pack shared-memory descriptors; returns -1 or i * 8 + field of the first bad value.

    Caller guarantees: step[f] in {0, 1}; each field has len(out) values where step is 1."""
    cdef int64_t r
    with nogil:
        r = _pack_smem(start, lbo, sbo, base, lbo_mode, layout, step, layout_lsb,
                       allowed_layouts, sm100, const_bits, out)
    return r


cdef int64_t _unpack_fields(const uint64_t[::1] values, const int64_t[::1] lsb,
                           const int64_t[::1] width, const int64_t[::1] lshift,
                           const uint64_t[::1] allowed, uint64_t reserved,
                           int64_t[:, ::1] out) noexcept nogil:
    # A branch-free validity pass, then one tight loop per field (one output stream at a
    # time); the first bad word is searched for only when the validity pass saw one.
    cdef Py_ssize_t n = values.shape[0], nf = lsb.shape[0], i, f, nchk = 0
    cdef uint64_t w, bad = 0, mask, ok
    cdef int lo
    cdef int64_t sh
    cdef int64_t* o
    cdef int chk_lo[MAX_MODES]
    cdef uint64_t chk_mask[MAX_MODES]
    cdef uint64_t chk_ok[MAX_MODES]
    for f in range(nf):
        if allowed[f] != 0:
            chk_lo[nchk] = <int>lsb[f]
            chk_mask[nchk] = (<uint64_t>1 << width[f]) - 1
            chk_ok[nchk] = allowed[f]
            nchk += 1
    for i in range(n):
        w = values[i]
        bad |= w & reserved
        for f in range(nchk):
            bad |= ((chk_ok[f] >> ((w >> chk_lo[f]) & chk_mask[f])) & 1) ^ 1
    if bad:
        for i in range(n):
            w = values[i]
            if w & reserved:
                return i
            for f in range(nf):
                ok = allowed[f]
                if ok != 0 and ((ok >> field_extract(w, <int>lsb[f], <int>width[f])) & 1) == 0:
                    return i
    for f in range(nf):
        lo = <int>lsb[f]
        mask = (<uint64_t>1 << width[f]) - 1
        sh = lshift[f]
        o = &out[f, 0] if n > 0 else NULL
        for i in range(n):
            o[i] = <int64_t>((values[i] >> lo) & mask) << sh
    return -1


def unpack_fields(const uint64_t[::1] values, const int64_t[::1] lsb, const int64_t[::1] width,
                  const int64_t[::1] lshift, const uint64_t[::1] allowed, uint64_t reserved,
                  int64_t[:, ::1] out):
    """out[f, i] = ((values[i] >> lsb[f]) & (2**width[f] - 1)) << lshift[f].

    Returns -1, or the first i whose word sets a ``reserved`` bit or has a field value v with
    allowed[f] != 0 and bit v of allowed[f] clear. Caller guarantees: out.shape ==
    (len(lsb), len(values)); width[f] in 1..63 and <= 6 where allowed[f] != 0."""
    cdef int64_t r
    with nogil:
        r = _unpack_fields(values, lsb, width, lshift, allowed, reserved, out)
    return r


cdef inline int8_t _one_config(int64_t eb, int64_t kmajor, int64_t width, int64_t rows,
                               int64_t mn, int64_t k, int64_t korder, int64_t inst_mn,
                               int64_t swizzled, uint64_t hi_bits, int64_t start, int64_t window,
                               int64_t lbo_k, int64_t* lbo_o, int64_t* sbo_o, int64_t* nbytes_o,
                               uint64_t* desc_o) noexcept nogil:
    # The closed form of OperandTile's geometry and strides for one configuration; returns the
    # error code (bulk.CONFIG_ERRORS). The outputs must hold 0 on entry.
    cdef int64_t amn, ak, nmn, nk, atom, smn, sk, inst_k, im, lbo, sbo, nbytes
    if kmajor:
        amn = 8
        ak = width * 8 // eb
    else:
        amn = width * 8 // eb
        ak = rows
    inst_k = 256 // eb
    im = inst_mn if inst_mn > 0 else mn
    if mn % amn:
        return 1
    if k % ak:
        return 2
    if k % inst_k:
        return 3
    if im > mn or mn % im:
        return 4
    if (kmajor and im % 8) or (not kmajor and im % amn):
        return 5
    nmn = mn // amn
    nk = k // ak
    atom = amn * ak
    if korder:
        smn = atom * nk
        sk = atom
    else:
        smn = atom
        sk = atom * nmn
    if kmajor:
        sbo = smn * eb // 8 if im > 8 else 0
        lbo = lbo_k if swizzled else sk * eb // 8
    else:
        lbo = smn * eb // 8 if im > amn else 0
        sbo = sk * eb // 8 if inst_k > ak else 0
        if not swizzled:
            lbo, sbo = sbo, lbo
    if lbo >= (1 << 18) or sbo >= (1 << 18):
        return 6
    nbytes = mn * k * eb // 8
    nbytes_o[0] = nbytes
    lbo_o[0] = lbo
    sbo_o[0] = sbo
    if start + nbytes > window:
        return 7
    desc_o[0] = (hi_bits | <uint64_t>((start & 0x3FFFF) >> 4)
                 | (<uint64_t>(lbo >> 4) << 16) | (<uint64_t>(sbo >> 4) << 32))
    return 0


cdef void _tile_configs(const int64_t[::1] ebits, const int64_t[::1] kmajor,
                        const int64_t[::1] width, const int64_t[::1] rows,
                        const int64_t[::1] mn, const int64_t[::1] k, const int64_t[::1] korder,
                        const int64_t[::1] inst_mn, const int64_t[::1] swizzled,
                        const uint64_t[::1] hi_bits, int64_t start, int64_t window, int64_t lbo_k,
                        int8_t[::1] err, int64_t[::1] lbo_out, int64_t[::1] sbo_out,
                        int64_t[::1] nbytes_out, uint64_t[::1] desc_out) noexcept nogil:
    # One configuration per i (every array has len(err) entries).
    cdef Py_ssize_t i, n = err.shape[0]
    for i in range(n):
        lbo_out[i] = 0
        sbo_out[i] = 0
        nbytes_out[i] = 0
        desc_out[i] = 0
        err[i] = _one_config(ebits[i], kmajor[i], width[i], rows[i], mn[i], k[i], korder[i],
                             inst_mn[i], swizzled[i], hi_bits[i], start, window, lbo_k,
                             &lbo_out[i], &sbo_out[i], &nbytes_out[i], &desc_out[i])


def tile_configs(const int64_t[::1] ebits, const int64_t[::1] kmajor, const int64_t[::1] width,
                 const int64_t[::1] rows, const int64_t[::1] mn, const int64_t[::1] k,
                 const int64_t[::1] korder, const int64_t[::1] inst_mn,
                 const int64_t[::1] swizzled, const uint64_t[::1] hi_bits, int64_t start,
                 int64_t window, int64_t lbo_k, int8_t[::1] err, int64_t[::1] lbo_out,
                 int64_t[::1] sbo_out, int64_t[::1] nbytes_out, uint64_t[::1] desc_out):
    """Geometry, LBO/SBO and first descriptor of many canonical tiles at once.

    Caller guarantees: every array has len(err) entries; ebits in {4, 8, 16, 32} with width*8
    divisible by it; mn, k >= 1; inst_mn >= 0 (0: the whole mn); hi_bits hold the layout type
    (and the sm100 version bit) already shifted into place."""
    with nogil:
        _tile_configs(ebits, kmajor, width, rows, mn, k, korder, inst_mn, swizzled, hi_bits,
                      start, window, lbo_k, err, lbo_out, sbo_out, nbytes_out, desc_out)


# -- vectorised variants (issue 14 part 4; the loops are in _simd.h) -----------------------------
cdef void* _wptr(object a) except? NULL:
    # Data pointer of a writeable contiguous array, through the buffer protocol (a.ctypes.data
    # costs microseconds). The caller keeps the array alive for as long as the pointer is used.
    cdef Py_buffer view
    cdef void* p
    PyObject_GetBuffer(a, &view, PyBUF_WRITABLE | PyBUF_ANY_CONTIGUOUS)
    p = view.buf
    PyBuffer_Release(&view)
    return p


def tile_coords_pow2(const uint32_t[::1] addr, uint32_t start, uint32_t yyy, int shift,
                     bint relative, uint32_t total, int lsh, int rsh, const uint32_t[::1] params,
                     out_mn, out_k):
    """Inverse tile map for power-of-two geometry; returns True if some address is bad.

    params = 4 shifts, 4 masks, 4 mn strides, 4 k strides (padded modes: mask 0). out_mn and
    out_k: C-contiguous int64 or int32 numpy arrays (the same dtype) of len(addr) elements.
    Caller guarantees: see fsw_tile_coords in _simd.h."""
    cdef int r = 0
    cdef int size = out_mn.itemsize
    cdef void* pm = _wptr(out_mn)
    cdef void* pk = _wptr(out_k)
    if addr.shape[0] == 0:
        return False
    with nogil:
        r = fsw_tile_coords(&addr[0], addr.shape[0], start, yyy, shift, relative, total, lsh, rsh,
                            &params[0], pm, pk, size)
    return r != 0


def pack_smem_chunked(const int64_t[::1] start, const int64_t[::1] lbo, const int64_t[::1] sbo,
                      const int64_t[::1] base, const int64_t[::1] lbo_mode,
                      const int64_t[::1] layout, const int64_t[::1] step, int layout_lsb,
                      uint64_t allowed_layouts, bint sm100, uint64_t const_bits,
                      uint64_t[::1] out):
    """pack_smem's words without its error search; returns True if some value is bad (the
    caller then calls pack_smem for the first one). Same guarantees as pack_smem."""
    cdef const int64_t* f[6]
    cdef int r = 0
    if out.shape[0] == 0:
        return False
    f[0] = &start[0]
    f[1] = &lbo[0]
    f[2] = &sbo[0]
    f[3] = &base[0]
    f[4] = &lbo_mode[0]
    f[5] = &layout[0]
    with nogil:
        r = fsw_pack_smem(f, &step[0], out.shape[0], layout_lsb, allowed_layouts, sm100,
                          const_bits, &out[0])
    return r != 0


def unpack_fields_rows(const uint64_t[::1] values, const int64_t[::1] lsb,
                       const int64_t[::1] width, const int64_t[::1] lshift,
                       const uint64_t[::1] allowed, uint64_t reserved, const int64_t[::1] rule,
                       list outs):
    """unpack_fields into one caller-owned C-contiguous row per field, each of 1, 2, 4 or 8-byte
    integers (values that do not fit are truncated: the caller picks wide enough dtypes).

    Returns -1, or the first i whose word breaks a field rule (as unpack_fields), or -2 when no
    word does but some word breaks the lbo_mode rule (see fsw_unpack_fields). Caller
    guarantees: len(outs) == len(lsb) <= 64, each row has len(values) elements, len(rule) == 5."""
    cdef Py_ssize_t nf = lsb.shape[0], n = values.shape[0], f
    cdef void* ptrs[MAX_MODES]
    cdef int64_t osize[MAX_MODES]
    cdef int r = 0
    cdef Py_ssize_t i, first = -1
    cdef uint64_t w, ok
    if n == 0:
        return -1
    for f in range(nf):
        ptrs[f] = _wptr(outs[f])
        osize[f] = outs[f].itemsize
    with nogil:
        r = fsw_unpack_fields(&values[0], n, <int>nf, &lsb[0], &width[0], &lshift[0],
                              &allowed[0], reserved, ptrs, osize, &rule[0])
        i = 0
        while (r & 1) and first < 0 and i < n:
            w = values[i]
            if w & reserved:
                first = i
            for f in range(nf):
                ok = allowed[f]
                if ok != 0 and ((ok >> field_extract(w, <int>lsb[f], <int>width[f])) & 1) == 0:
                    first = i
            i += 1
    if first < 0 and (r & 2):
        return -2
    return first


cdef void _tile_configs_lut(const int64_t[::1] combo, const int64_t[:, ::1] props,
                            const uint64_t[::1] his, const int64_t[::1] mn, const int64_t[::1] k,
                            const int64_t[::1] inst_mn, int64_t start, int64_t window,
                            int64_t lbo_k, int8_t[::1] err, int64_t[::1] lbo_out,
                            int64_t[::1] sbo_out, int64_t[::1] nbytes_out,
                            uint64_t[::1] desc_out) noexcept nogil:
    cdef Py_ssize_t i, c, n = err.shape[0]
    for i in range(n):
        c = combo[i]
        lbo_out[i] = 0
        sbo_out[i] = 0
        nbytes_out[i] = 0
        desc_out[i] = 0
        if props[c, 6] == 0:  # dtype / major / swizzle not allowed on the architecture
            err[i] = 8
            continue
        err[i] = _one_config(props[c, 0], props[c, 1], props[c, 2], props[c, 3], mn[i], k[i],
                             props[c, 4], inst_mn[i], props[c, 5], his[c], start, window, lbo_k,
                             &lbo_out[i], &sbo_out[i], &nbytes_out[i], &desc_out[i])


def tile_configs_lut(const int64_t[::1] combo, const int64_t[:, ::1] props,
                     const uint64_t[::1] his, const int64_t[::1] mn, const int64_t[::1] k,
                     const int64_t[::1] inst_mn, int64_t start, int64_t window, int64_t lbo_k,
                     int8_t[::1] err, int64_t[::1] lbo_out, int64_t[::1] sbo_out,
                     int64_t[::1] nbytes_out, uint64_t[::1] desc_out):
    """tile_configs with the categorical properties looked up per configuration in one pass.

    props[c] = (ebits, kmajor, width, rows, korder, swizzled, legal) and his[c] the layout-type
    bits of combination c; combo[i] in [0, len(props)). Illegal combinations (legal 0) get error
    8 and zeros. Caller guarantees: every per-configuration array has len(err) entries; the rest
    as tile_configs."""
    with nogil:
        _tile_configs_lut(combo, props, his, mn, k, inst_mn, start, window, lbo_k, err,
                          lbo_out, sbo_out, nbytes_out, desc_out)


def factorize_names(const uint32_t[:, ::1] chars, uint64_t[::1] found_keys,
                    int64_t[::1] found_pos, int8_t[::1] codes):
    """Codes of short ASCII names, one pass: returns how many distinct names there are, or -1.

    chars: one row of UCS-4 code points per name (a numpy U array viewed as uint32). Each row
    becomes an exact uint64 key (7 bits a character, < 2**63); codes[i] is the index of row i's
    key in order of first appearance, found_pos[c] the first row of code c. Returns -1 (codes
    undefined) if a row has more than 9 characters, a code point >= 128, or there are more
    than 16 distinct names. Caller guarantees len(codes) == chars.shape[0],
    len(found_pos) == len(found_keys) == 16."""
    cdef Py_ssize_t n = chars.shape[0], w = chars.shape[1], i, j
    cdef int nfound = 0, c, code, match
    cdef uint64_t key
    cdef uint32_t ch, hi
    cdef uint64_t table[16]
    if w > 9 or found_keys.shape[0] != 16:
        return -1
    for c in range(16):
        table[c] = <uint64_t>-1  # no key is 2**64 - 1: a free slot never matches
    with nogil:
        for i in range(n):
            key = 0
            hi = 0
            for j in range(w):
                ch = chars[i, j]
                hi |= ch
                key = (key << 7) | ch
            if hi >= 128:
                nfound = -1
                break
            # Branch-free lookup in the 16 slots (random names would mispredict a search).
            code = 0
            match = 0
            for c in range(16):
                code |= c if table[c] == key else 0
                match |= table[c] == key
            if not match:
                if nfound == 16:
                    nfound = -1
                    break
                code = nfound
                table[code] = key
                found_pos[code] = i
                nfound += 1
            codes[i] = <int8_t>code
    for c in range(16):
        found_keys[c] = table[c]
    return nfound
# -- shared-memory bank model (fastswz.banks) ---------------------------------------------------------
cdef int64_t _bank_group(const int64_t* addr, const int8_t* act, int lo, int hi, int shift,
                         int64_t gmask, bint masked) noexcept nogil:
    # One phase: aligned accesses of one width either coincide or touch disjoint words, so the
    # distinct access units (addr >> shift) in each bank group are the wavefronts that group
    # needs. Each group keeps its distinct units in a short list on the stack (no clearing:
    # cnt bounds it), so a lane costs one compare per unit already in its group.
    cdef int64_t keys[32][32]
    cdef int8_t cnt[32]
    cdef int64_t key, best = 0
    cdef int lane, g, j
    memset(cnt, 0, sizeof(cnt))
    for lane in range(lo, hi):
        if masked and not act[lane]:
            continue
        key = addr[lane] >> shift
        g = <int>(key & gmask)
        j = 0
        while j < cnt[g] and keys[g][j] != key:
            j += 1
        if j < cnt[g]:
            continue
        keys[g][j] = key
        cnt[g] += 1
        if cnt[g] > best:
            best = cnt[g]
    return best


cdef inline int64_t _bank_rows(const int64_t* addr, const int8_t* act, int lo, int hi, int shift,
                        int gbits, bint masked, uint64_t* slot, uint64_t* bad) noexcept nogil:
    # One phase without data-dependent branches (random lane addresses made the list walk of
    # _bank_group mispredict about twice per lane). When the phase's units (addr >> shift) span
    # fewer than 56 rows of 2**gbits groups, each group's slot holds the rows seen (bit r: row
    # rmin + r) in bits 0-55 and their count in bits 56-63: a lane whose row bit is new adds
    # 1 << 56. Wider spans go to _bank_group. slot (32 entries) is zero on entry and on return.
    # The same pass ORs the active addresses into bad (the caller checks sign and low bits).
    cdef int64_t key, r, rmin = INT64_MAX, rmax = INT64_MIN, best = 0, gm = (1 << gbits) - 1
    cdef uint64_t bit, old, seen = 0
    cdef int lane, g
    for lane in range(lo, hi):
        if masked and not act[lane]:
            continue
        seen |= <uint64_t>addr[lane]
        r = addr[lane] >> (shift + gbits)
        rmin = r if r < rmin else rmin
        rmax = r if r > rmax else rmax
    bad[0] |= seen
    if rmax < rmin:
        return 0          # no active lane
    if rmax - rmin >= 56:
        return _bank_group(addr, act, lo, hi, shift, gm, masked)
    for lane in range(lo, hi):
        key = addr[lane] >> shift
        g = <int>(key & gm)
        bit = (<uint64_t>(act[lane] if masked else 1)) << (((key >> gbits) - rmin) & 63)
        old = slot[g]
        slot[g] = (old | bit) + ((<uint64_t>((bit & ~old) != 0)) << 56)
    # the largest count, clearing as we go (off the lanes' dependency chain)
    for g in range(gm + 1):
        key = <int64_t>(slot[g] >> 56)
        best = key if key > best else best
        slot[g] = 0
    return best


cdef inline bint _lanes_agree(const int64_t* a, const int8_t* m, bint masked, int k) noexcept nogil:
    # every lane i with bit k clear reads the address of lane i + k, or one of them is idle
    cdef int p
    for p in range(32):
        if p & k:
            continue
        if a[p] != a[p + k] and (not masked or (m[p] and m[p + k])):
            return False
    return True


cdef int _bank_wavefronts(const int64_t[:, ::1] addr, const int8_t[:, ::1] act, int width,
                          bint is_load, bint masked, int64_t[::1] out) noexcept nogil:
    # Returns 1 when an active address is negative or not a multiple of width (the caller
    # rescans to name it; the counts are then meaningless), else 0.
    cdef Py_ssize_t i, n = addr.shape[0]
    cdef int lanes = 32 if width <= 4 else 128 // width
    cdef int shift = 2 if width <= 4 else (3 if width == 8 else 4)
    cdef int gbits = 5 if width <= 4 else (4 if width == 8 else 3)
    cdef int lo, step, p
    cdef int64_t total, low = width - 1
    cdef uint64_t bad = 0
    cdef const int64_t* a
    cdef const int8_t* m
    cdef uint64_t slot[32]
    memset(slot, 0, sizeof(slot))
    if n == 0:
        return 0
    if width <= 4:
        # one 32-lane phase: the C loop (_simd.h, a POPCNT body per ISA) marks with -1 the rare
        # instruction whose lanes span 64 or more 128-byte rows; those are counted here
        bad = fsw_bank_words32(&addr[0, 0], &act[0, 0], masked, n, &out[0])
        for i in range(n):
            if out[i] < 0:
                out[i] = _bank_group(&addr[i, 0], &act[i if masked else 0, 0], 0, 32, 2, 31,
                                     masked)
        return (bad & (<uint64_t>low | (<uint64_t>1 << 63))) != 0
    for i in range(n):
        a = &addr[i, 0]
        m = &act[i if masked else 0, 0]
        step = lanes
        if is_load and lanes < 32:
            # fastswz.banks rule 3: a load whose lanes i and i^1, or whose lanes i and i^2,
            # each read one address runs half the phases
            if _lanes_agree(a, m, masked, 1) or _lanes_agree(a, m, masked, 2):
                step = 2 * lanes
        total = 0
        lo = 0
        while lo < 32:
            total += _bank_rows(a, m, lo, lo + step, shift, gbits, masked, slot, &bad)
            lo += step
        out[i] = total
    # misaligned: low bits set in some active address; negative: the sign bit
    return (bad & (<uint64_t>low | (<uint64_t>1 << 63))) != 0


def bank_wavefronts(const int64_t[:, ::1] addr, const int8_t[:, ::1] act, int width, bint is_load,
                    bint masked, int64_t[::1] out):
    """Shared-memory wavefronts of n warp instructions (rows of 32 lane byte addresses).

    Caller guarantees: addr is (n, 32); act is (n, 32) when masked, else at least (1, 32) and
    ignored (every lane active); width in {1, 2, 4, 8, 16}; len(out) == n. Returns True when an
    active address is negative or misaligned (out is then meaningless): the caller checks."""
    cdef int bad
    with nogil:
        bad = _bank_wavefronts(addr, act, width, is_load, masked, out)
    return bool(bad)


# -- linear layouts over GF(2) (fastswz.linear) ---------------------------------------------------
cdef void _linear_apply(const int64_t[::1] inputs, const int64_t[::1] basis,
                        int64_t[::1] out) noexcept nogil:
    # Branchless: a mask of all ones selects basis[j] when bit j is set (a data-dependent
    # branch per bit mispredicts half the time).
    cdef Py_ssize_t i, j, nb = basis.shape[0]
    cdef int64_t x, y
    for i in range(inputs.shape[0]):
        x = inputs[i]
        y = 0
        for j in range(nb):
            y ^= basis[j] & -((x >> j) & 1)
        out[i] = y


def linear_apply(const int64_t[::1] inputs, const int64_t[::1] basis, int64_t[::1] out):
    """out[i] = XOR of basis[j] over the set bits j of inputs[i].

    Caller guarantees: 0 <= inputs[i] < 2**len(basis), len(out) == len(inputs)."""
    with nogil:
        _linear_apply(inputs, basis, out)


cdef void _linear_table(const int64_t[::1] basis, int64_t[::1] out) noexcept nogil:
    # Doubling: the image of [2**j, 2**(j+1)) is the image of [0, 2**j) XOR basis[j].
    cdef Py_ssize_t i, j, half = 1
    out[0] = 0
    for j in range(basis.shape[0]):
        for i in range(half):
            out[half + i] = out[i] ^ basis[j]
        half *= 2


def linear_table(const int64_t[::1] basis, int64_t[::1] out):
    """out[x] = XOR of basis[j] over the set bits j of x, for every x in [0, 2**len(basis)).

    Caller guarantees: len(out) == 2**len(basis) >= 1."""
    with nogil:
        _linear_table(basis, out)


# -- thread-value layouts (fastswz.tv_layout) -----------------------------------------------------
cdef void _tv_coords(const int64_t[::1] index, int64_t pitch, bint row_major, int64_t[::1] out_a,
                     int64_t[::1] out_b) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t x
    for i in range(index.shape[0]):
        x = index[i]
        if row_major:
            out_a[i] = x // pitch
            out_b[i] = x % pitch
        else:
            out_a[i] = x % pitch
            out_b[i] = x // pitch


def tv_coords(const int64_t[::1] index, int64_t pitch, bint row_major, int64_t[::1] out_a,
              int64_t[::1] out_b):
    """Split flat coordinate indices into (a, b): ``a + pitch*b`` (column-major) or
    ``a*pitch + b`` (row-major).

    Caller guarantees: index[i] >= 0, pitch >= 1, out_a and out_b as long as index."""
    with nogil:
        _tv_coords(index, pitch, row_major, out_a, out_b)


cdef void _tv_inverse(const int64_t[::1] index, int64_t threads, int64_t[::1] out_thread,
                      int64_t[::1] out_value) noexcept nogil:
    # Backwards, so that the first (thread, value) in CuTe's colex order wins a shared coordinate.
    cdef Py_ssize_t i
    cdef int64_t x
    for i in range(index.shape[0] - 1, -1, -1):
        x = index[i]
        out_thread[x] = i % threads
        out_value[x] = i // threads


def tv_inverse(const int64_t[::1] index, int64_t threads, int64_t[::1] out_thread,
               int64_t[::1] out_value):
    """out_thread[index[i]], out_value[index[i]] = i % threads, i // threads (first i wins).

    Caller guarantees: 0 <= index[i] < len(out_thread) == len(out_value), threads >= 1; the
    caller fills the outputs (e.g. with -1) first."""
    with nogil:
        _tv_inverse(index, threads, out_thread, out_value)


# -- GEMM plans (fastswz.plan) -------------------------------------------------------------------
# Row indices of plan_gemm's int32 output matrix: plan.PLAN_FIELDS, in that order; an operand's ten
# fields start at PL_A / PL_B in plan._OPERAND_FIELDS order.
cdef enum:
    PL_REASON = 0
    PL_SMEM = 1
    PL_MMA_M = 2
    PL_MMA_N = 3
    PL_MMA_K = 4
    PL_MMA_PER = 5
    PL_WG = 6
    PL_EPI_SW = 7
    PL_EPI_BYTES = 8
    PL_EPI_OFF = 9
    PL_BAR_OFF = 10
    PL_A = 11
    PL_B = 21
    PL_NFIELDS = 31
    PL_BLOCK = 128
    PL_DT = 6  # columns of plan._DT_PROPS: bits, kind, format, sm90, mn-major sm90, log2 bytes
    PL_SW = 6  # columns of plan._SW_PROPS: row bytes, rows, sm90 type, sm100 type, log2 bytes, log2 rows


cdef inline int64_t _round_up(int64_t v, int64_t a) noexcept nogil:
    # a is a power of two (every alignment here is)
    return (v + a - 1) & ~(a - 1)


cdef int _plan_operand(int arch, const int32_t* dtp, int dt, int kmajor, int swc,
                       int64_t mn, int64_t k, int64_t inst_mn, int64_t inst_k,
                       const int32_t* swp, int64_t* f) noexcept nogil:
    # One operand's OperandTile(dtype, major, swizzle, mn, k, order = "mn" if K-major else "k")
    # in closed form, plus the TMA box that writes it. dtp / swp: rows of plan._DT_PROPS /
    # plan._SW_PROPS (PL_DT / PL_SW columns). f gets the ten operand fields; the return value is
    # 0 or 1 + the index of the failed check in plan._OPERAND_ERRORS. Every atom extent is a
    # power of two, so the checks are masks and shifts (64-bit division costs tens of cycles).
    cdef const int32_t* dp = dtp + PL_DT * dt
    cdef const int32_t* sp
    cdef int64_t eb = dp[0], le = dp[5], ext, w, rows, lamn, lak, amn, ak, atom, smn, sk
    cdef int64_t lbo, sbo, outer_ext, inner_ext, unit, inner, nb, bo, cm, d
    if swc == 0:  # auto: the widest row that the contiguous extent in bytes fills
        ext = (k if kmajor else mn) << le
        if arch == 1 and not kmajor and eb == 32:
            swc = 5
        elif ext & 127 == 0:
            swc = 4
        elif ext & 63 == 0:
            swc = 3
        elif ext & 31 == 0:
            swc = 2
        else:
            swc = 1
    f[0] = swc
    if arch == 0:
        if swc == 5 or not dp[3] or (not kmajor and not dp[4]):
            return 1
    else:
        if (swc == 5 and kmajor) or (not kmajor and (eb == 32) != (swc == 5)):
            return 1
    sp = swp + PL_SW * swc
    w = sp[0]
    rows = sp[1]
    if kmajor:
        lamn = 3
        lak = sp[4] - le
    else:
        lamn = sp[4] - le
        lak = sp[5]
    amn = <int64_t>1 << lamn
    ak = <int64_t>1 << lak
    if mn & (amn - 1):
        return 2
    if k & (ak - 1):
        return 3
    # inst_mn is mn itself or a power of two (the caller's guarantee): masks, no division.
    if (inst_mn != mn and mn & (inst_mn - 1)) or inst_mn & ((8 if kmajor else amn) - 1):
        return 4
    atom = amn << lak
    if kmajor:
        smn = atom
        sk = atom * (mn >> lamn)
        sbo = smn << le if inst_mn > 8 else 0
        lbo = 16 if swc != 1 else sk << le
        cm = 1
    else:
        smn = atom * (k >> lak)
        sk = atom
        lbo = smn << le if inst_mn > amn else 0
        sbo = sk << le if inst_k > ak else 0
        if swc == 1:
            lbo, sbo = sbo, lbo
        cm = amn
    if lbo >= (1 << 18) or sbo >= (1 << 18):
        return 5
    # TMA box: inner = one swizzle row of elements, outer cut into nb equal boxes of whole atoms
    # of at most 256 rows (cuTensorMapEncodeTiled: every boxDim <= 256).
    inner = ak if kmajor else amn
    inner_ext = k if kmajor else mn
    outer_ext = mn if kmajor else k
    unit = amn if kmajor else ak
    if (inner << le) & 15 or (inner << le) != w or inner > 256:
        return 6
    nb = 1
    bo = outer_ext
    while bo > 256 or bo & (unit - 1):  # whole atoms already checked: only extents > 256 loop
        nb += 1
        if nb > outer_ext:
            return 6
        if outer_ext % nb == 0:
            bo = outer_ext // nb
    f[1] = lbo
    f[2] = sbo
    f[3] = (mn * k) << le
    f[4] = (f[3] + w * rows - 1) & ~(w * rows - 1)
    f[6] = inner
    f[7] = bo
    f[8] = (inner_ext >> (lak if kmajor else lamn)) * nb
    # k-step increment (descriptor units). Step j starts at (j*inst_k // ak) * sk + (j*inst_k %
    # ak) * cm elements: constant when every step spans whole atoms, or stays inside the one K
    # atom there is, or when the next K atom directly follows the row (sk == ak * cm, MN-major).
    d = -1
    if k >= 2 * inst_k:
        if inst_k & (ak - 1) == 0:
            d = (inst_k >> lak) * sk << le >> 4
        elif k == ak or sk == ak * cm:
            d = inst_k * cm << le >> 4
    f[9] = d
    return 0


cdef inline uint64_t _plan_desc(int arch, int lt, int64_t start, int64_t lbo,
                                int64_t sbo) noexcept nogil:
    # wgmma / tcgen05 smem descriptor (PTX 9.7.15.5.1.2.2, 9.7.16.4.1): sm100 adds version bit 46.
    cdef uint64_t hi = (<uint64_t>lt << 62) if arch == 0 else ((<uint64_t>lt << 61) | (<uint64_t>1 << 46))
    return (hi | <uint64_t>((start & 0x3FFFF) >> 4) | (<uint64_t>(lbo >> 4) << 16)
            | (<uint64_t>(sbo >> 4) << 32))


cdef int _plan_one(const int64_t* v, const int32_t* dtp, const int32_t* swp, int64_t smem_base,
                   int64_t* g, uint64_t* d) noexcept nogil:
    # One configuration: v = the 17 inputs (plan._INPUTS order); fills g (PL_* fields, zeroed by
    # the caller) and d (two descriptors); returns the reason code.
    cdef int arch = <int>v[0], cg = <int>v[1], adt = <int>v[2], bdt = <int>v[3]
    cdef int edt = <int>v[12], esw = <int>v[13], r
    cdef int64_t bm = v[8], bn = v[9], bk = v[10], st = v[11], mm, ik, eb, rowb, ew
    cdef int64_t ecols = v[15] if v[15] else v[9]
    cdef int64_t ebytes = 0, ealign = 1, a_ext, b_ext, a_inst, b_inst, b_off, e_off, bar, total
    cdef int64_t* fa = g + PL_A
    cdef int64_t* fb = g + PL_B
    if arch == 0 and cg != 1:
        return 1
    if dtp[PL_DT * adt + 1] != dtp[PL_DT * bdt + 1] or (dtp[PL_DT * adt + 1] == 0 and dtp[PL_DT * adt + 2] != dtp[PL_DT * bdt + 2]):
        return 2
    eb = dtp[PL_DT * adt]
    ik = <int64_t>32 >> dtp[PL_DT * adt + 5]
    if arch == 0:
        if bm & 63:
            return 3
        mm = 64
        if bn > 256 or bn & 7 or (dtp[PL_DT * adt + 1] == 3 and bn > 32 and bn & 15):
            return 4
        a_ext = bm
        b_ext = bn
        a_inst = 64
        b_inst = bn
    else:
        if cg == 1:
            mm = 64 if bm == 64 else (128 if bm & 127 == 0 else 0)
        else:
            mm = 128 if bm == 128 else (256 if bm & 255 == 0 else 0)
        if mm == 0:
            return 3
        if bn > 256 or bn & 7 or ((mm >= 128 or cg == 2) and (bn & 15 or bn < 16)):
            return 4
        a_ext = bm >> (cg - 1)
        b_ext = bn >> (cg - 1)
        a_inst = mm >> (cg - 1)
        b_inst = b_ext
    if bk & (ik - 1):
        return 5
    r = _plan_operand(arch, dtp, adt, v[4] == 0, <int>v[6], a_ext, bk, a_inst, ik, swp, fa)
    if r:
        fa[0] = 0
        return 5 + r
    r = _plan_operand(arch, dtp, bdt, v[5] == 0, <int>v[7], b_ext, bk, b_inst, ik, swp, fb)
    if r:
        fb[0] = 0
        return 11 + r
    if edt >= 0:
        if bn % ecols:
            return 18
        rowb = ecols << dtp[PL_DT * edt + 5]
        if esw == 0:
            esw = 4 if rowb & 127 == 0 else (3 if rowb & 63 == 0 else (2 if rowb & 31 == 0 else 1))
        ew = swp[PL_SW * esw]
        if rowb & (ew - 1):
            return 18
        ebytes = (bm >> (cg - 1)) * rowb
        ealign = ew * 8
    else:
        esw = 0
    # A stages | B stages | epilogue | mbarriers, each on its own alignment (see plan.py).
    b_off = _round_up(st * fa[4], swp[PL_SW * fb[0]] * swp[PL_SW * fb[0] + 1])
    e_off = _round_up(b_off + st * fb[4], ealign)
    # epilogue_stages tiles back to back (each a whole number of swizzle atoms: rows x rowb)
    bar = _round_up(e_off + ebytes * v[16], 8)
    total = bar + 16 * st
    fa[5] = 0
    fb[5] = b_off
    g[PL_SMEM] = total
    g[PL_MMA_M] = mm
    g[PL_MMA_N] = bn
    g[PL_MMA_K] = ik
    if arch == 0:
        g[PL_MMA_PER] = (bm >> 6) * (bk >> (5 - dtp[PL_DT * adt + 5]))
        g[PL_WG] = bm >> 6
    else:
        g[PL_MMA_PER] = (bm >> (6 if mm == 64 else (7 if mm == 128 else 8))) * (bk >> (5 - dtp[PL_DT * adt + 5]))
    g[PL_EPI_SW] = esw
    g[PL_EPI_BYTES] = ebytes
    g[PL_EPI_OFF] = e_off if edt >= 0 else 0
    g[PL_BAR_OFF] = bar
    d[0] = _plan_desc(arch, swp[PL_SW * fa[0] + 2 + arch], smem_base, fa[1], fa[2])
    d[1] = _plan_desc(arch, swp[PL_SW * fb[0] + 2 + arch], smem_base + b_off, fb[1], fb[2])
    if total > v[14]:
        return 19
    if smem_base + total > (1 << 18):
        return 20
    return 0


cdef void _plan_gemm(const int32_t[:, ::1] inp, const int32_t[:, ::1] dtp,
                     const int32_t[:, ::1] swp, int64_t smem_base, int32_t[:, ::1] out,
                     uint64_t[:, ::1] desc) noexcept nogil:
    # Blocks of PL_BLOCK configurations: gather the inputs, plan each, scatter the fields one
    # row at a time. Touching all 46 rows per configuration would run 46 memory streams at once,
    # more than the prefetchers follow; per block each row is one contiguous run.
    cdef Py_ssize_t i0, i, b, nb, n = inp.shape[1], nin = inp.shape[0], j
    cdef int64_t v[PL_BLOCK][17]
    cdef int64_t g[PL_BLOCK][PL_NFIELDS]
    cdef uint64_t d[PL_BLOCK][2]
    cdef int r
    cdef const int32_t* dp = &dtp[0, 0]
    cdef const int32_t* sp = &swp[0, 0]
    i0 = 0
    while i0 < n:
        nb = n - i0 if n - i0 < PL_BLOCK else PL_BLOCK
        for j in range(nin):
            for b in range(nb):
                v[b][j] = inp[j, i0 + b]
        for b in range(nb):
            for j in range(PL_NFIELDS):
                g[b][j] = 0
            d[b][0] = 0
            d[b][1] = 0
            r = _plan_one(v[b], dp, sp, smem_base, g[b], d[b])
            if r != 0 and r < 19:  # illegal: only the reason (over budget / window keep the fields)
                for j in range(PL_NFIELDS):
                    g[b][j] = 0
                d[b][0] = 0
                d[b][1] = 0
            g[b][PL_REASON] = r
        for j in range(PL_NFIELDS):
            for b in range(nb):
                out[j, i0 + b] = <int32_t>g[b][j]
        for b in range(nb):
            desc[0, i0 + b] = d[b][0]
            desc[1, i0 + b] = d[b][1]
        i0 += nb


def plan_gemm(const int32_t[:, ::1] inp, const int32_t[:, ::1] dtp, const int32_t[:, ::1] swp,
              int64_t smem_base, int32_t[:, ::1] out, uint64_t[:, ::1] desc):
    """Closed-form GEMM plans, one configuration per column of ``inp`` (see fastswz.plan).

    Caller guarantees: inp is (17, n) with rows in plan._INPUTS order and codes in range; dtp and
    swp are plan._DT_PROPS (k, 6) / plan._SW_PROPS (6, 6); out is (31, n); desc is (2, n);
    0 <= smem_base < 2**18."""
    with nogil:
        _plan_gemm(inp, dtp, swp, smem_base, out, desc)
