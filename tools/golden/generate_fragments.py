"""Regenerate tests/data/golden_cute_fragments.json: CuTe's thread-value layouts, host-compiled.

Compiles ``fragments.hpp`` with the CUTLASS headers of the installed ``nvidia-cutlass`` wheel (or a
checkout given with ``--cutlass``) and records, for every atom below, the layouts CuTe's traits
hold, printed by CuTe itself:

* ``mma``: ``MMA_Traits<Op>::ALayout``, ``BLayout``, ``CLayout`` of the SM80/SM89/SM90 mma.sync
  atoms (16-bit, tf32, 8-bit, f64 families);
* ``gmma``: ``ALayout`` and ``CLayout`` of the SM90 register-sourced wgmma atoms, every N;
* ``copy``: ``Copy_Traits<Op>::SrcLayout``, ``DstLayout`` (bits) of ldmatrix (SM75), stmatrix
  (SM90) and tcgen05.ld/st (SM100 TMEM loads and stores);
* ``tmem``: the layout of ``UMMA::tmem_frg<float, uint32_t, N_SM, Mode>::make(((M, N), 1, 1))``,
  (m, n) -> TMEM address, for the accumulator allocations CuTe makes.

Usage: ``python tools/golden/generate_fragments.py [--check] [--cutlass DIR --commit SHA]``.
The tests only read the JSON (``tests/test_tv_layout_golden.py``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from generate import BUILD, cuda_include, cutlass_include, header_version  # noqa: E402

OUT = ROOT / "tests" / "data" / "golden_cute_fragments.json"

# (atom, shape, dtype) of the mma.sync atoms; dtype is the A/B type fastswz takes.
MMA = [
    ("SM80_16x8x8_F16F16F16F16_TN", "m16n8k8", "f16"),
    ("SM80_16x8x16_F16F16F16F16_TN", "m16n8k16", "f16"),
    ("SM80_16x8x8_F32F16F16F32_TN", "m16n8k8", "f16"),
    ("SM80_16x8x16_F32F16F16F32_TN", "m16n8k16", "f16"),
    ("SM80_16x8x8_F32BF16BF16F32_TN", "m16n8k8", "bf16"),
    ("SM80_16x8x16_F32BF16BF16F32_TN", "m16n8k16", "bf16"),
    ("SM80_16x8x4_F32TF32TF32F32_TN", "m16n8k4", "tf32"),
    ("SM80_16x8x8_F32TF32TF32F32_TN", "m16n8k8", "tf32"),
    ("SM80_8x8x4_F64F64F64F64_TN", "m8n8k4", "f64"),
    ("SM80_8x8x16_S32S8S8S32_TN", "m8n8k16", "s8"),
    ("SM80_8x8x16_S32U8U8S32_TN", "m8n8k16", "u8"),
    ("SM80_16x8x16_S32S8S8S32_TN", "m16n8k16", "s8"),
    ("SM80_16x8x16_S32U8U8S32_TN", "m16n8k16", "u8"),
    ("SM80_16x8x32_S32S8S8S32_TN", "m16n8k32", "s8"),
    ("SM80_16x8x32_S32U8U8S32_TN", "m16n8k32", "u8"),
    ("SM89_16x8x32_F32E4M3E4M3F32_TN", "m16n8k32", "e4m3"),
    ("SM89_16x8x32_F32E5M2E5M2F32_TN", "m16n8k32", "e5m2"),
    ("SM89_16x8x32_F16E4M3E4M3F16_TN", "m16n8k32", "e4m3"),
    ("SM80_8x8x32_S32S4S4S32_TN", "m8n8k32", "s4"),
    ("SM80_16x8x32_S32S4S4S32_TN", "m16n8k32", "s4"),
    ("SM80_16x8x64_S32S4S4S32_TN", "m16n8k64", "s4"),
    ("SM80_16x8x64_S32U4U4S32_TN", "m16n8k64", "u4"),
    ("SM80_8x8x128_S32U1U1S32_TN_XORPOPC", "m8n8k128", "b1"),
    ("SM80_16x8x128_S32U1U1S32_TN_XORPOPC", "m16n8k128", "b1"),
    ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC", "m16n8k256", "b1"),
    ("SM90_16x8x4_F64F64F64F64_TN", "m16n8k4", "f64"),
    ("SM90_16x8x8_F64F64F64F64_TN", "m16n8k8", "f64"),
    ("SM90_16x8x16_F64F64F64F64_TN", "m16n8k16", "f64"),
]
_GMMA_N = list(range(8, 257, 8))
_GMMA_N_INT = [8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256]   # the S8 RS atoms of mma_sm90_gmma.hpp
GMMA = ([(f"SM90::GMMA::MMA_64x{n}x16_F32BF16BF16_RS<GMMA::Major::K, GMMA::Major::K>", n, "bf16")
         for n in _GMMA_N]
        + [(f"SM90::GMMA::MMA_64x{n}x16_F32F16F16_RS<GMMA::Major::K, GMMA::Major::K>", n, "f16")
           for n in (8, 64, 256)]
        + [(f"SM90::GMMA::MMA_64x{n}x8_F32TF32TF32_RS_TN<>", n, "tf32") for n in (8, 64, 256)]
        + [(f"SM90::GMMA::MMA_64x{n}x32_F32E4M3E4M3_RS_TN<>", n, "e4m3") for n in (8, 64, 256)]
        + [(f"SM90::GMMA::MMA_64x{n}x32_S32S8S8_RS_TN", n, "s8") for n in _GMMA_N_INT])
# (atom, op, x, trans, shape)
MATRIX = ([(f"SM75_U32x{x}_LDSM_N", "ldmatrix", x, False, "m8n8") for x in (1, 2, 4)]
          + [(f"SM75_U16x{2 * x}_LDSM_T", "ldmatrix", x, True, "m8n8") for x in (1, 2, 4)]
          + [(f"SM90_U32x{x}_STSM_N", "stmatrix", x, False, "m8n8") for x in (1, 2, 4)]
          + [(f"SM90_U16x{2 * x}_STSM_T", "stmatrix", x, True, "m8n8") for x in (1, 2, 4)]
          + [(f"SM100_U8x{8 * x}_LDSM_T", "ldmatrix", x, True, "m16n16") for x in (1, 2)]
          + [(f"SM100_SU{b}_DU8x16_x{x}_LDSM_N", "ldmatrix", x, False, "m8n16") for b in (4, 6)
             for x in (1, 2, 4)]
          + [(f"SM100_U8x{4 * x}_STSM_T", "stmatrix", x, True, "m16n8") for x in (1, 2, 4)])
_TMEM_SHAPES = {"32dp32b": ("32x32b", 128), "16dp64b": ("16x64b", 128), "16dp128b": ("16x128b", 64),
                "16dp256b": ("16x256b", 32), "16dp32b": ("16x32bx2", 128)}
TMEM_COPY = [(f"SM100_TMEM_{op.upper()}_{k}{num}x", op, shape, num)
             for op in ("load", "store") for k, (shape, top) in _TMEM_SHAPES.items()
             for num in (1, 2, 4, 8, 16, 32, 64, 128) if num <= top]
# (n_sm, per-SM M, N, alloc mode)
TMEM_FRG = ([(1, 128, n, "Interleaved") for n in (8, 64, 256)]
            + [(1, 64, n, "Interleaved") for n in (8, 64, 256)]
            + [(2, 128, n, "Interleaved") for n in (16, 64, 256)]
            + [(2, 64, n, "Interleaved") for n in (16, 64, 256)])


def source() -> str:
    lines = ['// Generated by tools/golden/generate_fragments.py; do not edit.',
             '#include "fragments.hpp"', "using namespace cute;", "int main() {"]
    for atom, _, _ in MMA:
        lines.append(f'  fgolden::mma<{atom}>("{atom}");')
    for atom, _, _ in GMMA:
        lines.append(f'  fgolden::mma<{atom}>("{atom.replace(" ", "")}");')
    for atom, *_ in MATRIX:
        lines.append(f'  fgolden::copy<{atom}>("{atom}");')
    for atom, *_ in TMEM_COPY:
        lines.append(f'  fgolden::copy<{atom}>("{atom}");')
    for nsm, m, n, mode in TMEM_FRG:
        lines.append(f'  fgolden::tmem<{nsm}, {m}, {n}, UMMA::TmemAllocMode::{mode}>("{mode}");')
    lines += ["  return 0;", "}", ""]
    return "\n".join(lines)


def build(inc: Path) -> str:
    BUILD.mkdir(parents=True, exist_ok=True)
    src = BUILD / "fragments.cpp"
    src.write_text(source())
    exe = BUILD / "fragments"
    flags = ["-std=c++17", "-O0", "-w", f"-I{HERE}", f"-I{inc}", *(f"-I{p}" for p in cuda_include())]
    r = subprocess.run(["g++", *flags, str(src), "-o", str(exe)], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"compile failed:\n{r.stderr[-6000:]}")
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


def assemble(out: str, meta: dict) -> dict:
    rows = [ln.split(" ") for ln in out.splitlines() if ln]
    mma = {r[1]: r[2:] for r in rows if r[0] == "M"}
    cp = {r[1]: r[2:] for r in rows if r[0] == "C"}

    frg = [r[1:] for r in rows if r[0] == "F"]
    data = {"meta": meta, "mma": [], "gmma": [], "matrix": [], "tmem_copy": [], "tmem_frg": []}
    for atom, shape, dt in MMA:
        a, b, c = mma[atom]
        data["mma"].append({"atom": atom, "shape": shape, "dtype": dt, "A": a, "B": b, "C": c})
    for atom, n, dt in GMMA:
        a, b, c = mma[atom.replace(" ", "")]
        data["gmma"].append({"atom": atom, "n": n, "dtype": dt, "A": a, "C": c})
    for atom, op, x, trans, shape in MATRIX:
        s, d = cp[atom]
        data["matrix"].append({"atom": atom, "op": op, "shape": shape, "x": x, "trans": trans,
                               "src": s, "dst": d})
    for atom, op, shape, num in TMEM_COPY:
        s, d = cp[atom]
        data["tmem_copy"].append({"atom": atom, "op": "ld" if op == "load" else "st",
                                  "shape": shape, "num": num, "src": s, "dst": d})
    for (nsm, m, n, mode), f in zip(TMEM_FRG, frg):
        assert [int(f[0]), int(f[1]), int(f[2]), f[3]] == [nsm, m, n, mode]
        data["tmem_frg"].append({"n_sm": nsm, "m": m, "n": n, "alloc": mode, "layout": f[4]})
    return data


def dump(data: dict) -> str:
    parts = ['{\n "meta": ' + json.dumps(data["meta"])]
    for k in ("mma", "gmma", "matrix", "tmem_copy", "tmem_frg"):
        parts.append(f' "{k}": [\n' + ",\n".join("  " + json.dumps(r) for r in data[k]) + "\n ]")
    return ",\n".join(parts) + "\n}\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    ap.add_argument("--cutlass", default=None, help="CUTLASS checkout (or its include/)")
    ap.add_argument("--commit", default=None, help="commit of the --cutlass checkout")
    args = ap.parse_args(argv)
    inc = cutlass_include(args.cutlass)
    version = header_version(inc)
    if args.cutlass is None:
        from importlib.metadata import version as pv
        meta = {"source": "compiled CUTLASS/CuTe C++ (host g++)", "nvidia_cutlass": pv("nvidia-cutlass"),
                "cutlass_version": version}
        out_path = OUT
    else:
        meta = {"source": "compiled CUTLASS/CuTe C++ (host g++)", "cutlass_headers": "include/",
                "cutlass_commit": args.commit, "cutlass_version": version}
        out_path = OUT.with_name(f"golden_cute_fragments_{version}.json")
    text = dump(assemble(build(inc), meta))
    if args.check:
        same = out_path.exists() and out_path.read_text() == text
        print(f"{out_path.name}: {'identical' if same else 'DIFFERS'}")
        return 0 if same else 1
    out_path.write_text(text)
    print(f"wrote {out_path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
