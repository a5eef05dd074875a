# scratch files it names, kept here: tests/gpu/gemm/_abpre.py is the thirty-seventh session's run1-seeds-29-30-ffma-yield/abpre.py, _burst_specs.txt is burst_specs.txt, _trace_burst.json is trace_cases.json; the code ran at a683b81 (FSW_FIRST_BURST, off by default)
# session 38 run 1: seeds 31-32 (held out); the producer's first burst (FSW_FIRST_BURST) traced and A/B'd; stage counts traced on 3280 x 288 x 1808
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
B1='{"FSW_FIRST_BURST":1}'; B2='{"FSW_FIRST_BURST":2}'
SPECS="$(cat tests/gpu/gemm/_burst_specs.txt)"
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_abpre.py "$B1" "$B2" -- $SPECS > /tmp/r/abpre.txt 2>&1 &
timeout 100 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_burst.json --precompile > /tmp/r/trace_pre.txt 2>&1; wait; T pre $? $t
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_burst.json --ctas 16 > /tmp/r/trace.txt 2>&1; T trace $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/ab_defines.py "$B2" $SPECS > /tmp/r/ab_burst2.txt 2>&1; T ab_burst2 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/ab_defines.py "$B1" $SPECS > /tmp/r/ab_burst1.txt 2>&1; T ab_burst1 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
for s in 20262501 20262502; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 75 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
cat /tmp/r/times.txt; grep -v "^   CTA" /tmp/r/trace.txt | cut -c1-200; cat /tmp/r/ab_burst2.txt /tmp/r/ab_burst1.txt | cut -c1-200; for f in /tmp/r/fresh-*.txt; do echo "== $f"; tail -9 $f | head -6; done
cd /tmp && tar czf $OUT/r.tgz r
