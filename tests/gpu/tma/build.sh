#!/usr/bin/env bash
# Build libtma_roundtrip.so (sm_90a) from tests/gpu/tma/*.cu. Usage: build.sh [OUTDIR] [NVCC]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/build}"
nvcc="${2:-${NVCC:-nvcc}}"
mkdir -p "$out"
# -gencode, not -arch=sm_90a: see tests/gpu/build.sh (nvcc 13 also runs a plain sm_90 pass).
flags=(-O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC -I"$here")
pids=()
for tu in tma_tu_f16 tma_tu_bf16 tma_tu_other tma_roundtrip; do
  ( "$nvcc" "${flags[@]}" -c "$here/$tu.cu" -o "$out/$tu.o" 2>&1 | { grep -v C7519 || true; } ; exit "${PIPESTATUS[0]}" ) &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc = 0 ] || exit 1
"$nvcc" -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -o "$out/libtma_roundtrip.so" \
  "$out"/tma_tu_f16.o "$out"/tma_tu_bf16.o "$out"/tma_tu_other.o "$out"/tma_roundtrip.o
echo "$out/libtma_roundtrip.so"
