"""The measured search on the CPU: candidate drawing, successive halving, budgets, the journal,
tuned-plan tables and choose_plan's use of them, and the command line.

Times come from fake timers defined here (true times per plan plus seeded noise), never from a
GPU; each test checks what the search did with them (which plans it timed, how often, what won),
against the fake's own truth.
"""

from __future__ import annotations

import json
import math
import random
import warnings

import pytest

import fastswz
from fastswz import MeasureError, PlanError
from fastswz.cuda import choose_plan, normalize_config, supported
from fastswz.cuda import search as S
from fastswz.cuda import tuned as T
from fastswz.cuda.errors import CudaUnavailableError

PROBLEM = (3000, 5000, 1000)


@pytest.fixture(autouse=True)
def _no_table():
    saved = dict(T._STATE)
    T._STATE.update(table=None, env_done=True, suspended=0, gpu_checked=True)
    yield
    T._STATE.clear()
    T._STATE.update(saved)


class FakeTimer:
    """True milliseconds per plan from a seeded hash of its configuration (so the model's order
    says nothing about them), times (1 + noise); records every call."""

    def __init__(self, noise=0.005, seed=1, fail=lambda c: False, slow=None):
        self.noise, self.seed, self.fail, self.slow = noise, seed, fail, slow
        self.calls = []
        self.rng = random.Random(seed)

    def truth(self, config):
        c = normalize_config(config)
        h = random.Random(json.dumps([c, self.seed], sort_keys=True))
        return 1.0 + h.random() if self.slow is None else self.slow(c)

    def __call__(self, config, m, n, k, reps, warmup):
        self.calls.append((json.dumps(normalize_config(config), sort_keys=True), reps, warmup))
        if self.fail(normalize_config(config)):
            raise RuntimeError("launch failed (fake)")
        t = self.truth(config)
        return [t * (1.0 + self.noise * self.rng.random()) for _ in range(reps)]


def _search(timer, **kw):
    kw.setdefault("use_cache", False)
    return S.search_plans(*PROBLEM, timer=timer, device="fake", kernel_version="fake-1", **kw)


# -- candidates -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def every():
    return S.candidates(*PROBLEM)


def test_candidates_cover_every_class_once(every):
    classes = [(c["config"]["bm"], c["config"]["bn"], c["kind"], c["cluster_m"], c["cluster_n"]) for c in every]
    assert len(classes) == len(set(classes))
    assert {c["kind"] for c in every} == set(S.KINDS)
    assert {c["cluster_m"] for c in every} == {1, 2}
    # every tile shape the family runs with register stores: BM 64..256, BN 16..256
    want = {(bm, bn) for bm in (64, 128, 192, 256) for bn in range(16, 257, 16)
            if supported(dict(bm=bm, bn=bn, bk=64, stages=2)) is None}
    assert {(c["config"]["bm"], c["config"]["bn"]) for c in every} == want
    assert len(want) > 40
    for c in every:
        assert supported(c["config"]) is None
        assert S.kind_of(c["config"]) == c["kind"]
        if c["kind"] != "registers" and not c["default"]:
            assert c["config"]["stages"] >= fastswz.cuda.EPILOGUE_MIN_STAGES
        if c["kind"].startswith("blocks"):
            assert c["config"]["bn"] % 64 == 0 and c["config"]["bn"] > 64


def test_candidates_start_with_the_default_then_the_best_shapes(every):
    assert every[0]["default"] and every[0]["config"] == choose_plan(*PROBLEM)
    assert sum(c["default"] for c in every) == 1
    ranked = fastswz.tune(*PROBLEM, top=1 << 30)
    shapes = list(dict.fromkeys((r["bm"], r["bn"]) for r in ranked))
    # right after the default, rows off the sector (K = 1000 bf16): 2 x 2 clusters of the
    # default's tile and of SQUARE_CLUSTER_SHAPES, full-width k-tiles
    square = [c for c in every if c["cluster_n"] == 2]
    assert every[1:1 + len(square)] == square and {c["cluster_m"] for c in square} == {2}
    assert {(c["config"]["bm"], c["config"]["bn"]) for c in square} == {
        (every[0]["config"]["bm"], every[0]["config"]["bn"])} | set(S.SQUARE_CLUSTER_SHAPES)
    assert all(c["config"]["bk"] * 16 >= 8 * fastswz.cuda.FULL_WIDTH_BK for c in square)
    every = [c for c in every if c["cluster_n"] == 1]
    # then the model's two best shapes in every epilogue and cluster along M
    head = [(c["config"]["bm"], c["config"]["bn"]) for c in every[1:12]]
    assert set(head) <= set(shapes[:2]) and len(set(head)) == 2
    firsts = {(c["config"]["bm"], c["config"]["bn"], c["kind"], c["cluster_m"]) for c in every[:12]}
    for s in shapes[:2]:
        kinds = {k for (bm, bn, k, _) in firsts if (bm, bn) == s}
        assert "registers" in kinds and "tile" in kinds
    # a budget is a prefix
    assert S.candidates(*PROBLEM, budget=24) == S.candidates(*PROBLEM)[:24]


def test_candidate_is_the_models_best_row_of_its_class(every):
    """choose_plan's rule per class: the shape's best row with the most of its stages that fit
    the epilogue; only where none fits, the best-ranked row of the shape that runs."""
    ranked = fastswz.tune(*PROBLEM, top=1 << 30)
    rank = {(r["bm"], r["bn"], r["bk"], r["stages"], r["swizzle_a"], r["swizzle_b"]): r["rank"]
            for r in ranked}
    first = {}
    # rows off the 32-byte sector (K = 1000 bf16): per shape, its best full-width row
    # (choose_plan's SECTOR_FULL_WIDTH_BITS), else its best row
    for r in sorted(ranked, key=lambda r: r["bk"] * 16 < 8 * fastswz.cuda.FULL_WIDTH_BK):
        first.setdefault((r["bm"], r["bn"]), r)
    lowest = {True: fastswz.cuda.EPILOGUE_MIN_STAGES, False: 2}
    kinds = {"rule": 0, "fallback": 0}
    for c in every[1:40]:
        cfg = c["config"]
        top = first[(cfg["bm"], cfg["bn"])]
        assert rank[(cfg["bm"], cfg["bn"], cfg["bk"], cfg["stages"], cfg["swizzle_a"],
                     cfg["swizzle_b"])] == c["model_rank"]
        same = {f: top[f] for f in ("bk", "swizzle_a", "swizzle_b")}
        fits = [st for st in range(lowest[cfg["epilogue"]], top["stages"] + 1)
                if supported(dict(cfg, stages=st, **same)) is None]
        if fits:
            kinds["rule"] += 1
            assert {f: cfg[f] for f in same} == same and cfg["stages"] == max(fits), c
            continue
        kinds["fallback"] += 1
        for r in ranked:   # no better-ranked row of the same shape runs in this class
            if r["rank"] >= c["model_rank"]:
                break
            if (r["bm"], r["bn"]) != (cfg["bm"], cfg["bn"]) or r["stages"] < lowest[cfg["epilogue"]]:
                continue
            alt = dict(cfg, bk=r["bk"], stages=r["stages"], swizzle_a=r["swizzle_a"],
                       swizzle_b=r["swizzle_b"])
            assert supported(alt) is not None, (c, r)
    assert kinds["rule"] > 20


@pytest.mark.parametrize("problem", [(1, 4096, 4096), (16, 4096, 4096, "e4m3", "e4m3"), (256, 256, 65536),
                                     (128, 7168, 18432), (2048, 2048, 2048), (4096, 4096, 4096)])
def test_candidates_draw_the_schedules_where_they_can_help(problem):
    """Swap-AB for M <= 128 (N > M) and split-K where the tiles leave SMs idle, as choose_plan
    picks them: each class's row is the model's best of its shape in the kernel's frame, its
    splits keep 2 waves and 8 k-tiles per split; none where the tiles already fill the SMs. With a
    swap-AB or split-K default they come right after it, else after the two best shapes."""
    from fastswz.cuda import schedule_frame

    p = S.problem_of(*problem)
    every = S.candidates(*problem)
    sched = [(i, c) for i, c in enumerate(every) if c["config"]["swap_ab"] or c["config"]["split_k"] > 1]
    dflt = every[0]["config"]
    if problem == (4096, 4096, 4096):
        assert not sched
        return
    assert len(sched) >= 3 + (dflt["swap_ab"] or dflt["split_k"] > 1)
    swaps = {c["config"]["swap_ab"] for _, c in sched}
    assert swaps == ({True, False} if p["m"] <= 128 else {False})
    ranks = {}
    for i, c in sched:
        cfg = c["config"]
        assert supported(cfg) is None and not cfg["epilogue"] and c["kind"] == "registers"
        km, kn, (ta, ma), (tb, mb) = schedule_frame(p["m"], p["n"], p["a_dtype"], p["b_dtype"],
                                                    p["a_major"], p["b_major"], cfg["swap_ab"])
        tiles = -(-km // cfg["bm"]) * -(-kn // cfg["bn"])
        kt = -(-p["k"] // cfg["bk"])
        assert cfg["swap_ab"] or tiles <= 132
        if c["default"]:   # choose_plan's own split rules (tests/test_cuda_gemm.py derives them)
            continue
        assert cfg["split_k"] == 1 or (tiles * cfg["split_k"] <= 2 * 132 and kt // cfg["split_k"] >= 8)
        if cfg["swap_ab"] not in ranks:
            ranks[cfg["swap_ab"]] = fastswz.tune(km, kn, p["k"], ta, tb, ma, mb, top=1 << 30)
        best = next(r for r in ranks[cfg["swap_ab"]] if (r["bm"], r["bn"]) == (cfg["bm"], cfg["bn"])
                    and supported(fastswz.cuda.schedule_config(r, p["a_dtype"], p["b_dtype"], p["a_major"],
                                                               p["b_major"], p["out_dtype"], cfg["swap_ab"])) is None)
        assert (best["bk"], best["stages"], best["rank"]) == (cfg["bk"], cfg["stages"], c["model_rank"])
    first = min(i for i, c in sched if not c["default"])
    if dflt["swap_ab"] or dflt["split_k"] > 1:
        assert every[0] == sched[0][1] and first == 1
    else:
        # before them: the default and every single-pass class of the model's two best shapes
        ranked = fastswz.tune(*problem, top=1 << 30)
        two = list(dict.fromkeys((r["bm"], r["bn"]) for r in ranked))[:2]
        assert first >= 8 and all((c["config"]["bm"], c["config"]["bn"]) in two for c in every[1:first])
        assert S.candidates(*problem, budget=24)[first] == every[first]


def test_no_cluster_wider_than_the_rows():
    for c in S.candidates(64, 8192, 4096, budget=40):
        assert c["cluster_m"] == 1 or -(-64 // c["config"]["bm"]) >= 2


def test_candidates_errors():
    with pytest.raises(PlanError, match="budget=0 must be >= 1"):
        S.candidates(*PROBLEM, budget=0)
    with pytest.raises(PlanError, match="m=0 must be >= 1"):
        S.candidates(0, 5000, 1000)


# -- successive halving ---------------------------------------------------------------------------------
def test_halving_times_the_budget_and_finds_the_fake_best():
    drawn = S.candidates(*PROBLEM, budget=16)
    # a fake whose fastest of the 16 leads the next by more than the noise (the seed that gives
    # one depends on the configurations' keys, which grow with the kernel family)
    seed = next(s for s in range(1, 200) if (lambda t: t[1] / t[0])(sorted(
        FakeTimer(seed=s).truth(c["config"]) for c in drawn)) > 1.01)
    timer = FakeTimer(seed=seed)
    r = _search(timer, budget=16)
    timed = {c for c, _, _ in timer.calls}
    assert timed == {json.dumps(c["config"], sort_keys=True) for c in drawn}
    assert r["plans"] == 16 and r["timings"] == len(timer.calls)
    # the winner is the fake's fastest of the 16 (noise 0.5% is below the gaps here)
    truth = {json.dumps(c["config"], sort_keys=True): timer.truth(c["config"]) for c in drawn}
    gaps = sorted(truth.values())
    assert gaps[1] / gaps[0] > 1.01
    assert json.dumps(r["best"]["config"], sort_keys=True) == min(truth, key=truth.get)
    # round 0: every plan DEFAULT_REPS repeats; later rounds double them, for fewer plans
    first = [c for c in timer.calls[:16]]
    assert all(reps == S.DEFAULT_REPS for _, reps, _ in first)
    per_round = {}
    for _, reps, _ in timer.calls[16:]:
        per_round[reps] = per_round.get(reps, 0) + 1
    assert sorted(per_round) == [6, 12, 24]
    assert per_round[6] > per_round[12] > per_round[24] >= 2
    # leaders got more samples than the rest; the default plan was timed in every round
    reps = {x["index"]: x["reps"] for x in r["rows"]}
    assert reps[r["rows"][0]["index"]] == max(reps.values())
    assert reps[0] == max(reps.values()) and r["default"]["reps"] == max(reps.values())
    assert r["regret"] == pytest.approx(r["default"]["median_ms"] / r["best"]["median_ms"] - 1)
    assert [x["rank"] for x in r["rows"]] == list(range(1, 17))


def test_halving_rounds_by_hand():
    h = S.Halving(6, budget=6, reps=1, eta=3, chunk=6, reference=True)
    b = h.next_batch()
    assert [(i, rnd, r) for i, rnd, r, _ in b] == [(i, 0, 1) for i in range(6)]
    with pytest.raises(MeasureError, match="were not fed back"):
        h.next_batch()
    for i, rnd, r, _ in b:
        h.feed(i, rnd, [10.0 - i])            # 5 is fastest, 0 (the reference) slowest
    b = h.next_batch()                      # keep ceil(6/3) = 2, plus the reference
    assert [(i, rnd, r) for i, rnd, r, _ in b] == [(5, 1, 3), (4, 1, 3), (0, 1, 3)]
    for i, rnd, r, _ in b:
        h.feed(i, rnd, [10.0 - i] * r)
    assert h.next_batch() == []
    assert h.ranking()[:3] == [5, 4, 0]


def test_seconds_budget_stops_drawing_and_halving():
    clock = [0.0]
    timer = FakeTimer(slow=lambda c: 1.0 + c["bn"] / 1000)

    def ticking(config, m, n, k, reps, warmup):
        clock[0] += 1.0                      # every timing costs one fake second
        return timer(config, m, n, k, reps, warmup)

    r = S.search_plans(*PROBLEM, timer=ticking, device="fake", kernel_version="f", use_cache=False,
                       budget=None, seconds=20.0, clock=lambda: clock[0], jobs=1)
    # round 0 is handed out in chunks of 8: it stops at the first chunk boundary past 10 s
    assert r["plans"] == 16
    assert "round 0 stopped after 16 plans: half of 20.0 s spent" in r["stopped"]
    assert "halving stopped after round 1: 20.0 s spent" in r["stopped"]
    assert clock[0] <= 20.0 + 16
    r2 = S.search_plans(*PROBLEM, timer=FakeTimer(), device="fake", kernel_version="f",
                        use_cache=False, budget=8, seconds=1e9)
    assert r2["plans"] == 8


def test_failures_are_recorded_and_all_failing_is_an_error():
    timer = FakeTimer(fail=lambda c: c["cluster_m"] == 2)
    r = _search(timer, budget=12)
    bad = [x for x in r["rows"] if x["cluster_m"] == 2]
    assert bad and all(x["median_ms"] is None and "launch failed" in x["error"] for x in bad)
    assert r["rows"][-len(bad):] == bad and r["best"]["cluster_m"] == 1
    with pytest.raises(MeasureError, match="every one of the 4 plans .* failed"):
        _search(FakeTimer(fail=lambda c: True), budget=4)

    def no_gpu(*a):
        raise CudaUnavailableError("no usable NVIDIA GPU (fake)")
    with pytest.raises(CudaUnavailableError, match="fake"):
        _search(no_gpu, budget=4)


def test_search_argument_errors():
    with pytest.raises(PlanError, match="budget=0 must be >= 1"):
        _search(FakeTimer(), budget=0)
    with pytest.raises(PlanError, match="seconds=-1 must be a number > 0"):
        _search(FakeTimer(), seconds=-1)
    with pytest.raises(PlanError, match="eta >= 2"):
        _search(FakeTimer(), eta=1)
    with pytest.raises(TypeError, match="needs device="):
        S.search_plans(*PROBLEM, timer=FakeTimer())


def test_no_gpu_is_a_measure_error(monkeypatch):
    def fail():
        raise CudaUnavailableError("no NVIDIA driver here (fake)")
    monkeypatch.setattr(T, "gpu_id", fail)
    with pytest.raises(MeasureError, match="found no GPU to time on"):
        S.search_plans(*PROBLEM, budget=2, use_cache=False)


# -- the journal --------------------------------------------------------------------------------------
def test_journal_replays_instead_of_timing_again(tmp_path):
    timer = FakeTimer()
    first = _search(timer, budget=12, journal=tmp_path, use_cache=True)
    n = len(timer.calls)
    again = _search(timer, budget=12, journal=tmp_path, use_cache=True)
    assert len(timer.calls) == n and again["timings"] == 0 and again["replayed"] == first["timings"]
    assert again["best"]["config"] == first["best"]["config"]
    assert [x["median_ms"] for x in again["rows"]] == [x["median_ms"] for x in first["rows"]]
    # another device's journal is not this one's
    other = S.search_plans(*PROBLEM, timer=timer, device="fake-2", kernel_version="fake-1",
                           budget=12, journal=tmp_path)
    assert other["timings"] == first["timings"]


def test_interrupted_search_resumes_without_timing_twice(tmp_path):
    timer = FakeTimer()

    class Crash(BaseException):
        pass

    def crashing(config, *a):
        if len(timer.calls) == 20:
            raise Crash
        return timer(config, *a)

    with pytest.raises(Crash):
        _search(crashing, budget=16, journal=tmp_path, use_cache=True)
    assert len(timer.calls) == 20
    # a torn last line (killed mid-write) is skipped
    with open(tmp_path / "journal.jsonl", "a") as f:
        f.write('{"type": "timing", "key": "abc", "sampl')
    r = _search(timer, budget=16, journal=tmp_path, use_cache=True)
    assert r["replayed"] == 20
    keys = [c for c in timer.calls]
    assert len(keys) == 20 + r["timings"]
    text = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert text[20] == '{"type": "timing", "key": "abc", "sampl'      # left torn, skipped
    lines = [json.loads(x) for i, x in enumerate(text) if i != 20]
    ks = [x["key"] for x in lines if x["type"] == "timing"]
    assert len(ks) == len(set(ks)) == 20 + r["timings"]
    # the same winner as an uninterrupted search
    fresh = _search(FakeTimer(), budget=16)
    assert fresh["best"]["config"] == r["best"]["config"]


# -- tuned tables -------------------------------------------------------------------------------------
GPU = "NVIDIA H100 80GB HBM3|sm9.0|132sms"


def _entry(m, n, k, **cfg):
    base = dict(bm=128, bn=256, bk=64, stages=3, epilogue=True, cluster_m=2)
    return {"m": m, "n": n, "k": k, "a_dtype": "bf16", "b_dtype": "bf16", "a_major": "K",
            "b_major": "K", "out_dtype": "bf16", "config": dict(base, **cfg), "median_ms": 0.1}


def test_nearest_entry_must_fill_the_waves_as_well(tmp_path):
    """NEAREST_FILL_LOSS: the H200's case, a 192 x 144 tile that made exactly 3 waves at
    4096 x 2560 but 3.03 at 4707 x 2236 (25.7% slower than the measured best there)."""
    e = _entry(4096, 2560, 5120, bm=192, bn=144, stages=4, cluster_m=1)
    t = T.TunedTable([e], gpu=GPU)
    assert T.wave_fill(e["config"], 4096, 2560) == 1.0
    assert T.wave_fill(e["config"], 4707, 2236) == 400 / (4 * 132)
    assert t.find(4707, 2236, 5040, "bf16", "bf16", "K", "K", "bf16") == (None, None)
    # as full a last wave (4096 x 2432: 22 x 17 = 374 tiles, 0.94 of 3 waves): nearest
    c, how = t.find(4096, 2432, 5000, "bf16", "bf16", "K", "K", "bf16")
    assert how == "nearest" and (c["bm"], c["bn"]) == (192, 144)
    # swapped and split plans count their units in the kernel's frame
    assert T.wave_fill({"bm": 128, "bn": 16, "swap_ab": True, "split_k": 4}, 1, 4096) == 128 / 132


def test_table_exact_nearest_and_model(tmp_path):
    t = T.TunedTable([_entry(3000, 5000, 1000), _entry(8192, 8192, 8192, bn=128, cluster_m=1)],
                     gpu=GPU)
    p = t.save(tmp_path / "t.json")
    assert T.use_tuned(p, gpu=GPU) is not None
    c = choose_plan(3000, 5000, 1000)
    assert (c["bn"], c["cluster_m"]) == (256, 2) and c == normalize_config(c)
    assert T.active().find(3000, 5000, 1000, "bf16", "bf16", "K", "K", "bf16")[1] == "exact"
    # nearest: within a factor 2 ** NEAREST_BOUND (1.19) on every extent
    near = choose_plan(3300, 5500, 1100)
    assert (near["bn"], near["cluster_m"]) == (256, 2)
    assert choose_plan(9000, 9000, 7000)["bn"] == 128            # nearer to 8192^3
    # beyond the bound, other types, other majors, or an explicit epilogue: the model
    model = T.suspended
    for args in [(2000, 5000, 1000), (3000, 5000, 1000, "f16", "f16"),
                 (3000, 5000, 1000, "bf16", "bf16", "MN")]:
        with model():
            want = choose_plan(*args)
        assert choose_plan(*args) == want
    with model():
        want = choose_plan(3000, 5000, 1000, epilogue=False)
    assert choose_plan(3000, 5000, 1000, epilogue=False) == want
    # the fit rule: a 2-CTA cluster of 128-row tiles needs two row tiles
    assert T.active().find(2700, 5000, 1000, "bf16", "bf16", "K", "K", "bf16")[1] == "nearest"
    small = T.TunedTable([_entry(140, 5000, 1000)], gpu=GPU)
    assert small.find(150, 5000, 1000, "bf16", "bf16", "K", "K", "bf16")[1] == "nearest"
    assert small.find(120, 5000, 1000, "bf16", "bf16", "K", "K", "bf16") == (None, None)


def test_table_is_consulted_once_per_problem(monkeypatch):
    t = T.use_tuned(T.TunedTable([_entry(3000, 5000, 1000)], gpu=GPU), gpu=GPU)
    calls = []
    real = t.find
    monkeypatch.setattr(t, "find", lambda *a: calls.append(a) or real(*a))
    for _ in range(3):
        assert T.lookup(3000, 5000, 1000, "bf16", "bf16", "K", "K", "bf16")["bn"] == 256
        assert T.lookup(64, 64, 64, "bf16", "bf16", "K", "K", "bf16") is None
    assert len(calls) == 2


def test_memo_is_cleared_when_the_table_changes(monkeypatch):
    cleared = []
    monkeypatch.setattr(fastswz.cuda.choose_plan, "cache_clear", lambda: cleared.append(1),
                        raising=False)
    T.use_tuned(T.TunedTable([], gpu=GPU), gpu=GPU)
    T.use_tuned(None)
    with T.suspended():
        pass
    assert len(cleared) == 4


def test_stale_tables_are_ignored_with_a_warning(tmp_path):
    t = T.TunedTable([_entry(3000, 5000, 1000)], gpu=GPU, kernel_version="sm90-old-0")
    with pytest.warns(T.TunedTableWarning, match="kernel version 'sm90-old-0'"):
        assert T.use_tuned(t) is None
    assert T.active() is None
    t = T.TunedTable([_entry(3000, 5000, 1000)], gpu="NVIDIA H200|sm9.0|132sms")
    with pytest.warns(T.TunedTableWarning, match="measured on NVIDIA H200.*runs on NVIDIA H100"):
        assert T.use_tuned(t, gpu=GPU) is None
    # without gpu=, the first lookup checks this process's GPU; no GPU here: ignored
    T.use_tuned(t)
    with pytest.warns(T.TunedTableWarning, match="cannot tell which GPU"):
        assert T.lookup(3000, 5000, 1000, "bf16", "bf16", "K", "K", "bf16") is None
    assert T.active() is None


def test_env_variable_names_the_table(tmp_path, monkeypatch):
    p = T.TunedTable([_entry(3000, 5000, 1000)], gpu=GPU).save(tmp_path / "t.json")
    monkeypatch.setenv(T.ENV, str(p))
    monkeypatch.setattr(T, "gpu_id", lambda: GPU)
    T._STATE.update(env_done=False)
    assert choose_plan(3000, 5000, 1000)["cluster_m"] == 2
    assert T.active().source == str(p)
    monkeypatch.setenv(T.ENV, str(tmp_path / "missing.json"))
    T._STATE.update(env_done=False, table=None)
    with pytest.warns(T.TunedTableWarning, match="cannot be read"):
        assert T.lookup(3000, 5000, 1000, "bf16", "bf16", "K", "K", "bf16") is None


@pytest.mark.parametrize("text,needle", [
    ("not json", "not JSON"),
    ('{"format": "other"}', "'format' is not 'fastswz-tuned-plans'"),
    ('{"format": "fastswz-tuned-plans", "format_version": 9}', "format_version=9"),
    ('{"format": "fastswz-tuned-plans", "format_version": 1, "entries": []}', "no 'kernel_version'"),
    ('{"format": "fastswz-tuned-plans", "format_version": 1, "kernel_version": "x", "entries": [{"m": 1}]}',
     "entry 0 must be an object with the problem"),
    ('{"format": "fastswz-tuned-plans", "format_version": 1, "kernel_version": "x", "entries": '
     '[{"m": 1, "n": 1, "k": 1, "a_dtype": "f16", "b_dtype": "f16", "a_major": "K", "b_major": "K", '
     '"out_dtype": "f16", "config": {"a_dtype": "bf16"}}]}', "for a_dtype=f16 but its config has a_dtype=bf16"),
])
def test_table_load_errors(tmp_path, text, needle):
    p = tmp_path / "t.json"
    p.write_text(text)
    with pytest.raises(T.TunedTableError, match=needle):
        T.load_tuned(p)
    with pytest.raises(T.TunedTableError, match="cannot be read"):
        T.load_tuned(tmp_path / "missing.json")


def test_save_results_round_trip_and_one_gpu_per_table(tmp_path):
    kv = fastswz.cuda.KERNEL_VERSION
    r = S.search_plans(*PROBLEM, timer=FakeTimer(), device="fake", kernel_version=kv, budget=6,
                       use_cache=False)
    p = tmp_path / "t.json"
    t = T.save_results(p, [r])
    back = T.load_tuned(p)
    e = back.entries[S.problem_key(r["problem"])]
    assert e["config"] == r["best"]["config"] and e["default_ms"] == r["default"]["median_ms"]
    assert back.gpu == "fake" and back.kernel_version == kv and len(t) == 1
    other = dict(r, device="fake-2")
    with pytest.raises(T.TunedTableError, match=f"holds fake / kernel {kv}"):
        T.save_results(p, [other])
    # the table's winner is what choose_plan returns, and is never the slower of the two timed
    T.use_tuned(p, gpu="fake")
    assert choose_plan(*PROBLEM) == r["best"]["config"]
    assert r["best"]["median_ms"] <= r["default"]["median_ms"]


# -- the command line -----------------------------------------------------------------------------
@pytest.fixture
def fake_gpu(monkeypatch):
    timer = FakeTimer()
    monkeypatch.setattr(S, "gpu_timer", timer)
    monkeypatch.setattr(S, "gpu_compile", lambda configs, jobs=None: None)
    monkeypatch.setattr(S, "_gpu_identity", lambda: ("fake-gpu", "fake-1"))
    return timer


def test_cli_measure(fake_gpu, tmp_path, capsys):
    from fastswz.cli import main

    table = tmp_path / "t.json"
    argv = ["tune", "--m", "3000", "--n", "5000", "--k", "1000", "--measure", "--budget", "8",
            "--save", str(table)]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# measured search") and out[1] == "# device: fake-gpu"
    assert "best" in out[2] and "default" in out[2] and "model rank" in out[2]
    head = out[3].split()
    assert head[:4] == ["rank", "model_rank", "shape_rank", "median_ms"]
    assert len(out) == 4 + 8 + 1 and out[-1] == f"# saved the winner to {table}"
    n = len(fake_gpu.calls)
    # the journal beside the table: a second run times nothing
    assert main(argv + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert len(fake_gpu.calls) == n and d["timings"] == 0 and d["replayed"] > 0
    assert (tmp_path / "t.json.journal").is_dir()
    assert T.load_tuned(table).entries[(3000, 5000, 1000, "bf16", "bf16", "K", "K", "bf16")][
        "config"] == d["best"]["config"]


@pytest.mark.parametrize("argv,needle", [
    (["--m", "64", "--n", "64", "--k", "64", "--save", "t.json"], "--save applies to a measured search"),
    (["--m", "64", "--n", "64", "--k", "64", "--budget", "3"], "--budget applies to a measured search"),
    (["--m", "64", "--n", "64"], "--k missing"),
    (["--measure", "--m", "64"], "--n, --k missing: the measured search needs"),
    (["--measure", "--m", "64", "--n", "64", "--k", "64", "--gpus", "2"], "--gpus applies to a sweep"),
    (["--measure", "--m", "64", "--n", "64", "--k", "64", "--epilogue-dtype", "f32"],
     "does not apply to --measure"),
    (["--measure", "--corpus", "/nonexistent.json"], "--corpus /nonexistent.json: cannot be read"),
    (["--measure", "--m", "64", "--n", "64", "--k", "64", "--budget", "0"], "budget=0 must be >= 1"),
])
def test_cli_measure_errors_one_line(fake_gpu, capsys, argv, needle):
    from fastswz.cli import main

    assert main(["tune", *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_cli_measure_without_gpu_exit_2(capsys, monkeypatch):
    from fastswz.cli import main

    def fail():
        raise CudaUnavailableError("no NVIDIA driver here (fake)")
    monkeypatch.setattr(T, "gpu_id", fail)
    assert main(["tune", "--m", "64", "--n", "64", "--k", "64", "--measure", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "found no GPU to time on" in err and err.count("\n") == 1


def test_tune_measure_points_at_the_runtime():
    with pytest.raises(MeasureError, match=r"fastswz.cuda.search_plans"):
        fastswz.tune(4096, 4096, 4096, measure=4)
    assert math.isfinite(fastswz.tune(64, 64, 64, top=1)[0]["model_cycles"])
    warnings.simplefilter("error")


def test_gpu_scripts_plan_sets_fit_a_carried_cache():
    """tests/gpu/tune/exhaustive.py's precompile set: >= 10 exhaustive problems, held-out ones
    apart, and fewer than 400 plans (the cubin cache carried to the GPU machine)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent / "gpu" / "tune" / "exhaustive.py"
    spec = importlib.util.spec_from_file_location("_exhaustive", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert len(mod.PROBLEMS) >= 10 and len(set(mod.PROBLEMS)) == len(mod.PROBLEMS)
    assert not set(mod.HELD_OUT) & set(mod.PROBLEMS)
    plans = mod.plan_set()
    assert 200 < len(plans) < 400
    assert all(supported(c) is None for c in plans)


def test_a_failing_default_is_not_timed_again():
    default = choose_plan(*PROBLEM)
    timer = FakeTimer(fail=lambda c: c == default)
    r = _search(timer, budget=8)
    key = json.dumps(normalize_config(default), sort_keys=True)
    assert sum(1 for c, _, _ in timer.calls if c == key) == 1
    assert r["default"]["median_ms"] is None and r["regret"] is None
    assert r["best"]["median_ms"] > 0 and "launch failed" in r["rows"][-1]["error"]


def test_cli_gemm_names_the_tuned_table_it_ran(tmp_path, monkeypatch, capsys):
    """fastswz gemm with FASTSWZ_TUNED: the table's plan runs and the plan line says where it came
    from (the kernel's launch and timing are stand-ins here: no GPU)."""
    from fastswz.cli import main
    from fastswz.cuda import codegen, runtime

    ran = []

    class Kernel:   # stands in for GemmKernel: records the configuration it was built from
        def __init__(self, config):
            self.config = normalize_config(config)
            self.plan = codegen.kernel_row(self.config)
            self.smem_bytes = self.plan["smem_bytes"] + 1024
            ran.append(self.config)

        def time(self, m, n, k, reps):
            return {"median_ms": 1.0, "tflops": 1.0, "reps": reps, "spread": 0.0}

    monkeypatch.setattr(fastswz.cuda, "compile_gemm", Kernel)
    monkeypatch.setattr(runtime, "device_info", lambda: {"name": "stand-in"})
    monkeypatch.setattr(fastswz.cli, "_cublas_time", lambda *a: None, raising=False)
    path = T.TunedTable([_entry(3000, 5000, 1000)], gpu=GPU).save(tmp_path / "t.json")
    monkeypatch.setattr(T, "gpu_id", lambda: GPU)
    monkeypatch.setenv(T.ENV, str(path))
    T._STATE.update(env_done=False)
    argv = ["gemm", "--m", "3000", "--n", "5000", "--k", "1000"]
    assert main(argv) == 0
    assert f"(tuned table {path}, exact problem)" in capsys.readouterr().out
    assert (ran[-1]["bn"], ran[-1]["cluster_m"]) == (256, 2)
    assert main(["gemm", "--m", "2700", "--n", "5000", "--k", "1000"]) == 0
    assert "nearest problem)" in capsys.readouterr().out
    T.use_tuned(None)
    assert main(argv) == 0
    assert "(tune model's best supported plan)" in capsys.readouterr().out
    assert ran[-1] == choose_plan(3000, 5000, 1000)


def test_square_clusters_only_off_the_sector():
    """2 x 2 clusters are drawn where rows are off the 32-byte sector (SQUARE_CLUSTER_SHAPES and
    the default's tile, right after the default), nowhere else; a tuned entry on a cluster along
    N fits a problem with at least two tile columns."""
    import fastswz.cuda.tuned as tuned

    assert not [c for c in S.candidates(4096, 4096, 4096) if c["cluster_n"] == 2]
    off = S.candidates(755, 2208, 22576, "e4m3", "e4m3", budget=4)
    assert [c["cluster_n"] for c in off[1:3]] == [2, 2]
    assert all(S.plan_label(c["config"]).endswith("c2x2") for c in off[1:3])
    c = dict(bm=128, bn=128, cluster_m=1, cluster_n=2)
    assert not tuned._fits(c, 1000, 128) and tuned._fits(c, 1000, 256)


def test_scaled_calls_take_the_tuned_plan():
    """default_config's scaled (and other fused) calls ask the active table first, as
    choose_plan does: the plain calls' whole-tile rule is left out below the table, not the
    table."""
    e = _entry(3000, 5000, 1024, bk=128, a_dtype="e4m3", b_dtype="e4m3")
    e["a_dtype"] = e["b_dtype"] = "e4m3"
    T.use_tuned(T.TunedTable([e], gpu=GPU), gpu=GPU)
    try:
        c = fastswz.cuda.default_config(3000, 5000, 1024, "e4m3", "e4m3", fusion={"scale": "tensor"})
        assert (c["bm"], c["bn"], c["bk"], c["stages"], c["cluster_m"], c["scale"]) == (128, 256, 128, 3, 2, "tensor")
    finally:
        T.use_tuned(None)
    c = fastswz.cuda.default_config(3000, 5000, 1024, "e4m3", "e4m3", fusion={"scale": "tensor"})
    assert c["cluster_m"] == 1
