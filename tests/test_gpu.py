"""The GPU conformance suite (tests/gpu/): kept from rotting where there is no GPU, run where there is.

* Everywhere: the harness itself (value encodings, descriptor bit surgery, the CPU model of what
  wgmma reads, a sample of the real cases against that model, and proof that it notices a wrong
  address map); with a C compiler, the ctypes path against a host-only fake library, including
  the restart after a worker dies.
* With nvcc: the sm_90a wgmma kernel library and the sm_100a tcgen05 check compile (no GPU needed).
* With an sm_90 GPU (nvidia-smi reports compute capability 9.0) and nvcc: the whole suite runs on
  it (tests/gpu/run.sh does the same as one command and writes the results table).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

GPU_DIR = Path(__file__).resolve().parent / "gpu"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up while the class body runs
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def conf():
    return _load("fastswz_gpu_conformance", GPU_DIR / "conformance.py")


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for cand in ("/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc"):
        if os.access(cand, os.X_OK):
            return cand
    return None


def _cc() -> str | None:
    return shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def _hopper_gpu() -> str | None:
    """None when an sm_90 GPU is usable, else the reason to skip."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "no GPU: nvidia-smi not found"
    try:
        out = subprocess.run([smi, "--query-gpu=name,compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"no GPU: nvidia-smi failed ({exc})"
    rows = [r for r in out.stdout.strip().splitlines() if r.strip()]
    if out.returncode != 0 or not rows:
        return f"no CUDA device: nvidia-smi exit {out.returncode} {out.stderr.strip()[:200]}"
    if not any(r.split(",")[-1].strip() == "9.0" for r in rows):
        return f"no sm_90 (Hopper) GPU: {rows}"
    return None


# ------------------------------------------------------------------------------------------------
# the harness, without a GPU

def test_generated_wgmma_wrappers_are_fresh():
    gen = _load("fastswz_gpu_gen", GPU_DIR / "gen_wgmma_ops.py")
    assert (GPU_DIR / "wgmma_ops.cuh").read_text() == gen.generate(), (
        "tests/gpu/wgmma_ops.cuh is stale: run python3 tests/gpu/gen_wgmma_ops.py")


def test_value_encodings_are_exact(conf):
    v = np.arange(-4, 5)
    assert np.array_equal(conf.encode("f16", v).view(np.float16).astype(np.int64), v)
    bf = conf.encode("bf16", v).astype(np.uint32) << 16
    assert np.array_equal(bf.view(np.float32).astype(np.int64), v)
    assert np.array_equal(conf.encode("tf32", v).view(np.float32).astype(np.int64), v)
    assert np.array_equal(conf.encode("s8", v).view(np.int8).astype(np.int64), v)
    for dt in ("e4m3", "e5m2"):
        bits = conf.encode(dt, np.arange(-8, 9))
        assert [conf.decode_fp8(dt, int(b)) for b in bits] == list(range(-8, 9)), dt
    # Known patterns: 1.0 = 0x38 (e4m3, bias 7), 0x3C (e5m2, bias 15); -2.0 = 0xC0 in both.
    assert conf.encode("e4m3", [1, -2]).tolist() == [0x38, 0xC0]
    assert conf.encode("e5m2", [1, -2]).tolist() == [0x3C, 0xC0]


def test_descriptor_bit_surgery(conf):
    import fastswz

    d = conf.pack(0x4A0, 0x400, 0x2000, base_offset=5, layout_type=1)
    assert conf.fields(d) == {"start": 0x4A0, "lbo": 0x400, "sbo": 0x2000, "base_offset": 5,
                              "layout_type": 1}
    # Agrees with fastswz's own packer (PTX 9.7.15.5.1.2.2 field positions).
    ref = np.asarray(fastswz.pack_smem_descriptors("sm90", 0x4A0, 0x400, 0x2000, base_offset=5,
                                                   layout_type="128B"))
    assert int(ref.reshape(-1)[0]) == d
    arr = np.array([d], dtype=np.uint64)
    assert conf.fields(conf.swap_lbo_sbo(arr)[0]) == dict(conf.fields(d), lbo=0x2000, sbo=0x400)
    assert conf.fields(conf.set_layout_type(arr, 3)[0])["layout_type"] == 3
    # NOTES section 4, Ex 1: bf16 K-major SW128 64x64 at 0x400.
    assert conf.pack(0x400, 16, 1024, 0, 1) == 0x4000004000010040


def test_model_reads_the_reference_operand(conf):
    """The CPU model and the plain reference layout agree (each built from PTX independently)."""
    rng = np.random.default_rng(0)
    for dt in conf.DTYPES:
        _, e, inst_k, _, _ = conf.DTYPES[dt]
        op = conf.ref_operand(dt, 64, 3 * inst_k, 0x800, rng)
        img = {int(a): int(v) for a, v in zip(op.addrs.reshape(-1), op.values.reshape(-1))}
        for j in range(3):
            got = conf.emulated_read_addresses(op.descs[0, j], "K", 64, e, inst_k)
            vals = np.vectorize(img.__getitem__)(got)
            assert np.array_equal(vals, op.values[0][:, j * inst_k:(j + 1) * inst_k]), (dt, j)


def _sample(conf, every=9):
    cases = conf.build_cases(quick=True)
    return cases[::every]


def test_cases_pass_against_the_model(conf):
    """A sample of the real case list (every group, negative controls included) through the CPU
    model: fastswz's maps and descriptors agree with PTX as the model reads it, and every
    negative control gives a wrong D."""
    import fastswz

    model = conf.CpuBackend()
    sample = _sample(conf)
    assert {c.group for c in sample} >= {"grid", "deepgemm", "stages"}
    assert any(c.negatives for c in sample)
    for case in sample:
        res = conf.run_case(case, fastswz, model, model)
        assert res["ok"], (case.cid, res.get("error"), [ln for ln in res["launches"] if not ln["pass"]])
        if case.negatives:
            negs = [ln for ln in res["launches"] if ln["expect"] == "mismatch"]
            assert negs and all(ln["outcome"] == "mismatch" for ln in negs), case.cid


class _Mutated:
    """fastswz with one thing wrong, to prove the harness notices."""

    def __init__(self, fsw, how):
        self._fsw, self._how = fsw, how

    def OperandTile(self, *a, **kw):  # noqa: N802 (mirrors fastswz's class name)
        tile, how = self._fsw.OperandTile(*a, **kw), self._how

        class Tile:
            inst_k = tile.inst_k

            def strides(self, *x, **y):
                return tile.strides(*x, **y)

            def addresses(self, start=0, swizzle_base="absolute"):
                addrs = np.array(tile.addresses(start, swizzle_base))
                if how == "swap-two-rows":
                    addrs[[0, 1]] = addrs[[1, 0]]
                return addrs

            def descriptors(self, **kw):
                d = np.array(tile.descriptors(**kw))
                if how == "k-step-off-by-16":
                    d[..., 1:] += np.uint64(1)  # start address + 16 B for k-steps after the first
                return d

        return Tile()


@pytest.mark.parametrize("how", ["swap-two-rows", "k-step-off-by-16"])
def test_harness_catches_a_wrong_map(conf, how):
    import fastswz

    model = conf.CpuBackend()
    case = next(c for c in conf.build_cases(quick=True) if c.cid == "grid/bf16/KK/128B/n8/mn/on")
    assert conf.run_case(case, fastswz, model, model)["ok"]
    res = conf.run_case(case, _Mutated(fastswz, how), model, model)
    assert not res["ok"]
    bad = {ln["variant"] for ln in res["launches"] if not ln["pass"]}
    assert {"full", "A~ref", "ref~B"} <= bad, bad


@pytest.mark.parametrize("swizzle", ["32B", "64B", "128B"])
def test_relative_swizzle_base_needs_a_128B_aligned_start(conf, swizzle):
    """The H100 reads exactly what the model says on every launch of the 2026-11-22 run, so the
    model is the judge here: a relative start off the 128-B grid must be refused, or agree."""
    import fastswz

    t = fastswz.OperandTile("bf16", "K", swizzle, 64, 64)
    start = 0x430
    try:
        addrs = np.asarray(t.addresses(start, "relative"))
        descs = np.asarray(t.descriptors(start=start, inst_mn=64, swizzle_base="relative"))[0]
    except fastswz.TileError:
        return  # refused: fine
    for j, d in enumerate(descs):
        read = conf.emulated_read_addresses(d, "K", 64, 2, 16)
        assert np.array_equal(read, addrs[:, 16 * j:16 * (j + 1)]), (swizzle, j)


@pytest.fixture(scope="module")
def fake_lib(tmp_path_factory):
    cc = _cc()
    if not cc:
        pytest.skip("no C compiler for the host-only fake library")
    out = tmp_path_factory.mktemp("fake") / "libfake_wgmma.so"
    subprocess.run([cc, "-O1", "-shared", "-fPIC", "-o", str(out), str(GPU_DIR / "fake_wgmma_lib.c"),
                    "-lm"], check=True)
    return out


def test_ctypes_path_against_fake_library(conf, fake_lib):
    """GpuBackend's marshalling (argument order, bit encodings of every dtype, D read-back) with a
    host library that reads the scattered *bits* through the descriptors."""
    import fastswz

    backend = conf.GpuBackend(str(fake_lib))
    model = conf.CpuBackend(backend.smem_base, backend.smem_bytes)
    cases = [c for c in conf.build_cases(quick=True) if "/n8/" in c.cid and c.placement == "on"]
    cases = [c for c in cases if c.swizzle in ("none", "128B")]
    assert {c.dtype for c in cases} == set(conf.DTYPES)
    for case in cases:
        res = conf.run_case(case, fastswz, backend, model)
        assert res["ok"], (case.cid, res)
        assert all(ln.get("model_agrees") for ln in res["launches"] if ln["outcome"] != "skipped-oob")


def test_driver_survives_a_dying_worker(conf, fake_lib, tmp_path):
    env = dict(os.environ, FSW_FAKE_MARK=str(tmp_path / "mark"), FSW_FAKE_CRASH_AT="2",
               FSW_FAKE_STICKY_AT="9", PYTHONPATH=os.pathsep.join(sys.path))
    cmd = [sys.executable, str(GPU_DIR / "conformance.py"), "--backend", "gpu", "--lib", str(fake_lib),
           "--quick", "--filter", "grid/s8/KK/", "--filter", "/n8/", "--out", str(tmp_path / "out")]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stdout + p.stderr  # the two crashed cases fail the suite...
    text = (tmp_path / "out" / "results.md").read_text()
    assert text.count("crashed (") == 2, text
    n = len([c for c in conf.build_cases(quick=True) if "grid/s8/KK/" in c.cid and "/n8/" in c.cid])
    assert f"{n - 2}/{n} cases passed" in text, text  # ...and every other case still ran


# ------------------------------------------------------------------------------------------------
# compile checks (nvcc, no GPU needed)

def test_wgmma_kernel_compiles_for_sm90a(tmp_path):
    """~10-20 s on 2 cores: four translation units, 48 wgmma instantiations."""
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("nvcc not found")
    p = subprocess.run(["bash", str(GPU_DIR / "build.sh"), str(tmp_path), nvcc],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "libwgmma_conformance.so").stat().st_size > 0


def test_tcgen05_check_compiles_for_sm100a(tmp_path):
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("nvcc not found")
    archs = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True, text=True).stdout
    if "compute_100" not in archs:
        pytest.skip(f"this nvcc cannot target sm_100a: {archs.split()}")
    p = subprocess.run([nvcc, "-std=c++17", "-gencode=arch=compute_100a,code=sm_100a", "-c",
                        str(GPU_DIR / "tcgen05_compile_check.cu"), "-o", str(tmp_path / "t.o")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


# ------------------------------------------------------------------------------------------------
# the real thing

@pytest.mark.gpu
def test_wgmma_conformance_on_gpu(tmp_path):
    reason = _hopper_gpu()
    if reason:
        pytest.skip(reason)
    nvcc = _nvcc()
    if not nvcc:
        pytest.skip("an sm_90 GPU is present but nvcc is not: cannot build the kernel library")
    subprocess.run(["bash", str(GPU_DIR / "build.sh"), str(tmp_path / "build"), nvcc], check=True,
                   timeout=600)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, str(GPU_DIR / "conformance.py"), "--backend", "gpu", "--lib",
                        str(tmp_path / "build" / "libwgmma_conformance.so"), "--out",
                        str(tmp_path / "out")], env=env, capture_output=True, text=True, timeout=1800)
    results = tmp_path / "out" / "results.md"
    assert p.returncode == 0, (results.read_text() if results.exists() else "") + p.stderr[-4000:]
