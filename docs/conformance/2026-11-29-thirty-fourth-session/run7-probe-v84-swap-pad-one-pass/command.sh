# code: b9c18c9 + probe set v84 (committed as 2nd commit after it); the rule was written after this run
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py make --set v84 --jobs 16 --out /tmp/r/cases_v84.json > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_v84.json --reps 15 --top 4 --out /tmp/r/v84 > /tmp/r/v84.txt 2>&1; T run84 $? $t
cat /tmp/r/times.txt; tail -2 /tmp/r/make.txt
cd /tmp && tar czf $OUT/r.tgz r
