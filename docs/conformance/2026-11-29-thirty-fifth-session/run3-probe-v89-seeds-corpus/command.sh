# session 35 run 3: v88 (SWAP_WAVE_BM and SWAP_PAD_MIN_KTILES held out against the plans before them), v89
# (long-K swapped pieces in one wave, fit/held halves), seeds 23-24 and the shipped corpus with the rules
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
for v in v88 v89; do
  t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py make --set $v --jobs 16 --out /tmp/r/cases_$v.json > /tmp/r/make_$v.txt 2>&1; T make_$v $? $t
done
for v in v88 v89; do
  t=$(date +%s); timeout 120 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_$v.json --reps 15 --out /tmp/r/$v > /tmp/r/$v.txt 2>&1; T run_$v $? $t
done
for s in 20262101 20262102; do
  t=$(date +%s); timeout 90 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 80 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
done
t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 > /tmp/r/pre_corpus.txt 2>&1; T pre_corpus $? $t
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py run --out /tmp/r/corpus.json > /tmp/r/corpus.txt 2>&1; T corpus $? $t
cat /tmp/r/times.txt; cat /tmp/r/make_v8*.txt | tail -4
for f in /tmp/r/fresh-*.txt /tmp/r/corpus.txt; do echo "== $f"; tail -6 $f | head -4; done
cd /tmp && tar czf $OUT/r.tgz r
