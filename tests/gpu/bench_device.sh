#!/usr/bin/env bash
# The benchmark suite on the 16-core GPU machine in one call: three report.py runs at once, each
# pinned to its own pair of idle cores (taskset), over disjoint benchmark files; then one merged
# table (report.py --from-json). Writes bench_*.json, bench_*.log and table.txt to $OUT.
# Build dependencies the machine lacks travel as wheels in .whl/ (see tests/gpu/run_all.sh).
set -uo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$repo/.benchmarks/device}"
work="${FSW_WORK:-/tmp/fsw_bench}"
mkdir -p "$out" "$work"
cd "$repo"
if compgen -G "$repo/.whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$work/site" "$repo"/.whl/*.whl || exit 1
  export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
fi
python3 setup.py -q build_ext --inplace >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
export PYTHONPATH="$repo/src:$PYTHONPATH"
b=benchmarks
groups=("$b/bench_tile.py"
        "$b/bench_descriptor.py $b/bench_configs.py $b/bench_layout.py"
        "$b/bench_linear.py $b/bench_banks.py $b/bench_plan.py")
names=(tile descriptor_configs_layout linear_banks_plan)
cores=("2,3" "6,7" "10,11")
pids=()
for i in 0 1 2; do
  # report.py runs pytest on benchmarks/; the other groups' files are ignored
  ignore=()
  for f in "$b"/bench_*.py; do [[ " ${groups[$i]} " == *" $f "* ]] || ignore+=("--ignore=$f"); done
  taskset -c "${cores[$i]}" python3 benchmarks/report.py --json "$out/bench_${names[$i]}.json" \
    -- "${ignore[@]}" >"$out/bench_${names[$i]}.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
python3 benchmarks/report.py --from-json "$out"/bench_*.json >"$out/table.txt" 2>&1
cat "$out/table.txt" | tail -40
exit $rc
