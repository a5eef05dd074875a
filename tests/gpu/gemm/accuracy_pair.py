#!/usr/bin/env python3
"""fastswz and cuBLAS against the float64 product, for problems where the corpus check (D
against cuBLAS) failed: gemm()'s default plan checked exactly on small integers and on normal
values (runtime.check), then both libraries' D on normal bf16 operands against the float64
product (relative Frobenius and max-element errors).

    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/accuracy_pair.py MxNxK ...
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
import torch  # noqa: E402
from fastswz.cuda import choose_plan, gemm  # noqa: E402
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin  # noqa: E402

CASES = [(6, 336, 32400), (5, 336, 32400), (7, 336, 32400), (14, 336, 32400), (6, 336, 4096),
         (6, 336, 16384), (6, 128, 32400), (3, 336, 32400)]   # the fifteenth session's run 7
cases = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1:]] or CASES
for m, n, k in cases:
    c = choose_plan(m, n, k)
    kern = GemmKernel(c, *compile_cubin(c))
    ri = check(kern, m, n, k, ints=True)
    rf = check(kern, m, n, k, ints=False)
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").bfloat16()
    w = torch.randn(n, k, device="cuda").bfloat16()
    ref = a.double() @ w.double().T
    d = gemm(a, w.T)
    cb = a @ w.T
    rel = lambda x: float((x.double() - ref).norm() / ref.norm())  # noqa: E731
    mx = lambda x: float((x.double() - ref).abs().max() / ref.abs().max())  # noqa: E731
    print(f"{m}x{n}x{k} sk{c['split_k']} bk{c['bk']} swap{c['swap_ab']}: ints mism={ri.get('mismatches')} "
          f"unwr={ri.get('unwritten')} det={ri.get('deterministic')} ok={ri['ok']}; normal "
          f"rel={rf.get('rel_err'):.2e} ok={rf['ok']}; vs f64 fro: fastswz {rel(d):.2e} cublas {rel(cb):.2e}; "
          f"max: fastswz {mx(d):.2e} cublas {mx(cb):.2e}; fastswz-vs-cublas max "
          f"{float((d.double() - cb.double()).abs().max() / cb.double().abs().max()):.2e}", flush=True)
