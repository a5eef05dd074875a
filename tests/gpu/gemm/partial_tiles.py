#!/usr/bin/env python3
"""Does a partial last tile row or column slow a plan down? One plan timed on problems that
differ only in M or N (GemmKernel.time: L2 flushed, median of 15), with TFLOP/s counted over
the tiles computed (padded) as well as over the problem.

    FASTSWZ_CACHE=.fswcache PYTHONPATH=src python3 tests/gpu/gemm/partial_tiles.py [precompile]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))

PLANS = {  # name -> (plan, shapes)
    "128x112x64 s5": ({"a_dtype": "bf16", "b_dtype": "bf16", "bm": 128, "bn": 112, "bk": 64, "stages": 5,
                       "epilogue": True, "epilogue_n": 0},
                      [(512, 3584, 18944), (425, 3584, 18944), (512, 3632, 18944), (425, 3632, 18944),
                       (384, 3584, 18944), (449, 3584, 18944), (500, 3584, 18944), (511, 3584, 18944),
                       (512, 3520, 18944), (512, 3500, 18944)]),
    "128x128x64 s5": ({"a_dtype": "bf16", "b_dtype": "bf16", "bm": 128, "bn": 128, "bk": 64, "stages": 5,
                       "epilogue": True, "epilogue_n": 64},
                      [(384, 5376, 16384), (263, 5376, 16384), (300, 5376, 16384), (256, 5376, 16384)]),
}


def main(argv):
    from fastswz.cuda import normalize_config
    from fastswz.cuda.runtime import GemmKernel, compile_cubin

    for name, (plan, shapes) in PLANS.items():
        cfg = normalize_config(plan)
        cub = compile_cubin(cfg)
        if argv[:1] == ["precompile"]:
            continue
        kern = GemmKernel(cfg, *cub)
        for m, n, k in shapes:
            t = min(kern.time(m, n, k, warmup=3, reps=15)["median_ms"] for _ in range(2))
            pm, pn = -(-m // cfg["bm"]) * cfg["bm"], -(-n // cfg["bn"]) * cfg["bn"]
            tiles = (pm // cfg["bm"]) * (pn // cfg["bn"])
            print(f"{name} {m}x{n}x{k}: {t * 1e3:7.1f} us, {2 * m * n * k / t / 1e9:6.1f} TF, "
                  f"{2 * pm * pn * k / t / 1e9:6.1f} TF over {tiles} padded tiles", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
