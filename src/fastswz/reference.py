"""Pure-numpy twins of every array function in :mod:`fastswz` (the test oracle).

Each function has the signature of its fast counterpart in :mod:`fastswz.bulk` and raises the
same errors (the argument checks are shared), but computes its answer a different way, written
to be read against CuTe rather than to be fast:

* addresses come from evaluating the tile's CuTe layout (``tile_to_shape`` of the atom) by
  coordinate and applying the byte swizzle to the address (``cute/swizzle.hpp``,
  ``cute/pointer_swizzle.hpp``);
* LBO/SBO come from CuTe's own procedure (``make_gmma_desc`` in
  ``cute/atom/mma_traits_sm90_gmma.hpp``): recast the MMA sub-tile to 128-bit units,
  ``logical_divide`` it by the canonical core-matrix tile and read the strides;
* the inverse map sorts the forward map;
* descriptor fields are shifted and or-ed with numpy (``cute/arch/mma_sm90_desc.hpp``,
  ``cute/arch/mma_sm100_desc.hpp``).

Benchmarks use these as the baseline; tests hold the fast path equal to them.
"""

from __future__ import annotations

import numpy as np

from .algebra import composition, logical_divide, upcast
from .banks import accumulator_stores, bank_args, epilogue_tile, ideal_wavefronts, stmatrix_rows
from .bulk import (LAYOUT_CODES, SMEM_LIMITS, _SMEM_NAMES, check_lbo_mode_rules, config_args, coords_args,
                   coords_error, coords_out_arg, descriptor_plan, domain_size, flat_layout, indices_arg,
                   int_array, out_arg, outer_check, smem_field_error, smem_pack_args, threads_arg,
                   unpack_args, unpack_dtypes, unpack_error)
from .descriptor import SM90_FIELDS, SM90_RESERVED, SM100_FIELDS, SM100_RESERVED
from .dtypes import DTYPES, dtype as lookup
from .errors import BankError, DescriptorFieldError, FastswzTypeError, LayoutError, TileError
from .int_tuple import flatten
from .layout import Layout
from .linear import linear_args
from .modes import SwizzleMode
from .plan import (EPILOGUE_BANK_FIELDS, EPILOGUE_SWIZZLES, GemmPlans, PLAN_FIELDS, _DTYPES,
                   _OPERAND_FIELDS, _SWIZZLES, check_budget, plan_args)
from .rules import _check_legal, _choice, check_stride_fields
from .swizzle import Swizzle
from .tile import OperandTile

__all__ = ["evaluate", "swizzle_offsets", "tile_addresses", "tile_coords", "tile_descriptors",
           "pack_smem_descriptors", "unpack_smem_descriptors", "tile_configs", "cute_strides",
           "bank_wavefronts", "linear_evaluate", "plan_gemm", "tv_coords", "tv_inverse"]


def _swz(x, yyy, shift):
    if yyy == 0:
        return x
    return x ^ ((x & yyy) >> shift if shift >= 0 else (x & yyy) << -shift)


def _crd_offsets(coord, shape, stride):
    """Vectorised CuTe crd2idx of one mode: a flat coordinate array into a nested mode."""
    shapes, strides = flatten(shape), flatten(stride)
    shapes = (shapes,) if isinstance(shapes, int) else shapes
    strides = (strides,) if isinstance(strides, int) else strides
    out = np.zeros(coord.shape, dtype=np.int64)
    q = coord.astype(np.int64)
    for s, d in zip(shapes, strides):
        out += (q % s) * d
        q = q // s
    return out


def evaluate(layout, indices=None):
    """Twin of :func:`fastswz.evaluate`: idx2crd/crd2idx with numpy divmods."""
    shape, stride, offset, yyy, shift, outer = flat_layout(layout)
    n = domain_size(layout, shape, indices)
    idx = np.arange(n, dtype=np.int64) if indices is None else indices_arg(indices, n).astype(np.int64)
    out = np.asarray(offset + _crd_offsets(idx, shape, stride), dtype=np.int64)
    out = np.asarray(_swz(out, yyy, shift), dtype=np.int64)
    if outer is not None:
        outer_check(outer, out)
        out = evaluate(outer, out)
    return out


def swizzle_offsets(swizzle, offsets):
    """Twin of :func:`fastswz.swizzle_offsets`."""
    if not isinstance(swizzle, Swizzle):
        raise FastswzTypeError(f"swizzle must be a Swizzle, not {type(swizzle).__name__}")
    arr = int_array("offsets", offsets).astype(np.int64)
    return np.asarray(_swz(arr, swizzle.yyy_msk, swizzle.shift), dtype=np.int64)


def _byte_swizzle(tile):
    b, m, s = tile.swizzle.swizzle_bits
    return ((1 << b) - 1) << (m + s), s


def _unswizzled_offsets(tile):
    """E * L(mn, k) for every element, L the tile's CuTe layout (tile_to_shape of the atom)."""
    inner = tile.layout.inner
    f = _crd_offsets(np.arange(tile.mn), inner.shape[0], inner.stride[0])
    g = _crd_offsets(np.arange(tile.k), inner.shape[1], inner.stride[1])
    return ((f[:, None] + g[None, :]) * tile.element_bits) >> 3


def tile_addresses(tile, start=0, swizzle_base="absolute", threads=None, out=None):
    """Twin of :func:`fastswz.tile_addresses` (``threads`` is checked, then ignored)."""
    threads_arg(threads)
    start = tile.check_start(start, swizzle_base, tile.nbytes, 1 << 32)
    if out is not None:
        out_arg(out, (tile.mn, tile.k), np.uint32)
    yyy, s = _byte_swizzle(tile)
    off = _unswizzled_offsets(tile)
    if swizzle_base.strip().lower() == "relative":
        res = (start + _swz(off, yyy, s)).astype(np.uint32)
    else:
        res = _swz(start + off, yyy, s).astype(np.uint32)
    if out is None:
        return res
    out[...] = res
    return out


def tile_coords(tile, addresses, start=0, swizzle_base="absolute", out=None):
    """Twin of :func:`fastswz.tile_coords`: look addresses up in the sorted forward map."""
    start = tile.check_start(start, swizzle_base, tile.nbytes, 1 << 32)
    arr = coords_args(addresses)
    if out is not None:
        coords_out_arg(out, arr.shape)
    fwd = tile_addresses(tile, start, swizzle_base).astype(np.int64).ravel()
    order = np.argsort(fwd, kind="stable")
    sorted_fwd = fwd[order]
    flat = arr.ravel().astype(np.int64)
    pos = np.clip(np.searchsorted(sorted_fwd, flat), 0, sorted_fwd.size - 1)
    ok = sorted_fwd[pos] == flat
    if not ok.all():
        raise coords_error(tile, flat, int(np.flatnonzero(~ok)[0]), start)
    hit = order[pos]
    res = (hit // tile.k).reshape(arr.shape), (hit % tile.k).reshape(arr.shape)
    if out is None:
        return res
    out[0][...] = res[0]
    out[1][...] = res[1]
    return out


def cute_strides(tile, inst_mn, lbo_policy="cutlass"):
    """(LBO, SBO) in bytes by CuTe's make_gmma_desc/make_umma_desc procedure.

    Recast the first MMA sub-tile to u128 units, ``logical_divide`` it by the canonical tile
    (K-major (8, 2); MN-major (W, 8), or (8, 4) for 128B_base32B) and read the strides; a
    rest mode of extent 1 has stride 0 after the divide, which is what CuTe encodes.
    """
    mode = tile.swizzle
    sub = composition(tile.layout.inner, (Layout(inst_mn, 1), Layout(tile.inst_k, 1)))
    u128 = upcast(sub, 128 // tile.element_bits)
    if tile.major == "K":
        chunks = tile.inst_k * tile.element_bits // 128  # 2, or 3 for 48-byte K = 96 blocks
        canon = logical_divide(u128, (Layout(8, 1), Layout(chunks, 1)))
        (w, sbo), (k_chunk, _) = _pairs(canon)
        _expect(tile, "stride<0,0>", w, mode.byte_width // 16)
        if not mode.is_swizzled:
            return k_chunk * 16, sbo * 16  # LBO: the two K core matrices, stride<1,0>
        _expect(tile, "stride<1,0>", k_chunk, 1)
        return (16 if lbo_policy == "cutlass" else 0), sbo * 16
    w = 8 if mode.atomicity == 32 else mode.byte_width // 16
    canon = logical_divide(u128, (Layout(w, 1), Layout(mode.atom_rows, 1)))
    (one, mn_step), (wk, k_step) = _pairs(canon)
    if mode.is_swizzled:
        _expect(tile, "stride<0,0>", one, 1)
        _expect(tile, "stride<1,0>", wk, w)
        return mn_step * 16, k_step * 16
    _expect(tile, "stride<1,0>", wk, 1 if w == 1 else w)
    return k_step * 16, mn_step * 16


def _pairs(canon):
    out = []
    for m in range(2):
        sh, st = canon.shape[m], canon.stride[m]
        first = st[0] if isinstance(st, tuple) else st
        rest = st[1] if isinstance(st, tuple) and len(st) > 1 else 0
        if isinstance(sh, tuple) and len(sh) > 1 and sh[1] == 1:
            rest = 0
        if isinstance(first, tuple) or isinstance(rest, tuple):
            rest = flatten(rest)[0] if isinstance(rest, tuple) else rest
            first = flatten(first)[0] if isinstance(first, tuple) else first
        out.append((first, rest))
    return out


def _expect(tile, what, got, want):
    if got != want:
        raise LayoutError(f"not a canonical {tile.major}-major {tile.swizzle} layout: expected {what} == {want}, got {got}")


def tile_descriptors(tile, start=0, inst_mn=None, swizzle_base="absolute", lbo_policy="cutlass",
                     stages=None, stage_stride=None):
    """Twin of :func:`fastswz.tile_descriptors`."""
    inst_mn, _lbo, _sbo, starts, staged, relative = descriptor_plan(
        tile, start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride)
    lbo, sbo = cute_strides(tile, inst_mn, lbo_policy)
    inner = tile.layout.inner
    bits = tile.element_bits
    mn0 = np.arange(0, tile.mn, inst_mn)
    k0 = np.arange(0, tile.k, tile.inst_k)
    row = _crd_offsets(mn0, inner.shape[0], inner.stride[0])
    sub = ((row[:, None] + _crd_offsets(k0, inner.shape[1], inner.stride[1])[None, :]) * bits) >> 3
    starts = np.array(starts, dtype=np.int64)[:, None, None]
    addr = starts + sub[None]
    base = ((starts >> 7) & 7) if relative else np.zeros_like(starts)
    lbo = np.full(addr.shape, lbo, dtype=np.int64)
    lbo_mode = np.zeros(addr.shape, dtype=np.int64)
    if tile.inst_k * bits == 384 and tile.swizzle.byte_width == 128 and tile.swizzle.is_swizzled:
        # PTX 9.7.16.3.1.2: a 48-byte K block crossing a 128-byte row continues at the first k
        # whose byte offset is a row start; that chunk's absolute address goes in the LBO field.
        kk = np.arange(tile.k)
        kbits = _crd_offsets(kk, inner.shape[1], inner.stride[1]) * bits
        kbytes = kbits >> 3
        for j, k in enumerate(k0):
            cross = [c for c in range(k + 1, k + tile.inst_k) if kbits[c] % 1024 == 0]
            if not cross:
                continue
            for s in range(starts.shape[0]):  # the same checks, so the same errors, as the core
                tile.k_split(0, int(k), int(starts[s, 0, 0]), int(base[s, 0, 0]))
            lbo[:, :, j] = starts[:, :, 0] + ((row[None, :] * bits) >> 3) + kbytes[cross[0]]
            lbo_mode[:, :, j] = 1
    code = tile.swizzle.layout_type(tile.desc_arch)
    fields = {"start_address": addr, "leading_byte_offset": lbo, "stride_byte_offset": sbo,
              "base_offset": base, "layout_type": code, "lbo_mode": lbo_mode}
    if tile.desc_arch == "sm100":
        fields["version"] = 1
    out = _pack(SM90_FIELDS if tile.desc_arch == "sm90" else SM100_FIELDS, fields)
    out = np.broadcast_to(out, addr.shape).copy()
    return out if staged else out[0]


def _pack(spec, fields):
    out = np.uint64(0)
    for name, lsb, width, lshift in spec:
        v = np.asarray(fields[name], dtype=np.int64)
        enc = ((v & ((1 << 18) - 1)) >> lshift) if lshift else v
        out = out | (enc.astype(np.uint64) << np.uint64(lsb))
    return out


def pack_smem_descriptors(arch, start_address, leading_byte_offset, stride_byte_offset,
                          base_offset=0, layout_type="none", lbo_mode=0):
    """Twin of :func:`fastswz.pack_smem_descriptors`."""
    fields, shape = smem_pack_args(arch, dict(zip(_SMEM_NAMES, (
        start_address, leading_byte_offset, stride_byte_offset, base_offset, lbo_mode, layout_type))))
    full = {k: np.broadcast_to(v, shape).ravel() for k, v in fields.items()}
    bad = []
    for name in _SMEM_NAMES:
        v = full[name]
        if name == "layout_type":
            bad.append(~np.isin(v, LAYOUT_CODES[arch]))
        else:
            lo, hi, align = SMEM_LIMITS[name]
            bad.append((v < lo) | (v > hi) | (v % align != 0))
    combo = (full["lbo_mode"] == 1) & ((full["layout_type"] != 2) | (full["base_offset"] != 0))
    bad.append(combo if arch == "sm100" else np.zeros_like(combo))
    badm = np.stack(bad) if full["start_address"].size else np.zeros((7, 0), bool)
    if badm.any():
        i = int(np.flatnonzero(badm.any(axis=0))[0])
        f = int(np.flatnonzero(badm[:, i])[0])
        name = "lbo_mode_combination" if f == 6 else _SMEM_NAMES[f]
        raise smem_field_error(arch, name, i, int(full[_SMEM_NAMES[min(f, 5)]][i]))
    full["version"] = 1
    spec = SM90_FIELDS if arch == "sm90" else SM100_FIELDS
    out = _pack(spec, full)
    return np.broadcast_to(out, (int(np.prod(shape, dtype=np.int64)),)).reshape(shape).astype(np.uint64)


def unpack_smem_descriptors(arch, values, strict=True, compact=False):
    """Twin of :func:`fastswz.unpack_smem_descriptors`."""
    v = unpack_args(arch, values).astype(np.uint64)
    spec = SM90_FIELDS if arch == "sm90" else SM100_FIELDS
    dtypes = unpack_dtypes(spec, compact)
    out = {name: (((v >> np.uint64(lsb)) & np.uint64((1 << width) - 1)).astype(np.int64) << lshift)
           for name, lsb, width, lshift in spec}
    if strict:
        bad = (v & np.uint64(SM90_RESERVED if arch == "sm90" else SM100_RESERVED)) != 0
        bad |= ~np.isin(out["layout_type"], LAYOUT_CODES[arch])
        if arch == "sm100":
            bad |= out["version"] != 1
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise unpack_error(arch, int(v.ravel()[i]), i)
        if arch == "sm100":
            check_lbo_mode_rules(out, v.ravel())
    return {name: np.asarray(a).astype(dt, copy=False) for (name, a), dt in zip(out.items(), dtypes)}


def tile_configs(dtype, major, swizzle, mn, k, order="mn", arch="sm90", inst_mn=None, start=0,
                 lbo_policy="cutlass"):
    """Twin of :func:`fastswz.tile_configs`: one :class:`OperandTile` per configuration."""
    cats, nums, shape, start = config_args(dtype, major, swizzle, mn, k, order, arch, inst_mn,
                                           start, lbo_policy)
    full = {n: np.broadcast_to(a, shape).ravel() for n, a in {**cats, **nums}.items()}
    size = int(np.prod(shape, dtype=np.int64))
    res = {"error": np.zeros(size, np.int8), "lbo_bytes": np.zeros(size, np.int64),
           "sbo_bytes": np.zeros(size, np.int64), "nbytes": np.zeros(size, np.int64),
           "descriptor": np.zeros(size, np.uint64)}
    for i in range(size):
        d, m, s, o, a = (str(full[n][i]) for n in ("dtype", "major", "swizzle", "order", "arch"))
        cmn, ck, cinst = int(full["mn"][i]), int(full["k"][i]), int(full["inst_mn"][i]) or None
        names = (lookup(d), _choice("major", m, ("K", "MN")), SwizzleMode.parse(s),
                 _choice("arch", a, ("sm90", "sm100", "sm103")))
        _choice("order", o, ("mn", "k"))
        try:
            _check_legal(*names)
        except TileError:
            res["error"][i] = 8
            continue
        # The same checks in the order the constructor and descriptor() apply them.
        atom = OperandTile(d, m, s, 1024, 1024, o, a)  # a probe: every atom divides 1024
        amn, ak = atom.atom_shape
        code = (1 if cmn % amn else 2 if ck % ak else 3 if ck % atom.inst_k else
                4 if cinst is not None and (cinst > cmn or cmn % cinst) else 0)
        if code:
            res["error"][i] = code
            continue
        tile = OperandTile(d, m, s, cmn, ck, o, a)
        try:
            tile.check_inst_mn(cinst)
        except TileError:
            res["error"][i] = 5
            continue
        try:
            lbo, sbo = tile.strides(cinst, lbo_policy)
            check_stride_fields(lbo, sbo)
        except DescriptorFieldError:
            res["error"][i] = 6
            continue
        res["lbo_bytes"][i], res["sbo_bytes"][i], res["nbytes"][i] = lbo, sbo, tile.nbytes
        try:
            res["descriptor"][i] = int(tile.descriptor(0, 0, start, cinst, "absolute", lbo_policy))
        except TileError:
            res["error"][i] = 7
    return {n: v.reshape(shape) for n, v in res.items()}



# -- shared-memory bank model (twin of fastswz.banks) ------------------------------------------------
def _group_counts(words, live, lanes):
    """Per group of ``lanes`` consecutive lanes: the most distinct 4-byte words any one bank
    holds (0 for a group with no live lane). words: (n, 32, per) int64, live: (n, 32) bool."""
    n, _, per = words.shape
    g = 32 // lanes
    w = np.where(live[:, :, None], words, -1).reshape(n * g, lanes * per)
    w = np.sort(w, axis=-1)
    first = np.ones(w.shape, dtype=bool)
    first[:, 1:] = w[:, 1:] != w[:, :-1]
    distinct = first & (w >= 0)
    slot = np.arange(n * g)[:, None] * 32 + (w & 31)
    counts = np.bincount(slot[distinct], minlength=n * g * 32)
    return counts.reshape(n, g, 32).max(axis=-1)


def bank_wavefronts(addresses, access_bytes, active=None, op="ld"):
    """Twin of :func:`fastswz.bank_wavefronts`: for every phase, sort its lanes' 4-byte words,
    keep the distinct ones, count them per bank with ``bincount`` and take the largest count;
    a load whose lanes i and i^1 (or i and i^2) read one address is served at half the phases
    (the rules in :mod:`fastswz.banks`).

    >>> int(bank_wavefronts(np.arange(32) * 128, 4))      # 32 lanes, one bank
    32
    """
    addr, act, width, is_load, shape = bank_args(addresses, access_bytes, active, op)
    act = np.ones(addr.shape, dtype=bool) if act is None else act.astype(bool)
    n = addr.shape[0]
    per = max(1, width // 4)
    words = (addr >> 2)[:, :, None] + np.arange(per)
    lanes = {1: 32, 2: 32, 4: 32, 8: 16, 16: 8}[width]
    total = _group_counts(words, act, lanes).reshape(n, -1, 2 if lanes < 32 else 1).sum(axis=-1)
    if is_load and lanes < 32:
        # lanes i and i^k agree when their active lanes read one address (an idle lane agrees);
        # the load merges its phases when they all agree for k = 1 or for k = 2
        merge = np.zeros(n, dtype=bool)
        for k in (1, 2):
            i = np.flatnonzero((np.arange(32) & k) == 0)
            j = i + k
            agree = ~(act[:, i] & act[:, j]) | (addr[:, i] == addr[:, j])
            merge |= agree.all(axis=-1)
        merged = _group_counts(words, act, 2 * lanes)
        total = np.where(merge[:, None], merged, total)
    return total.sum(axis=-1).astype(np.int64).reshape(shape)


# -- linear layouts over GF(2) (fastswz.linear) ---------------------------------------------------
def linear_evaluate(ll, inputs=None, out=None):
    """Twin of :func:`fastswz.linear.linear_evaluate`: a 0/1 bit matrix times the basis, as
    Triton's ``LinearLayout::apply`` defines it (XOR-reduce the vectors that set bits select).

    Examples
    --------
    >>> from fastswz.linear import LinearLayout
    >>> linear_evaluate(LinearLayout({"i": [1, 2, 4 ^ 1]}, ["o"])).tolist()
    [0, 1, 2, 3, 5, 4, 7, 6]
    """
    basis, arr, n = linear_args(ll, inputs)
    x = np.arange(n, dtype=np.int64) if arr is None else arr.astype(np.int64)
    res = np.zeros(x.shape, dtype=np.int64)
    for j, v in enumerate(basis):
        res ^= np.where((x >> j) & 1, v, np.int64(0))
    if out is not None:
        dst = out_arg(out, res.shape, np.int64)
        dst[...] = res
        return dst
    return res


def plan_gemm(arch="sm90", a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", bm=128,
              bn=128, bk=64, stages=4, swizzle_a="auto", swizzle_b="auto", epilogue_dtype=None,
              epilogue_swizzle="auto", smem_budget=None, cta_group=1, smem_base=0, epilogue_n=None,
              epilogue_stages=1):
    """Twin of :func:`fastswz.plan_gemm`: one pair of :class:`OperandTile` per configuration.

    LBO/SBO, the stage bytes and the stage-0 descriptor come from the OperandTile itself
    (``order="mn"`` for K-major, ``"k"`` for MN-major: what the TMA box writes), the k-step
    increment from the tile's descriptor grid, legality from the constructor's own checks.
    """
    inputs, shape, smem_base = plan_args(arch, a_dtype, b_dtype, a_major, b_major, bm, bn, bk,
                                         stages, swizzle_a, swizzle_b, epilogue_dtype,
                                         epilogue_swizzle, smem_budget, cta_group, smem_base,
                                         epilogue_n, epilogue_stages)
    n = inputs.shape[1]
    out = np.zeros((len(PLAN_FIELDS), n), dtype=np.int32)
    desc = np.zeros((2, n), dtype=np.uint64)
    banks = np.full((len(EPILOGUE_BANK_FIELDS), n), -1, dtype=np.int32)
    col = {name: j for j, name in enumerate(PLAN_FIELDS)}
    kinds = {"f16": 0, "tf32": 1, "f8f6f4": 2, "i8": 3}

    def auto(extent_bytes, choices=(128, 64, 32)):
        return next((f"{w}B" for w in choices if extent_bytes % w == 0), "none")

    def operand(archname, dname, major, sw, mn, k, inst_mn):
        d = DTYPES[dname]
        if sw == "auto":
            if archname == "sm100" and major == "MN" and d.bits == 32:
                sw = "128B_base32B"
            else:
                sw = auto((k if major == "K" else mn) * d.bits // 8)
        order = "mn" if major == "K" else "k"
        fields = dict.fromkeys(_OPERAND_FIELDS, 0)
        fields["swizzle"] = _SWIZZLES.index(sw)
        try:
            probe = OperandTile(dname, major, sw, 1024, 1024, order, archname)
        except TileError:
            return 1, fields, None
        amn, ak = probe.atom_shape
        if mn % amn:
            return 2, fields, None
        if k % ak:
            return 3, fields, None
        tile = OperandTile(dname, major, sw, mn, k, order, archname)
        try:
            tile.check_inst_mn(inst_mn)
        except TileError:
            return 4, fields, None
        try:
            lbo, sbo = tile.strides(inst_mn)
            check_stride_fields(lbo, sbo)
        except DescriptorFieldError:
            return 5, fields, None
        # TMA box: one swizzle row of elements innermost; the outer extent in the fewest equal
        # boxes of whole atoms and <= 256 rows.
        e = d.bits // 8
        mode = SwizzleMode(sw)
        inner = mode.byte_width // e
        outer_ext, unit = (mn, 8) if major == "K" else (k, mode.atom_rows)
        nb = next((b for b in range(1, outer_ext + 1) if outer_ext % b == 0
                   and (outer_ext // b) % unit == 0 and outer_ext // b <= 256), None)
        if nb is None:
            return 6, fields, None
        steps = tile.k // tile.inst_k
        inc = -1
        if steps >= 2:
            # Byte offset of each k-step's first element in the tile's (unswizzled) CuTe layout.
            offs = [tile.layout.inner((0, j * tile.inst_k)) * d.bits // 8 for j in range(steps)]
            deltas = set(np.diff(offs).tolist())
            inc = deltas.pop() // 16 if len(deltas) == 1 else -1
        align = max(128, mode.atom_bytes)
        fields.update(lbo_bytes=lbo, sbo_bytes=sbo, stage_bytes=tile.nbytes,
                      stage_stride=-(-tile.nbytes // align) * align, box_inner=inner,
                      box_outer=outer_ext // nb,
                      copies=((k if major == "K" else mn) // inner) * nb, k_step_increment=inc)
        return 0, fields, (tile, inst_mn, align)

    for i in range(n):
        (a, cg, adt, bdt, amj, bmj, swa, swb, cbm, cbn, cbk, st, edt, esw, budget, ecols,
         estages) = inputs[:, i].tolist()
        ecols = ecols or cbn
        archname = ("sm90", "sm100")[a]
        da, db = DTYPES[_DTYPES[adt]], DTYPES[_DTYPES[bdt]]
        if archname == "sm90" and cg != 1:
            out[0, i] = 1
            continue
        if da.kind != db.kind or (da.kind == "f16" and da.name != db.name):
            out[0, i] = 2
            continue
        inst_k = da.inst_k
        if archname == "sm90":
            mm = 64 if cbm % 64 == 0 else 0
            n_ok = cbn <= 256 and cbn % 8 == 0 and not (kinds[da.kind] == 3 and cbn > 32 and cbn % 16)
            exts, insts = (cbm, cbn), (64, cbn)
        else:
            ladder = {1: {64: 64}, 2: {128: 128}}[cg]
            mm = ladder.get(cbm, (128 * cg) if cbm % (128 * cg) == 0 else 0)
            n_ok = cbn <= 256 and cbn % 8 == 0 and not ((mm >= 128 or cg == 2) and (cbn % 16 or cbn < 16))
            exts, insts = (cbm // cg, cbn // cg), (mm // cg, cbn // cg)
        if not mm:
            out[0, i] = 3
            continue
        if not n_ok:
            out[0, i] = 4
            continue
        if cbk % inst_k:
            out[0, i] = 5
            continue
        ops = []
        for base, dname, mj, sw, ext, inst in ((6, da.name, amj, swa, exts[0], insts[0]),
                                               (12, db.name, bmj, swb, exts[1], insts[1])):
            code, fields, extra = operand(archname, dname, ("K", "MN")[mj], _SWIZZLES[sw], ext,
                                          cbk, inst)
            if code:
                out[0, i] = base - 1 + code
                break
            ops.append((fields, extra))
        if out[0, i]:
            continue
        ebytes, ealign, ecode = 0, 1, 0
        if edt >= 0:
            if cbn % ecols:
                out[0, i] = 18
                continue
            rowb = ecols * DTYPES[_DTYPES[edt]].bits // 8
            ename = auto(rowb) if esw == 0 else _SWIZZLES[esw]
            width = SwizzleMode(ename).byte_width
            if rowb % width:
                out[0, i] = 18
                continue
            ebytes, ealign, ecode = cbm // cg * rowb, width * 8, _SWIZZLES.index(ename)
        (fa, (ta, ia, _)), (fb, (tb, ib, alb)) = ops
        fa["offset"] = 0
        fb["offset"] = -(-st * fa["stage_stride"] // alb) * alb
        e_off = -(-(fb["offset"] + st * fb["stage_stride"]) // ealign) * ealign
        bar = -(-(e_off + estages * ebytes) // 8) * 8   # epilogue_stages tiles back to back
        total = bar + 16 * st
        out[0, i] = 19 if total > budget else 20 if smem_base + total > 1 << 18 else 0
        vals = {"smem_bytes": total, "mma_m": mm, "mma_n": cbn, "mma_k": inst_k,
                "mma_per_k_tile": (cbm // mm) * (cbk // inst_k),
                "warpgroups": cbm // 64 if archname == "sm90" else 0, "epi_swizzle": ecode,
                "epi_bytes": ebytes, "epi_offset": e_off if edt >= 0 else 0, "barrier_offset": bar}
        vals.update({"a_" + k: v for k, v in fa.items()})
        vals.update({"b_" + k: v for k, v in fb.items()})
        for k, v in vals.items():
            out[col[k], i] = v
        if edt >= 0:
            banks[:, i] = _epilogue_stores(_DTYPES[edt], ename, cbm // cg, ecols)
        if out[0, i]:  # over budget / past the window: descriptor() may refuse the start
            for j, (t, f) in enumerate(((ta, fa), (tb, fb))):
                lt = t.swizzle.layout_type(archname)
                hi = lt << 62 if archname == "sm90" else lt << 61 | 1 << 46
                start = smem_base + f["offset"]
                desc[j, i] = hi | ((start & 0x3FFFF) >> 4) | (f["lbo_bytes"] >> 4) << 16 | (f["sbo_bytes"] >> 4) << 32
            continue
        desc[0, i] = int(ta.descriptor(0, 0, smem_base + fa["offset"], ia))
        desc[1, i] = int(tb.descriptor(0, 0, smem_base + fb["offset"], ib))
    check_budget(out, inputs, smem_budget is not None)
    return GemmPlans(inputs, out, desc, shape, smem_base, banks if (inputs[12] >= 0).any() else None)


def _epilogue_stores(dname, swizzle, rows, bn):
    """Twin of the plan's epilogue bank columns for one configuration: build the rows x epilogue_n
    tile of every plan swizzle (:func:`fastswz.banks.epilogue_tile`), the lane addresses of
    its stores (stmatrix.x4 for 16-bit types, st.shared of accumulator pairs otherwise) and
    score them with this module's :func:`bank_wavefronts`. Returns (wavefronts, ideal,
    excess, best swizzle code), -1 where the access does not fit."""
    e = DTYPES[dname].bits // 8
    totals = {}
    for cand in EPILOGUE_SWIZZLES:
        if (bn * e) % SwizzleMode(cand).byte_width:
            continue
        try:
            cmap = epilogue_tile(dname, cand, rows, bn)
            if e == 2:
                lanes, width = stmatrix_rows(cmap, 2), 16      # x4: all 32 lanes give a row
            else:
                lanes, width = accumulator_stores(cmap, e)
        except (TileError, BankError):
            continue
        totals[cand] = (int(bank_wavefronts(lanes, width, op="st").sum()),
                        int(ideal_wavefronts(lanes, width).sum()))
    if not totals:
        return -1, -1, -1, -1
    # fewest wavefronts; a tie goes to the wider swizzle (fewer TMA boxes)
    best = min(totals, key=lambda c: (totals[c][0], -EPILOGUE_SWIZZLES.index(c)))
    if swizzle not in totals:
        return -1, -1, -1, _SWIZZLES.index(best)
    w, ideal = totals[swizzle]
    return w, ideal, w - ideal, _SWIZZLES.index(best)


# -- thread-value layouts (fastswz.tv_layout) -------------------------------------------------------
def tv_coords(tv):
    """Twin of :func:`fastswz.tv_layout.tv_coords`: each (thread, value) evaluated as a CuTe
    coordinate ``layout((t, v))`` (``cute::Layout::operator()``, not the flat index), then split
    by ``np.divmod`` as the TV layout's order says (``cute/atom/mma_traits*.hpp`` count (m, n)
    column-major; the copy traits count rows of bits; TMEM addresses are ``lane << 16 | col``).

    Examples
    --------
    >>> from fastswz.tv_layout import mma_sync
    >>> r, c = tv_coords(mma_sync("m16n8k8", "f16", "C"))
    >>> r[5].tolist(), c[5].tolist()
    ([1, 1, 9, 9], [2, 3, 2, 3])
    """
    from .tv_layout import TMEM_LANE, _tv_arg
    _tv_arg(tv)                                   # the same argument check
    T, V = tv.threads, tv.values
    idx = np.array([[tv.layout((t, v)) for v in range(V)] for t in range(T)], dtype=np.int64)
    rows, cols = tv.extents
    if tv.order == "col":
        n, m = np.divmod(idx, rows)
        return m, n
    r, c = np.divmod(idx, cols if tv.order == "row" else TMEM_LANE)
    return r, c


def tv_inverse(tv):
    """Twin of :func:`fastswz.tv_layout.tv_inverse`: scan the (thread, value) pairs in CuTe's
    colexicographic order and keep the first that lands on each coordinate.

    Examples
    --------
    >>> from fastswz.tv_layout import ldmatrix
    >>> t, v = tv_inverse(ldmatrix(1, role="addresses"))
    >>> t[:, 0].tolist()
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    r, c = tv_coords(tv)
    rows, cols = tv.extents
    out_t = np.full((rows, cols), -1, dtype=np.int64)
    out_v = np.full((rows, cols), -1, dtype=np.int64)
    for v in range(tv.values):
        for t in range(tv.threads):
            if out_t[r[t, v], c[t, v]] < 0:
                out_t[r[t, v], c[t, v]] = t
                out_v[r[t, v], c[t, v]] = v
    return out_t, out_v
