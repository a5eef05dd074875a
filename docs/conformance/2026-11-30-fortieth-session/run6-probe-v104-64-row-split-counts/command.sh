# scratch files it names, kept here: tests/gpu/gemm/_v104_cases.json.gz is v104_cases.json.gz (probe.py make --set v104, compile skipped), _pre_cases.py is the thirty-ninth session's run1 pre_cases.py; the code ran at 315a8b7
# session 40 run 6: probe set v104 (every unswapped 64-row split default of at most 100 units of the corpus and seeds 1-38 that could split more, beside three alternatives; _v104_cases.json from probe.py make --set v104, compile skipped)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
gunzip -k tests/gpu/gemm/_v104_cases.json.gz
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v104_cases.json > /tmp/r/pre_v104.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v104_cases.json --reps 10 --out /tmp/r/v104 > /tmp/r/v104.txt 2>&1; T v104 $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/v104.txt
cd /tmp && tar czf $OUT/r.tgz r
