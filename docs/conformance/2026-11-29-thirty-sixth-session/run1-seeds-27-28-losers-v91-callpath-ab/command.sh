# scratch files it names: tests/gpu/gemm/_old_init.py and _old_runtime.py were `git show 4669870:src/fastswz/cuda/__init__.py` and `runtime.py` (the session start); _losers_25_26.json and _losers_2026220?.names are run1's losers_25_26.json and .names files; _rules_off.py is run2's rules_off.py; _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py
# session 36 run 1: fresh seeds 27-28 (held out, current code), the unseen losers of seeds 25-28
# (< 0.86x) against probe set v91 and cuBLAS's kernels on them; the call path, new and old fused
# fast path (A/B, in turn); the fused fast-path GPU tests
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
rm -rf /tmp/old; mkdir -p /tmp/old; cp -r src /tmp/old/
cp tests/gpu/gemm/_old_init.py /tmp/old/src/fastswz/cuda/__init__.py; cp tests/gpu/gemm/_old_runtime.py /tmp/old/src/fastswz/cuda/runtime.py
t=$(date +%s); timeout 60 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb-new1 > /tmp/r/callbench-new1.txt 2>&1; T cb-new1 $? $t
t=$(date +%s); PYTHONPATH=/tmp/old/src:/tmp/bt timeout 60 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb-old > /tmp/r/callbench-old.txt 2>&1; T cb-old $? $t
t=$(date +%s); timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_epilogue.py -k "fast_path or parity" > /tmp/r/tests.txt 2>&1; T tests $? $t
for s in 20262301 20262302; do
  t=$(date +%s); timeout 90 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
done
for rep in 1 2; do for s in 20262301 20262302; do
  t=$(date +%s); timeout 80 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s-$rep.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s-$rep.txt 2>&1; T fresh-$s-$rep $? $t
done; done
(cd /tmp && tar czf $OUT/r.tgz r)
python3 tests/gpu/gemm/_pick_losers.py 0.86 /tmp/r/losers-new.json /tmp/r/fresh-2026230?-1.json > /tmp/r/losers.txt 2>&1
python3 -c "
import json; a=json.load(open('tests/gpu/gemm/_losers_25_26.json')); b=json.load(open('/tmp/r/losers-new.json'))
json.dump(a+[x for x in b if x not in a], open('/tmp/r/losers.json','w')); print(len(a), len(b))" >> /tmp/r/losers.txt 2>&1
for s in 20262301 20262302; do python3 tests/gpu/gemm/_pick_losers.py 0.86 /tmp/r/losers-$s.json /tmp/r/fresh-$s-1.json >> /tmp/r/losers.txt 2>&1; done
t=$(date +%s); PROBE_LOSERS=/tmp/r/losers.json timeout 150 python3 tests/gpu/gemm/probe.py make --set v91 --jobs 16 --out /tmp/r/cases_v91.json > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_v91.json --reps 15 --out /tmp/r/v91 > /tmp/r/v91-probe.txt 2>&1; T probe $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
for s in 20262201 20262202; do
  t=$(date +%s); timeout 40 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/fresh_$s.json --subset "$(cat tests/gpu/gemm/_losers_$s.names)" --reps 3 --flush read --out /tmp/r/ck-$s > /tmp/r/ck-$s.txt 2>&1; T ck-$s $? $t
done
for s in 20262301 20262302; do
  if [ -s /tmp/r/losers-$s.json.names ]; then t=$(date +%s); timeout 40 python3 tests/gpu/gemm/cublas_kernels.py --corpus tests/gpu/gemm/fresh_$s.json --subset "$(cat /tmp/r/losers-$s.json.names)" --reps 3 --flush read --out /tmp/r/ck-$s > /tmp/r/ck-$s.txt 2>&1; T ck-$s $? $t; fi
done
cat /tmp/r/times.txt; cat /tmp/r/losers.txt; for f in /tmp/r/fresh-*.txt; do echo "== $f"; tail -4 $f; done
tail -3 /tmp/r/tests.txt; for f in /tmp/r/callbench-*.txt; do echo "== $f"; grep -A12 "host time per call" $f; done
cd /tmp && tar czf $OUT/r.tgz r
