# code b9c18c9 (the rule committed before this run); probe set v83 and fresh seeds 21-22 (tests/gpu/gemm/fresh_20262001.json, fresh_20262002.json) as committed there
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py make --set v83 --jobs 16 --out /tmp/r/cases_v83.json > /tmp/r/make.txt 2>&1; T make $? $t
for s in 20262001 20262002; do
  t=$(date +%s); timeout 150 python3 benchmarks/gpu_corpus.py precompile --jobs 16 --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/pre_$s.txt 2>&1; T pre_$s $? $t
done
for rep in 1 2; do
  for P in auto 256; do
    t=$(date +%s); FASTSWZ_L2_PROMOTION=$P timeout 100 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_v83.json --reps 15 --out /tmp/r/v83-$P-$rep > /tmp/r/v83-$P-$rep.txt 2>&1; T v83-$P-$rep $? $t
    for s in 20262001 20262002; do
      t=$(date +%s); FASTSWZ_L2_PROMOTION=$P timeout 100 python3 benchmarks/gpu_corpus.py run --out /tmp/r/fresh-$s-$P-$rep.json --corpus tests/gpu/gemm/fresh_$s.json > /tmp/r/fresh-$s-$P-$rep.txt 2>&1; T fresh-$s-$P-$rep $? $t
    done
  done
done
cat /tmp/r/times.txt; for f in /tmp/r/fresh-*.txt; do echo $f; tail -4 $f; done
cd /tmp && tar czf $OUT/r.tgz r
