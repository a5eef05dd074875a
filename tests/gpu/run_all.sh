#!/usr/bin/env bash
# Every hardware witness in one command on the GPU machine (H100, sm_90a): the wgmma
# conformance suite (tests/gpu/run.sh), the TMA round trip of GEMM plans (tests/gpu/tma/run.sh),
# the bank-conflict proof under Nsight Compute (tests/gpu/banks/run.sh) and the Gluon
# NVMMASharedLayout probe (tests/gpu/gluon/run.sh). Each writes its logs to $OUT/<suite>
# (default tests/gpu/results/all/<suite>); summary.txt lists each suite's exit status and time.
# Build dependencies the machine lacks (setuptools >= 77 for pyproject's SPDX license) travel
# as wheels in .whl/ and go on PYTHONPATH, beside the image's environment.
# Held-out cases drawn at run time: FSW_TMA_HELDOUT="SEED N" adds N random legal GEMM plans to
# the TMA round trip (tma_roundtrip.py --heldout), FSW_HELDOUT_SEED=N a fourth pattern set to
# the bank proof (gen_patterns.py --heldout).
# Exit status: 0 when every suite passed, else 1.
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$repo/tests/gpu/results/all}"
work="${FSW_WORK:-/tmp/fsw_all}"
mkdir -p "$out" "$work"
cd "$repo"
if compgen -G "$repo/.whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "$repo"/.whl/*.whl || exit 1
  export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
fi
python3 setup.py -q build_ext --inplace >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
rc_all=0
: >"$out/summary.txt"
for suite in ${FSW_SUITES:-wgmma tma banks gluon}; do
  case "$suite" in
    wgmma) script=tests/gpu/run.sh ;;
    *) script="tests/gpu/$suite/run.sh" ;;
  esac
  mkdir -p "$out/$suite"
  t0=$(date +%s)
  extra=()
  if [ "$suite" = tma ] && [ -n "${FSW_TMA_HELDOUT:-}" ]; then
    read -r -a extra <<<"--heldout $FSW_TMA_HELDOUT"
  fi
  OUT="$out/$suite" FSW_WORK="$work/$suite" bash "$script" "${extra[@]}" >"$out/$suite/stdout.txt" 2>&1
  rc=$?
  line="$suite: exit status $rc, $(( $(date +%s) - t0 )) s"
  echo "$line" | tee -a "$out/summary.txt"
  tail -3 "$out/$suite/stdout.txt"
  [ "$rc" -eq 0 ] || rc_all=1
done
exit $rc_all
