# session 35 run 2: probe sets v85, v86, v87 (stated before the run in probe.py)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
for v in v85 v86 v87; do
  t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py make --set $v --jobs 16 --out /tmp/r/cases_$v.json > /tmp/r/make_$v.txt 2>&1; T make_$v $? $t
done
for v in v85 v86 v87; do
  t=$(date +%s); timeout 120 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_$v.json --reps 15 --out /tmp/r/$v > /tmp/r/$v.txt 2>&1; T run_$v $? $t
done
cat /tmp/r/times.txt; cat /tmp/r/make_v8*.txt | tail -6
cd /tmp && tar czf $OUT/r.tgz r
