# Held-out check of the refitted block-scale rules: per shape, the new default plan against the
# plan the old constants chose (RING_MAX_KTILES 16, WIDTHS 128 1.0 / 160 0.99 / 192 0.92), timed in turn.
import json, math, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
import fastswz.cuda as fc
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin


def plan(m, n, k, old):
    saved = fc.BLOCK_SCALE_RING_MAX_KTILES, fc.BLOCK_SCALE_WIDTHS
    if old:
        fc.BLOCK_SCALE_RING_MAX_KTILES, fc.BLOCK_SCALE_WIDTHS = 16, {128: 1.0, 160: 0.99, 192: 0.92}
    try:
        return fc.choose_block_scaled_plan("e4m3", "e4m3", "bf16", {"scale": "block"}, k=k, m=m, n=n)
    finally:
        fc.BLOCK_SCALE_RING_MAX_KTILES, fc.BLOCK_SCALE_WIDTHS = saved


shapes = [tuple(int(x) for x in s.split(":")[0].split("x")) for s in sys.argv[1:]]
if os.environ.get("PRECOMPILE"):
    cfgs = [plan(*s, old) for s in shapes for old in (False, True)]
    bad = [k for k in fc.compile_many(cfgs, jobs=16) if not hasattr(k, "cubin")]
    print(len(cfgs), "plans,", len(bad), "failed", bad[:2]); sys.exit(1 if bad else 0)
ratios = []
for m, n, k in shapes:
    new, old = plan(m, n, k, False), plan(m, n, k, True)
    desc = lambda c: f"bn {c['bn']} stages {c['stages']} ring {fc.codegen.kernel_row(c)['fusion']['scale_ring'] is not None}"
    if new == old:
        print(f"{m}x{n}x{k}: same plan ({desc(new)})", flush=True); continue
    kerns = [GemmKernel(c, *compile_cubin(c)) for c in (new, old)]
    bad = [check(kk, min(m, 1024), min(n, 1024), min(k, 1024), ints=True) for kk in kerns]
    rounds = int(os.environ.get("ROUNDS", "3"))   # (each round makes the problem's buffers again)
    t = [[], []]
    for _ in range(rounds):
        for i, kk in enumerate(kerns):
            t[i].append(kk.time(m, n, k, warmup=3, reps=45 // rounds)["median_ms"])
    a, b = min(t[0]), min(t[1])
    ratios.append(b / a)
    print(f"{m}x{n}x{k}: new ({desc(new)}) {a * 1e3:.1f} us, old ({desc(old)}) {b * 1e3:.1f} us: {b / a:.3f}x "
          f"(checks {bad[0].get('mismatches')}/{bad[0].get('unwritten')}, {bad[1].get('mismatches')}/{bad[1].get('unwritten')})", flush=True)
if ratios:
    print(f"changed {len(ratios)} of {len(shapes)}: geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}x, "
          f"min {min(ratios):.3f}x, max {max(ratios):.3f}x")
