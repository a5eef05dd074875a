# session 36 run 5: Nsight Compute on the worst problems of seeds 27-28 (fastswz's default plan and cuBLAS)
NCU_PROBLEMS='1936x320x6016:e4m3 72x592x30288:bf16 5643x256x4352:bf16' bash tests/gpu/run_batch.sh ncupair 2>&1 | tail -15
