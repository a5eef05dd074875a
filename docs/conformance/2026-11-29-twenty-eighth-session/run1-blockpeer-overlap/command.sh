rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
D='{"FSW_SCALE_RING":0,"FSW_PRODUCER_REGS":24,"FSW_SCALE_AHEAD":2}'
O='{"FSW_PROMOTE_OVERLAP":1,"FSW_SCALE_RING":0,"FSW_PRODUCER_REGS":24,"FSW_SCALE_AHEAD":2}'
O4='{"FSW_PROMOTE_OVERLAP":1,"FSW_SCALE_RING":0,"FSW_PRODUCER_REGS":24}'
V="[{\"bn\":128,\"stages\":6},{\"bn\":128,\"stages\":6,\"defines\":$D},{\"bn\":128,\"stages\":6,\"defines\":$O},{\"bn\":96,\"stages\":6,\"defines\":{\"FSW_SCALE_RING\":0}},{\"bn\":96,\"stages\":6,\"defines\":$O4}]"
R="[{\"bn\":128,\"stages\":6,\"defines\":$O},{\"bn\":96,\"stages\":6,\"defines\":$O4}]"
BS=$(head -5 tests/gpu/gemm/ab_block_specs.txt)
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/r > /tmp/r/blockpeer.txt 2>&1; echo "blockpeer rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/blockpeer.txt $OUT/ 2>/dev/null
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_ragged.py "$R" > /tmp/r/ragged.txt 2>&1; echo "ragged rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_overlap.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_overlap.txt /tmp/r/times.txt $OUT/ 2>/dev/null
cat /tmp/r/times.txt; tail -3 /tmp/r/precompile.txt; tail -2 /tmp/r/ragged.txt; cat /tmp/r/blockpeer.txt | cut -c1-600; cat /tmp/r/ab_overlap.txt | cut -c1-1500
cd /tmp && tar czf $OUT/r.tgz r
