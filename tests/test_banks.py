"""fastswz.banks: the shared-memory wavefront model.

* hand-checked cases (the arithmetic in the comments: bank = (address >> 2) & 31, a phase needs
  the most distinct 4-byte words any bank holds);
* the Cython core equals the numpy twin exactly, on random and structured inputs, and both
  refuse the same bad input with the same error;
* the hardware witness: every Nsight Compute measurement recorded on an H100
  (docs/conformance/banks/h100-2026-11-22-records.json, 541 launches) is reproduced exactly;
* pattern builders, best_swizzle and the CLI;
* the probe program (tests/gpu/banks/banks.cu) compiles for sm_90a when nvcc exists, and runs
  under ncu when an sm_90 GPU and ncu exist.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import banks, reference
from fastswz.cli import main

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "docs" / "conformance" / "banks" / "h100-2026-11-22-records.json"
# 2026-11-25: held-out sets (seeds 20261125, 77, 78, 79, 80) and the merge probes, five runs
RECORDS_25 = ROOT / "docs" / "conformance" / "banks" / "h100-2026-11-25-records.json.gz"
PROBE = ROOT / "tests" / "gpu" / "banks"
LANE = np.arange(32)
IMPLS = [banks.bank_wavefronts, reference.bank_wavefronts]
IDS = ["cy", "ref"]


# -- hand-checked ---------------------------------------------------------------------------------
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@pytest.mark.parametrize("addrs, width, op, want", [
    (LANE * 0, 4, "ld", 1),          # all lanes one word: one bank, one word -> 1 (broadcast)
    (LANE * 0, 4, "st", 1),          # stores to one word merge as well -> 1
    (LANE * 4, 4, "ld", 1),          # lane l -> bank l, 32 banks one word each -> 1
    (LANE * 8, 4, "ld", 2),          # bank 2l mod 32: banks 0,2,..,30 each get 2 words -> 2-way
    (LANE * 32, 4, "ld", 8),         # (8l) mod 32 -> banks 0,8,16,24, 8 words each -> 8
    (LANE * 128, 4, "ld", 32),       # (32l) mod 32 = 0: every lane in bank 0, 32 words -> 32
    (LANE * 132, 4, "ld", 1),        # padded pitch: bank (33l) mod 32 = l -> conflict free
    (LANE, 1, "ld", 1),              # 32 bytes = words 0..7, one per bank -> 1
    (LANE * 128, 1, "st", 32),       # bytes at stride 128: 32 words of bank 0 -> 32
    (LANE * 8, 8, "ld", 2),          # half-warp = 128 B = 32 words, 1 each; 2 half-warps -> 2
    (LANE * 16, 8, "ld", 4),         # half-warp spans 256 B: banks (4i, 4i+1) twice -> 2 x 2
    (LANE * 16, 16, "ld", 4),        # quarter-warp = 128 B contiguous -> 1 each, 4 quarters (ideal)
    (LANE * 128, 16, "ld", 32),      # quarter: 8 rows of banks 0-3 -> 8-way, x 4 quarters
    (LANE * 32, 16, "st", 8),        # quarter spans 256 B: banks 0-3 twice, ... -> 2 x 4 quarters
    (LANE * 0, 16, "st", 4),         # stores: 4 quarters, each one 16-byte word group -> 4
    (LANE * 0, 16, "ld", 2),         # loads: all lane pairs agree -> half-warp phases: 2 x 1
    (LANE * 0, 8, "ld", 1),          # loads: all pairs agree -> whole warp one phase -> 1
    ((LANE % 8) * 16, 16, "ld", 4),  # quarters identical but pairs differ -> no merge -> 4
    ((LANE // 2) * 8, 8, "ld", 1),   # pairs agree, 16 distinct 8 B = 128 B in one phase -> 1
    ((LANE // 2) * 8, 8, "st", 2),   # same addresses stored: half-warp phases -> 2
    # lanes i and i^2 share (i^1 do not): chunk ((i>>2)<<1 | i&1) -> 8 chunks = 128 B per
    # half-warp; the loads merge too (rule 3, second pairing; H100: 2 and 1), stores do not
    ((((LANE >> 2) << 1) | (LANE & 1)) * 16, 16, "ld", 2),
    ((((LANE >> 2) << 1) | (LANE & 1)) * 16, 16, "st", 4),
    ((((LANE >> 2) << 1) | (LANE & 1)) * 8, 8, "ld", 1),
    # lanes i and i^4 share: no pairing of rule 3 -> quarter phases (H100: 4)
    ((((LANE >> 3) << 2) | (LANE & 3)) * 16, 16, "ld", 4),
])
def test_hand_checked(impl, addrs, width, op, want):
    assert int(impl(addrs, width, op=op)) == want


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_active_lanes(impl):
    # stride 128 with lanes 0-7 only: 8 words of bank 0 -> 8; no lane at all -> 0
    assert int(impl(LANE * 128, 4, active=LANE < 8)) == 8
    assert int(impl(LANE * 128, 4, active=np.zeros(32, bool))) == 0
    # 16-byte loads of one address with lane 1 idle: every pair still agrees -> 2 (measured)
    assert int(impl(LANE * 0, 16, active=LANE != 1)) == 2
    # held-out seed 20261125: 7 active lanes, pair (6, 7) split, but no lanes i and i^2 both
    # active -> half-warp phases: 3 (H100), not the quarter phases' 4
    a = np.array([6496, 6992, 2048, 14912, 28032, 3280, 26496, 2880, 14400, 3264, 7872, 10816,
                  19120, 25984, 28672, 15248, 15744, 31584, 12640, 25088, 28256, 4720, 3712,
                  16832, 16192, 22336, 4752, 20240, 30400, 14816, 20656, 23536])
    act = ((0x820211C0 >> LANE) & 1).astype(bool)
    assert int(impl(a, 16, active=act)) == 3


def test_ideal_and_matrix():
    assert int(banks.ideal_wavefronts(LANE * 16, 16)) == 4          # 128 words / 32
    assert int(banks.ideal_wavefronts(LANE * 0, 16)) == 1           # 4 words
    assert int(banks.ideal_wavefronts(LANE * 128, 4)) == 1          # 32 words, one per lane
    # ldmatrix x4: 4 matrices x (8 rows of 16 B); rows at stride 128 are all banks 0-3 -> 8 x 4
    assert int(banks.matrix_wavefronts(LANE * 128, 4)) == 32
    # x1 reads lanes 0-7 only: the other lanes' addresses do not count
    assert int(banks.matrix_wavefronts(np.where(LANE < 8, LANE * 16, LANE * 128), 1)) == 1
    # ldmatrix never merges lane pairs (measured): all rows one address, x4 -> 4
    assert int(banks.matrix_wavefronts(LANE * 0, 4)) == 4


# -- fast vs twin ---------------------------------------------------------------------------------
def _cases():
    rng = np.random.default_rng(7)
    for width in banks.ACCESS_BYTES:
        for span in (128, 512, 4096, 1 << 20):
            a = rng.integers(0, span // width, (300, 32)) * width
            yield f"random{width}-{span}", a, width, None
            pool = rng.integers(0, 4096 // width, (300, 1, 5)) * width
            b = np.take_along_axis(pool, rng.integers(0, 5, (300, 32, 1)), axis=2)[..., 0]
            yield f"pool{width}-{span}", b, width, rng.random((300, 32)) < 0.8
        pairs = np.repeat(rng.integers(0, 256, (200, 16)) * width, 2, axis=1)
        yield f"pairs{width}", pairs, width, rng.random((200, 32)) < 0.9
        yield f"strides{width}", np.arange(1, 65)[:, None] * width * LANE, width, None
        # The core counts rows in a window per phase (64 rows of 128 bytes for 1-4 byte
        # accesses, 56 for 8 and 16) and falls back to a list walk past it: spans of 54..66
        # rows, idle lanes far outside the window, and instructions with no active lane.
        span = np.arange(54, 67)[:, None] * 128 * (LANE % 4 == 3) + (LANE // 4) * 16 + (LANE % 4) * 4
        span = (span // width) * width
        yield f"window{width}", span, width, None
        far = np.where(LANE < 24, LANE * 128 % 2048, 1 << 30)
        yield f"idle-far{width}", np.broadcast_to((far // width) * width, (3, 32)), width, \
            np.broadcast_to(LANE < 24, (3, 32))
        # one bank asked for row 0 and row k: a window that wrapped would see one row
        yield f"wrap{width}", np.where(LANE % 2 == 1, np.arange(52, 70)[:, None] * 128, 0), width, None
        idle = np.zeros((4, 32), dtype=bool)
        idle[1, 5] = idle[3] = True
        yield f"no-lane{width}", np.broadcast_to(LANE * width, (4, 32)), width, idle


@pytest.mark.parametrize("op", ["ld", "st"])
@pytest.mark.parametrize("name, addrs, width, active", list(_cases()), ids=lambda v: v if isinstance(v, str) else "")
def test_fast_equals_twin(name, addrs, width, active, op):
    fast = banks.bank_wavefronts(addrs, width, active, op)
    slow = reference.bank_wavefronts(addrs, width, active, op)
    assert fast.dtype == slow.dtype == np.int64
    np.testing.assert_array_equal(fast, slow)


def test_batch_shape():
    a = np.arange(2 * 3 * 32).reshape(2, 3, 32) * 4
    assert banks.bank_wavefronts(a, 4).shape == (2, 3)
    assert reference.bank_wavefronts(a, 4).shape == (2, 3)
    assert banks.bank_wavefronts(np.zeros((0, 32), np.int64), 4).shape == (0,)


@pytest.mark.parametrize("args, exc, match", [
    ((LANE, 3), fastswz.BankError, "access_bytes=3"),
    ((LANE * 4 + 2, 4), fastswz.BankError, "multiple of access_bytes=4"),
    ((LANE - 4, 1), fastswz.BankError, ">= 0"),
    ((np.arange(16), 4), fastswz.BankError, "32 lanes"),
    ((LANE * 1.0, 4), fastswz.FastswzTypeError, "integer array"),
    ((LANE, 4, None, "rd"), fastswz.BankError, "op='rd'"),
    ((LANE, 4, np.ones(32)), fastswz.FastswzTypeError, "boolean"),
    ((LANE, 4, np.ones(3, bool)), fastswz.BankError, "broadcast"),
])
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_same_errors(impl, args, exc, match):
    with pytest.raises(exc, match=match):
        impl(*args)


def test_misaligned_idle_lane_is_ignored():
    a = LANE * 4
    a[5] = 3                                     # lane 5 idle: its address does not matter
    act = LANE != 5
    assert int(banks.bank_wavefronts(a, 4, act)) == int(reference.bank_wavefronts(a, 4, act)) == 1


# -- the hardware witness ---------------------------------------------------------------------------
def _records():
    return (json.loads(RECORDS.read_text())["records"]
            + json.loads(gzip.decompress(RECORDS_25.read_bytes()))["records"])


def test_records_cover_the_brief():
    recs = _records()
    kinds = {r["kind"] for r in recs}
    assert len(recs) >= 30 and len({(r["set"], r["index"]) for r in recs}) >= 30
    for k in ("ld1", "ld2", "ld4", "ld8", "ld16", "st1", "st2", "st4", "st8", "st16",
              "ldsm_x1", "ldsm_x2", "ldsm_x4", "ldsm_x4_trans", "stsm_x1", "stsm_x4", "stsm_x4_trans"):
        assert k in kinds
    assert {r["measured"] for r in recs} >= {1, 2, 4, 8, 16, 32}


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_model_reproduces_every_h100_measurement(impl):
    wrong = []
    for r in _records():
        kind, a = r["kind"], np.array(r["addresses"])
        if kind == "baseline":
            assert r["measured"] == 0
            continue
        if kind.startswith(("ldsm", "stsm")):
            x = int(kind.split("_")[1][1])
            got = int(impl(a, 16, np.arange(32) < 8 * x, "st")) if impl is not banks.bank_wavefronts \
                else int(banks.matrix_wavefronts(a, x))
        else:
            act = ((r["mask"] >> np.arange(32)) & 1).astype(bool)
            got = int(impl(a, int(kind[2:]), act, kind[:2]))
        if got != r["measured"]:
            wrong.append((r["run"], r["name"], got, r["measured"]))
    assert not wrong


def test_records_match_committed_patterns_and_raw_csv():
    """The fixture was built from the committed pattern files and raw ncu CSVs (record.py)."""
    sys.path.insert(0, str(PROBE))
    try:
        import compare
    finally:
        sys.path.pop(0)
    recs = [r for r in _records() if r["run"] == "run2" and r["set"] == "pairs"]
    pats = json.loads((PROBE / "pairs.json").read_text())
    raw = ROOT / "docs" / "conformance" / "banks" / "h100-2026-11-22-run2-ncu_pairs.csv.gz"
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / "fsw_test_banks_pairs.csv"
    tmp.write_bytes(gzip.decompress(raw.read_bytes()))
    launches = compare.read_ncu(tmp)
    assert len(recs) == len(pats) == len(launches)
    for r, p, l in zip(recs, pats, launches):
        assert r["addresses"] == p["addresses"] and r["mask"] == p["mask"]
        assert r["measured"] == l["metrics"][compare.TOTAL] - launches[0]["metrics"][compare.TOTAL]


# -- patterns -------------------------------------------------------------------------------------
def test_mma_a_rows_are_fragment_rows():
    t = fastswz.OperandTile("bf16", "K", "128B", 64, 64)
    a = t.addresses()
    rows = banks.mma_a_rows(a, 2, mn0=16, k0=16)
    for lane in range(32):
        j, r = divmod(lane, 8)      # matrix j: (mn 0-7 | 8-15) x (k 0-7 | 8-15) of the block
        assert rows[lane] == t.address(16 + (j % 2) * 8 + r, 16 + (j // 2) * 8)
    assert int(banks.matrix_wavefronts(rows, 4)) == 4


def test_fragment_and_epilogue_scores():
    # plain row-major 64 x 64 bf16: pitch 128 B, the 8 rows of a matrix share banks -> 8 x 4
    rm = banks.epilogue_tile("bf16", "rowmajor", 64, 64)
    s = banks.score(banks.stmatrix_rows(rm, 2), 16, "stmatrix")
    assert (s.instructions, s.total, s.ideal_total) == (16, 16 * 32, 16 * 4)
    # 8 bytes of padding per row: row r starts at bank 34r/... -> 8 rows on distinct bank groups
    pad = banks.epilogue_tile("bf16", "rowmajor", 64, 64, pad_bytes=16)
    assert banks.score(banks.stmatrix_rows(pad, 2), 16, "stmatrix").excess == 0
    for sw in ("32B", "64B", "128B"):
        assert banks.epilogue_access("bf16", sw, 64, 64).excess == 0


def test_best_swizzle_accumulator_f32():
    # f32 pairs (8 B): half-warp l = 0..15 writes rows l // 4 = 0..3, 32 B each (cols 0-7).
    # rowmajor: pitch 256 B, all four rows on banks 0-7 -> 4-way, x 2 halves = 8 per store,
    #   64 stores -> 512.
    # 32B atom: rows 32 B apart, rows 0-3 fill banks 0-31 once -> 1 per half, 2 per store = ideal.
    # 64B/128B atoms: row r's chunks (0, 1) become (0^r, 1^r): rows 0 and 1 both use chunks
    #   0-1 (banks 0-7) -> 2-way -> 4 per store -> 256.
    best, table = banks.best_swizzle("f32", 64, 64, "st")
    assert best == "32B" and table["32B"].excess == 0
    assert {k: v.total for k, v in table.items()} == {
        "rowmajor": 512, "none": 256, "32B": 128, "64B": 256, "128B": 256}


def test_row_copy_rejects_split_chunks():
    a = fastswz.OperandTile("bf16", "MN", "128B", 64, 64).addresses()
    with pytest.raises(fastswz.BankError, match="not contiguous"):
        banks.row_copy(a, 2, 4)     # MN-major: elements (mn, k) and (mn, k + 1) are 128 B apart
    with pytest.raises(fastswz.BankError, match="access_bytes=32"):
        banks.row_copy(a, 2, 32)


def test_epilogue_column():
    col = banks.epilogue_column("bf16", 64, 64, "128B")
    assert col == {"epilogue_wavefronts": 64, "epilogue_ideal": 64, "epilogue_excess": 0,
                   "epilogue_best_swizzle": "128B"}


# -- CLI ------------------------------------------------------------------------------------------
def test_cli_pattern(capsys):
    assert main("banks --pattern stmatrix --dtype bf16 --swizzle 128B --mn 64 --k 64".split()) == 0
    out = capsys.readouterr().out
    assert "128B" in out and "best     128B" in out
    assert main("banks --pattern st --dtype f32 --mn 64 --k 64 --json".split()) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["best_swizzle"] == "32B" and d["layouts"]["rowmajor"]["wavefronts"] == 512


def test_cli_addresses(tmp_path, capsys):
    f = tmp_path / "a.npy"
    np.save(f, np.stack([LANE * 16, LANE * 128]))
    assert main(["banks", "--addresses", str(f), "--access-bytes", "16", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["per_instruction"] == [4, 32] and d["ideal"] == 8


@pytest.mark.parametrize("argv", [
    "banks --addresses X.npy",
    "banks --pattern copy --swizzle 17B",
    "banks --pattern copy --access-bytes 3",
    "banks",
    "banks --pattern nope",
])
def test_cli_bad_input(argv, capsys):
    with pytest.raises(SystemExit) if "nope" in argv else _nothing():
        assert main(argv.split()) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastswz: error:") and err.count("\n") == 1


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# -- the probe program ------------------------------------------------------------------------------
def _nvcc():
    return shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if os.access(p, os.X_OK)), None)


@pytest.mark.skipif(_nvcc() is None, reason="nvcc not found")
def test_probe_compiles(tmp_path):
    out = tmp_path / "banks"
    r = subprocess.run([_nvcc(), "-O2", "-arch=sm_90a", "-o", str(out), str(PROBE / "banks.cu")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    dump = shutil.which("cuobjdump")
    if dump:
        sass = tmp_path / "sass.txt"
        sass.write_text(subprocess.run([dump, "-sass", str(out)], capture_output=True, text=True).stdout)
        r = subprocess.run([sys.executable, str(PROBE / "compare.py"), "sass", str(sass)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout


def _gpu_skip():
    if not shutil.which("nvidia-smi") or not shutil.which("ncu") or _nvcc() is None:
        return "needs an sm_90 GPU, nvcc and ncu"
    r = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                       capture_output=True, text=True)
    return None if r.returncode == 0 and r.stdout.strip().startswith("9.0") else "no sm_90 GPU"


@pytest.mark.skipif(_gpu_skip() is not None, reason=str(_gpu_skip()))
def test_probe_on_gpu(tmp_path):
    r = subprocess.run(["bash", str(PROBE / "run.sh")], env={**os.environ, "OUT": str(tmp_path)},
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:]
