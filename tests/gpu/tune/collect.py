#!/usr/bin/env python3
"""Measurements for the default plan's fitted rules (issues 27 and 29): every candidate timed on a
sample of the shape corpus, on one GPU.

    python3 tests/gpu/tune/collect.py run --part plans|schedules|raster [--out DIR] [--deadline S]
                                          [--count N] [--seed S] [--cache .fswcache]

``plans``: corpus problems with M >= 128 (prefill, square, ragged and the larger small ones),
K-major, bf16 and e4m3, one kernel launch at most ~1.5 ms by the roofline (the larger ones are
where the default already matches cuBLAS): each times every configuration of
:func:`fastswz.cuda.search.candidates` (every tile shape x epilogue class x cluster the single-pass
schedule runs): a screen of 2 repeats each, then 10 repeats for those within 10% of the screen's
best (at least 6).

``schedules``: corpus problems with M <= 128 or in the long-K bucket (decode, small, long K): the swap-AB x
split-K grid of :func:`schedule_candidates` (register stores; BM 64/128 x BN 16-128 in the kernel's
frame; splits 1-32), timed the same way.

``raster``: the ``plans`` sample plus the problems of ``exhaustive.py`` (its table and held-out
sets), bf16: the default plan on clusters of 1 and 2 CTAs, each visiting its tiles in groups of
:data:`GROUPS` tile rows (``tile_group``; with 2 CTAs a group row is a cluster's two tile rows).

``pitch``: seeded random problems (no corpus) whose A and B rows are 16- but not 32-byte aligned
(bf16 K = 8 mod 16, e4m3 K = 16 mod 32; a few MN-major), and some whose rows ``gemm`` stages (K not
16-byte aligned): the default plan on clusters of 1 and 2 CTAs.

``fewtiles``: corpus problems with M >= 128 whose 128 x 256 tiles make at most one wave and
whose K has at least 32 k-tiles (the prefill M = 128-2048 rows of the corpus where the default
plan trades a narrow tile for SM coverage): the default plan, and each of the tiles of
:data:`FEW_TILES` (the model's best BK and stages for it, register stores) with every split of
:data:`FEW_SPLITS` that keeps the units within 2 waves and 8 k-tiles per split.

All write ``DIR/collect-PART.json`` after each problem (``--resume`` skips the problems already
there), so a run cut at the device's time limit goes on in the next call. What the timings set:
the notes of ``SPLIT_K_SWAP_M``, ``EPILOGUE_BLOCK_STAGES`` and ``FULL_WIDTH_BK`` in
``fastswz.cuda``; the data and logs are in docs/conformance/h200-2026-11-26-fit.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exhaustive import screen_and_time  # noqa: E402 - the same timing as the exhaustive run

SPLITS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
SCHED_TILES = ((64, 16), (64, 32), (64, 64), (64, 128), (128, 16), (128, 32), (128, 64), (128, 128))
FEW_TILES = ((128, 256), (128, 192), (128, 128), (256, 128))
FEW_SPLITS = (1, 2, 3, 4, 6)
GROUPS = (4, 8, 16, 32)   # tile_group values of the raster part
MAX_MS = 1.5          # the roofline estimate of the largest problem sampled (ms)
PEAK = {"bf16": 800e12, "e4m3": 1600e12}   # FLOP/s for that estimate (H100/H200 dense, ~80%)


def corpus_sample(part, count, seed):
    """``count`` corpus problems of the part, stratified by type and bucket (fixed seed)."""
    from fastswz.corpus import load_corpus

    probs = [p._asdict() if hasattr(p, "_asdict") else dict(vars(p)) for p in load_corpus()]
    probs = [p for p in probs if p["a_major"] == "K" and p["b_major"] == "K"]
    if part == "pitch":
        return pitch_problems(count, seed)
    if part == "fewtiles":
        probs = [p for p in probs if p["m"] >= 128 and -(-p["m"] // 128) * -(-p["n"] // 256) <= 132
                 and p["k"] * (2 if p["a_dtype"] == "bf16" else 1) >= 32 * 128 and p["bucket"] != "long_k"]
    elif part in ("plans", "raster"):
        probs = [p for p in probs if p["m"] >= 128
                 and 2 * p["m"] * p["n"] * p["k"] / PEAK[p["a_dtype"]] * 1e3 <= MAX_MS]
    else:
        probs = [p for p in probs if p["m"] <= 128 or p["bucket"] == "long_k"]
    rng = random.Random(seed)
    groups = {}
    for p in probs:
        groups.setdefault((p["a_dtype"], p["bucket"]), []).append(p)
    for g in groups.values():
        rng.shuffle(g)
    out, i = [], 0
    while len(out) < count and any(i < len(g) for g in groups.values()):
        for key in sorted(groups):
            if i < len(groups[key]) and len(out) < count:
                out.append(groups[key][i])
        i += 1
    if part == "raster":
        from exhaustive import HELD_OUT, PROBLEMS

        extra = [{"name": f"x{m}x{n}x{k}", "m": m, "n": n, "k": k, "a_dtype": "bf16", "b_dtype": "bf16",
                  "a_major": "K", "b_major": "K", "out_dtype": "bf16", "bucket": "exhaustive"}
                 for m, n, k in PROBLEMS + HELD_OUT + FRESH]
        out = extra + out
    return out


#: The fresh held-out problems of exhaustive run 3 (``--held-out``, seeded), measured for the raster rule.
FRESH = [(4488, 8288, 1259), (5711, 11996, 1663), (7610, 5773, 3660), (5837, 4685, 6179),
         (5732, 5826, 1852), (3943, 6653, 3018), (5055, 13915, 2051), (4990, 11696, 5659)]


def pitch_problems(count, seed):
    """``count`` problems with rows off the 32-byte sector (3 in 4) or staged (1 in 4)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        dt = "bf16" if i % 3 else "e4m3"
        e = 2 if dt == "bf16" else 1
        logu = lambda lo, hi: int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))  # noqa: E731
        m, n, k = logu(256, 12000), logu(256, 16000), logu(500, 8000)
        mn = i % 8 == 7 and dt == "bf16"       # MN-major A and B (bf16: fp8 wgmma is K-major only)
        step = 16 // e
        def off(x):                            # rows 16- but not 32-byte aligned
            return x - x % (2 * step) + step
        if i % 4 == 3:
            k = k - k % 16 + 5                 # not 16-byte aligned: gemm stages the operands
        elif mn:
            m, n = off(m), off(n)
        else:
            k = off(k)
        out.append({"name": f"pitch{i}.{m}x{n}x{k}.{dt}" + (".MN" if mn else ""), "m": m, "n": n, "k": k,
                    "a_dtype": dt, "b_dtype": dt, "a_major": "MN" if mn else "K",
                    "b_major": "MN" if mn else "K", "out_dtype": "bf16", "bucket": "pitch"})
    return out


def fewtiles_candidates(p):
    """:data:`FEW_TILES` x :data:`FEW_SPLITS` for problem ``p`` (register stores)."""
    from fastswz.cuda import normalize_config, supported
    from fastswz.tune import tune

    out = []
    for bm, bn in FEW_TILES:
        rows = tune(p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], "K", "K", top=64, bm=bm, bn=bn)
        for row in rows:
            base = normalize_config(row, a_dtype=p["a_dtype"], b_dtype=p["b_dtype"], out_dtype=p["out_dtype"],
                                    epilogue=False)
            if supported(base) is None:
                break
        else:
            continue
        tiles = -(-p["m"] // bm) * -(-p["n"] // bn)
        kt = -(-p["k"] // base["bk"])
        for s in FEW_SPLITS:
            if (s == 1 or (tiles * s <= 2 * 132 and kt // s >= 8)) and supported(dict(base, split_k=s)) is None:
                out.append(dict(base, split_k=s))
    return out


def pitch_candidates(default):
    """The default plan on 1 and 2 CTAs per cluster."""
    from fastswz.cuda import supported

    return [c for c in (dict(default, cluster_m=cm) for cm in (1, 2)) if supported(c) is None]


def raster_candidates(default):
    """The default plan on 1 and 2 CTAs per cluster x every tile group of :data:`GROUPS`."""
    from fastswz.cuda import supported

    out = []
    for cm in (1, 2):
        for g in GROUPS:
            c = dict(default, cluster_m=cm, tile_group=g)
            if supported(c) is None:
                out.append(c)
    return out


def schedule_candidates(p):
    """Swap-AB x tile x split-K configurations for problem ``p`` (register stores): in the
    kernel's frame BM x BN from :data:`SCHED_TILES`, each with the model's best BK and stages for
    that tile, and every split of :data:`SPLITS` that keeps >= 2 k-tiles per split."""
    from fastswz.cuda import normalize_config, supported
    from fastswz.tune import tune

    out = []
    for swap in ((False, True) if p["m"] <= 128 and p["n"] > p["m"] else (False,)):
        km, kn = (p["n"], p["m"]) if swap else (p["m"], p["n"])
        rows = tune(km, kn, p["k"], p["a_dtype"], p["b_dtype"], "K", "K", top=1 << 20)
        for bm, bn in SCHED_TILES:
            row = next((r for r in rows if r["bm"] == bm and r["bn"] == bn), None)
            if row is None:
                continue
            base = normalize_config(row, a_dtype=p["a_dtype"], b_dtype=p["b_dtype"], a_major="K",
                                    b_major="K", out_dtype=p["out_dtype"], epilogue=False, swap_ab=swap)
            k_tiles = -(-p["k"] // base["bk"])
            for s in SPLITS:
                if s > 1 and k_tiles < 2 * s:
                    break
                c = dict(base, split_k=s)
                if supported(c) is None:
                    out.append(c)
    return out


def measure(configs, p):
    """Every configuration on problem ``p``: exhaustive.py's screen, then 10 repeats of the
    leaders."""
    screen, full = screen_and_time(configs, (p["m"], p["n"], p["k"]))
    return [{"config": configs[i], "screen_ms": screen[i], "full_ms": full.get(i)}
            for i in range(len(configs))]


def run(args):
    os.environ["FASTSWZ_CACHE"] = os.path.abspath(args.cache)
    from fastswz.cuda import choose_plan, device_info
    from fastswz.cuda import tuned as T
    from fastswz.cuda.search import candidates

    started = time.time()
    T.use_tuned(None)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"collect-{args.part}.json")
    out = {"device": device_info(), "part": args.part, "problems": []}
    if args.resume and os.path.exists(path):
        with open(path) as f:
            out = json.load(f)
    done = {p["name"] for p in out["problems"]}
    probs = corpus_sample(args.part, args.count, args.seed)
    print(f"# {out['device']['name']}: {args.part}, {len(probs)} problems ({len(done)} done)", flush=True)
    for p in probs:
        if p["name"] in done:
            continue
        if time.time() - started > args.deadline:
            print(f"# deadline: stopped before {p['name']}", flush=True)
            break
        t0 = time.time()
        prob = (p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], p["a_major"], p["b_major"], p["out_dtype"])
        default = choose_plan(*prob)
        if args.part == "plans":
            configs = [c["config"] for c in candidates(*prob)]
        elif args.part == "raster":
            configs = raster_candidates(default)
        elif args.part == "pitch":
            configs = pitch_candidates(default)
        elif args.part == "fewtiles":
            configs = fewtiles_candidates(p)
        else:
            configs = schedule_candidates(p)
        key = json.dumps(default, sort_keys=True)
        if all(json.dumps(c, sort_keys=True) != key for c in configs):
            configs.append(default)
        rows = measure(configs, p)
        for r in rows:
            r["default"] = json.dumps(r["config"], sort_keys=True) == key
        timed = [r for r in rows if r["full_ms"]]
        best = min(timed, key=lambda r: r["full_ms"])
        dflt = next(r for r in rows if r["default"])
        out["problems"].append({**p, "rows": rows, "seconds": time.time() - t0})
        with open(path, "w") as f:
            json.dump(out, f)
        d_ms = dflt["full_ms"] or dflt["screen_ms"]
        print(f"{p['name']:34s} {len(rows):4d} plans best {best['full_ms']:.4f} ms "
              f"default {d_ms:.4f} ms ({d_ms / best['full_ms'] - 1:+.1%}) {time.time() - t0:.0f} s",
              flush=True)
    print(f"# {len(out['problems'])} problems in {path}; {time.time() - started:.0f} s", flush=True)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["run", "list"])
    ap.add_argument("--part", choices=["plans", "schedules", "raster", "pitch", "fewtiles"], required=True)
    ap.add_argument("--cache", default=".fswcache")
    ap.add_argument("--out", default="tests/gpu/results/collect")
    ap.add_argument("--deadline", type=float, default=450.0)
    ap.add_argument("--count", type=int, default=64)
    ap.add_argument("--seed", type=int, default=2711)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args(argv)
    if args.what == "list":
        for p in corpus_sample(args.part, args.count, args.seed):
            n = len(schedule_candidates(p)) if args.part == "schedules" else 0
            print(p["name"], p["m"], p["n"], p["k"], n)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
