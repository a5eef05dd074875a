"""gpu_corpus.py with this session's two rules off (A/B in one run)."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "benchmarks"))
import fastswz.cuda as fc
fc.ROUND_UP_WIDTH_RANGE = ()
fc.TALL_TWO_CONSUMERS_MAX_N = 0
fc.choose_plan.cache_clear()
import gpu_corpus
sys.exit(gpu_corpus.main(sys.argv[1:]))
