"""A CPU stand-in for libfragments.so: the PTX ISA's fragment semantics in numpy.

Written from the PTX figures (mma.sync 9.7.14.5, ldmatrix/stmatrix 9.7.14.5.15-16, wgmma
9.7.15.5.1), independently of fastswz.tv_layout, so that ``check.py --backend sim`` exercises the
whole checker (encodings, packing, chunks, negative controls) on a machine without a GPU.
``SimBackend(flaw=...)`` injects one hardware-side deviation, which the checker must catch.
Shared-memory operand tiles are read through fastswz.OperandTile (the canonical K-major 128B
layout that the checker writes; that map is proven by the wgmma conformance suite).
"""
from __future__ import annotations

import numpy as np

import fastswz
from check import BITS, decode, encode, pack, unpack

# (ptx op name) -> (M, N, K, input type, accumulator type)
OPS = {
    "m16n8k8.f32.f16": (16, 8, 8, "f16", "f32"), "m16n8k16.f32.f16": (16, 8, 16, "f16", "f32"),
    "m16n8k16.f16.f16": (16, 8, 16, "f16", "f16"), "m16n8k8.f32.bf16": (16, 8, 8, "bf16", "f32"),
    "m16n8k16.f32.bf16": (16, 8, 16, "bf16", "f32"), "m16n8k4.f32.tf32": (16, 8, 4, "tf32", "f32"),
    "m16n8k8.f32.tf32": (16, 8, 8, "tf32", "f32"), "m8n8k16.s32.s8": (8, 8, 16, "s8", "s32"),
    "m16n8k16.s32.s8": (16, 8, 16, "s8", "s32"), "m16n8k32.s32.s8": (16, 8, 32, "s8", "s32"),
    "m16n8k32.s32.u8": (16, 8, 32, "u8", "s32"), "m16n8k32.f32.e4m3": (16, 8, 32, "e4m3", "f32"),
    "m16n8k16.f32.e4m3": (16, 8, 16, "e4m3", "f32"),
    "m16n8k32.f32.e5m2": (16, 8, 32, "e5m2", "f32"), "m8n8k4.f64": (8, 8, 4, "f64", "f64"),
    "m16n8k4.f64": (16, 8, 4, "f64", "f64"), "m16n8k8.f64": (16, 8, 8, "f64", "f64"),
    "m16n8k16.f64": (16, 8, 16, "f64", "f64"),
}


def a_pos(M, K, bits, t, i):
    """(row, col) of A element i of lane t (PTX "fragment layout for matrix A")."""
    g, q = t // 4, t % 4
    if bits == 16:
        return g + 8 * ((i // 2) % 2), 2 * q + i % 2 + 8 * (i // 4)
    if bits == 8:
        if M == 8:
            return g, 4 * q + i
        return g + 8 * ((i // 4) % 2), 4 * q + i % 4 + 16 * (i // 8)
    if M == 8:
        return g, q
    return g + 8 * (i % 2), q + 4 * (i // 2)


def b_pos(K, bits, t, i):
    """(k, n) of B element i of lane t."""
    g, q = t // 4, t % 4
    if bits == 16:
        return 2 * q + i % 2 + 8 * (i // 2), g
    if bits == 8:
        return 4 * q + i % 4 + 16 * (i // 4), g
    return q + 4 * i, g


def c_pos(M, t, i):
    g, q = t // 4, t % 4
    if M == 8:
        return g, 2 * q + i
    return g + 8 * (i // 2), 2 * q + i % 2


class SimBackend:
    device = "simulated PTX semantics (numpy)"

    def __init__(self, flaw=None):
        self.flaw = flaw

    def mma(self, name, a, b, c):
        M, N, K, dt, acc = OPS[name]
        bits, abits = BITS[dt], (16 if acc == "f16" else BITS[acc])
        na, nb, nc = M * K // 32, K * N // 32, M * N // 32
        av = decode(dt, unpack(a, bits, na))
        bv = decode(dt, unpack(b, bits, nb))
        cv = decode(acc, unpack(c, abits, nc))
        A, B, C = np.zeros((M, K)), np.zeros((K, N)), np.zeros((M, N))
        for t in range(32):
            for i in range(na):
                A[a_pos(M, K, bits, t, i)] = av[t, i]
            for i in range(nb):
                B[b_pos(K, bits, t, i)] = bv[t, i]
            for i in range(nc):
                C[c_pos(M, t, i)] = cv[t, i]
        if self.flaw == "mma-b-transposed-pairs" and bits == 16:
            B = B.reshape(K // 2, 2, N)[:, ::-1, :].reshape(K, N)
        D = A @ B + C
        out = np.zeros((32, nc))
        for t in range(32):
            for i in range(nc):
                out[t, i] = D[c_pos(M, t, i)]
        return pack(encode(acc, out.astype(np.int64)), abits, max(1, nc * abits // 32))

    def _rows(self, x, lane_off):
        # matrix j row r comes from the address of lane 8j + r
        return [int(lane_off[8 * j + r]) for j in range(x) for r in range(8)]

    def ldmatrix(self, x, trans, image, lane_off):
        cells = np.stack([image & 0xFFFF, image >> 16], axis=1).reshape(-1).astype(np.uint64)
        rows = self._rows(x, lane_off)
        mat = np.array([cells[off // 2: off // 2 + 8] for off in rows]).reshape(x, 8, 8)
        if self.flaw == "ldmatrix-ignores-trans":
            trans = False
        out = np.zeros((32, 2 * x), dtype=np.uint64)
        for t in range(32):
            for j in range(x):
                for e in range(2):
                    out[t, 2 * j + e] = mat[j, 2 * (t % 4) + e, t // 4] if trans else mat[j, t // 4, 2 * (t % 4) + e]
        return pack(out, 16, x)

    def stmatrix(self, x, trans, regs, lane_off):
        vals = unpack(regs, 16, 2 * x)
        cells = np.full(512, 0xFFFF, dtype=np.uint64)
        rows = self._rows(x, lane_off)
        for t in range(32):
            for j in range(x):
                for e in range(2):
                    r, c = (2 * (t % 4) + e, t // 4) if trans else (t // 4, 2 * (t % 4) + e)
                    cells[rows[8 * j + r] // 2 + c] = vals[t, 2 * j + e]
        return (cells[0::2] | (cells[1::2] << 16)).astype(np.uint32)

    @staticmethod
    def _tile(dt, img):
        e = BITS[dt] // 8
        rows = img.size // 128
        while rows % 8:
            rows -= 1
        tile = fastswz.OperandTile(dt, "K", "128B", rows, 128 // e)
        addr = tile.addresses().astype(np.int64)
        bits = np.zeros(addr.shape, dtype=np.uint64)
        for i in range(e):
            bits |= img[addr + i].astype(np.uint64) << np.uint64(8 * i)
        return decode(dt, bits)

    @staticmethod
    def _d_pos(t, r):
        w, lane = t // 32, t % 32
        return 16 * w + lane // 4 + 8 * ((r // 2) % 2), 8 * (r // 4) + 2 * (lane % 4) + r % 2

    def _d_out(self, D, n, acc):
        out = np.zeros((128, n // 2))
        for t in range(128):
            for r in range(n // 2):
                out[t, r] = D[self._d_pos(t, r)]
        if self.flaw == "wgmma-d-warps-swapped":
            out = np.roll(out, 32, axis=0)
        bits = encode(acc, out.astype(np.int64))
        if acc == "f16":                       # two accumulators per register, the first low
            return pack(bits, 16, n // 4)
        return bits.astype(np.uint32)

    def wgmma_ss(self, n, a_img, b_img, desc_a, desc_b, acc="f32"):
        A = self._tile("f16", a_img)[:64, :16]
        B = self._tile("f16", b_img)[:n, :16]
        return self._d_out(A @ B.T, n, acc)

    def wgmma_rs(self, dt, n, a_regs, b_img, desc_b):
        bits = BITS[dt]
        K = 256 // bits
        vals = decode(dt, unpack(a_regs, bits, 128 // bits))
        A = np.zeros((64, K))
        kshape = {16: 16, 8: 32, 32: 8}[bits]
        for t in range(128):
            w, lane = t // 32, t % 32
            for i in range(vals.shape[1]):
                r, c = a_pos(16, kshape, bits, lane, i)
                A[16 * w + r, c] = vals[t, i]
        B = self._tile(dt, b_img)[:n, :K]
        return self._d_out(A @ B.T, n, "s32" if dt == "s8" else "f32")
