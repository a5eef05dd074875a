rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"defines":{"FSW_UNIFORM_WG":0}},{"defines":{"FSW_UNIFORM_WG":1}}]'
BS='7401x256x3712:bf16 15x10880x1408:bf16 11090x15232x4992:e4m3 14x30740x17896:bf16 8692x1219x3250:bf16 7400x384x10240:e4m3 373x4352x3712:e4m3 143x657x10184:e4m3 3x1121x21174:bf16 16157x2816x3968:bf16 29x368x24416:e4m3 11x6784x2304:bf16 258x4256x22512:bf16 4x743x17329:bf16 79x2102x763:bf16 26x1024x24960:bf16 107x640x4480:e4m3 102x3430x3622:bf16 91x1365x8713:e4m3 16x20366x19513:bf16 119x2672x1600:e4m3 19x384x5760:e4m3 36x18048x1152:bf16 12086x736x6304:bf16 749x10624x9216:e4m3 4x1633x626:e4m3 12x13800x338:bf16 77x7872x272:bf16 11358x676x2292:bf16 8x2036x15335:e4m3 11x30592x256:bf16 10x512x4480:e4m3 3414x30592x256:bf16 875x5744x32224:bf16 40x1152x28160:bf16 29x272x656:e4m3 425x608x31312:bf16 141x1408x512:bf16 15x10707x560:bf16 65x2672x1600:e4m3'
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
B5='4096x7168x7168:e4m3:{"scale":"block"} 4096x2112x7168:e4m3:{"scale":"block"} 4096x24576x1536:e4m3:{"scale":"block"} 4096x7168x2048:e4m3:{"scale":"block"} 4096x4096x7168:e4m3:{"scale":"block"}'
timeout 60 python3 tests/gpu/gemm/_pre.py '[]' $B5 >> /tmp/r/precompile.txt 2>&1
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/r > /tmp/r/blockpeer.txt 2>&1; echo "blockpeer rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/blockpeer.txt $OUT/ 2>/dev/null
t=$(date +%s); timeout 330 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_uniform40.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_uniform40.txt /tmp/r/times.txt $OUT/ 2>/dev/null
cat /tmp/r/times.txt; tail -3 /tmp/r/precompile.txt; cut -c1-400 /tmp/r/blockpeer.txt; sed 's/{"bm".*"out_dtype": "[a-z0-9]*"}//' /tmp/r/ab_uniform40.txt | cut -c1-400
cd /tmp && tar czf $OUT/r.tgz r
