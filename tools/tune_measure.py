"""Time every plan of a sample of tune's space on the GPU: the data that holds the model to the clock.

Two steps, so that the GPU machine only times (issue 20, part 1):

1. ``--compile-only --cache DIR`` (any machine with the extra ``cuda``; no GPU needed): for each
   shape x dtype take the legal plans of ``fastswz.tune``'s default space (sm90, K-major A and
   B), keep those ``fastswz.cuda.supported`` accepts, pick the plans to time (below), dedupe them
   across shapes and compile them all with ``fastswz.cuda.compile_many`` into DIR. The choice is
   written to ``DIR/tune_measure_manifest.json``, so the run times exactly these plans.
2. ``--run --cache DIR --out FILE.json`` (the GPU machine, DIR carried over): for each shape x
   plan, ``GemmKernel.time`` (CUDA events, warm-up, L2 flushed, median of repeats, spread), one
   JSON row each, with a header (``device_info()``, ``device_key()``, clocks, versions, date);
   torch cuBLAS per shape as a reference when torch imports (``torch.matmul`` bf16,
   ``torch._scaled_mm`` e4m3). A plan that fails to compile or launch is a row with its error.
   The file is rewritten after every shape, and ``--resume`` skips the rows it already holds,
   so a run cut short by a time limit (``--time-budget S``) continues where it stopped.

Which plans: the legal, supported plans of a dtype do not depend on the problem, so every shape
of a dtype times one set: the union of each shape's ``--top-always`` best by the model, then a
seeded sample up to ``--cap`` plans, half from plans the model ranks in the best
``--good-frac`` of some shape and half from the whole space (a ranking test needs both the near
ties at the top and the spread of the rest). "The model" is ``--model``: ``shipped``
(``fastswz.tune.DEFAULT_MODELS``, the default) or ``datasheet`` (``DATASHEET_MODELS``, the
constants before any fit); the manifest and the measured header record it under ``selection``.
``benchmarks/data/tune_h100.json`` was chosen by the datasheet model (its header predates the
key): ``--model datasheet`` picks the same plans again.

Then: ``python tools/tune_calibrate.py FILE.json`` (metrics, fit, held-out report).

Exit status 2 with one line when fastswz.cuda does not import or finds no GPU.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SHAPES = {  # name: (M, N, K)
    "sq2048": (2048, 2048, 2048), "sq4096": (4096, 4096, 4096), "sq8192": (8192, 8192, 8192),
    "llm_up": (4096, 14336, 4096), "llm_down": (8192, 4096, 14336),
    "skinny": (16384, 1024, 4096),
    "decode64": (64, 8192, 8192), "decode128": (128, 8192, 8192), "decode256": (256, 8192, 8192),
}
CONFIG_KEYS = ("arch", "cta_group", "bm", "bn", "bk", "stages", "swizzle_a", "swizzle_b")
MANIFEST = "tune_measure_manifest.json"


def parse_shapes(text):
    out = {}
    for item in text.split(","):
        item = item.strip()
        if item in SHAPES:
            out[item] = SHAPES[item]
            continue
        try:
            m, n, k = (int(x) for x in item.lower().split("x"))
        except ValueError:
            raise SystemExit(f"tune_measure: error: --shapes holds {item!r}: use names "
                             f"({', '.join(SHAPES)}) or MxNxK") from None
        out[item] = (m, n, k)
    return out


def _kwargs(fn, **kw):
    """Only the keyword arguments ``fn`` takes (the runtime's optional ones: cache_dir, jobs)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return kw
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return kw
    return {k: v for k, v in kw.items() if k in params}


def runtime(cache):
    """fastswz.cuda with its cubin cache pointed at ``cache`` (or exit 2 with one line)."""
    if cache is not None:
        Path(cache).mkdir(parents=True, exist_ok=True)
        os.environ["FASTSWZ_CACHE"] = str(Path(cache).resolve())
    try:
        import fastswz.cuda as cuda
    except ImportError as exc:
        print(f"tune_measure: error: fastswz.cuda is unavailable ({exc}): install the extra "
              f"(pip install '.[cuda]'); nothing measured", file=sys.stderr)
        raise SystemExit(2) from None
    return cuda


def config_of(row, dt, out_dtype="bf16", epilogue=False):
    return {**{c: row[c] for c in CONFIG_KEYS}, "a_dtype": dt, "b_dtype": dt, "a_major": "K",
            "b_major": "K", "out_dtype": out_dtype, "epilogue": epilogue}


def ckey(cfg):
    return tuple(cfg[c] for c in CONFIG_KEYS)


EPILOGUES = {"off": (False,), "on": (True,), "both": (False, True)}


def choose(cuda, shapes, dtypes, cap, top_always, good_frac, seed, out_dtype="bf16",
           epilogue="off", model="shipped"):
    """The manifest: per dtype the configs to time (each with its ``epilogue`` flag) and per
    shape x dtype the model's rank and cycles of each (the ranking with the epilogue tile in
    shared memory for ``epilogue: true`` kernels), ranked by ``model`` (``shipped`` or
    ``datasheet``)."""
    from fastswz import tune
    from fastswz.tune import DATASHEET_MODELS, DEFAULT_MODELS

    constants = {"shipped": DEFAULT_MODELS, "datasheet": DATASHEET_MODELS}[model]["sm90"]

    variants = EPILOGUES[epilogue]
    manifest = {"shapes": {k: list(v) for k, v in shapes.items()}, "dtypes": list(dtypes),
                "out_dtype": out_dtype, "epilogue": epilogue, "configs": {}, "model": {},
                "unsupported": {}, "selection": {"cap": cap, "top_always": top_always,
                                                 "good_frac": good_frac, "seed": seed,
                                                 "model": model}}
    for dt in dtypes:
        ranked = {}  # epilogue flag -> shape -> tune rows
        support = {}  # epilogue flag -> config key -> supported
        reasons = {}
        for v in variants:
            ranked[v] = {name: tune(*mnk, dt, dt, top=1 << 40, epilogue_dtype=out_dtype if v else None,
                                    model=constants)
                         for name, mnk in shapes.items()}
            support[v] = {}
            for r in next(iter(ranked[v].values())):
                cfg = config_of(r, dt, out_dtype, v)
                why = cuda.supported(cfg)
                support[v][ckey(cfg)] = why is None
                if why is not None:
                    reasons[why] = reasons.get(why, 0) + 1
        manifest["unsupported"][dt] = reasons
        base = variants[0]  # the selection follows the first variant's ranking
        ok = sorted(k for k, sup in support[base].items() if sup)
        if not ok:
            print(f"tune_measure: {dt}: the kernel supports none of {len(support[base])} legal "
                  f"plans ({reasons})", file=sys.stderr)
            continue
        must, good = [], set()
        for name, rows in ranked[base].items():
            sup = [ckey(r) for r in rows if support[base].get(ckey(r))]
            for key in sup[:top_always]:
                if key not in must:
                    must.append(key)
            good.update(sup[:max(1, int(len(sup) * good_frac))])
        rng = np.random.default_rng(seed)
        chosen = list(must)
        left = max(0, cap - len(chosen))
        pool_good = [k for k in sorted(good) if k not in set(chosen)]
        take = rng.permutation(len(pool_good))[:left // 2]
        chosen += [pool_good[i] for i in sorted(take.tolist())]
        pool_all = [k for k in ok if k not in set(chosen)]
        take = rng.permutation(len(pool_all))[:max(0, cap - len(chosen))]
        chosen += [pool_all[i] for i in sorted(take.tolist())]
        configs, model = [], {name: [] for name in shapes}
        for v in variants:
            pos = {name: {ckey(r): (r["rank"], r["model_cycles"]) for r in rows}
                   for name, rows in ranked[v].items()}
            first = next(iter(pos.values()))
            for k in chosen:
                if k in first and support[v].get(k):  # legal with this epilogue, and run
                    configs.append({**dict(zip(CONFIG_KEYS, k)), "epilogue": v})
                    for name in shapes:
                        model[name].append(list(pos[name][k]))
        manifest["configs"][dt] = configs
        for name in shapes:
            manifest["model"][f"{name}/{dt}"] = model[name]
        print(f"tune_measure: {dt}: {len(support[base])} legal plans, {len(ok)} supported, "
              f"{len(chosen)} chosen ({len(must)} model top-{top_always} picks), "
              f"{len(configs)} kernels (epilogue {epilogue})", file=sys.stderr)
    return manifest


def compile_all(cuda, manifest, out_dtype, jobs, chunk=32):
    configs = [dict(c, a_dtype=dt, b_dtype=dt, a_major="K", b_major="K", out_dtype=out_dtype)
               for dt, cs in manifest["configs"].items() for c in cs]
    errors = {}
    started = time.perf_counter()
    for s in range(0, len(configs), chunk):
        part = configs[s:s + chunk]
        try:
            got = list(cuda.compile_many(part, **_kwargs(cuda.compile_many, out_dtype=out_dtype,
                                                         jobs=jobs)))
        except Exception:  # noqa: BLE001 - find the bad ones one by one
            got = []
            for cfg in part:
                try:
                    got.append(cuda.compile_gemm(cfg, out_dtype=out_dtype))
                except Exception as exc:  # noqa: BLE001 - recorded, not fatal
                    got.append(exc)
        for cfg, k in zip(part, got):  # compile_many may give an exception in a kernel's place
            if isinstance(k, Exception):
                errors[json.dumps(cfg, sort_keys=True)] = f"{type(k).__name__}: {k}"
        done = min(s + chunk, len(configs))
        print(f"\rtune_measure: compiled {done}/{len(configs)} "
              f"({time.perf_counter() - started:.0f} s, {len(errors)} failed)", end="",
              file=sys.stderr, flush=True)
    print(file=sys.stderr)
    manifest["compile_errors"] = errors
    return len(configs), errors


def nvidia_smi():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,"
                              "clocks.max.mem,power.limit,temperature.gpu,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def torch_reference(m, n, k, dt, warmup, reps):
    """Median ms of torch cuBLAS for the problem (or a dict with its error / None without torch)."""
    try:
        import torch
    except ImportError:
        return None
    try:
        dev = torch.device("cuda")
        a = torch.randn(m, k, device=dev).to(torch.bfloat16)
        b = torch.randn(n, k, device=dev).to(torch.bfloat16)
        if dt == "bf16":
            def fn():
                return torch.matmul(a, b.t())
            lib = "torch.matmul (cuBLAS) bf16 -> bf16"
        else:
            a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
            one = torch.ones((), device=dev)

            def fn():
                return torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            lib = "torch._scaled_mm (cuBLASLt) e4m3 -> bf16"
        flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(reps):
            flush.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
        med = statistics.median(times)
        return {"library": lib, "torch": torch.__version__, "median_ms": med, "min_ms": min(times),
                "max_ms": max(times), "spread": max(times) / min(times) - 1,
                "tflops": 2 * m * n * k / med / 1e9}
    except Exception as exc:  # noqa: BLE001 - a reference, not the point
        return {"library": "torch", "error": f"{type(exc).__name__}: {exc}"}


def write(path, data):
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def run(cuda, manifest, args):
    import fastswz

    try:
        key = cuda.device_key()
        info = cuda.device_info()
    except Exception as exc:  # noqa: BLE001 - no GPU: one line, exit 2
        print(f"tune_measure: error: no GPU to time on ({type(exc).__name__}: {exc})", file=sys.stderr)
        raise SystemExit(2) from None
    out = Path(args.out)
    data = None
    if args.resume and out.exists():
        data = json.loads(out.read_text())
        if data["header"]["device_key"] != str(key):
            raise SystemExit(f"tune_measure: error: --resume: {out} was measured on "
                             f"{data['header']['device_key']!r}, this is {key!r}")
    if data is None:
        data = {"header": {
            "device_key": str(key), "device_info": info, "nvidia_smi_before": nvidia_smi(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "versions": {"fastswz": fastswz.__version__, "numpy": np.__version__,
                         "python": platform.python_version(),
                         "kernel_version": getattr(cuda, "KERNEL_VERSION", None)},
            "timing": {"warmup": args.warmup, "reps": args.reps, "flush_l2": not args.no_flush,
                       "out_dtype": manifest.get("out_dtype", args.out_dtype),
                       "epilogue": manifest.get("epilogue", "off")},
            "selection": manifest["selection"], "command": " ".join(sys.argv)},
            "rows": [], "reference": []}
    done = {(r["name"], r["a_dtype"], json.dumps(r["config"], sort_keys=True)) for r in data["rows"]}
    out_dtype = manifest.get("out_dtype", args.out_dtype)
    started = time.perf_counter()
    stopped, timed = False, 0
    for dt, configs in manifest["configs"].items():
        for name, (m, n, k) in manifest["shapes"].items():
            model = manifest["model"][f"{name}/{dt}"]
            for i, cfg in enumerate(configs):
                tag = (name, dt, json.dumps(cfg, sort_keys=True))
                if tag in done:
                    continue
                if (args.time_budget and timed and
                        time.perf_counter() - started > args.time_budget):
                    stopped = True
                    break
                full = dict(cfg, a_dtype=dt, b_dtype=dt, a_major="K", b_major="K", out_dtype=out_dtype)
                row = {"name": name, "m": m, "n": n, "k": k, "a_dtype": dt, "b_dtype": dt,
                       "a_major": "K", "b_major": "K", "out_dtype": out_dtype, "config": cfg,
                       "model_rank": model[i][0], "model_cycles": model[i][1], "median_ms": None,
                       "min_ms": None, "max_ms": None, "spread": None, "tflops": None, "error": None}
                try:
                    kern = cuda.compile_gemm(full, out_dtype=out_dtype)
                except Exception as exc:  # noqa: BLE001 - recorded
                    row["error"] = f"compile: {type(exc).__name__}: {exc}"
                else:
                    try:
                        t = kern.time(m, n, k, warmup=args.warmup, reps=args.reps,
                                      flush_l2=not args.no_flush)
                        row.update({c: float(t[c]) for c in ("median_ms", "min_ms", "max_ms", "spread",
                                                              "tflops") if c in t})
                    except Exception as exc:  # noqa: BLE001 - recorded
                        row["error"] = f"launch: {type(exc).__name__}: {exc}"
                data["rows"].append(row)
                timed += 1
                print(f"\rtune_measure: {name} {dt}: {i + 1}/{len(configs)} "
                      f"({time.perf_counter() - started:.0f} s)", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            if not stopped and not any(r["name"] == name and r["a_dtype"] == dt for r in data["reference"]):
                ref = torch_reference(m, n, k, dt, args.warmup, args.reps)
                if ref is not None:
                    data["reference"].append({"name": name, "m": m, "n": n, "k": k, "a_dtype": dt,
                                              "b_dtype": dt, **ref})
            data["header"]["nvidia_smi_after"] = nvidia_smi()
            write(out, data)
            if stopped:
                break
        if stopped:
            break
    if stopped:
        print(f"tune_measure: --time-budget {args.time_budget} s reached: {len(data['rows'])} rows "
              f"in {out}; run again with --resume to continue", file=sys.stderr)
    print(summary(data))
    return data


def summary(data):
    from fastswz.calibrate import spearman, top1_regret

    lines = ["| shape | dtype | epilogue | plans | failed | best ms | best TFLOP/s | best plan | "
             "model #1 ms | regret | Spearman | cuBLAS ms | best / cuBLAS |", "|" + "---|" * 13]
    groups = {}
    for r in data["rows"]:
        epi = "smem" if r["config"].get("epilogue") else "regs"
        groups.setdefault((r["name"], r["a_dtype"], epi), []).append(r)
    refs = {(r["name"], r["a_dtype"]): r for r in data.get("reference", [])}
    for (name, dt, epi), rows in groups.items():
        ok = [r for r in rows if r["median_ms"] is not None]
        if not ok:
            lines.append(f"| {name} | {dt} | {epi} | {len(rows)} | {len(rows)} | - | - | - | - | - | "
                         f"- | - | - |")
            continue
        ok.sort(key=lambda r: r["model_rank"])
        ms = np.array([r["median_ms"] for r in ok])
        cyc = np.array([r["model_cycles"] for r in ok], dtype=float)
        b = ok[int(np.argmin(ms))]
        c = b["config"]
        ref = refs.get((name, dt), {})
        rms = ref.get("median_ms")
        lines.append(
            f"| {name} | {dt} | {epi} | {len(rows)} | {len(rows) - len(ok)} | {ms.min():.4f} | "
            f"{b.get('tflops') or 0:.0f} | {c['bm']}x{c['bn']}x{c['bk']} s{c['stages']} "
            f"{c['swizzle_a']}/{c['swizzle_b']} | {ms[0]:.4f} | {top1_regret(cyc, ms):.1%} | "
            f"{spearman(cyc, ms):.3f} | {'-' if rms is None else f'{rms:.4f}'} | "
            f"{'-' if rms is None else f'{rms / ms.min():.2f}'} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--compile-only", action="store_true", help="choose the plans and compile them into --cache")
    mode.add_argument("--run", action="store_true", help="time the plans of --cache's manifest (GPU)")
    mode.add_argument("--summary", metavar="FILE.json", help="print the summary table of a measured file")
    p.add_argument("--cache", metavar="DIR", help="cubin cache and manifest directory")
    p.add_argument("--out", metavar="FILE.json", help="--run: the measured rows (JSON)")
    p.add_argument("--shapes", default=",".join(SHAPES), help=f"names ({', '.join(SHAPES)}) or MxNxK, comma-separated")
    p.add_argument("--dtypes", default="bf16,e4m3", help="operand types, A = B (default bf16,e4m3)")
    p.add_argument("--cap", type=int, default=208, help="plans per shape and dtype (default 208)")
    p.add_argument("--top-always", type=int, default=16, help="each shape's model top-N always timed (default 16)")
    p.add_argument("--good-frac", type=float, default=0.15, help="'near the top' = the model's best fraction (default 0.15)")
    p.add_argument("--seed", type=int, default=20, help="sample seed (default 20)")
    p.add_argument("--model", default="shipped", choices=("shipped", "datasheet"),
                   help="the constants that rank and choose the plans: fastswz.tune.DEFAULT_MODELS "
                        "(shipped, default) or DATASHEET_MODELS (datasheet; the committed H100 data)")
    p.add_argument("--out-dtype", default="bf16", help="the kernels' output type (default bf16)")
    p.add_argument("--epilogue", default="off", choices=sorted(EPILOGUES),
                   help="kernels store from registers (off, default), through the plan's "
                        "shared-memory epilogue tile and a TMA store (on), or both (part 4)")
    p.add_argument("--jobs", type=int, default=None, help="parallel compiles (default: the runtime's)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--no-flush", action="store_true", help="do not flush L2 between repeats")
    p.add_argument("--time-budget", type=float, default=None, metavar="S",
                   help="--run: stop starting new timings after S seconds (then --resume)")
    p.add_argument("--resume", action="store_true", help="--run: keep --out's rows and time the rest")
    args = p.parse_args(argv)
    if args.summary:
        print(summary(json.loads(Path(args.summary).read_text())))
        return 0
    if not args.cache:
        p.error("--compile-only and --run need --cache DIR")
    cuda = runtime(args.cache)
    mpath = Path(args.cache) / MANIFEST
    if args.compile_only:
        manifest = choose(cuda, parse_shapes(args.shapes), args.dtypes.split(","), args.cap,
                          args.top_always, args.good_frac, args.seed, args.out_dtype, args.epilogue,
                          args.model)
        n, errors = compile_all(cuda, manifest, args.out_dtype, args.jobs)
        write(mpath, manifest)
        print(f"tune_measure: {n} kernels compiled into {args.cache} ({len(errors)} failed); "
              f"manifest {mpath}")
        return 0
    if not args.out:
        p.error("--run needs --out FILE.json")
    if mpath.exists():
        manifest = json.loads(mpath.read_text())
    else:
        print(f"tune_measure: no {mpath}: choosing the plans now (compiling on this machine)",
              file=sys.stderr)
        manifest = choose(cuda, parse_shapes(args.shapes), args.dtypes.split(","), args.cap,
                          args.top_always, args.good_frac, args.seed, args.out_dtype, args.epilogue,
                          args.model)
    run(cuda, manifest, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
