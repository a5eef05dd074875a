"""Where the time of ``tile_addresses`` goes at sizes past the last-level cache.

``python benchmarks/diagnose.py [--side 4096] [--repeat 7]`` times, for a bf16 K-major 128B
tile of side x side elements (uint32 addresses), the pieces that the benchmark table only shows
summed up: the kernel alone into a preallocated, already-faulted output (1 and 2 threads), the
first touch of a fresh output (page faults and zeroing), the public call (1 and 2 threads), and
the speed-of-light rows. It calls the private ``fastswz._kernels.tile_addresses`` with the row and
column tables that ``fastswz.bulk`` builds, so that the allocation can be separated from the loop;
that is a diagnostic, not an API. Every time is the minimum of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import functools
import os
import threading
import time

import numpy as np

import fastswz
from fastswz import OperandTile, _kernels
from fastswz.bulk import _tile_rows_cols


def best(fn, repeat):
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    side, rep = args.side, args.repeat
    tile = OperandTile("bf16", "K", "128B", side, side)
    b, m, s = tile.swizzle.swizzle_bits
    yyy = ((1 << b) - 1) << (m + s)
    row, col = _tile_rows_cols(tile)
    r32, c32 = row.astype(np.uint32), col.astype(np.uint32)
    shape = (side, side)
    want = fastswz.tile_addresses(tile)

    def kernel(out, lo=0, hi=side):
        _kernels.tile_addresses(r32[lo:hi], c32, yyy, s, 0, out[lo:hi])

    def kernel2(out):
        h = side // 2
        ts = [threading.Thread(target=kernel, args=(out, lo, hi)) for lo, hi in ((0, h), (h, side))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    pre = np.empty(shape, np.uint32)
    pre.fill(0)
    kernel(pre)
    np.testing.assert_array_equal(pre, want)
    page = 4096 // 4

    def touch():
        out = np.empty(shape, np.uint32)
        out.reshape(-1)[::page] = 0  # one store per 4 KiB page: the page-fault cost alone

    fresh = functools.partial(np.empty, shape, np.uint32)
    rows = [
        ("sol: out.fill(1), preallocated", best(lambda: pre.fill(1), rep)),
        ("sol_alloc: np.empty(...).fill(1)", best(lambda: np.empty(shape, np.uint32).fill(1), rep)),
        ("first touch of a fresh output (1 store per 4 KiB)", best(touch, rep)),
        ("kernel into preallocated output, 1 thread", best(lambda: kernel(pre), rep)),
        ("kernel into preallocated output, 2 threads", best(lambda: kernel2(pre), rep)),
        ("kernel into a fresh np.empty, 1 thread", best(lambda: kernel(fresh()), rep)),
        ("kernel into a fresh np.empty, 2 threads", best(lambda: kernel2(fresh()), rep)),
        ("fastswz.tile_addresses(tile)", best(lambda: fastswz.tile_addresses(tile), rep)),
        ("fastswz.tile_addresses(tile, threads=2)",
         best(lambda: fastswz.tile_addresses(tile, threads=2), rep)),
    ]
    n = side * side
    sol = rows[0][1]
    print(f"tile_addresses bf16 K 128B {side}x{side} = {n} uint32 ({n * 4 >> 20} MiB); "
          f"load average {os.getloadavg()[0]:.2f}; min of {rep}")
    print(f"| {'what':<52} | {'time':>9} | {'ns/elem':>7} | {'GB/s written':>12} | {'vs sol':>6} |")
    print(f"|{'-' * 54}|{'-' * 11}|{'-' * 9}|{'-' * 14}|{'-' * 8}|")
    for what, t in rows:
        print(f"| {what:<52} | {t * 1e3:7.2f}ms | {t / n * 1e9:7.3f} | {n * 4 / t / 1e9:12.1f} | "
              f"{sol / t:6.2f} |")


if __name__ == "__main__":
    main()
