"""On a Hopper GPU: the GEMM kernels built from plans compute D = A B (skips elsewhere).

Small-integer inputs must give D exactly; random inputs within the type's error bound; D is
poisoned first. The full grid (18 configurations x 6 shapes) is tests/gpu/gemm/check.py.
"""

from __future__ import annotations

import pytest

from fastswz.cuda import CudaUnavailableError, compile_gemm

pytestmark = pytest.mark.gpu


def _gpu():
    try:
        from fastswz.cuda import device_info

        device_info()
    except (CudaUnavailableError, ImportError) as e:
        pytest.skip(f"no Hopper GPU / cuda extra: {e}")


@pytest.mark.parametrize("cfg,shape", [
    (dict(bm=128, bn=256, bk=64, stages=4), (1000, 1000, 1000)),
    (dict(bm=128, bn=128, bk=64, stages=4, epilogue=True, a_major="MN", b_major="MN"), (129, 257, 72)),
    (dict(bm=128, bn=128, bk=128, stages=4, a_dtype="e4m3", b_dtype="e4m3"), (256, 384, 512)),
    (dict(bm=128, bn=64, bk=32, stages=4, a_dtype="tf32", b_dtype="tf32", out_dtype="f32"), (200, 300, 96)),
    # 2-CTA clusters: MN-major B has a real LBO, which the second CTA's shared addresses (cluster
    # rank from bit 24 up) corrupted until descriptor_rebase masked them
    (dict(bm=128, bn=128, bk=64, stages=4, epilogue=True, a_major="MN", b_major="MN", cluster_m=2), (256, 256, 256)),
    (dict(bm=64, bn=96, bk=64, stages=3, b_major="MN", swizzle_b="none", cluster_m=2), (777, 300, 136)),
    (dict(bm=128, bn=256, bk=64, stages=3, epilogue=True, cluster_m=2), (1000, 1000, 1000)),
    # the epilogue tile in column blocks (the default plans' epilogue): blocks past N included
    (dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64), (1000, 330, 520)),
    (dict(bm=128, bn=256, bk=128, stages=4, epilogue=True, epilogue_n=128, a_dtype="e4m3", b_dtype="e4m3"),
     (640, 1000, 384)),
    (dict(bm=128, bn=128, bk=32, stages=4, epilogue=True, epilogue_n=32, a_dtype="tf32", b_dtype="tf32",
          out_dtype="f32", cluster_m=2), (300, 200, 96)),
    # ... rotating through two epilogue tiles, and through three whole tiles across output tiles
    (dict(bm=128, bn=256, bk=64, stages=4, epilogue=True, epilogue_n=64, epilogue_stages=2), (1000, 1000, 520)),
    (dict(bm=64, bn=64, bk=64, stages=4, epilogue=True, epilogue_stages=3, out_dtype="f32"), (777, 300, 136)),
])
def test_kernel_product(cfg, shape):
    _gpu()
    from fastswz.cuda.runtime import check

    kern = compile_gemm(cfg)
    for ints in (True, False):
        r = check(kern, *shape, ints=ints)
        assert r["unwritten"] == 0 and r["ok"], r


def test_measured_search_ranks_by_the_clock_and_replays(tmp_path):
    """search_plans on a shape no data file holds: the winner's time is the best measured, the
    default plan timed beside it; the second call replays the journal and times nothing."""
    _gpu()
    from fastswz.cuda import search_plans

    first = search_plans(3072, 5120, 6144, budget=6, journal=tmp_path)
    times = [r["median_ms"] for r in first["rows"] if r["median_ms"] is not None]
    assert first["plans"] == 6 and all(t > 0 for t in times)
    assert first["best"]["median_ms"] <= first["default"]["median_ms"]
    again = search_plans(3072, 5120, 6144, budget=6, journal=tmp_path)
    assert again["timings"] == 0 and again["best"]["config"] == first["best"]["config"]


def test_time_is_a_first_driver_call():
    """GemmKernel.time in a fresh process (no torch, no other driver call first)."""
    _gpu()
    import json
    import subprocess
    import sys

    code = ("import json; from fastswz.cuda import compile_gemm; "
            "print(json.dumps(compile_gemm(bm=128, bn=128, bk=64, stages=4).time(512, 512, 512, reps=2)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["reps"] == 2 and r["median_ms"] > 0
