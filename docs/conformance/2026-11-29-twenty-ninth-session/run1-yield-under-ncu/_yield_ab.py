# A/B (experiment): ab_configs.py's variants, each also with its cubin's FFMA runs patched (_yield.py)
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab_defines import default_plans  # noqa: E402
from fastswz.cuda import normalize_config, supported  # noqa: E402
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin  # noqa: E402
import _yield  # noqa: E402

variants = json.loads(sys.argv[1])
shares = [float(x) for x in os.environ.get("SHARES", "0.5625").split(",")]
for m, n, k, dt, base in default_plans(sys.argv[2:]):
    cfgs = [("default", base, None)] + [
        (json.dumps(v, separators=(",", ":")),
         normalize_config(dict(base, **{k_: x for k_, x in v.items() if k_ != "defines"})), v.get("defines"))
        for v in variants]
    kerns, names = [], []
    for name, c, d in cfgs:
        if supported(c) is not None:
            print(f"{m}x{n}x{k} {name}: not run ({supported(c)})")
            continue
        cubin, key = compile_cubin(c, defines=d)
        kerns.append(GemmKernel(c, cubin, key)); names.append(name)
        for sh in shares:
            p, changed = _yield.patch(cubin, share=sh)
            kerns.append(GemmKernel(c, p, f"{key}-y{sh}")); names.append(f"{name}+yield{sh}({changed})")
    bad = [check(kern, min(m, 1024), min(n, 1024), min(k, 1024), ints=True) for kern in kerns]
    t = [[] for _ in kerns]
    for _ in range(3):
        for i, kern in enumerate(kerns):
            t[i].append(kern.time(m, n, k, warmup=3, reps=15)["median_ms"])
    best = [min(x) for x in t]
    print(f"{m}x{n}x{k} bn {base['bn']} stages {base['stages']}: " + "; ".join(
        f"{nm} {b * 1e3:.1f} us ({best[0] / b:.3f}x, check {c.get('mismatches')}/{c.get('unwritten')})"
        for nm, b, c in zip(names, best, bad)), flush=True)
