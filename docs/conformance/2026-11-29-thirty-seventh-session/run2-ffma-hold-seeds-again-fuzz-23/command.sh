# scratch files it names, kept in run1: tests/gpu/gemm/_abpre.py (abpre.py), _ffma_held.txt (ffma_held.txt); _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py; the code ran at ea7e7f7
# session 37 run 2: sass.ffma_yield(allow=False) (FSW_FFMA_HOLD) A/B; seeds 29-30 second pass; fuzz seed 23
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
H='{"FSW_FFMA_HOLD":1}'
SPECS="$(cat tests/gpu/gemm/ab_block_specs.txt) $(head -3 tests/gpu/gemm/ab_fused_plan_specs.txt) $(head -4 tests/gpu/gemm/_ffma_held.txt)"
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_abpre.py "$H" -- $SPECS > /tmp/r/abpre.txt 2>&1; T abpre $? $t
t=$(date +%s); timeout 170 python3 tests/gpu/gemm/ab_defines.py "$H" $SPECS > /tmp/r/ab_hold1.txt 2>&1; T ab_hold1 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/_fuzzpre.py 100 23 > /tmp/r/fuzzpre.txt 2>&1; T fuzzpre $? $t
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/fuzz.py run --seed 23 --cases 100 --out /tmp/r/fuzz23.json > /tmp/r/fuzz23.txt 2>&1; T fuzz23 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
for s in 20262401 20262402; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s-2.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s-2.txt 2>&1; T fresh-$s $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
cat /tmp/r/times.txt; cat /tmp/r/ab_hold1.txt | cut -c1-230; tail -3 /tmp/r/fuzz23.txt; for f in /tmp/r/fresh-*.txt; do echo "== $f"; tail -9 $f | head -6; done
cd /tmp && tar czf $OUT/r.tgz r
