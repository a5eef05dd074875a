#!/bin/bash
# Issue 26 on the GPU machine: build the Cython extensions there (Cython and setuptools from the
# carried .whl folder), then the call-path tests, the GEMM tests, the call-overhead table and the
# default plans' kernel speed beside cuBLAS (fastswz gemm). Logs under $OUT.
# Usage (repository root, GPU machine): bash tests/gpu/callpath/run.sh [pytest -k EXPR]
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --target /tmp/bt .whl/*.whl >/dev/null 2>&1
PYTHONPATH=/tmp/bt python3 setup.py -q build_ext --inplace >/tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
export FASTSWZ_CACHE=${FASTSWZ_CACHE:-/tmp/fswcache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py ${1:+-k "$1"} \
  > "$out/callpath-tests.txt" 2>&1; echo "callpath tests exit $?"; grep -E "passed|failed|Error|error:|^E " "$out/callpath-tests.txt" | head -30
if [ -z "${1:-}" ]; then
  python3 -m pytest -q -p no:cacheprovider tests/test_gpu_gemm.py -k "kernel_product" 2>&1 | tail -2
  python3 benchmarks/gpu_callpath.py --out "$out" > "$out/callpath-bench.txt" 2>&1; tail -20 "$out/callpath-bench.txt"
  [ -d .old ] && bash tests/gpu/callpath/kernel_speed.sh .old 2>&1 | tee "$out/kernel-speed.txt"
fi
