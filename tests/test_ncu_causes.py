"""tests/gpu/gemm/ncu_causes.py without a GPU: its parsing of Nsight Compute's raw CSV (a
committed H100 run), its grouping of kernels into problems, and each of its cause rules at and
around its thresholds."""
from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("ncu_causes", ROOT / "tests" / "gpu" / "gemm" / "ncu_causes.py")
nc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nc)

RUN = ROOT / "docs" / "conformance" / "2026-11-27-ninth-session" / "run1-ncu-causes-h100"


@pytest.fixture(scope="module")
def chunk0(tmp_path_factory):
    d = tmp_path_factory.mktemp("ncu")
    (d / "ncu_causes_000.csv").write_bytes(gzip.decompress((RUN / "ncu_causes_000.csv.gz").read_bytes()))
    (d / "metrics.txt").write_text((RUN / "metrics.txt").read_text())
    return d


def test_raw_csv_groups_into_problems(chunk0):
    """The first chunk of the H100 run: 8 problems in ncu_pair's order, each with fastswz's GEMM
    first (and its split-K reduction kernel where the plan has one) and cuBLAS's kernels after."""
    problems, ks = nc._kernels(str(chunk0 / "ncu_causes_000.csv"))
    wanted = [ln.split()[0] for ln in (RUN / "ncu_problems.txt").read_text().splitlines()[:8]]
    assert [p.split()[0] for p in problems] == wanted
    groups = nc._group(problems, ks)
    assert len(groups) == 8
    for spec, g in groups:
        assert g["fastswz"][0]["name"].startswith("fastswz_gemm") and g["cublas"]
        split = " split_k=" in spec
        names = [k["name"] for k in g["fastswz"]]
        # the unswapped split plans reduce in a second kernel (reduce "kernel"); the rest do not
        assert ("fastswz_splitk_reduce" in names) == (split and "swap_ab=True" not in spec)
        assert all(not k["name"].startswith("fastswz") for k in g["cublas"])
        for k in g["fastswz"] + g["cublas"]:
            assert k["m"]["gpu__time_duration.sum"] > 0


def test_table_reproduces_the_committed_rows(chunk0, capsys):
    """The table printed from the raw CSV has the committed table's rows for these problems."""
    nc.main(["table", str(chunk0)])
    out = capsys.readouterr().out
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and not ln.startswith(("| problem", "| ---"))]
    committed = {ln.split(" | ")[0].split(" (")[-1].rstrip(")"): ln
                 for ln in (RUN / "ncu_causes_table.md").read_text().splitlines()
                 if ln.startswith("| ") and "x" in ln.split(" | ")[0]}
    assert len(rows) == 8
    for ln in rows:
        spec = ln.split(" | ")[0].split(" (")[-1].rstrip(")")
        mine, theirs = ln.split(" | "), committed[spec].split(" | ")
        assert mine[2:] == theirs[2:]   # ncu ratio, plan, times, metrics, stall, cause (no corpus column here)


def _lib(**kw):
    base = {"time_ns": 10000.0, "kernels": 1, "name": "k", "grid": 132, "dram_pct": 40.0, "dram_bytes": 1e7,
            "sm_pct": 10.0, "tensor_pct": 10.0, "inst": 1e6, "regs": 168, "stalls": [("long_scoreboard", 3.0)]}
    base.update(kw)
    return base


@pytest.mark.parametrize("f,c,cause", [
    (dict(dram_bytes=1.10e7), {}, "more DRAM bytes (1.10x cuBLAS's)"),
    (dict(dram_bytes=1.09e7, inst=1.5e6), {}, "more instructions (1.5x cuBLAS's)"),
    (dict(dram_bytes=1.09e7, inst=1.49e6, dram_pct=59.9, tensor_pct=49.9), {},
     "latency (top stall per issue: fastswz long scoreboard 3.0, cuBLAS long scoreboard 3.0)"),
    (dict(kernels=2), {}, "latency (top stall per issue: fastswz long scoreboard 3.0, cuBLAS long scoreboard 3.0; 2 kernels)"),
    (dict(tensor_pct=50.0), dict(tensor_pct=60.0), "tensor pipe (50% active against 60%)"),
    (dict(tensor_pct=70.0), dict(tensor_pct=60.0, dram_pct=30.0), "DRAM (40% of peak against 30%)"),
    (dict(dram_pct=60.0), dict(dram_pct=61.0), "DRAM (60% of peak against 61%)"),
])
def test_cause_rules_in_order(f, c, cause):
    """Each rule of the module docstring at its threshold, the first that holds winning."""
    assert nc.cause(_lib(**f), _lib(**c)) == cause


def test_select_takes_the_problems_under_the_ratio(tmp_path, capsys):
    rows = [{"name": "a", "m": 8, "n": 64, "k": 64, "a_dtype": "e4m3", "a_major": "K", "b_major": "K",
             "fastswz": {"median_ms": 0.02}, "cublas": {"median_ms": 0.01, "kind": "same"}},
            {"name": "b", "m": 16, "n": 64, "k": 64, "a_dtype": "bf16", "a_major": "K", "b_major": "K",
             "fastswz": {"median_ms": 0.01}, "cublas": {"median_ms": 0.0095, "kind": "same"}},
            {"name": "c", "m": 32, "n": 64, "k": 64, "a_dtype": "e4m3", "a_major": "K", "b_major": "K",
             "fastswz": {"median_ms": 0.02}, "cublas": {"median_ms": 0.01, "kind": "bf16"}}]
    p = tmp_path / "corpus.json"
    p.write_text(json.dumps({"rows": rows}))
    nc.main(["select", str(p), "--below", "0.9"])
    assert capsys.readouterr().out.splitlines() == ["8x64x64:e4m3 a 0.500"]
