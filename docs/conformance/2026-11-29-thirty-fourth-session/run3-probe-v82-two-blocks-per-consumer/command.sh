# code: b9c18c9's parent (97e4579) + consumer_rows.diff + probe_v82.py appended to tests/gpu/gemm/probe.py
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 200 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py -k "two_blocks or clusters_of_four or clusters_along" > /tmp/r/tests.txt 2>&1; T tests $? $t
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/probe.py make --set v82 --jobs 16 --out /tmp/r/cases_v82.json > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 240 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_v82.json --reps 10 --top 5 --out /tmp/r/v82 > /tmp/r/v82.txt 2>&1; T run82 $? $t
cd /tmp && tar czf $OUT/r.tgz r
