# scratch files it names, kept here: tests/gpu/gemm/_v101_cases.json.gz is v101_cases.json.gz (probe.py make --set v101, compile skipped), _pre_cases.py as in run 2; the code ran at 832584c (SPLIT_64_MAX_UNITS' first form)
# session 40 run 3 (code 832584c): probe set v101 (held out for SPLIT_64_MAX_UNITS, drawn before the run; _v101_cases.json from probe.py make --set v101, compile skipped); the shipped corpus and seeds 37-38 at the new rule; the GPU test files (two processes)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t0=$(date +%s); t=$t0
gunzip -k tests/gpu/gemm/_v101_cases.json.gz
timeout 150 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v101_cases.json > /tmp/r/pre_v101.txt 2>&1 &
timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 4 > /tmp/r/pre_corpus.txt 2>&1 &
for s in 20262801 20262802; do timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 4 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1 & done
wait; T pre $? $t
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v101_cases.json --reps 15 --out /tmp/r/v101 > /tmp/r/v101.txt 2>&1; T v101 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 90 python3 benchmarks/gpu_corpus.py run --out /tmp/r/corpus.json > /tmp/r/corpus.txt 2>&1; T corpus $? $t
for s in 20262801 20262802; do
  t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
done
(cd /tmp && tar czf $OUT/r.tgz r)
left=$(( 575 - ($(date +%s) - t0) - 20 ))
t=$(date +%s)
timeout $left python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_gemm.py > /tmp/r/tests1.txt 2>&1 &
timeout $left python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_epilogue.py tests/test_gpu_tune.py > /tmp/r/tests2.txt 2>&1 &
wait; T tests $? $t
cat /tmp/r/times.txt; tail -4 /tmp/r/v101.txt; for f in /tmp/r/corpus.txt /tmp/r/fresh-*.txt; do echo "== $f"; tail -4 $f; done; tail -3 /tmp/r/tests1.txt; tail -3 /tmp/r/tests2.txt
cd /tmp && tar czf $OUT/r.tgz r
