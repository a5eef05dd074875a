rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/probe.py make --set v70 --jobs 16 --out /tmp/r/probe_cases_v70.json > /tmp/r/make.txt 2>&1; T make $? $t
cp /tmp/r/probe_cases_v70.json /tmp/r/make.txt $OUT/ 2>/dev/null
t=$(date +%s); timeout 330 python3 tests/gpu/gemm/probe.py run /tmp/r/probe_cases_v70.json --reps 15 --top 10 --out /tmp/r/v70 > /tmp/r/probe_v70.txt 2>&1; T run $? $t
cat /tmp/r/times.txt; tail -2 /tmp/r/make.txt; grep -c "cuBLAS" /tmp/r/probe_v70.txt
cd /tmp && tar czf $OUT/r.tgz r
