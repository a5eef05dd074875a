#!/usr/bin/env python3
"""GPU witness for the fastswz GEMM kernels (H100): correctness grid and speed beside cuBLAS.

    python3 tests/gpu/gemm/check.py correct [--quick] [--out DIR]
    python3 tests/gpu/gemm/check.py bench [--out DIR] [--configs FILE] [--shapes MxNxK,...] [--verbose]
        (FILE e.g. tests/gpu/gemm/bench_clusters.json; default: the built-in set, clusters included)

correct: for each configuration x shape, (1) small-integer inputs (exact in every type, sums
exact in f32): D must equal the float64 product exactly (f32 out) or its correctly rounded
value (bf16/f16 out); (2) random normal inputs: relative Frobenius error against float64 under
the type's bound. The output is poisoned with NaN before each launch (an unwritten element
fails). A wrong plan (descriptors of another swizzle) must fail: negative control.
bench: fastswz (CUDA events, warm-up, L2 flushed by a 2xL2 memset before each run, median of
repeats) beside torch cuBLAS measured the same way in the same process.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
import fastswz  # noqa: E402
from fastswz.cuda import compile_gemm, gemm, supported  # noqa: E402
from fastswz.cuda import runtime  # noqa: E402

try:
    import torch
    TD = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "tf32": torch.float32,
          "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
except ImportError:  # precompile runs on a machine without torch
    torch = None


def random_grid(n, seed):
    """``n`` random configurations the kernel family runs: dtypes x majors x BM x BN x BK x
    stages x swizzles x output x epilogue x tile group (held-out plans drawn by seed)."""
    import random

    rng = random.Random(seed)
    # The epilogue subtile comes from its own stream, so a seed draws the same plans as before
    # the epilogue_n key existed, some of them now with column blocks.
    sub = random.Random(seed + 1)
    rot = random.Random(seed + 2)   # and the epilogue tiles the blocks rotate through
    sched = random.Random(seed + 3)  # and the schedules (swap-AB, split-K) of register-store plans
    streamk = random.Random(seed + 4)  # and stream-K

    out = []
    kinds = [("bf16", "bf16"), ("f16", "f16"), ("e4m3", "e4m3"), ("e5m2", "e5m2"),
             ("e4m3", "e5m2"), ("tf32", "tf32")]
    while len(out) < n:
        a, b = rng.choice(kinds)
        sixteen = a in ("bf16", "f16")
        e = {"bf16": 2, "f16": 2, "tf32": 4}.get(a, 1)
        cfg = dict(a_dtype=a, b_dtype=b,
                   a_major=rng.choice(["K", "MN"]) if sixteen else "K",
                   b_major=rng.choice(["K", "MN"]) if sixteen else "K",
                   bm=rng.choice([64, 128, 192, 256]), bn=rng.choice(range(16, 257, 16)),
                   bk=rng.choice([bk for bk in (16, 32, 64, 128, 256) if 32 <= bk * e <= 256]),
                   stages=rng.randint(2, 8),
                   swizzle_a=rng.choice(["auto", "auto", "none", "32B", "64B", "128B"]),
                   swizzle_b=rng.choice(["auto", "auto", "none", "32B", "64B", "128B"]),
                   out_dtype=rng.choice(["bf16", "f32"] + (["f16"] if a == "f16" else [])),
                   epilogue=rng.random() < 0.5, tile_group=rng.choice([1, 4, 8, 16]),
                   cluster_m=rng.choice([1, 2]))
        n_sub = sub.choice([0, 0] + [c for c in (16, 32, 64, 128) if cfg["bn"] % c == 0 and c < cfg["bn"]])
        if supported(cfg) is None:
            ok = cfg["epilogue"] and supported(dict(cfg, epilogue_n=n_sub)) is None
            cfg["epilogue_n"] = n_sub if ok else 0
            n_rot = rot.choice([1, 1, 2, 3])
            ok = cfg["epilogue"] and supported(dict(cfg, epilogue_stages=n_rot)) is None
            cfg["epilogue_stages"] = n_rot if ok else 1
            swap, splits, pp = sched.random() < 0.3, sched.choice([1, 1, 2, 3, 4, 7]), sched.random() < 0.6
            ok = not cfg["epilogue"] and supported(dict(cfg, swap_ab=swap, split_k=splits)) is None
            cfg["swap_ab"], cfg["split_k"] = (swap, splits) if ok else (False, 1)
            cfg["pingpong"] = pp and supported(dict(cfg, pingpong=True)) is None
            cfg["split_reduce"] = "auto"
            # stream-K on some register-store plans (its own stream: a seed's other draws stay),
            # split_k the most pieces of a tail tile
            workers, pieces = 132 // cfg["cluster_m"], streamk.choice([2, 3, 4, 8, 16])
            sk = streamk.random() < 0.25 and not cfg["epilogue"]
            if sk and supported(dict(cfg, split_k=pieces, stream_k=workers)) is None:
                cfg["split_k"], cfg["stream_k"] = pieces, workers
            else:
                cfg["stream_k"] = 0
            out.append(cfg)
    return out


def make(shape_mk, dt, major_rowmajor, gen, ints):
    """A logical (rows, cols) matrix stored row-major (True) or as a transposed view."""
    r, c = shape_mk
    if ints:
        x = torch.randint(-2, 3, (r, c), generator=gen, device="cuda").float()
    else:
        x = torch.randn((r, c), generator=gen, device="cuda")
    x = x.to(TD[dt])
    if not major_rowmajor:
        x = x.t().contiguous().t()
    return x


def operands(cfg, m, n, k, gen, ints):
    a = make((m, k), cfg["a_dtype"], cfg["a_major"] == "K", gen, ints)
    # B (K, N): K-major = transposed view of (N, K) row-major
    b = make((k, n), cfg["b_dtype"], cfg["b_major"] == "MN", gen, ints)
    return a, b


def check_one(cfg, m, n, k, gen, log):
    res = {"config": cfg, "shape": [m, n, k]}
    ok = True
    for ints in (True, False):
        a, b = operands(cfg, m, n, k, gen, ints)
        out = torch.full((m, n), float("nan"), device="cuda", dtype=TD[cfg["out_dtype"]])
        gemm(a, b, out=out, plan=cfg)
        torch.cuda.synchronize()
        if cfg.get("split_k", 1) > 1:   # deterministic: a second run gives the same bits
            again = torch.full((m, n), float("nan"), device="cuda", dtype=TD[cfg["out_dtype"]])
            gemm(a, b, out=again, plan=cfg)
            torch.cuda.synchronize()
            same = bool(torch.equal(out.view(torch.uint8), again.view(torch.uint8)))
            res["deterministic" if ints else "deterministic_random"] = same
            ok &= same
        ref = a.double() @ b.double()
        if ints:
            want = ref.to(TD[cfg["out_dtype"]])
            bad = ~((out == want) | (torch.isnan(out) & torch.isnan(want)))
            nbad = int(bad.sum())
            res["int_mismatches"] = nbad
            ok &= nbad == 0
        else:
            if cfg["a_dtype"] in ("tf32", "f32"):
                tol = 3e-3
            elif cfg["a_dtype"] in ("e4m3", "e5m2"):
                tol = 2e-2
            else:
                tol = 1e-2
            if not torch.isfinite(out.float()).all():
                res["rel_err"] = float("nan")
                ok = False
            else:
                err = float(torch.linalg.norm(out.double() - ref) / torch.linalg.norm(ref))
                res["rel_err"] = err
                ok &= err < tol
    res["ok"] = bool(ok)
    log.write(json.dumps(res) + "\n")
    return ok


GRID = [
    # (a_dtype, b_dtype, a_major, b_major, bm, bn, bk, stages, out, epilogue)
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "bf16", False),
    ("bf16", "bf16", "K", "K", 128, 256, 64, 3, "bf16", True),
    ("bf16", "bf16", "K", "MN", 128, 128, 64, 4, "bf16", True),
    ("bf16", "bf16", "MN", "K", 128, 128, 64, 4, "f32", False),
    ("bf16", "bf16", "MN", "MN", 128, 192, 64, 4, "bf16", False),
    ("bf16", "bf16", "K", "K", 64, 128, 32, 6, "bf16", True),
    ("bf16", "bf16", "K", "K", 256, 128, 64, 4, "bf16", False),
    ("bf16", "bf16", "K", "K", 192, 128, 64, 4, "bf16", False),
    ("bf16", "bf16", "K", "K", 128, 64, 16, 8, "f32", True),
    ("bf16", "bf16", "MN", "MN", 128, 96, 32, 5, "bf16", True),
    ("f16", "f16", "K", "K", 128, 256, 64, 4, "f16", False),
    ("f16", "f16", "MN", "MN", 128, 128, 64, 4, "f16", True),
    ("e4m3", "e4m3", "K", "K", 128, 256, 128, 4, "bf16", False),
    ("e4m3", "e4m3", "K", "K", 128, 128, 128, 4, "bf16", True),
    ("e5m2", "e5m2", "K", "K", 128, 128, 64, 4, "f32", False),
    ("e4m3", "e5m2", "K", "K", 64, 256, 128, 4, "bf16", False),
    ("tf32", "tf32", "K", "K", 128, 128, 32, 4, "f32", False),
    ("tf32", "tf32", "K", "K", 128, 64, 32, 4, "f32", True),
    # 2-CTA clusters along M, B multicast
    ("bf16", "bf16", "K", "K", 128, 256, 64, 3, "bf16", True, "auto", "auto", 8, 2),
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "bf16", False, "auto", "auto", 8, 2),
    ("bf16", "bf16", "MN", "MN", 128, 128, 64, 4, "bf16", True, "auto", "auto", 4, 2),
    ("e4m3", "e4m3", "K", "K", 128, 256, 128, 3, "bf16", True, "auto", "auto", 8, 2),
    ("tf32", "tf32", "K", "K", 64, 128, 32, 4, "f32", False, "auto", "auto", 16, 2),
    # the epilogue tile in column blocks (epilogue_n), one of them on a cluster
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "bf16", True, "auto", "auto", 8, 1, 64),
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "bf16", True, "auto", "auto", 8, 1, 128),
    ("bf16", "bf16", "MN", "MN", 128, 128, 64, 5, "bf16", True, "auto", "auto", 8, 1, 32),
    ("e4m3", "e4m3", "K", "K", 128, 256, 128, 4, "bf16", True, "auto", "auto", 8, 1, 128),
    ("tf32", "tf32", "K", "K", 128, 128, 32, 4, "f32", True, "auto", "auto", 8, 1, 32),
    ("f16", "f16", "K", "MN", 64, 192, 64, 6, "f32", True, "auto", "auto", 8, 1, 64),
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "bf16", True, "auto", "auto", 8, 2, 64),
    # ... rotating through 2 or 3 epilogue tiles (epilogue_stages)
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "bf16", True, "auto", "auto", 8, 1, 64, 2),
    ("e4m3", "e4m3", "K", "K", 128, 256, 128, 4, "bf16", True, "auto", "auto", 16, 1, 64, 2),
    ("bf16", "bf16", "MN", "K", 128, 128, 64, 4, "f32", True, "auto", "auto", 8, 1, 32, 3),
    ("f16", "f16", "K", "K", 64, 128, 64, 5, "f16", True, "auto", "auto", 4, 2, 64, 2),
    # swap-AB (D^T = B^T A^T: bm spans N, bn spans M) and split-K (partials reduced in split order)
    ("bf16", "bf16", "K", "K", 128, 8, 64, 8, "bf16", False, "auto", "auto", 8, 1, 0, 1, True, 1),
    ("bf16", "bf16", "K", "K", 128, 16, 128, 3, "bf16", False, "auto", "auto", 8, 1, 0, 1, True, 4),
    ("bf16", "bf16", "MN", "MN", 128, 32, 64, 4, "f32", False, "auto", "auto", 8, 1, 0, 1, True, 1),
    ("e4m3", "e4m3", "K", "K", 128, 16, 256, 3, "bf16", False, "auto", "auto", 8, 1, 0, 1, True, 2),
    ("f16", "f16", "K", "MN", 64, 64, 64, 4, "f16", False, "auto", "auto", 8, 2, 0, 1, True, 3),
    ("bf16", "bf16", "K", "K", 128, 128, 64, 5, "bf16", False, "auto", "auto", 8, 1, 0, 1, False, 8),
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "f32", False, "auto", "auto", 8, 1, 0, 1, False, 3),
    ("bf16", "bf16", "MN", "K", 128, 128, 64, 4, "bf16", False, "auto", "auto", 4, 2, 0, 1, False, 4),
    ("e4m3", "e4m3", "K", "K", 128, 128, 128, 4, "bf16", False, "auto", "auto", 8, 1, 0, 1, False, 5),
    ("tf32", "tf32", "K", "K", 64, 64, 32, 4, "f32", False, "auto", "auto", 8, 1, 0, 1, False, 7),
    # ping-pong consumers (BM = 64, two warpgroups on alternate tiles), alone and with the others
    ("bf16", "bf16", "K", "K", 64, 256, 64, 4, "bf16", False, "auto", "auto", 8, 1, 0, 1, False, 1, True),
    ("bf16", "bf16", "MN", "MN", 64, 128, 64, 6, "f32", False, "auto", "auto", 8, 1, 0, 1, False, 4, True),
    ("e4m3", "e4m3", "K", "K", 64, 128, 128, 5, "bf16", False, "auto", "auto", 8, 2, 0, 1, False, 1, True),
    ("bf16", "bf16", "K", "K", 64, 16, 128, 6, "bf16", False, "auto", "auto", 8, 1, 0, 1, True, 2, True),
    # who reduces split-K (split_reduce): the last split on tiles whose rule says "kernel" (one and
    # two consumer warpgroups, a cluster, ping-pong), and the kernel on a tile whose rule says
    # "last_cta"
    ("e4m3", "e4m3", "K", "K", 64, 128, 128, 6, "bf16", False, "auto", "auto", 8, 1, 0, 1, False, 2, False, "last_cta"),
    ("bf16", "bf16", "K", "K", 128, 128, 64, 4, "f32", False, "auto", "auto", 8, 1, 0, 1, False, 5, False, "last_cta"),
    ("bf16", "bf16", "MN", "K", 128, 64, 64, 4, "bf16", False, "auto", "auto", 8, 2, 0, 1, False, 3, False, "last_cta"),
    ("bf16", "bf16", "K", "K", 64, 64, 64, 4, "bf16", False, "auto", "auto", 8, 1, 0, 1, False, 7, True, "last_cta"),
    ("e4m3", "e4m3", "K", "K", 128, 16, 256, 6, "bf16", False, "auto", "auto", 8, 1, 0, 1, True, 4, False, "kernel"),
    # stream-K (132 workers, 66 clusters; split_k: the most pieces of a tail tile): with a cluster,
    # MN-major operands, swap-AB, ping-pong, an f32 D
    ("bf16", "bf16", "K", "K", 128, 256, 64, 4, "bf16", False, "auto", "auto", 8, 1, 0, 1, False, 8, False, "auto", 132),
    ("bf16", "bf16", "MN", "MN", 128, 128, 64, 4, "f32", False, "auto", "auto", 8, 1, 0, 1, False, 3, False, "auto", 132),
    ("e4m3", "e4m3", "K", "K", 128, 128, 128, 4, "bf16", False, "auto", "auto", 8, 2, 0, 1, False, 16, False, "auto", 66),
    ("bf16", "bf16", "K", "K", 128, 16, 128, 3, "bf16", False, "auto", "auto", 8, 1, 0, 1, True, 4, False, "auto", 132),
    ("bf16", "bf16", "K", "K", 64, 128, 64, 6, "bf16", False, "auto", "auto", 8, 1, 0, 1, False, 2, True, "auto", 132),
]
KEYS = ("a_dtype", "b_dtype", "a_major", "b_major", "bm", "bn", "bk", "stages", "out_dtype",
        "epilogue", "swizzle_a", "swizzle_b", "tile_group", "cluster_m", "epilogue_n", "epilogue_stages",
        "swap_ab", "split_k", "pingpong", "split_reduce", "stream_k")
SHAPES = [(1000, 1000, 1000), (129, 257, 65), (64, 8192, 512), (256, 256, 256), (777, 1500, 2048),
          (2048, 2048, 2048)]
#: Extra shapes of the schedules: small M for swap-AB (the decode row 1 x 4096 x 4096 among
#: them), few tiles with a long K for split-K (and K shorter than the splits: empty splits).
SWAP_SHAPES = [(1, 4096, 4096), (7, 1000, 520), (33, 777, 1000)]
SPLIT_SHAPES = [(256, 256, 16384), (100, 300, 5000), (3, 4096, 4096)]
#: ping-pong: several units per CTA (the two warpgroups alternate) of at least 2 x stages k-tiles
PINGPONG_SHAPES = [(4096, 2048, 1024), (4000, 1000, 520)]
#: stream-K: tiles cut among many workers (few tiles, long K), whole tiles and pieces mixed
STREAMK_SHAPES = [(300, 1000, 3000), (1000, 2000, 1024), (2000, 4000, 512)]


def shapes_of(cfg, grid=False, quick=False):
    """The shapes a plan is checked on: the grid's (more for each schedule it has), or for a
    held-out plan (``grid``) one ragged and one skinny shape and one per schedule."""
    shapes = SHAPES[:3] if quick else SHAPES
    if cfg.get("swap_ab"):
        shapes = shapes + SWAP_SHAPES
    if cfg.get("split_k", 1) > 1:
        shapes = shapes + SPLIT_SHAPES
    if cfg.get("pingpong"):
        shapes = shapes + PINGPONG_SHAPES
    if cfg.get("stream_k"):
        shapes = shapes + STREAMK_SHAPES
    if grid:  # held-out plans: one ragged and one skinny shape each
        import zlib
        # (stream_k=0 left out: the hash, so the shapes, of plans without it are as before it existed)
        h = zlib.crc32(repr(sorted((key, v) for key, v in cfg.items() if key != "stream_k" or v)).encode())
        shapes = [(129 + 64 * (h % 3), 257 + 8 * (h % 5), 136), (64, 1000, 520)]
        if cfg.get("swap_ab"):
            shapes.append((1 + h % 40, 1000 + 8 * (h % 7), 520))
        if cfg.get("split_k", 1) > 1:
            shapes.append((200 + h % 64, 300, 4096 + 8 * (h % 9)))
        if cfg.get("pingpong"):
            shapes.append((4000 + h % 64, 1024, 640))
        if cfg.get("stream_k"):
            shapes.append((300 + h % 64, 1000 + 8 * (h % 5), 3000))
    return shapes


def correct(args):
    os.makedirs(args.out, exist_ok=True)
    global GRID
    if args.grid:
        GRID = [tuple(c[k] for k in KEYS) for c in random_grid(args.grid, args.seed)]
    if args.schedules:   # only the plans with a schedule (swap-AB, split-K, ping-pong)
        def scheduled(c):
            return (bool(c.get("swap_ab")) or c.get("split_k", 1) > 1 or bool(c.get("pingpong"))
                    or bool(c.get("stream_k")))
        GRID = [g for g in GRID if scheduled(dict(zip(KEYS, g)))]
    if args.streamk:   # only the stream-K plans
        GRID = [g for g in GRID if dict(zip(KEYS, g)).get("stream_k")]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    log = open(os.path.join(args.out, "gemm-correct.jsonl"), "w")
    n_ok = n = 0
    t0 = time.time()
    for g in GRID:
        cfg = dict(zip(KEYS, g))
        why = supported(cfg)
        if why:
            print("UNSUPPORTED", cfg, why)
            n += 1
            continue
        shapes = shapes_of(cfg, args.grid, args.quick)
        for shp in shapes:
            m, nn, k = shp
            if cfg["a_dtype"] in ("e4m3", "e5m2", "tf32", "f32") and ((k * (1 if cfg["a_dtype"][0] == "e" else 4)) % 16):
                pass
            t1 = time.time()
            try:
                ok = check_one(cfg, m, nn, k, gen, log)
                if args.verbose:
                    print("ok" if ok else "FAIL", cfg, shp, f"{time.time() - t1:.2f} s", flush=True)
            except Exception as e:  # noqa: BLE001 - a failure is a result
                ok = False
                print("ERROR", cfg, shp, repr(e)[:300])
            n += 1
            n_ok += ok
            if not ok:
                print("FAIL", cfg, shp)
    # negative control: the kernel built for 128B swizzle, fed 64B-swizzled data would be wrong;
    # emulate with a plan whose descriptors we corrupt: reuse a kernel with a wrong k-step table.
    print(f"correctness: {n_ok}/{n} passed in {time.time() - t0:.1f} s")
    return n_ok == n


def time_torch(fn, reps, warmup, flush):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for i in range(warmup + reps):
        flush.fill_(i)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        if i >= warmup:
            ts.append(start.elapsed_time(stop))
    ts.sort()
    return ts[len(ts) // 2]


#: The benchmark's candidates per input type (cuBLAS is timed beside each shape).
BENCH_CONFIGS = {
    "bf16": [dict(bm=128, bn=256, bk=64, stages=4), dict(bm=128, bn=256, bk=64, stages=3, epilogue=True),
             dict(bm=128, bn=256, bk=64, stages=4, tile_group=16),
             dict(bm=128, bn=256, bk=64, stages=3, epilogue=True, tile_group=16),
             dict(bm=128, bn=256, bk=64, stages=3, epilogue=True, tile_group=4),
             dict(bm=128, bn=256, bk=64, stages=3, epilogue=True, cluster_m=2),
             dict(bm=128, bn=256, bk=64, stages=4, cluster_m=2),
             dict(bm=128, bn=256, bk=64, stages=3, epilogue=True, cluster_m=2, tile_group=16),
             dict(bm=128, bn=128, bk=64, stages=6), dict(bm=256, bn=128, bk=64, stages=4),
             dict(bm=128, bn=192, bk=64, stages=5),
             dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64),
             dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=128),
             dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64, cluster_m=2),
             dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64, tile_group=16),
             dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64, epilogue_stages=2),
             dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64, epilogue_stages=2,
                  tile_group=16)],
    "e4m3": [dict(bm=128, bn=256, bk=128, stages=4), dict(bm=128, bn=256, bk=128, stages=3, epilogue=True),
             dict(bm=128, bn=256, bk=128, stages=4, tile_group=16),
             dict(bm=128, bn=256, bk=128, stages=3, epilogue=True, tile_group=16),
             dict(bm=128, bn=256, bk=128, stages=3, epilogue=True, cluster_m=2),
             dict(bm=128, bn=256, bk=128, stages=4, cluster_m=2),
             dict(bm=128, bn=128, bk=128, stages=6), dict(bm=256, bn=128, bk=128, stages=4),
             dict(bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=64),
             dict(bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=128),
             dict(bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=64, cluster_m=2),
             dict(bm=128, bn=256, bk=64, stages=8, epilogue=True, epilogue_n=64),
             dict(bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=64, epilogue_stages=2),
             dict(bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=64, epilogue_stages=2,
                  tile_group=16)]}


def _epi(c):
    return (f" epi{'/' + str(c['epilogue_n']) if c.get('epilogue_n') else ''}"
            f"{'x' + str(c['epilogue_stages']) if c.get('epilogue_stages', 1) > 1 else ''}" if c["epilogue"] else "")


def bench(args):
    os.makedirs(args.out, exist_ok=True)
    shapes = [(8192, 8192, 8192), (4096, 4096, 4096), (2048, 2048, 2048), (4096, 14336, 4096),
              (8192, 4096, 14336), (16384, 1024, 4096)]
    if args.shapes:
        shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    cands = json.load(open(args.configs)) if args.configs else BENCH_CONFIGS
    flush = torch.empty(2 * 50 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    rows = []
    for dt, cfgs in cands.items():
        for (m, n, k) in shapes:
            a = torch.randn(m, k, device="cuda").to(TD[dt])
            bt = torch.randn(n, k, device="cuda").to(TD[dt])
            if dt == "bf16":
                ref_ms = time_torch(lambda: a @ bt.t(), args.reps, 5, flush)
            else:
                sa = torch.tensor(1.0, device="cuda")
                ref_ms = time_torch(lambda: torch._scaled_mm(a, bt.t(), scale_a=sa, scale_b=sa,
                                                             out_dtype=torch.bfloat16), args.reps, 5, flush)
            ref_tf = 2 * m * n * k / ref_ms / 1e9
            best = None
            for c in cfgs:
                cfg = dict(c, a_dtype=dt, b_dtype=dt)
                try:
                    kern = compile_gemm(cfg)
                    r = kern.time(m, n, k, warmup=5, reps=args.reps)
                except Exception as e:  # noqa: BLE001
                    print("ERROR", cfg, repr(e)[:200])
                    continue
                row = {"dtype": dt, "shape": [m, n, k], "config": kern.config, "cublas_ms": ref_ms,
                       "cublas_tflops": ref_tf, **r, "ratio": r["tflops"] / ref_tf, "grid": kern.grid(m, n)}
                if args.verbose:
                    print(f"   {kern.config['bm']}x{kern.config['bn']}x{kern.config['bk']}x{kern.config['stages']}"
                          f"{_epi(kern.config)} g{kern.config['tile_group']} "
                          f"c{kern.config['cluster_m']} grid {row['grid']}: {r['tflops']:.0f} TF/s "
                          f"({100 * row['ratio']:.1f}%)", flush=True)
                rows.append(row)
                if best is None or r["median_ms"] < best["median_ms"]:
                    best = row
            if best is None:
                print(f"{dt:5s} {m}x{n}x{k}: every configuration failed")
                continue
            print(f"{dt:5s} {m:6d}x{n:6d}x{k:6d}  cuBLAS {ref_tf:7.1f} TF/s  fastswz best {best['tflops']:7.1f} "
                  f"({100 * best['ratio']:5.1f}%)  {best['config']['bm']}x{best['config']['bn']}x{best['config']['bk']}"
                  f"x{best['config']['stages']}{_epi(best['config'])} g{best['config']['tile_group']} c{best['config']['cluster_m']} spread {best['spread']:.3f}",
                  flush=True)
            del a, bt
    with open(os.path.join(args.out, "gemm-bench.json"), "w") as f:
        json.dump({"device": runtime.device_info(), "torch": torch.__version__, "rows": rows}, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["correct", "bench", "both", "precompile"])
    ap.add_argument("--grid", type=int, default=0, help="correct: N random held-out plans instead of GRID")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/gemm-out"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--schedules", action="store_true",
                    help="correct: only the plans with swap-AB, split-K or ping-pong")
    ap.add_argument("--streamk", action="store_true", help="correct: only the stream-K plans")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--configs")
    ap.add_argument("--shapes", help="bench: MxNxK[,MxNxK...] instead of the issue's six shapes")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--watchdog", type=float, default=0,
                    help="dump every Python stack and exit after this many seconds (hang diagnosis)")
    args = ap.parse_args()
    if args.what == "precompile":
        from fastswz.cuda import compile_many
        cfgs = (random_grid(args.grid, args.seed) if args.grid
                else [dict(zip(KEYS, g)) for g in GRID if supported(dict(zip(KEYS, g))) is None])
        if not args.grid:   # and the benchmark's candidates (bench --configs FILE: those)
            cands = json.load(open(args.configs)) if args.configs else BENCH_CONFIGS
            cfgs += [dict(c, a_dtype=dt, b_dtype=dt) for dt, cs in cands.items() for c in cs]
            # and choose_plan's plans of the schedule shapes (tests/test_gpu_gemm.py runs them)
            from fastswz.cuda import choose_plan
            cfgs += [choose_plan(*s) for s in SWAP_SHAPES + SPLIT_SHAPES + [(16, 4096, 4096), (256, 256, 65536)]]
        bad = [k for k in compile_many(cfgs, jobs=int(os.environ.get("JOBS", "2"))) if not hasattr(k, "cubin")]
        print(f"precompiled {len(cfgs)} {'held-out' if args.grid else 'grid'} plans, {len(bad)} failed", bad[:3])
        sys.exit(1 if bad else 0)
    if args.watchdog:
        import faulthandler
        faulthandler.dump_traceback_later(args.watchdog, exit=True)
    print("device:", runtime.device_info())
    ok = True
    if args.what in ("correct", "both"):
        ok = correct(args)
    if args.what in ("bench", "both"):
        bench(args)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
