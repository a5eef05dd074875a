rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
for cfg in "bm=128,bn=160,bk=128,stages=5,epilogue=1,a_dtype=e4m3,b_dtype=e4m3,scale=block" "bm=128,bn=160,bk=128,stages=6,epilogue=1,epilogue_n=32,a_dtype=e4m3,b_dtype=e4m3,scale=block" "bm=128,bn=192,bk=128,stages=4,epilogue=1,epilogue_n=64,a_dtype=e4m3,b_dtype=e4m3,scale=block"; do
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
for tool in memcheck synccheck; do
api=(); [ "$tool" = memcheck ] && api=(--report-api-errors no)
res=$(timeout 80 compute-sanitizer --tool $tool "${api[@]}" --error-exitcode 9 python3 /tmp/case.py 2>&1); rc=$?
echo "$tool $cfg rc=$rc $(echo "$res" | grep -E "ERROR SUMMARY|check " | tr '\n' ' ')" | tee -a $OUT/sanitizer.txt
[ $rc -eq 0 ] || echo "$res" | tail -20 >> $OUT/sanitizer.txt
done; done
cd /tmp && tar czf $OUT/r.tgz r
