# scratch files it names, kept here: tests/gpu/gemm/_pre_cases.py is run1's pre_cases.py, _v98_cases.json is v98_cases.json.gz (probe.py draw --set v98, then make --set v98, its compile step skipped); the code ran at 83076ce
# session 39 run 5: probe set v98 (stream-K over all SMs where a one-pass plan's tiles fill under 80% of them with >= 256 k-tiles; stated and drawn before the run), each the rule's plan against choose_plan's
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v98_cases.json > /tmp/r/pre_v98.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 300 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v98_cases.json --reps 10 --out /tmp/r/v98 > /tmp/r/v98.txt 2>&1; T v98 $? $t
cat /tmp/r/times.txt; grep cuBLAS /tmp/r/v98.txt
cd /tmp && tar czf $OUT/r.tgz r
