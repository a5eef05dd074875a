# scratch files it names, kept here: tests/gpu/gemm/_early_specs.txt is early_specs.txt (32 one-CTA defaults of seeds 33-34 under 30 us, drawn with seed 20261803), _cluster_specs.txt is cluster_specs.txt (the 11 clustered defaults under 40 us of the thirty-eighth session's run 5), _trace_start.json is trace_cases.json, _abpre.py is the thirty-seventh session's run1-seeds-29-30-ffma-yield/abpre.py; the code ran at befa2c1 (kernel_start.diff: both defines, off by default; taken out after this run)
# session 39 run 3: the kernel's start: the TMA descriptors prefetched first thing (FSW_EARLY_TMAP) and a cluster's start barrier split into an early arrive and late waits (FSW_CLUSTER_SPLIT), traced on 3280 x 288 x 1808 and A/B'd on 32 short one-CTA defaults of seeds 33-34 and 11 short clustered defaults
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
E='{"FSW_EARLY_TMAP":1}'; S='{"FSW_CLUSTER_SPLIT":1}'; ES='{"FSW_EARLY_TMAP":1,"FSW_CLUSTER_SPLIT":1}'
A="$(cat tests/gpu/gemm/_early_specs.txt)"; C="$(cat tests/gpu/gemm/_cluster_specs.txt)"
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_abpre.py "$E" -- $A > /tmp/r/abpre1.txt 2>&1; timeout 120 python3 tests/gpu/gemm/_abpre.py "$E" "$S" "$ES" -- $C > /tmp/r/abpre2.txt 2>&1 & timeout 100 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_start.json --precompile > /tmp/r/trace_pre.txt 2>&1; wait; T pre $? $t
t=$(date +%s); OUT=/tmp/r timeout 60 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_start.json --ctas 132 > /tmp/r/trace.txt 2>&1; T trace $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/ab_defines.py "$E" $A > /tmp/r/ab_early_one.txt 2>&1; T ab_early_one $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
for v in E S ES; do
  t=$(date +%s); timeout 50 python3 tests/gpu/gemm/ab_defines.py "${!v}" $C > /tmp/r/ab_cluster_$v.txt 2>&1; T ab_cluster_$v $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
cat /tmp/r/times.txt; grep -v "^   CTA" /tmp/r/trace.txt | cut -c1-250; for f in /tmp/r/ab_*.txt; do echo "== $f"; cut -c1-150 $f; done
cd /tmp && tar czf $OUT/r.tgz r
