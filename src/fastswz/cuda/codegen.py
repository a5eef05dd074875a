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
import math
from importlib import resources

from ..dtypes import DTYPES, dtype as _lookup_dtype
from ..emit import emit_header
from ..errors import FastswzTypeError, PlanError
from ..plan import (LAST_CTA_MAX_SPLITS, R_BUDGET, SMEM_OPTIN, SPLIT_REDUCE, TILE_GROUP, plan_gemm, plan_reason,
                    multicast_of, with_cluster, with_schedule)

__all__ = ["GEMM_KEYS", "OUT_DTYPES", "MAX_SPLIT_K", "REDUCE_KERNEL_NAME", "normalize_config",
           "supported", "plan_for", "kernel_row", "mma_header",
           "kernel_sources", "source_key", "KERNEL_NAME", "KERNEL_FILES", "PARAM_FIELDS",
           "params_struct", "inline_sources", "launch_meta", "generator_key", "PARAM_CORE",
           "ACTIVATIONS", "SCALES", "EPILOGUE_IN_DTYPES", "fusion_header", "params_packer",
           "BLOCK_SCALE_K"]

KERNEL_NAME = "fastswz_gemm_sm90"
#: Output (D) element types of the kernel family (fp8: saturated to the largest finite value,
#: PTX ``cvt.rn.satfinite``, after the optional ``out_scale``).
OUT_DTYPES = ("bf16", "f16", "f32", "e4m3", "e5m2")
#: Activations of the fused epilogue (``activation``): torch's ``relu``, ``gelu`` (erf;
#: ``approximate='none'``), ``gelu(approximate='tanh')`` and ``silu``, evaluated in f32.
ACTIVATIONS = ("identity", "relu", "gelu", "gelu_tanh", "silu")
_ACT_ALIASES = {None: "identity", "none": "identity", "gelu_erf": "gelu"}
#: Scale forms (``scale``): none; ``tensor`` (one f32 each for A and B, as torch._scaled_mm's
#: default); ``row`` (A per row (M, 1), B per column (1, N): _scaled_mm's rowwise form); ``block``
#: (DeepSeek-V3: A per row per 128 of K, B per 128 x 128 block, promoted to f32 every k-tile).
SCALES = ("none", "tensor", "row", "block")
#: Types the fused epilogue reads for ``bias`` and the residual ``c``.
EPILOGUE_IN_DTYPES = ("bf16", "f16", "f32")
#: K (and N) extent of one block scale (DeepSeek-V3's 1 x 128 / 128 x 128 blocks).
BLOCK_SCALE_K = 128
#: K-tiles per group of a block-scaled plan's scale loads, issued a group ahead of their use (and
#: a promoting plan runs its main loop unrolled this many times): on an H100 at 4096 x 7168 x 7168,
#: 351 us by groups of four, 382 of two, 384 of six, 377 of eight (sm90/block_scale.cuh).
BLOCK_SCALE_AHEAD = 4
#: A block-scaled tile whose BN does not divide 128 spans two of B's 128-column scale blocks; the
#: tile's first column is then a multiple of gcd(BN, 128) past a block's start, and the consumer
#: promotes with one of 128 / gcd(BN, 128) unrolled register maps (which registers take the
#: second block's scale), chosen per tile: at least this gcd keeps them to four.
BLOCK_SCALE_B_GRAIN = 32
#: Registers per thread of the producer warpgroup after ``setmaxnreg.dec`` (the kernel's
#: ``kProducerRegs``); the consumers' share after ``setmaxnreg.inc`` follows from it.
PRODUCER_REGS = 40
#: Keys of a kernel configuration (what :func:`fastswz.tune` returns, plus the operands and
#: the output). ``epilogue``: True to go through the plan's shared-memory epilogue tile and a
#: TMA store, False to store the registers straight to global memory. ``epilogue_n``: the
#: epilogue tile's columns (0: BN), stored as BN / epilogue_n column blocks one after another;
#: ``epilogue_stages``: epilogue tiles the blocks rotate through (2: a block's TMA store reads one
#: while the next block is written to the other). ``swap_ab``: compute D^T = B^T A^T (the
#: kernel's A is the caller's B; ``bm`` spans N and ``bn`` spans M, so a small M can be the
#: wgmma's N; dtypes, majors and swizzles keep naming the caller's A and B). ``split_k``: K
#: splits per output tile (1: none), partial sums in a workspace reduced in split order;
#: ``split_reduce``: who adds them (``"auto"``: :data:`fastswz.plan.LAST_CTA_REDUCE_REGISTERS`'
#: rule; ``"last_cta"``: the tile's last split, in the GEMM kernel; ``"kernel"``: a second kernel).
#: ``stream_k``: stream-K workers (0: none): the kernel runs as that many CTAs (or clusters), whole
#: tiles in whole waves and the tail tiles shared k-tile by k-tile, each cut into at most
#: ``split_k`` pieces (:func:`fastswz.plan.with_schedule`, :func:`fastswz.plan.stream_k_units`).
#: ``pingpong``: two consumer warpgroups on alternate output tiles (BM = 64 or 128: one or two
#: MN blocks each), so one's epilogue
#: overlaps the other's wgmma. ``cluster_m`` / ``cluster_n``: clusters of 2 or 4 CTAs along M sharing
#: B, and/or of 2 along N sharing A (both: 2 x 2 or 4 x 2), by TMA multicast
#: (:func:`fastswz.plan.with_cluster`).
GEMM_KEYS = ("arch", "a_dtype", "b_dtype", "a_major", "b_major", "bm", "bn", "bk", "stages",
             "swizzle_a", "swizzle_b", "cta_group", "out_dtype", "epilogue", "tile_group",
             "cluster_m", "epilogue_n", "epilogue_stages", "swap_ab", "split_k", "pingpong",
             "split_reduce", "stream_k", "cluster_n",
             # the fused epilogue and the scales (issue 28): D = act(alpha acc s + beta C + bias)
             "activation", "bias", "residual", "scale", "amax", "promote")
#: The configuration keys of the fused epilogue, with their "nothing fused" values. ``promote``:
#: add each k-tile's tensor-core partial sums to an f32 total (what ``use_fast_accum=False``
#: asks of torch._scaled_mm; implied by ``scale="block"``).
FUSION_DEFAULTS = {"activation": "identity", "bias": None, "residual": None, "scale": "none",
                   "amax": False, "promote": False}
_DEFAULTS = {"arch": "sm90", "a_dtype": "bf16", "b_dtype": "bf16", "a_major": "K", "b_major": "K",
             "bm": 128, "bn": 256, "bk": 64, "stages": 4, "swizzle_a": "auto", "swizzle_b": "auto",
             "cta_group": 1, "out_dtype": "bf16", "epilogue": False, "tile_group": TILE_GROUP, "cluster_m": 1,
             "epilogue_n": 0, "epilogue_stages": 1, "swap_ab": False, "split_k": 1, "pingpong": False,
             "split_reduce": "auto", "stream_k": 0, "cluster_n": 1, **FUSION_DEFAULTS}
# wgmma input kinds the kernel family runs (PTX 9.7.15.5.2): f16/bf16 with both majors;
# tf32 and fp8 K-major only (imm-trans exists for .f16/.bf16 alone).
_INPUTS = {"f16": "f16", "bf16": "bf16", "tf32": "tf32", "f32": "tf32", "e4m3": "e4m3", "e5m2": "e5m2"}


_REG_OVERHEAD = 32


def consumer_registers(config):
    """Registers per consumer thread after ``setmaxnreg.inc`` (PTX 9.7.17.1), as the kernel
    computes them (``kConsumerRegs``: what the producer warpgroup's :data:`PRODUCER_REGS` leave,
    at most 240, a multiple of 8), or None where the kernel does not reallocate (four or more
    consumer warpgroups). ptxas allocates the code after ``setmaxnreg.inc`` with this count.

    >>> consumer_registers({"bm": 128, "pingpong": False}), consumer_registers({"bm": 64, "pingpong": False})
    (232, 240)
    """
    groups = 2 if config["pingpong"] else config["bm"] // 64
    if groups >= 4:
        return None
    return min(240, (65536 - 128 * PRODUCER_REGS) // (groups * 128)) // 8 * 8


def scale_b_blocks(bn):
    """How many of B's 128-column scale blocks a block-scaled tile of ``bn`` columns can span (1
    where BN divides 128; else 2 while (128 - gcd(BN, 128)) + BN <= 256, the widest offset of a
    tile's first column into a block plus its width), and the register maps the consumer keeps
    for the tile's offsets (128 / gcd(BN, 128) with two blocks, else 1).

    >>> scale_b_blocks(128), scale_b_blocks(160), scale_b_blocks(192), scale_b_blocks(224)
    ((1, 1), (2, 4), (2, 2), (3, 4))
    """
    if BLOCK_SCALE_K % bn == 0:
        return 1, 1
    g = math.gcd(bn, BLOCK_SCALE_K)
    return -(-(BLOCK_SCALE_K - g + bn) // BLOCK_SCALE_K), BLOCK_SCALE_K // g


#: Fields of tune rows, plan rows and measured rows that a configuration may carry and
#: :func:`normalize_config` ignores.
_ROW_FIELDS = frozenset({
    "bound", "efficiency", "instruction", "model_cycles", "occupancy", "rank", "smem_bytes", "tiles",
    "waves", "a", "b", "barrier_bytes", "barrier_offset", "instr_descriptor", "kernel", "legal",
    "mma_per_k_tile", "reason", "reason_code", "smem_base", "smem_budget", "warpgroups",
    "model_rank", "measured_ms", "measured_tflops", "spread", "median_ms", "min_ms", "max_ms",
    "tflops", "error", "name", "m", "n", "k", "config", "fusion"})


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
    # ... and a kernel row (kernel_row) its fused epilogue
    for src in (config or {}, overrides):
        f = src.get("fusion")
        if isinstance(f, dict):
            c.update({k: f[k] for k in FUSION_DEFAULTS if k in f and k not in src})
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
    for k in ("bm", "bn", "bk", "stages", "cta_group", "tile_group", "cluster_m", "cluster_n", "epilogue_n",
              "epilogue_stages", "split_k", "stream_k"):
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
    if c["split_reduce"] not in SPLIT_REDUCE:
        raise PlanError(f"split_reduce={c['split_reduce']!r} must be one of {', '.join(SPLIT_REDUCE)} (who "
                        f"adds split-K's partial sums: by the rule, the tile's last split, or a second "
                        f"kernel)")
    _normalize_fusion(c)
    if not 1 <= c["tile_group"] <= 1 << 16:
        raise PlanError(f"tile_group={c['tile_group']} must be in 1..65536 (tile rows per group of "
                        f"the persistent tile order)")
    return c


def _normalize_fusion(c):
    act = c["activation"]
    act = _ACT_ALIASES.get(act.lower() if isinstance(act, str) else act, act)
    if act not in ACTIVATIONS:
        raise PlanError(f"activation={c['activation']!r} is not one of {', '.join(ACTIVATIONS)} "
                        f"('gelu' is erf GELU, 'gelu_tanh' torch's approximate='tanh')")
    c["activation"] = act
    for k in ("bias", "residual"):
        v = c[k]
        if v is False or v is None:
            c[k] = None
            continue
        if v is True:
            raise FastswzTypeError(f"{k}=True: name the type the kernel reads ({', '.join(EPILOGUE_IN_DTYPES)})")
        name = _lookup_dtype(v).name
        if name not in EPILOGUE_IN_DTYPES:
            raise PlanError(f"{k}={name}: the epilogue reads {', '.join(EPILOGUE_IN_DTYPES)}")
        c[k] = name
    sc = "none" if c["scale"] in (None, False) else c["scale"]
    if sc not in SCALES:
        raise PlanError(f"scale={c['scale']!r} is not one of {', '.join(SCALES)}")
    c["scale"] = sc
    if c["amax"] not in (True, False):
        raise FastswzTypeError(f"amax={c['amax']!r} must be True or False (write max |D| to a device scalar)")
    c["amax"] = bool(c["amax"])
    if c["promote"] not in (True, False):
        raise FastswzTypeError(f"promote={c['promote']!r} must be True or False (f32 promotion of the "
                               f"partial sums every k-tile)")
    c["promote"] = bool(c["promote"]) or sc == "block"


#: Bytes the kernel asks for beyond the plan: it rounds its dynamic shared-memory base up to the
#: 1024-byte swizzle pattern (seen on an H100: a plan of 231520 bytes + this failed
#: cuFuncSetAttribute against the 232448-byte opt-in limit).
BASE_ALIGN_SLACK = 1024
#: The most K splits per output tile (split_k): a split keeps at least one k-tile only while
#: K / BK >= split_k, and the workspace grows with it.
MAX_SPLIT_K = 256
#: The most stream-K workers (stream_k): the CTAs (or clusters) of one launch.
MAX_STREAM_K = 65535


def plan_for(config):
    """The one-configuration :class:`~fastswz.GemmPlans` of a kernel configuration."""
    c = normalize_config(config)
    a, b = ("b", "a") if c["swap_ab"] else ("a", "b")   # swapped: the kernel's A is the caller's B
    return plan_gemm(c["arch"], c[a + "_dtype"], c[b + "_dtype"], c[a + "_major"], c[b + "_major"], c["bm"],
                     c["bn"], c["bk"], c["stages"], c["swizzle_" + a], c["swizzle_" + b],
                     c["out_dtype"] if c["epilogue"] else None, "auto", None, c["cta_group"],
                     epilogue_n=c["epilogue_n"] if c["epilogue"] else None,
                     epilogue_stages=c["epilogue_stages"] if c["epilogue"] else 1)


def scheduled_fusion(config) -> bool:
    """True when the configuration's fused epilogue runs in every schedule, swap-AB and split-K
    included: nothing fused, or per-tensor or rowwise scales alone with a 16- or 32-bit output.
    A scale multiplies each element's sum, so it applies after the split-K reduction (the
    reduction kernel or the last split loads the rows' and columns' scales as the single-pass
    epilogue does), and with swap-AB the kernel's rows are D's columns: the launch swaps the two
    scale vectors (:meth:`fastswz.cuda.runtime.GemmKernel.launch`).

    >>> scheduled_fusion({"scale": "row"}), scheduled_fusion({"scale": "row", "bias": "bf16"})
    (True, False)
    """
    c = normalize_config(config)
    rest = {key: v for key, v in FUSION_DEFAULTS.items() if key != "scale"}
    return (all(c[key] == v for key, v in rest.items()) and c["scale"] in ("none", "tensor", "row")
            and c["out_dtype"] not in ("e4m3", "e5m2"))


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
    if not scheduled_fusion(c) and (c["swap_ab"] or c["split_k"] > 1):
        return ("swap_ab/split_k with a bias, residual, activation, amax, block scales, promotion or "
                "an fp8 output: those run in the single-pass schedules only (cooperative or "
                "ping-pong); use swap_ab=False and split_k=1 (per-tensor and rowwise scales alone "
                "take every schedule)")
    if c["split_k"] < 1 or c["split_k"] > MAX_SPLIT_K:
        return (f"split_k={c['split_k']} must be in 1..{MAX_SPLIT_K} (K splits per output tile; "
                f"1: no split)")
    if c["split_reduce"] == "last_cta" and c["split_k"] > LAST_CTA_MAX_SPLITS:
        return (f"split_reduce='last_cta' with split_k={c['split_k']}: the last split reads back at most "
                f"{LAST_CTA_MAX_SPLITS} splits' partials per round trip; use split_reduce='kernel' or "
                f"split_k <= {LAST_CTA_MAX_SPLITS}")
    if c["stream_k"] < 0 or c["stream_k"] > MAX_STREAM_K:
        return (f"stream_k={c['stream_k']} must be in 0..{MAX_STREAM_K} (stream-K workers, CTAs or "
                f"clusters; 0: none)")
    if c["stream_k"] and c["split_k"] < 2:
        return (f"stream_k={c['stream_k']} with split_k={c['split_k']}: split_k is the most pieces a "
                f"stream-K tail tile is cut into (fastswz.plan.stream_k_tail); use split_k >= 2")
    if c["stream_k"] and c["split_reduce"] == "kernel":
        return ("stream_k with split_reduce='kernel': a stream-K tile's last piece adds the partial "
                "sums in the GEMM kernel; use split_reduce='auto' or 'last_cta'")
    if c["stream_k"] and c["split_k"] > LAST_CTA_MAX_SPLITS:
        return (f"stream_k with split_k={c['split_k']}: the last piece reads back at most "
                f"{LAST_CTA_MAX_SPLITS} pieces' partials; use split_k <= {LAST_CTA_MAX_SPLITS}")
    if c["split_k"] > 1 and c["epilogue"] and not c["stream_k"]:
        return (f"split_k={c['split_k']} with epilogue=True: the split-K reduction stores D from "
                f"registers; use epilogue=False")
    if c["stream_k"] and c["epilogue"] and c["pingpong"]:
        return ("stream_k with pingpong and epilogue=True: not built (the ping-pong warpgroups' "
                "halves of the epilogue tiles); use epilogue=False or cooperative consumers")
    if c["swap_ab"] and c["epilogue"]:
        return ("swap_ab=True with epilogue=True: D is stored transposed from registers (the "
                "epilogue tile is row-major over the kernel's tile); use epilogue=False")
    if c["pingpong"] and c["bm"] not in (64, 128):
        return (f"pingpong=True with bm={c['bm']}: each ping-pong consumer warpgroup computes a whole "
                f"tile, one m64 wgmma per MN block per k-step, and keeps at most two blocks' "
                f"accumulators; use bm=64 or 128")
    if c["pingpong"] and c["bm"] == 128 and c["bn"] > 128:
        return (f"pingpong=True with bm=128 and bn={c['bn']}: a consumer warpgroup keeps both MN "
                f"blocks' 64 x BN f32 accumulators, {c['bn']} registers per thread; use bn <= 128")
    if c["pingpong"] and c["bm"] == 128 and (c["split_k"] > 1 or c["swap_ab"]):
        return ("pingpong=True with bm=128 runs whole output tiles in the caller's frame (no "
                "split_k, no swap_ab: their stores keep the second MN block's accumulators in local "
                "memory); use bm=64")
    if c["pingpong"] and c["bm"] == 128 and c["promote"]:
        return ("pingpong=True with bm=128 and promote: the f32 totals of both MN blocks would "
                "double the accumulators; use bm=64")
    if c["pingpong"] and c["epilogue"] and c["epilogue_stages"] % 2:
        return (f"pingpong=True with epilogue=True and epilogue_stages={c['epilogue_stages']}: the two "
                f"consumer warpgroups store different tiles at different times, each through its own "
                f"half of the epilogue tiles; use an even epilogue_stages (2)")
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
    if c["cluster_m"] not in (1, 2, 4):
        return f"cluster_m={c['cluster_m']}: clusters of 1, 2 or 4 CTAs along M"
    if c["cluster_m"] == 4 and (c["split_k"] > 1 or c["stream_k"] or c["pingpong"]):
        return ("cluster_m=4 runs whole tiles with cooperative consumers (no split_k, stream_k or "
                "pingpong); use cluster_m=2 there")
    if c["cluster_n"] not in (1, 2):
        return f"cluster_n={c['cluster_n']}: clusters of 1 or 2 CTAs along N"
    if c["cluster_n"] == 2 and (c["split_k"] > 1 or c["stream_k"] or c["pingpong"]):
        return ("cluster_n=2 runs whole tiles with cooperative consumers (no split_k, stream_k or "
                "pingpong); use cluster_m=2 alone or cluster_n=1")
    for key, op in (("cluster_n", "a"), ("cluster_m", "b")):   # the operand each cluster shares
        outer = p.row(0)[op]["tma_box"][1]
        if c[key] > 1 and outer % (8 * c[key]):
            return (f"{key}={c[key]}: {op.upper()}'s TMA box has {outer} outer rows; each CTA "
                    f"multicasts 1/{c[key]} of them, so they must be a multiple of {8 * c[key]}")
    blocks = scale_b_blocks(c["bn"])[0] if c["scale"] == "block" else 1
    if c["scale"] == "block":
        if c["a_dtype"] not in ("e4m3", "e5m2") or c["b_dtype"] not in ("e4m3", "e5m2"):
            return "scale=block: block scales are for fp8 operands (e4m3/e5m2)"
        if c["bk"] != BLOCK_SCALE_K:
            return (f"scale=block: bk={c['bk']} must be {BLOCK_SCALE_K}, the scales' K block, so each "
                    f"k-tile's partial sums are promoted with one scale per row")
        if blocks > 1 and (c["bn"] % BLOCK_SCALE_B_GRAIN or blocks > 2):
            return (f"scale=block: bn={c['bn']} must divide {BLOCK_SCALE_K} (one B scale per tile and "
                    f"k-tile) or be a multiple of {BLOCK_SCALE_B_GRAIN} whose tiles span at most two of "
                    f"B's {BLOCK_SCALE_K}-column scale blocks (96, 160, 192)")
        if blocks > 1 and (c["pingpong"] or c["cluster_m"] > 1 or c["cluster_n"] > 1):
            return (f"scale=block with bn={c['bn']}: tiles across two of B's scale blocks run with "
                    f"cooperative consumers on one CTA (not run on a GPU with ping-pong or clusters); "
                    f"use a bn that divides {BLOCK_SCALE_K} there")
    # Two accumulators (the k-tile's and the promoted sum): under the entry cap, or for block
    # scales under what setmaxnreg gives the consumers (ptxas allocates their code with it; the
    # fused epilogues of other promoting plans were not compiled that wide). Two B scales per
    # tile keep second products: one per row with the scales in shared memory, a group's with
    # the consumers' loads (ptxas, NVRTC 13.0: BN 192 spilled 120 bytes with the loads, none
    # through shared memory; BN 160 none with the loads)
    room = max(cap, consumer_registers(c) or 0) if c["scale"] == "block" else cap
    extra = 0
    if c["scale"] == "block" and blocks > 1:
        try:
            ring = kernel_row(c)["fusion"]["scale_ring"]
        except PlanError as e:
            return str(e)
        extra = 8 if ring else 8 * BLOCK_SCALE_AHEAD
    if c["promote"] and c["bn"] + _REG_OVERHEAD + extra > room:
        what = "scale=block" if c["scale"] == "block" else "promote=True"
        return (f"{what}: bn={c['bn']} keeps two 64 x BN f32 accumulators (the k-tile's and "
                f"the promoted sum), {c['bn']} registers + about {_REG_OVERHEAD + extra} > {room}")
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
    ctype = {"bf16": "unsigned short", "f16": "unsigned short", "f32": "float", "e4m3": "unsigned char",
             "e5m2": "unsigned char"}[out]
    lines = [
        "// Generated by fastswz.cuda.codegen.mma_header from the plan. Do not edit.",
        f"// {row['instruction']}, A {row['a']['major']}-major, B {row['b']['major']}-major; D {out}",
        "#pragma once",
        f"#define FSW_EPILOGUE_TILE {1 if row.get('epilogue') else 0}",
        f"#define FSW_SPLIT_K {1 if row['kernel']['scheduler']['kind'] in ('split_k', 'stream_k') else 0}",
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
    elif out in ("e4m3", "e5m2"):
        lines += [
            f"// f32 -> {out} x2, round to nearest even, saturated: finite values past the largest "
            f"and +-Inf give +-max, NaN stays NaN",
            f"// (PTX cvt.rn.satfinite.{out}x2.f32, 9.7.9.21: the first source goes to the upper byte)",
            "__device__ __forceinline__ unsigned short fsw_pack(float a, float b) {",
            "  unsigned short r;",
            f'  asm("cvt.rn.satfinite.{out}x2.f32 %0, %2, %1;" : "=h"(r) : "f"(a), "f"(b));',
            "  return r;",
            "}",
            "__device__ __forceinline__ void fsw_store_shared_pair(uint32_t addr, float a, float b) {",
            '  asm volatile("st.shared.b16 [%0], %1;" ::"r"(addr), "h"(fsw_pack(a, b)) : "memory");',
            "}",
            "__device__ __forceinline__ void fsw_store_global_pair(unsigned char* p, float a, float b) {",
            "  *reinterpret_cast<unsigned short*>(p) = fsw_pack(a, b);",
            "}",
            "__device__ __forceinline__ void fsw_store_global(unsigned char* p, float a) {",
            "  *p = (unsigned char)(fsw_pack(a, 0.0f) & 0xffu);",
            "}",
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
    row = with_schedule(with_cluster(plan_for(c).row(0), c["cluster_m"], c["tile_group"], c["cluster_n"]),
                        c["swap_ab"], c["split_k"], c["pingpong"], c["split_reduce"], c["stream_k"])
    row["fusion"] = fusion_row(c)
    if c["residual"] or c["stream_k"]:
        # The rows a shifted last tile row shares with the one before it are computed by both;
        # with the residual C the output itself (gemm(..., out=c, c=c)), the second would read
        # C where the first had already stored D (seen on an H100: D = A B - C in place went
        # wrong); with stream-K the two tiles may be cut into different pieces, so their sums of
        # those rows differ in the last bits and whichever stores last wins (seen on an H100:
        # 1500 x 4000 x 2048, two runs not bit-identical). Such plans keep the plain tile rows.
        row["kernel"]["tile_order"]["last_row"] = "plain"
    row["fusion"]["col_operands"] = _col_operands(c, row["smem_bytes"])
    row["fusion"]["scale_ring"] = ring = _scale_ring(c, _smem_end(row))
    if ring:
        for op in ("scale_a", "scale_b"):
            row["fusion"][op]["load"] = ring["load"]
        row["fusion"]["scale_ahead"] = None
    return row


def _scale_ring(c, end):
    """Where a block-scaled plan's scales sit in shared memory: one slot per stage from ``end``
    (:func:`_smem_end`: after the plan's buffers and the column operands), the k-tile's BM scales of A (0 past M) then its
    B scale at ``b_offset`` (and, where a tile spans two of B's scale blocks, the next block's
    beside it, 0 past N: a 16-byte cell holds both). The producer warpgroup's second warp fills a stage's slot with
    cp.async once the stage is free and arrives on its full barrier when the copies land, so a
    consumer reads its rows' two scales with ld.shared after the wait it makes anyway. Measured
    (H100, tests/gpu/gemm/power.py): the block-scaled kernel, like the unscaled one, runs at the
    700 W power cap, so its speed follows its energy per product, and the consumers' per-k-tile
    scale loads, their addresses and products were a fifth of their instructions. None without
    block scales, where the slots do not fit, and for ping-pong consumers and 2-CTA clusters (not
    run on a GPU with the slots): those plans keep the consumers' global loads."""
    if c["scale"] != "block" or c["pingpong"] or c["cluster_m"] > 1 or c["cluster_n"] > 1:
        return None
    offset = -(-end // 16) * 16
    slot_bytes = 4 * c["bm"] + 16   # B's scale in a 16-byte cell of its own
    if offset + c["stages"] * slot_bytes + BASE_ALIGN_SLACK > SMEM_OPTIN["sm90"]:
        return None
    return {"dtype": "f32", "offset": offset, "slots": c["stages"], "slot_bytes": slot_bytes,
            "bytes": c["stages"] * slot_bytes, "b_offset": 4 * c["bm"],
            "load": "per k-tile, cp.async by the producer's second warp into the stage's slot, read with ld.shared"}


def _col_operands(c, smem_bytes):
    """Where the fused epilogue's column operands (bias, rowwise scale_b) of a unit's BN columns
    sit in shared memory, as f32, after the plan's buffers: staged by the unit's consumer threads
    before its main loop, read by the epilogue with shared loads. Before, the epilogue loaded
    them from global memory one chunk ahead, and with 200 KiB of shared memory the L1 kept
    nothing: on an H100 (Nsight Compute, 4096 x 14336 x 4096 e4m3, bias + GELU) a fifth of the
    epilogue's stall samples were the bias loads' long scoreboard. None when there are none, or
    when they would not fit beside the plan (those plans keep the global loads)."""
    arrays = (["bias"] if c["bias"] else []) + (["scale_b"] if c["scale"] == "row" else [])
    if not arrays or c["swap_ab"] or c["split_k"] > 1:
        return None
    slots = 2 if c["pingpong"] else 1   # ping-pong warpgroups stage different units
    offset = -(-int(smem_bytes) // 16) * 16
    slot_bytes = 4 * c["bn"] * len(arrays)
    if offset + slots * slot_bytes + BASE_ALIGN_SLACK > SMEM_OPTIN["sm90"]:
        return None
    return {"dtype": "f32", "arrays": arrays, "cols": c["bn"], "offset": offset, "slots": slots,
            "slot_bytes": slot_bytes, "bytes": slots * slot_bytes,
            "load": "by the unit's consumer threads before its main loop (0 past N)"}


def fusion_row(config) -> dict:
    """The fused epilogue and the scale operands of a configuration, as the plan row carries
    them (``row["fusion"]``; JSON-ready; :func:`fusion_header` writes them for the kernel).

    ``math``: what the epilogue computes per element, in f32, in this order. ``scale_a`` /
    ``scale_b``: each scale operand's granularity (elements of A or B one scale covers) and how
    the kernel loads it (plain global loads by the consumer threads: once per kernel for
    ``tensor``; in the epilogue, A's once per tile and row, B's per output element pair, for
    ``row``; per k-tile, a group of ``scale_ahead`` k-tiles ahead, for ``block``). ``promote_k``: K elements between two f32
    promotions of the tensor-core partial sums (one k-tile with ``promote``, which ``block``
    implies: 128). ``row_slots``:
    which of a thread's distinct accumulator rows each register holds (read off the wgmma D
    fragment, the same on every thread), so a per-row scale is loaded once per row.

    >>> f = fusion_row(normalize_config(activation="gelu", bias="bf16"))
    >>> f["activation"], f["bias"], f["math"]
    ('gelu', 'bf16', 'D = gelu(alpha * acc + bias[n])')
    """
    c = normalize_config(config)
    f = {k: c[k] for k in FUSION_DEFAULTS}
    f["out_dtype"] = c["out_dtype"]
    term = ("alpha * acc" if not c["promote"] or c["scale"] == "block" else "alpha * acc (acc = sum_kt partial_kt in f32)")
    term += {"none": "", "tensor": " * scale_a * scale_b", "row": " * scale_a[m] * scale_b[n]",
                            "block": " (acc = sum_kb partial_kb * scale_a[m][kb] * scale_b[n/128][kb])"}[c["scale"]]
    if c["residual"]:
        term += " + beta * C[m][n]"
    if c["bias"]:
        term += " + bias[n]"
    math = f"D = {term}" if c["activation"] == "identity" else f"D = {c['activation']}({term})"
    if c["out_dtype"] in ("e4m3", "e5m2"):
        math += f"; amax = max |D|; out = sat_{c['out_dtype']}(D * out_scale)" if c["amax"] else \
            f"; out = sat_{c['out_dtype']}(D * out_scale)"
    elif c["amax"]:
        math += "; amax = max |D|"
    f["math"] = math
    loads = {"none": None, "tensor": ("ld.global, once per kernel", [None, None]),
             "row": ("ld.global in the epilogue", [[1, None], [None, 1]]),
             "block": (f"ld.global, a group of {BLOCK_SCALE_AHEAD} k-tiles ahead", [[1, BLOCK_SCALE_K],
                                                                     [BLOCK_SCALE_K, BLOCK_SCALE_K]])}[c["scale"]]
    if loads:
        f["scale_a"] = {"load": loads[0], "granularity": loads[1][0], "dtype": "f32"}
        f["scale_b"] = {"load": loads[0], "granularity": loads[1][1], "dtype": "f32"}
    if c["scale"] == "block":
        # B's scale blocks one tile spans: two where BN does not divide 128 (fusion_header's kColumn8
        # says which registers take the second block's scale)
        f["scale_b"]["per_tile"] = scale_b_blocks(c["bn"])[0]
    f["promote_k"] = c["bk"] if c["promote"] else None
    f["scale_ahead"] = BLOCK_SCALE_AHEAD if c["scale"] == "block" else None
    f["row_slots"] = _row_slots(c["bn"])
    f["col_slots"] = _col_slots(c["bn"], _chunk_registers(c))
    return f


#: Registers per chunk of the fused epilogue: it loads a chunk's column operands (bias, B's row
#: scales) and residual values all at once, predicated, while the chunk before is applied (two
#: buffers), so the loads wait behind math and stores instead of in front of each pair. Before
#: chunking every pair's loads sat behind branches and were waited on before the pair's
#: shared-memory store: on an H200 at 4096 x 14336 x 4096 the rowwise-scaled kernel ran at 68% of
#: the plain one, and at 93% with chunks. 16 registers keep one column operand's two buffers
#: (2 x 8) beside the 128 accumulators; with a residual (2 x the chunk's registers), two column
#: operands or ping-pong's two MN blocks, 8
#: (ptxas, 128 x 256 plans: rowwise + f32 bias + SiLU spills 44 bytes at 16, 32 at 8, 44 at 4;
#: 24 with one buffer of 16, before the two buffers; residual + bias + rowwise + GELU none at 8).
#: amax takes 8 too: with GELU by erfc's approximation (FSW_FAST_ERF) bias + GELU + amax spilled
#: 32-96 bytes at 16, 8-40 at 8 (ptxas, NVRTC 13.0), and on an H100 (4096 x 14336 x 4096 e4m3, bf16
#: out; tests/gpu/gemm/ab_defines.py, docs/conformance/2026-11-27-ninth-session) took 408 us at 16
#: and 395 us at 8, in two runs.
EPILOGUE_CHUNK_REGISTERS = 16
EPILOGUE_CHUNK_REGISTERS_TIGHT = 8


def _chunk_registers(c):
    """Registers per fused-epilogue chunk: :data:`EPILOGUE_CHUNK_REGISTERS` (with a residual,
    both a bias and rowwise scales, amax, or ping-pong with two MN blocks per warpgroup
    :data:`EPILOGUE_CHUNK_REGISTERS_TIGHT`), or fewer so that a
    chunk never spans two epilogue column blocks (kSubtileRegisters = columns / 2 per thread)."""
    cols = (c["epilogue_n"] or c["bn"]) if c["epilogue"] else c["bn"]
    tight = c["residual"] or (c["bias"] and c["scale"] == "row") or (c["pingpong"] and c["bm"] == 128) or c["amax"]
    most = EPILOGUE_CHUNK_REGISTERS_TIGHT if tight else EPILOGUE_CHUNK_REGISTERS
    return math.gcd(most, max(2, cols // 2))


def _col_slots(bn, chunk):
    """``{"slot": kColSlot[r], "first": first register of each slot, "chunk": registers per
    chunk, "chunk_slots": slots per chunk}``: the distinct column pairs (n, n + 1) a consumer
    thread's accumulator registers hold, from the wgmma D fragment. A slot's column is the same
    offset from the thread's first column on every thread, and chunk q of ``chunk`` registers
    holds exactly slots [q S, q S + S) (both checked here), so a chunk's column operands sit in
    S pairs of registers indexed by ``kColSlot[r] % S``."""
    regs = bn // 2

    def slots(L, t):
        cols = [L(t, r) // 64 for r in range(regs)]
        if any(cols[r + 1] != cols[r] + 1 for r in range(0, regs, 2)):
            raise PlanError("an accumulator register pair does not hold two adjacent columns")
        pairs = [cols[r] for r in range(0, regs, 2)]
        distinct = sorted(set(pairs), key=pairs.index)
        return [distinct.index(x) for x in pairs for _ in range(2)]

    pattern = _every_thread(bn, slots, "columns")
    count = max(pattern) + 1
    per = len(set(pattern[:chunk]))
    if regs % chunk or count % per or any(pattern[r] // per != r // chunk for r in range(regs)):
        raise PlanError(f"the accumulator's column pairs do not fall into chunks of {chunk} registers")
    return {"slot": pattern, "first": [pattern.index(s) for s in range(count)], "chunk": chunk,
            "chunk_slots": per}


def _row_slots(bn):
    """``(kRowSlot[r], first register of each slot)``: the distinct rows a consumer thread's
    accumulator registers hold, from the wgmma D fragment (the same slot pattern on every
    thread, checked here)."""
    def slots(L, t):
        rows = [L(t, r) % 64 for r in range(bn // 2)]
        distinct = sorted(set(rows), key=rows.index)
        return [distinct.index(x) for x in rows]

    pattern = _every_thread(bn, slots, "rows")
    return {"slot": pattern, "first": [pattern.index(s) for s in range(max(pattern) + 1)]}


def _col8(bn):
    """``kColumn8[r]``: the 8-column group (column // 8 in the tile) accumulator register ``r``
    holds, from the wgmma D fragment: the same on every thread (checked here), so which of two B
    scale blocks a register takes is known at compile time for each offset of the tile."""
    return _every_thread(bn, lambda L, t: [L(t, r) // 64 // 8 for r in range(bn // 2)], "8-column groups")


def _every_thread(bn, per_thread, what):
    """``per_thread(L, t)`` (L: the wgmma D fragment of ``bn`` columns, thread -> register ->
    index into the 64 x BN tile), the same list for all 128 threads of the warpgroup, or a
    PlanError naming ``what`` differs: the header's per-register tables hold one row for all."""
    from ..plan import wgmma_accumulator_layout

    L = wgmma_accumulator_layout(bn)
    pattern = per_thread(L, 0)
    for t in range(1, 128):
        if per_thread(L, t) != pattern:
            raise PlanError(f"the accumulator's {what} per register differ between threads")
    return pattern


def fusion_header(config, row=None) -> str:
    """``fastswz_fusion.h``: the fused epilogue of a configuration as macros and constants
    (``sm90/epilogue_ops.cuh`` and the mainloop's block-scale promotion read them). ``row``:
    the configuration's :func:`kernel_row`, where the caller has it (:func:`kernel_sources`).

    >>> h = fusion_header(normalize_config(activation="relu", out_dtype="e4m3", amax=True))
    >>> [ln.split("//")[0].strip() for ln in h.splitlines() if ln.startswith("#define FSW_A")]
    ['#define FSW_ACT 1', '#define FSW_AMAX 1']
    """
    c = normalize_config(config)
    if row is None and (c["bias"] or c["scale"] in ("row", "block")):   # where the column operands and scales sit
        row = kernel_row(c)
    f = row["fusion"] if row is not None else fusion_row(c)
    col = f.get("col_operands")
    ring = f.get("scale_ring")
    ctype = {"bf16": "unsigned short", "f16": "unsigned short", "f32": "float", None: "unsigned short"}
    slots, cols = f["row_slots"], f["col_slots"]
    blocks, variants = scale_b_blocks(c["bn"]) if c["scale"] == "block" else (1, 1)
    fused = (c["activation"] != "identity" or c["bias"] or c["residual"] or c["scale"] not in ("none", "block")
             or c["amax"] or c["out_dtype"] in ("e4m3", "e5m2"))
    lines = [
        "// Generated by fastswz.cuda.codegen.fusion_header from the configuration. Do not edit.",
        f"// {f['math']}",
        "#pragma once",
        f"#define FSW_FUSED {int(bool(fused))}   // 0: D = acc, the epilogue hook is a no-op",
        f"#define FSW_ACT {ACTIVATIONS.index(c['activation'])}   // {', '.join(f'{i} {a}' for i, a in enumerate(ACTIVATIONS))}",
        f"#define FSW_FAST_ACT {int(c['out_dtype'] != 'f32')}   // GELU by erfc's approximation, GELU-tanh and SiLU on the SFU (outputs narrower than f32)",
        f"#define FSW_BIAS {int(c['bias'] is not None)}",
        f"#define FSW_BIAS_KIND {EPILOGUE_IN_DTYPES.index(c['bias'] or 'bf16')}   // 0 bf16, 1 f16, 2 f32",
        f"typedef {ctype[c['bias']]} FSW_BIAS_T;",
        f"#define FSW_RESIDUAL {int(c['residual'] is not None)}",
        f"#define FSW_RESIDUAL_KIND {EPILOGUE_IN_DTYPES.index(c['residual'] or 'bf16')}",
        f"typedef {ctype[c['residual']]} FSW_C_T;",
        f"#define FSW_SCALE {SCALES.index(c['scale'])}   // {', '.join(f'{i} {a}' for i, a in enumerate(SCALES))}",
        f"#define FSW_BLOCK_SCALE {int(c['scale'] == 'block')}",
        f"#define FSW_PROMOTE {int(c['promote'])}   // partial sums to f32 every k-tile",
        "#ifndef FSW_PRODUCER_REGS",
        f"#define FSW_PRODUCER_REGS {PRODUCER_REGS}   // the producer warpgroup's registers after setmaxnreg.dec",
        "#endif",
        "#ifndef FSW_SCALE_AHEAD",
        f"#define FSW_SCALE_AHEAD {BLOCK_SCALE_AHEAD}   // k-tiles per group of block-scale loads, a group ahead (the main loop's unrolling)",
        "#endif",
        f"#define FSW_AMAX {int(c['amax'])}",
        f"#define FSW_OUT_FP8 {int(c['out_dtype'] in ('e4m3', 'e5m2'))}",
        "namespace fastswz_fusion {",
        f"constexpr int kBlockK = {BLOCK_SCALE_K};   // K (and N) elements per block scale",
        f"constexpr int kRowSlots = {len(slots['first'])};   // distinct rows per thread",
        f"constexpr int kRowSlot[{len(slots['slot'])}] = {{{', '.join(map(str, slots['slot']))}}};",
        f"constexpr int kSlotRegister[{len(slots['first'])}] = {{{', '.join(map(str, slots['first']))}}};",
        "// block scales: B's 128-column scale blocks a tile spans (two where BN does not divide 128; the",
        "// tile's first column is then a multiple of kScaleBGrain past a block's start) and the 8-column",
        "// group of each accumulator register, which says which block's scale it takes",
        f"constexpr int kScaleBBlocks = {blocks};",
        f"constexpr int kScaleBGrain = {math.gcd(c['bn'], BLOCK_SCALE_K)};",
        f"constexpr int kScaleBVariants = {variants};   // register maps, one per offset of a tile into a block",
        f"constexpr int kColumn8[{c['bn'] // 2}] = {{{', '.join(map(str, _col8(c['bn'])))}}};",
        f"constexpr int kChunkRegisters = {cols['chunk']};   // registers per epilogue chunk",
        f"constexpr int kChunkSlots = {cols['chunk_slots']};   // column pairs per chunk",
        f"constexpr int kColSlot[{len(cols['slot'])}] = {{{', '.join(map(str, cols['slot']))}}};",
        f"constexpr int kColSlotRegister[{len(cols['first'])}] = {{{', '.join(map(str, cols['first']))}}};",
        "// the column operands in shared memory (plan row fusion.col_operands): f32, per slot the",
        "// bias's BN columns then scale_b's, at kColOffset + slot * kColSlotBytes from the plan's base",
        f"constexpr bool kColSmem = {'true' if col else 'false'};",
        f"constexpr unsigned int kColOffset = {col['offset'] if col else 0}u;",
        f"constexpr unsigned int kColSlotBytes = {col['slot_bytes'] if col else 0}u;",
        f"constexpr unsigned int kColScaleB = {4 * c['bn'] if col and c['bias'] and c['scale'] == 'row' else 0}u;   // scale_b's bytes into a slot",
        "// block scales in shared memory (plan row fusion.scale_ring): per stage a slot of BM f32 scales of A,",
        "// then B's at kScaleB, at kScaleOffset + stage * kScaleSlotBytes from the plan's base",
        "}  // namespace fastswz_fusion",
        "#ifndef FSW_SCALE_RING",
        f"#define FSW_SCALE_RING {int(bool(ring))}",
        "#endif",
        "namespace fastswz_fusion {",
        f"constexpr unsigned int kScaleOffset = {ring['offset'] if ring else 0}u;",
        f"constexpr unsigned int kScaleSlotBytes = {ring['slot_bytes'] if ring else 0}u;",
        f"constexpr unsigned int kScaleB = {ring['b_offset'] if ring else 0}u;",
        "}  // namespace fastswz_fusion",
    ]
    return "\n".join(lines) + "\n"


#: The kernel's source files (package data under ``fastswz/kernels``), the entry first.
KERNEL_FILES = ("gemm_sm90.cu", "sm90/debug.cuh", "sm90/ptx.cuh", "sm90/tile_rows.cuh", "sm90/scheduler.cuh",
                "sm90/epilogue.cuh", "sm90/epilogue_ops.cuh", "sm90/splitk.cuh", "sm90/block_scale.cuh")
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
    ("semaphores", "unsigned int*", "Q"),   # split-K, reduce "last_cta": one u32 per output tile, 0 between launches
    # the fused epilogue and the scales (issue 28; unused fields are 0)
    ("alpha", "float", "f"),        # D = act(alpha * acc * scales + beta * C + bias)
    ("beta", "float", "f"),
    ("bias", "const void*", "Q"),   # N elements of the configuration's bias type
    ("c", "const void*", "Q"),      # the residual C, M x N row-major
    ("ldc", "long long", "q"),      # C's row pitch in elements
    ("scale_a", "const float*", "Q"),   # tensor: 1 f32; row: M; block: M x ceil(K/128)
    ("scale_b", "const float*", "Q"),   # tensor: 1; row: N; block: ceil(N/128) x ceil(K/128)
    ("out_scale", "const float*", "Q"),  # fp8 D: D is multiplied by *out_scale before the cast (0: 1)
    ("amax", "unsigned int*", "Q"),  # max |D| (f32 bits), atomicMax'd: the caller zeroes it first
    ("sa_sm", "long long", "q"),    # scale_a strides in elements (row: M; block: M, K blocks)
    ("sa_sk", "long long", "q"),
    ("sb_sn", "long long", "q"),    # scale_b strides (row: N; block: N blocks, K blocks)
    ("sb_sk", "long long", "q"),
)
#: Values of the fields after ``k`` when a launch gives none (alpha 1, everything else 0).
PARAM_DEFAULTS = {"alpha": 1.0}


def params_struct():
    """The :class:`struct.Struct` that packs :data:`PARAM_FIELDS` as the kernel's ``FswParams``
    (native alignment of x86-64 and aarch64 C, padded to its 8-byte alignment).

    >>> s = params_struct()
    >>> s.size, s.size == len(params_packer()(0x7f0000000000, 4096, 1, 2, 3))
    (144, True)
    """
    import struct

    return struct.Struct("@" + "".join(f for _, _, f in PARAM_FIELDS) + "0q")


#: Bytes of the leading fields (d, ldd, m, n, k) that the C launcher writes itself
#: (``fastswz.cuda._driver.Launcher.run``): their offsets must stay 0, 8, 16, 20, 24.
PARAM_CORE = ("d", "ldd", "m", "n", "k")


def launch_meta(row, out_dtype="bf16") -> dict:
    """What a launch needs of a kernel's plan row (threads, shared memory, the TMA boxes and
    swizzles): stored beside a cached cubin, so loading one needs no plan.

    >>> from fastswz import plan_gemm
    >>> m = launch_meta(kernel_row({"bm": 128, "bn": 128, "bk": 64, "stages": 4}))
    >>> m["threads"], m["boxes"][0], m["epilogue"], m["dtypes"]
    (384, [64, 128], False, ['bf16', 'bf16', 'bf16'])
    """
    boxes, swizzles = [], []
    for op in ("a", "b"):
        o = row[op]
        mc = multicast_of(row["kernel"], op)
        boxes.append(list(mc["tma_box"] if mc else o["tma_box"]))
        swizzles.append(int(o["tma_swizzle_value"]))
    e = row["epilogue"]
    boxes.append(list(e["tma_box"]) if e else [1, 1])
    swizzles.append(("none", "32B", "64B", "128B").index(e["swizzle"]) if e else 0)
    col = (row.get("fusion") or {}).get("col_operands")
    ws = (row["kernel"].get("scheduler") or {}).get("workspace")
    return {"threads": int(row["kernel"]["threads"]),
            "smem_bytes": _smem_end(row),
            "boxes": boxes, "swizzles": swizzles, "epilogue": bool(e),
            "majors": [row["a"]["major"], row["b"]["major"]],
            # the kernel's operands (with swap_ab its A is the caller's B) and D
            "dtypes": [row["a"]["dtype"], row["b"]["dtype"], _lookup_dtype(out_dtype).name],
            # split-K: who adds the partials ("last_cta": the GEMM kernel; "kernel": a second one)
            "reduce": ws["reduce"] if ws else None}


def _smem_end(row):
    """Bytes of shared memory from the plan's base the kernel uses: the plan's buffers, then
    the column operands and the block-scale slots where the plan has them."""
    f = row.get("fusion") or {}
    ends = [int(row["smem_bytes"])] + [int(x["offset"] + x["bytes"]) for x in (f.get("col_operands"), f.get("scale_ring")) if x]
    return max(ends)


def params_packer():
    """``pack(d, ldd, m, n, k, **fields)``: the ``FswParams`` bytes of a launch, the fields after
    ``k`` (:data:`PARAM_FIELDS`) from keywords, else :data:`PARAM_DEFAULTS` or 0. A call with the
    first five alone costs one ``struct.pack`` of them (the rest is a constant tail).

    >>> pack = params_packer()
    >>> pack(0, 8, 1, 2, 3) == pack(0, 8, 1, 2, 3, alpha=1.0, beta=0.0)
    True
    """
    import struct

    full = params_struct()
    names = [f for f, _, _ in PARAM_FIELDS]
    head = struct.Struct("@" + "".join(f for _, _, f in PARAM_FIELDS[:5]))
    rest = names[5:]
    defaults = {f: PARAM_DEFAULTS.get(f, 0) for f in rest}
    tail = full.pack(0, 0, 0, 0, 0, *defaults.values())[head.size:]
    hpack, fpack = head.pack, full.pack

    def pack(d, ldd, m, n, k, **fields):
        if not fields:
            return hpack(d, ldd, m, n, k) + tail
        unknown = set(fields) - set(rest)
        if unknown:
            raise PlanError(f"FswParams has no field {sorted(unknown)[0]!r} (fields: {', '.join(names)})")
        return fpack(d, ldd, m, n, k, *(fields.get(f, defaults[f]) for f in rest))
    return pack


def _params_c():
    body = "".join(f"  {ct} {name};\n" for name, ct, _ in PARAM_FIELDS)
    return f"struct FswParams {{\n{body}}};"


def kernel_sources(config) -> dict:
    """``{file name: text}`` of a configuration's kernel: the generated headers and the sources.

    Raises :class:`~fastswz.PlanError` naming the reason when the kernel family does not run
    the configuration (:func:`supported`).

    Examples
    --------
    >>> src = kernel_sources({"bm": 128, "bn": 128, "bk": 64, "stages": 4})
    >>> sorted(src)[:3], len(src)
    (['fastswz_fusion.h', 'fastswz_mma.h', 'fastswz_plan.h'], 12)
    """
    c = normalize_config(config)
    why = supported(c)
    if why:
        raise PlanError(f"the sm90 GEMM kernel does not run this configuration: {why}")
    row = kernel_row(c)
    return {"fastswz_plan.h": emit_header(row, name="fastswz_plan"),
            "fastswz_mma.h": mma_header(row, c["out_dtype"]),
            "fastswz_fusion.h": fusion_header(c, row),
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


_GENERATOR = []
#: The modules whose code decides a kernel's sources: this one, what it imports (the planner, the
#: emitter and their layers; tests/test_cuda_gemm.py checks the list against the imports) and the
#: compiled planner's sources. A change elsewhere (the CLI, the tuner) keeps every cached cubin.
GENERATOR_MODULES = ("cuda/codegen.py", "_bits.py", "_version.py", "algebra.py", "banks.py",
                     "blockscaled.py", "bulk.py", "descriptor.py", "dtypes.py", "emit.py",
                     "errors.py", "int_tuple.py", "layout.py", "linear.py", "modes.py",
                     "notation.py", "plan.py", "rules.py", "swizzle.py", "tile.py", "tv_layout.py",
                     "_kernels.pyx", "_kernels.pxd", "_simd.h")


def generator_key() -> str:
    """A digest of everything that turns a configuration into kernel sources: the kernel files
    and the Python modules that plan and emit (hashed once per process). With the configuration
    it names a cubin, so a cached cubin is found without generating its sources."""
    if not _GENERATOR:
        from importlib import resources as res

        h = hashlib.sha256()
        root = res.files("fastswz")
        names = [*GENERATOR_MODULES, *("kernels/" + f for f in KERNEL_FILES)]
        for name in names:
            f = root.joinpath(*name.split("/"))
            h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
        _GENERATOR.append(h.hexdigest())
    return _GENERATOR[0]


def source_key(sources, arch="sm_90a", extra="") -> str:
    """A hex digest of the sources, the target and the compiler (the cubin cache key)."""
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + sources[name].encode() + b"\0")
    h.update(arch.encode() + b"\0" + extra.encode())
    return h.hexdigest()[:32]


def dtype_bits(name) -> int:
    return DTYPES[_lookup_dtype(name).name].bits
