# tests/gpu/gemm/_v77.json is cases_v77.json in this folder (make_v77.py)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 240 python3 tests/gpu/gemm/_clu.py pre tests/gpu/gemm/_v77.json > /tmp/r/pre.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 300 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v77.json --reps 10 --out /tmp/r/v77 > /tmp/r/v77.txt 2>&1; T v77 $? $t
cat /tmp/r/times.txt; head -5 /tmp/r/pre.txt; grep -c "cuBLAS" /tmp/r/v77.txt; grep "BAD\|not ok" /tmp/r/v77.txt | grep -v " 0 not ok" | head
cd /tmp && tar czf $OUT/r.tgz r
