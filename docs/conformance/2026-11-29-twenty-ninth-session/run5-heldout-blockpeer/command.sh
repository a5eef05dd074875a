rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
HS=$(cat tests/gpu/gemm/ab_block_heldout_27.txt tests/gpu/gemm/ab_block_heldout_27b.txt | sort -u)
t=$(date +%s); PRECOMPILE=1 timeout 150 python3 tests/gpu/gemm/_old_new.py $HS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/_old_new.py $HS > /tmp/r/old_new.txt 2>&1; echo "old_new rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/old_new.txt $OUT/
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/r > /tmp/r/blockpeer.txt 2>&1; echo "blockpeer rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/blockpeer.txt $OUT/
t=$(date +%s); timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_epilogue.py -k "block" > /tmp/r/pytest_block.txt 2>&1; echo "pytest rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cat /tmp/r/times.txt; tail -1 /tmp/r/precompile.txt; cut -c1-300 /tmp/r/old_new.txt; grep -v "kernels\|Warn\|warn" /tmp/r/blockpeer.txt | tail -12; tail -2 /tmp/r/pytest_block.txt
cd /tmp && tar czf $OUT/r.tgz r
