rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
cd tests/gpu/gemm
( time python3 probe.py make --set v61 --jobs 16 --out /tmp/r/v61-cases.json ) > /tmp/r/v61_make.txt 2>&1
tail -4 /tmp/r/v61_make.txt
( time timeout 200 python3 probe.py run /tmp/r/v61-cases.json --reps 20 --top 3 --out /tmp/r/v61 ) > /tmp/r/v61.txt 2>&1
tail -3 /tmp/r/v61.txt
cd /tmp && tar czf $OUT/r.tgz r
