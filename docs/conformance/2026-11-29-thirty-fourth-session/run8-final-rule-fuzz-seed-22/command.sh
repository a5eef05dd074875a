# code f17ad8a; tests/gpu/gemm/_fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 100 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_gemm.py -k "padded_rows" > /tmp/r/tests.txt 2>&1; T tests $? $t
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 18 19 > /tmp/r/fuzz_pre.txt 2>&1; T fuzzpre $? $t
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/fuzz.py run --seed 18 19 --cases 100 --out /tmp/r/fuzz-SEED.json > /tmp/r/fuzz.txt 2>&1; T fuzz $? $t
s=20262002
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T run_$s $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/tests.txt; tail -3 /tmp/r/fuzz.txt; tail -7 /tmp/r/fresh-$s.txt; grep "l27.m73.bf16" /tmp/r/fresh-$s.txt
cd /tmp && tar czf $OUT/r.tgz r
