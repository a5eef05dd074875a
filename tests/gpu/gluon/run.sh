#!/usr/bin/env bash
# Gluon NVMMASharedLayout placement probe as ONE command (GPU machine: triton with Gluon, torch):
#   every case of probe.py's grid is compiled and run by FSW_WORKERS parallel workers (default 12),
#   then compared with fastswz. Writes table.md, gluon_placements.json (the fixture),
#   api.txt and log.txt to $OUT/gluon (default tests/gpu/gluon/results).
# FSW_BACKEND=model rehearses everything without a GPU (the model's prediction stands in for the
# observation). Needs fastswz importable (PYTHONPATH=src after `python setup.py build_ext --inplace`).
# Exit status: 0 no difference, 1 a difference or a failed case.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${OUT:-$here/results}/gluon"
work="$(mktemp -d)"
mkdir -p "$out"
exec > >(tee "$out/log.txt") 2>&1
export PYTHONPATH="$repo/src:$here${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
echo "== $(date -u '+%Y-%m-%d %H:%M:%S UTC')  repo $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
command -v nvidia-smi >/dev/null && nvidia-smi -L
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)" 2>&1
workers="${FSW_WORKERS:-12}"
verb=work
[ "${FSW_BACKEND:-gpu}" = model ] && verb=simulate
echo "cases: $(python3 "$here/probe.py" cases), workers: $workers, mode: $verb"
start=$(date +%s)
pids=()
for i in $(seq 0 $((workers - 1))); do
  python3 "$here/probe.py" "$verb" "$i" "$workers" "$work" &
  pids+=($!)
done
wait "${pids[@]}"  # not a bare wait: that would also wait for the tee above
echo "workers done in $(( $(date +%s) - start )) s"
cp "$work/api.txt" "$out/" 2>/dev/null
python3 "$here/probe.py" collect "$work" "$out"
rc=$?
echo "== exit $rc"
exit $rc
