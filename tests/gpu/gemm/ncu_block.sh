set -u
export PYTHONPATH=$PWD/src:/tmp/bt FASTSWZ_CACHE=$PWD/.fswcache PYTHONUNBUFFERED=1
B='{"a_dtype":"e4m3","b_dtype":"e4m3","bm":128,"bn":128,"bk":128,"stages":5,"epilogue":true,"scale":"block"}'
U='{"a_dtype":"e4m3","b_dtype":"e4m3","bm":128,"bn":128,"bk":128,"stages":5,"epilogue":true}'
for c in "$B" "$U"; do PRECOMPILE=1 python3 tests/gpu/gemm/ncu_case.py "$c" 4096 7168 7168 & done
PRECOMPILE=1 python3 tests/gpu/gemm/ncu_case.py "$B" 4096 7168 7168 '{"FSW_STAGGER":0}' & wait
for i in 1 2; do
python3 tests/gpu/gemm/ncu_case.py "$B" 4096 7168 7168 | cut -c1-40,300-
python3 tests/gpu/gemm/ncu_case.py "$B" 4096 7168 7168 '{"FSW_STAGGER":0}' | cut -c1-40,300-
python3 tests/gpu/gemm/ncu_case.py "$U" 4096 7168 7168 | cut -c1-40,300-
done
M=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
for name in B U; do c=${!name}
timeout 120 ncu --metrics $M --section WarpStateStats -k regex:fastswz -c 1 --launch-skip 2 python3 tests/gpu/gemm/ncu_case.py "$c" 4096 7168 7168 > $OUT/ncu-block-$name.txt 2>&1
grep -E "gmma|pipe_fma|inst_executed.sum|duration|throughput|Stall|stall" $OUT/ncu-block-$name.txt | head -30
done
