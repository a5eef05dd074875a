# scratch files it names: none (set v94 is in tests/gpu/gemm/probe.py, its draws in probe_drawn.json); the code ran at 1dcdfce
# session 37 run 7: probe set v94 held out (HALF_WIDTH_TALL's plan against choose_plan's on 30 drawn problems)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/probe.py make --set v94 --jobs 16 --out /tmp/r/cases_v94.json > /tmp/r/make_v94.txt 2>&1; T make $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/probe.py run /tmp/r/cases_v94.json --reps 15 --out /tmp/r/v94 > /tmp/r/v94-probe.txt 2>&1; T probe $? $t
cat /tmp/r/times.txt; tail -5 /tmp/r/make_v94.txt; grep -A3 "cuBLAS" /tmp/r/v94-probe.txt | cut -c1-150 | head -130
cd /tmp && tar czf $OUT/r.tgz r
