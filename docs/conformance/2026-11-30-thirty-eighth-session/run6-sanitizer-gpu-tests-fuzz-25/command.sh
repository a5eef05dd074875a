# scratch files it names, kept here: tests/gpu/gemm/_sanpre.py is sanpre.py; _fuzzpre.py is the thirty-first session's run1-seeds-cublas-kernels/_fuzzpre.py; the code ran at cd300ed
# session 38 run 6: the producer tail (FSW_CLUSTER_END 1) checked: compute-sanitizer (memcheck, racecheck, synccheck) on five cluster plans
# (2 x 1, 2 x 2, 4 x 1, split-K on 2 x 1, ping-pong on 2 x 1; 1500 x 1100 x 256: several tiles per CTA) beside the GPU test files; fuzz seed 25
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
P=("bm=64,bn=64,bk=64,stages=3,epilogue=1,cluster_m=2" "bm=64,bn=64,bk=64,stages=4,cluster_m=2,cluster_n=2" "bm=128,bn=64,bk=64,stages=4,epilogue=1,cluster_m=4" "bm=128,bn=64,bk=64,stages=4,cluster_m=2,split_k=2" "bm=64,bn=64,bk=64,stages=3,epilogue=1,cluster_m=2,pingpong=1,epilogue_stages=2")
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/_sanpre.py "${P[@]}" > /tmp/r/sanpre.txt 2>&1 & timeout 100 python3 tests/gpu/gemm/_fuzzpre.py 100 25 > /tmp/r/fuzzpre.txt 2>&1 & wait; T pre $? $t
t=$(date +%s); (SAN_SHAPE=1500,1100,256 OUT=/tmp/san timeout 330 bash tests/gpu/gemm/sanitize.sh "${P[@]}" > /tmp/r/sanitize.txt 2>&1; echo "sanitize rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt; cp /tmp/san/sanitizer.txt /tmp/r/) &
t2=$(date +%s); timeout 300 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py tests/test_gpu_gemm.py tests/test_gpu_epilogue.py tests/test_gpu_tune.py > /tmp/r/tests.txt 2>&1; T tests $? $t2
wait
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 80 python3 tests/gpu/gemm/fuzz.py run --seed 25 --cases 100 --out /tmp/r/fuzz25.json > /tmp/r/fuzz25.txt 2>&1; T fuzz25 $? $t
cat /tmp/r/times.txt; cat /tmp/r/sanitizer.txt | cut -c1-250 | grep -v "^ *$" | head -40; tail -5 /tmp/r/tests.txt; tail -2 /tmp/r/fuzz25.txt
cd /tmp && tar czf $OUT/r.tgz r
