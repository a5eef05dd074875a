# session 35 run 1: fresh seeds 23-24 (held out of every rule), the shipped corpus, rowwise corpus,
# call path, blockpeer; the seeds' losers (< 0.8x) against v13's grid and cuBLAS's kernels on them
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
for s in 20262101 20262102; do
  t=$(date +%s); timeout 90 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
done
for rep in 1 2; do for s in 20262101 20262102; do
  t=$(date +%s); timeout 80 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s-$rep.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s-$rep.txt 2>&1; T fresh-$s-$rep $? $t
done; done
python3 tests/gpu/gemm/_pick_losers.py 0.8 /tmp/r/losers.json /tmp/r/fresh-2026210?-1.json > /tmp/r/losers.txt 2>&1
for s in 20262101 20262102; do python3 tests/gpu/gemm/_pick_losers.py 0.8 /tmp/r/losers-$s.json /tmp/r/fresh-$s-1.json >> /tmp/r/losers.txt 2>&1; done
t=$(date +%s); PROBE_LOSERS=/tmp/r/losers.json timeout 90 python3 tests/gpu/gemm/probe.py make --set losers --jobs 16 --out /tmp/r/cases_losers.json > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 80 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_losers.json --reps 15 --out /tmp/r/losers > /tmp/r/losers-probe.txt 2>&1; T probe $? $t
for s in 20262101 20262102; do
  if [ -s /tmp/r/losers-$s.json.names ]; then t=$(date +%s); timeout 60 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/fresh_$s.json --subset "$(cat /tmp/r/losers-$s.json.names)" --reps 3 --flush read --out /tmp/r/ck-$s > /tmp/r/ck-$s.txt 2>&1; T ck-$s $? $t; fi
done
t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 > /tmp/r/pre_corpus.txt 2>&1; T pre_corpus $? $t
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py run --out /tmp/r/corpus.json > /tmp/r/corpus.txt 2>&1; T corpus $? $t
t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --scale row > /tmp/r/pre_row.txt 2>&1; T pre_row $? $t
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py run --scale row --out /tmp/r/rowwise.json > /tmp/r/rowwise.txt 2>&1; T rowwise $? $t
t=$(date +%s); timeout 60 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb > /tmp/r/callbench.txt 2>&1; T callbench $? $t
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/r/bp > /tmp/r/blockpeer.txt 2>&1; T blockpeer $? $t
cat /tmp/r/times.txt; cat /tmp/r/losers.txt; for f in /tmp/r/fresh-*.txt /tmp/r/corpus.txt /tmp/r/rowwise.txt; do echo "== $f"; tail -5 $f; done
tail -25 /tmp/r/callbench.txt; tail -12 /tmp/r/blockpeer.txt
cd /tmp && tar czf $OUT/r.tgz r
