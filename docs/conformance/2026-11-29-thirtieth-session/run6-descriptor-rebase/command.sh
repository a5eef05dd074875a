rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"defines":{"FSW_DESC_ADD64":1}},{"defines":{"FSW_DESC_ADD64":0}}]'
BS='4096x7168x7168:e4m3:{"scale":"block"} 4096x4096x7168:e4m3:{"scale":"block"} 4096x24576x1536:e4m3:{"scale":"block"} 4096x7168x2048:e4m3:{"scale":"block"} 4096x2112x7168:e4m3:{"scale":"block"} 8192x8192x8192:bf16 4096x4096x4096:e4m3 4096x7168x7168:e4m3 167x28448x14432:bf16 1166x1152x28160:bf16 12384x400x1744:bf16 77x20592x19648:bf16 393x18048x1152:bf16 114x5744x32224:bf16 3354x592x4352:bf16 10169x640x2176:bf16 2048x2048x2048:bf16 3000x5000x1000:bf16 6703x2544x400:e4m3 1x4096x4096:bf16 8x7168x2048:e4m3'
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 300 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_rebase.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_rebase.txt /tmp/r/times.txt $OUT/ 2>/dev/null
cat /tmp/r/times.txt; tail -3 /tmp/r/precompile.txt; sed 's/{"bm".*"out_dtype": "[a-z0-9]*"}//' /tmp/r/ab_rebase.txt | cut -c1-600
cd /tmp && tar czf $OUT/r.tgz r
