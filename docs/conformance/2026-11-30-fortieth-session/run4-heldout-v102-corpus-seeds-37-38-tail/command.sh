# scratch files it names, kept here: tests/gpu/gemm/_v102_cases.json.gz is v102_cases.json.gz (probe.py make --set v102, compile skipped), _tail.json.gz is run 1's tail_corpus.json.gz, _pre_cases.py as in run 2; the code ran at 1a69291 (SPLIT_64_MAX_UNITS' second form; the final choose_plan but for SPLIT_DOUBLE_MAX_UNITS)
# session 40 run 4: probe set v102 (held out for SPLIT_64_MAX_UNITS in its second form: SPLIT_64_MAX_SPLITS, drawn before the run; _v102_cases.json from probe.py make --set v102, compile skipped); the shipped corpus, seeds 37-38 and run 1's tail corpus (_tail.json) at that form
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t0=$(date +%s); t=$t0
gunzip -k tests/gpu/gemm/_v102_cases.json.gz tests/gpu/gemm/_tail.json.gz
timeout 150 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v102_cases.json > /tmp/r/pre_v102.txt 2>&1 &
timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 4 > /tmp/r/pre_corpus.txt 2>&1 &
for s in 20262801 20262802; do timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 4 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1 & done
timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 4 --corpus tests/gpu/gemm/_tail.json > /tmp/r/pre_tail.txt 2>&1 &
wait; T pre $? $t
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v102_cases.json --reps 15 --out /tmp/r/v102 > /tmp/r/v102.txt 2>&1; T v102 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 90 python3 benchmarks/gpu_corpus.py run --out /tmp/r/corpus.json > /tmp/r/corpus.txt 2>&1; T corpus $? $t
for s in 20262801 20262802; do
  t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
done
t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/tail.json --corpus tests/gpu/gemm/_tail.json > /tmp/r/tail.txt 2>&1; T tail $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
cat /tmp/r/times.txt; tail -4 /tmp/r/v102.txt; for f in /tmp/r/corpus.txt /tmp/r/fresh-*.txt /tmp/r/tail.txt; do echo "== $f"; tail -4 $f; done
cd /tmp && tar czf $OUT/r.tgz r
