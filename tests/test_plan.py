"""fastswz.plan_gemm, fastswz plan / tune / emit.

Worked examples below are computed by hand in the test from the PTX / driver rules (comments show
the arithmetic); the grid tests hold every legal plan equal to the OperandTile it names and
simulate the TMA box writes against that tile's address map; the fast path equals the twin.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import OperandTile, PlanError, reference
from fastswz.cli import main
from fastswz.emit import emit, emit_header
from fastswz.modes import SwizzleMode
from fastswz.plan import PLAN_ERRORS, plan_gemm, plan_reason
from fastswz.tune import tune

ROOT = Path(__file__).resolve().parents[1]


def _child_env():
    """The environment for a child Python: the fastswz this test imported (an installed one in
    CI, src/ with the in-place build here), not whatever src/ holds."""
    return {**os.environ, "PYTHONPATH": str(Path(fastswz.__file__).resolve().parents[1])}


# -- worked by hand ------------------------------------------------------------------------------
def test_sm90_bf16_k_major_128x128x64_4_stages():
    r = plan_gemm("sm90", "bf16", "bf16", "K", "K", 128, 128, 64, 4).row(0)
    # A stage: 128 rows x 64 bf16 = 128 * 128 B = 16384 B; B the same. 64 bf16 = 128 B of K fill
    # a 128B swizzle row, so "auto" picks 128B and the stage buffers sit on 1024 B.
    assert r["legal"] and r["reason"] is None
    assert r["a"]["stage_bytes"] == r["b"]["stage_bytes"] == 16384
    assert r["a"]["stage_offsets"] == [0, 16384, 32768, 49152]
    assert r["b"]["stage_offsets"] == [65536, 81920, 98304, 114688]
    # 4 stages x (16384 + 16384) + 4 x (full + empty) 8-byte mbarriers.
    assert r["smem_bytes"] == 4 * 32768 + 4 * 2 * 8 == 131136
    assert r["barrier_offset"] == 131072
    # wgmma: M = 64 per warpgroup (BM/64 = 2 warpgroups), N = BN, K = 32 B / 2 B = 16.
    assert r["instruction"] == "wgmma.m64n128k16.f32.bf16.bf16"
    assert r["warpgroups"] == 2 and r["mma_per_k_tile"] == 2 * (64 // 16)
    for op in "ab":
        d = r[op]
        assert d["swizzle"] == d["tma_swizzle"] == "128B"
        assert d["tma_swizzle_enum"] == "CU_TENSOR_MAP_SWIZZLE_128B" and d["tma_swizzle_value"] == 3
        # box innermost first: one 128-byte swizzle row of K (64 bf16) x all 128 MN rows.
        assert d["tma_box"] == [64, 128] and d["tma_copies_per_stage"] == 1
        assert d["tma_box_offsets"] == [{"smem_offset": 0, "coords": [0, 0]}]
        assert d["tma_element_strides"] == [1, 1]
        assert d["tma_interleave"] == "none"
        assert d["tma_interleave_enum"] == "CU_TENSOR_MAP_INTERLEAVE_NONE"
        # K-major 128B: LBO unused (CUTLASS writes 1 = 16 B), SBO = 8 rows x 128 B = 1024 B.
        assert (d["lbo_bytes"], d["sbo_bytes"]) == (16, 1024)
        # DeepGEMM-style advance: one k-step is 16 bf16 = 32 B = 2 descriptor units, inside the atom.
        assert d["k_step_increment"] == 2
    # Descriptor (PTX 9.7.15.5.1.2.2): layout_type 1 (128B) << 62 | SBO 64 << 32 | LBO 1 << 16 | start >> 4.
    base = 1 << 62 | 64 << 32 | 1 << 16
    a, b = r["a"]["descriptors"], r["b"]["descriptors"]
    assert np.array(a).shape == (4, 2, 4) and np.array(b).shape == (4, 1, 4)
    # A: warpgroup 1's 64 rows start 64 x 128 B = 8192 B later (start field + 0x200).
    assert a[0][0] == [f"0x{base | j * 2:016x}" for j in range(4)]
    assert a[0][1][0] == f"0x{base | 8192 >> 4:016x}"
    assert a[3][0][0] == f"0x{base | 49152 >> 4:016x}"
    assert b[0][0][0] == f"0x{base | 65536 >> 4:016x}"


def test_sm90_bf16_mn_major_b_128B():
    r = plan_gemm("sm90", "bf16", "bf16", "K", "MN", 128, 256, 64, 3).row(0)
    b = r["b"]
    # B MN-major: 256 bf16 of N = 512 B contiguous, so auto = 128B; the atom is 64 (N) x 8 (K).
    assert b["swizzle"] == "128B" and b["order"] == "k"
    # A box row = 64 N elements (128 B); one box covers the 64 K rows of one 64-wide N column.
    assert b["tma_box"] == [64, 64] and b["tma_copies_per_stage"] == 256 // 64
    # the K atoms of one N column are consecutive (64 rows x 128 B = 8192 B per column).
    assert [o["smem_offset"] for o in b["tma_box_offsets"]] == [0, 8192, 16384, 24576]
    assert [o["coords"] for o in b["tma_box_offsets"]] == [[0, 0], [64, 0], [128, 0], [192, 0]]
    # MN-major swizzled: LBO = next MN atom (8192 B), SBO = next 8-row K group (1024 B).
    assert (b["lbo_bytes"], b["sbo_bytes"]) == (8192, 1024)
    # one k-step = 16 K rows = 2 atoms of 1024 B = 2048 B = 128 units.
    assert b["k_step_increment"] == 128
    # A 128 x 64 x 2 = 16384 B, B 256 x 64 x 2 = 32768 B, 3 stages, 3 x 16 B of barriers.
    assert r["smem_bytes"] == 3 * (16384 + 32768) + 48
    assert r["instruction"] == "wgmma.m64n256k16.f32.bf16.bf16"


def test_other_types_and_swizzles_by_hand():
    # tf32: K = 32 B / 4 B = 8; BK = 32 tf32 = 128 B -> 128B; 4 k-steps of 32 B = 2 units.
    r = plan_gemm("sm90", "tf32", "tf32", "K", "K", 64, 64, 32, 2).row(0)
    assert r["instruction"] == "wgmma.m64n64k8.f32.tf32.tf32"
    assert r["a"]["tma_box"] == [32, 64] and r["a"]["k_step_increment"] == 2
    # e4m3 with BK = 64 (64 B) -> 64B swizzle, 512-byte atoms; K = 32 -> 2 k-steps.
    r = plan_gemm("sm90", "e4m3", "e5m2", "K", "K", 64, 32, 64, 2).row(0)
    assert r["instruction"] == "wgmma.m64n32k32.f32.e4m3.e5m2"
    assert r["a"]["swizzle"] == "64B" and r["a"]["tma_box"] == [64, 64]
    assert r["a"]["sbo_bytes"] == 8 * 64  # 8 rows of 64 B
    # stages: A 64 x 64 = 4096 B, B 32 x 64 = 2048 B; B starts after 2 x 4096 on a 512 B line.
    assert r["b"]["stage_offsets"] == [8192, 10240] and r["smem_bytes"] == 8192 + 4096 + 32
    # s8 x u8: integer accumulators
    r = plan_gemm("sm90", "s8", "u8", "K", "K", 64, 48, 128, 2).row(0)
    assert r["instruction"] == "wgmma.m64n48k32.s32.s8.u8"
    # 128B with BK spanning 2 K atoms: the step crosses to the next K column of atoms, which
    # starts after the whole MN extent (128 rows x 128 B), so the increment is not constant.
    r = plan_gemm("sm90", "bf16", "bf16", "K", "K", 128, 128, 128, 2).row(0)
    assert r["a"]["k_step_increment"] is None
    starts = [int(d, 16) & 0x3FFF for d in r["a"]["descriptors"][0][0]]
    assert np.diff(starts).tolist() == [2, 2, 2, 16384 // 16 - 6, 2, 2, 2]
    assert r["a"]["tma_copies_per_stage"] == 2
    assert r["a"]["tma_box_offsets"][1] == {"smem_offset": 128 * 128, "coords": [64, 0]}
    # a 32B swizzle row (16 bf16) holds exactly one k-step: every step moves a whole atom column.
    r = plan_gemm("sm90", "bf16", "bf16", "K", "K", 64, 64, 64, 1, swizzle_a="32B").row(0)
    assert r["a"]["k_step_increment"] == 64 * 32 // 16
    # no swizzle (interleave): box rows of 16 B; the 8 x 16 B core matrices run down MN.
    r = plan_gemm("sm90", "bf16", "bf16", "K", "K", 64, 64, 32, 1, swizzle_a="none").row(0)
    a = r["a"]
    assert a["tma_box"] == [8, 64] and a["tma_copies_per_stage"] == 4
    assert a["tma_swizzle_enum"] == "CU_TENSOR_MAP_SWIZZLE_NONE"
    assert (a["lbo_bytes"], a["sbo_bytes"]) == (64 * 16, 128)


def test_sm100_and_epilogue_by_hand():
    r = plan_gemm("sm100", "bf16", "bf16", "K", "K", 256, 256, 64, 3, cta_group=2,
                  epilogue_dtype="bf16").row(0)
    # cta_group::2: M = 256 over the pair, each CTA holds 128 rows of A and 128 of B.
    assert r["instruction"] == "tcgen05.mma.cta_group::2.kind::f16.m256n256k16"
    assert r["a"]["mn"] == r["b"]["mn"] == 128 and r["warpgroups"] is None
    # instruction descriptor (PTX tcgen05 instruction descriptor table): D f32 = 1 at bits 4-5,
    # A/B bf16 = 1 at bits 7-9 and 10-12, N >> 3 at bits 17-22, M >> 4 at bits 24-28.
    assert r["instr_descriptor"] == f"0x{1 << 4 | 1 << 7 | 1 << 10 | 32 << 17 | 16 << 24:08x}"
    # epilogue: 128 rows x 256 bf16 = 512 B rows, 128B swizzle, 65536 B after 3 x 2 x 16384.
    assert r["epilogue"]["swizzle"] == "128B" and r["epilogue"]["offset"] == 3 * 2 * 16384
    assert r["smem_bytes"] == 3 * 2 * 16384 + 128 * 512 + 3 * 16
    # sm100 descriptor: version bit 46, layout 2 (128B) << 61.
    assert int(r["a"]["descriptors"][0][0][0], 16) == 2 << 61 | 1 << 46 | 64 << 32 | 1 << 16
    # e4m3 x e5m2 (kind::f8f6f4: codes 0 and 1), B MN-major (transpose B, bit 16)
    r = plan_gemm("sm100", "e4m3", "e5m2", "K", "MN", 128, 64, 128, 2).row(0)
    assert r["instr_descriptor"] == f"0x{1 << 4 | 1 << 10 | 1 << 16 | 8 << 17 | 8 << 24:08x}"
    assert plan_gemm("sm90", "bf16", "bf16", "K", "K", 128, 64, 64, 2).row(0)["instr_descriptor"] is None
    r = plan_gemm("sm100", "tf32", "tf32", "K", "MN", 128, 128, 32, 2).row(0)
    assert r["b"]["swizzle"] == "128B_base32B"
    assert r["b"]["tma_swizzle_enum"] == "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B"
    assert r["b"]["tma_box"] == [32, 32]  # 32 tf32 = 128 B of N x BK = 32 rows


# -- reasons ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, code", [
    (dict(arch="sm90", cta_group=2), 1),
    (dict(a_dtype="bf16", b_dtype="f16"), 2),
    (dict(bm=96), 3),
    (dict(bn=264), 4),
    (dict(a_dtype="s8", b_dtype="s8", bn=40, bk=128), 4),
    (dict(bk=8), 5),
    (dict(a_dtype="e4m3", b_dtype="e4m3", a_major="MN", bk=64), 6),
    (dict(swizzle_b="128B", bn=8, b_major="MN"), 13),
    (dict(swizzle_a="128B", bk=32), 8),
    (dict(a_dtype="bf16", b_dtype="bf16", b_major="MN", bn=256, bk=4096, stages=1), 16),
    (dict(epilogue_dtype="bf16", epilogue_swizzle="128B", bn=48), 18),
    (dict(epilogue_dtype="bf16", bn=256, epilogue_n=96), 18),
    (dict(epilogue_dtype="bf16", epilogue_swizzle="128B", bn=256, epilogue_n=32), 18),
    (dict(stages=8), 19),
    (dict(smem_base=0x30000, stages=3), 20),
])
def test_reason_codes(kwargs, code):
    p = plan_gemm(**kwargs)
    assert int(p["reason"]) == code, plan_reason(int(p["reason"]))
    q = reference.plan_gemm(**kwargs)
    assert int(q["reason"]) == code
    row = p.row(0)
    assert row["legal"] is False and row["reason"] == PLAN_ERRORS[code]
    assert set(row["a"]) == set(plan_gemm().row(0)["a"])  # the same keys, legal or not


# -- grid: OperandTile and the TMA box writes -----------------------------------------------------
def _grid():
    ax = lambda v, d: np.array(v, dtype=object if isinstance(v[0], str) else None).reshape([-1] + [1] * d)
    return dict(arch=ax(["sm90", "sm100"], 7), a_dtype=ax(["bf16", "e4m3", "tf32"], 6),
                a_major=ax(["K", "MN"], 5), b_major=ax(["K", "MN"], 4), bm=ax([64, 128, 256, 512], 3),
                bn=ax([16, 64, 128], 2), bk=ax([32, 64, 128, 512], 1), swizzle_a=["auto", "none", "32B", "64B"],
                stages=2)


def _swz(x, mode):
    b, m, s = mode.swizzle_bits
    return x ^ ((x & (((1 << b) - 1) << (m + s))) >> s)


def test_grid_agrees_with_operand_tile_and_tma_writes_its_layout():
    g = _grid()
    g["b_dtype"] = g["a_dtype"]
    p = plan_gemm(**g)
    legal = np.flatnonzero(p["legal"].ravel())
    assert legal.size > 100
    for i in legal[:: max(1, legal.size // 150)]:
        row, tiles = p.row(i), p.tiles(i)
        for op, tile in zip("ab", tiles):
            d = row[op]
            want = OperandTile(d["dtype"], d["major"], d["swizzle"], d["mn"], d["k"],
                               "mn" if d["major"] == "K" else "k", row["arch"])
            assert want == tile
            assert (d["lbo_bytes"], d["sbo_bytes"]) == want.strides(d["inst_mn"])
            assert d["stage_bytes"] == want.nbytes
            start = row["smem_base"] + d["stage_offsets"][1]
            grid = want.descriptors(start, d["inst_mn"])
            assert [f"0x{int(v):016x}" for v in grid.ravel()] == [x for blk in d["descriptors"][1] for x in blk]
            # Simulate the TMA: box row r, element c of copy (offset, coords) lands at
            # swizzle(start + offset + r * span + c * E); the tile's map must agree everywhere.
            mode = SwizzleMode(d["tma_swizzle"])
            e = want.element_bits // 8
            span = d["tma_box"][0] * e
            assert span == mode.byte_width
            addr = want.addresses(start)
            seen = np.zeros_like(addr, dtype=bool)
            inner, outer = d["tma_box"]
            c, r = np.meshgrid(np.arange(inner), np.arange(outer))
            for o in d["tma_box_offsets"]:
                lin = start + o["smem_offset"] + r * span + c * e
                if d["major"] == "K":
                    mn, k = o["coords"][1] + r, o["coords"][0] + c
                else:
                    mn, k = o["coords"][0] + c, o["coords"][1] + r
                np.testing.assert_array_equal(addr[mn, k], _swz(lin, mode))
                seen[mn, k] = True
                assert (start + o["smem_offset"]) % max(128, mode.atom_bytes) == 0
            assert seen.all()


def test_fast_equals_twin_on_a_random_grid():
    rng = np.random.default_rng(5)
    n = 3000
    args = dict(arch=rng.choice(["sm90", "sm100"], n),
                a_dtype=rng.choice(["bf16", "f16", "e4m3", "e5m2", "tf32", "f32", "s8", "u8"], n),
                b_dtype=rng.choice(["bf16", "f16", "e4m3", "tf32", "s8"], n),
                a_major=rng.choice(["K", "MN"], n), b_major=rng.choice(["K", "MN"], n),
                bm=rng.choice([8, 64, 96, 128, 192, 256, 512], n),
                bn=rng.choice([8, 16, 24, 40, 48, 64, 96, 128, 256, 264, 512], n),
                bk=rng.choice([8, 16, 32, 64, 128, 256, 4096], n), stages=rng.integers(1, 9, n),
                swizzle_a=rng.choice(["auto", "none", "32B", "64B", "128B", "128B_base32B"], n),
                swizzle_b=rng.choice(["auto", "none", "32B", "64B", "128B"], n),
                epilogue_dtype=rng.choice(["none", "bf16", "f32"], n),
                epilogue_swizzle=rng.choice(["auto", "none", "64B", "128B"], n),
                epilogue_n=rng.choice([0, 0, 8, 16, 32, 48, 64, 128, 256], n),
                epilogue_stages=rng.choice([1, 1, 2, 3], n),
                cta_group=rng.choice([1, 2], n), smem_budget=rng.choice([232448, 100000], n))
    for base in (0, 0x20000):
        fast, twin = plan_gemm(**args, smem_base=base), reference.plan_gemm(**args, smem_base=base)
        assert sorted(fast.keys()) == sorted(twin.keys())
        for k in fast.keys():
            np.testing.assert_array_equal(fast[k], twin[k], err_msg=k)
            assert fast[k].dtype == twin[k].dtype
        assert len(set(fast["reason"].tolist())) >= 12


def test_broadcast_shape_and_scalars():
    p = plan_gemm(bm=[[64], [128]], bn=[64, 128, 256])
    assert p.shape == (2, 3) and p["smem_bytes"].shape == (2, 3)
    assert plan_gemm().shape == () and int(plan_gemm()["smem_bytes"]) == 131136
    with pytest.raises(AttributeError):
        p.shape = (1,)
    with pytest.raises(ValueError):
        p["smem_bytes"][0, 0] = 1


@pytest.mark.parametrize("kwargs, cls, text", [
    (dict(a_dtype="bf17"), fastswz.TileError, "not a known operand type"),
    (dict(a_dtype="e2m1"), PlanError, "4-bit type"),
    (dict(bm=100), PlanError, "bm holds 100"),
    (dict(stages=0), PlanError, "stages holds 0"),
    (dict(cta_group=3), PlanError, "cta_group holds 3"),
    (dict(smem_budget=1000), PlanError, "below the smallest plan"),
    (dict(smem_budget=300000), PlanError, "smem_budget holds 300000"),
    (dict(smem_base=0x100), PlanError, "smem_base=0x100"),
    (dict(epilogue_dtype="bf16", epilogue_swizzle="128B_base32B"), PlanError, "MMA-operand mode"),
    (dict(bm=[64, 128], bn=[64, 128, 256]), PlanError, "do not broadcast"),
    (dict(a_major=1), fastswz.FastswzTypeError, "a_major must be a string"),
    (dict(arch="sm103"), fastswz.TileError, "arch='sm103'"),
])
def test_bad_input_raises_the_same_in_both(kwargs, cls, text):
    for fn in (plan_gemm, reference.plan_gemm):
        with pytest.raises(cls, match=text):
            fn(**kwargs)


# -- CLI ---------------------------------------------------------------------------------------------
CONTRACT = ("plan --arch sm90 --a-dtype bf16 --b-dtype bf16 --a-major K --b-major K --bm 128 --bn 128 "
            "--bk 64 --stages 4 --swizzle auto --json").split()


def test_cli_plan_contract(capsys):
    assert main(CONTRACT) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["legal"] is True and d["reason"] is None and d["smem_bytes"] == 131136
    assert d["instruction"] == "wgmma.m64n128k16.f32.bf16.bf16"
    for op in "ab":
        o = d[op]
        assert isinstance(o["swizzle"], str) and o["tma_swizzle"] == "128B"
        for key in ("lbo_bytes", "sbo_bytes", "stage_bytes", "tma_copies_per_stage"):
            assert type(o[key]) is int
        assert o["tma_box"] == [64, 128] and o["k_step_increment"] == 2
        assert all(isinstance(x, str) and x.startswith("0x") for s in o["descriptors"] for b in s for x in b)
        for key in ("stage_offsets", "tma_element_strides", "tma_interleave", "tma_interleave_enum", "tma_box_offsets", "order"):
            assert key in o
    assert d["mma_per_k_tile"] == 8 and d["warpgroups"] == 2 and d["epilogue"] is None


def test_cli_plan_illegal_overrides_and_errors(capsys):
    assert main(CONTRACT[:-1] + ["--stages", "9", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["legal"] is False and d["reason"] == PLAN_ERRORS[19] and d["smem_bytes"] > 232448
    # --swizzle-a overrides --swizzle for A only: 64B rows hold 32 bf16, BK = 64 is 2 atoms of K.
    assert main(CONTRACT + ["--swizzle-a", "64B"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["legal"] and (d["a"]["swizzle"], d["b"]["swizzle"]) == ("64B", "128B")
    assert d["a"]["tma_box"] == [32, 128] and d["a"]["tma_copies_per_stage"] == 2
    # a 128B row needs 64 bf16 of K: BK = 32 is half an atom, illegal inside the space (exit 0)
    assert main(CONTRACT[:-1] + ["--bk", "32", "--swizzle-b", "128B"]) == 0
    assert "legal        no: B: the K extent (BK) is not a whole number" in capsys.readouterr().out
    assert main(CONTRACT[:-1] + ["--bm", "100"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastswz: error: bm holds 100") and err.count("\n") == 1
    assert main(CONTRACT[:-1] + ["--a-dtype", "nope"]) == 2


def test_cli_tune(capsys):
    assert main("tune --m 4096 --n 4096 --k 4096 --top 4 --json".split()) == 0
    d = json.loads(capsys.readouterr().out)
    assert "not measured speed" in d["note"] and len(d["plans"]) == 4
    cyc = [p["model_cycles"] for p in d["plans"]]
    assert cyc == sorted(cyc)
    for p in d["plans"]:
        q = plan_gemm("sm90", "bf16", "bf16", "K", "K", p["bm"], p["bn"], p["bk"], p["stages"],
                      p["swizzle_a"], p["swizzle_b"]).row(0)
        assert q["legal"] and q["smem_bytes"] == p["smem_bytes"] and q["instruction"] == p["instruction"]
    assert main("tune --m 1024 --n 1024 --k 1024 --top 2 --csv".split()) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("rank,") and len(lines) == 3
    assert main("tune --m 0 --n 1 --k 1".split()) == 2


def test_tune_model_prefers_full_waves():
    # 132 SMs: a 128 x 128 grid of 1056 tiles for M = N = 132*... the model must rank by cycles.
    best = tune(132 * 128, 128, 4096, top=1)[0]
    assert best["waves"] == 1 or best["efficiency"] > 0.5


# -- emit --------------------------------------------------------------------------------------------
EMIT = ("emit --a-dtype bf16 --b-dtype bf16 --bm 128 --bn 128 --bk 64 --stages 3 "
        "--epilogue-dtype bf16").split()


@pytest.mark.parametrize("fmt", ["header", "json", "python"])
def test_emit_is_byte_identical_across_runs(fmt, tmp_path):
    outs = []
    for j in range(2):
        path = tmp_path / f"out{j}"
        res = subprocess.run([sys.executable, "-m", "fastswz", *EMIT, "--format", fmt, "-o", str(path)],
                             capture_output=True, text=True, env=_child_env())
        assert res.returncode == 0, res.stderr
        outs.append(path.read_bytes())
    assert outs[0] == outs[1] and b"fastswz emit --a-dtype bf16" in outs[0]
    assert emit(plan_gemm(), fmt) == emit(plan_gemm(), fmt)


def test_emit_python_and_json_hold_the_plan():
    ns = {}
    exec(emit(plan_gemm(stages=2), "python"), ns)  # noqa: S102 - our own generated module
    assert ns["PLAN"]["a"]["descriptors"] == plan_gemm(stages=2).row(0)["a"]["descriptors"]
    d = json.loads(emit(plan_gemm(stages=2), "json", addresses=True))
    tile = plan_gemm(stages=2).tiles(0)[0]
    assert d["a"]["addresses"] == tile.addresses(0).tolist()
    with pytest.raises(PlanError, match="not legal"):
        emit(plan_gemm(stages=9))


NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_emitted_header_compiles_with_nvcc(tmp_path):
    p = plan_gemm("sm90", "bf16", "bf16", "K", "MN", 128, 128, 64, 3, epilogue_dtype="bf16")
    row = p.row(0)
    (tmp_path / "plan.h").write_text(emit_header(p, name="g", addresses=True))
    (tmp_path / "tile.h").write_text(emit_header(OperandTile("e4m3", "K", "64B", 64, 64), name="t"))
    a, b = row["a"], row["b"]
    checks = [
        f"static_assert(g::kSmemBytes == {row['smem_bytes']}, \"smem\");",
        f"static_assert(g::a::kDescriptors[2][1][3] == {a['descriptors'][2][1][3]}ull, \"desc\");",
        f"static_assert(g::b::kDescriptors[0][0][1] - g::b::kDescriptors[0][0][0] == "
        f"{b['k_step_increment']}, \"inc\");",
        f"static_assert(g::b::kTmaBox[0] == {b['tma_box'][0]} && g::b::kTmaBox[1] == {b['tma_box'][1]}, \"box\");",
        f"static_assert(g::b::kTmaCopiesPerStage == {b['tma_copies_per_stage']}, \"copies\");",
        f"static_assert(g::a::kAddresses[3][10] == {p.tiles(0)[0].addresses(0)[3, 10]}u, \"addr\");",
        f"static_assert(t::kDescriptors[0][1] == "
        f"{int(OperandTile('e4m3', 'K', '64B', 64, 64).descriptors()[0, 1])}ull, \"tile\");",
    ]
    cu = tmp_path / "k.cu"
    cu.write_text('#include "plan.h"\n#include "tile.h"\n' + "\n".join(checks) + "\n"
                  "__global__ void k(unsigned long long* o) { o[0] = g::a::kDescriptors[0][0][0]; }\n")
    res = subprocess.run([NVCC, "-std=c++17", "-arch=sm_90a", "-c", str(cu), "-o", str(tmp_path / "k.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    # a wrong expectation must fail: the static_asserts are live
    cu.write_text('#include "plan.h"\nstatic_assert(g::kSmemBytes == 1, "x");\n')
    bad = subprocess.run([NVCC, "-std=c++17", "-c", str(cu), "-o", str(tmp_path / "k2.o")],
                         capture_output=True, text=True)
    assert bad.returncode != 0


# -- examples ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("script", ["h100_bf16_tile_search.py", "codegen_header.py",
                                    "gemm_from_plan.py"])
def test_examples_run(script, tmp_path):
    res = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--out", str(tmp_path)],
                         capture_output=True, text=True, env=_child_env(),
                         timeout=300)
    assert res.returncode == 0, res.stderr + res.stdout
    assert res.stdout.strip()


# -- epilogue bank-conflict columns (issue 12 part 2) -----------------------------------------------
def _byte_swizzle(addr, span):
    """PTX 9.7.15.5.1.2 / NOTES 10: a swizzle of span bytes XORs address bits [7, 7 + B) into
    [4, 4 + B), B = log2(span / 16)."""
    b = (span // 16).bit_length() - 1
    return addr ^ ((addr >> 3) & (((1 << b) - 1) << 4))


@pytest.mark.parametrize("dtype, swizzle, rows, bn", [
    ("bf16", "128B", 128, 256), ("bf16", "64B", 64, 96), ("f32", "32B", 64, 64),
    ("f32", "none", 128, 8), ("e4m3", "128B", 256, 128), ("f16", "none", 64, 48),
])
def test_epilogue_tile_is_what_the_plan_lays_out(dtype, swizzle, rows, bn):
    # The plan's epilogue buffer, from its own TMA description: boxes of [span / E, rows] written
    # one after another along N, each box row span bytes, the swizzle on the absolute address.
    # The banks module scores fastswz.banks.epilogue_tile: it must be the same map.
    p = plan_gemm("sm90", "bf16", "bf16", "K", "K", rows, bn, 64, 1, epilogue_dtype=dtype,
                  epilogue_swizzle=swizzle)
    epi = p.row(0)["epilogue"]
    span = SwizzleMode(swizzle).byte_width
    e = fastswz.dtype(dtype).bits // 8
    inner, outer = epi["tma_box"]
    assert inner * e == span and outer == min(rows, 256)
    r, c = np.meshgrid(np.arange(rows), np.arange(bn), indexing="ij")
    plain = (c // inner) * rows * span + r * span + (c % inner) * e
    from_plan = _byte_swizzle(plain + epi["offset"], span) - epi["offset"]
    if bn * e % 32 == 0 or swizzle != "none":
        np.testing.assert_array_equal(from_plan, fastswz.banks.epilogue_tile(dtype, swizzle, rows, bn))


def test_epilogue_banks_by_hand():
    # f32 64 x 64, 8-byte st.shared of accumulator pairs: 4 slabs x 8 column groups x 2 halves =
    # 64 stores of 256 bytes (64 words: ideal 2 each, 128 in all). "none": a half-warp's rows
    # 0-3 hit column blocks 0 and 1 (1024 bytes apart, the same banks) -> 2 per half-warp, 256;
    # 32B: each 32-byte row is one column group, rows 0-3 fill 128 bytes -> ideal, 128; 64B and
    # 128B: 2 rows per 128 bytes, the row pair of a half-warp collides -> 256 (the README's
    # banks example: none 256, 32B 128, 64B 256, 128B 256).
    p = plan_gemm(bm=64, bn=64, epilogue_dtype="f32", epilogue_swizzle=["none", "32B", "64B", "128B"])
    assert p["epi_wavefronts"].tolist() == [256, 128, 256, 256]
    assert p["epi_ideal"].tolist() == [128] * 4
    assert p["epi_excess"].tolist() == [128, 0, 128, 128]
    assert p["epi_best_swizzle"].tolist() == [2] * 4          # "32B"
    e = p.row(0)["epilogue"]
    assert (e["access"], e["wavefronts"], e["ideal"], e["excess"], e["best_swizzle"]) == \
        ("st", 256, 128, 128, "32B")
    # bf16 128 x 128 by stmatrix.x4: 64 blocks of 16 x 16, 4 wavefronts each at best; every
    # layout's 8 rows of 16 bytes per matrix fall in distinct banks -> all ideal, the widest wins.
    q = plan_gemm(bn=128, epilogue_dtype="bf16", epilogue_swizzle=["none", "128B"])
    assert q["epi_wavefronts"].tolist() == [256, 256] and q["epi_excess"].tolist() == [0, 0]
    assert q.row(0)["epilogue"]["best_swizzle"] == "128B" and q.row(0)["epilogue"]["access"] == "stmatrix"


def test_epilogue_banks_absent_or_illegal_is_minus_one():
    none = plan_gemm(bm=[64, 128])
    for k in ("epi_wavefronts", "epi_ideal", "epi_excess", "epi_best_swizzle"):
        assert none[k].tolist() == [-1, -1] and none[k].dtype == np.int32
    assert none.row(0)["epilogue"] is None
    # BM 96 is no wgmma tiling (reason 3): no tile, no score; BN 24 bf16: 48-byte rows, legal
    # ("none"), but stmatrix.x4 needs 16 x 16 blocks -> no score and no best layout.
    p = plan_gemm(bm=[96, 128], bn=[[64], [24]], epilogue_dtype="bf16")
    assert p["reason"].tolist() == [[3, 0], [3, 0]]
    assert p["epi_wavefronts"].tolist() == [[-1, 256 * 64 // 128], [-1, -1]]
    assert p["epi_best_swizzle"].tolist() == [[-1, 4], [-1, -1]]
    e = p.row(3)["epilogue"]
    assert e["wavefronts"] is None and e["best_swizzle"] is None and e["swizzle"] == "none"
    # over budget: the fields stay filled (as smem_bytes does), so does the score
    q = plan_gemm(stages=60, epilogue_dtype="bf16")
    assert int(q["reason"]) == 19 and int(q["epi_wavefronts"]) == 256   # 64 blocks x 4


def test_epilogue_banks_fast_equals_twin_on_a_grid():
    args = dict(arch=np.array(["sm90", "sm100"])[:, None, None, None, None],
                cta_group=np.array([1, 2])[:, None, None, None],
                bm=np.array([64, 128, 256])[:, None, None], bn=np.array([16, 24, 64, 128, 256])[:, None],
                epilogue_dtype=["none", "bf16", "f32", "e4m3", "s8", "tf32"],
                epilogue_swizzle=np.array(["auto", "none", "32B", "64B", "128B"])[:, None, None, None,
                                                                                  None, None])
    fast, twin = plan_gemm(**args), reference.plan_gemm(**args)
    for k in ("epi_wavefronts", "epi_ideal", "epi_excess", "epi_best_swizzle", "reason"):
        np.testing.assert_array_equal(fast[k], twin[k], err_msg=k)
        assert fast[k].dtype == twin[k].dtype
    w = fast["epi_wavefronts"]
    assert (w > 0).sum() > 100 and (w == -1).sum() > 100 and (fast["epi_excess"] > 0).any()
    assert (fast["epi_wavefronts"] - fast["epi_ideal"] == fast["epi_excess"])[w >= 0].all()


def test_epilogue_subtile_by_hand():
    # bf16 128 x 256 x 64: a stage is 16 KiB of A and 32 KiB of B. The whole 128 x 256 bf16
    # epilogue tile (64 KiB) leaves room for 3 stages in 227 KiB; a 128 x 64 column block
    # (16 KiB) for 4: 4 x 48 KiB + 16 KiB + 4 x 16 B of barriers = 213056 bytes.
    p = plan_gemm(bn=256, bk=64, stages=4, epilogue_dtype="bf16", epilogue_n=[0, 64, 128])
    assert p["reason"].tolist() == [19, 0, 0]
    assert p["epi_bytes"].tolist() == [65536, 16384, 32768]
    assert p["smem_bytes"].tolist() == [4 * 49152 + 65536 + 64, 213056, 4 * 49152 + 32768 + 64]
    r = p.row(1)
    e = r["epilogue"]
    assert (e["rows"], e["cols"], e["subtiles"], e["offset"]) == (128, 64, 4, 4 * 49152)
    # 128B rows of 64 bf16: one box of 64 x 128 covers the block
    assert e["tma_box"] == [64, 128] and e["tma_box_offsets"] == [{"smem_offset": 0, "coords": [0, 0]}]
    # register r of m64n256 holds column 8 (r // 4) + ...: 32 registers per 64-column block
    assert r["kernel"]["accumulator"]["subtile_registers"] == 32
    assert p.row(2)["kernel"]["accumulator"]["subtile_registers"] == 64
    assert p.inputs(0)["epilogue_n"] is None and p.inputs(1)["epilogue_n"] == 64
    # the block is scored as its own tile: the banks of a 128 x 64 tile
    q = plan_gemm(bn=64, bk=64, stages=4, epilogue_dtype="bf16")
    for k in ("epi_wavefronts", "epi_ideal", "epi_best_swizzle"):
        assert int(p[k][1]) == int(q[k]), k
    assert e["layout"] == q.row(0)["epilogue"]["layout"]
    with pytest.raises(PlanError, match="epilogue_n holds 12"):
        plan_gemm(epilogue_dtype="bf16", epilogue_n=12)


def test_epilogue_stages_by_hand():
    # two 128 x 64 bf16 tiles back to back after the 4 stages: 196608 + 2 x 16384 + 64 barriers
    p = plan_gemm(bn=256, bk=64, stages=4, epilogue_dtype="bf16", epilogue_n=64,
                  epilogue_stages=[1, 2, 3])
    assert p["smem_bytes"].tolist() == [213056, 229440, 245824]
    assert p["reason"].tolist() == [0, 0, 19]
    assert p["barrier_offset"].tolist() == [212992, 229376, 245760]
    e = p.row(1)["epilogue"]
    assert e["stages"] == 2 and e["stage_offsets"] == [196608, 196608 + 16384] and e["bytes"] == 16384
    # each tile starts on the 1024-byte 128B swizzle pattern, as the first one
    assert all(o % 1024 == 0 for o in e["stage_offsets"])
    assert p.inputs(1)["epilogue_stages"] == 2
    # without an epilogue tile the input changes nothing
    q = plan_gemm(bn=256, stages=3, epilogue_stages=[1, 4])
    assert q["smem_bytes"].tolist()[0] == q["smem_bytes"].tolist()[1]
    with pytest.raises(PlanError, match="epilogue_stages holds 0"):
        plan_gemm(epilogue_dtype="bf16", epilogue_stages=0)


def test_subtile_registers_follow_the_fragment():
    # every column block's registers, read from the fragment map on all threads
    from fastswz.tv_layout import tv_coords, wgmma_d
    for n, cols in ((256, 64), (256, 32), (128, 128), (96, 32), (64, 8)):
        r = plan_gemm(bn=n, epilogue_dtype="f32", epilogue_n=cols, stages=2).row(0)
        regs = r["kernel"]["accumulator"]["subtile_registers"]
        _, col = tv_coords(wgmma_d(n))
        for j in range(n // cols):
            held = np.flatnonzero(((col // cols) == j).all(axis=0))
            assert held.tolist() == list(range(j * regs, (j + 1) * regs)), (n, cols, j)


def test_plan_cli_epilogue_json_and_text(capsys):
    base = "plan --a-dtype bf16 --b-dtype bf16 --a-major K --b-major K --bm 64 --bn 64 --bk 64 --stages 2"
    assert main((base + " --epilogue-dtype f32 --epilogue-swizzle none --json").split()) == 0
    e = json.loads(capsys.readouterr().out)["epilogue"]
    assert {k: e[k] for k in ("access", "wavefronts", "ideal", "excess", "best_swizzle")} == \
        {"access": "st", "wavefronts": 256, "ideal": 128, "excess": 128, "best_swizzle": "32B"}
    assert main((base + " --json").split()) == 0
    assert json.loads(capsys.readouterr().out)["epilogue"] is None
    assert main((base + " --epilogue-dtype f32 --epilogue-swizzle none").split()) == 0
    out = capsys.readouterr().out
    assert "stores (st): 256 wavefronts, ideal 128, excess 128; best swizzle 32B" in out
