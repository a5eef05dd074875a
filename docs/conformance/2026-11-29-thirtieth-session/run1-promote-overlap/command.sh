rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
O='{"FSW_PROMOTE_OVERLAP":1}'
O24='{"FSW_PROMOTE_OVERLAP":1,"FSW_PRODUCER_REGS":24}'
O2='{"FSW_PROMOTE_OVERLAP":1,"FSW_SCALE_AHEAD":2}'
V="[{\"bn\":128,\"stages\":6,\"epilogue_n\":0},{\"bn\":128,\"stages\":6,\"epilogue_n\":0,\"defines\":$O},{\"bn\":128,\"stages\":6,\"epilogue_n\":0,\"defines\":$O24},{\"bn\":128,\"stages\":6,\"epilogue_n\":0,\"defines\":$O2}]"
R="[{\"bn\":128,\"stages\":6,\"defines\":$O},{\"bn\":128,\"stages\":6,\"defines\":$O24},{\"bn\":128,\"stages\":6,\"defines\":$O2},{\"bn\":64,\"stages\":6,\"defines\":{\"FSW_PROMOTE_OVERLAP\":1,\"FSW_SCALE_RING\":0}}]"
BS='4096x7168x7168:e4m3:{"scale":"block"} 4096x4096x7168:e4m3:{"scale":"block"} 8192x2112x7168:e4m3:{"scale":"block"} 4096x24576x1536:e4m3:{"scale":"block"} 4096x7168x2048:e4m3:{"scale":"block"} 2048x7168x2048:e4m3:{"scale":"block"}'
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_ragged.py "$R" > /tmp/r/ragged.txt 2>&1; echo "ragged rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ragged.txt $OUT/ 2>/dev/null
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_overlap.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_overlap.txt /tmp/r/times.txt $OUT/ 2>/dev/null
cat /tmp/r/times.txt; tail -3 /tmp/r/precompile.txt; grep -c True /tmp/r/ragged.txt; grep -v " True 0 0" /tmp/r/ragged.txt | head; sed 's/"epilogue_stages.*"out_dtype": "bf16"}//' /tmp/r/ab_overlap.txt | cut -c1-900
cd /tmp && tar czf $OUT/r.tgz r
