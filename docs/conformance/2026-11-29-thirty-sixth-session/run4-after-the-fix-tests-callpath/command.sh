# scratch files it names: tests/gpu/gemm/_old_init.py and _old_runtime.py were `git show 4669870:src/fastswz/cuda/__init__.py` and `runtime.py` (the session start); _losers_25_26.json and _losers_2026220?.names are run1's losers_25_26.json and .names files; _rules_off.py is run2's rules_off.py; _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py
# session 36 run 4: the GPU test files after the fix (epilogues, call path, gemm), the call path
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 250 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_epilogue.py tests/test_gpu_callpath.py > /tmp/r/tests.txt 2>&1; T tests $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 60 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb > /tmp/r/callbench.txt 2>&1; T cb $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 180 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_gemm.py > /tmp/r/tests_gemm.txt 2>&1; T tests_gemm $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/tests.txt; tail -3 /tmp/r/tests_gemm.txt; grep -A13 "host time per call" /tmp/r/callbench.txt
cd /tmp && tar czf $OUT/r.tgz r
