#!/usr/bin/env python3
"""Check fastswz's register-fragment maps (fastswz.tv_layout) against what the hardware holds.

Every case hands the GPU only register words (or a shared-memory image and each lane's address)
built from fastswz's *claimed* maps, runs one instruction (libfragments.so, fragments.cu) and
requires the same claims to explain every word that comes back:

* mma.sync (18 shape/type forms): A holds a unique code per (m, k), B a one-hot selector, C a
  code per (m, n); D = A B + C must read back, through the claimed D map, as the host computes
  it. A second experiment swaps the roles (A selects, B holds codes). Codes wider than a type
  holds exactly are sent in chunks (one launch per chunk).
* ldmatrix / stmatrix x1/x2/x4 (+.trans): a shared image whose 16-bit cells hold their own
  (row, col), rows scattered over the 1 KiB buffer; each lane addresses the row the claimed
  address map gives it; the registers (ldmatrix) or the image (stmatrix) must match the claimed
  register map.
* wgmma SS (N = 8 ... 256; f16 accumulators at N = 16, 32): A and B in shared memory (fastswz OperandTile byte maps and
  descriptors, 128B swizzle), D[m][n] = m + 64 n; each register must hold what the claimed
  D map says.
* wgmma RS (f16, bf16, tf32, e4m3, s8): A from registers by the claimed A map, B a selector in
  shared memory; D[m][n] = A[m][n % K].
* negative controls: the same experiments with deliberately wrong claims must fail.

    python3 check.py [--lib libfragments.so] [--backend gpu|sim] [--out DIR]

Exit status: 0 all cases match and every negative control fails; 1 otherwise; 2 setup error.
``--backend sim`` runs against simulate.py (the PTX semantics in numpy), for CPU tests.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

import fastswz
from fastswz import tv_layout as tvl
from fastswz.cuda import reference_gemm

HERE = Path(__file__).resolve().parent

#: Element bits, and how many low bits of an integer code each type carries exactly.
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "f64": 64,
        "f32": 32, "s32": 32}
CHUNK = {"f16": 11, "bf16": 8, "tf32": 11, "e4m3": 3, "e5m2": 3, "s8": 7, "u8": 8, "f64": 20}


# -- element encodings (small non-negative integers, exact in every type) ------------------------
def _fp8(v, ebias, mbits):
    v = np.asarray(v, dtype=np.int64)
    out = np.zeros(v.shape, dtype=np.uint64)
    nz = v > 0
    e = np.floor(np.log2(np.where(nz, v, 1))).astype(np.int64)
    mant = ((np.where(nz, v, 1) << mbits) >> e) & ((1 << mbits) - 1)
    out[nz] = (((e + ebias) << mbits) | mant)[nz].astype(np.uint64)
    return out


def encode(dtype, v):
    """Bit patterns (uint64) of the integers ``v`` (0 <= v < 2**CHUNK) in ``dtype``."""
    v = np.asarray(v, dtype=np.int64)
    if dtype == "f16":
        return v.astype(np.float16).view(np.uint16).astype(np.uint64)
    if dtype == "bf16":
        return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
    if dtype in ("tf32", "f32"):
        return v.astype(np.float32).view(np.uint32).astype(np.uint64)
    if dtype == "f64":
        return v.astype(np.float64).view(np.uint64)
    if dtype == "e4m3":
        return _fp8(v, 7, 3)
    if dtype == "e5m2":
        return _fp8(v, 15, 2)
    if dtype in ("s8", "u8"):
        return (v & 0xFF).astype(np.uint64)
    if dtype == "s32":
        return (v & 0xFFFFFFFF).astype(np.uint64)
    raise ValueError(dtype)


def decode(dtype, bits):
    """Numbers (float64) from bit patterns of ``dtype`` (accumulators and inputs): the float
    types through fastswz.cuda.reference_gemm.decode, the integer and f64 ones here."""
    b = np.asarray(bits, dtype=np.uint64)
    if dtype in ("f16", "bf16", "f32", "tf32", "e4m3", "e5m2"):
        return reference_gemm.decode(b, dtype)
    if dtype == "s32":
        return b.astype(np.uint32).view(np.int32).astype(np.float64)
    if dtype == "f64":
        return b.view(np.float64)
    if dtype == "s8":
        return b.astype(np.uint8).view(np.int8).astype(np.float64)
    if dtype == "u8":
        return b.astype(np.float64)
    raise ValueError(dtype)


def pack(values, bits, words):
    """(threads, values) element bit patterns -> (threads, words) uint32 registers, value ``v`` at
    bit ``v * bits`` of the thread's register file (f64: two words, low first)."""
    t, n = values.shape
    out = np.zeros((t, words), dtype=np.uint64)
    for v in range(n):
        if bits == 64:
            out[:, 2 * v] |= values[:, v] & 0xFFFFFFFF
            out[:, 2 * v + 1] |= values[:, v] >> 32
        else:
            out[:, v * bits // 32] |= (values[:, v] & ((1 << bits) - 1)) << ((v * bits) % 32)
    return out.astype(np.uint32)


def unpack(words, bits, n):
    """Inverse of :func:`pack`: (threads, words) -> (threads, n) bit patterns."""
    w = np.asarray(words, dtype=np.uint64)
    out = np.zeros((w.shape[0], n), dtype=np.uint64)
    for v in range(n):
        if bits == 64:
            out[:, v] = w[:, 2 * v] | (w[:, 2 * v + 1] << 32)
        else:
            out[:, v] = (w[:, v * bits // 32] >> ((v * bits) % 32)) & ((1 << bits) - 1)
    return out


# -- backends ------------------------------------------------------------------------------------
class GpuBackend:
    """libfragments.so through ctypes."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(str(path))
        u32p = np.ctypeslib.ndpointer(np.uint32, flags="C_CONTIGUOUS")
        i32p = np.ctypeslib.ndpointer(np.int32, flags="C_CONTIGUOUS")
        u8p = np.ctypeslib.ndpointer(np.uint8, flags="C_CONTIGUOUS")
        lib.fsw_mma_name.restype = ctypes.c_char_p
        lib.fsw_rs_dtype.restype = ctypes.c_char_p
        lib.fsw_mma.argtypes = [ctypes.c_int, u32p, u32p, u32p, u32p]
        lib.fsw_ldmatrix.argtypes = [ctypes.c_int, ctypes.c_int, u32p, i32p, u32p]
        lib.fsw_stmatrix.argtypes = [ctypes.c_int, ctypes.c_int, u32p, i32p, u32p]
        lib.fsw_wgmma_ss.argtypes = [ctypes.c_int, u8p, ctypes.c_int, u8p, ctypes.c_int,
                                     ctypes.c_uint64, ctypes.c_uint64, u32p]
        lib.fsw_wgmma_ss_f16.argtypes = [ctypes.c_int, u8p, ctypes.c_int, u8p, ctypes.c_int,
                                         ctypes.c_uint64, ctypes.c_uint64, u32p]
        lib.fsw_wgmma_rs.argtypes = [ctypes.c_int, u32p, u8p, ctypes.c_int, ctypes.c_uint64, u32p]
        buf = ctypes.create_string_buffer(256)
        cc = lib.fsw_device_name(buf, 256)
        if cc < 0:
            raise RuntimeError(f"no usable CUDA device (CUDA error {-cc})")
        self.device = f"{buf.value.decode()} (sm_{cc})"
        self.mma_ops = {lib.fsw_mma_name(i).decode(): i for i in range(lib.fsw_mma_count())}
        self.rs_ops = {(lib.fsw_rs_dtype(i).decode(), lib.fsw_rs_n(i)): i for i in range(lib.fsw_rs_count())}

    def _ok(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: CUDA error {rc}")

    def mma(self, name, a, b, c):
        na, nb, nc = (ctypes.c_int(), ctypes.c_int(), ctypes.c_int())
        op = self.mma_ops[name]
        self.lib.fsw_mma_words(op, ctypes.byref(na), ctypes.byref(nb), ctypes.byref(nc))
        d = np.zeros((32, nc.value), dtype=np.uint32)
        self._ok(self.lib.fsw_mma(op, np.ascontiguousarray(a, np.uint32), np.ascontiguousarray(b, np.uint32),
                                  np.ascontiguousarray(c, np.uint32), d), name)
        return d

    def ldmatrix(self, x, trans, image, lane_off):
        regs = np.zeros((32, x), dtype=np.uint32)
        self._ok(self.lib.fsw_ldmatrix(x, int(trans), np.ascontiguousarray(image, np.uint32),
                                       np.ascontiguousarray(lane_off, np.int32), regs), "ldmatrix")
        return regs

    def stmatrix(self, x, trans, regs, lane_off):
        image = np.zeros(256, dtype=np.uint32)
        self._ok(self.lib.fsw_stmatrix(x, int(trans), np.ascontiguousarray(regs, np.uint32),
                                       np.ascontiguousarray(lane_off, np.int32), image), "stmatrix")
        return image

    def wgmma_ss(self, n, a_img, b_img, desc_a, desc_b, acc="f32"):
        if acc == "f16":
            d = np.zeros((128, n // 4), dtype=np.uint32)
            self._ok(self.lib.fsw_wgmma_ss_f16(n, a_img, a_img.size, b_img, b_img.size, desc_a, desc_b, d),
                     f"wgmma ss f16 n={n}")
            return d
        d = np.zeros((128, n // 2), dtype=np.uint32)
        self._ok(self.lib.fsw_wgmma_ss(n, a_img, a_img.size, b_img, b_img.size, desc_a, desc_b, d),
                 f"wgmma ss n={n}")
        return d

    def wgmma_rs(self, dtype, n, a_regs, b_img, desc_b):
        d = np.zeros((128, n // 2), dtype=np.uint32)
        self._ok(self.lib.fsw_wgmma_rs(self.rs_ops[(dtype, n)], np.ascontiguousarray(a_regs, np.uint32),
                                       b_img, b_img.size, desc_b, d), f"wgmma rs {dtype} n={n}")
        return d


# -- the experiments -----------------------------------------------------------------------------
MMA_CASES = [  # the GPU op name -> (shape, input type, accumulator type); ops.cuh lists the same
    ("m16n8k8.f32.f16", "m16n8k8", "f16", "f32"),
    ("m16n8k16.f32.f16", "m16n8k16", "f16", "f32"),
    ("m16n8k16.f16.f16", "m16n8k16", "f16", "f16"),
    ("m16n8k8.f32.bf16", "m16n8k8", "bf16", "f32"),
    ("m16n8k16.f32.bf16", "m16n8k16", "bf16", "f32"),
    ("m16n8k4.f32.tf32", "m16n8k4", "tf32", "f32"),
    ("m16n8k8.f32.tf32", "m16n8k8", "tf32", "f32"),
    ("m8n8k16.s32.s8", "m8n8k16", "s8", "s32"),
    ("m16n8k16.s32.s8", "m16n8k16", "s8", "s32"),
    ("m16n8k32.s32.s8", "m16n8k32", "s8", "s32"),
    ("m16n8k32.s32.u8", "m16n8k32", "u8", "s32"),
    ("m16n8k16.f32.e4m3", "m16n8k16", "e4m3", "f32"),
    ("m16n8k32.f32.e4m3", "m16n8k32", "e4m3", "f32"),
    ("m16n8k32.f32.e5m2", "m16n8k32", "e5m2", "f32"),
    ("m8n8k4.f64", "m8n8k4", "f64", "f64"),
    ("m16n8k4.f64", "m16n8k4", "f64", "f64"),
    ("m16n8k8.f64", "m16n8k8", "f64", "f64"),
    ("m16n8k16.f64", "m16n8k16", "f64", "f64"),
]
WGMMA_SS_N = [8, 16, 24, 64, 128, 136, 256]
WGMMA_SS_F16_N = [16, 32]          # f16 accumulators: D = m + 64 n is exact in f16 up to N = 32
WGMMA_RS = [("f16", 64), ("f16", 256), ("bf16", 64), ("tf32", 64), ("e4m3", 64), ("s8", 64)]
_ACC_OF = {"f16": "f32", "bf16": "f32", "tf32": "f32", "e4m3": "f32", "s8": "s32"}


def _words(tv):
    return max(1, tv.values * tv.bits // 32)


def _chunks(dtype, maxcode):
    return max(1, math.ceil(max(1, int(maxcode).bit_length()) / CHUNK[dtype]))


class Result:
    def __init__(self, name, kind):
        self.name, self.kind = name, kind
        self.launches = self.checked = self.mismatches = 0
        self.first = None

    def compare(self, got, want, where):
        got, want = np.asarray(got), np.asarray(want)
        bad = np.argwhere(got != want)
        self.launches += 1
        self.checked += got.size
        self.mismatches += len(bad)
        if len(bad) and self.first is None:
            i = tuple(int(x) for x in bad[0])
            self.first = f"{where} at {i}: got {got[i]}, want {want[i]}"

    def as_dict(self):
        return {"case": self.name, "kind": self.kind, "launches": self.launches, "checked": self.checked,
                "mismatches": self.mismatches, "first": self.first}


def check_mma(be, name, shape, dt, acc, claims=None):
    """Both experiments for one mma.sync form; ``claims`` overrides fastswz's (A, B, D) maps."""
    A, B, D = claims or (tvl.mma_sync(shape, dt, "A"), tvl.mma_sync(shape, dt, "B"),
                         tvl.mma_sync(shape, acc, "D"))
    M, K = A.extents
    N = B.extents[0]
    res = Result(f"mma.sync.{name}", "mma.sync")
    ar, ac = A.coords()
    bn, bk = B.coords()
    dm, dn = D.coords()
    wa, wb, wd = _words(A), _words(B), _words(D)
    big = acc != "f16"          # f16 accumulators: no C code (11 bits would not hold A + C)
    # experiment 1: A codes, B selects column n -> k = n + N s, C codes (m, n)
    code = np.arange(M)[:, None] * K + np.arange(K)[None, :]
    for s in range(math.ceil(K / N)):
        for c in range(_chunks(dt, code.max())):
            amat = (code >> (CHUNK[dt] * c)) & ((1 << CHUNK[dt]) - 1)
            bmat = (np.arange(K)[:, None] == np.arange(N)[None, :] + N * s).astype(np.int64)  # (k, n)
            cmat = ((np.arange(M)[:, None] * N + np.arange(N)[None, :] + 1) << CHUNK[dt]) if big \
                else np.zeros((M, N), np.int64)
            want = amat @ bmat + cmat
            a = pack(encode(dt, amat[ar, ac]), BITS[dt], wa)
            b = pack(encode(dt, bmat[bk, bn]), BITS[dt], wb)
            cw = pack(encode(acc, cmat[dm, dn]), D.bits, wd)
            d = be.mma(name, a, b, cw)
            got = decode(acc, unpack(d, D.bits, D.values))
            res.compare(got, want[dm, dn], f"A-codes s={s} chunk={c}")
    # experiment 2: A selects row k = m + M s, B codes (k, n), C = 0
    code = np.arange(K)[:, None] * N + np.arange(N)[None, :]
    for s in range(math.ceil(K / M)):
        for c in range(_chunks(dt, code.max())):
            bmat = (code >> (CHUNK[dt] * c)) & ((1 << CHUNK[dt]) - 1)
            amat = (np.arange(K)[None, :] == np.arange(M)[:, None] + M * s).astype(np.int64)
            want = amat @ bmat
            a = pack(encode(dt, amat[ar, ac]), BITS[dt], wa)
            b = pack(encode(dt, bmat[bk, bn]), BITS[dt], wb)
            cw = np.zeros((32, wd), np.uint32)
            d = be.mma(name, a, b, cw)
            got = decode(acc, unpack(d, D.bits, D.values))
            res.compare(got, want[dm, dn], f"B-codes s={s} chunk={c}")
    return res


def _slot(r):
    return (r * 5 + 3) % 64          # row r of the matrices lives in 16-byte slot slot(r)


def check_ldmatrix(be, x, trans, claims=None):
    regs_tv, addr_tv = claims or (tvl.ldmatrix(x, trans), tvl.ldmatrix(x, trans, "addresses"))
    res = Result(f"ldmatrix.x{x}{'.trans' if trans else ''}", "ldmatrix")
    image = np.zeros(512, dtype=np.uint64)
    for r in range(8 * x):
        image[_slot(r) * 8 + np.arange(8)] = r * 8 + np.arange(8) + 1
    words = (image[0::2] | (image[1::2] << 16)).astype(np.uint32)
    lane_off = np.array([_slot(int(r)) * 16 for r in addr_tv.coords()[0][:, 0]], dtype=np.int32)
    regs = be.ldmatrix(x, trans, words, lane_off)
    got = unpack(regs, 16, 2 * x).astype(np.int64)
    rr, cc = regs_tv.coords()
    res.compare(got, rr * 8 + cc + 1, "registers")
    return res


def check_stmatrix(be, x, trans, claims=None):
    regs_tv, addr_tv = claims or (tvl.stmatrix(x, trans), tvl.stmatrix(x, trans, "addresses"))
    res = Result(f"stmatrix.x{x}{'.trans' if trans else ''}", "stmatrix")
    code = np.arange(32)[:, None] * 16 + np.arange(2 * x)[None, :] + 1
    regs = pack(code.astype(np.uint64), 16, x)
    lane_off = np.array([_slot(int(r)) * 16 for r in addr_tv.coords()[0][:, 0]], dtype=np.int32)
    image = be.stmatrix(x, trans, regs, lane_off)
    cells = np.stack([image & 0xFFFF, image >> 16], axis=1).reshape(-1).astype(np.int64)
    t, v = regs_tv.inverse()
    got = np.array([[cells[_slot(r) * 8 + c] for c in range(8)] for r in range(8 * x)])
    res.compare(got, t * 16 + v + 1, "image")
    return res


def _tile_image(dtype, rows, k_tile, values):
    """A K-major 128B-swizzled operand tile (rows x k_tile) of ``dtype`` holding ``values``
    (rows x k_tile integers): (image bytes, descriptor at start 0)."""
    tile = fastswz.OperandTile(dtype, "K", "128B", rows, k_tile)
    addr = tile.addresses().astype(np.int64)
    e = BITS[dtype] // 8
    img = np.zeros(int(addr.max()) + e, dtype=np.uint8)
    bits = encode(dtype, values)
    for i in range(e):
        img[addr + i] = ((bits >> np.uint64(8 * i)) & np.uint64(0xFF)).astype(np.uint8)
    img = np.concatenate([img, np.zeros((-img.size) % 16, np.uint8)])
    return img, int(tile.descriptor(0, 0, 0, rows))


def check_wgmma_ss(be, n, claim=None, acc="f32"):
    D = claim or tvl.wgmma_d(n, acc)
    res = Result(f"wgmma.m64n{n}k16.{acc}.f16 (SS) D", "wgmma D")
    a = np.zeros((64, 64), np.int64)
    a[:, 0], a[:, 1] = np.arange(64), 64
    b = np.zeros((n, 64), np.int64)
    b[:, 0], b[:, 1] = 1, np.arange(n)
    a_img, da = _tile_image("f16", 64, 64, a)
    b_img, db = _tile_image("f16", n, 64, b)
    if acc == "f16":
        got = decode("f16", unpack(be.wgmma_ss(n, a_img, b_img, da, db, "f16"), 16, n // 2))
    else:
        got = decode("f32", be.wgmma_ss(n, a_img, b_img, da, db))
    m, nn = D.coords()
    res.compare(got, m + 64 * nn, "D")
    return res


def check_wgmma_rs(be, dt, n, claims=None):
    A, D = claims or (tvl.wgmma_a(dt), tvl.wgmma_d(n, _ACC_OF[dt]))
    acc = _ACC_OF[dt]
    res = Result(f"wgmma.m64n{n}.{dt} (RS) A", "wgmma A")
    M, K = A.extents
    k_tile = 128 // (BITS[dt] // 8)
    ar, ac = A.coords()
    dm, dn = D.coords()
    code = np.arange(M)[:, None] * K + np.arange(K)[None, :]
    b = np.zeros((n, k_tile), np.int64)
    b[np.arange(n), np.arange(n) % K] = 1                    # B[n][k] = (k == n % K)
    b_img, db = _tile_image(dt, n, k_tile, b)
    for c in range(_chunks(dt, code.max())):
        amat = (code >> (CHUNK[dt] * c)) & ((1 << CHUNK[dt]) - 1)
        regs = pack(encode(dt, amat[ar, ac]), BITS[dt], 4)
        d = be.wgmma_rs(dt, n, regs, b_img, db)
        got = decode(acc, d)
        want = amat[:, np.arange(n) % K]
        res.compare(got, want[dm, dn], f"chunk={c}")
    return res


# -- negative controls: wrong claims that must fail ------------------------------------------------
def _tv(layout, like):
    return tvl.TVLayout(layout, like.extents, like.order, like.name + " (wrong)", like.bits)


def _swap_values(tv, i, j):
    """The claim with values i and j of every thread exchanged."""
    idx = tv.index()
    idx[:, [i, j]] = idx[:, [j, i]]
    return _table_tv(tv, idx)


def _roll_threads(tv, k):
    return _table_tv(tv, np.roll(tv.index(), k, axis=0))


def _table_tv(tv, idx):
    # a TV "layout" given by a table: a Layout cannot express an arbitrary table, so the controls
    # use a small stand-in with the same coords()/inverse() interface
    return _Table(tv, idx)


class _Table:
    def __init__(self, tv, idx):
        self.tv, self.idx = tv, idx
        self.extents, self.bits, self.values, self.threads = tv.extents, tv.bits, tv.values, tv.threads
        self.order = tv.order

    def index(self):
        return self.idx

    def coords(self):
        rows, cols = self.extents
        if self.order == "col":
            return self.idx % rows, self.idx // rows
        return self.idx // cols, self.idx % cols

    def inverse(self):
        r, c = self.coords()
        t = np.full(self.extents, -1, np.int64)
        v = np.full(self.extents, -1, np.int64)
        for vv in range(self.values - 1, -1, -1):
            for tt in range(self.threads - 1, -1, -1):
                t[r[tt, vv], c[tt, vv]], v[r[tt, vv], c[tt, vv]] = tt, vv
        return t, v


def negative_controls(be):
    """(name, Result) of experiments run with wrong claims; each must report mismatches."""
    out = []
    out.append(("wgmma D with registers 0 and 1 swapped", check_wgmma_ss(be, 64, _swap_values(tvl.wgmma_d(64), 0, 1))))
    out.append(("wgmma D of warp w claimed for warp w+1",
                check_wgmma_ss(be, 16, _roll_threads(tvl.wgmma_d(16), 32))))
    out.append(("ldmatrix.x4 read with the .trans map", check_ldmatrix(be, 4, False, (tvl.ldmatrix(4, True),
                                                                                        tvl.ldmatrix(4, False, "addresses")))))
    out.append(("stmatrix.x4.trans read with the plain map", check_stmatrix(be, 4, True, (tvl.stmatrix(4, False),
                                                                                          tvl.stmatrix(4, True, "addresses")))))
    a = tvl.mma_sync("m16n8k16", "f16", "A")
    out.append(("mma m16n8k16 A with lanes rolled by 4",
                check_mma(be, "m16n8k16.f32.f16", "m16n8k16", "f16", "f32",
                          (_roll_threads(a, 4), tvl.mma_sync("m16n8k16", "f16", "B"),
                           tvl.mma_sync("m16n8k16", "f32", "D")))))
    out.append(("mma m16n8k32 s8 B with values 0 and 4 swapped",
                check_mma(be, "m16n8k32.s32.s8", "m16n8k32", "s8", "s32",
                          (tvl.mma_sync("m16n8k32", "s8", "A"),
                           _swap_values(tvl.mma_sync("m16n8k32", "s8", "B"), 0, 4),
                           tvl.mma_sync("m16n8k32", "s32", "D")))))
    out.append(("wgmma RS bf16 A with warps 0 and 1 exchanged",
                check_wgmma_rs(be, "bf16", 64, (_roll_threads(tvl.wgmma_a("bf16"), 32), tvl.wgmma_d(64)))))
    return out


def run_all(be, log=print):
    results = []
    for name, shape, dt, acc in MMA_CASES:
        results.append(check_mma(be, name, shape, dt, acc))
    for x in (1, 2, 4):
        for trans in (False, True):
            results.append(check_ldmatrix(be, x, trans))
            results.append(check_stmatrix(be, x, trans))
    for n in WGMMA_SS_N:
        results.append(check_wgmma_ss(be, n))
    for n in WGMMA_SS_F16_N:
        results.append(check_wgmma_ss(be, n, acc="f16"))
    for dt, n in WGMMA_RS:
        results.append(check_wgmma_rs(be, dt, n))
    for r in results:
        log(f"{'ok  ' if r.mismatches == 0 else 'FAIL'} {r.name:42s} launches {r.launches:3d}  "
            f"registers checked {r.checked:6d}  mismatches {r.mismatches}" + (f"  first: {r.first}" if r.first else ""))
    controls = negative_controls(be)
    for what, r in controls:
        log(f"{'ok  ' if r.mismatches else 'FAIL'} negative control: {what}: {r.mismatches} mismatches "
            f"(must be > 0)")
    return results, controls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default=str(HERE / "libfragments.so"))
    ap.add_argument("--backend", choices=("gpu", "sim"), default="gpu")
    ap.add_argument("--out", default=os.environ.get("OUT", str(HERE / "results")))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        if args.backend == "gpu":
            be = GpuBackend(args.lib)
        else:
            sys.path.insert(0, str(HERE))
            from simulate import SimBackend
            be = SimBackend()
    except Exception as exc:  # noqa: BLE001 - a setup failure, reported as such
        print(f"setup error: {exc}")
        return 2
    t0 = time.time()
    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    log(f"fastswz {fastswz.__version__} ({fastswz.__file__}); backend {args.backend}: "
        f"{getattr(be, 'device', 'simulated PTX semantics')}")
    results, controls = run_all(be, log)
    bad = [r for r in results if r.mismatches]
    weak = [w for w, r in controls if not r.mismatches]
    per = {}
    for r in results:
        p = per.setdefault(r.kind, [0, 0, 0])
        p[0] += 1
        p[1] += r.mismatches == 0
        p[2] += r.checked
    summary = (f"SUMMARY fragments: {len(results) - len(bad)}/{len(results)} instructions match "
               f"({', '.join(f'{k} {v[1]}/{v[0]}' for k, v in per.items())}; "
               f"{sum(r.checked for r in results)} registers), negative controls "
               f"{len(controls) - len(weak)}/{len(controls)} fail as they must, {time.time() - t0:.1f} s")
    log(summary)
    (out / "fragments.json").write_text(json.dumps({
        "backend": args.backend, "device": getattr(be, "device", "sim"), "fastswz": fastswz.__version__,
        "results": [r.as_dict() for r in results],
        "negative_controls": [dict(r.as_dict(), control=w) for w, r in controls],
        "summary": summary}, indent=1))
    (out / "fragments.txt").write_text("\n".join(lines) + "\n")
    return 0 if not bad and not weak else 1


if __name__ == "__main__":
    sys.exit(main())
