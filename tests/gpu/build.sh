#!/usr/bin/env bash
# Build libwgmma_conformance.so (sm_90a) from tests/gpu/*.cu. Usage: build.sh [OUTDIR] [NVCC]
# Translation units compile in parallel (2-4 TUs keep a 2-core machine under a few minutes).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/build}"
nvcc="${2:-${NVCC:-nvcc}}"
mkdir -p "$out"
# -gencode (not -arch=sm_90a): the shorthand also runs a plain sm_90 pass that rejects wgmma
# with nvcc 13.0 (device README, HOPPER.md).
flags=(-O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -I"$here")
pids=()
for tu in wgmma_tu_f16 wgmma_tu_bf16 wgmma_tu_other wgmma_conformance; do
  # ptxas reports (C7519) where it inserts warpgroup.arrive around the accumulator registers;
  # that is expected for a run-time k-step loop, so keep it out of the log.
  ( "$nvcc" "${flags[@]}" -c "$here/$tu.cu" -o "$out/$tu.o" 2>&1 | { grep -v C7519 || true; } ; exit "${PIPESTATUS[0]}" ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$nvcc" -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -o "$out/libwgmma_conformance.so" \
  "$out"/wgmma_tu_f16.o "$out"/wgmma_tu_bf16.o "$out"/wgmma_tu_other.o "$out"/wgmma_conformance.o
echo "$out/libwgmma_conformance.so"
