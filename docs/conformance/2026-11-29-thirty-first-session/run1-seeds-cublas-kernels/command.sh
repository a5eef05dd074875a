# tests/gpu/gemm/_fuzzpre.py is _fuzzpre.py in this folder (copied from the thirtieth session run 5)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/losers_31.json > /tmp/r/pre_losers.txt 2>&1; T pre_losers $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/losers_31.json --subset '*' --flush read --reps 5 --out /tmp/r/ck > /tmp/r/cublas_kernels.txt 2>&1; T cublaskernels $? $t
cp /tmp/r/times.txt /tmp/r/cublas_kernels.txt $OUT/ 2>/dev/null
for s in 20261501 20261502; do
  t=$(date +%s); timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 200 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T run_$s $? $t
done
cp /tmp/r/times.txt $OUT/ 2>/dev/null
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 10 11 > /tmp/r/fuzz_pre.txt 2>&1; T fuzzpre $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/fuzz.py run --seed 10 11 --cases 100 --out /tmp/r/fuzz-SEED.json > /tmp/r/fuzz.txt 2>&1; T fuzz $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/pre_losers.txt; for s in 20261501 20261502; do tail -4 /tmp/r/fresh-$s.txt; done; tail -6 /tmp/r/fuzz.txt
cd /tmp && tar czf $OUT/r.tgz r
