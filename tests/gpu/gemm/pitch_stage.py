#!/usr/bin/env python3
"""Is a copy to 128-byte rows worth it? Times each problem's default plan (and the same plan on
a 2-CTA cluster) with A and B on their packed row pitch (16-byte padded, as the corpus run
gives them), A on a 128-byte pitch, B on one, and both; cuBLAS on the packed and the aligned
operands; and the copy ``gemm`` would make (cuMemcpy2DAsync to a 128-byte pitch) of each.

    FASTSWZ_CACHE=.fswcache python tests/gpu/gemm/pitch_stage.py precompile   # here, no GPU
    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/pitch_stage.py run --out F.json
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))

PROBLEMS = [  # the fresh seeds' losers whose rows are off the 128-byte line, then on-line ones
    (10351, 432, 18768, "bf16"), (655, 3840, 30864, "bf16"), (855, 5408, 19440, "bf16"),
    (215, 7008, 20592, "bf16"), (763, 480, 2608, "bf16"), (272, 13440, 25616, "e4m3"),
    (263, 13920, 8176, "e4m3"), (1665, 2704, 3248, "e4m3"), (1274, 1312, 2416, "e4m3"),
    (127, 3904, 6672, "e4m3"), (590, 1536, 2896, "e4m3"), (3425, 32576, 352, "e4m3"),
    (192, 2704, 3248, "e4m3"), (2120, 544, 2864, "e4m3"), (2771, 1952, 1760, "bf16"),
    (425, 3632, 32128, "bf16"), (267, 2448, 4096, "bf16"), (158, 3072, 21632, "bf16"),
]


ALL = ((16, 16), (128, 16), (16, 128), (128, 128))
BOTH = ((16, 16), (128, 128))


def configs(m, n, k, dt):
    """(plan, pitch pairs): the default and its 2-CTA cluster at every pitch pair; a 128 x 256
    and a 192 x 128 cluster one-pass plan and the wide split at packed and aligned pitches."""
    from fastswz.cuda import _split_on, default_config
    from probe import _fit

    base = default_config(m, n, k, dt, dt, "K", "K", "bf16")
    out = [(base, ALL)]
    if base["split_k"] == 1 and not base["swap_ab"]:
        out.append((dict(base, cluster_m=2), ALL))
    bk = 128 if dt == "e4m3" else 64
    one = dict(base, bk=bk, split_k=1, swap_ab=False, epilogue=True, epilogue_n=64, epilogue_stages=1,
               cluster_m=1, pingpong=False, swizzle_a="128B", swizzle_b="128B", split_reduce="auto")
    # split-K as a stand-in for stream-K on 1-2 waves of 128 x 256 tiles: the split that wastes
    # the least of the last wave, at 16 k-tiles a split or more
    tiles, kt = -(-m // 128) * -(-n // 256), -(-k // bk)
    waste = {s: -(-tiles * s // 132) / s for s in range(2, 9) if kt // s >= 16}
    sk = min(waste, key=waste.get) if waste and tiles > 66 else None
    for extra in (_fit(dict(one, bm=128, bn=256), 8), _fit(dict(one, bm=192, bn=128, cluster_m=2), 8),
                  _split_on(m, n, k, dt, dt, "K", "K", "bf16", 128, min(256, n), 32),
                  sk and waste[sk] < -(-tiles // 132) and _fit(dict(one, bm=128, bn=256, epilogue=False,
                                                                    epilogue_n=0, split_k=sk), 8)):
        if extra and all(extra != c for c, _ in out):
            out.append((extra, BOTH))
    return out


def cmd_precompile(args):
    from fastswz.cuda import compile_many
    from fastswz.cuda.codegen import supported

    cfgs = []
    for p in PROBLEMS:
        for c, _ in configs(*p):
            if supported(c) is None:
                cfgs.append(c)
    compile_many(cfgs, progress=True)
    print(len(cfgs), "plans compiled")


def cmd_run(args):
    from gpu_corpus import _Gpu
    import fastswz.cuda as fc
    from fastswz.cuda import runtime as R
    from fastswz.cuda.codegen import supported

    gpu = _Gpu()
    torch = gpu.torch
    td = {"bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn}
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for (m, n, k, dt) in PROBLEMS:
        e = 1 if dt == "e4m3" else 2
        p16 = -(-k * e // 16) * 16 // e
        p128 = -(-k * e // 128) * 128 // e

        def op(r, pitch):
            x = torch.randn(r, pitch, device="cuda", dtype=torch.bfloat16)
            return x if dt == "bf16" else x.to(td[dt])
        A = {16: op(m, p16), 128: op(m, p128)}
        B = {16: op(n, p16), 128: op(n, p128)}
        A[128][:, :k].copy_(A[16][:, :k])
        B[128][:, :k].copy_(B[16][:, :k])
        dn = -(-n * 2 // 16) * 16 // 2
        d = torch.empty(m, dn, dtype=torch.bfloat16, device="cuda")
        out = d[:, :n]
        row = {"m": m, "n": n, "k": k, "dtype": dt, "plans": [], "cublas": {}, "copy_ms": {}}
        reps = 10 if 2 * m * n * k > 2e11 else 20
        one = torch.ones((), device="cuda")

        def cub(a, b):
            if dt == "bf16":
                return lambda: torch.matmul(a, b)
            return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        for pa, pb in ((16, 16), (128, 128)):
            a, b = A[pa][:, :k], B[pb][:, :k].t()
            try:
                row["cublas"][f"{pa}/{pb}"] = gpu.time(cub(a, b), reps, 3)["median_ms"]
            except RuntimeError as exc:
                row["cublas"][f"{pa}/{pb}"] = str(exc).splitlines()[0][:100]
        ref = torch.matmul(A[16][:, :k].float(), B[16][:, :k].float().t()) if m * n * k < 4e11 else None
        for name, src, r in (("A", A[16], m), ("B", B[16], n)):
            dst = A[128] if name == "A" else B[128]

            def cp(src=src, dst=dst, r=r):
                R.copy2d(src.data_ptr(), src.stride(0) * e, dst.data_ptr(), dst.stride(0) * e, k * e, r,
                         stream, 0)
            row["copy_ms"][name] = gpu.time(cp, reps, 3)["median_ms"]
        for cfg, pitches in configs(m, n, k, dt):
            why = supported(cfg)
            if why is not None:
                row["plans"].append({"config": cfg, "unsupported": why})
                continue
            kern = fc.compile_gemm(cfg)
            t = {}
            for pa, pb in pitches:
                a, b = A[pa][:, :k], B[pb][:, :k].t()
                d.fill_(float("nan"))
                fc.gemm(a, b, out=out, plan=kern)
                torch.cuda.synchronize()
                ok = not bool(torch.isnan(out).any())
                if ok and ref is not None:
                    err = float((out.float() - ref).norm() / ref.norm())
                    ok = err < (5e-2 if dt == "e4m3" else 1e-2)
                t[f"{pa}/{pb}"] = {"ms": gpu.time(lambda a=a, b=b: fc.gemm(a, b, out=out, plan=kern), reps, 3)["median_ms"],
                                   "ok": ok}
            row["plans"].append({"config": cfg, "times": t})
        rows.append(row)
        c = row["cublas"].get("16/16")
        line = f"{m}x{n}x{k} {dt} cublas {c * 1e3 if isinstance(c, float) else c} us; copy A {row['copy_ms']['A'] * 1e3:.1f} B {row['copy_ms']['B'] * 1e3:.1f} us"
        for pl in row["plans"]:
            if "times" in pl:
                cfg = pl["config"]
                line += f"\n   {cfg['bm']}x{cfg['bn']}x{cfg['bk']} s{cfg['stages']} e{int(cfg['epilogue'])} sk{cfg['split_k']} cl{cfg['cluster_m']}: " + " ".join(
                    f"{key} {v['ms'] * 1e3:.1f}{'' if v['ok'] else '!BAD'}" for key, v in pl["times"].items())
        print(line, flush=True)
        del A, B, d
        torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["precompile", "run"])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    return cmd_precompile(args) if args.what == "precompile" else cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
