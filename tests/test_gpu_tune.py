"""On a Hopper GPU: the measured search, tuned tables driving gemm, and a sweep (skips elsewhere).

The issue-29 targets (exhaustive timing of 12 problems, the 24-plan search within 3%, the table
never slower, held-out regret) are tests/gpu/tune/exhaustive.py; the 1-vs-2-GPU sweep is
tests/gpu/tune/sweep_gpus.py.
"""

from __future__ import annotations

import json
import warnings

import pytest


pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("hopper_gpu")]


@pytest.fixture(autouse=True)
def _no_table():
    from fastswz.cuda import tuned

    yield
    tuned.use_tuned(None)


def test_search_times_plans_as_gemm_runs_them_and_replays(tmp_path):
    from fastswz.cuda import choose_plan, search_plans

    r = search_plans(3000, 5000, 1000, budget=8, journal=tmp_path)
    assert r["plans"] == 8 and r["default"]["config"] == choose_plan(3000, 5000, 1000)
    ok = [x for x in r["rows"] if x["median_ms"] is not None]
    assert len(ok) >= 6 and all(x["median_ms"] > 0 for x in ok)
    assert r["best"]["median_ms"] <= r["default"]["median_ms"]
    # the leaders were timed more often than the first round's losers
    assert ok[0]["reps"] > min(x["reps"] for x in ok)
    again = search_plans(3000, 5000, 1000, budget=8, journal=tmp_path)
    assert again["timings"] == 0 and again["best"]["config"] == r["best"]["config"]


def test_a_tuned_table_drives_gemm(tmp_path):
    torch = pytest.importorskip("torch")
    from fastswz.cuda import choose_plan, gemm, search_plans, tuned

    r = search_plans(1000, 1000, 520, budget=6, use_cache=False)
    path = tmp_path / "t.json"
    tuned.save_results(path, [r])
    assert tuned.use_tuned(path) is not None            # checked against this GPU at first use
    assert choose_plan(1000, 1000, 520) == r["best"]["config"]
    a = torch.randn(1000, 520, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(1000, 520, device="cuda", dtype=torch.bfloat16)
    d = gemm(a, w.t())
    ref = a.float() @ w.float().t()
    assert float((d.float() - ref).norm() / ref.norm()) < 1e-2
    assert tuned.active() is not None


def test_a_table_of_another_gpu_is_ignored_here(tmp_path):
    from fastswz.cuda import tuned

    path = tmp_path / "t.json"
    entry = {"m": 64, "n": 64, "k": 64, "a_dtype": "bf16", "b_dtype": "bf16", "a_major": "K",
             "b_major": "K", "out_dtype": "bf16", "config": {"bm": 64, "bn": 64}}
    tuned.TunedTable([entry], gpu="Another GPU|sm9.0|1sms").save(path)
    tuned.use_tuned(path)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert tuned.lookup(64, 64, 64, "bf16", "bf16", "K", "K", "bf16") is None
    assert any("measured on Another GPU" in str(x.message) for x in w)
    assert tuned.active() is None


def test_sweep_on_this_host_resumes(tmp_path):
    from fastswz.cuda import sweep

    probs = [dict(m=1024, n=2048, k=1024), dict(m=777, n=1500, k=512, a_major="MN")]
    res = sweep.sweep_problems(probs, gpus=1, budget=4, journal=tmp_path / "j",
                               save=tmp_path / "t.json")
    assert [r["problem"]["a_major"] for r in res] == ["K", "MN"]
    assert all(r["best"]["median_ms"] > 0 for r in res)
    table = json.loads((tmp_path / "t.json").read_text())
    assert len(table["entries"]) == 2 and table["gpu"] == res[0]["device"]
    again = sweep.sweep_problems(probs, gpus=1, budget=4, journal=tmp_path / "j")
    assert all(r["from_journal"] for r in again)
