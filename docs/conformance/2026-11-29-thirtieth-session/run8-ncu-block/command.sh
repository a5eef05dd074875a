NCU_BLOCK="4096x4096x7168" timeout 220 bash tests/gpu/run_batch.sh ncublock
