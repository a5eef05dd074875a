rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
for v in v76; do
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/probe.py make --set $v --jobs 16 --out /tmp/r/probe_cases_$v.json > /tmp/r/make_$v.txt 2>&1; T make_$v $? $t
t=$(date +%s); timeout 250 python3 tests/gpu/gemm/probe.py run /tmp/r/probe_cases_$v.json --reps 15 --top 6 --out /tmp/r/$v > /tmp/r/probe_$v.txt 2>&1; T run_$v $? $t
done
cat /tmp/r/times.txt; tail -1 /tmp/r/make_v7*.txt
cd /tmp && tar czf $OUT/r.tgz r
