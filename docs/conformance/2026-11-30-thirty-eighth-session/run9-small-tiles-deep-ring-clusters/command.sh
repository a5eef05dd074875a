# scratch files it names, kept here: tests/gpu/gemm/_cend_small.json is cend_small.json; the code ran at cd300ed
# session 38 run 9: cuBLAS's small tiles, deep ring and clusters (nvjet 64x64, 13 stages, 2 x 4 on 999 x 384 x 4080) on our kernel with the producer tail: 64 x 64, 13 stages, one CTA and 2 x 2, 4 x 1, 1 x 2, 2 x 1 clusters
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
S="999x384x4080:bf16 3280x288x1808:bf16 2021x480x2528:bf16"
t=$(date +%s); PRECOMPILE=1 JOBS=16 timeout 60 python3 tests/gpu/gemm/ab_configs.py "$(cat tests/gpu/gemm/_cend_small.json)" $S > /tmp/r/pre.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 80 python3 tests/gpu/gemm/ab_configs.py "$(cat tests/gpu/gemm/_cend_small.json)" $S > /tmp/r/ab_small.txt 2>&1; T ab_small $? $t
cat /tmp/r/times.txt; cat /tmp/r/ab_small.txt | tr ';' '\n' | cut -c1-200
cd /tmp && tar czf $OUT/r.tgz r
