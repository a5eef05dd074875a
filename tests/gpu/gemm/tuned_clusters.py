"""A tuned table feeding gemm (GPU machine): after `fastswz tune ... --measure --save TABLE` on the
three e4m3 problems below (rows off the 32-byte sector, where the measured search draws 2 x 2
clusters), time `gemm` per call (50 calls back to back, CUDA events) with the default plan, with
TABLE active, and torch._scaled_mm; check the tuned D against _scaled_mm's.

    python3 tests/gpu/gemm/tuned_clusters.py TABLE
"""
import sys

import torch

import fastswz.cuda as fc
tab = sys.argv[1]
for (m, n, k) in [(755, 2208, 22576), (1677, 864, 22128), (1247, 4192, 25200)]:
    a = (torch.randn(m, k, device="cuda") / 4).to(torch.float8_e4m3fn)
    b = (torch.randn(n, k, device="cuda") / 4).to(torch.float8_e4m3fn).t()
    fc.choose_plan.cache_clear()
    d0 = fc.gemm(a, b); p0 = fc.choose_plan(m, n, k, "e4m3", "e4m3")
    fc.use_tuned(tab)
    p1 = fc.choose_plan(m, n, k, "e4m3", "e4m3")
    d1 = fc.gemm(a, b)
    ref = torch._scaled_mm(a, b, scale_a=torch.tensor(1.0, device="cuda"), scale_b=torch.tensor(1.0, device="cuda"), out_dtype=torch.bfloat16)
    err = ((d1.float() - ref.float()).norm() / ref.float().norm()).item()
    def t(fn):
        for _ in range(3): fn()
        s, e = torch.cuda.Event(True), torch.cuda.Event(True); torch.cuda.synchronize(); s.record()
        for _ in range(50): fn()
        e.record(); torch.cuda.synchronize(); return s.elapsed_time(e) / 50 * 1e3
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    tt = t(lambda: fc.gemm(a, b, out=out))
    fc.use_tuned(None); fc.choose_plan.cache_clear()
    t0 = t(lambda: fc.gemm(a, b, out=out))
    tc = t(lambda: torch._scaled_mm(a, b, scale_a=torch.tensor(1.0, device="cuda"), scale_b=torch.tensor(1.0, device="cuda"), out_dtype=torch.bfloat16))
    print(f"{m}x{n}x{k}: default {p0['bm']}x{p0['bn']}x{p0['bk']} c{p0['cluster_m']}{p0['cluster_n']} sk{p0['split_k']} {t0:.1f} us/call; "
          f"tuned {p1['bm']}x{p1['bn']}x{p1['bk']} c{p1['cluster_m']}{p1['cluster_n']} {tt:.1f} us/call; _scaled_mm {tc:.1f}; "
          f"rel err vs _scaled_mm {err:.1e}; default==tuned bits {torch.equal(d0, d1)}")
