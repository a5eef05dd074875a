rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh tests > /tmp/r/build_out.txt 2>&1
cp $OUT/tests.txt /tmp/r/ 2>/dev/null
cat /tmp/r/build_out.txt | tail -8
cd /tmp && tar czf $OUT/r.tgz r
