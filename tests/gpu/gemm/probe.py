#!/usr/bin/env python3
"""Time a grid of plans per problem beside cuBLAS (the schedule rules' evidence).

    # here (no GPU): every problem's candidates, compiled into the cubin cache
    FASTSWZ_CACHE=.fswcache python tests/gpu/gemm/probe.py make --out tests/gpu/gemm/probe_cases.json
    # the GPU machine (carry .fswcache)
    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/probe_cases.json --out DIR

``make`` draws, per problem: choose_plan's plan; its tile at every K split that divides the
k-tiles sensibly; the tiles 64x32 .. 128x256 at the most stages that fit, unsplit and split,
with and without a 2-CTA cluster along M; swap-AB tiles with and without a cluster. ``run``
times each with gpu_corpus's loop (launches back to back, each after an L2 flush, between its
own events, median), checks each result against cuBLAS, and prints per problem the plans by
time with cuBLAS's time and the default's.
"""
import argparse
import functools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))

PROBLEMS = [  # (M, N, K, dtype): the H100 corpus run's losers (0.63-0.84x) and their neighbours
    (128, 4096, 4096, "e4m3"), (32, 4096, 4096, "e4m3"), (64, 4096, 4096, "e4m3"),
    (8, 4096, 4096, "e4m3"), (128, 6144, 4096, "e4m3"), (128, 2112, 5120, "e4m3"),
    (128, 4608, 3584, "e4m3"), (32, 8192, 28672, "e4m3"), (64, 28672, 4096, "e4m3"),
    (128, 4096, 4096, "bf16"), (128, 3584, 3584, "bf16"), (32, 3584, 3584, "bf16"),
    (1, 3584, 3584, "bf16"), (128, 2112, 7168, "bf16"), (512, 3584, 18944, "bf16"),
    (512, 4096, 14336, "bf16"), (256, 256, 65536, "bf16"),
]


PROBLEMS_V2 = [  # the 64-row deep-pipeline question: which BN and split, M 96-2048
    (128, 4096, 4096, "e4m3"), (128, 6144, 4096, "e4m3"), (128, 4608, 3584, "e4m3"),
    (128, 2112, 5120, "e4m3"), (128, 28672, 4096, "e4m3"), (128, 8192, 8192, "e4m3"),
    (128, 4096, 4096, "bf16"), (128, 3584, 3584, "bf16"), (128, 28672, 4096, "bf16"),
    (96, 12288, 4096, "bf16"), (96, 12288, 4096, "e4m3"), (256, 4096, 4096, "bf16"),
    (256, 4096, 4096, "e4m3"), (512, 3584, 18944, "e4m3"), (512, 4096, 4096, "e4m3"),
    (512, 4096, 14336, "e4m3"), (512, 4096, 4096, "bf16"), (512, 2112, 5120, "bf16"),
    (2048, 4096, 14336, "bf16"), (2048, 5120, 12288, "e4m3"),
]


def candidates_v2(m, n, k, dt):
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out, seen = [dict(base)], {json.dumps(base, sort_keys=True)}
    for bm in (64, 128):
        for bn in (64, 72, 80, 96, 112, 128, 160, 192, 256):
            tiles = -(-m // bm) * -(-n // bn)
            fill = max(1, min(132 // tiles, -(-k // bk) // 8)) if tiles < 132 else 1
            for s in sorted({1, fill}):
                c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2,
                          "split_k": s})
                key = json.dumps(c, sort_keys=True)
                if c is not None and key not in seen:
                    seen.add(key)
                    out.append(c)
    return out


def problems_v3():
    """Every corpus problem with 64 < M <= 256, both operands K-major (DEEP_TILE_MAX_M's domain)."""
    from fastswz.corpus import load_corpus

    seen = []
    for p in load_corpus():
        key = (p.m, p.n, p.k, p.a_dtype)
        if 64 < p.m <= 256 and p.a_major == p.b_major == "K" and key not in seen:
            seen.append(key)
    return seen


def candidates_v3(m, n, k, dt):
    """The rule's plan, the plan before it, the model's single-pass plan, and the rule's tile with
    the shared-memory epilogue tile at the most stages that fit beside it."""
    import fastswz.cuda as fc

    fc.choose_plan.cache_clear()
    rule = fc.choose_plan(m, n, k, dt, dt)
    keep, fc.DEEP_TILE_MAX_M = fc.DEEP_TILE_MAX_M, 0
    try:
        fc.choose_plan.cache_clear()
        before = fc.choose_plan(m, n, k, dt, dt)
    finally:
        fc.DEEP_TILE_MAX_M = keep
        fc.choose_plan.cache_clear()
    model = fc.choose_plan(m, n, k, dt, dt, schedules=False)
    out = [rule, before, model]
    # the rule's tile whatever the model's plan (the rule keeps a 64-row model plan)
    bn = next((w for w in fc.DEEP_TILE_BN if -(-m // 64) * -(-n // w) <= 132), None)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    if bn is not None:
        split = fc.split_k_splits(-(-m // 64) * -(-n // bn), -(-k // bk))
        if split <= 2:
            deep = _fit({"a_dtype": dt, "b_dtype": dt, "bm": 64, "bn": bn, "bk": bk, "stages": 2,
                         "split_k": split})
            out.append(deep)
            en = 64 if bn > 64 and bn % 64 == 0 else 0
            if deep is not None and split == 1:
                out.append(_fit(dict(deep, epilogue=True, epilogue_n=en, epilogue_stages=1)))
    out = [c for c in out if c is not None]
    uniq = []
    for c in out:
        if c not in uniq:
            uniq.append(c)
    return uniq


def problems_v4():
    """Decode (M = 8) corpus layers, both types: which swap-AB tile, k-tile and split."""
    from fastswz.corpus import load_corpus

    seen = []
    for p in load_corpus():
        key = (8, p.n, p.k, p.a_dtype)
        if p.m == 8 and p.a_major == p.b_major == "K" and key not in seen and p.n * p.k <= 60e6:
            seen.append(key)
    return seen


def candidates_v4(m, n, k, dt):
    from fastswz.cuda import choose_plan

    out = [choose_plan(m, n, k, dt, dt)]
    bks = (128, 256) if dt in ("e4m3", "e5m2") else (64, 128)
    for bm in (64, 128, 256):
        for bk in bks:
            kt = -(-k // bk)
            for s in (1, 2, 3, 4, 6, 8, 12, 16):
                if s > 1 and kt // s < 4:
                    continue
                c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": 16 if m > 8 else 8, "bk": bk,
                          "stages": 2, "split_k": s, "swap_ab": True})
                if c is not None and c not in out:
                    out.append(c)
    return out


def _fit(cfg, max_stages=16):
    """cfg at the most stages (<= max_stages) the family runs, or None."""
    from fastswz.cuda.codegen import supported

    for st in range(max_stages, 1, -1):
        c = dict(cfg, stages=st)
        if supported(c) is None:
            return c
    return None


def candidates(m, n, k, dt):
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    common = {"a_dtype": dt, "b_dtype": dt}
    out = [dict(base)]
    seen = {json.dumps(base, sort_keys=True)}

    def add(c):
        if c is None:
            return
        key = json.dumps(c, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(c)

    ktiles = -(-k // bk)
    splits = [s for s in (1, 2, 3, 4, 6, 8, 16, 32) if s <= max(1, ktiles // 2)]
    for s in splits:
        add(dict(base, split_k=s))
    for bm, bn in ((64, 32), (64, 64), (64, 128), (128, 64), (128, 128), (64, 256), (128, 256)):
        if bm > 64 and m <= 64:
            continue
        for s in splits[:4]:
            for cl in (1, 2):
                if cl == 2 and -(-m // bm) < 2:
                    continue
                add(_fit(dict(common, bm=bm, bn=bn, bk=bk, stages=2, split_k=s, cluster_m=cl)))
    if m <= 256:
        for bm in (64, 128, 256):
            bn = max(8, min(256, -(-m // 8) * 8))
            for s in splits[:4]:
                for cl in (1, 2):
                    add(_fit(dict(common, bm=bm, bn=bn, bk=bk, stages=2, split_k=s, swap_ab=True,
                                  cluster_m=cl)))
    return out


#: The candidate sets ``make --set`` draws: (the problems, the plans of each).
def problems_v5():
    """The swap-AB question at 16 < M <= 64 with wide N: the swapped plan stores D^T from
    registers; short K (DeepSeek-V3's kv_b, K 512, and q_b, K 1536) leaves that store exposed."""
    out = []
    for dt in ("bf16", "e4m3"):
        for m in (16, 32, 64):
            out += [(m, 32768, 512, dt), (m, 24576, 1536, dt)]
        out += [(64, 10240, 8192, dt), (32, 28672, 4096, dt)]
    return out


def candidates_v5(m, n, k, dt):
    """The default; unswapped 64 x BN with the shared-memory epilogue tile (64-column blocks, the
    deepest ring that fits) and with register stores; the swapped BM x 16-64 tiles."""
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out = [dict(base)]
    for bn in (128, 192, 256):
        for epi in ({"epilogue": True, "epilogue_n": 64, "epilogue_stages": 1},
                    {"epilogue": True, "epilogue_n": 64, "epilogue_stages": 2}, {"epilogue": False}):
            out.append(_fit({"a_dtype": dt, "b_dtype": dt, "bm": 64, "bn": bn, "bk": bk, **epi}))
    sn = -(-m // 8) * 8
    for bm in (128, 192, 256):
        out.append(_fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": max(16, sn), "bk": bk,
                         "swap_ab": True, "epilogue": False}))
    return [c for c in out if c is not None]


def problems_v6():
    """The 64-row rule at M = 128 (DEEP_TILE_MAX_M): the corpus layers where the model's own
    64-row plan ran under 0.9x cuBLAS in the H100 corpus run of 2026-11-27 (run 7), and two
    neighbours."""
    out = []
    for dt in ("bf16", "e4m3"):
        out += [(128, 4608, 3584, dt), (128, 3584, 3584, dt), (128, 4096, 4096, dt),
                (128, 6144, 4096, dt), (128, 2112, 7168, dt), (128, 2112, 5120, dt)]
    return out + [(256, 4096, 4096, "bf16"), (96, 12288, 4096, "e4m3")]


def candidates_v6(m, n, k, dt):
    """The default; 64 x BN (BN 32-128) with the epilogue tile, the whole tile or 64-column blocks
    through 1 or 2 tiles, at the deepest ring, 8 stages and 5 stages."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import normalize_config

    out = [dict(choose_plan(m, n, k, dt, dt))]
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    for bn in (32, 48, 64, 80, 96, 128):
        epis = [(0, 1)] + ([(64, 1), (64, 2)] if bn == 128 else [(0, 2)])
        for en, es in epis:
            c = {"a_dtype": dt, "b_dtype": dt, "bm": 64, "bn": bn, "bk": bk, "epilogue": True,
                 "epilogue_n": en, "epilogue_stages": es}
            deep = _fit(c)
            out.append(deep)
            for st in (8, 5):
                if deep is not None and st < deep["stages"]:
                    out.append(dict(deep, stages=st))
    return [normalize_config(c) for c in out if c is not None]


def problems_v7():
    """Decode (M 1-16) layers of 2-6 k N x 3.5-7 k K where the H100 corpus run of 2026-11-27
    (run 5) had fastswz at 0.74-0.9x cuBLAS: how many K splits, on which swapped tile."""
    out = []
    for m in (1, 8, 16):
        out += [(m, n, k, "e4m3") for n, k in ((2112, 5120), (2112, 7168), (4096, 4096), (3584, 3584),
                                               (4608, 3584), (6144, 4096))]
    return out + [(1, 3584, 3584, "bf16"), (8, 3584, 3584, "bf16"), (8, 4096, 4096, "bf16")]


def candidates_v7(m, n, k, dt):
    """The default; swapped 64 and 128 x BN (BN = M rounded up to 8) with 256-byte k-tiles at the
    deepest ring (at most 12 stages), K split 1-8 ways while the units fit one wave."""
    from fastswz.cuda import choose_plan

    out = [dict(choose_plan(m, n, k, dt, dt))]
    bn, bk = max(8, -(-m // 8) * 8), (256 if dt in ("e4m3", "e5m2") else 128)
    for bm in (64, 128):
        tiles = -(-n // bm)
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "swap_ab": True,
                  "epilogue": False}, max_stages=12)
        for split in (1, 2, 3, 4, 6, 8):
            if c is not None and tiles * split <= 132 and -(-k // bk) >= 2 * split:
                out.append(dict(c, split_k=split))
    return out


def problems_v8():
    """M 32-64 on few output tiles (N 2112-6144, K 3584-7168), where the unswapped split rule
    (SPLIT_K_SWAP_M) stores partials for a second kernel: swapped splits instead?"""
    return [(m, n, k, dt) for dt in ("bf16", "e4m3") for m in (32, 64)
            for n, k in ((3584, 3584), (4096, 4096), (2112, 5120), (2112, 7168))]


def candidates_v8(m, n, k, dt):
    """The default; swapped BM 64/128 x BN = M with 256-byte k-tiles, the deepest ring up to 8
    stages, split 1-8; unswapped 64 x 64 and 64 x 128 (128-byte k-tiles, as the unswapped split
    rule), split 2-6."""
    from fastswz.cuda import choose_plan

    out = [dict(choose_plan(m, n, k, dt, dt))]
    bk = 256 if dt in ("e4m3", "e5m2") else 128
    for bm in (64, 128):
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": m, "bk": bk, "swap_ab": True,
                  "epilogue": False}, max_stages=8)
        for split in (1, 2, 3, 4, 6, 8):
            if c is not None and -(-n // bm) * split <= 132:
                out.append(dict(c, split_k=split))
    for bn in (64, 128):
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": 64, "bn": bn, "bk": bk // 2, "epilogue": False},
                 max_stages=8)
        for split in (2, 3, 4, 6):
            if c is not None and -(-n // bn) * split <= 132:
                out.append(dict(c, split_k=split))
    return out


def problems_v9():
    """The corpus problems whose default plan splits K and reduces in a second kernel (the
    reduction-kernel rule, LAST_CTA_REDUCE_REGISTERS): M 32-1024, N 256-8192, K 5120-65536, both
    types (Nsight Compute, ncu_causes.py: on 64 x 2112 x 5120 e4m3 the GEMM kernel alone took
    cuBLAS's time and the reduction kernel 4.2 us more)."""
    from fastswz.corpus import load_corpus
    from fastswz.cuda import choose_plan

    out = []
    for p in load_corpus():
        if p.a_major != "K" or p.b_major != "K":
            continue
        c = choose_plan(p.m, p.n, p.k, p.a_dtype, p.b_dtype, "K", "K", p.out_dtype)
        if c["split_k"] > 1 and _reduce_of(c) == "kernel":
            out.append((p.m, p.n, p.k, p.a_dtype))
    return sorted(set(out), key=lambda t: (t[3], t[0] * t[1] * t[2]))


def _reduce_of(c):
    from fastswz.cuda.codegen import kernel_row

    return kernel_row(c)["kernel"]["scheduler"]["workspace"]["reduce"]


def candidates_v9(m, n, k, dt):
    """The default plan as it is (its split reduced by the second kernel) and the same plan with
    the tile's last split reducing (split_reduce="last_cta"); for the few-tile problems (<= 34
    output tiles) also the last split at 2-6 splits and 8 stages."""
    from fastswz.cuda import choose_plan

    base = dict(choose_plan(m, n, k, dt, dt))
    out = [base, dict(base, split_reduce="last_cta")]
    tiles = -(-m // base["bm"]) * -(-n // base["bn"])
    if tiles <= 34:
        deep = _fit(dict(base, split_reduce="last_cta"), max_stages=8)
        for split in (2, 3, 4, 6):
            for c in (dict(base, split_reduce="last_cta"), deep):
                if c is not None and tiles * split <= 132:
                    out.append(dict(c, split_k=split))
    uniq = {json.dumps(c, sort_keys=True): c for c in out}
    return list(uniq.values())


def problems_v10():
    """M 32-64 split problems of the corpus under 0.9x (Nsight Compute: the GEMM kernel alone at
    cuBLAS's time, the reduction after it): plans that need no split?"""
    return [(m, n, k, dt) for dt in ("e4m3", "bf16") for m in (32, 64)
            for n, k in ((2112, 5120), (2112, 7168), (4096, 14336), (5120, 12288))]


def candidates_v10(m, n, k, dt):
    """The default; unswapped 64 x 32/64 one-pass with the deepest ring up to 16 stages (cuBLAS's
    kernel here: 64 x 32, 16 stages, no split); swapped BM 64/128 x M with a 2-CTA cluster, the
    deepest ring up to 8, split 1-4."""
    from fastswz.cuda import choose_plan

    out = [dict(choose_plan(m, n, k, dt, dt))]
    e = dt in ("e4m3", "e5m2")
    for bn in (32, 64):
        for bk in ((128, 256) if e else (64, 128)):
            c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": 64, "bn": bn, "bk": bk, "epilogue": False})
            if c is not None:
                out.append(c)
    for bm in (64, 128):
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": m, "bk": 256 if e else 128, "swap_ab": True,
                  "epilogue": False, "cluster_m": 2}, max_stages=8)
        for split in (1, 2, 3, 4):
            if c is not None and -(-n // bm) * split <= 132:
                out.append(dict(c, split_k=split))
    return out


def problems_v12():
    """The corpus's decode and small problems (M <= 64) whose default plan is swapped, unsplit and
    short of the deepest ring the tile fits (the model's stage count): on 1-32 x 16384 x 53248 e4m3
    the eighth session's probe timed 4-6 stages 1.03-1.04x faster than the default's 3."""
    from fastswz.corpus import load_corpus
    from fastswz.cuda import choose_plan

    out = []
    for p in load_corpus():
        if p.m > 64 or p.a_major != "K" or p.b_major != "K":
            continue
        c = choose_plan(p.m, p.n, p.k, p.a_dtype, p.b_dtype, "K", "K", p.out_dtype)
        if c["swap_ab"] and c["split_k"] == 1 and _fit(c, max_stages=16)["stages"] > c["stages"]:
            out.append((p.m, p.n, p.k, p.a_dtype))
    return sorted(set(out), key=lambda t: (t[3], t[0] * t[1] * t[2]))


def candidates_v12(m, n, k, dt):
    """The default; the same tile at 2 more stages; at the deepest ring it fits (up to 16)."""
    from fastswz.cuda import choose_plan

    base = dict(choose_plan(m, n, k, dt, dt))
    deep = _fit(base, max_stages=16)
    out = [base, _fit(base, max_stages=base["stages"] + 2), deep]
    uniq = {json.dumps(c, sort_keys=True): c for c in out if c is not None}
    return list(uniq.values())


FRESH_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-fifteenth-session",
                         "run2-fresh-tests-fuzz", "fresh.json")


def problems_v13():
    """The problems of the first fresh-shape run (tools/gemm_corpus.py --fresh 20261128, H100)
    under 0.9x cuBLAS's speed: shapes no rule was fitted on."""
    with open(FRESH_RUN) as f:
        rows = json.load(f)["rows"]
    return [(r["m"], r["n"], r["k"], r["a_dtype"]) for r in rows
            if r["cublas"]["kind"] == "same"
            and r["cublas"]["median_ms"] < 0.9 * r["fastswz"]["median_ms"]]


def candidates_v13(m, n, k, dt):
    """The default; tiles 64 x 64 .. 192 x 128 unsplit (with the epilogue tile, 64-column blocks
    where BN is a multiple of 64 above it, and with register stores) and at the split that fills
    the SMs and twice it; a 2-CTA cluster on the unsplit 128-row tiles; swap-AB tiles for M <= 256."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import supported

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    common = {"a_dtype": dt, "b_dtype": dt, "bk": bk}
    out, seen = [], set()

    def add(c):
        if c is None or supported(c) is not None:
            return
        key = json.dumps(c, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(c)

    add(dict(base))
    ktiles = -(-k // bk)
    for bm, bn in ((64, 64), (64, 128), (64, 256), (128, 64), (128, 128), (128, 192), (128, 256),
                   (192, 128)):
        if bm > 64 and m <= 64:
            continue
        tiles = -(-m // bm) * -(-n // bn)
        fill = max(1, min(132 // tiles, ktiles // 4)) if tiles < 132 else 1
        for s in sorted({1, fill, min(2 * fill, max(1, ktiles // 4))} if fill > 1 else {1}):
            add(_fit(dict(common, bm=bm, bn=bn, stages=2, split_k=s)))
            if s == 1:
                blocks = 64 if bn > 64 and bn % 64 == 0 else 0
                add(_fit(dict(common, bm=bm, bn=bn, stages=2, epilogue=True, epilogue_n=blocks)))
                if bm >= 128:
                    add(_fit(dict(common, bm=bm, bn=bn, stages=2, epilogue=True,
                                  epilogue_n=blocks, cluster_m=2)))
    if m <= 256:
        for bm in (64, 128):
            bn = max(8, min(256, -(-m // 8) * 8))
            tiles = -(-n // bm) * -(-m // bn)
            fill = max(1, min(132 // tiles, ktiles // 4)) if tiles < 132 else 1
            for s in sorted({1, fill}):
                add(_fit(dict(common, bm=bm, bn=bn, stages=2, split_k=s, swap_ab=True)))
    return out


FRESH = [os.path.join(HERE, f"fresh_{seed}.json") for seed in (20261128, 20261129, 20261130)]


def problems_v17():
    """Corpus and fresh-shape problems (K-major, one per shape and type) whose default plan is one
    pass without a cluster where a 2-CTA cluster runs too (at least two tile rows), at most about
    1 ms at nominal rates: does B's multicast pay (cuBLAS's kernels on two of them were 2 x 1
    clusters, run5's ncu_pair)?"""
    from fastswz.corpus import load_corpus
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import supported

    out = []
    for path in [None] + FRESH:
        for p in load_corpus(path):
            if p.a_major != "K" or p.b_major != "K" or (p.m, p.n, p.k, p.a_dtype) in out:
                continue
            c = choose_plan(p.m, p.n, p.k, p.a_dtype, p.b_dtype, "K", "K", p.out_dtype)
            if c["split_k"] > 1 or c["swap_ab"] or c["pingpong"] or c["cluster_m"] != 1:
                continue
            if supported(dict(c, cluster_m=2)) is not None or -(-p.m // c["bm"]) < 2:
                continue
            if 2 * p.m * p.n * p.k / (1200e12 if p.a_dtype == "e4m3" else 600e12) > 1e-3:
                continue
            out.append((p.m, p.n, p.k, p.a_dtype))
    return out


def candidates_v17(m, n, k, dt):
    """The default plan, and the same on a 2-CTA cluster along M."""
    from fastswz.cuda import choose_plan

    c = choose_plan(m, n, k, dt, dt)
    return [c, dict(c, cluster_m=2)]


SIXTEENTH_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-sixteenth-session",
                             "run8-final-corpus-seeds")


def _sixteenth_losers(keep):
    """(M, N, K, type) of fresh seeds 1-5's same-type problems under 0.9x cuBLAS's speed in the
    sixteenth session's final run (H100) whose row ``keep(row)`` accepts, each once; seeds 6-7
    (20261203-04) stay out."""
    import gzip

    out = []
    for seed in (20261128, 20261129, 20261130, 20261201, 20261202):
        with gzip.open(os.path.join(SIXTEENTH_RUN, f"fresh-{seed}.json.gz")) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            if r["cublas"]["kind"] != "same" or not keep(r):
                continue
            if r["cublas"]["median_ms"] / r["fastswz"]["median_ms"] >= 0.9:
                continue
            key = (r["m"], r["n"], r["k"], r["a_dtype"])
            if key not in out:
                out.append(key)
    return out


def problems_v20():
    """Fresh seeds 1-5's losers whose default plan is one pass (no split, no swap-AB), M > 16:
    which tile and schedule win on the long-K, one-to-three-wave shapes the model gives narrow
    ragged tiles?"""
    return _sixteenth_losers(lambda r: r["m"] > 16 and r["plan"]["split_k"] == 1 and not r["plan"]["swap_ab"])


def _epilogue_tile(c):
    """``c`` with the shared-memory epilogue tile choose_plan would give it (64-column blocks
    where BN allows, else the whole tile), at the most stages that fit; ``c`` if none fits."""
    from fastswz.cuda.codegen import supported

    blocks = c["bn"] > 64 and c["bn"] % 64 == 0
    for st in range(c["stages"], 2, -1):
        for cols, est in ([(64, 1), (0, 1)] if blocks else [(0, 1)]):
            t = dict(c, epilogue=True, stages=st, epilogue_n=cols, epilogue_stages=est)
            if supported(t) is None:
                return t
    return c


def candidates_v20(m, n, k, dt):
    """The default; 128/192/256-row tiles 128-256 wide at the most stages, with the epilogue tile;
    the default and 128 x 256 on a 2-CTA cluster; ping-pong 128 x 128 and 64 x 256."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import supported

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out = [base]
    for bm, bn in ((128, 256), (128, 192), (128, 128), (256, 128), (192, 192), (192, 128),
                   (128, 224), (128, 160)):
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2}, 8)
        if c is not None:
            out.append(_epilogue_tile(c))
    for c in (base, out[1] if len(out) > 1 else None):
        if c is not None and supported(dict(c, cluster_m=2)) is None:
            out.append(dict(c, cluster_m=2))
    for bm, bn in ((128, 128), (64, 256)):
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2,
                  "pingpong": True, "epilogue": True, "epilogue_stages": 2}, 8)
        if c is not None:
            out.append(c)
    return out


def problems_v21():
    """Fresh seeds 1-5's losers whose default plan splits K or swaps A and B (decode and
    few-tile long-K shapes): more or fewer splits, 64-row tiles?"""
    return _sixteenth_losers(lambda r: r["plan"]["split_k"] > 1 or r["plan"]["swap_ab"])


def candidates_v21(m, n, k, dt):
    """The default; its tile at 1/2, 3/2, 2 and 3 times its splits (at least 2 k-tiles a split,
    at most 64 splits); the same with 64 rows (BM) in place of 128; for an unswapped plan, the
    128 x 256 tile split to fill the SMs."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import supported

    base = choose_plan(m, n, k, dt, dt)
    out = [base]

    def with_splits(c):
        kt = -(-k // c["bk"])
        s0 = base["split_k"]
        for s in sorted({1, max(1, s0 // 2), (3 * s0) // 2, 2 * s0, 3 * s0}):
            if 1 <= s <= min(64, kt // 2 if s > 1 else 1):
                t = dict(c, split_k=s, split_reduce="auto")
                if supported(t) is None:
                    out.append(t)

    with_splits(base)
    if base["bm"] == 128:
        small = _fit(dict(base, bm=64), 8)
        if small is not None:
            with_splits(small)
    if not base["swap_ab"]:
        wide = _fit({"a_dtype": dt, "b_dtype": dt, "bm": 128, "bn": min(256, -(-n // 8) * 8),
                     "bk": base["bk"], "stages": 2}, 8)
        if wide is not None:
            tiles = -(-m // 128) * -(-n // wide["bn"])
            s = max(1, min(132 // tiles, -(-k // wide["bk"]) // 4, 64))
            t = dict(wide, split_k=s)
            if supported(t) is None:
                out.append(t)
    return out


SEVENTEENTH_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-seventeenth-session",
                               "run7-final-corpus-seeds")


def _seventeenth_losers(keep, every):
    """(M, N, K, type) of fresh seeds 1-7's same-type problems in the seventeenth session's final
    run that ``keep(m)`` accepts: every one under 0.9x cuBLAS's speed, then every ``every``-th of
    the rest (the controls a rule must not slow down); seed 8 (20261205) stays out."""
    import gzip

    out, rest = [], []
    for seed in (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204):
        with gzip.open(os.path.join(SEVENTEENTH_RUN, f"fresh-{seed}.json.gz")) as f:
            rows = json.load(f)["rows"]
        for r in rows:
            if r["cublas"]["kind"] != "same" or not keep(r["m"]):
                continue
            key = (r["m"], r["n"], r["k"], r["a_dtype"])
            lost = r["cublas"]["median_ms"] / r["fastswz"]["median_ms"] < 0.9
            (out if lost else rest).append(key)
    return out + rest[::every]


def problems_v26():
    """(Probe sets v26, the first stream-K, whose cases are in the eighteenth session's run 1 log,
    and v28.) :func:`_seventeenth_losers` with M > 16, every fourth of the rest."""
    return _seventeenth_losers(lambda m: m > 16, 4)


def stream_k_plan(c, m, n, k, workers=132, most=16, registers=True):
    """``c`` (a one-pass tile, caller's frame) as a stream-K plan of ``workers`` CTAs (clusters
    with ``cluster_m`` 2) on M x N x K: split_k (the most pieces of a tail tile) enough for the
    tail to take every worker, at most ``most``; registers store D (``registers=False``: ``c``'s
    epilogue kept). None where the tiles make whole waves (nothing to share)."""
    km, kn = (n, m) if c.get("swap_ab") else (m, n)
    cm = c.get("cluster_m", 1)
    g = workers // cm
    tiles = -(-(-(-km // c["bm"])) // cm) * -(-kn // c["bn"])
    tail = tiles % g
    if tail == 0:
        return None
    pieces = min(most, -(-g // tail) + 1)
    sk = dict(c, split_k=pieces, stream_k=g, split_reduce="auto")
    return dict(sk, epilogue=False) if registers else sk


def candidates_v28(m, n, k, dt):
    """The default plan; stream-K as whole waves then a shared tail (132 workers, split_k enough
    for the tail to take every worker, at most 16) on the default's own tile, 128 x 256,
    128 x 192, 192 x 128, 128 x 128 and 128 x 256 in 2-CTA clusters."""
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out = [dict(base)]
    tiles = [(128, 256, 1), (128, 192, 1), (192, 128, 1), (128, 128, 1), (128, 256, 2)]
    if base["split_k"] == 1 and not base["swap_ab"] and not base["pingpong"]:
        tiles.insert(0, (base["bm"], base["bn"], base["cluster_m"]))
    for bm, bn, cm in tiles:
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2, "cluster_m": cm,
                  "split_k": 2, "stream_k": 132 // cm}, 8)
        c = c and stream_k_plan(c, m, n, k)
        if c is not None and c not in out:
            out.append(c)
    return out


def candidates_v29(m, n, k, dt):
    """The default plan; the same plan (its epilogue tile included) as stream-K, whole waves
    then a shared tail (132 workers, split_k enough for the tail to take every worker, at most
    16), where it is one pass and its tiles leave a tail; 128 x 256 through 64-column epilogue
    blocks as stream-K, with and without a 2-CTA cluster."""
    from fastswz.cuda import choose_plan, supported

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out = [dict(base)]

    def add(c):
        sk = c and stream_k_plan(c, m, n, k, registers=False)
        if sk is not None and supported(sk) is None and sk not in out:
            out.append(sk)

    if base["split_k"] == 1 and not base["swap_ab"] and not base["pingpong"]:
        add(dict(base))
    for cm in (1, 2):
        wide = None
        for stages in range(6, 2, -1):
            c = dict(base, bm=128, bn=256, bk=bk, stages=stages, epilogue=True, epilogue_n=64,
                     epilogue_stages=1, cluster_m=cm, swap_ab=False, split_k=1, pingpong=False)
            if supported(c) is None:
                wide = c
                break
        add(wide)
    return out


def problems_v30():
    """:func:`_seventeenth_losers` with 16 < M <= 1024, every third of the rest. The question:
    does swap-AB, which makes M the instruction's N (steps of 8 instead of tiles of 64 or 128
    rows), pay above SWAP_AB_MAX_M where 128-row tiles pad M?"""
    return _seventeenth_losers(lambda m: 16 < m <= 1024, 3)


def swap_fit_plan(m, n, k, dt, bm=128, pieces=None, split=1, cluster_m=1, max_stages=8):
    """A swapped plan (register stores) whose BN covers M in ``pieces`` column tiles of a
    multiple of 8 (default: the fewest tiles of at most 256), BM rows of N, ``split`` K splits."""
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    p = pieces or -(-m // 256)
    bn = -(-m // (8 * p)) * 8   # ceil(ceil(M / p) / 8) * 8
    if bn > 256:
        return None
    c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2, "swap_ab": True,
              "epilogue": False, "split_k": split, "cluster_m": cluster_m}, max_stages)
    return c


def candidates_v30(m, n, k, dt):
    """The default; swap-AB with BN covering M in the fewest tiles of <= 256 columns on 128 rows
    of N (one pass; K split to fill the SMs where the tiles are fewer than 100; a 2-CTA
    cluster); one more piece of M where that leaves under a wave; 64 rows of N."""
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out = [dict(base)]

    def add(c):
        if c is not None and c not in out:
            out.append(c)

    p = -(-m // 256)
    one = swap_fit_plan(m, n, k, dt)
    add(one)
    tiles = -(-n // 128) * p
    if tiles < 100:
        s = max(1, min(132 // tiles, -(-k // bk) // 8, 16))
        if s > 1:
            add(swap_fit_plan(m, n, k, dt, split=s))
    if tiles < 132:
        add(swap_fit_plan(m, n, k, dt, pieces=p + 1))
    add(swap_fit_plan(m, n, k, dt, cluster_m=2))
    add(swap_fit_plan(m, n, k, dt, bm=64))
    return out


def _rule_changes(old_consts, rows):
    """Each (M, N, K, type) of ``rows`` (K-major, bf16 output) whose choose_plan plan changes when
    the module constants ``old_consts`` take their old values, with ``[new plan, old plan]``."""
    import fastswz.cuda as fc

    out = []
    for m, n, k, dt in rows:
        fc.choose_plan.cache_clear()
        new = fc.choose_plan(m, n, k, dt, dt)
        saved = {name: getattr(fc, name) for name in old_consts}
        try:
            for name, v in old_consts.items():
                setattr(fc, name, v)
            fc.choose_plan.cache_clear()
            old = fc.choose_plan(m, n, k, dt, dt)
        finally:
            for name, v in saved.items():
                setattr(fc, name, v)
            fc.choose_plan.cache_clear()
        if new != old:
            out.append(((m, n, k, dt), [new, old]))
    return out


def _drawn_where(region, rng, draw, count, exclude=(), tries=20000):
    """Up to ``count`` problems ``draw(rng)`` gives (at most ``tries`` draws), none in
    ``exclude`` and none twice, for which ``region`` holds."""
    got = []
    for _ in range(tries):
        if len(got) == count:
            break
        q = draw(rng)
        if q not in exclude and q not in got and region(q):
            got.append(q)
    return got


def _drawn_changes(old_consts, rng, draw, count, tries, exclude=()):
    """Up to ``count`` problems ``draw(rng)`` gives (at most ``tries`` draws), none in
    ``exclude`` and none twice, whose choose_plan plan the constants ``old_consts`` change."""
    return _drawn_where(lambda q: _rule_changes(old_consts, [q]), rng, draw, count, exclude, tries)


def _new_and_old(old_consts, m, n, k, dt):
    """A held-out set's candidates: choose_plan's plan (first, the default) and the plan with
    ``old_consts`` (the rule off), or none where the two are the same."""
    got = _rule_changes(old_consts, [(m, n, k, dt)])
    return got[0][1] if got else []


class _Consts:
    """``with _Consts(values):`` fastswz.cuda's module constants (or functions) ``values`` in
    place, choose_plan's memo cleared on the way in and out: a probe set drawn under the rules as
    they were when it ran."""

    def __init__(self, values):
        self.values, self.saved = values, {}

    def __enter__(self):
        import fastswz.cuda as fc

        self.saved = {name: getattr(fc, name) for name in self.values}
        for name, v in self.values.items():
            setattr(fc, name, v)
        fc.choose_plan.cache_clear()

    def __exit__(self, *exc):
        import fastswz.cuda as fc

        for name, v in self.saved.items():
            setattr(fc, name, v)
        fc.choose_plan.cache_clear()


def _as_run(consts, problems, candidates):
    """``(problems, candidates)`` of a probe set, each called under fastswz.cuda's constants
    ``consts`` (:class:`_Consts`): the set as it ran, under the rules of that time."""
    def as_run_problems():
        with _Consts(consts):
            return problems()

    def as_run_candidates(m, n, k, dt):
        with _Consts(consts):
            return candidates(m, n, k, dt)

    return as_run_problems, as_run_candidates


def _all_run_problems(run=None, same_type=False, seeds=None):
    """(M, N, K, type) of the shipped corpus and fresh seeds 1-8 (or ``seeds``) as a corpus run
    timed them (both operands K-major), each once: ``run`` the run's directory (default the
    seventeenth session's final run); ``same_type``: only rows timed against cuBLAS of their own
    type."""
    import gzip

    out = []
    seeds = seeds or (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205)
    for name in ["corpus"] + [f"fresh-{s}" for s in seeds]:
        with gzip.open(os.path.join(run or SEVENTEENTH_RUN, f"{name}.json.gz")) as f:
            for r in json.load(f)["rows"]:
                key = (r["m"], r["n"], r["k"], r["a_dtype"])
                if (r["a_major"] == r["b_major"] == "K" and key not in out
                        and (not same_type or r["cublas"]["kind"] == "same")):
                    out.append(key)
    return out


def problems_v31():
    """Every problem of the shipped corpus and fresh seeds 1-8 that SWAP_LONG_K_MAX_M's or
    SWAP_DEEP_MAX_K_8BIT's rule changes, then those of 64 + 24 drawn in their regions (seed
    20261207: bf16, M 65-512, N 2048-16384, K 8192-32768; e4m3, M 17-64, N 3072-16384, K
    4097-8192; each uniform): the rules' plan against the plan before them."""
    import random

    rng = random.Random(20261207)
    drawn = [(rng.randint(65, 512), rng.randint(2048, 16384), rng.randint(8192, 32768), "bf16")
             for _ in range(64)]
    drawn += [(rng.randint(17, 64), rng.randint(3072, 16384), rng.randint(4097, 8192), "e4m3")
              for _ in range(24)]
    return [p for p, _ in _rule_changes(V31_OLD, _all_run_problems() + drawn)]


#: The constants of the nineteenth session's two rules as they were before them.
V31_OLD = {"SWAP_LONG_K_MAX_M": 0, "SWAP_DEEP_MAX_K_8BIT": 4096}


def candidates_v31(m, n, k, dt):
    """The rules' plan (first, the default) and the plan before them."""
    return _rule_changes(V31_OLD, [(m, n, k, dt)])[0][1]


NINETEENTH_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-nineteenth-session",
                              "run6-corpus-seeds-tests")
#: The constant of the twentieth session's cluster rule as it was before it (no limit).
V33_OLD = {"SECTOR_CLUSTER_PAD_WAVES": 1e9}


def _log_uniform(rng, lo, hi):
    """An integer drawn log-uniformly in [lo, hi) by ``rng`` (random.Random)."""
    import math

    return int(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def problems_v33():
    """Every problem of the shipped corpus and fresh seeds 1-8 that SECTOR_CLUSTER_PAD_WAVES's
    rule changes, then those of 400 drawn with rows off the 32-byte sector (seed 20261209: e4m3
    and bf16, M 200-8000, N 500-30000 log-uniform, K an odd multiple of 16 bytes, 300-30000
    elements) that it changes, at most 30: the rule's plan against the plan before it."""
    import random

    rng = random.Random(20261209)

    drawn = []
    for _ in range(400):
        dt = rng.choice(("e4m3", "bf16"))
        e = 1 if dt == "e4m3" else 2
        k = (_log_uniform(rng, 300, 30000) * e // 32 * 32 + 16) // e
        drawn.append((_log_uniform(rng, 200, 8000), _log_uniform(rng, 500, 30000), k, dt))
    run = [p for p, _ in _rule_changes(V33_OLD, _all_run_problems())]
    return run + [p for p, _ in _rule_changes(V33_OLD, drawn)][:30]


def candidates_v33(m, n, k, dt):
    """The rule's plan (first, the default) and the plan before it."""
    return _rule_changes(V33_OLD, [(m, n, k, dt)])[0][1]


def problems_v34():
    """bf16 problems of fresh seeds 1-8 in the nineteenth session's final run with N <= 768 and
    M >= 1024 that ran under 0.85x cuBLAS's speed (narrow N, many rows; seed 8's last, held
    out): the question is which tile, split and cluster the default should take there."""
    import gzip

    out = []
    for seed in (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205):
        with gzip.open(os.path.join(NINETEENTH_RUN, f"fresh-{seed}.json.gz")) as f:
            for r in json.load(f)["rows"]:
                if (r["a_dtype"] == "bf16" and r["n"] <= 768 and r["m"] >= 1024 and r["cublas"]["kind"] == "same"
                        and r["cublas"]["median_ms"] / r["fastswz"]["median_ms"] < 0.85):
                    key = (r["m"], r["n"], r["k"], "bf16")
                    if key not in out:
                        out.append(key)
    return out


TWENTIETH_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-twentieth-session",
                              "run4-corpus-seeds-tests")


def problems_v36():
    """The problems of the shipped corpus and fresh seeds 1-7 in the twentieth session's corpus
    run (run 4) under 0.85x cuBLAS's speed, then every 30th of the rest (controls), then seed 8's
    (20261205) under 0.85x and every 30th of its rest (held out). The question: does a 2-CTA
    cluster along N (cluster_n=2: A multicast to the two CTAs of a tile row) pay where cuBLAS's
    kernels run 2 x 2 and 4 x 2 clusters (Nsight Compute, run 5)?"""
    import gzip

    def rows(names):
        lost, rest = [], []
        for name in names:
            with gzip.open(os.path.join(TWENTIETH_RUN, f"{name}.json.gz")) as f:
                for r in json.load(f)["rows"]:
                    if r["cublas"]["kind"] != "same" or r["a_major"] != "K" or r["b_major"] != "K":
                        continue
                    key = (r["m"], r["n"], r["k"], r["a_dtype"])
                    (lost if r["cublas"]["median_ms"] / r["fastswz"]["median_ms"] < 0.85 else rest).append(key)
        return lost + rest[::30]

    seeds = (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204)
    out = []
    for p in rows(["corpus"] + [f"fresh-{s}" for s in seeds]) + rows(["fresh-20261205"]):
        if p not in out:
            out.append(p)
    return out


def _one_pass_on_cluster(base, cluster_m, cluster_n):
    """``base`` on a cluster of ``cluster_m`` x ``cluster_n`` CTAs, whole tiles with cooperative
    consumers (a split default unsplit, its D from registers)."""
    one = dict(base, cluster_m=cluster_m, cluster_n=cluster_n, split_k=1, stream_k=0, pingpong=False)
    if base["split_k"] > 1:
        one = dict(one, epilogue=False, epilogue_n=0, epilogue_stages=1)
    return one


def candidates_v36(m, n, k, dt):
    """The default; the default on a 2-CTA cluster along N instead (one pass: a split default
    unsplit, its D from registers); 128 x 128 and 128 x 256 tiles on one (64-column epilogue
    blocks)."""
    from fastswz.cuda import choose_plan, supported

    base = choose_plan(m, n, k, dt, dt)
    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out = [dict(base)]

    def add(c):
        if c is not None and supported(c) is None and c not in out:
            out.append(c)

    add(_one_pass_on_cluster(base, 1, 2))
    if not base["swap_ab"]:
        for bm, bn in ((128, 128), (128, 256)):
            add(_fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2, "epilogue": True,
                      "epilogue_n": 64, "cluster_n": 2}, 8))
    return out


def _twentieth_run_problems():
    """(M, N, K, type) of the shipped corpus and fresh seeds 1-8 as the twentieth session's
    corpus run (run 4) timed them (same-type rows, both operands K-major), each once."""
    return _all_run_problems(TWENTIETH_RUN, same_type=True)


#: SECTOR_FULL_WIDTH_BITS before the twenty-first session's rule (none).
V37_OLD = {"SECTOR_FULL_WIDTH_BITS": ()}


def problems_v37():
    """Every problem of the shipped corpus and fresh seeds 1-8 (twentieth session, run 4) that
    SECTOR_FULL_WIDTH_BITS' rule changes; then those of 600
    drawn with rows off the 32-byte sector (seed 20261210: e4m3 and bf16, M log-uniform 1-16000,
    N 256-32000, K an odd multiple of 16 bytes, 256-32000 bytes) that it changes, at most 40 of
    each type (held out: the rule was read off the run's 12 e4m3 problems with narrow k-tiles)."""
    import random

    rng = random.Random(20261210)

    drawn = []
    for _ in range(600):
        dt = rng.choice(("e4m3", "bf16"))
        e = 1 if dt == "e4m3" else 2
        k = (_log_uniform(rng, 256, 32000) // 32 * 32 + 16) // e
        drawn.append((_log_uniform(rng, 1, 16000), _log_uniform(rng, 256, 32000), k, dt))

    def changed(rows):
        return [p for p in rows if _rule_changes(V37_OLD, [p])]

    run = changed(_twentieth_run_problems())
    got = changed(drawn)
    return (run + [p for p in got if p[3] == "e4m3"][:40] + [p for p in got if p[3] == "bf16"][:40])


def candidates_v37(m, n, k, dt):
    """The rule's plan (first, the default), the plan before it, and for e4m3 the rule's plan on a
    2-CTA cluster along N where it has one along M. (Run 1 had the rule on 8-bit operands only:
    its bf16 cases put the plan before the rule first and the rule widened to 16 bits second.)"""
    from fastswz.cuda import supported

    new, old = _rule_changes(V37_OLD, [(m, n, k, dt)])[0][1]
    out = [new, old]
    if dt == "e4m3" and new["cluster_m"] == 2:
        along_n = dict(new, cluster_m=1, cluster_n=2)
        if supported(along_n) is None:
            out.append(along_n)
    return out


def problems_v38():
    """e4m3 problems of the shipped corpus and fresh seeds 1-8 (twentieth session, run 4) with
    rows off the 32-byte sector, M 17-512 and a one-pass, unswapped default (the tile rows of a
    column re-read B's rows, off the sector, from L2), then 30 drawn in that region (seed
    20261211: M 17-512, N 1024-30000 log-uniform, K an odd multiple of 16 bytes, 1024-30000)."""
    import random

    from fastswz.cuda import choose_plan

    rng = random.Random(20261211)

    def region(p):
        m, n, k, dt = p
        if dt != "e4m3" or k % 32 != 16 or not 17 <= m <= 512:
            return False
        c = choose_plan(m, n, k, dt, dt)
        return not c["swap_ab"] and c["split_k"] == 1 and c["stream_k"] == 0
    run = [p for p in _twentieth_run_problems() if region(p)]
    drawn = []
    while len(drawn) < 30:
        p = (_log_uniform(rng, 17, 512), _log_uniform(rng, 1024, 30000), _log_uniform(rng, 1024, 30000) // 32 * 32 + 16, "e4m3")
        if region(p):
            drawn.append(p)
    return run + drawn


def candidates_v38(m, n, k, dt):
    """The default; the default on a 2-CTA cluster along M (B multicast: each tile column's rows
    of B read once for two tile rows) and along N; a 128-row tile (one tile row up to M = 128) of
    the default's BN, alone and along N."""
    base, out, add = _default_and_more(m, n, k, dt)

    one = dict(base, cluster_m=1, cluster_n=1)
    add(dict(one, cluster_m=2))
    add(dict(one, cluster_n=2))
    if base["bm"] != 128:
        tall = _fit(dict(one, bm=128, stages=2), 8)
        add(tall)
        if tall is not None:
            add(dict(tall, cluster_n=2))
    return out


def _draw_in(rng, count, ms, ns, region):
    """``count`` problems drawn by ``rng`` (random.Random) for which ``region`` holds: e4m3 or
    bf16, M in ``ms`` and N in ``ns`` (half-open ranges) and K in [2048, 32768) log-uniform, K a
    multiple of 16."""
    drawn = []
    while len(drawn) < count:
        dt = rng.choice(("e4m3", "bf16"))
        p = (_log_uniform(rng, *ms), _log_uniform(rng, *ns), _log_uniform(rng, 2048, 32768) // 16 * 16, dt)
        if region(p):
            drawn.append(p)
    return drawn


def _v39_region(p):
    """A swapped, unsplit default with more tiles than SPLIT_K_FILL's half of the SMs and at most
    two waves: the memory-bound decode plans that leave SMs idle for the whole K loop."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    tiles = -(-n // c["bm"]) * -(-m // c["bn"])
    return c["swap_ab"] and c["split_k"] == 1 and 66 < tiles <= 264 and -(-k // c["bk"]) >= 16


def problems_v39():
    """Every other problem of fresh seeds 1-8 (twentieth session, run 4) in _v39_region, then
    30 drawn there (seed 20261212: M 1-64, N 3000-40000 and K 2048-32768
    log-uniform, K a multiple of 16 bytes, e4m3 and bf16)."""
    import random

    rng = random.Random(20261212)

    import gzip

    seeds = (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205)
    run = []
    for seed in seeds:   # the seeds only: the shipped corpus's plans come from the tuned table
        with gzip.open(os.path.join(TWENTIETH_RUN, f"fresh-{seed}.json.gz")) as f:
            for r in json.load(f)["rows"]:
                p = (r["m"], r["n"], r["k"], r["a_dtype"])
                if r["cublas"]["kind"] == "same" and p not in run and _v39_region(p):
                    run.append(p)
    return run[::2] + _draw_in(rng, 30, (1, 64), (3000, 40000), _v39_region)


def candidates_v39(m, n, k, dt):
    """The default; it split 2, 3, 4 and 6 ways; where its k-tiles are narrow, its tile with
    full-width ones, unsplit and split 2-3 ways; a 64-row tile of full-width k-tiles on the
    deepest ring (<= 8 stages), unsplit and split 2-4 ways."""
    base, out, add = _default_and_more(m, n, k, dt)

    for s in (2, 3, 4, 6):
        add(dict(base, split_k=s))
    bits = 8 if dt == "e4m3" else 16
    if base["bk"] * bits < 1024:   # the same tile with full-width k-tiles
        wide = _fit(dict(base, bk=1024 // bits, swizzle_a="128B", swizzle_b="128B", stages=2), 8)
        if wide is not None:
            for s in (1, 2, 3):
                add(dict(wide, split_k=s))
    if base["bm"] != 64:
        deep = _fit(dict(base, bm=64, bk=2048 // bits, swizzle_a="128B", swizzle_b="128B", stages=2), 8)
        if deep is not None:
            for s in (1, 2, 3, 4):
                add(dict(deep, split_k=s))
    return out


TWENTY_FIRST_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-twenty-first-session",
                                 "run2-corpus-seeds-v39")


def problems_v40():
    """The split-K defaults of fresh seeds 1-8 in the twenty-first session's run 2 under 0.95x
    cuBLAS's speed, then every third of the rest (controls): which split count, reduction and
    tile the split rules should have taken."""
    import gzip

    slow, rest = [], []
    for seed in (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205):
        with gzip.open(os.path.join(TWENTY_FIRST_RUN, f"fresh-{seed}.json.gz")) as f:
            for r in json.load(f)["rows"]:
                if r["cublas"]["kind"] != "same" or r["plan"]["split_k"] < 2:
                    continue
                p = (r["m"], r["n"], r["k"], r["a_dtype"])
                if p in slow or p in rest:
                    continue
                (slow if r["cublas"]["median_ms"] / r["fastswz"]["median_ms"] < 0.95 else rest).append(p)
    return slow + rest[::3]


def candidates_v40(m, n, k, dt):
    """The default (split s); its tile split s - 1, s + 1 and to about one and two waves of work
    units; its split with the other reduction; 128 x 256 (64 x 256 at M <= 64) split to about one
    wave."""
    base, out, add = _default_and_more(m, n, k, dt)

    km, kn = (n, m) if base["swap_ab"] else (m, n)
    k_tiles = -(-k // base["bk"])

    def split_to(c, units):
        tiles = -(-km // c["bm"]) * -(-kn // c["bn"])
        return max(2, min(32, units // tiles, -(-k // c["bk"]) // 4))

    s = base["split_k"]
    for t in (s - 1, s + 1, split_to(base, 132), split_to(base, 264)):
        if 2 <= t <= 32 and k_tiles // t >= 4:
            add(dict(base, split_k=t))
    other = "kernel" if base["split_reduce"] != "kernel" else "last_cta"
    add(dict(base, split_reduce=other))
    if not base["swap_ab"]:
        wide = _fit(dict(base, bm=128 if m > 64 else 64, bn=256, stages=2), 8)
        if wide is not None:
            add(dict(wide, split_k=split_to(wide, 132)))
    return out


def problems_v41():
    """e4m3 problems of fresh seeds 1-8 in the twenty-first session's run 2 whose rows are off
    the 32-byte sector (K = 16 mod 32 bytes), the default unswapped: those under 0.95x cuBLAS's
    speed, then every third of the rest; every tenth of the on-sector unswapped ones (controls).
    The question: do 2 x 2 clusters (both operands multicast, as cuBLAS's nvjet kernels there:
    Nsight Compute, twentieth session run 5) pay where the 2-CTA ones did not?"""
    import gzip

    slow, rest, on = [], [], []
    for seed in (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205):
        with gzip.open(os.path.join(TWENTY_FIRST_RUN, f"fresh-{seed}.json.gz")) as f:
            for r in json.load(f)["rows"]:
                if r["cublas"]["kind"] != "same" or r["a_dtype"] != "e4m3" or r["plan"]["swap_ab"]:
                    continue
                p = (r["m"], r["n"], r["k"], "e4m3")
                if p in slow or p in rest or p in on:
                    continue
                if r["k"] % 32 != 16:
                    on.append(p)
                else:
                    (slow if r["cublas"]["median_ms"] / r["fastswz"]["median_ms"] < 0.95 else rest).append(p)
    return slow + rest[::3] + on[::10]


def candidates_v41(m, n, k, dt):
    """The default; its tile on a 2 x 2 cluster (one pass: a split default unsplit, D from
    registers); 128 x 256 and 128 x 128 tiles of 128-element k-tiles on 2 x 2 clusters (64-column
    epilogue blocks); at M <= 256 also 64 x 128 and 64 x 64 ones."""
    base, out, add = _default_and_more(m, n, k, dt)

    add(_one_pass_on_cluster(base, 2, 2))
    tiles = [(128, 256), (128, 128)] + ([(64, 128), (64, 64)] if m <= 256 else [])
    for bm, bn in tiles:
        add(_fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": 128, "stages": 2, "epilogue": True,
                  "epilogue_n": 64 if bn > 64 else 0, "cluster_m": 2, "cluster_n": 2}, 8))
    return out


def _v42_region(p):
    """A one-pass default on a 2-CTA cluster along M (SECTOR_CLUSTER_WAVES' rule) with an even
    number of tile columns, at least 16 k-tiles and at most two waves of tiles: where v41's
    2 x 2 clusters of the default's tile won (1274 x 1312 x 2416 1.18x, 590 x 1536 x 2896 1.12x,
    6299 x 1392 x 3504 1.09x, 1247 x 4192 x 25200 1.29x, 7351 x 864 x 22128 1.06x; 4057 x 672 x
    19856 0.72x)."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    rows, cols = -(-m // c["bm"]), -(-n // c["bn"])
    return (c["cluster_m"] == 2 and c["split_k"] == 1 and not c["swap_ab"] and cols % 2 == 0
            and -(-k // c["bk"]) >= 16 and rows * cols <= 264)


def problems_v42():
    """60 problems drawn in _v42_region (seed 20261213: e4m3 and bf16, M 200-8000, N 256-8000
    log-uniform, K an odd multiple of 16 bytes, 2000-30000 bytes): held out for v41's pattern."""
    import random

    rng = random.Random(20261213)

    out = []
    while len(out) < 60:
        dt = rng.choice(("e4m3", "bf16"))
        e = 1 if dt == "e4m3" else 2
        p = (_log_uniform(rng, 200, 8000), _log_uniform(rng, 256, 8000), (_log_uniform(rng, 2000, 30000) // 32 * 32 + 16) // e, dt)
        if _v42_region(p):
            out.append(p)
    return out


def candidates_v42(m, n, k, dt):
    """The default (a 2-CTA cluster along M) and its tile on a 2 x 2 cluster."""
    from fastswz.cuda import choose_plan, supported

    base = choose_plan(m, n, k, dt, dt)
    both = dict(base, cluster_n=2)
    return [base] + ([both] if supported(both) is None else [])


def _full_width_everywhere(m, n, k, a_dtype, b_dtype, a_major, b_major):
    """SECTOR_FULL_WIDTH_BITS' test with the sector left out: every 8- or 16-bit problem."""
    from fastswz.cuda import SECTOR_FULL_WIDTH_BITS, dtype_bits

    return dtype_bits(a_dtype) in SECTOR_FULL_WIDTH_BITS and dtype_bits(b_dtype) in SECTOR_FULL_WIDTH_BITS


#: v43's question as module values: the full-width rule on rows on the sector too.
V43_EVERYWHERE = {"_sector_wide_only": _full_width_everywhere}


def _draw_on_sector(rng, count):
    """``count`` problems drawn by ``rng`` (random.Random) on the 32-byte sector: e4m3 or bf16,
    M 1-16000, N 256-32000 and K 256-32000 bytes log-uniform, K a multiple of 32 bytes."""
    drawn = []
    for _ in range(count):
        dt = rng.choice(("e4m3", "bf16"))
        e = 1 if dt == "e4m3" else 2
        drawn.append((_log_uniform(rng, 1, 16000), _log_uniform(rng, 256, 32000),
                      _log_uniform(rng, 256, 32000) // 32 * 32 // e, dt))
    return drawn


def problems_v43():
    """Problems of fresh seeds 1-8 (twentieth session, run 4) whose default changes when
    SECTOR_FULL_WIDTH_BITS' rule applies on the sector too (v39 saw full-width k-tiles win on 7
    of 9 swapped plans there), then up to 40 of each type of 800 drawn on the sector (seed
    20261214: M 1-16000, N 256-32000, K 256-32000 bytes log-uniform, K a multiple of 32 bytes)."""
    import random

    drawn = _draw_on_sector(random.Random(20261214), 800)
    seeds = [p for p in _all_run_problems(TWENTIETH_RUN, same_type=True)]
    run = [p for p, _ in _rule_changes(V43_EVERYWHERE, seeds)]
    got = [p for p, _ in _rule_changes(V43_EVERYWHERE, drawn)]
    return run + [p for p in got if p[3] == "e4m3"][:40] + [p for p in got if p[3] == "bf16"][:40]


def candidates_v43(m, n, k, dt):
    """The default (first) and the plan with full-width k-tiles by the rule on the sector too."""
    return _rule_changes(V43_EVERYWHERE, [(m, n, k, dt)])[0][1]


def _v44_region(p):
    """16 < M <= 128, K-major operands of one 8- or 16-bit type, an unswapped default with N
    over M: where SPLIT_K_SWAP_M's rule splits K unswapped (M <= 64) or the 64- and 128-row
    rules take over (M 65-128), while the same layer at M = 16 runs swapped."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    return 16 < m <= 128 and n > m and not choose_plan(m, n, k, dt, dt)["swap_ab"]


def problems_v44():
    """:func:`_problems_v44` under the rules as they were when v44 ran."""
    with _Consts(V44_BEFORE):
        return _problems_v44()


def _problems_v44():
    """Every problem of the shipped corpus and every third of fresh seeds 1-8 (twenty-first
    session, run 2) in _v44_region, then 40 drawn there (seed 20261215: M 17-128, N 1500-40000 and K 2048-32768
    log-uniform, K a multiple of 16 elements, e4m3 and bf16). The question: the corpus's M = 32
    and 64 down and output projections run 10-17% slower on their unswapped split than the same
    layer at M = 16 on its swapped plan, with the same weight bytes to read."""
    import random

    rng = random.Random(20261215)
    import gzip

    with gzip.open(os.path.join(TWENTY_FIRST_RUN, "corpus.json.gz")) as f:
        shipped = {(r["m"], r["n"], r["k"], r["a_dtype"]) for r in json.load(f)["rows"]}
    run = [p for p in _all_run_problems(TWENTY_FIRST_RUN, same_type=True) if _v44_region(p)]
    run = [p for p in run if p in shipped] + [p for p in run if p not in shipped][::3]
    return run + _draw_in(rng, 40, (17, 129), (1500, 40000), _v44_region)


#: The two rules of the twenty-second session as they were before it (v44 and v45 ran then).
V44_BEFORE = {"NARROW_BK_BYTES": 0, "SWAP_SPLIT_MIN_TILES": 1 << 30}


def _swap_whole_m(m, n, k, dt, split=1, bm=64):
    """A swapped plan whose one column tile covers M (BN = M rounded up to 8), BM rows of N,
    256-byte k-tiles, the deepest ring up to 8 stages, ``split`` K splits."""
    bits = 8 if dt == "e4m3" else 16
    return _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": -(-m // 8) * 8, "bk": 2048 // bits,
                 "stages": 2, "swap_ab": True, "epilogue": False, "split_k": split,
                 "swizzle_a": "128B", "swizzle_b": "128B"}, 8)


def candidates_v44(m, n, k, dt):
    """:func:`_candidates_v44` under the rules as they were when v44 ran."""
    with _Consts(V44_BEFORE):
        return _candidates_v44(m, n, k, dt)


def _candidates_v44(m, n, k, dt):
    """The default; a swapped 64-row tile covering M in one column tile, unsplit and split 2 and 3
    ways; above M = 64 the same on 128 rows."""
    from fastswz.cuda import choose_plan

    out = [dict(choose_plan(m, n, k, dt, dt))]

    def add(c):
        if c is not None and c not in out:
            out.append(c)

    if -(-m // 8) * 8 <= 256:
        for s in (1, 2, 3):
            add(_swap_whole_m(m, n, k, dt, s))
        if m > 64:
            add(_swap_whole_m(m, n, k, dt, 1, 128))
    return out


def _narrowest_k_tile_bytes(c):
    return c["bk"] * (1 if c["a_dtype"] in ("e4m3", "e5m2") else 2)


def problems_v45():
    """:func:`_problems_v45` under the rules as they were when v45 ran."""
    with _Consts(V44_BEFORE):
        return _problems_v45()


def _problems_v45():
    """Held out for the rule v43 suggested (no 32-byte k-tiles): up to 25 of each type among
    4000 drawn on the sector (seed 20261216: M 1-16000, N 256-32000, K 256-32000 bytes
    log-uniform, K a multiple of 32 bytes) whose default has k-tiles of 32 bytes."""
    import random

    from fastswz.cuda import choose_plan

    got = {"e4m3": [], "bf16": []}
    for p in _draw_on_sector(random.Random(20261216), 4000):
        dt = p[3]
        if len(got[dt]) < 25 and _narrowest_k_tile_bytes(choose_plan(*p[:3], dt, dt)) <= 32:
            got[dt].append(p)
    return got["e4m3"] + got["bf16"]


def candidates_v45(m, n, k, dt):
    """:func:`_candidates_v45` under the rules as they were when v45 ran."""
    with _Consts(V44_BEFORE):
        return _candidates_v45(m, n, k, dt)


def _candidates_v45(m, n, k, dt):
    """The default (first) and its tile with 64- and 128-byte k-tiles at the deepest ring up to
    max(8, its stages) that fits."""
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    out = [dict(base)]
    bits = 8 if dt == "e4m3" else 16
    for width in (64, 128):
        sw = f"{width}B"
        c = _fit(dict(base, bk=8 * width // bits, swizzle_a=sw, swizzle_b=sw, stages=2), max(8, base["stages"]))
        if c is not None and c not in out:
            out.append(c)
    return out


#: The constant of the twenty-second session's k-tile rule as it was before it (never).
V46_OLD = {"NARROW_BK_BYTES": 0}


def problems_v46():
    """v45's 27 problems, then up to 15 of each type among 4000 more drawn as v45's (seed
    20261217) whose plan NARROW_BK_BYTES' rule changes."""
    import random

    drawn = _draw_on_sector(random.Random(20261217), 4000)
    old = problems_v45()
    got = [p for p, _ in _rule_changes(V46_OLD, [p for p in drawn if p not in old])]
    return old + [p for p in got if p[3] == "e4m3"][:15] + [p for p in got if p[3] == "bf16"][:15]


def candidates_v46(m, n, k, dt):
    """The rule's plan (first, the default: the old plan's tile with 64-byte k-tiles) and the
    plan before it. (Run 2 of the twenty-second session timed a first form of the rule, the
    model's first row with 64-byte k-tiles, in front of these two: 0.92x this plan in geometric
    mean, so the rule became this one; its cases are in that run's log folder.)"""
    got = _rule_changes(V46_OLD, [(m, n, k, dt)])
    return got[0][1] if got else []


#: The constant of the twenty-second session's swap rule as it was before it (never).
V47_OLD = {"SWAP_SPLIT_MIN_TILES": 1 << 30}
#: What v47 ran: the swap rule before its exception (SWAP_SPLIT_ONE_PASS_MAX_M), set after it.
V47_RAN = {"SWAP_SPLIT_ONE_PASS_MAX_M": 1 << 30}


def problems_v47():
    """:func:`_problems_v47` under the swap rule as v47 ran it (V47_RAN)."""
    with _Consts(V47_RAN):
        return _problems_v47()


def candidates_v47(m, n, k, dt):
    """The rule's plan as v47 ran it (first, the default) and the plan before it."""
    with _Consts(V47_RAN):
        got = _rule_changes(V47_OLD, [(m, n, k, dt)])
    return got[0][1] if got else []


def _problems_v47():
    """Held out for SWAP_SPLIT_MIN_TILES' rule: the problems of fresh seeds 1-8 (twenty-first
    session, run 2) it changes that v44 did not time, then up to 40 of 2000 drawn in v44's
    region (seed 20261218, v44's ranges) that it changes: the rule's plan against the plan
    before it."""
    import random

    rng = random.Random(20261218)
    timed = set(problems_v44())
    seeds = [p for p in _all_run_problems(TWENTY_FIRST_RUN, same_type=True) if p not in timed]
    drawn = []
    for _ in range(2000):
        dt = rng.choice(("e4m3", "bf16"))
        drawn.append((_log_uniform(rng, 17, 65), _log_uniform(rng, 1500, 40000),
                      _log_uniform(rng, 2048, 32768) // 16 * 16, dt))
    run = [p for p, _ in _rule_changes(V47_OLD, seeds)]
    got = [p for p, _ in _rule_changes(V47_OLD, drawn)]
    return run + got[:40]


TWENTY_SECOND_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-twenty-second-session",
                                 "run2-probes-v46-v47-corpus-seeds-tests")


def _v48_region(p):
    """An unswapped default with 64 < M <= 1024, at least 32 k-tiles of 128 bytes and at most two
    waves of work units (tiles x splits): the mid-M long-K problems where e4m3 ran 0.94-0.97x
    cuBLAS's speed in geometric mean on fresh seeds 1-8 (19 of 65 under 0.9x)."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    tiles = -(-m // c["bm"]) * -(-n // c["bn"])
    bits = 8 if dt == "e4m3" else 16
    return (not c["swap_ab"] and 64 < m <= 1024 and k * bits // 8 // 128 >= 32
            and tiles * c["split_k"] <= 264)


def _problems_v48():
    """Every e4m3 and every other bf16 problem of fresh seeds 1-8 (twenty-second session, run 2)
    in _v48_region, then 30 drawn there (seed 20261219: M 65-1024, N 256-32000 and K 2048-32768
    log-uniform, K a multiple of 16, e4m3 and bf16). The question: does a 2-CTA cluster along M
    (B multicast: an fp8 128 x 256 tile at full rate reads about 48 KB of operands per k-tile
    per SM, near what L2 serves to 132 SMs) pay on split plans, and which tile and split fill
    the SMs best there?"""
    import random

    rng = random.Random(20261219)
    import gzip

    with gzip.open(os.path.join(TWENTY_SECOND_RUN, "corpus.json.gz")) as f:
        shipped = {(r["m"], r["n"], r["k"], r["a_dtype"]) for r in json.load(f)["rows"]}
    seeds = [p for p in _all_run_problems(TWENTY_SECOND_RUN, same_type=True)
             if p not in shipped and _v48_region(p)]
    run = [p for p in seeds if p[3] == "e4m3"] + [p for p in seeds if p[3] == "bf16"][::2]
    drawn = []
    while len(drawn) < 30:
        dt = rng.choice(("e4m3", "bf16"))
        q = (_log_uniform(rng, 65, 1025), _log_uniform(rng, 256, 32000),
             _log_uniform(rng, 2048, 32768) // 16 * 16, dt)
        if _v48_region(q):
            drawn.append(q)
    return run + drawn


def _fill_split(m, n, k, dt, bm, bn, cluster_m=1, units=132):
    """A bm x bn register-store plan of full-width k-tiles, split so that tiles x splits is about
    ``units`` (each split at least 8 k-tiles, at most 16 splits), on ``cluster_m`` CTAs along M,
    at the deepest ring up to 8 stages; None where it does not run."""
    bk = 128 if dt == "e4m3" else 64
    tiles = -(-m // bm) * -(-n // bn)
    s = max(1, min(units // tiles, -(-k // bk) // 8, 16))
    return _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2,
                 "epilogue": False, "split_k": s, "cluster_m": cluster_m}, 8)


def _default_and_more(m, n, k, dt):
    """``(base, out, add)``: choose_plan's plan, a candidate list holding it, and a function that
    appends a plan that runs and is not in the list yet (None is skipped)."""
    from fastswz.cuda import choose_plan, supported

    base = choose_plan(m, n, k, dt, dt)
    out = [dict(base)]

    def add(c):
        if c is not None and supported(c) is None and c not in out:
            out.append(c)

    return base, out, add


def _candidates_v48(m, n, k, dt):
    """The default; it on a 2-CTA cluster along M; its tile split twice as many ways (2 where
    it is one pass), with and without the cluster; 128 x 256 and 128 x 128 split to about one
    wave on the cluster, 128 x 128 also without; at M <= 512 64 x 128 on the cluster."""
    base, out, add = _default_and_more(m, n, k, dt)

    add(dict(base, cluster_m=2))
    twice = dict(base, split_k=2 * base["split_k"], epilogue=False, epilogue_n=0, epilogue_stages=1)
    for cm in (1, 2):
        add(dict(twice, cluster_m=cm))
    add(_fill_split(m, n, k, dt, 128, 256, 2))
    add(_fill_split(m, n, k, dt, 128, 128, 2))
    add(_fill_split(m, n, k, dt, 128, 128, 1))
    if m <= 512:
        add(_fill_split(m, n, k, dt, 64, 128, 2))
    return out


#: The two rules of the twenty-third session as they were before it (v48 ran then).
V49_OLD = {"SPLIT_K_MN_DOUBLE_MAX": 0, "SPLIT_CLUSTER_MIN_KTILES": 1 << 30, "DEEP_TILE_FEW_TILES": 0}


def _problems_v49():
    """Held out for SPLIT_K_MN_DOUBLE_MAX's, SPLIT_CLUSTER_MIN_KTILES' and DEEP_TILE_FEW_TILES'
    rules: the problems of fresh seeds 1-8 (twenty-second session, run 2) they change that v48
    did not time, then up to 30 drawn that each changes (seed 20261220: M 65-256, N 256-1500 for
    the first; e4m3, M 65-2048, N 256-8000 for the second; M 65-256, N 256-3000 for the third
    (it changes those in the first two regions too); K 2048-32768; log-uniform, K a multiple of
    16): the rules' plan against the plan before them."""
    import random

    rng = random.Random(20261220)
    timed = set(problems_v48())
    seeds = [p for p in _all_run_problems(TWENTY_SECOND_RUN, same_type=True) if p not in timed]
    run = [p for p, _ in _rule_changes(V49_OLD, seeds)]
    for ms, ns, types in (((65, 257), (256, 1500), ("e4m3", "bf16")), ((65, 2049), (256, 8000), ("e4m3",)),
                          ((65, 257), (256, 3000), ("e4m3", "bf16"))):
        run += _drawn_changes(V49_OLD, rng, lambda r, ms=ms, ns=ns, types=types: (
            _log_uniform(r, *ms), _log_uniform(r, *ns), _log_uniform(r, 2048, 32768) // 16 * 16,
            r.choice(types)), 30, 3000, run)
    return run


def _candidates_v49(m, n, k, dt):
    """The rules' plan (first, the default) and the plan before them."""
    return _new_and_old(V49_OLD, m, n, k, dt)


#: v48 as it ran: before the twenty-third session's rules.
#: The twenty-fourth session's rules switched off: the twenty-third session's sets ran before them.
BEFORE_24 = {"SPLIT_EVEN_MIN_COLUMNS": 1 << 30, "SHORT_K_WHOLE_TILE_KTILES": 0}
problems_v48, candidates_v48 = _as_run({**V49_OLD, **BEFORE_24}, _problems_v48, _candidates_v48)
#: v49 ran SPLIT_CLUSTER_MIN_KTILES' rule on rows off the 128-byte line; since, off the sector.
V49_RAN = {"SPLIT_CLUSTER_ALIGN": 128}
V50_OLD = {"SPLIT_CLUSTER_MIN_KTILES": 1 << 30}
problems_v49, candidates_v49 = _as_run({**V49_RAN, **BEFORE_24}, _problems_v49, _candidates_v49)


def _problems_v50():
    """Held out for SPLIT_CLUSTER_MIN_KTILES' rule as narrowed after v49 (rows off the 32-byte
    sector): 30 problems it changes, drawn (seed 20261221: e4m3, M 65-2048, N 256-8000, K
    2048-32768, log-uniform, K a multiple of 16), none of v48's (nor, as drawn, of v49's): the
    rule's plan against the plan before it."""
    import random

    return _drawn_changes(V50_OLD, random.Random(20261221), lambda r: (
        _log_uniform(r, 65, 2049), _log_uniform(r, 256, 8000), _log_uniform(r, 2048, 32768) // 16 * 16,
        "e4m3"), 30, 4000, set(problems_v48()))


def _candidates_v50(m, n, k, dt):
    """The rule's plan (first, the default) and the plan before it."""
    return _new_and_old(V50_OLD, m, n, k, dt)


problems_v50, candidates_v50 = _as_run(BEFORE_24, _problems_v50, _candidates_v50)


def _v51_region(p):
    """e4m3 rows off the 32-byte sector, a 64-row one-pass default without a cluster and with at
    least 64 tiles: :data:`SECTOR_CLUSTER_AREA` keeps these tiles (64 x 48 to 64 x 96) off the
    cluster, from an H100 run (set v17: slower on 9 of 11); v48 on an H200 had the pair 1.08-1.16x
    faster on the three such problems it timed."""
    from fastswz.cuda import _off_sector, choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    return (dt == "e4m3" and _off_sector(m, n, k, dt, dt, "K", "K") and c["bm"] == 64 and c["split_k"] == 1
            and not c["swap_ab"] and c["cluster_m"] == 1 and -(-m // 64) * -(-n // c["bn"]) >= 64)


def _problems_v51():
    """Every problem of fresh seeds 1-8 (twenty-second session, run 2) in _v51_region, then 40 drawn
    there (seed 20261222: e4m3, M 65-512, N 1000-16000, K 1024-8192 log-uniform, K 16 past a multiple
    of 32): the default beside it on a 2-CTA cluster along M."""
    import random

    rng = random.Random(20261222)
    run = [p for p in _all_run_problems(TWENTY_SECOND_RUN, same_type=True) if _v51_region(p)]
    drawn = []
    while len(drawn) < 40:
        q = (_log_uniform(rng, 65, 513), _log_uniform(rng, 1000, 16000),
             _log_uniform(rng, 1024, 8192) // 32 * 32 + 16, "e4m3")
        if q not in run and q not in drawn and _v51_region(q):
            drawn.append(q)
    return run + drawn


def _candidates_v51(m, n, k, dt):
    """The default and it on a 2-CTA cluster along M."""
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    return [dict(base), dict(base, cluster_m=2)]


#: SECTOR_CLUSTER_DEEP_MIN_M's rule as it was before the twenty-third session (v51 ran then).
V52_OLD = {"SECTOR_CLUSTER_DEEP_MIN_M": 1 << 30}
problems_v51, candidates_v51 = _as_run({**V52_OLD, **BEFORE_24}, _problems_v51, _candidates_v51)


def _problems_v52():
    """Held out for SECTOR_CLUSTER_DEEP_MIN_M's rule: 40 problems it changes, drawn (seed 20261223:
    e4m3, M 65-512, N 1000-32000, K 1024-8192 log-uniform, K 16 past a multiple of 32), none of
    v51's: the rule's plan against the plan before it."""
    import random

    return _drawn_changes(V52_OLD, random.Random(20261223), lambda r: (
        _log_uniform(r, 65, 513), _log_uniform(r, 1000, 32000), _log_uniform(r, 1024, 8192) // 32 * 32 + 16,
        "e4m3"), 40, 6000, set(problems_v51()))


def _candidates_v52(m, n, k, dt):
    """The rule's plan (first, the default) and the plan before it."""
    return _new_and_old(V52_OLD, m, n, k, dt)


problems_v52, candidates_v52 = _as_run(BEFORE_24, _problems_v52, _candidates_v52)




TWENTY_THIRD_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-twenty-third-session",
                                "run3-probe-v50-corpus-seeds")


def _region_then_drawn(region, seed, count, ms, ns, ks):
    """Every problem of the shipped corpus and fresh seeds 1-8 (twenty-third session, run 3) in
    ``region``, then ``count`` drawn there by ``random.Random(seed)``: e4m3 or bf16, then M, N and
    K log-uniform over the half-open ranges ``ms``, ``ns`` and ``ks``, K a multiple of 16."""
    import random

    rng = random.Random(seed)
    run = [p for p in _all_run_problems(TWENTY_THIRD_RUN, same_type=True) if region(p)]
    drawn = []
    while len(drawn) < count:
        dt = rng.choice(("e4m3", "bf16"))
        q = (_log_uniform(rng, *ms), _log_uniform(rng, *ns), _log_uniform(rng, *ks) // 16 * 16, dt)
        if q not in run and q not in drawn and region(q):
            drawn.append(q)
    return run + drawn


def _run_changes_then_drawn(old_consts, seed, draw, count, tries=4000):
    """A held-out set: every problem of the shipped corpus and fresh seeds 1-8 (twenty-third
    session, run 3) whose plan the constants ``old_consts`` change, then up to ``count`` drawn by
    ``draw(random.Random(seed))`` that they change (:func:`_drawn_changes`)."""
    import random

    run = [p for p, _ in _rule_changes(old_consts, _all_run_problems(TWENTY_THIRD_RUN, same_type=True))]
    return run + _drawn_changes(old_consts, random.Random(seed), draw, count, tries, run)


def _v53_region(p):
    """An unswapped default with M > 1024, N <= 2048, at least 32 k-tiles of 128 bytes and at most
    two waves of work units: many rows, few tile columns, long K (4944 x 256 x 28928 bf16 ran
    0.70x cuBLAS's speed on its 128 x 96 one-pass plan in the twenty-third session's run 3, and
    1.41x faster on 128 x 256 split three ways in the twentieth's v34)."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    tiles = -(-m // c["bm"]) * -(-n // c["bn"])
    bits = 8 if dt == "e4m3" else 16
    return (not c["swap_ab"] and m > 1024 and n <= 2048 and k * bits // 8 // 128 >= 32
            and tiles * c["split_k"] <= 264)


def _problems_v53():
    """Every problem of the shipped corpus and fresh seeds 1-8 (twenty-third session, run 3) in
    _v53_region, then 30 drawn there (seed 20261224: M 1025-16384, N 256-2048 and K 4096-32768
    log-uniform, K a multiple of 16, e4m3 and bf16). The question: which tile and split fill the
    SMs best where a tile column covers much of N?"""
    return _region_then_drawn(_v53_region, 20261224, 30, (1025, 16385), (256, 2049), (4096, 32769))


def _candidates_v53(m, n, k, dt):
    """The default; its tile split twice as many ways (2 where it is one pass); split to about
    one wave: 128 x 256 (also on a 2-CTA cluster along M), 128 x 128, 256 x 128, 192 x 192 and
    128 x BN with BN N split evenly into tiles of at most 256 (rounded up to 16)."""
    base, out, add = _default_and_more(m, n, k, dt)

    add(dict(base, split_k=2 * base["split_k"], epilogue=False, epilogue_n=0, epilogue_stages=1))
    add(_fill_split(m, n, k, dt, 128, 256))
    add(_fill_split(m, n, k, dt, 128, 256, 2))
    add(_fill_split(m, n, k, dt, 128, 128))
    add(_fill_split(m, n, k, dt, 256, 128))
    add(_fill_split(m, n, k, dt, 192, 192))
    cols = -(-n // 256)
    add(_fill_split(m, n, k, dt, 128, -(-n // cols // 16) * 16))
    return out


#: SPLIT_EVEN_BN_STEP's rule switched off (v53 ran before it).
V54_OLD = {"SPLIT_EVEN_MIN_COLUMNS": 1 << 30}
#: v53 as it ran: before the rule.
problems_v53, candidates_v53 = _as_run(V54_OLD, _problems_v53, _candidates_v53)


def _split_on_evened(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, bm, bn, *args, **kwargs):
    """fastswz.cuda._split_on with every tile's columns evened out (_even_bn): the rule as v54
    ran it, in every split rule's tile before it was narrowed to the 128 x 256 split."""
    import fastswz.cuda as fc

    return _SPLIT_ON(m, n, k, a_dtype, b_dtype, a_major, b_major, out_dtype, bm, fc._even_bn(n, bn),
                     *args, **kwargs)


def _problems_v54():
    """Held out for SPLIT_EVEN_BN_STEP's rule: every problem of the shipped corpus and fresh seeds
    1-8 (twenty-third session, run 3) it changes (v53 timed 12 of them on the even tile at its own
    split), then 40 drawn that it changes (seed 20261225: M 65-8000, N 130-2000, K 2048-32768,
    log-uniform, K a multiple of 16, e4m3 and bf16): the rule's plan against the plan before it."""
    return _run_changes_then_drawn(V54_OLD, 20261225, lambda r: (
        _log_uniform(r, 65, 8001), _log_uniform(r, 130, 2001), _log_uniform(r, 2048, 32769) // 16 * 16,
        r.choice(("e4m3", "bf16"))), 40)


def _candidates_v54(m, n, k, dt):
    """The rule's plan (first, the default) and the plan before it."""
    return _new_and_old(V54_OLD, m, n, k, dt)


def _v55_region(p):
    """An unswapped one-pass default with M > 256, at most 8 k-tiles of 128 bytes and at least 1.5
    waves of tiles: short K, where the epilogue is a large share of each tile's time (1619 x 19456
    x 256 bf16 ran 0.81x cuBLAS's speed in the twenty-third session's run 3 on 128 x 256 tiles,
    7.5 waves of them)."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    bits = 8 if dt == "e4m3" else 16
    tiles = -(-m // c["bm"]) * -(-n // c["bn"])
    return (not c["swap_ab"] and c["split_k"] == 1 and m > 256 and -(-k * bits // 8 // 128) <= 8
            and tiles >= 198)


def _problems_v55():
    """Every problem of the shipped corpus and fresh seeds 1-8 (twenty-third session, run 3) in
    _v55_region, then 20 drawn there (seed 20261226: M 257-16384, N 256-32768, K 128-1024
    log-uniform, K a multiple of 16, e4m3 and bf16). The question: which schedule hides the
    epilogue where K is short: ping-pong consumers, clusters, wider epilogue tiles?"""
    return _region_then_drawn(_v55_region, 20261226, 20, (257, 16385), (256, 32769), (128, 1025))


def _candidates_v55(m, n, k, dt):
    """The default; on a 2-CTA cluster along M, along N; ping-pong 128 x 128 and 64 x 256; 128 x
    256 through a 128- and a 256-column epilogue tile, and at 2 stages with a 64-column tile in 2
    stages; 128 x 128 cooperative (each at the most stages up to 8 that fit)."""
    base, out, add = _default_and_more(m, n, k, dt)

    add(dict(base, cluster_m=2))
    add(dict(base, cluster_n=2))
    bk = 128 if dt == "e4m3" else 64
    tile = {"a_dtype": dt, "b_dtype": dt, "bk": bk, "epilogue": True}
    for bm, bn in ((128, 128), (64, 256)):   # (each warpgroup its half of the epilogue tiles)
        add(_fit(dict(tile, bm=bm, bn=bn, pingpong=True, epilogue_n=0, epilogue_stages=2), 8)
            or _fit(dict(tile, bm=bm, bn=bn, pingpong=True, epilogue_n=64, epilogue_stages=2), 8))
    add(_fit(dict(tile, bm=128, bn=256, epilogue_n=128), 8))
    add(_fit(dict(tile, bm=128, bn=256, epilogue_n=0), 8))
    add(dict(tile, bm=128, bn=256, stages=2, epilogue_n=64, epilogue_stages=2))
    add(_fit(dict(tile, bm=128, bn=128, epilogue_n=0), 8))
    return out


#: SHORT_K_WHOLE_TILE_KTILES' rule switched off (v55 ran before it).
V56_OLD = {"SHORT_K_WHOLE_TILE_KTILES": 0}
#: v55 as it ran: before the rule.
problems_v55, candidates_v55 = _as_run(V56_OLD, _problems_v55, _candidates_v55)


def _problems_v56():
    """Held out for SHORT_K_WHOLE_TILE_KTILES' rule: every problem of the shipped corpus and fresh
    seeds 1-8 (twenty-third session, run 3) it changes, then 30 drawn that it changes (seed
    20261227: e4m3, M 257-16384 and N 256-32768 log-uniform, K 96-512 uniform in steps of 32):
    the rule's plan against the plan before it."""
    return _run_changes_then_drawn(V56_OLD, 20261227, lambda r: (
        _log_uniform(r, 257, 16385), _log_uniform(r, 256, 32769), r.randrange(96, 513, 32), "e4m3"), 30)


def _candidates_v56(m, n, k, dt):
    """The rule's plan (first, the default) and the plan before it."""
    return _new_and_old(V56_OLD, m, n, k, dt)


#: v56 as it ran: SHORT_K_WHOLE_TILE_KTILES' rule without its K floor (set after v56).
V56_RAN = {"SHORT_K_WHOLE_TILE_MIN_KTILES": 0}
problems_v56, candidates_v56 = _as_run(V56_RAN, _problems_v56, _candidates_v56)

def _v57_region(p):
    """bf16 with K a multiple of 64 up to 512 whose default is a one-pass 128 x 256 plan through two
    64-column epilogue tiles (SHORT_K_TWO_TILES_KTILES) on at least 1.5 waves: where v55 found the
    128 x 128 tile through one whole-tile buffer 1.00-1.14x faster on 15 of 18, slower on the
    largest (N >= 23808 with M >= 5000: 0.95-0.98x)."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    return (dt == "bf16" and k % 64 == 0 and k <= 512 and (c["bm"], c["bn"]) == (128, 256) and not c["swap_ab"]
            and c["split_k"] == 1 and (c["epilogue_n"], c["epilogue_stages"]) == (64, 2)
            and -(-m // 128) * -(-n // 256) >= 198)


def problems_v57():
    """30 problems drawn in _v57_region (seed 20261228: M 257-16384 and N 256-32768 log-uniform, K
    a multiple of 64 in 128-512, bf16), none timed before: does the 128 x 128 whole-tile plan hold
    out?"""
    import random

    rng = random.Random(20261228)
    drawn = []
    while len(drawn) < 30:
        q = (_log_uniform(rng, 257, 16385), _log_uniform(rng, 256, 32769), rng.randrange(128, 513, 64), "bf16")
        if q not in drawn and _v57_region(q):
            drawn.append(q)
    return drawn


def candidates_v57(m, n, k, dt):
    """The default and 128 x 128 through one whole-tile buffer at the most stages up to 8."""
    base, out, add = _default_and_more(m, n, k, dt)
    add(_fit({"a_dtype": dt, "b_dtype": dt, "bk": 64, "epilogue": True, "bm": 128, "bn": 128, "epilogue_n": 0}, 8))
    return out


TWENTY_FOURTH_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-29-twenty-fourth-session",
                                 "run4-probe-v56-corpus-seeds-rowwise")
#: fresh seeds 1-10 (tools/gemm_corpus.py --fresh), as the twenty-fourth session's run 4 timed them
SEEDS_1_10 = (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205, 20261301,
              20261302)


def _run4_24_problems():
    """(M, N, K, type) of the shipped corpus and fresh seeds 1-10 in the twenty-fourth session's
    run 4 (both operands K-major, timed against cuBLAS of their own type), each once."""
    return _all_run_problems(TWENTY_FOURTH_RUN, same_type=True, seeds=SEEDS_1_10)


def _l2_bytes(m, n, k, dt, bm, bn, split, staged=False):
    """The bytes a plan's CTAs read from L2 (each tile column re-reads A's rows, each tile row B's;
    a 128-byte k-tile row 16 bytes off the 32-byte sector touches five sectors, not four; a
    staged A sits on 128-byte rows) and its split's f32 partial sums (written and read back)."""
    e = 1 if dt == "e4m3" else 2
    off = 1.25 if (k * e) % 32 else 1.0
    rows, cols = -(-m // bm), -(-n // bn)
    return e * k * (cols * m * (1.0 if staged else off) + rows * n * off) + (split > 1) * split * m * n * 8


def _v58_region(p):
    """An unswapped one-pass default with 16 < M <= 512, two or more tile rows and at least 16
    k-tiles of 128 bytes: each tile column re-reads A and each tile row B from L2 (127 x 3904 x
    6672 e4m3, 64 x 64 tiles on two rows, 0.65x cuBLAS's speed in the twenty-fourth session's run
    4, moved its bytes at 4.3 TB/s where the on-sector plans reach 8-11)."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    c = choose_plan(m, n, k, dt, dt)
    e = 1 if dt == "e4m3" else 2
    return (16 < m <= 512 and not c["swap_ab"] and c["split_k"] == 1 and not c["stream_k"]
            and -(-m // c["bm"]) >= 2 and k * e >= 16 * 128)


def _problems_v58():
    """Every problem of the shipped corpus and fresh seeds 1-10 (twenty-fourth session, run 4) in
    _v58_region: which tile and split read the fewest bytes from L2, and does that pay?"""
    return [p for p in _run4_24_problems() if _v58_region(p)]


def _one_row_splits(m, n, k, dt, units=132):
    """Split plans whose tiles cover M in one tile row (BM 128, 192 or 256, the least that covers
    M; two rows of 256 above 256): every BN of 64-256 in steps of 32 (and 176, 208, 240) split so
    that tiles x splits is at most ``units`` and at least 3/4 of them (each split >= 8 k-tiles,
    <= 16 splits), ordered by :func:`_l2_bytes`, fewest first."""
    bk = 128 if dt == "e4m3" else 64
    kt = -(-k // bk)
    bm = next((b for b in (128, 192, 256) if b >= m), 256)
    rows = -(-m // bm)
    out = []
    for bn in (64, 96, 128, 160, 176, 192, 208, 224, 240, 256):
        tiles = rows * -(-n // bn)
        s = min(units // tiles, kt // 8, 16)
        if s < 1 or tiles * s < 0.75 * units:
            continue
        c = _fit({"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": 2,
                  "epilogue": False, "split_k": s}, 8)
        if c is not None:
            out.append((_l2_bytes(m, n, k, dt, bm, bn, s), c))
    return [c for _, c in sorted(out, key=lambda t: t[0])]


def _candidates_v58(m, n, k, dt):
    """The default; the three one-row splits of _one_row_splits that read the fewest bytes; the
    default's tile split to fill the SMs; the swapped plan covering M, split to fill the SMs."""
    base, out, add = _default_and_more(m, n, k, dt)
    for c in _one_row_splits(m, n, k, dt)[:3]:
        add(c)
    kt = -(-k // base["bk"])
    tiles = -(-m // base["bm"]) * -(-n // base["bn"])
    s = min(132 // tiles, kt // 8, 16)
    if s >= 2:
        add(_fit(dict(base, epilogue=False, epilogue_n=0, epilogue_stages=1, split_k=s, stages=2), 8))
    pieces = -(-m // 256)
    swapped = -(-n // 128) * pieces
    s = min(132 // swapped, kt // 8, 16)
    add(swap_fit_plan(m, n, k, dt, split=max(1, s)))
    return out


def _swapped_fill(m, n, k, dt, bm=128):
    """The swapped plan whose BN covers M (:func:`swap_fit_plan`, ``bm`` rows of N), split so that
    tiles x splits is at most the 132 SMs (each split >= 8 k-tiles, <= 16 splits): ``(plan,
    units)``, plan None where it does not run."""
    bk = 128 if dt == "e4m3" else 64
    tiles = -(-n // bm) * -(-m // 256)
    s = max(1, min(132 // tiles, -(-k // bk) // 8, 16))
    return swap_fit_plan(m, n, k, dt, bm=bm, split=s), tiles * s


def _v59_region(p):
    """v58's lead, stated before v59 ran: e4m3 with rows 16 bytes off the 32-byte sector (K an odd
    multiple of 16), an unswapped one-pass 64-row default on two or more tile rows (M <= 512), and
    a swapped plan covering M split to at least 80 work units. In v58 the six such problems ran
    0.91-1.36x on that plan (1.09x in geometric mean: 144 x 5792 x 13552 1.36x, 156 x 3904 x 6672
    1.17x, 127 x 3904 x 6672 1.13x, 329 x 1024 x 5968 1.11x; 104 and 106 x 5280 x 5776 0.91x and
    0.93x), the region's problems with fewer units 0.78-0.94x."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    if dt != "e4m3" or k % 32 != 16 or not 64 < m <= 512:
        return False
    c = choose_plan(m, n, k, dt, dt)
    if c["swap_ab"] or c["split_k"] != 1 or c["stream_k"] or c["bm"] != 64:
        return False
    plan, units = _swapped_fill(m, n, k, dt)
    return plan is not None and units >= 80


def problems_v59():
    """v58's region held out: 40 problems drawn in _v59_region (seed 20261301: e4m3, M 65-512, N
    1024-16384 and K 2048-32768 log-uniform, N a multiple of 16, K an odd one), none timed before."""
    import random

    rng = random.Random(20261301)
    drawn = []
    while len(drawn) < 40:
        q = (_log_uniform(rng, 65, 513), _log_uniform(rng, 1024, 16385) // 16 * 16,
             _log_uniform(rng, 2048, 32769) // 32 * 32 + 16, "e4m3")
        if q not in drawn and _v59_region(q):
            drawn.append(q)
    return drawn


def candidates_v59(m, n, k, dt):
    """The default; the lead's plan (the swapped split on 128 rows of N); the same on 64 rows of N,
    split to fill; the lead's split one fewer and one more; the lead's plan on a 2-CTA cluster
    along the swapped M; the least-bytes one-row unswapped split of v58."""
    base, out, add = _default_and_more(m, n, k, dt)
    lead, _ = _swapped_fill(m, n, k, dt)
    add(lead)
    add(_swapped_fill(m, n, k, dt, bm=64)[0])
    if lead is not None:
        for s in (lead["split_k"] - 1, lead["split_k"] + 1):
            if s >= 1:
                add(dict(lead, split_k=s))
        add(dict(lead, cluster_m=2))
    rows = _one_row_splits(m, n, k, dt)
    add(rows[0] if rows else None)
    return out


from fastswz.cuda import _split_on as _SPLIT_ON  # noqa: E402 (the function _split_on_evened wraps)

#: v54 as it ran: SPLIT_EVEN_BN_STEP's rule in every split rule's tile.
V54_RAN = {"_split_on": _split_on_evened}
problems_v54, candidates_v54 = _as_run(V54_RAN, _problems_v54, _candidates_v54)


SETS = {"v1": (lambda: PROBLEMS, candidates), "v13": (problems_v13, candidates_v13),
        "v17": (problems_v17, candidates_v17), "v2": (lambda: PROBLEMS_V2, candidates_v2),
        "v3": (problems_v3, candidates_v3), "v4": (problems_v4, candidates_v4),
        "v5": (problems_v5, candidates_v5), "v6": (problems_v6, candidates_v6),
        "v7": (problems_v7, candidates_v7), "v8": (problems_v8, candidates_v8),
        "v9": (problems_v9, candidates_v9), "v10": (problems_v10, candidates_v10),
        "v12": (problems_v12, candidates_v12), "v20": (problems_v20, candidates_v20),
        "v21": (problems_v21, candidates_v21), "v28": (problems_v26, candidates_v28),
        "v29": (problems_v26, candidates_v29),
        "v30": (problems_v30, candidates_v30),
        "v31": (problems_v31, candidates_v31),
        "v33": (problems_v33, candidates_v33), "v34": (problems_v34, candidates),
        "v36": (problems_v36, candidates_v36), "v37": (problems_v37, candidates_v37),
        "v38": (problems_v38, candidates_v38), "v39": (problems_v39, candidates_v39),
        "v40": (problems_v40, candidates_v40), "v41": (problems_v41, candidates_v41),
        "v42": (problems_v42, candidates_v42), "v43": (problems_v43, candidates_v43),
        "v44": (problems_v44, candidates_v44), "v45": (problems_v45, candidates_v45),
        "v46": (problems_v46, candidates_v46), "v47": (problems_v47, candidates_v47),
        "v48": (problems_v48, candidates_v48), "v49": (problems_v49, candidates_v49),
        "v50": (problems_v50, candidates_v50),
        "v51": (problems_v51, candidates_v51),
        "v52": (problems_v52, candidates_v52),
        "v53": (problems_v53, candidates_v53), "v54": (problems_v54, candidates_v54),
        "v55": (problems_v55, candidates_v55), "v56": (problems_v56, candidates_v56),
        "v57": (problems_v57, candidates_v57),
        "v58": (_problems_v58, _candidates_v58), "v59": (problems_v59, candidates_v59)}


#: SWAP_SECTOR_MAX_M's rule switched off (it came after v59, from v58 and v59).
BEFORE_25 = {"SWAP_SECTOR_MAX_M": 0}
#: v61 as it ran: SWAP_SECTOR_MAX_M's rule on the one-pass 64-row defaults only (SWAP_SECTOR_WIDE_BM
#: came after it).
V61_RAN = {"SWAP_SECTOR_WIDE_BM": 1 << 30}


def _problems_v60():
    """Held out for SWAP_SECTOR_MAX_M's rule: every problem of the shipped corpus and fresh seeds
    1-10 (twenty-fourth session, run 4) it changes (v58 timed them), then 40 drawn that it changes
    (seed 20261302: e4m3, M 65-256, N 1024-16384 and K 6016-32768 log-uniform, N a multiple of 16,
    K an odd one): the rule's plan against the plan before it."""
    import random

    run = [p for p, _ in _rule_changes(BEFORE_25, _run4_24_problems())]
    return run + _drawn_changes(BEFORE_25, random.Random(20261302), lambda r: (
        _log_uniform(r, 65, 257), _log_uniform(r, 1024, 16385) // 16 * 16,
        _log_uniform(r, 6016, 32769) // 32 * 32 + 16, "e4m3"), 40, 4000, run)


def _candidates_v60(m, n, k, dt):
    """The rule's plan (first, the default) and the plan before it."""
    return _new_and_old(BEFORE_25, m, n, k, dt)


SETS["v60"] = _as_run(V61_RAN, _problems_v60, _candidates_v60)
LOSERS_31 = os.path.join(HERE, "losers_31.json")
CUBLAS_KERNELS_31 = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-29-thirty-first-session",
                                 "run1-seeds-cublas-kernels", "cublas_kernels.json")


def problems_v69():
    """The fresh seeds' problems under 0.82x cuBLAS outside decode (losers_31.json, 67)."""
    with open(LOSERS_31) as f:
        return [(p["m"], p["n"], p["k"], p["a_dtype"]) for p in json.load(f)["problems"]]


def cublas_tile(m, n, k, dt):
    """cuBLAS's own choice for the problem as the thirty-first session's run 1 traced it (its nvjet
    kernel's name, ``nvjet_sm90_<kind>_<X>x<Y>_<BK>x<stages>_<cx>x<cy>_...``, in cuBLAS's
    column-major view of torch's row-major call: X along our N, Y along our M, the cluster cx along
    N and cy along M), or None."""
    import re

    with open(CUBLAS_KERNELS_31) as f:
        recs = json.load(f)
    for r in recs:
        if r["shape"] == [m, n, k] and r["dtype"] == dt:
            for kern in r["kernels"]:
                g = re.match(r"nvjet_sm90_\w+?_(\d+)x(\d+)_(\d+)x(\d+)_(\d+)x(\d+)_", kern["name"])
                if kern["lib"] == "cublas" and g:
                    x, y, bk, stages, cx, cy = map(int, g.groups())
                    return {"n_tile": x, "m_tile": y, "bk": bk, "stages": stages, "cluster_n": cx,
                            "cluster_m": cy, "split": "splitK" in kern["name"]}
    return None


def candidates_v69(m, n, k, dt):
    """The default; its plan on 2-CTA clusters (along M, along N, 2 x 2) and at the deepest ring;
    cuBLAS's tile (:func:`cublas_tile`) in this kernel family, unswapped where its M extent is a
    multiple of 64, else swapped where its N extent is, at cuBLAS's stages (or the most that fit),
    alone and on cuBLAS's cluster with each extent cut to 2."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import normalize_config, supported

    base = normalize_config(choose_plan(m, n, k, dt, dt))
    out, seen = [], set()

    def add(c):
        if c is None:
            return
        c = normalize_config(c)
        if supported(c) is not None:
            return
        key = json.dumps(c, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(c)

    add(base)
    for cm, cn in ((2, 1), (1, 2), (2, 2)):
        add(dict(base, cluster_m=cm, cluster_n=cn))
    add(_fit(dict(base)))
    t = cublas_tile(m, n, k, dt)
    if t is not None:
        tiles = []
        if t["m_tile"] % 64 == 0 and t["m_tile"] <= 256 and t["n_tile"] % 8 == 0:
            tiles.append({"bm": t["m_tile"], "bn": t["n_tile"], "swap_ab": False,
                          "cm": min(t["cluster_m"], 2), "cn": min(t["cluster_n"], 2)})
        if t["n_tile"] % 64 == 0 and t["n_tile"] <= 256 and t["m_tile"] % 8 == 0:
            tiles.append({"bm": t["n_tile"], "bn": t["m_tile"], "swap_ab": True,
                          "cm": min(t["cluster_n"], 2), "cn": min(t["cluster_m"], 2)})
        for tl in tiles:
            c = dict(base, bm=tl["bm"], bn=tl["bn"], bk=t["bk"], swap_ab=tl["swap_ab"], split_k=1, stream_k=0,
                     pingpong=False, cluster_m=1, cluster_n=1, epilogue=not tl["swap_ab"], epilogue_n=0,
                     epilogue_stages=1)
            for cc in (c, dict(c, epilogue=False)):
                st = dict(cc, stages=t["stages"])
                add(st if supported(normalize_config(st)) is None else _fit(cc))
                add(_fit(dict(cc, cluster_m=tl["cm"], cluster_n=tl["cn"])))
    return out


SETS["v69"] = (problems_v69, candidates_v69)


#: The fresh seeds of the corpora the sets v70-v76 drew from (seeds 1-16; later seeds are not
#: theirs).
SEEDS_1_16 = (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205,
              20261301, 20261302, 20261303, 20261304, 20261401, 20261402, 20261501, 20261502)


def _seed_files_1_16():
    """The fresh corpus files of :data:`SEEDS_1_16`, in their order."""
    return [os.path.join(HERE, f"fresh_{s}.json") for s in SEEDS_1_16]


def problems_v70():
    """Every problem (M > 16, both operands K-major, bf16 or e4m3) of the shipped corpus and fresh
    seeds 1-16 whose default is a split-K plan for which fastswz.cuda._small_tiles offers a one-pass
    plan (the question, stated before the run: do one-pass 64-row tiles filling one wave beat the
    split, as cuBLAS's traced choices on v69's problems suggest?). The rule is to be fitted on the
    corpus and seeds 1-12 and read on seeds 13-16 apart."""
    from fastswz.corpus import load_corpus
    from fastswz.cuda import _small_tiles, choose_plan

    root = os.path.join(HERE, "..", "..", "..")
    files = [os.path.join(root, "src", "fastswz", "data", "gemm_corpus.json")] + _seed_files_1_16()
    out = []
    for path in files:
        for p in load_corpus(path):
            key = (p.m, p.n, p.k, p.a_dtype)
            if (p.m <= 16 or p.a_major != "K" or p.b_major != "K" or p.a_dtype not in ("bf16", "e4m3")
                    or key in out):
                continue
            c = choose_plan(p.m, p.n, p.k, p.a_dtype, p.a_dtype)
            if c["split_k"] > 1 and (_small_tiles(p.m, p.n, p.k, c) or _small_tiles(p.m, p.n, p.k, c, True)):
                out.append(key)
    return out


def candidates_v70(m, n, k, dt):
    """The default (a split) and _small_tiles' one-pass plans, unswapped then swapped."""
    from fastswz.cuda import _small_tiles, choose_plan

    c = choose_plan(m, n, k, dt, dt)
    return [c] + [p for p in (_small_tiles(m, n, k, c), _small_tiles(m, n, k, c, True)) if p]


SETS["v70"] = (problems_v70, candidates_v70)


V71_OFF = {"SMALL_TILE_MAX_KTILES": 0}


def problems_v71():
    """Held out for SMALL_TILE_MAX_KTILES' rule (fitted on v70), stated before it ran: 40 drawn
    problems it changes (seed 20261601: bf16 or e4m3, M 64-3072 and N 256-8192 log-uniform, N a
    multiple of 16, K log-uniform 2048-16384 on the 128-byte line), none of v70's: the rule's plan
    against the plan before it."""
    import random

    v70 = set(problems_v70())
    return _drawn_changes(V71_OFF, random.Random(20261601), _draw_v71, 40, 6000, v70)


def _draw_v71(r):
    """v71's draw (``r`` a random.Random): bf16 or e4m3, M 64-3072 and N 256-8192 log-uniform, N
    a multiple of 16, K log-uniform 2048-16384 on the 128-byte line."""
    dt = r.choice(("bf16", "e4m3"))
    line = 64 if dt == "bf16" else 128
    return (_log_uniform(r, 64, 3073), _log_uniform(r, 256, 8193) // 16 * 16,
            _log_uniform(r, 2048, 16385) // line * line, dt)


SETS["v71"] = (problems_v71, functools.partial(_new_and_old, V71_OFF))   # the rule's plan, then the one before


def _corpus_and_seeds_problems():
    """Every problem (M > 16, both operands K-major, bf16 or e4m3) of the shipped corpus and the
    fresh seeds 1-16 committed beside this file, once each, in file order:
    ``(file, (m, n, k, dtype))``."""
    root = os.path.join(HERE, "..", "..", "..")
    return _k_major_keys([os.path.join(root, "src", "fastswz", "data", "gemm_corpus.json")] + _seed_files_1_16())


def _k_major_keys(paths, seen=None):
    """``(file, (m, n, k, dtype))`` of every problem (M > 16, both operands K-major, bf16 or e4m3)
    of the corpus files ``paths``, once each and none in ``seen`` (a set it extends), in file
    order."""
    from fastswz.corpus import load_corpus

    out, seen = [], set() if seen is None else seen
    for path in paths:
        for p in load_corpus(path):
            key = (p.m, p.n, p.k, p.a_dtype)
            if (p.m <= 16 or p.a_major != "K" or p.b_major != "K" or p.a_dtype not in ("bf16", "e4m3")
                    or key in seen):
                continue
            seen.add(key)
            out.append((os.path.basename(path), key))
    return out


#: The most a v72 cluster may pad the tile grid (its CTAs over the tiles').
V72_MAX_PAD = 1.10


def _cluster_candidates(c, m, n):
    """``c`` (a one-pass plan on one CTA or a 2-CTA cluster) on each other cluster of 2 x 1, 1 x 2
    and 2 x 2 CTAs that the family runs and that pads its tile grid by at most V72_MAX_PAD."""
    import math

    from fastswz.cuda.codegen import supported

    rows, cols = (n, m) if c["swap_ab"] else (m, n)
    tm, tn = math.ceil(rows / c["bm"]), math.ceil(cols / c["bn"])
    out = []
    for cm, cn in ((2, 1), (1, 2), (2, 2)):
        cc = dict(c, cluster_m=cm, cluster_n=cn)
        if ((cm, cn) != (c["cluster_m"], c["cluster_n"]) and supported(cc) is None
                and math.ceil(tm / cm) * cm * math.ceil(tn / cn) * cn <= V72_MAX_PAD * tm * tn):
            out.append(cc)
    return out


def _one_pass_default(m, n, k, dt):
    """choose_plan's plan where it is one pass (no split, stream-K or ping-pong), else None."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import normalize_config

    c = normalize_config(choose_plan(m, n, k, dt, dt))
    return None if c["split_k"] > 1 or c["stream_k"] or c["pingpong"] else c


def problems_v72():
    """Every problem of the shipped corpus and fresh seeds 1-16 (:func:`_corpus_and_seeds_problems`)
    whose default is one pass and runs on at least one other 2-CTA or 2 x 2 cluster padding its
    grid by at most V72_MAX_PAD. The question, stated before the run: v69 found 2 x 2 clusters
    1.1-1.9x faster on small tiles (64 x 64 to 128 x 144, 329 x 1024 x 5968 e4m3 to 755 x 2208 x
    22576 e4m3) and 0.7-0.8x on wide ones (128 x 192, 128 x 240); which defaults gain? To be fitted
    on the corpus and seeds 1-12 and read on seeds 13-16 apart."""
    out = []
    for _, (m, n, k, dt) in _corpus_and_seeds_problems():
        c = _one_pass_default(m, n, k, dt)
        if c is not None and _cluster_candidates(c, m, n):
            out.append((m, n, k, dt))
    return out


def candidates_v72(m, n, k, dt):
    """The default, then it on each cluster of :func:`_cluster_candidates`."""
    c = _one_pass_default(m, n, k, dt)
    return [c] + _cluster_candidates(c, m, n) if c is not None else []


SETS["v72"] = (problems_v72, candidates_v72)


def _aligned_swap_region(m, n, k, dt):
    """The region of probe sets v73 (e4m3) and v74 (bf16): SWAP_SECTOR_MAX_M's rule
    (fastswz.cuda._sector_swap) with rows on the 32-byte sector instead of off it: 64 < M <= 256,
    K a multiple of 32 bytes with at least 48 k-tiles of 128 bytes, an unswapped default on one
    CTA (a one-pass 64-row tile, or 128 rows or more), and the rule's swapped split (at most 8
    splits, at least 80 work units). Returns ``(default, swapped split, swapped one pass)`` or
    None."""
    import fastswz.cuda as fc
    from fastswz.cuda.codegen import normalize_config

    width = {"e4m3": 1, "bf16": 2}.get(dt)
    if width is None or not 64 < m <= 256 or k * width % 32 or -(-k * width // 128) < 48:
        return None
    bk = 128 // width
    c = normalize_config(fc.choose_plan(m, n, k, dt, dt))
    if not (fc._unswapped_one_cta(c) and ((c["bm"] == 64 and c["split_k"] == 1) or c["bm"] >= 128)):
        return None
    swapped = fc._swapped_pieces_plan(c, m, n, k, bk)   # None below 80 units or above 8 splits
    if swapped is None:
        return None
    one = fc._swapped_split(swapped["bn"], bk, 1, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"],
                            c["out_dtype"])
    return c, swapped, one


def _drawn_aligned_swaps(seed, dt, count=40):
    """``count`` problems of type ``dt`` drawn into :func:`_aligned_swap_region` (M 65-256,
    N 1024-32768 and K 6144-32768 log-uniform, N a multiple of 16, K of 32 bytes), none of the
    corpus or seeds."""
    import random

    line = 32 if dt == "e4m3" else 16

    def draw(r):
        return (_log_uniform(r, 65, 257), _log_uniform(r, 1024, 32769) // 16 * 16,
                _log_uniform(r, 6144, 32769) // line * line, dt)

    return _drawn_where(lambda q: _aligned_swap_region(*q), random.Random(seed), draw, count,
                        {key for _, key in _corpus_and_seeds_problems()})


def problems_v73():
    """Stated before the run: does SWAP_SECTOR_MAX_M's swapped split pay on e4m3 rows on the
    sector too (78 x 12544 x 28224 e4m3: 128 x 96 one pass 0.67x cuBLAS's speed, swapped 128 x 80
    0.96x in v69)? Every problem of the corpus and seeds 1-16 in :func:`_aligned_swap_region`,
    then 40 drawn there (seed 20261701, held out of any narrowing), then 40 more (seed 20261702,
    read only once the rule is final)."""
    fit = [key for _, key in _corpus_and_seeds_problems() if key[3] == "e4m3" and _aligned_swap_region(*key)]
    return fit + _drawn_aligned_swaps(20261701, "e4m3") + _drawn_aligned_swaps(20261702, "e4m3")


def problems_v74():
    """v73's question on bf16 (the same region and plans; seeds 20261703, 20261704)."""
    fit = [key for _, key in _corpus_and_seeds_problems() if key[3] == "bf16" and _aligned_swap_region(*key)]
    return fit + _drawn_aligned_swaps(20261703, "bf16") + _drawn_aligned_swaps(20261704, "bf16")


def candidates_v73(m, n, k, dt):
    """The default, the swapped split of SWAP_SECTOR_MAX_M's rule, the swapped one pass."""
    got = _aligned_swap_region(m, n, k, dt)
    return [c for c in got if c is not None] if got else []


SETS["v73"] = (problems_v73, candidates_v73)
SETS["v74"] = (problems_v74, candidates_v73)
V75_OFF = {"SWAP_PAD_MAX_FILL": 0}
for _name in ("v73", "v74"):
    SETS[_name] = _as_run(V75_OFF, *SETS[_name])   # as they ran: before SWAP_PAD_MAX_FILL's rule


def problems_v75():
    """Held out for SWAP_PAD_MAX_FILL's rule (fitted on v73-v74), stated before it ran: 40 drawn
    problems it changes (seed 20261705: e4m3 or bf16, M 65-256, N 1024-32768 and K 6144-32768
    log-uniform, N a multiple of 16, K of 32 bytes), none of v73's or v74's: the rule's plan
    against the plan before it."""
    import random

    seen = set(SETS["v73"][0]()) | set(SETS["v74"][0]())

    def draw(r):
        dt = r.choice(("bf16", "e4m3"))
        line = 32 if dt == "e4m3" else 16
        return (_log_uniform(r, 65, 257), _log_uniform(r, 1024, 32769) // 16 * 16,
                _log_uniform(r, 6144, 32769) // line * line, dt)

    return _drawn_changes(V75_OFF, random.Random(20261705), draw, 40, 20000, seen)


SETS["v75"] = (problems_v75, functools.partial(_new_and_old, V75_OFF))   # the rule's plan, then the one before


#: The constants that switch QUAD_CLUSTER_MAX_BM's rule off (the plan before it).
V79_OFF = {"QUAD_CLUSTER_MAX_BM": 0}


def problems_v79():
    """Held out for QUAD_CLUSTER_MAX_BM's rule (fitted on v77-v78: the corpus and seed problems,
    docs/conformance/2026-11-29-thirty-third-session), stated before it ran: 40 drawn problems it
    changes (seed 20261708: e4m3 or bf16, M 17-16384, N 256-32768 and K 3072 (bf16) or 6144 (e4m3)
    to 32768 log-uniform), none of the corpus's or seeds 1-18's: the rule's plan against the plan
    before it."""
    import random

    from fastswz.corpus import load_corpus

    seen = {(p.m, p.n, p.k, p.a_dtype) for path in
            [os.path.join(HERE, "..", "..", "..", "src", "fastswz", "data", "gemm_corpus.json")]
            + _seed_files_1_16() + [os.path.join(HERE, f"fresh_{s}.json") for s in (20261801, 20261802)]
            for p in load_corpus(path)}

    def draw(r):
        dt = r.choice(("bf16", "e4m3"))
        return (_log_uniform(r, 17, 16385), _log_uniform(r, 256, 32769),
                _log_uniform(r, 3072 if dt == "bf16" else 6144, 32769), dt)

    return _drawn_changes(V79_OFF, random.Random(20261708), draw, 40, 20000, seen)


SETS["v79"] = (problems_v79, functools.partial(_new_and_old, V79_OFF))   # the rule's plan, then the one before
SETS["v69"] = _as_run(dict(V71_OFF, **V75_OFF), *SETS["v69"])   # as they ran: before both rules
SETS["v70"] = _as_run(dict(V71_OFF, **V75_OFF), *SETS["v70"])
SETS["v71"] = _as_run(V75_OFF, *SETS["v71"])
SETS["v72"] = _as_run(V75_OFF, *SETS["v72"])


def _two_piece_region(m, n, k, dt):
    """Probe set v76's region and candidates: bf16 or e4m3, 128 < M <= 512, K a multiple of 32
    bytes with at least 32 k-tiles of 128 bytes, a default not split and not on a cluster; the
    candidates (after the default) are M in two swapped pieces, 128 rows of N by ceil(M / 16) x 8
    columns, one pass at the deepest ring, alone and on 2-CTA clusters along M (the pieces share
    N's operand), along N, and 2 x 2; and the swapped split of SWAP_SECTOR_MAX_M's rule where
    M <= 256 is one piece. Returns the list or None."""
    import fastswz.cuda as fc
    from fastswz.cuda.codegen import normalize_config, supported

    width = {"e4m3": 1, "bf16": 2}.get(dt)
    if width is None or not 128 < m <= 512 or k * width % 32 or -(-k * width // 128) < 32:
        return None
    c = normalize_config(fc.choose_plan(m, n, k, dt, dt))
    if c["split_k"] > 1 or c["stream_k"] or c["cluster_m"] != 1 or c["cluster_n"] != 1:
        return None
    bk = 128 // width
    args = (c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"], c["out_dtype"])
    one = fc._swapped_split(-(-m // 16) * 8, bk, 1, *args)
    if one is None:
        return None
    out = [c, one]
    for cm, cn in ((1, 2), (2, 1), (2, 2)):
        cc = fc._deepest_ring(lambda st: normalize_config(dict(one, stages=st, cluster_m=cm, cluster_n=cn)))
        if cc is not None and supported(cc) is None:
            out.append(cc)
    split = fc._swapped_pieces_plan(c, m, n, k, bk) if m <= 256 else None
    if split is not None:
        out.append(split)
    return out


def _drawn_two_piece(seed, count=40):
    """``count`` problems drawn into :func:`_two_piece_region` (bf16 or e4m3, M 129-512, N
    1024-32768 and K 4096-32768 log-uniform, N a multiple of 16, K of 32 bytes), none of the
    corpus or seeds."""
    import random

    def draw(r):
        dt = r.choice(("bf16", "e4m3"))
        line = 32 if dt == "e4m3" else 16
        return (_log_uniform(r, 129, 513), _log_uniform(r, 1024, 32769) // 16 * 16,
                _log_uniform(r, 4096, 32769) // line * line, dt)

    return _drawn_where(lambda q: _two_piece_region(*q), random.Random(seed), draw, count,
                        {key for _, key in _corpus_and_seeds_problems()})


def problems_v76():
    """Stated before the run: does M in two swapped pieces, on 2-CTA clusters along M sharing N's
    operand, beat the default for 128 < M <= 512 (v69: 272 x 13440 x 25616 e4m3 swapped 128 x 144
    on a 2 x 2 cluster 1.40x the default, 210 x 6992 x 6896 bf16 128 x 112 1.14x)? Every problem
    of the corpus and seeds 1-16 in :func:`_two_piece_region`, then 40 drawn there (seed
    20261706, part of the fit), then 40 more (seed 20261707, read only once a rule is final)."""
    fit = [key for _, key in _corpus_and_seeds_problems() if _two_piece_region(*key)]
    return fit + _drawn_two_piece(20261706) + _drawn_two_piece(20261707)


def candidates_v76(m, n, k, dt):
    """The default and :func:`_two_piece_region`'s swapped plans."""
    return _two_piece_region(m, n, k, dt) or []


SETS["v76"] = (problems_v76, candidates_v76)



def _corpus_and_seeds_1_20():
    """:func:`_corpus_and_seeds_problems` and the fresh seeds 17-20 (drawn after the sets up to
    v80 were fitted), once each, in file order: ``(file, (m, n, k, dtype))``."""
    out = list(_corpus_and_seeds_problems())
    seen = {key for _, key in out}
    return out + _k_major_keys([os.path.join(HERE, f"fresh_{s}.json")
                                for s in (20261801, 20261802, 20261901, 20261902)], seen)


def _v81_kind(m, n, k, dt):
    """v81's two regions: "medium" (128 < M <= 512, at least 32 k-tiles of 128 bytes) and "tall"
    (M >= 1024, N <= 512, at least 8 k-tiles), K a multiple of 32 bytes; else None."""
    width = {"e4m3": 1, "bf16": 2}.get(dt)
    if width is None or k * width % 32:
        return None
    kt = -(-k * width // 128)
    if 128 < m <= 512 and kt >= 32:
        return "medium"
    if m >= 1024 and n <= 512 and kt >= 8:
        return "tall"
    return None


def candidates_v81(m, n, k, dt):
    """The default, then clusters of four CTAs sharing the small operand, as cuBLAS's traced
    kernels run these regions (4 x 1 and 4 x 2 nvjet clusters, thirty-first session run 1).
    medium: M swapped into one (M <= 256) or two pieces of BN = ceil(M / pieces) rounded up to a
    multiple of 32 (a cluster of four quarters the shared box), BM 64 or 128 rows of N, on 4 x 1
    and 4 x 2 clusters, and BM 128 alone; tall: N in 1-3 column tiles of a multiple of 32, BM 64
    or 128, on a 4 x 1 cluster, and the default on a 2 x 1 cluster. One pass, deepest ring <= 16."""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import normalize_config

    kind = _v81_kind(m, n, k, dt)
    base = normalize_config(choose_plan(m, n, k, dt, dt))
    out = [base]
    bk = 128 if dt == "e4m3" else 64

    def add(c):   # (cmd_make normalizes, drops what the family does not run and repeats)
        c = _fit(c)
        if c is not None:
            out.append(c)

    common = {"a_dtype": dt, "b_dtype": dt, "bk": bk, "split_k": 1, "stream_k": 0, "pingpong": False,
              "out_dtype": "bf16"}
    if kind == "medium":
        for pieces in ((1, 2) if m <= 256 else (2,)):
            bn = -(-(-(-m // pieces)) // 32) * 32
            if bn > 256:
                continue
            for bm in (64, 128):
                for cm, cn in ((4, 1), (4, 2)) + (((1, 1),) if bm == 128 else ()):
                    add(dict(common, bm=bm, bn=bn, swap_ab=True, epilogue=False, cluster_m=cm, cluster_n=cn))
    elif kind == "tall":
        for t in (1, 2, 3):
            bn = -(-(-(-n // t)) // 32) * 32
            if bn > 256:
                continue
            for bm in (64, 128):
                add(dict(common, bm=bm, bn=bn, swap_ab=False, epilogue=True, cluster_m=4, cluster_n=1))
        add(dict(base, cluster_m=2, cluster_n=1))
    return out


def problems_v81():
    """Stated before the run: do clusters of four CTAs sharing the small operand (cuBLAS's choice
    on these regions) beat the default where M is 129-512 with long K, or M >= 1024 with N <= 512?
    Every problem of the corpus and seeds 1-20 in :func:`_v81_kind`'s regions (the fit; a rule
    is to be held out on drawn problems)."""
    return [key for _, key in _corpus_and_seeds_1_20() if _v81_kind(*key)]


SETS["v81"] = (problems_v81, candidates_v81)


def problems_v83():
    """Held out for the TMA maps' L2 promotion by row pitch (``fastswz.cuda._driver.l2_promotion``,
    fitted on the thirty-fourth session's run 4), stated before it ran: 60 problems drawn with
    rows off the 128-byte line (seed 20261709: e4m3 or bf16, M 17-16384, N 256-32768 and K
    1024-32768 log-uniform, K a multiple of 16 bytes but not of 128), none of the corpus's or
    seeds 1-20's; each timed at its default plan, the rule against 256-byte promotion
    everywhere (``FASTSWZ_L2_PROMOTION=256``), each setting in its own process, in turn."""
    import random

    seen = {key for _, key in _corpus_and_seeds_1_20()}
    r = random.Random(20261709)
    out = []
    while len(out) < 60:
        dt = r.choice(("bf16", "e4m3"))
        e = 2 if dt == "bf16" else 1
        k = _log_uniform(r, 1024, 32769) * e // 16 * 16 // e
        if k * e % 128 == 0:
            continue
        key = (_log_uniform(r, 17, 16385), _log_uniform(r, 256, 32769), k, dt)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


SETS["v83"] = (problems_v83, lambda m, n, k, dt: _one_default(m, n, k, dt))


def _one_default(m, n, k, dt):
    from fastswz.cuda import choose_plan

    return [choose_plan(m, n, k, dt, dt)]


def _pad_gate(m, n, k, dt, least, below):
    """fastswz.cuda._pad_swap's gate (SWAP_PAD_MAX_FILL's region) with its K floor replaced by
    ``least`` <= 128-byte k-tiles (< ``below`` where given): ``(bits, choose_plan's plan)``, else
    None (the regions of v84 and v87)."""
    import fastswz.cuda as fc

    bits = {"bf16": 16, "e4m3": 8}.get(dt)
    if bits is None or not (fc.SWAP_AB_MAX_M < m <= fc.SWAP_SECTOR_MAX_M) or k * bits // 8 % 32:
        return None
    k_tiles = -(-k * bits // 8 // 128)
    if k_tiles < least or (below is not None and k_tiles >= below):
        return None
    c = fc.choose_plan(m, n, k, dt, dt)
    if not (fc._unswapped_one_cta(c) and c["bm"] >= 128 and c["bn"] <= fc.SWAP_PAD_MAX_BN
            and m < fc.SWAP_PAD_MAX_FILL * c["bm"] * -(-m // c["bm"])):
        return None
    return bits, c


def _v84_region(m, n, k, dt):
    """SWAP_PAD_MAX_FILL's region (fastswz.cuda._pad_swap's gate) where its swapped split is
    refused for too few work units (tiles x split < SWAP_SECTOR_MIN_UNITS): the default and the
    swapped pieces' (bn, tiles, split), else None."""
    import fastswz.cuda as fc
    from fastswz.cuda.codegen import normalize_config

    got = _pad_gate(m, n, k, dt, fc.SWAP_SECTOR_MIN_KTILES, None)
    if got is None:
        return None
    bits, c = got[0], normalize_config(got[1])
    if fc._swapped_pieces_plan(c, m, n, k, 1024 // bits) is not None:
        return None
    _, bn, tiles, split = fc._swap_pieces(m, n, k, 1024 // bits)
    return c, bn, tiles, split


def problems_v84():
    """Stated before the run: in SWAP_PAD_MAX_FILL's region, where the swapped split is refused
    for fewer than SWAP_SECTOR_MIN_UNITS (80) work units (seed 22's 73 x 9984 x 12672 bf16: 78
    tiles, 0.64x cuBLAS's speed on 128 x 80 unswapped), does the swapped plan at 1, 2 or 3 splits
    beat the default? 60 problems drawn into the region (seed 20261710: e4m3 or bf16, M 65-256,
    N 4096-32768 and K 3072 (bf16) or 6144 (e4m3) to 32768 log-uniform, K a multiple of 32
    bytes), none of the corpus's or seeds 1-22's: a rule is fitted on the first 30 and read on the
    last 30 (held out), from this one run; then the three corpus and seed problems in the region."""
    import random

    from fastswz.corpus import load_corpus

    seen = {key for _, key in _corpus_and_seeds_1_20()}
    own = [(p.m, p.n, p.k, p.a_dtype) for s in (20262001, 20262002)
           for p in load_corpus(os.path.join(HERE, f"fresh_{s}.json"))]
    seen |= set(own)

    def draw(r):
        dt = r.choice(("bf16", "e4m3"))
        line = 32 if dt == "e4m3" else 16
        return (_log_uniform(r, 65, 257), _log_uniform(r, 4096, 32769),
                _log_uniform(r, 3072 if dt == "bf16" else 6144, 32769) // line * line, dt)

    drawn = _drawn_where(lambda q: _v84_region(*q) is not None, random.Random(20261710), draw, 60, seen)
    corpus = [key for _, key in _corpus_and_seeds_1_20() if _v84_region(*key)]
    corpus += [q for q in own if q[3] in ("bf16", "e4m3") and _v84_region(*q)]
    return drawn + corpus


def candidates_v84(m, n, k, dt):
    """The default, then the swapped pieces (128 rows of N by M rounded up to 8) at 1, 2 and 3
    K splits at the deepest ring."""
    import fastswz.cuda as fc

    got = _v84_region(m, n, k, dt)
    if got is None:
        return []
    c, bn, tiles, split = got
    out = [c]
    bits = 16 if dt == "bf16" else 8
    for s in (1, 2, 3):
        sw = fc._swapped_split(bn, 1024 // bits, s, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"],
                               c["out_dtype"])
        if sw is not None:
            out.append(sw)
    return out


SETS["v84"] = _as_run({"SWAP_PAD_ONE_PASS_MIN_TILES": 0}, problems_v84, candidates_v84)   # as it ran: before its rule

for _name in ("v48", "v49", "v50", "v51", "v52", "v53", "v54", "v55", "v56", "v57", "v58", "v59"):
    SETS[_name] = _as_run(BEFORE_25, *SETS[_name])   # as they ran: before SWAP_SECTOR_MAX_M's rule


TWENTY_FIFTH_RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-29-twenty-fifth-session",
                                 "run4-corpus-seeds-callpath")


def _v61_region(p):
    """SWAP_SECTOR_MAX_M's rule on the plans it leaves: e4m3 with rows 16 bytes off the sector,
    64 < M <= 256, >= 48 k-tiles, an unswapped default on 128 rows or more (one pass or split),
    on one CTA (68 x 7488 x 12400 on 128 x 128 split 2 ways, 0.67x cuBLAS's speed in the
    twenty-fifth session's run 4), and the rule's swapped split at least 80 work units."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    if dt != "e4m3" or k % 32 != 16 or not 64 < m <= 256 or -(-k // 128) < 48:
        return False
    c = choose_plan(m, n, k, dt, dt)
    if c["swap_ab"] or c["bm"] < 128 or c["stream_k"] or c["cluster_m"] != 1 or c["cluster_n"] != 1:
        return False
    plan, units = _swapped_fill(m, n, k, dt)
    return plan is not None and units >= 80


def problems_v61():
    """Every problem of the shipped corpus and fresh seeds 1-12 (twenty-fifth session, run 4) in
    _v61_region, then 40 drawn there (seed 20261303: e4m3, M 65-256, N 1024-16384 and K
    6016-32768 log-uniform, N a multiple of 16, K an odd one), stated before the run: does the
    rule's plan pay on these defaults too?"""
    import random

    run = [p for p in _all_run_problems(TWENTY_FIFTH_RUN, same_type=True, seeds=SEEDS_1_10 + (20261303, 20261304))
           if _v61_region(p)]
    rng = random.Random(20261303)
    drawn = []
    while len(drawn) < 40:
        q = (_log_uniform(rng, 65, 257), _log_uniform(rng, 1024, 16385) // 16 * 16,
             _log_uniform(rng, 6016, 32769) // 32 * 32 + 16, "e4m3")
        if q not in run and q not in drawn and _v61_region(q):
            drawn.append(q)
    return run + drawn


def candidates_v61(m, n, k, dt):
    """The default; SWAP_SECTOR_MAX_M's plan (the swapped split on 128 rows of N); the same on 64
    rows of N."""
    base, out, add = _default_and_more(m, n, k, dt)
    add(_swapped_fill(m, n, k, dt)[0])
    add(_swapped_fill(m, n, k, dt, bm=64)[0])
    return out


SETS["v61"] = _as_run(V61_RAN, problems_v61, candidates_v61)


def _v63_region(p):
    """v61's losing kind, stated before v63 ran: e4m3 with rows 16 bytes off the sector, 128 < M
    <= 256, >= 48 k-tiles, where the plan before SWAP_SECTOR_WIDE_BM (V61_RAN) is an unswapped
    split of 128 rows or more on one CTA that today's rule swaps (231 x 1502 x 13456 ran 0.87x of
    its time before in the twenty-fifth session's runs 6-7; v61: 0.995x over five)."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    if dt != "e4m3" or k % 32 != 16 or not 128 < m <= 256 or -(-k // 128) < 48:
        return False
    with _Consts(V61_RAN):
        old = choose_plan(m, n, k, dt, dt)
    new = choose_plan(m, n, k, dt, dt)
    return (old["split_k"] > 1 and old["bm"] >= 128 and not old["swap_ab"] and old["cluster_m"] == 1
            and old["cluster_n"] == 1 and not old["stream_k"] and new["swap_ab"])


def problems_v63():
    """Every problem of the shipped corpus and fresh seeds 1-12 (twenty-fifth session, run 4;
    against either type's cuBLAS) in _v63_region, then 40 drawn there (seed 20261305: M 129-256
    uniform, N 1024-16384 and K 6016-32768 log-uniform, N a multiple of 16, K an odd one): today's
    swapped plan against the split before it."""
    import random

    run = [p for p in _all_run_problems(TWENTY_FIFTH_RUN, seeds=SEEDS_1_10 + (20261303, 20261304))
           if _v63_region(p)]
    return run + _drawn_where(_v63_region, random.Random(20261305), lambda r: (
        r.randint(129, 256), _log_uniform(r, 1024, 16385) // 16 * 16,
        _log_uniform(r, 6016, 32769) // 32 * 32 + 16, "e4m3"), 40, run)


def candidates_v63(m, n, k, dt):
    """Today's plan (first, the default) and the plan before SWAP_SECTOR_WIDE_BM."""
    from fastswz.cuda import choose_plan

    base, out, add = _default_and_more(m, n, k, dt)
    with _Consts(V61_RAN):
        add(choose_plan(m, n, k, dt, dt))
    return out


#: The twenty-sixth session's two rules off: SWAP_SECTOR_MAX_SPLIT's cap (v63-v65 ran before it)
#: and ONE_COLUMN_MAX_N's split (v48-v65 ran before it).
BEFORE_26 = {"SWAP_SECTOR_MAX_SPLIT": 16, "ONE_COLUMN_MAX_N": 0}
SETS["v63"] = _as_run(BEFORE_26, problems_v63, candidates_v63)


def problems_v64():
    """The problems of fresh seeds 11 and 12 (twenty-fifth session, runs 4 and 7) under 0.85x
    same-type cuBLAS's speed: where does v13's grid put their fastest plans? (exploration, no
    rule from it alone)."""
    import gzip

    out = []
    runs = {20261303: os.path.join(TWENTY_FIFTH_RUN, "..", "run7-seed11-tests"), 20261304: TWENTY_FIFTH_RUN}
    for seed, run in runs.items():
        with gzip.open(os.path.join(run, f"fresh-{seed}.json.gz")) as f:
            for r in json.load(f)["rows"]:
                if (r["a_major"] == r["b_major"] == "K" and r.get("cublas", {}).get("kind") == "same"
                        and r["fastswz"]["median_ms"] > r["cublas"]["median_ms"] / 0.85):
                    key = (r["m"], r["n"], r["k"], r["a_dtype"])
                    if key not in out:
                        out.append(key)
    return out


SETS["v64"] = _as_run(BEFORE_26, problems_v64, lambda m, n, k, dt: candidates_v13(m, n, k, dt))


#: v65's question: SWAP_SECTOR_MAX_M's rule declining where its swapped split would pass 8.
V65_CAP = {"SWAP_SECTOR_MAX_SPLIT": 8}


def _v65_region(p):
    """The lead of v63 (its 26 problems whose swapped plan split more than 8 ways ran 0.911x of
    the split before it; its 15 at most 8 ways 1.085x; v61's four above 8 0.967x, every other
    problem of v60 and v61 at most 8), stated before v65 ran: e4m3 with rows off the sector where
    today's default is SWAP_SECTOR_MAX_M's swapped plan split more than 8 ways."""
    from fastswz.cuda import choose_plan

    m, n, k, dt = p
    if dt != "e4m3" or k % 32 != 16 or not 64 < m <= 256:
        return False
    c = choose_plan(m, n, k, dt, dt)
    return c["swap_ab"] and c["split_k"] > 8 and bool(_rule_changes(V65_CAP, [p]))


def problems_v65():
    """Every problem of the shipped corpus and fresh seeds 1-12 (twenty-fifth session, run 4)
    in _v65_region, then 40 drawn there (seed 20261306: M 65-256 uniform, N 1024-4096 and K
    9000-32768 log-uniform, N a multiple of 16, K an odd one), none of v63's: the plan the cap
    leaves against today's swapped plan."""
    import random

    v63 = set(problems_v63())
    run = [p for p in _all_run_problems(TWENTY_FIFTH_RUN, seeds=SEEDS_1_10 + (20261303, 20261304))
           if _v65_region(p) and p not in v63]
    return run + _drawn_where(_v65_region, random.Random(20261306), lambda r: (
        r.randint(65, 256), _log_uniform(r, 1024, 4097) // 16 * 16,
        _log_uniform(r, 9000, 32769) // 32 * 32 + 16, "e4m3"), 40, set(run) | v63)


def candidates_v65(m, n, k, dt):
    """Today's plan (first, the default: swapped) and the plan with the cap (V65_CAP)."""
    return _new_and_old(V65_CAP, m, n, k, dt)


SETS["v65"] = _as_run(BEFORE_26, problems_v65, candidates_v65)


#: ONE_COLUMN_MAX_N's rule on as v66 ran it (no unit floor, before SWAP_SECTOR_MAX_SPLIT's cap),
#: and off.
V66_RULE = {"ONE_COLUMN_MAX_N": 256, "ONE_COLUMN_MIN_UNITS": 0, "SWAP_SECTOR_MAX_SPLIT": 16}
V66_OFF = {"ONE_COLUMN_MAX_N": 0}


def problems_v66():
    """Held out for ONE_COLUMN_MAX_N's rule, stated before v66 ran: every problem of the shipped
    corpus and fresh seeds 1-12 (twenty-fifth session, run 4) it changes, then 40 drawn that it
    changes (seed 20261307: bf16 or e4m3, N 144-256 a multiple of 16, M 1024-8448 and K
    2048-32768 log-uniform, K a multiple of 16): the rule's plan against the plan before it."""
    import random

    run = [p for p, _ in _rule_changes(V66_OFF, _all_run_problems(TWENTY_FIFTH_RUN, seeds=SEEDS_1_10 + (20261303, 20261304)))]
    return run + _drawn_changes(V66_OFF, random.Random(20261307), lambda r: (
        _log_uniform(r, 1024, 8449), r.randint(9, 16) * 16, _log_uniform(r, 2048, 32769) // 16 * 16,
        r.choice(("bf16", "e4m3"))), 40, 4000, run)


def candidates_v66(m, n, k, dt):
    """The rule's plan (first, the default) and the plan before it."""
    return _new_and_old(V66_OFF, m, n, k, dt)


SETS["v66"] = _as_run(V66_RULE, problems_v66, candidates_v66)


def problems_v67():
    """Held out for ONE_COLUMN_MAX_N's rule with its unit floor (ONE_COLUMN_MIN_UNITS, fitted on
    v66): 40 drawn that it changes (seed 20261308, v66's draw otherwise; none of v66's): the
    rule's plan against the plan before it."""
    import random

    with _Consts(V66_RULE):
        v66 = set(problems_v66())
    return _drawn_changes(V66_OFF, random.Random(20261308), lambda r: (
        _log_uniform(r, 1024, 8449), r.randint(9, 16) * 16, _log_uniform(r, 2048, 32769) // 16 * 16,
        r.choice(("bf16", "e4m3"))), 40, 4000, v66)


SETS["v67"] = (problems_v67, candidates_v66)


for _name in ("v48", "v49", "v50", "v51", "v52", "v53", "v54", "v55", "v56", "v57", "v58", "v59", "v60", "v61"):
    SETS[_name] = _as_run(BEFORE_26, *SETS[_name])   # as they ran: before the twenty-sixth session's rules


def cmd_make(args):
    from fastswz.cuda import compile_many
    from fastswz.cuda.codegen import normalize_config, supported

    cases = []
    problems, draw = SETS[args.set]
    probs = problems()
    for m, n, k, dt in probs:
        cands = [normalize_config(c) for c in draw(m, n, k, dt)]
        cands = [c for c in cands if supported(c) is None]
        cands = list({json.dumps(c, sort_keys=True): c for c in cands}.values())   # first stays first
        cases.append({"shape": [m, n, k], "dtype": dt, "configs": cands})
    uniq = {json.dumps(c, sort_keys=True): c for case in cases for c in case["configs"]}
    got = compile_many(list(uniq.values()), jobs=args.jobs)
    bad = {key for key, g in zip(uniq, got) if isinstance(g, Exception)}
    for case in cases:
        case["configs"] = [c for c in case["configs"] if json.dumps(c, sort_keys=True) not in bad]
    with open(args.out, "w") as f:
        json.dump(cases, f)
    print(f"probe: {len(cases)} problems, {sum(len(c['configs']) for c in cases)} timings, "
          f"{len(uniq)} distinct plans ({len(bad)} failed to compile)")


class ShapeProblem:
    """A problem of shape and type alone (both operands K-major, bf16 D), as gpu_corpus's operand
    maker and launcher read a corpus problem."""

    def __init__(self, m, n, k, dt):
        self.m, self.n, self.k = m, n, k
        self.a_dtype = self.b_dtype = dt
        self.a_major = self.b_major = "K"
        self.out_dtype = "bf16"


def default_pair(torch, ops, p):
    """choose_plan's kernel and the cuBLAS call on new operands of ``p`` (gpu_corpus's), each run
    twice so that first-call costs stay out of what follows: ``(config, fastswz's launch,
    cuBLAS's call, cuBLAS's name, operands)``; keep ``operands`` while the launch is used (the
    prepared launch holds D's pointer, not the tensor)."""
    import gpu_corpus
    from fastswz.cuda import choose_plan, compile_gemm

    cfg = choose_plan(p.m, p.n, p.k, p.a_dtype, p.b_dtype, p.a_major, p.b_major, p.out_dtype)
    kern = compile_gemm(cfg)
    a, b, d, ptrs, lds = ops.make(p)
    go, _ = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
    fn, _, library = gpu_corpus._cublas(torch, p, a, b)
    for f in (go, fn, go, fn):
        f()
    torch.cuda.synchronize()
    return cfg, go, fn, library, (a, b, d)


for _name in [n for n in SETS if n != "v79"]:   # as they ran: before QUAD_CLUSTER_MAX_BM's rule
    SETS[_name] = _as_run(V79_OFF, *SETS[_name])

# The sets below were drawn under the rules of their time, QUAD_CLUSTER_MAX_BM's included. v85-v87
# and "losers" ran in the thirty-fifth session's runs 1-2 while defined above the loop before
# this line, so with that rule off: their defaults are the plans without clusters of four (v87
# unchanged by it; v85's 154 x 13918 x 27424, v86's 89 x 27227 x 15120, 121 x 30516 x 6480,
# 190 x 16927 x 20464, 190 x 25889 x 26896, 190 x 28660 x 23056, 185 x 23363 x 10768 and
# 126 x 23424 x 8528 would have run on clusters of four; v88 times the rules against the real plans),
# and before SWAP_WAVE_BM's and SWAP_PAD_MIN_KTILES' rules, which they fitted.
#: The constants that switch SWAP_WAVE_BM's and SWAP_PAD_MIN_KTILES' rules off.
V88_OLD = {"SWAP_WAVE_BM": 0, "SWAP_PAD_MIN_KTILES": 48}
V85_RAN = dict(V79_OFF, **V88_OLD)


def _seen_1_24():
    """(M, N, K, type) of the shipped corpus and fresh seeds 1-24: a drawn set excludes them."""
    from fastswz.corpus import load_corpus

    seen = {key for _, key in _corpus_and_seeds_1_20()}
    for s in (20262001, 20262002, 20262101, 20262102):
        seen |= {(p.m, p.n, p.k, p.a_dtype) for p in load_corpus(os.path.join(HERE, f"fresh_{s}.json"))}
    return seen


def _v85_region(m, n, k, dt):
    """SWAP_LONG_K_MAX_M's gate (bf16, 64 < M <= 512, >= 128 k-tiles of 64) where its swapped
    pieces pad M less than 128-row tiles and number at least SWAP_LONG_K_MIN_TILES, but the rule
    refuses them for fewer than 2 splits (more than 66 tiles): seed 23's 266 x 7936 x 22016 bf16
    (0.68-0.75x cuBLAS's speed on 128 x 192 unswapped; cuBLAS ran it swapped, 128 x 136, one
    pass). The pieces' (bn, tiles), else None."""
    import fastswz.cuda as fc

    if dt != "bf16" or not (fc.SWAP_AB_MAX_M < m <= fc.SWAP_LONG_K_MAX_M) or -(-k // 64) < fc.SWAP_LONG_K_MIN_KTILES:
        return None
    pieces, bn, tiles, split = fc._swap_pieces(m, n, k, 64)
    if tiles < fc.SWAP_LONG_K_MIN_TILES or split >= 2 or pieces * bn >= -(-m // 128) * 128:
        return None
    return bn, tiles


def problems_v85():
    """Stated before the run (thirty-fifth session): in :func:`_v85_region`, does the swapped
    pieces' plan in one pass (or split 2 ways) beat the default? 40 problems drawn (seed
    20261711: bf16, M 65-512, N 4096-32768, K 8192-32768 log-uniform, K a multiple of 8), none of
    the corpus's or seeds 1-24's: a rule is fitted on the first 20 and read on the last 20 (held
    out), from this one run; then the corpus and seed problems in the region."""
    import random

    seen = _seen_1_24()

    def draw(r):
        return (_log_uniform(r, 65, 513), _log_uniform(r, 4096, 32769), _log_uniform(r, 8192, 32769) // 8 * 8, "bf16")

    drawn = _drawn_where(lambda q: _v85_region(*q) is not None, random.Random(20261711), draw, 40, seen)
    return drawn + sorted(q for q in seen if q[3] == "bf16" and _v85_region(*q))


def candidates_v85(m, n, k, dt):
    """The default, then the swapped pieces (128 rows of N by M in pieces rounded up to 8) at 1
    and 2 K splits at the deepest ring."""
    import fastswz.cuda as fc

    got = _v85_region(m, n, k, dt)
    if got is None:
        return []
    c = fc.choose_plan(m, n, k, dt, dt)
    out = [c]
    for s in (1, 2):
        sw = fc._swapped_split(got[0], 64, s, c["a_dtype"], c["b_dtype"], c["a_major"], c["b_major"], c["out_dtype"])
        if sw is not None:
            out.append(sw)
    return out


SETS["v85"] = (problems_v85, candidates_v85)


def _v86_region(m, n, k, dt):
    """Where choose_plan's default is SWAP_SECTOR_MAX_M's or SWAP_PAD_MAX_FILL's swapped plan
    with more tiles than SMs (one pass over more than one wave): seed 24's 101 x 20256 x 17584
    e4m3 (159 tiles of 128 x 104, 0.74x cuBLAS's speed; unswapped 128 x 256 ran 0.91x, cuBLAS a
    swapped 160 x 128 on 2 x 1 clusters). The default and the plan without those two rules, else
    None."""
    import fastswz.cuda as fc

    if dt not in ("bf16", "e4m3") or not (fc.SWAP_AB_MAX_M < m <= fc.SWAP_SECTOR_MAX_M):
        return None
    c = fc.choose_plan(m, n, k, dt, dt)
    if not (c["swap_ab"] and c["split_k"] == 1 and c["bm"] == 128 and -(-n // 128) * -(-m // c["bn"]) > 132):
        return None
    with _Consts({"SWAP_SECTOR_MAX_M": fc.SWAP_AB_MAX_M}):
        old = fc.choose_plan(m, n, k, dt, dt)
    if old["swap_ab"]:
        return None
    return c, old


def problems_v86():
    """Stated before the run (thirty-fifth session): in :func:`_v86_region`, is the swapped
    one-pass plan over more than one wave slower than the unswapped plan the rules replace, or
    than the same swapped tile 192 rows deep (fewer waves)? 40 problems drawn (seed 20261712:
    e4m3 or bf16, M 65-256, N 8192-32768, K 3072-32768 log-uniform, K a multiple of 16 bytes),
    none of the corpus's or seeds 1-24's: fitted on the first 20, read on the last 20 (held out)
    from this one run; then the corpus and seed problems in the region."""
    import random

    seen = _seen_1_24()

    def draw(r):
        dt = r.choice(("bf16", "e4m3"))
        line = 16 if dt == "e4m3" else 8
        return (_log_uniform(r, 65, 257), _log_uniform(r, 8192, 32769), _log_uniform(r, 3072, 32769) // line * line, dt)

    drawn = _drawn_where(lambda q: _v86_region(*q) is not None, random.Random(20261712), draw, 40, seen)
    return drawn + sorted(q for q in seen if q[3] in ("bf16", "e4m3") and _v86_region(*q))


def candidates_v86(m, n, k, dt):
    """The default (swapped, one pass), the plan without the swapped rules, the swapped tile at
    192 rows (deepest ring), and unswapped 128 x 256 through 64-column epilogue blocks."""
    from fastswz.cuda.codegen import supported

    got = _v86_region(m, n, k, dt)
    if got is None:
        return []
    c, old = got
    out = [c, old]
    for stages in range(12, 1, -1):
        deep = dict(c, bm=192, stages=stages)
        if supported(deep) is None:
            out.append(deep)
            break
    wide = _fit({"a_dtype": dt, "b_dtype": dt, "bm": 128, "bn": 256, "bk": c["bk"], "stages": 2,
                 "epilogue": True, "epilogue_n": 64})
    if wide is not None:
        out.append(wide)
    return out


SETS["v86"] = (problems_v86, candidates_v86)


def _v87_region(m, n, k, dt):
    """SWAP_PAD_MAX_FILL's gate but for its K floor: 16-47 k-tiles of 128 bytes (the rule asks
    for SWAP_SECTOR_MIN_KTILES, 48), where its swapped plan (one pass of at least
    SWAP_PAD_ONE_PASS_MIN_TILES tiles, or a split of at least SWAP_SECTOR_MIN_UNITS units) exists:
    seed 23's 141 x 12576 x 4480 e4m3 (35 k-tiles; 0.74x cuBLAS's speed on its unswapped default,
    swapped 128 x 144 in one pass 0.91x). The default and the swapped plan, else None."""
    import fastswz.cuda as fc

    got = _pad_gate(m, n, k, dt, 16, fc.SWAP_SECTOR_MIN_KTILES)
    if got is None:
        return None
    bits, c = got
    sw = fc._swapped_pieces_plan(c, m, n, k, 1024 // bits, fc.SWAP_PAD_ONE_PASS_MIN_TILES)
    return None if sw is None else (c, sw)


def problems_v87():
    """Stated before the run (thirty-fifth session): in :func:`_v87_region`, does
    SWAP_PAD_MAX_FILL's swapped plan beat the default with fewer than 48 k-tiles? 40 problems
    drawn (seed 20261713: e4m3 or bf16, M 65-256, N 4096-32768, K 1024-6144 (bf16) or 2048-6144
    (e4m3) log-uniform, K a multiple of 32 bytes), none of the corpus's or seeds 1-24's: fitted on
    the first 20, read on the last 20 (held out), from this one run; then the corpus and seed
    problems in the region."""
    import random

    seen = _seen_1_24()

    def draw(r):
        dt = r.choice(("bf16", "e4m3"))
        line = 32 if dt == "e4m3" else 16
        return (_log_uniform(r, 65, 257), _log_uniform(r, 4096, 32769),
                _log_uniform(r, 1024 if dt == "bf16" else 2048, 6145) // line * line, dt)

    drawn = _drawn_where(lambda q: _v87_region(*q) is not None, random.Random(20261713), draw, 40, seen)
    return drawn + sorted(q for q in seen if q[3] in ("bf16", "e4m3") and _v87_region(*q))


def candidates_v87(m, n, k, dt):
    """The default, then SWAP_PAD_MAX_FILL's swapped plan."""
    got = _v87_region(m, n, k, dt)
    return [] if got is None else list(got)


SETS["v87"] = (problems_v87, candidates_v87)


def problems_losers():
    """The problems of ``PROBE_LOSERS`` (a JSON file of [M, N, K, dtype] rows, e.g. written on the
    GPU machine from a corpus run's rows under some speed): a session's unseen losers, each
    against v13's grid, in the run that found them."""
    with open(os.environ["PROBE_LOSERS"]) as f:
        return [tuple(r) for r in json.load(f)]


SETS["losers"] = (problems_losers, candidates_v13)

for _name in ("v85", "v86", "v87", "losers"):
    SETS[_name] = _as_run(V85_RAN, *SETS[_name])   # as they ran (the note above)


def problems_v88():
    """Stated before the run (thirty-fifth session): held out for SWAP_WAVE_BM's and
    SWAP_PAD_MIN_KTILES' rules (fitted on v86 and v87's first halves): 40 problems drawn where the
    two rules change choose_plan's plan (seed 20261714: e4m3 or bf16, M 65-256, N 4096-32768,
    K 1024-32768 log-uniform, K a multiple of 16 bytes), none of the corpus's or seeds 1-24's or
    v85-v87's, each the new plan against the plan before the rules (clusters of four included).
    The rules stand if the new plans are faster in geometric mean and at most 4 of the 40 slower
    by more than 3%."""
    import random

    seen = _seen_1_24()
    for v in ("v85", "v86", "v87"):
        seen |= set(SETS[v][0]())

    def draw(r):
        dt = r.choice(("bf16", "e4m3"))
        line = 16 if dt == "e4m3" else 8
        return (_log_uniform(r, 65, 257), _log_uniform(r, 4096, 32769),
                _log_uniform(r, 1024, 32769) // line * line, dt)

    return _drawn_changes(V88_OLD, random.Random(20261714), draw, 40, 6000, seen)


#: Drawn problem lists written by ``probe.py draw --set NAME`` (here, before a run: the draws
#: of v88 and v90 take minutes of choose_plan calls, more than a GPU call should spend on them).
DRAWN = os.path.join(HERE, "probe_drawn.json")


def _drawn_file(name, draw):
    """``draw()``'s problems for set ``name``, read from :data:`DRAWN` where it holds them."""
    if os.path.exists(DRAWN):
        with open(DRAWN) as f:
            got = json.load(f).get(name)
        if got is not None:
            return [tuple(q) for q in got]
    return draw()


SETS["v88"] = (lambda: _drawn_file("v88", problems_v88), functools.partial(_new_and_old, V88_OLD))


def _v89_region(m, n, k, dt):
    """v85's region where the swapped pieces fit one wave (at most 132 tiles) and M <= 320."""
    got = _v85_region(m, n, k, dt)
    return got if got is not None and got[1] <= 132 and m <= 320 else None


def problems_v89():
    """Stated before the run (thirty-fifth session): v85 found the long-K swapped pieces in one
    pass mixed (0.83-0.87x drawn) but faster on most corpus and seed problems whose pieces fit one
    wave with M <= 200 (11: 0.99-1.68x) or 256 < M <= 320 (6: 0.96-1.29x; seed 23's 266 x 7936 x
    22016 1.29x). In :func:`_v89_region`, does the one pass beat the default? 40 problems drawn
    (seed 20261715: bf16, M 65-320, N 4096-17000, K 8192-32768 log-uniform, K a multiple of 8),
    none seen before: a rule is fitted on the first 20 and read on the last 20 (held out)."""
    import random

    seen = _seen_1_24()
    for v in ("v85", "v86", "v87"):
        seen |= set(SETS[v][0]())

    def draw(r):
        return (_log_uniform(r, 65, 321), _log_uniform(r, 4096, 17001), _log_uniform(r, 8192, 32769) // 8 * 8, "bf16")

    return _drawn_where(lambda q: _v89_region(*q) is not None, random.Random(20261715), draw, 40, seen)


SETS["v89"] = (problems_v89, candidates_v85)

#: The constants that switch SWAP_LONG_K_ONE_PASS_MAX_BN's rule off.
V90_OLD = {"SWAP_LONG_K_ONE_PASS_MAX_BN": ()}


def problems_v90():
    """Stated before the run (thirty-fifth session): held out for SWAP_LONG_K_ONE_PASS_MAX_BN's
    rule (fitted on v85 and v89's first half): 30 problems drawn where the rule changes
    choose_plan's plan (seed 20261716: bf16, M 65-320, N 4096-17000, K 8192-32768 log-uniform, K a
    multiple of 8), none seen before, each the new plan against the plan before the rule. The
    rule stands if the new plans are faster in geometric mean and at most 4 of the 30 slower by
    more than 3%."""
    import random

    seen = _seen_1_24()
    for v in ("v85", "v86", "v87", "v89"):
        seen |= set(SETS[v][0]())

    def draw(r):
        return (_log_uniform(r, 65, 321), _log_uniform(r, 4096, 17001), _log_uniform(r, 8192, 32769) // 8 * 8, "bf16")

    return _drawn_changes(V90_OLD, random.Random(20261716), draw, 30, 3000, seen)


SETS["v90"] = (lambda: _drawn_file("v90", problems_v90), functools.partial(_new_and_old, V90_OLD))


def candidates_v91(m, n, k, dt):
    """v13's grid, and one-pass tiles 128 rows by 144-256 columns (every 16) and 192 or 256 by
    96-208 whose tiles fill at most 1.1 waves of 132 SMs, each on one CTA, a 2 x 1 and a 1 x 2
    cluster (cuBLAS's kernels on unseen losers were wide one-pass tiles on clusters)."""
    from fastswz.cuda.codegen import supported

    bk = 128 if dt in ("e4m3", "e5m2") else 64
    out = candidates_v13(m, n, k, dt)
    seen = {json.dumps(c, sort_keys=True) for c in out}
    for c in _v91_wide(m, n, dt, bk):
        key = json.dumps(c, sort_keys=True)
        if c is not None and supported(c) is None and key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _v91_wide(m, n, dt, bk):
    """v91's wide one-pass tiles (each at its deepest ring, or None where none runs)."""
    shapes = [(128, bn) for bn in range(144, 257, 16)] + [(bm, bn) for bm in (192, 256) for bn in range(96, 209, 16)]
    for bm, bn in shapes:
        tiles = -(-m // bm) * -(-n // bn)
        if tiles > 145 or tiles < 66:
            continue
        for cl in ({}, {"cluster_m": 2}, {"cluster_n": 2}):
            yield _fit(dict({"a_dtype": dt, "b_dtype": dt, "bk": bk, "bm": bm, "bn": bn, "stages": 2,
                             "epilogue": True, "epilogue_n": 64 if bn % 64 == 0 else 0}, **cl))


# thirty-sixth session: the unseen losers (seeds 25-28 under 0.86x, PROBE_LOSERS) at the current
# rules, against v91's grid
SETS["v91"] = (problems_losers, candidates_v91)


def _seen_1_28(more=()):
    """(M, N, K, type) of the shipped corpus and fresh seeds 1-28 (and the seeds ``more``): a
    drawn set excludes them."""
    from fastswz.corpus import load_corpus

    seen = _seen_1_24()
    for s in (20262201, 20262202, 20262301, 20262302) + tuple(more):
        seen |= {(p.m, p.n, p.k, p.a_dtype) for p in load_corpus(os.path.join(HERE, f"fresh_{s}.json"))}
    return seen


# v92 and v93 held out two rules found on v91 that were not kept (thirty-sixth session, run 2:
# 0.954x and 0.959x; their diff to fastswz.cuda: docs/conformance/
# 2026-11-29-thirty-sixth-session/run2-*/rules_v92_v93.diff). The rules live on here as the
# sets' candidates: the rule's plan first, then choose_plan's, as they ran.
V92_RANGE, V92_MAX_STAGES = (96, 208), 4


def _v92_rule(c, m, n, k):
    """ROUND_UP_WIDTH_RANGE's plan (not kept): a one-pass, one-CTA plan of BN 96-208, not a
    multiple of 64, through the whole-tile epilogue at 4 stages or fewer, at BN rounded up to a
    multiple of 64 through 64-column blocks, the deepest ring (never fewer stages), where the wider
    tiles make no more waves; None where the rule does not apply."""
    import fastswz.cuda as fc
    from fastswz.cuda.codegen import normalize_config

    bn = c["bn"]
    if not (V92_RANGE[0] <= bn <= V92_RANGE[1] and bn % 64 and c["epilogue"] and c["epilogue_n"] == 0
            and c["split_k"] == 1 and c["stages"] <= V92_MAX_STAGES and fc._unswapped_one_cta(c)):
        return None
    wide, rows = -(-bn // 64) * 64, -(-m // c["bm"])
    if -(-(rows * -(-n // wide)) // 132) > -(-(rows * -(-n // bn)) // 132):
        return None
    return fc._deepest_ring(lambda st: normalize_config(dict(c, bn=wide, stages=st, epilogue_n=64, epilogue_stages=1)),
                            least=c["stages"], most=16)


def _v93_rule(c, m, n, k):
    """TALL_TWO_CONSUMERS_MAX_N's plan (not kept): a one-pass, one-CTA plan of 64-row tiles within
    one wave on M >= 1024 and N <= 512 on 128-row tiles of the narrowest width (a multiple of 16,
    at least 64) that still fits one wave, the deepest ring; None where the rule does not apply."""
    import fastswz.cuda as fc
    from fastswz.cuda.codegen import normalize_config

    if not (n <= 512 and m >= 1024 and c["bm"] == 64 and c["split_k"] == 1 and fc._unswapped_one_cta(c)
            and -(-m // 64) * -(-n // c["bn"]) <= 132):
        return None
    rows = -(-m // 128)
    if rows > 132:
        return None
    bn = max(64, -(-(-(-n // (132 // rows))) // 16) * 16)
    if bn > 256:
        return None
    blocks = 64 if bn > 64 and bn % 64 == 0 else 0
    return fc._deepest_ring(lambda st: normalize_config(dict(c, bm=128, bn=bn, stages=st, epilogue=True,
                                                             epilogue_n=blocks, epilogue_stages=1)),
                            least=3, most=16)


def _rule_first(rule, m, n, k, dt, before=()):
    """The plan ``rule`` makes of choose_plan's and choose_plan's, or none where it makes none;
    ``before``: rules applied to choose_plan's plan first (v93 ran with v92's rule in place)."""
    from fastswz.cuda import choose_plan

    base = choose_plan(m, n, k, dt, dt)
    for r in before:
        base = r(base, m, n, k) or base
    new = rule(base, m, n, k)
    return [new, base] if new is not None and new != base else []


def _rule_drawn(rule, seed, draw, count, tries=4000, more_seen=()):
    """Up to ``count`` problems ``draw`` gives (seed ``seed``) that ``rule`` changes, none seen
    (the corpus, seeds 1-28 and the fresh seeds ``more_seen``)."""
    import random

    return _drawn_where(lambda q: bool(_rule_first(rule, *q)), random.Random(seed), draw, count,
                        _seen_1_28(more_seen), tries)


def _draw_mnk(m_range, n_range, r):
    """e4m3 or bf16, M and N log-uniform in their [lo, hi), K log-uniform in 256-32768 as a
    multiple of 16 bytes (v92's and v93's draws; ``r`` a random.Random)."""
    dt = r.choice(("e4m3", "bf16"))
    e = 1 if dt == "e4m3" else 2
    return (_log_uniform(r, *m_range), _log_uniform(r, *n_range),
            max(16 // e, _log_uniform(r, 256, 32769) * e // 16 * 16 // e), dt)


def problems_v92():
    """Stated before the run (thirty-sixth session): held out for ROUND_UP_WIDTH_RANGE's rule
    (found on v91): 40 problems drawn where it changes choose_plan's plan (seed 20261718: e4m3 or
    bf16, M 64-12000, N 256-32768, K 256-32768 log-uniform, K a multiple of 16 bytes), none of the
    corpus's or seeds 1-28's, each the new plan against the plan before the rule. The rule stands
    if the new plans are faster in geometric mean and at most 4 of the 40 slower by more than 3%
    (run 2: 0.954x, 20 slower: not kept)."""
    return _rule_drawn(_v92_rule, 20261718, functools.partial(_draw_mnk, (64, 12001), (256, 32769)), 40)


SETS["v92"] = (lambda: _drawn_file("v92", problems_v92), functools.partial(_rule_first, _v92_rule))


def problems_v93():
    """Stated before the run (thirty-sixth session): held out for TALL_TWO_CONSUMERS_MAX_N's rule
    (found on v91): 30 problems drawn where it changes choose_plan's plan (seed 20261719: e4m3 or
    bf16, M 1024-16384, N 64-512, K 256-32768 log-uniform, K a multiple of 16 bytes), none seen,
    each the new plan against the plan before the rule. The rule stands if the new plans are
    faster in geometric mean and at most 3 of the 30 slower by more than 3% (run 2: 0.959x, 17
    slower: not kept)."""
    return _rule_drawn(_v93_rule, 20261719, functools.partial(_draw_mnk, (1024, 16385), (64, 513)), 30)


SETS["v93"] = (lambda: _drawn_file("v93", problems_v93),
               functools.partial(_rule_first, _v93_rule, before=(_v92_rule,)))


# v94 (thirty-seventh session) holds out a rule read off run 6 of that session: eight tall narrow
# losers of seeds 21-30 on 64 x ceil(N/2) tiles through the whole-tile epilogue on one CTA. Three
# gained 1.11-1.22x (3280 x 288 x 1808 bf16, 5643 x 256 x 4352 bf16, 1936 x 320 x 6016 e4m3: N
# 256-320, at most 1.4 waves of the new tiles); the five outside that region lost (N 384-512, or
# 15615 x 272 x 1584 at 3.7 waves). Held out in run 7 it lost (0.915x): not kept.
V94_N, V94_MAX_TILES = (192, 320), 185


def _v94_rule(c, m, n, k):
    """HALF_WIDTH_TALL's plan (not kept): on M >= 1024 and N 192-320, a one-pass, one-CTA plan
    becomes 64 x ceil(N/2) (a multiple of 16) through the whole-tile epilogue at the deepest ring,
    where those tiles make at most :data:`V94_MAX_TILES` (1.4 waves); None where the rule does
    not apply."""
    import fastswz.cuda as fc
    from fastswz.cuda.codegen import normalize_config

    if not (m >= 1024 and V94_N[0] <= n <= V94_N[1] and c["split_k"] == 1 and fc._unswapped_one_cta(c)):
        return None
    half = -(-n // 2)
    bn = -(-half // 16) * 16
    if -(-m // 64) * -(-n // bn) > V94_MAX_TILES or (c["bm"], c["bn"]) == (64, bn):
        return None
    return fc._deepest_ring(lambda st: normalize_config(dict(c, bm=64, bn=bn, stages=st, epilogue=True,
                                                             epilogue_n=0, epilogue_stages=1)),
                            least=3, most=16)


def problems_v94():
    """Stated before the run (thirty-seventh session): held out for HALF_WIDTH_TALL's rule (found
    on that session's run 6): 30 problems drawn where it changes choose_plan's plan (seed
    20261720: e4m3 or bf16, M 1024-16384, N 192-320, K 256-32768 log-uniform, K a multiple of 16
    bytes), none of the corpus's or seeds 1-30's, each the new plan against the plan before the
    rule. The rule stands if the new plans are faster in geometric mean and at most 3 of the 30
    slower by more than 3% (run 7: 0.915x, 19 slower: not kept; the rule was never in
    fastswz.cuda)."""
    return _rule_drawn(_v94_rule, 20261720, functools.partial(_draw_mnk, (1024, 16385), (192, 321)), 30,
                       more_seen=(20262401, 20262402))


SETS["v94"] = (lambda: _drawn_file("v94", problems_v94), functools.partial(_rule_first, _v94_rule))



def _corpus_and_seeds(last):
    """The shipped corpus file, then the fresh corpus files of tests/gpu/gemm up to ``last`` (a
    file name: fresh_20262502.json ends seed 32, fresh_20262602.json seed 34, fresh_20262702.json
    seed 36), in name order."""
    import glob

    return ([os.path.join(HERE, "..", "..", "..", "src", "fastswz", "data", "gemm_corpus.json")]
            + [f for f in sorted(glob.glob(os.path.join(HERE, "fresh_*.json"))) if os.path.basename(f) <= last])


def _seed_files_1_32():
    """The fresh corpus files of seeds 1-32 (up to fresh_20262502.json), in name order."""
    return _corpus_and_seeds("fresh_20262502.json")[1:]


def _split_rule_off(m, n, k, dt):
    """choose_plan's plan with SMALL_TILE_MAX_KTILES' rule off (the split it replaces)."""
    import fastswz.cuda as fc

    with _Consts({"SMALL_TILE_MAX_KTILES": 0}):
        return dict(fc.choose_plan(m, n, k, dt, dt))


def problems_v95():
    """Stated before the run (thirty-ninth session): every problem (M > 16, K-major, bf16 or e4m3)
    of the shipped corpus and every fresh seed (1-32) whose plan without SMALL_TILE_MAX_KTILES'
    rule is an unswapped split of 128-row tiles on one CTA and for which _small_tiles offers its
    one-pass 64-row plan (272 problems; 44 run that plan today). The question: now that a
    cluster's CTA leaves without a cluster barrier (thirty-eighth session), do the one-pass small
    tiles on 2 x 1, 4 x 1, 1 x 2 or 2 x 2 clusters beat the split where one CTA did not (cuBLAS
    runs such problems on narrow tiles, deep rings and clusters of 2-8)? A rule is to be fitted on
    the corpus and seeds 1-22 (files up to fresh_20262002) and read on seeds 23-32 apart."""
    from fastswz.cuda import _small_tiles

    out = []
    for _, key in _k_major_keys(_corpus_and_seeds("fresh_20262502.json")):
        s = _split_rule_off(*key)
        if (s["split_k"] > 1 and not s["swap_ab"] and s["bm"] == 128 and s["cluster_m"] == 1
                and s["cluster_n"] == 1 and _small_tiles(key[0], key[1], key[2], s) is not None):
            out.append(key)
    return out


def candidates_v95(m, n, k, dt):
    """The default; the split (the rule off) where the default is the small tiles; _small_tiles'
    unswapped one-pass plan on one CTA and on 2 x 1, 4 x 1, 1 x 2 and 2 x 2 clusters."""
    from fastswz.cuda import _small_tiles, choose_plan, supported

    out = [choose_plan(m, n, k, dt, dt)]

    def add(c):
        if c is not None and supported(c) is None and c not in out:
            out.append(c)

    split = _split_rule_off(m, n, k, dt)
    add(split)
    small = _small_tiles(m, n, k, split)
    add(small)
    for cm, cn in ((2, 1), (4, 1), (1, 2), (2, 2)):
        add(_on_cluster_fit(small, cm, cn))
    return out


def _on_cluster_fit(c, cluster_m, cluster_n):
    """``c`` on a ``cluster_m`` x ``cluster_n`` cluster, its BN rounded up to what a B multicast
    slices (a multiple of 8 x cluster_m rows) and its ring cut to the deepest that still runs."""
    from fastswz.cuda import normalize_config, supported

    step = 8 * cluster_m
    bn = -(-c["bn"] // step) * step
    if bn > 256:
        return None
    for stages in range(c["stages"], 1, -1):
        got = normalize_config(dict(c, bn=bn, stages=stages, cluster_m=cluster_m, cluster_n=cluster_n))
        if supported(got) is None:
            return got
    return None


SETS["v95"] = (problems_v95, candidates_v95)


V96_OFF = {"SMALL_TILE_MAX_SPLITS": 4}


def problems_v96():
    """Stated before the run (thirty-ninth session): held out for SMALL_TILE_MAX_SPLITS = 5
    (fitted on v95, run 1): 40 problems drawn where it changes choose_plan's plan (seed 20261730:
    v71's draw, bf16 or e4m3, M 64-3072 and N 256-8192 log-uniform, N a multiple of 16, K
    2048-16384 log-uniform on the 128-byte line), none of the corpus's or seeds 1-34's, each the
    rule's plan against the plan before it. The rule stands if the new plans are faster in
    geometric mean and at most 4 of the 40 slower by more than 3%."""
    import random

    seen = _seen_1_28((20262401, 20262402, 20262501, 20262502, 20262601, 20262602))
    return _drawn_changes(V96_OFF, random.Random(20261730), _draw_v71, 40, 30000, seen)


SETS["v96"] = (lambda: _drawn_file("v96", problems_v96), functools.partial(_new_and_old, V96_OFF))
# as they ran: v95 before the fifth split, v96 before its row bound (SMALL_TILE_FIVE_MAX_M)
SETS["v95"] = _as_run({"SMALL_TILE_MAX_SPLITS": 4}, *SETS["v95"])
SETS["v96"] = _as_run({"SMALL_TILE_FIVE_MAX_M": 1 << 30}, *SETS["v96"])


def problems_v97():
    """The rows of the shipped corpus and seeds 1-34 whose plan the thirty-ninth session's fifth
    split (SMALL_TILE_MAX_SPLITS 5 up to SMALL_TILE_FIVE_MAX_M rows) changes, each the new plan
    against the plan before it (run 4, at the final code)."""
    files = _corpus_and_seeds("fresh_20262602.json")
    return [q for q, _ in _rule_changes(V96_OFF, [key for _, key in _k_major_keys(files)])]


SETS["v97"] = (problems_v97, functools.partial(_new_and_old, V96_OFF))


V98_MIN_KTILES = 256
V98_MAX_FILL = 0.8


def _v98_rule(c, m, n, k):
    """Stated before any run (thirty-ninth session; not in fastswz.cuda): a plain one-pass plan
    (no split, stream-K or ping-pong; one CTA or a cluster along M) whose tiles fill under
    V98_MAX_FILL of the 132 SMs, with at least V98_MIN_KTILES k-tiles and M and N both at least
    128 (compute-bound), runs stream-K on the same tile, ring and epilogue over 132 one-CTA
    workers (stream_k_plan: pieces enough for the tail to take every worker). Such a plan leaves a
    fifth or more of the SMs idle for the whole of a long K (seed 35's 188 x 9136 x 29136 bf16: 72
    tiles, 0.73x of cuBLAS's speed); its operand panels are each read by the few workers that
    share a tile, so the k-offsets stream-K gives them cost little L2 (the eighteenth session's
    stream-K losses were where many tiles share panels). None where the rule does not apply."""
    from fastswz.cuda import normalize_config, supported

    if (c["split_k"] > 1 or c["stream_k"] or c["pingpong"] or c["cluster_n"] > 1 or min(m, n) < 128
            or -(-k // c["bk"]) < V98_MIN_KTILES):
        return None
    rows, cols = (n, m) if c["swap_ab"] else (m, n)
    if -(-rows // c["bm"]) * -(-cols // c["bn"]) >= V98_MAX_FILL * 132:
        return None
    plan = stream_k_plan(dict(c, cluster_m=1, cluster_n=1), m, n, k, registers=False)
    if plan is None:
        return None
    plan = normalize_config(plan)
    return plan if supported(plan) is None else None


def problems_v98():
    """Stated before the run (thirty-ninth session): _v98_rule's problems of the shipped corpus and
    seeds 1-36, then up to 30 drawn where it changes choose_plan's plan (seed 20261731: bf16 or
    e4m3, M 128-8192 and N 128-16384 log-uniform, K 16384-32768 log-uniform as a multiple of 16
    bytes), none of the corpus's or seeds 1-36's; each the rule's plan against choose_plan's. The
    rule goes into fastswz.cuda if the drawn problems run faster in geometric mean with at most 3
    of them slower by more than 3%."""
    import random

    files = _corpus_and_seeds("fresh_20262702.json")
    seen = set()
    mine = [key for _, key in _k_major_keys(files, seen) if _rule_first(_v98_rule, *key)]

    def draw(r):
        dt = r.choice(("e4m3", "bf16"))
        e = 1 if dt == "e4m3" else 2
        return (_log_uniform(r, 128, 8193), _log_uniform(r, 128, 16385),
                _log_uniform(r, 16384, 32769) * e // 16 * 16 // e, dt)

    drawn = _drawn_where(lambda q: bool(_rule_first(_v98_rule, *q)), random.Random(20261731), draw, 30, seen, 20000)
    return mine + drawn


SETS["v98"] = (lambda: _drawn_file("v98", problems_v98), functools.partial(_rule_first, _v98_rule))


V99_MIN_FILL, V99_MAX_FILL, V99_MOST, V99_GAIN, V99_MIN_BYTES = 0.5, 0.8, 8, 0.8, 32 << 20


def _v99_rule(c, m, n, k):
    """Stated before any run (thirty-ninth session; not in fastswz.cuda): a decode plan (M <= 16,
    swapped, one pass, one CTA) whose tiles fill more than SPLIT_K_FILL (so it is not split) but at
    most V99_MAX_FILL of the 132 SMs, on a weight of at least V99_MIN_BYTES (N K bytes), splits K
    S ways on the same tile and ring, S in 2..V99_MOST the one whose busiest SM streams the least
    (ceil(tiles S / 132) / S, the smaller S on a tie) with at least SPLIT_K_MIN_KTILES k-tiles a
    split, where that is at most V99_GAIN of the unsplit plan's (one tile a busy SM). A
    memory-bound layer streams its weight only through the SMs that hold a tile: seed 35's 1 x
    8644 x 24556 e4m3 runs 68 tiles at 68% of the DRAM roofline. None where the rule does not
    apply."""
    from fastswz.cuda import SPLIT_K_FILL, SPLIT_K_MIN_KTILES, normalize_config, supported

    if (m > 16 or not c["swap_ab"] or c["split_k"] > 1 or c["stream_k"] or c["pingpong"]
            or c["cluster_m"] > 1 or c["cluster_n"] > 1
            or n * k * codegen_bits(c["b_dtype"]) // 8 < V99_MIN_BYTES):
        return None
    tiles = -(-n // c["bm"]) * -(-m // c["bn"])
    if not SPLIT_K_FILL * 132 < tiles <= V99_MAX_FILL * 132:
        return None
    kt = -(-k // c["bk"])
    best = min((-(-(tiles * s) // 132) / s, s) for s in range(2, V99_MOST + 1) if kt // s >= SPLIT_K_MIN_KTILES) \
        if kt // 2 >= SPLIT_K_MIN_KTILES else None
    if best is None or best[0] > V99_GAIN:
        return None
    plan = normalize_config(dict(c, split_k=best[1], epilogue=False, epilogue_n=0, epilogue_stages=1,
                                 split_reduce="auto"))
    return plan if supported(plan) is None else None


def codegen_bits(dt):
    from fastswz.cuda.codegen import dtype_bits

    return dtype_bits(dt)


def problems_v99():
    """Stated before the run (thirty-ninth session): _v99_rule's problems of the shipped corpus and
    seeds 1-36, then up to 30 drawn where it changes choose_plan's plan (seed 20261732: bf16 or
    e4m3, M 1-16 uniform, N 2048-32768 and K 2048-32768 log-uniform, K a multiple of 16 bytes),
    none of the corpus's or seeds 1-36's; each the rule's plan against choose_plan's. The rule goes
    into fastswz.cuda if the drawn problems run faster in geometric mean with at most 3 of them
    slower by more than 3%."""
    import random

    files = _corpus_and_seeds("fresh_20262702.json")
    seen = set()
    from fastswz.corpus import load_corpus

    mine = []
    for path in files:
        for p in load_corpus(path):
            key = (p.m, p.n, p.k, p.a_dtype)
            if (p.a_major != "K" or p.b_major != "K" or p.a_dtype not in ("bf16", "e4m3") or key in seen):
                continue
            seen.add(key)
            if p.m <= 16 and _rule_first(_v99_rule, *key):
                mine.append(key)

    def draw(r):
        dt = r.choice(("e4m3", "bf16"))
        e = 1 if dt == "e4m3" else 2
        return (r.randint(1, 16), _log_uniform(r, 2048, 32769),
                _log_uniform(r, 2048, 32769) * e // 16 * 16 // e, dt)

    drawn = _drawn_where(lambda q: bool(_rule_first(_v99_rule, *q)), random.Random(20261732), draw, 30, seen, 20000)
    return mine + drawn


SETS["v99"] = (lambda: _drawn_file("v99", problems_v99), functools.partial(_rule_first, _v99_rule))


def _candidate_list(first):
    """``(out, add)``: the list of a probe case's plans, ``first`` first, and the function that adds
    a plan to it (normalized; None, one the family does not run or one already there is left out)."""
    from fastswz.cuda import normalize_config, supported

    out = [first]

    def add(p):
        if p is not None:
            p = normalize_config(p)
            if supported(p) is None and p not in out:
                out.append(p)

    return out, add


def _unswapped_wide_split(c):
    """Whether ``c`` is an unswapped split-K plan of 128-row tiles on one CTA (no stream-K)."""
    import fastswz.cuda as fc

    return c["split_k"] > 1 and c["bm"] == 128 and fc._unswapped_one_cta(c)


def problems_v100():
    """Stated before the run (fortieth session): every problem (M > 16, K-major, bf16 or e4m3) of
    the shipped corpus and seeds 1-38 whose default is an unswapped split-K plan of 128-row tiles
    on one CTA. The question: the worst problems of seeds 1-37 at today's code (run 1's tail
    corpus: 999 x 384 x 4080, 2370 x 384 x 5024, 378 x 336 x 4544 bf16 at 0.69-0.72x) are such
    splits, most with few work units (378 x 336 x 4544: 9 tiles x 4 splits, 36 CTAs), their kernel
    slower than cuBLAS's whole call. Which of candidates_v100's alternatives wins, and where? A rule
    is to be fitted on the corpus and seeds 1-34 (files up to fresh_20262602) and read on seeds
    35-38 apart (run 2: SPLIT_64_MAX_UNITS' rule)."""
    out = []
    for _, key in _k_major_keys(_corpus_and_seeds("fresh_20262802.json")):
        from fastswz.cuda import choose_plan

        if _unswapped_wide_split(dict(choose_plan(*key[:3], key[3], key[3]))):
            out.append(key)
    return out


V100_MIN_KTILES = 8


def candidates_v100(m, n, k, dt):
    """The default (a split of 128-row tiles); the same with its split count raised to fill the
    132 SMs (at least V100_MIN_KTILES k-tiles a split, at most SPLIT_K_MAX); the same splits
    reduced in the GEMM kernel by each tile's last split (``split_reduce="last_cta"``); 64-row
    tiles of the same width split to fill the SMs (as many k-tiles a split), one pass where that
    count is 1; _small_tiles' one-pass 64-row plan with no least fill (the narrowest width whose
    tiles fit one wave)."""
    from fastswz.cuda import SPLIT_K_MAX, _small_tiles, choose_plan

    c = dict(choose_plan(m, n, k, dt, dt))
    out, add = _candidate_list(c)

    kt = -(-k // c["bk"])
    tiles = -(-m // 128) * -(-n // c["bn"])
    s = max(1, min(132 // tiles, kt // V100_MIN_KTILES, SPLIT_K_MAX))
    if s > c["split_k"]:
        add(dict(c, split_k=s))
    add(dict(c, split_reduce="last_cta"))
    tiles64 = -(-m // 64) * -(-n // c["bn"])
    s64 = max(1, min(132 // tiles64, kt // V100_MIN_KTILES, SPLIT_K_MAX))
    add(_deepest_ring_of(dict(c, bm=64, split_k=s64)))
    with _Consts({"SMALL_TILE_MIN_FILL": 0.0}):
        add(_small_tiles(m, n, k, c))
    return out


def _deepest_ring_of(c):
    """``c`` with the deepest ring (3-16 stages) that runs, or None."""
    import fastswz.cuda as fc
    from fastswz.cuda import normalize_config

    return fc._deepest_ring(lambda st: normalize_config(dict(c, stages=st)), least=3, most=16)


SETS["v100"] = (problems_v100, candidates_v100)


V101_OFF = {"SPLIT_64_MAX_UNITS": 0}


def _draw_ranges(r, m_range, n_range, k_range):
    """A draw of ``r`` (a random.Random): bf16 or e4m3, M and N log-uniform over the half-open
    ranges, N a multiple of 128, of 16 or of nothing (a third each, as the fresh seeds draw; at
    least 128), K log-uniform as a multiple of 16 bytes (rows on and off the 128-byte line)."""
    dt = r.choice(("bf16", "e4m3"))
    e = 1 if dt == "e4m3" else 2
    n = _log_uniform(r, *n_range)
    n = r.choice((max(128, n // 128 * 128), max(128, n // 16 * 16), n))
    return (_log_uniform(r, *m_range), n, _log_uniform(r, *k_range) * e // 16 * 16 // e, dt)


def _draw_v101(r):
    """v101's and v102's draw: M 64-4096, N 128-4096, K 2048-32768 (:func:`_draw_ranges`)."""
    return _draw_ranges(r, (64, 4097), (128, 4097), (2048, 32769))


def problems_v101():
    """Stated before the run (fortieth session): held out for SPLIT_64_MAX_UNITS' rule (fitted on
    v100, run 2): 40 problems drawn where it changes choose_plan's plan (seed 20261733,
    _draw_v101), none of the corpus's or seeds 1-38's, each the rule's plan against the plan
    before it. The rule stands if the new plans are faster in geometric mean by at least 3%, at
    most 6 of the 40 slower by more than 3% and none slower by more than 15% (run 3: 1.028x, 12
    slower, 0.58x the least: not kept in that form; SPLIT_64_MAX_SPLITS came from v100 and v101
    and is held out as v102)."""
    import random

    seen = _seen_1_28((20262401, 20262402, 20262501, 20262502, 20262601, 20262602, 20262701, 20262702,
                       20262801, 20262802))
    return _drawn_changes(V101_OFF, random.Random(20261733), _draw_v101, 40, 30000, seen)


def _v101_first_form(c, m, n, k):
    """SPLIT_64_MAX_UNITS' rule as v101 held it out (commit 832584c), in fastswz.cuda._split_rows_64's
    place: any count of splits, the 64-row count at least 2 (it may be fewer than the default's)."""
    import fastswz.cuda as fc
    from fastswz.cuda import normalize_config

    if not _unswapped_wide_split(c):
        return c
    cols = -(-n // c["bn"])
    if -(-m // 128) * cols * c["split_k"] > fc.SPLIT_64_MAX_UNITS:
        return c
    splits = min(132 // (-(-m // 64) * cols), -(-k // c["bk"]) // fc.SPLIT_64_MIN_KTILES, fc.SPLIT_K_MAX)
    if splits < 2:
        return c
    return fc._deepest_ring(lambda stages: normalize_config(dict(c, bm=64, split_k=splits, stages=stages)),
                            least=fc.EPILOGUE_MIN_STAGES, most=fc.SMALL_TILE_MAX_STAGES) or c


# as it ran: the rule's first form
SETS["v101"] = _as_run({"_split_rows_64": _v101_first_form},
                       lambda: _drawn_file("v101", problems_v101), functools.partial(_new_and_old, V101_OFF))
# as it ran: v100 before SPLIT_64_MAX_UNITS' rule
SETS["v100"] = _as_run({"SPLIT_64_MAX_UNITS": 0}, *SETS["v100"])


def problems_v102():
    """Stated before the run (fortieth session): held out for SPLIT_64_MAX_UNITS' rule in its
    second form (the default's split at most SPLIT_64_MAX_SPLITS, the 64-row count never fewer;
    fitted on v100 and v101): 40 problems drawn where it changes choose_plan's plan (seed
    20261734, _draw_v101), none of the corpus's, seeds 1-38's or v101's, each the rule's plan
    against the plan before it. The rule stands if the new plans are faster in geometric mean by
    at least 3%, at most 4 of the 40 slower by more than 3% and none slower by more than 15% (run
    4: 1.217x, 39 faster, 1 slower at 0.896x: kept)."""
    import random

    seen = _seen_1_28((20262401, 20262402, 20262501, 20262502, 20262601, 20262602, 20262701, 20262702,
                       20262801, 20262802))
    seen |= set(SETS["v101"][0]())
    return _drawn_changes(V101_OFF, random.Random(20261734), _draw_v101, 40, 30000, seen)


SETS["v102"] = (lambda: _drawn_file("v102", problems_v102), functools.partial(_new_and_old, V101_OFF))


def problems_v103():
    """Stated before the run (fortieth session): every problem (M > 16, K-major, bf16 or e4m3) of
    the shipped corpus and seeds 1-38 whose default is a swapped split-K plan of 128-row tiles (rows
    of N) on one CTA. The question: such splits are the defaults most often under 0.75x of
    cuBLAS's speed at their seeds' last runs (8 of 95); does SPLIT_64_MAX_UNITS' remedy (64-row
    tiles, as many splits or more) or a one-pass plan serve them better, and where? A rule is to be
    fitted on the corpus and seeds 1-34 and read on seeds 35-38 apart (run 5:
    no rule)."""
    from fastswz.cuda import choose_plan

    out = []
    for _, key in _k_major_keys(_corpus_and_seeds("fresh_20262802.json")):
        c = dict(choose_plan(*key[:3], key[3], key[3]))
        if (c["swap_ab"] and c["split_k"] > 1 and not c["stream_k"] and c["bm"] == 128
                and c["cluster_m"] == 1 and c["cluster_n"] == 1):
            out.append(key)
    return out


def candidates_v103(m, n, k, dt):
    """The default (a swapped split of 128-row tiles); 64-row tiles of the same width split to
    fill the 132 SMs (at least V100_MIN_KTILES k-tiles a split), and the same with the default's
    count; the same tile with twice the default's splits; _small_tiles' swapped one-pass plan
    with no least fill."""
    from fastswz.cuda import SPLIT_K_MAX, _small_tiles, choose_plan

    c = dict(choose_plan(m, n, k, dt, dt))
    out, add = _candidate_list(c)

    kt = -(-k // c["bk"])
    tiles64 = -(-n // 64) * -(-m // c["bn"])
    s64 = max(1, min(132 // tiles64, kt // V100_MIN_KTILES, SPLIT_K_MAX))
    add(_deepest_ring_of(dict(c, bm=64, split_k=s64)))
    add(_deepest_ring_of(dict(c, bm=64)))
    if kt // (2 * c["split_k"]) >= V100_MIN_KTILES:
        add(dict(c, split_k=2 * c["split_k"]))
    with _Consts({"SMALL_TILE_MIN_FILL": 0.0}):
        add(_small_tiles(m, n, k, c, swapped=True))
    return out


SETS["v103"] = (problems_v103, candidates_v103)


def problems_v104():
    """Stated before the run (fortieth session): every problem (M > 16, K-major, bf16 or e4m3) of
    the shipped corpus and seeds 1-38 whose default is an unswapped split-K plan of 64-row tiles on
    one CTA with at most 100 work units, where splits filling the 132 SMs (at least V100_MIN_KTILES
    k-tiles each) would be more than the default's. The question: SPLIT_K_MN_CTAS' unit target (64,
    fitted on an H100 when these splits were reduced by their last CTA) leaves half the SMs idle;
    cuBLAS runs such problems (131 x 512 x 26496 bf16: our 60 CTAs 18.5 us, its 130 CTAs of 64 x 72
    12.1 us and a 1.9 us reduction) on twice the CTAs. A rule is to be fitted on the corpus and
    seeds 1-34 and read on seeds 35-38 apart (run 6:
    SPLIT_DOUBLE_MAX_UNITS' rule)."""
    import fastswz.cuda as fc
    from fastswz.cuda import SPLIT_K_MAX, choose_plan

    out = []
    for _, key in _k_major_keys(_corpus_and_seeds("fresh_20262802.json")):
        m, n, k, dt = key
        c = dict(choose_plan(m, n, k, dt, dt))
        if not (c["bm"] == 64 and c["split_k"] > 1 and fc._unswapped_one_cta(c)):
            continue
        tiles = -(-m // 64) * -(-n // c["bn"])
        if tiles * c["split_k"] <= 100 and min(132 // tiles, -(-k // c["bk"]) // V100_MIN_KTILES, SPLIT_K_MAX) > c["split_k"]:
            out.append(key)
    return out


def candidates_v104(m, n, k, dt):
    """The default (a split of 64-row tiles); the same tile split to fill the 132 SMs (at least
    V100_MIN_KTILES k-tiles a split); twice the default's splits (at most that); half the width
    (rounded up to 8, at least SMALL_TILE_MIN_BN) split to fill the SMs."""
    from fastswz.cuda import SMALL_TILE_MIN_BN, SPLIT_K_MAX, choose_plan

    c = dict(choose_plan(m, n, k, dt, dt))
    out, add = _candidate_list(c)

    kt = -(-k // c["bk"])
    tiles = -(-m // 64) * -(-n // c["bn"])
    fill = min(132 // tiles, kt // V100_MIN_KTILES, SPLIT_K_MAX)
    add(dict(c, split_k=fill))
    add(dict(c, split_k=min(2 * c["split_k"], fill)))
    half = max(SMALL_TILE_MIN_BN, -(-(-(-c["bn"] // 2)) // 8) * 8)
    tiles2 = -(-m // 64) * -(-n // half)
    s2 = min(132 // tiles2, kt // V100_MIN_KTILES, SPLIT_K_MAX)
    if s2 >= 2:
        add(_deepest_ring_of(dict(c, bn=half, split_k=s2)))
    return out


SETS["v104"] = (problems_v104, candidates_v104)
# as it ran: before SPLIT_DOUBLE_MAX_UNITS' rule (fitted on it)
SETS["v104"] = _as_run({"SPLIT_DOUBLE_MAX_UNITS": 0}, *SETS["v104"])

V105_OFF = {"SPLIT_DOUBLE_MAX_UNITS": 0}


def _draw_v105(r):
    """v105's draw: M 17-320, N 128-2048, K 1024-16384 (:func:`_draw_ranges`)."""
    return _draw_ranges(r, (17, 321), (128, 2049), (1024, 16385))


def problems_v105():
    """Stated before the run (fortieth session): held out for SPLIT_DOUBLE_MAX_UNITS' rule (fitted
    on v104, run 6): 40 problems drawn where it changes choose_plan's plan (seed 20261735,
    _draw_v105), none of the corpus's or seeds 1-38's, each the rule's plan against the plan
    before it. The rule stands if the new plans are faster in geometric mean by at least 3%, at
    most 4 of the 40 slower by more than 3% and none slower by more than 15% (run 7: 1.229x, all 40
    faster: kept)."""
    import random

    seen = _seen_1_28((20262401, 20262402, 20262501, 20262502, 20262601, 20262602, 20262701, 20262702,
                       20262801, 20262802))
    return _drawn_changes(V105_OFF, random.Random(20261735), _draw_v105, 40, 30000, seen)


SETS["v105"] = (lambda: _drawn_file("v105", problems_v105), functools.partial(_new_and_old, V105_OFF))


def cmd_run(args):
    import gpu_corpus
    from fastswz.cuda import compile_gemm, device_info

    device_info()
    gpu = gpu_corpus._Gpu(args.flush)
    torch = gpu.torch
    ops = gpu_corpus._Operands(torch)
    with open(args.cases) as f:
        cases = json.load(f)
    results = []
    for case in cases:
        m, n, k = case["shape"]
        p = ShapeProblem(m, n, k, case["dtype"])
        a, b, d, ptrs, lds = ops.make(p)
        fn, kind, library = gpu_corpus._cublas(torch, p, a, b)
        ref = fn()
        cub = gpu.time(fn, args.reps, 3)["median_ms"]
        rows = []
        for i, cfg in enumerate(case["configs"]):
            try:
                kern = compile_gemm(cfg)
                go, how = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
                d.fill_(float("nan"))
                go()
                chk = gpu_corpus._check(torch, p, d, ref, gpu_corpus._exact_rows(torch, a, b))
                t = gpu.time(go, args.reps, 3)["median_ms"]
                rows.append({"i": i, "ms": t, "ok": chk["ok"], "config": cfg, "how": how})
            except Exception as exc:  # noqa: BLE001 - one plan's failure is a row
                rows.append({"i": i, "ms": None, "ok": False, "config": cfg, "error": str(exc)[:200]})
        cub2 = gpu.time(fn, args.reps, 3)["median_ms"]
        cub = min(cub, cub2)
        timed = sorted((r for r in rows if r["ms"]), key=lambda r: r["ms"])
        base = rows[0]["ms"]
        print(f"{m}x{n}x{k} {case['dtype']}: cuBLAS {cub * 1e3:.1f} us (2 passes: {cub2 * 1e3:.1f}); "
              f"default {base * 1e3 if base else float('nan'):.1f} us ({cub / base if base else 0:.2f}x); "
              f"{len(timed)} of {len(rows)} timed, {sum(1 for r in rows if not r['ok'])} not ok")
        for r in timed[:args.top]:
            print(f"   {r['ms'] * 1e3:7.1f} us {cub / r['ms']:5.2f}x {'ok' if r['ok'] else 'BAD'} "
                  f"{'*' if r['i'] == 0 else ' '} {gpu_corpus.plan_text(r['config'])}")
        results.append({"shape": case["shape"], "dtype": case["dtype"], "cublas_ms": cub, "rows": rows})
        sys.stdout.flush()
        if len(results) % 100 == 0:   # a long set cut by its time limit keeps what it timed
            _write_results(args.out, results)
    _write_results(args.out, results)


def _write_results(out, results):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "probe.json"), "w") as f:
        json.dump(results, f)


def cmd_flush(args):
    """Both libraries on a few problems under the three L2 flushes of gpu_corpus's timing loop
    (``_Gpu._flush``): a memset of 2 x L2 (it leaves the L2 full of dirty lines the next kernel
    must write back), a read of the same buffer (clean lines), and the memset followed by the
    read."""
    import gpu_corpus
    from fastswz.cuda import device_info

    device_info()
    gpu = gpu_corpus._Gpu()
    ops = gpu_corpus._Operands(gpu.torch)

    def timed(fn, flush):
        gpu.flush_kind = flush
        return gpu.time(fn, 20, 3)["median_ms"] * 1e3

    for m, n, k, dt in ((8, 4096, 4096, "e4m3"), (1, 3584, 3584, "bf16"), (128, 4096, 4096, "e4m3"),
                        (128, 4096, 4096, "bf16"), (16, 28672, 8192, "bf16"), (4096, 4096, 4096, "bf16")):
        _, go, fn, _, operands = default_pair(gpu.torch, ops, ShapeProblem(m, n, k, dt))
        roof = (m * k + n * k) * (1 if dt == "e4m3" else 2) + m * n * 2
        line = []
        for name in ("memset", "read", "memset+read"):
            f1, c1, f2, c2 = timed(go, name), timed(fn, name), timed(go, name), timed(fn, name)
            line.append(f"{name}: fastswz {min(f1, f2):6.1f} cuBLAS {min(c1, c2):6.1f} ({min(c1, c2) / min(f1, f2):.2f}x)")
        print(f"{m}x{n}x{k} {dt} ({roof / 1e6:.1f} MB): " + " | ".join(line), flush=True)


def cmd_draw(args):
    got = {}
    if os.path.exists(DRAWN):
        with open(DRAWN) as f:
            got = json.load(f)
    got[args.set] = [list(q) for q in SETS[args.set][0]()]
    with open(DRAWN, "w") as f:
        json.dump(got, f, indent=0)
    print(f"probe: {len(got[args.set])} problems of {args.set} in {DRAWN}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("--out", default="tests/gpu/gemm/probe_cases.json")
    mk.add_argument("--set", choices=sorted(SETS), default="v1")
    mk.add_argument("--jobs", type=int, default=os.cpu_count())
    dr = sub.add_parser("draw", help="write a set's drawn problems into probe_drawn.json")
    dr.add_argument("--set", choices=sorted(SETS), required=True)
    rn = sub.add_parser("run")
    rn.add_argument("cases")
    rn.add_argument("--out", default="/tmp/probe")
    rn.add_argument("--reps", type=int, default=15)
    rn.add_argument("--top", type=int, default=8)
    rn.add_argument("--flush", choices=("read", "memset"), default="read")
    sub.add_parser("flush")
    args = ap.parse_args()
    {"make": cmd_make, "run": cmd_run, "flush": cmd_flush, "draw": cmd_draw}[args.cmd](args)


if __name__ == "__main__":
    main()
