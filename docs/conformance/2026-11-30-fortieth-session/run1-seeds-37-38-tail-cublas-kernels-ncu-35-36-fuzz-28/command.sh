# scratch files it names, kept here: tests/gpu/gemm/_tail.json is tail_corpus.json.gz (mktail.py: seeds 1-36's problems under 0.85x at their seeds' last runs), _tail80.txt is tail80_names.txt (the 83 under 0.8x), _ncu_problems.txt is ncu_problems.txt (ncu_causes.py select --below 0.9 on the thirty-ninth session's run 4 seeds 35-36), _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py; the code ran at 8d5ac64 (choose_plan and the kernel as at 43ef91f)
# session 40 run 1: seeds 37-38 (held out, drawn in 8d5ac64); the tail corpus (_tail.json: seeds 1-36's problems under 0.85x at their last run) at today's code; cuBLAS's kernels on the 83 under 0.8x; Nsight Compute on seeds 35-36's 24 under 0.9x; fuzz seed 28
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t0=$(date +%s); t=$t0
for s in 20262801 20262802; do timeout 100 python3 benchmarks/gpu_corpus.py precompile --jobs 4 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1 & done
timeout 100 python3 benchmarks/gpu_corpus.py precompile --jobs 4 --corpus tests/gpu/gemm/_tail.json > /tmp/r/pre_tail.txt 2>&1 &
timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 28 > /tmp/r/fuzzpre.txt 2>&1 &
wait; T pre $? $t
for s in 20262801 20262802; do
  t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/tail.json --corpus tests/gpu/gemm/_tail.json > /tmp/r/tail.txt 2>&1; T tail $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/fuzz.py run --seed 28 --cases 100 --out /tmp/r/fuzz28.json > /tmp/r/fuzz28.txt 2>&1; T fuzz28 $? $t
t=$(date +%s); timeout 170 python3 tests/gpu/gemm/ncu_causes.py run tests/gpu/gemm/_ncu_problems.txt --out /tmp/r/ncu_causes --chunk 8 --deadline 150 > /tmp/r/ncu_causes.txt 2>&1; T ncu $? $t
(cd /tmp/r && tar czf ncu_causes.tgz ncu_causes && rm -rf ncu_causes)
(cd /tmp && tar czf $OUT/r.tgz r)
left=$(( 570 - ($(date +%s) - t0) ))
t=$(date +%s); timeout $left python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/_tail.json --subset "$(cat tests/gpu/gemm/_tail80.txt)" --reps 3 --flush read --out /tmp/r/cublas > /tmp/r/cublas_kernels.txt 2>&1; T cublas $? $t
cat /tmp/r/times.txt; for f in /tmp/r/fresh-*.txt /tmp/r/tail.txt; do echo "== $f"; tail -9 $f | head -6; done; tail -2 /tmp/r/fuzz28.txt; tail -4 /tmp/r/ncu_causes.txt; tail -3 /tmp/r/cublas_kernels.txt
cd /tmp && tar czf $OUT/r.tgz r
