#!/usr/bin/env python3
"""The call-overhead table of issue 26 (needs a Hopper GPU and torch).

    python benchmarks/gpu_callpath.py [--out DIR]

Runs ``benchmarks/bench_gpu_callpath.py`` under pytest-benchmark (host microseconds per call of
each path beside torch's, in one process), then times the first call on new shapes whose cubin
is already on disk (the in-process caches cleared: the plan is chosen, the cubin read and loaded,
the call prepared) and prints one table; JSON goes to ``DIR/callpath.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def first_calls():
    import torch

    import fastswz.cuda as fc

    shapes = [(1000, 3000, 512), (2000, 1500, 768), (333, 4096, 1024), (4096, 1024, 2048)]
    rows = []
    for m, n, k in shapes:   # fill the disk cache, then forget everything in-process
        a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        b = torch.randn(n, k, device="cuda").to(torch.bfloat16).t()
        fc.gemm(a, b)
    torch.cuda.synchronize()
    for loaded in (False, True):
        for m, n, k in shapes:
            # a new problem: its plan and call are unknown; its kernel is on disk only
            # (loaded=False) or already loaded by an earlier call of another shape (True)
            fc._CALLS.clear()
            fc.choose_plan.cache_clear()
            if not loaded:
                fc._KERNELS.clear()
            a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
            b = torch.randn(n, k, device="cuda").to(torch.bfloat16).t()
            torch.cuda.synchronize()
            t = [time.perf_counter()]
            for _ in range(3):
                d = fc.gemm(a, b)
                t.append(time.perf_counter())
            torch.cuda.synchronize()
            ref = a.double() @ b.double()
            err = float((d.double() - ref).norm() / ref.norm())
            rows.append({"shape": [m, n, k], "kernel_loaded": loaded, "first_us": (t[1] - t[0]) * 1e6,
                         "second_us": (t[2] - t[1]) * 1e6, "third_us": (t[3] - t[2]) * 1e6,
                         "fast_path": fc._torch_key(a, b, None, None) in fc._CALLS, "rel_err": err})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/fastswz-callpath"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bj = out / "callpath-benchmark.json"
    rc = subprocess.call([sys.executable, "-m", "pytest", str(ROOT / "benchmarks" / "bench_gpu_callpath.py"),
                          "-q", "-p", "no:cacheprovider", "--benchmark-json", str(bj),
                          "--benchmark-columns=min,median,mean,stddev,rounds"], cwd=ROOT)
    if rc != 0 or not bj.exists():
        print(f"the benchmark run failed (pytest exit status {rc})")
        return rc or 1
    data = json.loads(bj.read_text())
    import torch

    import fastswz.cuda as fc

    table = []
    for b in data["benchmarks"]:
        calls = b["extra_info"]["calls"]
        table.append((b["extra_info"]["impl"], b["stats"]["median"] / calls * 1e6,
                      b["stats"]["min"] / calls * 1e6))
    firsts = first_calls()
    dev = fc.device_info(0)
    result = {"device": dev, "torch": torch.__version__, "per_call_us": table, "first_calls": firsts}
    (out / "callpath.json").write_text(json.dumps(result, indent=1))
    print(f"\nhost time per call, 256x256x256 bf16 (rowwise rows: e4m3 16x256x256, split rows 16x2048x7168), "
          f"{dev['name']} ({dev['sms']} SMs), torch {torch.__version__}")
    print(f"{'path':16s} {'median us':>10s} {'min us':>8s}")
    for impl, med, mn in table:
        print(f"{impl:16s} {med:10.2f} {mn:8.2f}")
    print("\nfirst calls on a new shape (plan memo and prepared calls cleared)")
    for r in firsts:
        where = "kernel loaded " if r["kernel_loaded"] else "cubin on disk "
        print(f"  {where}{r['shape']}: first {r['first_us'] / 1000:.2f} ms, then {r['second_us']:.1f} "
              f"and {r['third_us']:.1f} us (fast path {r['fast_path']}), rel err {r['rel_err']:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
