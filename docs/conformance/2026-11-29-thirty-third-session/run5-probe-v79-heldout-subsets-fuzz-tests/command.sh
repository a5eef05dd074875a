# tests/gpu/gemm/_subsets.txt is subsets.txt in this folder; tests/gpu/gemm/_fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py
rm -rf /tmp/r; mkdir -p /tmp/r/sub
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py make --set v79 --jobs 16 --out /tmp/r/probe_cases_v79.json > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py run /tmp/r/probe_cases_v79.json --reps 15 --top 4 --out /tmp/r/v79 > /tmp/r/probe_v79.txt 2>&1; T run79 $? $t
t=$(date +%s)
while read f s; do
  b=$(basename $f .json)
  python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus $f --subset "$s" > /tmp/r/sub/pre-$b.txt 2>&1
  python3 benchmarks/gpu_corpus.py run --corpus $f --subset "$s" --out /tmp/r/sub/$b.json > /tmp/r/sub/$b.txt 2>&1
done < tests/gpu/gemm/_subsets.txt
T subsets $? $t
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 16 17 > /tmp/r/fuzz_pre.txt 2>&1; T fuzzpre $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/fuzz.py run --seed 16 17 --cases 100 --out /tmp/r/fuzz-SEED.json > /tmp/r/fuzz.txt 2>&1; T fuzz $? $t
t=$(date +%s); timeout 300 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_gemm.py tests/test_gpu_epilogue.py tests/test_gpu_tune.py > /tmp/r/tests.txt 2>&1; T tests $? $t
cat /tmp/r/times.txt; tail -2 /tmp/r/make.txt; tail -4 /tmp/r/fuzz.txt; grep -E "^(FAILED|ERROR)|passed|failed" /tmp/r/tests.txt | tail -12; ls /tmp/r/sub | wc -l
cd /tmp && tar czf $OUT/r.tgz r
