#!/usr/bin/env python3
"""Experiment (thirty-fourth session): does our TMA multicast lower L2 traffic and time?

    python3 tests/gpu/gemm/_mc.py make            # compile every plan (16 processes)
    python3 tests/gpu/gemm/_mc.py time OUT.json   # event time (L2 flushed, median of 20) + check, cuBLAS
    python3 tests/gpu/gemm/_mc.py ncu             # (under ncu) each plan once, then cuBLAS once per problem
"""
import json, os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))
sys.path.insert(0, HERE)


def cases():
    """(m, n, k, dtype, config)"""
    from fastswz.cuda import choose_plan
    from fastswz.cuda.codegen import normalize_config
    out = []
    def c(m, n, k, dt, bm, bn, bk, st, **kw):
        d = {"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": st}
        d.update(kw)
        out.append((m, n, k, dt, d))
    for cm in (1, 2, 4):
        c(16384, 256, 8192, "bf16", 64, 256, 64, 4, cluster_m=cm)
    for cm in (1, 2, 4):
        c(16384, 256, 8192, "bf16", 128, 256, 64, 4, cluster_m=cm)
    for cm in (1, 2):
        c(15615, 272, 1584, "bf16", 128, 144, 64, 4, cluster_m=cm)
    base = normalize_config(choose_plan(279, 2800, 20208, "bf16", "bf16"))
    for cm in (1, 2):
        out.append((279, 2800, 20208, "bf16", dict(base, cluster_m=cm)))
    for cm in (1, 4):
        c(13199, 256, 10624, "bf16", 128, 256, 64, 4, cluster_m=cm)
    return out


def _make_one(i):
    from fastswz.cuda import compile_gemm
    compile_gemm(cases()[i][4])
    return i


def cmd_make():
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(16) as ex:
        done = list(ex.map(_make_one, range(len(cases()))))
    print("compiled", len(done))


def cmd_time(out_path):
    import torch
    import gpu_corpus
    from probe import ShapeProblem
    from fastswz.cuda import compile_gemm
    gpu = gpu_corpus._Gpu("read")
    ops = gpu_corpus._Operands(torch)
    res, cub = [], {}
    for m, n, k, dt, cfg0 in cases():
        p = ShapeProblem(m, n, k, dt)
        a, b, d, ptrs, lds = ops.make(p)
        fn, kind, library = gpu_corpus._cublas(torch, p, a, b)
        ref = fn()
        if (m, n, k) not in cub:
            cub[(m, n, k)] = gpu.time(fn, 20, 3)["median_ms"]
        kern = compile_gemm(cfg0)
        go, how = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
        d.fill_(float("nan")); go()
        chk = gpu_corpus._check(torch, p, d, ref, gpu_corpus._exact_rows(torch, a, b))
        t = gpu.time(go, 20, 3)["median_ms"]
        row = {"shape": [m, n, k], "dtype": dt, "config": kern.config, "ok": chk["ok"], "ms": t, "cublas_ms": cub[(m, n, k)]}
        print(f"{m}x{n}x{k} {dt} {gpu_corpus.plan_text(kern.config)}: {t*1e3:8.2f} us  cuBLAS {cub[(m, n, k)]*1e3:8.2f}  ok {chk['ok']}", flush=True)
        res.append(row)
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)


def cmd_ncu():
    import torch
    import gpu_corpus
    from probe import ShapeProblem
    from fastswz.cuda import compile_gemm
    ops = gpu_corpus._Operands(torch)
    seen = set()
    for m, n, k, dt, cfg0 in cases():
        p = ShapeProblem(m, n, k, dt)
        a, b, d, ptrs, lds = ops.make(p)
        fn, kind, library = gpu_corpus._cublas(torch, p, a, b)
        kern = compile_gemm(cfg0)
        go, how = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
        go(); fn(); torch.cuda.synchronize()
        print(f"ncu_case: {m}x{n}x{k} {dt} {gpu_corpus.plan_text(kern.config)}", flush=True)
        torch.cuda.profiler.start(); go(); torch.cuda.synchronize(); torch.cuda.profiler.stop()
        if (m, n, k) not in seen:
            seen.add((m, n, k))
            print(f"ncu_case: {m}x{n}x{k} {dt} cuBLAS", flush=True)
            torch.cuda.profiler.start(); fn(); torch.cuda.synchronize(); torch.cuda.profiler.stop()


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make": cmd_make()
    elif cmd == "time": cmd_time(sys.argv[2])
    elif cmd == "ncu": cmd_ncu()


def _pre_one(cfg):
    from fastswz.cuda import compile_gemm
    try:
        compile_gemm(cfg)
        return None
    except Exception as exc:  # noqa: BLE001
        return f"{cfg}: {exc}"[:300]


def cmd_pre(path):
    from concurrent.futures import ProcessPoolExecutor
    cfgs = [c for case in json.load(open(path)) for c in case["configs"]]
    with ProcessPoolExecutor(16) as ex:
        errs = [e for e in ex.map(_pre_one, cfgs, chunksize=4) if e]
    print("compiled", len(cfgs), "errors", len(errs))


if __name__ == "__main__" and sys.argv[1] == "pre":
    cmd_pre(sys.argv[2])
