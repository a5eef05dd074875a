#!/bin/bash
# One device call, several sections (GPU machine, repository root; carry .whl and .fswcache):
#   bash tests/gpu/run_batch.sh SECTION [SECTION ...]
# sections: tests (the GPU pytest files), epibench (issue 28's speed targets), blockpeer (block-scaled
# e4m3 beside torch._scaled_mm's block-scaled call, each over its own unscaled GEMM, timed in turn),
# ncublock (NCU_BLOCK='MxNxK ...': Nsight Compute on those calls, tests/gpu/gemm/ncu_block.py), correct (check.py correct: grid with the schedules),
# schedules (check.py correct --schedules: swap-AB, split-K, ping-pong only), schedbench (their
# candidates, tests/gpu/gemm/bench_schedules.json, on decode and long-K shapes beside cuBLAS),
# epilogue (epilogue.py correct + bench), callbench (the call-overhead table), corpus (the shape
# corpus beside cuBLAS), fuzz (random gemm() calls against float64, tests/gpu/gemm/fuzz.py; FUZZ_SEEDS='1 2 3',
# FUZZ_CASES=100: precompile the same seeds first), rowwise (its e4m3 problems rowwise-scaled beside torch._scaled_mm rowwise), exhaustive (issue 29's search against every class; HELD_OUT=MxNxK,... or
# FRESH=SEED,COUNT replace its held-out problems), sweep (1 and 2 GPUs; SWEEP_LIMIT=N: the corpus's
# first N problems, precompiled first),
# cublaskernels (SUBSET=globs: cuBLAS's kernels, grids and times beside fastswz's, torch.profiler; CK_FLUSH=read: after L2 flushes, with the event-timed loop beside),
# probe (tests/gpu/gemm/probe.py: per-problem plan grids beside cuBLAS; make the cases first; PROBE_CASES=file),
# flush (probe.py flush: both libraries under three L2 flushes), ncupair (NCU_PROBLEMS='MxNxK:dtype ...':
# Nsight Compute on fastswz's default plan and cuBLAS, tests/gpu/gemm/ncu_pair.py), ncucauses (Nsight Compute on every problem
# of a corpus run under NCU_BELOW (0.9x), tests/gpu/gemm/ncu_causes.py; NCU_CORPUS=corpus.json.gz), sanitizepp (compute-sanitizer on ping-pong with the epilogue tile, more tiles than CTAs), ncuplans (NCU_CASES=file:
# Nsight Compute on named plans, tests/gpu/gemm/ncu_plans.py; NCU_ARGS='--clock none --sass DIR'),
# trace (TRACE_CASES=file, TRACE_CTAS=N: the consumer loop's phases per unit, tests/gpu/gemm/trace.py),
# collect-plans / collect-schedules / collect-raster / collect-pitch / collect-fewtiles (tests/gpu/tune/collect.py: every candidate on a corpus sample).
# Each section has its own time limit and writes one log (and at most one JSON) under $OUT.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
t0=$(date +%s)
python3 -m pip install -q --no-index --no-deps --target /tmp/bt .whl/*.whl >/dev/null 2>&1
PYTHONPATH=/tmp/bt python3 setup.py -q build_ext --inplace >/tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
export PYTHONPATH=$PWD/src:/tmp/bt PYTHONUNBUFFERED=1 FASTSWZ_CACHE=$PWD/.fswcache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -2
echo "built in $(( $(date +%s) - t0 )) s; $(ls .fswcache/cubin 2>/dev/null | wc -l) cached files"
for s in "$@"; do
  t=$(date +%s)
  case $s in
    tests) timeout 240 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE \
             tests/test_gpu_callpath.py tests/test_gpu_gemm.py tests/test_gpu_epilogue.py tests/test_gpu_tune.py \
             > "$out/tests.txt" 2>&1; echo "tests: exit $?"; grep -E "^(FAILED|ERROR)|passed|failed" "$out/tests.txt" | tail -15 ;;
    correct) timeout 150 python3 tests/gpu/gemm/check.py correct --out /tmp/correct > "$out/correct.txt" 2>&1
             echo "correct: exit $?"; grep -viE "^ *ok" "$out/correct.txt" | tail -12 ;;
    schedules) timeout 150 python3 tests/gpu/gemm/check.py correct --schedules --verbose --out /tmp/sched > "$out/schedules.txt" 2>&1
             echo "schedules: exit $?"; grep -vE "^ok " "$out/schedules.txt" | tail -15 ;;
    schedbench) timeout 240 python3 tests/gpu/gemm/check.py bench --configs tests/gpu/gemm/bench_schedules.json \
               --shapes 1x4096x4096,16x4096x4096,64x4096x4096,256x256x65536,256x256x16384 --verbose --out /tmp/sb \
               > "$out/schedbench.txt" 2>&1; echo "schedbench: exit $?"; cp /tmp/sb/gemm-bench.json "$out/schedbench.json" 2>/dev/null
             grep -v "^   " "$out/schedbench.txt" | tail -8 ;;
    heldout) timeout 240 python3 tests/gpu/gemm/check.py correct --grid 120 --seed ${SEED:-4711} --out /tmp/heldout > "$out/heldout.txt" 2>&1
             echo "heldout: exit $?"; tail -4 "$out/heldout.txt" ;;
    epilogue) timeout 170 python3 tests/gpu/gemm/epilogue.py correct --out /tmp/epi > "$out/epilogue.txt" 2>&1
             echo "epilogue: exit $?"; tail -30 "$out/epilogue.txt" ;;
    epibench) timeout 400 python3 tests/gpu/gemm/epilogue.py bench --out /tmp/epib > "$out/epibench.txt" 2>&1
             echo "epibench: exit $?"; tail -40 "$out/epibench.txt" ;;
    blockpeer) timeout 200 python3 tests/gpu/gemm/epilogue.py blockpeer --out /tmp/bp > "$out/blockpeer.txt" 2>&1
             echo "blockpeer: exit $?"; cp /tmp/bp/blockpeer.json "$out/" 2>/dev/null; grep -v "kernels\|arn" "$out/blockpeer.txt" | tail -8 ;;
    ncublock) timeout 300 ncu --profile-from-start off --csv --page details \
               --section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats \
               --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max \
               python3 tests/gpu/gemm/ncu_block.py ${NCU_BLOCK:-4096x4096x7168} > "$out/ncu_block.csv" 2> "$out/ncu_block.err"
             echo "ncublock: exit $?"; grep "ncu_block:" "$out/ncu_block.csv"; tail -3 "$out/ncu_block.err" ;;
    sanitize) OUT=/tmp/san timeout 400 bash tests/gpu/gemm/sanitize.sh \
               "bm=128,bn=16,bk=128,stages=3,swap_ab=1,split_k=4" \
               "bm=64,bn=64,bk=64,stages=3,pingpong=1,split_k=2,a_major=MN,b_major=MN" \
               "bm=128,bn=128,bk=64,stages=4,epilogue=1,epilogue_n=64,activation=gelu,bias=bf16,residual=bf16" \
               > "$out/sanitize.txt" 2>&1
             echo "sanitize: exit $?"; cp /tmp/san/sanitizer.txt "$out/" 2>/dev/null; tail -12 "$out/sanitize.txt" ;;
    callbench) timeout 200 python3 benchmarks/gpu_callpath.py --out /tmp/cb > "$out/callbench.txt" 2>&1
             cp /tmp/cb/callpath.json "$out/" 2>/dev/null; tail -20 "$out/callbench.txt" ;;
    fuzz) timeout ${FUZZ_TIMEOUT:-300} python3 tests/gpu/gemm/fuzz.py run --seed ${FUZZ_SEEDS:-1 2 3} --cases ${FUZZ_CASES:-100} \
            --out "$out/fuzz-SEED.json" > "$out/fuzz.txt" 2>&1; echo "fuzz: exit $?"; tail -15 "$out/fuzz.txt" ;;
    rowwise) timeout 560 python3 benchmarks/gpu_corpus.py run --scale row --out /tmp/rowwise.json \
               --deadline ${CORPUS_DEADLINE:-400} > "$out/rowwise.txt" 2>&1; echo "rowwise: exit $?"
             cp /tmp/rowwise.json "$out/" 2>/dev/null; tail -32 "$out/rowwise.txt" ;;
    corpus) FSW_DEADLINE=${CORPUS_DEADLINE:-400} OUT=/tmp/corpus timeout 560 bash tests/gpu/gemm/corpus.sh > "$out/corpus-log.txt" 2>&1
             echo "corpus: exit $?"; cp /tmp/corpus/corpus.json /tmp/corpus/corpus.txt "$out/" 2>/dev/null; tail -40 "$out/corpus-log.txt" ;;
    exhaustive) timeout 560 python3 tests/gpu/tune/exhaustive.py run --cache .fswcache --out /tmp/exh ${HELD_OUT:+--held-out $HELD_OUT} ${FRESH:+--fresh $FRESH} > "$out/exhaustive.txt" 2>&1
             echo "exhaustive: exit $?"; cp /tmp/exh/*.json "$out/" 2>/dev/null; tail -45 "$out/exhaustive.txt" ;;
    sweep) corpus=${SWEEP_LIMIT:+--corpus src/fastswz/data/gemm_corpus.json --limit $SWEEP_LIMIT}
             [ -n "$corpus" ] && timeout 240 python3 tests/gpu/tune/sweep_gpus.py precompile --cache .fswcache $corpus
             timeout 500 python3 tests/gpu/tune/sweep_gpus.py run --cache .fswcache --out /tmp/sweep $corpus > "$out/sweep.txt" 2>&1
             echo "sweep: exit $?"; tail -30 "$out/sweep.txt" ;;
    multigpu) timeout 200 python3 -m pytest -q -p no:cacheprovider -p no:logging --tb=short -rfE tests/test_gpu_callpath.py \
             > "$out/multigpu.txt" 2>&1; echo "multigpu: exit $?"; grep -E "^(FAILED|ERROR)|passed|failed" "$out/multigpu.txt" | tail -8 ;;
    collect-plans|collect-schedules|collect-raster|collect-pitch|collect-fewtiles) part=${s#collect-}
             timeout 560 python3 tests/gpu/tune/collect.py run --part $part --resume --count ${COUNT:-64} \
               --deadline ${COLLECT_DEADLINE:-420} --out /tmp/collect > "$out/$s.txt" 2>&1
             echo "$s: exit $?"; cp /tmp/collect/collect-$part.json "$out/" 2>/dev/null; tail -8 "$out/$s.txt" ;;
    cublaskernels) timeout 200 python3 tests/gpu/gemm/cublas_kernels.py --subset "${SUBSET:?SUBSET=globs}" ${CK_FLUSH:+--flush $CK_FLUSH} --out /tmp/ck \
             > "$out/cublas_kernels.txt" 2>&1; echo "cublaskernels: exit $?"; cp /tmp/ck/cublas_kernels.json "$out/" 2>/dev/null
             cat "$out/cublas_kernels.txt" | cut -c1-260 | tail -80 ;;
    probe) timeout 300 python3 tests/gpu/gemm/probe.py run ${PROBE_FLUSH:+--flush $PROBE_FLUSH} ${PROBE_CASES:-tests/gpu/gemm/probe_cases.json} --out /tmp/probe \
             > "$out/probe.txt" 2>&1; echo "probe: exit $?"; cp /tmp/probe/probe.json "$out/" 2>/dev/null
             grep -v "^   " "$out/probe.txt" | tail -20 ;;
    flush) timeout 200 python3 tests/gpu/gemm/probe.py flush > "$out/flush.txt" 2>&1; echo "flush: exit $?"; cat "$out/flush.txt" | tail -12 ;;
    ncupair) timeout 300 ncu --profile-from-start off --csv --page details \
               --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
               --section MemoryWorkloadAnalysis \
               --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max \
               python3 tests/gpu/gemm/ncu_pair.py ${NCU_PROBLEMS:?NCU_PROBLEMS=MxNxK:dtype ...} > "$out/ncu_pair.csv" 2> "$out/ncu_pair.err"
             echo "ncupair: exit $?"; grep -c . "$out/ncu_pair.csv"; grep "ncu_pair:" "$out/ncu_pair.csv" | head -12; tail -3 "$out/ncu_pair.err" ;;
    ncucauses) python3 tests/gpu/gemm/ncu_causes.py select ${NCU_CORPUS:-docs/conformance/2026-11-27-eighth-session/run9-corpus-h100/corpus.json.gz} \
               --below ${NCU_BELOW:-0.9} > "$out/ncu_problems.txt"
             timeout 560 python3 tests/gpu/gemm/ncu_causes.py run "$out/ncu_problems.txt" --out "$out/ncu_causes" \
               --deadline ${NCU_DEADLINE:-400} > "$out/ncu_causes.txt" 2>&1; echo "ncucauses: exit $?"; tail -10 "$out/ncu_causes.txt"
             python3 tests/gpu/gemm/ncu_causes.py table "$out/ncu_causes" --corpus ${NCU_CORPUS:-docs/conformance/2026-11-27-eighth-session/run9-corpus-h100/corpus.json.gz} \
               > "$out/ncu_causes_table.md" 2>&1; tail -3 "$out/ncu_causes_table.md"
             tar czf "$out/ncu_causes.tgz" -C "$out" ncu_causes && rm -rf "$out/ncu_causes" ;;   # one file: the device returns few
    sanitizepp) SAN_SHAPE=1500,1100,256 OUT=/tmp/sanpp timeout 400 bash tests/gpu/gemm/sanitize.sh \
               "bm=64,bn=64,bk=64,stages=3,pingpong=1,epilogue=1,epilogue_stages=2,cluster_m=2" \
               "bm=128,bn=64,bk=128,stages=4,pingpong=1,epilogue=1,epilogue_n=32,epilogue_stages=2,a_dtype=e4m3,b_dtype=e4m3,out_dtype=e4m3,activation=gelu,bias=bf16,amax=1" \
               > "$out/sanitize_pp.txt" 2>&1
             echo "sanitizepp: exit $?"; cp /tmp/sanpp/sanitizer.txt "$out/sanitizer_pp.txt" 2>/dev/null; tail -12 "$out/sanitize_pp.txt" ;;
    ncuplans) timeout 400 python3 tests/gpu/gemm/ncu_plans.py ${NCU_CASES:+--cases $NCU_CASES} ${NCU_ARGS:-} > "$out/ncu_plans.txt" 2>&1
             echo "ncuplans: exit $?"; tail -12 "$out/ncu_plans.txt" ;;
    trace) timeout 300 python3 tests/gpu/gemm/trace.py --cases ${TRACE_CASES:-tests/gpu/gemm/trace_fused.json} --ctas ${TRACE_CTAS:-8} \
             > "$out/trace-$(basename ${TRACE_CASES:-trace_fused}).txt" 2>&1
             echo "trace: exit $?"; grep -v "^   CTA" "$out"/trace-*.txt | tail -30 ;;
    *) echo "unknown section $s" ;;
  esac
  echo "== $s took $(( $(date +%s) - t )) s"
done
