rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bn":128,"epilogue_n":0,"stages":6},{"bn":128,"epilogue_n":0,"stages":5}]'
HS=$(cat tests/gpu/gemm/ab_block_heldout_27b.txt)
# (here: the /tmp/pre.py heredoc of run2-block-width-heldout/command.sh, lines 6-18, verbatim)
timeout 100 python3 /tmp/pre.py "$V" "$HS" > /tmp/r/precompile.txt 2>&1; echo "precompile $?"; tail -2 /tmp/r/precompile.txt
timeout 420 python3 tests/gpu/gemm/ab_configs.py "$V" $HS > /tmp/r/ab_heldout.txt 2>&1; echo "ab_heldout $?"
cat /tmp/r/ab_heldout.txt | sed 's/"epilogue_stages.*"out_dtype": "bf16"}//' | cut -c1-400
cd /tmp && tar czf $OUT/r.tgz r
