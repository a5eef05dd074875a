rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
HS="4881x8176x14208 5288x1088x10496 689x16224x4352 7055x3616x3584 7679x11520x7424 8136x1760x6912 8192x2112x7168 8192x4096x7168 8192x7168x16384"
t=$(date +%s); PRECOMPILE=1 timeout 100 python3 tests/gpu/gemm/_old_new.py $HS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/r > /tmp/r/blockpeer.txt 2>&1; echo "blockpeer rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/blockpeer.txt $OUT/
t=$(date +%s); ROUNDS=1 timeout 200 python3 tests/gpu/gemm/_old_new.py $HS > /tmp/r/old_new.txt 2>&1; echo "old_new rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/old_new.txt $OUT/
cat /tmp/r/times.txt; tail -1 /tmp/r/precompile.txt; cut -c1-300 /tmp/r/old_new.txt; grep -v "kernels\|Warn\|warn" /tmp/r/blockpeer.txt | tail -6
cd /tmp && tar czf $OUT/r.tgz r
