"""Command line: a thin argparse shell over the public API (``fastswz`` / ``python -m fastswz``).

Bad input exits with status 2 and a one-line message; nothing here computes what the API
does not.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile

import numpy as np

from .banks import PATTERNS, pattern_scores, score
from .blockscaled import BLOCK_SCALED_KINDS, InstrDescriptorBlockScaled
from .descriptor import KINDS, InstrDescriptorSM100, decode
from .doctor import check_descriptors, consistent_tiles
from .draw import MAX_CELLS, MAX_TEXT_CELLS, UNITS, VIEWS, draw_layout, draw_tile, show_layout, show_tile
from .errors import BankError, DescriptorFieldError, FastswzError, MeasureError, PlanError, TileError
from .gluon import to_gluon
from .linear import to_linear_layout
from .notation import parse
from .tile import ARCHS, LBO_POLICIES, ORDERS, SWIZZLE_BASES, OperandTile
from .plan import plan_gemm
from .tune import TUNE_NOTE, tune
from .emit import EMIT_FORMATS, emit
from .tv_layout import FRAGMENT_EXAMPLES, fragment


def _int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer (decimal or 0x hex)") from None


def _gpus(text: str):
    if text == "all":
        return text
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"--gpus {text!r} is not a GPU count (a positive integer, or all)")
    return n


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the contract of every fastswz error)."""

    def error(self, message):
        self.exit(2, f"fastswz: error: {message} (see '{self.prog} --help')\n")


#: Defaults of the optional tile options (and of draw/show's view and unit).
_TILE_DEFAULTS = {"order": "mn", "arch": "sm90", "start": 0, "packed": False, "inst_k": None,
                  "inst_mn": None, "swizzle_base": "absolute", "lbo_policy": "cutlass",
                  "view": "physical", "unit": "chunk"}


def _tile_options(p, required=True):
    """Add the options that name an operand tile (fastswz tile, draw, show).

    ``required=False`` (draw/show, where --layout replaces them): every default is None, so
    that the command can tell which options were given, and the group is titled "tile".
    """
    g = p if required else p.add_argument_group("tile")

    def d(name):
        return _TILE_DEFAULTS[name] if required else None

    g.add_argument("--dtype", required=required, help="f16 bf16 tf32 f32 e4m3 e5m2 s8 u8; sm100: e2m1 e2m3 e3m2")
    g.add_argument("--major", required=required, choices=["K", "MN"])
    g.add_argument("--swizzle", required=required, help="none (interleave), 32B, 64B, 128B, 128B_base32B")
    g.add_argument("--mn", required=required, type=_int, help="MN extent in elements")
    g.add_argument("--k", required=required, type=_int, help="K extent in elements")
    g.add_argument("--order", default=d("order"), choices=ORDERS,
                   help="atom tiling order: mn = CuTe tile_to_shape default, k = TMA box / DeepGEMM")
    g.add_argument("--arch", default=d("arch"), choices=ARCHS)
    g.add_argument("--start", default=d("start"), type=_int, help="shared-window byte address of the tile")
    g.add_argument("--packed", action="store_true", default=d("packed"),
                   help="4-bit e2m1 packed two per byte (kind::mxf4); default: sub-byte types one per byte")
    g.add_argument("--inst-k", default=None, type=_int,
                   help="elements of K per MMA (default 32 bytes' worth; 96 for packed e2m1 K=96)")
    g.add_argument("--inst-mn", default=None, type=_int,
                   help="MN extent of one MMA (64 for a wgmma A operand, N for B); default: whole tile")
    g.add_argument("--swizzle-base", default=d("swizzle_base"), choices=SWIZZLE_BASES,
                   help="absolute: swizzle the absolute address, base_offset 0 (CuTe); "
                        "relative: pattern anchored at the start, base_offset = (start>>7)&7 (PTX)")
    g.add_argument("--lbo-policy", default=d("lbo_policy"), choices=LBO_POLICIES,
                   help="K-major swizzled LBO field: cutlass 1, deepgemm 0")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="fastswz",
        description="Swizzled shared-memory address maps and wgmma/tcgen05 descriptors.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    t = sub.add_parser("tile", help="layout, LBO/SBO and the descriptor grid of an operand tile",
                       description="Print the CuTe layout, LBO/SBO, base offset and the descriptor "
                                   "of every MMA sub-tile (MN blocks x 32-byte K blocks).")
    _tile_options(t)
    t.add_argument("--stages", default=None, type=_int, help="pipeline stages (needs --stage-stride)")
    t.add_argument("--stage-stride", default=None, type=_int, help="bytes between stage starts")
    t.add_argument("--addresses", metavar="FILE.npy",
                   help="also write the byte address of every element as a (mn, k) uint32 .npy")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.add_argument("--format", default="cute", choices=("cute", "linear", "gluon"),
                   help="cute: layout, LBO/SBO and descriptors (default); linear: the GF(2) bases "
                        "(mn, k) -> element offset; gluon: the equivalent Triton Gluon "
                        "NVMMASharedLayout and block shape")
    t.add_argument("--operand", default="A", choices=("A", "B"),
                   help="--format gluon: the block is [M, K] (A) or [K, N] (B)")

    d = sub.add_parser("decode", help="decode a descriptor into its fields",
                       description="Decode a 64-bit shared-memory descriptor or a 32-bit tcgen05 "
                                   "instruction descriptor and print every field.")
    d.add_argument("value", type=_int)
    d.add_argument("--arch", default="sm90", choices=["sm90", "sm100", "sm103", "instr", "instr_bs"],
                   help="instr_bs: block-scaled instruction descriptor, kind inferred where unambiguous")
    d.add_argument("--kind", default=None, choices=[*KINDS, *BLOCK_SCALED_KINDS],
                   help="instruction kind, when the format codes are ambiguous (f16 vs f8f6f4, "
                        "mxf8f6f4 vs mxf4); with --arch instr a block-scaled kind selects that layout")
    d.add_argument("--lenient", action="store_true", help="accept set reserved bits")
    d.add_argument("--json", action="store_true")

    c = sub.add_parser("check", help="diagnose descriptors against the tile they should describe",
                       description="Compare one descriptor, or the sequence a kernel issues (stages x "
                                   "MN blocks x K blocks, in the order of 'fastswz tile'), with what "
                                   "the tile needs; name the likely mistake and the corrected value. "
                                   "Exit status 0: all are what the tile needs; 1: some are not.")
    c.add_argument("values", nargs="+", type=_int, metavar="VALUE", help="64-bit descriptors")
    _tile_options(c)
    c.add_argument("--stages", default=None, type=_int, help="pipeline stages (needs --stage-stride)")
    c.add_argument("--stage-stride", default=None, type=_int, help="bytes between stage starts")
    c.add_argument("--strict", action="store_true",
                   help="count descriptors that differ only in fields the hardware ignores as wrong")
    c.add_argument("--json", action="store_true", help="print one JSON object")

    i = sub.add_parser("instr", help="pack a tcgen05 instruction descriptor",
                       description="Pack a tcgen05 instruction descriptor: kind::f16/tf32/f8f6f4/i8, "
                                   "or block-scaled kind::mxf8f6f4/mxf4/mxf4nvf4.")
    i.add_argument("--kind", required=True, choices=[*KINDS, *BLOCK_SCALED_KINDS])
    i.add_argument("--a", required=True, dest="a_dtype", help="A type")
    i.add_argument("--b", required=True, dest="b_dtype", help="B type")
    i.add_argument("--d", required=True, dest="d_dtype", choices=["f16", "f32", "s32"], help="accumulator")
    i.add_argument("--m", required=True, type=_int)
    i.add_argument("--n", required=True, type=_int)
    i.add_argument("--a-major", default="K", choices=["K", "MN"])
    i.add_argument("--b-major", default="K", choices=["K", "MN"])
    i.add_argument("--negate-a", action="store_true")
    i.add_argument("--negate-b", action="store_true")
    i.add_argument("--saturate", action="store_true")
    bs = i.add_argument_group("block-scaled kinds (mxf8f6f4, mxf4, mxf4nvf4)")
    bs.add_argument("--sf", dest="sf_dtype", default=None, help="scale-factor type: ue8m0 or ue4m3")
    bs.add_argument("--a-sf-id", default=0, type=_int, help="scale-factor A id (0..3)")
    bs.add_argument("--b-sf-id", default=0, type=_int, help="scale-factor B id (0..3)")
    bs.add_argument("--k96", action="store_true", help="K = 96 (k_size = 1; mxf4 kinds, sm_103a)")
    i.add_argument("--json", action="store_true")

    for name, verb, what in (("draw", "Draw", "as SVG"),
                             ("show", "Print", "as a text table (CuTe print_layout style)")):
        v = sub.add_parser(
            name, help=f"{verb.lower()} a tile or a layout {what.split(' (')[0]}",
            description=f"{verb} an operand tile (the tile options, as in fastswz tile) or any layout "
                        f"(--layout TEXT in CuTe notation) {what}. Physical view: one cell per 16-byte "
                        f"chunk or element where it lives in shared memory (rows of 128 bytes), labelled "
                        f"mn,k; logical view: cells at (mn, k), labelled by address.")
        _tile_options(v, required=False)
        v.add_argument("--layout", metavar="TEXT", help="a Layout or ComposedLayout, e.g. 'Sw<3,4,3> o (8,64):(64,1)'")
        v.add_argument("--fragment", metavar="NAME",
                       help="a register fragment, e.g. wgmma.m64n64.f32.D (cells T<thread>V<value>, as the PTX figures)")
        v.add_argument("--view", default=None, choices=VIEWS, help="tiles: physical (default) or logical")
        v.add_argument("--unit", default=None, choices=UNITS, help="tiles: one cell per chunk (default) or element")
        v.add_argument("--max-cells", default=None, type=_int,
                       help=f"refuse more cells than this (default {MAX_CELLS if name == 'draw' else MAX_TEXT_CELLS})")
        if name == "draw":
            v.add_argument("-o", "--output", metavar="FILE.svg",
                           help="write the SVG here (atomically); default: standard output")
    b = sub.add_parser("banks", help="shared-memory bank conflicts (wavefronts) of warp accesses",
                       description="Count shared-memory wavefronts (the H100 rule, checked with "
                                   "Nsight Compute) of a standard pattern on a tile under each "
                                   "layout, naming the best; or of lane addresses from a .npy file.")
    b.add_argument("--pattern", choices=PATTERNS,
                   help="stmatrix/st: accumulator tile MN x K into the epilogue tile; copy: "
                        "row-by-row copy; ldmatrix-a/-b: mma fragments of an operand tile")
    b.add_argument("--addresses", metavar="FILE.npy",
                   help="integer array (..., 32) of lane byte addresses, one row per instruction")
    b.add_argument("--access-bytes", type=_int, default=None,
                   help="bytes per lane: 1 2 4 8 16 (copy default 16; --addresses needs it)")
    b.add_argument("--op", default="ld", choices=["ld", "st", "ldmatrix", "stmatrix"],
                   help="instruction of --addresses rows (ldmatrix/stmatrix: .x4)")
    b.add_argument("--dtype", default="bf16", help="element type of the tile")
    b.add_argument("--swizzle", default="all",
                   help="rowmajor, none, 32B, 64B, 128B, or all (default: compare them)")
    b.add_argument("--major", default="K", choices=["K", "MN"], help="operand tile major-ness")
    b.add_argument("--mn", type=_int, default=64, help="rows (M of the epilogue tile)")
    b.add_argument("--k", type=_int, default=64, help="columns (N of the epilogue tile, K of an operand)")
    b.add_argument("--pad-bytes", type=_int, default=0, help="row padding of the rowmajor tile")
    b.add_argument("--json", action="store_true")
    pl = sub.add_parser("plan", help="plan a GEMM mainloop: smem, MMA, descriptors, TMA boxes",
                        description="Plan one GEMM configuration: legality (and why not), the "
                                    "shared-memory total, the MMA instruction, and per operand the "
                                    "swizzle, LBO/SBO, descriptor grid and TMA box. Exit 0 whether "
                                    "or not the plan is legal (see 'legal'/'reason').")
    _plan_arguments(pl)
    pl.add_argument("--json", action="store_true", help="print one JSON object")

    tu = sub.add_parser("tune", help="rank GEMM tile plans under a documented cost model, or time them",
                        description="Enumerate BM, BN, BK, stages and swizzles for an M x N x K "
                                    "GEMM and print the best legal plans under fastswz's cost model "
                                    "(wave quantization, pipeline depth, smem-limited occupancy, MMA "
                                    "shape): a ranking aid, not measured speed. With --measure "
                                    "(extra 'cuda', a Hopper GPU) the measured search: plans of every "
                                    "tile shape, epilogue and cluster the kernel family runs, timed by "
                                    "successive halving, printed fastest first beside the default "
                                    "plan's time; --save TABLE keeps the winners for gemm, --corpus "
                                    "FILE sweeps a list of problems over every GPU (or --ray).")
    tu.add_argument("--m", type=_int, help="problem rows (required unless --corpus)")
    tu.add_argument("--n", type=_int, help="problem columns (required unless --corpus)")
    tu.add_argument("--k", type=_int, help="reduction length (required unless --corpus)")
    tu.add_argument("--arch", default="sm90", choices=["sm90", "sm100"])
    tu.add_argument("--a-dtype", default="bf16")
    tu.add_argument("--b-dtype", default="bf16")
    tu.add_argument("--a-major", default="K", choices=["K", "MN"])
    tu.add_argument("--b-major", default="K", choices=["K", "MN"])
    tu.add_argument("--sms", default=None, type=_int, help="SM count (default 132 for sm90, 148 for sm100)")
    tu.add_argument("--top", default=10, type=_int, help="plans to print")
    tu.add_argument("--epilogue-dtype", default=None, help="C/D tile type in smem (default: none)")
    tu.add_argument("--smem-budget", default=None, type=_int)
    ms = tu.add_argument_group("measured search (needs fastswz.cuda: pip install 'fastswz[cuda]', "
                               "and a Hopper GPU)")
    ms.add_argument("--measure", action="store_true",
                    help="time plans on the GPU (fastswz.cuda.search_plans) and rank them by "
                         "measured time, with the default plan's time and the model's rank")
    ms.add_argument("--budget", default=None, type=_int, metavar="PLANS",
                    help="plans to time per problem (default 24; with --seconds: no plan limit)")
    ms.add_argument("--seconds", default=None, type=float, metavar="S",
                    help="wall-clock budget per problem: half for drawing plans, the rest for halving")
    ms.add_argument("--reps", default=3, type=_int,
                    help="repeats per plan in the first round (each later round doubles them; default 3)")
    ms.add_argument("--out-dtype", default=None,
                    help="the kernel's output type (default: A's for bf16/f16, f32 for tf32, bf16 for fp8)")
    ms.add_argument("--journal", default=None, metavar="DIR",
                    help="the append-only journal of timings, read back instead of timing again "
                         "(default $FASTSWZ_CACHE/tune or ~/.cache/fastswz/tune; with --save: TABLE.journal)")
    ms.add_argument("--no-cache", action="store_true", help="neither read nor write a journal")
    ms.add_argument("--save", default=None, metavar="TABLE",
                    help="add the winners to the tuned-plan table TABLE (JSON; created if missing), "
                         "which gemm uses through FASTSWZ_TUNED=TABLE or fastswz.cuda.use_tuned")
    ms.add_argument("--corpus", default=None, metavar="FILE",
                    help="sweep the problems of FILE (JSON list of {m, n, k, a_dtype, b_dtype, "
                         "a_major, b_major[, out_dtype]}): one worker process per visible GPU, "
                         "resumable from the journal")
    ms.add_argument("--gpus", default="all", metavar="N|all", type=_gpus,
                    help="with --corpus: worker processes, one per GPU (default all visible GPUs)")
    ms.add_argument("--ray", default=None, metavar="auto|ADDRESS",
                    help="with --corpus: run the sweep on a Ray cluster (pip install 'fastswz[ray]'), "
                         "one task per batch of plans asking for one GPU; not yet run on a GPU cluster")
    fmt = tu.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")

    em = sub.add_parser("emit", help="write a plan as a C/CUDA header, JSON or a Python module",
                        description="Write one GEMM plan's descriptor tables, k-step increments "
                                    "and TMA parameters as code. Same arguments, same bytes.")
    _plan_arguments(em)
    em.add_argument("--format", default="header", choices=EMIT_FORMATS)
    em.add_argument("--name", default=None, help="namespace / variable name")
    em.add_argument("--addresses", action="store_true", help="also write stage-0 address tables")
    em.add_argument("-o", "--output", default=None, help="write to this file (default stdout)")

    fr = sub.add_parser("fragment", help="where each register of an mma/wgmma/ldmatrix/tcgen05 fragment lives",
                        description="The thread-value layout of a register fragment (fastswz.tv_layout): "
                                    "per thread, the (row, col) each value holds; with a tile (--dtype "
                                    "--swizzle), its shared-memory byte address and the bank-conflict "
                                    "score of moving it. NAME as e.g. " + ", ".join(FRAGMENT_EXAMPLES) + ".")
    fr.add_argument("name", metavar="NAME", help="instruction.operand name (see above)")
    out = fr.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object")
    out.add_argument("--show", action="store_true", help="the fragment as a table (PTX figure style)")
    out.add_argument("--draw", action="store_true", help="the fragment as SVG")
    out.add_argument("--emit", default=None, choices=EMIT_FORMATS, help="write the fragment table as code")
    fr.add_argument("--name", dest="emit_name", default=None, help="--emit: namespace / variable name")
    fr.add_argument("-o", "--output", default=None, help="--draw/--emit: write to this file")
    fr.add_argument("--dtype", default=None, help="element type of the tile the fragment moves to/from")
    fr.add_argument("--swizzle", default=None,
                    help="tile layout: none, 32B, 64B, 128B (operand atom) or rowmajor (C/D only)")
    fr.add_argument("--major", default="K", choices=["K", "MN"], help="operand tile major-ness")
    fr.add_argument("--mn", type=_int, default=None, help="tile rows (default: the fragment's)")
    fr.add_argument("--k", type=_int, default=None, help="tile columns (default: the fragment's)")
    fr.add_argument("--banks", default=None, choices=["ld", "st"],
                    help="score moving the fragment with ld.shared / st.shared (needs the tile)")
    _gemm_parser(sub)
    return p


def _fragment_tile(tv, args):
    """The byte map the fragment is composed with, or None without --dtype/--swizzle."""
    if args.dtype is None and args.swizzle is None:
        if args.banks:
            raise BankError("--banks needs the tile: give --dtype and --swizzle")
        return None
    if args.dtype is None or args.swizzle is None:
        raise TileError("give both --dtype and --swizzle for the tile the fragment moves to/from")
    from .banks import epilogue_tile
    mn = tv.extents[0] if args.mn is None else args.mn
    k = tv.extents[1] if args.k is None else args.k
    if args.swizzle == "rowmajor" or tv.name.endswith((".C", ".D")):
        return epilogue_tile(args.dtype, args.swizzle, mn, k)
    return OperandTile(args.dtype, args.major, args.swizzle, mn, k).addresses().astype(np.int64)


def _fragment(args) -> str:
    from .banks import fragment_score
    from .draw import draw_fragment, show_fragment

    tv = fragment(args.name)
    amap = _fragment_tile(tv, args)
    if args.show:
        return show_fragment(tv)
    if args.draw or args.emit:
        text = draw_fragment(tv) if args.draw else emit(tv, args.emit, args.emit_name, amap,
                                                         f"fastswz fragment {args.name}")
        if args.output:
            _write_atomic(args.output, text)
            return f"wrote {args.output} ({len(text)} bytes)"
        return text.rstrip("\n")
    r, c = tv.coords()
    addr = None if amap is None else tv.addresses(amap)
    sc = None if args.banks is None else fragment_score(tv, amap, args.banks)
    if args.json:
        d = {"instruction": tv.name, "layout": str(tv.layout), "order": tv.order,
             "extents": list(tv.extents), "threads": tv.threads, "values": tv.values,
             "registers": tv.registers, "bits": tv.bits, "gluon": tv.gluon(),
             "row": r.tolist(), "col": c.tolist()}
        if addr is not None:
            d["addresses"] = addr.tolist()
        if sc is not None:
            d["banks"] = sc.as_dict()
        return json.dumps(d)
    axes = "TMEM (lane, column)" if tv.order == "tmem" else "(row, col)"
    lines = [f"fragment   {tv.name}",
             f"layout     {tv.layout}  (thread, value) -> {axes} of {tv.extents[0]} x {tv.extents[1]}",
             f"threads    {tv.threads}, {tv.values} values of {tv.bits} bits = {tv.registers} registers each"]
    if tv.gluon():
        lines.append(f"gluon      {tv.gluon()}")
    for t in range(tv.threads):
        cells = [f"{int(a)},{int(b)}" + ("" if addr is None else f"@{int(addr[t, v]):#x}")
                 for v, (a, b) in enumerate(zip(r[t], c[t]))]
        lines.append(f"T{t:<4} " + " ".join(cells))
    if sc is not None:
        d = sc.as_dict()
        lines.append(f"banks      {args.banks}: {d['instructions']} instructions of {d['access_bytes']} bytes, "
                     f"{d['wavefronts']} wavefronts (ideal {d['ideal']}, excess {d['excess']})")
    return "\n".join(lines)


def _gemm_parser(sub):
    g = sub.add_parser(
        "gemm", help="compile, run and time a fastswz GEMM kernel on the GPU (extra 'cuda')",
        description="Build the sm_90a GEMM kernel from a plan (given, or the best plan of tune's "
                    "model that the kernel family runs), run it on random inputs, optionally check "
                    "it against a float64 reference, and print TFLOP/s (beside cuBLAS when torch "
                    "is installed). Needs an H100/H200 and pip install 'fastswz[cuda]'.")
    g.add_argument("--m", required=True, type=_int)
    g.add_argument("--n", required=True, type=_int)
    g.add_argument("--k", required=True, type=_int)
    g.add_argument("--a-dtype", default="bf16", help="bf16, f16, tf32, e4m3, e5m2 (default bf16)")
    g.add_argument("--b-dtype", default=None, help="default: the A type")
    g.add_argument("--a-major", default="K", choices=["K", "MN"])
    g.add_argument("--b-major", default="K", choices=["K", "MN"])
    g.add_argument("--out-dtype", default=None, help="bf16, f16, f32, e4m3 or e5m2 (default: f16 for f16, "
                                                     "f32 for tf32, else bf16)")
    for name in ("bm", "bn", "bk", "stages"):
        g.add_argument(f"--{name}", type=_int, default=None, help="plan field (default: chosen)")
    g.add_argument("--swizzle-a", default="auto")
    g.add_argument("--swizzle-b", default="auto")
    g.add_argument("--tile-group", type=_int, default=None,
                   help="tile rows per group of the persistent tile order (default: the plan's, 8)")
    g.add_argument("--cluster-m", type=_int, default=None,
                   help="2 or 4: clusters of 2 or 4 CTAs along M that share B by TMA multicast "
                        "(default 1; 4: whole tiles, cooperative consumers)")
    g.add_argument("--cluster-n", type=_int, default=None,
                   help="2: clusters of 2 CTAs along N that share A by TMA multicast (default 1; "
                        "whole tiles, cooperative consumers; with --cluster-m 2 or 4 a 2 x 2 or "
                        "4 x 2 cluster sharing both operands)")
    g.add_argument("--epilogue", action=argparse.BooleanOptionalAction, default=None,
                   help="store D through the plan's swizzled smem epilogue tile and TMA (--epilogue) "
                        "or from registers (--no-epilogue); default: a given plan stores from "
                        "registers; a chosen one is choose_plan's: the tile where it fits beside >= 3 "
                        "stages, registers for swap-AB and split-K plans")
    g.add_argument("--epilogue-n", type=_int, default=None,
                   help="columns of the epilogue tile (with --epilogue; default: the plan's, BN): "
                        "D leaves in BN / N column blocks, so a smaller tile leaves room for a stage")
    g.add_argument("--epilogue-stages", type=_int, default=None,
                   help="epilogue tiles the column blocks rotate through (with --epilogue; default: "
                        "the plan's, 1)")
    g.add_argument("--swap-ab", action=argparse.BooleanOptionalAction, default=None,
                   help="compute D^T = B^T A^T (--bm then spans N and --bn spans M, so a small M is "
                        "the wgmma's N; registers store D); default: the plan's")
    g.add_argument("--split-k", type=_int, default=None,
                   help="K splits per output tile, partial sums reduced in split order (registers "
                        "store D); default: the plan's, 1")
    g.add_argument("--stream-k", type=_int, default=None, metavar="WORKERS",
                   help="stream-K: WORKERS CTAs (e.g. the SM count) run whole tiles in whole "
                        "waves and share the tail tiles k-tile by k-tile, each cut into at most "
                        "--split-k pieces (through the epilogue tile with --epilogue, else from registers); "
                        "default: the plan's, 0 (none)")
    g.add_argument("--split-reduce", default=None, choices=("auto", "last_cta", "kernel"),
                   help="who adds split-K's partial sums: the tile's last split in the GEMM kernel "
                        "(last_cta), a second kernel (kernel), or by the plan's rule (auto, the default)")
    g.add_argument("--pingpong", action=argparse.BooleanOptionalAction, default=None,
                   help="two consumer warpgroups on alternate tiles (--bm 64, or 128 with --bn <= 128); "
                        "registers store D, or with --epilogue and an even --epilogue-stages each "
                        "warpgroup through its own half of the epilogue tiles; "
                        "default: the plan's (cooperative)")
    f = g.add_argument_group("fused epilogue and scales",
                             "D = act(alpha * acc * scales + beta * C + bias); fp8 D: times "
                             "out_scale, saturated; amax = max |D|")
    f.add_argument("--activation", default=None, help="identity, relu, gelu (erf), gelu_tanh, silu")
    f.add_argument("--bias", default=None, metavar="DTYPE", help="a bias per column of this type (bf16, f16, f32)")
    f.add_argument("--residual", default=None, metavar="DTYPE", help="a residual C (M x N) of this type")
    f.add_argument("--alpha", type=float, default=None, help="check: alpha (default: the check's own)")
    f.add_argument("--beta", type=float, default=None, help="check: beta (with --residual)")
    f.add_argument("--scale", default=None, choices=["none", "tensor", "row", "block"],
                   help="fp8 dequantization scales: per tensor, rowwise (A per row, B per column), "
                        "or 1x128 / 128x128 blocks (promoted to f32 every 128 of K)")
    f.add_argument("--out-scale", type=float, default=None, help="check: fp8 D's scale (default: the check's own)")
    f.add_argument("--amax", action="store_true", help="write max |D| to a device scalar")
    f.add_argument("--promote", action="store_true",
                   help="add each k-tile's partial sums to an f32 total (torch's use_fast_accum=False; "
                        "block scales always do)")
    g.add_argument("--check", action="store_true",
                   help="also check D: exact on small integers, relative error on random inputs")
    g.add_argument("--reps", type=_int, default=20, help="timed runs (median reported)")
    g.add_argument("--json", action="store_true")


def _gemm(args):
    import importlib
    import json as _json

    fc = importlib.import_module("fastswz.cuda")  # cuda.bindings loads only when a GPU call runs
    a_dt = args.a_dtype
    b_dt = args.b_dtype or a_dt
    out_dt = args.out_dtype or fc.default_out_dtype(a_dt)
    if args.reps < 1:
        raise PlanError(f"--reps {args.reps} must be >= 1")
    fields = {k: getattr(args, k) for k in ("bm", "bn", "bk", "stages")}
    fusion = {k: getattr(args, k) for k in ("activation", "bias", "residual", "scale") if getattr(args, k)}
    if args.amax:
        fusion["amax"] = True
    if args.promote:
        fusion["promote"] = True
    if all(v is None for v in fields.values()):
        cfg = fc.default_config(args.m, args.n, args.k, a_dt, b_dt, args.a_major, args.b_major, out_dt,
                                fusion, epilogue=args.epilogue)
        chosen = "tune model's best supported plan" if fusion.get("scale") != "block" and not args.promote \
            else "the promoted (block-scaled) default plan"
        table = fc.tuned.active() if args.epilogue is None and not fusion else None   # FASTSWZ_TUNED
        how = table and table.find(args.m, args.n, args.k, a_dt, b_dt, args.a_major,
                                   args.b_major, out_dt)[1]
        if how:
            chosen = f"tuned table {table.source or ''}, {how} problem"
    else:
        cfg = {**fc.normalize_config(), **{k: v for k, v in fields.items() if v is not None},
               "swizzle_a": args.swizzle_a, "swizzle_b": args.swizzle_b}
        chosen = "given"
    extra = {k: getattr(args, k) for k in ("tile_group", "cluster_m", "cluster_n", "epilogue_n", "epilogue_stages",
                                           "swap_ab", "split_k", "pingpong", "split_reduce", "stream_k")
             if getattr(args, k) is not None}
    cfg = fc.normalize_config(cfg, a_dtype=a_dt, b_dtype=b_dt, a_major=args.a_major,
                              b_major=args.b_major, out_dtype=out_dt,
                              epilogue=cfg["epilogue"] if args.epilogue is None else args.epilogue,
                              **extra, **fusion)
    why = fc.supported(cfg)
    if why:
        raise PlanError(f"the sm90 GEMM kernel does not run this plan: {why}")
    kern = fc.compile_gemm(cfg)
    res = {"config": kern.config, "plan": chosen, "instruction": kern.plan["instruction"],
           "fusion": kern.plan["fusion"],
           "smem_bytes": kern.smem_bytes, "threads": kern.plan["kernel"]["threads"],
           "device": fc.device_info()}
    if args.check:
        from .cuda.runtime import check
        given = {k: getattr(args, k) for k in ("alpha", "beta", "out_scale") if getattr(args, k) is not None}
        res["check"] = [check(kern, args.m, args.n, args.k, ints=True, **given),
                        check(kern, args.m, args.n, args.k, ints=False, **given)]
    res["fastswz"] = kern.time(args.m, args.n, args.k, reps=args.reps)
    res["cublas"] = _cublas_time(args.m, args.n, args.k, a_dt, b_dt, out_dt, args.reps)
    if args.json:
        return _json.dumps(res, indent=1, default=str)
    c = kern.config
    lines = [f"gemm         {args.m} x {args.n} x {args.k}, {a_dt} x {b_dt} -> {out_dt}, "
             f"{args.a_major}/{args.b_major}-major",
             f"plan         {c['bm']} x {c['bn']} x {c['bk']}, {c['stages']} stages, swizzle "
             f"{kern.plan['a']['swizzle']}/{kern.plan['b']['swizzle']}, "
             f"{'smem epilogue tile + TMA store' if c['epilogue'] else 'registers -> global'}"
             f"{' in ' + str(c['bn'] // c['epilogue_n']) + ' column blocks' if c['epilogue'] and c['epilogue_n'] else ''}"
             f"{' through ' + str(c['epilogue_stages']) + ' tiles' if c['epilogue'] and c['epilogue_stages'] > 1 else ''}"
             f"{', swap-AB (D^T = B^T A^T)' if c['swap_ab'] else ''}"
             f"{', split-K ' + str(c['split_k']) if c['split_k'] > 1 and not c['stream_k'] else ''}"
             f"{', stream-K ' + str(c['stream_k']) + ' workers (tiles cut among <= ' + str(c['split_k']) + ')' if c['stream_k'] else ''}"
             f"{', ping-pong consumers' if c['pingpong'] else ''}"
             f" ({chosen})",
             f"kernel       {res['instruction']}, {res['threads']} threads, {res['smem_bytes']} B smem, "
             f"{res['device']['name']}"]
    if kern.plan["fusion"]["math"] != "D = alpha * acc":
        lines.append(f"epilogue     {kern.plan['fusion']['math']}")
    for r in res.get("check", []):
        what = "integers" if r["ints"] else "random"
        detail = f"{r['mismatches']} mismatches" if r["ints"] else f"relative error {r['rel_err']:.2e}"
        if "amax" in r:
            detail += f", amax {r['amax']:.6g} (reference {r['amax_ref']:.6g})"
        lines.append(f"check        {what}: {'ok' if r['ok'] else 'FAILED'} ({detail}, "
                     f"{r['unwritten']} unwritten)")
    f = res["fastswz"]
    lines.append(f"fastswz      {f['tflops']:.1f} TFLOP/s (median {f['median_ms']:.4f} ms of "
                 f"{f['reps']}, spread {100 * f['spread']:.1f}%)")
    cb = res["cublas"]
    if cb:
        lines.append(f"cuBLAS       {cb['tflops']:.1f} TFLOP/s (median {cb['median_ms']:.4f} ms; "
                     f"fastswz at {100 * f['tflops'] / cb['tflops']:.1f}%"
                     f"{'; the plain product, no epilogue' if c['scale'] == 'block' or kern.plan['fusion']['math'] != 'D = alpha * acc' else ''})")
    else:
        lines.append("cuBLAS       not measured (torch is not installed, or has no kernel for these types)")
    out = "\n".join(lines)
    if args.check and not all(r["ok"] for r in res["check"]):
        return out, 1
    return out


def _cublas_time(m, n, k, a_dt, b_dt, out_dt, reps):
    """torch's cuBLAS on the same problem, timed like the kernel (events, L2 flushed)."""
    try:
        import torch
    except ImportError:
        return None
    td = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "tf32": torch.float32,
          "e4m3": getattr(torch, "float8_e4m3fn", None), "e5m2": getattr(torch, "float8_e5m2", None)}
    a = torch.randn(m, k, device="cuda").to(td[a_dt])
    b = torch.randn(n, k, device="cuda").to(td[b_dt]).t()
    if a_dt in ("e4m3", "e5m2"):
        one = torch.tensor(1.0, device="cuda")

        def fn():
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=td[out_dt])
    else:
        def fn():
            return a @ b
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4,
                        dtype=torch.int32, device="cuda")
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    # tf32 inputs: cuBLAS on tensor cores in TF32 too (torch's default for f32 is full-precision SIMT)
    allow = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = a_dt == "tf32" or allow
    try:
        for i in range(3 + reps):
            flush.fill_(i)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            if i >= 3:
                ts.append(start.elapsed_time(stop))
    except RuntimeError:
        return None
    finally:
        torch.backends.cuda.matmul.allow_tf32 = allow
    ts.sort()
    med = ts[len(ts) // 2]
    return {"median_ms": med, "tflops": 2.0 * m * n * k / med / 1e9}


def _plan_arguments(p):
    p.add_argument("--arch", default="sm90", choices=["sm90", "sm100"])
    p.add_argument("--a-dtype", required=True)
    p.add_argument("--b-dtype", required=True)
    p.add_argument("--a-major", default="K", choices=["K", "MN"])
    p.add_argument("--b-major", default="K", choices=["K", "MN"])
    p.add_argument("--bm", required=True, type=_int)
    p.add_argument("--bn", required=True, type=_int)
    p.add_argument("--bk", required=True, type=_int)
    p.add_argument("--stages", required=True, type=_int)
    p.add_argument("--swizzle", default="auto", help="both operands: auto, none, 32B, 64B, 128B, 128B_base32B")
    p.add_argument("--swizzle-a", default=None, help="override --swizzle for A")
    p.add_argument("--swizzle-b", default=None, help="override --swizzle for B")
    p.add_argument("--epilogue-dtype", default=None, help="C/D tile type in smem (default: none)")
    p.add_argument("--epilogue-swizzle", default="auto")
    p.add_argument("--epilogue-n", default=None, type=_int,
                   help="columns of the epilogue tile (default: BN); a kernel stores BN / N column "
                        "blocks through it, so a smaller tile leaves room for more stages")
    p.add_argument("--epilogue-stages", default=1, type=_int,
                   help="epilogue tiles laid out back to back (default 1; 2: a block's TMA store "
                        "reads one while the next block is written to the other)")
    p.add_argument("--smem-budget", default=None, type=_int,
                   help="bytes per CTA (default: the arch's opt-in limit, 232448)")
    p.add_argument("--cta-group", default=1, type=_int, choices=[1, 2], help="tcgen05 cta_group (sm100)")
    p.add_argument("--smem-base", default=0, type=_int,
                   help="shared-window address of the dynamic smem base the descriptors assume")


def _make_plan(args):
    return plan_gemm(args.arch, args.a_dtype, args.b_dtype, args.a_major, args.b_major, args.bm,
                     args.bn, args.bk, args.stages, args.swizzle_a or args.swizzle,
                     args.swizzle_b or args.swizzle, args.epilogue_dtype, args.epilogue_swizzle,
                     args.smem_budget, args.cta_group, args.smem_base, args.epilogue_n,
                     args.epilogue_stages)


def _plan(args) -> str:
    row = _make_plan(args).row(0)
    if args.json:
        return json.dumps(row)
    head = (f"plan         {row['arch']} {args.a_dtype} x {args.b_dtype} ({args.a_major}/{args.b_major}-major) "
            f"{row['bm']} x {row['bn']} x {row['bk']}, {row['stages']} stages, cta_group {row['cta_group']}")
    lines = [head, f"legal        {'yes' if row['legal'] else 'no: ' + row['reason']}"]
    if row["smem_bytes"] is not None:
        lines += [f"smem         {row['smem_bytes']} of {row['smem_budget']} bytes (mbarriers at "
                  f"{row['barrier_offset']}, {row['barrier_bytes']} bytes)",
                  f"mma          {row['instruction'] or '-'}, {row['mma_per_k_tile']} per k-tile"
                  + (f", {row['warpgroups']} warpgroups" if row["warpgroups"] else "")
                  + (f", idesc {row['instr_descriptor']}" if row["instr_descriptor"] else "")]
        for op in ("a", "b"):
            d = row[op]
            inc = (f"+{d['k_step_increment']}" if d["k_step_increment"] is not None else
                   "none (one k-step per k-tile)" if d["k"] == d["inst_k"] else "not constant")
            lines += [f"{op.upper()}            {d['dtype']} {d['major']}-major {d['swizzle']} order "
                      f"{d['order']}: {d['layout']}",
                      f"  LBO/SBO    {d['lbo_bytes']} / {d['sbo_bytes']} bytes; stage {d['stage_bytes']} "
                      f"bytes at {', '.join(map(str, d['stage_offsets']))}",
                      f"  TMA        box {d['tma_box']} (innermost first), {d['tma_swizzle_enum']}, "
                      f"copies per stage {d['tma_copies_per_stage']}",
                      f"  descriptor {d['descriptors'][0][0][0] if d['descriptors'] else '-'} (stage 0), "
                      f"k-step {inc}"]
        if row["epilogue"]:
            e = row["epilogue"]
            lines.append(f"epilogue     {e['dtype']} {e['swizzle']} {e['rows']} x {e['cols']}"
                         + (f" ({e['subtiles']} column blocks of BN)" if e["subtiles"] > 1 else "")
                         + (f" x {e['stages']} tiles" if e["stages"] > 1 else "")
                         + f", {e['bytes']} bytes at {e['offset']}")
            score = ("no score (the access does not fit the tile)" if e["wavefronts"] is None else
                     f"{e['wavefronts']} wavefronts, ideal {e['ideal']}, excess {e['excess']}")
            lines.append(f"  banks      stores ({e['access']}): {score}; best swizzle "
                         f"{e['best_swizzle'] or '-'}")
    return "\n".join(lines)


_MEASURED_ONLY = ("budget", "seconds", "journal", "no_cache", "save", "corpus", "ray", "out_dtype")


def _tune(args) -> str:
    if args.measure:
        return _tune_measured(args)
    given = [f for f in _MEASURED_ONLY if getattr(args, f) not in (None, False)]
    given += ["gpus"] if args.gpus != "all" else []
    given += ["reps"] if args.reps != 3 else []
    if given:
        raise PlanError(f"--{given[0].replace('_', '-')} applies to a measured search: add --measure")
    missing = [f"--{f}" for f in ("m", "n", "k") if getattr(args, f) is None]
    if missing:
        raise PlanError(f"{', '.join(missing)} missing: tune needs the problem's --m, --n and --k "
                        f"(or --measure --corpus FILE)")
    rows = tune(args.m, args.n, args.k, args.a_dtype, args.b_dtype, args.a_major, args.b_major,
                args.arch, args.sms, args.top, args.epilogue_dtype, args.smem_budget, progress=True)
    if args.json:
        return json.dumps({"note": TUNE_NOTE, "plans": rows})
    keys = list(rows[0])
    if args.csv:
        return "\n".join([",".join(keys)] + [",".join(str(r[k]) for k in keys) for r in rows])
    cols = ["rank", "bm", "bn", "bk", "stages", "cta_group", "swizzle_a", "swizzle_b", "smem_bytes",
            "occupancy", "waves", "bound", "model_cycles", "efficiency", "instruction"]
    return "\n".join([f"# {TUNE_NOTE}"] + _columns(rows, cols))


def _columns(rows, cols):
    table = [cols] + [[_cell(r[c]) for c in cols] for r in rows]
    width = [max(len(row[j]) for row in table) for j in range(len(cols))]
    return ["  ".join(v.rjust(w) for v, w in zip(row, width)) for row in table]


MEASURED_NOTE = ("measured search (fastswz.cuda GEMM kernel as gemm runs it: CUDA events, warm-up, "
                 "L2 flushed; successive halving, median of each plan's repeats); model_rank is the "
                 "cost model's rank of the plan's tile row")


def _plan_name(c) -> str:
    from .cuda.search import kind_of

    return (f"{c['bm']}x{c['bn']}x{c['bk']} {c['stages']} st {kind_of(c)}"
            + (f" cluster {c['cluster_m']}" if c["cluster_m"] > 1 else "")
            + (f" cluster_n {c['cluster_n']}" if c.get("cluster_n", 1) > 1 else ""))


def _summary(r) -> str:
    b, d = r["best"], r["default"]
    p = r["problem"]
    if b is None:
        return (f"{p['m']} x {p['n']} x {p['k']} {p['a_dtype']} x {p['b_dtype']} "
                f"({p['a_major']}/{p['b_major']}) -> {p['out_dtype']}: not searched: {r['error']}")
    line = (f"{p['m']} x {p['n']} x {p['k']} {p['a_dtype']} x {p['b_dtype']} "
            f"({p['a_major']}/{p['b_major']}) -> {p['out_dtype']}: best {b['median_ms']:.4g} ms "
            f"({b['tflops']:.4g} TFLOP/s) {_plan_name(b['config'])}, model rank {b['model_rank']}")
    if d is not None and d["median_ms"] is not None:
        line += f"; default {d['median_ms']:.4g} ms ({_plan_name(d['config'])}), regret {r['regret']:.1%}"
    return line + (f"; {r['plans']} plans, {r['timings']} timings ({r['replayed']} from the "
                   f"journal), {r['wall_s']:.1f} s")


def _tune_measured(args) -> str:
    # The CLI is the top layer: it alone reaches into the runtime (lazily: import fastswz works
    # without the extra).
    try:
        from .cuda import search as S, tuned
    except ImportError as exc:
        raise MeasureError(f"--measure needs the GPU runtime fastswz.cuda, which does not import "
                           f"here ({exc}): pip install 'fastswz[cuda]' on a machine with a Hopper "
                           f"GPU; tune without --measure ranks by the cost model alone") from None

    if args.epilogue_dtype is not None:
        raise PlanError(f"--epilogue-dtype={args.epilogue_dtype} does not apply to --measure: the "
                        f"search draws every epilogue itself; give the output type with --out-dtype")
    if args.arch != "sm90":
        raise PlanError(f"--arch={args.arch}: the measured search times the sm_90a kernel family")
    budget = args.budget if args.budget is not None else (None if args.seconds else S.DEFAULT_BUDGET)
    journal = args.journal
    if journal is None and args.save and not args.no_cache:
        journal = args.save + ".journal"
    if args.corpus is not None:
        from .cuda import sweep

        if any(getattr(args, f) is not None for f in ("m", "n", "k")):
            raise PlanError("--corpus FILE gives the problems: leave out --m, --n and --k")
        problems = sweep.read_corpus(args.corpus)
        results = sweep.sweep_problems(
            problems, save=args.save, journal=journal, use_cache=not args.no_cache,
            gpus=args.gpus, ray=args.ray, budget=budget, seconds=args.seconds, reps=args.reps,
            progress=True)
        if args.json:
            return json.dumps({"note": MEASURED_NOTE, "results": [_slim(r) for r in results]})
        regrets = [r["regret"] for r in results if r.get("regret") is not None]
        lines = [f"# {MEASURED_NOTE}", f"# device: {results[0]['device'] if results else '-'}"]
        lines += [_summary(r) for r in results]
        if regrets:
            lines.append(f"# {len(results)} problems; default's regret mean {sum(regrets) / len(regrets):.1%},"
                         f" max {max(regrets):.1%}" + (f"; winners saved to {args.save}" if args.save else ""))
        return "\n".join(lines)
    missing = [f"--{f}" for f in ("m", "n", "k") if getattr(args, f) is None]
    if missing:
        raise PlanError(f"{', '.join(missing)} missing: the measured search needs the problem's "
                        f"--m, --n and --k (or --corpus FILE)")
    if args.gpus != "all" or args.ray is not None:
        raise PlanError(f"--{'gpus' if args.gpus != 'all' else 'ray'} applies to a sweep: add --corpus FILE")
    r = S.search_plans(args.m, args.n, args.k, args.a_dtype, args.b_dtype, args.a_major,
                       args.b_major, args.out_dtype, budget=budget, seconds=args.seconds,
                       reps=args.reps, journal=journal, use_cache=not args.no_cache,
                       progress=True)
    if args.save:
        tuned.save_results(args.save, [r])
    if args.json:
        return json.dumps({"note": MEASURED_NOTE, **_slim(r)})
    rows = r["rows"][:args.top]
    if args.csv:
        keys = [k for k in rows[0] if k not in ("samples", "config")]
        return "\n".join([",".join(keys)] + [",".join(str(x[k]) for k in keys) for x in rows])
    cols = ["rank", "model_rank", "shape_rank", "median_ms", "tflops", "spread", "reps", "round",
            "bm", "bn", "bk", "stages", "kind", "cluster_m", "cluster_n", "default"]
    lines = [f"# {MEASURED_NOTE}", f"# device: {r['device']}", f"# {_summary(r)}"]
    if r.get("stopped"):
        lines.append(f"# {r['stopped']}")
    lines += _columns(rows, cols)
    lines += [f"# plan {x['index']} ({_plan_name(x['config'])}) did not run: {x['error']}"
              for x in r["rows"] if x.get("error")]
    if args.save:
        lines.append(f"# saved the winner to {args.save}")
    return "\n".join(lines)


def _slim(r) -> dict:
    """A result without the raw samples (the journal keeps them)."""
    out = dict(r, rows=[{k: v for k, v in x.items() if k != "samples"} for x in r["rows"]])
    for f in ("best", "default"):
        if out.get(f):
            out[f] = {k: v for k, v in out[f].items() if k != "samples"}
    return out


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e5 else str(v)
    return str(v)


def _emit(args) -> str:
    import shlex

    argv = list(getattr(args, "_argv", None) or [])
    # The recorded command leaves out where the output went: content, not location.
    for flag in ("-o", "--output"):
        while flag in argv:
            j = argv.index(flag)
            del argv[j:j + 2]
    argv = [a for a in argv if not a.startswith("--output=")]
    command = "fastswz " + shlex.join(argv) if argv else None
    text = emit(_make_plan(args), args.format, args.name, args.addresses, command)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        return f"wrote {args.output} ({len(text)} bytes)"
    return text.rstrip("\n")


def _tile(args) -> str:
    tile = OperandTile(args.dtype, args.major, args.swizzle, args.mn, args.k, args.order, args.arch,
                       packed=args.packed, inst_k=args.inst_k)
    if args.format != "cute":
        return _tile_dialect(tile, args)
    desc = tile.descriptors(args.start, args.inst_mn, args.swizzle_base, args.lbo_policy,
                            args.stages, args.stage_stride)
    first = tile.descriptor(0, 0, args.start, args.inst_mn, args.swizzle_base, args.lbo_policy)
    if args.addresses:
        np.save(args.addresses, tile.addresses(args.start, args.swizzle_base))
    hexes = np.vectorize(lambda v: f"0x{int(v):016x}", otypes=[object])(desc).tolist() if desc.size else []
    if args.json:
        return json.dumps({
            "dtype": tile.dtype.name, "major": tile.major, "swizzle": tile.swizzle.value,
            "mn": tile.mn, "k": tile.k, "order": tile.order, "arch": tile.arch,
            "start": args.start, "inst_mn": args.inst_mn or tile.mn, "inst_k": tile.inst_k,
            "swizzle_base": args.swizzle_base, "lbo_policy": args.lbo_policy,
            "layout": str(tile.layout), "lbo_bytes": first.leading_byte_offset,
            "sbo_bytes": first.stride_byte_offset, "base_offset": first.base_offset,
            "layout_type": tile.swizzle.layout_type(tile.arch), "descriptors": hexes})
    lines = [
        f"tile         {tile.dtype} {tile.major}-major {tile.swizzle}, {tile.mn} x {tile.k}, "
        f"order {tile.order}, {tile.arch}",
        f"layout       {tile.layout}",
        f"atom         {tile.atom_shape[0]} x {tile.atom_shape[1]} elements ({tile.swizzle.atom_bytes} B)",
        f"LBO          {first.leading_byte_offset} bytes (field {first.leading_byte_offset >> 4})",
        f"SBO          {first.stride_byte_offset} bytes (field {first.stride_byte_offset >> 4})",
        f"base_offset  {first.base_offset} ({args.swizzle_base})",
        f"start        0x{args.start:x}, {tile.nbytes} bytes",
        f"descriptors  {args.inst_mn or tile.mn} x {tile.inst_k} per MMA "
        f"({'stages x ' if args.stages else ''}MN blocks x "
        f"{tile.inst_k * tile.element_bits // 8}-byte K blocks):",
    ]
    grids = hexes if args.stages else [hexes]
    for s, grid in enumerate(grids):
        for b, row in enumerate(grid):
            tag = (f"stage {s} " if args.stages else "") + f"mn {b * (args.inst_mn or tile.mn)}"
            lines.append(f"  {tag:<14} " + " ".join(row))
    return "\n".join(lines)


def _tile_dialect(tile, args) -> str:

    head = (f"tile         {tile.dtype} {tile.major}-major {tile.swizzle}, {tile.mn} x {tile.k}, "
            f"order {tile.order}, {tile.arch}")
    if args.format == "linear":
        ll = to_linear_layout(tile)
        if args.json:
            return json.dumps({"format": "linear", "unit": "element", "in_dims": ll.in_dims,
                               "out_dims": ll.out_dims,
                               "bases": {k: [list(v) for v in row] for k, row in ll.bases}})
        return "\n".join([head, "linear       (mn, k) -> element offset, GF(2) bases:", str(ll)])
    g = to_gluon(tile, args.operand)
    if args.json:
        return json.dumps({"format": "gluon", "operand": args.operand, **g.kwargs(),
                           "block_shape": list(g.block_shape)})
    dims = "[M, K]" if args.operand == "A" else "[K, N]"
    args_ = ", ".join(f"{k}={v}" for k, v in g.kwargs().items())
    return "\n".join([head, f"gluon        NVMMASharedLayout({args_})",
                      f"block_shape  {list(g.block_shape)} (operand {args.operand}: {dims})"])


def _decode(args) -> str:
    d = decode(args.value, args.arch, args.kind, strict=not args.lenient)
    tiles = consistent_tiles(d, args.arch) if args.arch in ("sm90", "sm100", "sm103") else None
    if args.json:
        f = {k: (v.value if hasattr(v, "value") and not isinstance(v, int) else v) for k, v in d.fields().items()}
        extra = {} if tiles is None else {"consistent_tiles": [m.to_dict() for m in tiles]}
        return json.dumps({"arch": args.arch, "value": str(d), **f, **extra})
    if tiles is None:
        return d.table()
    lines = [f"  {m}" for m in tiles] or ["  none (no canonical tile has these LBO/SBO)"]
    return d.table() + "\nconsistent canonical tiles:\n" + "\n".join(lines)


def _check(args):
    tile = OperandTile(args.dtype, args.major, args.swizzle, args.mn, args.k, args.order, args.arch,
                       packed=args.packed, inst_k=args.inst_k)
    r = check_descriptors(args.values, tile, args.start, args.inst_mn, args.swizzle_base,
                          args.lbo_policy, args.stages, args.stage_stride)
    ok = r.ok and not (args.strict and any(f.status == "equivalent" for f in r.findings))
    out = json.dumps({**r.to_dict(), "ok": ok}) if args.json else r.report()
    return out, 0 if ok else 1


def _instr(args) -> str:
    if args.kind in BLOCK_SCALED_KINDS:
        if args.saturate:
            raise DescriptorFieldError(f"--saturate applies to kind::i8 only, not kind::{args.kind}")
        if args.sf_dtype is None:
            raise DescriptorFieldError(f"kind::{args.kind} needs --sf (scale-factor type: ue8m0, or "
                                       f"ue4m3 for kind::mxf4nvf4)")
        d = InstrDescriptorBlockScaled(args.kind, args.a_dtype, args.b_dtype, args.d_dtype,
                                       args.sf_dtype, args.m, args.n, args.a_major, args.b_major,
                                       args.negate_a, args.negate_b, args.a_sf_id, args.b_sf_id,
                                       int(args.k96))
    else:
        if args.sf_dtype is not None or args.a_sf_id or args.b_sf_id or args.k96:
            raise DescriptorFieldError(f"--sf, --a-sf-id, --b-sf-id and --k96 apply to the block-scaled "
                                       f"kinds only, not kind::{args.kind}")
        d = InstrDescriptorSM100(args.kind, args.a_dtype, args.b_dtype, args.d_dtype, args.m, args.n,
                                 args.a_major, args.b_major, args.negate_a, args.negate_b, args.saturate)
    if args.json:
        return json.dumps({"value": str(d), "runtime_operand": f"0x{d.runtime_operand:016x}", **d.fields()})
    return d.table()


def _picture(args):
    """What fastswz draw / show were asked for: ("layout", Layout) or ("tile", OperandTile).

    Fills in the defaults of the tile options that were not given."""
    given = [name for name in ("dtype", "major", "swizzle", "mn", "k", *_TILE_DEFAULTS)
             if getattr(args, name) is not None]
    for name, value in _TILE_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if getattr(args, "fragment", None) is not None:
        if given or args.layout is not None:
            raise TileError(f"--fragment draws a register fragment by itself: give either --fragment, "
                            f"--layout or the tile options")
        return "fragment", fragment(args.fragment)
    if args.layout is not None:
        if given:
            raise TileError(f"--{given[0].replace('_', '-')} is a tile option; --layout draws a layout "
                            f"by itself: give either --layout or the tile options")
        return "layout", parse(args.layout)
    missing = [f"--{d}" for d in ("dtype", "major", "swizzle", "mn", "k") if getattr(args, d) is None]
    if missing:
        raise TileError(f"{', '.join(missing)} missing: fastswz {args.cmd} needs the tile options "
                        f"--dtype --major --swizzle --mn --k (as fastswz tile), or --layout TEXT")
    return "tile", OperandTile(args.dtype, args.major, args.swizzle, args.mn, args.k, args.order,
                               args.arch, packed=args.packed, inst_k=args.inst_k)


def _write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so that a failure
    never leaves a partial file behind."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".fastswz-",
                                   suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            exc.filename = path  # name the file asked for, not the temporary one
        raise


def _draw(args) -> str:
    kind, obj = _picture(args)
    limit = {} if args.max_cells is None else {"max_cells": args.max_cells}
    if kind == "fragment":
        from .draw import draw_fragment
        svg = draw_fragment(obj, **limit)
    elif kind == "layout":
        svg = draw_layout(obj, **limit)
    else:
        svg = draw_tile(obj, args.view, args.start, args.swizzle_base, args.unit,
                        inst_mn=args.inst_mn, lbo_policy=args.lbo_policy, **limit)
    if args.output is None:
        return svg.rstrip("\n")
    _write_atomic(args.output, svg)
    return f"wrote {args.output} ({len(svg)} bytes)"


def _show(args) -> str:
    kind, obj = _picture(args)
    limit = {} if args.max_cells is None else {"max_cells": args.max_cells}
    if kind == "fragment":
        from .draw import show_fragment
        return show_fragment(obj, **limit)
    if kind == "layout":
        return show_layout(obj, **limit)
    return show_tile(obj, args.view, args.start, args.swizzle_base, args.unit, **limit)
def _banks(args) -> str:
    if (args.pattern is None) == (args.addresses is None):
        raise BankError("give exactly one of --pattern and --addresses")
    if args.addresses:
        if args.access_bytes is None:
            raise BankError("--addresses needs --access-bytes (1, 2, 4, 8 or 16)")
        try:
            a = np.load(args.addresses, allow_pickle=False)
        except ValueError:
            raise BankError(f"--addresses {args.addresses}: not a plain .npy array of integers "
                            f"(pickled objects are refused)") from None
        s = score(a, args.access_bytes, args.op)
        if args.json:
            return json.dumps({"file": args.addresses, **s.as_dict(),
                               "per_instruction": s.wavefronts.tolist()})
        hist = np.bincount(s.wavefronts)
        return "\n".join([
            f"addresses    {args.addresses}: {s.instructions} {args.op} instructions of "
            f"{s.access_bytes} bytes per lane",
            f"wavefronts   {s.total} (ideal {s.ideal_total}, excess {s.excess})",
            "per instr    " + ", ".join(f"{c} x {w}" for w, c in enumerate(hist) if c)])
    swz = None if args.swizzle == "all" else [args.swizzle]
    best, table = pattern_scores(args.pattern, args.dtype, args.mn, args.k, swz, args.major,
                                 16 if args.access_bytes is None else args.access_bytes,
                                 args.pad_bytes)
    if args.json:
        return json.dumps({"pattern": args.pattern, "dtype": args.dtype, "mn": args.mn,
                           "k": args.k, "major": args.major, "best_swizzle": best,
                           "layouts": {k: v.as_dict() for k, v in table.items()}})
    lines = [f"pattern  {args.pattern}, {args.dtype} {args.mn} x {args.k}"
             + (f" {args.major}-major" if args.pattern not in ("stmatrix", "st") else ""),
             f"{'layout':<10} {'instr':>6} {'wavefronts':>11} {'ideal':>6} {'excess':>7} {'max/instr':>9}"]
    for name, s in table.items():
        d = s.as_dict()
        lines.append(f"{name:<10} {d['instructions']:>6} {d['wavefronts']:>11} {d['ideal']:>6} "
                     f"{d['excess']:>7} {d['max_per_instruction']:>9}")
    lines.append(f"best     {best}")
    return "\n".join(lines)


def main(argv=None) -> int:
    """Entry point of the ``fastswz`` command."""
    args = _parser().parse_args(argv)
    args._argv = list(sys.argv[1:] if argv is None else argv)
    try:
        out = {"tile": _tile, "decode": _decode, "instr": _instr, "draw": _draw, "show": _show,
               "check": _check, "banks": _banks, "plan": _plan,
               "tune": _tune, "emit": _emit, "fragment": _fragment, "gemm": _gemm}[args.cmd](args)
    except FastswzError as exc:
        print(f"fastswz: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"fastswz: error: {exc}", file=sys.stderr)
        return 2
    rc = 0
    if isinstance(out, tuple):  # (text, status): check exits 1 when descriptors are wrong
        out, rc = out
    try:
        print(out)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left early (``fastswz ... | head``): stop quietly, as a command killed by
        # SIGPIPE would (status 128 + 13), and keep the interpreter's exit flush from raising.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return rc


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
