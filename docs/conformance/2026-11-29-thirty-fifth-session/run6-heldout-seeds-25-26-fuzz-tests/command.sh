# session 35 run 6: seeds 25-26 (drawn after the rules were final: held out) twice each, the GPU call-path
# and epilogue test files, fuzz seed 21; results tarred (the tool returns few files)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
for s in 20262201 20262202; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
done
for rep in 1 2; do for s in 20262201 20262202; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s-$rep.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s-$rep.txt 2>&1; T fresh-$s-$rep $? $t
done; done
t=$(date +%s); timeout 30 python3 tests/gpu/gemm/_fuzzpre.py 100 21 > /tmp/r/fuzz_pre.txt 2>&1; T fuzzpre $? $t
t=$(date +%s); timeout 50 python3 tests/gpu/gemm/fuzz.py run --seed 21 --cases 100 --out /tmp/r/fuzz-SEED.json > /tmp/r/fuzz.txt 2>&1; T fuzz $? $t
t=$(date +%s); timeout 100 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_epilogue.py > /tmp/r/tests.txt 2>&1; T tests $? $t
cat /tmp/r/times.txt; tail -2 /tmp/r/tests.txt; tail -2 /tmp/r/fuzz.txt
for f in /tmp/r/fresh-*.txt; do echo "== $f"; tail -6 $f | head -4; done
cd /tmp && tar czf $OUT/r.tgz r
