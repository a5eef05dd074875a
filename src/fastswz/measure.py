"""A measured search: time the cost model's best plans on the GPU, cached on disk.

``fastswz.tune(..., measure=K)`` (``fastswz tune ... --measure --top K``) walks the model's
ranking, keeps the first K plans that the GPU runtime ``fastswz.cuda`` (extra ``cuda``) supports
(``fastswz.cuda.supported(config) is None``), compiles them in parallel
(``fastswz.cuda.compile_many``), times each (``GemmKernel.time``: CUDA events, warm-up launches,
L2 flushed, median of the repeats) and returns them fastest first with the model's rank beside
each. Nothing here imports ``fastswz.cuda`` until a measurement is asked for, so ``import
fastswz`` and the model ranking work without the extra or a GPU.

Cache: one JSON file per (GPU, problem, plan, timing settings, kernel source version), under
``cache_dir``, else ``$FASTSWZ_CACHE/tune``, else ``~/.cache/fastswz/tune``; its name is the
SHA-256 of that key. The GPU is ``fastswz.cuda.device_key()`` (name, SMs, compute capability,
driver and NVRTC versions), the kernel version ``fastswz.cuda.KERNEL_VERSION`` where the runtime
has one. Files are written through a temporary file and a rename, so a reader never sees half a
file; a file that does not parse or whose key differs is ignored (and rewritten). A second
identical search reads every result from the cache: it compiles and times nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from .errors import FastswzError, MeasureError

__all__ = ["measure_plans", "cache_dir_default", "MEASURE_NOTE", "CONFIG_KEYS"]

#: The configuration keys the GPU runtime reads (``supported``, ``compile_gemm``).
CONFIG_KEYS = ("arch", "cta_group", "a_dtype", "b_dtype", "a_major", "b_major", "bm", "bn", "bk",
               "stages", "swizzle_a", "swizzle_b", "out_dtype", "epilogue")
MEASURE_NOTE = ("measured ranking (fastswz.cuda GEMM kernel: CUDA events, warm-up, L2 flushed, "
                "median of repeats); model_rank is the cost model's rank of the same plan")


def cache_dir_default() -> Path:
    """Where measured results are cached: ``$FASTSWZ_CACHE/tune``, else ``~/.cache/fastswz/tune``.

    Examples
    --------
    >>> import os
    >>> old = os.environ.get("FASTSWZ_CACHE")
    >>> os.environ["FASTSWZ_CACHE"] = "/tmp/fsw"
    >>> str(cache_dir_default())
    '/tmp/fsw/tune'
    >>> _ = os.environ.pop("FASTSWZ_CACHE") if old is None else os.environ.update(FASTSWZ_CACHE=old)
    """
    root = os.environ.get("FASTSWZ_CACHE")
    return Path(root) / "tune" if root else Path.home() / ".cache" / "fastswz" / "tune"


def _runtime(count):
    """The ``fastswz.cuda`` module, or a MeasureError saying why there is none."""
    try:
        return importlib.import_module("fastswz.cuda")
    except ImportError as exc:
        raise MeasureError(
            f"measure={count} needs the GPU runtime fastswz.cuda, which does not import here "
            f"({exc}): install the extra (pip install 'fastswz[cuda]') on a machine with an "
            f"NVIDIA GPU; tune without measure ranks by the cost model alone") from None


class _Progress:
    """``fastswz tune: <what> [####----] i/n`` on stderr, drawn once a step has run > 1 s."""

    def __init__(self, on, what, total):
        self.on, self.what, self.total = on, what, total
        self.started, self.shown = time.perf_counter(), False

    def step(self, done):
        if not self.on or not (self.shown or time.perf_counter() - self.started > 1.0):
            return
        self.shown = True
        width = 24
        fill = width * done // max(self.total, 1)
        print(f"\rfastswz tune: {self.what:<9} [{'#' * fill}{'-' * (width - fill)}] "
              f"{done}/{self.total} plans", end="", file=sys.stderr, flush=True)

    def close(self):
        if self.shown:
            print(file=sys.stderr, flush=True)


def _key(device, version, problem, config, timing):
    key = {"device": device, "kernel_version": version, "problem": problem, "config": config,
           "timing": timing}
    text = json.dumps(key, sort_keys=True)
    return key, hashlib.sha256(text.encode()).hexdigest()


def _read(path, key):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("result"), dict):
        return None
    return data["result"]


def _write(path, key, result):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".fastswz-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"key": key, "result": result,
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _fatal(cuda):
    """The runtime's "no GPU / no extra / wrong arch" class: that one ends the search; any
    other failure of one plan is recorded with the plan."""
    return getattr(cuda, "CudaUnavailableError", ())


def _compile(cuda, configs, out_dtype, jobs, bar):
    """Kernels (or the exception) per config, in chunks so that the bar moves."""
    out = []
    chunk = max(8, jobs or os.cpu_count() or 1)
    for s in range(0, len(configs), chunk):
        part = configs[s:s + chunk]
        try:
            out += list(cuda.compile_many(part, out_dtype=out_dtype, jobs=jobs))
        except _fatal(cuda):
            raise
        except Exception:  # noqa: BLE001 - one bad plan fails the batch: compile one by one
            for cfg in part:
                try:
                    out.append(cuda.compile_gemm(cfg, out_dtype=out_dtype))
                except _fatal(cuda):
                    raise
                except Exception as exc:  # noqa: BLE001 - recorded with the plan, not fatal
                    out.append(exc)
        bar.step(len(out))
    return out


def measure_plans(ranked, m, n, k, a_dtype="bf16", b_dtype="bf16", a_major="K", b_major="K", *,
                  count=10, top=None, cache_dir=None, use_cache=True, out_dtype="bf16",
                  epilogue=False, warmup=3, reps=20, flush_l2=True, jobs=None, progress=False):
    """Time the first ``count`` plans of a model ranking that the GPU runtime supports.

    Parameters
    ----------
    ranked : list of dict
        :func:`fastswz.tune` rows, best model cycles first.
    m, n, k, a_dtype, b_dtype, a_major, b_major
        The problem.
    count : int
        How many supported plans to time.
    top : int, optional
        How many of the measured plans to return (default all).
    cache_dir : str or Path, optional
        Default :func:`cache_dir_default`.
    use_cache : bool
        Read and write the cache (False: time everything, write nothing).
    epilogue : bool
        The kernels store through the plan's shared-memory epilogue tile (of ``out_dtype``)
        and a TMA store, instead of straight from registers (the runtime's ``epilogue`` key).
    out_dtype, warmup, reps, flush_l2, jobs
        Passed to ``fastswz.cuda.compile_many`` and ``GemmKernel.time``.
    progress : bool
        Draw a progress bar on stderr for the compile and timing steps.

    Returns
    -------
    list of dict
        The tune rows, fastest first, each with ``rank`` (measured), ``model_rank``,
        ``measured_ms`` (median), ``min_ms``, ``max_ms``, ``spread``, ``measured_tflops``,
        ``cached`` and ``error`` (None, or why the plan did not run: such rows come last,
        without times).

    Raises
    ------
    MeasureError
        Without ``fastswz.cuda`` or a GPU, when the runtime supports none of the plans, or when
        every plan failed. The runtime's own ``CudaUnavailableError`` passes through.

    Examples
    --------
    Without the extra ``cuda``, a clear error (the model ranking still works):

    >>> import sys, fastswz
    >>> saved = sys.modules.get("fastswz.cuda")
    >>> sys.modules["fastswz.cuda"] = None          # as on a machine without the extra
    >>> try:
    ...     fastswz.tune(4096, 4096, 4096, measure=4)
    ... except fastswz.MeasureError as e:
    ...     print(str(e)[:56])
    measure=4 needs the GPU runtime fastswz.cuda, which does
    >>> _ = sys.modules.pop("fastswz.cuda") if saved is None else sys.modules.update({"fastswz.cuda": saved})
    >>> len(fastswz.tune(4096, 4096, 4096, top=4))
    4
    """
    cuda = _runtime(count)
    try:
        device = str(cuda.device_key())
    except FastswzError:
        raise
    except Exception as exc:  # noqa: BLE001 - the runtime's own failure, named
        raise MeasureError(f"measure={count}: the GPU runtime found no GPU to time on "
                           f"({type(exc).__name__}: {exc}); tune without measure ranks by the "
                           f"cost model alone") from None
    version = getattr(cuda, "KERNEL_VERSION", None)
    problem = {"m": m, "n": n, "k": k, "a_dtype": a_dtype, "b_dtype": b_dtype, "a_major": a_major,
               "b_major": b_major, "out_dtype": out_dtype}
    timing = {"warmup": warmup, "reps": reps, "flush_l2": bool(flush_l2)}
    chosen, reason = [], None
    for r in ranked:
        cfg = {**{c: r[c] for c in ("arch", "cta_group", "bm", "bn", "bk", "stages", "swizzle_a",
                                    "swizzle_b")},
               "a_dtype": a_dtype, "b_dtype": b_dtype, "a_major": a_major, "b_major": b_major,
               "out_dtype": out_dtype, "epilogue": bool(epilogue)}
        why = cuda.supported(cfg)
        if why is None:
            chosen.append((r, cfg))
            if len(chosen) == count:
                break
        elif reason is None:
            reason = why
    if not chosen:
        raise MeasureError(
            f"measure={count}: the GPU runtime supports none of the {len(ranked)} legal plans for "
            f"{m} x {n} x {k} {a_dtype} x {b_dtype} ({a_major}/{b_major}-major); first reason: "
            f"{reason}")
    root = Path(cache_dir) if cache_dir is not None else cache_dir_default()
    results, todo = {}, []
    for i, (r, cfg) in enumerate(chosen):
        key, digest = _key(device, version, problem, cfg, timing)
        path = root / digest[:2] / f"{digest}.json"
        hit = _read(path, key) if use_cache else None
        if hit is not None:
            results[i] = dict(hit, cached=True)
        else:
            todo.append((i, key, path))
    if todo:
        bar = _Progress(progress, "compiling", len(todo))
        try:
            kernels = _compile(cuda, [chosen[i][1] for i, _, _ in todo], out_dtype, jobs, bar)
        finally:
            bar.close()
        bar = _Progress(progress, "timing", len(todo))
        try:
            for j, ((i, key, path), kern) in enumerate(zip(todo, kernels)):
                res = _time(kern, m, n, k, warmup, reps, flush_l2, _fatal(cuda))
                if res.get("error") is None and use_cache:
                    _write(path, key, res)
                results[i] = dict(res, cached=False)
                bar.step(j + 1)
        finally:
            bar.close()
    rows = []
    for i, (r, _) in enumerate(chosen):
        res = results[i]
        rows.append({**r, "model_rank": r["rank"], "measured_ms": res.get("median_ms"),
                     "min_ms": res.get("min_ms"), "max_ms": res.get("max_ms"),
                     "spread": res.get("spread"), "measured_tflops": res.get("tflops"),
                     "cached": res["cached"], "error": res.get("error"), "device": device})
    if all(row["measured_ms"] is None for row in rows):
        raise MeasureError(f"measure={count}: every one of the {len(rows)} plans failed to compile "
                           f"or run; the first: {rows[0]['error']}")
    rows.sort(key=lambda row: (row["measured_ms"] is None, row["measured_ms"] or 0.0, row["model_rank"]))
    for j, row in enumerate(rows):
        row["rank"] = j + 1
    return rows if top is None else rows[:top]


def _time(kern, m, n, k, warmup, reps, flush_l2, fatal=()):
    """One plan's timing dict (median_ms, min_ms, max_ms, spread, tflops) or its error."""
    if isinstance(kern, Exception):
        return {"error": f"compile: {type(kern).__name__}: {kern}"}
    try:
        t = kern.time(m, n, k, warmup=warmup, reps=reps, flush_l2=flush_l2)
        med = float(t["median_ms"])
    except fatal:
        raise
    except Exception as exc:  # noqa: BLE001 - a launch failure is recorded with the plan
        return {"error": f"launch: {type(exc).__name__}: {exc}"}
    if not med > 0:
        return {"error": f"launch: median_ms={med} is not a positive time"}
    tflops = t.get("tflops")
    return {"median_ms": med, "min_ms": float(t.get("min_ms", med)),
            "max_ms": float(t.get("max_ms", med)), "spread": float(t.get("spread", 0.0)),
            "tflops": float(tflops) if tflops is not None else 2.0 * m * n * k / (med * 1e9),
            "error": None}
