"""Rank GEMM tile plans for one problem under a simple, documented cost model.

:func:`tune` enumerates a space of (BM, BN, BK, stages, swizzle A, swizzle B[, cta_group]) with
:func:`fastswz.plan_gemm` in bulk, keeps the legal plans and orders them by *model cycles*. The
model is a ranking aid for narrowing an autotuner's search, not a measurement or a prediction
of speed: by default it ignores the epilogue (the plans' ``epi_*`` bank-conflict columns are
weighed only by a :class:`TuneModel` with ``epilogue_clocks_per_wavefront`` > 0), L2 hit rates,
cluster multicast, instruction issue and clock variation. Every constant below is a field of
:class:`TuneModel` (``tune(..., model=...)`` takes another, e.g. one fitted to measurements by
:func:`fastswz.calibrate.fit_model`). Timing plans on the GPU is the runtime's job, above this
module: ``fastswz.cuda.search_plans`` (``fastswz tune --measure``) draws its candidates from
this ranking; nothing here imports ``fastswz.cuda``.

Two sets of constants ship. :data:`DATASHEET_MODELS` holds round datasheet figures, the ones
quoted below. :data:`DEFAULT_MODELS`, which tune uses, holds for sm90 the constants fitted to
3744 H100 timings (``benchmarks/data/tune_h100.json``: 9 shapes x 208 plans x bf16/e4m3, fitted
on 5 shapes, BENCHMARKS.md "The tune model against the clock"): latency 2691 clocks (datasheet
800), 37.0 B/clock/SM from L2 (48), 64.0 B/clock of shared memory (128), an unswizzled operand's
gmem bytes x 4 (2) and occupancy weight 0.25 (1); the MMA rates, registers and wave quantization
stay the datasheet's. sm100 has no measurements: its default is the datasheet's.

Per SM, with ``F`` dense MACs per clock (sm90: 2048 for 16-bit, 4096 for 8-bit, 1024 for tf32,
the H100 SXM datasheet peak divided by 132 SMs x 1.83 GHz; sm100: twice that):

* one k-tile costs ``t = max(mma, smem, gmem)`` clocks: ``mma = BM' BN BK / F``; ``smem`` the
  operand bytes the MMAs read from shared memory at ``smem_bytes_per_clock`` (datasheet 128;
  sm90: every warpgroup reads its 64 rows of A and all of B; sm100: A and B once); ``gmem`` the
  bytes TMA brings in, ``(BM' + BN') BK E``, at ``l2_bytes_per_clock`` per SM from L2 (datasheet
  48 on sm90, 64 on sm100: round figures, cluster multicast included) (``BM'``/``BN'``: one
  CTA's share under cta_group 2);
* pipeline depth: with ``S = stages x (1 + occupancy_weight x (occupancy - 1))`` loads in flight
  (datasheet weight 1: every resident CTA's stages count) and a load latency of ``latency``
  clocks (datasheet :data:`LATENCY` = 800), a k-tile takes ``max(t, (latency + t) / S)``;
* occupancy: CTAs per SM = ``min(233472 // (smem + 1024), 2048 // threads, registers)``
  (228 KiB of shared memory per SM, 1 KiB reserved per CTA; threads = (BM/64 + 1) x 128 on sm90
  (one producer warpgroup), 256 on sm100); registers: sm90 keeps the BM x BN f32 accumulator in
  registers, ``65536 // (threads x (BN/2 + other_registers))`` (BN/2 accumulator registers per
  thread plus ``other_registers``, datasheet 32); sm100 keeps it in tensor memory,
  ``512 // (BN x BM' / mma_m)`` columns. Plans that fit zero CTAs are dropped. Resident CTAs
  share the tensor cores, so occupancy only hides latency;
* TMA rows: an operand without swizzle is loaded in 16-byte box rows, half of a 32-byte sector,
  so its gmem bytes count ``unswizzled_row_cost`` times (datasheet 2); equal model cycles rank
  the wider swizzle first;
* wave quantization: each SM (CTA pair under cta_group 2) runs ``ceil(tiles / SMs)`` tiles of
  ``ceil(K / BK)`` k-tiles, so a partial last wave costs a whole one at ``wave_quantization``
  w = 1 (datasheet); w < 1 blends in the fractional ``tiles / SMs``;
* per tile, ``tile_overhead`` clocks (pipeline fill, epilogue; 0 in both shipped models) and
  ``epilogue_clocks_per_wavefront`` x the epilogue stores' wavefronts (0 in both);
* MMA shape efficiency follows from the above (a narrow BN is smem- or gmem-bound, a tile that
  overhangs M or N wastes MMAs); ``efficiency`` = useful MACs / (F x SMs x model cycles).
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np

from .dtypes import dtype as _lookup_dtype
from .errors import FastswzTypeError, MeasureError, PlanError, as_int
from .plan import PLAN_FIELDS, _SWIZZLES, plan_gemm, plan_reason
from .rules import _choice

__all__ = ["tune", "TuneModel", "DEFAULT_MODELS", "DATASHEET_MODELS", "score_plans", "DEFAULT_SMS", "LATENCY",
           "MAX_EXTENT", "MAX_SMS"]

#: SM counts the ``sms`` argument defaults to: H100 SXM (132), B200 (148).
DEFAULT_SMS = {"sm90": 132, "sm100": 148}
#: The datasheet model's TMA load latency in clocks (``DATASHEET_MODELS[arch].latency``; the
#: shipped sm90 model's fitted latency is ``DEFAULT_MODELS["sm90"].latency``).
LATENCY = 800
#: Largest M, N or K tune accepts: a TMA tensor map dimension holds at most 2**32 elements.
MAX_EXTENT = 1 << 32
#: Largest SM count tune accepts.
MAX_SMS = 1 << 16


@dataclasses.dataclass(frozen=True)
class TuneModel:
    """The constants of :func:`tune`'s cost model (clocks, bytes and MACs per clock per SM).

    The field defaults (``TuneModel()``, :data:`DATASHEET_MODELS` ``["sm90"]``) are round H100
    datasheet figures. :data:`DEFAULT_MODELS` ``["sm90"]``, the model :func:`tune` uses, replaces
    five of them with constants fitted to H100 timings (:func:`fastswz.calibrate.fit_model` on
    ``benchmarks/data/tune_h100.json``); any other fitted model can be passed as ``model=``.
    Fields:

    ``latency``: clocks from a TMA load's issue to its data in shared memory. ``l2_bytes_per_clock``:
    bytes per clock per SM that TMA brings from L2. ``smem_bytes_per_clock``: shared-memory bytes
    the MMAs read per clock. ``macs_per_clock_8/16/32``: dense MACs per clock per SM for 8-, 16- and
    32-bit operands. ``unswizzled_row_cost``: gmem weight of an operand loaded without swizzle
    (16-byte box rows, half a 32-byte sector). ``occupancy_weight``: how much each resident CTA
    beyond the first adds to the loads in flight (1: a whole CTA's stages; 0: nothing).
    ``other_registers``: registers per thread besides the sm90 accumulator. ``wave_quantization``:
    1 charges a partial last wave as a whole one, 0 as its fraction. ``tile_overhead``: clocks per
    output tile (pipeline fill, epilogue). ``epilogue_clocks_per_wavefront``: clocks per
    shared-memory wavefront of the epilogue stores (needs an epilogue dtype; 0 ignores them).
    ``smem_per_sm``, ``smem_reserved_per_cta``, ``threads_per_sm``, ``registers_per_sm``,
    ``tmem_columns``: the hardware limits occupancy is computed from.

    Examples
    --------
    >>> m = TuneModel()
    >>> m.latency, m.l2_bytes_per_clock, m.macs(16)
    (800.0, 48.0, 2048.0)
    >>> slow_l2 = m.replace(l2_bytes_per_clock=24.0)
    >>> slow_l2.l2_bytes_per_clock, m == TuneModel() == DATASHEET_MODELS["sm90"]
    (24.0, True)
    >>> fitted = DEFAULT_MODELS["sm90"]                    # the shipped sm90 constants
    >>> round(fitted.latency), round(fitted.l2_bytes_per_clock, 1), fitted.macs(16)
    (2691, 37.0, 2048.0)
    """

    latency: float = 800.0
    l2_bytes_per_clock: float = 48.0
    smem_bytes_per_clock: float = 128.0
    macs_per_clock_8: float = 4096.0
    macs_per_clock_16: float = 2048.0
    macs_per_clock_32: float = 1024.0
    unswizzled_row_cost: float = 2.0
    occupancy_weight: float = 1.0
    other_registers: float = 32.0
    wave_quantization: float = 1.0
    tile_overhead: float = 0.0
    epilogue_clocks_per_wavefront: float = 0.0
    smem_per_sm: int = 233472
    smem_reserved_per_cta: int = 1024
    threads_per_sm: int = 2048
    registers_per_sm: int = 65536
    tmem_columns: int = 512

    def __post_init__(self):
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise FastswzTypeError(f"TuneModel.{f.name}={v!r} must be a number")
            lo = 0.0 if f.name in _MAY_BE_ZERO else 1e-9
            if not (np.isfinite(v) and v >= lo) or (f.name in _AT_MOST_ONE and v > 1):
                rule = ("in [0, 1]" if f.name in _AT_MOST_ONE else
                        ">= 0" if f.name in _MAY_BE_ZERO else "> 0")
                raise PlanError(f"TuneModel.{f.name}={v!r} must be finite and {rule}")
            object.__setattr__(self, f.name, type(f.default)(v))

    def macs(self, bits: int) -> float:
        """Dense MACs per clock per SM for ``bits``-bit operands."""
        return {8: self.macs_per_clock_8, 16: self.macs_per_clock_16, 32: self.macs_per_clock_32}[bits]

    def replace(self, **changes) -> "TuneModel":
        """A copy with ``changes`` (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """The fields as a dict (the form ``tools/tune_calibrate.py`` writes)."""
        return dataclasses.asdict(self)


_MAY_BE_ZERO = {"occupancy_weight", "other_registers", "wave_quantization", "tile_overhead",
                "epilogue_clocks_per_wavefront", "smem_reserved_per_cta"}
_AT_MOST_ONE = {"occupancy_weight", "wave_quantization"}

#: Round datasheet constants per arch (sm90: the :class:`TuneModel` field defaults; sm100:
#: tcgen05's doubled MMA rate, 64 B/clock from L2): the model before any measurement.
DATASHEET_MODELS = {
    "sm90": TuneModel(),
    "sm100": TuneModel(l2_bytes_per_clock=64.0, macs_per_clock_8=8192.0, macs_per_clock_16=4096.0,
                       macs_per_clock_32=2048.0),
}

#: The constants :func:`tune` and :func:`score_plans` use per arch. sm90: fitted to 3744 H100
#: SXM timings of the fastswz kernel (``benchmarks/data/tune_h100.json``) by
#: ``tools/tune_calibrate.py`` (:func:`fastswz.calibrate.fit_model` from
#: :data:`DATASHEET_MODELS` on sq2048, sq8192, llm_up, skinny, decode128; held-out Spearman
#: 0.768 -> 0.859, top-1 regret 45.9% -> 4.2%; BENCHMARKS.md). sm100: the datasheet's (no
#: measurements yet).
DEFAULT_MODELS = {
    "sm90": TuneModel(latency=2690.868528811887, l2_bytes_per_clock=37.013059809790576,
                      smem_bytes_per_clock=64.0, unswizzled_row_cost=4.0, occupancy_weight=0.25),
    "sm100": DATASHEET_MODELS["sm100"],
}


def _model_arg(model, arch):
    if model is None:
        return DEFAULT_MODELS[arch]
    if not isinstance(model, TuneModel):
        raise FastswzTypeError(f"model={type(model).__name__} must be a fastswz.TuneModel or None "
                               f"(the arch's default constants)")
    return model


def _evaluate(model, arch, bits, cols, m, n, k, sms):
    """Model cycles (float64) and their parts for plan columns (numpy arrays of one length):
    ``cta_group``, ``bm``, ``bn``, ``bk``, ``stages``, ``smem``, ``a_swizzle``, ``b_swizzle``
    (plan swizzle codes), ``mma_m``, ``epi_wavefronts`` (-1: none). Returns a dict with
    ``cycles``, ``bound`` (0 mma, 1 smem, 2 gmem, 3 latency), ``occupancy``, ``tiles``,
    ``per_unit``; plans that fit zero CTAs have ``occupancy`` 0 and cycles inf."""
    return _evaluate_problem(model, _evaluate_static(model, arch, bits, cols), cols, m, n, k, sms)


def _evaluate_static(model, arch, bits, cols):
    """The problem-independent part of :func:`_evaluate`: a k-tile's clocks (``tk``), what bounds
    it and the occupancy, per plan."""
    cg, bm, bn, bk, st = (cols[c].astype(np.int64) for c in ("cta_group", "bm", "bn", "bk", "stages"))
    smem = cols["smem"].astype(np.int64)
    e = bits // 8 if bits >= 8 else 1
    F = model.macs(bits)
    bm_sm, bn_sm = bm // cg, bn // cg
    if arch == "sm90":
        threads = (bm // 64 + 1) * 128
        smem_rd = (bm // 64) * (64 + bn) * bk * e
        regs = np.floor(model.registers_per_sm / (threads * (bn // 2 + model.other_registers)))
    else:
        threads = np.full_like(bm, 256)
        smem_rd = (bm_sm + bn_sm) * bk * e
        regs = model.tmem_columns // (bn * (bm_sm // np.maximum(cols["mma_m"].astype(np.int64) // cg, 1)))
    occ = np.minimum(np.minimum(model.smem_per_sm // (smem + model.smem_reserved_per_cta),
                                model.threads_per_sm // threads), regs).astype(np.int64)
    mma = bm_sm * bn * bk / F
    sm_t = smem_rd / model.smem_bytes_per_clock
    # 16-byte TMA rows (no swizzle) use half of each 32-byte sector.
    wa = np.where(cols["a_swizzle"] == 1, model.unswizzled_row_cost, 1.0)
    wb = np.where(cols["b_swizzle"] == 1, model.unswizzled_row_cost, 1.0)
    gm_t = (bm_sm * wa + bn_sm * wb) * bk * e / model.l2_bytes_per_clock
    t = np.maximum(np.maximum(mma, sm_t), gm_t)
    s_eff = st * (1.0 + model.occupancy_weight * (occ - 1))
    tk = np.maximum(t, (model.latency + t) / np.maximum(s_eff, 1))
    bound = np.where(tk > t, 3, np.where(t == mma, 0, np.where(t == sm_t, 1, 2)))
    epi = (model.epilogue_clocks_per_wavefront * np.maximum(cols["epi_wavefronts"].astype(np.float64), 0.0)
           if model.epilogue_clocks_per_wavefront else None)
    return {"tk": tk, "occupancy": occ, "bound": bound, "epi": epi, "cg": cg, "bm": bm, "bn": bn, "bk": bk}


def _evaluate_problem(model, static, cols, m, n, k, sms):
    """Model cycles of plans for one problem from their :func:`_evaluate_static` part.

    Waves depend on the plan only through (cta_group, BM, BN) and k-tiles through BK, a few
    dozen distinct values among thousands of plans: they are computed per distinct value and
    gathered."""
    g = static.get("groups")
    if g is None:
        cg, bm, bn, bk = static["cg"], static["bm"], static["bn"], static["bk"]
        _, gi, ginv = np.unique(cg * (1 << 40) + bm * (1 << 20) + bn, return_index=True,
                                return_inverse=True)
        ubk, kinv = np.unique(bk, return_inverse=True)
        base = np.where(static["occupancy"] >= 1, static["tk"], np.inf)
        extra = np.full(base.shape, float(model.tile_overhead))
        if static["epi"] is not None:
            extra = extra + static["epi"]
        g = static["groups"] = {"cg": cg[gi], "bm": bm[gi], "bn": bn[gi], "inv": ginv.ravel(),
                                "bk": ubk, "kinv": kinv.ravel(), "base": base, "extra": extra}
    # Exact integers (extents <= 2**32: tiles < 2**61), the product in float64: no overflow.
    tiles_g = -(-m // g["bm"]) * (-(-n // g["bn"]))
    units = sms // g["cg"]
    per_unit_g = -(-tiles_g // units)
    waves_g = per_unit_g.astype(np.float64)
    if model.wave_quantization != 1.0:
        w = model.wave_quantization
        waves_g = w * waves_g + (1.0 - w) * (tiles_g / units)
    ktiles = (-(-k // g["bk"])).astype(np.float64)
    cycles = waves_g[g["inv"]] * (ktiles[g["kinv"]] * g["base"] + g["extra"])
    return {"cycles": cycles, "bound": static["bound"], "occupancy": static["occupancy"],
            "tiles": tiles_g[g["inv"]], "per_unit": per_unit_g[g["inv"]]}


def _problem(m, n, k, arch, sms):
    m, n, k = (as_int(x, v) for x, v in (("m", m), ("n", n), ("k", k)))
    for name, v in (("m", m), ("n", n), ("k", k)):
        if v < 1:
            raise PlanError(f"{name}={v} must be >= 1 (a GEMM problem extent in elements)")
        if v > MAX_EXTENT:
            raise PlanError(
                f"{name}={v} exceeds 2**32 = {MAX_EXTENT}, the largest extent a TMA tensor map "
                f"dimension holds (cuTensorMapEncodeTiled globalDim): split the GEMM")
    arch = _choice("arch", arch, ("sm90", "sm100"))
    sms = DEFAULT_SMS[arch] if sms is None else as_int("sms", sms)
    return m, n, k, arch, sms


def _sms_range(sms, top):
    if sms < 1 or top < 1:
        raise PlanError(f"sms={sms} and top={top} must both be >= 1")
    if sms > MAX_SMS:
        raise PlanError(f"sms={sms} exceeds {MAX_SMS}, the most SMs the model counts "
                        f"(an H100 SXM has 132): give the GPU's SM count")


_CONFIG_KEYS = ("arch", "cta_group", "bm", "bn", "bk", "stages", "swizzle_a", "swizzle_b")


def score_plans(model, rows, m, n, k, *, sms=None, epilogue_dtype=None):
    """Model cycles of plan configurations for an M x N x K GEMM (vectorised).

    Parameters
    ----------
    model : TuneModel or None
        The constants; None: :data:`DEFAULT_MODELS` of the rows' arch.
    rows : list of dict
        Plan configurations, e.g. :func:`tune`'s rows: ``bm``, ``bn``, ``bk``, ``stages`` and
        optionally ``arch`` (default sm90, one arch for all rows), ``cta_group`` (1),
        ``a_dtype``/``b_dtype`` (bf16), ``a_major``/``b_major`` (K), ``swizzle_a``/``swizzle_b``
        (auto). Other keys are ignored.
    m, n, k : int
        Problem size.
    sms : int, optional
        SM count; default :data:`DEFAULT_SMS` for the arch.
    epilogue_dtype : str, optional
        Plan an epilogue tile of this type, so that ``epilogue_clocks_per_wavefront`` sees its
        bank-conflict wavefronts.

    Returns
    -------
    numpy.ndarray
        float64 model cycles, one per row (``inf`` for an illegal plan or one that fits no CTA).
        For tune's own rows and model, the cycles tune reports (before rounding).

    Examples
    --------
    >>> rows = tune(4096, 4096, 4096, top=3)
    >>> c = score_plans(None, rows, 4096, 4096, 4096)
    >>> [int(round(x)) for x in c] == [r["model_cycles"] for r in rows]
    True
    >>> fast_l2 = TuneModel(l2_bytes_per_clock=96.0)
    >>> bool((score_plans(fast_l2, rows, 4096, 4096, 4096) <= c).all())
    True
    """
    listed = isinstance(rows, (list, tuple))
    bad = next((r for r in rows if not isinstance(r, dict)), None) if listed else rows
    if not listed or bad is not None:
        raise FastswzTypeError(f"rows must be a list of plan dicts (as tune returns); it holds "
                               f"{bad!r:.60}, a {type(bad).__name__}")
    archs = {r.get("arch", "sm90") for r in rows} or {"sm90"}
    if len(archs) > 1:
        raise PlanError(f"rows hold plans of several archs {sorted(archs)}: score one arch at a time")
    m, n, k, arch, sms = _problem(m, n, k, archs.pop(), sms)
    _sms_range(sms, 1)
    model = _model_arg(model, arch)
    if not rows:
        return np.zeros(0)
    table = _plan_columns(arch, rows, epilogue_dtype)
    return _cycles_of(model, table, m, n, k, sms)


def _plan_columns(arch, rows, epilogue_dtype=None):
    """plan_gemm over a list of configurations: the columns :func:`_evaluate` reads, the
    operand bits, and the legal mask (independent of the problem and the model)."""

    def col(key, default):
        return np.array([r.get(key, default) for r in rows])

    dt = col("a_dtype", "bf16")
    p = plan_gemm(arch, dt, col("b_dtype", "bf16"), col("a_major", "K"), col("b_major", "K"),
                  col("bm", None), col("bn", None), col("bk", None), col("stages", None),
                  col("swizzle_a", "auto"), col("swizzle_b", "auto"), epilogue_dtype, "auto", None,
                  col("cta_group", 1))
    bits = np.array([_lookup_dtype(str(d)).bits for d in dt.tolist()])
    return {"cta_group": p._inputs[1], "bm": p._inputs[8], "bn": p._inputs[9],
            "bk": p._inputs[10], "stages": p._inputs[11], "smem": p["smem_bytes"],
            "a_swizzle": p["a_swizzle"], "b_swizzle": p["b_swizzle"], "mma_m": p["mma_m"],
            "epi_wavefronts": p["epi_wavefronts"], "legal": p["legal"], "bits": bits,
            "arch": arch}


def _cycles_of(model, table, m, n, k, sms):
    """Model cycles of a :func:`_plan_columns` table (inf where illegal); one pass per width."""
    out = np.full(len(table["bits"]), np.inf)
    for bits in np.unique(table["bits"]).tolist():
        sel = table["legal"] & (table["bits"] == bits)
        if sel.any():
            cols = {c: np.asarray(v)[sel] for c, v in table.items() if c not in ("arch", "bits", "legal")}
            out[sel] = _evaluate(model, table["arch"], bits, cols, m, n, k, sms)["cycles"]
    return out


def tune(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", arch="sm90",
         sms=None, top=10, epilogue_dtype=None, smem_budget=None, progress=False, *, model=None,
         measure=None, bm=None, bn=None):
    """The ``top`` legal plans for an M x N x K GEMM, best model cycles first.

    Parameters
    ----------
    m, n, k : int
        Problem size (elements), 1 .. 2**32 (:data:`MAX_EXTENT`).
    a_dtype, b_dtype, a_major, b_major, arch, epilogue_dtype, smem_budget
        As :func:`fastswz.plan_gemm`.
    sms : int, optional
        SM count (1 .. 65536); default :data:`DEFAULT_SMS` for the arch.
    top : int
        How many plans to return.
    progress : bool
        Draw a progress line on stderr once the enumeration (or a measured search) has run for
        more than a second.
    model : TuneModel, optional
        The cost model's constants; default :data:`DEFAULT_MODELS` of the arch.
    measure : None
        Must be None. The measured search moved to the GPU runtime: ``fastswz.cuda.search_plans``
        (``fastswz tune --measure``); a value raises a :class:`~fastswz.MeasureError` saying so.
    bm, bn : int, optional
        Only the plans of this BM and/or BN (``rank`` counts those): the model's best plans of
        one tile shape without ranking the whole space.

    Returns
    -------
    list of dict
        ``rank``, the configuration, ``smem_bytes``, ``instruction``, ``occupancy``, ``tiles``,
        ``waves``, ``bound`` (what limits a k-tile: ``mma``, ``smem``, ``gmem`` or ``latency``),
        ``model_cycles`` and ``efficiency`` (model values: a ranking aid, not measured speed).

    Examples
    --------
    >>> best = tune(4096, 4096, 4096, top=3)
    >>> [(p["bm"], p["bn"], p["instruction"]) for p in best][:1]
    [(128, 256, 'wgmma.m64n256k16.f32.bf16.bf16')]
    >>> deep = tune(4096, 4096, 4096, top=1, model=TuneModel(latency=4000.0))[0]
    >>> deep["stages"] >= best[0]["stages"]
    True
    >>> [(p["bm"], p["bn"]) for p in tune(512, 512, 32768, top=2, bm=128, bn=128)]
    [(128, 128), (128, 128)]
    """
    m, n, k, arch, sms = _problem(m, n, k, arch, sms)
    top = as_int("top", top)
    _sms_range(sms, top)
    shape = {f: as_int(f, v) for f, v in (("bm", bm), ("bn", bn)) if v is not None}
    model = _model_arg(model, arch)
    if measure is not None:
        # the runtime layer imports this module, never the reverse (tests/test_imports.py)
        raise MeasureError(
            f"measure={measure!r}: tune ranks by the cost model only; the measured search is "
            f"fastswz.cuda.search_plans(m, n, k, ..., budget=...) (extra 'cuda', a GPU), or "
            f"fastswz tune --measure on the command line")
    da, db = _lookup_dtype(a_dtype), _lookup_dtype(b_dtype)
    a_major, b_major = (_choice(f, str(v).upper(), ("K", "MN")) for f, v in (("a_major", a_major),
                                                                           ("b_major", b_major)))
    epi = None if epilogue_dtype is None else _lookup_dtype(epilogue_dtype).name
    budget = None if smem_budget is None else as_int("smem_budget", smem_budget)
    space = _space(arch, da.name, db.name, a_major, b_major, epi, budget, progress)
    if space["cg"].size == 0:
        codes = space["reasons"]
        why = "check the types and majors (fastswz plan prints the reason per config)"
        if codes.size:
            common = np.bincount(codes)
            why = (f"the most common reason, for {int(common.max())} of {codes.size} configurations: "
                   f"{plan_reason(int(common.argmax()))}")
        raise PlanError(
            f"no legal plan for {arch} {da.name} x {db.name} ({a_major}/{b_major}-major) within "
            f"the budget: {why}")
    F = model.macs(da.bits if da.bits >= 8 else 8)
    cols = {"cta_group": space["cg"], "bm": space["bm"], "bn": space["bn"], "bk": space["bk"],
            "stages": space["st"], "smem": space["smem"], "a_swizzle": space["a_swizzle"],
            "b_swizzle": space["b_swizzle"], "mma_m": space["mma_m"],
            "epi_wavefronts": space["epi_wavefronts"]}
    static = space["static"].get(model)
    if static is None:   # per model: the k-tile clocks do not depend on the problem
        static = space["static"][model] = _evaluate_static(model, arch, da.bits, cols)
        if len(space["static"]) > 16:
            space["static"].clear()
            space["static"][model] = static
    r = _evaluate_problem(model, static, cols, m, n, k, sms)
    cycles = r["cycles"]
    ok = static.get("fits")
    if ok is None:
        ok = static["fits"] = np.flatnonzero(r["occupancy"] >= 1)
    for f, v in shape.items():   # a copy: static["fits"] stays whole
        ok = ok[space[f][ok] == v]
    if top < ok.size:   # only the candidates that can reach the first `top` (ties kept) are sorted
        cut = np.partition(cycles[ok], top - 1)[top - 1]
        ok = ok[cycles[ok] <= cut]
    # best cycles, then wider swizzles, less shared memory, then the configuration's own order
    order = ok[np.lexsort(tuple(a[ok] for a in (
        space["st"], space["bk"], space["bn"], space["bm"], space["cg"], space["smem"],
        space["width"], cycles)))][:top]
    ideal = m * n * k / (F * sms)
    out = []
    for rank, j in enumerate(order.tolist()):
        instr = space["instructions"].get(j)
        if instr is None:
            instr = space["instructions"][j] = space["plans"][space["chunk"][j]].instruction(
                int(space["index"][j]))
        cyc = float(cycles[j])
        out.append({
            "rank": rank + 1, "arch": arch, "cta_group": int(space["cg"][j]), "bm": int(space["bm"][j]),
            "bn": int(space["bn"][j]), "bk": int(space["bk"][j]), "stages": int(space["st"][j]),
            "swizzle_a": _SWIZZLES[int(space["a_swizzle"][j])],
            "swizzle_b": _SWIZZLES[int(space["b_swizzle"][j])],
            "smem_bytes": int(space["smem"][j]), "instruction": instr,
            "occupancy": int(r["occupancy"][j]), "tiles": int(r["tiles"][j]),
            "waves": int(r["per_unit"][j]), "bound": ("mma", "smem", "gmem", "latency")[int(r["bound"][j])],
            "model_cycles": int(round(cyc)), "efficiency": round(ideal / cyc, 4)})
    return out


_SPACES = {}


def _space(arch, a_dtype, b_dtype, a_major, b_major, epilogue_dtype, smem_budget, progress=False):
    """Every legal plan of tune's space for one arch, types, majors, epilogue and budget, as
    columns (numpy arrays, one entry per plan) with the plans they came from. It does not depend
    on the problem or the model, so it is built once per process and key: a new M, N, K only
    evaluates the model over these columns."""
    key = (arch, a_dtype, b_dtype, a_major, b_major, epilogue_dtype, smem_budget)
    hit = _SPACES.get(key)
    if hit is not None:
        return hit
    da, db = _lookup_dtype(a_dtype), _lookup_dtype(b_dtype)
    e = da.bits // 8 if da.bits >= 8 else 1
    bks = [b for b in (16, 32, 64, 128, 256) if 32 <= b * e <= 512]
    bns = list(range(16, 257, 16))
    grid = []  # (cta_group, bm list)
    if arch == "sm90":
        grid.append((1, [64, 128, 192, 256]))
    else:
        grid += [(1, [64, 128, 256]), (2, [128, 256])]
    sw = {}
    for op, d, major in (("a", da, a_major), ("b", db, b_major)):
        if arch == "sm100" and major == "MN" and d.bits == 32:
            sw[op] = ["128B_base32B"]
        else:
            sw[op] = ["none", "32B", "64B", "128B"]
    stages = np.arange(1, 9)
    chunks = [(cg, bm) for cg, bms in grid for bm in bms]
    started, shown = time.perf_counter(), False
    plans, cols, reasons = [], [], []
    for c, (cg, bm) in enumerate(chunks):
        p = plan_gemm(arch, da.name, db.name, a_major, b_major, bm,
                      np.array(bns).reshape(-1, 1, 1, 1, 1), np.array(bks).reshape(-1, 1, 1, 1),
                      stages.reshape(-1, 1, 1), np.array(sw["a"]).reshape(-1, 1), sw["b"],
                      epilogue_dtype, "auto", smem_budget, cg)
        plans.append(p)
        codes = p["reason"].ravel()
        reasons.append(codes[codes > 0])
        legal = np.flatnonzero(p["legal"].ravel())
        idx = np.unravel_index(legal, p.shape)
        col = {name: p[name].ravel()[legal].astype(np.int64) for name in PLAN_FIELDS}
        cols.append({
            "cg": np.full(legal.size, cg, dtype=np.int64), "bm": np.full(legal.size, bm, dtype=np.int64),
            "bn": np.array(bns, dtype=np.int64)[idx[0]], "bk": np.array(bks, dtype=np.int64)[idx[1]],
            "st": stages[idx[2]].astype(np.int64), "smem": col["smem_bytes"],
            "a_swizzle": col["a_swizzle"], "b_swizzle": col["b_swizzle"], "mma_m": col["mma_m"],
            "epi_wavefronts": p["epi_wavefronts"].ravel()[legal].astype(np.int64),
            "width": -(col["a_swizzle"] + col["b_swizzle"]),   # wider swizzles first on ties
            "chunk": np.full(legal.size, c, dtype=np.int64), "index": legal.astype(np.int64)})
        if progress and (shown or time.perf_counter() - started > 1.0):
            shown = True
            print(f"\rfastswz tune: {c + 1}/{len(chunks)} blocks of the space", end="",
                  file=sys.stderr, flush=True)
    if shown:
        print(file=sys.stderr)
    space = {name: np.concatenate([c[name] for c in cols]) for name in cols[0]}
    space["plans"] = plans
    space["reasons"] = np.concatenate(reasons)
    space["static"] = {}
    space["instructions"] = {}
    if len(_SPACES) >= 64:
        _SPACES.clear()
    _SPACES[key] = space
    return space


TUNE_NOTE = ("model ranking (fastswz.tune cost model: wave quantization, pipeline depth, "
             "smem-limited occupancy, MMA shape vs smem/L2 feed); a ranking aid, not measured speed")
__all__.append("TUNE_NOTE")
