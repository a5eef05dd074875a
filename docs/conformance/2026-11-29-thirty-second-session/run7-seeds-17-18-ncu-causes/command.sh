# tests/gpu/gemm/_ncu_problems.txt is ncu_problems.txt in this folder (ncu_causes.py select on run 6's two corpus runs, --below 0.9, sorted by ratio)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
for s in 20261801 20261802; do
  t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
done
t=$(date +%s); timeout 330 python3 tests/gpu/gemm/ncu_causes.py run tests/gpu/gemm/_ncu_problems.txt --out /tmp/r/ncu_causes --chunk 6 --deadline 200 --timeout 120 > /tmp/r/ncu_causes.txt 2>&1; T ncu $? $t
cat /tmp/r/times.txt; tail -8 /tmp/r/ncu_causes.txt
cd /tmp && tar czf $OUT/r.tgz r
