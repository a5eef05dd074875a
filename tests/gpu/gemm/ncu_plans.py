#!/usr/bin/env python3
"""Nsight Compute on named plans (GPU machine): where a plan's time goes, beside the others.

    python3 tests/gpu/gemm/ncu_plans.py [--cases FILE] [--precompile] [--clock none] [--sass DIR]

FILE (default ncu_plans.json beside this script) lists {"name", "shape": [M, N, K], "plan"} (and
"defines", the kernel's, where a case needs any).
Per case: GemmKernel.time (20 launches, median) without the profiler, then one launch under
``ncu`` (the third, after two warm-ups: ``tests/gpu/gemm/ncu_case.py``) with the sections and
metrics below; the table at the end has one row per case: kernel time, tensor-pipe activity,
shared-memory (MIO) and L2 throughput, the SM clock, and the three largest warp stall reasons.
``--clock none`` profiles at the clocks the GPU runs at (ncu's default locks them to base);
``--sass DIR`` also writes, per case, ncu's SASS page with the warp-stall samples of every
instruction (DIR/<case>.csv) and prints the instructions with the most samples.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "..", "src")
sys.path.insert(0, SRC)

METRICS = [
    "gpu__time_duration.sum",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__cycles_elapsed.avg.per_second",
    "smsp__inst_executed.sum",
    "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes_read.sum",
    "lts__t_sector_hit_rate.pct",
]
STALLS = ["gmma", "long_scoreboard", "barrier", "membar", "wait", "math_pipe_throttle", "mio_throttle", "lg_throttle",
          "short_scoreboard", "sleeping", "dispatch_stall", "no_instruction", "selected", "not_selected",
          "branch_resolving", "drain", "imc_miss", "tex_throttle", "misc"]
STALL_METRICS = [f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS]


def _top_sass(text, name, top=25):
    """The instructions with the most warp-stall samples in ncu's SASS page (CSV: a kernel-name
    row, then a header row starting "Address", then one row per instruction)."""
    rows = list(csv.reader(io.StringIO("\n".join(ln for ln in text.splitlines() if ln.startswith('"')))))
    head = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if head is None:
        print(f"{name}: no SASS page ({text[-300:]})")
        return
    hdr = rows[head]
    src, col = hdr.index("Source"), hdr.index("Warp Stall Sampling (All Samples)")
    data = []
    for r in rows[head + 1:]:
        try:
            data.append((float(r[col].replace(",", "") or 0), r[0], r[src]))
        except (ValueError, IndexError):
            pass
    total = sum(d[0] for d in data) or 1.0
    print(f"-- {name}: {len(data)} SASS instructions, {total:.0f} stall samples; the top {top}:")
    for v, addr, ins in sorted(data, reverse=True)[:top]:
        print(f"   {100 * v / total:5.1f}%  {addr}  {ins}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default=os.path.join(HERE, "ncu_plans.json"))
    ap.add_argument("--precompile", action="store_true")
    ap.add_argument("--clock", choices=("base", "none"), default="base")
    ap.add_argument("--sass", default=None)
    args = ap.parse_args()
    cases = json.load(open(args.cases))
    from fastswz.cuda.codegen import normalize_config
    from fastswz.cuda.runtime import compile_cubin
    if args.precompile:
        for c in cases:
            compile_cubin(normalize_config(c["plan"]), defines=c.get("defines"))
        print(f"compiled {len(cases)} plans")
        return
    from fastswz.cuda.runtime import GemmKernel
    rows = []
    for c in cases:
        cfg = normalize_config(c["plan"])
        m, n, k = c["shape"]
        cubin, key = compile_cubin(cfg, defines=c.get("defines"))
        t = GemmKernel(cfg, cubin, key).time(m, n, k, reps=20)
        case = [sys.executable, os.path.join(HERE, "ncu_case.py"), json.dumps(c["plan"]), str(m), str(n), str(k)]
        if c.get("defines"):
            case.append(json.dumps(c["defines"]))
        common = ["ncu", "--clock-control", args.clock, "-k", "regex:fastswz", "--launch-skip", "2",
                  "--launch-count", "1"]
        if args.sass:
            os.makedirs(args.sass, exist_ok=True)
            q = subprocess.run(common + ["--section", "SourceCounters", "--page", "source", "--print-source", "sass",
                                         "--csv"] + case, capture_output=True, text=True)
            name = "".join(ch if ch.isalnum() else "_" for ch in c["name"])
            open(os.path.join(args.sass, name + ".csv"), "w").write(q.stdout)
            _top_sass(q.stdout, c["name"])
        cmd = common + ["--csv", "--page", "raw", "--metrics", ",".join(METRICS + STALL_METRICS)] + case
        p = subprocess.run(cmd, capture_output=True, text=True)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith('"')]
        if len(lines) < 3:   # a metric this ncu lacks fails the whole run: once more with the basic ones
            print(f"{c['name']}: ncu failed (exit {p.returncode}): {p.stdout[-300:]} {p.stderr[-300:]}")
            cmd[cmd.index("--metrics") + 1] = ",".join(METRICS[:2] + STALL_METRICS)
            p = subprocess.run(cmd, capture_output=True, text=True)
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith('"')]
        vals = {}
        if len(lines) >= 3:
            rd = list(csv.reader(io.StringIO("\n".join(lines))))
            hdr, data = rd[0], rd[-1]
            vals = dict(zip(hdr, data))
        else:
            print(f"{c['name']}: ncu gave no rows (exit {p.returncode}): {p.stderr[-400:]}")

        def num(key):
            try:
                return float(str(vals.get(key, "nan")).replace(",", ""))
            except ValueError:
                return float("nan")
        stalls = sorted(((num(sm), s) for sm, s in zip(STALL_METRICS, STALLS)), reverse=True)[:4]
        row = {"name": c["name"], "shape": c["shape"], "plan": c["plan"], "time_ms": t["median_ms"],
               "tflops": t["tflops"], "ncu": {kk: num(kk) for kk in METRICS + STALL_METRICS}}
        rows.append(row)
        print(f"{c['name']:<34} {t['median_ms'] * 1e3:8.1f} us {t['tflops']:7.1f} TF | ncu "
              f"{num(METRICS[0]) / 1e3:8.1f} us gmma {num(METRICS[1]):5.1f}% smem-lsu {num(METRICS[2]):5.1f}% "
              f"l1 {num(METRICS[3]):5.1f}% l2 {num(METRICS[4]):5.1f}% dram {num(METRICS[5]):5.1f}% "
              f"clk {num(METRICS[6]) / 1e9:4.2f} GHz inst {num(METRICS[7]) / 1e6:7.2f}M "
              f"bank rd {num(METRICS[8]):5.1f}% wr {num(METRICS[9]):5.1f}% dram read {num(METRICS[10]) / 1e6:7.1f} MB "
              f"L2 hit {num(METRICS[11]):5.1f}% | stalls "
              + " ".join(f"{s}={v:.2f}" for v, s in stalls), flush=True)
    out = os.environ.get("OUT")
    if out:
        json.dump(rows, open(os.path.join(out, "ncu_plans.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
