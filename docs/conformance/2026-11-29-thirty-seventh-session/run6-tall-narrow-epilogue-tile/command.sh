# scratch files it names, kept here: tests/gpu/gemm/_tall_variants.json is tall_variants.json (this run's: epilogue=True); the code ran at e350bc3
# session 37 run 6: the same with the epilogue tile (epilogue=True): tall narrow problems (seeds 21-30's losers with M >= 1936, N <= 512) on 64 x ceil(N/2) tiles
# and clusters up to 4 x 2 (cuBLAS ran 3280 x 288 x 1808 bf16 as 64 x 144 on a 4 x 2 cluster), against the default
# scratch: tests/gpu/gemm/_tall_variants.json (each problem's variants, from supported())
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
V=tests/gpu/gemm/_tall_variants.json
P=$(python3 -c "import json; print(' '.join(json.load(open('$V'))))")
for p in $P; do
  v=$(python3 -c "import json,sys; print(json.dumps(json.load(open('$V'))['$p']))")
  (PRECOMPILE=1 JOBS=16 timeout 60 python3 tests/gpu/gemm/ab_configs.py "$v" $p >> /tmp/r/pre.txt 2>&1) &
done
wait
for p in $P; do
  v=$(python3 -c "import json,sys; print(json.dumps(json.load(open('$V'))['$p']))")
  t=$(date +%s); timeout 60 python3 tests/gpu/gemm/ab_configs.py "$v" $p >> /tmp/r/tall.txt 2>&1; T $p $? $t
done
cat /tmp/r/times.txt; cat /tmp/r/pre.txt | tail -8; sed 's/; /\n   /g' /tmp/r/tall.txt | cut -c1-200
cd /tmp && tar czf $OUT/r.tgz r
