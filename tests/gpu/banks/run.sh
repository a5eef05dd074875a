#!/usr/bin/env bash
# Bank-conflict proof on a Hopper GPU, one command:  bash tests/gpu/banks/run.sh
# Builds banks.cu (sm_90a), checks its SASS (one shared instruction per probe kernel), lists the
# shared-memory metrics this ncu knows, profiles every pattern (patterns.txt: structured,
# random.txt: seeded random, pairs.txt: the load pair rule, merge.txt: when loads merge
# phases) under Nsight Compute and compares the measured wavefronts with
# fastswz.banks' predictions. Writes log.txt, sass.txt, metrics.txt, ncu_*.csv and
# structured/random/pairs.{md,json} to $OUT (else tests/gpu/banks/results/).
# FSW_REGEN=1 regenerates the patterns with the fastswz on PYTHONPATH first.
# FSW_HELDOUT_SEED=N adds a fourth set, drawn from seed N at run time by the fastswz in src/
# (gen_patterns.py --heldout: other distributions than the committed sets), written to $OUT.
# Exit status: 0 all match, 1 a prediction differs, 3 build or profiler failure.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/results}"
work="${FSW_WORK:-/tmp/fsw_banks}"
mkdir -p "$out" "$work"
exec > >(tee "$out/log.txt") 2>&1
echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
nvcc --version | tail -2; ncu --version | tail -1
pat="$here"
if [ "${FSW_REGEN:-0}" = 1 ]; then python3 "$here/gen_patterns.py" "$work" && pat="$work"; fi
cp "$pat"/patterns.json "$pat"/random.json "$pat"/pairs.json "$pat"/merge.json "$out"/
nvcc -O2 -arch=sm_90a -o "$work/banks" "$here/banks.cu" || exit 3
cuobjdump -sass "$work/banks" > "$out/sass.txt" 2>&1
python3 "$here/compare.py" sass "$out/sass.txt" || echo "WARNING: SASS check failed (see sass.txt)"
"$work/banks" "$pat/patterns.txt" || exit 3          # a plain run first: no errors, no profiler
timeout 60 ncu --query-metrics > "$out/metrics.txt" 2>&1
grep -E "shared|ldsm|stsm" "$out/metrics.txt" | head -80
metrics="$(python3 "$here/compare.py" metrics "$out/metrics.txt")"
echo "metrics: $metrics"
rc=0
sets="patterns random pairs merge"
if [ -n "${FSW_HELDOUT_SEED:-}" ]; then
  PYTHONPATH="$here/../../../src${PYTHONPATH:+:$PYTHONPATH}" \
    python3 "$here/gen_patterns.py" --heldout "$FSW_HELDOUT_SEED" "$work" || exit 3
  cp "$work/heldout.json" "$out/"
  sets="$sets heldout"
fi
for set in $sets; do
  name=$([ $set = patterns ] && echo structured || echo $set)
  dir=$([ $set = heldout ] && echo "$work" || echo "$pat")
  timeout $(case $set in patterns) echo 80;; merge) echo 150;; *) echo 60;; esac) ncu --cache-control none --clock-control none -k regex:k_ --metrics "$metrics" --csv \
      "$work/banks" "$dir/$set.txt" > "$out/ncu_$name.csv" 2> "$out/ncu_$name.err"
  s=$?
  if [ $s -ne 0 ]; then
    echo "ncu ($name) exit $s; retrying with the core metrics"; tail -5 "$out/ncu_$name.err"
    timeout 40 ncu --cache-control none --clock-control none -k regex:k_ \
        --metrics "$(python3 "$here/compare.py" metrics /dev/null)" --csv \
        "$work/banks" "$dir/$set.txt" > "$out/ncu_$name.csv" 2> "$out/ncu_$name.err" || { rc=3; continue; }
  fi
  python3 "$here/compare.py" compare "$dir/$set.json" "$out/ncu_$name.csv" "$out/$name" || rc=$((rc > 1 ? rc : 1))
done
echo "== done, exit $rc"
exit $rc
