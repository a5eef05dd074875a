#!/usr/bin/env python3
"""Where the 2-CTA multicast path goes wrong: run one cluster plan on integer inputs and count
the mismatches of D by (rank = tile row parity, half of the BN tile, 8-row group, k) so the
pattern names the missing data. FASTSWZ_EXPERIMENTAL_CLUSTERS=1 must be set."""
import json, os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda import compile_gemm
from fastswz.cuda import runtime as rt
from fastswz.cuda.reference_gemm import decode

def run(cfg, m, n, k):
    kern = compile_gemm(cfg)
    c = kern.config
    rng = np.random.default_rng(1)
    drv = rt.driver(); rt._context()
    ptrs, host = [], []
    for op, rows in (("a", m), ("b", n)):
        x = rng.integers(-2, 3, rows * k).astype(np.float32)
        bits = rt._bits_of(x, c[op + "_dtype"]).reshape(rows, k)
        host.append(decode(bits, c[op + "_dtype"]))
        st = bits if c[op + "_major"] == "K" else np.ascontiguousarray(bits.T)
        p = rt._alloc(st.nbytes); rt._check(drv.cuMemcpyHtoD(p, st.ctypes.data, st.nbytes), "h2d"); ptrs.append(p)
    lda = k if c["a_major"] == "K" else m
    ldb = k if c["b_major"] == "K" else n
    pd = rt._alloc(m * n * 2)
    rt._check(drv.cuMemsetD8(pd, 0xFF, m * n * 2), "memset")
    kern.launch(ptrs[0], ptrs[1], pd, m, n, k, lda, ldb, n)
    rt._check(drv.cuCtxSynchronize(), "sync")
    out = np.empty(m * n, np.uint16); rt._check(drv.cuMemcpyDtoH(out.ctypes.data, pd, out.nbytes), "d2h")
    d = decode(out, "bf16").reshape(m, n)
    ref = host[0] @ host[1].T
    bad = ~(d == ref)
    bm, bn = c["bm"], c["bn"]
    r = np.arange(m)[:, None]; q = np.arange(n)[None, :]
    rank = (r // bm) % 2 + 0 * q
    half = ((q % bn) >= bn // 2) + 0 * r
    print(json.dumps({"cfg": {x: c[x] for x in ("a_major", "b_major", "bm", "bn", "bk", "stages", "epilogue", "tile_group")},
                      "shape": [m, n, k], "bad": int(bad.sum()), "nan": int(np.isnan(d).sum()),
                      "by_rank_half": {f"r{a}h{b}": int((bad & (rank == a) & (half == b)).sum()) for a in (0, 1) for b in (0, 1)},
                      "rows_bad_by_mod64": np.bincount((np.nonzero(bad)[0] % bm) // 8, minlength=bm // 8).tolist(),
                      "tiles_bad": int(len({(i // bm, j // bn) for i, j in zip(*np.nonzero(bad))})),
                      "tiles": (-(-m // bm)) * (-(-n // bn))}))

for cfg, shp in [
    (dict(a_major="MN", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=True, tile_group=4, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="MN", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="K", b_major="K", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="K", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="MN", b_major="K", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="K", b_major="K", bm=128, bn=80, bk=64, stages=5, epilogue=False, tile_group=8, cluster_m=2), (1024, 1040, 512)),
    (dict(a_major="K", b_major="K", bm=128, bn=256, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
]:
    try:
        run(cfg, *shp)
    except Exception as e:
        print("ERROR", cfg, repr(e)[:300])
