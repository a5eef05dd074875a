# (code: 97e4579 plus probe set v81, as committed in b9c18c9)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/probe.py make --set v81 --jobs 16 --out /tmp/r/cases_v81.json > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 300 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_v81.json --reps 10 --top 4 --out /tmp/r/v81 > /tmp/r/v81.txt 2>&1; T run81 $? $t
t=$(date +%s)
timeout 60 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/fresh_20261901.json --subset 'fresh-20261901.l63.m15615.bf16,fresh-20261901.l12.m412.bf16,fresh-20261901.l77.m739.e4m3,fresh-20261901.l24.m670.e4m3,fresh-20261901.l24.m1416.e4m3' --reps 3 > /tmp/r/ck19.txt 2>&1
timeout 60 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/fresh_20261902.json --subset 'fresh-20261902.l28.m4926.bf16,fresh-20261902.l28.m9505.bf16,fresh-20261902.l49.m1501.bf16,fresh-20261902.l61.m279.bf16,fresh-20261902.l53.m302.bf16' --reps 3 > /tmp/r/ck20.txt 2>&1
T cublas $? $t
cd /tmp && tar czf $OUT/r.tgz r
