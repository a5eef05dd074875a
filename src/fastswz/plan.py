"""Whole-GEMM plans: operand tiles, TMA boxes, pipeline shared memory and MMA shape, in bulk.

:func:`plan_gemm` answers, for every configuration of a broadcast space (arch, A/B dtypes and
majors, BM x BN x BK, stages, swizzle per operand, epilogue tile, budget, cta_group), what an
autotuner or a code generator needs: legal or the reason why not, the shared-memory total, the MMA
instruction, and per operand the :class:`~fastswz.OperandTile` (swizzle, LBO/SBO, stage-0
descriptor and its k-step increment) together with the TMA box that writes exactly that layout.

Shared-memory plan of one CTA (offsets from the dynamic shared-memory base, which the kernel
aligns to 1024 bytes)::

    A stage 0 | A stage 1 | ... | B stage 0 | ... | epilogue C/D tile(s) | 2 x stages mbarriers

Each stage buffer starts on its swizzle pattern (``max(128, atom bytes)``: 1024 B for 128B, 512 B
for 64B and 128B_base32B, 256 B for 32B, 128 B for none): the TMA and the MMA both swizzle the
absolute address (NOTES 8.12, 10), so a buffer off its pattern reads back permuted; 128 B is
cp.async.bulk.tensor's own alignment for a shared-memory destination (PTX 9.7.9.25). The
pipeline barriers are one "full" and one "empty" 8-byte mbarrier per stage (PTX 9.7.13.15:
mbarrier objects are 8-byte aligned 64-bit words).

Atom order (what a TMA box writes). A box's innermost extent fills one swizzle row of ``span``
bytes and every further box row is the next ``span`` bytes: a K-major box (span/E elements of K,
BM or BN rows) writes the 8-row atoms of one K column one after another down MN, the next K
column after the whole MN extent; that is ``OperandTile(..., order="mn")``. An MN-major box
(span/E elements of MN, BK rows of K) writes the K atoms of one MN column consecutively; that is
``order="k"``. The plan uses exactly these orders, so its LBO/SBO and descriptors are those of
the OperandTile built with them.

Epilogue C/D tile (optional): BM/cta_group rows of BN elements, row-major with BN contiguous,
cut into columns of one swizzle row (``span`` bytes: 16 for none, 32/64/128 for the swizzles);
each column holds every row, 8-row atoms one after another, and the next column follows the
whole column (TMA boxes of ``[span / E, min(rows, 256)]``). That is the K-major
``OperandTile(dtype, "K", swizzle, rows, BN)`` of CuTe's default atom order, the tile
:func:`fastswz.banks.epilogue_tile` builds, so the plan's bank-conflict columns
(:data:`EPILOGUE_BANK_FIELDS`) score the stores of the accumulator into exactly this buffer:
``stmatrix.x4`` of 16 x 16 blocks for 16-bit types, ``st.shared`` of each lane's two adjacent
accumulator elements (the wgmma D fragment) for 8- and 32-bit types
(:func:`epilogue_access`).

Shared-memory budget: 232448 bytes (227 KiB) by default on sm90 and sm100, the per-block opt-in
maximum of compute capabilities 9.0 and 10.0 (CUDA C++ Programming Guide, "Technical
Specifications per Compute Capability": "Maximum amount of shared memory per thread block" 227 KB,
reached with ``cudaFuncAttributeMaxDynamicSharedMemorySize``).
"""

from __future__ import annotations

import numpy as np

import functools

from . import _kernels
from .banks import best_swizzle
from .bulk import as_array, int_array
from .descriptor import InstrDescriptorSM100
from .dtypes import DTYPES, dtype as _lookup_dtype
from .errors import BankError, FastswzTypeError, LayoutError, PlanError, TileError, as_int
from .tv_layout import wgmma_d
from .modes import SwizzleMode
from .rules import _choice
from .tile import OperandTile

__all__ = ["plan_gemm", "GemmPlans", "PLAN_ERRORS", "plan_reason", "SMEM_OPTIN", "TMA_SWIZZLE",
           "PLAN_FIELDS", "EPILOGUE_BANK_FIELDS", "EPILOGUE_SWIZZLES", "epilogue_access",
           "TILE_GROUP", "wgmma_accumulator_layout", "with_cluster", "with_schedule", "multicast_of",
           "LAST_CTA_REDUCE_REGISTERS", "LAST_CTA_MAX_SPLITS", "SPLIT_REDUCE", "stream_k_tail",
           "stream_k_units"]

#: Default tile order of the persistent kernel section: tiles are visited in groups of this many
#: rows of output tiles along M (each group walked column by column), so the CTAs resident at
#: once share the B panels and a few A panels in L2 (the grouped order of Triton's matmul
#: tutorial and CUTLASS's swizzled rasterization).
TILE_GROUP = 8


def wgmma_accumulator_layout(n):
    """The wgmma D fragment of ``m64nNk*`` as a CuTe TV layout: (thread, value) -> ``m + 64 n``.

    Thread ``t`` of the warpgroup (``(4,8,4)``: lane % 4, lane // 4, warp) and accumulator
    register ``r`` (``(2,2,N/8)``: the pair, the upper 8 rows, the 8-column block) hold
    ``D[16 warp + lane // 4 + 8 ((r // 2) % 2)][8 (r // 4) + 2 (lane % 4) + r % 2]``
    (PTX 9.7.15.5.1.1, "Register Fragments", matrix D; CuTe's ``CLayout_64xN``).

    Examples
    --------
    >>> L = wgmma_accumulator_layout(256)
    >>> print(L)
    ((4,8,4),(2,2,32)):((128,1,16),(64,8,512))
    >>> divmod(L(5, 3), 64)[::-1]       # thread 5, register 3: row 9, column 3
    (9, 3)
    """
    n = as_int("n", n)
    if not 8 <= n <= 256 or n % 8:
        raise PlanError(f"n={n} is not a wgmma N: 8..256 in steps of 8")
    # the public fragment map (fastswz.tv_layout), proven on the H100 and against CuTe
    return wgmma_d(n).layout

#: Per-block opt-in shared-memory limit (bytes) that plan_gemm's budget defaults to.
SMEM_OPTIN = {"sm90": 232448, "sm100": 232448}
PLAN_ARCHS = ("sm90", "sm100")
#: CUtensorMapSwizzle name and value (cuda.h ``CUtensorMapSwizzle_enum``) per swizzle mode.
#: 128B_base32B is written by CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B (32-byte chunks in 128 B).
TMA_SWIZZLE = {
    "none": ("CU_TENSOR_MAP_SWIZZLE_NONE", 0),
    "32B": ("CU_TENSOR_MAP_SWIZZLE_32B", 1),
    "64B": ("CU_TENSOR_MAP_SWIZZLE_64B", 2),
    "128B": ("CU_TENSOR_MAP_SWIZZLE_128B", 3),
    "128B_base32B": ("CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B", 4),
}

#: Meaning of the ``reason`` codes of :func:`plan_gemm` (0 = legal). Codes 6-11 are operand A's,
#: 12-17 the same checks for B.
_OPERAND_ERRORS = (
    "dtype / major / swizzle is not allowed on this architecture",
    "the MN extent is not a whole number of swizzle atoms",
    "the K extent (BK) is not a whole number of swizzle atoms",
    "one MMA's MN extent is not a whole number of MN-major swizzle atoms",
    "LBO or SBO does not fit the 14-bit descriptor field",
    "no TMA box tiling: the outer extent cannot be cut into equal boxes of <= 256 rows of whole atoms",
)
PLAN_ERRORS = (
    "",
    "cta_group 2 is a tcgen05 (sm100) feature; sm90 takes cta_group 1",
    "A and B are not one MMA kind: f16 or bf16 (both the same), tf32/f32, fp8 (e4m3/e5m2 mixed "
    "freely) or 8-bit integers (s8/u8 mixed freely)",
    "BM is not a legal MMA M tiling: sm90 a multiple of 64 (one wgmma m64 per warpgroup); sm100 "
    "cta_group::1 64 or a multiple of 128, cta_group::2 128 or a multiple of 256",
    "BN is not a legal MMA N: 8..256 in steps of 8 (sm90 integer types above 32: steps of 16; "
    "sm100 with M >= 128 or cta_group::2: steps of 16, from 16)",
    "BK is not a whole number of 32-byte MMA K steps",
    *("A: " + m for m in _OPERAND_ERRORS),
    *("B: " + m for m in _OPERAND_ERRORS),
    "the epilogue C/D tile does not fit: epilogue_n does not divide BN, or the tile's row "
    "(epilogue_n elements, BN unless given) is not a whole number of its swizzle rows",
    "the shared-memory total exceeds the budget",
    "smem_base + the shared-memory total ends past the 256 KiB window that descriptors address",
)
_R_OPERAND_A, _R_OPERAND_B, R_EPILOGUE, R_BUDGET, R_WINDOW = 6, 12, 18, 19, 20

#: Bank-conflict columns of the epilogue stores (int32, -1 without an epilogue tile, for an
#: illegal plan, or where the access does not fit the tile): wavefronts of all the stores,
#: the ideal (one per 32 distinct words per instruction), their difference, and the
#: :data:`EPILOGUE_SWIZZLES` code (into ``_SWIZZLES``) with the fewest wavefronts.
EPILOGUE_BANK_FIELDS = ("epi_wavefronts", "epi_ideal", "epi_excess", "epi_best_swizzle")
#: The epilogue tile layouts the plan lays out (and the best swizzle is chosen from).
EPILOGUE_SWIZZLES = ("none", "32B", "64B", "128B")

#: Integer columns of the kernel's output matrix, in row order (see :class:`GemmPlans`).
_OPERAND_FIELDS = ("swizzle", "lbo_bytes", "sbo_bytes", "stage_bytes", "stage_stride", "offset",
                   "box_inner", "box_outer", "copies", "k_step_increment")
PLAN_FIELDS = ("reason", "smem_bytes", "mma_m", "mma_n", "mma_k", "mma_per_k_tile", "warpgroups",
               "epi_swizzle", "epi_bytes", "epi_offset", "barrier_offset",
               *("a_" + f for f in _OPERAND_FIELDS), *("b_" + f for f in _OPERAND_FIELDS))

# Swizzle codes of the kernel: 0 "auto", then the modes. Per code: row bytes, atom rows, the
# sm90 and sm100 descriptor layout_type.
_SWIZZLES = ("auto", "none", "32B", "64B", "128B", "128B_base32B")
# log2 of the row bytes and rows (every one is a power of two; the kernel shifts).
_SW_PROPS = np.array([[0, 0, 0, 0, 0, 0]] + [
    [m.byte_width, m.atom_rows, 0 if m is SwizzleMode.B128_BASE32B else m.sm90_layout_type,
     m.sm100_layout_type, m.byte_width.bit_length() - 1, m.atom_rows.bit_length() - 1]
    for m in (SwizzleMode(s) for s in _SWIZZLES[1:])], dtype=np.int32)
# Dtype codes: the 8/16/32-bit operand types. Per code: bits, MMA kind (0 f16, 1 tf32, 2 fp8,
# 3 integer), the tcgen05 format code (f16 vs bf16), wgmma-legal, wgmma-MN-major-legal, log2 of
# the element bytes.
_DTYPES = tuple(n for n, d in DTYPES.items() if d.bits >= 8)
_KIND = {"f16": 0, "tf32": 1, "f8f6f4": 2, "i8": 3}
_DT_PROPS = np.array([[DTYPES[n].bits, _KIND[DTYPES[n].kind], DTYPES[n].format_code,
                       DTYPES[n].sm90, DTYPES[n].mn_major_sm90, (DTYPES[n].bits // 8).bit_length() - 1]
                      for n in _DTYPES], dtype=np.int32)
_INPUTS = ("arch", "cta_group", "a_dtype", "b_dtype", "a_major", "b_major", "swizzle_a",
           "swizzle_b", "bm", "bn", "bk", "stages", "epilogue_dtype", "epilogue_swizzle",
           "smem_budget", "epilogue_n", "epilogue_stages")
_SHAPE_MAX = 4096
_ROW_OPERAND_KEYS = (
    "swizzle", "order", "mn", "k", "layout", "lbo_bytes", "sbo_bytes", "stage_bytes", "stage_stride",
    "stage_offsets", "inst_mn", "inst_k", "descriptors", "k_step_increment", "tma_box", "tma_swizzle",
    "tma_swizzle_enum", "tma_swizzle_value", "tma_element_strides", "tma_interleave",
    "tma_interleave_enum",
    "tma_copies_per_stage", "tma_box_offsets", "global_dims")


def plan_reason(code) -> str:
    """The full message of a :func:`plan_gemm` reason code (``""`` for 0, a legal plan).

    Examples
    --------
    >>> plan_reason(19)
    'the shared-memory total exceeds the budget'
    """
    code = as_int("code", code)
    if not 0 <= code < len(PLAN_ERRORS):
        raise PlanError(f"code={code} is not a plan reason code; codes run from 0 to {len(PLAN_ERRORS) - 1}")
    return PLAN_ERRORS[code]


# -- argument checks (shared with the numpy twin) ----------------------------------------------------
def _coded(name, values, code_of):
    """Map an array of names to int32 codes, one lookup per distinct name.

    Distinct names are found in order of first appearance (one vectorized comparison per
    distinct name, no sort), so a bad name raises for its first occurrence in flat order."""

    a = as_array(name, values)
    if a.dtype.kind not in "UO":
        raise FastswzTypeError(f"{name} must be a string or an array of strings, not dtype {a.dtype}")
    if a.dtype.kind == "O":
        for v in a.ravel().tolist():
            if not isinstance(v, str):
                raise FastswzTypeError(f"{name} must hold strings; it holds {v!r} ({type(v).__name__})")
        a = a.astype(str)
    flat = a.ravel()
    codes = np.full(flat.shape, -2, dtype=np.int32)
    todo = 0
    while True:
        left = np.flatnonzero(codes[todo:] == -2)
        if not left.size:
            break
        todo += int(left[0])
        v = str(flat[todo])
        codes[flat == v] = code_of(v)
    return codes.reshape(a.shape)


def _dtype_code(name):
    def code(v):
        d = _lookup_dtype(v)
        if d.bits < 8:
            raise PlanError(
                f"{name}={v!r} is a {d.bits}-bit type: plan_gemm plans 8-, 16- and 32-bit operands "
                f"(the TMA moves sub-byte types with the packed 16U4/16U6 data types, not planned "
                f"yet); use e4m3, e5m2, s8, u8, f16, bf16, tf32 or f32")
        return _DTYPES.index(d.name)
    return code


def _epi_code(v):
    if v.strip().lower() == "none":
        return -1
    return _dtype_code("epilogue_dtype")(v)


def _swizzle_code(name, allow_base32=True):
    def code(v):
        if v.strip().lower() == "auto":
            return 0
        mode = SwizzleMode.parse(v, name)
        if mode is SwizzleMode.B128_BASE32B and not allow_base32:
            raise PlanError(
                f"{name}={v!r}: the epilogue C/D tile is row-major with 16-byte chunks; "
                f"128B_base32B is an MMA-operand mode only, use 128B or auto")
        return _SWIZZLES.index(mode.value)
    return code


def _ints(name, values, lo, hi, multiple=1):
    """An int32 column in ``[lo, hi]`` (and a multiple of ``multiple``, a power of two); the
    first value outside, beyond int64 included, is named with this field's own range."""
    try:
        a = int_array(name, values)
    except LayoutError as exc:  # a Python int beyond int64: outside any field's range
        v, a = exc.value, None
    else:
        v = None
        if a.size:
            bad = (a < lo) | (a > hi) | ((a & (multiple - 1)) != 0)
            if bad.any():
                v = int(a.ravel()[int(np.flatnonzero(bad.ravel())[0])])
    if v is not None:
        rule = f"{lo} <= {name} <= {hi}" + (f" and a multiple of {multiple}" if multiple > 1 else "")
        why = (" (every operand tile is built of 8-row, 16-byte core matrices, so BM, BN and "
               "BK are multiples of 8)" if name in ("bm", "bn", "bk") else
               " (the epilogue tile's columns, a multiple of 8 that divides BN; 0 means BN)"
               if name == "epilogue_n" else "")
        raise PlanError(f"{name} holds {v}, outside {rule}{why}")
    return a.astype(np.int32)


def plan_args(arch, a_dtype, b_dtype, a_major, b_major, bm, bn, bk, stages, swizzle_a, swizzle_b,
              epilogue_dtype, epilogue_swizzle, smem_budget, cta_group, smem_base, epilogue_n=None,
              epilogue_stages=1):
    """Validate and broadcast plan_gemm's arguments into an int32 input matrix (shared with the
    twin). Returns ``(inputs, shape, smem_base)``; ``inputs`` rows follow ``_INPUTS``."""
    arch_c = _coded("arch", arch, lambda v: PLAN_ARCHS.index(_choice("arch", v, PLAN_ARCHS)))
    cols = [
        arch_c,
        _ints("cta_group", cta_group, 1, 2),
        _coded("a_dtype", a_dtype, _dtype_code("a_dtype")),
        _coded("b_dtype", b_dtype, _dtype_code("b_dtype")),
        _coded("a_major", a_major, lambda v: ("K", "MN").index(_choice("a_major", v, ("K", "MN")))),
        _coded("b_major", b_major, lambda v: ("K", "MN").index(_choice("b_major", v, ("K", "MN")))),
        _coded("swizzle_a", swizzle_a, _swizzle_code("swizzle_a")),
        _coded("swizzle_b", swizzle_b, _swizzle_code("swizzle_b")),
        _ints("bm", bm, 8, _SHAPE_MAX, 8),
        _ints("bn", bn, 8, _SHAPE_MAX, 8),
        _ints("bk", bk, 8, _SHAPE_MAX, 8),
        _ints("stages", stages, 1, 64),
        _coded("epilogue_dtype", "none" if epilogue_dtype is None else epilogue_dtype, _epi_code),
        _coded("epilogue_swizzle", epilogue_swizzle, _swizzle_code("epilogue_swizzle", False)),
    ]
    if smem_budget is None:
        cols.append(np.array([SMEM_OPTIN[a] for a in PLAN_ARCHS], dtype=np.int32)[arch_c])
    else:
        cols.append(_ints("smem_budget", smem_budget, 1, max(SMEM_OPTIN.values())))
    # 0 (or None) codes "the whole BN"; a subtile width must divide BN (reason 18).
    cols.append(_ints("epilogue_n", 0 if epilogue_n is None else epilogue_n, 0, _SHAPE_MAX, 8))
    cols.append(_ints("epilogue_stages", epilogue_stages, 1, 8))
    smem_base = as_int("smem_base", smem_base)
    if smem_base < 0 or smem_base % 1024 or smem_base >= 1 << 18:
        raise PlanError(
            f"smem_base=0x{smem_base:x} must be a multiple of 1024 in [0, 0x40000): the dynamic "
            f"shared-memory base is aligned to the 128B swizzle pattern, and descriptors address "
            f"256 KiB")
    try:
        shape = np.broadcast_shapes(*(c.shape for c in cols))
    except ValueError:
        raise PlanError("plan_gemm arguments do not broadcast together: " + ", ".join(
            f"{n}{c.shape}" for n, c in zip(_INPUTS, cols))) from None
    n = int(np.prod(shape, dtype=np.int64))
    inputs = np.empty((len(cols), n), dtype=np.int32)
    for j, c in enumerate(cols):
        inputs[j].reshape(shape)[...] = c
    return inputs, shape, smem_base


def check_budget(out, inputs, given):
    """Refuse a budget below the smallest plan of the space (every plan would be over it)."""
    if not given or out.shape[1] == 0:
        return
    reason = out[0]
    sized = (reason == 0) | (reason == R_BUDGET)
    if sized.any() and not (reason == 0).any():
        need = int(out[1][sized].min())
        raise PlanError(
            f"smem_budget={int(inputs[14][sized].max())} is below the smallest plan of the space, "
            f"{need} bytes: no configuration fits; raise the budget or offer fewer stages / "
            f"smaller tiles")


def epilogue_access(dtype) -> str:
    """How the plan's bank columns assume the accumulator reaches the epilogue tile.

    ``"stmatrix"`` (``stmatrix.x4``, 16x16 blocks of b16) for 16-bit types; ``"st"``
    (``st.shared`` of the two adjacent elements each lane holds: 2-byte stores for 8-bit,
    8-byte for 32-bit types) otherwise. Both walk the wgmma / mma.sync D fragment (PTX
    9.7.15.5.1); on sm100 that is the register layout of ``tcgen05.ld.16x256b``.

    Examples
    --------
    >>> epilogue_access("bf16"), epilogue_access("f32")
    ('stmatrix', 'st')
    """
    return "stmatrix" if _lookup_dtype(dtype).bits == 16 else "st"


@functools.lru_cache(maxsize=4096)
def _epilogue_table(edt, rows, bn):
    """``{swizzle code: (wavefronts, ideal)}`` of the epilogue stores of a rows x BN tile of
    dtype code ``edt`` for every plan swizzle that fits, and the best code (-1: none fits).
    Cached: a space repeats few combinations, and every requested swizzle shares one table."""
    name = _DTYPES[edt]
    try:
        best, table = best_swizzle(name, rows, bn, epilogue_access(name), EPILOGUE_SWIZZLES)
    except (TileError, BankError):
        return {}, -1
    return ({_SWIZZLES.index(k): (v.total, v.ideal_total) for k, v in table.items()},
            _SWIZZLES.index(best))


def _epilogue_score(edt, esw, rows, bn):
    """(wavefronts, ideal, excess, best swizzle code) of one combination, -1 where the access
    does not fit the tile."""
    table, best = _epilogue_table(edt, rows, bn)
    if esw not in table:
        return (-1, -1, -1, best)
    w, ideal = table[esw]
    return (w, ideal, w - ideal, best)


def _dense_codes(values, hi):
    """Codes 0..k-1 of the distinct values (ints in [0, hi]) and those values, without a sort."""
    present = np.bincount(values, minlength=hi + 1) > 0
    lut = (np.cumsum(present) - 1).astype(np.int32)
    return lut[values], np.flatnonzero(present)


def epilogue_banks(inputs, out):
    """The :data:`EPILOGUE_BANK_FIELDS` rows (int32, (4, n), a transposed (n, 4) array) of a plan
    matrix, or None where no configuration has an epilogue tile.

    Scored once per distinct (epilogue dtype, resolved swizzle, BM / cta_group, epilogue columns) and
    gathered. Whole-column integer passes only (no index of the live subset: gathers and
    scatters through it cost 3x more): each component gets dense codes from a bincount over
    its small range, the combined key (0 for "no score") a code per distinct combination."""
    edt = inputs[12]
    if not (edt >= 0).any():
        return None
    reason = out[0]
    live = (edt >= 0) & ((reason == 0) | (reason >= R_BUDGET))
    rows, rv = _dense_codes((inputs[8] >> (inputs[1] - 1)) >> 3, _SHAPE_MAX // 8)
    # the tile's columns: epilogue_n where given (row 15 > 0), else BN
    bn, bv = _dense_codes(np.where(inputs[15] > 0, inputs[15], inputs[9]) >> 3, _SHAPE_MAX // 8)
    sw = out[PLAN_FIELDS.index("epi_swizzle")]
    key = edt * len(_SWIZZLES)          # in place from here: every temporary is a pass
    key += sw
    key *= len(rv)
    key += rows
    key *= len(bv)
    key += bn
    key += 1
    key *= live
    if len(_DTYPES) * len(_SWIZZLES) * len(rv) * len(bv) <= 1 << 22:
        inv, keys = _dense_codes(key, int(key.max()))
    else:
        keys, inv = np.unique(key, return_inverse=True)
    table = np.full((len(keys), len(EPILOGUE_BANK_FIELDS)), -1, dtype=np.int32)
    for j, k in enumerate(keys.tolist()):
        if k == 0:
            continue
        k, b = divmod(k - 1, len(bv))
        k, r = divmod(k, len(rv))
        d, w = divmod(k, len(_SWIZZLES))
        table[j] = _epilogue_score(d, w, int(rv[r]) * 8, int(bv[b]) * 8)
    # one gather of 16-byte rows; the four columns are strided views of the result
    return np.take(table, inv, axis=0).T


def plan_gemm(arch="sm90", a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", bm=128,
              bn=128, bk=64, stages=4, swizzle_a="auto", swizzle_b="auto", epilogue_dtype=None,
              epilogue_swizzle="auto", smem_budget=None, cta_group=1, smem_base=0, epilogue_n=None,
              epilogue_stages=1):
    """Plan whole GEMM mainloops (and an optional epilogue tile), for a broadcast space at once.

    Every argument broadcasts (strings or arrays of strings for the categorical ones).

    Parameters
    ----------
    arch : {"sm90", "sm100"}
        wgmma (one ``m64nBNk*`` per warpgroup, BM/64 warpgroups) or tcgen05.
    a_dtype, b_dtype : str
        8/16/32-bit operand types (``bf16``, ``f16``, ``tf32``, ``f32``, ``e4m3``, ``e5m2``,
        ``s8``, ``u8``).
    a_major, b_major : {"K", "MN"}
    bm, bn, bk : int
        CTA tile (multiples of 8). Under ``cta_group=2`` BM x BN is the CTA pair's MMA tile and
        each CTA holds BM/2 rows of A and BN/2 rows of B.
    stages : int
        Pipeline stages (1..64).
    swizzle_a, swizzle_b : str
        ``"auto"`` (the widest swizzle whose row the contiguous extent in bytes fills: BK x E for
        K-major, the operand's MN extent x E for MN-major; ``128B_base32B`` for MN-major 32-bit
        operands on sm100) or a mode name.
    epilogue_dtype : str or None
        C/D tile type in shared memory (row-major, BN contiguous), or None (no epilogue buffer).
    epilogue_swizzle : str
        ``"auto"`` (widest row that epilogue_n x E fills) or ``none``/``32B``/``64B``/``128B``.
    smem_budget : int or None
        Bytes one CTA may use; None: the arch's opt-in limit (:data:`SMEM_OPTIN`).
    cta_group : {1, 2}
        tcgen05 cta_group (sm100 only).
    smem_base : int
        Shared-window address of the dynamic shared-memory base (a multiple of 1024) that the
        stage-0 descriptors are computed for; a kernel adds its own base >> 4 to the start field.
    epilogue_n : int or None
        Columns of the epilogue C/D tile (CUTLASS's epilogue tile N): a kernel stores the
        BM x BN accumulator through it in BN / epilogue_n column blocks, one after the other,
        so a smaller tile leaves room for more stages. None or 0: BN (the whole output tile).
        A multiple of 8 that divides BN (else reason 18).
    epilogue_stages : int
        Epilogue tiles laid out one after another (CUTLASS's ``StagesD``, 1..8): with 2 a kernel
        writes column block j + 1 into one while the TMA store of block j still reads the other.

    Returns
    -------
    GemmPlans
        Columns shaped like the broadcast arguments; ``reason`` 0 = legal. Illegal plans hold 0
        everywhere except ``reason``, apart from over-budget / past-the-window plans, whose
        fields are all filled (an autotuner sees how far over they are).

    Examples
    --------
    >>> p = plan_gemm("sm90", "bf16", "bf16", "K", "K", 128, 128, 64, stages=4)
    >>> int(p["smem_bytes"]), p.instruction(0), int(p["a_lbo_bytes"]), int(p["a_sbo_bytes"])
    (131136, 'wgmma.m64n128k16.f32.bf16.bf16', 16, 1024)
    >>> r = plan_gemm(bk=[32, 64, 128], stages=[[2], [4]])
    >>> r["reason"].tolist()
    [[0, 0, 0], [0, 0, 19]]
    >>> plan_reason(int(r["reason"][1, 2]))
    'the shared-memory total exceeds the budget'
    >>> e = plan_gemm(bn=256, stages=4, epilogue_dtype="bf16", epilogue_n=[256, 64])
    >>> e["epi_bytes"].tolist(), e["reason"].tolist()
    ([65536, 16384], [19, 0])
    """
    inputs, shape, smem_base = plan_args(arch, a_dtype, b_dtype, a_major, b_major, bm, bn, bk,
                                         stages, swizzle_a, swizzle_b, epilogue_dtype,
                                         epilogue_swizzle, smem_budget, cta_group, smem_base,
                                         epilogue_n, epilogue_stages)
    n = inputs.shape[1]
    out = np.empty((len(PLAN_FIELDS), n), dtype=np.int32)
    desc = np.empty((2, n), dtype=np.uint64)
    _kernels.plan_gemm(inputs, _DT_PROPS, _SW_PROPS, smem_base, out, desc)
    check_budget(out, inputs, smem_budget is not None)
    return GemmPlans(inputs, out, desc, shape, smem_base, epilogue_banks(inputs, out))


class GemmPlans:
    """Columnar result of :func:`plan_gemm` (read-only).

    ``plans[name]`` is a column shaped like the space: the integer fields of
    :data:`PLAN_FIELDS` (int32; ``a_``/``b_`` per operand: ``swizzle`` is a code into
    ``("auto", "none", "32B", "64B", "128B", "128B_base32B")``, ``offset`` the stage-0 buffer's
    offset, ``stage_stride`` the aligned distance between stages, ``box_inner``/``box_outer``
    the TMA box, ``copies`` TMA copies per stage, ``k_step_increment`` -1 where not constant or
    with a single k-step), ``legal`` (bool), ``a_descriptor``/``b_descriptor`` (uint64,
    stage 0, first MN block, first k-step) and the epilogue's bank-conflict columns
    :data:`EPILOGUE_BANK_FIELDS` (int32, -1 where there is no score). :meth:`row` gives one plan
    in full (descriptor grids, TMA box offsets), the object ``fastswz plan --json`` prints.

    Examples
    --------
    >>> p = plan_gemm(bm=[64, 128])
    >>> p.shape, p["warpgroups"].tolist(), len(p)
    ((2,), [1, 2], 2)
    >>> p.row(1)["a"]["tma_box"], p.row(1)["a"]["order"]
    ([64, 128], 'mn')
    >>> e = plan_gemm(bm=64, bn=64, epilogue_dtype="f32", epilogue_swizzle=["none", "32B"])
    >>> e["epi_wavefronts"].tolist(), e["epi_excess"].tolist(), e["epi_best_swizzle"].tolist()
    ([256, 128], [128, 0], [2, 2])
    """

    __slots__ = ("_inputs", "_out", "_desc", "shape", "smem_base", "_cols", "_banks")

    def __init__(self, inputs, out, desc, shape, smem_base, banks=None):
        object.__setattr__(self, "_inputs", inputs)
        object.__setattr__(self, "_out", out)
        object.__setattr__(self, "_desc", desc)
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "smem_base", smem_base)
        cols = {name: out[j].reshape(shape) for j, name in enumerate(PLAN_FIELDS)}
        cols["legal"] = np.asarray(cols["reason"] == 0)
        cols["a_descriptor"] = desc[0].reshape(shape)
        cols["b_descriptor"] = desc[1].reshape(shape)
        # banks: epilogue_banks' rows, or None: no epilogue anywhere, -1 columns for free
        none = np.broadcast_to(np.int32(-1), shape)
        for j, name in enumerate(EPILOGUE_BANK_FIELDS):
            cols[name] = none if banks is None else banks[j].reshape(shape)
        object.__setattr__(self, "_banks", banks)
        for a in cols.values():
            a.flags.writeable = False
        object.__setattr__(self, "_cols", cols)

    def __setattr__(self, name, value):
        raise AttributeError("GemmPlans is immutable")

    def __len__(self):
        return self._out.shape[1]

    def __getitem__(self, name):
        return self._cols[name]

    def keys(self):
        return self._cols.keys()

    def to_dict(self):
        """The columns as a dict of (read-only) numpy arrays."""
        return dict(self._cols)

    def __repr__(self):
        return f"<GemmPlans shape={self.shape} legal={int(self._cols['legal'].sum())}/{len(self)}>"

    def _index(self, i):
        n = len(self)
        i = as_int("i", i)
        if not -n <= i < n:
            raise PlanError(f"i={i} is outside the {n} plans of this space (flat index)")
        return i % n

    def inputs(self, i) -> dict:
        """The configuration (names and ints) of flat index ``i``."""
        i = self._index(i)
        v = self._inputs[:, i].tolist()
        return {
            "arch": PLAN_ARCHS[v[0]], "cta_group": v[1], "a_dtype": _DTYPES[v[2]],
            "b_dtype": _DTYPES[v[3]], "a_major": ("K", "MN")[v[4]], "b_major": ("K", "MN")[v[5]],
            "swizzle_a": _SWIZZLES[v[6]], "swizzle_b": _SWIZZLES[v[7]], "bm": v[8], "bn": v[9],
            "bk": v[10], "stages": v[11], "epilogue_dtype": None if v[12] < 0 else _DTYPES[v[12]],
            "epilogue_swizzle": _SWIZZLES[v[13]], "smem_budget": v[14], "smem_base": self.smem_base,
            "epilogue_n": v[15] or None, "epilogue_stages": v[16]}

    def instruction(self, i) -> "str | None":
        """The MMA instruction of plan ``i`` (None when illegal).

        sm90: ``wgmma.m64n{N}k{K}.{acc}.{A}.{B}`` (the ``.mma_async.sync.aligned`` qualifiers
        left out). sm100: ``tcgen05.mma.cta_group::{1|2}.kind::{kind}.m{M}n{N}k{K}``: M, N live in
        the instruction descriptor, not in the PTX opcode.
        """
        i = self._index(i)
        if self._out[0, i]:
            return None
        c = self.inputs(i)
        m, nn, k = (int(self._out[PLAN_FIELDS.index(f), i]) for f in ("mma_m", "mma_n", "mma_k"))
        da, db = DTYPES[c["a_dtype"]], DTYPES[c["b_dtype"]]
        if c["arch"] == "sm90":
            acc = "s32" if da.kind == "i8" else "f32"
            name = {"f32": "tf32"}
            return (f"wgmma.m{m}n{nn}k{k}.{acc}.{name.get(da.name, da.name)}."
                    f"{name.get(db.name, db.name)}")
        return f"tcgen05.mma.cta_group::{c['cta_group']}.kind::{da.kind}.m{m}n{nn}k{k}"

    def instr_descriptor(self, i) -> "int | None":
        """The 32-bit tcgen05 instruction descriptor of plan ``i`` (None on sm90 or when illegal).

        f32 accumulator (s32 for kind::i8), M and N of the MMA (M of the CTA pair under
        cta_group 2), the operands' majors; no negation, saturation or sparsity (PTX 9.7.16.10,
        instruction descriptor).

        Examples
        --------
        >>> p = plan_gemm("sm100", "bf16", "bf16", "K", "K", 128, 256, 64, 4)
        >>> hex(p.instr_descriptor(0))
        '0x8400490'
        """
        i = self._index(i)
        c = self.inputs(i)
        if self._out[0, i] or c["arch"] != "sm100":
            return None
        m, nn = (int(self._out[PLAN_FIELDS.index(f), i]) for f in ("mma_m", "mma_n"))
        kind = DTYPES[c["a_dtype"]].kind
        return InstrDescriptorSM100(kind, c["a_dtype"], c["b_dtype"],
                                    "s32" if kind == "i8" else "f32", m, nn,
                                    c["a_major"], c["b_major"]).value

    def tiles(self, i):
        """``(A, B)`` :class:`~fastswz.OperandTile` of plan ``i`` (one CTA's stage buffer)."""
        i = self._index(i)
        c = self.inputs(i)
        if self._out[0, i] and self._out[0, i] not in (R_BUDGET, R_WINDOW):
            raise PlanError(f"plan {i} is illegal ({plan_reason(int(self._out[0, i]))}): it has no tiles")
        cg = c["cta_group"]
        res = []
        for op, ext in (("a", c["bm"] // cg), ("b", c["bn"] // cg)):
            sw = _SWIZZLES[int(self._out[PLAN_FIELDS.index(op + "_swizzle"), i])]
            major = c[op + "_major"]
            res.append(OperandTile(c[op + "_dtype"], major, sw, ext, c["bk"],
                                   "mn" if major == "K" else "k", c["arch"]))
        return tuple(res)

    def row(self, i) -> dict:
        """Plan ``i`` in full: the object ``fastswz plan --json`` prints (see docs)."""
        i = self._index(i)
        f = {name: int(self._out[j, i]) for j, name in enumerate(PLAN_FIELDS)}
        c = self.inputs(i)
        reason = f["reason"]
        sized = reason in (0, R_BUDGET, R_WINDOW)
        res = {"legal": reason == 0, "reason": plan_reason(reason) if reason else None,
               "reason_code": reason, **{k: c[k] for k in ("arch", "cta_group", "bm", "bn", "bk",
                                                           "stages", "smem_budget", "smem_base")},
               "smem_bytes": f["smem_bytes"] if sized else None,
               "instruction": self.instruction(i) if reason == 0 else None,
               "instr_descriptor": (None if reason or c["arch"] != "sm100" else
                                    f"0x{self.instr_descriptor(i):08x}"),
               "mma_per_k_tile": f["mma_per_k_tile"] if sized else None,
               "warpgroups": (f["warpgroups"] if c["arch"] == "sm90" else None) if sized else None,
               "barrier_offset": f["barrier_offset"] if sized else None,
               "barrier_bytes": 16 * c["stages"] if sized else None}
        tiles = self.tiles(i) if sized else (None, None)
        # Descriptor grids exist only where every stage lies inside the 256 KiB window.
        grids = sized and self.smem_base + f["smem_bytes"] <= 1 << 18
        for op, tile in zip(("a", "b"), tiles):
            res[op] = self._operand(op, f, c, tile, grids)
        if c["epilogue_dtype"] is not None and sized:
            sw = _SWIZZLES[f["epi_swizzle"]]
            rows, e = c["bm"] // c["cta_group"], DTYPES[c["epilogue_dtype"]].bits // 8
            cols = c["epilogue_n"] or c["bn"]
            span = SwizzleMode(sw).byte_width
            bk = [-1] * 4 if self._banks is None else self._banks[:, i].tolist()
            try:  # columns not a whole number of 32-byte MMA K steps: no OperandTile form
                elayout = str(OperandTile(c["epilogue_dtype"], "K", sw, rows, cols).layout)
            except TileError:
                elayout = None
            box = [span // e, min(rows, 256)]
            # One rows x cols tile; output column block j (of BN / cols) goes through it at
            # coordinates + (j cols, 0).
            res["epilogue"] = {"dtype": c["epilogue_dtype"], "swizzle": sw, "bytes": f["epi_bytes"],
                               "offset": f["epi_offset"], "rows": rows, "cols": cols,
                               "subtiles": c["bn"] // cols, "stages": c["epilogue_stages"],
                               "stage_offsets": [f["epi_offset"] + s * f["epi_bytes"]
                                                 for s in range(c["epilogue_stages"])],
                               "layout": elayout,
                               "tma_box": box,
                               "tma_box_offsets": _epilogue_box_offsets(rows, cols, box, span),
                               "tma_swizzle": sw, "tma_swizzle_enum": TMA_SWIZZLE[sw][0],
                               "access": epilogue_access(c["epilogue_dtype"]),
                               **{k: None if v < 0 else v for k, v in
                                  zip(("wavefronts", "ideal", "excess"), bk[:3])},
                               "best_swizzle": None if bk[3] < 0 else _SWIZZLES[bk[3]]}
        else:
            res["epilogue"] = None
        res["kernel"] = self._kernel(f, c, res) if sized and c["arch"] == "sm90" else None
        return res

    @staticmethod
    def _kernel(f, c, res):
        """What a warp-specialized persistent sm90 kernel needs beyond the buffers (see docs).

        Roles: warpgroup 0 produces (one thread issues the TMA copies), warpgroups 1..W consume
        (warpgroup ``1 + w`` issues the wgmma of A's MN block ``w``: rows ``64 w`` to ``64 w +
        63``). Per stage one "full" mbarrier (1 arrival, the producer's ``expect_tx`` of both
        operands' stage bytes) and one "empty" mbarrier (one arrival per consumer warpgroup),
        full barriers first. Tile order: linear tile ``t`` of ``tiles_m x tiles_n`` is visited
        in groups of :data:`TILE_GROUP` tile rows (``group = t // (G tiles_n)``, inside it
        ``m = group G + i % g``, ``n = i // g`` with ``i = t % (G tiles_n)`` and ``g`` the
        group's height). No cluster, no multicast.
        """
        st, bar, wg = c["stages"], f["barrier_offset"], f["warpgroups"]
        acc = wgmma_accumulator_layout(f["mma_n"])
        epi = res["epilogue"]
        return {
            "threads": (wg + 1) * 128, "producer_warpgroup": 0,
            "consumer_warpgroups": list(range(1, wg + 1)),
            "barriers": {"full": [bar + 8 * s for s in range(st)],
                         "empty": [bar + 8 * (st + s) for s in range(st)],
                         "full_arrivals": 1, "empty_arrivals": wg,
                         "tx_bytes": res["a"]["stage_bytes"] + res["b"]["stage_bytes"]},
            # last_row "shifted": where M is not a multiple of BM (and at least BM), the last tile
            # row covers rows M - BM .. M - 1 (sm90/tile_rows.cuh); K-major A only (an MN-major
            # A's box would start off its 16-byte inner alignment: an illegal instruction on an H100)
            "tile_order": {"raster": "m_grouped", "group": TILE_GROUP,
                           "last_row": "shifted" if c["a_major"] == "K" else "plain"},
            "cluster": [1, 1], "multicast": None,
            # the kernel's A and B are the caller's (swap_ab: D^T = B^T A^T) and how work is
            # split: one unit per output tile (with_schedule sets split-K)
            "swap_ab": False,
            "scheduler": {"kind": "persistent", "splits": 1, "k_tiles": None, "workspace": None},
            # cooperative: the consumer warpgroups share each unit, warpgroup w on A's MN block
            # blocks[w]; ping-pong (with_schedule): they take alternate units (slots)
            "consumers": {"kind": "cooperative", "tiles": 1, "blocks": list(range(wg)),
                          "slots": [0] * wg},
            "accumulator": {"instruction": res["instruction"], "layout": str(acc),
                            "shape": [64, f["mma_n"]], "registers": f["mma_n"] // 2,
                            "dtype": "s32" if DTYPES[c["a_dtype"]].kind == "i8" else "f32",
                            # registers [j R, j R + R) of every thread hold epilogue column
                            # block j: register r holds column 8 (r // 4) + 2 (lane % 4) + r % 2
                            # (PTX 9.7.15.5.1.1), so R = cols / 2 (tests check it on the map)
                            "subtile_registers": None if epi is None else epi["cols"] // 2}}

    def _operand(self, op, f, c, tile, grids):
        g = {k: f[op + "_" + k] for k in _OPERAND_FIELDS}
        base = {"dtype": c[op + "_dtype"], "major": c[op + "_major"]}
        if tile is None:  # illegal before the tiles exist: the same keys, all null
            return {**base, **dict.fromkeys(_ROW_OPERAND_KEYS)}
        sw = tile.swizzle.value
        stages, stride = c["stages"], g["stage_stride"]
        inst_mn = self._inst_mn(op, f, c, tile)
        start = self.smem_base + g["offset"]
        if grids:
            grid = tile.descriptors(start, inst_mn, stages=stages,
                                    stage_stride=stride if stages > 1 else None)
            grid = grid.reshape(stages, tile.mn // inst_mn, tile.k // tile.inst_k)
            grid = [[[f"0x{int(v):016x}" for v in blk] for blk in st] for st in grid]
        else:
            grid = None
        e = tile.element_bits // 8
        inner, outer = g["box_inner"], g["box_outer"]
        n_inner = (tile.k if tile.major == "K" else tile.mn) // inner
        n_outer = g["copies"] // n_inner
        offsets = []
        for ci in range(n_inner):
            for co in range(n_outer):
                full = tile.mn if tile.major == "K" else tile.k
                offsets.append({"smem_offset": (ci * full + co * outer) * inner * e,
                                "coords": [ci * inner, co * outer]})
        return {**base, "swizzle": sw, "order": tile.order, "mn": tile.mn, "k": tile.k,
                "layout": str(tile.layout), "lbo_bytes": g["lbo_bytes"], "sbo_bytes": g["sbo_bytes"],
                "stage_bytes": g["stage_bytes"], "stage_stride": stride,
                "stage_offsets": [g["offset"] + s * stride for s in range(stages)],
                "inst_mn": inst_mn, "inst_k": tile.inst_k,
                "descriptors": grid,
                "k_step_increment": None if g["k_step_increment"] < 0 else g["k_step_increment"],
                "tma_box": [inner, outer], "tma_swizzle": sw,
                "tma_swizzle_enum": TMA_SWIZZLE[sw][0], "tma_swizzle_value": TMA_SWIZZLE[sw][1],
                "tma_element_strides": [1, 1], "tma_interleave": "none",
                "tma_interleave_enum": "CU_TENSOR_MAP_INTERLEAVE_NONE",
                "tma_copies_per_stage": g["copies"], "tma_box_offsets": offsets,
                "global_dims": ["K", "MN"] if tile.major == "K" else ["MN", "K"]}

    @staticmethod
    def _inst_mn(op, f, c, tile):
        if c["arch"] == "sm90":
            return 64 if op == "a" else tile.mn
        return f["mma_m"] // c["cta_group"] if op == "a" else tile.mn


def with_cluster(row, cluster_m=1, tile_group=TILE_GROUP, cluster_n=1):
    """A plan row (:meth:`GemmPlans.row`) whose kernel section runs on clusters of ``cluster_m``
    CTAs along M that share B, and/or of ``cluster_n`` CTAs along N that share A, by TMA
    multicast, visiting tiles in groups of ``tile_group``. ``cluster_m`` is 1, 2 or 4,
    ``cluster_n`` 1 or 2.

    ``cluster_m=2``: the two CTAs of a cluster compute output tiles ``(2 p, n)`` and
    ``(2 p + 1, n)``, so they need the same B tile. Each loads half of it, every B copy cut in
    half along its outer box dimension (MN rows of a K-major B, K rows of an MN-major one: both
    halves are contiguous runs of box rows in the stage buffer), and multicasts it to both
    (``cp.async.bulk.tensor ... .multicast::cluster``); each CTA still loads its own A. Each
    CTA's "full" barrier still expects both operands' stage bytes (half of B comes from its
    peer); a stage is refilled only when the consumers of every CTA of the cluster have
    released it, so a consumer warpgroup arrives on the "empty" barrier of each CTA
    (``empty_arrivals`` = CTAs x W). Tile pairs ``p`` of ``ceil(tiles_m / 2) x tiles_n`` follow
    the grouped order; a CTA whose tile row is past M computes on zero-filled A and stores
    nothing. ``cluster_n=2``: the same with the roles of the operands exchanged: tiles
    ``(m, 2 q)`` and ``(m, 2 q + 1)`` share A, each CTA loads half of A's boxes and multicasts
    them (a tile column past N loads the last column's B and stores nothing). Both (a 2 x 2
    cluster, as cuBLAS runs on fp8 rows off the 32-byte sector): the CTA of rank
    ``r = rm + 2 rn`` computes tile ``(2 p + rm, 2 q + rn)``, loads half ``rm`` of B for the
    CTAs of its column (``rn``) and half ``rn`` of A for those of its row (``rm``).
    ``cluster_m=4`` (as cuBLAS runs narrow tiles over many tile rows): four tile rows share B,
    each CTA loading a quarter of its boxes (rank ``rm`` the part ``rm``); with ``cluster_n=2``,
    4 x 2 CTAs.

    ``kernel.multicast`` is None without a cluster, else one entry per shared operand:
    ``operand``, ``tma_box`` (the part box: half, or a quarter of B with ``cluster_m=4``),
    ``copies`` (per part, each box's shared-memory offset and coordinates), ``share`` (per
    cluster rank, the part it loads) and ``masks`` (per cluster rank, the ``ctaMask`` of the CTAs
    its copies land in). Returns a new dict.

    Examples
    --------
    >>> r = with_cluster(plan_gemm(bm=128, bn=256, bk=64, stages=3).row(0), 2)
    >>> r["kernel"]["cluster"], r["kernel"]["barriers"]["empty_arrivals"]
    ([2, 1], 4)
    >>> mc, = r["kernel"]["multicast"]
    >>> mc["operand"], mc["tma_box"], [c["smem_offset"] for c in mc["copies"][1]], mc["masks"]
    ('b', [64, 128], [16384], [3, 3])
    >>> r = with_cluster(plan_gemm(bm=128, bn=256, bk=64, stages=3).row(0), cluster_n=2)
    >>> mc, = r["kernel"]["multicast"]
    >>> r["kernel"]["cluster"], mc["operand"], mc["tma_box"], [c["coords"] for c in mc["copies"][1]]
    ([1, 2], 'a', [64, 64], [[0, 64]])
    >>> r = with_cluster(plan_gemm(bm=128, bn=256, bk=64, stages=3).row(0), 2, cluster_n=2)
    >>> [(m["operand"], m["share"], m["masks"]) for m in r["kernel"]["multicast"]]
    [('b', [0, 1, 0, 1], [3, 3, 12, 12]), ('a', [0, 0, 1, 1], [5, 10, 5, 10])]
    >>> r = with_cluster(plan_gemm(bm=64, bn=96, bk=64, stages=8).row(0), 4)
    >>> mc, = r["kernel"]["multicast"]
    >>> mc["tma_box"], [c[0]["smem_offset"] for c in mc["copies"]], mc["share"], mc["masks"]
    ([64, 24], [0, 3072, 6144, 9216], [0, 1, 2, 3], [15, 15, 15, 15])
    """
    import copy

    cluster_m = as_int("cluster_m", cluster_m)
    cluster_n = as_int("cluster_n", cluster_n)
    tile_group = as_int("tile_group", tile_group)
    if cluster_m not in (1, 2, 4):
        raise PlanError(f"cluster_m={cluster_m} must be 1, 2 or 4 (CTAs per cluster along M that "
                        f"share B by multicast)")
    if cluster_n not in (1, 2):
        raise PlanError(f"cluster_n={cluster_n} must be 1 or 2 (CTAs per cluster along N that "
                        f"share A by multicast)")
    if not 1 <= tile_group <= 1 << 16:
        raise PlanError(f"tile_group={tile_group} must be in 1..65536 (tile rows per group of the "
                        f"persistent tile order)")
    if not row.get("kernel"):
        raise PlanError("the row has no kernel section: clusters apply to legal sm90 plans")
    out = copy.deepcopy(row)
    k = out["kernel"]
    k["tile_order"]["group"] = tile_group
    if cluster_m == 1 and cluster_n == 1:
        return out
    size = cluster_m * cluster_n
    # rank r = rm + cluster_m rn: B is shared by the CTAs of one tile column (same rn), A by
    # those of one tile row (same rm)
    ranks = [(r % cluster_m, r // cluster_m) for r in range(size)]
    shared = [("b", cluster_m, lambda rm, rn: rm, lambda rm, rn: {rn * cluster_m + i for i in range(cluster_m)}),
              ("a", cluster_n, lambda rm, rn: rn, lambda rm, rn: {rm + cluster_m * j for j in range(cluster_n)})]
    entries = []
    for name, count, share, peers in shared:
        if count == 1:
            continue
        op = out[name]
        inner, outer = op["tma_box"]
        part = outer // count
        if outer % (8 * count):
            raise PlanError(f"{name.upper()}'s TMA box has {outer} outer rows: cutting it in {count} for "
                            f"multicast needs a multiple of {8 * count} (whole 8-row atoms per CTA); use "
                            f"another {'BN' if name == 'b' else 'BM'} / BK")
        row_bytes = inner * (DTYPES[op["dtype"]].bits // 8)
        entries.append({
            "operand": name, "tma_box": [inner, part],
            "copies": [[{"smem_offset": o["smem_offset"] + h * part * row_bytes,
                         "coords": [o["coords"][0], o["coords"][1] + h * part]}
                        for o in op["tma_box_offsets"]] for h in range(count)],
            "share": [share(rm, rn) for rm, rn in ranks],
            "masks": [sum(1 << c for c in peers(rm, rn)) for rm, rn in ranks]})
    k["cluster"] = [cluster_m, cluster_n]
    k["barriers"]["empty_arrivals"] = size * len(k["consumer_warpgroups"])
    k["multicast"] = entries
    return out


def multicast_of(kernel, operand):
    """The ``kernel.multicast`` entry of ``operand`` ("a" or "b") of a plan row's kernel section
    (:func:`with_cluster`), or None where that operand is not shared.

    >>> r = with_cluster(plan_gemm(bm=128, bn=256, bk=64, stages=3).row(0), 2)
    >>> multicast_of(r["kernel"], "b")["tma_box"], multicast_of(r["kernel"], "a")
    ([64, 128], None)
    """
    return next((m for m in kernel.get("multicast") or () if m["operand"] == operand), None)


def _epilogue_box_offsets(rows, cols, box, span):
    """The TMA boxes (``box``: inner elements x rows) that cover a rows x cols epilogue tile
    stored as column slabs of ``span`` bytes (rows inside a slab): each box's byte offset in the
    tile and its coordinates (column, row) relative to the tile's corner, slab by slab."""
    return [{"smem_offset": (cj * rows + ro) * span, "coords": [cj * box[0], ro]}
            for cj in range(cols // box[0]) for ro in range(0, rows, box[1])]


#: A split-K plan reduces in the GEMM kernel itself (``workspace.reduce == "last_cta"``) when each
#: consumer thread's partials of all splits, which the tile's last split reads back in one round
#: trip to L2, are at most this many registers (accumulator registers x splits): the swapped decode
#: tiles (64 or 128 x 8-32, 4-16 registers) with a few splits. On an H100 the in-kernel reduction
#: (its atomic, one L2 round trip, the stores: about 2.4 thousand cycles) took as long as the
#: reduction kernel behind a programmatic dependent launch (decode problems, within 0.5 us either
#: way, ``tests/gpu/gemm/trace.py``) and saves its launch; larger tiles keep the reduction kernel,
#: which spreads a tile over many CTAs.
LAST_CTA_REDUCE_REGISTERS = 64
#: The most splits a ``"last_cta"`` reduction takes: the last split reads a chunk of registers of
#: every split per L2 round trip, at most 64 loads at once (sm90/scheduler.cuh).
LAST_CTA_MAX_SPLITS = 64
#: Who adds split-K's partial sums (``with_schedule(reduce=)``, the kernel configuration's
#: ``split_reduce``): by :data:`LAST_CTA_REDUCE_REGISTERS`' rule, the tile's last split, or a
#: second kernel.
SPLIT_REDUCE = ("auto", "last_cta", "kernel")


def _stream_k_args(tiles, k_tiles, workers, pieces):
    for name, v in (("tiles", tiles), ("k_tiles", k_tiles), ("workers", workers)):
        if as_int(name, v) < 1:
            raise PlanError(f"{name}={v} must be >= 1 (stream-K shares tiles x k_tiles k-tile "
                            f"iterations among workers)")
    if as_int("pieces", pieces) < 2:
        raise PlanError(f"pieces={pieces} must be >= 2 (the most pieces a stream-K tile is cut into: "
                        f"the plan's split_k)")
    return int(tiles), int(k_tiles), int(workers), int(pieces)


def stream_k_tail(tiles, workers, pieces):
    """``(waves, tail, tail_workers)`` of stream-K (:func:`with_schedule`'s ``stream_k``): the
    tiles run whole in ``waves`` data-parallel waves of ``workers``; the ``tail`` tiles left are
    shared by ``min(workers, tail (pieces - 1))`` workers, so none is cut into more than
    ``pieces``.

    >>> stream_k_tail(162, 132, 8)   # one whole wave, 30 tiles among 132 workers
    (1, 30, 132)
    >>> stream_k_tail(45, 132, 3)    # fewer tiles than workers: each cut among 2 or 3
    (0, 45, 90)
    """
    tiles, _, workers, pieces = _stream_k_args(tiles, 1, workers, pieces)
    tail = tiles % workers
    return tiles // workers, tail, min(workers, tail * (pieces - 1))


def stream_k_units(tiles, k_tiles, workers, pieces):
    """Stream-K's work units, worker by worker, as the kernel walks them (sm90/scheduler.cuh):
    ``(worker, tile, k_begin, k_end, piece, pieces_of_tile)``. Worker ``b`` first runs whole
    tiles ``b, b + G, ...`` of the :func:`stream_k_tail` waves; then, when ``b`` is one of the
    ``W`` tail workers, iterations ``[floor(b T / W'), floor((b + 1) T / W'))`` of the tail's
    ``T = tail x k_tiles`` (``W' = min(W, T)``; the tail's tile ``t`` k-tile ``kt`` is iteration
    ``t k_tiles + kt``), where iteration ``x`` is worker ``floor(((x + 1) W' - 1) / T)``'s.
    ``piece`` counts a tile's pieces from its first k-tile (the order their partial sums are
    added in); a whole tile is piece 0 of 1.

    >>> stream_k_units(3, 4, 2, 3)   # one wave of two tiles, then tile 2 cut in two
    [(0, 0, 0, 4, 0, 1), (0, 2, 0, 2, 0, 2), (1, 1, 0, 4, 0, 1), (1, 2, 2, 4, 1, 2)]
    """
    tiles, k_tiles, workers, pieces = _stream_k_args(tiles, k_tiles, workers, pieces)
    waves, tail, share = stream_k_tail(tiles, workers, pieces)
    total = tail * k_tiles
    share = min(share, total)
    first_tail = waves * workers

    def worker(x):
        return ((x + 1) * share - 1) // total

    out = []
    for b in range(workers):
        out += [(b, b + i * workers, 0, k_tiles, 0, 1) for i in range(waves)]
        if b >= share:
            continue
        x, end = b * total // share, (b + 1) * total // share
        while x < end:
            t = x // k_tiles
            stop = min(end, (t + 1) * k_tiles)
            first = worker(t * k_tiles)
            out.append((b, first_tail + t, x - t * k_tiles, stop - t * k_tiles, b - first,
                        worker((t + 1) * k_tiles - 1) - first + 1))
            x = stop
    return out


def with_schedule(row, swap_ab=False, split_k=1, pingpong=False, reduce="auto", stream_k=0):
    """A plan row (:meth:`GemmPlans.row`, or :func:`with_cluster`'s) whose kernel section swaps
    the operands' roles and splits K.

    ``swap_ab=True``: the kernel computes D^T = B^T A^T, so its A is the caller's B (N x K), its
    B the caller's A, its BM spans the caller's N and its BN the caller's M (a small M becomes
    the wgmma's N, down to 8); accumulator element (row, col) of the kernel's tile is
    D[col][row] (``kernel.swap_ab``). The row itself (operands, tile) is already in the kernel's
    frame: build it from the swapped operands (``fastswz.cuda.codegen.plan_for`` does).

    ``split_k=S > 1``: work units are (output tile, split); split ``s`` of a tile's ``KT``
    k-tiles runs k-tiles ``[floor(s KT / S), floor((s + 1) KT / S))`` and stores its f32
    partial sums to a workspace instead of D (a split with no k-tile, when KT < S, is skipped);
    the nonempty splits' partials of each element are added in split order 0, 1, ..., S - 1 (a
    fixed order: results are bit-identical run to run) and D stored, by one of two reductions
    (``workspace.reduce``; ``reduce="auto"`` picks ``"last_cta"`` when the accumulator registers x
    S are at most :data:`LAST_CTA_REDUCE_REGISTERS`, else ``"kernel"``). ``"last_cta"`` (S <=
    :data:`LAST_CTA_MAX_SPLITS`): each split
    counts itself in on the tile's u32 semaphore (an acquire-release atomic add, after all its
    partials are written) and the split that arrives last reads the partials back, a chunk of
    registers of every split at a time, and stores D in the same kernel (the semaphores are zero
    before a launch and left zero). ``"kernel"``: a second kernel reduces every tile, ``reduce_ctas_per_tile`` CTAs per tile, one
    accumulator register pair each. Workspace layout
    (f32, ``kernel.scheduler.workspace``): per output tile ``t = tm * tiles_n + tn`` a block of
    ``S * BM * BN`` floats; inside it the CuTe layout ``(thread, register, warpgroup, split)``
    of the consumers' accumulators (warpgroup: A's MN block), thread fastest, so each warp's
    stores and loads are contiguous.

    ``stream_k=G > 0`` (stream-K as CUTLASS's data-parallel + stream-K hybrid; needs
    ``split_k >= 2``): the kernel runs as ``G`` workers (CTAs, or clusters). The tiles of the
    whole waves run whole, ``G`` at a time, in the grouped order; the ``tail`` tiles left
    (``tiles mod G``) are shared evenly, k-tile by k-tile, by ``min(G, tail (split_k - 1))``
    workers, so no tile is cut into more than ``split_k`` pieces (:func:`stream_k_tail`,
    :func:`stream_k_units`). A whole tile stores D; a cut tile's pieces store their partial sums
    in the workspace slot of their place in the tile (``split`` from the tile's first k-tile) and
    the piece that arrives last adds them in that order (``"last_cta"`` only): a fixed order
    for a given ``G``, so results are bit-identical run to run.

    ``pingpong=True`` (CUTLASS's ping-pong consumers; BM = 64 or 128 plans, one or two MN blocks):
    two consumer warpgroups take alternate work units of the CTA (``kernel.consumers``: slots 0
    and 1, each multiplying every MN block of its unit, ``blocks_per_consumer``), so one's
    epilogue overlaps the other's wgmma; each stage is consumed by one warpgroup, so a stage's
    empty barrier takes one arrival per CTA, and the kernel has 384 threads.
    Returns a new dict.

    Examples
    --------
    >>> r = with_schedule(plan_gemm(bm=128, bn=64, bk=64, stages=4).row(0), split_k=4)
    >>> s = r["kernel"]["scheduler"]
    >>> s["kind"], s["splits"], s["workspace"]["layout"], s["workspace"]["tile_bytes"]
    ('split_k', 4, '(128,32,2,4):(1,128,4096,8192)', 131072)
    >>> s["workspace"]["reduce"]
    'kernel'
    >>> w = with_schedule(plan_gemm(bm=64, bn=16, bk=64, stages=4).row(0), split_k=4)["kernel"]["scheduler"]
    >>> w["workspace"]["reduce"], w["workspace"]["semaphores"]["count"]
    ('last_cta', 'tiles_m * tiles_n')
    >>> r = with_schedule(plan_gemm(bm=128, bn=64, bk=64, stages=4).row(0), split_k=4, reduce="last_cta")
    >>> r["kernel"]["scheduler"]["workspace"]["reduce"]
    'last_cta'
    """
    import copy

    split_k = as_int("split_k", split_k)
    if split_k < 1:
        raise PlanError(f"split_k={split_k} must be >= 1 (K splits per output tile; 1: no split)")
    if reduce not in SPLIT_REDUCE:
        raise PlanError(f"reduce={reduce!r} must be one of {', '.join(map(repr, SPLIT_REDUCE))} (who adds "
                        f"split-K's partial sums: the tile's last split, a second kernel, or by the rule)")
    if reduce == "last_cta" and split_k > LAST_CTA_MAX_SPLITS:
        raise PlanError(f"reduce='last_cta' with split_k={split_k}: the last split reads back at most "
                        f"{LAST_CTA_MAX_SPLITS} splits' partials per round trip; use reduce='kernel' or "
                        f"split_k <= {LAST_CTA_MAX_SPLITS}")
    stream_k = as_int("stream_k", stream_k)
    if stream_k < 0:
        raise PlanError(f"stream_k={stream_k} must be >= 0 (stream-K workers; 0: none)")
    if stream_k and split_k < 2:
        raise PlanError(f"stream_k={stream_k} with split_k={split_k}: split_k is the most pieces a "
                        f"stream-K tail tile is cut into (its workspace slots); use split_k >= 2")
    if stream_k and reduce == "kernel":
        raise PlanError("stream_k with reduce='kernel': a stream-K tile's last piece adds the "
                        "partial sums in the GEMM kernel; use reduce='last_cta' or 'auto'")
    if not row.get("kernel"):
        raise PlanError("the row has no kernel section: schedules apply to legal sm90 plans")
    out = copy.deepcopy(row)
    k = out["kernel"]
    k["swap_ab"] = bool(swap_ab)
    if pingpong:
        blocks = len(k["consumers"]["blocks"])
        if blocks > 2:
            raise PlanError(f"pingpong with bm={row['bm']}: each ping-pong consumer warpgroup computes a "
                            f"whole tile, one m64 wgmma per MN block per k-step, and keeps at most "
                            f"two blocks' accumulators; use bm=64 or 128")
        k["threads"] = 3 * 128
        k["consumer_warpgroups"] = [1, 2]
        # each warpgroup multiplies every MN block of its units (blocks 0 .. blocks_per_consumer
        # - 1), and each stage is consumed by one warpgroup: one empty arrival per CTA whose
        # consumers release it (both with a 2-CTA cluster)
        k["consumers"] = {"kind": "pingpong", "tiles": 2, "blocks": [0, 0], "slots": [0, 1],
                          "blocks_per_consumer": blocks}
        k["barriers"]["empty_arrivals"] = k["cluster"][0] * k["cluster"][1]
        e = out.get("epilogue")
        if e:
            # each warpgroup stores its own tiles through its own half of the epilogue tiles,
            # one MN block (64 rows) at a time: boxes of 64 rows
            if e["stages"] % 2:
                raise PlanError(f"pingpong with an epilogue tile: epilogue_stages={e['stages']} must be "
                                f"even (each consumer warpgroup stores through its own half of the "
                                f"tiles); use epilogue_stages=2")
            e["tma_box"] = [e["tma_box"][0], min(e["rows"], 64)]
            e["tma_box_offsets"] = _epilogue_box_offsets(e["rows"], e["cols"], e["tma_box"],
                                                         SwizzleMode(e["swizzle"]).byte_width)
            e["slots"] = {"tiles_per_consumer": e["stages"] // 2, "box_rows": e["tma_box"][1]}
    if split_k == 1:
        return out
    regs, wgs = k["accumulator"]["registers"], out["warpgroups"]   # MN blocks of A (BM / 64)
    unit = 128 * regs * wgs
    # The last split to finish reduces the tile itself when its threads can read every split's
    # partials back at once (decode tiles, a few splits), saving the second kernel's launch;
    # larger ones go to the reduction kernel, which spreads a tile over kReduceCtasPerTile CTAs.
    last_cta = (regs * split_k <= LAST_CTA_REDUCE_REGISTERS) if reduce == "auto" else reduce == "last_cta"
    last_cta = last_cta or bool(stream_k)
    k["scheduler"] = {
        "kind": "stream_k" if stream_k else "split_k", "splits": split_k,
        "k_tiles": ("worker b of G: whole tiles b, b + G, ... of the floor(tiles / G) waves; then, of "
                    "W = min(G, tail (S - 1)) workers sharing the tail = tiles mod G, iterations "
                    "[floor(b T / W), floor((b + 1) T / W)) of T = tail x KT (tail tile t, k-tile kt: "
                    "t KT + kt)" if stream_k else
                    "split s of KT: [floor(s KT / S), floor((s + 1) KT / S)); empty ones skipped"),
        "workspace": {"dtype": "f32", "order": "tile, then (thread, register, warpgroup, split)",
                      "layout": f"(128,{regs},{wgs},{split_k}):(1,128,{128 * regs},{unit})",
                      "unit_floats": unit, "tile_floats": unit * split_k,
                      "tile_bytes": 4 * unit * split_k,
                      "bytes": "tiles_m * tiles_n * tile_bytes",
                      "reduce": "last_cta" if last_cta else "kernel",
                      "reduce_order": ("piece order from the tile's first k-tile" if stream_k else
                                       "split order 0..S-1 (nonempty splits)"),
                      "reduce_ctas_per_tile": regs // 2,
                      "semaphores": ({"dtype": "u32", "count": "tiles_m * tiles_n",
                                      "rule": "zero before the first launch; a tile's last split "
                                              "sets it back to zero"} if last_cta else None)}}
    if stream_k:
        k["scheduler"]["workers"] = stream_k
    return out
