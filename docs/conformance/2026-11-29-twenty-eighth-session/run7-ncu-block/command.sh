NCU_BLOCK="4096x4096x7168" bash tests/gpu/run_batch.sh ncublock
