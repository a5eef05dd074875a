"""Write the bank-conflict probe's pattern set (patterns.txt for banks.cu, patterns.json for compare.py).

Every pattern is one warp instruction: a kind (ld/st of 1-16 bytes, ldmatrix/stmatrix x1/x2/x4
with or without .trans), a lane mask and 32 byte offsets. Structured patterns (strides, broadcast,
every swizzle mode, MMA fragments and epilogue stores built from fastswz tiles) come first, then
seeded random ones that probe the rule where the structured ones cannot. The prediction of
fastswz.banks at generation time is stored beside each pattern.

    PYTHONPATH=src python tests/gpu/banks/gen_patterns.py [OUTDIR]
    PYTHONPATH=src python tests/gpu/banks/gen_patterns.py --heldout SEED OUTDIR   # heldout.{txt,json}
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

import fastswz
from fastswz import banks

KINDS = {"baseline": 0, "ld1": 1, "ld2": 2, "ld4": 3, "ld8": 4, "ld16": 5,
         "st1": 6, "st2": 7, "st4": 8, "st8": 9, "st16": 10,
         "ldsm_x1": 11, "ldsm_x2": 12, "ldsm_x4": 13,
         "ldsm_x1_trans": 14, "ldsm_x2_trans": 15, "ldsm_x4_trans": 16,
         "stsm_x1": 17, "stsm_x2": 18, "stsm_x4": 19,
         "stsm_x1_trans": 20, "stsm_x2_trans": 21, "stsm_x4_trans": 22}
LANE = np.arange(32)
FULL = 0xFFFFFFFF


def _pred(kind, addrs, mask):
    addrs = np.asarray(addrs, dtype=np.int64)
    if kind == "baseline":
        return 0
    if kind.startswith(("ldsm", "stsm")):
        x = int(kind.split("_")[1][1])
        return int(banks.matrix_wavefronts(addrs, x))
    width = int(kind[2:])
    active = ((mask >> LANE) & 1).astype(bool)
    return int(banks.bank_wavefronts(addrs, width, active=active, op=kind[:2]))


def structured():
    P = []

    def add(name, kind, addrs, mask=FULL):
        P.append((name, kind, [int(a) for a in np.asarray(addrs).ravel()], mask))

    add("baseline: no shared access", "baseline", np.zeros(32))
    for op in ("ld", "st"):
        # 1- and 2-byte accesses: threads in one 4-byte word share it.
        add(f"{op}1 contiguous (4 lanes per word)", f"{op}1", LANE)
        add(f"{op}1 same byte", f"{op}1", np.zeros(32))
        add(f"{op}1 stride 128 (32-way)", f"{op}1", LANE * 128)
        add(f"{op}1 stride 4 (conflict free)", f"{op}1", LANE * 4)
        add(f"{op}2 contiguous", f"{op}2", LANE * 2)
        add(f"{op}2 stride 64 (16-way)", f"{op}2", LANE * 64)
        # 4-byte: strides 4/8/16/32/128 bytes give 1/2/4/8/32-way; 132 is the padded fix.
        add(f"{op}4 contiguous", f"{op}4", LANE * 4)
        add(f"{op}4 broadcast (one word)", f"{op}4", np.zeros(32))
        add(f"{op}4 stride 8 (2-way)", f"{op}4", LANE * 8)
        add(f"{op}4 stride 16 (4-way)", f"{op}4", LANE * 16)
        add(f"{op}4 stride 32 (8-way)", f"{op}4", LANE * 32)
        add(f"{op}4 stride 128 (32-way)", f"{op}4", LANE * 128)
        add(f"{op}4 stride 132 (padded, conflict free)", f"{op}4", LANE * 132)
        add(f"{op}4 two words per bank pair-shared", f"{op}4", (LANE // 2) * 128)
        add(f"{op}4 stride 128, lanes 0-7 active", f"{op}4", LANE * 128, 0xFF)
        # 8-byte
        add(f"{op}8 contiguous", f"{op}8", LANE * 8)
        add(f"{op}8 same address", f"{op}8", np.zeros(32))
        add(f"{op}8 half-warps identical", f"{op}8", (LANE % 16) * 8)
        add(f"{op}8 lane pairs share (128 B)", f"{op}8", (LANE // 2) * 8)
        add(f"{op}8 stride 16 (2-way per half)", f"{op}8", LANE * 16)
        add(f"{op}8 stride 128", f"{op}8", LANE * 128)
        add(f"{op}8 halves swapped", f"{op}8", ((LANE + 16) % 32) * 8)
        add(f"{op}8 even lanes active", f"{op}8", LANE * 8, 0x55555555)
        # 16-byte
        add(f"{op}16 contiguous", f"{op}16", LANE * 16)
        add(f"{op}16 same address", f"{op}16", np.zeros(32))
        add(f"{op}16 quarter-warps identical", f"{op}16", (LANE % 8) * 16)
        add(f"{op}16 4 lanes share (128 B)", f"{op}16", (LANE // 4) * 16)
        add(f"{op}16 stride 32 (2-way per quarter)", f"{op}16", LANE * 32)
        add(f"{op}16 stride 128 (8-way per quarter)", f"{op}16", LANE * 128)
        add(f"{op}16 lanes interleaved across quarters", f"{op}16", ((LANE % 4) * 8 + LANE // 4) * 16)
        add(f"{op}16 quarter 0 only", f"{op}16", LANE * 16, 0xFF)
        add(f"{op}16 odd lanes active", f"{op}16", LANE * 16, 0xAAAAAAAA)
        # 16-byte column reads/writes of a 64-row bf16 tile, chunk 0 of rows 0..31, per swizzle
        for sw in ("none", "32B", "64B", "128B"):
            t = fastswz.OperandTile("bf16", "K", sw, 64, 64)
            a = t.addresses()
            add(f"{op}16 column of 16-byte chunks, K-major {sw}", f"{op}16", a[LANE, 0])
        add(f"{op}16 column of 16-byte chunks, row-major pitch 128", f"{op}16", LANE * 128)
    # ldmatrix / stmatrix: MMA fragments and epilogue tiles per swizzle, plus raw strides.
    for sw in ("none", "32B", "64B", "128B"):
        tk = fastswz.OperandTile("bf16", "K", sw, 64, 64)
        tm = fastswz.OperandTile("bf16", "MN", sw, 64, 64)
        add(f"ldsm x4 mma A fragment, K-major {sw}", "ldsm_x4", banks.mma_a_rows(tk.addresses(), 2, 0, 0))
        add(f"ldsm x4.trans mma A fragment, MN-major {sw}", "ldsm_x4_trans",
            banks.mma_a_rows(tm.addresses(), 2, 0, 0, trans=True))
        add(f"ldsm x2 mma B fragment, K-major {sw}", "ldsm_x2", banks.mma_b_rows(tk.addresses(), 2, 0, 0))
        add(f"stsm x4 accumulator into K-major {sw} C tile", "stsm_x4", banks.mma_a_rows(tk.addresses(), 2, 0, 0))
    rm = (np.arange(64)[:, None] * 64 + np.arange(64)[None, :]) * 2
    add("ldsm x4 mma A fragment, row-major 128-byte pitch (8-way)", "ldsm_x4", banks.mma_a_rows(rm, 2, 0, 0))
    add("stsm x4 accumulator, row-major 128-byte pitch (8-way)", "stsm_x4", banks.mma_a_rows(rm, 2, 0, 0))
    add("stsm x4.trans accumulator, row-major 128-byte pitch", "stsm_x4_trans", banks.mma_a_rows(rm, 2, 0, 0))
    rmp = (np.arange(64)[:, None] * 72 + np.arange(64)[None, :]) * 2
    add("ldsm x4 mma A fragment, row-major padded pitch 144", "ldsm_x4", banks.mma_a_rows(rmp, 2, 0, 0))
    for x in (1, 2, 4):
        for tr in ("", "_trans"):
            for op in ("ldsm", "stsm"):
                add(f"{op} x{x}{tr.replace('_', '.')} contiguous rows", f"{op}_x{x}{tr}", LANE * 16)
                add(f"{op} x{x}{tr.replace('_', '.')} rows stride 128 (8-way)", f"{op}_x{x}{tr}", LANE * 128)
        add(f"ldsm x{x} all rows one address", f"ldsm_x{x}", np.zeros(32))
        add(f"stsm x{x} all rows one address", f"stsm_x{x}", np.zeros(32))
        add(f"ldsm x{x} matrices identical", f"ldsm_x{x}", (LANE % 8) * 16)
        add(f"stsm x{x} matrices identical", f"stsm_x{x}", (LANE % 8) * 16)
    add("ldsm x4 rows stride 32 (2-way)", "ldsm_x4", LANE * 32)
    add("ldsm x4 rows interleaved across matrices", "ldsm_x4", ((LANE % 4) * 8 + LANE // 4) * 16)
    add("stsm x4 rows interleaved across matrices", "stsm_x4", ((LANE % 4) * 8 + LANE // 4) * 16)
    return P


def random_set(seed=1234):
    rng = np.random.default_rng(seed)
    P = [("baseline: no shared access", "baseline", [0] * 32, FULL)]
    for op in ("ld", "st"):
        for width in (1, 2, 4, 8, 16):
            for i, span in enumerate((128, 256, 512, 1024, 4096, 256, 1024, 16384)):
                if i >= 5:   # few distinct addresses: broadcast inside and across phases
                    pool = rng.integers(0, span // width, 6) * width
                    addrs = rng.choice(pool, 32)
                else:
                    addrs = rng.integers(0, span // width, 32) * width
                mask = FULL if i % 4 else int(rng.integers(1, 1 << 32))
                P.append((f"random {op}{width} span {span} #{i}", f"{op}{width}", [int(a) for a in addrs], mask))
    for op in ("ldsm", "stsm"):
        for x in (1, 2, 4):
            for tr in ("", "_trans"):
                for span in (512, 2048):
                    addrs = rng.integers(0, span // 16, 32) * 16
                    P.append((f"random {op} x{x}{tr.replace('_', '.')} span {span}", f"{op}_x{x}{tr}",
                              [int(a) for a in addrs], FULL))
            pool = rng.integers(0, 64, 5) * 16
            P.append((f"random {op} x{x} 5 distinct rows", f"{op}_x{x}", [int(a) for a in rng.choice(pool, 32)], FULL))
    return P


def heldout_set(seed):
    """Patterns drawn at run time from a seed none of the committed sets used.

    Other distributions than random_set's: strided lanes with random strides and offsets, rows
    and columns of random swizzled tiles (Sw<B,M,S> over a random pitch), a handful of hot
    words, sparse masks, and ldmatrix/stmatrix rows of random swizzled tiles. The predictions
    are made by the fastswz under test when the set is written."""
    rng = np.random.default_rng(seed)
    P = [("baseline: no shared access", "baseline", [0] * 32, FULL)]

    def swizzled(width):
        b = int(rng.integers(1, 4))
        m = int(rng.integers(max(int(np.log2(width)), 0), 6))
        sh = int(rng.integers(b, 5))
        pitch = int(rng.choice([64, 128, 256, 512]))
        rows = rng.integers(0, 64, 32) if rng.random() < 0.5 else (LANE * int(rng.integers(1, 5))) % 64
        cols = (rng.integers(0, pitch // width, 32) if rng.random() < 0.5
                else np.full(32, int(rng.integers(0, pitch // width)))) * width
        x = rows * pitch + cols
        return x ^ ((x >> sh) & (((1 << b) - 1) << m))

    for op in ("ld", "st"):
        for width in (1, 2, 4, 8, 16):
            for i in range(8):
                form = i % 4
                if form == 0:
                    stride = int(rng.integers(1, 40)) * width
                    addrs = int(rng.integers(0, 64)) * width + LANE * stride
                elif form == 1:
                    addrs = swizzled(width)
                elif form == 2:
                    pool = rng.integers(0, 4096 // width, int(rng.integers(2, 9))) * width
                    addrs = rng.choice(pool, 32)
                else:
                    addrs = rng.integers(0, int(rng.choice([256, 2048, 32768])) // width, 32) * width
                mask = FULL if i < 6 else int(rng.integers(1, 1 << 32)) & int(rng.integers(1, 1 << 32))
                mask = mask or 1
                P.append((f"heldout {op}{width} form {form} #{i}", f"{op}{width}",
                          [int(a) % 65536 // width * width for a in addrs], mask))
    for op in ("ldsm", "stsm"):
        for x in (1, 2, 4):
            for tr in ("", "_trans"):
                for i in range(3):
                    addrs = (swizzled(16) if i < 2 else rng.integers(0, 1024, 32) * 16) % 32768
                    P.append((f"heldout {op} x{x}{tr.replace('_', '.')} #{i}", f"{op}_x{x}{tr}",
                              [int(a) // 16 * 16 for a in addrs], FULL))
    return P


def pair_probes():
    """Where the load pair rule's scope is decided: which lanes must share, and with masks."""
    P = [("baseline: no shared access", "baseline", [0] * 32, FULL)]

    def add(name, kind, addrs, mask=FULL):
        P.append((name, kind, [int(a) for a in np.asarray(addrs).ravel()], mask))

    pairs16 = (LANE // 2) * 16
    for op in ("ld", "st"):
        add(f"{op}16 pairs share in half 0 only", f"{op}16", np.where(LANE < 16, pairs16, LANE * 16))
        add(f"{op}16 pairs share in half 1 only", f"{op}16", np.where(LANE >= 16, pairs16, LANE * 16 + 512))
        add(f"{op}16 pairs share in quarter 0 only", f"{op}16", np.where(LANE < 8, pairs16, LANE * 16))
        add(f"{op}16 pairs share, lane 1 inactive", f"{op}16", pairs16, 0xFFFFFFFD)
        add(f"{op}16 pairs share, lanes 0-1 inactive", f"{op}16", pairs16, 0xFFFFFFFC)
        add(f"{op}16 pairs share, lanes 16-31 inactive", f"{op}16", pairs16, 0x0000FFFF)
        add(f"{op}16 pairs share, pair 0 and 1 conflict", f"{op}16", np.where(LANE // 2 == 1, 128, pairs16))
        add(f"{op}16 pairs share, one pair split", f"{op}16", np.where(LANE == 31, 0, pairs16))
        add(f"{op}16 lanes 2i+1 and 2i+2 share", f"{op}16", ((LANE + 1) // 2) * 16 % 512)
        add(f"{op}16 quads share, quads distinct 16 B", f"{op}16", (LANE // 4) * 16)
        add(f"{op}16 pairs share, 256-byte stride (conflicts)", f"{op}16", (LANE // 2) * 256)
        add(f"{op}8 pairs share in half 0 only", f"{op}8", np.where(LANE < 16, (LANE // 2) * 8, LANE * 8))
        add(f"{op}8 pairs share, lane 31 inactive", f"{op}8", (LANE // 2) * 8, 0x7FFFFFFF)
        add(f"{op}8 pairs share, lanes 30-31 inactive", f"{op}8", (LANE // 2) * 8, 0x3FFFFFFF)
        add(f"{op}8 pairs share, one pair split", f"{op}8", np.where(LANE == 31, 0, (LANE // 2) * 8))
        add(f"{op}8 pairs share across 256 B (2-way)", f"{op}8", (LANE // 2) * 16)
        add(f"{op}8 quads share", f"{op}8", (LANE // 4) * 8)
        add(f"{op}4 pairs share", f"{op}4", (LANE // 2) * 4)
    for x in (2, 4):
        add(f"ldsm x{x} row pairs share", f"ldsm_x{x}", pairs16)
        add(f"stsm x{x} row pairs share", f"stsm_x{x}", pairs16)
    rng = np.random.default_rng(99)
    for i in range(10):   # random loads whose lane pairs all share: the merged phases' conflicts
        w = (8, 16)[i % 2]
        pool = rng.integers(0, 2048 // w, 16) * w
        add(f"random ld{w} with all pairs shared #{i}", f"ld{w}", np.repeat(pool, 2))
    return P


def merge_probes():
    """When does a load run the wide phases (rule 3)? First, does a half-warp whose pairs hold
    one active lane at most merge on its own (no: the probes that tell it apart from rules 1-3
    measured rules 1-3); then one split (i, i^1) pair, its addresses 16 B to 16 KiB apart, in
    full and sparse warps (narrow); the held-out patterns that the H100 served wide, repeated,
    and 7-lane loads like them (wide exactly where lanes i and i^2 agree); last, lanes i and
    i^2 (not i^1) sharing, with controls (i^4, i^8 sharing; stores; one disagreeing pair)."""
    P = [("baseline: no shared access", "baseline", [0] * 32, FULL)]

    def add(name, kind, addrs, mask=FULL):
        P.append((name, kind, [int(a) for a in np.asarray(addrs).ravel()], mask))

    odd, even = 0xAAAAAAAA, 0x55555555
    lo16, hi16 = 0x0000FFFF, 0xFFFF0000
    pair_row = 2048 + (LANE % 16) // 2 * 16   # pair p of a half-warp -> its own 4 banks
    for op in ("ld", "st"):
        add(f"{op}16 half 1 odd lanes, half 0 full", f"{op}16",
            np.where(LANE < 16, LANE * 16, pair_row), lo16 | (odd & hi16))
        add(f"{op}16 half 1 even lanes, half 0 full", f"{op}16",
            np.where(LANE < 16, LANE * 16, pair_row), lo16 | (even & hi16))
        add(f"{op}16 half 0 mixed single lanes, half 1 full", f"{op}16",
            np.where(LANE < 16, pair_row, LANE * 16), hi16 | 0x9669)   # one lane of each pair
        add(f"{op}16 half 1 single lanes one address, half 0 full", f"{op}16",
            np.where(LANE >= 16, 4096, LANE * 16), lo16 | (odd & hi16))
        add(f"{op}16 half 1 single lanes, half 0 one split pair", f"{op}16",
            np.where(LANE < 16, LANE * 16, pair_row), 0x3 | (odd & hi16))
        add(f"{op}16 half 1 single lanes but one sharing pair, half 0 split", f"{op}16",
            np.where(LANE < 16, LANE * 16, pair_row), 0x3 | (odd & hi16) | (1 << 16))
        # 17/19 and 25/27 share a bank each (another row): 2 per quarter, 2 for the merged half
        add(f"{op}16 half 1 single lanes, conflicts inside quarters, half 0 full", f"{op}16",
            np.where(LANE < 16, LANE * 16,
                     np.select([LANE == 19, LANE == 27], [2048 + 1024, 2048 + 64 + 1024], pair_row)),
            lo16 | (odd & hi16))
    rng4 = np.random.default_rng(4)
    for i in range(12):   # random: one half single-lane pairs, the other half a split pair
        h = i % 2
        single = int(sum(1 << (2 * p + int(rng4.integers(0, 2))) for p in range(8)
                         if rng4.random() < 0.8))
        other = int(rng4.integers(1, 1 << 16)) | 0x3
        mask = (single << 16 | other) if h else (other << 16 | single)
        addrs = rng4.integers(0, 4096 // 16, 32) * 16
        addrs[16 * (1 - h) + 1] = addrs[16 * (1 - h)] + 16      # that half's first pair splits
        add(f"random ld16 half {h} single lanes, other half split #{i}", "ld16", addrs, mask)
    # one split pair: lane 2p+1 reads d bytes past lane 2p; every other pair agrees
    for w in (16, 8):
        base = (LANE // 2) * w
        sparse = 0xAAAAAAAA
        for p in (0, 7, 15):
            for d in (16, 48, 128, 240, 256, 272, 384, 512, 1024, 4096, 16384):
                if w == 8 and d % 8:
                    continue
                a = base.copy()
                a[2 * p + 1] = (a[2 * p] + d) % 65536
                add(f"ld{w} split pair {p} by {d} B, full warp", f"ld{w}", a)
                add(f"ld{w} split pair {p} by {d} B, odd lanes + the pair", f"ld{w}", a,
                    sparse | (3 << (2 * p)))
    # The three held-out patterns (seeds 20261125 and 77) that measured fewer wavefronts than
    # rules 1-3 give, each five times (is it repeatable?), and 7-lane loads like them
    for kind, mask, addrs in EXCEPTIONS:
        for r in range(5):
            add(f"exception {kind} {mask:08x} repeat {r}", kind, addrs, mask)
    rng7 = np.random.default_rng(7)
    for i in range(40):
        w = (16, 8)[i % 2]
        pairs = rng7.choice(16, 6, replace=False)
        mask = 3 << (2 * int(pairs[0]))
        for q in pairs[1:]:
            mask |= 1 << (2 * int(q) + int(rng7.integers(0, 2)))
        addrs = rng7.integers(0, 32768 // w, 32) * w
        add(f"random ld{w} 7 lanes, one split pair #{i}", f"ld{w}", addrs, mask)
    # lanes i and i^2 share (lanes i and i^1 do not): the second pairing of rule 3
    L = LANE
    for w in (16, 8):
        for k, what in ((2, "i^2"), (4, "i^4 (control)"), (8, "i^8 (control)")):
            b = k.bit_length() - 1      # lane i and lane i^k read chunk c(i): bit b removed
            a = (((L >> (b + 1)) << b) | (L & (k - 1))) * w
            for op in ("ld", "st"):
                add(f"{op}{w} lanes {what} share, full warp", f"{op}{w}", a)
            add(f"ld{w} lanes {what} share, lanes 0-15 active", f"ld{w}", a, 0x0000FFFF)
            b = a.copy()
            b[5] = b[7] + 64 * w        # one (i, i^2) pair disagrees
            add(f"ld{w} lanes {what} share but lanes 5 and 7 differ", f"ld{w}", b)
        a = (((L >> 2) << 1) | (L & 1)) * w * 9 % 4096   # shared by i^2, spread over rows
        add(f"ld{w} lanes i^2 share, spread rows", f"ld{w}", a)
        add(f"ld{w} lanes i^2 share, spread rows, lanes 1 and 3 idle", f"ld{w}", a, 0xFFFFFFF5)
    return P


EXCEPTIONS = [
    ("ld16", 0x820211c0, [6496, 6992, 2048, 14912, 28032, 3280, 26496, 2880, 14400, 3264, 7872,
                          10816, 19120, 25984, 28672, 15248, 15744, 31584, 12640, 25088, 28256,
                          4720, 3712, 16832, 16192, 22336, 4752, 20240, 30400, 14816, 20656,
                          23536]),
    ("ld8", 0x20062830, [1624, 1312, 896, 48, 1792, 1320, 1872, 1312, 128, 1224, 640, 1784, 56,
                         2040, 408, 232, 664, 144, 24, 1368, 1208, 1080, 920, 1640, 1480, 624,
                         616, 1696, 672, 2024, 104, 24]),
    ("ld16", 0x22400306, [1120, 3008, 1984, 1120, 2816, 1984, 3008, 2352, 2016, 2816, 2016, 1120,
                          1120, 1984, 2016, 2816, 1120, 1984, 2816, 464, 2016, 3008, 2816, 464,
                          1120, 2816, 2016, 3008, 1120, 2016, 2352, 2816]),
]


def write(patterns, stem: Path):
    rows = []
    with open(stem.with_suffix(".txt"), "w") as f:
        for name, kind, addrs, mask in patterns:
            f.write(f"{KINDS[kind]} {mask:08x} " + " ".join(map(str, addrs)) + "\n")
            rows.append({"name": name, "kind": kind, "mask": mask, "addresses": addrs,
                         "predicted": _pred(kind, addrs, mask)})
    stem.with_suffix(".json").write_text(json.dumps(rows, indent=0))
    return rows


if __name__ == "__main__":
    if sys.argv[1:2] == ["--heldout"]:
        h = write(heldout_set(int(sys.argv[2])), Path(sys.argv[3]) / "heldout")
        print(f"{len(h)} held-out patterns (seed {sys.argv[2]}) written to {sys.argv[3]}")
        sys.exit(0)
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    a = write(structured(), out / "patterns")
    b = write(random_set(), out / "random")
    c = write(pair_probes(), out / "pairs")
    d = write(merge_probes(), out / "merge")
    print(f"{len(a)} structured + {len(b)} random + {len(c)} pair-rule + {len(d)} merge patterns "
          f"written to {out}")
