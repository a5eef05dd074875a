rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"defines":{"FSW_GROUP_UNDER":1}},{"defines":{"FSW_SCALE_RING":0}},{"defines":{"FSW_SCALE_RING":0,"FSW_GROUP_UNDER":1}},{"scale":"none"}]'
BS=$(tr '\n' ' ' < tests/gpu/gemm/ab_block_specs.txt | sed 's/4096x4096x4096:e4m3:{"scale":"row","promote":true}//')
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); SHARES=0.5625,1 timeout 150 python3 tests/gpu/gemm/_yield_ab.py "$V" $BS > /tmp/r/ab_under_yield.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_under_yield.txt $OUT/
t=$(date +%s); timeout 280 python3 tests/gpu/gemm/ncu_plans.py --cases tests/gpu/gemm/_ncu_cases.json --sass /tmp/r/sass > /tmp/r/ncu_plans.txt 2>&1; echo "ncu rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cat /tmp/r/times.txt; tail -2 /tmp/r/precompile.txt; cut -c1-1500 /tmp/r/ab_under_yield.txt; grep -v "^   " /tmp/r/ncu_plans.txt | cut -c1-600 | tail -12
cd /tmp && tar czf $OUT/r.tgz r
