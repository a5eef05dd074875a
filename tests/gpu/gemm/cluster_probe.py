#!/usr/bin/env python3
"""Where the 2-CTA multicast path goes wrong: run one cluster plan on integer inputs and count
the mismatches of D by (rank = tile row parity, half of the BN tile, 8-row group, k) so the
pattern names the missing data."""
import json, os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))
from fastswz.cuda.codegen import normalize_config
from fastswz.cuda.runtime import GemmKernel, compile_cubin
from fastswz.cuda import runtime as rt

def build(cfg, defines=None):
    c = normalize_config(dict(cfg, out_dtype="f32"))   # f32 D: integer sums are exact
    cubin, key = compile_cubin(c, defines=defines)
    return GemmKernel(c, cubin, key)


def run(cfg, m, n, k, defines=None, diagnose=True):
    kern = build(cfg, defines)
    c = kern.config
    drv = rt.driver()
    ops = rt._host_operands(c, m, n, k, np.random.default_rng(1))   # integers: sums exact in f32
    host = [logical for logical, _, _ in ops]
    ptrs = [rt._to_device(stored) for _, stored, _ in ops]
    (_, _, lda), (_, _, ldb) = ops
    ldd = -(-n // 4) * 4   # 16-byte rows for the TMA store
    pd = rt._alloc(m * ldd * 4)
    rt._check(drv.cuMemsetD8(pd, 0xFF, m * ldd * 4), "memset")
    kern.launch(ptrs[0], ptrs[1], pd, m, n, k, lda, ldb, ldd)
    rt._check(drv.cuCtxSynchronize(), "sync")
    d = np.empty((m, ldd), np.float32); rt._check(drv.cuMemcpyDtoH(d.ctypes.data, pd, d.nbytes), "d2h")
    d = d[:, :n]
    ref = host[0] @ host[1].T
    if os.environ.get("PROBE_SAVE"):
        np.savez_compressed(os.path.join(os.environ["PROBE_SAVE"], f"{c['a_major']}{c['b_major']}_{m}x{n}x{k}.npz"),
                            a=host[0], b=host[1], d=d)
    bad = ~(d == ref)
    bm, bn = c["bm"], c["bn"]
    r = np.arange(m)[:, None]; q = np.arange(n)[None, :]
    rank = (r // bm) % 2 + 0 * q
    half = ((q % bn) >= bn // 2) + 0 * r
    res = {"cfg": {x: c[x] for x in ("a_major", "b_major", "bm", "bn", "bk", "stages", "epilogue", "tile_group")},
           "shape": [m, n, k], "bad": int(bad.sum()), "nan": int(np.isnan(d).sum()),
           "by_rank_half": {f"r{a}h{b}": int((bad & (rank == a) & (half == b)).sum()) for a in (0, 1) for b in (0, 1)},
           "rows_bad_by_8": np.bincount((np.nonzero(bad)[0] % bm) // 8, minlength=bm // 8).tolist(),
           "tiles_bad": int(len({(i // bm, j // bn) for i, j in zip(*np.nonzero(bad))})),
           "tiles": (-(-m // bm)) * (-(-n // bn))}
    # Which K contributions are wrong: blocks of BK/2 (a multicast half along K for MN-major B,
    # half a k-tile otherwise). For a sample of bad elements: is the error minus one block's
    # partial product (never arrived), minus a whole k-tile's, or another k-tile's block in
    # place of its own (stale or early data of the same stage)?
    if defines:
        res["defines"] = defines
    if not diagnose:
        del res["rows_bad_by_8"]
        print(json.dumps(res), flush=True)
        return res
    hb = c["bk"] // 2
    blocks = [(s0, min(s0 + hb, k)) for s0 in range(0, k, hb)]
    ii, jj = np.nonzero(bad)
    pick = np.random.default_rng(0).permutation(len(ii))[:400]
    A, B = host[0], host[1]
    missing, missing_tile, swapped, other = 0, 0, 0, 0
    where = {}
    for t in pick:
        i, j = ii[t], jj[t]
        err = d[i, j] - ref[i, j]
        parts = [float(A[i, a:b] @ B[j, a:b]) for a, b in blocks]
        hit = [q for q, pv in enumerate(parts) if pv != 0 and pv == -err]
        if hit:
            missing += 1; where[f"miss{hit[0] % 2}"] = where.get(f"miss{hit[0] % 2}", 0) + 1; continue
        tiles2 = [parts[q] + (parts[q + 1] if q + 1 < len(parts) else 0) for q in range(0, len(parts), 2)]
        if any(pv != 0 and pv == -err for pv in tiles2):
            missing_tile += 1; continue
        found = False
        for q in range(len(parts)):
            for q2 in range(len(parts)):
                if q2 != q and (q2 - q) % 2 == 0 and parts[q2] - parts[q] == err:
                    found = True; where[f"swap{q2 - q:+d}"] = where.get(f"swap{q2 - q:+d}", 0) + 1; break
            if found: break
        swapped += found; other += not found
    res["diagnosis_of_400"] = {"one_half_block_missing": missing, "one_ktile_missing": missing_tile,
                               "another_ktile_block": swapped, "other": other, "detail": where}
    print(json.dumps(res), flush=True)

CASES = [
    (dict(a_major="MN", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=True, tile_group=4, cluster_m=2), (256, 256, 256)),
    (dict(a_major="MN", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=True, tile_group=4, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="K", b_major="MN", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="MN", b_major="K", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="K", b_major="K", bm=128, bn=128, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="K", b_major="K", bm=128, bn=80, bk=64, stages=5, epilogue=True, tile_group=4, cluster_m=2, a_dtype="f16", b_dtype="f16"), (129, 281, 136)),
    (dict(a_major="K", b_major="K", bm=64, bn=144, bk=128, stages=3, epilogue=True, tile_group=16, cluster_m=2, a_dtype="e4m3", b_dtype="e4m3"), (257, 265, 144)),
    (dict(a_major="K", b_major="K", bm=128, bn=256, bk=64, stages=4, epilogue=False, tile_group=8, cluster_m=2), (2048, 2048, 2048)),
    (dict(a_major="K", b_major="K", bm=64, bn=144, bk=128, stages=3, epilogue=True, tile_group=16, cluster_m=2, a_dtype="e4m3", b_dtype="e4m3"), (257, 265, 136)),
    (dict(a_major="K", b_major="MN", bm=64, bn=64, bk=128, stages=5, epilogue=False, tile_group=1, cluster_m=2), (129, 281, 136)),
]

VARIANTS = [None, {"FSW_XSELF": 1}, {"FSW_XSLEEP": 20000}, {"FSW_XFENCE": 1}, {"FSW_DEBUG_DUMP": 2}]
VCASES = [CASES[0], CASES[2], CASES[4]]

if __name__ == "__main__":
    if sys.argv[1:] == ["variants"]:
        for cfg, shp in VCASES:
            for d in VARIANTS:
                for rep in range(2):
                    try:
                        run(cfg, *shp, defines=d, diagnose=False)
                    except Exception as e:
                        print("ERROR", cfg, d, repr(e)[:300], flush=True)
        sys.exit()
    if sys.argv[1:] == ["precompile-variants"]:
        for cfg, _ in VCASES:
            for d in VARIANTS:
                build(cfg, d)
        print("ok")
        sys.exit()
    if sys.argv[1:] == ["precompile"]:
        from fastswz.cuda import compile_many
        print([type(x).__name__ for x in compile_many([dict(c, out_dtype="f32") for c, _ in CASES], jobs=2)])
        sys.exit()
    for cfg, shp in CASES:
        for rep in range(2):   # twice: a race changes its count, a wrong address does not
            try:
                run(cfg, *shp)
            except Exception as e:
                print("ERROR", cfg, repr(e)[:300], flush=True)
