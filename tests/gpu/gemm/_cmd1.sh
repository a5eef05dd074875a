set -x
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
timeout 240 python3 -m pytest tests/test_gpu_gemm.py -k "cluster_reduce" -x -q > /tmp/r/tests.txt 2>&1
tail -5 /tmp/r/tests.txt
cd tests/gpu/gemm
timeout 150 python3 probe.py make --set v62 --jobs 16 --out /tmp/r/v62-cases.json > /tmp/r/v62_make.txt 2>&1
tail -3 /tmp/r/v62_make.txt
timeout 150 python3 probe.py run /tmp/r/v62-cases.json --reps 15 --top 2 --out /tmp/r/v62 > /tmp/r/v62.txt 2>&1
tail -3 /tmp/r/v62.txt
cd /tmp && tar czf $OUT/r.tgz r
