# scratch files it names: tests/gpu/gemm/_trace_all.json is run 3's trace_cases.json; the code ran at 3445e0d
# session 38 run 4: run 3's traces again with the kernel's entry, D's last stores and exit recorded (every CTA)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 100 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_all.json --ctas 132 --precompile > /tmp/r/trace_pre.txt 2>&1; T pre $? $t
for i in 1 2; do
  t=$(date +%s); OUT=/tmp/r timeout 60 python3 tests/gpu/gemm/trace.py --cases tests/gpu/gemm/_trace_all.json --ctas 132 > /tmp/r/trace-$i.txt 2>&1; T trace-$i $? $t
  mv /tmp/r/trace-_trace_all.json /tmp/r/trace-$i.json
done
(cd /tmp && tar czf $OUT/r.tgz r)
cat /tmp/r/times.txt; for f in /tmp/r/trace-*.txt; do echo "== $f"; grep -v "^   CTA" $f | cut -c1-250; done
cd /tmp && tar czf $OUT/r.tgz r
