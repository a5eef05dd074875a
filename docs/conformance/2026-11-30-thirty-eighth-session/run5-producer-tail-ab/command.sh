# scratch files it names, kept here: tests/gpu/gemm/_cend_specs.txt is cend_specs.txt (40 drawn, seed 20261801, from clustered_defaults.json: every default plan with a cluster over the corpus and seeds 1-32), _cend_variants.json is cend_variants.json, _abpre.py is the thirty-seventh session's run1-seeds-29-30-ffma-yield/abpre.py, _trace_all.json run 3's trace_cases.json; the code ran at cd300ed
# session 38 run 5: the producer tail in place of the last cluster barrier (FSW_CLUSTER_END 1, new) against the cluster barrier (0):
# 40 clustered defaults drawn from the corpus and seeds (seed 20261801, tests/gpu/gemm/_cend_specs.txt), and 3280 x 288 x 1808's 64 x 144 clusters; traces again
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
E='{"FSW_CLUSTER_END":0}'; SPECS="$(cat tests/gpu/gemm/_cend_specs.txt)"
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_abpre.py "$E" -- $SPECS > /tmp/r/abpre.txt 2>&1 &
PRECOMPILE=1 JOBS=8 timeout 150 python3 tests/gpu/gemm/ab_configs.py "$(cat tests/gpu/gemm/_cend_variants.json)" 3280x288x1808:bf16 > /tmp/r/abcpre.txt 2>&1 &
timeout 150 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_all.json --ctas 132 --precompile > /tmp/r/trace_pre.txt 2>&1 &
wait; T pre $? $t
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/ab_configs.py "$(cat tests/gpu/gemm/_cend_variants.json)" 3280x288x1808:bf16 > /tmp/r/ab_tall.txt 2>&1; T ab_tall $? $t
t=$(date +%s); OUT=/tmp/r timeout 60 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_all.json --ctas 132 > /tmp/r/trace.txt 2>&1; T trace $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 240 python3 tests/gpu/gemm/ab_defines.py "$E" $SPECS > /tmp/r/ab_cend.txt 2>&1; T ab_cend $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
cat /tmp/r/times.txt; cat /tmp/r/abpre.txt /tmp/r/abcpre.txt | tail -3; cat /tmp/r/ab_tall.txt | cut -c1-300; grep -v "^   CTA" /tmp/r/trace.txt | cut -c1-250; cat /tmp/r/ab_cend.txt | cut -c1-160
cd /tmp && tar czf $OUT/r.tgz r
