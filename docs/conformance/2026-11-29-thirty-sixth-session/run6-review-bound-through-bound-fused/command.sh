# session 36 run 6 (review): bound through bound_fused: the call-path and gemm GPU test files, the call path
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_gemm.py tests/test_gpu_epilogue.py -k "not parity and not against_the_torch" > /tmp/r/tests.txt 2>&1; echo "tests rc=$?"; tail -3 /tmp/r/tests.txt
timeout 60 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb > /tmp/r/callbench.txt 2>&1; grep -A13 "host time per call" /tmp/r/callbench.txt
cd /tmp && tar czf $OUT/r.tgz r
