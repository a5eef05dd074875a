#!/usr/bin/env python3
"""Nsight Compute on every corpus problem under a speed ratio: the measured cause per problem.

Issue 27 asks that every problem under 0.9x cuBLAS has its measured cause (tensor pipe
utilization, stall reasons, DRAM throughput). Three steps:

    # anywhere: the problems of a corpus run under 0.9x, one "MxNxK:dtype name" per line
    python3 tests/gpu/gemm/ncu_causes.py select CORPUS.json[.gz] --below 0.9 > problems.txt
    # the GPU machine (cubins precompiled: benchmarks/gpu_corpus.py precompile): Nsight Compute
    # on fastswz's default plan and cuBLAS for each problem (tests/gpu/gemm/ncu_pair.py), a few
    # problems per ncu process, one CSV each, under DIR
    python3 tests/gpu/gemm/ncu_causes.py run problems.txt --out DIR [--chunk 8] [--deadline S]
    # anywhere: one row per problem and the cause the numbers name
    python3 tests/gpu/gemm/ncu_causes.py table DIR [--corpus CORPUS.json.gz]

Nsight Compute replays each kernel with its caches flushed and its clocks at base (its defaults),
so the times are not the corpus's; the ratio of the two libraries' kernels under the same replay
is. A problem's time is the sum of its kernels (fastswz's GEMM and, with a split-K reduction
kernel, that kernel; cuBLAS's GEMM and any reduction it launches).

The cause column is read from the measured metrics by fixed rules, in this order (the thresholds
are this script's, stated so that a reader can check a row by hand):

1. ``more DRAM bytes``: fastswz reads or writes at least 10% more DRAM bytes than cuBLAS.
2. ``more instructions``: fastswz issues at least 1.5x cuBLAS's warp instructions.
3. ``latency``: fastswz's DRAM throughput is under 60% of peak and its tensor pipe under 50%
   active (neither unit is near its limit: bytes or MMAs in flight are too few); the row names the
   top stall reason, per issued instruction, of both libraries.
4. ``tensor pipe``: fastswz's tensor pipe is at least 50% active but below cuBLAS's.
5. ``DRAM``: fastswz's DRAM throughput is at least 60% of peak.
"""
import argparse
import csv
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

STALL = re.compile(r"smsp__average_warps_issue_stalled_(.*)_per_issue_active\.ratio")
BASE_METRICS = ["gpu__time_duration.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                "dram__bytes_read.sum", "dram__bytes_write.sum",
                "sm__throughput.avg.pct_of_peak_sustained_elapsed", "smsp__inst_executed.sum",
                "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__grid_size",
                "launch__registers_per_thread",
                r"regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"]


def _load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


def cmd_select(args):
    rows = _load(args.corpus)["rows"]
    out = []
    for r in rows:
        c = r.get("cublas") or {}
        f = r.get("fastswz") or {}
        if c.get("kind") != "same" or not f.get("median_ms") or r["a_major"] != "K" or r["b_major"] != "K":
            continue
        t = c["median_ms"] / f["median_ms"]
        if t < args.below:
            out.append((t, f"{r['m']}x{r['n']}x{r['k']}:{r['a_dtype']} {r['name']} {t:.3f}"))
    for _, line in sorted(out):
        print(line)


def _tensor_metrics():
    """The tensor-pipe utilization metrics this Nsight Compute knows (their names differ by
    version: ask it rather than guess)."""
    try:
        q = subprocess.run(["ncu", "--query-metrics", "--chip", "gh100"], capture_output=True, text=True,
                           timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    names = sorted({m for m in re.findall(r"^(sm__pipe_tensor\S*cycles_active)\b", q, re.M)})
    return [f"{n}.avg.pct_of_peak_sustained_active" for n in names]


def cmd_run(args):
    with open(args.problems) as f:
        lines = [ln.split() for ln in f if ln.strip()]
    os.makedirs(args.out, exist_ok=True)
    metrics = BASE_METRICS + _tensor_metrics()
    with open(os.path.join(args.out, "metrics.txt"), "w") as f:
        f.write("\n".join(metrics) + "\n")
    t0 = time.time()
    for i in range(0, len(lines), args.chunk):
        if time.time() - t0 > args.deadline:
            print(f"ncu_causes: deadline reached, {len(lines) - i} problems not profiled", flush=True)
            break
        part = lines[i:i + args.chunk]
        out = os.path.join(args.out, f"ncu_causes_{i // args.chunk:03d}.csv")
        cmd = ["ncu", "--profile-from-start", "off", "--csv", "--page", "raw", "--metrics", ",".join(metrics),
               sys.executable, os.path.join(HERE, "ncu_pair.py")] + [p[0] for p in part]
        t = time.time()
        with open(out, "w") as fo, open(out + ".err", "w") as fe:
            rc = subprocess.run(cmd, stdout=fo, stderr=fe, timeout=args.timeout).returncode
        print(f"ncu_causes: chunk {i // args.chunk} ({len(part)} problems) exit {rc} in {time.time() - t:.0f} s",
              flush=True)


def _num(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


def _kernels(path):
    """(problems printed by ncu_pair in order, [kernel dicts in launch order])."""
    with open(path) as f:
        rows = list(csv.reader(f))
    problems = [r[0].split("ncu_pair: ", 1)[1] for r in rows if r and r[0].startswith("ncu_pair: ")]
    hi = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if hi is None:
        return problems, []
    hdr = rows[hi]
    ks = []
    for r in rows[hi + 1:]:
        if not r or not r[0].isdigit():
            continue   # the units row
        d = dict(zip(hdr, r))
        ks.append({"name": d["Kernel Name"], "grid": d.get("launch__grid_size"),
                   "m": {h: _num(v) for h, v in d.items() if "__" in h}})
    return problems, ks


def _group(problems, ks):
    """Each problem's fastswz kernels and cuBLAS kernels: a problem starts at its fastswz GEMM."""
    out, cur = [], None
    for k in ks:
        if k["name"].startswith("fastswz_gemm"):
            cur = {"fastswz": [k], "cublas": []}
            out.append(cur)
        elif cur is not None:
            (cur["fastswz"] if k["name"].startswith("fastswz_") else cur["cublas"]).append(k)
    return list(zip(problems, out))


def _summary(kernels, tensor_names):
    """Time-weighted metrics of a library's kernels for one problem."""
    t = sum(k["m"].get("gpu__time_duration.sum") or 0 for k in kernels)
    main = max(kernels, key=lambda k: k["m"].get("gpu__time_duration.sum") or 0)
    m = main["m"]
    stalls = {STALL.match(h).group(1): v for h, v in m.items() if STALL.match(h) and v is not None}
    top = sorted(stalls.items(), key=lambda kv: -kv[1])[:2]
    tensor = max((m.get(n) or 0 for n in tensor_names), default=None) if tensor_names else None
    return {"time_ns": t, "kernels": len(kernels), "name": main["name"], "grid": main["grid"],
            "dram_pct": m.get("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
            "dram_bytes": sum((k["m"].get("dram__bytes_read.sum") or 0) + (k["m"].get("dram__bytes_write.sum") or 0)
                              for k in kernels),
            "sm_pct": m.get("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            "tensor_pct": tensor, "inst": sum(k["m"].get("smsp__inst_executed.sum") or 0 for k in kernels),
            "regs": m.get("launch__registers_per_thread"), "stalls": top}


def cause(f, c):
    """The rule of the module docstring that the two libraries' metrics meet first."""
    if c["dram_bytes"] and f["dram_bytes"] >= 1.10 * c["dram_bytes"]:
        return f"more DRAM bytes ({f['dram_bytes'] / c['dram_bytes']:.2f}x cuBLAS's)"
    if c["inst"] and f["inst"] >= 1.5 * c["inst"]:
        return f"more instructions ({f['inst'] / c['inst']:.1f}x cuBLAS's)"
    st = lambda s: ", ".join(f"{n.replace('_', ' ')} {v:.1f}" for n, v in s["stalls"][:1]) or "-"   # noqa: E731
    tf = f["tensor_pct"] if f["tensor_pct"] is not None else 0.0
    if (f["dram_pct"] or 0) < 60 and tf < 50:
        extra = f"; {f['kernels']} kernels" if f["kernels"] > 1 else ""
        return f"latency (top stall per issue: fastswz {st(f)}, cuBLAS {st(c)}{extra})"
    if tf >= 50 and c["tensor_pct"] is not None and tf < c["tensor_pct"]:
        return f"tensor pipe ({tf:.0f}% active against {c['tensor_pct']:.0f}%)"
    return f"DRAM ({f['dram_pct']:.0f}% of peak against {c['dram_pct']:.0f}%)"


def cmd_table(args):
    tensor_names = []
    mpath = os.path.join(args.dir, "metrics.txt")
    if os.path.exists(mpath):
        with open(mpath) as f:
            tensor_names = [ln.strip() for ln in f if ln.startswith("sm__pipe_tensor")]
    names = {}
    if args.corpus:
        for r in _load(args.corpus)["rows"]:
            if r.get("cublas", {}).get("kind") == "same" and r["a_major"] == "K" and r["b_major"] == "K":
                names.setdefault(f"{r['m']}x{r['n']}x{r['k']}:{r['a_dtype']}", []).append(
                    (r["name"], r["cublas"]["median_ms"] / r["fastswz"]["median_ms"]))
    print("| problem | corpus t | ncu t | fastswz plan | fastswz us (kernels) | cuBLAS us | DRAM % f / c | "
          "tensor % f / c | SM % f / c | instructions f / c | top stall f / c | cause |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    counts = {}
    for path in sorted(glob.glob(os.path.join(args.dir, "ncu_causes_*.csv"))):
        problems, ks = _kernels(path)
        for spec_line, g in _group(problems, ks):
            spec = spec_line.split()[0]
            plan = spec_line.split(" plan ", 1)[1].split(";")[0] if " plan " in spec_line else "?"
            if not g["cublas"]:
                print(f"| {spec} | | | {plan} | no cuBLAS kernel recorded | | | | | | | |")
                continue
            f, c = _summary(g["fastswz"], tensor_names), _summary(g["cublas"], tensor_names)
            why = cause(f, c)
            counts[why.split(" (")[0]] = counts.get(why.split(" (")[0], 0) + 1
            nm = names.get(spec, [("", None)])
            label = ", ".join(n for n, _ in nm) or spec
            ts = ", ".join(f"{t:.2f}" for _, t in nm if t is not None)
            pct = lambda v: "-" if v is None else f"{v:.0f}"   # noqa: E731
            stall = lambda s: s["stalls"][0][0].replace("_", " ") if s["stalls"] else "-"   # noqa: E731
            print(f"| {label} ({spec}) | {ts} | {c['time_ns'] / f['time_ns']:.2f} | {plan} | "
                  f"{f['time_ns'] / 1e3:.1f} ({f['kernels']}) | {c['time_ns'] / 1e3:.1f} | "
                  f"{pct(f['dram_pct'])} / {pct(c['dram_pct'])} | {pct(f['tensor_pct'])} / {pct(c['tensor_pct'])} | "
                  f"{pct(f['sm_pct'])} / {pct(c['sm_pct'])} | {f['inst'] / 1e6:.2f} M / {c['inst'] / 1e6:.2f} M | "
                  f"{stall(f)} / {stall(c)} | {why} |")
    print()
    print("causes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("select")
    s.add_argument("corpus")
    s.add_argument("--below", type=float, default=0.9)
    s.set_defaults(fn=cmd_select)
    r = sub.add_parser("run")
    r.add_argument("problems")
    r.add_argument("--out", required=True)
    r.add_argument("--chunk", type=int, default=8)
    r.add_argument("--deadline", type=float, default=400.0, help="no chunk starts after this many seconds")
    r.add_argument("--timeout", type=float, default=240.0, help="seconds one ncu process may take")
    r.set_defaults(fn=cmd_run)
    t = sub.add_parser("table")
    t.add_argument("dir")
    t.add_argument("--corpus")
    t.set_defaults(fn=cmd_table)
    args = ap.parse_args(argv)
    args.fn(args)


if __name__ == "__main__":
    main()
