#!/usr/bin/env python3
"""Diagnose a kernel that does not finish: launch a debug build (FSW_DEBUG_HANG) whose D
pointer is host-mapped memory, poll for a few seconds, and print where each warpgroup waits.
Run one variant per process (a hung kernel poisons its context):
    python3 tests/gpu/gemm/debug_hang.py VARIANT   (VARIANT: see VARIANTS)
"""
import ctypes, os, sys, time
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda import runtime, codegen
from fastswz.cuda.runtime import GemmKernel, compile_cubin, driver, _check, _alloc

VARIANTS = {
    "ws": (dict(bm=128, bn=256, bk=64, stages=4), {"FSW_DEBUG_HANG": 1}),
    "ws-noreg": (dict(bm=128, bn=256, bk=64, stages=4), {"FSW_DEBUG_HANG": 1, "FSW_SETMAXNREG": 0}),
    "small": (dict(bm=64, bn=64, bk=64, stages=2), {"FSW_DEBUG_HANG": 1}),
    "small-noreg": (dict(bm=64, bn=64, bk=64, stages=2), {"FSW_DEBUG_HANG": 1, "FSW_SETMAXNREG": 0}),
    "bm256": (dict(bm=256, bn=128, bk=64, stages=4), {"FSW_DEBUG_HANG": 1}),
    "bm256-noreg": (dict(bm=256, bn=128, bk=64, stages=4), {"FSW_DEBUG_HANG": 1, "FSW_SETMAXNREG": 0}),
    "bm192": (dict(bm=192, bn=128, bk=64, stages=4), {"FSW_DEBUG_HANG": 1}),
    "bm192-noreg": (dict(bm=192, bn=128, bk=64, stages=4), {"FSW_DEBUG_HANG": 1, "FSW_SETMAXNREG": 0}),
    "ws-epi": (dict(bm=128, bn=256, bk=64, stages=3, epilogue=True), {"FSW_DEBUG_HANG": 1}),
    "small-epi": (dict(bm=64, bn=64, bk=64, stages=2, epilogue=True), {"FSW_DEBUG_HANG": 1}),
}
name = sys.argv[1]
if "--torch" in sys.argv:
    import torch
    torch.zeros(1, device="cuda")
mnk = [int(x) for x in sys.argv[2:5]] if len(sys.argv) > 4 and sys.argv[2].isdigit() else [256, 256, 256]
cfg, defs = VARIANTS[name]
cubin, key = compile_cubin(cfg, cache=False, defines=defs)
k = GemmKernel(cfg, cubin, key)
drv = driver()
runtime._context()
m, n, kk = mnk
rng = np.random.default_rng(0)
a = np.full(m * kk, 0x3F80, dtype=np.uint16)   # 1.0
b = np.full(n * kk, 0x3F80, dtype=np.uint16)
pa, pb = _alloc(a.nbytes), _alloc(b.nbytes)
_check(drv.cuMemcpyHtoD(pa, a.ctypes.data, a.nbytes), "h2d")
_check(drv.cuMemcpyHtoD(pb, b.ctypes.data, b.nbytes), "h2d")
nbytes = m * n * 2 + 65536
host = _check(drv.cuMemHostAlloc(nbytes, drv.CU_MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc")
ctypes.memset(host, 0, nbytes)
dptr = _check(drv.cuMemHostGetDevicePointer(host, 0), "cuMemHostGetDevicePointer")
f = k._function()
gptr, gsize = _check(drv.cuModuleGetGlobal(k._module, b"fsw_debug_out"), "cuModuleGetGlobal")
hv = ctypes.c_uint64(int(dptr))
_check(drv.cuMemcpyHtoD(gptr, ctypes.addressof(hv), 8), "set fsw_debug_out")
dd = _alloc(m * n * 2)
print(name, "plan kernel section:", k.plan["kernel"]["barriers"], "smem", k.smem_bytes, flush=True)
k.launch(pa, pb, dd, m, n, kk, kk, kk, n)
t0 = time.time()
while time.time() - t0 < 4:
    r = drv.cuStreamQuery(0)[0]
    if r != drv.CUresult.CUDA_ERROR_NOT_READY:
        break
    time.sleep(0.05)
print(name, mnk, "status after", round(time.time() - t0, 2), "s:", r, flush=True)
if r == drv.CUresult.CUDA_SUCCESS:
    d = np.empty(m * n, dtype=np.uint16)
    _check(drv.cuMemcpyDtoH(d.ctypes.data, dd, m * n * 2), "d2h")
    vals = ((d.astype(np.uint32) << 16).view(np.float32))
    print(name, "D values: min", vals.min(), "max", vals.max(), "(want", kk, ")", flush=True)
else:
    u = np.ctypeslib.as_array(ctypes.cast(host, ctypes.POINTER(ctypes.c_uint32)), (nbytes // 4,))
    recs = u[:8 * 8 * 200].reshape(-1, 8)
    for i, rec in enumerate(recs):
        if rec[0] == 1:
            print(name, "stuck: block", rec[1], "thread", rec[2], "bar", hex(rec[3]), "parity", rec[4],
                  "state", hex(int(rec[6]) << 32 | int(rec[5])), flush=True)
    os._exit(3)
