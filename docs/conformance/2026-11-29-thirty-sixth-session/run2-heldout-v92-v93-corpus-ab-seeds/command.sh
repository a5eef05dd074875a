# scratch files it names: tests/gpu/gemm/_old_init.py and _old_runtime.py were `git show 4669870:src/fastswz/cuda/__init__.py` and `runtime.py` (the session start); _losers_25_26.json and _losers_2026220?.names are run1's losers_25_26.json and .names files; _rules_off.py is run2's rules_off.py; _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py
# session 36 run 2: held-out sets v92 (ROUND_UP_WIDTH_RANGE) and v93 (TALL_TWO_CONSUMERS_MAX_N),
# stated and drawn before the run; the corpus with the two rules and without (in turn); seeds 27-28 with them
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
for v in v92 v93; do
  t=$(date +%s); timeout 100 python3 tests/gpu/gemm/probe.py make --set $v --jobs 16 --out /tmp/r/cases_$v.json > /tmp/r/make_$v.txt 2>&1; T make_$v $? $t
done
for v in v92 v93; do
  t=$(date +%s); timeout 100 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_$v.json --reps 15 --out /tmp/r/$v > /tmp/r/$v-probe.txt 2>&1; T probe_$v $? $t
done
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 > /tmp/r/pre_corpus.txt 2>&1; T pre_corpus $? $t
t=$(date +%s); timeout 60 python3 tests/gpu/gemm/_rules_off.py precompile --jobs 16 > /tmp/r/pre_corpus_off.txt 2>&1; T pre_corpus_off $? $t
t=$(date +%s); timeout 90 python3 benchmarks/gpu_corpus.py run --out /tmp/r/corpus-on.json > /tmp/r/corpus-on.txt 2>&1; T corpus-on $? $t
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/_rules_off.py run --out /tmp/r/corpus-off.json > /tmp/r/corpus-off.txt 2>&1; T corpus-off $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
for s in 20262301 20262302; do
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
  t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s.txt 2>&1; T fresh-$s $? $t
done
cat /tmp/r/times.txt; for f in /tmp/r/corpus-*.txt /tmp/r/fresh-*.txt; do echo "== $f"; tail -9 $f | head -6; done
cd /tmp && tar czf $OUT/r.tgz r
