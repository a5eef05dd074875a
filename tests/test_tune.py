"""fastswz.tune: the cost model's integer range, its explicit constants (TuneModel), the
calibration metrics and fit, and the measured search (against a fake ``fastswz.cuda``)."""

from __future__ import annotations

import json

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
