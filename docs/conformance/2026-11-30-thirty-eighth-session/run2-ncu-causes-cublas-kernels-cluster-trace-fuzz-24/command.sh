# scratch files it names, kept here: tests/gpu/gemm/_ncu_problems.txt is ncu_problems.txt, _names_SEED.txt are names_SEED.txt, _trace_cluster.json is trace_cases.json; _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py; the code ran at a683b81
# session 38 run 2: Nsight Compute causes of seeds 31-32's problems under 0.9x (run 1's times); cuBLAS's kernels on them; clusters against one CTA traced (long K, 4096^3, tall narrow); fuzz seed 24
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s)
for s in 20262501 20262502; do timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 8 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; done &
timeout 100 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_cluster.json --precompile > /tmp/r/trace_pre.txt 2>&1 &
timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 24 > /tmp/r/fuzzpre.txt 2>&1 &
wait; T pre $? $t
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_cluster.json --ctas 16 > /tmp/r/trace.txt 2>&1; T trace $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/fuzz.py run --seed 24 --cases 100 --out /tmp/r/fuzz24.json > /tmp/r/fuzz24.txt 2>&1; T fuzz24 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ncu_causes.py run tests/gpu/gemm/_ncu_problems.txt --out /tmp/r/ncu_causes --chunk 8 --deadline 180 > /tmp/r/ncu_causes.txt 2>&1; T ncu $? $t
(cd /tmp/r && tar czf ncu_causes.tgz ncu_causes && rm -rf ncu_causes)
(cd /tmp && tar czf $OUT/r.tgz r)
for s in 20262501 20262502; do
  t=$(date +%s); timeout 60 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/fresh_$s.json --subset "$(cat tests/gpu/gemm/_names_$s.txt)" --reps 3 --flush read --out /tmp/r/ck-$s > /tmp/r/ck-$s.txt 2>&1; T ck-$s $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
cat /tmp/r/times.txt; grep -v "^   CTA" /tmp/r/trace.txt | cut -c1-200; tail -3 /tmp/r/fuzz24.txt; tail -4 /tmp/r/ncu_causes.txt
cd /tmp && tar czf $OUT/r.tgz r
