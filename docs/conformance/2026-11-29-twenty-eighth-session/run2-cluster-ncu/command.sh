rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
V='[{"bn":128,"stages":6},{"bn":128,"stages":6,"cluster_m":2},{"bn":128,"stages":5,"cluster_m":2},{"bn":128,"stages":6,"cluster_n":2},{"bn":128,"stages":6,"scale":"none"},{"bn":128,"stages":6,"scale":"none","promote":false}]'
BS=$(head -5 tests/gpu/gemm/ab_block_specs.txt)
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_pre.py "$V" $BS > /tmp/r/precompile.txt 2>&1; echo "pre rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
t=$(date +%s); timeout 200 python3 tests/gpu/gemm/ab_configs.py "$V" $BS > /tmp/r/ab_cluster.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ab_cluster.txt $OUT/
t=$(date +%s); timeout 200 ncu --profile-from-start off --csv --page details \
  --section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats --section Occupancy \
  --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__cycles_active.avg \
  python3 tests/gpu/gemm/ncu_block.py 4096x4096x7168 4096x7168x7168 > /tmp/r/ncu_block.csv 2> /tmp/r/ncu_block.err; echo "ncu rc=$? $(( $(date +%s) - t )) s" >> /tmp/r/times.txt
cp /tmp/r/ncu_block.csv $OUT/
cat /tmp/r/times.txt; tail -2 /tmp/r/precompile.txt; cat /tmp/r/ab_cluster.txt | cut -c1-1800; grep "ncu_block:" /tmp/r/ncu_block.csv; tail -3 /tmp/r/ncu_block.err
cd /tmp && tar czf $OUT/r.tgz r
