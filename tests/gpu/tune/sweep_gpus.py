#!/usr/bin/env python3
"""A sweep on one GPU and on two: wall time, both GPUs busy, the same winners, resumable.

    python3 tests/gpu/tune/sweep_gpus.py precompile [--cache .fswcache]   # CPU only: NVRTC
    python3 tests/gpu/tune/sweep_gpus.py run [--cache .fswcache] [--out DIR] [--corpus FILE --limit N]

run sweeps the problems (default: 16 built-in bf16 shapes, none a benchmark shape; or the first
``--limit`` of a corpus file) with the 24-plan search, first with one worker (GPU 0), then with one
worker per GPU (two on the 2-GPU machine), each with a fresh journal and table; then runs the
second sweep again (everything from the journal: nothing timed). It prints both wall times, the
timings each GPU's worker journaled (both busy?), and per problem the two winners, timed head to
head on GPU 0 where they differ (the same winner within the run-to-run spread?).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))

PROBLEMS = [(2048, 4096, 4096), (4096, 4096, 1024), (3072, 3072, 3072), (1024, 14336, 2048),
            (6144, 2048, 2048), (2560, 8192, 2048), (512, 8192, 8192), (4096, 1536, 6144),
            (3000, 3000, 3000), (1800, 7168, 2048), (7168, 1024, 4096), (2048, 10240, 1024),
            (1280, 5120, 5120), (5120, 2560, 2560), (896, 12288, 2048), (4608, 4608, 1536)]
BUDGET = 24


def problems(args):
    from fastswz.cuda.sweep import read_corpus

    if args.corpus:
        return read_corpus(args.corpus)[:args.limit]
    return [dict(m=m, n=n, k=k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K",
                 out_dtype="bf16") for m, n, k in PROBLEMS]


def precompile(args):
    os.environ["FASTSWZ_CACHE"] = os.path.abspath(args.cache)
    from fastswz.cuda import compile_many
    from fastswz.cuda.search import candidates

    t0 = time.time()
    configs = {}
    for p in problems(args):
        for c in candidates(**p, budget=BUDGET):
            configs[json.dumps(c["config"], sort_keys=True)] = c["config"]
    cs = list(configs.values())
    bad = sum(isinstance(k, Exception) for k in compile_many(cs))
    d = os.path.join(args.cache, "cubin")
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    print(f"precompiled {len(cs)} plans for {len(problems(args))} problems; {d} holds "
          f"{len(os.listdir(d))} cubins, {size / 2**20:.1f} MB; {bad} failed; {time.time() - t0:.0f} s")
    return 1 if bad else 0


def _sweep(probs, gpus, out, tag):
    from fastswz.cuda.sweep import sweep_problems

    j, t = os.path.join(out, f"journal-{tag}"), os.path.join(out, f"tuned-{tag}.json")
    shutil.rmtree(j, ignore_errors=True)
    if os.path.exists(t):
        os.remove(t)
    t0 = time.time()
    stats = {}
    res = sweep_problems(probs, gpus=gpus, journal=j, save=t, budget=BUDGET, progress=True,
                         stats=stats)
    print(f"# {gpus} GPU(s): drawing {stats['draw_s']:.1f} s, compiling {stats['compile_s']:.1f} s, "
          f"timing {stats['time_s']:.1f} s", flush=True)
    _sweep.stats[tag] = stats
    return res, time.time() - t0, j


_sweep.stats = {}


def _per_worker(jdir):
    counts = {}
    for f in sorted(os.listdir(jdir)):
        if f.startswith("gpu"):
            with open(os.path.join(jdir, f)) as fh:
                counts[f.split("-")[0]] = counts.get(f.split("-")[0], 0) + sum(
                    1 for line in fh if '"type": "timing"' in line)
    return counts


def _name(c):
    from fastswz.cuda.search import plan_label

    return plan_label(c)


def run_sweeps(args):
    os.environ["FASTSWZ_CACHE"] = os.path.abspath(args.cache)
    from fastswz.cuda.search import gpu_timer
    from fastswz.cuda.sweep import visible_gpus

    ids = visible_gpus()
    probs = problems(args)
    os.makedirs(args.out, exist_ok=True)
    print(f"# {len(ids)} visible GPU(s) {ids}; {len(probs)} problems, budget {BUDGET}", flush=True)
    one, t1, _ = _sweep(probs, 1, args.out, "1gpu")
    print(f"# one GPU: {t1:.1f} s", flush=True)
    report = {"gpus": ids, "problems": probs, "wall_1gpu_s": t1}
    if len(ids) >= 2:
        two, t2, j2 = _sweep(probs, 2, args.out, "2gpu")
        busy = _per_worker(j2)
        from fastswz.cuda.sweep import sweep_problems

        t0 = time.time()
        again = sweep_problems(probs, gpus=2, journal=j2, budget=BUDGET)
        t_again = time.time() - t0
        report.update(wall_2gpu_s=t2, timings_per_worker=busy, resumed_s=t_again,
                      resumed_all=all(r.get("from_journal") for r in again))
    else:
        two, t2, busy = None, None, {}
        print("# only one GPU visible: the two-GPU sweep is left out", flush=True)
    rows = []
    for i, p in enumerate(probs):
        a = one[i]
        row = {"problem": p, "one": a["best"]["config"], "one_ms": a["best"]["median_ms"],
               "one_spread": a["best"]["spread"]}
        if two is not None:
            b = two[i]
            row.update(two=b["best"]["config"], two_ms=b["best"]["median_ms"],
                       two_spread=b["best"]["spread"], same=a["best"]["config"] == b["best"]["config"])
            if not row["same"]:
                x, y = [], []
                for _ in range(4):
                    x += gpu_timer(a["best"]["config"], p["m"], p["n"], p["k"], 10, 1)
                    y += gpu_timer(b["best"]["config"], p["m"], p["n"], p["k"], 10, 1)
                row["h2h"] = statistics.median(y) / statistics.median(x)
        rows.append(row)
    report["rows"] = rows
    report["phases"] = _sweep.stats
    with open(os.path.join(args.out, "sweep_gpus.json"), "w") as f:
        json.dump(report, f, indent=1, default=str)
    print()
    print("| problem | 1-GPU winner | ms | 2-GPU winner | ms | same plan | 2-GPU/1-GPU head to head |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        p = r["problem"]
        print(f"| {p['m']}x{p['n']}x{p['k']} | {_name(r['one'])} | {r['one_ms']:.4f} | "
              + (f"{_name(r['two'])} | {r['two_ms']:.4f} | {'yes' if r['same'] else 'no'} | "
                 f"{r.get('h2h', 1.0):.3f} |" if two is not None else "- | - | - | - |"))
    ph = _sweep.stats
    if two is not None:
        print(f"timing phase: one GPU {ph['1gpu']['time_s']:.1f} s, two GPUs {ph['2gpu']['time_s']:.1f} s "
              f"({ph['1gpu']['time_s'] / max(ph['2gpu']['time_s'], 1e-9):.2f}x)")
    print(f"\nwall: one GPU {t1:.1f} s" + (f", two GPUs {t2:.1f} s ({t1 / t2:.2f}x); timings per "
                                          f"worker {busy}; rerun from the journal "
                                          f"{report['resumed_s']:.1f} s, all resumed: "
                                          f"{report['resumed_all']}" if two is not None else ""))
    if two is not None:
        same = sum(r["same"] for r in rows)
        close = sum(r["same"] or abs(r["h2h"] - 1) <= 0.03 for r in rows)
        print(f"same winner on {same}/{len(rows)}; same or within 3% head to head on "
              f"{close}/{len(rows)}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["precompile", "run"])
    ap.add_argument("--cache", default=".fswcache")
    ap.add_argument("--out", default="tests/gpu/results/tune-sweep")
    ap.add_argument("--corpus", default=None, help="a corpus JSON file instead of the built-in problems")
    ap.add_argument("--limit", type=int, default=16, help="problems of --corpus to sweep")
    args = ap.parse_args(argv)
    return precompile(args) if args.what == "precompile" else run_sweeps(args)


if __name__ == "__main__":
    sys.exit(main())
