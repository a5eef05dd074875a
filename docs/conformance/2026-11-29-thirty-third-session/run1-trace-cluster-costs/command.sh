# clu.py is this folder's ../run2-trace-cluster-start-warpgroups/clu.py as it was then: plans() gave
# 128x256x256, 116x256x256, 128x2112x7168 e4m3 64x64x128 s8; 1274x1312x2416 e4m3 128x112x128 s5;
# 128x4096x4096 bf16 64x96x64 s8 (each on one CTA and on cluster_m=2), and 2035x272x6928 bf16
# 64x96x64 s8 on 1 x 1, 2 x 1, 1 x 2 and 2 x 2; "launch" (raw cluster launches) stopped at its first
# case (a grid of 2 CTAs asked for clusters of 4: CUDA_ERROR_INVALID_CLUSTER_SIZE, the script's bug)
rm -rf /tmp/r; mkdir -p /tmp/r
bash tests/gpu/run_batch.sh > /tmp/r/build_out.txt 2>&1
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
T() { echo "$1 rc=$2 $(( $(date +%s) - $3 )) s" >> /tmp/r/times.txt; }
t=$(date +%s); timeout 120 python3 tests/gpu/gemm/_clu.py make > /tmp/r/make.txt 2>&1; T make $? $t
t=$(date +%s); timeout 90 python3 tests/gpu/gemm/_clu.py launch > /tmp/r/launch.txt 2>&1; T launch $? $t
t=$(date +%s); timeout 150 python3 tests/gpu/gemm/_clu.py gemm /tmp/r/gemm.json > /tmp/r/gemm.txt 2>&1; T gemm $? $t
M=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,dram__bytes_read.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,launch__grid_size,sm__cycles_active.avg,gpc__cycles_elapsed.max
t=$(date +%s); timeout 150 ncu --profile-from-start off --csv --page raw --metrics "$M,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" python3 tests/gpu/gemm/_clu.py ncu > /tmp/r/ncu.csv 2> /tmp/r/ncu.err; T ncu $? $t
cat /tmp/r/times.txt; cat /tmp/r/launch.txt | tail -14; grep -v "^   CTA" /tmp/r/gemm.txt | tail -40
cd /tmp && tar czf $OUT/r.tgz r
