rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bm":192,"bn":96,"stages":5},{"bm":192,"bn":96,"stages":5,"epilogue":false},{"bm":192,"bn":64,"stages":6},{"bm":256,"bn":64,"stages":4},{"bm":256,"bn":64,"stages":5,"epilogue":false},{"defines":{"FSW_GROUP_UNDER":1}}]'
BS='4096x4096x7168:e4m3:{"scale":"block"} 4096x7168x7168:e4m3:{"scale":"block"} 4096x24576x1536:e4m3:{"scale":"block"} 4096x7168x2048:e4m3:{"scale":"block"}'
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_wg.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_wg.txt $OUT/
cat /tmp/r/times.txt; tail -2 /tmp/r/precompile.txt; cut -c1-1800 /tmp/r/ab_wg.txt
