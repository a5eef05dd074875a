rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"defines":{"FSW_SCALE_RING":0}},{"bn":128,"stages":6},{"bn":128,"stages":6,"scale":"none"},{"bn":160,"stages":5,"defines":{"FSW_SCALE_RING":0}}]'
BS="$(head -5 tests/gpu/gemm/ab_block_specs.txt) $(head -8 tests/gpu/gemm/ab_block_heldout_27b.txt)"
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 300 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_selectfree.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_selectfree.txt $OUT/
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/r > /tmp/r/blockpeer.txt 2>&1; echo "blockpeer rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/blockpeer.txt $OUT/
cat /tmp/r/times.txt; tail -2 /tmp/r/precompile.txt; cut -c1-1500 /tmp/r/ab_selectfree.txt; grep -v "kernels\|Warn\|warn" /tmp/r/blockpeer.txt
cd /tmp && tar czf $OUT/r.tgz r
