#!/usr/bin/env python3
"""wgmma conformance driver: do fastswz's address maps and descriptors mean what fastswz says?

For every case the driver asks fastswz for the absolute shared-memory address of every A and B
element and for the per-k-step wgmma descriptors, scatters small-integer operands to those
addresses inside one CTA's shared memory, runs ``wgmma.mma_async`` (sm_90a) with those
descriptors and checks D == A @ B^T exactly (libwgmma_conformance.so, tests/gpu/*.cu).
If fastswz's map and its descriptor disagree with each other or with the tensor core, D is wrong.

Each case is run three ways, so a failure names the operand at fault:
  full      A from fastswz, B from fastswz
  A~ref     A from fastswz, B in a plain layout built here (K-major, no swizzle)
  ref~B     A in the plain layout, B from fastswz
and, for a subset, negative controls that MUST give a wrong D (else the suite fails, because a
harness that cannot see a wrong descriptor proves nothing):
  neg-swap-A/B      LBO and SBO exchanged, on an operand whose LBO the hardware reads
  neg-swizzle-A/B   layout_type field set to another swizzle mode
and one more positive control where PTX says a field is ignored:
  lbo-ignored-A/B   K-major swizzled operand with LBO field 0x3FFF (PTX: "not used")

Backends: ``gpu`` (ctypes, the real H100) and ``cpu``: an emulator of the descriptor semantics
as PTX documents them (canonical layouts, PTX ISA 9.7.15.5.1.2, with the swizzle applied to the
absolute address and base_offset subtracted from the pattern phase, NOTES 10). The emulator lets
the whole harness run without a GPU, checks that every descriptor (negative controls included)
reads only inside the buffer before the GPU sees it, and on the GPU its prediction is compared
with the hardware's D ("model agrees" column).

Usage:
  python3 tests/gpu/conformance.py --backend gpu --lib build/libwgmma_conformance.so --out DIR
  python3 tests/gpu/conformance.py --backend cpu --quick        # harness self-test, no GPU
Exit status: 0 all passed, 1 a case or a negative control failed, 2 setup error.
"""
from __future__ import annotations

import argparse
import ctypes
import dataclasses
import json
import os
import subprocess
import sys
import time
import traceback
import zlib
from collections import Counter, defaultdict

import numpy as np

M = 64  # wgmma's M is always 64 (PTX 9.7.15.5.2 shapes m64nNk*)

# name -> (kernel dtype code, element bytes, K per wgmma, MN-major allowed on sm90, accumulator)
# K per instruction is always 32 bytes (PTX 9.7.15.5.2 shape table); transpose (MN-major) only for
# .f16/.bf16 (PTX 9.7.15.5.2, imm-trans-a/b).
DTYPES = {
    "f16": (0, 2, 16, True, np.float32),
    "bf16": (1, 2, 16, True, np.float32),
    "tf32": (2, 4, 8, False, np.float32),
    "e4m3": (3, 1, 32, False, np.float32),
    "e5m2": (4, 1, 32, False, np.float32),
    "s8": (5, 1, 32, False, np.int32),
}
# swizzle -> (row bytes S, wgmma layout_type field, PTX 9.7.15.5.1.2.2: 0 none, 1 128B, 2 64B, 3 32B)
SWIZZLES = {"none": (16, 0), "32B": (32, 3), "64B": (64, 2), "128B": (128, 1)}
LAYOUT_TYPE_BYTES = {0: 16, 1: 128, 2: 64, 3: 32}
NS = (8, 64, 128, 256)
# The kernel only exists for these N (one instantiation each, wgmma_tu_*.cu).
# k-steps per swizzle: two or more swizzle atoms along K for K-major operands (the atom is
# S bytes of K, 32 bytes per k-step): crosses the atom boundary where the descriptor start
# jumps by SBO-sized strides instead of +32 B.
KSTEPS = {"none": 3, "32B": 3, "64B": 4, "128B": 8}
# Tile starts relative to the chosen aligned region start. "off" offsets are multiples of 128 B
# that are not multiples of the pattern (1024/512/256 B): 0x180 -> 128B phase 3, 64B phase 3,
# 32B phase 1; 0x280 -> 5, 1, 1. "off16" starts are 16-B aligned only.
PLACEMENTS = {
    # name: (A offset, B offset, swizzle_base)
    "on": (0x000, 0x000, "absolute"),
    "off-abs": (0x180, 0x280, "absolute"),
    "off-rel": (0x180, 0x280, "relative"),
    "off16-abs": (0x030, 0x250, "absolute"),
}
WRONG_SWIZZLE = {"128B": "64B", "64B": "32B", "32B": "128B", "none": "64B"}
DEFAULT_SMEM_BASE = 0x400  # what an H100 showed (NOTES 10); the GPU backend measures it
DEFAULT_SMEM_BYTES = 227 * 1024  # H100 opt-in dynamic shared memory per block


# --------------------------------------------------------------------------------------------
# values: small integers that every dtype represents exactly (and whose dot products f32 holds)

def encode(dtype: str, v: np.ndarray) -> np.ndarray:
    """Bit patterns of the integer values ``v`` (|v| <= 4) in ``dtype``, as uint8/16/32."""
    v = np.asarray(v, dtype=np.int64)
    if dtype == "f16":
        return v.astype(np.float16).view(np.uint16)
    if dtype == "bf16":
        # bf16 is the top half of f32; small integers have zero low halves, so this is exact.
        return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dtype == "tf32":
        return v.astype(np.float32).view(np.uint32)  # tf32 reads the f32 bit pattern
    if dtype == "s8":
        return v.astype(np.int8).view(np.uint8)
    ebits, mbits = {"e4m3": (4, 3), "e5m2": (5, 2)}[dtype]
    bias = (1 << (ebits - 1)) - 1
    table = {}
    for x in range(-8, 9):
        if x == 0:
            table[x] = 0
            continue
        a = abs(x)
        e = a.bit_length() - 1
        m = (a - (1 << e)) * (1 << mbits)
        assert m % (1 << e) == 0, (dtype, x)
        table[x] = ((x < 0) << 7) | ((e + bias) << mbits) | (m >> e)
    return np.vectorize(table.__getitem__, otypes=[np.uint8])(v)


def decode_fp8(dtype: str, bits: int) -> float:
    """Value of an fp8 bit pattern (used by tests of encode())."""
    ebits, mbits = {"e4m3": (4, 3), "e5m2": (5, 2)}[dtype]
    bias = (1 << (ebits - 1)) - 1
    s, e, m = bits >> 7, (bits >> mbits) & ((1 << ebits) - 1), bits & ((1 << mbits) - 1)
    val = (m / (1 << mbits)) * 2.0 ** (1 - bias) if e == 0 else (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
    return -val if s else val


# --------------------------------------------------------------------------------------------
# descriptors: bit fields of the sm90 matrix descriptor (PTX 9.7.15.5.1.2.2), done here by hand so
# the negative controls do not depend on fastswz's own packer

def fields(desc: int) -> dict:
    desc = int(desc)
    return {
        "start": (desc & 0x3FFF) << 4,
        "lbo": ((desc >> 16) & 0x3FFF) << 4,
        "sbo": ((desc >> 32) & 0x3FFF) << 4,
        "base_offset": (desc >> 49) & 7,
        "layout_type": (desc >> 62) & 3,
    }


def pack(start: int, lbo: int, sbo: int, base_offset: int = 0, layout_type: int = 0) -> int:
    enc = lambda x: (x & 0x3FFFF) >> 4  # noqa: E731  matrix-descriptor-encode
    return (enc(start) | (enc(lbo) << 16) | (enc(sbo) << 32) | ((base_offset & 7) << 49)
            | ((layout_type & 3) << 62))


def swap_lbo_sbo(descs: np.ndarray) -> np.ndarray:
    d = descs.astype(np.uint64)
    lbo = (d >> np.uint64(16)) & np.uint64(0x3FFF)
    sbo = (d >> np.uint64(32)) & np.uint64(0x3FFF)
    keep = d & ~((np.uint64(0x3FFF) << np.uint64(16)) | (np.uint64(0x3FFF) << np.uint64(32)))
    return keep | (sbo << np.uint64(16)) | (lbo << np.uint64(32))


def set_lbo(descs: np.ndarray, field: int) -> np.ndarray:
    d = descs.astype(np.uint64) & ~(np.uint64(0x3FFF) << np.uint64(16))
    return d | (np.uint64(field & 0x3FFF) << np.uint64(16))


def set_layout_type(descs: np.ndarray, layout_type: int) -> np.ndarray:
    d = descs.astype(np.uint64) & ~(np.uint64(3) << np.uint64(62))
    return d | (np.uint64(layout_type) << np.uint64(62))


# --------------------------------------------------------------------------------------------
# operands

@dataclasses.dataclass
class Operand:
    """Everything the kernel needs about one operand, for every pipeline stage."""
    label: str
    major: str               # "K" or "MN" -> imm-trans 0 / 1
    values: np.ndarray       # (stages, mn, k) int64
    addrs: np.ndarray        # (stages, mn, k) uint32, absolute shared-window addresses
    descs: np.ndarray        # (stages, ksteps) uint64
    lbo_read: bool = False   # whether the hardware reads this operand's LBO field
    meta: dict = dataclasses.field(default_factory=dict)

    @property
    def trans(self) -> int:
        return 1 if self.major == "MN" else 0


def ref_operand(dtype: str, mn: int, k: int, start: int, rng, stages=1, stage_stride=0) -> Operand:
    """The plain reference operand: K-major, no swizzle, built here from PTX's canonical layout
    ((8,m),(T,2k)):((1T,SBO),(1,LBO)) in 16-byte units (PTX 9.7.15.5.1.2.1.3), independent of
    fastswz. Core matrices (8 rows x 16 B) are stacked along MN (SBO = 128 B), then K chunks
    follow (LBO = mn * 16 B); k-step j starts 2 chunks further (32 B of K per wgmma)."""
    _, e, inst_k, _, _ = DTYPES[dtype]
    t = 16 // e
    r = np.arange(mn)[:, None]
    kk = np.arange(k)[None, :]
    lbo, sbo = mn * 16, 128
    rel = (kk // t) * lbo + (r // 8) * sbo + (r % 8) * 16 + (kk % t) * e
    ksteps = k // inst_k
    addrs, descs = [], []
    for s in range(stages):
        st = start + s * stage_stride
        addrs.append((st + rel).astype(np.uint32))
        descs.append([pack(st + 2 * j * lbo, lbo, sbo, 0, 0) for j in range(ksteps)])
    return Operand(f"ref(K,none,{mn}x{k})", "K", rng.integers(-4, 5, size=(stages, mn, k)),
                   np.stack(addrs), np.array(descs, dtype=np.uint64), lbo_read=True,
                   meta={"lbo": lbo, "sbo": sbo})


def fsw_operand(fsw, dtype, major, swizzle, mn, k, order, start, swizzle_base, rng,
                lbo_policy="cutlass", stages=None, stage_stride=None) -> Operand:
    """An operand whose addresses and descriptors come from fastswz (the thing under test)."""
    t = fsw.OperandTile(dtype, major, swizzle, mn, k, order=order, arch="sm90")
    kw = dict(start=start, inst_mn=mn, swizzle_base=swizzle_base, lbo_policy=lbo_policy)
    if stages:
        d = np.asarray(t.descriptors(stages=stages, stage_stride=stage_stride, **kw))
        assert d.shape[:2] == (stages, 1), d.shape
        descs = d[:, 0, :]
        addrs = np.stack([np.asarray(t.addresses(start + s * stage_stride, swizzle_base))
                          for s in range(stages)])
    else:
        d = np.asarray(t.descriptors(**kw))
        assert d.shape[0] == 1, d.shape
        descs = d[0][None, :]
        addrs = np.asarray(t.addresses(start, swizzle_base))[None]
    n_st = descs.shape[0]
    assert addrs.shape == (n_st, mn, k), addrs.shape
    assert descs.shape[1] == k // t.inst_k, descs.shape
    s_bytes = SWIZZLES[swizzle][0]
    e = DTYPES[dtype][1]
    if major == "K":
        lbo_read = swizzle == "none"  # K-major swizzled: LBO unused (PTX, NOTES 10)
    else:
        # MN-major: LBO steps across MN atoms when swizzled (read only if MN > one atom), and
        # across 8-K-row groups when not swizzled (always: a 16-bit k-step has 16 K rows).
        lbo_read = swizzle == "none" or mn > s_bytes // e
    f0 = fields(descs[0, 0])
    lbo, sbo = f0["lbo"], f0["sbo"]
    return Operand(
        f"fastswz({dtype},{major},{swizzle},{mn}x{k},order={order})", major,
        rng.integers(-4, 5, size=(n_st, mn, k)), addrs.astype(np.uint32),
        descs.astype(np.uint64), lbo_read=lbo_read,
        meta={"lbo": int(lbo), "sbo": int(sbo), "desc0": hex(int(descs[0, 0])),
              "desc1": hex(int(descs[0, 1])) if descs.shape[1] > 1 else None})


# --------------------------------------------------------------------------------------------
# the CPU model of what wgmma reads (also the out-of-bounds guard for the GPU)

def emulated_read_addresses(desc: int, major: str, mn: int, e: int, inst_k: int) -> np.ndarray:
    """Byte address wgmma reads for element (r, k) of one k-step, per PTX's canonical layouts
    (9.7.15.5.1.2.1.3) with LBO/SBO as defined in 9.7.15.5.1.2.1.1-2 (the MN-major swizzled role
    swap included), the swizzle XOR taken on the absolute address and base_offset subtracted
    from the 128-B line index (the model NOTES 10 settled on H100)."""
    f = fields(desc)
    start, lbo, sbo, bo, lt = f["start"], f["lbo"], f["sbo"], f["base_offset"], f["layout_type"]
    s_bytes = LAYOUT_TYPE_BYTES[lt]
    r = np.arange(mn, dtype=np.int64)[:, None]
    k = np.arange(inst_k, dtype=np.int64)[None, :]
    if major == "K":
        if lt == 0:  # ((8,m),(T,2k)):((1T,SBO),(1,LBO))
            a = start + (r % 8) * 16 + (r // 8) * sbo + (k * e // 16) * lbo + (k * e) % 16
        else:  # ((8,m),(T,2k)):((W T,SBO),(1,T)): 8 rows of S bytes, K contiguous in a row
            a = start + (r % 8) * s_bytes + (r // 8) * sbo + k * e
    else:
        if lt == 0:  # ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
            t = 16 // e
            a = start + (r % t) * e + (r // t) * sbo + (k % 8) * 16 + (k // 8) * lbo
        else:  # ((T,W,m),(8,k)):((1,T,LBO),(W T,SBO))
            per = s_bytes // e
            a = start + (r % per) * e + (r // per) * lbo + (k % 8) * s_bytes + (k // 8) * sbo
    if lt:
        w = s_bytes // 16
        a = a ^ ((((a >> 7) - bo) & (w - 1)) << 4)
    return a


class CpuBackend:
    """Runs the emulator instead of the GPU (harness self-test; also used as the OOB guard)."""
    name = "cpu-emulator"

    def __init__(self, smem_base=DEFAULT_SMEM_BASE, smem_bytes=DEFAULT_SMEM_BYTES):
        self.smem_base, self.smem_bytes = smem_base, smem_bytes

    def info(self):
        return {"device": "cpu emulator of PTX descriptor semantics", "smem_base": hex(self.smem_base),
                "max_dynamic_smem": self.smem_bytes}

    def run(self, launch) -> tuple[np.ndarray, dict]:
        return emulate(launch, self.smem_base, self.smem_bytes)


def emulate(launch, base, smem_bytes):
    """Model D for a launch: scatter values to a value image, gather what each descriptor reads."""
    img = np.zeros(smem_bytes, dtype=np.int64)
    for vals, addrs in ((launch.a_vals, launch.a_addrs), (launch.b_vals, launch.b_addrs)):
        off = addrs.astype(np.int64) - base
        img[off] = vals
    e, inst_k = launch.e, launch.inst_k
    d = np.zeros((M, launch.n), dtype=np.int64)
    oob = 0
    for j in range(launch.ksteps):
        ra = emulated_read_addresses(launch.a_desc[j], launch.major_a, M, e, inst_k) - base
        rb = emulated_read_addresses(launch.b_desc[j], launch.major_b, launch.n, e, inst_k) - base
        bad_a = (ra < 0) | (ra > smem_bytes - e)
        bad_b = (rb < 0) | (rb > smem_bytes - e)
        oob += int(bad_a.sum() + bad_b.sum())
        av = np.where(bad_a, 0, img[np.clip(ra, 0, smem_bytes - 1)])
        bv = np.where(bad_b, 0, img[np.clip(rb, 0, smem_bytes - 1)])
        d += av @ bv.T
    return d, {"oob_reads": oob}


class GpuBackend:
    """libwgmma_conformance.so through ctypes (one CUDA context per process)."""
    name = "gpu"

    def __init__(self, lib_path):
        self.lib = ctypes.CDLL(os.path.abspath(lib_path))
        L = self.lib
        L.fsw_error_string.restype = ctypes.c_char_p
        L.fsw_error_string.argtypes = [ctypes.c_int]
        L.fsw_device_info.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        L.fsw_smem_base.argtypes = [ctypes.POINTER(ctypes.c_uint32)]
        vp = ctypes.c_void_p
        L.fsw_run.argtypes = [ctypes.c_int] * 4 + [vp, vp, ctypes.c_int, vp, vp, ctypes.c_int,
                                                   vp, vp, ctypes.c_int, ctypes.c_uint32, vp, vp]
        buf = ctypes.create_string_buffer(512)
        mx = ctypes.c_int(0)
        self._check(L.fsw_device_info(buf, 512, ctypes.byref(mx)), "device info")
        self.device = buf.value.decode()
        self.smem_bytes = int(mx.value) // 16 * 16
        b = ctypes.c_uint32(0)
        self._check(L.fsw_smem_base(ctypes.byref(b)), "smem base query")
        self.smem_base = int(b.value)

    def _check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: {self.lib.fsw_error_string(rc).decode()} ({rc})")

    def info(self):
        return {"device": self.device, "smem_base": hex(self.smem_base),
                "max_dynamic_smem": self.smem_bytes}

    def run(self, launch):
        code, e, _, _, acc = DTYPES[launch.dtype]
        bits_t = {1: np.uint8, 2: np.uint16, 4: np.uint32}[e]
        a_bits = np.ascontiguousarray(encode(launch.dtype, launch.a_vals).astype(bits_t))
        b_bits = np.ascontiguousarray(encode(launch.dtype, launch.b_vals).astype(bits_t))
        a_addr = np.ascontiguousarray(launch.a_addrs, dtype=np.uint32)
        b_addr = np.ascontiguousarray(launch.b_addrs, dtype=np.uint32)
        a_desc = np.ascontiguousarray(launch.a_desc, dtype=np.uint64)
        b_desc = np.ascontiguousarray(launch.b_desc, dtype=np.uint64)
        d = np.zeros((M, launch.n), dtype=acc)
        info = np.zeros(2, dtype=np.uint32)
        p = lambda x: x.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
        rc = self.lib.fsw_run(code, launch.n, launch.ta, launch.tb, p(a_bits), p(a_addr), a_bits.size,
                              p(b_bits), p(b_addr), b_bits.size, p(a_desc), p(b_desc),
                              launch.ksteps, self.smem_bytes, p(d), p(info))
        if rc != 0:
            err = self.lib.fsw_error_string(rc).decode()
            raise CudaError(rc, err)
        if int(info[0]) != self.smem_base:
            raise RuntimeError(f"kernel's buffer is at 0x{int(info[0]):x}, query said 0x{self.smem_base:x}")
        if int(info[1]):
            raise RuntimeError(f"{int(info[1])} element addresses fell outside the shared buffer")
        return d, {}


class CudaError(RuntimeError):
    def __init__(self, rc, msg):
        super().__init__(f"CUDA error {rc}: {msg}")
        self.rc = rc


# --------------------------------------------------------------------------------------------
# cases

@dataclasses.dataclass
class Case:
    cid: str
    group: str
    dtype: str
    n: int
    major_a: str
    major_b: str
    swizzle: str
    order: str
    placement: str
    ksteps: int
    lbo_policy: str = "cutlass"
    stages: int | None = None
    negatives: bool = False
    probe: bool = False      # result reported, but not part of pass/fail (see docs/CONFORMANCE.md)


def build_cases(quick=False) -> list[Case]:
    cases = []
    combos = []
    for dt, (_, _, _, mn_ok, _) in DTYPES.items():
        majors = [("K", "K"), ("K", "MN"), ("MN", "K"), ("MN", "MN")] if mn_ok else [("K", "K")]
        combos += [(dt, ma, mb) for ma, mb in majors]
    ns = (8, 256) if quick else NS

    def valid(dt, major, swz, mn):
        # An MN-major operand must be whole atoms wide (S/E elements of MN): wgmma's canonical
        # MN-major layout ((T,W,m),(8,k)) has no partial atom, and fastswz rejects it.
        return major == "K" or mn % (SWIZZLES[swz][0] // DTYPES[dt][1]) == 0
    # 1. the grid: every dtype x majorness x swizzle x N x order x placement
    for dt, ma, mb in combos:
        for swz in SWIZZLES:
            for n in ns:
                if not (valid(dt, ma, swz, M) and valid(dt, mb, swz, n)):
                    continue
                for order in ("mn", "k"):
                    for pl in PLACEMENTS:
                        if quick and pl not in ("on", "off-rel"):
                            continue
                        cases.append(Case(
                            f"grid/{dt}/{ma}{mb}/{swz}/n{n}/{order}/{pl}", "grid", dt, n, ma, mb,
                            swz, order, pl, KSTEPS[swz],
                            negatives=(pl == "on" and order == "mn")))
    # 2. lbo_policy="deepgemm" (K-major swizzled LBO field 0), K-major, TMA-box order
    for dt in DTYPES:
        for swz in SWIZZLES:
            for n in ((64,) if quick else (64, 256)):
                cases.append(Case(f"deepgemm/{dt}/KK/{swz}/n{n}/k/on", "deepgemm", dt, n, "K", "K",
                                  swz, "k", "on", KSTEPS[swz], lbo_policy="deepgemm"))
    # 3. pipeline stages at a stride (descriptors(stages=, stage_stride=)); the stride is a multiple
    #    of 128 B but not of the pattern, so each stage sits at a different swizzle phase
    for dt, ma, mb in combos:
        for swz in SWIZZLES:
            for pl in ("on", "off-rel") if quick else ("on", "off-abs", "off-rel"):
                cases.append(Case(f"stages/{dt}/{ma}{mb}/{swz}/n64/k/{pl}", "stages", dt, 64, ma, mb,
                                  swz, "k", pl, KSTEPS[swz], stages=3))
    # 4. probe: "relative" swizzle_base with a start that is 16-B but not 128-B aligned. PTX's
    #    base_offset formula (pattern start >> 7) & 7 cannot express the sub-128-B part, so the
    #    hardware is not expected to agree; reported, not judged.
    if not quick:
        for dt, ma, mb in (("bf16", "K", "K"), ("bf16", "MN", "MN"), ("e4m3", "K", "K")):
            for swz in ("32B", "64B", "128B"):
                cases.append(Case(f"probe/{dt}/{ma}{mb}/{swz}/n64/mn/off16-rel", "probe", dt, 64, ma,
                                  mb, swz, "mn", "off16-rel", KSTEPS[swz], probe=True))
    return cases


PLACEMENTS_ALL = dict(PLACEMENTS, **{"off16-rel": (0x030, 0x250, "relative")})


@dataclasses.dataclass
class Launch:
    variant: str
    dtype: str
    n: int
    ksteps: int
    major_a: str
    major_b: str
    a_vals: np.ndarray   # flat, every stage (all are scattered)
    a_addrs: np.ndarray
    b_vals: np.ndarray
    b_addrs: np.ndarray
    a_desc: np.ndarray   # (ksteps,) of the stage this launch multiplies
    b_desc: np.ndarray
    expected: np.ndarray  # (64, n) int64
    expect_match: bool
    stage: int = 0

    @property
    def e(self):
        return DTYPES[self.dtype][1]

    @property
    def inst_k(self):
        return DTYPES[self.dtype][2]

    @property
    def ta(self):
        return 1 if self.major_a == "MN" else 0

    @property
    def tb(self):
        return 1 if self.major_b == "MN" else 0


def _align(x, a):
    return (x + a - 1) // a * a


def make_launches(case: Case, fsw, base: int, smem_bytes: int) -> tuple[list[Launch], dict]:
    """Build the operands of a case and every launch (full, A~ref, ref~B, negatives)."""
    rng = np.random.default_rng(zlib.crc32(case.cid.encode()))
    _, e, inst_k, _, _ = DTYPES[case.dtype]
    k = case.ksteps * inst_k
    a_off, b_off, sbase = PLACEMENTS_ALL[case.placement]
    stages = case.stages
    a_bytes, b_bytes = M * k * e, case.n * k * e
    # Stage stride: the tile rounded up to 1024 B, plus 0x80 so stages sit at different phases.
    a_stride = _align(a_bytes, 1024) + 0x80 if stages else 0
    b_stride = _align(b_bytes, 1024) + 0x80 if stages else 0
    n_st = stages or 1
    # Regions: A's region at the (1024-aligned) buffer start, B's after it, each 1024-aligned
    # before the placement offset; the reference operands reuse the same starts.
    a_start = _align(base, 1024) + a_off
    a_end = a_start + (n_st - 1) * a_stride + a_bytes
    b_start = _align(a_end, 1024) + b_off
    b_end = b_start + (n_st - 1) * b_stride + b_bytes
    if b_end - base > smem_bytes:
        raise ValueError(f"case needs {b_end - base} B of shared memory, have {smem_bytes}")
    st = dict(stages=stages, stage_stride=(a_stride if stages else None))
    A = fsw_operand(fsw, case.dtype, case.major_a, case.swizzle, M, k, case.order, a_start, sbase,
                    rng, case.lbo_policy, **st)
    st["stage_stride"] = b_stride if stages else None
    B = fsw_operand(fsw, case.dtype, case.major_b, case.swizzle, case.n, k, case.order, b_start,
                    sbase, rng, case.lbo_policy, **st)
    RA = ref_operand(case.dtype, M, k, a_start, rng, n_st, a_stride)
    RB = ref_operand(case.dtype, case.n, k, b_start, rng, n_st, b_stride)
    meta = {"A": A.meta, "B": B.meta, "a_start": hex(a_start), "b_start": hex(b_start),
            "swizzle_base": sbase, "k": k}

    def launch(variant, a: Operand, b: Operand, expect_match=True, a_desc=None, b_desc=None):
        out = []
        for s in range(n_st):
            exp = a.values[s].astype(np.int64) @ b.values[s].astype(np.int64).T
            out.append(Launch(
                variant + (f"@stage{s}" if stages else ""), case.dtype, case.n, case.ksteps,
                a.major, b.major, a.values.reshape(-1), a.addrs.reshape(-1), b.values.reshape(-1),
                b.addrs.reshape(-1), (a.descs if a_desc is None else a_desc)[s],
                (b.descs if b_desc is None else b_desc)[s], exp, expect_match, s))
        return out

    launches = launch("full", A, B) + launch("A~ref", A, RB) + launch("ref~B", RA, B)
    if case.negatives:
        for name, op in (("A", A), ("B", B)):
            other_a, other_b = (op, RB) if name == "A" else (RA, op)
            mk = (lambda d: dict(a_desc=d)) if name == "A" else (lambda d: dict(b_desc=d))
            if op.lbo_read and op.meta["lbo"] != op.meta["sbo"]:
                launches += launch(f"neg-swap-{name}", other_a, other_b, False,
                                   **mk(swap_lbo_sbo(op.descs)))
            wrong = SWIZZLES[WRONG_SWIZZLE[case.swizzle]][1]
            launches += launch(f"neg-swizzle-{name}", other_a, other_b, False,
                               **mk(set_layout_type(op.descs, wrong)))
            if op.major == "K" and case.swizzle != "none":
                # PTX: K-major swizzled LBO is "not used, assumed to be 1"; fastswz leaves it a
                # policy (cutlass 1 / deepgemm 0). An all-ones LBO field must change nothing.
                launches += launch(f"lbo-ignored-{name}", other_a, other_b, True,
                                   **mk(set_lbo(op.descs, 0x3FFF)))
    return launches, meta


def host_checks(launch: Launch, base: int, smem_bytes: int) -> list[str]:
    """Checks that need no GPU: fastswz's addresses are in the buffer, aligned and injective."""
    problems = []
    for name, addrs in (("A", launch.a_addrs), ("B", launch.b_addrs)):
        a = addrs.astype(np.int64)
        if a.min() < base or a.max() + launch.e > base + smem_bytes:
            problems.append(f"{name} addresses outside the buffer [0x{a.min():x}, 0x{a.max():x}]")
        if np.any(a % launch.e):
            problems.append(f"{name} has addresses not aligned to {launch.e} B")
    allad = np.concatenate([launch.a_addrs, launch.b_addrs]).astype(np.int64)
    if np.unique(allad).size != allad.size:
        problems.append(f"{allad.size - np.unique(allad).size} elements share an address")
    return problems


def run_case(case: Case, fsw, backend, model: CpuBackend) -> dict:
    t0 = time.perf_counter()
    res = {"cid": case.cid, "group": case.group, "probe": case.probe, "launches": []}
    try:
        launches, meta = make_launches(case, fsw, backend.smem_base, backend.smem_bytes)
    except Exception as exc:  # fastswz refused the case or the harness could not build it
        res["error"] = f"{type(exc).__name__}: {exc}"
        res["traceback"] = traceback.format_exc(limit=4)
        res["ok"] = False
        return res
    res["meta"] = meta
    ok = True
    for ln in launches:
        r = {"variant": ln.variant, "expect": "match" if ln.expect_match else "mismatch"}
        problems = host_checks(ln, backend.smem_base, backend.smem_bytes)
        if problems:  # fastswz's addresses cannot be placed: a failure, whatever the variant
            r.update(outcome="host-check", detail="; ".join(problems), **{"pass": False})
            ok = False
            res["launches"].append(r)
            continue
        d_model, minfo = model.run(ln)
        r["model_match"] = bool(np.array_equal(d_model, ln.expected))
        if minfo["oob_reads"]:
            # The descriptor would read outside the buffer: never hand that to the GPU (a fault
            # would cost the CUDA context). A negative control is then skipped, not counted;
            # a positive launch fails (fastswz's descriptor disagrees with its own addresses).
            why = f"descriptor reads {minfo['oob_reads']} elements outside the buffer (model)"
            if ln.expect_match:
                r.update(outcome="host-check", detail=why, **{"pass": False})
                ok = False
            else:
                r.update(outcome="skipped-oob", detail=why, **{"pass": True})
            res["launches"].append(r)
            continue
        if INFLIGHT:  # what the worker was doing, should the launch take the process down
            with open(INFLIGHT, "w") as f:
                json.dump({"cid": case.cid, "variant": ln.variant,
                           "a_desc": [hex(int(x)) for x in ln.a_desc],
                           "b_desc": [hex(int(x)) for x in ln.b_desc]}, f)
        try:
            d, _ = backend.run(ln)
        except CudaError:
            raise  # the worker must restart with a fresh context
        except Exception as exc:
            r.update(outcome="error", detail=f"{type(exc).__name__}: {exc}", **{"pass": False})
            ok = False
            res["launches"].append(r)
            continue
        d64 = d.astype(np.float64)
        match = bool(np.array_equal(d64, ln.expected.astype(np.float64)))
        r["outcome"] = "match" if match else "mismatch"
        r["pass"] = match == ln.expect_match
        if not match:
            wrong = d64 != ln.expected
            r["wrong"] = int(wrong.sum())
            i, j = np.argwhere(wrong)[0]
            r["first_wrong"] = [int(i), int(j), float(d64[i, j]), int(ln.expected[i, j])]
        if backend is not model:
            r["model_agrees"] = bool(np.array_equal(d64, d_model.astype(np.float64)))
        ok &= r["pass"]
        res["launches"].append(r)
    res["ok"] = bool(ok)
    res["seconds"] = round(time.perf_counter() - t0, 4)
    return res


# --------------------------------------------------------------------------------------------
# running (in-process, or in worker processes so a CUDA fault cannot take the suite down)

INFLIGHT = None  # worker: path of the "launch in flight" note (see run_isolated)


def import_fastswz():
    import fastswz  # noqa: F401
    return fastswz


def run_inprocess(cases, backend, start, jsonl, model=None):
    fsw = import_fastswz()
    model = model or CpuBackend(backend.smem_base, backend.smem_bytes)
    with open(jsonl, "a") as f:
        for i in range(start, len(cases)):
            res = run_case(cases[i], fsw, backend, model)
            res["index"] = i
            f.write(json.dumps(res) + "\n")
            f.flush()


def worker_main(ns):
    global INFLIGHT
    INFLIGHT = ns.jsonl + ".inflight"
    cases = select(build_cases(ns.quick), ns)
    backend = GpuBackend(ns.lib) if ns.backend == "gpu" else CpuBackend()
    try:
        run_inprocess(cases, backend, ns.start, ns.jsonl)
    except CudaError as exc:
        print(f"worker: {exc}; exiting so a fresh context continues", file=sys.stderr)
        return 3
    return 0


def run_isolated(ns, cases, jsonl):
    """Run cases in worker processes; a worker that dies (CUDA fault, hang) loses only the case
    it was on, which is recorded as crashed, and a fresh worker continues after it."""
    start = 0
    while start < len(cases):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--start", str(start),
               "--jsonl", jsonl, "--backend", ns.backend, "--lib", ns.lib or ""]
        cmd += ["--quick"] if ns.quick else []
        cmd += sum((["--filter", f] for f in ns.filter or []), [])
        proc = subprocess.Popen(cmd)
        last, last_t = _count(jsonl), time.time()
        while proc.poll() is None:
            time.sleep(0.2)
            c = _count(jsonl)
            if c != last:
                last, last_t = c, time.time()
            elif time.time() - last_t > ns.case_timeout:
                proc.kill()
                proc.wait()
                break
        done = {r["index"] for r in _read(jsonl)}
        nxt = max(done) + 1 if done else 0
        if nxt >= len(cases):
            break
        # The worker stopped before finishing: the case it was on crashed it.
        bad = cases[nxt]
        why = "timeout" if proc.returncode in (None, -9) else f"worker exit {proc.returncode}"
        inflight = None
        try:
            with open(jsonl + ".inflight") as f:
                inflight = json.load(f)
        except (OSError, ValueError):
            pass
        if inflight and inflight.get("cid") == bad.cid:
            why += f" during launch {inflight['variant']}: A {inflight['a_desc']} B {inflight['b_desc']}"
        with open(jsonl, "a") as f:
            f.write(json.dumps({"cid": bad.cid, "group": bad.group, "probe": bad.probe,
                                "index": nxt, "ok": False, "error": f"crashed ({why})",
                                "launches": []}) + "\n")
        start = nxt + 1


def _read(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _count(path):
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return sum(1 for _ in f)


def select(cases, ns):
    for f in ns.filter or []:
        cases = [c for c in cases if f in c.cid]
    return cases


# --------------------------------------------------------------------------------------------
# report

def summarize(results, info, ns, elapsed) -> tuple[str, bool]:
    judged = [r for r in results if not r.get("probe")]
    probes = [r for r in results if r.get("probe")]
    launches = [(r, ln) for r in judged for ln in r.get("launches", [])]
    pos = [(r, ln) for r, ln in launches if ln["expect"] == "match"]
    neg = [(r, ln) for r, ln in launches if ln["expect"] == "mismatch" and ln["outcome"] != "skipped-oob"]
    neg_skipped = [(r, ln) for r, ln in launches if ln["outcome"] == "skipped-oob"]
    case_fail = [r for r in judged if not r.get("ok")]
    all_ok = not case_fail and bool(judged)
    lines = [
        "# wgmma conformance results", "",
        f"- date (UTC): {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())}",
        f"- backend: {ns.backend}; " + "; ".join(f"{k}: {v}" for k, v in info.items()),
        f"- command: `{' '.join(sys.argv)}`",
        f"- elapsed: {elapsed:.1f} s", "",
        f"**{'PASS' if all_ok else 'FAIL'}**: {len(judged) - len(case_fail)}/{len(judged)} cases passed; "
        f"{sum(ln['pass'] for _, ln in pos)}/{len(pos)} positive launches gave D == A·Bᵀ; "
        f"{sum(ln['pass'] for _, ln in neg)}/{len(neg)} negative controls gave a wrong D "
        f"({len(neg_skipped)} not run: the model says they would read outside the buffer).", "",
    ]
    if ns.backend == "gpu":
        agree = [ln.get("model_agrees") for _, ln in launches if "model_agrees" in ln]
        lines += [f"PTX-model agreement (CPU emulator's D == hardware D, negatives included): "
                  f"{sum(agree)}/{len(agree)}", ""]
    # per group x variant
    tab = defaultdict(Counter)
    for r, ln in launches:
        key = (r["group"], ln["variant"].split("@")[0])
        tab[key]["n"] += 1
        tab[key]["pass"] += bool(ln["pass"])
    lines += ["| group | variant | launches | passed |", "|---|---|---|---|"]
    for (g, v), c in sorted(tab.items()):
        lines.append(f"| {g} | {v} | {c['n']} | {c['pass']} |")
    lines.append("")
    # per dtype x swizzle (full launches)
    tab2 = defaultdict(Counter)
    for r, ln in pos:
        if ln["variant"].startswith("full"):
            dt, sw = r["cid"].split("/")[1], r["cid"].split("/")[3]
            tab2[(dt, sw)]["n"] += 1
            tab2[(dt, sw)]["pass"] += bool(ln["pass"])
    sws = list(SWIZZLES)
    lines += ["full launches passed, by dtype and swizzle:", "",
              "| dtype | " + " | ".join(sws) + " |", "|---|" + "---|" * len(sws)]
    for dt in DTYPES:
        lines.append(f"| {dt} | " + " | ".join(
            f"{tab2[(dt, s)]['pass']}/{tab2[(dt, s)]['n']}" for s in sws) + " |")
    lines.append("")
    if case_fail:
        lines += ["## Failures", ""]
        for r in case_fail[:200]:
            lines.append(f"- `{r['cid']}`: " + (r.get("error") or ""))
            for ln in r.get("launches", []):
                if not ln.get("pass"):
                    lines.append(f"  - {ln['variant']}: expected {ln['expect']}, got {ln['outcome']}"
                                 f" {ln.get('detail', '')} wrong={ln.get('wrong')} "
                                 f"first={ln.get('first_wrong')} model_match={ln.get('model_match')}")
            if r.get("meta"):
                lines.append(f"  - meta: {json.dumps(r['meta'])}")
        lines.append("")
    if probes:
        lines += ["## Probes (reported, not judged)", ""]
        for r in probes:
            outs = ", ".join(f"{ln['variant']}={ln['outcome']}" for ln in r.get("launches", []))
            lines.append(f"- `{r['cid']}`: {r.get('error') or outs}")
        lines.append("")
    return "\n".join(lines), all_ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--lib", default=None, help="path of libwgmma_conformance.so (gpu backend)")
    ap.add_argument("--out", default=None, help="results folder (default $OUT or tests/gpu/results)")
    ap.add_argument("--quick", action="store_true", help="a smaller case list")
    ap.add_argument("--filter", action="append", help="only cases whose id contains this (repeatable)")
    ap.add_argument("--list", action="store_true", help="print the case ids and exit")
    ap.add_argument("--no-isolate", action="store_true", help="gpu: run in this process")
    ap.add_argument("--case-timeout", type=float, default=60.0)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--jsonl", default=None, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.worker:
        return worker_main(ns)
    cases = select(build_cases(ns.quick), ns)
    if ns.list:
        print("\n".join(c.cid for c in cases))
        return 0
    out = ns.out or os.environ.get("OUT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    os.makedirs(out, exist_ok=True)
    jsonl = os.path.join(out, "results.jsonl")
    if os.path.exists(jsonl):
        os.remove(jsonl)
    t0 = time.time()
    try:
        fsw = import_fastswz()
        print(f"fastswz {getattr(fsw, '__version__', '?')} from {os.path.dirname(fsw.__file__)}")
        backend = GpuBackend(ns.lib) if ns.backend == "gpu" else CpuBackend()
    except Exception as exc:
        print(f"setup failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    info = backend.info()
    print(f"{len(cases)} cases; backend {ns.backend}: {info}", flush=True)
    if ns.backend == "gpu" and not ns.no_isolate:
        del backend  # the workers own the CUDA contexts
        run_isolated(ns, cases, jsonl)
    else:
        run_inprocess(cases, backend, 0, jsonl)
    results = sorted(_read(jsonl), key=lambda r: r["index"])
    if os.path.exists(jsonl + ".inflight"):
        os.remove(jsonl + ".inflight")
    text, ok = summarize(results, info, ns, time.time() - t0)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
