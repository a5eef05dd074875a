#!/usr/bin/env python3
"""What lands in shared memory on the 2-CTA multicast path: a debug build (FSW_DEBUG_DUMP)
copies each stage's A and B bytes of the first tile of the first CTAs when the full barrier
completes and again 100 us later. The one-CTA build of the same plan (its CTAs 0 and 1 take
the same tile rows as ranks 0 and 1) gives the expected bytes. Prints, per CTA and k-tile,
the differing bytes by operand and 1 KiB block."""
import ctypes, json, os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda import runtime as rt
from fastswz.cuda.runtime import GemmKernel, compile_cubin
from fastswz.cuda import codegen

CTAS = 2


def dump(cfg, m, n, k, seed=1):
    c = codegen.normalize_config(dict(cfg, out_dtype="f32"))
    cubin, key = compile_cubin(c, defines={"FSW_DEBUG_DUMP": CTAS})
    kern = GemmKernel(c, cubin, key)
    drv = rt.driver()
    ops = rt._host_operands(c, m, n, k, np.random.default_rng(seed))
    ptrs = [rt._to_device(stored) for _, stored, _ in ops]
    (_, _, lda), (_, _, ldb) = ops
    ldd = -(-n // 4) * 4
    pd = rt._alloc(m * ldd * 4)
    p = kern.plan
    abytes, bbytes = p["a"]["stage_bytes"], p["b"]["stage_bytes"]
    stages = p["stages"]
    total = CTAS * stages * 2 * (abytes + bbytes)
    buf = rt._alloc(total)
    rt._check(drv.cuMemsetD8(buf, 0xA5, total), "memset")
    kern._function()
    g, _ = rt._check(drv.cuModuleGetGlobal(kern._module, b"fsw_dump_out"), "cuModuleGetGlobal")
    hv = ctypes.c_uint64(int(buf))
    rt._check(drv.cuMemcpyHtoD(g, ctypes.addressof(hv), 8), "set fsw_dump_out")
    kern.launch(ptrs[0], ptrs[1], pd, m, n, k, lda, ldb, ldd)
    rt._check(drv.cuCtxSynchronize(), "sync")
    out = np.empty(total, np.uint8)
    rt._check(drv.cuMemcpyDtoH(out.ctypes.data, buf, total), "d2h")
    return out.reshape(CTAS, stages, 2, abytes + bbytes), abytes


def compare(cfg, shape):
    got, abytes = dump(dict(cfg, cluster_m=2), *shape)
    want, _ = dump(dict(cfg, cluster_m=1), *shape)
    k_tiles = -(-shape[2] // cfg["bk"])
    for cta in range(CTAS):
        for kt in range(min(got.shape[1], k_tiles)):
            line = {"cfg": {x: cfg[x] for x in ("a_major", "b_major", "bm", "bn", "bk", "stages")},
                    "shape": shape, "cta": cta, "kt": kt}
            for copy in (0, 1):
                d = got[cta, kt, copy] != want[cta, kt, 1]
                da, db = d[:abytes], d[abytes:]
                line[f"copy{copy}"] = {"a_bad": int(da.sum()), "b_bad": int(db.sum()),
                                       "b_bad_by_kib": np.add.reduceat(db, np.arange(0, db.size, 1024)).tolist()}
            line["late_landing_b"] = int((got[cta, kt, 0, abytes:] != got[cta, kt, 1, abytes:]).sum())
            line["ref_stable"] = bool((want[cta, kt, 0] == want[cta, kt, 1]).all())
            print(json.dumps(line), flush=True)


CASES = [
    (dict(a_major="MN", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=4), [256, 256, 256]),
    (dict(a_major="K", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=4), [256, 256, 256]),
    (dict(a_major="K", b_major="K", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=4), [256, 256, 256]),
    (dict(a_major="K", b_major="K", bm=64, bn=144, bk=128, stages=3, epilogue=True, tile_group=16, a_dtype="e4m3", b_dtype="e4m3"), [257, 265, 136]),
]

if __name__ == "__main__":
    if sys.argv[1:] == ["precompile"]:
        for cfg, _ in CASES:
            for cm in (1, 2):
                compile_cubin(codegen.normalize_config(dict(cfg, cluster_m=cm, out_dtype="f32")),
                              defines={"FSW_DEBUG_DUMP": CTAS})
        print("ok")
        sys.exit()
    for cfg, shape in CASES:
        try:
            compare(cfg, shape)
        except Exception as e:
            print("ERROR", cfg, repr(e)[:300], flush=True)
