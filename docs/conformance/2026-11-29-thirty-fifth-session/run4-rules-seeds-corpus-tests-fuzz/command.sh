# session 35 run 4: v88 (SWAP_WAVE_BM + SWAP_PAD_MIN_KTILES held out) and v90 (SWAP_LONG_K_ONE_PASS_MAX_BN
# held out), each against the plans before; seeds 23-24 and the shipped corpus with the three rules;
# test_gpu_gemm.py; fuzz seed 20 (tests/gpu/gemm/_fuzzpre.py: the thirty-first session's run1 copy)
R=$OUT/r; mkdir -p $R
bash tests/gpu/run_batch.sh > $R/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> $R/times.txt; }
for v in v88 v90; do
  t=$(date +%s); timeout 90 python3 tests/gpu/gemm/probe.py make --set $v --jobs 16 --out $R/cases_$v.json > $R/make_$v.txt 2>&1; T make_$v $? $t
  t=$(date +%s); timeout 60 python3 tests/gpu/gemm/probe.py run $R/cases_$v.json --reps 15 --out $R/$v > $R/$v.txt 2>&1; T run_$v $? $t
done
for s in 20262101 20262102; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > $R/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py run --out $R/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > $R/fresh-$s.txt 2>&1; T fresh-$s $? $t
done
t=$(date +%s); timeout 40 python3 benchmarks/gpu_corpus.py precompile --jobs 16 > $R/pre_corpus.txt 2>&1; T pre_corpus $? $t
t=$(date +%s); timeout 90 python3 benchmarks/gpu_corpus.py run --out $R/corpus.json > $R/corpus.txt 2>&1; T corpus $? $t
t=$(date +%s); timeout 130 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_gemm.py > $R/tests.txt 2>&1; T tests $? $t
t=$(date +%s); timeout 50 python3 tests/gpu/gemm/_fuzzpre.py 100 20 > $R/fuzz_pre.txt 2>&1; T fuzzpre $? $t
t=$(date +%s); timeout 70 python3 tests/gpu/gemm/fuzz.py run --seed 20 --cases 100 --out $R/fuzz-SEED.json > $R/fuzz.txt 2>&1; T fuzz $? $t
cat $R/times.txt; tail -2 $R/tests.txt; tail -3 $R/fuzz.txt
for f in $R/fresh-*.txt $R/corpus.txt; do echo "== $f"; tail -6 $f | head -4; done
true
