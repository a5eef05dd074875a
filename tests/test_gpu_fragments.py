"""The register-fragment witness (tests/gpu/fragments): its checker on the CPU, against the PTX
semantics simulated in numpy, with injected hardware deviations that it must catch; the
generated asm wrappers are current; and, on a Hopper GPU, the real run."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "gpu" / "fragments"


def _load(name):
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


check = _load("check")
simulate = _load("simulate")


def test_generated_wrappers_are_current():
    p = subprocess.run([sys.executable, str(HERE / "gen_ops.py"), "--check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_instruction_tables_agree():
    gen = _load("gen_ops")
    assert [op[0] for op in gen.MMA] == [c[0] for c in check.MMA_CASES]
    assert gen.WGMMA_SS_N == check.WGMMA_SS_N and gen.WGMMA_SS_F16_N == check.WGMMA_SS_F16_N
    assert [(r[0], r[3]) for r in gen.WGMMA_RS] == check.WGMMA_RS


def test_checker_passes_on_simulated_hardware():
    results, controls = check.run_all(simulate.SimBackend(), log=lambda s: None)
    assert len(results) == 45 and all(r.mismatches == 0 for r in results)
    assert all(r.checked > 0 for r in results)
    assert all(r.mismatches > 0 for _, r in controls), [w for w, r in controls if not r.mismatches]


@pytest.mark.parametrize("flaw, kind", [
    ("ldmatrix-ignores-trans", "ldmatrix"),
    ("wgmma-d-warps-swapped", "wgmma D"),
    ("mma-b-transposed-pairs", "mma.sync"),
])
def test_checker_catches_hardware_that_disagrees(flaw, kind):
    results, _ = check.run_all(simulate.SimBackend(flaw), log=lambda s: None)
    bad = {r.kind for r in results if r.mismatches}
    assert kind in bad


def test_encodings_are_exact():
    import numpy as np
    for dt, bits in check.CHUNK.items():
        v = np.arange(1 << bits)
        assert (check.decode(dt, check.encode(dt, v)) == v).all(), dt


def test_main_writes_logs(tmp_path):
    rc = check.main(["--backend", "sim", "--out", str(tmp_path)])
    assert rc == 0
    assert "SUMMARY fragments: 45/45" in (tmp_path / "fragments.txt").read_text()


def test_kernels_compile_for_sm90a(tmp_path):
    nvcc = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
    if not nvcc:
        pytest.skip("no nvcc")
    p = subprocess.run([nvcc, "-O1", "-std=c++17", "-cubin", "-gencode=arch=compute_90a,code=sm_90a",
                        "-I", str(HERE), str(HERE / "fragments.cu"), "-o", str(tmp_path / "f.cubin")],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]


def _hopper():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "no nvidia-smi (no GPU)"
    p = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True, text=True)
    if p.returncode or not p.stdout.strip().startswith("9."):
        return f"no sm_90 GPU ({p.stdout.strip() or p.stderr.strip()})"
    return None


@pytest.mark.gpu
def test_fragments_on_gpu(tmp_path):
    reason = _hopper()
    if reason:
        pytest.skip(reason)
    env = dict(os.environ, OUT=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run(["bash", str(HERE / "run.sh")], env=env, capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]


def test_triton_probe_logic_with_a_stand_in(tmp_path, monkeypatch):
    """The probe's comparison on the CPU: a stand-in Triton answering with fastswz's own bases
    (one case with the register bases reversed, one with a wrong lane) is classified right."""
    import json
    import types

    tp = _load("triton_probe")
    fake = types.ModuleType("triton")
    fake.__version__ = "stand-in"
    exp = types.ModuleType("triton.experimental")
    gl = types.ModuleType("triton.experimental.gluon")
    lang = types.ModuleType("triton.experimental.gluon.language")
    c = types.ModuleType("triton._C")
    lib = types.ModuleType("triton._C.libtriton")
    lib.gluon_ir = types.SimpleNamespace(GluonOpBuilder=type("B", (), {"to_linear_layout": None}))
    for name, mod in (("triton", fake), ("triton.experimental", exp), ("triton.experimental.gluon", gl),
                      ("triton.experimental.gluon.language", lang), ("triton._C", c),
                      ("triton._C.libtriton", lib)):
        monkeypatch.setitem(sys.modules, name, mod)
    cases = tp.cases()
    answers = {}
    for i, (name, tv, tr, text, shape) in enumerate(cases):
        b = tp.fastswz_bases(tv, tr)
        if i == 1:
            b["register"] = b["register"][::-1]
        answers[text, tuple(shape)] = b
    monkeypatch.setattr(tp, "triton_bases", lambda text, shape: answers[text, tuple(shape)])
    assert tp.main(["--out", str(tmp_path)]) == 0
    d = json.loads((tmp_path / "triton_probe.json").read_text())
    assert [r["verdict"] for r in d["cases"]].count("register order differs") == 1
    key = (cases[0][3], tuple(cases[0][4]))
    answers[key] = dict(answers[key], lane=[[0, 1]] + answers[key]["lane"][1:])
    assert tp.main(["--out", str(tmp_path)]) == 1
