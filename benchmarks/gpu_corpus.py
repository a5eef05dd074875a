"""Every problem of the GEMM shape corpus on the GPU: fastswz's default plan against cuBLAS and
the DRAM roofline (issue 27's benchmark command).

Three steps, so that the GPU machine only times::

    # 1. here (no GPU): choose the default plan of every selected problem and compile each
    #    distinct plan into the cubin cache the GPU run will read
    FASTSWZ_CACHE=.fswcache python benchmarks/gpu_corpus.py precompile
    # 2. the GPU machine (carry .fswcache): time, print one row per problem and the summary
    FASTSWZ_CACHE=.fswcache python benchmarks/gpu_corpus.py run --out corpus.json
    # 3. anywhere: reprint the table and the per-bucket summary of one or more runs (shards)
    python benchmarks/gpu_corpus.py summary corpus.json [more.json ...]

For each problem (``fastswz.corpus``; ``--subset``, ``--bucket``, ``--dtype``, ``--limit`` and
``--shard i/n`` select) the run takes ``fastswz.cuda.choose_plan``'s configuration (what
``fastswz.cuda.gemm`` runs given no plan), loads it with ``compile_gemm`` and times:

* fastswz: the kernel's prepared launch (the one ``GemmKernel.time`` times: tensor maps encoded
  once) on torch tensors; ``--launch gemm`` times ``fastswz.cuda.gemm(a, b, out=d, plan=kernel)``
  per call instead (its host work and stream synchronisation inside the timed interval), which
  is also what a plan with a key beyond ``PREPARED_KEYS`` gets (a schedule added later);
* cuBLAS in the same process: ``torch.matmul`` for bf16, ``torch._scaled_mm`` with unit scales
  for e4m3; where ``_scaled_mm`` refuses the shape (dimensions not multiples of 16) bf16 cuBLAS
  on the same values, reported as such and kept out of the cuBLAS targets;
* both the same way: launches queued back to back on one stream, each between its own pair of
  CUDA events and after an L2 flush (a read of twice the L2: ``--flush read``, the default; or
  a memset, ``--flush memset``, which leaves dirty lines for the timed kernel to write back,
  as runs before 2026-11-27 did), one synchronisation at the end,
  median of the repeats (min, max and spread kept). A problem whose repeats spread more than
  ``RETIME_SPREAD`` (max/min - 1) in either library is timed again, both libraries, up to
  ``RETIME_PASSES`` passes, and each library keeps its own steadiest pass (the others under
  ``retimed``; until 2026-11-28 the pass with the smaller worst spread was kept whole, which kept
  one library's disturbed pass where the other's was worse: seed 20261205's 36 x 416 x 12432
  e4m3, fastswz 77.0 us at a 50x spread against 11.5 us steady in the pass set aside).

Operands are random normal values in the problem's types, each row on a 16-byte pitch (the TMA's
rule; a framework's allocator gives the same); A M x K and W N x K K-major as ``x @ W.T``, or the
transposes for MN-major problems. D is checked against cuBLAS's result on up to 256 rows (NaN
first, so an unwritten element fails; relative error bound 1e-2 bf16, 2e-2 e4m3).

``--scale row`` (issue 28's rowwise target) times the e4m3 problems with per-row scales of A and
per-column scales of B (random f32 in [0.5, 1.5)): fastswz's default rowwise plan
(``default_config(..., fusion={"scale": "row"})``, what ``gemm(a, b, scale_a=, scale_b=)`` runs)
against ``torch._scaled_mm(a, b, scale_a (M x 1), scale_b (1 x N))``, its default and, recorded
beside it, ``use_fast_accum=True`` (the same accumulation as fastswz's); shapes ``_scaled_mm``
refuses are listed, untimed. The summary then states issue 28's rowwise target.

The DRAM bandwidth is measured once (a 1 GiB device-to-device copy, bytes read + written over the
median time); every problem's roofline time is its bytes of A, B and D over it.

Budget (``--budget``, default 240 s of timing): each problem's kernel time is estimated from its
FLOPs and bytes at nominal rates; repeats are then chosen per problem as ``target / estimate``,
between ``--min-reps`` (5) and ``--max-reps`` (30), with the largest ``target`` (timed seconds
per library and problem, at most ``--max-timed-s``, 1 s) whose estimated total (both libraries,
warm-ups, flushes and a fixed cost per problem) fits the budget: microsecond decode problems get
30 repeats, a 95-ms Llama 3 405B prefill GEMM 10. ``run --dry-run`` prints the choice and the
estimate without a GPU. ``--deadline`` (default 390 s from the start) stops before a problem that
would start later, so a run always ends with its JSON and summary written; the JSON is also
rewritten every 25 problems.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import fnmatch
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

from fastswz.corpus import BUCKETS, load_corpus

#: Nominal dense rates (FLOP/s) and DRAM bandwidth (bytes/s) for the estimates only: no result
#: depends on them.
NOMINAL_FLOPS = {"bf16": 600e12, "f16": 600e12, "tf32": 300e12, "f32": 300e12, "e4m3": 1100e12,
                 "e5m2": 1100e12}
NOMINAL_BANDWIDTH = 3.0e12
LAUNCH_S = 5e-6            # a kernel's launch and tail, added to each estimate
FLUSH_S = 40e-6            # one L2 flush (a ~100 MB read or memset)
RETIME_SPREAD = 2.0        # a problem whose repeats spread more (max/min - 1) is timed again
RETIME_PASSES = 3          # ... at most this many passes in all
HOST_S = 30e-6             # the host's cost of one queued launch: bounds a repeat from below
PROBLEM_S = 0.03           # allocation, check, cuBLAS's first call: per problem
FILL_BYTES_PER_S = 300e9   # random operands made on the GPU
TARGETS = {"geomean": 1.0, "share": 0.9, "share_speed": 0.9, "worst": 0.75, "decode_roofline": 80.0}
CHECK_BOUND = {"e4m3": 2e-2, "e5m2": 2e-2}


# -- selection and estimates (no GPU) ----------------------------------------------------------------
def parse_shard(text):
    """``"i/n"`` -> ``(i, n)`` with 0 <= i < n (argparse type)."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard {text!r} must be i/n, e.g. 0/4") from None
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"--shard {text!r}: need 0 <= i < n")
    return i, n


def select(problems, *, subset=None, limit=None, shard=None):
    """The problems a run times: names matching one of the comma-separated globs of ``subset``,
    then every n-th from the i-th (``shard``: shards mix every bucket alike), then the first
    ``limit``."""
    out = list(problems)
    if subset:
        globs = [g.strip() for g in subset.split(",") if g.strip()]
        out = [p for p in out if any(fnmatch.fnmatchcase(p.name, g) for g in globs)]
    if shard is not None:
        i, n = shard
        out = out[i::n]
    if limit is not None:
        out = out[:limit]
    return out


def estimate_s(p, bandwidth=NOMINAL_BANDWIDTH):
    """Estimated seconds of one launch: the slower of the FLOPs at the nominal rate and the bytes
    at ``bandwidth``, plus the launch."""
    return max(p.flops / NOMINAL_FLOPS.get(p.a_dtype, 300e12), p.bytes / bandwidth) + LAUNCH_S


def run_cost_s(est, reps, warmup):
    """Estimated seconds of one problem: both libraries, ``warmup + reps`` launches each, every
    launch after a flush, never faster than the host can queue, plus the fixed cost."""
    per_launch = max(est + FLUSH_S, HOST_S)
    return PROBLEM_S + 2 * (warmup + reps) * per_launch


def choose_reps(estimates, budget_s, *, warmup=2, min_reps=5, max_reps=50, fixed_s=(),
                max_timed_s=None):
    """Repeats per problem: ``floor(target / estimate)`` clamped to [min_reps, max_reps], with the
    largest target (the seconds of timed launches per library and problem; at most
    ``max_timed_s``) whose total :func:`run_cost_s` (plus ``fixed_s[i]``, e.g. making the
    operands) fits ``budget_s``. Returns ``(reps, total_s)``; at ``min_reps`` everywhere the
    total may exceed the budget (the run's deadline then cuts it)."""
    fixed = list(fixed_s) or [0.0] * len(estimates)

    def reps_for(target):
        return [max(min_reps, min(max_reps, int(target / max(e, 1e-9)))) for e in estimates]

    def total(reps):
        return sum(run_cost_s(e, r, warmup) + f for e, r, f in zip(estimates, reps, fixed))

    lo, hi = 0.0, max(estimates, default=0.0) * max_reps * 2 + 1.0
    if max_timed_s is not None:
        hi = min(hi, max_timed_s)
    if total(reps_for(hi)) <= budget_s:
        best = reps_for(hi)
        return best, total(best)
    for _ in range(60):  # bisection on the target: total() grows with it
        mid = (lo + hi) / 2
        if total(reps_for(mid)) <= budget_s:
            lo = mid
        else:
            hi = mid
    best = reps_for(lo)
    return best, total(best)


# -- the arithmetic of a result (no GPU) --------------------------------------------------------------
def derive(row):
    """The ratios of a timed row (a new dict): ``time_ratio`` = fastswz / cuBLAS time (< 1:
    fastswz faster), ``speed`` = its inverse (the x-cuBLAS speed of the targets), each library's
    share of the DRAM roofline (roofline time / its time, %) and TFLOP/s."""
    out = {}
    f = (row.get("fastswz") or {}).get("median_ms")
    c = (row.get("cublas") or {}).get("median_ms")
    roof = row.get("roofline_ms")
    if f and c:
        out["time_ratio"] = f / c
        out["speed"] = c / f
    if f and roof:
        out["fastswz_roofline_pct"] = 100.0 * roof / f
    if c and roof:
        out["cublas_roofline_pct"] = 100.0 * roof / c
    if f:
        out["fastswz_tflops"] = row["flops"] / f / 1e9
    return out


def _geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _failed(row):
    return bool(row.get("error")) or (row.get("check") or {}).get("ok") is False


def _same_type(row):
    return (row.get("cublas") or {}).get("kind") == "same"


def group_stats(rows):
    """Statistics of a group of rows: counts, the geometric mean of fastswz time / cuBLAS time,
    the share at >= 0.9x cuBLAS speed, the worst speed and its problem, the problems below 0.75x,
    fastswz's share of the DRAM roofline (median, min, the share of problems at >= 80%), and the
    same for the rows whose cuBLAS is bf16 because ``_scaled_mm`` refused the shape (``fallback``).
    Rows that failed (an error or a wrong result) count as failed and in no ratio."""
    ok = [r for r in rows if not _failed(r)]
    d = {id(r): derive(r) for r in ok}
    same = [r for r in ok if _same_type(r) and "speed" in d[id(r)]]
    fall = [r for r in ok if not _same_type(r) and "speed" in d[id(r)]]
    speeds = [d[id(r)]["speed"] for r in same]
    roof = [d[id(r)]["fastswz_roofline_pct"] for r in ok if "fastswz_roofline_pct" in d[id(r)]]
    cb_roof = [d[id(r)]["cublas_roofline_pct"] for r in ok if "cublas_roofline_pct" in d[id(r)]]
    worst = min(same, key=lambda r: d[id(r)]["speed"], default=None)
    out = {
        "problems": len(rows), "failed": len(rows) - len(ok), "timed": len(same),
        "geomean_time_ratio": _geomean([d[id(r)]["time_ratio"] for r in same]),
        "share_at_0_9": (sum(s >= TARGETS["share_speed"] for s in speeds) / len(speeds)) if speeds else None,
        "below_0_75": sum(s < TARGETS["worst"] for s in speeds),
        "worst_speed": d[id(worst)]["speed"] if worst else None,
        "worst": worst["name"] if worst else None,
        "roofline_pct_median": statistics.median(roof) if roof else None,
        "roofline_pct_min": min(roof) if roof else None,
        "share_at_80_roofline": (sum(x >= TARGETS["decode_roofline"] for x in roof) / len(roof)) if roof else None,
        "cublas_roofline_pct_median": statistics.median(cb_roof) if cb_roof else None,
        "fallback": len(fall),
        "fallback_geomean_time_ratio": _geomean([d[id(r)]["time_ratio"] for r in fall]),
    }
    return out


def rowwise_stats(rows):
    """Issue 28's rowwise figures of a ``--scale row`` run: the geometric mean of fastswz time /
    ``_scaled_mm`` rowwise time (its default, and ``use_fast_accum=True``), the share of problems
    at least as fast, the worst, and the shapes ``_scaled_mm`` refused."""
    ok = [r for r in rows if not _failed(r) and "speed" in derive(r)]
    ratio = [derive(r)["time_ratio"] for r in ok]
    fast = [r["fastswz"]["median_ms"] / r["cublas_fast"]["median_ms"] for r in ok if r.get("cublas_fast")]
    worst = max(ok, key=lambda r: derive(r)["time_ratio"], default=None)
    return {"timed": len(ok), "refused": sum(1 for r in rows if r.get("refused")),
            "geomean_time_ratio": _geomean(ratio), "share_at_least_as_fast": (sum(x <= 1.0 for x in ratio) / len(ratio)) if ratio else None,
            "geomean_time_ratio_fast_accum": _geomean(fast),
            "share_at_least_as_fast_fast_accum": (sum(x <= 1.0 for x in fast) / len(fast)) if fast else None,
            "worst_speed": 1.0 / derive(worst)["time_ratio"] if worst else None, "worst": worst["name"] if worst else None}


def summarize(rows):
    """:func:`group_stats` of all rows, of each bucket, and of each bucket x A type, in report
    order (keys ``"all"``, ``"decode"``, ``"decode/bf16"``, ...)."""
    out = {"all": group_stats(rows)}
    for b in BUCKETS:
        rb = [r for r in rows if r["bucket"] == b]
        if not rb:
            continue
        out[b] = group_stats(rb)
        for dt in sorted({r["a_dtype"] for r in rb}):
            out[f"{b}/{dt}"] = group_stats([r for r in rb if r["a_dtype"] == dt])
    return out


def verdicts(summary):
    """The issue's targets against a summary: ``[(text, met, detail)]``, met None when nothing
    was measured."""
    a = summary["all"]
    dec = summary.get("decode")
    out = [
        (f"geometric mean of fastswz / cuBLAS time <= {TARGETS['geomean']}",
         None if a["geomean_time_ratio"] is None else a["geomean_time_ratio"] <= TARGETS["geomean"],
         _num(a["geomean_time_ratio"], ".3f")),
        (f">= {TARGETS['share']:.0%} of problems at >= {TARGETS['share_speed']}x cuBLAS speed",
         None if a["share_at_0_9"] is None else a["share_at_0_9"] >= TARGETS["share"],
         _pct(a["share_at_0_9"])),
        (f"none below {TARGETS['worst']}x cuBLAS speed",
         None if a["worst_speed"] is None else a["below_0_75"] == 0,
         f"{a['below_0_75']} below; worst {_num(a['worst_speed'], '.2f')}x ({a['worst']})"),
        (f"decode (M <= 16) at >= {TARGETS['decode_roofline']:.0f}% of the DRAM roofline",
         None if not dec or dec["roofline_pct_min"] is None else dec["roofline_pct_min"] >= TARGETS["decode_roofline"],
         "not measured" if not dec else f"min {_num(dec['roofline_pct_min'], '.0f')}%, median "
         f"{_num(dec['roofline_pct_median'], '.0f')}%, {_pct(dec['share_at_80_roofline'])} at >= 80% "
         f"(cuBLAS median {_num(dec['cublas_roofline_pct_median'], '.0f')}%)"),
        ("no failed problem", a["failed"] == 0 if a["problems"] else None, f"{a['failed']} failed"),
    ]
    return out


def _num(x, fmt):
    return "-" if x is None else format(x, fmt)


def _pct(x):
    return "-" if x is None else f"{100 * x:.0f}%"


def _us(ms):
    if ms is None:
        return "-"
    us = 1000.0 * ms
    return f"{us:.1f} us" if us < 1000 else f"{ms:.2f} ms"


def plan_text(cfg):
    """A configuration in a few characters: ``128x256x64 s4 epi64x2`` (plus any key beyond the
    tile, stages and epilogue that differs from the kernel's default)."""
    if not cfg:
        return "-"
    s = f"{cfg['bm']}x{cfg['bn']}x{cfg['bk']} s{cfg['stages']}"
    if cfg.get("epilogue"):
        s += f" epi{cfg.get('epilogue_n') or cfg['bn']}x{cfg.get('epilogue_stages', 1)}"
    else:
        s += " regs"
    usual = {"arch", "a_dtype", "b_dtype", "a_major", "b_major", "bm", "bn", "bk", "stages",
             "swizzle_a", "swizzle_b", "cta_group", "out_dtype", "epilogue", "tile_group",
             "epilogue_n", "epilogue_stages"}
    for key in sorted(set(cfg) - usual):
        v = cfg[key]
        unset = v is None or v is False or v in ("", "none") or (type(v) is int and v in (0, 1))
        if not unset:
            s += f" {key}={v}"
    return s


HEAD = (f"{'problem':<34} {'plan':<22} {'fastswz':>10} {'cuBLAS':>10} {'speed':>7} "
        f"{'DRAM roof':>10} {'% roof':>7}  check")


def format_row(row):
    """One table line: problem, plan, both times, fastswz's speed relative to cuBLAS, the
    roofline time and fastswz's share of it, the check."""
    if row.get("error"):
        return f"{row['name']:<34} {plan_text(row.get('plan')):<22} ERROR {row['error']}"
    d = derive(row)
    cb = row.get("cublas") or {}
    mark = "" if cb.get("kind") == "same" else "*" if cb else ""
    chk = row.get("check") or {}
    check = ("-" if not chk else ("ok" if chk["ok"] else "WRONG")
             + f" {chk.get('rel_err', float('nan')):.1e}"
             + (f" {chk['unwritten']} unwritten" if chk.get("unwritten") else "")
             + (f" (float64: {chk['rel_err_f64']:.1e}, cuBLAS {chk['cublas_rel_err_f64']:.1e})"
                if chk.get("judge") == "float64" else ""))
    return (f"{row['name']:<34} {plan_text(row.get('plan')):<22} "
            f"{_us((row.get('fastswz') or {}).get('median_ms')):>10} "
            f"{_us(cb.get('median_ms')) + mark:>10} "
            f"{_num(d.get('speed'), '.2f') + 'x':>7} {_us(row.get('roofline_ms')):>10} "
            f"{_num(d.get('fastswz_roofline_pct'), '.0f') + '%':>7}  {check}")


def format_summary(summary, rowwise=None):
    """The per-bucket table and the targets, as text (``rowwise``, :func:`rowwise_stats` of a
    ``--scale row`` run: the cuBLAS columns are ``_scaled_mm`` rowwise's, and issue 28's rowwise
    target replaces issue 27's)."""
    lines = [f"{'group':<14} {'problems':>8} {'failed':>6} {'timed':>5} {'geomean t':>9} "
             f"{'>=0.9x':>6} {'<0.75x':>6} {'worst':>6}  {'roofline % med/min':>18} "
             f"{'>=80%':>5} {'*fallback':>9}  worst problem"]
    for key, s in summary.items():
        fb = "" if not s["fallback"] else f"{s['fallback']} {_num(s['fallback_geomean_time_ratio'], '.2f')}"
        lines.append(
            f"{key:<14} {s['problems']:>8} {s['failed']:>6} {s['timed']:>5} "
            f"{_num(s['geomean_time_ratio'], '.3f'):>9} {_pct(s['share_at_0_9']):>6} "
            f"{s['below_0_75']:>6} {_num(s['worst_speed'], '.2f'):>6}  "
            f"{_num(s['roofline_pct_median'], '.0f') + ' / ' + _num(s['roofline_pct_min'], '.0f'):>18} "
            f"{_pct(s['share_at_80_roofline']):>5} {fb:>9}  {s['worst'] or '-'}")
    lines.append("geomean t: geometric mean of fastswz time / cuBLAS time (same-type cuBLAS); speed = "
                 "cuBLAS time / fastswz time; roofline %: DRAM roofline time / fastswz time; "
                 "*fallback: e4m3 rows timed against bf16 cuBLAS (_scaled_mm refused the shape): "
                 "count and their geomean t, outside the other columns")
    if rowwise:
        a = summary["all"]
        lines.append("cuBLAS columns: torch._scaled_mm rowwise, its default (use_fast_accum=False)")
        lines.append("target (issue 28): rowwise-scaled e4m3 at least as fast as torch._scaled_mm rowwise on the "
                     "corpus shapes it accepts:")
        met = None if a["geomean_time_ratio"] is None else a["geomean_time_ratio"] <= 1.0
        lines.append(f"  {'MET ' if met else 'open' if met is None else 'MISS'}  geometric mean of fastswz / "
                     f"_scaled_mm rowwise time: {_num(a['geomean_time_ratio'], '.3f')}")
        r = rowwise
        lines.append(f"  {_pct(r['share_at_least_as_fast'])} of {r['timed']} problems at least as fast; worst "
                     f"{_num(r['worst_speed'], '.2f')}x ({r['worst']}); with use_fast_accum=True: geomean t "
                     f"{_num(r['geomean_time_ratio_fast_accum'], '.3f')}, "
                     f"{_pct(r['share_at_least_as_fast_fast_accum'])} at least as fast; {r['refused']} shapes refused")
        return "\n".join(lines)
    lines.append("targets (issue 27):")
    for text, met, detail in verdicts(summary):
        lines.append(f"  {'MET ' if met else 'open' if met is None else 'MISS'}  {text}: {detail}")
    return "\n".join(lines)


# -- plans and kernels (no GPU) -----------------------------------------------------------------------
def _choose(key_scale):
    from fastswz.cuda import choose_plan, default_config

    key, scale = key_scale
    m, n, k, a_dt, b_dt, out_dt, a_major, b_major = key
    try:
        if scale == "row":   # what gemm(a, b, scale_a=..., scale_b=...) runs given no plan
            cfg = default_config(m, n, k, a_dt, b_dt, a_major, b_major, out_dt, fusion={"scale": "row"})
        else:
            cfg = choose_plan(m, n, k, a_dt, b_dt, a_major, b_major, out_dt)
        return key, cfg, None
    except Exception as exc:  # noqa: BLE001 - recorded per problem
        return key, None, f"{type(exc).__name__}: {exc}"


def choose_plans(problems, jobs, scale="none"):
    """``{problem.key: (config or None, error or None)}`` for the distinct problems, chosen in
    ``jobs`` processes (``choose_plan`` ranks tune's space: ~0.05-0.1 s each); ``scale="row"``:
    the default rowwise-scaled plans."""
    keys = [(key, scale) for key in sorted({p.key for p in problems})]
    if jobs <= 1 or len(keys) < 8:
        return {key: (cfg, err) for key, cfg, err in map(_choose, keys)}
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx) as ex:
        return {key: (cfg, err) for key, cfg, err in ex.map(_choose, keys, chunksize=8)}


def _config_id(cfg):
    return json.dumps(cfg, sort_keys=True)


def _cubins():
    from fastswz.cuda.runtime import cache_dir

    d = cache_dir() / "cubin"
    return {p.name: p.stat().st_size for p in d.glob("*.cubin")} if d.is_dir() else {}


def compile_plans(plans, jobs):
    """Compile every distinct configuration of ``plans`` (the cubin cache first). Returns
    ``(kernels by config id, errors by config id, seconds, cubins written)``."""
    from fastswz.cuda import compile_many

    configs = {_config_id(cfg): cfg for cfg, _ in plans.values() if cfg}
    before = _cubins()
    t0 = time.perf_counter()
    got = compile_many(list(configs.values()), jobs=jobs)
    secs = time.perf_counter() - t0
    kernels, errors = {}, {}
    for cid, k in zip(configs, got):
        if isinstance(k, Exception):
            errors[cid] = f"{type(k).__name__}: {k}"
        else:
            kernels[cid] = k
    return kernels, errors, secs, len(set(_cubins()) - set(before))


def _selection(args):
    dtype = args.dtype.split(",") if args.dtype else None
    if getattr(args, "scale", "none") == "row":   # scales are fp8's (the corpus's fp8 type: e4m3)
        dtype = [d for d in (dtype or ["e4m3"]) if d in ("e4m3", "e5m2")] or ["e4m3"]
    problems = load_corpus(args.corpus, dtype=dtype,
                           bucket=args.bucket.split(",") if args.bucket else None)
    return select(problems, subset=args.subset, limit=args.limit, shard=args.shard)


def cmd_precompile(args):
    from fastswz.cuda.runtime import _nvrtc_version, cache_dir

    problems = _selection(args)
    t0 = time.perf_counter()
    plans = choose_plans(problems, args.jobs, args.scale)
    t_choose = time.perf_counter() - t0
    kernels, errors, secs, new = compile_plans(plans, args.jobs)
    sizes = _cubins()
    mine = sum(sizes.get(f"{k.key}.cubin", 0) for k in kernels.values())
    refused = sorted({err for _, err in plans.values() if err})
    print(f"precompile: {len(problems)} problems, {len(plans)} distinct GEMMs -> "
          f"{len(kernels) + len(errors)} distinct default plans (choose_plan: {t_choose:.1f} s "
          f"on {args.jobs} processes)")
    print(f"precompile: {len(kernels)} compiled or found in {secs:.1f} s ({new} new cubins, "
          f"{len(errors)} failed); these plans' cubins {mine / 2**20:.2f} MiB; cache "
          f"{cache_dir()} holds {len(sizes)} cubins, {sum(sizes.values()) / 2**20:.2f} MiB")
    print(f"precompile: NVRTC {_nvrtc_version()}: the GPU run finds these cubins only under the "
          f"same NVRTC major.minor (its cache key)")
    for err in refused:
        print(f"precompile: no plan: {err}")
    for err in errors.values():
        print(f"precompile: compile failed: {err}")
    return 1 if errors or refused else 0


def cmd_dry_run(args, problems):
    est = [estimate_s(p) for p in problems]
    fill = [p.bytes / FILL_BYTES_PER_S for p in problems]
    reps, total = _reps(args, est, fill)
    print(f"dry run: {len(problems)} problems; estimated kernel time {sum(est) * 1e3:.1f} ms per "
          f"launch of each; repeats {min(reps)}-{max(reps)} (median {statistics.median(reps):.0f}); "
          f"estimated timing {total:.0f} s of a {args.budget:.0f} s budget")
    for p, e, r in sorted(zip(problems, est, reps), key=lambda t: -t[1])[:5]:
        print(f"  longest: {p.name}: ~{e * 1e3:.2f} ms a launch, {r} repeats")
    return 0


def _reps(args, est, fill):
    if args.reps:
        reps = [args.reps] * len(est)
        return reps, sum(run_cost_s(e, r, args.warmup) + f for e, r, f in zip(est, reps, fill))
    return choose_reps(est, args.budget, warmup=args.warmup, min_reps=args.min_reps,
                       max_reps=args.max_reps, fixed_s=fill, max_timed_s=args.max_timed_s)


# -- the GPU part -------------------------------------------------------------------------------------
class _Gpu:
    """torch, the flush buffer and the timing loop shared by both libraries."""

    def __init__(self, flush="read"):
        import torch

        self.torch = torch
        torch.cuda.init()
        props = torch.cuda.get_device_properties(0)
        self.flush = torch.empty(max(2 * props.L2_cache_size, 64 << 20) // 4, dtype=torch.int32,
                                 device="cuda")
        self.flush.fill_(0)
        self.flush_kind = flush

    def _flush(self, i):
        """Evict the L2: ``read`` sums the buffer (the L2 then holds its clean lines); ``memset``
        writes it, which leaves the L2 full of dirty lines that the next kernel's misses must
        write back first (measured on an H100: that write-back cost cuBLAS's e4m3 kernels up to
        16 us more, and varied 2x from run to run; fastswz's about 1-3 us); ``memset+read`` both,
        in that order (tests/gpu/gemm/probe.py flush compares the three)."""
        if self.flush_kind in ("memset", "memset+read"):
            self.flush.fill_(i)
        if self.flush_kind in ("read", "memset+read"):
            self.flush.sum(dtype=self.torch.int64)

    def time(self, fn, reps, warmup):
        """Median/min/max ms of ``reps`` launches of ``fn`` queued back to back, each after an L2
        flush and between its own pair of events; one synchronisation at the end."""
        torch = self.torch
        for i in range(warmup):
            self._flush(i)
            fn()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
        for i, (start, stop) in enumerate(ev):
            self._flush(warmup + i)
            start.record()
            fn()
            stop.record()
        torch.cuda.synchronize()
        t = [s.elapsed_time(e) for s, e in ev]
        return {"median_ms": statistics.median(t), "min_ms": min(t), "max_ms": max(t),
                "spread": max(t) / min(t) - 1.0, "reps": reps, "warmup": warmup}

    def bandwidth(self, nbytes=1 << 30, reps=10):
        """DRAM bandwidth (bytes/s) of a device-to-device copy: read + write over the median."""
        torch = self.torch
        src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        src.fill_(1)
        r = self.time(lambda: dst.copy_(src), reps, 2)
        return 2 * nbytes / (r["median_ms"] * 1e-3), r


def _pitch(cols, esize):
    return -(-cols * esize // 16) * 16 // esize


class _Operands:
    """Random operands of a problem on 16-byte pitches; B (the weight) is kept for the next
    problem of the same N, K, type and major (the run sorts problems so)."""

    def __init__(self, torch):
        self.torch, self.w_key, self.w = torch, None, None
        self.td = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
                   "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}

    def random(self, rows, cols, dtype):
        torch = self.torch
        t = self.td[dtype]
        esize = torch.empty((), dtype=t).element_size()
        x = torch.randn(rows, _pitch(cols, esize), device="cuda", dtype=torch.bfloat16)
        return x if t == torch.bfloat16 else x.to(t)

    def make(self, p):
        """``(a, b, d_store, (pa, pb, pd), (lda, ldb, ldd))``: a (M x K) and b (K x N) as torch
        views for cuBLAS, D's padded storage, the pointers and leading dimensions for fastswz."""
        wkey = (p.n, p.k, p.b_dtype, p.b_major)
        if wkey != self.w_key:
            self.w = None
            if self.torch.cuda.memory_reserved() > 24 << 30:   # sizes vary 10^5-fold
                self.torch.cuda.empty_cache()
            rows, cols = (p.n, p.k) if p.b_major == "K" else (p.k, p.n)
            self.w = self.random(rows, cols, p.b_dtype)
            self.w_key = wkey
        ws = self.w
        b = ws[:, :p.k].t() if p.b_major == "K" else ws[:, :p.n]
        as_ = self.random(*((p.m, p.k) if p.a_major == "K" else (p.k, p.m)), p.a_dtype)
        a = as_[:, :p.k] if p.a_major == "K" else as_[:, :p.m].t()
        out = self.td[p.out_dtype]
        d = self.torch.empty(p.m, _pitch(p.n, self.torch.empty((), dtype=out).element_size()),
                             dtype=out, device="cuda")
        ptrs = (as_.data_ptr(), ws.data_ptr(), d.data_ptr())
        return a, b, d, ptrs, (as_.stride(0), ws.stride(0), d.stride(0))


def _cublas(torch, p, a, b):
    """``(fn, kind, library)``: the cuBLAS call for the problem, after one try of it."""
    if p.a_dtype not in ("e4m3", "e5m2"):
        def fn():
            return torch.matmul(a, b)
        fn()
        return fn, "same", f"torch.matmul (cuBLAS) {p.a_dtype}"
    one = torch.ones((), device="cuda")
    try:
        def fn():
            return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        fn()
        return fn, "same", f"torch._scaled_mm (cuBLASLt) {p.a_dtype}, unit scales"
    except RuntimeError as exc:
        why = str(exc).strip().splitlines()[0][:160]
    a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)

    def fb():
        return torch.matmul(a16, b16)
    fb()
    return fb, f"bf16 (torch._scaled_mm refused: {why})", "torch.matmul (cuBLAS) bf16 on the same values"


def _check(torch, p, d_store, ref, exact=None):
    """D against cuBLAS's result on up to 256 evenly spaced rows. Where they differ by the bound
    or more and ``exact`` is given (rows -> the float64 product of those rows), both are held to
    the float64 product instead and D passes if it is within the bound of it: cuBLAS is a
    witness, not the truth (seen on an H100: 1-7 x 336 x 32400 bf16, cuBLAS 2.2e-2 from the
    float64 product, fastswz 1.6e-3; docs/conformance/2026-11-28-fifteenth-session/run7)."""
    rows = torch.linspace(0, p.m - 1, steps=min(p.m, 256), device="cuda").round().long().unique()
    got = d_store[:, :p.n][rows].float()
    want = ref[rows].float()
    unwritten = int(torch.isnan(got).sum())
    err = float((torch.nan_to_num(got, nan=1e30) - want).norm() / want.norm().clamp_min(1e-30))
    bound = CHECK_BOUND.get(p.a_dtype, 1e-2)
    out = {"rows": int(rows.numel()), "rel_err": err, "bound": bound, "unwritten": unwritten,
           "ok": unwritten == 0 and err < bound}
    if unwritten == 0 and err >= bound and exact is not None:
        f64 = exact(rows)
        rel = lambda x: float((x.double() - f64).norm() / f64.norm().clamp_min(1e-300))  # noqa: E731
        out.update(judge="float64", rel_err_f64=rel(got), cublas_rel_err_f64=rel(want))
        out["ok"] = out["rel_err_f64"] < bound
    return out


def _exact_rows(torch, a, b, sa=None, sb=None):
    """rows -> the float64 product of those rows of A with B (times the row and column scales
    where given), B taken 4096 columns at a time."""
    def exact(rows):
        x = a[rows].double()
        if sa is not None:
            x = x * sa[rows].double()[:, None]
        parts = []
        for j in range(0, b.shape[1], 4096):
            y = b[:, j:j + 4096].double()
            if sb is not None:
                y = y * sb[j:j + 4096].double()[None, :]
            parts.append(x @ y)
        return torch.cat(parts, dim=1)
    return exact


def _nvidia_smi():
    """Clocks, power limit, temperature and driver of the GPUs (None without nvidia-smi)."""
    import subprocess

    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,"
                            "power.limit,temperature.gpu,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20, check=False)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _write(path, data):
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def _row(p):
    return {"name": p.name, "model": p.model, "layer": p.layer, "bucket": p.bucket, "m": p.m,
            "n": p.n, "k": p.k, "a_dtype": p.a_dtype, "b_dtype": p.b_dtype, "out_dtype": p.out_dtype,
            "a_major": p.a_major, "b_major": p.b_major, "flops": p.flops, "bytes": p.bytes}


def cmd_run(args):
    started = time.perf_counter()
    problems = _selection(args)
    if args.dry_run:
        return cmd_dry_run(args, problems)
    # the plans first, in worker processes forked before any CUDA state exists
    plans = choose_plans(problems, args.jobs, args.scale)
    t_plans = time.perf_counter() - started
    import fastswz
    from fastswz.cuda import KERNEL_VERSION, device_info

    gpu = _Gpu(args.flush)
    torch = gpu.torch
    info = device_info()   # also makes the primary context current for the driver calls
    kernels, compile_errors, t_compile, new = compile_plans(plans, args.jobs)
    bw, bw_run = gpu.bandwidth()
    print(f"gpu_corpus: {info['name']}, {info['sms']} SMs; DRAM copy bandwidth {bw / 1e9:.0f} GB/s; "
          f"{len(problems)} problems, {len(kernels)} distinct plans ({new} compiled here in "
          f"{t_compile:.1f} s, {len(compile_errors)} failed); plans chosen in {t_plans:.1f} s",
          flush=True)
    # W is reused across the token counts of a layer: sort by the weight, then M
    order = sorted(problems, key=lambda p: (p.b_dtype, p.b_major, p.n, p.k, p.a_dtype, p.a_major, p.m))
    est = [estimate_s(p, bw) for p in order]
    reps, planned = _reps(args, est, [p.bytes / FILL_BYTES_PER_S for p in order])
    print(f"gpu_corpus: repeats {min(reps)}-{max(reps)}, estimated {planned:.0f} s of timing "
          f"(budget {args.budget:.0f} s, deadline {args.deadline:.0f} s from the start)", flush=True)
    header = {"nvidia_smi_before": _nvidia_smi(), "command": " ".join(sys.argv), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "device_info": info, "torch": torch.__version__, "cuda": torch.version.cuda,
              "fastswz": fastswz.__version__, "kernel_version": KERNEL_VERSION,
              "dram_bandwidth_gbps": bw / 1e9, "bandwidth_run": bw_run,
              "corpus": str(args.corpus or "fastswz/data/gemm_corpus.json"),
              "selection": {"subset": args.subset, "bucket": args.bucket, "dtype": args.dtype,
                            "limit": args.limit, "shard": args.shard},
              "timing": "launches queued back to back on one stream, each after an L2 flush and "
                        "between its own CUDA events; median of the repeats",
              "flush": args.flush, "scale": args.scale,
              "budget_s": args.budget, "compile_errors": compile_errors}
    data = {"header": header, "rows": []}
    print(HEAD, flush=True)
    ops = _Operands(torch)
    done = {}
    stopped = None
    for i, (p, r, e) in enumerate(zip(order, reps, est)):
        if time.perf_counter() - started > args.deadline:
            stopped = {"after": i, "of": len(order), "reason": f"deadline {args.deadline:.0f} s"}
            print(f"gpu_corpus: deadline: stopped after {i} of {len(order)} problems", flush=True)
            break
        row = _row(p)
        cfg, err = plans[p.key]
        row["plan"] = cfg
        row["roofline_ms"] = 1e3 * p.bytes / bw
        row["estimate_ms"] = 1e3 * e
        if p.key in done:   # the same GEMM under another bucket (8192^3, 16384^3)
            row.update({k: v for k, v in done[p.key].items()
                        if k in ("fastswz", "cublas", "check", "error", "launch")})
            row["same_as"] = done[p.key]["name"]
        elif err or _config_id(cfg) in compile_errors:
            row["error"] = err or compile_errors[_config_id(cfg)]
        else:
            t0 = time.perf_counter()
            try:
                row.update(_time_one(torch, gpu, ops, kernels[_config_id(cfg)], p, r, args.warmup,
                                     args.check, args.launch, args.scale))
            except Exception as exc:  # noqa: BLE001 - one failure does not stop the corpus
                row["error"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"
                try:   # an out-of-memory error leaves the context usable; a kernel fault does not
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
                except Exception as lost:  # noqa: BLE001
                    stopped = {"after": i + 1, "of": len(order), "reason": f"CUDA context lost: {lost}"}
            row["wall_s"] = time.perf_counter() - t0
            done[p.key] = row
        data["rows"].append(row)
        print(format_row(row), flush=True)
        if stopped:
            print(f"gpu_corpus: stopped: {stopped['reason']}", flush=True)
            break
        if i % 25 == 24 and args.out:
            _write(args.out, data)
    ops.w = None
    data["header"]["stopped"] = stopped
    data["header"]["nvidia_smi_after"] = _nvidia_smi()
    data["header"]["elapsed_s"] = time.perf_counter() - started
    data["summary"] = summarize(data["rows"])
    if args.scale == "row":
        data["rowwise"] = rowwise_stats(data["rows"])
    if args.out:
        _write(args.out, data)
    print()
    print(format_summary(data["summary"], data.get("rowwise")))
    print(f"gpu_corpus: {len(data['rows'])} rows in {data['header']['elapsed_s']:.0f} s"
          + (f"; JSON {args.out}" if args.out else ""), flush=True)
    return 0


#: The plan keys whose kernels the prepared launch below runs as they are (``GEMM_KEYS`` when this
#: was written). A plan with another key (a schedule added since: swapped operands, a split-K
#: workspace, ...) is timed through ``fastswz.cuda.gemm``, which knows how to run it.
PREPARED_KEYS = {"arch", "a_dtype", "b_dtype", "a_major", "b_major", "bm", "bn", "bk", "stages",
                 "swizzle_a", "swizzle_b", "cta_group", "out_dtype", "epilogue", "tile_group",
                 "cluster_m", "epilogue_n", "epilogue_stages"}


def _unfused(config):
    """True for a configuration whose launch needs no epilogue operands: GemmKernel._prepare runs
    its schedules (swap-AB, split-K with its workspace, ping-pong) itself."""
    try:
        from fastswz.cuda.codegen import FUSION_DEFAULTS
    except ImportError:
        return False
    return all(config.get(k, v) == v for k, v in FUSION_DEFAULTS.items()) and \
        config.get("out_dtype") not in ("e4m3", "e5m2")


def _launcher(kern, p, a, b, d, ptrs, lds, launch, scales=None):
    """``(go, how)``: fastswz's launch as a no-argument callable. ``prepared``: the kernel's
    prepared launch (tensor maps encoded once, as ``GemmKernel.time``); ``gemm``: the public
    ``fastswz.cuda.gemm`` per call (its host work and stream synchronisation inside the timed
    interval, so only fair on long kernels), also taken for a plan with keys beyond
    :data:`PREPARED_KEYS` or a prepared launch that no longer takes these arguments."""
    plain = set(kern.config) <= PREPARED_KEYS or _unfused(kern.config)
    fields = {}
    if scales is not None:   # rowwise: the epilogue's two scale vectors (unit strides)
        fields = dict(scale_a=scales[0].data_ptr(), scale_b=scales[1].data_ptr(), sa_sm=1, sb_sn=1)
        plain = plain or _unfused(dict(kern.config, scale="none"))   # scales its only fusion
    import fastswz.cuda

    if launch == "prepared" and hasattr(kern, "_prepare") and plain:
        if fastswz.cuda.stages_a(p.m, p.n, p.k, p.a_dtype, p.a_major, lds[0]):
            return _staged_launcher(kern, p, ptrs, lds, fields), "prepared, A staged"
        try:
            return kern._prepare(*ptrs, p.m, p.n, p.k, *lds, **fields), "prepared"
        except TypeError:
            pass   # a changed signature: the public call below still runs the plan

    view = d[:, :p.n]
    kw = {} if scales is None else {"scale_a": scales[0].view(-1, 1), "scale_b": scales[1].view(1, -1)}

    def go():
        fastswz.cuda.gemm(a, b, out=view, plan=kern, **kw)
    return go, "gemm"


def _staged_launcher(kern, p, ptrs, lds, fields):
    """The prepared launch of a problem whose A ``gemm`` copies into padded rows
    (:func:`fastswz.cuda.stages_a`): the copy (``gemm``'s, on the same stream) and the launch, so
    the copy's time is in what is timed. The padded buffer lives as long as the callable."""
    import torch

    from fastswz.cuda import runtime

    e = 1   # stages_a's rule is for 8-bit A
    pitch = runtime.staged_pitch(p.k, e)
    buf = torch.empty(p.m * pitch * e, dtype=torch.uint8, device="cuda")
    launch = kern._prepare(buf.data_ptr(), ptrs[1], ptrs[2], p.m, p.n, p.k, pitch, *lds[1:], **fields)
    stream = torch.cuda.current_stream().cuda_stream
    device = torch.cuda.current_device()

    def go():
        runtime.copy2d(ptrs[0], lds[0] * e, buf.data_ptr(), pitch * e, p.k * e, p.m, stream, device)
        launch()
    go.buffer = buf
    return go


def _cublas_rowwise(torch, p, a, b, sa, sb):
    """``(fn, fn_fast, kind, library)``: ``torch._scaled_mm`` rowwise, its default and
    ``use_fast_accum=True``, after one try; ``(None, None, why, ...)`` where it refuses the shape."""
    sa2, sb2 = sa.view(-1, 1), sb.view(1, -1)

    def fn():
        return torch._scaled_mm(a, b, scale_a=sa2, scale_b=sb2, out_dtype=torch.bfloat16)

    def fast():
        return torch._scaled_mm(a, b, scale_a=sa2, scale_b=sb2, out_dtype=torch.bfloat16, use_fast_accum=True)
    try:
        fn()
        fast()
    except RuntimeError as exc:
        return None, None, "refused: " + str(exc).strip().splitlines()[0][:160], "torch._scaled_mm rowwise"
    return fn, fast, "same", f"torch._scaled_mm rowwise {p.a_dtype} (scale_a M x 1, scale_b 1 x N)"


def _time_one(torch, gpu, ops, kern, p, reps, warmup, check, launch="prepared", scale="none"):
    a, b, d, ptrs, lds = ops.make(p)
    if scale == "row":
        sa = torch.rand(p.m, device="cuda") + 0.5
        sb = torch.rand(p.n, device="cuda") + 0.5
        fn, fast, kind, library = _cublas_rowwise(torch, p, a, b, sa, sb)
        if fn is None:   # shapes _scaled_mm refuses: listed, not timed
            return {"refused": kind}
        go, how = _launcher(kern, p, a, b, d, ptrs, lds, launch, (sa, sb))
        out = _time_pair(gpu, go, fn, kind, library, how, reps, warmup, check, p, d, torch,
                         _exact_rows(torch, a, b, sa, sb))
        out["cublas_fast"] = dict(gpu.time(fast, reps, warmup), kind=kind,
                                  library=library + ", use_fast_accum=True")
        return out
    go, how = _launcher(kern, p, a, b, d, ptrs, lds, launch)
    fn, kind, library = _cublas(torch, p, a, b)
    return _time_pair(gpu, go, fn, kind, library, how, reps, warmup, check, p, d, torch,
                      _exact_rows(torch, a, b))


def _time_pair(gpu, go, fn, kind, library, how, reps, warmup, check, p, d, torch, exact=None):
    """fastswz's launch ``go`` and cuBLAS's ``fn``: the check, then both timed (again, both, when
    either spread too much)."""
    out = {"launch": how}
    if check:
        d.fill_(float("nan"))
        go()
        out["check"] = _check(torch, p, d, fn(), exact)
    # Noise from outside (seen on an H100: one problem's repeats 15-77x apart, in either library,
    # in runs where the same plans were steady before and after): while either library's
    # steadiest pass so far spreads more than RETIME_SPREAD, both are timed again, at most
    # RETIME_PASSES passes; each library keeps its own steadiest pass (the first among equals)
    # and the others are recorded under "retimed".
    passes = []
    while True:
        passes.append({"fastswz": gpu.time(go, reps, warmup),
                       "cublas": dict(gpu.time(fn, reps, warmup), kind=kind, library=library)})
        best = {lib: min((q[lib] for q in passes), key=lambda t: t["spread"]) for lib in ("fastswz", "cublas")}
        if max(t["spread"] for t in best.values()) <= RETIME_SPREAD or len(passes) == RETIME_PASSES:
            break
    out.update(best)
    if len(passes) > 1:
        out["retimed"] = {lib: [q[lib] for q in passes if q[lib] is not best[lib]] for lib in best}
    return out


def cmd_summary(args):
    rows, bws = {}, []
    for path in args.files:
        data = json.loads(Path(path).read_text())
        bws.append(data["header"].get("dram_bandwidth_gbps"))
        if data["header"].get("stopped"):
            print(f"{path}: stopped early: {data['header']['stopped']}")
        for row in data["rows"]:
            rows[row["name"]] = row
    rows = list(rows.values())
    if args.table:
        print(HEAD)
        for row in rows:
            print(format_row(row))
        print()
    print(f"{len(rows)} problems from {len(args.files)} file(s); DRAM bandwidth "
          + ", ".join(f"{b:.0f}" for b in bws if b) + " GB/s")
    row_mode = any(r.get("cublas_fast") or r.get("refused") for r in rows)
    print(format_summary(summarize(rows), rowwise_stats(rows) if row_mode else None))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    sub = p.add_subparsers(dest="cmd", required=True)

    def selection(q):
        q.add_argument("--corpus", default=None,
                       help="a corpus file (default: the one fastswz ships)")
        q.add_argument("--subset", default=None,
                       help="comma-separated globs on problem names, e.g. 'llama3-8b.*,square.*'")
        q.add_argument("--bucket", default=None,
                       help="comma-separated buckets: " + ", ".join(BUCKETS))
        q.add_argument("--dtype", default=None, help="comma-separated A types: bf16, e4m3")
        q.add_argument("--limit", type=int, default=None, help="the first N of the selection")
        q.add_argument("--shard", type=parse_shard, default=None,
                       help="i/n: every n-th problem from the i-th")
        q.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                       help="processes choosing plans, threads compiling (default: the CPUs)")
        q.add_argument("--scale", choices=("none", "row"), default="none",
                       help="row: the e4m3 problems with per-row and per-column scales against "
                            "torch._scaled_mm rowwise (issue 28); default none: unscaled, issue 27")

    q = sub.add_parser("precompile",
                       help="choose and compile the default plans into $FASTSWZ_CACHE (no GPU)")
    selection(q)
    q = sub.add_parser("run", help="time the selection on the GPU (or --dry-run: the repeats "
                                   "and the estimate, no GPU)")
    selection(q)
    q.add_argument("--out", default=None, help="JSON file for the rows, header and summary")
    q.add_argument("--budget", type=float, default=240.0,
                   help="seconds of timing the repeats are chosen for (default 240)")
    q.add_argument("--deadline", type=float, default=390.0,
                   help="start no problem after this many seconds from the start (default 390)")
    q.add_argument("--reps", type=int, default=None,
                   help="the same repeats for every problem (no budget)")
    q.add_argument("--max-timed-s", type=float, default=1.0,
                   help="timed seconds per library and problem at most (default 1.0): the long "
                        "problems get fewer repeats even when the budget has room")
    q.add_argument("--min-reps", type=int, default=5)
    q.add_argument("--max-reps", type=int, default=30)
    q.add_argument("--warmup", type=int, default=2)
    q.add_argument("--flush", choices=("read", "memset"), default="read",
                   help="how the L2 is flushed before each launch: read a buffer of twice its size "
                        "(clean lines; default) or memset it (dirty lines the timed kernel writes "
                        "back; the runs before 2026-11-27)")
    q.add_argument("--launch", choices=("prepared", "gemm"), default="prepared",
                   help="fastswz's launch: the kernel's prepared launch (default; tensor maps "
                        "encoded once) or fastswz.cuda.gemm per call (host work timed too)")
    q.add_argument("--no-check", dest="check", action="store_false",
                   help="skip the check of D against cuBLAS")
    q.add_argument("--dry-run", action="store_true",
                   help="print the repeats and the estimated time; no GPU")
    q = sub.add_parser("summary", help="the per-bucket summary (and --table) of run JSON files")
    q.add_argument("files", nargs="+")
    q.add_argument("--table", action="store_true", help="also print every row")
    args = p.parse_args(argv)
    if args.cmd == "run" and not (1 <= args.min_reps <= args.max_reps and (args.reps or 1) >= 1
                                  and args.warmup >= 0):
        p.error("need 1 <= --min-reps <= --max-reps, --reps >= 1 and --warmup >= 0")
    if args.cmd in ("precompile", "run") and args.jobs < 1:
        p.error("--jobs must be >= 1")
    return {"precompile": cmd_precompile, "run": cmd_run, "summary": cmd_summary}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
