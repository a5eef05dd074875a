#!/usr/bin/env python3
"""The kernels' own durations (CUPTI, as Nsight Systems reports them) of corpus problems, both
libraries, beside the DRAM roofline (GPU machine).

``gpu_corpus.py run`` times each launch between its own pair of CUDA events after an L2 flush;
that interval also holds what the GPU does between the event and the kernel's first instruction,
about 3-4 us for any kernel (a one-element torch kernel timed so: 3.8 us on an H200, the
nineteenth session's ``cublas_kernels.py`` run), which is most of a decode layer's roofline of a
few microseconds. This script reads the durations of the same launches from the CUDA activity
trace instead (``torch.profiler``), for fastswz's default plan and cuBLAS alike::

    FASTSWZ_CACHE=.fswcache python benchmarks/gpu_corpus.py precompile --subset '*.m1.*,*.m8.*,*.m16.*'
    FASTSWZ_CACHE=.fswcache python benchmarks/gpu_durations.py run --subset '*.m1.*,*.m8.*,*.m16.*' --out d.json
    python benchmarks/gpu_durations.py summary d.json

Each repeat is: a marker kernel (``torch.cuda._sleep``: the trace's delimiter), the L2 flush of
``gpu_corpus`` (a read of twice the L2), the launch. A repeat's duration is the sum of the
durations of the kernels after the flush's (fastswz's GEMM and, for a split-K plan, its
reduction, and the copy of a staged A, ``fastswz.cuda.stages_a``; cuBLAS's kernels); the problem's is
the median over the repeats. The roofline is the
problem's bytes (A, B and D once) over the DRAM copy bandwidth measured in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gpu_corpus  # noqa: E402

#: The roofline share issue 27 asks decode problems (M <= 16) to reach.
TARGET_SHARE = 0.8
#: The marker kernel's name (``torch.cuda._sleep``, ATen's ``spin_kernel``).
MARKER = "spin_kernel"


def segment_durations(kernels, skip):
    """Per repeat, the summed duration (us) of the kernels between two markers whose names are
    not in ``skip``: ``kernels`` is a list of ``(start_us, name, duration_us)`` in any order;
    a segment opens at each kernel whose name holds :data:`MARKER`. Kernels before the first
    marker are ignored; a segment with no counted kernel is ``None`` (a launch the trace lost).

    >>> segment_durations([(0, "spin_kernel", 1), (2, "flush", 5), (8, "gemm", 3), (12, "red", 1),
    ...                    (14, "spin_kernel", 1), (16, "flush", 5), (22, "gemm", 4)], {"flush"})
    [4, 4]
    """
    out = None
    for _, name, dur in sorted(kernels):
        if MARKER in name:
            out = [] if out is None else out
            out.append(None)
        elif out is not None and name not in skip:
            out[-1] = (out[-1] or 0) + dur
    return out or []


def summarize(rows, target=TARGET_SHARE):
    """The decode rows' (M <= 16) roofline shares by the kernels' durations, both libraries:
    ``{"problems", "fastswz": {"median", "at_target"}, "cublas": {...}}`` (shares of the rows
    with both durations; ``at_target`` the fraction at ``target`` or more)."""
    decode = [r for r in rows if r["m"] <= 16 and r.get("fastswz_us") and r.get("cublas_us")]
    out = {"problems": len(decode), "target": target}
    for lib in ("fastswz", "cublas"):
        shares = [r["roofline_us"] / r[f"{lib}_us"] for r in decode]
        out[lib] = {"median": statistics.median(shares) if shares else None,
                    "at_target": sum(s >= target for s in shares) / len(shares) if shares else None}
    return out


def _trace_kernels(prof, path):
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f).get("traceEvents", [])
    os.remove(path)
    return [(float(e["ts"]), e["name"], float(e.get("dur", 0.0))) for e in events
            if e.get("cat") in ("kernel", "gpu_memcpy")]   # a staged A's copy is part of the call


def cmd_run(args):
    import torch
    from torch.profiler import ProfilerActivity, profile

    from fastswz.cuda import device_info

    problems = gpu_corpus._selection(args)
    plans = gpu_corpus.choose_plans(problems, args.jobs)
    gpu = gpu_corpus._Gpu("read")
    info = device_info()
    kernels, errors, _, new = gpu_corpus.compile_plans(plans, args.jobs)
    bw, _ = gpu.bandwidth()
    tmp = tempfile.mkdtemp()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:   # the flush's own kernels
        gpu._flush(0)
        torch.cuda.synchronize()
    flush_names = {name for _, name, _ in _trace_kernels(prof, os.path.join(tmp, "flush.json"))}
    print(f"gpu_durations: {info['name']}; DRAM copy bandwidth {bw / 1e9:.0f} GB/s; {len(problems)} problems, "
          f"{len(kernels)} plans ({new} compiled here, {len(errors)} failed)", flush=True)
    ops = gpu_corpus._Operands(torch)
    rows = []
    order = sorted(problems, key=lambda p: (p.b_dtype, p.n, p.k, p.a_dtype, p.m))
    for p in order:
        cfg, err = plans[p.key]
        row = gpu_corpus._row(p)
        row.update(plan=cfg, roofline_us=1e6 * p.bytes / bw)
        if err or gpu_corpus._config_id(cfg) in errors:
            row["error"] = err or errors[gpu_corpus._config_id(cfg)]
            rows.append(row)
            continue
        a, b, d, ptrs, lds = ops.make(p)
        go, how = gpu_corpus._launcher(kernels[gpu_corpus._config_id(cfg)], p, a, b, d, ptrs, lds, "prepared")
        fn, kind, library = gpu_corpus._cublas(torch, p, a, b)
        row.update(launch=how, cublas_kind=kind, library=library)
        for lib, f in (("fastswz", go), ("cublas", fn)):
            for i in range(2):   # first-call costs out of the trace
                f()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for i in range(args.reps):
                    torch.cuda._sleep(1)
                    gpu._flush(i)
                    f()
                torch.cuda.synchronize()
            segs = segment_durations(_trace_kernels(prof, os.path.join(tmp, "t.json")), flush_names)
            got = [s for s in segs if s is not None]
            row[f"{lib}_us"] = statistics.median(got) if got else None
            row[f"{lib}_reps"] = len(got)
        rows.append(row)
        f_us, c_us = row.get("fastswz_us"), row.get("cublas_us")
        print(f"{p.name:44s} {p.m}x{p.n}x{p.k} {p.a_dtype}  roofline {row['roofline_us']:7.1f} us  "
              f"fastswz {f_us or float('nan'):7.1f} us ({row['roofline_us'] / f_us if f_us else 0:.0%})  "
              f"cuBLAS {c_us or float('nan'):7.1f} us ({row['roofline_us'] / c_us if c_us else 0:.0%})", flush=True)
    data = {"header": {"device_info": info, "dram_bandwidth_gbps": bw / 1e9, "reps": args.reps,
                       "command": " ".join(sys.argv), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "timing": "CUDA activity trace (torch.profiler): each launch's kernels' durations "
                                 "after an L2 flush (a read); median of the repeats"},
            "rows": rows, "summary": summarize(rows)}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(data, f, indent=1)
    print(_format_summary(data["summary"]))
    return 0


def _format_summary(s):
    def share(x):
        return "n/a" if x is None else f"{x:.0%}"
    return (f"decode (M <= 16), {s['problems']} problems, by the kernels' durations: fastswz median "
            f"{share(s['fastswz']['median'])} of the DRAM roofline, {share(s['fastswz']['at_target'])} at "
            f">= {s['target']:.0%}; cuBLAS median {share(s['cublas']['median'])}, "
            f"{share(s['cublas']['at_target'])} at >= {s['target']:.0%}")


def cmd_summary(args):
    rows = []
    for path in args.files:
        with open(path) as f:
            rows += json.load(f)["rows"]
    print(_format_summary(summarize(rows)))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("run", help="time the selection's kernels by their traced durations (GPU)")
    q.add_argument("--corpus", default=None, help="a corpus JSON file (default: the shipped corpus)")
    q.add_argument("--subset", default=None, help="comma-separated name globs")
    q.add_argument("--bucket", default=None)
    q.add_argument("--dtype", default=None)
    q.add_argument("--limit", type=int, default=None)
    q.add_argument("--shard", type=gpu_corpus.parse_shard, default=None)
    q.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    q.add_argument("--reps", type=int, default=10)
    q.add_argument("--out", default=None)
    q.set_defaults(func=cmd_run)
    q = sub.add_parser("summary", help="the decode summary of one or more runs")
    q.add_argument("files", nargs="+")
    q.set_defaults(func=cmd_summary)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
