#!/bin/bash
# The default plans (fastswz.cuda.choose_plan) through `fastswz gemm --check` and fastswz.cuda.gemm on torch
# tensors, on the issue's shapes and ragged ones. Usage (GPU machine): bash tests/gpu/gemm/final_cli.sh > log
set -u
for a in "--m 8192 --n 8192 --k 8192" "--m 4096 --n 14336 --k 4096" "--m 8192 --n 4096 --k 14336" \
         "--m 2048 --n 2048 --k 2048 --a-dtype e4m3" "--m 4096 --n 14336 --k 4096 --a-dtype e4m3" \
         "--m 129 --n 257 --k 65 --a-dtype f16" "--m 129 --n 257 --k 65 --a-dtype e4m3" \
         "--m 64 --n 8192 --k 512" "--m 1000 --n 1000 --k 1000 --a-dtype tf32" \
         "--m 1000 --n 1000 --k 1000 --a-major MN --b-major MN" \
         "--m 4096 --n 14336 --k 4096 --bm 128 --bn 256 --bk 64 --stages 3 --epilogue --cluster-m 2" \
         "--m 4096 --n 14336 --k 4096 --bm 128 --bn 256 --bk 64 --stages 4 --epilogue --epilogue-n 64 --cluster-m 2" \
         "--m 777 --n 1500 --k 2048 --a-major MN --b-major MN --bm 128 --bn 128 --bk 64 --stages 4 --cluster-m 2"; do
  echo "== fastswz gemm $a --check --reps 30"
  timeout 120 python3 -m fastswz gemm $a --check --reps 30 --json | python3 -c "
import json,sys; r=json.load(sys.stdin); c=r['config']; f=r['fastswz']; cb=r.get('cublas') or {}
print(' plan', c['bm'], c['bn'], c['bk'], c['stages'], ('epilogue/%dx%d' % (c['epilogue_n'], c['epilogue_stages'])) if c['epilogue'] else 'regs', 'cluster', c['cluster_m'],
      '| check', [(x['ok'], x.get('mismatches'), x.get('rel_err'), x['unwritten']) for x in r.get('check', [])],
      '| TFLOP/s %.1f' % f['tflops'], '| cuBLAS', cb and '%.1f' % cb['tflops'],
      '| ratio', cb and '%.3f' % (f['tflops'] / cb['tflops']), '| spread %.3f' % f['spread'])" || echo " FAILED rc=$?"
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
