# tests/gpu/gemm/_clu.py is clu.py in this folder (its plans() as run here; later runs added the pre, ab modes)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_clu.py make > /tmp/r/make.txt 2>&1; T make $? $t

t=$(date +%s); timeout 300 python3 tests/gpu/gemm/_clu.py gemm /tmp/r/gemm.json > /tmp/r/gemm.txt 2>&1; T gemm $? $t


cat /tmp/r/times.txt; grep -v "^   CTA" /tmp/r/gemm.txt | tail -60
cd /tmp && tar czf $OUT/r.tgz r
