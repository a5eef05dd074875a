"""The arithmetic of benchmarks/gpu_corpus.py on the CPU: repeats under a budget, ratios, the
per-bucket summary, the targets, the selection and the timing loop's order, fed fake timings.

The GPU run itself needs an H100; everything it computes from its timings is checked here against
values worked out from the fake inputs (logs, medians, shares), never against printed answers.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from fastswz.corpus import BUCKETS, GemmProblem, load_corpus

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_corpus.py"
_spec = importlib.util.spec_from_file_location("gpu_corpus", SCRIPT)
gc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gc)


def _problem(m, n, k, dt="bf16", bucket="prefill", name=None):
    return GemmProblem(name or f"p{m}x{n}x{k}.{dt}", "M" if bucket in BUCKETS[:3] else None,
                       "l" if bucket in BUCKETS[:3] else None, m, n, k, dt, dt, "bf16", "K", "K", bucket)


def _row(name, bucket, dt, fsw_ms, cublas_ms, roof_ms, *, kind="same", ok=True, error=None):
    p = _problem(64, 64, 64, dt, bucket, name)
    row = {"name": p.name, "bucket": bucket, "a_dtype": dt, "flops": p.flops, "bytes": p.bytes,
           "roofline_ms": roof_ms, "plan": None}
    if error:
        row["error"] = error
        return row
    row["fastswz"] = {"median_ms": fsw_ms}
    row["cublas"] = {"median_ms": cublas_ms, "kind": kind}
    row["check"] = {"ok": ok, "rel_err": 1e-3, "unwritten": 0}
    return row


# -- estimates and repeats --------------------------------------------------------------------------
def test_estimate_is_the_slower_of_flops_and_bytes():
    big, small = _problem(8192, 8192, 8192), _problem(1, 8192, 8192)
    for p in (big, small):
        want = max(p.flops / gc.NOMINAL_FLOPS["bf16"], p.bytes / gc.NOMINAL_BANDWIDTH) + gc.LAUNCH_S
        assert gc.estimate_s(p) == pytest.approx(want)
    assert gc.estimate_s(big) - gc.LAUNCH_S == pytest.approx(big.flops / gc.NOMINAL_FLOPS["bf16"])
    assert gc.estimate_s(small) - gc.LAUNCH_S == pytest.approx(small.bytes / gc.NOMINAL_BANDWIDTH)
    assert gc.estimate_s(small, bandwidth=1e12) > gc.estimate_s(small)


def test_reps_fit_the_budget_and_shrink_with_the_estimate():
    rng = random.Random(7)
    est = [10 ** rng.uniform(-5, -1) for _ in range(200)]
    budget = 0.5 * sum(gc.run_cost_s(e, 30, 2) for e in est)
    reps, total = gc.choose_reps(est, budget, warmup=2, min_reps=5, max_reps=30)
    assert total <= budget
    assert total == pytest.approx(sum(gc.run_cost_s(e, r, 2) for e, r in zip(est, reps)))
    assert all(5 <= r <= 30 for r in reps)
    pairs = sorted(zip(est, reps))
    assert all(r1 >= r2 for (_, r1), (_, r2) in zip(pairs, pairs[1:]))  # longer -> fewer
    assert pairs[0][1] == 30 and pairs[-1][1] == 5
    # the target is the largest that fits: one more step of it would not
    more = [max(5, min(30, r + 1)) for r in reps]
    assert sum(gc.run_cost_s(e, r, 2) for e, r in zip(est, more)) > budget


def test_reps_when_everything_fits_or_nothing_does():
    est = [1e-5, 1e-3, 1e-1]
    reps, total = gc.choose_reps(est, 1e6, max_reps=40)
    assert reps == [40, 40, 40]
    reps, total = gc.choose_reps(est, 1e-3, min_reps=3)
    assert reps == [3, 3, 3]
    assert total == pytest.approx(sum(gc.run_cost_s(e, 3, 2) for e in est)) and total > 1e-3
    fixed = [1.0, 2.0, 3.0]
    reps, total = gc.choose_reps(est, 1e6, max_reps=10, fixed_s=fixed)
    assert total == pytest.approx(sum(gc.run_cost_s(e, 10, 2) for e in est) + 6.0)


def test_long_problems_get_fewer_repeats_under_the_cap():
    est = [1e-5, 2e-2, 9.5e-2, 1.0]
    reps, _ = gc.choose_reps(est, 1e6, min_reps=5, max_reps=30, max_timed_s=1.0)
    assert reps == [30, 30, max(5, int(1.0 / 9.5e-2)), 5]
    assert all(r * e <= 1.0 or r == 5 for r, e in zip(reps, est))
    tight, _ = gc.choose_reps(est, 20.0, min_reps=5, max_reps=30, max_timed_s=1.0)
    assert all(t <= r for t, r in zip(tight, reps))


def test_a_repeat_costs_at_least_the_host_queueing():
    tiny = gc.run_cost_s(1e-9, 10, 0) - gc.PROBLEM_S
    assert tiny == pytest.approx(2 * 10 * max(1e-9 + gc.FLUSH_S, gc.HOST_S))


# -- ratios and the summary -------------------------------------------------------------------------
def test_derive():
    row = _row("x", "prefill", "bf16", 3.0, 2.0, 0.5)
    d = gc.derive(row)
    assert d["time_ratio"] == pytest.approx(3.0 / 2.0)
    assert d["speed"] == pytest.approx(2.0 / 3.0)
    assert d["fastswz_roofline_pct"] == pytest.approx(100 * 0.5 / 3.0)
    assert d["cublas_roofline_pct"] == pytest.approx(100 * 0.5 / 2.0)
    assert d["fastswz_tflops"] == pytest.approx(row["flops"] / 3.0e-3 / 1e12)
    assert gc.derive(_row("e", "prefill", "bf16", 0, 0, 1, error="boom")) == {}


def _fake_rows(seed):
    rng = random.Random(seed)
    rows = []
    for i in range(120):
        bucket = rng.choice(BUCKETS)
        dt = rng.choice(["bf16", "e4m3"])
        c = 10 ** rng.uniform(-3, 1)
        f = c * 10 ** rng.uniform(-0.3, 0.3)
        roof = min(c, f) * rng.uniform(0.2, 1.0)
        kind = "bf16 (torch._scaled_mm refused: ...)" if dt == "e4m3" and rng.random() < 0.1 else "same"
        rows.append(_row(f"r{i}", bucket, dt, f, c, roof, kind=kind, ok=rng.random() > 0.05))
    rows.append(_row("broken", "decode", "bf16", 0, 0, 1, error="RuntimeError: launch failed"))
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_group_stats_against_the_definitions(seed):
    rows = _fake_rows(seed)
    s = gc.group_stats(rows)
    good = [r for r in rows if not r.get("error") and r["check"]["ok"]]
    same = [r for r in good if r["cublas"]["kind"] == "same"]
    fall = [r for r in good if r["cublas"]["kind"] != "same"]
    t = [r["fastswz"]["median_ms"] / r["cublas"]["median_ms"] for r in same]
    speed = [1 / x for x in t]
    roof = [100 * r["roofline_ms"] / r["fastswz"]["median_ms"] for r in good]
    assert (s["problems"], s["failed"], s["timed"], s["fallback"]) == (len(rows), len(rows) - len(good), len(same), len(fall))
    assert s["geomean_time_ratio"] == pytest.approx(math.exp(statistics.fmean(math.log(x) for x in t)))
    assert s["share_at_0_9"] == pytest.approx(sum(x >= 0.9 for x in speed) / len(speed))
    assert s["below_0_75"] == sum(x < 0.75 for x in speed)
    assert s["worst_speed"] == pytest.approx(min(speed))
    assert s["worst"] == same[speed.index(min(speed))]["name"]
    assert s["roofline_pct_median"] == pytest.approx(statistics.median(roof))
    assert s["roofline_pct_min"] == pytest.approx(min(roof))
    assert s["share_at_80_roofline"] == pytest.approx(sum(x >= 80 for x in roof) / len(roof))
    cb_roof = [100 * r["roofline_ms"] / r["cublas"]["median_ms"] for r in good]
    assert s["cublas_roofline_pct_median"] == pytest.approx(statistics.median(cb_roof))
    tf = [r["fastswz"]["median_ms"] / r["cublas"]["median_ms"] for r in fall]
    assert s["fallback_geomean_time_ratio"] == pytest.approx(math.exp(statistics.fmean(math.log(x) for x in tf)))


def test_summarize_groups_every_bucket_and_type():
    rows = _fake_rows(4)
    summary = gc.summarize(rows)
    keys = list(summary)
    assert keys[0] == "all"
    present = [b for b in BUCKETS if any(r["bucket"] == b for r in rows)]
    assert [k for k in keys if "/" not in k][1:] == present
    for b in present:
        for dt in ("bf16", "e4m3"):
            sub = [r for r in rows if r["bucket"] == b and r["a_dtype"] == dt]
            if sub:
                assert summary[f"{b}/{dt}"] == gc.group_stats(sub)
        assert summary[b]["problems"] == sum(r["bucket"] == b for r in rows)
    assert summary["all"]["problems"] == len(rows)


def test_verdicts():
    even = [_row(f"d{i}", "decode", "bf16", 1.0, 1.0, 0.9) for i in range(10)]
    met = gc.verdicts(gc.summarize(even))
    assert [m for _, m, _ in met] == [True, True, True, True, True]
    slow = even + [_row("slow", "prefill", "bf16", 2.0, 1.0, 0.1)]  # 0.5x: one below 0.75x
    v = dict((text.split(" ")[0], met) for text, met, _ in gc.verdicts(gc.summarize(slow)))
    assert v["none"] is False and v["geometric"] is False
    detail = [d for text, _, d in gc.verdicts(gc.summarize(slow)) if text.startswith("none")][0]
    assert "slow" in detail and "0.50x" in detail
    starved = [_row("d", "decode", "bf16", 1.0, 1.0, 0.5)]  # 50% of the roofline
    assert [m for t, m, _ in gc.verdicts(gc.summarize(starved)) if t.startswith("decode")] == [False]
    broken = even + [_row("e", "ragged", "bf16", 0, 0, 1, error="x")]
    assert [m for t, m, _ in gc.verdicts(gc.summarize(broken)) if t.startswith("no failed")] == [False]


def test_formatting():
    row = _row("llama3-8b.qkv.m1.bf16", "decode", "bf16", 0.029, 0.0175, 0.0169)
    row["plan"] = {"bm": 64, "bn": 32, "bk": 64, "stages": 8, "epilogue": True, "epilogue_n": 0,
                   "epilogue_stages": 1, "cluster_m": 1, "tile_group": 8}
    line = gc.format_row(row)
    assert line.startswith("llama3-8b.qkv.m1.bf16") and "64x32x64 s8 epi32x1" in line
    assert f"{0.0175 / 0.029:.2f}x" in line and "29.0 us" in line and "ok" in line
    assert "ERROR boom" in gc.format_row(_row("e", "decode", "bf16", 0, 0, 1, error="boom"))
    fb = _row("f", "ragged", "e4m3", 1.0, 2.0, 0.5, kind="bf16 (refused)")
    assert "2.00 ms*" in gc.format_row(fb)
    assert gc.plan_text({"bm": 128, "bn": 256, "bk": 64, "stages": 4, "epilogue": False,
                         "swap_ab": True, "cluster_m": 2}) == "128x256x64 s4 regs cluster_m=2 swap_ab=True"
    text = gc.format_summary(gc.summarize(_fake_rows(5)))
    assert "targets (issue 27):" in text and text.count("\n  ") == 5


# -- the selection ----------------------------------------------------------------------------------
def test_selection():
    problems = load_corpus()
    shards = [gc.select(problems, shard=(i, 4)) for i in range(4)]
    assert sorted(p.name for s in shards for p in s) == sorted(p.name for p in problems)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1
    for s in shards:  # round robin: every shard gets every bucket
        assert {p.bucket for p in s} == set(BUCKETS)
    sub = gc.select(problems, subset="llama3-8b.*.m1.*, square.*")
    assert sub and all(p.name.startswith(("llama3-8b.", "square.")) for p in sub)
    assert all(".m1." in p.name for p in sub if p.name.startswith("llama3"))
    assert gc.select(problems, limit=7) == problems[:7]
    assert gc.parse_shard("3/8") == (3, 8)
    for bad in ("3", "8/8", "-1/2", "a/b"):
        with pytest.raises(Exception, match="--shard"):
            gc.parse_shard(bad)


# -- the timing loop's order, on a fake torch --------------------------------------------------------
class _FakeTorch:
    def __init__(self, times):
        self.log, self.times, self.cuda = [], list(times), self
        self.int64 = "int64"

    def Event(self, enable_timing):  # torch.cuda.Event
        torch = self

        class Ev:
            def record(self):
                torch.log.append("record")
                self.at = len(torch.log)

            def elapsed_time(self, other):
                return torch.times.pop(0)
        return Ev()

    def synchronize(self):
        self.log.append("sync")


class _FakeFlush:
    def __init__(self, log):
        self.log = log

    def fill_(self, v):
        self.log.append("flush memset")

    def sum(self, dtype=None):
        self.log.append("flush read")


def test_timing_loop_queues_and_synchronizes_once():
    times = [1.0, 3.0, 2.0, 5.0, 4.0]
    g = object.__new__(gc._Gpu)
    g.torch = _FakeTorch(times)
    g.flush = _FakeFlush(g.torch.log)
    g.flush_kind = "read"
    r = g.time(lambda: g.torch.log.append("fn"), reps=5, warmup=2)
    assert g.torch.log == ["flush read", "fn"] * 2 + ["flush read", "record", "fn", "record"] * 5 + ["sync"]
    assert r["median_ms"] == statistics.median(times) and r["min_ms"] == min(times)
    assert r["spread"] == pytest.approx(max(times) / min(times) - 1) and r["reps"] == 5
    g.torch.log.clear()
    g.torch.times = list(times)
    g.flush_kind = "memset"
    g.time(lambda: g.torch.log.append("fn"), reps=5, warmup=2)
    assert g.torch.log[:4] == ["flush memset", "fn", "flush memset", "fn"]


# -- the commands without a GPU ----------------------------------------------------------------------
def test_summary_command(tmp_path, capsys):
    rows = _fake_rows(6)
    for i, chunk in enumerate((rows[:60], rows[60:])):
        (tmp_path / f"s{i}.json").write_text(json.dumps({"header": {"dram_bandwidth_gbps": 3000.0}, "rows": chunk}))
    assert gc.main(["summary", str(tmp_path / "s0.json"), str(tmp_path / "s1.json"), "--table"]) == 0
    out = capsys.readouterr().out
    assert f"{len(rows)} problems from 2 file(s)" in out and "r0 " in out
    assert "targets (issue 27):" in out


def test_dry_run_needs_no_gpu_stack():
    code = (f"import sys, runpy; sys.argv = ['gpu_corpus.py', 'run', '--dry-run', '--bucket', 'decode'];"
            f"\ntry:\n    runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'cupy', 'cuda')]\n"
            "print('GPU MODULES', bad)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "dry run: 168 problems" in r.stdout, r.stdout + r.stderr
    assert "GPU MODULES []" in r.stdout


def test_precompile_fills_the_cache(tmp_path):
    pytest.importorskip("cuda.core")
    pytest.importorskip("cuda.bindings.nvrtc")
    env = dict(os.environ, FASTSWZ_CACHE=str(tmp_path))
    r = subprocess.run([sys.executable, str(SCRIPT), "precompile", "--subset", "square.512.*,ragged.777x*",
                        "--jobs", "2"], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "precompile: 4 problems, 4 distinct GEMMs ->" in r.stdout
    cubins = list((tmp_path / "cubin").glob("*.cubin"))
    plans = int(r.stdout.split("-> ")[1].split(" distinct default plans")[0])
    assert 1 <= plans <= 4 and len(cubins) == plans
    assert f"{plans} new cubins" in r.stdout


# -- the whole run on a fake GPU: numpy behind a torch-shaped module ---------------------------------
class _DType:
    def __init__(self, name, size):
        self.name, self.size = name, size

    def __repr__(self):
        return f"torch.{self.name}"


class _FakeCudaTorch:
    """The slice of torch the run uses, on numpy (float64 values whatever the dtype), with a
    registry from data_ptr() to storage so that a fake kernel can find its operands."""

    def __init__(self):
        import types

        import numpy as np

        self.np = np
        self.rng = np.random.default_rng(0)
        self.storage = {}
        for name, size in (("bfloat16", 2), ("float16", 2), ("float32", 4), ("float64", 8), ("float8_e4m3fn", 1),
                           ("float8_e5m2", 1), ("int32", 4), ("int64", 8), ("uint8", 1)):
            setattr(self, name, _DType(name, size))
        self.__version__, self.version = "fake", types.SimpleNamespace(cuda="fake")
        self.cuda, self.launches = self, 0

    # tensors
    def _t(self, a, dtype):
        t = _FakeTensor(self, a, dtype)
        self.storage[t.data_ptr()] = a
        return t

    def empty(self, *shape, dtype=None, device=None):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape
        return self._t(self.np.zeros(shape), dtype or self.float32)

    def empty_like(self, t):
        return self.empty(*t.a.shape, dtype=t.dtype)

    def randn(self, *shape, device=None, dtype=None):
        return self._t(self.rng.standard_normal(shape), dtype)

    def ones(self, shape, device=None):
        return self._t(self.np.ones(shape), self.float32)

    def linspace(self, a, b, steps, device=None):
        return _FakeTensor(self, self.np.linspace(a, b, steps), self.float32)

    def matmul(self, a, b):
        return self._t(a.a @ b.a, a.dtype)

    def _scaled_mm(self, a, b, scale_a, scale_b, out_dtype):
        if a.a.shape[1] % 16 or b.a.shape[1] % 16:
            raise RuntimeError("Expected trailing dimension of mat1 to be divisible by 16 (fake)")
        return self._t(a.a @ b.a, out_dtype)

    def cat(self, ts, dim):
        return _FakeTensor(self, self.np.concatenate([t.a for t in ts], axis=dim), ts[0].dtype)

    def isnan(self, t):
        return _FakeTensor(self, self.np.isnan(t.a), self.float32)

    def nan_to_num(self, t, nan):
        return _FakeTensor(self, self.np.nan_to_num(t.a, nan=nan), t.dtype)

    # torch.cuda
    def init(self):
        pass

    def get_device_properties(self, i):
        import types
        return types.SimpleNamespace(L2_cache_size=1 << 20)

    def Event(self, enable_timing):  # torch.cuda.Event
        torch = self

        class Ev:
            def record(self):
                torch.launches += 1
                self.at = torch.launches

            def elapsed_time(self, other):
                return 0.001 * (other.at - self.at)
        return Ev()

    def synchronize(self):
        pass

    def memory_reserved(self):
        return 0

    def empty_cache(self):
        pass


class _FakeTensor:
    def __init__(self, torch, a, dtype):
        self.torch, self.a, self.dtype = torch, a, dtype

    def data_ptr(self):
        return self.a.__array_interface__["data"][0]

    def stride(self, i):
        return self.a.strides[i] // self.a.itemsize

    def element_size(self):
        return self.dtype.size

    def __getitem__(self, idx):
        idx = idx.a.astype(int) if isinstance(idx, _FakeTensor) else idx
        return _FakeTensor(self.torch, self.a[idx], self.dtype)

    def t(self):
        return _FakeTensor(self.torch, self.a.T, self.dtype)

    def to(self, dtype):
        return self.torch._t(self.a.copy(), dtype)

    def float(self):
        return _FakeTensor(self.torch, self.a.astype(float), self.torch.float32)

    def round(self):
        return _FakeTensor(self.torch, self.a.round(), self.dtype)

    def long(self):
        return _FakeTensor(self.torch, self.a.astype(int), self.dtype)

    def unique(self):
        return _FakeTensor(self.torch, self.torch.np.unique(self.a), self.dtype)

    def numel(self):
        return self.a.size

    def sum(self, dtype=None):
        return _FakeTensor(self.torch, self.a.sum(), dtype or self.dtype)

    def norm(self):
        return _FakeTensor(self.torch, self.torch.np.linalg.norm(self.a), self.dtype)

    def clamp_min(self, x):
        return _FakeTensor(self.torch, max(self.a, x), self.dtype)

    def __sub__(self, o):
        return _FakeTensor(self.torch, self.a - o.a, self.dtype)

    def __mul__(self, o):
        return _FakeTensor(self.torch, self.a * o.a, self.dtype)

    def __matmul__(self, o):
        return _FakeTensor(self.torch, self.a @ o.a, self.dtype)

    @property
    def shape(self):
        return self.a.shape

    def double(self):
        return _FakeTensor(self.torch, self.a.astype(float), self.torch.float64)

    def __truediv__(self, o):
        return _FakeTensor(self.torch, self.a / o.a, self.dtype)

    def __int__(self):
        return int(self.a)

    def __float__(self):
        return float(self.a)

    def fill_(self, v):
        self.a[...] = v

    def copy_(self, src):
        self.a[...] = src.a


class _FakeKernel:
    """What GemmKernel._prepare promises: D (M x N, pitch ldd) = A x B read from device
    pointers, A K-major (M rows of pitch lda) or MN-major (K rows), B K-major (W: N rows of
    pitch ldb) or MN-major (K rows of N). ``skip_last``: leave D's last column unwritten."""

    def __init__(self, torch, cfg, skip_last=False):
        self.torch, self.config, self.skip_last = torch, cfg, skip_last

    def _prepare(self, pa, pb, pd, m, n, k, lda, ldb, ldd):
        st = self.torch.storage
        sa, sw, sd = st[pa], st[pb], st[pd]
        assert (sa.shape[1], sw.shape[1], sd.shape[1]) == (lda, ldb, ldd)
        a = sa[:, :k] if self.config["a_major"] == "K" else sa[:, :m].T
        b = sw[:, :k].T if self.config["b_major"] == "K" else sw[:, :n]
        assert a.shape == (m, k) and b.shape == (k, n)

        def go():
            self.torch.launches += 1
            sd[:, :n - 1 if self.skip_last else n] = (a @ b)[:, :n - 1 if self.skip_last else n]
        return go


def _tiny_corpus(path):
    rows = []

    def add(name, m, n, k, dt, bucket, model=None, layer=None, majors=("K", "K")):
        rows.append({"name": name, "model": model, "layer": layer, "m": m, "n": n, "k": k,
                     "a_dtype": dt, "b_dtype": dt, "out_dtype": "bf16", "a_major": majors[0],
                     "b_major": majors[1], "bucket": bucket, "shared_by": []})

    add("tiny.qkv.m1.bf16", 1, 96, 64, "bf16", "decode", "Tiny", "qkv")
    add("tiny.qkv.m48.e4m3", 48, 96, 64, "e4m3", "small", "Tiny", "qkv")
    add("tiny.qkv.m48.bf16", 48, 96, 64, "bf16", "small", "Tiny", "qkv")
    add("ragged.33x50x40.e4m3", 33, 50, 40, "e4m3", "ragged")           # _scaled_mm refuses K = 40
    add("ragged.33x50x41.bf16", 33, 50, 41, "bf16", "ragged")           # padded pitches
    add("square.64.bf16.MN-MN", 64, 64, 64, "bf16", "square", majors=("MN", "MN"))
    add("square.64.bf16.MN-K", 64, 64, 64, "bf16", "square", majors=("MN", "K"))
    add("long_k.48x96x2048.bf16", 48, 96, 2048, "bf16", "long_k")
    add("ragged.100x100x100.bf16", 100, 100, 100, "bf16", "ragged")
    add("square.100.bf16", 100, 100, 100, "bf16", "square")            # the same GEMM: timed once
    data = {"format": "fastswz-gemm-corpus", "version": 1,
            "models": [{"model": "Tiny", "layers": ["qkv"]}], "problems": rows}
    path.write_text(json.dumps(data))
    return rows


@pytest.mark.parametrize("broken, launch", [(False, "prepared"), (True, "prepared"), (False, "gemm")])
def test_run_end_to_end_on_a_fake_gpu(tmp_path, monkeypatch, capsys, broken, launch):
    import fastswz.cuda

    torch = _FakeCudaTorch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(fastswz.cuda, "device_info", lambda: {"name": "Fake H100", "sms": 132},
                        raising=False)

    def compile_plans(plans, jobs):
        cfgs = {gc._config_id(c): c for c, _ in plans.values() if c}
        return {cid: _FakeKernel(torch, c, skip_last=broken) for cid, c in cfgs.items()}, {}, 0.0, 0
    monkeypatch.setattr(gc, "compile_plans", compile_plans)

    def gemm(a, b, out, plan):  # fastswz.cuda.gemm's contract on these tensors
        assert out.a.shape == (a.a.shape[0], b.a.shape[1]) and out.stride(1) == 1
        torch.launches += 1
        out.a[...] = a.a @ b.a
    monkeypatch.setattr(fastswz.cuda, "gemm", gemm)
    real_bw = gc._Gpu.bandwidth
    monkeypatch.setattr(gc._Gpu, "bandwidth", lambda self: real_bw(self, nbytes=1 << 16, reps=3))
    rows = _tiny_corpus(tmp_path / "tiny.json")
    out = tmp_path / "run.json"
    assert gc.main(["run", "--corpus", str(tmp_path / "tiny.json"), "--out", str(out), "--jobs", "1",
                    "--reps", "3", "--warmup", "1", "--launch", launch]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert sorted(r["name"] for r in data["rows"]) == sorted(r["name"] for r in rows)
    by = {r["name"]: r for r in data["rows"]}
    for r in data["rows"]:
        assert r["check"]["ok"] is (not broken), r
        assert r["fastswz"]["reps"] == 3 and r["cublas"]["reps"] == 3 and r["launch"] == launch
        assert r["estimate_ms"] > 0
        assert r["plan"]["a_major"] == r["a_major"] and r["plan"]["b_major"] == r["b_major"]
        assert r["roofline_ms"] == pytest.approx(1e3 * r["bytes"] / (data["header"]["dram_bandwidth_gbps"] * 1e9))
        assert r["name"] in text
    assert by["ragged.33x50x40.e4m3"]["cublas"]["kind"].startswith("bf16 (torch._scaled_mm refused")
    assert by["tiny.qkv.m48.e4m3"]["cublas"]["kind"] == "same"
    twins = [by["ragged.100x100x100.bf16"], by["square.100.bf16"]]
    assert sum("same_as" in r for r in twins) == 1
    assert twins[0]["fastswz"] == twins[1]["fastswz"] and twins[0]["cublas"] == twins[1]["cublas"]
    if broken:
        assert all(r["check"]["unwritten"] > 0 for r in data["rows"])
        assert data["summary"]["all"]["failed"] == len(rows) and "MISS  no failed problem" in text
    else:
        assert data["summary"]["all"]["timed"] == len(rows) - 1 and data["summary"]["all"]["fallback"] == 1
        assert all(r["check"]["rel_err"] < 1e-12 for r in data["rows"])
    assert data["summary"] == gc.summarize(data["rows"])
    assert "targets (issue 27):" in text and "Fake H100" in text


def _fake_run(tmp_path, monkeypatch, kernel, extra=()):
    """gpu_corpus run over the tiny corpus on the fake GPU with ``kernel(torch, cfg)`` kernels."""
    import fastswz.cuda

    torch = _FakeCudaTorch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(fastswz.cuda, "device_info", lambda: {"name": "Fake H100", "sms": 132},
                        raising=False)
    monkeypatch.setattr(gc, "compile_plans", lambda plans, jobs: (
        {gc._config_id(c): kernel(torch, c) for c, _ in plans.values() if c}, {}, 0.0, 0))
    real_bw = gc._Gpu.bandwidth
    monkeypatch.setattr(gc._Gpu, "bandwidth", lambda self: real_bw(self, nbytes=1 << 16, reps=3))
    rows = _tiny_corpus(tmp_path / "tiny.json")
    out = tmp_path / "run.json"
    assert gc.main(["run", "--corpus", str(tmp_path / "tiny.json"), "--out", str(out), "--jobs", "1",
                    "--reps", "2", "--warmup", "0", *extra]) == 0
    return rows, json.loads(out.read_text())


def test_a_failing_launch_is_a_row_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    class Faulty(_FakeKernel):
        def _prepare(self, pa, pb, pd, m, n, k, lda, ldb, ldd):
            if self.config["a_major"] == "MN":
                raise RuntimeError("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (fake)")
            return super()._prepare(pa, pb, pd, m, n, k, lda, ldb, ldd)

    rows, data = _fake_run(tmp_path, monkeypatch, Faulty)
    text = capsys.readouterr().out
    bad = [r for r in data["rows"] if r.get("error")]
    assert sorted(r["name"] for r in bad) == sorted(r["name"] for r in rows if r["a_major"] == "MN")
    assert all("CUDA_ERROR_INVALID_VALUE" in r["error"] and "ERROR" in text for r in bad)
    assert len(data["rows"]) == len(rows) and data["header"]["stopped"] is None
    assert data["summary"]["all"]["failed"] == len(bad)


def test_the_deadline_stops_the_run_with_its_json(tmp_path, monkeypatch, capsys):
    rows, data = _fake_run(tmp_path, monkeypatch, _FakeKernel, ["--deadline", "0"])
    text = capsys.readouterr().out
    assert data["rows"] == [] and data["header"]["stopped"]["of"] == len(rows)
    assert "deadline: stopped after 0 of" in text
    assert data["summary"]["all"]["problems"] == 0
    assert [met for _, met, _ in gc.verdicts(data["summary"])] == [None] * 5


def test_a_plan_with_epilogue_operands_goes_through_gemm(tmp_path, monkeypatch):
    # The prepared launch passes no epilogue operands (bias, scales, ...): a fused plan is timed
    # through fastswz.cuda.gemm; schedules (swap-AB, split-K, ping-pong) stay on the prepared one.
    import fastswz.cuda

    calls = []

    def gemm(a, b, out, plan):
        calls.append(plan.config["activation"])
        out.a[...] = a.a @ b.a
    monkeypatch.setattr(fastswz.cuda, "gemm", gemm)

    class Fused(_FakeKernel):
        def __init__(self, torch, cfg):
            super().__init__(torch, dict(cfg, swap_ab=True, activation="relu"))

        def _prepare(self, *args):
            raise AssertionError("the prepared launch passes no epilogue operands")

    rows, data = _fake_run(tmp_path, monkeypatch, Fused)
    assert all(r["launch"] == "gemm" and r["check"]["ok"] for r in data["rows"])
    assert calls and all(c == "relu" for c in calls)
    assert gc._unfused({"swap_ab": True, "split_k": 4}) and not gc._unfused({"activation": "relu"})


def test_prepared_keys_are_kernel_keys():
    # A plan key beyond PREPARED_KEYS (a schedule added later) makes the benchmark time such plans
    # through fastswz.cuda.gemm; add a key here once GemmKernel._prepare runs it with plain
    # pointers. Every key listed must be one the kernel has.
    from fastswz.cuda.codegen import GEMM_KEYS

    assert gc.PREPARED_KEYS <= set(GEMM_KEYS)
    assert {"bm", "bn", "bk", "stages", "epilogue", "epilogue_n", "cluster_m"} <= gc.PREPARED_KEYS


def test_a_noisy_problem_is_timed_again_both_libraries(monkeypatch):
    # a pass whose repeats spread more than RETIME_SPREAD in either library is repeated for both,
    # at most RETIME_PASSES passes; each library keeps its own steadiest pass (the first among
    # equals) and the others are recorded
    def timing(median, spread):
        return {"median_ms": median, "min_ms": median, "max_ms": median * (1 + spread), "spread": spread}

    calls = []

    class Gpu:
        def time(self, fn, reps, warmup):
            calls.append(fn)
            return next(passes)

    class Ops:
        def make(self, p):
            return None, None, None, None, None

    monkeypatch.setattr(gc, "_launcher", lambda *a: ("fastswz", "prepared"))
    monkeypatch.setattr(gc, "_cublas", lambda *a: ("cublas", "same", "lib"))
    passes = iter([timing(1.0, 14.0), timing(2.0, 0.1), timing(1.1, 0.2), timing(2.1, 0.1)])
    out = gc._time_one(None, Gpu(), Ops(), None, None, 5, 1, check=False)
    assert calls == ["fastswz", "cublas", "fastswz", "cublas"]
    assert out["fastswz"]["median_ms"] == 1.1 and out["cublas"]["median_ms"] == 2.0
    assert out["retimed"]["fastswz"][0]["spread"] == 14.0 and out["retimed"]["cublas"][0]["median_ms"] == 2.1
    # fastswz disturbed in the second pass, cuBLAS in the first: each keeps its steady one
    calls.clear()
    passes = iter([timing(1.0, 0.3), timing(9.0, 50.0), timing(7.0, 40.0), timing(2.0, 0.2)])
    out = gc._time_one(None, Gpu(), Ops(), None, None, 5, 1, check=False)
    assert out["fastswz"]["median_ms"] == 1.0 and out["cublas"]["median_ms"] == 2.0
    # still disturbed: RETIME_PASSES passes, then the steadiest
    calls.clear()
    passes = iter([timing(5.0 + i, 10.0 - i) for i in range(2 * gc.RETIME_PASSES)])
    out = gc._time_one(None, Gpu(), Ops(), None, None, 5, 1, check=False)
    assert len(calls) == 2 * gc.RETIME_PASSES
    assert out["fastswz"]["spread"] == 10.0 - 2 * (gc.RETIME_PASSES - 1)
    assert len(out["retimed"]["fastswz"]) == gc.RETIME_PASSES - 1
    # a steady pass is not repeated
    calls.clear()
    passes = iter([timing(1.0, 0.5), timing(2.0, gc.RETIME_SPREAD)])
    out = gc._time_one(None, Gpu(), Ops(), None, None, 5, 1, check=False)
    assert calls == ["fastswz", "cublas"] and "retimed" not in out


def test_the_check_holds_both_libraries_to_float64_where_they_differ():
    """Where D and cuBLAS's result differ by the bound, D passes only if it is within the bound
    of the float64 product: an inaccurate cuBLAS does not fail a right D, and a wrong D still
    fails when cuBLAS is right (the 1-7 x 336 x 32400 bf16 case of the fifteenth session)."""
    import types

    torch = _FakeCudaTorch()
    np = torch.np
    m, n, k = 40, 9000, 64      # N above 4096: the float64 product is taken in column blocks
    a = torch._t(torch.rng.standard_normal((m, k)), torch.bfloat16)
    b = torch._t(torch.rng.standard_normal((k, n)), torch.bfloat16)
    sa = torch._t(torch.rng.uniform(0.5, 1.5, m), torch.float32)
    sb = torch._t(torch.rng.uniform(0.5, 1.5, n), torch.float32)
    p = types.SimpleNamespace(m=m, n=n, a_dtype="bf16")
    exact = a.a @ b.a
    noise = torch.rng.standard_normal((m, n)) * np.linalg.norm(exact) / np.sqrt(m * n)
    t = lambda x: torch._t(np.array(x, dtype=float), torch.bfloat16)  # noqa: E731

    right = gc._check(torch, p, t(exact), t(exact), gc._exact_rows(torch, a, b))
    assert right["ok"] and "judge" not in right and right["rel_err"] == 0
    off_cublas = gc._check(torch, p, t(exact + 1e-4 * noise), t(exact + 0.05 * noise),
                           gc._exact_rows(torch, a, b))
    assert off_cublas["ok"] and off_cublas["judge"] == "float64"
    assert off_cublas["rel_err"] > 1e-2 > off_cublas["rel_err_f64"]
    assert off_cublas["cublas_rel_err_f64"] == pytest.approx(0.05, rel=0.05)
    wrong = gc._check(torch, p, t(exact + 0.05 * noise), t(exact), gc._exact_rows(torch, a, b))
    assert not wrong["ok"] and wrong["rel_err_f64"] == pytest.approx(0.05, rel=0.05)
    assert not gc._check(torch, p, t(exact + 0.05 * noise), t(exact))["ok"]   # no float64: cuBLAS decides
    poisoned = exact.copy()
    poisoned[0, 0] = np.nan
    nan = gc._check(torch, p, t(poisoned), t(exact), gc._exact_rows(torch, a, b))
    assert not nan["ok"] and nan["unwritten"] == 1 and "judge" not in nan
    scaled = (a.a * sa.a[:, None]) @ (b.a * sb.a[None, :])
    got = gc._exact_rows(torch, a, b, sa, sb)(torch._t(np.arange(m), torch.int64))
    assert np.array_equal(got.a, scaled)
    assert "(float64: " in gc.format_row({"name": "x", "plan": None, "check": off_cublas,
                                          "fastswz": {"median_ms": 1.0}, "m": m, "n": n, "k": k,
                                          "bytes": 1, "flops": 1, "roofline_ms": 1.0})


_dspec = importlib.util.spec_from_file_location("gpu_durations", ROOT / "benchmarks" / "gpu_durations.py")
gd = importlib.util.module_from_spec(_dspec)
_dspec.loader.exec_module(gd)


def test_traced_durations_split_at_the_markers_and_skip_the_flush():
    rng = random.Random(7)
    kernels, want, t = [], [], 0.0
    kernels.append((t, "gemm_before_any_marker", 99.0))   # before the first marker: ignored
    for rep in range(6):
        t += 5
        kernels.append((t, "void at::cuda::spin_kernel(long)", 1.0))
        t += 2
        kernels.append((t, "reduce_kernel<flush>", 40.0))
        parts = [rng.uniform(1, 30) for _ in range(rng.choice((1, 2)))]   # a GEMM and maybe a reduction
        for d in parts:
            t += 50
            kernels.append((t, f"gemm_part_{len(parts)}", d))
        want.append(sum(parts))
    t += 5
    kernels.append((t, "void at::cuda::spin_kernel(long)", 1.0))   # a launch the trace lost
    rng.shuffle(kernels)   # the trace's order is not the launches'
    got = gd.segment_durations(kernels, {"reduce_kernel<flush>"})
    assert got[:-1] == pytest.approx(want) and got[-1] is None
    assert gd.segment_durations([(0.0, "gemm", 3.0)], set()) == []


def test_durations_summary_counts_decode_rows_against_the_target():
    rows = []
    for i, (m, roof, f, c) in enumerate([(1, 8.0, 10.0, 9.0), (8, 8.0, 9.0, 12.0), (16, 4.0, 6.0, 4.5),
                                          (64, 8.0, 40.0, 8.0), (1, 8.0, None, 9.0)]):
        rows.append({"name": f"p{i}", "m": m, "roofline_us": roof, "fastswz_us": f, "cublas_us": c})
    s = gd.summarize(rows)
    assert s["problems"] == 3   # M = 64 is not decode; a row without fastswz's duration is left out
    fsw = [8 / 10, 8 / 9, 4 / 6]
    cub = [8 / 9, 8 / 12, 4 / 4.5]
    assert s["fastswz"]["median"] == pytest.approx(statistics.median(fsw))
    assert s["fastswz"]["at_target"] == pytest.approx(sum(x >= 0.8 for x in fsw) / 3)
    assert s["cublas"]["median"] == pytest.approx(statistics.median(cub))
    assert s["cublas"]["at_target"] == pytest.approx(sum(x >= 0.8 for x in cub) / 3)
