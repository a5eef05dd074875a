rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"defines":{"FSW_PROMOTE_EXPERIMENT":1}},{"bn":128,"stages":6,"scale":"none"},{"bn":128,"stages":6,"scale":"none","defines":{"FSW_PROMOTE_EXPERIMENT":2}},{"bn":128,"stages":6,"epilogue_n":64},{"bn":128,"stages":6,"epilogue_n":64,"defines":{"FSW_PROMOTE_EXPERIMENT":1}},{"bn":128,"stages":6,"scale":"none","promote":false}]'
BS="4096x4096x7168:e4m3:{\"scale\":\"block\"} 4096x7168x7168:e4m3:{\"scale\":\"block\"} 4096x24576x1536:e4m3:{\"scale\":\"block\"}"
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_ffma.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_ffma.txt $OUT/
cat /tmp/r/times.txt; tail -2 /tmp/r/precompile.txt; cut -c1-1600 /tmp/r/ab_ffma.txt
cd /tmp && tar czf $OUT/r.tgz r
