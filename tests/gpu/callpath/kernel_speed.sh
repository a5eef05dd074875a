#!/bin/bash
# The kernel's own speed before and after a change, on one GPU in one run: `fastswz gemm` of the
# default plans (kernel time: CUDA events, L2 flushed, median of --reps) beside cuBLAS, for this
# tree and an older one (e.g. `git archive OLD src setup.py pyproject.toml README.md | tar -x -C .old`),
# alternating old/new twice per shape. Usage (GPU machine): bash tests/gpu/callpath/kernel_speed.sh .old
set -u
old=${1:?usage: kernel_speed.sh OLD_TREE}
(cd "$old" && PYTHONPATH=/tmp/bt python3 setup.py -q build_ext --inplace >/tmp/build-old.log 2>&1) || { tail /tmp/build-old.log; exit 1; }
for a in "--m 8192 --n 8192 --k 8192" "--m 4096 --n 14336 --k 4096" "--m 2048 --n 2048 --k 2048" \
         "--m 4096 --n 4096 --k 4096 --a-dtype e4m3" "--m 8192 --n 4096 --k 14336 --a-dtype e4m3"; do
  for round in 1 2; do
    for tree in "$old" "$PWD"; do
      PYTHONPATH=$tree/src python3 -m fastswz gemm $a --reps 30 --json 2>/dev/null | python3 -c "
import json,sys; r=json.load(sys.stdin); f=r['fastswz']; cb=r.get('cublas') or {}
print('%-40s %-4s kernel %.4f ms %.1f TF/s, cuBLAS %.1f TF/s, ratio %.3f' % ('$a', 'old' if '$tree' == '$old' else 'new', f['median_ms'], f['tflops'], cb.get('tflops', 0), f['tflops'] / cb['tflops'] if cb else 0))"
    done
  done
done
