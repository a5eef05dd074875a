bash tests/gpu/run_batch.sh
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bm":192,"stages":4},{"bm":192,"stages":4,"defines":{"FSW_SCALE_RING":0}},{"bm":192,"stages":3}]'
timeout 300 python3 tests/gpu/gemm/ab_configs.py "$V" $(cat tests/gpu/gemm/ab_block_unscaled_specs.txt) 2>&1 | tee $OUT/ab.txt
timeout 60 python3 tests/gpu/gemm/power.py '[{"bm":192,"stages":4}]' '4096x7168x7168:e4m3:{"scale":"block"}' '4096x24576x1536:e4m3:{"scale":"block"}' --seconds 2 2>&1 | tee $OUT/power.txt
timeout 60 python3 tests/gpu/gemm/power.py '[]' '4096x7168x7168:e4m3' '4096x24576x1536:e4m3' --seconds 2 2>&1 | tee -a $OUT/power.txt
