"""Rank GEMM tile plans for one problem under a simple, documented cost model.

:func:`tune` enumerates a space of (BM, BN, BK, stages, swizzle A, swizzle B[, cta_group]) with
:func:`fastswz.plan_gemm` in bulk, keeps the legal plans and orders them by *model cycles*. The
model is a ranking aid for narrowing an autotuner's search, not a measurement or a prediction
of speed: it ignores the epilogue (the plans' ``epi_*`` bank-conflict columns are there for a
caller to weigh; the model does not use them), L2 hit rates, register pressure, instruction
issue and clocks. Per SM, with ``F`` dense MACs per clock (sm90: 2048 for 16-bit, 4096 for 8-bit, 1024 for
tf32, the H100 SXM datasheet peak divided by 132 SMs x 1.83 GHz; sm100: twice that):

* one k-tile costs ``t = max(mma, smem, gmem)`` clocks: ``mma = BM' BN BK / F``; ``smem`` the
  operand bytes the MMAs read from shared memory at 128 B/clock (sm90: every warpgroup reads its
  64 rows of A and all of B; sm100: A and B once); ``gmem`` the bytes TMA brings in,
  ``(BM' + BN') BK E``, at an assumed 48 B/clock/SM (sm90) or 64 (sm100) from L2 (round
  figures, cluster multicast included)
  (``BM'``/``BN'``: one CTA's share under cta_group 2);
* pipeline depth: with ``S = stages x occupancy`` loads in flight and a load latency of
  ``LATENCY`` = 800 clocks, a k-tile takes ``max(t, (LATENCY + t) / S)``;
* occupancy: CTAs per SM = ``min(233472 // (smem + 1024), 2048 // threads, registers)``
  (228 KiB of shared memory per SM, 1 KiB reserved per CTA; threads = (BM/64 + 1) x 128 on sm90
  (one producer warpgroup), 256 on sm100); registers: sm90 keeps the BM x BN f32 accumulator in
  registers, ``65536 // (threads x (BN/2 + 32))`` (BN/2 accumulator registers per thread plus an
  assumed 32 others); sm100 keeps it in tensor memory, ``512 // (BN x BM' / mma_m)`` columns.
  Plans that fit zero CTAs are dropped. Resident CTAs share the tensor cores, so occupancy only
  hides latency;
* TMA rows: an operand without swizzle is loaded in 16-byte box rows, half of a 32-byte sector,
  so its gmem bytes count twice; equal model cycles rank the wider swizzle first;
* wave quantization: each SM (CTA pair under cta_group 2) runs ``ceil(tiles / SMs)`` tiles of
  ``ceil(K / BK)`` k-tiles, so a partial last wave costs a whole one;
* MMA shape efficiency follows from the above (a narrow BN is smem- or gmem-bound, a tile that
  overhangs M or N wastes MMAs); ``efficiency`` = useful MACs / (F x SMs x model cycles).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from .dtypes import dtype as _lookup_dtype
from .errors import PlanError, as_int
from .plan import PLAN_FIELDS, _SWIZZLES, plan_gemm
from .rules import _choice

__all__ = ["tune", "DEFAULT_SMS", "LATENCY", "MAX_EXTENT", "MAX_SMS"]

#: SM counts the ``sms`` argument defaults to: H100 SXM (132), B200 (148).
DEFAULT_SMS = {"sm90": 132, "sm100": 148}
LATENCY = 800
#: Largest M, N or K tune accepts: a TMA tensor map dimension holds at most 2**32 elements.
MAX_EXTENT = 1 << 32
#: Largest SM count tune accepts.
MAX_SMS = 1 << 16
_SM_SMEM = 233472  # 228 KiB of shared memory per SM on sm90 and sm100, 1 KiB reserved per CTA
_GMEM_BW = {"sm90": 48, "sm100": 64}


def _macs_per_clock(arch, bits):
    base = {8: 4096, 16: 2048, 32: 1024}[bits]
    return base * (2 if arch == "sm100" else 1)


def tune(m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", arch="sm90",
         sms=None, top=10, epilogue_dtype=None, smem_budget=None, progress=False):
    """The ``top`` legal plans for an M x N x K GEMM, best model cycles first.

    Parameters
    ----------
    m, n, k : int
        Problem size (elements).
    a_dtype, b_dtype, a_major, b_major, arch, epilogue_dtype, smem_budget
        As :func:`fastswz.plan_gemm`.
    sms : int, optional
        SM count; default :data:`DEFAULT_SMS` for the arch.
    top : int
        How many plans to return.
    progress : bool
        Draw a progress line on stderr once the enumeration has run for more than a second.

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
    """
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
    top = as_int("top", top)
    if sms < 1 or top < 1:
        raise PlanError(f"sms={sms} and top={top} must both be >= 1")
    if sms > MAX_SMS:
        raise PlanError(f"sms={sms} exceeds {MAX_SMS}, the most SMs the model counts "
                        f"(an H100 SXM has 132): give the GPU's SM count")
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
        if arch == "sm100" and str(major).upper() == "MN" and d.bits == 32:
            sw[op] = ["128B_base32B"]
        else:
            sw[op] = ["none", "32B", "64B", "128B"]
    stages = np.arange(1, 9)
    chunks = [(cg, bm) for cg, bms in grid for bm in bms]
    started, shown = time.perf_counter(), False
    rows = []
    for c, (cg, bm) in enumerate(chunks):
        p = plan_gemm(arch, da.name, db.name, a_major, b_major, bm,
                      np.array(bns).reshape(-1, 1, 1, 1, 1), np.array(bks).reshape(-1, 1, 1, 1),
                      stages.reshape(-1, 1, 1), np.array(sw["a"]).reshape(-1, 1), sw["b"],
                      epilogue_dtype, "auto", smem_budget, cg)
        rows.append((cg, bm, p))
        if progress and (shown or time.perf_counter() - started > 1.0):
            shown = True
            print(f"\rfastswz tune: {c + 1}/{len(chunks)} blocks of the space", end="",
                  file=sys.stderr, flush=True)
    if shown:
        print(file=sys.stderr)
    F = _macs_per_clock(arch, da.bits)
    cands = []
    for cg, bm, p in rows:
        legal = np.flatnonzero(p["legal"].ravel())
        if not legal.size:
            continue
        col = {name: p[name].ravel()[legal].astype(np.int64) for name in PLAN_FIELDS}
        idx = np.unravel_index(legal, p.shape)
        bn = np.array(bns)[idx[0]]
        bk = np.array(bks)[idx[1]]
        st = stages[idx[2]]
        smem = col["smem_bytes"]
        bm_sm, bn_sm = bm // cg, bn // cg
        if arch == "sm90":
            threads = (bm // 64 + 1) * 128
            smem_rd = (bm // 64) * (64 + bn) * bk * e
        else:
            threads = 256
            smem_rd = (bm_sm + bn_sm) * bk * e
        if arch == "sm90":
            regs = 65536 // (threads * (bn // 2 + 32))
        else:
            regs = 512 // (bn * (bm_sm // np.maximum(col["mma_m"] // cg, 1)))
        occ = np.minimum(np.minimum(_SM_SMEM // (smem + 1024), 2048 // threads), regs)
        mma = bm_sm * bn * bk / F
        sm_t = smem_rd / 128.0
        # 16-byte TMA rows (no swizzle) use half of each 32-byte sector.
        wa = np.where(col["a_swizzle"] == 1, 2, 1)
        wb = np.where(col["b_swizzle"] == 1, 2, 1)
        gm_t = (bm_sm * wa + bn_sm * wb) * bk * e / _GMEM_BW[arch]
        t = np.maximum(np.maximum(mma, sm_t), gm_t)
        s_eff = st * occ
        tk = np.maximum(t, (LATENCY + t) / np.maximum(s_eff, 1))
        # Exact integers (extents <= 2**32: tiles < 2**61), the product in float64: no overflow.
        tiles = -(-m // bm) * (-(-n // bn))
        units = sms // cg
        per_unit = -(-tiles // units)
        ktiles = -(-k // bk)
        cycles = per_unit.astype(np.float64) * ktiles * tk
        bound = np.where(tk > t, 3, np.where(t == mma, 0, np.where(t == sm_t, 1, 2)))
        width = -(col["a_swizzle"] + col["b_swizzle"])  # wider swizzles first on ties
        for j in range(legal.size):
            if occ[j] < 1:
                continue
            cands.append((float(cycles[j]), int(width[j]), int(smem[j]), cg, bm, int(bn[j]), int(bk[j]), int(st[j]),
                          p, int(legal[j]), int(occ[j]), int(tiles[j]), int(per_unit[j]),
                          int(bound[j])))
    if not cands:
        raise PlanError(
            f"no legal plan for {arch} {da.name} x {db.name} ({a_major}/{b_major}-major) within "
            f"the budget: check the types and majors (fastswz plan prints the reason per config)")
    cands.sort(key=lambda c: c[:8])
    ideal = m * n * k / (F * sms)
    out = []
    for r, (cyc, _, smem, cg, bm, bn, bk, st, p, i, occ, tiles, per_unit, bound) in enumerate(cands[:top]):
        f = {name: int(p[name].ravel()[i]) for name in ("a_swizzle", "b_swizzle")}
        out.append({
            "rank": r + 1, "arch": arch, "cta_group": cg, "bm": bm, "bn": bn, "bk": bk, "stages": st,
            "swizzle_a": _SWIZZLES[f["a_swizzle"]], "swizzle_b": _SWIZZLES[f["b_swizzle"]],
            "smem_bytes": smem, "instruction": p.instruction(i), "occupancy": occ, "tiles": tiles,
            "waves": per_unit, "bound": ("mma", "smem", "gmem", "latency")[bound],
            "model_cycles": int(round(cyc)), "efficiency": round(ideal / cyc, 4)})
    return out


TUNE_NOTE = ("model ranking (fastswz.tune cost model: wave quantization, pipeline depth, "
             "smem-limited occupancy, MMA shape vs smem/L2 feed); a ranking aid, not measured speed")
__all__.append("TUNE_NOTE")
