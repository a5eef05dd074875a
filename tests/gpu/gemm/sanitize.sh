#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) on a sample of plans, small ragged shapes.
# Usage: [SAN_SHAPE=M,N,K] bash tests/gpu/gemm/sanitize.sh [key=value,... ...]   (shape: 200,136,192)
# memcheck leaves out host API errors (cuda-bindings probes driver entry points the driver lacks:
# cuGetProcAddress_v2 returns CUDA_ERROR_INVALID_VALUE, seen 34 times per process). Each case runs fastswz.cuda.runtime.check (integer inputs, exact) under the tool; exit 0 only
# when every tool reports 0 errors and every check passes. Logs: $OUT/sanitizer.txt
set -uo pipefail
out="${OUT:-/tmp/gemm-sanitize}"; mkdir -p "$out"
log="$out/sanitizer.txt"; : >"$log"
rc_all=0
# Plans: the arguments (key=value,... each), or the sample below.
plans=("$@")
[ ${#plans[@]} -gt 0 ] || plans=(
  "bm=128,bn=128,bk=64,stages=3,epilogue=1"
  "bm=64,bn=256,bk=64,stages=4,a_major=MN,b_major=MN"
  "bm=128,bn=64,bk=128,stages=2,a_dtype=e4m3,b_dtype=e4m3,epilogue=1"
  "bm=128,bn=128,bk=64,stages=4,a_major=MN,b_major=MN,epilogue=1,cluster_m=2"
  "bm=64,bn=96,bk=64,stages=3,b_major=MN,cluster_m=2,swizzle_b=none"
  "bm=128,bn=256,bk=64,stages=4,epilogue=1,epilogue_n=64"
  "bm=128,bn=128,bk=64,stages=4,a_major=MN,b_major=MN,epilogue=1,epilogue_n=32,cluster_m=2")
for cfg in "${plans[@]}"; do
  for tool in memcheck racecheck synccheck; do
    python3 - "$cfg" "${SAN_SHAPE:-200,136,192}" >/tmp/case.py <<'PY'
import sys
kv = dict(x.split("=") for x in sys.argv[1].split(","))
cfg = {k: (int(v) if v.isdigit() else v) for k, v in kv.items()}
cfg["epilogue"] = bool(cfg.get("epilogue", 0))
shape = sys.argv[2]
print(f"""
import sys
sys.path.insert(0, "src")
from fastswz.cuda import compile_gemm
from fastswz.cuda.runtime import check
r = check(compile_gemm({cfg!r}), {shape}, ints=True)
print("check", r)
sys.exit(0 if r["ok"] and r["unwritten"] == 0 else 1)
""")
PY
    api=(); [ "$tool" = memcheck ] && api=(--report-api-errors no)
    res=$(timeout 300 compute-sanitizer --tool "$tool" "${api[@]}" --error-exitcode 9 python3 /tmp/case.py 2>&1)
    rc=$?
    summary=$(echo "$res" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|check " | tr '\n' ' ')
    echo "$tool $cfg rc=$rc $summary" | tee -a "$log"
    [ "$rc" -eq 0 ] || { rc_all=1; echo "$res" | tail -30 >>"$log"; }
  done
done
exit $rc_all
