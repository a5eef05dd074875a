#!/usr/bin/env python3
"""Regenerate fastswz's CuTe golden vectors (test tooling; never imported by the package).

Compiles small host programs against the CUTLASS/CuTe headers shipped in the installed
``nvidia-cutlass`` wheel (found through ``cutlass_library``), runs them, and writes

* ``tests/data/golden_cute_tiles.json``  -- swizzled smem addresses + wgmma/tcgen05 smem descriptors
* ``tests/data/golden_cute_instr.json``  -- tcgen05 instruction descriptors

Every value in those files is what compiled CuTe printed or returned.  The only derived field is
``ptx_legal`` (an annotation from the PTX rules, see README.md).  Usage::

    python tools/golden/generate.py            # build, run, write both JSON files
    python tools/golden/generate.py --check    # regenerate in memory and diff against the files
    python tools/golden/generate.py --cutlass /tmp/cutlass_new --commit 7107b055...
        # headers of a CUTLASS checkout instead of the wheel: writes
        # tests/data/golden_cute_{tiles,instr}_<major.minor.patch>.json

Environment: CXX (default g++), CUDA_HOME (default /usr/local/cuda), GOLDEN_JOBS (default: cores).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import time
from math import lcm
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BUILD = HERE / "build"
OUT_TILES = REPO / "tests" / "data" / "golden_cute_tiles.json"
OUT_INSTR = REPO / "tests" / "data" / "golden_cute_instr.json"

# --------------------------------------------------------------------------------------------
# What to enumerate
# --------------------------------------------------------------------------------------------

# name, CuTe type, bits, "full" (full shape grid) or twin (reduced grid; same layouts as a full one)
DTYPES = [
    ("f16", "cute::half_t", 16, False),
    ("bf16", "cute::bfloat16_t", 16, True),
    ("tf32", "cute::tfloat32_t", 32, True),
    ("e4m3", "cute::float_e4m3_t", 8, True),
    ("e5m2", "cute::float_e5m2_t", 8, False),
    ("s8", "int8_t", 8, False),
    ("u8", "uint8_t", 8, False),
]

# major, swizzle name, swizzle span S in bytes, CuTe atom alias (sm90 spelling, sm100 spelling), archs
ATOMS = [
    ("K", "none", 16, "Layout_K_INTER_Atom", (90, 100)),
    ("K", "32B", 32, "Layout_K_SW32_Atom", (90, 100)),
    ("K", "64B", 64, "Layout_K_SW64_Atom", (90, 100)),
    ("K", "128B", 128, "Layout_K_SW128_Atom", (90, 100)),
    ("MN", "none", 16, "Layout_MN_INTER_Atom", (90, 100)),
    ("MN", "32B", 32, "Layout_MN_SW32_Atom", (90, 100)),
    ("MN", "64B", 64, "Layout_MN_SW64_Atom", (90, 100)),
    ("MN", "128B", 128, "Layout_MN_SW128_Atom", (90, 100)),
    ("MN", "128B_base32B", 128, "Layout_MN_SW128_32B_Atom", (100,)),
]

STARTS = [0x0, 0x400, 0x480, 0x410, 0x1000, 0x2300]
STARTS_KFIRST = [0x400, 0x2300]  # primary (arch, inst_mn) of a K-atoms-first tile (others: 0x480)
STARTS_TWIN = [0x400, 0x480]  # primary (arch, inst_mn) of a twin dtype
STARTS_OTHER = [0x480]  # every further (arch, inst_mn) pair of a tile
N_CANDIDATES = (8, 16, 32, 64, 128, 256)
# Extra (mn, k) shapes, e.g. the worked examples of spec NOTES.md section 4.
EXTRA_SHAPES = {("bf16", "MN", "128B"): [(128, 64)]}


def atom_shape(major: str, swizzle: str, span: int, bits: int) -> tuple[int, int]:
    """(MN, K) extent of the atom in elements, as CuTe's atom aliases define it."""
    if major == "K":
        return 8, span * 8 // bits
    if swizzle == "128B_base32B":
        return 128 * 8 // bits, 4
    return span * 8 // bits, 8


def ptx_legal(arch: int, major: str, swizzle: str, bits: int) -> bool:
    """PTX annotation (not CuTe output): may this operand feed the instruction at all?"""
    if major == "K":
        return swizzle != "128B_base32B"
    if bits < 8:  # no MN-major 4/6-bit operands (PTX valid-combinations table)
        return False
    if arch == 90:  # wgmma: transpose only for .f16/.bf16 smem operands
        return bits == 16
    if bits == 32:  # tcgen05 MN-major 32-bit: only 128B with 32-byte atomicity
        return swizzle == "128B_base32B"
    return swizzle != "128B_base32B"


def enumerate_tiles():
    """Yield tile dicts in the deterministic output order."""
    tid = 0
    for dname, ctype, bits, full in DTYPES:
        for major, swz, span, alias, archs in ATOMS:
            am, ak = atom_shape(major, swz, span, bits)
            kb = 256 // bits  # one descriptor covers 32 bytes of K
            kbase = lcm(ak, kb)
            mns = sorted({x for x in (am, 2 * am, 64, 128, 256) if x % am == 0 and 8 <= x <= 256})
            mn64 = next(x for x in mns if x >= 64)
            if full:
                shapes = [(mn, k) for mn in mns for k in (kbase, 2 * kbase)] + [(mn64, 4 * kbase)]
                shapes += [x for x in EXTRA_SHAPES.get((dname, major, swz), []) if x not in shapes]
            else:
                shapes = [(mn64, kbase)]
            for mn, k in shapes:
                for order in ("mn", "k"):
                    dmin = 8 if major == "K" else am  # descriptor MN granularity
                    legal = [n for n in N_CANDIDATES if n % dmin == 0 and mn % n == 0]
                    insts = set()
                    if 64 in legal:
                        insts.add(64)
                    if mn <= 64 or legal[0] >= 64:
                        insts.add(legal[0])
                    insts.add(legal[-1])
                    pairs = [(a, n) for a in archs for n in sorted(insts)]
                    pairs.sort(key=lambda p: (p[1] != 64, p))
                    descs = []
                    for i, (arch, inst) in enumerate(pairs):
                        if i > 0:
                            starts = STARTS_OTHER
                        elif not full:
                            starts = STARTS_TWIN
                        else:
                            starts = STARTS if order == "mn" else STARTS_KFIRST
                        descs.append((arch, inst, starts))
                    yield dict(
                        id=tid, dtype=dname, ctype=ctype, bits=bits, major=major, swizzle=swz,
                        alias=alias, order=order, mn=mn, k=k, kb=kb, descs=descs,
                    )
                    tid += 1


# Sub-byte tiles (sm100 only): name, CuTe type, bits, full grid?
SUBBYTE_DTYPES = [
    ("e2m1", "cute::float_e2m1_t", 4, True),
    ("e2m1_unpacksmem", "cute::detail::float_e2m1_unpacksmem_t", 4, False),
]
SUBBYTE_ID0 = 100000
STARTS_SUB = [0x400, 0x480, 0x2300]


def enumerate_subbyte():
    """Sub-byte tile dicts (ids from SUBBYTE_ID0), same shape rules at 4 bits, sm100 only."""
    tid = SUBBYTE_ID0
    for dname, ctype, bits, full in SUBBYTE_DTYPES:
        for major, swz, span, alias, _ in ATOMS:
            am, ak = atom_shape(major, swz, span, bits)
            kb = 256 // bits
            kbase = lcm(ak, kb)
            mns = sorted({x for x in (am, 64, 128, 256) if x % am == 0 and 8 <= x <= 256})
            mn64 = next(x for x in mns if x >= 64)
            if full:
                shapes = [(mn64, kbase), (mn64, 2 * kbase)] + ([(am, kbase)] if am < 64 else [])
                orders = ("mn", "k")
            else:
                shapes, orders = [(mn64, kbase)], ("mn",)
            for mn, k in shapes:
                for order in orders:
                    dmin = 8 if major == "K" else am
                    legal = [n for n in N_CANDIDATES if n % dmin == 0 and mn % n == 0]
                    insts = sorted({64} & set(legal) | {legal[0] if mn <= 64 else legal[-1]}
                                   | {legal[-1]})
                    insts.sort(key=lambda n: (n != 64, n))
                    descs = [(100, n, (STARTS_SUB if full else STARTS_OTHER) if i == 0 else
                              STARTS_OTHER) for i, n in enumerate(insts)]
                    yield dict(
                        id=tid, dtype=dname, ctype=ctype, bits=bits, major=major, swizzle=swz,
                        alias=alias, order=order, mn=mn, k=k, kb=kb, descs=descs,
                    )
                    tid += 1


def subbyte_calls(t: dict) -> list[str]:
    kfirst = "true" if t["order"] == "k" else "false"
    atom = f"cute::UMMA::{t['alias']}<{t['ctype']}>"
    mnmajor = "true" if t["major"] == "MN" else "false"
    calls = [f"golden::emit_tile_sub<{t['ctype']}, {atom}, {t['mn']}, {t['k']}, {kfirst}>"
             f"(f, {t['id']}, S);"]
    for _, inst, _ in t["descs"]:
        calls.append(f"golden::emit_desc_sub<{t['ctype']}, {atom}, {t['mn']}, {t['k']}, {kfirst}, "
                     f"{inst}, {mnmajor}>(f, {t['id']}, S);")
    return calls


def atom_expr(t: dict, arch: int) -> str:
    ns = "cute::UMMA" if (arch == 100 or t["swizzle"] == "128B_base32B") else "cute::GMMA"
    return f"{ns}::{t['alias']}<{t['ctype']}>"


def tile_calls(t: dict) -> list[str]:
    """C++ calls for one tile.  The programs evaluate every start in STARTS; generate.py keeps the
    starts that `t["descs"]` names, so changing that selection needs no rebuild."""
    kfirst = "true" if t["order"] == "k" else "false"
    first_arch = t["descs"][0][0]
    calls = [
        f"golden::emit_tile<{t['ctype']}, {atom_expr(t, first_arch)}, {t['mn']}, {t['k']}, "
        f"{kfirst}>(f, {t['id']}, S);"
    ]
    mnmajor = "true" if t["major"] == "MN" else "false"
    for arch, inst, _ in t["descs"]:
        calls.append(
            f"golden::emit_desc<{t['ctype']}, {atom_expr(t, arch)}, {t['mn']}, {t['k']}, {kfirst}, "
            f"{inst}, {arch}, {mnmajor}>(f, {t['id']}, S);"
        )
    return calls


# Instruction descriptors -------------------------------------------------------------------

CT = {
    "f16": "cute::half_t", "bf16": "cute::bfloat16_t", "tf32": "cute::tfloat32_t",
    "e4m3": "cute::float_e4m3_t", "e5m2": "cute::float_e5m2_t", "s8": "int8_t", "u8": "uint8_t",
    "e2m3": "cute::detail::float_e2m3_unpacksmem_t", "e3m2": "cute::detail::float_e3m2_unpacksmem_t",
    "e2m1": "cute::detail::float_e2m1_unpacksmem_t", "f32": "float", "s32": "int32_t",
    "e2m1x2": "cute::float_e2m1_t", "ue8m0": "cute::float_ue8m0_t", "ue4m3": "cute::float_ue4m3_t",
}
MS = (64, 128, 256)
NS = (8, 16, 64, 128, 256)
MAJORS = [("K", "K"), ("K", "MN"), ("MN", "K"), ("MN", "MN")]


def enumerate_instr():
    out = []

    def add(kind, a, b, d, majors, negs, sats):
        for m in MS:
            for n in NS:
                for am, bm in majors:
                    for na, nb in negs:
                        for sat in sats:
                            out.append(dict(kind=kind, a_dtype=a, b_dtype=b, d_dtype=d, m=m, n=n,
                                            a_major=am, b_major=bm, negate_a=na, negate_b=nb,
                                            saturate=sat))

    negs4 = [(0, 0), (0, 1), (1, 0), (1, 1)]
    for a, d in (("f16", "f16"), ("f16", "f32"), ("bf16", "f32")):
        add("f16", a, a, d, MAJORS, negs4, (0,))
    add("tf32", "tf32", "tf32", "f32", MAJORS, negs4, (0,))
    for a in ("e4m3", "e5m2"):
        for b in ("e4m3", "e5m2"):
            for d in ("f32", "f16"):
                add("f8f6f4", a, b, d, MAJORS, negs4, (0,))
    sub = ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")
    for a in sub:
        for b in sub:
            if a in ("e4m3", "e5m2") and b in ("e4m3", "e5m2"):
                continue
            add("f8f6f4", a, b, "f32", [("K", "K")], [(0, 0)], (0,))
    for a in ("s8", "u8"):
        for b in ("s8", "u8"):
            add("i8", a, b, "s32", MAJORS, [(0, 0)], (0, 1))
    for i, r in enumerate(out):
        r["id"] = i
    return out


def enumerate_block_scaled():
    out = []
    f8 = ("e4m3", "e5m2")
    sub = ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")
    for a in sub:
        for b in sub:
            majors = MAJORS if (a in f8 and b in f8) else [("K", "K")]
            for m in (128, 256):
                for n in NS:
                    for am, bm in majors:
                        out.append(dict(kind="mxf8f6f4", a_dtype=a, b_dtype=b, d_dtype="f32",
                                        sf_dtype="ue8m0", m=m, n=n, a_major=am, b_major=bm,
                                        negate_a=0, negate_b=0))
    for sf, kind in (("ue8m0", "mxf4"), ("ue4m3", "mxf4nvf4")):
        for m in (128, 256):
            for n in NS:
                for na, nb in ((0, 0), (1, 1)):
                    out.append(dict(kind=kind, a_dtype="e2m1x2", b_dtype="e2m1x2", d_dtype="f32",
                                    sf_dtype=sf, m=m, n=n, a_major="K", b_major="K",
                                    negate_a=na, negate_b=nb))
    for i, r in enumerate(out):
        r["id"] = i
    return out


def instr_call(r: dict) -> str:
    b = lambda x: "true" if x else "false"  # noqa: E731
    return (f"golden::emit_instr<{CT[r['a_dtype']]}, {CT[r['b_dtype']]}, {CT[r['d_dtype']]}, "
            f"{r['m']}, {r['n']}, {b(r['a_major'] == 'MN')}, {b(r['b_major'] == 'MN')}, "
            f"{b(r['negate_a'])}, {b(r['negate_b'])}, {b(r['saturate'])}>(f, {r['id']});")


def bs_call(r: dict) -> str:
    b = lambda x: "true" if x else "false"  # noqa: E731
    return (f"golden::emit_instr_bs<{CT[r['a_dtype']]}, {CT[r['b_dtype']]}, {CT[r['d_dtype']]}, "
            f"{CT[r['sf_dtype']]}, {r['m']}, {r['n']}, {b(r['a_major'] == 'MN')}, "
            f"{b(r['b_major'] == 'MN')}, {b(r['negate_a'])}, {b(r['negate_b'])}>(f, {r['id']});")


# --------------------------------------------------------------------------------------------
# Build and run
# --------------------------------------------------------------------------------------------


def cutlass_include(root: "str | None" = None) -> Path:
    """The CUTLASS include directory: ``root`` (a checkout or its ``include/``), else the wheel's."""
    if root is not None:
        inc = Path(root).resolve()
        if (inc / "include" / "cute").is_dir():
            inc = inc / "include"
    else:
        try:
            import cutlass_library
        except ImportError:
            sys.exit("generate.py: `pip install nvidia-cutlass==4.2.0.0` first (needs cutlass_library), "
                     "or pass --cutlass DIR")
        inc = Path(cutlass_library.__file__).resolve().parent / "source" / "include"
    if not (inc / "cute" / "tensor.hpp").is_file():
        sys.exit(f"generate.py: no CuTe headers under {inc}")
    return inc


def header_version(inc: Path) -> str:
    """MAJOR.MINOR.PATCH as the headers' ``cutlass/version.h`` defines it."""
    text = (inc / "cutlass" / "version.h").read_text()
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"#define\s+CUTLASS_{name}\s+(\d+)", text)
        if m is None:
            sys.exit(f"generate.py: no CUTLASS_{name} in {inc / 'cutlass' / 'version.h'}")
        parts.append(m.group(1))
    return ".".join(parts)


def cuda_include() -> list[Path]:
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "include" / "cuda_runtime_api.h").is_file():
            return [Path(root) / "include", Path(root) / "include" / "cccl"]
    sys.exit("generate.py: CUDA headers not found; set CUDA_HOME")


def write_parts(groups: list[list[str]], prefix: str, header: str = "golden.hpp",
                build: Path = BUILD) -> list[Path]:
    paths = []
    for i, calls in enumerate(groups):
        body = "\n".join("  " + c for c in calls)
        starts = ", ".join(f"0x{x:x}ull" for x in STARTS)
        src = (f'// Generated by tools/golden/generate.py; do not edit.\n#include "{header}"\n\n'
               f"static const std::vector<std::uint64_t> S = {{{starts}}};\n\n"
               f"int main() {{\n  std::FILE* f = stdout;\n{body}\n  return 0;\n}}\n")
        p = build / f"{prefix}_{i:02d}.cpp"
        if not p.exists() or p.read_text() != src:
            p.write_text(src)
        paths.append(p)
    return paths


def build_and_run(src: Path, flags: list[str]) -> str:
    exe = src.with_suffix("")
    deps = [src, HERE / "golden.hpp", HERE / "cute_str.hpp"] + ([HERE / "golden_subbyte.hpp"] if "subbyte" in src.name else [])
    if not exe.exists() or exe.stat().st_mtime < max(d.stat().st_mtime for d in deps):
        cmd = [os.environ.get("CXX", "g++"), *flags, str(src), "-o", str(exe)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"compile failed: {' '.join(cmd)}\n{r.stderr[-6000:]}")
    r = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    return r.stdout


def split(calls: list[list[str]], n: int) -> list[list[str]]:
    """Round-robin whole call groups over n translation units (keeps each tile in one TU)."""
    parts: list[list[str]] = [[] for _ in range(n)]
    for i, group in enumerate(calls):
        parts[i % n].extend(group)
    return [p for p in parts if p]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="diff against the committed JSON files")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("GOLDEN_JOBS", os.cpu_count() or 2)))
    ap.add_argument("--parts", type=int, default=16, help="translation units for the tile grid")
    ap.add_argument("--cutlass", metavar="DIR", default=None,
                    help="CUTLASS checkout (or its include/) to compile against instead of the "
                         "nvidia-cutlass wheel; output goes to *_<version>.json")
    ap.add_argument("--commit", default=None,
                    help="git commit of the --cutlass checkout, recorded in the JSON meta")
    args = ap.parse_args(argv)

    t0 = time.time()
    inc = cutlass_include(args.cutlass)
    hversion = header_version(inc)
    if args.cutlass is None:
        build, out_tiles, out_instr = BUILD, OUT_TILES, OUT_INSTR
    else:
        # A separate build directory per header set: executables are reused by mtime only.
        build = BUILD / f"cutlass-{hversion}"
        out_tiles = OUT_TILES.with_name(f"golden_cute_tiles_{hversion}.json")
        out_instr = OUT_INSTR.with_name(f"golden_cute_instr_{hversion}.json")
    build.mkdir(parents=True, exist_ok=True)
    flags = ["-std=c++17", "-O1", "-w", f"-I{HERE}", f"-I{inc}", *(f"-I{p}" for p in cuda_include())]

    tiles = list(enumerate_tiles())
    instr = enumerate_instr()
    bscaled = enumerate_block_scaled()
    subs = list(enumerate_subbyte())
    srcs = write_parts(split([tile_calls(t) for t in tiles], args.parts), "tiles", build=build)
    srcs += write_parts(split([[instr_call(r)] for r in instr], 2), "instr", build=build)
    srcs += write_parts([[bs_call(r) for r in bscaled]], "bscaled", build=build)
    srcs += write_parts(split([subbyte_calls(t) for t in subs], 2), "subbyte", "golden_subbyte.hpp",
                        build=build)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        outputs = list(ex.map(lambda s: build_and_run(s, flags), srcs))

    lines = [ln.split() for out in outputs for ln in out.splitlines() if ln]
    tinfo, addrs, descs, ivals, bvals = {}, {}, {}, {}, {}
    for f in lines:
        if f[0] == "T":
            tinfo[int(f[1])] = f[2:5]
        elif f[0] == "A":
            addrs[int(f[1]), int(f[2])] = (int(f[3]), [int(x) for x in f[4:]])
        elif f[0] == "D":
            tid, arch, inst, start, ni, nj = (int(x) for x in f[1:7])
            flat = f[7:]
            assert len(flat) == ni * nj
            descs[tid, arch, inst, start] = [flat[i * nj:(i + 1) * nj] for i in range(ni)]
        elif f[0] == "I":
            ivals[int(f[1])] = f[2]
        elif f[0] == "B":
            bvals[int(f[1])] = f[2:]

    def assemble(tile_list, extra=None):
        out = []
        for t in tile_list:
            swz, lay, lay_c = tinfo[t["id"]]
            for arch, inst, starts in t["descs"]:
                for s in starts:
                    checksum, head = addrs[t["id"], s]
                    c = {
                        "dtype": t["dtype"], "bits": t["bits"], "major": t["major"],
                        "swizzle": t["swizzle"], "order": t["order"], "mn": t["mn"], "k": t["k"],
                        "start": s, "arch": f"sm{arch}", "inst_mn": inst,
                        "ptx_legal": ptx_legal(arch, t["major"], t["swizzle"], t["bits"]),
                        "cute_swizzle": swz, "cute_layout": lay, "cute_layout_coalesced": lay_c,
                        **(extra or {}),
                        "addr_checksum": f"0x{checksum:x}", "addr_head": head,
                        "descriptors": descs[t["id"], arch, inst, s],
                    }
                    out.append(c)
        return out

    cases = assemble(tiles)
    subbyte = assemble(subs, {"addr_unit": "bit"})
    instr_out = []
    for r in instr:
        o = {k: v for k, v in r.items() if k != "id"}
        o["value"] = ivals[r["id"]]
        instr_out.append(o)
    bs_out = []
    for r in bscaled:
        o = {k: v for k, v in r.items() if k != "id"}
        value, sfmt, asf, bsf, ksz = bvals[r["id"]]
        o.update(value=value, scale_format=int(sfmt), a_sf_id=int(asf), b_sf_id=int(bsf),
                 k_size=int(ksz))
        bs_out.append(o)

    if args.cutlass is None:
        version = importlib.metadata.version("nvidia-cutlass")
        meta = {"source": "CUTLASS/CuTe host-compiled by tools/golden/generate.py",
                "nvidia_cutlass": version, "cutlass_version": hversion}
    else:
        meta = {"source": "CUTLASS/CuTe host-compiled by tools/golden/generate.py",
                "cutlass_headers": "github.com/NVIDIA/cutlass include/", "cutlass_version": hversion,
                "cutlass_commit": args.commit}
    tiles_txt = dump({"meta": meta, "cases": cases, "subbyte": subbyte})
    instr_txt = dump({"meta": meta, "instr": instr_out, "block_scaled": bs_out})

    if args.check:
        bad = [p for p, txt in ((out_tiles, tiles_txt), (out_instr, instr_txt))
               if not p.exists() or p.read_text() != txt]
        for p in bad:
            print(f"DIFFERS: {p.relative_to(REPO)}")
        rc = 1 if bad else 0
    else:
        out_tiles.parent.mkdir(parents=True, exist_ok=True)
        out_tiles.write_text(tiles_txt)
        out_instr.write_text(instr_txt)
        rc = 0
    print(f"tiles: {len(tiles)} CuTe tiles -> {len(cases)} cases "
          f"({sum(len(c['descriptors']) * len(c['descriptors'][0]) for c in cases)} smem descriptors), "
          f"{len(tiles_txt) / 1e6:.2f} MB")
    print(f"subbyte: {len(subs)} CuTe tiles -> {len(subbyte)} cases")
    print(f"instr: {len(instr_out)} instruction descriptors, {len(bs_out)} block-scaled, "
          f"{len(instr_txt) / 1e6:.2f} MB")
    print(f"done in {time.time() - t0:.0f} s")
    return rc


def dump(obj: dict) -> str:
    """One JSON object per line inside each list: deterministic and diff-friendly."""
    parts = []
    for key, val in obj.items():
        if isinstance(val, list):
            inner = ",\n".join(json.dumps(v, separators=(",", ":")) for v in val)
            parts.append(f"{json.dumps(key)}:[\n{inner}\n]" if val else f"{json.dumps(key)}:[]")
        else:
            parts.append(f"{json.dumps(key)}:{json.dumps(val, separators=(',', ':'))}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    sys.exit(main())
