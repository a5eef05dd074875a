#!/bin/bash
# The default plans (fastswz.cuda.choose_plan) through `fastswz gemm --check` and fastswz.cuda.gemm on torch
# tensors, on the issue's shapes and ragged ones. Usage (GPU machine): bash tests/gpu/gemm/final_cli.sh > log
set -u
for a in "--m 8192 --n 8192 --k 8192" "--m 4096 --n 14336 --k 4096" "--m 8192 --n 4096 --k 14336" \
         "--m 2048 --n 2048 --k 2048 --a-dtype e4m3" "--m 4096 --n 14336 --k 4096 --a-dtype e4m3" \
         "--m 129 --n 257 --k 65 --a-dtype f16" "--m 129 --n 257 --k 65 --a-dtype e4m3" \
         "--m 64 --n 8192 --k 512" "--m 1000 --n 1000 --k 1000 --a-dtype tf32" \
         "--m 1000 --n 1000 --k 1000 --a-major MN --b-major MN"; do
  echo "== fastswz gemm $a --check --reps 30"
  timeout 120 python3 -m fastswz gemm $a --check --reps 30 --json | python3 -c "
import json,sys; r=json.load(sys.stdin); c=r['config']
print(' plan', c['bm'], c['bn'], c['bk'], c['stages'], 'epilogue' if c['epilogue'] else 'regs',
      '| check', r.get('check'), '| TFLOP/s', round(r['tflops'],1), '| cuBLAS', r.get('cublas_tflops') and round(r['cublas_tflops'],1),
      '| ratio', r.get('ratio') and round(r['ratio'],3))" || echo " FAILED rc=$?"
done
echo "== fastswz.cuda.gemm on torch tensors"
timeout 120 python3 - <<'PY'
import torch, fastswz.cuda as fc
torch.manual_seed(0)
for (m, n, k, dt) in [(4096, 4096, 4096, torch.bfloat16), (1000, 1000, 1000, torch.float16), (129, 257, 65, torch.bfloat16)]:
    a = torch.randn(m, k, device="cuda", dtype=dt); w = torch.randn(n, k, device="cuda", dtype=dt)
    d = fc.gemm(a, w.t())
    ref = a.double() @ w.double().t()
    err = ((d.double() - ref).norm() / ref.norm()).item()
    print(f" {m}x{n}x{k} {dt}: out {tuple(d.shape)} {d.dtype}, relative error {err:.2e}", "ok" if err < 1e-2 else "WRONG")
PY
