"""Host time per GEMM call: fastswz's paths beside torch's (pytest-benchmark; needs a Hopper GPU).

Each timed function makes ``CALLS`` calls back to back on a 256 x 256 x 256 bf16 problem and then
synchronizes once, so a round's mean is the host time of one call while the GPU keeps up (the
kernel takes a few microseconds; 100 launches stay far under the launch queue's depth). Rows:

=================  ================================================================================
impl               what one call is
=================  ================================================================================
torch_mm_out       ``torch.mm(a, b, out=out)`` (cuBLAS)
torch_matmul       ``torch.matmul(a, b)`` (allocates D)
gemm_out           ``fastswz.cuda.gemm(a, b, out=out)``
gemm               ``fastswz.cuda.gemm(a, b)`` (allocates D)
torch_op           ``torch.ops.fastswz.gemm(a, b)`` (the custom op, through torch's dispatcher)
kernel_launch      ``GemmKernel.launch`` on raw pointers
raw_launch         the C launcher's ``run`` with everything prepared: cuLaunchKernel's own cost
gemm_rowwise_out   ``fastswz.cuda.gemm(a8, b8, scale_a=sa, scale_b=sb, out=out)``: e4m3, rowwise
                   scales (M x 1, 1 x N), 16 x 256 x 256 (a decode-sized fused call on the fused
                   fast path: a swapped one-pass plan)
scaled_mm_rowwise  ``torch._scaled_mm(a8, b8, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)``
gemm_split_out     the same call at 16 x 2048 x 7168 (its plan a swapped split-K, 3 splits, the
                   last CTA of each tile reducing: a workspace from torch's allocator per call)
scaled_mm_split    ``torch._scaled_mm`` on that problem
=================  ================================================================================

Run on the GPU machine: ``python benchmarks/gpu_callpath.py`` (prints the table, writes JSON);
elsewhere every benchmark here skips.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

CALLS = 100
M = N = K = 256


def _ready():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU")
    try:
        from fastswz.cuda import device_info

        device_info(0)
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"no Hopper GPU / cuda extra: {e}")


@pytest.fixture(scope="module")
def problem():
    _ready()
    import fastswz.cuda as fc
    import fastswz.cuda.torch  # noqa: F401 - registers torch.ops.fastswz

    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    b = w.t()
    out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):   # plan, compile, load, prepare every path once
        fc.gemm(a, b, out=out)
        fc.gemm(a, b)
        torch.ops.fastswz.gemm(a, b)
    torch.cuda.synchronize()
    return fc, a, b, out


def _loop(benchmark, one, impl, group=f"gemm call {M}x{N}x{K} bf16"):
    def run():
        for _ in range(CALLS):
            one()
        torch.cuda.synchronize()

    benchmark.group = group
    benchmark.extra_info.update(impl=impl, calls=CALLS)
    benchmark.pedantic(run, rounds=30, warmup_rounds=3)


def test_torch_mm_out(benchmark, problem):
    fc, a, b, out = problem
    _loop(benchmark, lambda: torch.mm(a, b, out=out), "torch_mm_out")


def test_torch_matmul(benchmark, problem):
    fc, a, b, out = problem
    _loop(benchmark, lambda: torch.matmul(a, b), "torch_matmul")


def test_gemm_out(benchmark, problem):
    fc, a, b, out = problem
    _loop(benchmark, lambda: fc.gemm(a, b, out=out), "gemm_out")
    ref = a.double() @ b.double()
    assert float((out.double() - ref).norm() / ref.norm()) < 1e-2


def test_gemm(benchmark, problem):
    fc, a, b, out = problem
    _loop(benchmark, lambda: fc.gemm(a, b), "gemm")


def test_torch_op(benchmark, problem):
    fc, a, b, out = problem
    _loop(benchmark, lambda: torch.ops.fastswz.gemm(a, b), "torch_op")


def test_kernel_launch(benchmark, problem):
    fc, a, b, out = problem
    kern = fc._CALLS[fc._torch_key(a, b, out, None)].kern
    pa, pb, pd = a.data_ptr(), b.data_ptr(), out.data_ptr()
    _loop(benchmark, lambda: kern.launch(pa, pb, pd, M, N, K, K, K, N), "kernel_launch")


def test_raw_launch(benchmark, problem):
    fc, a, b, out = problem
    call = fc._CALLS[fc._torch_key(a, b, out, None)]
    pa, pb, pd = a.data_ptr(), b.data_ptr(), out.data_ptr()
    params = call.pack
    run, g = call.lau.run, call.grid
    _loop(benchmark, lambda: run(0, pa, pb, pd, M, N, K, K, K, N, params, g), "raw_launch")


@pytest.fixture(scope="module")
def rowwise_problem():
    return _rowwise(16, 256, 256)


@pytest.fixture(scope="module")
def rowwise_split_problem():
    return _rowwise(16, 2048, 7168)


def _rowwise(m, n, k):
    _ready()
    import fastswz.cuda as fc

    e4 = torch.float8_e4m3fn
    a8 = torch.randn(m, k, device="cuda").to(e4)
    b8 = torch.randn(n, k, device="cuda").to(e4).t()
    sa = torch.rand(m, 1, device="cuda") + 0.5
    sb = torch.rand(1, n, device="cuda") + 0.5
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        fc.gemm(a8, b8, scale_a=sa, scale_b=sb, out=out)
    torch.cuda.synchronize()
    return fc, a8, b8, sa, sb, out


ROWWISE = "rowwise e4m3 call 16x256x256"
ROWWISE_SPLIT = "rowwise e4m3 call 16x2048x7168 (split-K)"


def _gemm_rowwise(benchmark, problem, impl, group):
    fc, a8, b8, sa, sb, out = problem
    _loop(benchmark, lambda: fc.gemm(a8, b8, scale_a=sa, scale_b=sb, out=out), impl, group)
    ref = (a8.double() @ b8.double()) * (sa.double() * sb.double())
    assert float((out.double() - ref).norm() / ref.norm()) < 2e-2


def _scaled_mm(benchmark, problem, impl, group):
    fc, a8, b8, sa, sb, out = problem
    _loop(benchmark, lambda: torch._scaled_mm(a8, b8, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16),
          impl, group)


def test_gemm_rowwise_out(benchmark, rowwise_problem):
    _gemm_rowwise(benchmark, rowwise_problem, "gemm_rowwise_out", ROWWISE)


def test_scaled_mm_rowwise(benchmark, rowwise_problem):
    _scaled_mm(benchmark, rowwise_problem, "scaled_mm_rowwise", ROWWISE)


def test_gemm_split_out(benchmark, rowwise_split_problem):
    _gemm_rowwise(benchmark, rowwise_split_problem, "gemm_split_out", ROWWISE_SPLIT)


def test_scaled_mm_split(benchmark, rowwise_split_problem):
    _scaled_mm(benchmark, rowwise_split_problem, "scaled_mm_split", ROWWISE_SPLIT)
