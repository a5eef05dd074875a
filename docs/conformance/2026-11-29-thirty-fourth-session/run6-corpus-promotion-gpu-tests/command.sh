# code b9c18c9
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
C=src/fastswz/data/gemm_corpus.json
t=$(date +%s); timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus $C > /tmp/r/pre_corpus.txt 2>&1; T pre $? $t
for P in auto 256; do
  t=$(date +%s); FASTSWZ_L2_PROMOTION=$P timeout 150 python3 benchmarks/gpu_corpus.py run --out /tmp/r/corpus-$P.json --corpus $C > /tmp/r/corpus-$P.txt 2>&1; T corpus-$P $? $t
done
t=$(date +%s); timeout 280 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_gemm.py tests/test_gpu_epilogue.py tests/test_gpu_tune.py > /tmp/r/tests.txt 2>&1; T tests $? $t
cat /tmp/r/times.txt; for P in auto 256; do tail -8 /tmp/r/corpus-$P.txt; done; grep -E "^(FAILED|ERROR)|passed|failed" /tmp/r/tests.txt | tail -12
cd /tmp && tar czf $OUT/r.tgz r
