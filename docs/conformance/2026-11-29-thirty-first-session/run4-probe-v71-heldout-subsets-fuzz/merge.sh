# How merged_summary.txt was made (CPU only, after run 4): each corpus's latest full H200 run
# (docs/conformance/*/corpus.json.gz or fresh-SEED.json.gz; seeds 15-16 from this session's run 1)
# with its rows the rule changes replaced by this run's (subsets/*.json.gz), less the five ragged-K
# rows (638 x 549 x 3622 bf16, 410 x 544 x 8196 e4m3, 1388 x 424 x 8470 e4m3, 375 x 991 x 6729 e4m3,
# 700 x 367 x 4157 bf16) that the final rule no longer changes (their earlier rows stand):
#   PYTHONPATH=src python3 benchmarks/gpu_corpus.py summary OLD.json SUBSET_WITHOUT_RAGGED.json
# Each row's ratio is fastswz's time over cuBLAS's from one run; rows of different runs are mixed.
