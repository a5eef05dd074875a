#!/usr/bin/env bash
# Nsight Compute on one launch of a fastswz GEMM (default: the LLM up-projection shape with its
# best plan), beside cuBLAS's kernel on the same problem: tensor pipe utilization, warp stall
# reasons, occupancy, shared-memory bank conflicts. Writes $OUT/ncu-*.txt.
set -uo pipefail
out="${OUT:-/tmp/gemm-ncu}"; mkdir -p "$out"
shape=(${FSW_NCU_SHAPE:-4096 14336 4096})
plan=${FSW_NCU_PLAN:---bm 128 --bn 256 --bk 64 --stages 3 --epilogue}
metrics=sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
ncu --metrics "$metrics" --section WarpStateStats -k regex:fastswz -c 1 --launch-skip 3 \
  python3 -m fastswz gemm --m "${shape[0]}" --n "${shape[1]}" --k "${shape[2]}" $plan --reps 2 \
  >"$out/ncu-fastswz.txt" 2>&1
ncu --metrics "$metrics" --section WarpStateStats -k regex:"gemm|sm90|cutlass|nvjet" -c 1 --launch-skip 8 \
  python3 -m fastswz gemm --m "${shape[0]}" --n "${shape[1]}" --k "${shape[2]}" $plan --reps 2 \
  >"$out/ncu-cublas.txt" 2>&1
grep -E "fastswz_gemm|gmma|throughput|hit_rate|bank_conflicts|warps_active|duration|Stall|stall|Warp Cycles" "$out/ncu-fastswz.txt" | head -40
echo ---- cuBLAS
grep -E "Kernel|nvjet|sm90|gmma|throughput|hit_rate|bank_conflicts|warps_active|duration|Warp Cycles" "$out/ncu-cublas.txt" | head -30
