# code: 97e4579 with a scratch override in src/fastswz/cuda/_driver.pyx (every tensor map encoded with
#   CUtensorMapL2promotion = int(os.environ.get("FSW_L2_PROMOTION", 3)): 0 none, 1 64B, 2 128B, 3 256B);
#   the committed rule (b9c18c9) reads FASTSWZ_L2_PROMOTION=auto|none|128|256 instead.
# tests/gpu/gemm/_promo_cases.json is this folder's cases.json.gz: the default plans of the 130
#   corpus and seed 1-20 problems under 0.85x cuBLAS's speed in the merged rows of the thirty-third
#   session's merge.py (with seeds 19-20's run-6 rows) and 60 others drawn from them (random.seed(5)),
#   once each: 190 problems. tests/gpu/gemm/_mc.py is run 2's mc.py (its `pre` command).
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/_mc.py pre tests/gpu/gemm/_promo_cases.json > /tmp/r/pre.txt 2>&1; T pre $? $t
for P in 3 2 0 1 3; do
  t=$(date +%s); FSW_L2_PROMOTION=$P timeout 150 python3 tests/gpu/gemm/probe.py run tests/gpu/gemm/_promo_cases.json --reps 10 --out /tmp/r/promo$P-$t > /tmp/r/promo$P-$t.txt 2>&1; T promo$P $? $t
done
cd /tmp && tar czf $OUT/r.tgz r
