"""fastswz.tune: the cost model's integer range, its explicit constants (TuneModel) and the
calibration metrics and fit; ``tune(measure=...)`` now points at the runtime's search
(tests/test_search.py tests that search)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import PlanError
from fastswz.cli import main
from fastswz.tune import MAX_EXTENT, tune

HUGE = 99999999999999999999  # beyond int64 (and uint64)


def _err(capsys, argv):
    rc = main(argv)
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    return rc, cap.out, lines


# -- part 5 of issue 20: integer range ----------------------------------------------------------
def test_huge_extents_are_refused_naming_the_limit():
    with pytest.raises(PlanError, match=r"m=100000000000 exceeds 2\*\*32 = 4294967296"):
        tune(10**11, 10**11, 10**11)
    for name in ("m", "n", "k"):
        ext = {"m": 4096, "n": 4096, "k": 4096, name: MAX_EXTENT + 1}
        with pytest.raises(PlanError, match=f"^{name}={MAX_EXTENT + 1} exceeds"):
            tune(**ext)
        ext[name] = HUGE
        with pytest.raises(PlanError, match=f"^{name}={HUGE} exceeds"):
            tune(**ext)


def test_largest_extents_rank_without_overflow():
    rows = tune(MAX_EXTENT, MAX_EXTENT, MAX_EXTENT, top=5)
    ideal = MAX_EXTENT ** 3 / (2048 * 132)
    for r in rows:
        assert r["model_cycles"] > 0 and 0 < r["efficiency"] <= 1.0
        assert r["tiles"] > 0 and r["waves"] > 0
        # waves x k-tiles x (a k-tile's clocks) is at least the ideal MMA time
        assert r["model_cycles"] >= ideal * 0.999
    cyc = [r["model_cycles"] for r in rows]
    assert cyc == sorted(cyc)
    # the tile count is exact: ceil(M/BM) * ceil(N/BN) with no int64 wrap
    r = rows[0]
    assert r["tiles"] == -(-MAX_EXTENT // r["bm"]) * -(-MAX_EXTENT // r["bn"])


def test_sms_range():
    with pytest.raises(PlanError, match=f"sms={HUGE} exceeds 65536"):
        tune(128, 128, 128, sms=HUGE)
    assert tune(128, 128, 128, sms=65536, top=1)[0]["waves"] == 1
    assert len(tune(128, 128, 128, top=HUGE)) > 100  # top only slices the ranking


@pytest.mark.parametrize("field", ["bm", "bn", "bk", "stages", "smem_budget"])
@pytest.mark.parametrize("value", [HUGE, -HUGE, 2**64 - 1])
def test_plan_fields_beyond_int64_name_their_range(field, value):
    with pytest.raises(PlanError) as info:
        fastswz.plan_gemm(**{field: value})
    msg = str(info.value)
    assert msg.startswith(f"{field} holds {value}, outside ") and f"<= {field} <=" in msg
    # in an array, after good values: still the field's range, the offending value named
    with pytest.raises(PlanError, match=f"^{field} holds {value}, outside"):
        fastswz.plan_gemm(**{field: [64, value] if field != "stages" else [2, value]})


def test_reference_twin_raises_the_same():
    from fastswz import reference

    if not hasattr(reference, "plan_gemm"):
        pytest.skip("no plan_gemm twin")
    with pytest.raises(PlanError, match=f"^stages holds {HUGE}, outside 1 <= stages <= 64"):
        reference.plan_gemm(stages=HUGE)


def test_bulk_arrays_beyond_int64():
    with pytest.raises(fastswz.LayoutError, match=r"offsets holds -99999999999999999999, beyond int64"):
        fastswz.swizzle_offsets(fastswz.Swizzle(3, 4, 3), [-HUGE])


PLAN = "plan --a-dtype bf16 --b-dtype bf16 --bm 128 --bn 128 --bk 64 --stages 4".split()


@pytest.mark.parametrize("argv,needle", [
    (PLAN + ["--stages", str(HUGE)], f"stages holds {HUGE}, outside 1 <= stages <= 64"),
    (PLAN + ["--bm", str(HUGE)], f"bm holds {HUGE}, outside 8 <= bm <= 4096"),
    (PLAN + ["--bn", str(-HUGE)], f"bn holds {-HUGE}, outside 8 <= bn <= 4096"),
    (PLAN + ["--bk", str(HUGE)], f"bk holds {HUGE}, outside 8 <= bk <= 4096"),
    (PLAN + ["--smem-budget", str(HUGE)], f"smem_budget holds {HUGE}, outside 1 <= smem_budget"),
    (PLAN + ["--smem-base", str(HUGE)], "smem_base=0x"),
    (["emit", *PLAN[1:], "--stages", str(HUGE)], f"stages holds {HUGE}, outside"),
    ("tune --m 100000000000 --n 100000000000 --k 100000000000".split(),
     "m=100000000000 exceeds 2**32 = 4294967296"),
    (["tune", "--m", "64", "--n", str(HUGE), "--k", "64"], f"n={HUGE} exceeds 2**32"),
    (["tune", "--m", "64", "--n", "64", "--k", str(HUGE)], f"k={HUGE} exceeds 2**32"),
    (["tune", "--m", "64", "--n", "64", "--k", "64", "--sms", str(HUGE)], f"sms={HUGE} exceeds 65536"),
    (["tune", "--m", "64", "--n", "64", "--k", "64", "--smem-budget", str(HUGE)],
     f"smem_budget holds {HUGE}, outside 1 <= smem_budget"),
    (["tune", "--m", "64", "--n", "64", "--k", "64", "--top", "0"], "top=0"),
])
def test_cli_huge_integers_exit_2_one_line(capsys, argv, needle):
    rc, out, err = _err(capsys, argv)
    assert rc == 2 and out == "" and len(err) == 1, err
    assert err[0].startswith("fastswz: error: ") and needle in err[0], err
    assert "too large to convert" not in err[0]


# -- TuneModel: explicit constants; the datasheet model, and the shipped (fitted) default -------------
from fastswz import TuneModel, score_plans  # noqa: E402
from fastswz import calibrate  # noqa: E402
from fastswz.tune import DATASHEET_MODELS, DEFAULT_MODELS  # noqa: E402

DATASHEET = DATASHEET_MODELS["sm90"]
TUNE_MODULE = importlib.import_module("fastswz.tune")  # fastswz.tune is the function


def test_datasheet_model_is_the_documented_constants():
    m = DATASHEET_MODELS["sm90"]
    assert m == TuneModel()
    assert (m.latency, m.l2_bytes_per_clock, m.smem_bytes_per_clock) == (800.0, 48.0, 128.0)
    assert (m.macs(8), m.macs(16), m.macs(32)) == (4096.0, 2048.0, 1024.0)
    assert (m.occupancy_weight, m.wave_quantization, m.tile_overhead,
            m.epilogue_clocks_per_wavefront) == (1.0, 1.0, 0.0, 0.0)
    s = DATASHEET_MODELS["sm100"]
    assert (s.l2_bytes_per_clock, s.macs(16)) == (64.0, 4096.0)
    assert "DATASHEET_MODELS" in TUNE_MODULE.__all__


def test_shipped_models():
    # sm100 has no measurements: its default is the datasheet's
    assert DEFAULT_MODELS["sm100"] == DATASHEET_MODELS["sm100"]
    # sm90 is fitted: it differs from the datasheet in the fitted constants only (the MMA rates,
    # registers, wave quantization and hardware limits stay the datasheet's), and the tune
    # module docstring quotes them
    fitted, sheet = DEFAULT_MODELS["sm90"].to_dict(), DATASHEET.to_dict()
    changed = {f for f in fitted if fitted[f] != sheet[f]}
    assert changed == {"latency", "l2_bytes_per_clock", "smem_bytes_per_clock", "unswizzled_row_cost",
                       "occupancy_weight"}
    assert changed <= set(calibrate.DEFAULT_FIT_PARAMS)
    doc = " ".join(TUNE_MODULE.__doc__.split())
    m = DEFAULT_MODELS["sm90"]
    for figure in (f"latency {m.latency:.0f} clocks", f"{m.l2_bytes_per_clock:.1f} B/clock/SM",
                   f"{m.smem_bytes_per_clock:.1f} B/clock", f"x {m.unswizzled_row_cost:.0f}",
                   f"occupancy weight {m.occupancy_weight}"):
        assert figure in doc, figure


# The measured H100 space (benchmarks/data/tune_h100.json) and its documented split.
H100 = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "tune_h100.json"
H100_TRAIN = ["sq2048", "sq8192", "llm_up", "skinny", "decode128"]
H100_HELD = ["sq4096", "llm_down", "decode64", "decode256"]


def _targets_missed(model):
    """(shape, dtype) of the held-out H100 problems where ``model`` misses a target (Spearman
    >= 0.7, top-1 regret <= 10%, the measured best in the model's top 5)."""
    rows = json.loads(H100.read_text())["rows"]
    ev = calibrate.evaluate(model, rows, H100_HELD)
    assert len(ev) == 8 and all(e["plans"] == 208 for e in ev)
    return sorted(f"{e['name']}/{e['problem'][3]}" for e in ev
                  if not (e["spearman"] >= 0.7 and e["top1_regret"] <= 0.10 and e["best_in_top5"]))


def test_shipped_sm90_model_meets_the_targets_on_held_out_h100_shapes():
    # documented (tune.py, BENCHMARKS.md): 7 of 8 held-out problems, decode64/bf16 the miss
    assert _targets_missed(None) == _targets_missed(DEFAULT_MODELS["sm90"]) == ["decode64/bf16"]


def test_datasheet_model_misses_the_targets_on_held_out_h100_shapes():
    # the control: the datasheet constants meet them on none of the 8 (the measured best is in
    # their top 5 only for llm_down/bf16, and their first choice is >= 24% slower everywhere)
    assert len(_targets_missed(DATASHEET)) == 8


def test_shipped_first_choice_is_the_measured_best_at_sq4096():
    # README: tune(4096, 4096, 4096)'s first plan is the H100's fastest of the 208 timed
    rows = json.loads(H100.read_text())["rows"]
    keys = ("bm", "bn", "bk", "stages", "swizzle_a", "swizzle_b")
    for dt in ("bf16", "e4m3"):
        timed = [r for r in rows if r["name"] == "sq4096" and r["a_dtype"] == dt and r["median_ms"]]
        best = min(timed, key=lambda r: r["median_ms"])
        first = tune(4096, 4096, 4096, dt, dt, top=1)[0]
        assert {c: first[c] for c in keys} == {c: best["config"][c] for c in keys}, dt


def test_shipped_first_choice_over_the_whole_space_was_timed():
    # The held-out figures are tune's own: on every measured problem the shipped model's first
    # plan over tune's whole space is one of the 208 timed (the fit leaves other_registers, which
    # decides which plans fit at all, at the datasheet's 32: 16 would admit 192 x 224 tiles,
    # never timed, as the first choice on 6 of the 18 problems).
    rows = [r for r in json.loads(H100.read_text())["rows"] if r["median_ms"]]
    keys = ("bm", "bn", "bk", "stages", "swizzle_a", "swizzle_b")
    for key, group in calibrate.problems(rows).items():
        timed = {tuple(r["config"][c] for c in keys) for r in group["rows"]}
        first = tune(*key[:7], top=1)[0]
        assert tuple(first[c] for c in keys) in timed, (group["name"], key[3], first)


def test_refit_on_the_train_shapes_reproduces_the_shipped_sm90_model():
    # tools/tune_calibrate.py's fit (5 rounds from the datasheet on the documented train shapes)
    rows = json.loads(H100.read_text())["rows"]
    assert calibrate.fit_model(rows, H100_TRAIN, rounds=5) == DEFAULT_MODELS["sm90"]


# Ranking of the datasheet model before it was made explicit (commit 769967a), pinned by
# hand-checked numbers: 4096^3 bf16 sm90's first plan and its cycles. The default (fitted)
# model's cycles tune reports equal score_plans' for every legal plan of the space.
@pytest.mark.parametrize("args", [
    (4096, 4096, 4096, "bf16", "bf16", "K", "K", "sm90"),
    (8192, 4096, 14336, "e4m3", "e4m3", "K", "K", "sm90"),
    (64, 8192, 8192, "bf16", "bf16", "K", "K", "sm90"),
    (1000, 3000, 777, "tf32", "tf32", "K", "MN", "sm100"),
])
def test_default_model_ranking_equals_score_plans(args):
    rows = tune(*args, top=1 << 30)
    assert tune(*args, top=len(rows), model=DEFAULT_MODELS[args[-1]]) == rows
    extra = dict(zip(("a_dtype", "b_dtype", "a_major", "b_major"), args[3:7]))
    c = score_plans(None, [dict(r, **extra) for r in rows], *args[:3])
    assert [int(round(x)) for x in c] == [r["model_cycles"] for r in rows]
    assert np.all(np.diff(c) >= 0)
    assert np.array_equal(c, score_plans(DEFAULT_MODELS[args[-1]], [dict(r, **extra) for r in rows],
                                         *args[:3]))


def test_datasheet_ranking_unchanged():
    # 4096^3 bf16 on sm90: 128 x 256 x 64 tiles, 32 x 16 = 512 tiles on 132 SMs = 4 waves,
    # 64 k-tiles each of 128*256*64/2048 = 1024 MMA clocks: 4 * 64 * 1024 = 262144 cycles.
    best = tune(4096, 4096, 4096, top=1, model=DATASHEET)[0]
    assert (best["bm"], best["bn"], best["bk"], best["waves"]) == (128, 256, 64, 4)
    assert best["model_cycles"] == 262144 and best["bound"] == "mma"


def test_model_constants_move_the_ranking():
    base = tune(4096, 4096, 4096, top=1, model=DATASHEET)[0]
    slow_mma = tune(4096, 4096, 4096, top=1, model=TuneModel(latency=20000.0))[0]
    assert slow_mma["model_cycles"] > base["model_cycles"]
    assert slow_mma["bound"] == "latency" or slow_mma["stages"] >= base["stages"]
    rows = tune(2048, 2048, 2048, top=200, model=DATASHEET)
    over = score_plans(TuneModel(tile_overhead=1000.0), rows, 2048, 2048, 2048)
    plain = score_plans(DATASHEET, rows, 2048, 2048, 2048)
    waves = np.array([r["waves"] for r in rows], dtype=float)
    np.testing.assert_allclose(over - plain, 1000.0 * waves)


def test_tune_model_validation():
    with pytest.raises(PlanError, match=r"TuneModel.latency=-1.0 must be finite and > 0"):
        TuneModel(latency=-1.0)
    with pytest.raises(PlanError, match=r"TuneModel.wave_quantization=2.0 must be finite and in \[0, 1\]"):
        TuneModel(wave_quantization=2.0)
    with pytest.raises(fastswz.FastswzTypeError, match="TuneModel.latency='x' must be a number"):
        TuneModel(latency="x")
    with pytest.raises(fastswz.FastswzTypeError, match="model=dict must be a fastswz.TuneModel"):
        tune(128, 128, 128, model={"latency": 1})
    with pytest.raises(AttributeError):
        TuneModel().latency = 3.0


def test_score_plans_illegal_and_epilogue():
    rows = [{"bm": 128, "bn": 128, "bk": 64, "stages": 4}, {"bm": 96, "bn": 128, "bk": 64, "stages": 4},
            {"bm": 128, "bn": 256, "bk": 64, "stages": 8}]  # legal, illegal BM, over budget
    c = score_plans(None, rows, 4096, 4096, 4096)
    assert np.isfinite(c[0]) and np.isinf(c[1]) and np.isinf(c[2])
    # the epilogue weight sees the plan's bank wavefronts: f32 'none' tiles conflict, 32B not
    rows = [{"bm": 64, "bn": 64, "bk": 64, "stages": 2}]
    p = fastswz.plan_gemm(bm=64, bn=64, epilogue_dtype="f32")
    w = int(p["epi_wavefronts"])
    e = TuneModel(epilogue_clocks_per_wavefront=2.0)
    c0 = score_plans(DATASHEET, rows, 4096, 4096, 4096, epilogue_dtype="f32")
    c1 = score_plans(e, rows, 4096, 4096, 4096, epilogue_dtype="f32")
    waves = -(-(4096 // 64) ** 2 // 132)
    assert c1[0] - c0[0] == pytest.approx(2.0 * w * waves)
    with pytest.raises(PlanError, match="several archs"):
        score_plans(None, [dict(rows[0], arch="sm90"), dict(rows[0], arch="sm100")], 64, 64, 64)


# -- metrics -----------------------------------------------------------------------------------------
def test_spearman_with_ties_matches_pearson_of_average_ranks():
    rng = np.random.default_rng(7)
    for _ in range(50):
        a = rng.integers(0, 6, size=20).astype(float)
        b = a + rng.integers(0, 4, size=20)
        # average ranks by brute force
        def ranks(x):
            return np.array([np.sum(x < v) + (np.sum(x == v) + 1) / 2 for v in x])
        ra, rb = ranks(a), ranks(b)
        want = np.corrcoef(ra, rb)[0, 1]
        assert calibrate.spearman(a, b) == pytest.approx(want)
    assert np.isnan(calibrate.spearman([1, 1, 1], [1, 2, 3]))
    assert calibrate.spearman([1, 2, 3], [1, 2, 3]) == 1.0


def test_regret_and_recall():
    model = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    meas = [1.2, 1.0, 3.0, 0.9, 5.0, 6.0]
    assert calibrate.top1_regret(model, meas) == pytest.approx(1.2 / 0.9 - 1)
    assert calibrate.topk_recall(model, meas, k=2) == 0.5   # model {0, 1}, measured {3, 1}
    assert calibrate.topk_recall(model, meas, k=3) == pytest.approx(2 / 3)
    assert calibrate.best_in_topk(model, meas, k=3) is False
    assert calibrate.best_in_topk(model, meas, k=4) is True
    with pytest.raises(PlanError, match="one per plan"):
        calibrate.spearman([1, 2], [1, 2, 3])


# -- fit: synthetic measurements from a known model ---------------------------------------------------
SHAPES = {"sq2048": (2048, 2048, 2048), "sq8192": (8192, 8192, 8192), "llm": (4096, 14336, 4096),
          "skinny": (16384, 1024, 4096), "decode": (128, 8192, 8192), "down": (8192, 4096, 14336)}
TRUTH = TuneModel(latency=2400.0, l2_bytes_per_clock=24.0, tile_overhead=3000.0,
                  occupancy_weight=0.5, wave_quantization=0.75)


def _synthetic(truth=TRUTH, dtypes=("bf16",), every=15, noise=0.0, top=3000):
    """Rows as tools/tune_measure.py writes them, timed by ``truth``: every ``every``-th of the
    datasheet model's first ``top`` plans (the near-best region, where ranking is hard)."""
    rng = np.random.default_rng(0)
    rows = []
    for name, (m, n, k) in SHAPES.items():
        for dt in dtypes:
            plans = tune(m, n, k, dt, dt, top=top, model=DATASHEET)[::every]
            t = score_plans(truth, [dict(p, a_dtype=dt, b_dtype=dt) for p in plans], m, n, k)
            t = t / 1.83e6 * (1 + noise * rng.standard_normal(t.size))
            rows += [{"name": name, "m": m, "n": n, "k": k, "a_dtype": dt, "b_dtype": dt,
                      "config": {c: p[c] for c in ("arch", "cta_group", "bm", "bn", "bk", "stages",
                                                   "swizzle_a", "swizzle_b")},
                      "model_rank": p["rank"], "model_cycles": p["model_cycles"],
                      "median_ms": float(x)} for p, x in zip(plans, t)]
    return rows


def test_fit_recovers_a_perturbed_model_on_held_out_shapes():
    rows = _synthetic()
    train, held = ["sq2048", "llm", "decode"], ["sq8192", "skinny", "down"]
    before = calibrate.evaluate(DATASHEET, rows, held)
    fitted = calibrate.fit_model(rows, train)  # from the datasheet
    after = calibrate.evaluate(fitted, rows, held)
    assert max(e["spearman"] for e in before) < 0.95  # the datasheet is visibly wrong here
    assert min(e["top1_regret"] for e in before) > 0.1
    for e in after:
        assert e["spearman"] > 0.99, e
        assert e["top1_regret"] < 0.02 and e["best_in_top5"], e
    assert calibrate.fit_model(rows, train) == fitted  # deterministic


def test_fit_is_stable_on_the_truth_and_with_noise():
    rows = _synthetic(noise=0.01)
    fitted = calibrate.fit_model(rows, ["sq2048", "llm", "decode"], model=TRUTH, rounds=2)
    for e in calibrate.evaluate(fitted, rows):
        assert e["spearman"] > 0.95, e


def test_fit_and_evaluate_errors():
    rows = _synthetic(every=400)
    with pytest.raises(PlanError, match="select none of the measured problems"):
        calibrate.fit_model(rows, ["nope"])
    with pytest.raises(PlanError, match="not a fittable TuneModel constant"):
        calibrate.fit_model(rows, params=["smem_per_sm"])
    with pytest.raises(PlanError, match="no measured row"):
        calibrate.evaluate(None, [dict(rows[0], median_ms=None)])
    assert calibrate.evaluate(None, rows, [(2048, 2048, 2048)])[0]["name"] == "sq2048"
    lit = calibrate.model_literal(TRUTH)
    assert eval(lit, {"TuneModel": TuneModel}) == TRUTH  # noqa: S307 - our own literal


# -- the measured search moved to the runtime (tests/test_search.py) --------------------------------
import sys  # noqa: E402
import types  # noqa: E402


class FakeUnavailable(fastswz.FastswzError, RuntimeError):
    pass


def test_tune_measure_raises_pointing_at_the_runtime(monkeypatch):
    # whether or not fastswz.cuda imports, the model never reaches for it
    monkeypatch.setitem(sys.modules, "fastswz.cuda", None)
    with pytest.raises(fastswz.MeasureError,
                       match=r"^measure=4: tune ranks by the cost model only; the measured search "
                             r"is fastswz.cuda.search_plans"):
        tune(4096, 4096, 4096, measure=4)
    assert len(tune(4096, 4096, 4096, top=2)) == 2
    with pytest.raises(TypeError):
        tune(4096, 4096, 4096, measure=4, cache_dir="/tmp")   # the measured options went with it


def test_cli_measure_needs_the_runtime_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "fastswz.cuda", None)
    rc, out, err = _err(capsys, ["tune", "--m", "64", "--n", "64", "--k", "64", "--measure"])
    assert rc == 2 and out == "" and len(err) == 1, err


# -- the measurement and calibration tools, against a fake runtime -------------------------------------
import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def _tool(name):
    spec = importlib.util.spec_from_file_location(f"_tool_{name}", TOOLS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _model_timed_cuda(monkeypatch, truth=TRUTH, unsupported=lambda c: None):
    """A fake runtime whose times are ``truth``'s model cycles at 1.83 GHz."""
    calls = {"compile": 0, "time": 0}
    mod = types.ModuleType("fastswz.cuda")
    mod.CudaUnavailableError = FakeUnavailable

    class Kernel:
        def __init__(self, cfg):
            self.cfg = cfg

        def time(self, m, n, k, *, warmup=3, reps=20, flush_l2=True):
            calls["time"] += 1
            epi = self.cfg.get("out_dtype", "bf16") if self.cfg.get("epilogue") else None
            ms = float(score_plans(truth, [self.cfg], m, n, k, epilogue_dtype=epi)[0]) / 1.83e6
            return {"median_ms": ms, "min_ms": ms, "max_ms": ms * 1.01, "spread": 0.01,
                    "tflops": 2 * m * n * k / ms / 1e9}

    def compile_many(configs, out_dtype="bf16", jobs=None):
        calls["compile"] += len(configs)
        return [Kernel(c) for c in configs]

    def compile_gemm(cfg, out_dtype="bf16"):
        if cfg["bn"] == 48:
            raise RuntimeError("nvrtc: fake failure")
        return Kernel(cfg)

    mod.supported = unsupported
    mod.compile_many, mod.compile_gemm = compile_many, compile_gemm
    mod.device_key = lambda: "FAKE H100, 132 SMs"
    mod.device_info = lambda: {"name": "FAKE H100", "sms": 132, "cc": "9.0"}
    monkeypatch.setitem(sys.modules, "fastswz.cuda", mod)
    # `import fastswz.cuda as cuda` reads the package attribute first (once the real runtime
    # has been imported, it is set): point it at the fake too
    monkeypatch.setattr(fastswz, "cuda", mod, raising=False)
    return calls


def test_tune_measure_compile_then_run_then_calibrate(monkeypatch, tmp_path, capsys):
    calls = _model_timed_cuda(monkeypatch, unsupported=lambda c: None if c["bn"] % 16 == 0 else "x")
    tm = _tool("tune_measure")
    monkeypatch.setattr(tm, "nvidia_smi", lambda: None)
    cache, out = tmp_path / "cubins", tmp_path / "measured.json"
    shapes = "sq2048,decode64,llm_up,1024x1024x1024"
    # chosen by the datasheet model, as the committed H100 data: the calibration below then
    # starts from the model that chose the plans
    common = ["--cache", str(cache), "--shapes", shapes, "--dtypes", "bf16", "--cap", "64",
              "--model", "datasheet"]
    assert tm.main(["--compile-only", *common]) == 0
    manifest = json.loads((cache / tm.MANIFEST).read_text())
    assert manifest["selection"]["model"] == "datasheet"
    configs = manifest["configs"]["bf16"]
    assert len(configs) == 64 == calls["compile"] and calls["time"] == 0
    assert len({json.dumps(c, sort_keys=True) for c in configs}) == 64  # deduplicated
    # each shape's model top-16 is among them
    assert all(c["epilogue"] is False for c in configs)
    for name, (m, n, k) in manifest["shapes"].items():
        top = {json.dumps({c: r[c] for c in tm.CONFIG_KEYS}, sort_keys=True)
               for r in tune(m, n, k, top=16, model=DATASHEET)}
        assert top <= {json.dumps({c: cfg[c] for c in tm.CONFIG_KEYS}, sort_keys=True) for cfg in configs}
    # a run cut short by its time budget, then resumed
    run = ["--run", *common, "--out", str(out)]
    assert tm.main(run + ["--time-budget", "1e-9"]) == 0
    part = json.loads(out.read_text())
    assert 0 < len(part["rows"]) < 4 * 64
    assert tm.main(run + ["--resume"]) == 0
    data = json.loads(out.read_text())
    assert len(data["rows"]) == 4 * 64
    assert data["header"]["device_key"] == "FAKE H100, 132 SMs"
    assert data["header"]["timing"] == {"warmup": 3, "reps": 20, "flush_l2": True, "out_dtype": "bf16",
                                       "epilogue": "off"}
    failed = [r for r in data["rows"] if r["error"]]
    assert all(r["config"]["bn"] == 48 and r["error"].startswith("compile: RuntimeError") for r in failed)
    good = [r for r in data["rows"] if not r["error"]]
    assert all(r["median_ms"] > 0 and r["model_rank"] >= 1 for r in good)
    text = capsys.readouterr().out
    assert "| sq2048 | bf16 | regs | 64 |" in text
    # calibrate: fit on two shapes, report the others
    tc = _tool("tune_calibrate")
    model_file = tmp_path / "fitted.py"
    assert tc.main([str(out), "--train", "sq2048,llm_up", "--write-model", str(model_file),
                    "--json", str(tmp_path / "cal.json"), "--epilogue"]) == 0
    text = capsys.readouterr().out
    assert "held-out shapes (datasheet -> fitted)" in text and "| decode64 | bf16 |" in text
    assert model_file.read_text().startswith("TuneModel(")
    cal = json.loads((tmp_path / "cal.json").read_text())
    before, after = cal["held-out shapes"]["datasheet"], cal["held-out shapes"]["fitted"]
    assert sorted(e["name"] for e in after) == ["1024x1024x1024", "decode64"]
    for b, a in zip(before, after):  # 64 plans, fitted on two shapes: the held-out choice improves
        assert a["top1_regret"] <= b["top1_regret"] and a["spearman"] > 0.7, (b, a)
    assert sum(a["top1_regret"] for a in after) < sum(b["top1_regret"] for b in before)
    assert tc.main([str(out), "--train", "nope"]) == 2


def test_tune_measure_without_runtime_exits_2(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "fastswz.cuda", None)
    tm = _tool("tune_measure")
    with pytest.raises(SystemExit) as info:
        tm.main(["--compile-only", "--cache", str(tmp_path)])
    assert info.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "fastswz.cuda is unavailable" in err[0]


def test_tune_measure_epilogue_both_and_part4_report(monkeypatch, tmp_path, capsys):
    truth = TRUTH.replace(epilogue_clocks_per_wavefront=64.0)
    _model_timed_cuda(monkeypatch, truth=truth)
    tm = _tool("tune_measure")
    monkeypatch.setattr(tm, "nvidia_smi", lambda: None)
    cache, out = tmp_path / "c", tmp_path / "m.json"
    common = ["--cache", str(cache), "--shapes", "sq2048,decode64,llm_up", "--dtypes", "bf16",
              "--cap", "60", "--epilogue", "both", "--out-dtype", "f32"]
    assert tm.main(["--compile-only", *common]) == 0
    configs = json.loads((cache / tm.MANIFEST).read_text())["configs"]["bf16"]
    on = [c for c in configs if c["epilogue"]]
    off = [c for c in configs if not c["epilogue"]]
    assert len(off) == 60 and 0 < len(on) <= 60  # some plans no longer fit with the f32 tile
    assert tm.main(["--run", *common, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["header"]["timing"]["epilogue"] == "both" and data["header"]["timing"]["out_dtype"] == "f32"
    text = capsys.readouterr().out
    assert "| sq2048 | bf16 | smem |" in text and "| sq2048 | bf16 | regs |" in text
    tc = _tool("tune_calibrate")
    assert tc.main([str(out), "--train", "sq2048,llm_up", "--epilogue", "--json", str(tmp_path / "c.json")]) == 0
    text = capsys.readouterr().out
    assert "the epilogue tile's cost, plan by plan" in text
    rep = json.loads((tmp_path / "c.json").read_text())["epilogue"]
    assert rep["fitted_weight"] > 0  # the truth charges the wavefronts: the fit finds a weight
    for e in rep["pairs"]:
        # every plan timed both ways is a pair, but those the fake fails to compile (BN 48)
        assert e["pairs"] == sum(c["bn"] != 48 for c in on) and e["median_on_over_off"] > 1.0
        # the added time follows the wavefronts (not only: the tile also costs occupancy)
        assert e["spearman_delta_wavefronts"] > 0.3


def test_tune_tile_filter_is_the_ranking_restricted_to_the_tile():
    """tune(..., bm=, bn=) is the whole ranking's rows of that tile shape, in its order, ranked
    again from 1 (what choose_plan's split rule asks without ranking every plan)."""
    every = tune(512, 512, 32768, top=1 << 20)
    keep = ("bm", "bn", "bk", "stages", "swizzle_a", "swizzle_b", "model_cycles")
    for bm, bn in [(128, 128), (64, 48), (None, 256), (192, None)]:
        want = [r for r in every if bm in (None, r["bm"]) and bn in (None, r["bn"])]
        got = tune(512, 512, 32768, top=1 << 20, bm=bm, bn=bn)
        assert want and [tuple(r[f] for f in keep) for r in got] == [tuple(r[f] for f in keep) for r in want]
        assert [r["rank"] for r in got] == list(range(1, len(got) + 1))
        assert tune(512, 512, 32768, top=3, bm=bm, bn=bn) == got[:3]
    assert tune(512, 512, 32768, top=1 << 20) == every   # the cached space was not narrowed
