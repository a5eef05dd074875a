# precompile (a pool of processes): blockpeer's defaults, the A/B variants (with their defines)
import json, sys
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, "tests/gpu/gemm")
from ab_defines import default_plans
from fastswz.cuda import default_config, normalize_config, supported
from fastswz.cuda.runtime import compile_cubin

def one(job):
    c, d = job
    try:
        compile_cubin(c, defines=d)
        return None
    except Exception as e:  # noqa: BLE001
        return f"{c.get('bn')} {d}: {str(e)[:300]}"

if __name__ == "__main__":
    variants = json.loads(sys.argv[1])
    jobs = []
    for m, n, k, dt, base in default_plans(sys.argv[2:]):
        jobs.append((base, None))
        jobs.append((default_config(m, n, k, dt, dt, out_dtype="bf16"), None))
        for v in variants:
            c = normalize_config(dict(base, **{k_: x for k_, x in v.items() if k_ != "defines"}))
            if supported(c) is None:
                jobs.append((c, v.get("defines")))
    with ProcessPoolExecutor(16) as ex:
        bad = [r for r in ex.map(one, jobs) if r]
    print(len(jobs), "compiled,", len(bad), "failed", bad[:4])
