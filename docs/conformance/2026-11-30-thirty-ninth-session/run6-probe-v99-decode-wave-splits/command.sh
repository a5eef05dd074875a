# scratch files it names, kept here: tests/gpu/gemm/_pre_cases.py is run1's pre_cases.py, _v99_cases.json is v99_cases.json.gz (probe.py draw --set v99, then make --set v99, its compile step skipped); the code ran at b964e0c
# session 39 run 6: probe set v99 (decode splits by wave count where the tiles fill 50-80% of the SMs; stated and drawn before the run), each the rule's plan against choose_plan's
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v99_cases.json > /tmp/r/pre_v99.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 330 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v99_cases.json --reps 10 --out /tmp/r/v99 > /tmp/r/v99.txt 2>&1; T v99 $? $t
cat /tmp/r/times.txt; grep cuBLAS /tmp/r/v99.txt
cd /tmp && tar czf $OUT/r.tgz r
