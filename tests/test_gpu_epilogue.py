"""On a Hopper GPU with torch: the fused epilogue and the fp8 scales against torch (issue 28).

* torch._scaled_mm, per tensor and rowwise, with and without bias, bf16 / f32 / saturated e4m3
  output (scale_result = our out_scale): small-integer operands and power-of-two scales make
  every sum exact, so the outputs must be equal element for element (saturation included);
  normal operands within f32-summation-order bounds.
* The unfused torch sequence for every epilogue (f32 product, alpha, beta C, bias, activation,
  amax, the fp8 cast saturated with clamp as _scaled_mm does): equal on integers for identity
  and relu, within one output ulp plus 2**-20 of the terms for gelu, gelu_tanh and silu.
* NaN and Inf: Inf in the bias and NaN in C reach D as in torch (bf16 Inf stays Inf, fp8
  saturates to +-max, NaN stays NaN, amax is NaN).
* Block scales (DeepSeek-V3 1 x 128 / 128 x 128): against float64, exact on integers, and
  within the bound derived for Hopper's fp8 accumulator on normal operands.
* Argument errors on real tensors, amax accumulation, the fast path untouched.
Configurations and plans: tests/gpu/gemm/epilogue.py (its ``precompile`` builds them here).
Skips without a Hopper GPU or torch.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys

import pytest


pytestmark = pytest.mark.gpu

_spec = importlib.util.spec_from_file_location(
    "fsw_epilogue_cases", os.path.join(os.path.dirname(__file__), "gpu", "gemm", "epilogue.py"))
E = importlib.util.module_from_spec(_spec)
_fz_spec = importlib.util.spec_from_file_location(
    "fsw_fuzz", os.path.join(os.path.dirname(__file__), "gpu", "gemm", "fuzz.py"))
FZ = importlib.util.module_from_spec(_fz_spec)   # random calls (tests/gpu/gemm/fuzz.py)
_saved_path = list(sys.path)   # the scripts put src/ first on sys.path: not for the other tests
try:
    _spec.loader.exec_module(E)
    _fz_spec.loader.exec_module(FZ)
finally:
    sys.path[:] = _saved_path


@pytest.fixture(scope="module")
def torch(hopper_gpu):
    t = pytest.importorskip("torch")
    if not t.cuda.is_available():
        pytest.skip("torch sees no GPU")
    t.backends.cuda.matmul.allow_tf32 = False   # the f32 reference products stay exact
    return t


# dtypes, ulps, torch's activations and the kernel's output cast, as the random calls check them
_td, _ulp, _act, _cast, _same = FZ.td, FZ.ulp, FZ.act, FZ.cast, FZ.mismatches
FP8_MAX = FZ.FP8_MAX


def _ints(torch, shape, gen, lo=-2, hi=2):
    return torch.randint(lo, hi + 1, shape, generator=gen, device="cuda").float()


def _pow2(torch, shape, gen):
    return 2.0 ** torch.randint(-2, 3, shape, generator=gen, device="cuda").float()


# -- torch._scaled_mm ------------------------------------------------------------------------------
@pytest.mark.parametrize("plan,form,out,bias", E.SCALED_CASES,
                         ids=[f"{'tile' if p.get('epilogue') else 'pingpong' if p.get('pingpong') else 'reg'}-{f}-{o}-{b}"
                              for p, f, o, b in E.SCALED_CASES])
def test_scaled_mm_parity(torch, plan, form, out, bias):
    from fastswz.cuda import gemm

    m, n, k = E.SHAPE_SCALED
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    e4 = torch.float8_e4m3fn
    for ints in (True, False):
        if ints:
            a = _ints(torch, (m, k), gen).to(e4)
            b = _ints(torch, (n, k), gen).to(e4).t()
            shape_a, shape_b = ((), ()) if form == "tensor" else ((m, 1), (1, n))
            sa, sb = _pow2(torch, shape_a, gen), _pow2(torch, shape_b, gen)
            bv = _ints(torch, (n,), gen, -8, 8).to(torch.bfloat16) if bias else None
        else:
            a = torch.randn((m, k), generator=gen, device="cuda").to(e4)
            b = torch.randn((n, k), generator=gen, device="cuda").to(e4).t()
            shape_a, shape_b = ((), ()) if form == "tensor" else ((m, 1), (1, n))
            sa = torch.rand(shape_a, generator=gen, device="cuda") + 0.5
            sb = torch.rand(shape_b, generator=gen, device="cuda") + 0.5
            bv = torch.randn((n,), generator=gen, device="cuda").to(torch.bfloat16) if bias else None
        kw, ours = {}, {}
        if out in FP8_MAX:
            osc = torch.tensor(0.5, device="cuda")
            kw["scale_result"], ours["out_scale"] = osc, osc
        try:
            ref = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, bias=bv, out_dtype=_td(torch, out), **kw)
            if kw:
                # Seen on an H100/H200 with torch 2.11 (2026-11-26): _scaled_mm's fp8 output with
                # scale_result=0.5 equals its output without it (half ours, which multiplies by
                # out_scale as cuBLASLt's D scale and Transformer Engine's scale do), so the fp8
                # reference is the same math one op at a time
                y = (a.float() @ b.float()) * (sa * sb)
                ref = _cast(torch, y + bv.float() if bias else y, out, kw["scale_result"])
        except (RuntimeError, TypeError):
            # a form (or keyword) this torch's _scaled_mm refuses (e.g. a bias with an fp8 output): its math
            # one op at a time, in f32 (the same values on integers)
            y = (a.float() @ b.float()) * (sa * sb)
            ref = _cast(torch, y + bv.float() if bias else y, out, kw.get("scale_result"))
        got = gemm(a, b, plan=plan, scale_a=sa, scale_b=sb, bias=bv, out_dtype=out, **ours)
        torch.cuda.synchronize()
        assert got.dtype == ref.dtype and got.shape == ref.shape
        if ints:
            assert _same(torch, got, ref) == 0
            if out in FP8_MAX:   # the case reaches saturation, and both saturate
                assert (ref.float().abs() == FP8_MAX[out]).any()
        else:
            # equal up to summation order and accumulator precision: the kernel accumulates the
            # whole K in the tensor core (as use_fast_accum=True), which keeps about 14 bits (the
            # DeepSeek-V3 report): each of the K/32 wgmma k-steps may round the running sum by
            # 2**-13 of the magnitude sum S at worst; cuBLAS (use_fast_accum=False) promotes to
            # f32. Then both round to the output: one output ulp apart at most, plus that.
            s = (a.float().abs() @ b.float().abs()) * (sa * sb)
            bound = (k // 32) * 2.0 ** -13 * s.double() * (0.5 if out in FP8_MAX else 1.0)
            tol = _ulp(torch, ref.float(), out) + bound
            diff = (got.double() - ref.double()).abs()
            assert int((diff > tol).sum()) == 0, float((diff - tol).max())
            rel = float(torch.linalg.norm(got.double() - ref.double()) / torch.linalg.norm(ref.double()))
            assert rel < (0.15 if out in FP8_MAX else 1e-2), rel   # typical: the output's rounding


SCHEDULED_PLANS = [   # scales alone run in every schedule (codegen.scheduled_fusion)
    dict(bm=128, bn=16, bk=128, stages=4, swap_ab=True, split_k=4, split_reduce="last_cta"),
    dict(bm=128, bn=16, bk=128, stages=4, swap_ab=True, split_k=3, split_reduce="kernel"),
    dict(bm=128, bn=32, bk=128, stages=4, swap_ab=True),
    dict(bm=64, bn=128, bk=128, stages=4, split_k=3, split_reduce="kernel"),
    dict(bm=128, bn=128, bk=128, stages=4, split_k=4, split_reduce="last_cta"),
    None,   # gemm()'s default plan (swap-AB and split-K at these shapes)
]


@pytest.mark.parametrize("form", ["tensor", "row"])
@pytest.mark.parametrize("plan", SCHEDULED_PLANS, ids=lambda p: "default" if p is None else
                         f"{p['bm']}x{p['bn']}{'-swap' if p.get('swap_ab') else ''}"
                         f"-split{p.get('split_k', 1)}{'-' + p['split_reduce'] if 'split_reduce' in p else ''}")
@pytest.mark.parametrize("shape", [(5, 1000, 4096), (64, 2112, 5120), (1, 3584, 18944)])
def test_scales_in_the_swapped_and_split_schedules(torch, plan, form, shape):
    """Per-tensor and rowwise scales with swap-AB and split-K (both reductions): on integers and
    power-of-two scales equal to the f32 product scaled, rounded to bf16; on random values
    within the accumulation bound of torch._scaled_mm rowwise (or that f32 math where it refuses
    the shape). With swap-AB the launch hands the kernel the scale vectors swapped."""
    from fastswz.cuda import gemm

    m, n, k = shape
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    e4 = torch.float8_e4m3fn
    cfg = None if plan is None else dict(plan, a_dtype="e4m3", b_dtype="e4m3", scale=form)
    shape_a, shape_b = ((), ()) if form == "tensor" else ((m, 1), (1, n))
    for ints in (True, False):
        if ints:
            a, b = _ints(torch, (m, k), gen).to(e4), _ints(torch, (n, k), gen).to(e4).t()
            sa, sb = _pow2(torch, shape_a, gen), _pow2(torch, shape_b, gen)
        else:
            a = torch.randn((m, k), generator=gen, device="cuda").to(e4)
            b = torch.randn((n, k), generator=gen, device="cuda").to(e4).t()
            sa = torch.rand(shape_a, generator=gen, device="cuda") + 0.5
            sb = torch.rand(shape_b, generator=gen, device="cuda") + 0.5
        got = gemm(a, b, plan=cfg, scale_a=sa, scale_b=sb)
        y = (a.float() @ b.float()) * (sa * sb)
        torch.cuda.synchronize()
        if ints:
            assert _same(torch, got, y.to(torch.bfloat16)) == 0
            continue
        s = (a.float().abs() @ b.float().abs()) * (sa * sb)
        tol = _ulp(torch, y, "bf16") + (k // 32) * 2.0 ** -13 * s.double()
        assert int(((got.double() - y.double()).abs() > tol).sum()) == 0
    if plan is None and m > 1:
        from fastswz.cuda import default_config
        c = default_config(m, n, k, "e4m3", "e4m3", fusion={"scale": form})
        assert c["swap_ab"] or c["split_k"] > 1   # the default takes a schedule here


@pytest.mark.parametrize("shape", [(16, 256, 256), (64, 2112, 5120), (512, 1024, 2048), (16, 2048, 7168),
                                   (64, 1024, 16384)])   # rowwise: swapped one pass, split (last CTA), split (kernel)
def test_fused_fast_path_reads_each_calls_arguments(torch, shape):
    """A fused call like an earlier one takes the prepared fast path (fastswz.cuda._FusedCall):
    every argument's pointer is read again (new scales, bias and out give their own product, the
    same as the general path's), and a call whose arguments break a rule falls back to the
    general path, which refuses it by name."""
    import fastswz.cuda as fc

    m, n, k = shape
    gen = torch.Generator(device="cuda")
    gen.manual_seed(8)
    e4 = torch.float8_e4m3fn
    a = _ints(torch, (m, k), gen).to(e4)
    b = _ints(torch, (n, k), gen).to(e4).t()

    def operands():
        return (_pow2(torch, (m, 1), gen), _pow2(torch, (1, n), gen), _ints(torch, (n,), gen, -8, 8).to(torch.bfloat16))

    for fused in ("scales", "bias"):
        outs = []
        for i in range(3):
            sa, sb, bv = operands()
            kw = dict(scale_a=sa, scale_b=sb) if fused == "scales" else dict(bias=bv, activation="relu")
            out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
            got = fc.gemm(a, b, out=out, **kw)
            y = a.float() @ b.float()
            y = y * (sa * sb) if fused == "scales" else torch.relu(y + bv.float())
            torch.cuda.synchronize()
            assert got is out and _same(torch, got, y.to(torch.bfloat16)) == 0, (fused, i)
            outs.append(got)
        extras = dict(bias=None, c=None, alpha=None, beta=None, activation=None, scale_a=None, scale_b=None,
                      out_scale=None, amax=None, use_fast_accum=None)
        extras.update(kw)
        assert isinstance(fc._CALLS.get(fc._fused_key(a, b, outs[-1], None, extras)), fc._FusedCall)
    # a new D allocated by the fast path; then amax inside out: the general path's error
    sa, sb, _ = operands()
    d1 = fc.gemm(a, b, scale_a=sa, scale_b=sb)
    d2 = fc.gemm(a, b, scale_a=sa, scale_b=sb)
    torch.cuda.synchronize()
    assert d1.data_ptr() != d2.data_ptr() and _same(torch, d1, d2) == 0
    out = torch.zeros((m, n), device="cuda", dtype=torch.float32)
    am = torch.zeros((), device="cuda")
    fc.gemm(a, b, out=out, scale_a=sa, scale_b=sb, amax=am)
    with pytest.raises(fc.GemmArgumentError, match="amax lies inside out"):
        fc.gemm(a, b, out=out, scale_a=sa, scale_b=sb, amax=out[0, 0])


@pytest.mark.parametrize("form", ["tensor", "row"])
def test_scaled_mm_parity_promoted(torch, form):
    """use_fast_accum=False on both sides: fastswz adds each k-tile's partial sums to f32."""
    from fastswz.cuda import gemm

    m, n, k = E.SHAPE_SCALED
    gen = torch.Generator(device="cuda")
    gen.manual_seed(6)
    e4 = torch.float8_e4m3fn
    a = torch.randn((m, k), generator=gen, device="cuda").to(e4)
    b = torch.randn((n, k), generator=gen, device="cuda").to(e4).t()
    shape_a, shape_b = ((), ()) if form == "tensor" else ((m, 1), (1, n))
    sa = torch.rand(shape_a, generator=gen, device="cuda") + 0.5
    sb = torch.rand(shape_b, generator=gen, device="cuda") + 0.5
    try:
        ref = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=False)
    except (RuntimeError, TypeError):   # this torch refuses the form: the float64 product, rounded
        ref = ((a.double() @ b.double()) * (sa * sb).double()).to(torch.bfloat16)
    got = gemm(a, b, plan=E.PLAN_PROMOTE, scale_a=sa, scale_b=sb, use_fast_accum=False)
    d = gemm(a, b, scale_a=sa, scale_b=sb, use_fast_accum=False)   # the default promoted plan
    torch.cuda.synchronize()
    # each k-tile of 128: 4 wgmma k-steps rounding at 2**-13 of that tile's magnitude sum, for
    # both sides at most; the f32 promotions 2**-24 each; one bf16 ulp apart after the cast
    s = (a.float().abs() @ b.float().abs()) * (sa * sb)
    tol = _ulp(torch, ref.float(), "bf16") + 2 * 4 * 2.0 ** -13 * s.double()
    for x in (got, d):
        assert int(((x.double() - ref.double()).abs() > tol).sum()) == 0
        assert float(torch.linalg.norm(x.double() - ref.double()) / torch.linalg.norm(ref.double())) < 1e-2


# -- the unfused torch sequence ----------------------------------------------------------------------
@pytest.mark.parametrize("act,bias,res,out,plan,amax", E.EPILOGUE_CASES,
                         ids=[f"{a}-{b}-{r}-{o}-{'tile' if p.get('epilogue') else 'reg'}-{'amax' if x else ''}"
                              for a, b, r, o, p, x in E.EPILOGUE_CASES])
def test_epilogue_against_the_torch_sequence(torch, act, bias, res, out, plan, amax):
    from fastswz.cuda import gemm

    m, n, k = E.SHAPE_EPILOGUE
    gen = torch.Generator(device="cuda")
    gen.manual_seed(2)
    a = _ints(torch, (m, k), gen).to(torch.bfloat16)
    b = _ints(torch, (n, k), gen).to(torch.bfloat16).t()
    alpha, beta = 0.5, 2.0
    bv = _ints(torch, (n,), gen, -8, 8).to(_td(torch, bias)) if bias else None
    c = _ints(torch, (m, n), gen, -4, 4).to(_td(torch, res)) if res else None
    osc = torch.tensor(0.25, device="cuda") if out in FP8_MAX else None
    am = torch.zeros((), device="cuda") if amax else None
    got = gemm(a, b, plan=plan, out_dtype=out, alpha=alpha, activation=act, bias=bv, c=c,
               beta=beta if res else None, out_scale=osc, amax=am)
    # torch, one op at a time, in f32
    y = a.float() @ b.float()
    y0 = y * alpha
    y = y0 + beta * c.float() if res else y0
    y = y + bv.float() if bias else y
    y = _act(torch, y, act)
    want = _cast(torch, y, out, osc)
    torch.cuda.synchronize()
    assert got.dtype == want.dtype
    if act in ("identity", "relu"):
        assert _same(torch, got, want) == 0
        if amax:
            assert float(am) == float(y.abs().max())
    else:
        # f32 outputs: the kernel's erff/tanhf/expf and torch's differ by a few f32 ulps, 2**-20
        # of the terms before the cast; narrower outputs: the kernel's approximations (at most
        # 2**-15.5 of GELU's value, 2**-19 of x for the sigmoid forms) are far below their ulp;
        # then one output ulp where a rounding boundary falls between
        terms = y0.abs() + (beta * c.float()).abs() if res else y0.abs()
        terms = terms + bv.float().abs() if bias else terms
        scale = float(osc) if osc is not None else 1.0
        tol = _ulp(torch, want.float(), out) + 2.0 ** -20 * terms.double() * scale
        assert int(((got.double() - want.double()).abs() > tol).sum()) == 0
        if amax:
            assert abs(float(am) - float(y.abs().max())) <= 2.0 ** -20 * float(terms.max())


@pytest.mark.parametrize("out", ["bf16", "e4m3"])
@pytest.mark.parametrize("fp8_in", [False, True])
def test_nan_and_inf_as_torch(torch, out, fp8_in):
    from fastswz.cuda import gemm

    m, n, k = E.SHAPE_EPILOGUE
    gen = torch.Generator(device="cuda")
    gen.manual_seed(3)
    dt = torch.float8_e4m3fn if fp8_in else torch.bfloat16
    a = _ints(torch, (m, k), gen).to(dt)
    b = _ints(torch, (n, k), gen).to(dt).t()
    bv = _ints(torch, (n,), gen, -8, 8)
    bv[3], bv[5] = math.inf, -math.inf
    bv = bv.to(torch.bfloat16)
    c = _ints(torch, (m, n), gen, -4, 4)
    c[2, 7], c[9, 11] = math.nan, math.inf
    c = c.to(torch.bfloat16)
    am = torch.zeros((), device="cuda")
    kw = dict(scale_a=torch.tensor(1.0, device="cuda"), scale_b=torch.tensor(2.0, device="cuda")) if fp8_in else {}
    plan = E.PLAN_FP8 if fp8_in else E.PLAN_BF16
    if out != "bf16" or fp8_in:
        plan = dict(plan, out_dtype=out)
    got = gemm(a, b, plan=plan, out_dtype=out, activation="relu", bias=bv, c=c,
               out_scale=torch.tensor(1.0, device="cuda") if out in FP8_MAX else None, amax=am, **kw)
    y = a.float() @ b.float() * (2.0 if fp8_in else 1.0) + c.float() + bv.float()
    y = torch.relu(y)
    want = _cast(torch, y, out)
    torch.cuda.synchronize()
    assert _same(torch, got, want) == 0
    assert torch.isnan(got.float()[2, 7]) and math.isnan(float(am))
    if out == "bf16":
        assert torch.isinf(got.float()[:, 3]).all()
    else:
        assert (got.float()[:, 3] == FP8_MAX[out]).all()   # saturated, as _scaled_mm (not .to())


# -- block scales ----------------------------------------------------------------------------------
@pytest.mark.parametrize("plan", [E.PLAN_BLOCK, E.PLAN_BLOCK_REG, E.PLAN_BLOCK_GLOBAL, E.PLAN_BLOCK_160,
                                  E.PLAN_BLOCK_160_GLOBAL, E.PLAN_BLOCK_192],
                         ids=["tile", "reg", "global", "bn160", "bn160-global", "bn192"])
def test_block_scaled_against_float64(torch, plan):
    from fastswz.cuda import gemm

    m, n, k = E.SHAPE_BLOCK
    kb, nb = -(-k // 128), -(-n // 128)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(4)
    e4 = torch.float8_e4m3fn
    for ints in (True, False):
        if ints:
            a, b = _ints(torch, (m, k), gen).to(e4), _ints(torch, (n, k), gen).to(e4)
            sa, sb = _pow2(torch, (kb, m), gen).t(), _pow2(torch, (nb, kb), gen)   # A's scales M-major (DeepGEMM)
        else:
            a = torch.randn((m, k), generator=gen, device="cuda").to(e4)
            b = torch.randn((n, k), generator=gen, device="cuda").to(e4)
            sa = (torch.rand((kb, m), generator=gen, device="cuda") + 0.5).t()
            sb = torch.rand((nb, kb), generator=gen, device="cuda") + 0.5
        got = gemm(a, b.t(), plan=plan, scale_a=sa, scale_b=sb, out_dtype="bf16")
        ref = torch.zeros((m, n), dtype=torch.float64, device="cuda")
        mag = torch.zeros_like(ref)
        cols = torch.arange(n, device="cuda") // 128
        for j in range(kb):
            blk = slice(128 * j, 128 * (j + 1))
            s = sa[:, j:j + 1].double() * sb[cols, j].double()[None, :]
            ref += (a[:, blk].double() @ b[:, blk].double().t()) * s
            mag += (a[:, blk].double().abs() @ b[:, blk].double().abs().t()) * s
        torch.cuda.synchronize()
        if ints:
            assert _same(torch, got, ref.to(torch.bfloat16)) == 0
        else:
            # each k-tile's partial sum: 128 products summed by the tensor core, which keeps about
            # 14 bits (DeepSeek-V3 report): at most 127 * 2**-14 < 2**-7 of its magnitude sum; the
            # f32 promotion adds 2**-24 per k-tile; the bf16 store one ulp at most
            tol = _ulp(torch, ref, "bf16") + 2.0 ** -7 * mag
            assert int(((got.double() - ref).abs() > tol).sum()) == 0
            # and far tighter in practice: the relative error of the whole product
            err = float(torch.linalg.norm(got.double() - ref) / torch.linalg.norm(ref))
            assert err < 5e-3, err


@pytest.mark.parametrize("shape,bn", [((1024, 2112, 1200), 160), ((3072, 2112, 2304), 192)])
def test_block_scaled_default_wide_tiles(torch, shape, bn):
    """gemm() without a plan on shapes where BLOCK_SCALE_WIDTHS' wave model takes BN 160 or 192
    (tiles across two of B's scale blocks, K's last block partial at 1200): exact on small
    integers against the float64 block-scaled sum, both calls the same bits."""
    from fastswz.cuda import default_config, gemm

    m, n, k = shape
    assert default_config(m, n, k, "e4m3", "e4m3", fusion={"scale": "block"})["bn"] == bn
    kb, nb = -(-k // 128), -(-n // 128)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(5)
    e4 = torch.float8_e4m3fn
    a, b = _ints(torch, (m, k), gen).to(e4), _ints(torch, (n, k), gen).to(e4)
    sa, sb = _pow2(torch, (kb, m), gen).t(), _pow2(torch, (nb, kb), gen)
    got = gemm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype="bf16")
    again = gemm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype="bf16")
    ref = torch.zeros((m, n), dtype=torch.float64, device="cuda")
    cols = torch.arange(n, device="cuda") // 128
    for j in range(kb):
        blk = slice(128 * j, 128 * (j + 1))
        ref += (a[:, blk].double() @ b[:, blk].double().t()) * (sa[:, j:j + 1].double() * sb[cols, j].double()[None, :])
    torch.cuda.synchronize()
    assert _same(torch, got, ref.to(torch.bfloat16)) == 0
    assert torch.equal(got.view(torch.int16), again.view(torch.int16))


# -- the runtime check grid (a sample; tests/gpu/gemm/epilogue.py correct runs it all) -------------
@pytest.mark.parametrize("i", [0, 4, 8, 9, 12, 14])
def test_runtime_check(torch, i):
    from fastswz.cuda import compile_gemm
    from fastswz.cuda.runtime import check

    kern = compile_gemm(E.CHECK_GRID[i])
    for ints in (True, False):
        r = check(kern, 777, 300, 520, ints=ints)
        assert r["ok"] and r["unwritten"] == 0, r


# -- the call path ---------------------------------------------------------------------------------
def test_defaults_amax_accumulates_and_the_fast_path_stays(torch):
    from fastswz.cuda import gemm

    m, n, k = E.SHAPE_DEFAULT
    gen = torch.Generator(device="cuda")
    gen.manual_seed(5)
    a = _ints(torch, (m, k), gen).to(torch.bfloat16)
    b = _ints(torch, (n, k), gen).to(torch.bfloat16).t()
    bv = _ints(torch, (n,), gen, -8, 8).to(torch.bfloat16)
    c = _ints(torch, (m, n), gen, -4, 4).to(torch.bfloat16)
    half = gemm(a, b, alpha=0.5)                         # alpha alone: D = alpha * acc
    plain = gemm(a, b)                                   # plan=None: the fast path's key
    fused = gemm(a, b, bias=bv, c=c, activation="gelu")
    again = gemm(a, b)                                   # served by the fast path: still plain
    y = a.float() @ b.float()
    torch.cuda.synchronize()
    assert _same(torch, plain, y.to(torch.bfloat16)) == 0 and _same(torch, again, plain) == 0
    assert _same(torch, half, (0.5 * y).to(torch.bfloat16)) == 0
    want = torch.nn.functional.gelu(y + c.float() + bv.float()).to(torch.bfloat16)
    assert float((fused.float() - want.float()).abs().max()) <= float(want.float().abs().max()) * 2 ** -7
    # in place: out=c
    c2 = c.clone()
    gemm(a, b, out=c2, c=c2, beta=-1.0)
    torch.cuda.synchronize()
    assert _same(torch, c2, (y - c.float()).to(torch.bfloat16)) == 0
    # amax takes the max with what it holds
    a8 = _ints(torch, (m, k), gen).to(torch.float8_e4m3fn)
    b8 = _ints(torch, (n, k), gen).to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device="cuda")
    am = torch.full((), 1e6, device="cuda")
    d8 = gemm(a8, b8, scale_a=one, scale_b=one, out_dtype="e4m3", activation="silu", bias=bv, amax=am)
    torch.cuda.synchronize()
    assert float(am) == 1e6 and d8.dtype == torch.float8_e4m3fn
    am.zero_()
    gemm(a8, b8, scale_a=one, scale_b=one, out_dtype="e4m3", activation="silu", bias=bv, amax=am)
    ref = torch.nn.functional.silu(a8.float() @ b8.float() + bv.float()).abs().max()
    torch.cuda.synchronize()
    assert abs(float(am) - float(ref)) <= 2 ** -18 * float(ref)
    # block scales with plan=None
    kb, nb = -(-k // 128), -(-n // 128)
    sa, sb = torch.ones((m, kb), device="cuda"), torch.ones((nb, kb), device="cuda")
    d = gemm(a8, b8, scale_a=sa, scale_b=sb)
    torch.cuda.synchronize()
    assert _same(torch, d, (a8.float() @ b8.float()).to(torch.bfloat16)) == 0


def test_argument_errors_on_tensors(torch):
    from fastswz.cuda import GemmArgumentError, gemm

    m, n, k = 128, 256, 256
    a = torch.zeros((m, k), device="cuda").to(torch.float8_e4m3fn)
    b = torch.zeros((n, k), device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device="cuda")
    cases = [
        (dict(scale_a=torch.tensor(1.0), scale_b=one), "scale_a is a CPU tensor"),
        (dict(scale_a=one.to(torch.bfloat16), scale_b=one), "scale_a holds bf16: scales are f32"),
        (dict(scale_a=one), "scale_a and scale_b come together"),
        (dict(scale_a=torch.ones((m, 2), device="cuda")[:, :1], scale_b=torch.ones((1, n), device="cuda")),
         "rowwise scales must be contiguous"),
        (dict(scale_a=torch.ones((m, 3), device="cuda"), scale_b=torch.ones((3, 2), device="cuda")),
         "none of the scale forms"),
        (dict(scale_a=one, scale_b=one, bias=torch.zeros(n + 1, device="cuda")), "bias has shape"),
        (dict(scale_a=one, scale_b=one, c=torch.zeros((m, n), device="cuda").t()), "c has shape"),
        (dict(scale_a=one, scale_b=one, out_scale=one), "out_scale scales an fp8 output"),
        (dict(scale_a=one, scale_b=one, activation="tanh"), "activation='tanh'"),
        (dict(scale_a=one, scale_b=one, amax=torch.zeros(2, device="cuda")), "amax is f32 of shape"),
    ]
    for kw, msg in cases:
        with pytest.raises(GemmArgumentError, match=msg):
            gemm(a, b, **kw)


# -- random calls ----------------------------------------------------------------------------------
def test_random_calls_against_float64(torch):
    """40 random gemm() calls (tests/gpu/gemm/fuzz.py: shapes, types, majors, scale forms and
    epilogues drawn from a seed, the plan gemm's own) exact against float64 on integers;
    FASTSWZ_FUZZ_SEED picks another seed."""
    seed = int(os.environ.get("FASTSWZ_FUZZ_SEED", "1"))
    assert FZ.run(FZ.cases(seed, 40), seed) == 0
