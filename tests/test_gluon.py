"""Gluon NVMMASharedLayout <-> fastswz tiles.

* Everywhere: the mapping both ways, the model of Triton's rule against the tiles, the refusals,
  and the placements Triton 3.6 produced on an H100 (``tests/data/gluon_placements.json``, written
  by ``tests/gpu/gluon/run.sh``), checked against fastswz: the permanent witness.
* With triton (Gluon) and a CUDA GPU: the probe itself runs on a small sample of the grid.
"""
from __future__ import annotations

import hashlib
import importlib.util
import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz.gluon import GluonNVMMA, gluon_nvmma_shared, nvmma_linear_layout, to_gluon
from fastswz.linear import linear_evaluate, to_linear_layout

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "data" / "gluon_placements.json"
PROBE = HERE / "gpu" / "gluon" / "probe.py"


def _probe():
    spec = importlib.util.spec_from_file_location("fastswz_gluon_probe", PROBE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _model(swz, eb, tr, r, c):
    return linear_evaluate(nvmma_linear_layout(swz, eb, (r, c), tr).invert()).reshape(c, r).T


def _tile_offsets(t, op):
    off = fastswz.evaluate(t.layout).reshape(t.k, t.mn).T
    return off if op == "A" else off.T


GRID = [(swz, eb, tr, op, arch, r, c)
        for swz, eb, tr, op, arch in itertools.product((0, 32, 64, 128), (8, 16, 32), (False, True),
                                                       ("A", "B"), ("sm90", "sm100"))
        for r, c in itertools.product((8, 16, 64, 256, 512), (8, 16, 64, 256, 512))]


def test_tiles_equal_the_model_wherever_they_exist():
    found = refused = 0
    for swz, eb, tr, op, arch, r, c in GRID:
        try:
            model = _model(swz, eb, tr, r, c)
        except fastswz.TileError:
            continue
        try:
            t = gluon_nvmma_shared(swz, eb, transposed=tr, block_shape=(r, c), operand=op, arch=arch)
        except fastswz.TileError:
            refused += 1
            continue
        found += 1
        np.testing.assert_array_equal(_tile_offsets(t, op), model, err_msg=repr(t))
    assert found > 600 and refused > 0


@pytest.mark.parametrize("tile", [
    fastswz.OperandTile(dt, major, sw, mn, k, order, arch)
    for dt, major, sw, mn, k, order, arch in [
        ("bf16", "K", "128B", 64, 64, "mn", "sm90"), ("bf16", "MN", "128B", 128, 64, "k", "sm90"),
        ("e4m3", "K", "64B", 128, 128, "mn", "sm90"), ("tf32", "K", "32B", 64, 32, "mn", "sm100"),
        ("f16", "MN", "32B", 64, 16, "k", "sm90"), ("bf16", "MN", "none", 8, 16, "k", "sm90"),
        ("e4m3", "MN", "128B", 256, 64, "k", "sm100"), ("bf16", "K", "128B", 256, 64, "k", "sm90"),
    ]], ids=repr)
@pytest.mark.parametrize("op", ["A", "B"])
def test_to_gluon_round_trip(tile, op):
    try:
        g = to_gluon(tile, op)
    except fastswz.TileError as exc:
        # Gluon's unswizzled block is row-major whatever `transposed` says: the MN-major
        # interleave tile (8 x 16) is a B block [16, 8] and has no A form
        assert tile.swizzle.value == "none" and op == "A", exc
        assert "row-major" in str(exc) or "MN-major" in str(exc), exc
        return
    back = gluon_nvmma_shared(g.swizzle_byte_width, g.element_bitwidth, g.rank, g.transposed,
                              g.fp4_padded, g.block_shape, operand=op, dtype=tile.dtype, arch=tile.arch)
    np.testing.assert_array_equal(fastswz.evaluate(back.layout), fastswz.evaluate(tile.layout))
    assert to_linear_layout(back) == to_linear_layout(tile)


def test_to_gluon_the_usual_pairs():
    t = fastswz.OperandTile("bf16", "K", "128B", 64, 64)
    assert to_gluon(t) == GluonNVMMA(128, 16, 2, False, False, (64, 64))
    assert to_gluon(t, "B") == GluonNVMMA(128, 16, 2, True, False, (64, 64))
    m = fastswz.OperandTile("bf16", "MN", "128B", 128, 64, order="k")
    assert to_gluon(m) == GluonNVMMA(128, 16, 2, True, False, (128, 64))
    assert to_gluon(m, "B") == GluonNVMMA(128, 16, 2, False, False, (64, 128))


@pytest.mark.parametrize("call, msg", [
    (lambda: to_gluon(fastswz.OperandTile("bf16", "MN", "128B", 128, 64)),
     r"Triton places MN-major atoms in order='k'.*use order='k'"),
    (lambda: to_gluon(fastswz.OperandTile("tf32", "MN", "128B_base32B", 64, 32, arch="sm100")),
     r"no 32-byte-atomicity \(128B_base32B\) mode"),
    (lambda: to_gluon(fastswz.OperandTile("e2m1", "K", "128B", 64, 256, arch="sm100", packed=True)),
     r"packed 4-bit elements"),
    (lambda: to_gluon(fastswz.OperandTile("bf16", "K", "none", 64, 16)),
     r"Triton stores the block row-major.*use block_shape\[1\]=8"),
    (lambda: gluon_nvmma_shared(128, 16, fp4_padded=True, block_shape=(64, 64)), r"fp4_padded=True"),
    (lambda: gluon_nvmma_shared(128, 16, rank=3, block_shape=(64, 64)), r"rank=3"),
    (lambda: gluon_nvmma_shared(128, 64, block_shape=(64, 64)), r"element_bitwidth=64"),
    (lambda: gluon_nvmma_shared(96, 16, block_shape=(64, 64)), r"swizzle_byte_width=96"),
    (lambda: gluon_nvmma_shared(128, 16, block_shape=(64, 32)), r"smaller than one 128B core tile"),
    (lambda: gluon_nvmma_shared(128, 16, transposed=True, block_shape=(64, 512)),
     r"512 rows > 256"),
    (lambda: gluon_nvmma_shared(128, 8, transposed=True, block_shape=(128, 64)),
     r"as operand A is a MN-major e4m3 128B tile .* not allowed on sm90"),
    (lambda: gluon_nvmma_shared(128, 16, block_shape=(64, 64), operand="C"), r"operand='C'"),
    (lambda: gluon_nvmma_shared(128, 16, block_shape=(64, 64), dtype="tf32"), r"dtype=tf32 is 32-bit"),
    (lambda: nvmma_linear_layout(128, 16, (64, 48)), r"block_shape\[1\]=48 is not a power of two"),
])
def test_refusals(call, msg):
    with pytest.raises(fastswz.TileError, match=msg):
        call()


def test_model_large_blocks_follow_the_tma_block_rule():
    # non-transposed: rows past 256 continue the same column of core tiles (offset grows by
    # one 128-byte row per row); transposed: the next contiguous-dimension tile comes first
    ll = nvmma_linear_layout(128, 16, (512, 64)).invert()
    assert ll(256, 0) == 256 * 64
    llt = nvmma_linear_layout(128, 16, (128, 512), transposed=True).invert()
    assert llt(64, 0) == 64 * 256  # second 64-element tile of dim 0 after 256 rows of dim 1
    assert llt(0, 256) == 128 * 256


# -- the witness: what Triton 3.6 did on an H100 ------------------------------------------------
def _fixture():
    if not FIXTURE.exists():
        pytest.skip(f"{FIXTURE.name} not recorded yet (run tests/gpu/gluon/run.sh on a GPU)")
    return json.loads(FIXTURE.read_text())["cases"]


def _parse(k):
    swz, e, t, rc = k.split("_")
    r, c = rc.split("x")
    return int(swz[3:]), int(e[1:]), t == "T", int(r), int(c)


def test_fixture_covers_the_grid():
    cases = _fixture()
    assert set(cases) == {_probe().key(c) for c in _probe().cases()}


def test_fixture_matches_the_model_and_the_tiles():
    cases = _fixture()
    checked_tiles = 0
    for k, entry in cases.items():
        swz, eb, tr, r, c = _parse(k)
        model = _model(swz, eb, tr, r, c)
        digest = hashlib.sha256(np.ascontiguousarray(model, dtype="<i4").tobytes()).hexdigest()[:16]
        assert digest == entry["sha256_16"], k
        if "pos" in entry:
            np.testing.assert_array_equal(np.array(entry["pos"]).reshape(r, c), model, err_msg=k)
        for op, arch in itertools.product("AB", ("sm90", "sm100")):
            try:
                t = gluon_nvmma_shared(swz, eb, transposed=tr, block_shape=(r, c), operand=op, arch=arch)
            except fastswz.TileError:
                continue
            np.testing.assert_array_equal(_tile_offsets(t, op), model, err_msg=f"{k} {t!r}")
            checked_tiles += 1
    assert checked_tiles > 500


def test_probe_host_side_on_simulated_observations(tmp_path):
    probe = _probe()
    sample = probe.cases()[::37]
    for i, case in enumerate(sample):
        pos = probe.model_offsets(case).ravel()
        val = np.empty_like(pos)
        val[pos] = np.arange(pos.size)
        np.savez(tmp_path / f"obs_{i}.npz", **{probe.key(case): val})
    # one wrong observation: the collector must see it
    bad = sample[3]
    pos = probe.model_offsets(bad).ravel()
    val = np.empty_like(pos)
    val[pos] = np.arange(pos.size)
    val[[0, 1]] = val[[1, 0]]
    np.savez(tmp_path / "obs_bad.npz", **{probe.key(bad): val})
    (tmp_path / "err_0.json").write_text("{}")
    out = tmp_path / "out"
    totals = probe.collect(tmp_path, out)
    assert totals["observed"] == len(sample)
    assert totals["model_diff"] == 1 and totals["tile_diff"] <= 1
    swizzled = [c for c in sample if c[0]]
    assert totals["control_same"] == 0 and swizzled  # the unswizzled control always differs
    assert (out / "table.md").exists() and (out / "gluon_placements.json").exists()


def _gpu_reason():
    if importlib.util.find_spec("triton") is None:
        return "triton is not installed"
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed"
    if not shutil.which("nvidia-smi"):
        return "no NVIDIA GPU (nvidia-smi not found)"
    try:
        import triton.experimental.gluon  # noqa: F401
    except ImportError as exc:
        return f"this triton has no Gluon ({exc})"
    return None


@pytest.mark.skipif(_gpu_reason() is not None, reason=_gpu_reason() or "")
def test_probe_on_gpu(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    env_path = f"{HERE.parent / 'src'}:{PROBE.parent}"
    r = subprocess.run([sys.executable, str(PROBE), "work", "0", "40", str(work)], capture_output=True,
                       text=True, env={**__import__("os").environ, "PYTHONPATH": env_path})
    assert r.returncode == 0, r.stderr[-2000:]
    totals = _probe().collect(work, tmp_path / "out")
    assert totals["errors"] == 0 and totals["model_diff"] == 0 and totals["tile_diff"] == 0
