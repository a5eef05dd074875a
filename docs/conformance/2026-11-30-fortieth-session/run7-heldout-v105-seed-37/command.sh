# scratch files it names, kept here: tests/gpu/gemm/_v105_cases.json.gz is v105_cases.json.gz (probe.py make --set v105, compile skipped), _pre_cases.py as in run 6; the code ran at 3feb6b4 (the final choose_plan)
# session 40 run 7: probe set v105 (held out for SPLIT_DOUBLE_MAX_UNITS, drawn before the run; _v105_cases.json from probe.py make --set v105, compile skipped); seed 37 at the rule (it changes one of its problems)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
gunzip -k tests/gpu/gemm/_v105_cases.json.gz
t=$(date +%s)
timeout 150 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v105_cases.json > /tmp/r/pre_v105.txt 2>&1 &
timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 8 --corpus tests/gpu/gemm/fresh_20262801.json > /tmp/r/pre_20262801.txt 2>&1 &
wait; T pre $? $t
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v105_cases.json --reps 15 --out /tmp/r/v105 > /tmp/r/v105.txt 2>&1; T v105 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-20262801.json --corpus tests/gpu/gemm/fresh_20262801.json > /tmp/r/fresh-20262801.txt 2>&1; T fresh-20262801 $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/v105.txt; tail -4 /tmp/r/fresh-20262801.txt
cd /tmp && tar czf $OUT/r.tgz r
