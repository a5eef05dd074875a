# tests/gpu/gemm/_v80.json is cases_v80.json in this folder; no .whl carried (the tree with it was over the device's 64 MiB: the machine's own Cython and setuptools built the extension)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 240 python3 tests/gpu/gemm/_clu.py pre tests/gpu/gemm/_v80.json > /tmp/r/pre.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 300 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v80.json --reps 15 --out /tmp/r/v80 > /tmp/r/v80.txt 2>&1; T v80 $? $t
cat /tmp/r/times.txt; head -5 /tmp/r/pre.txt; grep -c "cuBLAS" /tmp/r/v80.txt; grep "BAD\|not ok" /tmp/r/v80.txt | grep -v " 0 not ok" | head
cd /tmp && tar czf $OUT/r.tgz r
