# scratch files it names, kept here: tests/gpu/gemm/_v100_cases.json.gz is v100_cases.json.gz (probe.py make --set v100 with the compile step skipped), _ncu37.txt is ncu_problems.txt (ncu_causes.py select --below 0.9 on run 1's seeds 37-38), _pre_cases.py is the thirty-ninth session's run1 pre_cases.py; the code ran at 8d5ac64 with set v100 added to probe.py (committed unchanged in 832584c)
# session 40 run 2: probe set v100 (every unswapped 128-row split default of the corpus and seeds 1-38 beside four alternatives; _v100_cases.json from probe.py make --set v100, compile skipped); Nsight Compute on seeds 37-38's problems under 0.9x (_ncu37.txt, ncu_causes.py select on run 1)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
gunzip -k tests/gpu/gemm/_v100_cases.json.gz; t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre_cases.py tests/gpu/gemm/_v100_cases.json > /tmp/r/pre_v100.txt 2>&1; T pre $? $t
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_v100_cases.json --reps 10 --out /tmp/r/v100 > /tmp/r/v100.txt 2>&1; T v100 $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ncu_causes.py run tests/gpu/gemm/_ncu37.txt --out /tmp/r/ncu_causes --chunk 8 --deadline 180 > /tmp/r/ncu_causes.txt 2>&1; T ncu $? $t
(cd /tmp/r && tar czf ncu_causes.tgz ncu_causes && rm -rf ncu_causes)
cat /tmp/r/times.txt; tail -5 /tmp/r/v100.txt; tail -3 /tmp/r/ncu_causes.txt
cd /tmp && tar czf $OUT/r.tgz r
