rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/probe.py make --set v72 --jobs 16 --out /tmp/r/probe_cases_v72.json > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 330 python3 tests/gpu/gemm/probe.py run /tmp/r/probe_cases_v72.json --reps 10 --top 6 --out /tmp/r/v72 > /tmp/r/probe_v72.txt 2>&1; T run $? $t
cat /tmp/r/times.txt; tail -2 /tmp/r/make.txt; grep -c "cuBLAS" /tmp/r/probe_v72.txt
gzip -f /tmp/r/v72/probe.json /tmp/r/probe_v72.txt
cd /tmp && tar czf $OUT/r.tgz r
