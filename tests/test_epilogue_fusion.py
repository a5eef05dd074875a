"""The fused epilogue and the fp8 scales (issue 28), without a GPU.

* The configuration keys normalize, refuse bad values with the rule, and travel through the
  kernel row (``row["fusion"]``) and the generated ``fastswz_fusion.h``.
* ``FswParams``: the Python packing equals the C struct the kernel compiles (host C++ offsets).
* The row slots of the fusion header are the wgmma D fragment's rows on every thread.
* The float64 reference (``reference_epilogue``, ``reference_block_scaled``, ``encode_fp8``) is
  what torch computes, and exact where the checks rely on exactness.
* ``gemm()``'s argument rules for bias, c, scales, out_scale and amax (one line each).
The NVRTC compile grid of fused configurations is ``FUSED`` in test_cuda_gemm.py; the GPU runs
are tests/test_gpu_epilogue.py and tests/gpu/gemm/epilogue.py.
"""

from __future__ import annotations

import importlib.util
import math
import pathlib
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

import fastswz
from fastswz.cuda import codegen, supported
from fastswz.cuda.reference_gemm import (FP8_MAX, activation, decode, encode_fp8, reference_block_scaled,
                                         reference_epilogue, round_to, ulp)
from fastswz.plan import wgmma_accumulator_layout

CXX = shutil.which("g++") or shutil.which("c++")


def test_fusion_keys_normalize_and_refuse():
    c = codegen.normalize_config(activation="GELU_ERF", bias="bfloat16", residual="f32", scale=None)
    assert (c["activation"], c["bias"], c["residual"], c["scale"], c["amax"]) == ("gelu", "bf16", "f32", "none", False)
    assert codegen.normalize_config(activation=None)["activation"] == "identity"
    with pytest.raises(fastswz.PlanError, match=r"activation='tanh' is not one of identity, relu, gelu"):
        codegen.normalize_config(activation="tanh")
    with pytest.raises(fastswz.PlanError, match=r"bias=e4m3: the epilogue reads bf16, f16, f32"):
        codegen.normalize_config(bias="e4m3")
    with pytest.raises(fastswz.FastswzTypeError, match=r"bias=True: name the type"):
        codegen.normalize_config(bias=True)
    with pytest.raises(fastswz.PlanError, match=r"scale='column' is not one of none, tensor, row, block"):
        codegen.normalize_config(scale="column")
    with pytest.raises(fastswz.FastswzTypeError, match=r"amax='yes' must be True or False"):
        codegen.normalize_config(amax="yes")
    with pytest.raises(fastswz.PlanError, match=r"activaton=.* did you mean 'activation'"):
        codegen.normalize_config(activaton="relu")


def test_kernel_row_carries_the_fusion_and_normalizes_back():
    cfg = dict(bm=128, bn=128, bk=128, stages=5, a_dtype="e4m3", b_dtype="e4m3", scale="block",
               activation="silu", bias="f16", residual="bf16", out_dtype="e4m3", amax=True)
    row = codegen.kernel_row(cfg)
    f = row["fusion"]
    assert f["math"] == ("D = silu(alpha * acc (acc = sum_kb partial_kb * scale_a[m][kb] * "
                         "scale_b[n/128][kb]) + beta * C[m][n] + bias[n]); amax = max |D|; "
                         "out = sat_e4m3(D * out_scale)")
    assert f["promote_k"] == 128 and f["scale_a"]["granularity"] == [1, 128]
    assert f["scale_b"]["granularity"] == [128, 128] and "k-tile" in f["scale_a"]["load"]
    import json

    again = codegen.normalize_config(json.loads(json.dumps(row, default=str)))
    want = codegen.normalize_config(cfg)
    assert {k: again[k] for k in codegen.FUSION_DEFAULTS} == {k: want[k] for k in codegen.FUSION_DEFAULTS}
    assert want["promote"]   # block scales promote
    # a row without fusion keys is the plain kernel: nothing fused, FSW_FUSED 0
    h = codegen.fusion_header(codegen.normalize_config())
    assert "#define FSW_FUSED 0" in h and "#define FSW_BLOCK_SCALE 0" in h
    h = codegen.fusion_header(cfg)
    for line in ("#define FSW_FUSED 1", "#define FSW_ACT 4", "#define FSW_BIAS 1", "#define FSW_BIAS_KIND 1",
                 "#define FSW_RESIDUAL 1", "#define FSW_SCALE 3", "#define FSW_BLOCK_SCALE 1",
                 "#define FSW_PROMOTE 1", "#define FSW_AMAX 1", "#define FSW_OUT_FP8 1"):
        assert line in h, line
    # promotion alone (use_fast_accum=False): the main loop promotes, the epilogue has nothing
    h = codegen.fusion_header(dict(bn=128, promote=True))
    assert "#define FSW_PROMOTE 1" in h and "#define FSW_BLOCK_SCALE 0" in h and "#define FSW_FUSED 0" in h
    assert codegen.kernel_row(dict(bn=128, bk=64, promote=True))["fusion"]["promote_k"] == 64
    assert "promote=True: bn=256 keeps two 64 x BN f32 accumulators" in supported(dict(bn=256, promote=True))
    # fp8 output alone switches the epilogue on (the cast needs out_scale)
    assert "#define FSW_FUSED 1" in codegen.fusion_header(dict(out_dtype="e5m2"))


@pytest.mark.parametrize("bn", [16, 64, 128, 200, 256])
def test_row_slots_are_the_fragment_rows(bn):
    f = codegen.fusion_row(codegen.normalize_config(bn=bn))
    slot, first = f["row_slots"]["slot"], f["row_slots"]["first"]
    L = wgmma_accumulator_layout(bn)
    for t in range(128):
        rows = [L(t, r) % 64 for r in range(bn // 2)]
        for r in range(bn // 2):
            assert rows[r] == rows[first[slot[r]]]
        assert len(set(rows)) == len(first)


@pytest.mark.parametrize("cfg", [dict(bn=16), dict(bn=64), dict(bn=200), dict(bn=256),
                                 dict(bn=256, epilogue=True, epilogue_n=64),
                                 dict(bn=256, epilogue=True, residual="bf16"), dict(bn=96, residual="f32")])
def test_col_slots_are_the_fragment_columns(cfg):
    """Chunk q of the fused epilogue holds column slots [q S, q S + S): every register of a slot
    is the same column pair on every thread, and no chunk spans two epilogue column blocks."""
    c = codegen.normalize_config(cfg)
    f = codegen.fusion_row(c)["col_slots"]
    slot, first, chunk, per = f["slot"], f["first"], f["chunk"], f["chunk_slots"]
    L = wgmma_accumulator_layout(c["bn"])
    regs = c["bn"] // 2
    block = (c["epilogue_n"] or c["bn"]) // 2 if c["epilogue"] else regs
    assert block % chunk == 0 and chunk <= (codegen.EPILOGUE_CHUNK_REGISTERS_TIGHT if c["residual"] else codegen.EPILOGUE_CHUNK_REGISTERS)
    for t in range(128):
        cols = [L(t, r) // 64 for r in range(regs)]
        for r in range(0, regs, 2):
            assert cols[r + 1] == cols[r] + 1
            assert cols[r] == cols[first[slot[r]]] and slot[r] == slot[r + 1]
            assert slot[r] // per == r // chunk
        assert len({cols[r] for r in range(0, regs, 2)}) == len(first)


def test_block_scale_rules():
    fp8 = dict(a_dtype="e4m3", b_dtype="e4m3", scale="block", stages=4)
    assert supported(dict(fp8, bm=128, bn=128, bk=128)) is None
    assert "bk=64 must be 128" in supported(dict(fp8, bm=128, bn=128, bk=64))
    # tiles across two of B's scale blocks: multiples of 32 spanning at most two; both
    # accumulators and the second products under setmaxnreg's 232 registers
    for bn in (96, 160, 192):
        assert supported(dict(fp8, bm=128, bn=bn, bk=128)) is None
        assert codegen.kernel_row(dict(fp8, bm=128, bn=bn, bk=128))["fusion"]["scale_b"]["per_tile"] == 2
    assert codegen.kernel_row(dict(fp8, bm=128, bn=128, bk=128))["fusion"]["scale_b"]["per_tile"] == 1
    assert "bn=144 must divide 128" in supported(dict(fp8, bm=128, bn=144, bk=128))   # offsets of 16
    assert "bn=224 must divide 128" in supported(dict(fp8, bm=128, bn=224, bk=128))   # three blocks
    assert "256 registers + about 40 > 232" in supported(dict(fp8, bm=128, bn=256, bk=128))
    for other in (dict(pingpong=True, bm=64), dict(cluster_m=2), dict(cluster_n=2)):
        assert "not run on a GPU with ping-pong or clusters" in supported({**fp8, "bm": 128, "bn": 160, "bk": 128, **other})
    # without room for the slots the consumers load a group's scales: BN 160 keeps its products
    no_room = dict(fp8, bm=128, bn=160, bk=128, stages=6, epilogue=True, epilogue_n=32)
    assert codegen.kernel_row(no_room)["fusion"]["scale_ring"] is None and supported(no_room) is None
    assert "fp8 operands" in supported(dict(fp8, a_dtype="bf16", b_dtype="bf16", bm=128, bn=128, bk=128, stages=2))
    from fastswz.cuda import choose_block_scaled_plan, default_config

    c = choose_block_scaled_plan("e4m3", "e4m3", "bf16")
    assert supported(c) is None and c["bk"] == 128 and 128 % c["bn"] == 0
    c = default_config(4096, 7168, 7168, "e4m3", "e4m3", out_dtype="bf16", fusion={"scale": "block"})
    assert c["scale"] == "block" and supported(c) is None
    assert supported(dict(c, epilogue=False)) is None


@pytest.mark.parametrize("stages,epilogue,epilogue_n,bm,fits", [
    (6, True, 0, 128, False),   # 6 x 32 KiB + the 32 KiB epilogue tile leave 1952 bytes: 6 x 528 do not fit
    (5, True, 0, 128, True), (6, False, 0, 128, True), (6, True, 64, 128, True), (3, True, 0, 64, True)])
def test_block_scale_slots(stages, epilogue, epilogue_n, bm, fits):
    """fusion.scale_ring: one slot per stage (BM scales of A, then B's in a 16-byte cell) after
    the plan's buffers, within the shared-memory limit, or none; the header and the launch's
    shared memory follow it."""
    from fastswz.plan import SMEM_OPTIN

    cfg = codegen.normalize_config(bm=bm, bn=128, bk=128, stages=stages, a_dtype="e4m3", b_dtype="e4m3",
                                   scale="block", epilogue=epilogue, epilogue_n=epilogue_n)
    assert supported(cfg) is None
    row = codegen.kernel_row(cfg)
    ring = row["fusion"]["scale_ring"]
    h = codegen.fusion_header(cfg, row)
    meta = codegen.launch_meta(row, "bf16")
    if not fits:
        assert ring is None and "#define FSW_SCALE_RING 0" in h
        assert row["fusion"]["scale_ahead"] == codegen.BLOCK_SCALE_AHEAD
        return
    assert ring["slots"] == stages and ring["slot_bytes"] == 4 * bm + 16 and ring["b_offset"] == 4 * bm
    assert ring["offset"] % 16 == 0 and ring["offset"] >= row["smem_bytes"]
    assert ring["offset"] + ring["bytes"] + codegen.BASE_ALIGN_SLACK <= SMEM_OPTIN["sm90"]
    assert "#define FSW_SCALE_RING 1" in h and f"kScaleOffset = {ring['offset']}u" in h
    assert f"kScaleSlotBytes = {ring['slot_bytes']}u" in h and f"kScaleB = {4 * bm}u" in h
    assert row["fusion"]["scale_ahead"] is None and "cp.async" in row["fusion"]["scale_a"]["load"]
    assert codegen._smem_end(row) == ring["offset"] + ring["bytes"]
    assert meta["smem_bytes"] == ring["offset"] + ring["bytes"]
    # not for other scale forms, nor (not run on a GPU with them) ping-pong or clusters
    assert codegen.kernel_row(dict(cfg, scale="row", promote=True))["fusion"]["scale_ring"] is None
    if bm == 128 and stages <= 5:
        assert codegen.kernel_row(dict(cfg, cluster_m=2))["fusion"]["scale_ring"] is None


def test_block_scale_ring_rule():
    """BLOCK_SCALE_RING_MAX_KTILES: block-scaled calls with at most that many k-tiles take the
    most stages that leave room for the scales' slots; longer K keeps 6 stages and global loads
    (BN 128 tiles: at 4096 x 4096 the width rule keeps them on both sides)."""
    from fastswz.cuda import BLOCK_SCALE_RING_MAX_KTILES, choose_block_scaled_plan, default_config

    kt = BLOCK_SCALE_RING_MAX_KTILES
    short = default_config(4096, 4096, 128 * kt, "e4m3", "e4m3", fusion={"scale": "block"})
    long_ = default_config(4096, 4096, 128 * kt + 1, "e4m3", "e4m3", fusion={"scale": "block"})
    assert short["bn"] == long_["bn"] == 128
    assert codegen.kernel_row(short)["fusion"]["scale_ring"] is not None and short["epilogue"]
    assert codegen.kernel_row(long_)["fusion"]["scale_ring"] is None and long_["epilogue"]
    assert short["stages"] < long_["stages"] == 6
    assert supported(short) is None and supported(long_) is None
    # the most stages that leave room: one more does not
    assert codegen.kernel_row(dict(short, stages=short["stages"] + 1))["fusion"]["scale_ring"] is None
    # promotion without block scales has no slots to make room for
    assert choose_block_scaled_plan(fusion={"promote": True, "scale": "row"}, k=128)["stages"] == 6


def test_block_scale_width_rule():
    """BLOCK_SCALE_WIDTHS: a block-scaled call's BN is the width whose waves (ceil(tiles / 132))
    times BN times its cost per column are least: from 17 k-tiles (BLOCK_SCALE_192_MIN_KTILES)
    128 1.0, 160 1.07, 192 1.03; with fewer BLOCK_SCALE_WIDTHS_SHORT (128 1.0, 160 0.99); 128 at
    most 8 k-tiles (BLOCK_SCALE_WIDE_MIN_KTILES); 192 stores through 64-column epilogue blocks.
    Cases from the measured runs' shapes (docs/conformance/2026-11-29-twenty-seventh-session,
    2026-11-29-twenty-ninth-session runs 4-6), then the statement over a grid."""
    from fastswz.cuda import BLOCK_SCALE_192_MIN_KTILES, BLOCK_SCALE_WIDE_MIN_KTILES, default_config

    def bn_of(m, n, k):
        c = default_config(m, n, k, "e4m3", "e4m3", fusion={"scale": "block"})
        assert supported(c) is None
        assert c["epilogue_n"] == (64 if c["bn"] == 192 and c["epilogue"] else 0)
        return c["bn"]

    assert bn_of(4096, 2112, 7168) == 192      # 3 waves of 192 columns, 5 of 128 (113.7 against 123.2 us)
    assert bn_of(4096, 7168, 7168) == 128      # 14 waves of 128, 11 of 160 (339.7 against 361.4 us)
    assert bn_of(8192, 4096, 7168) == 128      # 16 waves of 128, 12 of 192 (398.1 against 413.5 us)
    assert bn_of(4096, 4096, 7168) == 128      # 8 waves of 128, 7 of 160, 6 of 192
    assert bn_of(6144, 3072, 2560) == 128      # 9 waves of 128, 6 of 192 (86.7 against 89.3 us)
    assert bn_of(2709, 2496, 1360) == 160      # 11 k-tiles: 3 waves of 160, 4 of 128 (32.7 against 36.0 us)
    assert bn_of(2372, 15440, 1648) == 160     # 13 k-tiles: 14 waves of 160, 18 of 128 (168.8 against 183.9 us)
    assert bn_of(6144, 32768, 512) == 128      # 4 k-tiles: the floor (160 ran 0.945x)
    assert bn_of(4096, 576, 7168) == 160       # one wave of 160 columns, two of 128
    sms = 132
    for m in (128, 1000, 2048, 4096, 7055):
        for n in (576, 2112, 3616, 7168, 24576):
            for k in (512, 1024, 1152, 2048, 2176, 7168):
                kt = -(-k // 128)
                widths = ({128: 1.0} if kt <= BLOCK_SCALE_WIDE_MIN_KTILES else
                          {128: 1.0, 160: 1.07, 192: 1.03} if kt >= BLOCK_SCALE_192_MIN_KTILES else {128: 1.0, 160: 0.99})
                cost = {w: -(-(-(-m // 128) * -(-n // w)) // sms) * w * c for w, c in widths.items()}
                assert bn_of(m, n, k) == min(cost, key=lambda w: (cost[w], w)), (m, n, k)


def _unscaled_plan(m, n, k):
    """The unscaled e4m3 call's plan with SMALL_TILE_MAX_KTILES' and SWAP_PAD_MAX_FILL's rules
    off: the plan the scaled calls build on (they leave the plain calls' rules out)."""
    from fastswz import cuda

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cuda, "SMALL_TILE_MAX_KTILES", 0)
        mp.setattr(cuda, "SWAP_PAD_MAX_FILL", 0)
        cuda.choose_plan.cache_clear()
        try:
            return cuda.default_config(m, n, k, "e4m3", "e4m3")
        finally:
            cuda.choose_plan.cache_clear()


def test_rowwise_one_pass_rule():
    """ROWWISE_ONE_PASS_MAX_M: a rowwise-scaled call whose unscaled plan splits K on 128-row
    tiles runs one pass on 64-row tiles where they fill ROWWISE_ONE_PASS_MIN_FILL of the SMs; the
    unscaled problem, other M and narrow N keep the split."""
    from fastswz.cuda import (DEEP_TILE_MAX_STAGES, ROWWISE_ONE_PASS_MAX_M, ROWWISE_ONE_PASS_MIN_FILL,
                              default_config)
    from fastswz.tune import DEFAULT_SMS

    row = {"scale": "row"}
    for m, n, k in ((128, 7168, 16384), (128, 8192, 29568), (96, 5120, 12288)):
        plain = _unscaled_plan(m, n, k)
        assert plain["bm"] == 128 and plain["split_k"] > 1 and not plain["swap_ab"]
        c = default_config(m, n, k, "e4m3", "e4m3", fusion=row)
        assert supported(c) is None and c["scale"] == "row"
        assert (c["bm"], c["split_k"], c["stages"]) == (64, 1, DEEP_TILE_MAX_STAGES)
        assert (c["bn"], c["bk"]) == (plain["bn"], plain["bk"])
        assert -(-m // 64) * -(-n // c["bn"]) >= ROWWISE_ONE_PASS_MIN_FILL * DEFAULT_SMS["sm90"]
    # 64-row tiles of 128 x 4096 fill 64 of 132 SMs: the split stays, as unscaled
    narrow = default_config(128, 4096, 14336, "e4m3", "e4m3", fusion=row)
    assert narrow["split_k"] > 1 and narrow["bm"] == 128
    m = ROWWISE_ONE_PASS_MAX_M + 64   # past the rule's M: the unscaled problem's plan
    assert {k: v for k, v in default_config(m, 7168, 16384, "e4m3", "e4m3", fusion=row).items() if k != "scale"} == \
        {k: v for k, v in _unscaled_plan(m, 7168, 16384).items() if k != "scale"}


def test_rowwise_short_k_rule():
    """ROWWISE_SHORT_KTILES: a rowwise-scaled call on one wave of 128 x 256 tiles with few k-tiles
    takes 128 x 128 tiles through two epilogue tiles; longer K, more tiles and the unscaled
    problem keep the plan."""
    from fastswz.cuda import EPILOGUE_BLOCK_N, ROWWISE_SHORT_KTILES, default_config

    row = {"scale": "row"}
    plain = default_config(128, 32768, 512, "e4m3", "e4m3")
    assert (plain["bn"], plain["split_k"], plain["swap_ab"]) == (256, 1, False)
    assert -(-512 // plain["bk"]) <= ROWWISE_SHORT_KTILES
    c = default_config(128, 32768, 512, "e4m3", "e4m3", fusion=row)
    assert supported(c) is None and c["scale"] == "row"
    assert (c["bm"], c["bn"], c["bk"], c["epilogue"], c["epilogue_n"], c["epilogue_stages"]) == \
        (plain["bm"], 128, plain["bk"], True, EPILOGUE_BLOCK_N, 2)
    # register stores asked for: the rule does not add the epilogue tile
    regs = default_config(128, 32768, 512, "e4m3", "e4m3", fusion=row, epilogue=False)
    assert not regs["epilogue"] and regs == dict(default_config(128, 32768, 512, "e4m3", "e4m3", epilogue=False),
                                                 scale="row")
    for m, n, k in ((128, 32768, 4096), (2048, 32768, 512)):   # longer K; two waves of tiles
        p = default_config(m, n, k, "e4m3", "e4m3")
        assert p["bn"] == 256
        assert default_config(m, n, k, "e4m3", "e4m3", fusion=row)["bn"] == 256


def test_params_struct_is_the_c_struct(tmp_path):
    if CXX is None:
        pytest.skip("no host C++ compiler")
    names = [f for f, _, _ in codegen.PARAM_FIELDS]
    src = ("#include <cstdio>\n#include <cstddef>\ntypedef unsigned int uint32_t;\n"
           + codegen._params_c() + "\nint main(){\n"
           + "".join(f'printf("%zu\\n", offsetof(FswParams, {f}));\n' for f in names)
           + 'printf("%zu\\n", sizeof(FswParams));\n}\n')
    (tmp_path / "p.cpp").write_text(src)
    subprocess.run([CXX, "-std=c++17", str(tmp_path / "p.cpp"), "-o", str(tmp_path / "p")], check=True,
                   capture_output=True)
    got = [int(x) for x in subprocess.run([str(tmp_path / "p")], capture_output=True, text=True,
                                          check=True).stdout.split()]
    # Python's offsets: pack a distinct value into each field and find its bytes
    s = codegen.params_struct()
    assert got[-1] == s.size
    pack = codegen.params_packer()
    base = pack(0, 0, 0, 0, 0)
    for name, off in zip(names[5:], got[5:]):
        fmt = dict((f, t) for f, _, t in codegen.PARAM_FIELDS)[name]
        v = 0.25 if fmt == "f" else 0x0123456789 if fmt in "Qq" else 77
        blob = pack(0, 0, 0, 0, 0, **{name: v})
        assert blob[off:off + struct.calcsize(fmt)] == struct.pack("@" + fmt, v), name
        assert blob[:off] == base[:off]
    # the plain call's bytes: alpha 1, everything else 0
    assert struct.unpack_from("@f", base, got[names.index("alpha")])[0] == 1.0
    with pytest.raises(fastswz.PlanError, match="FswParams has no field 'gamma'"):
        pack(0, 0, 0, 0, 0, gamma=1.0)


def test_fp8_cast_rounds_to_even_and_saturates():
    for name in ("e4m3", "e5m2"):
        table = decode(np.arange(256, dtype=np.uint8), name)
        finite = np.flatnonzero(np.isfinite(table) & (np.arange(256) < 128))
        vals = np.sort(table[finite])
        mids = (vals[:-1] + vals[1:]) / 2
        codes = encode_fp8(mids, name)
        lo, hi = encode_fp8(vals[:-1], name), encode_fp8(vals[1:], name)
        # a midpoint goes to the neighbour whose code (mantissa) is even
        want = np.where(lo % 2 == 0, lo, hi)
        np.testing.assert_array_equal(codes, want)
        np.testing.assert_array_equal(decode(encode_fp8(-mids, name), name), -decode(want, name))
        big = np.array([FP8_MAX[name] * 1.01, 1e30, np.inf, -np.inf])
        np.testing.assert_array_equal(decode(encode_fp8(big, name), name), [FP8_MAX[name]] * 3 + [-FP8_MAX[name]])
        assert np.isnan(decode(encode_fp8(np.array([np.nan]), name), name)[0])


def test_activations_are_torchs():
    # torch's definitions, written independently: gelu = x Phi(x) (Phi by erfc), gelu_tanh as
    # torch documents approximate='tanh', silu = x sigmoid(x) = x (1 + tanh(x/2)) / 2
    x = np.linspace(-9, 9, 181)
    phi = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(activation(x, "gelu"), x * phi, rtol=1e-12, atol=1e-14)
    t = np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))
    np.testing.assert_allclose(activation(x, "gelu_tanh"), 0.5 * x * (1 + t), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(activation(x, "silu"), x * (1 + np.tanh(x / 2)) / 2, rtol=1e-12, atol=1e-300)
    r = activation(np.array([-1.0, np.nan, 2.0]), "relu")
    assert r[0] == 0 and np.isnan(r[1]) and r[2] == 2
    assert activation(np.array([-1000.0]), "silu")[0] == 0.0


def test_reference_epilogue_order_and_nan():
    rng = np.random.default_rng(0)
    acc = rng.integers(-50, 50, (5, 7)).astype(float)
    c = rng.integers(-4, 5, (5, 7)).astype(float)
    bias = rng.integers(-8, 9, 7).astype(float)
    sa, sb = 2.0 ** rng.integers(-2, 3, 5), 2.0 ** rng.integers(-2, 3, 7)
    D, out, amax = reference_epilogue(acc, alpha=0.5, beta=2.0, c=c, bias=bias, activation_name="relu",
                                      scale="row", scale_a=sa, scale_b=sb, out_dtype="e4m3", out_scale=0.25)
    want = np.maximum(0.5 * acc * sa[:, None] * sb[None, :] + 2.0 * c + bias, 0)
    np.testing.assert_array_equal(D, want)
    assert amax == want.max()
    np.testing.assert_array_equal(out, decode(encode_fp8(want * 0.25, "e4m3"), "e4m3"))
    # beta 0 ignores C, NaN included (torch.addmm); a NaN in D makes amax NaN (D.abs().max())
    c[0, 0] = np.nan
    D, _, amax = reference_epilogue(acc, c=c, beta=0.0)
    assert not np.isnan(D).any()
    D, _, amax = reference_epilogue(acc, c=c, beta=1.0, out_dtype="bf16")
    assert np.isnan(D[0, 0]) and math.isnan(amax)
    # bf16 output overflows to Inf (not saturated), fp8 saturates
    _, out, _ = reference_epilogue(np.array([[1e39, -1e39]]), out_dtype="bf16")
    assert np.isinf(out).all()
    _, out, _ = reference_epilogue(np.array([[1e39, -np.inf]]), out_dtype="e5m2")
    np.testing.assert_array_equal(out, [[57344.0, -57344.0]])


def test_reference_block_scaled_is_the_blockwise_sum():
    rng = np.random.default_rng(1)
    m, n, k = 9, 300, 260
    a, b = rng.integers(-2, 3, (m, k)), rng.integers(-2, 3, (k, n))
    sa, sb = rng.uniform(0.5, 2, (m, 3)), rng.uniform(0.5, 2, (3, 3))
    got = reference_block_scaled(a, b, sa, sb)
    want = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            want[i, j] = sum(a[i, kk] * b[kk, j] * sa[i, kk // 128] * sb[j // 128, kk // 128] for kk in range(k))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-11)


@pytest.mark.parametrize("cfg", [
    dict(a_dtype="e4m3", b_dtype="e4m3", bk=128, bn=128, scale="block", residual="bf16", bias="f32",
         out_dtype="e4m3", amax=True),
    dict(scale="row", residual="f16", bias="bf16", activation="relu"),
    dict(scale="tensor", out_dtype="e5m2"),
])
def test_check_inputs_keep_the_integer_case_exact(cfg):
    """runtime.check's integer inputs: the epilogue's value before the cast is exact in f32
    (so the kernel's f32 arithmetic, in any order, gives it exactly)."""
    from fastswz.cuda.runtime import _host_fusion, _host_operands

    c = codegen.normalize_config(cfg)
    m, n, k = 70, 260, 384
    rng = np.random.default_rng(3)
    (a, _, _), (b, _, _) = _host_operands(c, m, n, k, rng, True)
    f = _host_fusion(c, m, n, k, rng, True)["host"]
    if c["scale"] == "block":
        acc = reference_block_scaled(a, b.T, f["scale_a"], f["scale_b"])
        # each partial sum times its two scales is exact too (the kernel's promotion)
        assert np.all(acc == acc.astype(np.float32))
    else:
        acc = a @ b.T
    D, out, amax = reference_epilogue(acc, alpha=f["alpha"], beta=f["beta"], c=f.get("c"), bias=f.get("bias"),
                                      scale=c["scale"], scale_a=f.get("scale_a"), scale_b=f.get("scale_b"),
                                      out_scale=f.get("out_scale"), out_dtype=c["out_dtype"],
                                      activation_name=c["activation"])
    assert np.all(D == D.astype(np.float32)) and np.all(acc * f["s"] * f["alpha"] == (acc * f["s"] * f["alpha"]).astype(np.float32))
    assert np.isfinite(D).all() and amax == np.abs(D).max()


def test_ulp_and_round_to():
    assert ulp(1.0, "bf16") == 2.0 ** -7 and ulp(3.0, "e4m3") == 0.25 and ulp(0.0, "e4m3") == 2.0 ** -9
    assert round_to(np.array([1.0 + 2 ** -9]), "bf16")[0] == 1.0
    assert round_to(np.array([500.0]), "e4m3")[0] == 448.0


# -- gemm()'s argument rules, on stand-in CUDA arrays (no GPU: the device lookup is stubbed) --------
class _Cai:
    """A stand-in CUDA array: __cuda_array_interface__ of a fake pointer."""

    def __init__(self, shape, typestr="<f4", ptr=1 << 20, strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


@pytest.fixture
def fake(monkeypatch):
    from fastswz.cuda import runtime

    monkeypatch.setattr(runtime, "pointer_device", lambda ptr: 0)
    from fastswz import cuda as fc

    m, n, k = 256, 384, 512

    def call(**extras):
        A = fc._Operand(_Cai((m, k), "<f2", 1 << 30), "a")
        B = fc._Operand(_Cai((k, n), "<f2", 2 << 30, (2, 2 * k)), "b")
        D = fc._Operand(_Cai((m, n), "<f2", 3 << 30), "out")
        full = dict(bias=None, c=None, alpha=None, beta=None, activation=None, scale_a=None, scale_b=None,
                    out_scale=None, amax=None)
        full.update(extras)
        return fc._fusion_arguments(full, m, n, k, A, B, D, n, 2)
    call.m, call.n, call.k = m, n, k
    return call


def test_gemm_epilogue_arguments(fake):
    from fastswz.cuda.errors import GemmArgumentError

    m, n = fake.m, fake.n
    fusion, fields = fake(bias=_Cai((n,), "<f2", 5 << 30), c=_Cai((m, n), "<f4", 6 << 30), activation="silu",
                          alpha=0.5)
    assert fusion == {"activation": "silu", "bias": "f16", "residual": "f32"}
    assert fields["alpha"] == 0.5 and fields["beta"] == 1.0 and fields["ldc"] == n and fields["c"] == 6 << 30
    fusion, fields = fake(scale_a=_Cai((), ptr=7 << 30), scale_b=_Cai((1,), ptr=8 << 30))
    assert fusion == {"scale": "tensor"}
    fusion, fields = fake(scale_a=_Cai((m, 1), ptr=7 << 30), scale_b=_Cai((1, n), ptr=8 << 30))
    assert fusion == {"scale": "row"} and fields["sa_sm"] == 1 and fields["sb_sn"] == 1
    bad = [
        (dict(bias=_Cai((n + 1,), "<f2", 5 << 30)), r"bias has shape \(385,\): it must have N = 384 elements"),
        (dict(bias=_Cai((n,), "<f2", 5 << 30, (4,))), r"bias has strides \(2,\): it must be contiguous"),
        (dict(c=_Cai((m, n - 1), "<f2", 5 << 30)), r"c has shape \(256, 383\): it must be D's, \(256, 384\)"),
        (dict(beta=2.0), "beta is given without c"),
        (dict(activation="tanh"), r"activation='tanh': one of identity, relu"),
        (dict(alpha="x"), r"alpha='x' must be a number"),
        (dict(scale_a=_Cai((1,))), "scale_a and scale_b come together"),
        (dict(scale_a=_Cai((m, 1), "<f2"), scale_b=_Cai((1, n), "<f2")), r"scale_a holds f16: scales are f32"),
        (dict(scale_a=_Cai((m, 1), strides=(8, 4)), scale_b=_Cai((1, n))), "rowwise scales must be contiguous"),
        (dict(scale_a=_Cai((m, 2)), scale_b=_Cai((1, n))), r"none of the scale forms .* \(256, 4\) and \(3, 4\)"),
        (dict(scale_a=_Cai((m, 4)), scale_b=_Cai((3, 4))), "block scales are for fp8 operands"),
        (dict(out_scale=_Cai((1,))), "out_scale scales an fp8 output; out is f16"),
        (dict(amax=_Cai((2,))), r"amax is f32 of shape \(2,\): it must be one f32"),
        (dict(amax=_Cai((1,), ptr=(3 << 30) + 64)), "amax lies inside out"),
        (dict(c=_Cai((m, n), "<f2", (3 << 30) + 2)), "c overlaps out without being out itself"),
    ]
    for extras, msg in bad:
        with pytest.raises(GemmArgumentError, match=msg):
            fake(**extras)
    # out=c exactly (an in-place residual) is allowed
    fusion, _ = fake(c=_Cai((m, n), "<f2", 3 << 30))
    assert fusion == {"residual": "f16"}


# -- the kernel's epilogue math, run on the host ---------------------------------------------------
_SHIM = r"""
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdint.h>
#include <algorithm>
#define __device__
#define __forceinline__ inline
#define FSW_HOST_EMULATION 1
struct float2 { float x, y; };
template <class T> inline T __ldg(const T* p) { return *p; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline float fsw_f16_to_f32(unsigned short h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
using std::max;
struct Dim3 { unsigned x; };
static Dim3 threadIdx;
inline unsigned __reduce_max_sync(unsigned, unsigned v) { return v; }
inline unsigned atomicMax(unsigned* p, unsigned v) { unsigned o = *p; if (v > o) *p = v; return o; }
"""


def _c_array(ctype, name, values):
    if ctype == "float":
        body = ", ".join(float(np.float32(v)).hex() if np.isfinite(v) else
                         ("NAN" if np.isnan(v) else ("INFINITY" if v > 0 else "-INFINITY")) for v in values)
    else:
        body = ", ".join(str(int(v)) for v in values)
    return f"static {ctype} {name}[{max(1, len(values))}] = {{{body or '0'}}};\n"


def _emulate(tmp_path, cfg, acc, *, bias=None, c=None, ldc=0, sa=None, sb=None, alpha=1.0, beta=0.0,
             out_scale=1.0, offsets=(0, 0)):
    """Run sm90/epilogue_ops.cuh on the host over every register pair of the register-store
    epilogue (the plan's accumulator map), as the kernel does; returns (values stored before the
    output cast, amax)."""
    from importlib import resources

    c_cfg = codegen.normalize_config(cfg)
    row = codegen.kernel_row(c_cfg)
    m, n = acc.shape
    (tmp_path / "fastswz_plan.h").write_text(fastswz.emit_header(row, name="fastswz_plan"))
    (tmp_path / "fastswz_fusion.h").write_text(codegen.fusion_header(c_cfg))
    ops = resources.files("fastswz").joinpath("kernels", "sm90", "epilogue_ops.cuh").read_text()
    (tmp_path / "epilogue_ops.cuh").write_text(ops)
    (tmp_path / "tile_rows.cuh").write_text(
        resources.files("fastswz").joinpath("kernels", "sm90", "tile_rows.cuh").read_text())
    bias_bits = {"bf16": "unsigned short", "f16": "unsigned short", "f32": "float", None: "unsigned short"}
    src = [_SHIM, '#include "fastswz_plan.h"\nnamespace P = fastswz_plan;\nnamespace K = fastswz_plan::kernel;\n#include "tile_rows.cuh"\n', codegen._params_c(), "\n",
           '#include "epilogue_ops.cuh"\n',
           _c_array("float", "ACC", acc.ravel()),
           _c_array(bias_bits[c_cfg["bias"]], "BIAS", [] if bias is None else bias),
           _c_array(bias_bits[c_cfg["residual"]], "C", [] if c is None else np.asarray(c).ravel()),
           _c_array("float", "SA", [] if sa is None else np.ravel(sa)),
           _c_array("float", "SB", [] if sb is None else np.ravel(sb)),
           _c_array("float", "OUT", [0.0] * (m * n))]
    bm, bn = c_cfg["bm"], c_cfg["bn"]
    src.append(f"""
int main() {{
  FswParams p;
  memset(&p, 0, sizeof p);
  p.m = {m}; p.n = {n}; p.k = 1; p.alpha = {float(alpha).hex()}; p.beta = {float(beta).hex()};
  p.bias = BIAS + {offsets[0]}; p.c = C; p.ldc = {ldc}; p.scale_a = SA; p.scale_b = SB + {offsets[1]};
  p.sa_sm = 1; p.sb_sn = 1;
  static float os = {float(out_scale).hex()};
  p.out_scale = &os;
  static unsigned amax = 0;
  p.amax = &amax;
  for (int tm = 0; tm * {bm} < {m}; ++tm)
    for (int tn = 0; tn * {bn} < {n}; ++tn)
      for (int w = 0; w < {bm // 64}; ++w)
        for (int t = 0; t < 128; ++t) {{
          EpilogueOps ops;
          ops.init(p);
          ops.prefetch(tm, tn, w, t, p);   // (no-op on the host: its addresses are computed)
          ops.tile(tm, w, t, p);
          for (int r = 0; r < P::accumulator::kRegisters; r += 2) {{
            if (r % F::kChunkRegisters == 0) ops.chunk(r / F::kChunkRegisters, tm, tn, w, t, p);
            const int mm = tile_row0(tm, {m}) + 64 * w + P::accumulator::row(t, r);   // the kernel's rows (tile_rows.cuh)
            const int nn = tn * {bn} + P::accumulator::col(t, r);
            float x0 = mm < {m} && nn < {n} ? ACC[mm * {n} + nn] : 0.f;
            float x1 = mm < {m} && nn + 1 < {n} ? ACC[mm * {n} + nn + 1] : 0.f;
            ops.apply(x0, x1, r);
            if (mm < {m} && nn < {n}) OUT[mm * {n} + nn] = x0;
            if (mm < {m} && nn + 1 < {n}) OUT[mm * {n} + nn + 1] = x1;
          }}
          ops.tile_done(tm, w, t, p);   // the tile's rows inside M into amax
          threadIdx.x = 0;   // every emulated thread posts its own max
          ops.finish(p);
        }}
  for (int i = 0; i < {m * n}; ++i) printf("%a\\n", OUT[i]);
  printf("%a\\n", __uint_as_float(amax));
}}
""")
    (tmp_path / "emu.cpp").write_text("".join(src))
    subprocess.run([CXX, "-std=c++17", "-O1", "-I", str(tmp_path), str(tmp_path / "emu.cpp"), "-o",
                    str(tmp_path / "emu")], check=True, capture_output=True, text=True)
    out = subprocess.run([str(tmp_path / "emu")], check=True, capture_output=True, text=True).stdout.split()
    vals = np.array([float.fromhex(x) if "nan" not in x else np.nan for x in out])
    return vals[:-1].reshape(m, n), vals[-1]


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("case", [
    dict(cfg=dict(bm=128, bn=64, scale="row", bias="bf16", residual="f16", activation="gelu", amax=True,
                  out_dtype="e4m3"), ldc=100, offsets=(0, 0)),
    dict(cfg=dict(bm=128, bn=64, scale="tensor", bias="bf16", activation="gelu", out_dtype="e4m3"), ldc=0,
         offsets=(0, 0)),   # fp8 without amax: the degree-5 GELU
    dict(cfg=dict(bm=128, bn=64, scale="row", bias="f32", residual="bf16", activation="relu", amax=True),
         ldc=101, offsets=(1, 1)),   # odd pitch and misaligned bias / scale_b: one element at a time
    dict(cfg=dict(bm=64, bn=32, scale="tensor", residual="f32", activation="silu", amax=True, out_dtype="f32"),
         ldc=104, offsets=(0, 0)),
    dict(cfg=dict(bm=128, bn=64, activation="gelu_tanh", bias="f16", out_dtype="e5m2"), ldc=0, offsets=(0, 0)),
    dict(cfg=dict(bm=128, bn=64, residual="bf16", activation="identity", amax=True), ldc=100, offsets=(0, 0),
         beta=0.0),   # beta 0 skips C (its NaN does not reach D)
    dict(cfg=dict(bm=128, bn=64, residual="bf16", activation="relu", amax=True), ldc=100, offsets=(0, 0),
         nan=True),   # NaN in C reaches D and amax
    dict(cfg=dict(bm=128, bn=64), ldc=0, offsets=(0, 0)),   # nothing fused: alpha alone
], ids=["row-gelu-e4m3", "tensor-gelu-e4m3", "row-relu-unaligned", "tensor-silu-f32", "gelu_tanh-e5m2", "beta0", "nan", "alpha"])
def test_epilogue_ops_on_the_host(tmp_path, case):
    """The kernel's per-pair epilogue (sm90/epilogue_ops.cuh), compiled for the host with the
    plan's and the fusion's generated headers, over every register of a 150 x 100 problem (edges
    past M and N included) against the float64 reference."""
    from fastswz.cuda.runtime import _bits_of

    cfg = case["cfg"]
    c_cfg = codegen.normalize_config(cfg)
    m, n = 150, 100
    rng = np.random.default_rng(7)
    acc = rng.integers(-300, 300, (m, n)).astype(np.float64)
    alpha, beta, out_scale = 0.5, case.get("beta", 2.0), 0.25
    kw = {}
    bias = c = sa = sb = None
    offsets = case["offsets"]
    if c_cfg["bias"]:
        x = rng.integers(-8, 9, n + offsets[0]).astype(np.float32)
        bits = _bits_of(x, c_cfg["bias"])
        bias = bits.view(np.float32) if c_cfg["bias"] == "f32" else bits
        kw["bias"] = decode(bits, c_cfg["bias"])[offsets[0]:]
    if c_cfg["residual"]:
        ldc = case["ldc"]
        x = rng.integers(-4, 5, (m, ldc)).astype(np.float32)
        if case.get("nan") or case.get("beta") == 0.0:
            x[3, 5] = np.nan
        bits = _bits_of(x, c_cfg["residual"])
        c = bits.view(np.float32) if c_cfg["residual"] == "f32" else bits
        kw["c"] = decode(bits, c_cfg["residual"])[:, :n]
    if c_cfg["scale"] == "row":
        sa = 2.0 ** rng.integers(-2, 3, m)
        sb = 2.0 ** rng.integers(-2, 3, n + offsets[1])
        kw.update(scale_a=sa, scale_b=sb[offsets[1]:])
    elif c_cfg["scale"] == "tensor":
        sa, sb = np.array([0.5]), np.array([4.0])
        kw.update(scale_a=sa, scale_b=sb)
    got, amax = _emulate(tmp_path, cfg, acc, bias=bias, c=c, ldc=case["ldc"], sa=sa, sb=sb, alpha=alpha,
                         beta=beta, out_scale=out_scale, offsets=offsets)
    D, _, amax_ref = reference_epilogue(acc, alpha=alpha, beta=beta, activation_name=c_cfg["activation"],
                                        scale=c_cfg["scale"], out_dtype=c_cfg["out_dtype"],
                                        out_scale=out_scale, **kw)
    want = D * out_scale if c_cfg["out_dtype"] in ("e4m3", "e5m2") else D
    both_nan = np.isnan(got) & np.isnan(want)
    if c_cfg["activation"] in ("identity", "relu"):
        assert np.all((got == want) | both_nan)
        if c_cfg["amax"]:
            assert amax == amax_ref or (math.isnan(amax) and math.isnan(amax_ref))
    else:
        tol = 2.0 ** -20 * (np.abs(acc) * 4 + 16 + np.abs(want))
        if c_cfg["activation"] == "gelu" and c_cfg["out_dtype"] in ("e4m3", "e5m2") and not c_cfg["amax"]:
            tol = tol + 2.0 ** -10 * np.abs(want)   # fp8 outputs' shorter polynomial (tools/fit_gelu.py)
        assert np.all((np.abs(got - want) <= tol) | both_nan)
        if c_cfg["amax"]:
            assert abs(amax - amax_ref) <= 2.0 ** -20 * (np.abs(acc).max() * 4 + 16)
    if case.get("nan"):
        assert np.isnan(got[3, 5]) and math.isnan(amax)
    if case.get("beta") == 0.0:
        assert not np.isnan(got).any()


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("bm,bn,scale,ahead", [(128, 128, "block", 2), (64, 64, "block", 2), (128, 128, "block", 1),
                                               (64, 64, "block", 3), (128, 128, "block", 4),
                                               (128, 128, "none", 2),
                                               # tiles across two of B's scale blocks, at every offset
                                               (128, 160, "block", 4), (128, 192, "block", 2),
                                               (64, 96, "block", 3)])
def test_block_promotion_on_the_host(tmp_path, bm, bn, scale, ahead):
    """The kernel's block-scale promotion (sm90/block_scale.cuh: the scales loaded a group of kAhead
    k-tiles ahead, total += part * sa * sb), compiled for the host, over every register of a problem with a
    partial last K block and ragged M and N, against reference_block_scaled; A's scales
    column-major (DeepGEMM's), B's row-major. ``ahead``: FSW_SCALE_AHEAD, the k-tiles of a
    group (5 k-tiles here: 2, 3 and 4 leave a remainder). BN not dividing 128: N takes a tile at
    each offset into B's scale blocks (fsw_promote_by_offset's register maps) and a last tile
    whose second block is past N."""
    from importlib import resources

    cfg = codegen.normalize_config(bm=bm, bn=bn, bk=128, stages=4, a_dtype="e4m3", b_dtype="e4m3", scale=scale,
                                   promote=True)
    row = codegen.kernel_row(cfg)
    m, n, k = 150, (300 if 128 % bn == 0 else 4 * bn + 40), 520
    kb, nb = -(-k // 128), -(-n // 128)
    if 128 % bn:   # the offsets 0, g, 2g, ... of the tiles' first columns, and the last one's next block past N
        assert {tn * bn % 128 for tn in range(-(-n // bn))} == set(range(0, 128, math.gcd(bn, 128)))
        assert (-(-n // bn) - 1) * bn // 128 + 1 == nb
    rng = np.random.default_rng(11)
    a, b = rng.integers(-2, 3, (m, k)), rng.integers(-2, 3, (k, n))
    sa, sb = 2.0 ** rng.integers(-2, 3, (m, kb)), 2.0 ** rng.integers(-2, 3, (nb, kb))
    parts = np.stack([a[:, 128 * j:128 * (j + 1)] @ b[128 * j:128 * (j + 1)] for j in range(kb)])
    (tmp_path / "fastswz_plan.h").write_text(fastswz.emit_header(row, name="fastswz_plan"))
    (tmp_path / "fastswz_fusion.h").write_text(codegen.fusion_header(cfg))
    for f in ("epilogue_ops.cuh", "block_scale.cuh", "tile_rows.cuh"):
        (tmp_path / f).write_text(resources.files("fastswz").joinpath("kernels", "sm90", f).read_text())
    # the consumers' own global loads (FSW_SCALE_RING 0: the shared-memory slots the plan may have
    # are filled by cp.async on the GPU; their path runs in the GPU tests)
    src = [_SHIM, f"#define FSW_SCALE_AHEAD {ahead}\n#define FSW_SCALE_RING 0\n", '#include "fastswz_plan.h"\nnamespace P = fastswz_plan;\nnamespace K = fastswz_plan::kernel;\n#include "tile_rows.cuh"\n', codegen._params_c(), "\n",
           '#include "epilogue_ops.cuh"\n#include "block_scale.cuh"\n',
           _c_array("float", "PART", parts.ravel()), _c_array("float", "SA", sa.T.ravel()),
           _c_array("float", "SB", sb.ravel()), _c_array("float", "OUT", [0.0] * (m * n)),
           f"""
int main() {{
  FswParams p;
  memset(&p, 0, sizeof p);
  p.m = {m}; p.n = {n}; p.k = {k}; p.scale_a = SA; p.scale_b = SB;
  p.sa_sm = 1; p.sa_sk = {m}; p.sb_sn = {kb}; p.sb_sk = 1;
  const int k_tiles = {kb};
  for (int tm = 0; tm * {bm} < {m}; ++tm)
    for (int tn = 0; tn * {bn} < {n}; ++tn)
      for (int w = 0; w < {bm // 64}; ++w)
        for (int t = 0; t < 128; ++t) {{
          float total[P::accumulator::kRegisters], part[P::accumulator::kRegisters];
          for (int r = 0; r < P::accumulator::kRegisters; ++r) total[r] = 0.f;
          BlockScales scales;
          scales.load(p, tm, tn, w, t, 0, k_tiles);
          for (int kt = 0; kt < k_tiles; ++kt) {{
            for (int r = 0; r < P::accumulator::kRegisters; ++r) {{
              const int mm = tile_row0(tm, {m}) + 64 * w + P::accumulator::row(t, r);   // the kernel's rows (tile_rows.cuh)
              const int nn = tn * {bn} + P::accumulator::col(t, r);
              part[r] = mm < {m} && nn < {n} ? PART[(kt * {m} + mm) * {n} + nn] : 0.f;
            }}
            // as the kernel: a group's products and the next group's loads at its first k-tile, and
            // the k-tile's place in its group, (kt - the unit's first) % kAhead, as a template argument
            if (kt % BlockScales::kAhead == 0) scales.group(p, kt, k_tiles);
            if (kt % BlockScales::kAhead == 0) scales.promote<0>(total, part);
            else if (kt % BlockScales::kAhead == 1) scales.promote<1 % BlockScales::kAhead>(total, part);
            else if (kt % BlockScales::kAhead == 2) scales.promote<2 % BlockScales::kAhead>(total, part);
            else scales.promote<3 % BlockScales::kAhead>(total, part);
          }}
          for (int r = 0; r < P::accumulator::kRegisters; ++r) {{
            const int mm = tile_row0(tm, {m}) + 64 * w + P::accumulator::row(t, r);   // the kernel's rows (tile_rows.cuh)
            const int nn = tn * {bn} + P::accumulator::col(t, r);
            if (mm < {m} && nn < {n}) OUT[mm * {n} + nn] = total[r];
          }}
        }}
  for (int i = 0; i < {m * n}; ++i) printf("%a\\n", OUT[i]);
}}
"""]
    (tmp_path / "blk.cpp").write_text("".join(src))
    subprocess.run([CXX, "-std=c++17", "-O1", "-I", str(tmp_path), str(tmp_path / "blk.cpp"), "-o",
                    str(tmp_path / "blk")], check=True, capture_output=True, text=True)
    out = subprocess.run([str(tmp_path / "blk")], check=True, capture_output=True, text=True).stdout.split()
    got = np.array([float.fromhex(x) for x in out]).reshape(m, n)
    if scale == "none":   # promotion alone: the f32 sum of the k-tiles' partial sums
        sa, sb = np.ones_like(sa), np.ones_like(sb)
    np.testing.assert_array_equal(got, reference_block_scaled(a, b, sa, sb))


def test_gemm_hands_the_epilogue_to_the_launch(monkeypatch):
    """gemm() on stand-in CUDA arrays, the launch captured (no GPU): the configuration it compiles
    and the FswParams fields it passes for block scales (A's column-major) and for a rowwise
    fp8-output epilogue with bias, residual, out_scale and amax."""
    from fastswz import cuda as fc
    from fastswz.cuda import runtime

    if importlib.util.find_spec("cuda") is None or importlib.util.find_spec("cuda.core") is None:
        pytest.skip("the 'cuda' extra (NVRTC) is not installed")
    monkeypatch.setattr(runtime, "pointer_device", lambda ptr: 0)
    seen = []
    monkeypatch.setattr(runtime.GemmKernel, "launch",
                        lambda self, *args, **kw: seen.append((self.config, args, kw)))
    m, n, k = 256, 384, 520
    kb, nb = 5, 3
    a = _Cai((m, k), "|u1", 1 << 30, (528, 1))          # rows padded to 16 bytes (no staging)
    b = _Cai((k, n), "|u1", 2 << 30, (1, 528))           # K-major B (w.T of an N x K weight, pitch 528)
    d = _Cai((m, n), "<u2", 3 << 30)
    sa = _Cai((m, kb), "<f4", 4 << 30, (4, 4 * m))       # column-major, as DeepGEMM's
    sb = _Cai((nb, kb), "<f4", 5 << 30)
    fc.gemm(a, b, out=d, a_dtype="e4m3", b_dtype="e4m3", out_dtype="bf16", scale_a=sa, scale_b=sb)
    cfg, args, kw = seen[-1]
    assert (cfg["scale"], cfg["promote"], cfg["bk"], 128 % cfg["bn"]) == ("block", True, 128, 0)
    assert kw["scale_a"] == 4 << 30 and kw["scale_b"] == 5 << 30
    assert (kw["sa_sm"], kw["sa_sk"], kw["sb_sn"], kw["sb_sk"]) == (1, m, kb, 1)
    assert args[3:6] == (m, n, k)
    # rowwise, fp8 out with bias, residual, out_scale, amax, gelu
    d8 = _Cai((m, n), "|u1", 6 << 30)
    fc.gemm(a, b, out=d8, a_dtype="e4m3", b_dtype="e4m3", out_dtype="e4m3",
            scale_a=_Cai((m, 1), "<f4", 7 << 30), scale_b=_Cai((1, n), "<f4", 8 << 30),
            bias=_Cai((n,), "<f4", 9 << 30), c=_Cai((m, n), "<f2", 10 << 30), alpha=0.5, beta=0.25,
            activation="gelu", out_scale=_Cai((), "<f4", 11 << 30), amax=_Cai((1,), "<f4", 12 << 30))
    cfg, args, kw = seen[-1]
    assert {x: cfg[x] for x in ("scale", "bias", "residual", "activation", "amax", "out_dtype", "promote")} == {
        "scale": "row", "bias": "f32", "residual": "f16", "activation": "gelu", "amax": True,
        "out_dtype": "e4m3", "promote": False}
    assert kw.pop("workspace") is None   # no split-K with a fused epilogue
    assert kw == {"stream": 0, "device": 0, "alpha": 0.5, "beta": 0.25, "bias": 9 << 30, "c": 10 << 30,
                  "ldc": n, "scale_a": 7 << 30, "scale_b": 8 << 30, "sa_sm": 1, "sb_sn": 1,
                  "out_scale": 11 << 30, "amax": 12 << 30}
    # use_fast_accum=False promotes on the 128 x 128 plan
    fc.gemm(a, b, out=d, a_dtype="e4m3", b_dtype="e4m3", out_dtype="bf16", use_fast_accum=False,
            scale_a=_Cai((), "<f4", 7 << 30), scale_b=_Cai((), "<f4", 8 << 30))
    cfg, _, kw = seen[-1]
    assert (cfg["promote"], cfg["scale"], cfg["bn"]) == (True, "tensor", 128)


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("act,fast,bound,out", [("gelu", 1, 2.0 ** -17.5, "bf16"), ("gelu", 1, 2.0 ** -11, "e4m3"),
                                                ("gelu", 1, 2.0 ** -17.5, "e4m3-amax"),
                                                ("gelu", 0, 2.0 ** -22, "f32"), ("gelu_tanh", 1, 2.0 ** -19, "bf16"),
                                                ("silu", 1, 2.0 ** -19, "bf16")])
def test_activation_error_on_the_host(tmp_path, act, fast, bound, out):
    """The kernel's activation (fsw_act in sm90/epilogue_ops.cuh), compiled for the host, on 2^20
    points of [-30, 30] plus both tails: its distance from the float64 definition (x Phi(x) by
    math.erfc; tanh and sigmoid forms), as a share of |x|, under the bound its comment states.
    FSW_FAST_ACT 1 (outputs narrower than f32) is the approximation: the host runs its SFU
    instructions as exp2f and 1 / x, which are at least as exact as ex2.approx and rcp.approx.
    GELU's approximation (a polynomial in the exponent, tools/fit_gelu.py) is also relative: for
    |x| <= 7 within 2^-15.5 of the value itself (2^-10 with fp8 outputs' shorter polynomial), the
    deep negative tail included, and past -7 under Phi(-7) |x|."""
    from importlib import resources

    c_cfg = codegen.normalize_config(bm=128, bn=64, activation=act, out_dtype=out.split("-")[0],
                                     amax=out.endswith("-amax"))
    row = codegen.kernel_row(c_cfg)
    (tmp_path / "fastswz_plan.h").write_text(fastswz.emit_header(row, name="fastswz_plan"))
    fusion = codegen.fusion_header(c_cfg)
    assert f"#define FSW_FAST_ACT {fast}" in fusion
    (tmp_path / "fastswz_fusion.h").write_text(fusion)
    ops = resources.files("fastswz").joinpath("kernels", "sm90", "epilogue_ops.cuh").read_text()
    (tmp_path / "epilogue_ops.cuh").write_text(ops)
    (tmp_path / "tile_rows.cuh").write_text(
        resources.files("fastswz").joinpath("kernels", "sm90", "tile_rows.cuh").read_text())
    x = np.concatenate([np.linspace(-30, 30, 1 << 20), -np.logspace(-9, 1.5, 4096), np.logspace(-9, 1.5, 4096),
                        [0.0]]).astype(np.float32)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    src = [_SHIM, '#include "fastswz_plan.h"\nnamespace P = fastswz_plan;\nnamespace K = fastswz_plan::kernel;\n#include "tile_rows.cuh"\n', codegen._params_c(), "\n",
           '#include "epilogue_ops.cuh"\n', f"""
int main() {{
  FILE* f = fopen("{tmp_path / 'x.bin'}", "rb");
  FILE* o = fopen("{tmp_path / 'y.bin'}", "wb");
  float v;
  while (fread(&v, 4, 1, f) == 1) {{ float y = fsw_act(v); fwrite(&y, 4, 1, o); }}
  fclose(f); fclose(o);
}}
"""]
    (tmp_path / "act.cpp").write_text("".join(src))
    subprocess.run([CXX, "-std=c++17", "-O1", "-ffp-contract=on", "-I", str(tmp_path), str(tmp_path / "act.cpp"), "-o",
                    str(tmp_path / "act")], check=True, capture_output=True, text=True)
    subprocess.run([str(tmp_path / "act")], check=True)
    y = np.frombuffer((tmp_path / "y.bin").read_bytes(), dtype=np.float32).astype(np.float64)
    xd = x.astype(np.float64)
    if act == "gelu":
        want = 0.5 * xd * np.array([math.erfc(-v / math.sqrt(2)) for v in xd])
    elif act == "gelu_tanh":
        want = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)))
    else:
        want = xd / (1 + np.exp(-xd))
    err = np.abs(y - want) / np.maximum(np.abs(xd), 2.0 ** -126)
    assert err.max() <= bound, (float(err.max()), float(x[np.argmax(err)]))
    assert y[-1] == 0.0
    if act == "gelu" and fast:
        near = (np.abs(xd) <= 7) & (want != 0)
        rel = np.abs(y - want)[near] / np.abs(want[near])
        assert rel.max() <= (2.0 ** -10 if out == "e4m3" else 2.0 ** -15.5), (float(rel.max()),
                                                                            float(xd[near][np.argmax(rel)]))
        far = xd < -7
        assert np.all(np.abs(y[far] - want[far]) <= 1.3e-12 * np.abs(xd[far]))


def test_gelu_polynomial_meets_its_bound():
    """The kernel's GELU coefficients (kGeluLog2Phi) against log2 Phi(-a) by math.erfc, evaluated
    in f32 as the kernel does (tools/fit_gelu.py --check), and a fresh fit reaching the same bound."""
    tool = pathlib.Path(__file__).resolve().parents[1] / "tools" / "fit_gelu.py"
    r = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    spec = importlib.util.spec_from_file_location("fit_gelu", tool)
    fit_gelu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fit_gelu)
    for name, (degree, bound) in fit_gelu.FITS.items():
        err, falls, p_end = fit_gelu.errors(fit_gelu.fit(degree))
        assert err <= bound and falls and p_end < -39
        # a wrong coefficient is caught
        bad = fit_gelu.kernel_coefficients(name)
        assert len(bad) == degree + 1
        bad[3] *= 1.01
        assert fit_gelu.errors(bad)[0] > bound
