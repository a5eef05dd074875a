"""Sweeps on the CPU: one worker process per (pretend) GPU, the journal that makes them resumable,
a worker killed mid-problem, the corpus file and the command line; and the Ray path against a
real local Ray cluster that declares two GPUs (skipped without ray).

Timings come from CPU stand-ins, named as such: ``fastswz.cuda.search:stand_in_timer`` (model
cycles with a fixed factor per epilogue and cluster; its own doctest documents it) and, for the
crash, a timer module written by the test. Workers are real processes, the Ray cluster is real
and the Ray tasks' compiles are real NVRTC compiles.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest

from fastswz import PlanError
from fastswz.cuda import search as S
from fastswz.cuda import sweep as W
from fastswz.cuda import tuned as T

STAND_IN = "fastswz.cuda.search:stand_in_timer"     # a CPU stand-in for the GPU's timer
PROBLEMS = [dict(m=3000, n=5000, k=1000), dict(m=2048, n=2048, k=2048),
            dict(m=1024, n=8192, k=4096, a_major="MN"), dict(m=512, n=4096, k=4096)]


def _timings(jdir):
    recs = []
    for f in sorted(jdir.glob("*.jsonl")):
        for line in f.read_text().splitlines():
            try:
                recs.append((f.name, json.loads(line)))
            except ValueError:
                pass
    return recs


def _sweep(tmp_path, **kw):
    kw.setdefault("journal", tmp_path / "j")
    kw.setdefault("save", tmp_path / "t.json")
    return W.sweep_problems(PROBLEMS, timer=kw.pop("timer", STAND_IN), device="cpu-stand-in",
                            kernel_version=kw.pop("kernel_version", "stand-in-1"), compile=False,
                            budget=kw.pop("budget", 8), **kw)


def test_two_workers_share_the_problems_and_a_rerun_times_nothing(tmp_path):
    first = _sweep(tmp_path, gpus=2)
    assert [S.problem_key(r["problem"]) for r in first] == [
        S.problem_key(S.problem_of(**p)) for p in PROBLEMS]
    # each problem searched with its own candidates, the same as a one-process search
    for r, p in zip(first, PROBLEMS):
        alone = S.search_plans(**p, budget=8, timer=S.stand_in_timer, device="cpu-stand-in",
                               kernel_version="stand-in-1", use_cache=False)
        assert r["best"]["config"] == alone["best"]["config"]
        assert r["best"]["median_ms"] == alone["best"]["median_ms"]
    recs = _timings(tmp_path / "j")
    by_file = {}
    for name, rec in recs:
        if rec["type"] == "timing":
            by_file[name] = by_file.get(name, 0) + 1
    assert len(by_file) == 2 and all(v > 0 for v in by_file.values())   # both workers timed
    keys = [rec["key"] for _, rec in recs if rec["type"] == "timing"]
    assert len(keys) == len(set(keys)) == sum(r["timings"] for r in first)
    table = T.load_tuned(tmp_path / "t.json")
    assert len(table) == 4 and table.gpu == "cpu-stand-in"
    again = _sweep(tmp_path, gpus=2)
    assert all(r["from_journal"] for r in again)
    assert [r["best"]["config"] for r in again] == [r["best"]["config"] for r in first]
    assert len(_timings(tmp_path / "j")) == len(recs)          # nothing appended


CRASHY = '''
import os, json
from fastswz.cuda.search import stand_in_timer

def timer(config, m, n, k, reps, warmup):
    """Exits the worker (as a killed process would) at its 6th call, once per sweep."""
    state = os.environ["CRASHY_DIR"]
    calls = os.path.join(state, "calls")
    n_calls = len(open(calls).read().splitlines()) if os.path.exists(calls) else 0
    if n_calls == 5 and not os.path.exists(os.path.join(state, "crashed")):
        open(os.path.join(state, "crashed"), "w").close()
        os._exit(9)
    out = stand_in_timer(config, m, n, k, reps, warmup)
    with open(calls, "a") as f:
        f.write(json.dumps([config, m, n, k, reps]) + "\\n")
    return out
'''


def test_a_killed_worker_is_restarted_and_nothing_is_timed_twice(tmp_path, monkeypatch, capfd):
    (tmp_path / "crashy_timer.py").write_text(textwrap.dedent(CRASHY))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("CRASHY_DIR", str(tmp_path))
    res = _sweep(tmp_path, gpus=1, timer="crashy_timer:timer")
    assert (tmp_path / "crashed").exists()
    assert "exited (9) during problem 0; starting it again" in capfd.readouterr().err
    calls = (tmp_path / "calls").read_text().splitlines()
    keys = [rec["key"] for _, rec in _timings(tmp_path / "j") if rec["type"] == "timing"]
    assert len(calls) == len(keys) == len(set(keys))     # every completed timing once
    assert res[0]["replayed"] == 5                         # the dead worker's five came back
    # the same winners as a sweep that never crashed
    clean = W.sweep_problems(PROBLEMS, timer=STAND_IN, device="cpu-stand-in",
                             kernel_version="stand-in-1", compile=False, budget=8, use_cache=False)
    assert [r["best"]["config"] for r in res] == [r["best"]["config"] for r in clean]


def test_sweep_errors(monkeypatch):
    monkeypatch.setattr(W, "visible_gpus", lambda: ["0", "1"])
    monkeypatch.setattr(S, "_gpu_identity", lambda: ("fake-gpu", "fake-1"))
    with pytest.raises(PlanError, match=r"gpus=3: only 2 GPU\(s\) are visible here"):
        W.sweep_problems(PROBLEMS, gpus=3, use_cache=False)
    with pytest.raises(PlanError, match="gpus=0 must be >= 1"):
        W.sweep_problems(PROBLEMS, timer=STAND_IN, device="x", gpus=0, use_cache=False)
    with pytest.raises(TypeError, match="needs device="):
        W.sweep_problems(PROBLEMS, timer=STAND_IN)
    with pytest.raises(TypeError, match="each must be a dict with m, n, k"):
        W.sweep_problems([{"m": 1}], timer=STAND_IN, device="x")


@pytest.mark.parametrize("text,needle", [
    ("[]", "must be a non-empty JSON list"),
    ("{\"problems\": 3}", "must be a non-empty JSON list"),
    ("[{\"m\": 64, \"n\": 64}]", "problem 0 ({'m': 64, 'n': 64}) needs m, n and k"),
    ("[{\"m\": 64, \"n\": 64, \"k\": 0}]", "problem 0: k=0 must be >= 1"),
    ("[{\"m\": 64, \"n\": 64, \"k\": 64, \"a_dtype\": \"s99\"}]", "problem 0:"),
    ("nope", "not JSON"),
])
def test_corpus_errors(tmp_path, text, needle):
    p = tmp_path / "c.json"
    p.write_text(text)
    with pytest.raises(PlanError, match="--corpus .*" + needle.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("{", r"\{")):
        W.read_corpus(p)


def test_corpus_accepts_a_problems_object(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"problems": PROBLEMS, "note": "any such file"}))
    got = W.read_corpus(p)
    assert [g["a_major"] for g in got] == ["K", "K", "MN", "K"] and got[0]["out_dtype"] == "bf16"


def test_cli_sweep(tmp_path, monkeypatch, capsys):
    from fastswz.cli import main

    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps(PROBLEMS))
    real = W.sweep_problems
    seen = {}

    def stand_in_sweep(problems, **kw):   # the CLI's sweep with the CPU stand-in timer
        seen.update(kw)
        return real(problems, **dict(kw, timer=STAND_IN, device="cpu-stand-in",
                                     kernel_version="stand-in-1", compile=False, gpus=2))
    monkeypatch.setattr(W, "sweep_problems", stand_in_sweep)
    table = tmp_path / "t.json"
    assert main(["tune", "--measure", "--corpus", str(corpus), "--budget", "6", "--save",
                 str(table)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# measured search") and len(out) == 2 + 4 + 1
    assert out[2].startswith("3000 x 5000 x 1000 bf16 x bf16 (K/K) -> bf16: best")
    assert "default's regret mean" in out[-1] and str(table) in out[-1]
    assert seen["journal"] == str(table) + ".journal" and seen["budget"] == 6
    assert len(T.load_tuned(table)) == 4
    assert main(["tune", "--measure", "--corpus", str(corpus), "--budget", "6", "--save",
                 str(table), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(d["results"]) == 4 and all(r["from_journal"] for r in d["results"])


# -- Ray ------------------------------------------------------------------------------------------------
def test_ray_sweep_on_a_local_cluster_with_two_gpus(tmp_path, monkeypatch):
    """A real local Ray cluster declaring 2 GPUs (this machine has none): every batch of plans is
    one task asking for one GPU; the task compiles its plans with NVRTC (real compiles, an empty
    cubin cache) and times them with the CPU stand-in. The driver gathers the winners into the
    table and resumes from its journal."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("cuda.core")
    monkeypatch.setenv("FASTSWZ_CACHE", str(tmp_path / "cache"))
    ray.init(num_cpus=2, num_gpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"FASTSWZ_CACHE": str(tmp_path / "cache")}})
    try:
        probs = PROBLEMS[:2]
        kw = dict(timer=STAND_IN, device="cpu-stand-in", kernel_version="stand-in-1", budget=4,
                  journal=tmp_path / "j", save=tmp_path / "t.json", ray="auto")
        res = W.sweep_problems(probs, **kw)
        tasks = [t for r in res for t in r["ray_tasks"]]
        # one task per round of each problem's halving, each on one of the two declared GPUs
        assert len(tasks) >= 2 * 2
        assert {t["cuda_visible_devices"] for t in tasks} <= {"0", "1"}
        assert sum(t["compiled"] for t in tasks) >= 4              # real NVRTC compiles
        assert len(list((tmp_path / "cache" / "cubin").glob("*.cubin"))) >= 4
        for r, p in zip(res, probs):
            alone = S.search_plans(**p, budget=4, timer=S.stand_in_timer, device="cpu-stand-in",
                                   kernel_version="stand-in-1", use_cache=False)
            assert r["best"]["config"] == alone["best"]["config"]
        assert len(T.load_tuned(tmp_path / "t.json")) == 2
        again = W.sweep_problems(probs, **kw)
        assert all(r["from_journal"] for r in again)
        # a third problem later: only it is submitted
        more = W.sweep_problems(PROBLEMS[:3], **kw)
        assert [bool(r.get("from_journal")) for r in more] == [True, True, False]
        assert len(T.load_tuned(tmp_path / "t.json")) == 3
    finally:
        ray.shutdown()


def test_ray_missing_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(Exception, match=r"needs Ray: pip install 'fastswz\[ray\]'"):
        W.sweep_problems(PROBLEMS[:1], timer=STAND_IN, device="x", ray="auto", use_cache=False)


FAILING = '''
from fastswz.cuda.search import stand_in_timer

def timer(config, m, n, k, reps, warmup):
    """Every plan of the 2048 x 2048 x 2048 problem fails to launch (a stand-in failure)."""
    if (m, n, k) == (2048, 2048, 2048):
        raise RuntimeError("launch failed (stand-in)")
    return stand_in_timer(config, m, n, k, reps, warmup)
'''


def test_a_problem_that_cannot_be_searched_does_not_stop_the_sweep(tmp_path, monkeypatch):
    (tmp_path / "failing_timer.py").write_text(textwrap.dedent(FAILING))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    probs = [dict(m=512, n=512, k=512, a_dtype="e4m3", b_dtype="e4m3", a_major="MN"),
             dict(m=2048, n=2048, k=2048), dict(m=3000, n=5000, k=1000)]
    res = W.sweep_problems(probs, timer="failing_timer:timer", device="cpu-stand-in",
                           kernel_version="stand-in-1", compile=False, budget=4, gpus=2,
                           journal=tmp_path / "j", save=tmp_path / "t.json")
    assert res[0]["best"] is None and "PlanError" in res[0]["error"]          # no plan: fp8 MN
    assert res[1]["best"] is None and "every one of the 4 plans" in res[1]["error"]
    assert res[2]["best"]["median_ms"] > 0
    table = T.load_tuned(tmp_path / "t.json")
    assert list(table.entries) == [S.problem_key(S.problem_of(3000, 5000, 1000))]
