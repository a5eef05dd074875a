# scratch files it names: tests/gpu/gemm/_old_init.py and _old_runtime.py were `git show 4669870:src/fastswz/cuda/__init__.py` and `runtime.py` (the session start); _losers_25_26.json and _losers_2026220?.names are run1's losers_25_26.json and .names files; _rules_off.py is run2's rules_off.py; _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py
# session 36 run 3: the call path with the fused fast path through bound_fused (one pass and
# split-K) against the session's start (in turn); the GPU test files of the call path and the
# epilogues; fuzz seed 22 (new)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r src /tmp/old/
cp tests/gpu/gemm/_old_init.py /tmp/old/src/fastswz/cuda/__init__.py; cp tests/gpu/gemm/_old_runtime.py /tmp/old/src/fastswz/cuda/runtime.py
for i in 1 2; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb-new$i > /tmp/r/callbench-new$i.txt 2>&1; T cb-new$i $? $t
  t=$(date +%s); PYTHONPATH=/tmp/old/src:/tmp/bt timeout 60 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb-old$i > /tmp/r/callbench-old$i.txt 2>&1; T cb-old$i $? $t
done
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 250 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_epilogue.py tests/test_gpu_callpath.py > /tmp/r/tests.txt 2>&1; T tests $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 22 > /tmp/r/fuzz_pre.txt 2>&1; T fuzzpre $? $t
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/fuzz.py run --seed 22 --cases 100 --out /tmp/r/fuzz-22.json > /tmp/r/fuzz.txt 2>&1; T fuzz $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/tests.txt; tail -3 /tmp/r/fuzz.txt
for f in /tmp/r/callbench-*.txt; do echo "== $f"; grep -A13 "host time per call" $f; done
cd /tmp && tar czf $OUT/r.tgz r
