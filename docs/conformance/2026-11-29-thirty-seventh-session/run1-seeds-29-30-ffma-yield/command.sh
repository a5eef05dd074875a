# scratch files it names, kept here: tests/gpu/gemm/_abpre.py is abpre.py, _ffma_held.txt is ffma_held.txt; the code ran at 4362a25 (ffma_yield.diff: sass.ffma_yield and its hook, taken out after run 2)
# session 37 run 1: seeds 29-30 (held out) at the session's start; sass.ffma_yield A/B (block-scaled, promoted rowwise, fused)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
Y='{"FSW_FFMA_YIELD":1}'; G='{"FSW_GAUGE":1}'
SPECS="$(cat tests/gpu/gemm/ab_block_specs.txt) $(head -3 tests/gpu/gemm/ab_fused_plan_specs.txt) $(cat tests/gpu/gemm/_ffma_held.txt)"
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_abpre.py "$Y" "$G" -- $SPECS > /tmp/r/abpre.txt 2>&1; T abpre $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/ab_defines.py "$Y" $SPECS > /tmp/r/ab_yield1.txt 2>&1; T ab_yield1 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/ab_defines.py "$G" $(cat tests/gpu/gemm/ab_block_specs.txt) > /tmp/r/ab_gauge.txt 2>&1; T ab_gauge $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
for s in 20262401 20262402; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
cat /tmp/r/times.txt; cat /tmp/r/ab_yield1.txt /tmp/r/ab_gauge.txt | cut -c1-230; for f in /tmp/r/fresh-*.txt; do echo "== $f"; tail -9 $f | head -6; done
cd /tmp && tar czf $OUT/r.tgz r
