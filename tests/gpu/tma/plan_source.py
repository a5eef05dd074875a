"""GEMM plans for the TMA round trip, from two sources.

1. ``fastswz.plan_gemm`` / ``fastswz plan --json`` (issue 10 part 1), when the installed
   fastswz has it: :func:`fastswz_plan`.
2. An independent derivation written here from :class:`fastswz.OperandTile` and the rules of the
   CUDA driver API (``cuTensorMapEncodeTiled``) and PTX: :func:`derive_plan`. It is the source
   until part 1 merges, and afterwards the cross-check: :func:`get_plan` compares both field by
   field and raises on any difference.

A plan is a dict in the JSON contract of ``fastswz plan --json`` (see tma_roundtrip.py).

Rules used by the derivation (facts, with where they come from):

* wgmma (PTX 9.7.15.5.2): M = 64 per warpgroup, N a multiple of 8 (16 for 8-bit types... we use
  64/128/256) up to 256, K = 32 bytes per instruction (k16 for 16-bit, k8 tf32, k32 e4m3);
  MN-major operands (imm-trans) only for .f16/.bf16.
* Stage buffers of a swizzled operand start on 1024 bytes (the 128B pattern repeats every 1024
  bytes and both TMA and wgmma swizzle the absolute shared address; NOTES 8.12, 10).
* cuTensorMapEncodeTiled: box dims 1..256; with interleave NONE the inner box dimension times the
  element size is a multiple of 16 bytes and, when swizzled, at most the swizzle span
  (32/64/128 bytes); global strides multiples of 16; global address 16-byte aligned.
* TMA writes box row r (outer coordinate) at ``dst + r * inner_bytes`` and applies the swizzle
  to the absolute shared address: bits [4, 4+b) ^= bits [7, 7+b), b = 1/2/3 for 32/64/128B.
  So one box of (span / E) x R elements lays R rows of one swizzle span contiguously: that is
  one column of swizzle atoms, which is a contiguous run of a tile in the order whose first
  tiling mode is the non-contiguous extent: order "mn" for K-major (atoms of 8 rows stacked
  along MN), order "k" for MN-major (atoms of 8 K rows stacked along K).
* Barriers: one "full" and one "empty" mbarrier (8 bytes each) per stage, after the buffers.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

SMEM_LIMIT_SM90 = 232448  # cudaDevAttrMaxSharedMemoryPerBlockOptin on H100 (227 KiB)
ELEM_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1}
SPANS = {"32B": 32, "64B": 64, "128B": 128}
BARRIER_BYTES_PER_STAGE = 16


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def auto_swizzle(dtype: str, major: str, mn: int, bk: int) -> "str | None":
    """Widest swizzle whose span the contiguous extent (K for K-major, MN for MN-major) fills."""
    extent = (bk if major == "K" else mn) * ELEM_BYTES[dtype]
    for name in ("128B", "64B", "32B"):
        if extent >= SPANS[name] and extent % SPANS[name] == 0:
            return name
    return None


def _illegal(reason: str) -> dict:
    return {"legal": False, "reason": reason}


def _operand(fastswz, dtype, major, swizzle, mn, bk, inst_mn, stages, first_offset):
    order = "mn" if major == "K" else "k"
    t = fastswz.OperandTile(dtype, major, swizzle, mn, bk, order=order, arch="sm90")
    e = ELEM_BYTES[dtype]
    span = SPANS[swizzle]
    amn, ak = t.atom_shape
    lbo, sbo = t.strides(inst_mn)
    stage_bytes = t.nbytes
    stride = _align(stage_bytes, 1024)
    offsets = [first_offset + s * stride for s in range(stages)]
    if major == "K":
        box = [span // e, mn]
        copies = [[t.offset(0, j * ak), [j * ak, 0]] for j in range(bk // ak)]
    else:
        box = [span // e, bk]
        copies = [[t.offset(j * amn, 0), [j * amn, 0]] for j in range(mn // amn)]
    if max(box) > 256:
        return None, f"TMA box {box} has a dimension above 256 (cuTensorMapEncodeTiled)"
    table = [t.descriptors(start=o, inst_mn=inst_mn) for o in offsets]  # (MN blocks, K blocks)
    inc = None
    d0 = [int(x) for x in table[0][0]]
    steps = [d - d0[0] for d in d0]
    # one k-step per k-tile has no increment: null, as for one that is not constant
    if len(steps) > 1 and all(steps[j] == j * steps[1] for j in range(len(steps))):
        inc = steps[1]
        for tab in table:  # constant in every stage and MN block too
            for row in tab:
                if [int(x) - int(row[0]) for x in row] != steps:
                    inc = None
    op = {
        "swizzle": swizzle, "order": order, "lbo_bytes": lbo, "sbo_bytes": sbo,
        "stage_bytes": stage_bytes, "stage_offsets": offsets,
        "tma_box": box, "tma_swizzle": swizzle, "tma_element_strides": [1, 1],
        "tma_interleave": "none", "tma_copies_per_stage": len(copies),
        "tma_box_offsets": copies,
        "descriptors": [[[f"0x{int(x):016x}" for x in row] for row in tab] for tab in table],
        "k_step_increment": inc,
    }
    return op, offsets[-1] + stride


def derive_plan(a_dtype="bf16", b_dtype=None, a_major="K", b_major="K", bm=128, bn=128, bk=64,
                stages=4, swizzle="auto", arch="sm90", a_swizzle=None, b_swizzle=None) -> dict:
    """The plan of one sm90 wgmma GEMM configuration, derived independently (module docstring)."""
    import fastswz

    b_dtype = b_dtype or a_dtype
    if arch != "sm90":
        return _illegal(f"arch={arch}: this derivation covers sm90 (wgmma) only")
    if a_dtype != b_dtype or a_dtype not in ELEM_BYTES:
        return _illegal(f"dtypes {a_dtype}/{b_dtype}: need one of {sorted(ELEM_BYTES)} for both")
    e = ELEM_BYTES[a_dtype]
    if e != 2 and (a_major, b_major) != ("K", "K"):
        return _illegal(f"{a_dtype}: wgmma reads MN-major operands only for f16/bf16")
    if bm % 64 or not 64 <= bm <= 128:
        return _illegal(f"bm={bm}: one or two warpgroups of m64")
    if bn % 8 or not 8 <= bn <= 256:
        return _illegal(f"bn={bn}: wgmma N is a multiple of 8 up to 256")
    inst_k = 32 // e
    if bk % inst_k:
        return _illegal(f"bk={bk}: not a whole number of k{inst_k} steps")
    swa = a_swizzle or (swizzle if swizzle != "auto" else auto_swizzle(a_dtype, a_major, bm, bk))
    swb = b_swizzle or (swizzle if swizzle != "auto" else auto_swizzle(b_dtype, b_major, bn, bk))
    if swa not in SPANS or swb not in SPANS:
        return _illegal(f"swizzle {swa}/{swb}: the TMA fill here needs 32B/64B/128B")
    est = stages * (_align(bm * bk * e, 1024) + _align(bn * bk * e, 1024))
    est += BARRIER_BYTES_PER_STAGE * stages
    if est > SMEM_LIMIT_SM90:
        return dict(_illegal(f"shared memory {est} > {SMEM_LIMIT_SM90}"), smem_bytes=est)
    try:
        a, end = _operand(fastswz, a_dtype, a_major, swa, bm, bk, 64, stages, 0)
        if a is None:
            return _illegal(end)
        b, end = _operand(fastswz, b_dtype, b_major, swb, bn, bk, bn, stages, end)
        if b is None:
            return _illegal(end)
    except fastswz.FastswzError as exc:
        return _illegal(f"OperandTile: {exc}")
    smem = end + BARRIER_BYTES_PER_STAGE * stages
    if smem > SMEM_LIMIT_SM90:
        return dict(_illegal(f"shared memory {smem} > {SMEM_LIMIT_SM90}"), smem_bytes=smem)
    return {
        "legal": True, "reason": None, "smem_bytes": smem,
        "instruction": f"wgmma.m64n{bn}k{inst_k}.f32.{a_dtype}.{b_dtype}",
        "mma_per_k_tile": (bm // 64) * (bk // inst_k), "warpgroups": bm // 64,
        "a": a, "b": b,
        # not in the JSON contract; the driver needs them to rebuild the problem
        "config": {"a_dtype": a_dtype, "b_dtype": b_dtype, "a_major": a_major,
                   "b_major": b_major, "bm": bm, "bn": bn, "bk": bk, "stages": stages},
    }


def fastswz_plan(cfg: dict) -> "dict | None":
    """The plan from fastswz itself (``plan_gemm`` via ``fastswz plan --json``), or None."""
    import fastswz

    if not hasattr(fastswz, "plan_gemm"):
        return None
    args = [sys.executable, "-m", "fastswz", "plan", "--arch", "sm90",
            "--a-dtype", cfg["a_dtype"], "--b-dtype", cfg["b_dtype"],
            "--a-major", cfg["a_major"], "--b-major", cfg["b_major"],
            "--bm", str(cfg["bm"]), "--bn", str(cfg["bn"]), "--bk", str(cfg["bk"]),
            "--stages", str(cfg["stages"]), "--json"]
    for op in ("a", "b"):  # None: the plan's own choice ("auto")
        if cfg.get(f"{op}_swizzle"):
            args[-1:-1] = [f"--swizzle-{op}", cfg[f"{op}_swizzle"]]
    out = subprocess.run(args, capture_output=True, text=True, check=True, env=os.environ)
    plan = json.loads(out.stdout)
    plan.setdefault("config", {k: cfg[k] for k in ("a_dtype", "b_dtype", "a_major", "b_major",
                                                   "bm", "bn", "bk", "stages")})
    return plan


# Fields compared between the two sources; any difference fails the case. A plan that picks the
# other atom order (and so other boxes and descriptors) can still be right: `--source fastswz`
# runs fastswz's plans alone on the hardware, without the comparison, to tell the two apart.
TOP_FIELDS = ("legal", "smem_bytes", "instruction", "mma_per_k_tile", "warpgroups")
OPERAND_FIELDS = ("swizzle", "lbo_bytes", "sbo_bytes", "stage_bytes", "stage_offsets", "tma_box",
                  "tma_swizzle", "tma_element_strides", "tma_interleave", "tma_copies_per_stage",
                  "tma_box_offsets", "order", "descriptors", "k_step_increment")


def normalize_copies(copies) -> "list[tuple[int, int, int]]":
    """``tma_box_offsets`` as (smem offset, c0, c1): accepts [off, [c0, c1]], [off, c0, c1] or
    {"smem_offset"/"smem_bytes"/"offset": off, "coords"/"global": [c0, c1]}."""
    out = []
    for c in copies:
        if isinstance(c, dict):
            off = next(c[k] for k in ("smem_offset", "smem_bytes", "offset", "smem") if k in c)
            co = next(c[k] for k in ("coords", "global", "coordinates", "origin") if k in c)
            out.append((int(off), int(co[0]), int(co[1])))
        elif len(c) == 2:
            out.append((int(c[0]), int(c[1][0]), int(c[1][1])))
        else:
            out.append((int(c[0]), int(c[1]), int(c[2])))
    return out


def compare(p: dict, q: dict) -> "list[str]":
    """Field-by-field differences between two plans ([] when they agree)."""
    diffs = []
    for f in TOP_FIELDS:
        if p.get(f) != q.get(f):
            diffs.append(f"{f}: {p.get(f)!r} != {q.get(f)!r}")
    if p.get("legal") and q.get("legal"):
        for side in ("a", "b"):
            for f in OPERAND_FIELDS:
                x, y = p[side].get(f), q[side].get(f)
                if f == "tma_box_offsets" and x is not None and y is not None:
                    x, y = normalize_copies(x), normalize_copies(y)
                if f == "descriptors" and x is not None and y is not None:
                    x = [[[int(v, 16) for v in r] for r in t] for t in x]
                    y = [[[int(v, 16) for v in r] for r in t] for t in y]
                if x != y:
                    diffs.append(f"{side}.{f}: {str(x)[:80]} != {str(y)[:80]}")
    return diffs


def get_plan(cfg: dict, source: str = "auto") -> "tuple[dict, str, list[str]]":
    """(plan, source name, differences). source: "auto" (fastswz if it has plan_gemm, else the
    derivation; compared field by field when both exist), "fastswz" (fastswz's plan alone, not
    compared) or "derived"."""
    derived = derive_plan(cfg["a_dtype"], cfg["b_dtype"], cfg["a_major"], cfg["b_major"],
                          cfg["bm"], cfg["bn"], cfg["bk"], cfg["stages"],
                          a_swizzle=cfg.get("a_swizzle"), b_swizzle=cfg.get("b_swizzle"))
    if source == "derived":
        return derived, "derived", []
    theirs = fastswz_plan(cfg)
    if theirs is None:
        if source == "fastswz":
            raise RuntimeError("fastswz has no plan_gemm (issue 10 part 1 not merged)")
        return derived, "derived", []
    return theirs, "fastswz", [] if source == "fastswz" else compare(theirs, derived)
