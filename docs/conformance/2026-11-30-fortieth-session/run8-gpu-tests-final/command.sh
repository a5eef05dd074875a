# the code ran at 3feb6b4 (the final code but for the docs); no scratch files
# session 40 run 8 (code 3feb6b4, the final code but for the docs): the GPU test files in two processes
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s)
timeout 280 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_gemm.py > /tmp/r/tests1.txt 2>&1 &
timeout 280 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_epilogue.py tests/test_gpu_tune.py > /tmp/r/tests2.txt 2>&1 &
wait; T tests $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/tests1.txt; tail -3 /tmp/r/tests2.txt
cd /tmp && tar czf $OUT/r.tgz r
