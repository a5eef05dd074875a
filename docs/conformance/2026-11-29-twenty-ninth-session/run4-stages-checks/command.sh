rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bn":128,"stages":6,"epilogue_n":0},{"bn":128,"stages":6,"epilogue_n":32},{"stages":6,"epilogue_n":32},{"bn":128,"stages":5,"epilogue_n":0}]'
BS="$(tr '\n' ' ' < tests/gpu/gemm/ab_block_specs.txt | sed 's/4096x4096x4096:e4m3:{"scale":"row","promote":true}//') 2048x7168x2048:e4m3:{\"scale\":\"block\"} 8192x2048x1024:e4m3:{\"scale\":\"block\"} 6144x3072x2560:e4m3:{\"scale\":\"block\"}"
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_stages.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_stages.txt $OUT/
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/epilogue.py correct --out /tmp/r/correct > /tmp/r/correct.txt 2>&1; echo "correct rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/correct.txt $OUT/
for cfg in "bm=128,bn=128,bk=128,stages=6,epilogue=1,a_dtype=e4m3,b_dtype=e4m3,scale=block"; do
cat > /tmp/case.py <<PY
import sys
sys.path.insert(0, "src")
kv = dict(x.split("=") for x in "$cfg".split(","))
cfg = {k: (int(v) if v.isdigit() else v) for k, v in kv.items()}
cfg["epilogue"] = bool(cfg.get("epilogue", 0))
from fastswz.cuda import compile_gemm
from fastswz.cuda.runtime import check
for shape in ((300, 1000, 520), (1100, 2100, 1000)):
    r = check(compile_gemm(cfg), *shape, ints=True)
    print("check", shape, r)
    if not (r["ok"] and r["unwritten"] == 0):
        sys.exit(1)
PY
t=$(date +%s); res=$(timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python3 /tmp/case.py 2>&1); rc=$?
echo "memcheck $cfg rc=$rc $(( $(date +%s) - t )) s $(echo "$res" | grep -E "ERROR SUMMARY|check " | tr '\n' ' ')" | tee -a /tmp/r/sanitizer.txt
[ $rc -eq 0 ] || echo "$res" | tail -20 >> /tmp/r/sanitizer.txt
done
cp /tmp/r/sanitizer.txt $OUT/
cat /tmp/r/times.txt; tail -1 /tmp/r/precompile.txt; cut -c1-1300 /tmp/r/ab_stages.txt; grep -a "check grid\|passed\|failed\|FAIL" /tmp/r/correct.txt | head; cut -c1-600 /tmp/r/sanitizer.txt
cd /tmp && tar czf $OUT/r.tgz r
