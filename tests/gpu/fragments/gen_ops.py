#!/usr/bin/env python3
"""Generate tests/gpu/fragments/ops.cuh: one register-in/register-out wrapper per instruction.

The fragment witness never tells the GPU a layout. Each wrapper loads its operand registers
from per-thread words chosen on the host (from fastswz's claimed maps), runs one instruction and
stores the result registers; fastswz's maps then have to explain what came back. The wrappers
name every register as a separate asm operand, so they are generated (this script is the single
source; the header is committed so that the build needs no Python):

    python3 tests/gpu/fragments/gen_ops.py            # rewrite ops.cuh
    python3 tests/gpu/fragments/gen_ops.py --check    # exit 1 if ops.cuh is stale

PTX: mma.sync 9.7.14.5.14, ldmatrix 9.7.14.5.15, stmatrix 9.7.14.5.16, wgmma.mma_async 9.7.15.5.2.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "ops.cuh"

# mma.sync: (name, ptx shape, ptx types, a words, b words, c words, a kind, c kind)
# kind: r = .b32 word, f = f32, d = f64 (two words per register, little-endian).
MMA = [
    ("m16n8k8.f32.f16", "m16n8k8", "f32.f16.f16.f32", 2, 1, 4, "r", "f"),
    ("m16n8k16.f32.f16", "m16n8k16", "f32.f16.f16.f32", 4, 2, 4, "r", "f"),
    ("m16n8k16.f16.f16", "m16n8k16", "f16.f16.f16.f16", 4, 2, 2, "r", "r"),
    ("m16n8k8.f32.bf16", "m16n8k8", "f32.bf16.bf16.f32", 2, 1, 4, "r", "f"),
    ("m16n8k16.f32.bf16", "m16n8k16", "f32.bf16.bf16.f32", 4, 2, 4, "r", "f"),
    ("m16n8k4.f32.tf32", "m16n8k4", "f32.tf32.tf32.f32", 2, 1, 4, "r", "f"),
    ("m16n8k8.f32.tf32", "m16n8k8", "f32.tf32.tf32.f32", 4, 2, 4, "r", "f"),
    ("m8n8k16.s32.s8", "m8n8k16", "s32.s8.s8.s32", 1, 1, 2, "r", "r"),
    ("m16n8k16.s32.s8", "m16n8k16", "s32.s8.s8.s32", 2, 1, 4, "r", "r"),
    ("m16n8k32.s32.s8", "m16n8k32", "s32.s8.s8.s32", 4, 2, 4, "r", "r"),
    ("m16n8k32.s32.u8", "m16n8k32", "s32.u8.u8.s32", 4, 2, 4, "r", "r"),
    ("m16n8k16.f32.e4m3", "m16n8k16", "f32.e4m3.e4m3.f32", 2, 1, 4, "r", "f"),
    ("m16n8k32.f32.e4m3", "m16n8k32", "f32.e4m3.e4m3.f32", 4, 2, 4, "r", "f"),
    ("m16n8k32.f32.e5m2", "m16n8k32", "f32.e5m2.e5m2.f32", 4, 2, 4, "r", "f"),
    ("m8n8k4.f64", "m8n8k4", "f64.f64.f64.f64", 2, 2, 4, "d", "d"),
    ("m16n8k4.f64", "m16n8k4", "f64.f64.f64.f64", 4, 2, 8, "d", "d"),
    ("m16n8k8.f64", "m16n8k8", "f64.f64.f64.f64", 8, 4, 8, "d", "d"),
    ("m16n8k16.f64", "m16n8k16", "f64.f64.f64.f64", 16, 8, 8, "d", "d"),
]
# wgmma with A from shared memory (the accumulator check): N values
WGMMA_SS_N = [8, 16, 24, 64, 128, 136, 256]
# ... and with f16 accumulators (two per register; D = m + 64 n stays exact in f16 up to N = 32)
WGMMA_SS_F16_N = [16, 32]
# wgmma with A from registers: (dtype, ptx types, K, N, form); form as in tests/gpu/gen_wgmma_ops.py
WGMMA_RS = [
    ("f16", "f32.f16.f16", 16, 64, "trans"),
    ("f16", "f32.f16.f16", 16, 256, "trans"),
    ("bf16", "f32.bf16.bf16", 16, 64, "trans"),
    ("tf32", "f32.tf32.tf32", 8, 64, "scale"),
    ("e4m3", "f32.e4m3.e4m3", 32, 64, "scale"),
    ("s8", "s32.s8.s8", 32, 64, "int"),
]


def mma_op(idx, name, shape, types, na, nb, nc, ak, ck):
    lines = [f"// mma.sync.aligned.{shape}.row.col.{types}",
             f"__device__ __forceinline__ void mma_op_{idx}(const uint32_t* A, const uint32_t* B, "
             f"const uint32_t* C, uint32_t* D) {{"]
    nra = na // 2 if ak == "d" else na
    nrb = nb // 2 if ak == "d" else nb
    nrd = nc // 2 if ck == "d" else nc
    # operand order in the asm: d..., a..., b..., c...
    d_ops = [f"%{i}" for i in range(nrd)]
    a_ops = [f"%{nrd + i}" for i in range(nra)]
    b_ops = [f"%{nrd + nra + i}" for i in range(nrb)]
    c_ops = [f"%{nrd + nra + nrb + i}" for i in range(nrd)]
    ctype = {"r": "uint32_t", "f": "float", "d": "double"}
    lines.append(f"  {ctype[ak]} a[{nra}], b[{nrb}];")
    lines.append(f"  {ctype[ck]} c[{nrd}], d[{nrd}];")
    for arr, n, kind, src in (("a", nra, ak, "A"), ("b", nrb, ak, "B"), ("c", nrd, ck, "C")):
        for i in range(n):
            if kind == "d":
                lines.append(f"  {arr}[{i}] = __longlong_as_double((long long)(((uint64_t){src}[{2 * i + 1}] << 32) | "
                             f"{src}[{2 * i}]));")
            elif kind == "f":
                lines.append(f"  {arr}[{i}] = __uint_as_float({src}[{i}]);")
            else:
                lines.append(f"  {arr}[{i}] = {src}[{i}];")
    cons = {"r": "r", "f": "f", "d": "d"}
    outs = ", ".join(f'"={cons[ck]}"(d[{i}])' for i in range(nrd))
    ins = ", ".join([f'"{cons[ak]}"(a[{i}])' for i in range(nra)] + [f'"{cons[ak]}"(b[{i}])' for i in range(nrb)]
                    + [f'"{cons[ck]}"(c[{i}])' for i in range(nrd)])
    lines.append(f'  asm volatile("mma.sync.aligned.{shape}.row.col.{types} '
                 f'{{{", ".join(d_ops)}}}, {{{", ".join(a_ops)}}}, {{{", ".join(b_ops)}}}, '
                 f'{{{", ".join(c_ops)}}};\\n"')
    lines.append(f"               : {outs}")
    lines.append(f"               : {ins});")
    for i in range(nrd):
        if ck == "d":
            lines.append(f"  {{ uint64_t w = (uint64_t)__double_as_longlong(d[{i}]); D[{2 * i}] = (uint32_t)w; "
                         f"D[{2 * i + 1}] = (uint32_t)(w >> 32); }}")
        elif ck == "f":
            lines.append(f"  D[{i}] = __float_as_uint(d[{i}]);")
        else:
            lines.append(f"  D[{i}] = d[{i}];")
    lines.append("}")
    return "\n".join(lines)


def wgmma_ss(n):
    nr = n // 2
    d_ops = ", ".join(f"%{i}" for i in range(nr))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(nr))
    return "\n".join([
        f"// wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16, A and B from shared memory",
        f"__device__ __forceinline__ void wgmma_ss_{n}(float* d, uint64_t da, uint64_t db) {{",
        "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + str(nr + 2) + ", 0;\\n\"",
        f'               "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {{{d_ops}}}, %{nr}, %{nr + 1}, p, 1, 1, 0, 0;\\n}}\\n"',
        f"               : {outs}",
        '               : "l"(da), "l"(db), "r"(0));',
        "}"])


def wgmma_ss_f16(n):
    nr = n // 4
    d_ops = ", ".join(f"%{i}" for i in range(nr))
    outs = ", ".join(f'"+r"(d[{i}])' for i in range(nr))
    return "\n".join([
        f"// wgmma.mma_async.sync.aligned.m64n{n}k16.f16.f16.f16, f16 accumulators, A and B from shared memory",
        f"__device__ __forceinline__ void wgmma_ss_f16acc_{n}(uint32_t* d, uint64_t da, uint64_t db) {{",
        "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + str(nr + 2) + ", 0;\\n\"",
        f'               "wgmma.mma_async.sync.aligned.m64n{n}k16.f16.f16.f16 {{{d_ops}}}, %{nr}, %{nr + 1}, p, 1, 1, 0, 0;\\n}}\\n"',
        f"               : {outs}",
        '               : "l"(da), "l"(db), "r"(0));',
        "}"])


def wgmma_rs(dt, types, k, n, form):
    nr = n // 2
    acc = "f" if types.startswith("f32") else "r"
    ctype = "float" if acc == "f" else "uint32_t"
    d_ops = ", ".join(f"%{i}" for i in range(nr))
    a_ops = ", ".join(f"%{nr + i}" for i in range(4))
    tail = {"trans": "p, 1, 1, 0", "scale": "p, 1, 1", "int": "p"}[form]
    outs = ", ".join(f'"+{acc}"(d[{i}])' for i in range(nr))
    return "\n".join([
        f"// wgmma.mma_async.sync.aligned.m64n{n}k{k}.{types}, A from registers",
        f"__device__ __forceinline__ void wgmma_rs_{dt}_{n}({ctype}* d, const uint32_t* a, uint64_t db) {{",
        "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + str(nr + 5) + ", 0;\\n\"",
        f'               "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{types} {{{d_ops}}}, {{{a_ops}}}, %{nr + 4}, {tail};\\n}}\\n"',
        f"               : {outs}",
        '               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(0));',
        "}"])


def header():
    parts = ["// GENERATED by tests/gpu/fragments/gen_ops.py -- do not edit by hand.",
             "#pragma once", "#include <cstdint>", ""]
    for i, op in enumerate(MMA):
        parts += [mma_op(i, *op), ""]
    parts.append("#define FSW_MMA_OPS(X) \\")
    parts += [f"  X({i}, \"{op[0]}\", {op[3]}, {op[4]}, {op[5]}) \\" for i, op in enumerate(MMA)]
    parts += ["/* end of FSW_MMA_OPS */", ""]
    for n in WGMMA_SS_N:
        parts += [wgmma_ss(n), ""]
    parts.append("#define FSW_WGMMA_SS(X) \\")
    parts += [f"  X({n}) \\" for n in WGMMA_SS_N]
    parts += ["/* end of FSW_WGMMA_SS */", ""]
    for n in WGMMA_SS_F16_N:
        parts += [wgmma_ss_f16(n), ""]
    parts.append("#define FSW_WGMMA_SS_F16(X) \\")
    parts += [f"  X({n}) \\" for n in WGMMA_SS_F16_N]
    parts += ["/* end of FSW_WGMMA_SS_F16 */", ""]
    for r in WGMMA_RS:
        parts += [wgmma_rs(*r), ""]
    parts.append("#define FSW_WGMMA_RS(X) \\")
    parts += [f"  X({i}, {r[0]}, \"{r[0]}\", {r[3]}, {'float' if r[1].startswith('f32') else 'uint32_t'}) \\"
              for i, r in enumerate(WGMMA_RS)]
    parts += ["/* end of FSW_WGMMA_RS */", ""]
    return "\n".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    text = header()
    if args.check:
        ok = OUT.exists() and OUT.read_text() == text
        print(f"{OUT.name}: {'up to date' if ok else 'STALE'}")
        return 0 if ok else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
