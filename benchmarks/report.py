"""Run the fastswz benchmark suite in timed mode and print one ratio table.

Usage::

    python benchmarks/report.py                 # full ladder, 1e3 .. 1.6e7 elements (~15 min)
    python benchmarks/report.py --quick         # CI: small ladder, few rounds (< 3 min on 2 cores)
    python benchmarks/report.py --json PATH     # where the pytest-benchmark JSON goes
    python benchmarks/report.py --from-json PATH [PATH ...]  # only print the table (merged)
    python benchmarks/report.py -- -k tile_addresses         # extra pytest arguments after --

The JSON (pytest-benchmark's ``--benchmark-json``, per-round samples dropped, the CPU, load
average and command added under ``"fastswz"``) goes to ``.benchmarks/latest.json`` unless
``--json`` says otherwise (``.benchmarks/`` is git-ignored). pytest's own output goes to the
same path with ``.log`` appended. The exit status is pytest's: non-zero only when a benchmark
errors or a result differs from the numpy twin; a missed timing target never fails the run.

Every time in the table is the *minimum* over rounds of pytest-benchmark's per-round mean (the
best estimate of the cost on a machine shared with other work). Columns, per operation and size:

* ``twin``, ``core``: time of ``fastswz.reference.f`` and of ``fastswz.f``;
* ``twin/core``: the speedup of the core over the numpy twin (bottleneck's "speed");
* ``core elem/s``: elements produced per second by the core;
* ``core/SoL``: core throughput / speed-of-light throughput (``out.fill(1)`` into a preallocated
  output of the result's dtype and size); ``/SoL+alloc`` the same against
  ``np.empty(...).fill(1)``, which also pays for a fresh output as the API does;
* ``2 thr``: one-thread core time / two-thread core time (``threads=2``);
* ``out=/SoL``, ``2 thr out=``: the same with a caller-owned ``out=`` buffer reused across calls
  (rows ``core_out``, ``core_t2_out``); the targets are also checked on these, marked "(out=)";
* a twin timed only at smaller sizes (tile_configs: a Python loop) is extrapolated per element
  from its largest timed size, marked "~";
* ``others``: the pycute-style Python loop and the CuTe C++ peer, as time and core-time ratio;
* ``targets``: PASS/MISS against the targets of issues 4, 12 and 14 (see ``TARGETS``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / ".benchmarks" / "latest.json"

#: The targets, checked on one run's ratios.
TWIN_MIN_N = 10**6          # array ops at >= 1e6 elements ...
TWIN_SPEEDUP = 10.0         # ... run >= 10x faster than the numpy twin
SOL_FRACTION = 0.35         # tile address map out of cache: >= 0.35x speed of light
THREADS_N = 16 * 10**6      # tile_addresses at >= 1.6e7 elements ...
THREADS_SPEEDUP = 1.6       # ... on 2 threads >= 1.6x one thread,
AT_SOL = 0.8                # ... unless one thread already runs at >= 0.8x speed of light
SCALAR_MAX_S = 2e-6         # one descriptor / one decode <= 2 us
RATE_MIN_N = 1 << 18        # issue 14 part 4, throughput targets at >= 2.6e5 elements:
COORDS_RATE = 1e9           # tile_coords >= 1 G addresses/s while input and output fit the LLC
PACK_RATE = 1e9             # pack_smem_descriptors >= 1 G descriptors/s
CONFIGS_RATE = 5e6          # tile_configs >= 5 M configurations/s
TARGETS = f"""targets: array ops at n >= 1e6: twin/core >= {TWIN_SPEEDUP:g}x (a miss shows the ceiling
twin/SoL+alloc: the twin's time over a fresh fill of the output); tile_addresses with an
output larger than the last-level cache: core/SoL >= {SOL_FRACTION}; tile_addresses at n >= 1.6e7:
2-thread speedup >= {THREADS_SPEEDUP}x or core/SoL >= {AT_SOL}; scalar descriptor/decode <= 2 us;
at n >= 2**18: tile_coords >= {COORDS_RATE / 1e9:g} G/s in cache (best of core, out=, int32 out=),
pack_smem_descriptors >= {PACK_RATE / 1e9:g} G/s, tile_configs >= {CONFIGS_RATE / 1e6:g} M/s."""

TWIN_OPS = ("tile_addresses", "tile_coords", "evaluate", "evaluate_at", "swizzle_offsets",
            "pack_smem_descriptors", "unpack_smem_descriptors", "tile_configs", "plan_gemm",
            "plan_gemm_random", "bank_wavefronts")


def llc_bytes() -> int:
    """Size of the largest CPU cache (sysfs), default 32 MiB."""
    best = 0
    for p in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        txt = p.read_text().strip()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(txt[-1:], 1)
        try:
            best = max(best, int(txt.rstrip("KMG")) * mult)
        except ValueError:
            pass
    return best or 32 << 20


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return platform.processor() or "unknown CPU"
    info = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    model = info.get("Model name", "").strip() or platform.processor()
    return f"{model}, {os.cpu_count()} logical CPUs"


def fmt_time(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_rate(x):
    if x is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.3g}{unit}"
    return f"{x:.3g}"


def fmt_ratio(x, digits=3):
    return "-" if x is None else f"{x:.{digits}g}x"


def run_suite(json_path: Path, quick: bool, extra) -> int:
    json_path.parent.mkdir(parents=True, exist_ok=True)
    timing = (["--benchmark-min-rounds=3", "--benchmark-max-time=0.05"] if quick else
              ["--benchmark-min-rounds=5", "--benchmark-max-time=0.5"])
    cmd = [sys.executable, "-m", "pytest", str(ROOT / "benchmarks"), "-p", "no:cacheprovider",
           "-q", "--benchmark-only", "--benchmark-quiet", "--benchmark-disable-gc",
           "--benchmark-group-by=group", "--benchmark-sort=name", f"--benchmark-json={json_path}",
           f"--fastswz-sizes={'quick' if quick else 'full'}", *timing, *extra]
    log = json_path.with_name(json_path.name + ".log")
    print(f"running: {' '.join(cmd[1:])}\n(pytest output -> {log})", file=sys.stderr, flush=True)
    with open(log, "w") as fh:
        proc = subprocess.run(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)
    tail = log.read_text().splitlines()[-25:]
    if proc.returncode != 0:
        print("\n".join(tail), file=sys.stderr)
    else:
        print(tail[-1] if tail else "", file=sys.stderr)
    return proc.returncode


def load_rows(json_paths):
    """Merge the rows of one or more pytest-benchmark JSON files (later files win)."""
    groups = defaultdict(dict)
    data = {}
    benches = []
    for path in json_paths:
        data = json.loads(Path(path).read_text())
        benches += data["benchmarks"]
    for b in benches:
        info = b["extra_info"]
        groups[(info["op"], info["n"])][info["impl"]] = dict(
            min=b["stats"]["min"], median=b["stats"]["median"], rounds=b["stats"]["rounds"],
            out_bytes=info.get("out_bytes", 0))
    return data, groups


def _base(op):
    return op.split("[", 1)[0]


def table(groups, llc):
    head = ["op", "n", "twin", "core", "twin/core", "core elem/s", "core/SoL", "/SoL+alloc",
            "2 thr", "out=/SoL", "2 thr out=", "others", "targets"]
    # Twins too slow to time at every size (tile_configs: a Python loop) get an estimate from
    # their largest timed size, per element, marked "~".
    twin_rate = {}
    for (op, n), rows in groups.items():
        if "twin" in rows and n > twin_rate.get(op, (0, 0))[0]:
            twin_rate[op] = (n, rows["twin"]["min"] / n)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    misses = []
    order = sorted(groups, key=lambda k: (_base(k[0]) not in TWIN_OPS, _base(k[0]), k[0], k[1]))
    for (op, n) in order:
        rows = groups[(op, n)]
        t = {k: v["min"] for k, v in rows.items()}
        core = t.get("core")
        scalar = core is None and n == 1
        if scalar:
            for impl, s in sorted(t.items()):
                ok = s <= SCALAR_MAX_S
                verdict = f"{'PASS' if ok else 'MISS'} <= 2 us"
                if not ok:
                    misses.append(f"{op}: {impl} {fmt_time(s)} > 2 us")
                lines.append(f"| {op}: {impl} | 1 | - | {fmt_time(s)} | - | {fmt_rate(1 / s)} "
                             f"| - | - | - | - | - | - | {verdict} |")
            continue
        twin, sol, sola, t2 = t.get("twin"), t.get("sol"), t.get("sol_alloc"), t.get("core_t2")
        c_out, t2_out = t.get("core_out"), t.get("core_t2_out")
        est = twin is None and op in twin_rate and core is not None
        if est:
            twin = twin_rate[op][1] * n
        r_twin = twin / core if twin and core else None
        r_sol = sol / core if sol and core else None
        r_sola = sola / core if sola and core else None
        r_t2 = core / t2 if t2 and core else None
        r_sol_out = sol / c_out if sol and c_out else None
        r_t2_out = c_out / t2_out if t2_out and c_out else None
        others = []
        if "py_loop" in t:
            others.append(f"py loop {fmt_time(t['py_loop'])} ({t['py_loop'] / core:.0f}x core)")
        if "cute_cpp" in t:
            others.append(f"CuTe C++ {fmt_time(t['cute_cpp'])} ({t['cute_cpp'] / core:.2g}x core)")
        verdicts = []
        out_bytes = rows.get("core", {}).get("out_bytes", 0)
        if _base(op) in TWIN_OPS and n >= TWIN_MIN_N and r_twin is not None:
            label = f"twin>={TWIN_SPEEDUP:g}x" + (" (twin estimated)" if est else "")
            ceiling = f", ceiling twin/SoL+alloc {twin / sola:.3g}x" if sola and twin else ""
            verdicts.append(_verdict(r_twin >= TWIN_SPEEDUP, label, op, n,
                                     f"twin/core {r_twin:.3g}x{ceiling}", misses))
        if n >= RATE_MIN_N and core is not None:
            rate_target = {"tile_coords": COORDS_RATE, "pack_smem_descriptors": PACK_RATE,
                           "tile_configs": CONFIGS_RATE}.get(_base(op))
            in_bytes = 4 * n if _base(op) == "tile_coords" else 0
            if rate_target and (_base(op) != "tile_coords" or in_bytes + out_bytes <= llc):
                best = min((t[k], k) for k in ("core", "core_out", "core_out32") if k in t)
                rate = n / best[0]
                label = f">={fmt_rate(rate_target)}/s" + (f" ({best[1]})" if best[1] != "core" else "")
                verdicts.append(_verdict(rate >= rate_target, label, op, n,
                                         f"{fmt_rate(rate)}/s ({best[1]})", misses))
        if _base(op) == "tile_addresses" and out_bytes > llc and r_sol is not None:
            verdicts.append(_verdict(r_sol >= SOL_FRACTION, f"SoL>={SOL_FRACTION}", op, n,
                                     f"core/SoL {r_sol:.3g}", misses))
        if _base(op) == "tile_addresses" and n >= THREADS_N and r_t2 is not None:
            ok = r_t2 >= THREADS_SPEEDUP or (r_sol or 0) >= AT_SOL
            verdicts.append(_verdict(ok, f"2thr>={THREADS_SPEEDUP}x", op, n,
                                     f"2-thread speedup {r_t2:.3g}x, core/SoL {r_sol:.3g}", misses))
        # The same two targets with a reused out= buffer (informational: no page faults).
        if _base(op) == "tile_addresses" and out_bytes > llc and r_sol_out is not None:
            verdicts.append(_verdict(r_sol_out >= SOL_FRACTION, f"SoL>={SOL_FRACTION} (out=)", op,
                                     n, f"core(out=)/SoL {r_sol_out:.3g}", misses))
        if _base(op) == "tile_addresses" and n >= THREADS_N and r_t2_out is not None:
            ok = r_t2_out >= THREADS_SPEEDUP or (r_sol_out or 0) >= AT_SOL
            verdicts.append(_verdict(ok, f"2thr>={THREADS_SPEEDUP}x (out=)", op, n,
                                     f"2-thread speedup (out=) {r_t2_out:.3g}x, core(out=)/SoL "
                                     f"{r_sol_out:.3g}", misses))
        lines.append(
            f"| {op} | {n} | {'~' if est else ''}{fmt_time(twin)} | {fmt_time(core)} "
            f"| {'~' if est else ''}{fmt_ratio(r_twin)} "
            f"| {fmt_rate(n / core) if core else '-'} | {fmt_ratio(r_sol, 2)} "
            f"| {fmt_ratio(r_sola, 2)} "
            f"| {fmt_ratio(r_t2, 2)} | {fmt_ratio(r_sol_out, 2)} | {fmt_ratio(r_t2_out, 2)} "
            f"| {'; '.join(others) or '-'} | {'; '.join(verdicts) or '-'} |")
    return lines, misses


def _verdict(ok, label, op, n, detail, misses):
    if not ok:
        misses.append(f"{op} n={n}: {detail} ({label})")
    return f"{'PASS' if ok else 'MISS'} {label}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, few rounds (CI; about 3 minutes on 2 cores)")
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON,
                    help=f"pytest-benchmark JSON output (default {DEFAULT_JSON.relative_to(ROOT)})")
    ap.add_argument("--from-json", type=Path, nargs="+",
                    help="print the table of earlier run(s), merged; run nothing")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = ap.parse_args(argv)
    rc = 0
    json_paths = args.from_json or [args.json]
    if args.from_json is None:
        load0 = os.getloadavg()
        rc = run_suite(args.json, args.quick, args.pytest_args)
        if not args.json.is_file():
            print(f"no results at {args.json}", file=sys.stderr)
            return rc or 1
        # Record what the table header needs, so --from-json can print it elsewhere.
        data = json.loads(args.json.read_text())
        for b in data["benchmarks"]:  # per-round samples: megabytes; the stats stay
            b["stats"].pop("data", None)
        data["fastswz"] = dict(cpu=cpu_model(), llc_bytes=llc_bytes(), loadavg_start=load0,
                               loadavg_end=os.getloadavg(), quick=args.quick,
                               command=" ".join(["python", "benchmarks/report.py",
                                                 *(argv or sys.argv[1:])]))
        args.json.write_text(json.dumps(data, indent=1))
    data, groups = load_rows(json_paths)
    meta = data.get("fastswz", {})
    when = data.get("datetime") or _dt.datetime.now(_dt.timezone.utc).isoformat()
    mi = data.get("machine_info", {})
    llc = meta.get("llc_bytes") or llc_bytes()
    load = (f"load average (1 min) {meta['loadavg_start'][0]:.2f} at start, "
            f"{meta['loadavg_end'][0]:.2f} at end" if "loadavg_start" in meta
            else "load average not recorded")
    print(f"fastswz benchmarks, {when[:19]} UTC; {meta.get('cpu') or cpu_model()}; "
          f"last-level cache {llc >> 20} MiB; "
          f"Python {mi.get('python_version', platform.python_version())}; {load}; "
          f"command: {meta.get('command', '?')}; JSON {', '.join(map(str, json_paths))}")
    lines, misses = table(groups, llc)
    print("\n".join(lines))
    print(TARGETS)
    if misses:
        print(f"{len(misses)} missed target(s):")
        print("\n".join(f"  MISS {m}" for m in misses))
    else:
        print("all targets met")
    return rc


if __name__ == "__main__":
    sys.exit(main())
