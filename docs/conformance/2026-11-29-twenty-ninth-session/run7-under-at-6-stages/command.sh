rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bn":128,"stages":6,"epilogue_n":0},{"bn":128,"stages":6,"epilogue_n":0,"defines":{"FSW_UNDER_MMA":0}},{"bn":128,"stages":6,"epilogue_n":0,"tile_group":8,"defines":{"FSW_UNDER_MMA":1}}]'
BS='4096x24576x1536:e4m3:{"scale":"block"} 2048x7168x2048:e4m3:{"scale":"block"} 4096x7168x2048:e4m3:{"scale":"block"} 3072x24576x1536:e4m3:{"scale":"block"} 4096x4096x7168:e4m3:{"scale":"block"} 8192x2112x7168:e4m3:{"scale":"block"}'
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_under.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_under.txt $OUT/
cat /tmp/r/times.txt; tail -1 /tmp/r/precompile.txt; sed 's/"epilogue_stages.*"out_dtype": "bf16"}//' /tmp/r/ab_under.txt | cut -c1-700
