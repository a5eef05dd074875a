# scratch files it names, kept here: tests/gpu/gemm/_pre_cases.py is pre_cases.py, _v95_cases.json is v95_cases.json.gz (made here by probe.py make --set v95, its compile step skipped); the code ran at e4886cd
# session 39 run 1: seeds 33-34 (held out, drawn in 2f15390 before any run); probe set v95 (one-pass small tiles on clusters in place of 128-row splits, after the producer tail)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v95_cases.json > /tmp/r/pre_v95.txt 2>&1 &
for s in 20262601 20262602; do timeout 100 python3 benchmarks/gpu_corpus.py precompile --jobs 8 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; done; wait; T pre $? $t
for s in 20262601 20262602; do
  t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
t=$(date +%s); timeout 330 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v95_cases.json --reps 10 --out /tmp/r/v95 > /tmp/r/v95.txt 2>&1; T v95 $? $t
cat /tmp/r/times.txt; for f in /tmp/r/fresh-*.txt; do echo "== $f"; tail -9 $f | head -6; done; tail -5 /tmp/r/v95.txt
cd /tmp && tar czf $OUT/r.tgz r
