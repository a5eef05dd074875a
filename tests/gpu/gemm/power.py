#!/usr/bin/env python3
"""Clocks and power under a GEMM: is a plan power-limited? For each ``MxNxK:dtype[:FUSION-JSON]``
spec (gemm()'s default plan, as ab_defines.py's specs; VARIANTS-JSON as ab_configs.py's), the
kernel launched back to back for about ``--seconds`` (no L2 flush: the sustained rate), with
``nvidia-smi`` sampling the SM clock, power draw and the active clock-throttle reasons every 50
ms; printed: microseconds per launch (CUDA events around the whole run), TFLOP/s, the median
SM clock and power of the samples taken while it ran, and the throttle reasons seen.

    FASTSWZ_CACHE=.fswcache python3 tests/gpu/gemm/power.py 'VARIANTS-JSON' SPEC ... [--seconds 2]
PRECOMPILE=1 compiles every variant and exits (no GPU).
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_defines import default_plans  # noqa: E402
from fastswz.cuda import normalize_config  # noqa: E402
from fastswz.cuda.runtime import (GemmKernel, _check, _fusion_buffers, _lds, _problem_buffers,  # noqa: E402
                                  compile_cubin, driver)

args = sys.argv[1:]
seconds = 2.0
if "--seconds" in args:
    i = args.index("--seconds")
    seconds = float(args[i + 1])
    del args[i:i + 2]
variants = [{}] + json.loads(args[0])
runs = []
for m, n, k, dt, base in default_plans(args[1:]):
    for v in variants:
        c = normalize_config(dict(base, **{k_: x for k_, x in v.items() if k_ != "defines"}))
        runs.append((m, n, k, dt, json.dumps(v, separators=(",", ":")) if v else "default", c, v.get("defines")))
if os.environ.get("PRECOMPILE"):
    for *_, c, d in runs:
        compile_cubin(c, defines=d)
    sys.exit()

QUERY = "clocks.sm,power.draw,clocks_throttle_reasons.active"
drv = driver()
for m, n, k, dt, name, c, d in runs:
    kern = GemmKernel(c, *compile_cubin(c, defines=d))
    bufs = _problem_buffers(c, m, n, k, 0)
    go = kern._prepare(*bufs, m, n, k, *_lds(c, m, n, k), **_fusion_buffers(c, m, n, k, 0))
    for _ in range(20):
        go()
    _check(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    t0 = time.time()
    for _ in range(20):
        go()
    _check(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    reps = max(20, int(seconds / max((time.time() - t0) / 20, 1e-6)))
    smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits", "-lms", "50"],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    start = _check(drv.cuEventCreate(0), "cuEventCreate")
    stop = _check(drv.cuEventCreate(0), "cuEventCreate")
    _check(drv.cuEventRecord(start, 0), "cuEventRecord")
    launched = time.time()
    for _ in range(reps):
        go()
    _check(drv.cuEventRecord(stop, 0), "cuEventRecord")
    _check(drv.cuEventSynchronize(stop), "cuEventSynchronize")
    ended = time.time()
    ms = float(_check(drv.cuEventElapsedTime(start, stop), "cuEventElapsedTime"))
    time.sleep(0.1)
    smi.terminate()
    out = smi.communicate()[0].strip().splitlines()
    # the samples while the launches ran: those after the first 0.3 s of idle lead-in and before
    # the end (50 ms apart)
    lead = int(0.3 / 0.05)
    busy = out[lead:lead + max(1, int((ended - launched) / 0.05))]
    clk = sorted(float(x.split(",")[0]) for x in busy if x.count(",") == 2)
    pw = sorted(float(x.split(",")[1]) for x in busy if x.count(",") == 2)
    reasons = sorted({x.split(",")[2].strip() for x in busy if x.count(",") == 2})
    us = ms * 1e3 / reps
    print(f"{m}x{n}x{k} {dt} {name}: {us:.1f} us/launch ({2e-6 * m * n * k / us:.0f} TFLOP/s) over {reps} launches; "
          f"SM clock median {clk[len(clk) // 2] if clk else float('nan'):.0f} MHz (min {clk[0] if clk else 0:.0f}), "
          f"power median {pw[len(pw) // 2] if pw else float('nan'):.0f} W (max {pw[-1] if pw else 0:.0f}), "
          f"throttle reasons {reasons}; {len(clk)} samples", flush=True)
    drv.cuEventDestroy(start)
    drv.cuEventDestroy(stop)
