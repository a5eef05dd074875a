# tests/gpu/gemm/_clu.py is ../run2-trace-cluster-start-warpgroups/clu.py (its ab mode)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/_clu.py ab /tmp/r/ab_cluster_start.json > /tmp/r/ab_cluster_start.txt 2>&1; T ab $? $t
for s in 20261901 20261902; do
  t=$(date +%s); timeout 180 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 150 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T run_$s $? $t
done
cat /tmp/r/times.txt; tail -5 /tmp/r/ab_cluster_start.txt; for s in 20261901 20261902; do tail -4 /tmp/r/fresh-$s.txt; done
cd /tmp && tar czf $OUT/r.tgz r
