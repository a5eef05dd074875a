#!/usr/bin/env python3
"""The table of ncu_pair.py's CSV (``ncu --csv --page details``): one line per kernel.

    python3 tests/gpu/gemm/ncu_table.py ncu_pair.csv
"""
import csv
import sys

COLUMNS = [("Duration", "time"), ("DRAM Throughput", "DRAM%"), ("Memory Throughput", "mem%"),
           ("L2 Cache Throughput", "L2%"), ("Compute (SM) Throughput", "SM%"),
           ("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active", "gmma%"),
           ("Achieved Occupancy", "occ%"), ("Warp Cycles Per Issued Instruction", "cyc/issue"),
           ("dram__bytes_read.sum", "DRAM rd")]


def table(path):
    rows = list(csv.reader(open(path)))
    problems = [r[0].split("ncu_pair: ", 1)[1] for r in rows if r and r[0].startswith("ncu_pair: ")]
    hdr = next(r for r in rows if r and r[0] == "ID")
    kernels = {}
    for r in rows:
        if len(r) < 15 or r[0] == "ID" or not r[0].isdigit():
            continue
        d = dict(zip(hdr, r))   # metric rows end after the value; rule rows carry 4 more fields
        k = kernels.setdefault(int(d["ID"]), {"name": d["Kernel Name"], "grid": d["Grid Size"], "m": {}})
        if d["Metric Name"]:
            k["m"][d["Metric Name"]] = f"{d['Metric Value']} {d['Metric Unit']}".strip()
    out = ["kernel | grid | " + " | ".join(c for _, c in COLUMNS)]
    p = -1
    for i in sorted(kernels):
        k = kernels[i]
        if k["name"].startswith("fastswz_gemm"):
            p += 1
            out.append(f"-- {problems[p] if p < len(problems) else '?'}")
        out.append(f"{k['name'][:48]} | {k['grid']} | " + " | ".join(k["m"].get(m, "-") for m, _ in COLUMNS))
    return "\n".join(out)


if __name__ == "__main__":
    print(table(sys.argv[1]))
