#!/usr/bin/env python3
"""TMA round trip for GEMM plans: do a plan's TMA parameters fill its stage buffers in exactly
the layout that fastswz's map and the plan's wgmma descriptors describe?

For every plan (the JSON contract of ``fastswz plan --json``; see plan_source.py) and a K of
``stages + 2`` k-tiles (so the ring wraps and each mbarrier runs more than one phase):

1. encode one tensor map per operand with cuTensorMapEncodeTiled from the plan's ``tma_box``,
   ``tma_swizzle``, ``tma_element_strides``, ``tma_interleave``;
2. fill each stage with the plan's ``tma_box_offsets`` copies (cp.async.bulk.tensor.2d, one
   mbarrier per stage, expect-tx = the plan's A + B ``stage_bytes``);
3. (a) placement: dump the raw stage buffers after their first fill; on the host, every element
   of the tile must sit at ``OperandTile(...).addresses(start=stage offset)`` (unique ids per
   element; 8-bit types run two id passes, mn and k, which together pin every element);
   (b) product: run wgmma with the plan's k-step-0 descriptors of each stage (plus base >> 4)
   and its per-k-step increments, over all k-tiles; D must equal A @ B^T exactly (small
   integers, exact in f32).

Negative controls mutate one TMA parameter of a legal plan and MUST fail, either because
cuTensorMapEncodeTiled rejects it or because placement / D / the barrier wait goes wrong; the
table records which.

Backends: ``gpu`` (libtma_roundtrip.so through ctypes, sm_90a) and ``cpu``: a model of the TMA
(box rows at inner-box-bytes pitch, the swizzle XOR bits [4,4+b) ^= [7,7+b) of the absolute
address, the encode rules of plan_source.py) with D computed through fastswz's map, not the
descriptors. The cpu backend rehearses the harness and the plans without a GPU.

Usage:
  python3 tests/gpu/tma/tma_roundtrip.py --backend gpu --lib build/libtma_roundtrip.so --out DIR
  python3 tests/gpu/tma/tma_roundtrip.py --backend cpu --quick
Exit status: 0 all passed, 1 a case failed or a negative control passed, 2 setup error.
"""
from __future__ import annotations

import argparse
import copy
import ctypes
import json
import os
import random
import subprocess
import sys
import time
import traceback
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # tests/gpu: conformance.encode (small-integer bits)

import plan_source  # noqa: E402
from conformance import encode as encode_values  # noqa: E402

DT_CODE = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 3}
MAP_DTYPE = {"f16": 6, "bf16": 9, "tf32": 7, "e4m3": 0}  # CUtensorMapDataType: FLOAT16, BFLOAT16, FLOAT32, UINT8
SWIZZLE_ENUM = {"none": 0, "32B": 1, "64B": 2, "128B": 3}  # CUtensorMapSwizzle
INTERLEAVE_ENUM = {"none": 0, "16B": 1, "32B": 2}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}
SMEM_ALLOC_LIMIT = 232448
GUARD = 8192


# --------------------------------------------------------------------------------------------
# the case grid

def _cfg(dt, am, bmj, bm, bn, bk, st, sw=None):
    return {"a_dtype": dt, "b_dtype": dt, "a_major": am, "b_major": bmj, "bm": bm, "bn": bn,
            "bk": bk, "stages": st, "a_swizzle": sw, "b_swizzle": sw}


def cases(quick=False):
    out = []
    shapes16 = [(64, 64, 64, 2), (128, 128, 64, 3), (128, 256, 64, 4), (64, 128, 128, 2)]
    for sw in ("32B", "64B", "128B"):
        for shp in (shapes16 if not quick else shapes16[:1]):
            out.append(_cfg("bf16", "K", "K", *shp, sw))
        for majors in (("MN", "MN"), ("K", "MN"), ("MN", "K")):
            for shp in (shapes16[1:3] if not quick else shapes16[1:2]):
                out.append(_cfg("bf16", *majors, *shp, sw))
        for majors in (("K", "K"), ("MN", "MN")):
            for shp in ((shapes16[0], shapes16[2]) if not quick else shapes16[:1]):
                out.append(_cfg("f16", *majors, *shp, sw))
        for shp in ([(64, 64, 32, 2), (128, 128, 64, 3)] if not quick else [(64, 64, 32, 2)]):
            out.append(_cfg("tf32", "K", "K", *shp, sw))
        for shp in ([(64, 128, 128, 2), (128, 256, 128, 3)] if not quick else [(64, 128, 128, 2)]):
            out.append(_cfg("e4m3", "K", "K", *shp, sw))
    # "auto" swizzle (the plan's own choice), a few
    for c in (_cfg("bf16", "K", "K", 128, 128, 32, 4), _cfg("bf16", "MN", "MN", 64, 64, 64, 2),
              _cfg("e4m3", "K", "K", 128, 128, 64, 4)):
        out.append(c)
    return out


# The N that tma_roundtrip.cuh instantiates a kernel for (tma_dispatch_n).
KERNEL_NS = (64, 128, 256)


def heldout_cases(seed, n, bns=None):
    """``n`` configurations drawn from ``seed``: other shapes than cases() (BM 192, other BN,
    1-6 stages, mixed swizzles per operand), kept where the derivation calls them legal.
    ``bns``: the BN to draw from (default: every multiple of 16, 32 for e4m3)."""
    rng = random.Random(seed)
    out, tries = [], 0
    while len(out) < n and tries < 100 * n:
        tries += 1
        dt = rng.choice(["bf16", "f16", "tf32", "e4m3"])
        e = plan_source.ELEM_BYTES[dt]
        am, bmj = (rng.choice(["K", "MN"]), rng.choice(["K", "MN"])) if e == 2 else ("K", "K")
        bm = rng.choice([64, 128, 192, 256])
        bn = rng.choice(bns or (range(16, 257, 16) if e != 1 else range(32, 257, 32)))
        bk = rng.choice([b for b in (16, 32, 64, 128, 256) if 32 <= b * e <= 256])
        cfg = _cfg(dt, am, bmj, bm, bn, bk, rng.randint(1, 6))
        cfg["a_swizzle"] = rng.choice([None, "32B", "64B", "128B"])
        cfg["b_swizzle"] = rng.choice([None, "32B", "64B", "128B"])
        try:
            plan = plan_source.derive_plan(dt, dt, am, bmj, bm, bn, bk, cfg["stages"],
                                           a_swizzle=cfg["a_swizzle"], b_swizzle=cfg["b_swizzle"])
        except Exception:
            continue
        if plan.get("legal") and cfg not in out:
            out.append(cfg)
    return out


def _set(side, **kv):
    def f(plan):
        plan[side].update(kv)
    return f


def _box(side, dim, how):
    def f(plan):
        plan[side]["tma_box"][dim] = how(plan, plan[side]["tma_box"][dim])
    return f


def negatives():
    """(name, config, mutation, expectation) of every negative control."""
    k64 = _cfg("bf16", "K", "K", 64, 64, 32, 2, "64B")
    k128 = _cfg("bf16", "K", "K", 64, 64, 64, 2, "128B")
    mn128 = _cfg("bf16", "K", "MN", 64, 128, 64, 2, "128B")
    e8 = _cfg("e4m3", "K", "K", 64, 128, 128, 2, "128B")
    return [
        ("tma-128B-into-64B-plan (A)", k64, _set("a", tma_swizzle="128B"), "wrong placement"),
        ("tma-64B-into-128B-plan (A)", k128, _set("a", tma_swizzle="64B"), "encode rejects"),
        ("tma-none-into-128B-plan (A)", k128, _set("a", tma_swizzle="none"), "wrong placement"),
        ("tma-32B-into-64B-plan (A)", k64, _set("a", tma_swizzle="32B"), "encode rejects"),
        ("tma-64B-into-128B-plan (B, MN-major)", mn128, _set("b", tma_swizzle="64B"),
         "encode rejects"),
        ("tma-128B-into-64B-plan (e4m3 B)", _cfg("e4m3", "K", "K", 64, 64, 64, 2, "64B"),
         _set("b", tma_swizzle="128B"), "wrong placement"),
        ("box-inner-one-atom-too-wide (A, K-major)", k128, _box("a", 0, lambda p, v: 2 * v),
         "encode rejects"),
        ("box-inner-one-atom-too-wide (B, MN-major)", mn128, _box("b", 0, lambda p, v: 2 * v),
         "encode rejects"),
        ("box-outer-one-atom-too-wide (A, K-major, +8 rows)", k128,
         _box("a", 1, lambda p, v: v + 8), "wrong placement / D / wait"),
        ("box-outer-one-atom-too-wide (B, MN-major, +8 K rows)", mn128,
         _box("b", 1, lambda p, v: v + 8), "wrong placement / D / wait"),
        ("box-outer-one-atom-too-wide (e4m3 A)", e8, _box("a", 1, lambda p, v: v + 8),
         "wrong placement / D / wait"),
        # the same with the barrier armed for the bytes actually sent, so the copy completes and
        # what it did to shared memory shows
        ("box-outer-one-atom-too-wide (A, K-major, +8 rows, tx = box)", k128,
         _both(_box("a", 1, lambda p, v: v + 8), _tx_from_box),
         "recorded only: the 8 extra rows are out of bounds of A (zero fill) and land in a buffer "
         "that its own copy refills, so this one may pass"),
        ("box-outer-one-atom-too-wide (B, MN-major, +8 K rows, tx = box)", mn128,
         _both(_box("b", 1, lambda p, v: v + 8), _tx_from_box), "wrong placement / D"),
    ]


def _tx_from_box(plan):
    plan["tx_from_box"] = True


def _both(f, g):
    def h(plan):
        f(plan)
        g(plan)
    return h


# --------------------------------------------------------------------------------------------
# problem data and the expected images

def tile_of(plan, side):
    import fastswz

    c = plan["config"]
    op = plan[side]
    mn = c["bm"] if side == "a" else c["bn"]
    return fastswz.OperandTile(c[f"{side}_dtype"], c[f"{side}_major"], op["swizzle"], mn, c["bk"],
                               order=op["order"], arch="sm90")


def values(kind, side, mn, ktot, bk, dtype, rng):
    """(mn, ktot) bit patterns of one operand for a pass, and the integer values (product pass)."""
    e = plan_source.ELEM_BYTES[dtype]
    m = np.arange(mn)[:, None]
    k = np.arange(ktot)[None, :]
    kk, kt = k % bk, k // bk
    if kind == "product":
        v = rng.integers(-3, 4, size=(mn, ktot))
        return encode_values(dtype, v), v
    if kind == "id":  # unique within a k-tile, and k-tile parity in the top bit (16/32-bit)
        if e == 4:
            ids = (m * ktot + k) | (1 << 30) * (side == "b")
        else:
            ids = (m * bk + kk) + 32768 * (kt & 1)
        return ids.astype(UINT[e]), None
    if kind == "id-mn":  # 8-bit: mn in one pass, k in the other
        return np.broadcast_to(m & 255, (mn, ktot)).astype(np.uint8), None
    if kind == "id-k":
        return np.broadcast_to((kk + 128 * (kt & 1)) & 255, (mn, ktot)).astype(np.uint8), None
    raise ValueError(kind)


def expected_stage(tile, bits_tile):
    """Byte image of one stage buffer holding ``bits_tile`` (mn, bk) at fastswz's addresses."""
    e = bits_tile.dtype.itemsize
    img = np.zeros(tile.nbytes // e, dtype=bits_tile.dtype)
    addr = tile.addresses(start=0)
    img[(addr // e).ravel()] = bits_tile.ravel()
    return img.view(np.uint8)


def global_layout(bits, major):
    """(global array (rows, inner), dims innermost first) for an operand's (mn, K) bits."""
    g = np.ascontiguousarray(bits if major == "K" else bits.T)
    return g, (g.shape[1], g.shape[0])


# --------------------------------------------------------------------------------------------
# backends

class OperandHost(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dims", ctypes.c_uint64 * 2),
                ("box", ctypes.c_uint32 * 2), ("elem_strides", ctypes.c_uint32 * 2),
                ("interleave", ctypes.c_int), ("swizzle", ctypes.c_int),
                ("map_dtype", ctypes.c_int), ("elem_bytes", ctypes.c_int), ("kdim", ctypes.c_int),
                ("ncopies", ctypes.c_int), ("mnblocks", ctypes.c_int), ("stages", ctypes.c_int),
                ("ksteps", ctypes.c_int), ("stage_bytes", ctypes.c_uint32),
                ("copies", ctypes.c_void_p), ("desc0", ctypes.c_void_p),
                ("kdelta", ctypes.c_void_p), ("stage_off", ctypes.c_void_p)]


def descriptor_scheme(op):
    """(desc0 (stages, mnblocks) uint64, kdelta (ksteps,) int64) from the plan's table; raises
    if the table is not stage-0-of-each-stage plus one per-k-step delta, or disagrees with
    ``k_step_increment``."""
    t = np.array([[[int(x, 16) for x in row] for row in tab] for tab in op["descriptors"]],
                 dtype=np.uint64)
    d = (t - t[:, :, :1]).astype(np.int64)
    if not (d == d[0, 0]).all():
        raise AssertionError("descriptor table: k-step deltas differ between stages/MN blocks")
    inc = op.get("k_step_increment")
    if inc is not None and list(d[0, 0]) != [j * inc for j in range(d.shape[2])]:
        raise AssertionError(f"k_step_increment {inc} disagrees with the table {list(d[0, 0])}")
    return np.ascontiguousarray(t[:, :, 0]), np.ascontiguousarray(d[0, 0])


class GpuBackend:
    name = "gpu"

    def __init__(self, lib):
        self.lib = ctypes.CDLL(lib)
        self.lib.tma_error_string.restype = ctypes.c_char_p
        self.keep = []

    def _op(self, plan, side, g, dims):
        c, op = plan["config"], plan[side]
        desc0, kdelta = descriptor_scheme(op)
        copies = np.array(plan_source.normalize_copies(op["tma_box_offsets"]), dtype=np.int32)
        stage_off = np.array(op["stage_offsets"], dtype=np.uint32)
        self.keep += [g, desc0, kdelta, copies, stage_off]
        h = OperandHost()
        h.data = g.ctypes.data
        h.dims[:] = dims
        h.box[:] = op["tma_box"]
        h.elem_strides[:] = op["tma_element_strides"]
        h.interleave = INTERLEAVE_ENUM[op["tma_interleave"]]
        h.swizzle = SWIZZLE_ENUM[op["tma_swizzle"]]
        h.map_dtype = MAP_DTYPE[c[f"{side}_dtype"]]
        h.elem_bytes = g.dtype.itemsize
        h.kdim = 0 if c[f"{side}_major"] == "K" else 1
        h.ncopies = len(copies)
        h.mnblocks = desc0.shape[1]
        h.stages = c["stages"]
        h.ksteps = kdelta.shape[0]
        h.stage_bytes = op["stage_bytes"]
        h.copies, h.desc0 = copies.ctypes.data, desc0.ctypes.data
        h.kdelta, h.stage_off = kdelta.ctypes.data, stage_off.ctypes.data
        return h

    def run(self, plan, ga, da, gb, db, ktiles, dump_bytes):
        c = plan["config"]
        self.keep = []
        A, B = self._op(plan, "a", ga, da), self._op(plan, "b", gb, db)
        dump = np.zeros(c["stages"] * dump_bytes, dtype=np.uint8)
        d = np.zeros(c["bm"] * c["bn"], dtype=np.float32)
        info = np.zeros(3, dtype=np.uint32)
        tx = plan["a"]["stage_bytes"] + plan["b"]["stage_bytes"]
        if plan.get("tx_from_box"):  # negative-control variant: arm the barrier for what is sent
            tx = sum(int(np.prod(plan[s]["tma_box"])) * (ga if s == "a" else gb).dtype.itemsize
                     * len(plan[s]["tma_box_offsets"]) for s in "ab")
        r = self.lib.tma_run(
            DT_CODE[c["a_dtype"]], c["bm"], c["bn"], int(c["a_major"] == "MN"),
            int(c["b_major"] == "MN"), c["bk"], ktiles, ctypes.c_uint32(tx),
            ctypes.c_uint32(dump_bytes), ctypes.byref(A), ctypes.byref(B),
            dump.ctypes.data_as(ctypes.c_void_p), d.ctypes.data_as(ctypes.c_void_p),
            info.ctypes.data_as(ctypes.c_void_p))
        early = status_of(r, lambda e: self.lib.tma_error_string(e).decode())
        if early is not None:
            return early
        return {"dump": dump.reshape(c["stages"], dump_bytes), "d": d.reshape(c["bm"], c["bn"]),
                "timeouts": int(info[1]), "base": int(info[0]), "misaligned": int(info[2])}


def status_of(r, errstr):
    """tma_run's return code as a result: None (ran), {"encode": ...} (cuTensorMapEncodeTiled
    refused operand A: 100000 + CUresult, B: 200000 + CUresult), {"fault": ...} (the kernel
    faulted: 300000 + cudaError_t); any other nonzero code is a setup error and raises."""
    if r == 0:
        return None
    if r >= 300000:
        return {"fault": f"kernel fault: {errstr(r - 300000)} ({r - 300000})"}
    if r >= 100000:
        return {"encode": f"{'AB'[r // 100000 - 1]} rejected (CUresult {r % 100000})"}
    raise RuntimeError(f"tma_run: {r} {errstr(r)}")


class CpuBackend:
    """The TMA as documented (module docstring); D through fastswz's map, not the descriptors."""
    name = "cpu"

    @staticmethod
    def encode_check(op, e):
        box, sw = op["tma_box"], op["tma_swizzle"]
        if any(not 1 <= b <= 256 for b in box) or (box[0] * e) % 16:
            return "box dims 1..256, inner box bytes a multiple of 16"
        if sw != "none" and box[0] * e > plan_source.SPANS[sw]:
            return f"inner box {box[0] * e} B > swizzle span {sw}"
        return None

    @staticmethod
    def copy(smem, g, dims, op, stage_base, kt, bk, kdim):
        e = g.dtype.itemsize
        b0, b1 = op["tma_box"]
        bits = {"none": 0, "32B": 1, "64B": 2, "128B": 3}[op["tma_swizzle"]]
        for off, c0, c1 in plan_source.normalize_copies(op["tma_box_offsets"]):
            if kdim == 0:
                c0 += kt * bk
            else:
                c1 += kt * bk
            r = np.arange(b1)[:, None]
            x = np.arange(b0)[None, :]
            gr, gx = c1 + r, c0 + x
            inb = (gr < dims[1]) & (gx < dims[0])
            vals = np.where(inb, g[np.minimum(gr, dims[1] - 1), np.minimum(gx, dims[0] - 1)], 0)
            # Row pitch: the swizzle span when swizzled (an inner box narrower than the span is
            # padded to it; seen on the H100, run 1: a 64-byte box under SWIZZLE_128B wrote past
            # its 64-byte-pitch footprint), else the inner box bytes.
            pitch = max(b0 * e, 16 << bits) if bits else b0 * e
            a = stage_base + off + r * pitch + x * e
            a = a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)
            view = smem.view(g.dtype)
            ok = a + e <= smem.nbytes
            view[(a[ok] // e)] = vals[ok].astype(g.dtype)

    def run(self, plan, ga, da, gb, db, ktiles, dump_bytes):
        c = plan["config"]
        for side, g in (("a", ga), ("b", gb)):
            why = self.encode_check(plan[side], g.dtype.itemsize)
            if why:
                return {"encode": f"{side.upper()} rejected ({why})"}
        S, bk = c["stages"], c["bk"]
        smem = np.zeros(dump_bytes, dtype=np.uint8)
        dump = np.zeros((S, dump_bytes), dtype=np.uint8)
        tiles = {s: tile_of(plan, s) for s in "ab"}
        acc = np.zeros((c["bm"], c["bn"]))
        # transaction bytes of one stage fill vs the expect-tx count the kernel arms (the plan's
        # stage bytes): a mismatch leaves a real mbarrier phase incomplete or completes it early
        moved = sum(int(np.prod(plan[s]["tma_box"])) * plan_source.ELEM_BYTES[c[f"{s}_dtype"]]
                    * len(plan[s]["tma_box_offsets"]) for s in "ab")
        tx_bad = ktiles if not plan.get("tx_from_box") and moved != plan["a"]["stage_bytes"] + plan["b"]["stage_bytes"] else 0
        def issue(kt):
            for side, g, dims in (("a", ga, da), ("b", gb, db)):
                self.copy(smem, g, dims, plan[side], plan[side]["stage_offsets"][kt % S], kt, bk,
                          0 if c[f"{side}_major"] == "K" else 1)

        # the kernel's order: a prologue fills every stage, each consumed stage is refilled
        for kt in range(min(S, ktiles)):
            issue(kt)
        for kt in range(ktiles):
            s = kt % S
            if kt < S:
                dump[s] = smem
            ops = []
            for side in "ab":
                t, dt = tiles[side], c[f"{side}_dtype"]
                e = plan_source.ELEM_BYTES[dt]
                addr = t.addresses(start=plan[side]["stage_offsets"][s])
                bits = smem.view(UINT[e])[addr // e]
                ops.append(decode_values(dt, bits))
            acc += ops[0] @ ops[1].T
            if kt + S < ktiles:
                issue(kt + S)
        return {"dump": dump, "d": acc.astype(np.float32), "timeouts": tx_bad, "base": 0,
                "misaligned": 0}


def decode_values(dtype, bits):
    if dtype == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if dtype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dtype == "tf32":
        return (bits.astype(np.uint32) & 0xFFFFE000).view(np.float32).astype(np.float64)
    table = np.zeros(256)
    for b in range(256):
        s, ex, m = b >> 7, (b >> 3) & 15, b & 7
        v = (m / 8) * 2.0 ** -6 if ex == 0 else (1 + m / 8) * 2.0 ** (ex - 7)
        table[b] = -v if s else v
    return table[bits]


# --------------------------------------------------------------------------------------------
# one case

def run_plan(backend, plan, seed=0):
    """Runs every pass of one plan; returns a result dict (ok, failures, details)."""
    c = plan["config"]
    S, bk, bm, bn = c["stages"], c["bk"], c["bm"], c["bn"]
    ktiles = S + 2
    ktot = bk * ktiles
    tiles = {s: tile_of(plan, s) for s in "ab"}
    e = plan_source.ELEM_BYTES[c["a_dtype"]]
    ends = [o + plan[s]["stage_bytes"] for s in "ab" for o in plan[s]["stage_offsets"]]
    data_end = -(-max(ends) // 1024) * 1024
    guard = max(0, min(GUARD, (SMEM_ALLOC_LIMIT - 8 * S - data_end) // 1024 * 1024))
    dump_bytes = data_end + guard
    for s in "ab":
        for o in plan[s]["stage_offsets"]:
            assert o % 1024 == 0, f"{s} stage offset {o} not 1024-aligned"
    passes = ["id-mn", "id-k", "product"] if e == 1 else ["id", "product"]
    rng = np.random.default_rng(seed)
    res = {"placement_bad": 0, "placement_total": 0, "d_bad": None, "timeouts": 0,
           "outside_bad": 0, "encode": None, "fault": None, "passes": len(passes)}
    for kind in passes:
        data = {}
        for s, mn in (("a", bm), ("b", bn)):
            bits, vals = values(kind, s, mn, ktot, bk, c[f"{s}_dtype"], rng)
            g, dims = global_layout(bits, c[f"{s}_major"])
            data[s] = (bits, vals, g, dims)
        out = backend.run(plan, data["a"][2], data["a"][3], data["b"][2], data["b"][3], ktiles,
                          dump_bytes)
        if "encode" in out:
            res["encode"] = out["encode"]
            break
        if "fault" in out:
            res["fault"] = out["fault"]
            break
        res["timeouts"] += out["timeouts"]
        if out["misaligned"]:
            raise RuntimeError(f"dynamic smem base 0x{out['base']:x} is not 1024-aligned")
        claimed = np.zeros(dump_bytes, dtype=bool)
        for st in range(min(S, ktiles)):
            for s in "ab":
                op = plan[s]
                off, n = op["stage_offsets"][st], op["stage_bytes"]
                exp = expected_stage(tiles[s], data[s][0][:, st * bk:(st + 1) * bk])
                got = out["dump"][st, off:off + n]
                bad = (exp.reshape(-1, e) != got.reshape(-1, e)).any(axis=1)
                res["placement_bad"] += int(bad.sum())
                res["placement_total"] += bad.size
                claimed[off:off + n] = True
        # bytes no stage buffer claims (alignment gaps, the guard) must stay zero in every dump
        res["outside_bad"] += int((out["dump"][:, ~claimed] != 0).sum())
        if kind == "product":
            va, vb = data["a"][1].astype(np.float64), data["b"][1].astype(np.float64)
            ref = va @ vb.T
            res["d_bad"] = int((out["d"].astype(np.float64) != ref).sum())
    res["ok"] = (res["encode"] is None and res["fault"] is None and res["placement_bad"] == 0 and res["outside_bad"] == 0
                 and res["d_bad"] == 0 and res["timeouts"] == 0)
    return res


def outcome(res):
    if res["encode"]:
        return f"encode: {res['encode']}"
    if res.get("fault"):
        return res["fault"]
    parts = []
    if res["placement_bad"]:
        parts.append(f"placement {res['placement_bad']}/{res['placement_total']} wrong")
    if res["outside_bad"]:
        parts.append(f"{res['outside_bad']} bytes written outside the stage buffers")
    if res["d_bad"]:
        parts.append(f"D {res['d_bad']} wrong")
    if res["timeouts"]:
        parts.append(f"{res['timeouts']} mbarrier waits timed out (cpu: expect-tx mismatches)")
    return "; ".join(parts) or "all exact"


def label(cfg, plan):
    sw = plan["a"]["swizzle"] + "/" + plan["b"]["swizzle"] if plan.get("legal") else cfg.get("a_swizzle") or "auto"
    return (f"{cfg['a_dtype']} {cfg['a_major']}/{cfg['b_major']} {sw} "
            f"{cfg['bm']}x{cfg['bn']}x{cfg['bk']} s{cfg['stages']}")


def negative_outcome(backend, plan, mutate):
    """(description, caught) of one negative control. A setup error is not "caught"."""
    bad = copy.deepcopy(plan)
    mutate(bad)
    try:
        res = run_plan(backend, bad)
    except Exception as exc:
        return f"setup error: {exc!r}", False
    return outcome(res), not res["ok"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--lib", help="libtma_roundtrip.so (gpu backend)")
    ap.add_argument("--out", default=None, help="folder for results.md / results.jsonl")
    ap.add_argument("--source", choices=("auto", "fastswz", "derived"), default="auto")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--heldout", nargs=2, type=int, metavar=("SEED", "N"),
                    help="also run N legal configurations drawn from SEED (heldout_cases; "
                         "BN from KERNEL_NS on the GPU)")
    ap.add_argument("--negative", type=int, default=None,
                    help="run only negative control I and print [outcome, caught] as JSON")
    args = ap.parse_args(argv)
    try:
        backend = GpuBackend(args.lib) if args.backend == "gpu" else CpuBackend()
    except OSError as exc:
        print(f"setup error: {exc}")
        return 2
    if args.negative is not None:
        _, cfg, mutate, _ = negatives()[args.negative]
        plan, _, _ = plan_source.get_plan(cfg, args.source)
        print(json.dumps(negative_outcome(backend, plan, mutate)))
        return 0
    rows, records = [], []
    failed = 0
    t0 = time.time()
    counts = defaultdict(lambda: [0, 0])
    # the GPU kernel exists for KERNEL_NS only; the CPU model takes any BN
    bns = KERNEL_NS if args.backend == "gpu" else None
    grid = cases(args.quick) + (heldout_cases(*args.heldout, bns=bns) if args.heldout else [])
    for cfg in grid:
        try:
            plan, src, diffs = plan_source.get_plan(cfg, args.source)
        except Exception as exc:  # a source that cannot produce a plan is a failure, not a skip
            failed += 1
            print(f"FAIL plan {cfg}: {exc!r}")
            continue
        name = label(cfg, plan)
        if diffs:
            failed += 1
            print(f"FAIL {name}: fastswz plan and derivation differ: {diffs[:4]}")
        if not plan.get("legal"):
            print(f"SKIP {name}: illegal: {plan.get('reason')}")
            rows.append((name, src, "illegal", plan.get("reason"), ""))
            continue
        try:
            res = run_plan(backend, plan)
        except Exception as exc:
            traceback.print_exc()
            res = {"ok": False, "error": repr(exc), "encode": None, "placement_bad": -1,
                   "placement_total": 0, "outside_bad": 0, "d_bad": -1, "timeouts": 0}
        ok = res["ok"] and not diffs
        failed += not ok
        key = (cfg["a_dtype"], f"{cfg['a_major']}/{cfg['b_major']}", plan["a"]["swizzle"])
        counts[key][0] += ok
        counts[key][1] += 1
        desc = res.get("error") or outcome(res)
        print(f"{'PASS' if ok else 'FAIL'} {name} [{plan['instruction']}, {src}]: {desc}")
        rows.append((name, src, "PASS" if ok else "FAIL", desc, plan["instruction"]))
        records.append({"case": name, "config": cfg, "source": src, "result": res, "kind": "case"})
    neg_rows = []
    for i, (nname, cfg, mutate, expect) in enumerate(negatives()):
        plan, src, _ = plan_source.get_plan(cfg, args.source)
        if not plan.get("legal"):
            failed += 1
            print(f"FAIL negative {nname}: base plan illegal: {plan.get('reason')}")
            continue
        if args.backend == "gpu":
            # Own process each: a kernel fault is sticky and would poison later launches.
            cmd = [sys.executable, os.path.abspath(__file__), "--backend", "gpu", "--lib",
                   args.lib, "--source", args.source, "--negative", str(i)]
            pr = subprocess.run(cmd, capture_output=True, text=True)
            try:
                desc, caught = json.loads(pr.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                desc, caught = f"setup error: {pr.stdout[-300:]} {pr.stderr[-300:]}", False
            # what the cpu model of the TMA predicts for the same mutation (counts of wrong
            # elements can differ where copies overlap: the order of concurrent writes)
            desc += f" [cpu model: {negative_outcome(CpuBackend(), plan, mutate)[0]}]"
        else:
            desc, caught = negative_outcome(backend, plan, mutate)
        must = not expect.startswith("recorded only")
        failed += must and not caught
        print(f"{'PASS' if caught or not must else 'FAIL'} negative {nname} on {label(cfg, plan)} "
              f"(expected {expect}): {desc}")
        neg_rows.append((nname, label(cfg, plan), expect, desc, "failed as it must" if caught
                         else ("DID NOT FAIL" if must else "did not fail (recorded)")))
        records.append({"case": nname, "config": cfg, "kind": "negative", "outcome": desc,
                        "caught": caught})
    npass = sum(r[2] == "PASS" for r in rows)
    nrun = sum(r[2] in ("PASS", "FAIL") for r in rows)
    nneg = sum(r[4] == "failed as it must" for r in neg_rows)
    nmust = sum(not r[2].startswith("recorded only") for r in neg_rows)
    summary = (f"{args.backend}: {npass}/{nrun} plans pass, {nneg}/{len(neg_rows)} negative "
               f"controls fail ({nmust} must), {time.time() - t0:.1f} s")
    print(summary)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "tma_results.md"), "w") as f:
            f.write(f"# TMA round trip ({args.backend})\n\n{summary}\n\n")
            f.write("| dtype | majors A/B | swizzle | pass |\n|---|---|---|---|\n")
            for (dt, mj, sw), (p, n) in sorted(counts.items()):
                f.write(f"| {dt} | {mj} | {sw} | {p}/{n} |\n")
            f.write("\n| case | source | result | detail | instruction |\n|---|---|---|---|---|\n")
            for r in rows:
                f.write("| " + " | ".join(str(x) for x in r) + " |\n")
            f.write("\n| negative control | base plan | expected | outcome | verdict |\n"
                    "|---|---|---|---|---|\n")
            for r in neg_rows:
                f.write("| " + " | ".join(str(x) for x in r) + " |\n")
        with open(os.path.join(args.out, "tma_results.jsonl"), "w") as f:
            for r in records:
                f.write(json.dumps(r, default=str) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
