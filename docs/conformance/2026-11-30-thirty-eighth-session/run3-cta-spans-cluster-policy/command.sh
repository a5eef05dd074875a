# scratch files it names, kept here: tests/gpu/gemm/_trace_all.json is trace_cases.json; the code ran at bdcd861 (FASTSWZ_CLUSTER_POLICY, taken out after this run: cluster_policy.diff)
# session 38 run 3: every CTA's start and end (trace.py --ctas 132) on 3280 x 288 x 1808 bf16: the default, 64 x 144 on one CTA and on 2 x 1, 1 x 2, 2 x 2 clusters; under each cluster scheduling policy (FASTSWZ_CLUSTER_POLICY)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_all.json --ctas 132 --precompile > /tmp/r/trace_pre.txt 2>&1; T pre $? $t
for pol in default spread load_balancing default; do
  t=$(date +%s); FASTSWZ_CLUSTER_POLICY=$pol OUT=/tmp/r timeout 60 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_all.json --ctas 132 > /tmp/r/trace-$pol.txt 2>&1; T trace-$pol $? $t
  mv /tmp/r/trace-_trace_all.json /tmp/r/trace-$pol-$t.json
done
(cd /tmp && tar czf $OUT/r.tgz r)
cat /tmp/r/times.txt; for f in /tmp/r/trace-*.txt; do echo "== $f"; grep -v "^   CTA" $f | cut -c1-200; done
cd /tmp && tar czf $OUT/r.tgz r
