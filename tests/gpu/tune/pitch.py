#!/usr/bin/env python3
"""Does the row pitch of A, B and D decide the 1-CTA kernel's slow shapes? (issue 29's
cluster question: on a few shapes a 2-CTA cluster is 20-25% faster, on most 5-10% slower.)

    python3 tests/gpu/tune/pitch.py run [--cache .fswcache] [--ncu M,N,K]

Times the default plan on clusters of 1 and 2 CTAs with the operands' row pitches rounded up to
16 bytes (what ``GemmKernel.time`` and ``gemm`` on packed tensors use), 128, 256 and 1024 bytes,
and to 16 bytes plus 128 (the same alignment, shifted rows). ``--ncu`` launches that one
problem's two plans once each and exits (for ``ncu`` to profile).
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "src"))

SLOW = [(3000, 5000, 1000), (5000, 3000, 7000), (3500, 4500, 2500), (5837, 4685, 6179),
        (5055, 13915, 2051)]
FINE = [(4488, 8288, 1259), (4990, 11696, 5659), (5732, 5826, 1852), (4096, 4096, 4096)]
ALIGNS = (("16", 16, 0), ("128", 128, 0), ("256", 256, 0), ("1024", 1024, 0), ("16+128", 16, 128))


def pitched(cols, e, align, extra):
    return (-(-cols * e // align) * align + extra) // e


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["run"])
    ap.add_argument("--cache", default=".fswcache")
    ap.add_argument("--ncu", default=None)
    args = ap.parse_args(argv)
    os.environ["FASTSWZ_CACHE"] = os.path.abspath(args.cache)
    from fastswz.cuda import choose_plan, compile_gemm
    from fastswz.cuda import runtime as R
    from fastswz.cuda import tuned as T

    T.use_tuned(None)
    probs = [tuple(int(x) for x in args.ncu.split(","))] if args.ncu else SLOW + FINE
    for p in probs:
        base = choose_plan(*p, "bf16", "bf16", "K", "K", "bf16")
        kerns = {cm: compile_gemm(dict(base, cluster_m=cm)) for cm in (1, 2)}
        if args.ncu:
            for cm in (1, 2):
                kerns[cm].time(*p, warmup=0, reps=1)
            return 0
        cells = []
        for name, align, extra in ALIGNS:
            lds = (pitched(p[2], 2, align, extra), pitched(p[2], 2, align, extra), pitched(p[1], 2, align, extra))
            R._lds = lambda c, m, n, k, lds=lds: lds   # noqa: E731 - the timing buffers' pitches
            R._STATE.pop("problem", None)
            for cm in (1, 2):
                t = kerns[cm].time(*p, warmup=2, reps=10)["median_ms"]
                cells.append((name, cm, t))
        t0 = cells[0][2]
        row = " ".join(f"{n}/c{cm} {t / t0:.3f}" for n, cm, t in cells)
        print(f"{p[0]}x{p[1]}x{p[2]} {base['bm']}x{base['bn']} c1@16 {t0:.4f} ms ({2 * p[0] * p[1] * p[2] / t0 / 1e9:.0f} TF): {row}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
