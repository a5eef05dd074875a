# the code ran at 1523307 (the fix; the final code but for the docs)
# session 39 run 8: the rowwise corpus again after the fix of the swapped plans' prepared launch (run 7: 120 swapped rows errored); GemmKernel.time on a swapped rowwise plan
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --scale row > /tmp/r/pre_row.txt 2>&1; T pre_row $? $t
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py run --scale row --out /tmp/r/rowwise.json > /tmp/r/rowwise.txt 2>&1; T rowwise $? $t
t=$(date +%s); timeout 30 python3 -c "
from fastswz.cuda import default_config, compile_gemm
c = default_config(8, 7168, 4096, 'e4m3', 'e4m3', out_dtype='bf16', fusion={'scale': 'row'})
print({k: c[k] for k in ('bm', 'bn', 'swap_ab', 'split_k', 'scale')}, compile_gemm(c).time(8, 7168, 4096, reps=5))
" > /tmp/r/time_rowwise.txt 2>&1; T time_rowwise $? $t
cat /tmp/r/times.txt; tail -6 /tmp/r/rowwise.txt; grep -c ERROR /tmp/r/rowwise.txt; cat /tmp/r/time_rowwise.txt | tail -2
cd /tmp && tar czf $OUT/r.tgz r
