#!/usr/bin/env python3
"""Experiment (thirty-third session): where a 2-CTA cluster's fixed ~1.4 us goes.

    python3 tests/gpu/gemm/_clu.py launch            # raw cluster launches, empty kernels
    python3 tests/gpu/gemm/_clu.py gemm  OUT.json    # plans: event time (read flush) + traces
    python3 tests/gpu/gemm/_clu.py ncu               # (under ncu) each plan once, then cuBLAS
"""
import ctypes, json, os, statistics, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))
sys.path.insert(0, HERE)
import numpy as np

SRC = r'''
extern "C" __global__ void k0(int* p) { if (threadIdx.x == 0) p[blockIdx.x] = 1; }
extern "C" __global__ void k1(int* p) {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
  if (threadIdx.x == 0) p[blockIdx.x] = 1;
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
'''

def plans():
    """(m, n, k, dtype, config, defines)"""
    def c(m, n, k, dt, bm, bn, bk, st, defs=None, **kw):
        d = {"a_dtype": dt, "b_dtype": dt, "bm": bm, "bn": bn, "bk": bk, "stages": st}
        d.update(kw)
        return (m, n, k, dt, d, defs or {})
    out = []
    S1 = {"FSW_CLUSTER_START": 1}
    for defs in ({}, S1):
        out.append(c(128, 256, 256, "e4m3", 64, 64, 128, 8, defs, cluster_m=2))
        out.append(c(128, 2112, 7168, "e4m3", 64, 64, 128, 8, defs, cluster_m=2))
        out.append(c(1274, 1312, 2416, "e4m3", 128, 112, 128, 5, defs, cluster_m=2))
        out.append(c(2035, 272, 6928, "bf16", 64, 96, 64, 8, defs, cluster_m=2))
    out.append(c(128, 256, 256, "e4m3", 64, 64, 128, 8))
    # one consumer warpgroup on 64-row tiles against two (128-row tiles, or ping-pong)
    for m, n, k in ((2035, 272, 6928), (4096, 4096, 4096)):
        out.append(c(m, n, k, "bf16", 64, 96, 64, 8))
        out.append(c(m, n, k, "bf16", 128, 96, 64, 6))
        out.append(c(m, n, k, "bf16", 64, 96, 64, 8, pingpong=True))
        out.append(c(m, n, k, "bf16", 64, 192, 64, 6))
        out.append(c(m, n, k, "bf16", 128, 192, 64, 4))
    out.append(c(4096, 4096, 4096, "bf16", 64, 256, 64, 4))
    out.append(c(4096, 4096, 4096, "bf16", 128, 256, 64, 4))
    out.append(c(4096, 4096, 4096, "bf16", 64, 256, 64, 4, pingpong=True))
    return out


def cmd_launch():
    import torch
    from cuda.bindings import driver as drv, nvrtc
    import gpu_corpus
    gpu = gpu_corpus._Gpu("read")
    prog = nvrtc.nvrtcCreateProgram(SRC.encode(), b"k.cu", 0, [], [])[1]
    r = nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=sm_90a"])
    size = nvrtc.nvrtcGetCUBINSize(prog)[1]
    buf = b" " * size
    nvrtc.nvrtcGetCUBIN(prog, buf)
    torch.cuda.init()
    mod = drv.cuModuleLoadData(buf)[1]
    fs = {name: drv.cuModuleGetFunction(mod, name)[1] for name in (b"k0", b"k1")}
    out = torch.zeros(1024, dtype=torch.int32, device="cuda")
    for f in fs.values():
        drv.cuFuncSetAttribute(f, drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024)
    stream = torch.cuda.current_stream().cuda_stream

    def launcher(f, grid, cl, smem):
        cfg = drv.CUlaunchConfig()
        cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid, 1, 1
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = 384, 1, 1
        cfg.sharedMemBytes = smem
        cfg.hStream = stream
        if cl > 0:
            a = drv.CUlaunchAttribute()
            a.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = cl, 1, 1
            cfg.attrs = [a]
            cfg.numAttrs = 1
        args = ((out.data_ptr(),), (ctypes.c_void_p,))
        def go():
            e = drv.cuLaunchKernelEx(cfg, f, args, 0)[0]
            assert e == drv.CUresult.CUDA_SUCCESS, e
        return go

    for smem in (0, 200 * 1024):
        for name, f in fs.items():
            for grid in (2, 32, 128):
                line = []
                for cl in (0, 1, 2, 4):
                    go = launcher(f, grid, cl, smem)
                    t = gpu.time(go, 30, 3)["median_ms"] * 1e3
                    # back to back: 200 launches between two events
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    go(); torch.cuda.synchronize()
                    s.record()
                    for _ in range(200):
                        go()
                    e.record(); torch.cuda.synchronize()
                    bb = s.elapsed_time(e) * 1e3 / 200
                    line.append(f"cl{cl}: {t:5.2f} / {bb:5.2f}")
                print(f"{name.decode()} smem {smem // 1024:3d}K grid {grid:3d}: " + "  ".join(line), flush=True)


def trace_defs(cfg, m, n, k, ctas, defs):
    """trace.trace with extra defines"""
    import ctypes
    from fastswz.cuda import runtime as rt
    from fastswz.cuda.runtime import GemmKernel, compile_cubin
    import trace as tr
    cubin, key = compile_cubin(cfg, defines=dict(defs, FSW_TRACE=ctas))
    kern = GemmKernel(cfg, cubin, key)
    drv = rt.driver()
    words = ctas * 2 * tr.UNITS * tr.EVENTS
    buf = rt._alloc(words * 8)
    kern._function()
    g, _ = rt._check(drv.cuModuleGetGlobal(kern._load(rt.current_device())[0], b"fsw_trace_out"), "cuModuleGetGlobal")
    runs = []
    for _ in range(3):
        rt._check(drv.cuMemsetD8(buf, 0, words * 8), "memset")
        hv = ctypes.c_uint64(int(buf))
        rt._check(drv.cuMemcpyHtoD(g, ctypes.addressof(hv), 8), "set fsw_trace_out")
        t = kern.time(m, n, k, warmup=0, reps=1)
        out = np.empty(words, np.uint64)
        rt._check(drv.cuMemcpyDtoH(out.ctypes.data, buf, words * 8), "d2h")
        runs.append((t, out.reshape(ctas, 2, tr.UNITS, tr.EVENTS).astype(np.int64)))
    return runs[-1], None


def cmd_gemm(out_path):
    import torch
    import gpu_corpus
    from probe import ShapeProblem
    from fastswz.cuda import compile_gemm, choose_plan
    from fastswz.cuda.runtime import GemmKernel, compile_cubin
    import trace as tr
    gpu = gpu_corpus._Gpu("read")
    ops = gpu_corpus._Operands(torch)
    res = []
    for m, n, k, dt, cfg0, defs in plans():
        p = ShapeProblem(m, n, k, dt)
        a, b, d, ptrs, lds = ops.make(p)
        fn, kind, library = gpu_corpus._cublas(torch, p, a, b)
        ref = fn()
        cub = gpu.time(fn, 20, 3)["median_ms"]
        cfg = compile_gemm(cfg0).config
        kern = GemmKernel(cfg, *compile_cubin(cfg, defines=defs or None))
        go, how = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
        d.fill_(float("nan")); go()
        chk = gpu_corpus._check(torch, p, d, ref, gpu_corpus._exact_rows(torch, a, b))
        t = gpu.time(go, 30, 3)["median_ms"]
        (tt, ev), plain = trace_defs(cfg, m, n, k, 132, defs)
        # spans (ns): entry (unit 1 ev 6), consumer loop start (unit 0 ev 6), end (unit 0 ev 7)
        ent = ev[:, :, 1, 6].astype(np.int64); st = ev[:, :, 0, 6].astype(np.int64); en = ev[:, :, 0, 7].astype(np.int64)
        ok = (ent > 0) & (en > 0)
        e0 = ent[ok].min()
        span = {"entry_spread_ns": int(ent[ok].max() - e0), "start_after_entry_ns": float(np.median((st - ent)[ok])),
                "end_max_ns": int(en[ok].max() - e0), "end_median_ns": float(np.median(en[ok] - e0)),
                "traced_ms": tt["median_ms"], "ctas": int(ok.any(axis=1).sum())}
        med, _ = tr.summarize(f"{m}x{n}x{k} {dt} {gpu_corpus.plan_text(cfg)} {defs}", ev, 132, False)
        row = {"shape": [m, n, k], "dtype": dt, "config": cfg, "defines": defs, "ok": chk["ok"], "ms": t, "cublas_ms": cub,
               "trace": span, "phases": med}
        print(f"  event {t*1e3:7.2f} us  cuBLAS {cub*1e3:7.2f}  ok {chk['ok']}  {json.dumps(span)}", flush=True)
        res.append(row)
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)


def cmd_ncu():
    import torch
    import gpu_corpus
    from probe import ShapeProblem
    from fastswz.cuda import compile_gemm
    ops = gpu_corpus._Operands(torch)
    for m, n, k, dt, cfg0, defs in plans():
        if (m, n) != (2035, 272) and (m, n, k) != (128, 2112, 7168):
            continue
        p = ShapeProblem(m, n, k, dt)
        a, b, d, ptrs, lds = ops.make(p)
        fn, kind, library = gpu_corpus._cublas(torch, p, a, b)
        kern = compile_gemm(cfg0)
        go, how = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
        go(); fn(); torch.cuda.synchronize()
        print(f"ncu_case: {m}x{n}x{k} {dt} {gpu_corpus.plan_text(kern.config)}", flush=True)
        torch.cuda.profiler.start(); go(); torch.cuda.synchronize(); torch.cuda.profiler.stop()
        if cfg0.get("cluster_m", 1) == 1 and cfg0.get("cluster_n", 1) == 1:
            print(f"ncu_case: {m}x{n}x{k} {dt} cuBLAS", flush=True)
            torch.cuda.profiler.start(); fn(); torch.cuda.synchronize(); torch.cuda.profiler.stop()


def _make_one(i):
    from fastswz.cuda import compile_gemm
    from fastswz.cuda.runtime import compile_cubin
    m, n, k, dt, cfg0, defs = plans()[i]
    kern = compile_gemm(cfg0)
    compile_cubin(kern.config, defines=defs or None)
    compile_cubin(kern.config, defines=dict(defs, FSW_TRACE=132))
    return i


def cmd_make():
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(16) as ex:
        done = list(ex.map(_make_one, range(len(plans()))))
    print("compiled", len(done))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "launch": cmd_launch()
    elif cmd == "gemm": cmd_gemm(sys.argv[2])
    elif cmd == "ncu": cmd_ncu()
    elif cmd == "make": cmd_make()


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
    for e in errs[:20]:
        print(e)


if __name__ == "__main__" and sys.argv[1] == "pre":
    cmd_pre(sys.argv[2])


def ab_problems():
    """Corpus and seed 1-18 problems whose default plan runs on a cluster (2 or 4 CTAs), at most
    48, spread over the files."""
    import probe
    import fastswz.cuda as fc
    from fastswz.corpus import load_corpus
    files = [os.path.join(HERE, "..", "..", "..", "src", "fastswz", "data", "gemm_corpus.json")] + \
        probe._seed_files_1_16() + [os.path.join(HERE, f"fresh_{s}.json") for s in (20261801, 20261802)]
    out, seen = [], set()
    for f in files:
        for p in load_corpus(f):
            key = (p.m, p.n, p.k, p.a_dtype)
            if p.a_major != "K" or p.b_major != "K" or p.a_dtype not in ("bf16", "e4m3") or key in seen:
                continue
            seen.add(key)
            c = fc.choose_plan(p.m, p.n, p.k, p.a_dtype, p.b_dtype)
            if c["cluster_m"] * c["cluster_n"] > 1:
                out.append((key, c))
    step = max(1, len(out) // 48)
    return out[::step][:48]


def _ab_pre_one(item):
    from fastswz.cuda import compile_gemm
    from fastswz.cuda.runtime import compile_cubin
    key, c = item
    compile_gemm(c)
    compile_cubin(c, defines={"FSW_CLUSTER_START": 0})
    return key


def cmd_ab(out_path):
    """FSW_CLUSTER_START 1 (the default) against 0 on the clustered defaults, one run, L2 flushed."""
    import torch
    import gpu_corpus
    from probe import ShapeProblem
    from fastswz.cuda import compile_gemm
    from fastswz.cuda.runtime import GemmKernel, compile_cubin
    from concurrent.futures import ProcessPoolExecutor
    items = ab_problems()
    with ProcessPoolExecutor(16) as ex:
        list(ex.map(_ab_pre_one, items))
    gpu = gpu_corpus._Gpu("read")
    ops = gpu_corpus._Operands(torch)
    res = []
    for (m, n, k, dt), c in items:
        p = ShapeProblem(m, n, k, dt)
        a, b, d, ptrs, lds = ops.make(p)
        fn, kind, library = gpu_corpus._cublas(torch, p, a, b)
        ref = fn()
        row = {"shape": [m, n, k], "dtype": dt, "config": c}
        for name, kern in (("new", compile_gemm(c)), ("old", GemmKernel(c, *compile_cubin(c, defines={"FSW_CLUSTER_START": 0})))):
            go, how = gpu_corpus._launcher(kern, p, a, b, d, ptrs, lds, "prepared")
            d.fill_(float("nan")); go()
            ok = gpu_corpus._check(torch, p, d, ref, gpu_corpus._exact_rows(torch, a, b))["ok"]
            row[name] = {"ms": gpu.time(go, 15, 3)["median_ms"], "ok": ok}
        row["new2"] = gpu.time(compile_gemm(c) and gpu_corpus._launcher(compile_gemm(c), p, a, b, d, ptrs, lds, "prepared")[0], 15, 3)["median_ms"]
        print(f"{m}x{n}x{k} {dt} cl{c['cluster_m']}x{c['cluster_n']}: new {row['new']['ms']*1e3:.2f} "
              f"(again {row['new2']*1e3:.2f}) old {row['old']['ms']*1e3:.2f} us ok {row['new']['ok']} {row['old']['ok']}", flush=True)
        res.append(row)
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__" and sys.argv[1] == "ab":
    cmd_ab(sys.argv[2])
