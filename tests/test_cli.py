"""The command line (``fastswz`` / ``python -m fastswz``) against the API it shells over.

``main(argv)`` runs in-process with capsys; one test starts ``python -m fastswz`` in a subprocess
to see what a user sees (exit status, stderr, no traceback from the interpreter).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import fastswz
from fastswz import reference
from fastswz.cli import main


def run(capsys, *argv):
    """(exit status, stdout, stderr lines) of the CLI run in-process."""
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own errors and --help
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err.strip().splitlines()


def tile_argv(dtype, major, swizzle, mn, k, order="mn", arch="sm90", start=0, inst_mn=None,
              base="absolute", policy="cutlass", stages=None, stride=None):
    argv = ["tile", "--dtype", dtype, "--major", major, "--swizzle", swizzle, "--mn", mn, "--k", k,
            "--order", order, "--arch", arch, "--start", hex(start), "--swizzle-base", base,
            "--lbo-policy", policy]
    argv = [str(a) for a in argv]
    if inst_mn is not None:
        argv += ["--inst-mn", str(inst_mn)]
    if stages is not None:
        argv += ["--stages", str(stages), "--stage-stride", hex(stride)]
    return argv


# (dtype, major, swizzle, mn, k, order, arch, start, inst_mn, swizzle_base, lbo_policy, stages, stride)
TILES = [
    ("bf16", "K", "128B", 128, 64, "mn", "sm90", 0x400, 64, "absolute", "cutlass", None, None),
    ("bf16", "MN", "128B", 128, 64, "mn", "sm90", 0x800, None, "absolute", "cutlass", None, None),
    ("f16", "K", "64B", 64, 64, "k", "sm90", 0x2000, 64, "relative", "deepgemm", None, None),
    ("e4m3", "K", "32B", 64, 64, "mn", "sm90", 0, None, "absolute", "cutlass", 3, 0x1000),
    ("tf32", "K", "none", 64, 16, "mn", "sm90", 0x10, 8, "absolute", "cutlass", None, None),
    ("tf32", "MN", "128B_base32B", 64, 16, "mn", "sm100", 0x400, None, "absolute", "cutlass", None, None),
    ("s8", "K", "128B", 128, 128, "k", "sm100", 0x4000, 64, "relative", "cutlass", 2, 0x4000),
    ("e2m1", "K", "128B", 128, 256, "mn", "sm100", 0, 128, "absolute", "cutlass", None, None),
]
TILE_IDS = [f"{t[0]}-{t[1]}-{t[2]}-{t[6]}" + ("-staged" if t[11] else "") for t in TILES]


def _api(case):
    dtype, major, swizzle, mn, k, order, arch, start, inst_mn, base, policy, stages, stride = case
    tile = fastswz.OperandTile(dtype, major, swizzle, mn, k, order, arch)
    grid = tile.descriptors(start, inst_mn, base, policy, stages, stride)
    first = tile.descriptor(0, 0, start, inst_mn, base, policy)
    return tile, grid, first


@pytest.mark.parametrize("case", TILES, ids=TILE_IDS)
def test_tile_json_matches_api(capsys, case):
    rc, out, err = run(capsys, *tile_argv(*case), "--json")
    assert rc == 0 and not err
    data = json.loads(out)
    assert {"layout", "lbo_bytes", "sbo_bytes", "base_offset", "descriptors"} <= set(data)
    tile, grid, first = _api(case)
    lbo, sbo = tile.strides(case[8], case[10])
    assert data["layout"] == str(tile.layout)
    assert fastswz.parse(data["layout"]) == tile.layout
    assert (data["lbo_bytes"], data["sbo_bytes"]) == (lbo, sbo)
    assert (data["lbo_bytes"], data["sbo_bytes"]) == (first.leading_byte_offset,
                                                      first.stride_byte_offset)
    assert data["base_offset"] == first.base_offset
    assert data["descriptors"] == [[f"0x{int(v):016x}" for v in row] for row in grid.reshape(
        -1, grid.shape[-1])] if grid.ndim == 2 else [
        [[f"0x{int(v):016x}" for v in row] for row in stage] for stage in grid]
    assert np.array(data["descriptors"]).shape == grid.shape


@pytest.mark.parametrize("case", TILES, ids=TILE_IDS)
def test_tile_text_matches_api(capsys, case):
    rc, out, err = run(capsys, *tile_argv(*case))
    assert rc == 0 and not err
    tile, grid, first = _api(case)
    lines = out.splitlines()
    assert f"layout       {tile.layout}" in lines
    assert f"LBO          {first.leading_byte_offset} bytes (field {first.leading_byte_offset >> 4})" in lines
    words = set(out.split())
    assert all(f"0x{int(v):016x}" in words for v in grid.ravel())


@pytest.mark.parametrize("case", TILES, ids=TILE_IDS)
def test_tile_addresses_file(capsys, tmp_path, case):
    path = tmp_path / "addr.npy"
    rc, out, err = run(capsys, *tile_argv(*case), "--addresses", path)
    assert rc == 0 and not err
    tile = fastswz.OperandTile(*case[:7])
    got = np.load(path)
    want = tile.addresses(case[7], case[9])
    assert got.dtype == np.uint32 and got.shape == (tile.mn, tile.k)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, reference.tile_addresses(tile, case[7], case[9]))


DECODE = [
    ("0x4000004000010040", "sm90"), ("0x4000008000400080", "sm90"), ("0xc000000000000000", "sm90"),
    ("0x4000404000010040", "sm100"), ("0x2000402001000100", "sm100"), ("0x4000404000010040", "sm103"),
]


@pytest.mark.parametrize("value,arch", DECODE)
def test_decode_smem(capsys, value, arch):
    rc, out, err = run(capsys, "decode", value, "--arch", arch, "--json")
    assert rc == 0 and not err
    data = json.loads(out)
    d = fastswz.decode(int(value, 16), arch)
    assert data["value"] == str(d) == f"0x{int(value, 16):016x}"
    for name, v in d.fields().items():
        assert data[name] == (v.value if isinstance(v, fastswz.SwizzleMode) else v), name
    rc, out, err = run(capsys, "decode", value, "--arch", arch)
    assert rc == 0 and out.startswith(d.table() + "\nconsistent canonical tiles:\n")  # test_doctor.py checks the list


@pytest.mark.parametrize("value,arch,kind,fields", [
    ("0x08400490", "instr", "f16", {"a_dtype": "bf16", "d_dtype": "f32", "m": 128, "n": 256}),
    ("0x08400490", "instr", "f8f6f4", {"a_dtype": "e5m2", "m": 128, "n": 256}),
    ("0x08400910", "instr", None, {"kind": "tf32", "a_dtype": "tf32"}),
    ("0x084004a0", "instr", None, {"kind": "i8", "d_dtype": "s32", "a_dtype": "s8"}),
    ("0x0840049000000000", "instr", "f16", {"a_dtype": "bf16", "n": 256}),
    ("0x08820000", "instr_bs", None, {"kind": "mxf8f6f4", "a_dtype": "e4m3", "sf_dtype": "ue8m0"}),
    ("0x10200480", "instr_bs", None, {"kind": "mxf4nvf4", "m": 256, "n": 128}),
])
def test_decode_instr(capsys, value, arch, kind, fields):
    argv = ["decode", value, "--arch", arch, "--json"] + (["--kind", kind] if kind else [])
    rc, out, err = run(capsys, *argv)
    assert rc == 0 and not err
    data = json.loads(out)
    d = fastswz.decode(int(value, 16), arch, kind)
    assert {k: data[k] for k in fields} == fields
    assert {k: data[k] for k in d.fields()} == d.fields()
    assert int(data["value"], 16) == d.value


def test_instr_matches_api(capsys):
    rc, out, err = run(capsys, "instr", "--kind", "f16", "--a", "bf16", "--b", "bf16", "--d", "f32",
                       "--m", 128, "--n", 256, "--b-major", "MN", "--json")
    assert rc == 0 and not err
    d = fastswz.InstrDescriptorSM100("f16", "bf16", "bf16", "f32", 128, 256, "K", "MN")
    data = json.loads(out)
    assert int(data["value"], 16) == d.value and int(data["runtime_operand"], 16) == d.value << 32
    rc, out, err = run(capsys, "instr", "--kind", "mxf4nvf4", "--a", "e2m1", "--b", "e2m1", "--d",
                       "f32", "--m", 128, "--n", 256, "--sf", "ue4m3", "--json")
    assert rc == 0
    bs = fastswz.InstrDescriptorBlockScaled("mxf4nvf4", "e2m1", "e2m1", "f32", "ue4m3", 128, 256)
    assert int(json.loads(out)["value"], 16) == bs.value


TILE_OK = ["--dtype", "bf16", "--major", "K", "--swizzle", "128B", "--mn", "64", "--k", "64"]


def _replace(argv, flag, value):
    argv = list(argv)
    argv[argv.index(flag) + 1] = value
    return argv


# Bad input the API refuses: (argv, text the one line must contain: the field and the value).
API_ERRORS = [
    (["tile", *_replace(TILE_OK, "--dtype", "bf17")], ["dtype", "bf17"]),
    (["tile", *_replace(TILE_OK, "--swizzle", "256B")], ["swizzle", "256B"]),
    (["tile", *_replace(TILE_OK, "--mn", "60")], ["mn=60"]),
    (["tile", *_replace(TILE_OK, "--k", "40")], ["k=40"]),
    (["tile", *_replace(TILE_OK, "--dtype", "tf32"), "--major", "MN"], ["major", "tf32"]),
    (["tile", *TILE_OK, "--start", "0x408"], ["start=0x408", "16-byte"]),
    (["tile", *TILE_OK, "--start", "0x3f000"], ["start=0x3f000"]),
    (["tile", *TILE_OK, "--start", "-16"], ["start=-16"]),
    (["tile", *TILE_OK, "--inst-mn", "24"], ["inst_mn=24"]),
    (["tile", *TILE_OK, "--inst-mn", "0"], ["inst_mn=0"]),
    (["tile", *TILE_OK, "--stages", "2"], ["stages=2", "stage_stride"]),
    (["tile", *TILE_OK, "--stages", "2", "--stage-stride", "0x10"], ["stage_stride=16"]),
    (["tile", *TILE_OK, "--start", "0x410", "--swizzle-base", "relative"], ["start=0x410", "relative"]),
    (["tile", *TILE_OK, "--arch", "sm90", "--packed"], ["packed"]),
    (["tile", *TILE_OK, "--inst-k", "48"], ["inst_k=48"]),
    (["tile", *TILE_OK, "--addresses", "/nonexistent-dir/a.npy"], ["/nonexistent-dir/a.npy"]),
    (["decode", "0x4000004000018040"], ["value=0x4000004000018040", "reserved"]),
    (["decode", "0x10000000000000000"], ["value=0x10000000000000000"]),
    (["decode", "0x6000404000010040", "--arch", "sm100"], ["layout_type=3"]),
    (["decode", "0x4000004000010040", "--arch", "sm100"], ["0x4000004000010040", "46-48"]),
    (["decode", "0x08400490", "--arch", "instr"], ["value=0x08400490", "ambiguous", "--kind"]),
    (["decode", "0x08400490", "--arch", "instr", "--kind", "tf32"], ["a_format", "tf32"]),
    (["decode", "0x08820000", "--arch", "instr_bs", "--kind", "mxf4"], ["a_format", "mxf4"]),
    (["instr", "--kind", "f16", "--a", "bf16", "--b", "bf16", "--d", "f32", "--m", "96", "--n", "64"],
     ["m=96"]),
    (["instr", "--kind", "f16", "--a", "bf16", "--b", "bf16", "--d", "f32", "--m", "128", "--n", "12"],
     ["n=12"]),
    (["instr", "--kind", "f16", "--a", "bf16", "--b", "f16", "--d", "f32", "--m", "128", "--n", "64"],
     ["a_dtype='bf16'", "b_dtype='f16'"]),
    (["instr", "--kind", "f16", "--a", "e4m3", "--b", "e4m3", "--d", "f32", "--m", "128", "--n", "64"],
     ["a_dtype='e4m3'"]),
    (["instr", "--kind", "tf32", "--a", "tf32", "--b", "tf32", "--d", "f16", "--m", "128", "--n", "64"],
     ["d_dtype='f16'"]),
    (["instr", "--kind", "f16", "--a", "bf16", "--b", "bf16", "--d", "f32", "--m", "128", "--n", "64",
      "--saturate"], ["saturate"]),
    (["instr", "--kind", "mxf4", "--a", "e2m1", "--b", "e2m1", "--d", "f32", "--m", "128", "--n", "64"],
     ["--sf"]),
    (["instr", "--kind", "f16", "--a", "bf16", "--b", "bf16", "--d", "f32", "--m", "128", "--n", "64",
      "--sf", "ue8m0"], ["--sf"]),
]


@pytest.mark.parametrize("argv,needles", API_ERRORS, ids=lambda x: " ".join(x) if isinstance(x, list) and x and x[0] in ("tile", "decode", "instr") else None)
def test_bad_input_exits_2_with_one_line(capsys, argv, needles):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert out == ""
    assert len(err) == 1, err
    line = err[0]
    assert line.startswith("fastswz: error: ") and "Traceback" not in line
    for needle in needles:
        assert needle in line, (needle, line)


def test_every_subcommand_has_an_api_error_case():
    assert {argv[0] for argv, _ in API_ERRORS} == {"tile", "decode", "instr"}


# Bad input argparse refuses before the API sees it: exit 2, no traceback, the value named.
USAGE_ERRORS = [
    (["tile", *_replace(TILE_OK, "--mn", "abc")], "'abc'"),
    (["tile", *_replace(TILE_OK, "--major", "KK")], "'KK'"),
    (["tile", *TILE_OK, "--order", "x"], "'x'"),
    (["tile", "--dtype", "bf16"], "--major"),
    (["decode", "zz"], "'zz'"),
    (["decode", "0x40", "--arch", "sm80"], "'sm80'"),
    (["instr", "--kind", "f64"], "'f64'"),
    (["bogus"], "'bogus'"),
    ([], "cmd"),
]


@pytest.mark.parametrize("argv,needle", USAGE_ERRORS, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_usage_errors_exit_2_without_traceback(capsys, argv, needle):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert "Traceback" not in "\n".join(err)
    assert err[-1].startswith("fastswz") and ": error: " in err[-1] and needle in err[-1], err


def test_usage_errors_are_one_line(capsys):  # was bug 12: argparse printed its usage block first
    rc, out, err = run(capsys, "tile", *_replace(TILE_OK, "--mn", "abc"))
    assert rc == 2 and len(err) == 1, err


def test_help_exits_0(capsys):
    for argv in (["--help"], ["tile", "--help"], ["decode", "-h"], ["instr", "-h"]):
        rc, out, err = run(capsys, *argv)
        assert rc == 0 and out.startswith("usage: fastswz") and not err


def test_python_dash_m(tmp_path):
    """What a user sees: ``python -m fastswz``, a good call and a bad one."""
    path = tmp_path / "a.npy"
    good = subprocess.run([sys.executable, "-m", "fastswz", *tile_argv(*TILES[0]), "--json",
                           "--addresses", str(path)], capture_output=True, text=True, timeout=60)
    assert good.returncode == 0 and good.stderr == ""
    tile, grid, _ = _api(TILES[0])
    assert json.loads(good.stdout)["descriptors"] == [[f"0x{int(v):016x}" for v in r] for r in grid]
    np.testing.assert_array_equal(np.load(path), tile.addresses(TILES[0][7]))
    bad = subprocess.run([sys.executable, "-m", "fastswz", "tile", *TILE_OK, "--start", "0x408"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("fastswz: error: start=0x408")


def test_reader_gone_is_quiet():
    """``fastswz ... | head`` that closes the pipe first: no traceback, SIGPIPE's status."""
    r, w = os.pipe()
    os.close(r)  # no reader at all: the first write fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "fastswz", "tile", *TILE_OK], stdout=w,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(w)
    assert proc.returncode == 141 and proc.stderr == ""
