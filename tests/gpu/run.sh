#!/usr/bin/env bash
# The whole wgmma conformance suite as ONE command on the GPU machine (H100, sm_90a):
#   install fastswz from this repo, build libwgmma_conformance.so, run every case, write the
#   results table (results.md), every launch (results.jsonl) and this log to $OUT if set,
#   else to tests/gpu/results/.
# Usage (from anywhere):  bash tests/gpu/run.sh [extra conformance.py args, e.g. --quick]
# Environment: FSW_SRC=DIR installs fastswz from DIR instead of this checkout (e.g. a
# `git archive` snapshot of one commit, carried to the GPU machine so that edits in progress in
# the checkout cannot change what is measured); FSW_PREBUILT=DIR, a fastswz package built elsewhere,
# used only if building here fails; FSW_BACKEND=cpu runs the harness against the CPU emulator instead (no GPU, no
# nvcc needed): the same steps, for rehearsing this script on a machine without a GPU.
# Exit status: conformance.py's (0 pass, 1 a case or negative control failed, 2 setup error),
# or 3 when fastswz or the library could not be built.
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$repo/tests/gpu/results}"
backend="${FSW_BACKEND:-gpu}"
work="${FSW_WORK:-/tmp/fsw_conformance}"
mkdir -p "$out" "$work"
exec > >(tee "$out/log.txt") 2>&1
export PYTHONUNBUFFERED=1
cd "$repo"
echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC')  repo $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi | head -12
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
fi
command -v nvcc >/dev/null && nvcc --version | tail -2
python3 --version

# 1. Build dependencies of fastswz (Cython, setuptools) travel as wheels in .whl/ (the GPU
#    machine has no registry access); install them beside, not into, the image's environment.
if compgen -G "$repo/.whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "$repo"/.whl/*.whl || exit 3
  export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
fi

# 2. fastswz from this checkout, or FSW_SRC (non-editable, into its own folder).
src="${FSW_SRC:-$repo}"
echo "fastswz source: $src $(cat "$src/.commit" 2>/dev/null || true)"
rm -rf "$work/pkg"
if ! python3 -m pip install -q --no-build-isolation --no-deps --no-index --no-cache-dir \
      --target "$work/pkg" "$src"; then
  echo "pip install failed; falling back to an in-place build_ext"
  if (cd "$src" && python3 setup.py -q build_ext --inplace); then
    export PYTHONPATH="$src/src:$PYTHONPATH"
  elif [ -n "${FSW_PREBUILT:-}" ] && [ -d "$FSW_PREBUILT/fastswz" ]; then
    # Last resort: a fastswz package built elsewhere for this Python (same minor version),
    # carried along for the case that this machine cannot compile the Cython core.
    echo "build_ext failed too; using the prebuilt package in $FSW_PREBUILT"
    export PYTHONPATH="$FSW_PREBUILT:$PYTHONPATH"
  else
    exit 3
  fi
else
  export PYTHONPATH="$work/pkg:$PYTHONPATH"
fi
(cd / && python3 -c "import fastswz, sys; print('fastswz', fastswz.__version__, fastswz.__file__)") || exit 3

# 3. The kernel library (sm_90a), then 4. every case.
args=(--backend "$backend" --out "$out")
if [ "$backend" = gpu ]; then
  t0=$(date +%s)
  "$repo/tests/gpu/build.sh" "$work/build" || exit 3
  echo "built in $(( $(date +%s) - t0 )) s"
  args+=(--lib "$work/build/libwgmma_conformance.so")
fi
python3 "$repo/tests/gpu/conformance.py" "${args[@]}" "$@"
rc=$?
echo "== conformance exit status $rc"
exit $rc
