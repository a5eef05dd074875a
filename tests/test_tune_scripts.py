"""The GPU scripts of issue 29 (tests/gpu/tune/) run end to end on the CPU, their GPU replaced by
the CPU stand-in timer (``fastswz.cuda.search.stand_in_timer``, named as such) and a stand-in
device: every part runs, writes its JSON and prints its table, so a GPU run does not stop on a
Python error. What they measure is only real on the GPU."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from fastswz.cuda import runtime, search as S, sweep as W, tuned as T

HERE = Path(__file__).resolve().parent / "gpu" / "tune"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_tune_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    # the scripts put the checkout's src/ first on sys.path (for the GPU machine); kept there, a
    # later test's subprocess (PYTHONPATH = sys.path) would import an unbuilt src/fastswz
    saved = list(sys.path)
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path[:] = saved
    return mod


@pytest.fixture
def stand_in_gpu(monkeypatch):
    info = {"name": "Stand-in GPU", "compute_capability": "9.0", "sms": 132, "driver": 0,
            "nvrtc": "-"}
    monkeypatch.setattr(runtime, "device_info", lambda: dict(info))
    monkeypatch.setattr(T, "gpu_id", lambda info=None: "Stand-in GPU|sm9.0|132sms")
    monkeypatch.setattr(S, "gpu_timer", S.stand_in_timer)
    monkeypatch.setattr(S, "gpu_compile", lambda configs, jobs=None: None)
    saved = dict(T._STATE)
    yield
    T._STATE.clear()
    T._STATE.update(saved)


def test_exhaustive_script_runs_every_part(stand_in_gpu, tmp_path, capsys):
    ex = _load("exhaustive")
    ex.PROBLEMS, ex.HELD_OUT = ex.PROBLEMS[:2], ex.HELD_OUT[:1]
    assert ex.main(["run", "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "o"),
                    "--no-torch"]) == 0
    out = capsys.readouterr().out
    assert "search within 3% of the exhaustive best: 2/2" in out
    assert "held-out mean regret" in out
    d = json.loads((tmp_path / "o" / "exhaustive.json").read_text())
    assert [tuple(p["problem"]) for p in d["problems"]] == ex.PROBLEMS
    for p in d["problems"]:
        assert p["plans"] > 200 and p["exhaustive"]["best_ms"] > 0 and "table" in p
    assert len(d["held_out"]) == 1 and len(T.load_tuned(tmp_path / "o" / "tuned.json")) == 2


def test_sweep_script_runs_on_two_stand_in_gpus(stand_in_gpu, tmp_path, monkeypatch, capsys):
    real = W.sweep_problems

    def stand_in(probs, **kw):   # workers with the stand-in timer, as on two GPUs
        return real(probs, **dict(kw, timer="fastswz.cuda.search:stand_in_timer",
                                  device="cpu-stand-in", compile=False))
    monkeypatch.setattr(W, "sweep_problems", stand_in)
    monkeypatch.setattr(W, "visible_gpus", lambda: ["0", "1"])
    sw = _load("sweep_gpus")
    sw.PROBLEMS = sw.PROBLEMS[:4]
    assert sw.main(["run", "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "same winner on 4/4" in out and "all resumed: True" in out
    d = json.loads((tmp_path / "o" / "sweep_gpus.json").read_text())
    assert set(d["timings_per_worker"]) == {"gpu0", "gpu1"}
    assert all(v > 0 for v in d["timings_per_worker"].values())
