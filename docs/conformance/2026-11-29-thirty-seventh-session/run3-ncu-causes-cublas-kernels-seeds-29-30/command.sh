# scratch files it names, kept here: tests/gpu/gemm/_names_SEED.txt; the code ran at ea7e7f7 (sass.ffma_yield inert without its defines)
# session 37 run 3: Nsight Compute causes of seeds 29-30's problems under 0.9x (run 1's times); cuBLAS's kernels on them
# scratch: tests/gpu/gemm/_names_SEED.txt are the problem names `ncu_causes.py select run1/fresh-SEED.json.gz --below 0.9` gives
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
C=docs/conformance/2026-11-29-thirty-seventh-session/run1-seeds-29-30-ffma-yield
for s in 20262401 20262402; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  python3 tests/gpu/gemm/ncu_causes.py select $C/fresh-$s.json.gz --below 0.9 >> /tmp/r/ncu_problems.txt
done
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ncu_causes.py run /tmp/r/ncu_problems.txt --out /tmp/r/ncu_causes --chunk 8 --deadline 180 > /tmp/r/ncu_causes.txt 2>&1; T ncu $? $t
(cd /tmp/r && tar czf ncu_causes.tgz ncu_causes && rm -rf ncu_causes)
(cd /tmp && tar czf $OUT/r.tgz r)
for s in 20262401 20262402; do
  t=$(date +%s); timeout 60 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/fresh_$s.json --subset "$(cat tests/gpu/gemm/_names_$s.txt)" --reps 3 --flush read --out /tmp/r/ck-$s > /tmp/r/ck-$s.txt 2>&1; T ck-$s $? $t
  (cd /tmp && tar czf $OUT/r.tgz r)
done
cat /tmp/r/times.txt; tail -4 /tmp/r/ncu_causes.txt
cd /tmp && tar czf $OUT/r.tgz r
