#!/usr/bin/env python3
"""Where a plan's consumer warpgroups spend their time (GPU machine): a traced build (FSW_TRACE,
sm90/debug.cuh) records the SM clock at six points of each unit's consumer loop in the first
CTAs, and this prints per plan the median cycles of each phase and, for ping-pong plans, how
much of one warpgroup's epilogue ran under the other's main loop.

    python3 tests/gpu/gemm/trace.py [--cases FILE] [--precompile] [--ctas N]

FILE (default ncu_plans.json beside this script) lists {"name", "shape": [M, N, K], "plan"} and,
optionally, "defines" (a kernel variant's, both builds: traced and untraced).
Phases per unit: order (waiting for the other ping-pong warpgroup), first (waiting for the
unit's first stage), loop (issuing the k-tiles' wgmma), drain (the last wgmma), epilogue
(storing D), gap (to the next unit). Cycles are the SM's own clock (clock64).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))

EVENTS = 8          # kTraceEvents
UNITS = 64          # kTraceUnits
PHASES = ("order", "first", "loop", "drain", "epilogue")


def trace(cfg, m, n, k, ctas, defines=None):
    from fastswz.cuda import runtime as rt
    from fastswz.cuda.runtime import GemmKernel, compile_cubin
    cubin, key = compile_cubin(cfg, defines={**(defines or {}), "FSW_TRACE": ctas})
    kern = GemmKernel(cfg, cubin, key)
    drv = rt.driver()
    words = ctas * 2 * UNITS * EVENTS
    buf = rt._alloc(words * 8)
    kern._function()   # loads the module
    g, _ = rt._check(drv.cuModuleGetGlobal(kern._load(rt.current_device())[0], b"fsw_trace_out"), "cuModuleGetGlobal")
    runs = []
    for _ in range(3):   # the last of three launches (the first two warm up)
        rt._check(drv.cuMemsetD8(buf, 0, words * 8), "memset")
        hv = ctypes.c_uint64(int(buf))
        rt._check(drv.cuMemcpyHtoD(g, ctypes.addressof(hv), 8), "set fsw_trace_out")
        t = kern.time(m, n, k, warmup=0, reps=1)
        out = np.empty(words, np.uint64)
        rt._check(drv.cuMemcpyDtoH(out.ctypes.data, buf, words * 8), "d2h")
        runs.append((t, out.reshape(ctas, 2, UNITS, EVENTS).astype(np.int64)))
    plain = GemmKernel(cfg, *compile_cubin(cfg, defines=defines or None)).time(m, n, k, reps=10)
    return runs[-1], plain


def summarize(name, tr, ctas, pingpong):
    per = {p: [] for p in PHASES + ("gap",)}
    under = []
    for c in range(ctas):
        for w in range(2):
            ev = tr[c, w]
            units = [u for u in range(UNITS) if ev[u, 5] > 0]
            for u in units:
                e = ev[u]
                for i, p in enumerate(PHASES):
                    per[p].append(e[i + 1] - e[i])
                if u + 1 in units:
                    per["gap"].append(ev[u + 1, 0] - e[5])
                if pingpong:   # this epilogue [MmaDone, Stored) under the other's [FirstFull, MmaDone)
                    o = tr[c, 1 - w]
                    lo, hi = e[4], e[5]
                    cover = 0
                    for v in range(UNITS):
                        if o[v, 5] > 0:
                            cover += max(0, min(hi, o[v, 4]) - max(lo, o[v, 2]))
                    under.append(cover / max(1, hi - lo))
    med = {p: float(np.median(v)) if v else float("nan") for p, v in per.items()}
    line = " ".join(f"{p} {med[p]:7.0f}" for p in PHASES + ("gap",))
    extra = f" | epilogue under the other's main loop {100 * np.median(under):5.1f}%" if pingpong else ""
    print(f"{name:<36} {line}{extra}", flush=True)
    return med, (float(np.median(under)) if under else None)


def spans(tr, ctas):
    """Across the traced CTAs (%globaltimer ns of warpgroup 0): the start skew, the median
    CTA's time in its consumer loop, and first start to last end."""
    st = np.array([tr[c, 0, 0, 6] for c in range(ctas) if tr[c, 0, 0, 6] > 0], dtype=np.int64)
    en = np.array([tr[c, 0, 0, 7] for c in range(ctas) if tr[c, 0, 0, 6] > 0], dtype=np.int64)
    if st.size == 0:
        return None
    out = {"ctas": int(st.size), "start_skew_ns": int(st.max() - st.min()),
           "median_cta_ns": float(np.median(en - st)), "span_ns": int(en.max() - st.min())}
    # the whole kernel: entry (unit 1's event 6) to exit (unit 1's event 7), and D's last stores
    # done (unit 2's event 6), against the first entry; each over the CTAs that recorded it
    def recorded(unit, event):
        v = tr[:ctas, 0, unit, event]
        return v[v > 0]

    ent, ex, fin = recorded(1, 6), recorded(1, 7), recorded(2, 6)
    if ent.size and ex.size and fin.size:
        out.update({"entry_skew_ns": int(ent.max() - ent.min()), "loop_start_after_entry_ns": int(st.min() - ent.min()),
                    "stores_done_ns": int(fin.max() - ent.min()), "exit_ns": int(ex.max() - ent.min())})
    print("   consumer loops (globaltimer): " + ", ".join(f"{k} {v}" for k, v in out.items()))
    return out


def timeline(tr, cta=0, units=6):
    base = min(int(x) for x in tr[cta, :, :, :6].reshape(-1) if x > 0)
    for w in range(2):
        ev = tr[cta, w]
        cells = []
        for u in range(units):
            if ev[u, 5] == 0:
                break
            e = ev[u] - base
            cells.append(f"u{u}[{e[0]}|{e[1]}|{e[2]}..{e[3]}|{e[4]}..{e[5]}]")
        print(f"   CTA {cta} warpgroup {w}: " + " ".join(cells))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default=os.path.join(HERE, "ncu_plans.json"))
    ap.add_argument("--precompile", action="store_true")
    ap.add_argument("--ctas", type=int, default=8)
    args = ap.parse_args()
    from fastswz.cuda.codegen import normalize_config
    from fastswz.cuda.runtime import compile_cubin
    cases = json.load(open(args.cases))
    if args.precompile:
        for c in cases:
            cfg = normalize_config(c["plan"])
            compile_cubin(cfg, defines={**c.get("defines", {}), "FSW_TRACE": args.ctas})
            compile_cubin(cfg, defines=c.get("defines") or None)
        print(f"compiled {2 * len(cases)} cubins")
        return
    rows = []
    for c in cases:
        cfg = normalize_config(c["plan"])
        m, n, k = c["shape"]
        (t, tr), plain = trace(cfg, m, n, k, args.ctas, c.get("defines"))
        med, under = summarize(c["name"], tr, args.ctas, bool(cfg.get("pingpong")))
        print(f"   traced launch {t['median_ms'] * 1e3:.1f} us, untraced build {plain['median_ms'] * 1e3:.1f} us")
        sp = spans(tr, args.ctas)
        timeline(tr)
        rows.append({"name": c["name"], "shape": c["shape"], "plan": c["plan"], "defines": c.get("defines"), "median_cycles": med, "spans": sp,
                     "epilogue_under_other_mainloop": under, "traced_us": t["median_ms"] * 1e3,
                     "untraced_us": plain["median_ms"] * 1e3, "trace_cta0": tr[0].tolist(),
                     "cta_ns": [[int(tr[i, 0, 0, 6]), int(tr[i, 0, 0, 7])] for i in range(args.ctas)]})
    out = os.environ.get("OUT")
    if out:
        name = os.path.splitext(os.path.basename(args.cases))[0]
        json.dump(rows, open(os.path.join(out, f"trace-{name}.json"), "w"))


if __name__ == "__main__":
    main()
