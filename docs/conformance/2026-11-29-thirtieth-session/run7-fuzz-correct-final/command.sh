rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 8 9 > /tmp/r/fuzz_pre.txt 2>&1; echo "fuzzpre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/fuzz.py run --seed 8 9 --cases 100 --out /tmp/r/fuzz-SEED.json > /tmp/r/fuzz.txt 2>&1; echo "fuzz rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/fuzz.txt /tmp/r/times.txt $OUT/ 2>/dev/null
t=$(date +%s); timeout 220 python3 tests/gpu/gemm/epilogue.py correct --out /tmp/r/correct > /tmp/r/correct.txt 2>&1; echo "correct rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/correct.txt /tmp/r/times.txt $OUT/ 2>/dev/null
cat /tmp/r/times.txt; cat /tmp/r/fuzz_pre.txt | tail -2; tail -8 /tmp/r/fuzz.txt; tail -4 /tmp/r/correct.txt
cd /tmp && tar czf $OUT/r.tgz r
