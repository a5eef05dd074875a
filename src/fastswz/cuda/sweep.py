"""Sweeps: the measured search over a list of problems, on every GPU of the host or on Ray.

``fastswz tune --measure --corpus FILE [--save TABLE]`` (:func:`sweep_problems`):

1. **Candidates** for every problem are drawn on the CPU (:func:`fastswz.cuda.search.candidates`;
   in a process pool when there are many problems), and every distinct configuration among them
   is **compiled on the CPUs first** (NVRTC in threads; the cubin cache fills), so the GPUs only
   time.
2. **One worker process per visible GPU** (``CUDA_VISIBLE_DEVICES`` set to that one GPU) takes
   problems one at a time from the parent (JSON lines on its stdin/stdout) and runs the search on
   it, appending every timing to its own file of the sweep's journal.
3. **Resumable**: the journal directory (default ``TABLE.journal``) keeps every completed timing
   and every finished problem. A sweep started again skips the finished problems and replays the
   timings of the others, so nothing completed is timed twice; a worker that dies mid-problem is
   started again (up to :data:`RESTARTS` times per GPU) and its problem handed out again, its
   timings read back from the journal.
4. **Progress** on stderr: problems done, timings, elapsed time and an ETA. The table (``save``)
   is rewritten after every problem, so a crash keeps what was finished.

**Ray** (``ray="auto"`` or an address; ``pip install 'fastswz[ray]'``): the driver runs each
problem's successive halving and submits each round's batch of plans as one Ray task that asks
for one GPU (``num_gpus=1``); the task compiles its plans on its node and times them; the driver
journals the timings and gathers the winners into the table, so a restarted driver resumes the
same way. The Ray path has been tested on a CPU machine against a local Ray cluster that declares
GPU resources (real compiles, a stand-in timer); it has not met a GPU cluster yet.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from ..errors import FastswzError, FastswzTypeError, MeasureError, PlanError, as_int
from . import search as S
from .tuned import save_results

__all__ = ["read_corpus", "sweep_problems", "visible_gpus", "RESTARTS"]

#: How many times a GPU's worker is started again after it dies, before the GPU is given up.
RESTARTS = 3
_PROBLEM_FIELDS = ("m", "n", "k", "a_dtype", "b_dtype", "a_major", "b_major", "out_dtype")


def _resumed(jdir, name, probs, settings, device, kernel_version):
    """``(journal or None, result keys, {problem index: result})``: the problems a journal in
    ``jdir`` already holds a result for on this GPU and kernel version (a resumed sweep)."""
    parent = S.Journal(jdir, name=name) if jdir is not None else None
    rkeys = [S.result_key(p, **settings) for p in probs]
    results = {}
    if parent is not None:
        for i, rk in enumerate(rkeys):
            r = parent.results.get(rk)
            if r is not None and r.get("device") == device and r.get("kernel_version") == kernel_version:
                results[i] = dict(r, from_journal=True)
    return parent, rkeys, results


def read_corpus(path) -> list:
    """The problems of a corpus file: a JSON list of ``{m, n, k, a_dtype, b_dtype, a_major,
    b_major[, out_dtype]}`` (or an object holding it under ``"problems"``), as canonical dicts.

    Examples
    --------
    >>> import json, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "c.json")
    >>> _ = open(p, "w").write(json.dumps([{"m": 64, "n": 128, "k": 256, "a_dtype": "BF16",
    ...                                     "b_dtype": "bf16", "a_major": "K", "b_major": "mn"}]))
    >>> read_corpus(p)[0]["b_major"], read_corpus(p)[0]["out_dtype"]
    ('MN', 'bf16')
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PlanError(f"--corpus {path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise PlanError(f"--corpus {path}: not JSON ({exc})") from None
    if isinstance(data, dict):
        data = data.get("problems")
    if not isinstance(data, list) or not data:
        raise PlanError(f"--corpus {path}: must be a non-empty JSON list of problems "
                        f"{{m, n, k, a_dtype, b_dtype, a_major, b_major}}")
    out = []
    for i, p in enumerate(data):
        if not isinstance(p, dict) or any(f not in p for f in ("m", "n", "k")):
            raise PlanError(f"--corpus {path}: problem {i} ({str(p)[:60]}) needs m, n and k")
        try:
            out.append(S.problem_of(p["m"], p["n"], p["k"], p.get("a_dtype", "bf16"),
                                    p.get("b_dtype", "bf16"), p.get("a_major", "K"),
                                    p.get("b_major", "K"), p.get("out_dtype")))
        except Exception as exc:  # noqa: BLE001 - which problem, and why
            raise PlanError(f"--corpus {path}: problem {i}: {exc}") from None
    return out


def visible_gpus() -> list:
    """The ``CUDA_VISIBLE_DEVICES`` entries of this process's GPUs (one per worker)."""
    from .runtime import _check, driver

    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    drv = driver()
    try:
        err = drv.cuInit(0)[0]
    except RuntimeError as exc:
        raise MeasureError(f"no NVIDIA driver here ({exc}): a sweep needs GPUs") from None
    if err != drv.CUresult.CUDA_SUCCESS:
        raise MeasureError(f"no usable NVIDIA GPU: cuInit returned {err.name}")
    count = int(_check(drv.cuDeviceGetCount(), "cuDeviceGetCount"))
    ids = [x.strip() for x in env.split(",") if x.strip()] if env else [str(i) for i in range(count)]
    return ids[:count]


def _settings(budget, seconds, reps, eta):
    return {"budget": budget, "seconds": seconds, "reps": reps, "eta": eta}


def _draw_one(args):
    p, budget, seconds = args
    try:
        return S.candidates(p["m"], p["n"], p["k"], p["a_dtype"], p["b_dtype"], p["a_major"],
                            p["b_major"], p["out_dtype"], budget=None if seconds else budget)
    except FastswzError as exc:   # this problem has no plan (e.g. an MN-major fp8 operand)
        return {"error": f"{type(exc).__name__}: {exc}"}


def _failed(p, why, device, kernel_version):
    """The result of a problem the sweep could not search: it stays out of the table."""
    return {"problem": p, "error": why, "best": None, "default": None, "regret": None,
            "device": device, "kernel_version": kernel_version, "plans": 0, "timings": 0,
            "replayed": 0, "rows": []}


def _draw(problems, budget, seconds, jobs):
    work = [(p, budget, seconds) for p in problems]
    if len(work) < 16 or (jobs or os.cpu_count() or 1) < 2:
        return [_draw_one(w) for w in work]
    import concurrent.futures
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")   # no CUDA state crosses into the pool
    with concurrent.futures.ProcessPoolExecutor(jobs or os.cpu_count(), mp_context=ctx) as ex:
        return list(ex.map(_draw_one, work, chunksize=4))


def sweep_problems(problems, *, save=None, journal=None, use_cache=True, gpus="all", ray=None,
                   budget=S.DEFAULT_BUDGET, seconds=None, reps=S.DEFAULT_REPS, eta=S.DEFAULT_ETA,
                   timer=None, device=None, kernel_version=None, compile=True, jobs=None,
                   progress=False, restarts=RESTARTS, stats=None):
    """The measured search on every problem of a list, spread over the GPUs (or Ray).

    Parameters
    ----------
    problems : list of dict
        ``m``, ``n``, ``k``, ``a_dtype``, ``b_dtype``, ``a_major``, ``b_major`` (``out_dtype``
        optional), e.g. :func:`read_corpus`.
    save : str or Path, optional
        A tuned-plan table to add every problem's winner to (rewritten after each problem).
    journal : str or Path, optional
        The sweep's journal directory (default ``save + ".journal"``, else
        ``$FASTSWZ_CACHE/tune/sweep``); ``use_cache=False``: none (nothing resumes).
    gpus : "all" or int
        Worker processes, one per GPU (the first ``gpus`` visible ones). With a stand-in
        ``timer``, the count of workers to start (no GPU is asked for).
    ray : str, optional
        ``"auto"`` or a Ray address: run on Ray instead (one task per batch of plans, one GPU
        each); an initialized Ray is used as it is.
    budget, seconds, reps, eta
        Per problem, as :func:`fastswz.cuda.search.search_plans`.
    timer : str, optional
        ``"module:function"`` the workers import to time with (default the GPU's,
        :func:`fastswz.cuda.search.gpu_timer`); a stand-in must come with ``device``.
    compile : bool
        Compile every candidate on the CPUs before timing (default True).
    jobs, progress, restarts
        Compile threads and drawing processes; a progress bar on stderr; restarts per GPU.
    stats : dict, optional
        Filled with the phases' wall seconds (``draw_s``, ``compile_s``, ``time_s``) and the
        ``workers``.

    Returns
    -------
    list of dict
        One :func:`~fastswz.cuda.search.search_plans` result per problem, in order; a problem
        that could not be searched (no plan for its types and majors, or every plan failed) has
        ``error`` and no ``best``, and stays out of the table (the sweep goes on).
    """
    if not isinstance(problems, (list, tuple)) or not problems:
        raise FastswzTypeError("problems must be a non-empty list of problem dicts (read_corpus)")
    probs, seen = [], set()
    for p in problems:
        if not isinstance(p, dict) or any(f not in p for f in ("m", "n", "k")):
            raise FastswzTypeError(f"problems holds {p!r:.60}: each must be a dict with m, n, k "
                                   f"(and a_dtype, b_dtype, a_major, b_major, out_dtype)")
        q = S.problem_of(p["m"], p["n"], p["k"], p.get("a_dtype", "bf16"), p.get("b_dtype", "bf16"),
                         p.get("a_major", "K"), p.get("b_major", "K"), p.get("out_dtype"))
        if S.problem_key(q) not in seen:
            seen.add(S.problem_key(q))
            probs.append(q)
    settings = _settings(budget, seconds, reps, eta)
    if timer is not None and device is None:
        raise FastswzTypeError("sweep_problems(timer=...) needs device=: a name for what the "
                               "stand-in times, so that its journal never passes for a GPU's")
    if journal is None and use_cache:
        journal = (str(save) + ".journal") if save else S.cache_dir_default() / "sweep"
    jdir = Path(journal) if use_cache else None
    if ray is not None:
        return _sweep_ray(probs, settings, jdir, save, ray, timer, device, kernel_version,
                          compile, jobs, progress)
    if timer is None:
        ids = visible_gpus()
        device, kernel_version = S._gpu_identity() if device is None else (device, kernel_version)
    else:
        ids = [str(i) for i in range(as_int("gpus", gpus) if gpus != "all" else 1)]
    if gpus != "all":
        n = as_int("gpus", gpus)
        if n < 1:
            raise PlanError(f"gpus={n} must be >= 1 (worker processes, one per GPU)")
        if n > len(ids):
            raise PlanError(f"gpus={n}: only {len(ids)} GPU(s) are visible here")
        ids = ids[:n]
    if not ids:
        raise MeasureError("no GPU is visible to the sweep (CUDA_VISIBLE_DEVICES, the driver)")
    kernel_version = kernel_version or _kernel_version()
    parent, rkeys, results = _resumed(jdir, "results.jsonl", probs, settings, device, kernel_version)
    todo = [i for i in range(len(probs)) if i not in results]
    bar = S._Bar(progress, "sweep", len(probs), "problems")
    bar.step(len(results))
    st = stats if stats is not None else {}
    st.update(workers=len(ids), draw_s=0.0, compile_s=0.0, time_s=0.0)
    if todo:
        t0 = time.perf_counter()
        cands = dict(zip(todo, _draw([probs[i] for i in todo], budget, seconds, jobs)))
        for i in [i for i in todo if isinstance(cands[i], dict)]:
            results[i] = _failed(probs[i], cands[i]["error"], device, kernel_version)
            todo.remove(i)
        t1 = time.perf_counter()
        if compile:
            _compile_all([c["config"] for i in todo for c in
                          (cands[i][:budget] if budget and not seconds else cands[i])], jobs, progress)
        t2 = time.perf_counter()
        _run_workers(ids, probs, todo, cands, settings, jdir, timer, device, kernel_version,
                     results, rkeys, parent, save, bar, restarts)
        st.update(draw_s=t1 - t0, compile_s=t2 - t1, time_s=time.perf_counter() - t2)
    bar.close()
    left = [i for i in range(len(probs)) if i not in results]
    if left:
        raise MeasureError(f"{len(left)} problem(s) were not finished (their GPUs' workers kept "
                           f"dying); run the sweep again to resume from the journal")
    return [results[i] for i in range(len(probs))]


def _kernel_version():
    from . import KERNEL_VERSION

    return KERNEL_VERSION


def _compile_all(configs, jobs, progress):
    from . import compile_many

    uniq = {S._config_key(c): c for c in configs}
    if not uniq:
        return
    bar = S._Bar(progress, "compiling", len(uniq), "plans")
    items = list(uniq.values())
    step = max(8, 2 * (jobs or os.cpu_count() or 1))
    for s in range(0, len(items), step):
        compile_many(items[s:s + step], jobs=jobs)   # failures come back as exceptions; timed later
        bar.step(min(len(items), s + step))
    bar.close()


class _Worker:
    def __init__(self, gpu, jdir, timer, device, kernel_version):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu)
        # the worker imports the fastswz this process runs, installed or not (a source tree)
        here = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(x for x in (here, env.get("PYTHONPATH")) if x)
        cmd = [sys.executable, "-m", "fastswz.cuda.sweep", "--worker", "--gpu", gpu,
               "--device", device, "--kernel-version", kernel_version]
        if jdir is not None:
            cmd += ["--journal", str(jdir)]
        if timer is not None:
            cmd += ["--timer", timer if isinstance(timer, str) else _spec_of(timer)]
        self.gpu = gpu
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.buf = b""
        self.task = None

    def close(self):
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def lines(self):
        """Complete lines read so far (non-blocking after select); None at EOF."""
        chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        if not chunk:
            return None
        self.buf += chunk
        *done, self.buf = self.buf.split(b"\n")
        return [json.loads(x) for x in done if x.strip()]


def _spec_of(fn):
    return f"{fn.__module__}:{fn.__qualname__}"


def _run_workers(ids, probs, todo, cands, settings, jdir, timer, device, kernel_version, results,
                 rkeys, parent, save, bar, restarts):
    queue = list(todo)
    retry = set()
    deaths = {g: 0 for g in ids}
    dead = []
    workers = {g: _Worker(g, jdir, timer, device, kernel_version) for g in ids}
    timings = 0

    def hand_out(w):
        if queue:
            i = queue.pop(0)
            w.task = i
            budget = settings["budget"]
            cs = cands[i] if settings["seconds"] or not budget else cands[i][:budget]
            w.send({"index": i, "problem": probs[i], "candidates": cs, "settings": settings,
                    "reload": i in retry})
        else:
            w.task = None
            w.send({"stop": True})

    for w in workers.values():
        hand_out(w)
    try:
        while any(w.task is not None for w in workers.values()):
            live = {w.proc.stdout.fileno(): w for w in workers.values() if w.task is not None}
            ready, _, _ = select.select(list(live), [], [], 1.0)
            for fd in ready:
                w = live[fd]
                try:
                    msgs = w.lines()
                except ValueError:
                    msgs = None
                if msgs is None:   # the worker died: hand its problem out again
                    w.proc.wait()
                    w.close()
                    dead.append(w)
                    i = w.task
                    deaths[w.gpu] += 1
                    queue.insert(0, i)
                    retry.add(i)
                    print(f"\nfastswz tune: the worker of GPU {w.gpu} exited ({w.proc.returncode}) "
                          f"during problem {i}; {'starting it again' if deaths[w.gpu] <= restarts else 'giving that GPU up'}",
                          file=sys.stderr, flush=True)
                    if deaths[w.gpu] <= restarts:
                        nw = workers[w.gpu] = _Worker(w.gpu, jdir, timer, device, kernel_version)
                        hand_out(nw)
                    else:
                        w.task = None
                        if all(x.task is None for x in workers.values()):
                            raise MeasureError(f"every GPU's worker died more than {restarts} "
                                               f"times; the journal keeps what was timed")
                    continue
                for msg in msgs:
                    if "timed" in msg:
                        timings += msg["timed"]
                        bar.step(len(results), note=f", {timings} timings")
                    elif "result" in msg:
                        i = msg["index"]
                        r = msg["result"]
                        results[i] = r
                        if parent is not None:
                            parent.put_result(rkeys[i], r)
                        if save:
                            save_results(save, [r])
                        bar.step(len(results), note=f", {timings} timings")
                        hand_out(w)
                    elif "failed" in msg:   # no plan of this problem ran: recorded, not fatal
                        i = msg["index"]
                        results[i] = _failed(probs[i], msg["failed"], device, kernel_version)
                        bar.step(len(results), note=f", {timings} timings")
                        hand_out(w)
                    elif "error" in msg:
                        raise MeasureError(f"GPU {w.gpu}, problem {msg.get('index')}: {msg['error']}")
    finally:
        for w in workers.values():
            if w.proc.poll() is None:
                try:
                    w.send({"stop": True})
                    w.proc.stdin.close()
                except OSError:
                    pass
        for w in workers.values():
            try:
                w.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait()
            w.close()


def _worker_main(argv):
    import argparse

    ap = argparse.ArgumentParser(prog="python -m fastswz.cuda.sweep --worker")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--gpu", default="0")
    ap.add_argument("--journal", default=None)
    ap.add_argument("--timer", default=None)
    ap.add_argument("--device", required=True)
    ap.add_argument("--kernel-version", required=True)
    a = ap.parse_args(argv)
    # the protocol owns the real stdout; anything else printed goes to stderr
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    timer = S.load_timer(a.timer) if a.timer else S.gpu_timer
    name = f"gpu{a.gpu}-{os.getpid()}.jsonl"
    journal = S.Journal(a.journal, name=name) if a.journal else None

    def send(msg):
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("stop"):
            break
        if journal is not None and msg.get("reload"):
            journal.reload()
        p, st = msg["problem"], msg["settings"]
        counted = [0]

        def timed(config, m, n, k, reps, warmup, _t=timer):
            out = _t(config, m, n, k, reps, warmup)
            counted[0] += 1
            send({"timed": 1})
            return out

        try:
            r = S.run_search(p, msg["candidates"], timer=timed,
                             compile=None if a.timer else S.gpu_compile, journal=journal,
                             device=a.device, kernel_version=a.kernel_version,
                             budget=st["budget"], seconds=st["seconds"], reps=st["reps"],
                             eta=st["eta"])
        except MeasureError as exc:   # every plan of this problem failed: the sweep goes on
            send({"index": msg["index"], "failed": f"{type(exc).__name__}: {exc}"})
            continue
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which stops the sweep
            send({"index": msg["index"], "error": f"{type(exc).__name__}: {exc}"})
            return 1
        send({"index": msg["index"], "result": r})
    return 0


# -- Ray --------------------------------------------------------------------------------------------
def _ray_batch(problem, items, timer, device, compile):
    """One Ray task: compile a batch of plans on this node and time them on its GPU.
    ``items``: (index, round, reps, warmup, config). Returns (results, info)."""
    t = S.load_timer(timer) if timer is not None else S.gpu_timer
    configs = [it[4] for it in items]
    compiled = []
    if compile:
        from . import compile_many

        compiled = compile_many(configs)
    out = []
    for it, kern in zip(items, compiled or [None] * len(items)):
        i, rnd, reps, warm, cfg = it
        if isinstance(kern, Exception):
            out.append((i, rnd, None, f"compile: {type(kern).__name__}: {kern}"[:400]))
            continue
        try:
            out.append((i, rnd, [float(x) for x in t(cfg, problem["m"], problem["n"], problem["k"],
                                                     reps, warm)], None))
        except Exception as exc:  # noqa: BLE001 - recorded with the plan
            out.append((i, rnd, None, f"{type(exc).__name__}: {exc}"[:400]))
    info = {"pid": os.getpid(), "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "compiled": sum(1 for k in compiled if not isinstance(k, Exception))}
    return out, info


def _ray_identity():
    from . import KERNEL_VERSION
    from .tuned import gpu_id

    return gpu_id(), KERNEL_VERSION


def _sweep_ray(probs, settings, jdir, save, address, timer, device, kernel_version, compile, jobs,
               progress):
    try:
        import ray
    except ImportError as exc:
        raise MeasureError(f"--ray needs Ray: pip install 'fastswz[ray]' ({exc})") from None
    if not ray.is_initialized():
        ray.init(address=None if address in (True, "local") else address)
    task = ray.remote(num_gpus=1)(_ray_batch)
    if timer is None and (device is None or kernel_version is None):
        device, kernel_version = ray.get(ray.remote(num_gpus=1)(_ray_identity).remote())
    kernel_version = kernel_version or _kernel_version()
    parent, rkeys, results = _resumed(jdir, "ray-driver.jsonl", probs, settings, device, kernel_version)
    states = {}
    todo = [i for i in range(len(probs)) if i not in results]
    cands = dict(zip(todo, _draw([probs[i] for i in todo], settings["budget"], settings["seconds"], jobs)))
    for i in [i for i in todo if isinstance(cands[i], dict)]:
        results[i] = _failed(probs[i], cands[i]["error"], device, kernel_version)
        todo.remove(i)
    bar = S._Bar(progress, "sweep (ray)", len(probs), "problems")
    errors = {i: {} for i in todo}
    counts = {i: [0, 0] for i in todo}    # timed, replayed
    infos = {i: [] for i in todo}
    pending = {}
    timer_arg = timer if (timer is None or isinstance(timer, str)) else timer

    def keys_of(i, batch):
        return [S.timing_key(device, kernel_version, probs[i], cands[i][j]["config"], rnd, r, w)
                for j, rnd, r, w in batch]

    def advance(i):
        """Feed journaled timings; submit the rest of the next batch; finish when done."""
        h = states[i]
        while True:
            batch = h.next_batch()
            if not batch:
                try:
                    r = S._report(probs[i], cands[i], h, errors[i], counts[i][0], counts[i][1],
                                  time.perf_counter() - h.started, device, kernel_version)
                except MeasureError as exc:   # every plan failed: recorded, the sweep goes on
                    results[i] = _failed(probs[i], f"MeasureError: {exc}", device, kernel_version)
                    bar.step(len(results))
                    return
                r["ray_tasks"] = infos[i]
                results[i] = r
                if parent is not None:
                    parent.put_result(rkeys[i], r)
                if save:
                    save_results(save, [r])
                bar.step(len(results))
                return
            keys = keys_of(i, batch)
            todo_items = []
            for (j, rnd, reps, warm), key in zip(batch, keys):
                got = parent.timing(key) if parent is not None else None
                if got is not None:
                    counts[i][1] += 1
                    h.feed(j, rnd, got)
                else:
                    todo_items.append((j, rnd, reps, warm, cands[i][j]["config"]))
            if todo_items:
                ref = task.remote(probs[i], todo_items, timer_arg, device, compile)
                pending[ref] = (i, dict(zip([(j, rnd) for j, rnd, *_ in batch], keys)))
                return

    for i in todo:
        budget = settings["budget"]
        n = len(cands[i])
        states[i] = S.Halving(n, budget=budget if budget is not None else n,
                              seconds=settings["seconds"], reps=settings["reps"], eta=settings["eta"],
                              chunk=max(8, budget or 8), reference=bool(cands[i] and cands[i][0]["default"]))
        advance(i)
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            i, keymap = pending.pop(ref)
            out, info = ray.get(ref)
            infos[i].append(info)
            h = states[i]
            for j, rnd, samples, err in out:
                if samples is None:
                    errors[i][j] = err
                    h.feed(j, rnd, None)
                    continue
                counts[i][0] += 1
                h.feed(j, rnd, samples)
                if parent is not None:
                    parent.put_timing(keymap[(j, rnd)], samples, problem=probs[i],
                                      config=cands[i][j]["config"], round=rnd, reps=len(samples),
                                      device=device)
            advance(i)
    bar.close()
    return [results[i] for i in range(len(probs))]


if __name__ == "__main__":  # the per-GPU worker of a sweep
    if "--worker" in sys.argv[1:]:
        sys.exit(_worker_main(sys.argv[1:]))
    print("python -m fastswz.cuda.sweep --worker: started by fastswz tune --measure --corpus",
          file=sys.stderr)
    sys.exit(2)
