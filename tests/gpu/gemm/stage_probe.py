#!/usr/bin/env python3
"""What rows off the 32-byte sector cost, and whether a staged copy pays (GPU machine).

    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/stage_probe.py run [--limit N] [--out DIR]
    python3 tests/gpu/gemm/stage_probe.py problems [--fresh]   # the selection, no GPU
    FASTSWZ_CACHE=.fswcache python3 tests/gpu/gemm/stage_probe.py precompile   # their plans

The problems: those of the shipped corpus and fresh seeds 1-8 (the seventeenth session's final
run) whose rows of A and B (K-major) are a multiple of 16 bytes but not of 32, with M and N at
least 256, the slowest against cuBLAS first. For each, ``choose_plan``'s plan is timed (gpu_corpus's
loop: after an L2 flush, between its own events, median) on the packed operands (row pitch K, as a
caller's tensors come) and on copies whose rows are padded to 128 bytes (the pitch ``gemm`` stages
rows off 16 bytes to), beside the copies themselves (``torch`` strided copy into the padded
buffer, per operand) and cuBLAS on the packed operands. Staging pays where the padded kernel plus
the copies it needs beats the packed kernel.
"""
import argparse
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))

RUN = os.path.join(HERE, "..", "..", "..", "docs", "conformance", "2026-11-28-seventeenth-session",
                   "run7-final-corpus-seeds")
SEEDS = (20261128, 20261129, 20261130, 20261201, 20261202, 20261203, 20261204, 20261205)


def problems():
    """(M, N, K, type, speed in that run) of the off-sector problems, slowest first, each once."""
    out = {}
    for name in ["corpus"] + [f"fresh-{s}" for s in SEEDS]:
        with gzip.open(os.path.join(RUN, f"{name}.json.gz")) as f:
            for r in json.load(f)["rows"]:
                e = 1 if r["a_dtype"] in ("e4m3", "e5m2") else 2
                if r["a_major"] != "K" or r["b_major"] != "K" or r["k"] * e % 32 != 16:
                    continue
                if r["m"] < 256 or r["n"] < 256:
                    continue
                speed = r["cublas"]["median_ms"] / r["fastswz"]["median_ms"]
                out.setdefault((r["m"], r["n"], r["k"], r["a_dtype"]), speed)
    return sorted(((*key, s) for key, s in out.items()), key=lambda x: x[4])


def fresh(count=30, seed=20261208):
    """(M, N, K, "e4m3", None) drawn in stages_a's region, each log-uniform: M 128-1536, N from
    max(4096, 4 M) to 32768, K 768-32768 rounded to an odd multiple of 16 (rows off the 32-byte
    sector)."""
    import math
    import random

    rng = random.Random(seed)

    def log_uniform(lo, hi):
        return int(math.exp(rng.uniform(math.log(lo), math.log(hi))))

    out = []
    for _ in range(count):
        m = log_uniform(128, 1536)
        n = log_uniform(max(4096, 4 * m), 32768)
        k = log_uniform(768, 32768) // 32 * 32 + 16
        out.append((m, n, k, "e4m3", None))
    return out


def selection(args):
    return fresh() if args.fresh else problems()[:args.limit]


def cmd_problems(args):
    for p in selection(args):
        print(*p)


def cmd_precompile(args):
    from fastswz.cuda import choose_plan, compile_many

    plans = {json.dumps(choose_plan(m, n, k, dt, dt), sort_keys=True): None
             for m, n, k, dt, _ in selection(args)}
    got = compile_many([json.loads(c) for c in plans], jobs=args.jobs)
    print(f"stage_probe: {len(plans)} plans, {sum(isinstance(g, Exception) for g in got)} failed")


def cmd_run(args):
    import torch

    import fastswz.cuda
    import gpu_corpus
    from probe import ShapeProblem
    from fastswz.cuda import choose_plan, compile_gemm, device_info, runtime

    device_info()
    gpu = gpu_corpus._Gpu("read")
    td = {"bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn}
    results = []
    for m, n, k, dt, old in selection(args):
        e = 1 if dt == "e4m3" else 2
        kp = -(-k * e // 128) * 128 // e

        def rnd(rows):
            x = torch.randn(rows, k, device="cuda", dtype=torch.bfloat16)
            return x if dt == "bf16" else x.to(td[dt])

        a, b = rnd(m), rnd(n)
        ap = torch.zeros(m, kp, device="cuda", dtype=td[dt])
        bp = torch.zeros(n, kp, device="cuda", dtype=td[dt])
        ap[:, :k].copy_(a)
        bp[:, :k].copy_(b)
        ldd = -(-n * 2 // 16) * 8                      # D's rows on 16 bytes (the TMA store's rule)
        d = torch.empty(m, ldd, device="cuda", dtype=torch.bfloat16)
        cfg = choose_plan(m, n, k, dt, dt)
        kern = compile_gemm(cfg)
        go_packed = kern._prepare(a.data_ptr(), b.data_ptr(), d.data_ptr(), m, n, k, k, k, ldd)
        go_padded = kern._prepare(ap.data_ptr(), bp.data_ptr(), d.data_ptr(), m, n, k, kp, kp, ldd)
        go_a = kern._prepare(ap.data_ptr(), b.data_ptr(), d.data_ptr(), m, n, k, kp, k, ldd)
        go_b = kern._prepare(a.data_ptr(), bp.data_ptr(), d.data_ptr(), m, n, k, k, kp, ldd)
        prob = ShapeProblem(m, n, k, dt)
        cub, _, library = gpu_corpus._cublas(torch, prob, a, b.t())   # _scaled_mm, else bf16 on the same values
        row = {"shape": [m, n, k], "dtype": dt, "plan": cfg, "speed_then": old, "cublas_library": library}
        stride = runtime.staged_pitch(k, e) * e
        if e == 1:   # the staged launch is for 8-bit A (stages_a's domain)
            staged = gpu_corpus._staged_launcher(kern, prob, (a.data_ptr(), b.data_ptr(), d.data_ptr()),
                                                 (k, k, ldd), {})
        else:
            staged = go_padded

        def copy2d_a():
            runtime.copy2d(a.data_ptr(), k * e, ap.data_ptr(), stride, k * e, m, 0, torch.cuda.current_device())
        assert stride == kp * e
        for name, fn in (("packed", go_packed), ("padded", go_padded), ("a_padded", go_a), ("b_padded", go_b),
                         ("copy_a", lambda: ap[:, :k].copy_(a)), ("copy_b", lambda: bp[:, :k].copy_(b)),
                         ("copy2d_a", copy2d_a), ("staged_a", staged),
                         ("cublas", cub), ("packed2", go_packed), ("padded2", go_padded), ("staged_a2", staged)):
            fn()
            torch.cuda.synchronize()
            row[name] = gpu.time(fn, args.reps, 3)["median_ms"] * 1e3
        packed = min(row["packed"], row["packed2"])
        padded = min(row["padded"], row["padded2"])
        row["staged"] = {"both": padded + row["copy_a"] + row["copy_b"], "a": row["a_padded"] + row["copy_a"],
                         "b": row["b_padded"] + row["copy_b"]}
        which, best = min(row["staged"].items(), key=lambda kv: kv[1])
        st = min(row["staged_a"], row["staged_a2"])
        print(f"{m}x{n}x{k} {dt}: A staged by gemm's rule {fastswz.cuda.stages_a(m, n, k, dt)}: copy2d "
              f"{row['copy2d_a']:.1f} copy+launch {st:.1f} against packed {packed:.1f}: {packed / st:.2f}x", flush=True)
        print(f"{m}x{n}x{k} {dt}: {gpu_corpus.plan_text(cfg)}  packed {packed:7.1f} padded {padded:7.1f} "
              f"({packed / padded:.2f}x) A {row['a_padded']:.1f} B {row['b_padded']:.1f}  copies "
              f"{row['copy_a']:.1f}+{row['copy_b']:.1f}  best staged ({which}) {best:7.1f} ({packed / best:.2f}x)  "
              f"cuBLAS {row['cublas']:7.1f}  speed packed {row['cublas'] / packed:.2f} staged "
              f"{row['cublas'] / best:.2f}", flush=True)
        results.append(row)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "stage_probe.json"), "w") as f:
        json.dump(results, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    pr = sub.add_parser("problems")
    pr.add_argument("--limit", type=int, default=None)
    pr.add_argument("--fresh", action="store_true", help="problems drawn in stages_a's region instead")
    pc = sub.add_parser("precompile")
    pc.add_argument("--limit", type=int, default=None)
    pc.add_argument("--fresh", action="store_true")
    pc.add_argument("--jobs", type=int, default=os.cpu_count())
    rn = sub.add_parser("run")
    rn.add_argument("--limit", type=int, default=None)
    rn.add_argument("--fresh", action="store_true")
    rn.add_argument("--reps", type=int, default=15)
    rn.add_argument("--out", default="/tmp/stage_probe")
    args = ap.parse_args()
    {"problems": cmd_problems, "precompile": cmd_precompile, "run": cmd_run}[args.cmd](args)


if __name__ == "__main__":
    main()
