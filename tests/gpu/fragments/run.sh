#!/usr/bin/env bash
# The register-fragment witness as ONE command on the GPU machine (H100, sm_90a):
#   build fastswz in place, build libfragments.so with nvcc, check every mma.sync / ldmatrix /
#   stmatrix / wgmma (D from SS, A from registers) shape against fastswz.tv_layout with its
#   negative controls (check.py), then compare fastswz's linear forms with Triton's
#   to_linear_layout (triton_probe.py; skipped when Triton/Gluon is not importable).
# Usage (from anywhere):  bash tests/gpu/fragments/run.sh
# Logs: $OUT/fragments/{log.txt,fragments.txt,fragments.json,triton_probe.json}
#   ($OUT defaults to tests/gpu/fragments/results).
# Environment: NVCC (default nvcc), FSW_BACKEND=sim (no GPU, no nvcc: the checker against
#   simulate.py, for rehearsing this script), FSW_PREBUILT_LIB=FILE (a libfragments.so built
#   elsewhere, used only if nvcc fails).
# Exit status: 0 every instruction matches, every negative control fails and Triton agrees
#   (or is absent); 1 a mismatch; 3 fastswz or the kernel library could not be built.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${OUT:-$here/results}/fragments"
work="${FSW_WORK:-/tmp/fsw_fragments}"
backend="${FSW_BACKEND:-gpu}"
mkdir -p "$out" "$work"
exec > >(tee "$out/log.txt") 2>&1
export PYTHONUNBUFFERED=1
cd "$repo"
echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC')  repo $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
python3 --version

# 1. fastswz from this checkout, built in place (build dependencies may travel as wheels in .whl/).
if compgen -G "$repo/.whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "$repo"/.whl/*.whl || exit 3
  export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$repo/src${PYTHONPATH:+:$PYTHONPATH}"
if ! python3 -c "import fastswz._kernels" 2>/dev/null; then   # a carried build for this Python is reused
  python3 setup.py -q build_ext --inplace >"$work/build_ext.txt" 2>&1 || { cat "$work/build_ext.txt"; exit 3; }
fi
(cd / && python3 -c "import fastswz; print('fastswz', fastswz.__version__, fastswz.__file__)") || exit 3

# 2. the kernel library
args=(--backend "$backend" --out "$out")
if [ "$backend" = gpu ]; then
  nvcc="${NVCC:-nvcc}"
  command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
  t0=$(date +%s)
  if "$nvcc" -O2 -std=c++17 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a \
       -I"$here" "$here/fragments.cu" -o "$work/libfragments.so"; then
    echo "built libfragments.so in $(( $(date +%s) - t0 )) s with $("$nvcc" --version | tail -1)"
  elif [ -n "${FSW_PREBUILT_LIB:-}" ] && [ -f "$FSW_PREBUILT_LIB" ]; then
    echo "nvcc failed; using $FSW_PREBUILT_LIB"
    cp "$FSW_PREBUILT_LIB" "$work/libfragments.so"
  else
    exit 3
  fi
  args+=(--lib "$work/libfragments.so")
fi

# 3. every instruction, then 4. Triton's linear layouts
python3 "$here/check.py" "${args[@]}"
rc=$?
echo "== check.py exit status $rc"
python3 "$here/triton_probe.py" --out "$out"
trc=$?
echo "== triton_probe.py exit status $trc (77 = skipped)"
if [ "$rc" -eq 0 ] && { [ "$trc" -eq 0 ] || [ "$trc" -eq 77 ]; }; then
  echo "== ALL MATCH"
  exit 0
fi
exit 1
