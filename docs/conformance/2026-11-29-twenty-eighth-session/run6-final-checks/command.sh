rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/r > /tmp/r/blockpeer.txt 2>&1; echo "blockpeer rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/blockpeer.txt $OUT/
t=$(date +%s); timeout 240 python3 tests/gpu/gemm/epilogue.py correct --out /tmp/r/correct > /tmp/r/correct.txt 2>&1; echo "correct rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/correct.txt $OUT/
for cfg in "bm=128,bn=160,bk=128,stages=6,epilogue=1,epilogue_n=32,a_dtype=e4m3,b_dtype=e4m3,scale=block" "bm=128,bn=128,bk=128,stages=6,epilogue=1,a_dtype=e4m3,b_dtype=e4m3,scale=block"; do
cat > /tmp/case.py <<PY
import sys
sys.path.insert(0, "src")
kv = dict(x.split("=") for x in "$cfg".split(","))
cfg = {k: (int(v) if v.isdigit() else v) for k, v in kv.items()}
cfg["epilogue"] = bool(cfg.get("epilogue", 0))
from fastswz.cuda import compile_gemm
from fastswz.cuda.runtime import check
r = check(compile_gemm(cfg), 300, 1000, 520, ints=True)
print("check", r)
sys.exit(0 if r["ok"] and r["unwritten"] == 0 else 1)
PY
t=$(date +%s); res=$(timeout 80 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python3 /tmp/case.py 2>&1); rc=$?
echo "memcheck $cfg rc=$rc $(( $(date +%s) - t )) s $(echo "$res" | grep -E "ERROR SUMMARY|check " | tr '\n' ' ')" | tee -a /tmp/r/sanitizer.txt
[ $rc -eq 0 ] || echo "$res" | tail -20 >> /tmp/r/sanitizer.txt
done
cp /tmp/r/sanitizer.txt $OUT/
cat /tmp/r/times.txt; grep -v "kernels\|Warn\|warn" /tmp/r/blockpeer.txt; tail -4 /tmp/r/correct.txt; cut -c1-400 /tmp/r/sanitizer.txt
cd /tmp && tar czf $OUT/r.tgz r
