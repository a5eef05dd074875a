# scratch files it names, kept here: tests/gpu/gemm/_trace_tall.json is trace_cases.json; the code ran at ea7e7f7
# session 37 run 5: the consumer loop's phases (trace.py, FSW_TRACE) on 3280 x 288 x 1808 bf16's plans (scratch: tests/gpu/gemm/_trace_tall.json)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_tall.json --precompile > /tmp/r/trace_pre.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_tall.json --ctas 16 > /tmp/r/trace.txt 2>&1; T trace $? $t
cat /tmp/r/times.txt; cat /tmp/r/trace.txt | cut -c1-250
cd /tmp && tar czf $OUT/r.tgz r
