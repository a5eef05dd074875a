# scratch files it names, kept here: tests/gpu/gemm/_v103_cases.json.gz is v103_cases.json.gz (probe.py make --set v103, compile skipped), _pre_cases.py as in run 2; the code ran at 3ea632e
# session 40 run 5: probe set v103 (every swapped 128-row split default of the corpus and seeds 1-38 beside four alternatives; _v103_cases.json from probe.py make --set v103, compile skipped)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
gunzip -k tests/gpu/gemm/_v103_cases.json.gz
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v103_cases.json > /tmp/r/pre_v103.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v103_cases.json --reps 10 --out /tmp/r/v103 > /tmp/r/v103.txt 2>&1; T v103 $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/v103.txt
cd /tmp && tar czf $OUT/r.tgz r
