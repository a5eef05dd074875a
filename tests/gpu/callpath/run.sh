#!/bin/bash
# Issue 26 on the GPU machine: build the Cython extensions there (Cython and setuptools from the
# carried .whl folder), then the call-path tests, the GEMM tests and the call-overhead table.
# Usage (repository root, GPU machine): bash tests/gpu/callpath/run.sh [pytest -k EXPR]
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/bt .whl/*.whl >/dev/null 2>&1
PYTHONPATH=/tmp/bt python3 setup.py -q build_ext --inplace >/tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
export FASTSWZ_CACHE=${FASTSWZ_CACHE:-/tmp/fswcache}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m pytest -q -p no:cacheprovider -x tests/test_gpu_callpath.py ${1:+-k "$1"} 2>&1 | tail -25
if [ -z "${1:-}" ]; then
  python3 -m pytest -q -p no:cacheprovider tests/test_gpu_gemm.py -k "kernel_product" 2>&1 | tail -3
  python3 benchmarks/gpu_callpath.py --out "${OUT:-/tmp/out}" 2>&1 | tail -22
fi
