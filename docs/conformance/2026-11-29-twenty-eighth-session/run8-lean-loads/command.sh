rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"defines":{"FSW_SCALE_LEAN":0}},{"defines":{"FSW_SCALE_RING":0}},{"defines":{"FSW_SCALE_RING":0,"FSW_SCALE_LEAN":0}}]'
BS="4096x4096x7168:e4m3:{\"scale\":\"block\"} 4096x7168x7168:e4m3:{\"scale\":\"block\"}"
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_lean.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_lean.txt $OUT/
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/epilogue.py correct --out /tmp/r/correct > /tmp/r/correct.txt 2>&1; echo "correct rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/correct.txt $OUT/
cat /tmp/r/times.txt; tail -1 /tmp/r/precompile.txt; cut -c1-900 /tmp/r/ab_lean.txt; grep -a "check grid\|passed\|failed\|FAIL" /tmp/r/correct.txt | head
cd /tmp && tar czf $OUT/r.tgz r
