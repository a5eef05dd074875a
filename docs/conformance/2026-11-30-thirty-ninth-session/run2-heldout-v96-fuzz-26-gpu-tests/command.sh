# scratch files it names, kept here: tests/gpu/gemm/_pre_cases.py is run1's pre_cases.py, _v96_cases.json is v96_cases.json (probe.py make --set v96, compile step skipped), _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py; the code ran at a6dc7bd (SMALL_TILE_MAX_SPLITS 5 without SMALL_TILE_FIVE_MAX_M)
# session 39 run 2: probe set v96 (held out for SMALL_TILE_MAX_SPLITS = 5, drawn and stated before the run); fuzz seed 26 (new); the GPU test files (two processes)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t0=$(date +%s)
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v96_cases.json > /tmp/r/pre_v96.txt 2>&1 & timeout 120 python3 tests/gpu/gemm/_fuzzpre.py 100 26 > /tmp/r/fuzzpre.txt 2>&1 & wait; T pre $? $t
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v96_cases.json --reps 15 --out /tmp/r/v96 > /tmp/r/v96.txt 2>&1; T v96 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/fuzz.py run --seed 26 --cases 100 --out /tmp/r/fuzz26.json > /tmp/r/fuzz26.txt 2>&1; T fuzz26 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
left=$(( 570 - ($(date +%s) - t0) - 25 ))
t=$(date +%s)
timeout $left python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_gemm.py > /tmp/r/tests1.txt 2>&1 &
timeout $left python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_epilogue.py tests/test_gpu_tune.py > /tmp/r/tests2.txt 2>&1 &
wait; T tests $? $t
cat /tmp/r/times.txt; tail -3 /tmp/r/v96.txt; tail -2 /tmp/r/fuzz26.txt; tail -4 /tmp/r/tests1.txt; tail -4 /tmp/r/tests2.txt
cd /tmp && tar czf $OUT/r.tgz r
