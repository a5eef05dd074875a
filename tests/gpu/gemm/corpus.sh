#!/usr/bin/env bash
# The GEMM shape corpus on the GPU machine in one command (issue 27; BENCHMARKS.md, "The GEMM
# shape corpus on the GPU"): build the extension, then benchmarks/gpu_corpus.py run over the
# selection given as arguments (default: the whole corpus), reading the cubins that
# `gpu_corpus.py precompile` left in .fswcache (carry it; set FASTSWZ_CACHE to use another).
# Writes $OUT/corpus.json and $OUT/corpus.txt (default .benchmarks/corpus/). The run starts no
# problem after FSW_DEADLINE seconds (default 400) from this script's start, build included.
# Build dependencies the machine lacks travel as wheels in .whl/ (as tests/gpu/run_all.sh).
# Usage: bash tests/gpu/gemm/corpus.sh [--bucket decode] [--shard 0/2] [...]
set -uo pipefail
t0=$(date +%s)
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${OUT:-$repo/.benchmarks/corpus}"
work="${FSW_WORK:-/tmp/fsw_corpus}"
mkdir -p "$out" "$work"
cd "$repo"
if compgen -G "$repo/.whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "$repo"/.whl/*.whl || exit 1
  export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
fi
python3 setup.py -q build_ext --inplace >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
export PYTHONPATH="$repo/src${PYTHONPATH:+:$PYTHONPATH}"
export FASTSWZ_CACHE="${FASTSWZ_CACHE:-$repo/.fswcache}"
left=$(( ${FSW_DEADLINE:-400} - ($(date +%s) - t0) ))
echo "corpus.sh: built in $(( $(date +%s) - t0 )) s; cubin cache $FASTSWZ_CACHE" \
     "($(ls "$FASTSWZ_CACHE/cubin" 2>/dev/null | wc -l) cubins); deadline ${left} s from now"
python3 benchmarks/gpu_corpus.py run --out "$out/corpus.json" --deadline "$left" "$@" 2>&1 \
  | tee "$out/corpus.txt"
exit "${PIPESTATUS[0]}"
