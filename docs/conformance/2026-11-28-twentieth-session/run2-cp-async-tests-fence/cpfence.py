import sys, json
sys.path.insert(0, "src")
from fastswz.cuda import choose_plan
from fastswz.cuda.runtime import GemmKernel, check, compile_cubin
probs = [(263, 13920, 8176), (755, 2208, 22576), (1274, 1312, 2416), (3839, 7120, 784), (627, 7280, 6960), (4096, 4096, 4096)]
pre = len(sys.argv) > 1
for m, n, k in probs:
    base = choose_plan(m, n, k, "e4m3", "e4m3")
    cp = dict(base, operand_load="cp_async", cluster_m=1)
    tm1 = dict(base, cluster_m=1)
    variants = [(base, None), (tm1, None), (cp, None), (cp, {"FSW_CP_ASYNC_FENCE": 0})]
    if pre:
        for c, d in variants:
            compile_cubin(c, defines=d)
        continue
    kerns = [GemmKernel(c, *compile_cubin(c, defines=d)) for c, d in variants]
    chk = [check(kk, min(m, 1024), min(n, 1024), min(k, 1024), ints=True)["ok"] for kk in kerns]
    t = [[] for _ in kerns]
    for _ in range(2):
        for i, kk in enumerate(kerns):
            t[i].append(kk.time(m, n, k, warmup=3, reps=15)["median_ms"] * 1e3)
    print(f"{m}x{n}x{k} bk{base['bk']} cl{base['cluster_m']}: tma {min(t[0]):.1f} tma-cl1 {min(t[1]):.1f} cp {min(t[2]):.1f} cp-nofence {min(t[3]):.1f} ok {chk}", flush=True)
