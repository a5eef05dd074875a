#!/usr/bin/env bash
# The whole TMA round-trip suite as ONE command on the GPU machine (H100, sm_90a): build
# fastswz in place, build libtma_roundtrip.so, run every plan and negative control, write
# tma_results.md, tma_results.jsonl and this log (tma_log.txt) to $OUT (else tests/gpu/tma/results).
# Usage: bash tests/gpu/tma/run.sh [extra tma_roundtrip.py args, e.g. --quick or --source derived]
# FSW_BACKEND=cpu runs the same steps against the CPU model (no GPU, no nvcc needed).
# Exit status: tma_roundtrip.py's (0 pass, 1 failure, 2 setup), 3 when a build failed.
set -uo pipefail
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${OUT:-$repo/tests/gpu/tma/results}"
backend="${FSW_BACKEND:-gpu}"
work="${FSW_WORK:-/tmp/fsw_tma}"
mkdir -p "$out" "$work"
exec > >(tee "$out/tma_log.txt") 2>&1
export PYTHONUNBUFFERED=1
cd "$repo"
echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC')  repo $(cat .commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo '?')"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
fi
command -v nvcc >/dev/null && nvcc --version | tail -2
python3 --version
python3 setup.py -q build_ext --inplace >/dev/null 2>&1 || { echo "fastswz build_ext failed"; exit 3; }
export PYTHONPATH="$repo/src${PYTHONPATH:+:$PYTHONPATH}"
(cd / && python3 -c "import fastswz; print('fastswz', fastswz.__version__, fastswz.__file__, 'plan_gemm:', hasattr(fastswz, 'plan_gemm'))") || exit 3
args=(--backend "$backend" --out "$out")
if [ "$backend" = gpu ]; then
  t0=$(date +%s)
  bash "$repo/tests/gpu/tma/build.sh" "$work/build" || exit 3
  echo "built in $(( $(date +%s) - t0 )) s"
  args+=(--lib "$work/build/libtma_roundtrip.so")
fi
python3 "$repo/tests/gpu/tma/tma_roundtrip.py" "${args[@]}" "$@"
rc=$?
echo "== tma_roundtrip exit status $rc"
exit $rc
