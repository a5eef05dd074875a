"""The CUDA source of a GEMM plan: the emitted plan header, the MMA header, the kernel.

Everything here is text and needs no GPU and no CUDA package: :func:`kernel_sources` gives the
three files NVRTC (or nvcc) compiles for a configuration, so CI compiles the kernel family for a
grid of plans on a machine without a GPU. The kernel (``fastswz/kernels/gemm_sm90.cu``) holds
roles and control flow only; :func:`fastswz.emit_header` writes every layout constant, and
:func:`mma_header` the one wgmma instruction of the plan and the output conversion.
"""

from __future__ import annotations

import difflib
import hashlib
from importlib import resources

from ..dtypes import DTYPES, dtype as _lookup_dtype
from ..emit import emit_header
from ..errors import FastswzTypeError, PlanError
from ..plan import R_BUDGET, SMEM_OPTIN, TILE_GROUP, plan_gemm, plan_reason, with_cluster, with_schedule

__all__ = ["GEMM_KEYS", "OUT_DTYPES", "MAX_SPLIT_K", "REDUCE_KERNEL_NAME", "normalize_config",
           "supported", "plan_for", "kernel_row", "mma_header",
           "kernel_sources", "source_key", "KERNEL_NAME", "KERNEL_FILES", "PARAM_FIELDS",
           "params_struct", "inline_sources"]

KERNEL_NAME = "fastswz_gemm_sm90"
#: Output (D) element types of the kernel family.
OUT_DTYPES = ("bf16", "f16", "f32")
#: Keys of a kernel configuration (what :func:`fastswz.tune` returns, plus the operands and
#: the output). ``epilogue``: True to go through the plan's shared-memory epilogue tile and a
#: TMA store, False to store the registers straight to global memory. ``epilogue_n``: the
#: epilogue tile's columns (0: BN), stored as BN / epilogue_n column blocks one after another;
#: ``epilogue_stages``: epilogue tiles the blocks rotate through (2: a block's TMA store reads one
#: while the next block is written to the other). ``swap_ab``: compute D^T = B^T A^T (the
#: kernel's A is the caller's B; ``bm`` spans N and ``bn`` spans M, so a small M can be the
#: wgmma's N; dtypes, majors and swizzles keep naming the caller's A and B). ``split_k``: K
#: splits per output tile (1: none), partial sums in a workspace reduced in split order.
#: ``pingpong``: two consumer warpgroups on alternate output tiles (BM = 64), so one's epilogue
#: overlaps the other's wgmma.
GEMM_KEYS = ("arch", "a_dtype", "b_dtype", "a_major", "b_major", "bm", "bn", "bk", "stages",
             "swizzle_a", "swizzle_b", "cta_group", "out_dtype", "epilogue", "tile_group",
             "cluster_m", "epilogue_n", "epilogue_stages", "swap_ab", "split_k", "pingpong")
_DEFAULTS = {"arch": "sm90", "a_dtype": "bf16", "b_dtype": "bf16", "a_major": "K", "b_major": "K",
             "bm": 128, "bn": 256, "bk": 64, "stages": 4, "swizzle_a": "auto", "swizzle_b": "auto",
             "cta_group": 1, "out_dtype": "bf16", "epilogue": False, "tile_group": TILE_GROUP, "cluster_m": 1,
             "epilogue_n": 0, "epilogue_stages": 1, "swap_ab": False, "split_k": 1,
             "pingpong": False}
# wgmma input kinds the kernel family runs (PTX 9.7.15.5.2): f16/bf16 with both majors;
# tf32 and fp8 K-major only (imm-trans exists for .f16/.bf16 alone).
_INPUTS = {"f16": "f16", "bf16": "bf16", "tf32": "tf32", "f32": "tf32", "e4m3": "e4m3", "e5m2": "e5m2"}


_REG_OVERHEAD = 32


#: Fields of tune rows, plan rows and measured rows that a configuration may carry and
#: :func:`normalize_config` ignores.
_ROW_FIELDS = frozenset({
    "bound", "efficiency", "instruction", "model_cycles", "occupancy", "rank", "smem_bytes", "tiles",
    "waves", "a", "b", "barrier_bytes", "barrier_offset", "instr_descriptor", "kernel", "legal",
    "mma_per_k_tile", "reason", "reason_code", "smem_base", "smem_budget", "warpgroups",
    "model_rank", "measured_ms", "measured_tflops", "spread", "median_ms", "min_ms", "max_ms",
    "tflops", "error", "name", "m", "n", "k", "config"})


def normalize_config(config=None, **overrides) -> dict:
    """A full configuration dict from a partial one (``tune`` rows and plan rows fit).

    Examples
    --------
    >>> c = normalize_config({"bm": 128, "bn": 128}, out_dtype="f32")
    >>> c["bm"], c["bn"], c["out_dtype"], c["epilogue"]
    (128, 128, 'f32', False)
    """
    if config is not None and not isinstance(config, dict):
        raise FastswzTypeError(f"config={type(config).__name__} must be a dict of plan fields "
                               f"({', '.join(GEMM_KEYS)})")
    c = dict(_DEFAULTS)
    # A plan row's epilogue section carries the tile's columns: keep them unless told otherwise.
    for src in (config or {}, overrides):
        e = src.get("epilogue")
        if isinstance(e, dict) and "epilogue_n" not in src and e.get("cols") not in (None, src.get("bn")):
            c["epilogue_n"] = e["cols"]
        if isinstance(e, dict) and "epilogue_stages" not in src and e.get("stages"):
            c["epilogue_stages"] = e["stages"]
    for src in (config or {}, overrides):
        for k, v in src.items():
            if k in GEMM_KEYS:
                c[k] = v
            else:
                # Rows of tune, plans and measurements carry other fields, which are ignored;
                # a near miss of a key ("stage", "swizzle") would silently keep the default.
                near = k not in _ROW_FIELDS and difflib.get_close_matches(str(k), GEMM_KEYS, n=1, cutoff=0.8)
                if near:
                    raise PlanError(f"{k}={v!r} is not a configuration key: did you mean "
                                    f"{near[0]!r}? (keys: {', '.join(GEMM_KEYS)})")
    if c["epilogue_n"] is None:
        c["epilogue_n"] = 0
    for k in ("bm", "bn", "bk", "stages", "cta_group", "tile_group", "cluster_m", "epilogue_n",
              "epilogue_stages", "split_k"):
        if isinstance(c[k], bool) or not isinstance(c[k], int):
            try:
                c[k] = int(c[k])
            except (TypeError, ValueError):
                raise FastswzTypeError(f"{k}={c[k]!r} must be an int") from None
    for k in ("a_dtype", "b_dtype", "out_dtype"):
        c[k] = _lookup_dtype(c[k]).name
    if isinstance(c["epilogue"], dict) or c["epilogue"] is None:
        c["epilogue"] = c["epilogue"] is not None   # a plan row's epilogue section, or none
    if c["epilogue"] not in (True, False):   # True/False, 1/0, numpy bools; not "no"
        raise FastswzTypeError(f"epilogue={c['epilogue']!r} must be True or False (store D through "
                               f"the plan's shared-memory epilogue tile or from registers)")
    c["epilogue"] = bool(c["epilogue"])
    if c["swap_ab"] not in (True, False):
        raise FastswzTypeError(f"swap_ab={c['swap_ab']!r} must be True or False (compute D^T = B^T A^T "
                               f"so that M becomes the wgmma's N)")
    c["swap_ab"] = bool(c["swap_ab"])
    if c["pingpong"] not in (True, False):
        raise FastswzTypeError(f"pingpong={c['pingpong']!r} must be True or False (two consumer "
                               f"warpgroups on alternate tiles)")
    c["pingpong"] = bool(c["pingpong"])
    if not 1 <= c["tile_group"] <= 1 << 16:
        raise PlanError(f"tile_group={c['tile_group']} must be in 1..65536 (tile rows per group of "
                        f"the persistent tile order)")
    return c


#: Bytes the kernel asks for beyond the plan: it rounds its dynamic shared-memory base up to the
#: 1024-byte swizzle pattern (seen on an H100: a plan of 231520 bytes + this failed
#: cuFuncSetAttribute against the 232448-byte opt-in limit).
BASE_ALIGN_SLACK = 1024
#: The most K splits per output tile (split_k): a split keeps at least one k-tile only while
#: K / BK >= split_k, and the workspace grows with it.
MAX_SPLIT_K = 256


def plan_for(config):
    """The one-configuration :class:`~fastswz.GemmPlans` of a kernel configuration."""
    c = normalize_config(config)
    a, b = ("b", "a") if c["swap_ab"] else ("a", "b")   # swapped: the kernel's A is the caller's B
    return plan_gemm(c["arch"], c[a + "_dtype"], c[b + "_dtype"], c[a + "_major"], c[b + "_major"], c["bm"],
                     c["bn"], c["bk"], c["stages"], c["swizzle_" + a], c["swizzle_" + b],
                     c["out_dtype"] if c["epilogue"] else None, "auto", None, c["cta_group"],
                     epilogue_n=c["epilogue_n"] if c["epilogue"] else None,
                     epilogue_stages=c["epilogue_stages"] if c["epilogue"] else 1)


def supported(config) -> "str | None":
    """None when the sm90 kernel family runs this configuration, else the reason it does not.

    Examples
    --------
    >>> supported({"bm": 128, "bn": 256, "bk": 64, "stages": 4}) is None
    True
    >>> supported({"a_dtype": "s8", "b_dtype": "s8"})
    'a_dtype=s8: the kernel family takes f16, bf16, tf32/f32, e4m3 and e5m2 inputs'
    """
    try:
        c = normalize_config(config)
    except Exception as e:  # noqa: BLE001 - the reason is the error's text
        return str(e)
    key = tuple(c[k] for k in GEMM_KEYS)
    if key in _SUPPORTED:   # a plan's verdict does not change: choose_plan asks again and again
        return _SUPPORTED[key]
    why = _supported(c)
    if len(_SUPPORTED) >= 1 << 16:
        _SUPPORTED.clear()
    _SUPPORTED[key] = why
    return why


_SUPPORTED = {}


def _supported(c):
    if c["arch"] != "sm90":
        return f"arch={c['arch']}: the kernel family is sm_90a (wgmma); tcgen05 kernels are not built"
    if c["cta_group"] != 1:
        return "cta_group=2 is a tcgen05 feature"
    for op in ("a", "b"):
        if c[op + "_dtype"] not in _INPUTS:
            return (f"{op}_dtype={c[op + '_dtype']}: the kernel family takes f16, bf16, tf32/f32, "
                    f"e4m3 and e5m2 inputs")
    if c["split_k"] < 1 or c["split_k"] > MAX_SPLIT_K:
        return (f"split_k={c['split_k']} must be in 1..{MAX_SPLIT_K} (K splits per output tile; "
                f"1: no split)")
    if c["split_k"] > 1 and c["epilogue"]:
        return (f"split_k={c['split_k']} with epilogue=True: the split-K reduction stores D from "
                f"registers; use epilogue=False")
    if c["swap_ab"] and c["epilogue"]:
        return ("swap_ab=True with epilogue=True: D is stored transposed from registers (the "
                "epilogue tile is row-major over the kernel's tile); use epilogue=False")
    if c["pingpong"] and c["bm"] != 64:
        return (f"pingpong=True with bm={c['bm']}: each ping-pong consumer warpgroup computes a whole "
                f"tile with one m64 wgmma per k-step; use bm=64")
    if c["pingpong"] and c["epilogue"]:
        return ("pingpong=True with epilogue=True: the two consumer warpgroups store different "
                "tiles at once and the epilogue tile is shared; use epilogue=False")
    if c["stages"] < 2:
        return ("stages=1: the kernel keeps one k-tile's wgmma in flight while the next k-tile "
                "loads, so its stage ring needs at least 2 stages")
    if c["out_dtype"] not in OUT_DTYPES:
        return f"out_dtype={c['out_dtype']}: the kernel writes {', '.join(OUT_DTYPES)}"
    if (c["epilogue_n"] or c["epilogue_stages"] != 1) and not c["epilogue"]:
        k = "epilogue_n" if c["epilogue_n"] else "epilogue_stages"
        return (f"{k}={c[k]}: a property of the shared-memory epilogue tile; registers store "
                f"straight to global memory without one (use epilogue=True)")
    try:
        p = plan_for(c)
    except PlanError as e:
        return str(e)
    r = int(p["reason"].ravel()[0])
    need = int(p["smem_bytes"].ravel()[0])
    if r in (0, R_BUDGET) and need + BASE_ALIGN_SLACK > SMEM_OPTIN["sm90"]:
        return (f"{plan_reason(R_BUDGET)}: {need} bytes of shared memory + {BASE_ALIGN_SLACK} for "
                f"the kernel's base alignment = {need + BASE_ALIGN_SLACK} > {SMEM_OPTIN['sm90']}, "
                f"the opt-in limit; use fewer stages, a smaller tile or epilogue_n")
    if r:
        return plan_reason(r)
    # Registers: ptxas compiles the whole kernel under the entry cap 65536 / threads (setmaxnreg
    # moves registers at run time, not at compile time). A consumer thread holds BN/2 f32
    # accumulators plus addressing: ptxas asked for exactly BN/2 + 26 on every plan it refused
    # (BM 192/256, BN 144-240); 32 is kept as the margin.
    threads = (c["bm"] // 64 + 1) * 128 if not c["pingpong"] else 3 * 128
    cap = min(255, 65536 // threads // 8 * 8)
    if c["bn"] // 2 + _REG_OVERHEAD > cap:
        most = (cap - _REG_OVERHEAD) * 2 // 8 * 8
        return (f"bm={c['bm']} bn={c['bn']}: {threads} threads leave {cap} registers per thread "
                f"(65536 / threads) and the 64 x BN f32 accumulator needs BN/2 = {c['bn'] // 2} plus "
                f"about {_REG_OVERHEAD}; use bn <= {most} with this BM")
    if c["cluster_m"] not in (1, 2):
        return f"cluster_m={c['cluster_m']}: clusters of 1 or 2 CTAs along M"
    if c["cluster_m"] == 2 and p.row(0)["b"]["tma_box"][1] % 16:
        return (f"cluster_m=2: B's TMA box has {p.row(0)['b']['tma_box'][1]} outer rows; each CTA "
                f"multicasts half of them, so they must be a multiple of 16")
    if c["epilogue"] and p.row(0)["epilogue"]["layout"] is None:
        return (f"bn={c['bn']}: the epilogue tile's row is not a whole number of 32-byte steps of "
                f"{c['out_dtype']}, so it has no canonical layout; use epilogue=False or another BN")
    return None


def _asm_types(row):
    # "wgmma.m64n256k16.f32.bf16.bf16" -> ("m64n256k16", ".f32.bf16.bf16")
    head, _, types = row["instruction"].partition(".f32")
    return head.split(".")[1], ".f32" + types


def mma_header(row, out_dtype) -> str:
    """``fastswz_mma.h``: the plan's wgmma as ``fsw_mma(d, desc_a, desc_b, scale_d)`` and the
    conversion of f32 accumulators to ``out_dtype`` stores.

    The accumulator registers are N/2 separate asm operands (128 for N = 256), which is why
    this is generated rather than written. Transpose immediates (f16/bf16 only) follow the
    plan's majors: 1 for an MN-major operand (PTX 9.7.15.5.2, imm-trans-a/b).

    Examples
    --------
    >>> from fastswz import plan_gemm
    >>> h = mma_header(plan_gemm(bn=64).row(0), "bf16")
    >>> [ln.strip() for ln in h.splitlines() if "wgmma.mma_async" in ln]
    ['"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "']
    """
    shape, types = _asm_types(row)
    n = row["bn"]
    nreg = n // 2
    ia, ib, isd = nreg, nreg + 1, nreg + 2
    kind = _INPUTS[row["a"]["dtype"]]
    if kind in ("f16", "bf16"):
        ta, tb = (int(row[op]["major"] == "MN") for op in ("a", "b"))
        tail, imm = f"p, 1, 1, {ta}, {tb}", ""
    else:
        tail, imm = "p, 1, 1", ""
    regs = ", ".join(f"%{i}" for i in range(nreg))
    outs = ",\n        ".join(", ".join(f'"+f"(d[{j}])' for j in range(i, min(i + 8, nreg)))
                              for i in range(0, nreg, 8))
    out = _lookup_dtype(out_dtype).name
    ctype = {"bf16": "unsigned short", "f16": "unsigned short", "f32": "float"}[out]
    lines = [
        "// Generated by fastswz.cuda.codegen.mma_header from the plan. Do not edit.",
        f"// {row['instruction']}, A {row['a']['major']}-major, B {row['b']['major']}-major; D {out}",
        "#pragma once",
        f"#define FSW_EPILOGUE_TILE {1 if row.get('epilogue') else 0}",
        f"#define FSW_SPLIT_K {1 if row['kernel']['scheduler']['kind'] == 'split_k' else 0}",
        "// The kernel's last parameter (fastswz.cuda.codegen.PARAM_FIELDS, packed by params_struct)",
        _params_c(),
        f"typedef {ctype} FSW_OUT_T;",
        f"__device__ __forceinline__ void fsw_mma(float (&d)[{nreg}], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {{",
        "  asm volatile(",
        '      "{\\n.reg .pred p;\\n"',
        f'      "setp.ne.b32 p, %{isd}, 0;\\n"',
        f'      "wgmma.mma_async.sync.aligned.{shape}{types} "',
        f'      "{{{regs}}}, "',
        f'      "%{ia}, %{ib}, {tail};\\n}}\\n"',
        f"      : {outs}",
        f'      : "l"(desc_a), "l"(desc_b), "r"(scale_d){imm});',
        "}",
    ]
    if out == "f32":
        lines += [
            "__device__ __forceinline__ void fsw_store_shared_pair(uint32_t addr, float a, float b) {",
            '  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(a), "f"(b) : "memory");',
            "}",
            "__device__ __forceinline__ void fsw_store_global_pair(float* p, float a, float b) {",
            "  *reinterpret_cast<float2*>(p) = make_float2(a, b);",
            "}",
            "__device__ __forceinline__ void fsw_store_global(float* p, float a) { *p = a; }",
        ]
    else:
        cvt = "bf16" if out == "bf16" else "f16"
        lines += [
            f"// f32 -> {cvt}, round to nearest even (PTX cvt.rn.{cvt}x2.f32: the first source is the upper half)",
            "__device__ __forceinline__ uint32_t fsw_pack(float a, float b) {",
            "  uint32_t r;",
            f'  asm("cvt.rn.{cvt}x2.f32 %0, %2, %1;" : "=r"(r) : "f"(a), "f"(b));',
            "  return r;",
            "}",
            "__device__ __forceinline__ void fsw_store_shared_pair(uint32_t addr, float a, float b) {",
            '  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(fsw_pack(a, b)) : "memory");',
            "}",
            "__device__ __forceinline__ void fsw_store_global_pair(unsigned short* p, float a, float b) {",
            "  *reinterpret_cast<uint32_t*>(p) = fsw_pack(a, b);",
            "}",
            "__device__ __forceinline__ void fsw_store_global(unsigned short* p, float a) {",
            "  *p = (unsigned short)(fsw_pack(a, 0.0f) & 0xffffu);",
            "}",
        ]
    return "\n".join(lines) + "\n"


def kernel_row(config) -> dict:
    """The plan row the kernel is built from: :func:`plan_for`'s row with the configuration's
    cluster and tile order (:func:`fastswz.plan.with_cluster`), its swapped roles and K splits
    (:func:`fastswz.plan.with_schedule`)."""
    c = normalize_config(config)
    return with_schedule(with_cluster(plan_for(c).row(0), c["cluster_m"], c["tile_group"]),
                         c["swap_ab"], c["split_k"], c["pingpong"])


#: The kernel's source files (package data under ``fastswz/kernels``), the entry first.
KERNEL_FILES = ("gemm_sm90.cu", "sm90/debug.cuh", "sm90/ptx.cuh", "sm90/scheduler.cuh",
                "sm90/epilogue.cuh", "sm90/splitk.cuh")
#: The split-K reduction kernel (same source; built when the plan splits K).
REDUCE_KERNEL_NAME = "fastswz_splitk_reduce"


def _kernel_text(name="gemm_sm90.cu"):
    return resources.files("fastswz").joinpath("kernels", *name.split("/")).read_text()


#: The kernel's last parameter, ``FswParams`` (passed by value after the three tensor maps), as
#: ``(field, C type, struct format)``: :func:`mma_header` writes the C struct and
#: :func:`params_struct` packs it, so the two cannot disagree.
PARAM_FIELDS = (
    ("d", "void*", "Q"),            # D's base address (the register-store epilogue writes through it)
    ("ldd", "long long", "q"),      # D's row pitch in elements
    ("m", "int", "i"),
    ("n", "int", "i"),
    ("k", "int", "i"),
    ("workspace", "void*", "Q"),    # split-K: the f32 partial sums (kernel.scheduler.workspace); else 0
)


def params_struct():
    """The :class:`struct.Struct` that packs :data:`PARAM_FIELDS` as the kernel's ``FswParams``
    (native alignment of x86-64 and aarch64 C, padded to its 8-byte alignment).

    >>> s = params_struct()
    >>> s.size, len(s.pack(0x7f0000000000, 4096, 1, 2, 3, 0))
    (40, 40)
    """
    import struct

    return struct.Struct("@" + "".join(f for _, _, f in PARAM_FIELDS) + "0q")


def _params_c():
    body = "".join(f"  {ct} {name};\n" for name, ct, _ in PARAM_FIELDS)
    return f"struct FswParams {{\n{body}}};"


def kernel_sources(config) -> dict:
    """``{file name: text}`` of the three files of a configuration's kernel.

    Raises :class:`~fastswz.PlanError` naming the reason when the kernel family does not run
    the configuration (:func:`supported`).

    Examples
    --------
    >>> src = kernel_sources({"bm": 128, "bn": 128, "bk": 64, "stages": 4})
    >>> sorted(src)[:3], len(src)
    (['fastswz_mma.h', 'fastswz_plan.h', 'gemm_sm90.cu'], 8)
    """
    c = normalize_config(config)
    why = supported(c)
    if why:
        raise PlanError(f"the sm90 GEMM kernel does not run this configuration: {why}")
    row = kernel_row(c)
    return {"fastswz_plan.h": emit_header(row, name="fastswz_plan"),
            "fastswz_mma.h": mma_header(row, c["out_dtype"]),
            **{name: _kernel_text(name) for name in KERNEL_FILES}}


def inline_sources(sources) -> str:
    """One translation unit of :func:`kernel_sources`: every ``#include "name"`` of a file in
    ``sources`` replaced by that file's text, once each (the files are ``#pragma once``), so
    NVRTC and nvcc compile the same text with no include path."""
    import re

    seen = set()

    def expand(name):
        if name in seen:
            return ""
        seen.add(name)
        folder = name.rpartition("/")[0]

        def sub(m):
            inc = m.group(1)
            path = inc if inc in sources else (f"{folder}/{inc}" if folder else inc)
            if path not in sources:
                raise PlanError(f"{name} includes {inc!r}, which is not among the kernel sources")
            return expand(path)

        return re.sub(r'^#include "([^"]+)"[^\n]*$', sub, sources[name], flags=re.M)

    return expand("gemm_sm90.cu")


def source_key(sources, arch="sm_90a", extra="") -> str:
    """A hex digest of the sources, the target and the compiler (the cubin cache key)."""
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + sources[name].encode() + b"\0")
    h.update(arch.encode() + b"\0" + extra.encode())
    return h.hexdigest()[:32]


def dtype_bits(name) -> int:
    return DTYPES[_lookup_dtype(name).name].bits
