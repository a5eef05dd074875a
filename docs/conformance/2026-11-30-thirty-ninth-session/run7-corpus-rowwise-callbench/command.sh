# the code ran at 299e315 (the final code but for the docs)
# session 39 run 7 (final code): the shipped corpus, its e4m3 problems rowwise-scaled beside torch._scaled_mm rowwise, and the call-overhead table
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 8 > /tmp/r/pre_corpus.txt 2>&1 & timeout 60 python3 benchmarks/gpu_corpus.py precompile --jobs 8 --scale row > /tmp/r/pre_row.txt 2>&1 & wait; T pre $? $t
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py run --out /tmp/r/corpus.json > /tmp/r/corpus.txt 2>&1; T corpus $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 100 python3 benchmarks/gpu_corpus.py run --scale row --out /tmp/r/rowwise.json > /tmp/r/rowwise.txt 2>&1; T rowwise $? $t
(cd /tmp && tar czf $OUT/r.tgz r)
t=$(date +%s); timeout 70 python3 benchmarks/gpu_callpath.py --out /tmp/r/cb > /tmp/r/callbench.txt 2>&1; T callbench $? $t
cat /tmp/r/times.txt; for f in /tmp/r/corpus.txt /tmp/r/rowwise.txt; do echo "== $f"; tail -6 $f; done; tail -25 /tmp/r/callbench.txt
cd /tmp && tar czf $OUT/r.tgz r
