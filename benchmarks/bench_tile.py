"""tile_addresses and tile_coords: the tile address map and its inverse (bf16 operand tiles).

Rows per group: twin, core, core_t2 (tile_addresses only), sol, sol_alloc, and at the smallest
size a pycute-style Python loop; tile_coords also core_out / core_out32 (a reused int64 / int32
``out=`` pair); tile_addresses[K,128B] also gets the CuTe C++ peer row, and
tile_addresses at n >= 2**20 (every size for K,128B) the rows core_out / core_t2_out: the same
call with a caller-owned, already-faulted ``out=`` buffer reused across calls.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import OperandTile

START = 0x400  # a realistic, 1024-aligned shared-memory start; any 16-aligned value works
MODES = ("none", "32B", "64B", "128B")
# Elements per tile; shapes below. 16M uint32 addresses = 64 MiB, past the 32 MiB L3 here.
FULL = (1024, 16384, 262144, 1 << 20, 1 << 22, 1 << 24)
QUICK = (1024, 65536, 1 << 20)


def shape_of(major, n):
    if n == 1024:  # smallest tile that both majors and every swizzle allow
        return (16, 64) if major == "K" else (64, 16)
    side = int(round(n ** 0.5))
    assert side * side == n
    return side, side


def cases(name, mode):
    sizes = FULL if mode == "full" else QUICK
    out = []
    if name == "test_tile_addresses":
        for major in ("K", "MN"):
            for sw in MODES:
                for n in sizes:
                    impls = ["twin", "core", "core_t2", "sol", "sol_alloc"]
                    if n >= 1 << 20 or (major, sw) == ("K", "128B"):
                        impls += ["core_out", "core_t2_out"]
                    if n == sizes[0]:
                        impls.append("py_loop")
                    if major == "K" and sw == "128B" and n >= 16384:
                        impls.append("cute_cpp")
                    out += [(major, sw, n, impl) for impl in impls]
        if mode == "quick":  # the out-of-cache size and the threads target, one variant only
            out += [("K", "128B", 1 << 24, impl) for impl in
                    ("twin", "core", "core_t2", "core_out", "core_t2_out", "sol", "sol_alloc")]
    elif name == "test_tile_coords":
        for major in ("K", "MN"):
            for sw in ("none", "128B"):
                for n in sizes:
                    out += [(major, sw, n, impl) for impl in
                            ("twin", "core", "core_out", "core_out32", "sol", "sol_alloc")]
    return out


@functools.lru_cache(maxsize=2)
def tile_case(major, sw, n):
    """(tile, expected addresses from the twin), built once per case."""
    from fastswz import reference

    tile = OperandTile("bf16", major, sw, *shape_of(major, n))
    return tile, reference.tile_addresses(tile, START)


def _coords_case(bench, major, sw, n):
    key = (major, sw, n)
    hit = _COORDS.get(key)
    if hit is None:
        _COORDS.clear()
        tile, addr = tile_case(major, sw, n)
        # The whole tile's addresses in tile order (the twin's binary searches stay local; in a
        # random order its np.searchsorted takes seconds per 1e6 addresses, cache misses).
        hit = _COORDS[key] = (tile, addr, bench.reference.tile_coords(tile, addr, START))
    return hit


_COORDS: dict = {}


def test_tile_addresses(bench, benchmark, case):
    major, sw, n, impl = case
    tile, want = tile_case(major, sw, n)
    op = f"tile_addresses[{major},{sw}]"
    kw = dict(op=op, n=n, out_bytes=want.nbytes)
    if impl in ("sol", "sol_alloc"):
        bench.sol(benchmark, want.shape, want.dtype, op=op, n=n, alloc=impl == "sol_alloc")
        return
    if impl == "twin":
        got = bench.run(benchmark, bench.reference.tile_addresses, tile, START, impl=impl, **kw)
    elif impl == "core":
        got = bench.run(benchmark, fastswz.tile_addresses, tile, START, impl=impl, **kw)
    elif impl == "core_t2":
        got = bench.run(benchmark, fastswz.tile_addresses, tile, START, impl=impl,
                        kwargs=dict(threads=2), **kw)
        assert benchmark.extra_info["threads"] == 2
    elif impl in ("core_out", "core_t2_out"):
        # A caller-owned output reused across calls (already faulted in): no page faults.
        buf = np.empty_like(want)
        buf.fill(0)
        kwargs = dict(out=buf, threads=2 if impl == "core_t2_out" else None)
        got = bench.run(benchmark, fastswz.tile_addresses, tile, START, impl=impl,
                        kwargs=kwargs, **kw)
        assert got is buf
    elif impl == "py_loop":
        mn, kk = tile.mn, tile.k
        address = tile.address

        def loop():
            return [address(m, k, START) for m in range(mn) for k in range(kk)]

        got = np.array(bench.run(benchmark, loop, impl=impl, **kw), dtype=np.uint32)
        got = got.reshape(want.shape)
    elif impl == "cute_cpp":
        fn = _cute_peer()
        M, K = want.shape

        def peer():
            out = np.empty((M, K), dtype=np.uint32)
            if fn(M, K, START, out.ctypes.data) != 0:
                raise RuntimeError("CuTe peer rejected the shape")
            return out

        got = bench.run(benchmark, peer, impl=impl, **kw)
    else:  # pragma: no cover
        raise AssertionError(impl)
    bench.equal(got, want)


def test_tile_coords(bench, benchmark, case):
    major, sw, n, impl = case
    tile, addr, want = _coords_case(bench, major, sw, n)
    op = f"tile_coords[{major},{sw}]"
    out_bytes = 2 * addr.size * 8
    if impl in ("sol", "sol_alloc"):
        bench.sol(benchmark, (2,) + addr.shape, np.int64, op=op, n=n, alloc=impl == "sol_alloc")
        return
    if impl in ("core_out", "core_out32"):
        # A caller-owned (mn, k) pair reused across calls (already faulted in); core_out32 the
        # same in int32, half the bytes written.
        dt = np.int32 if impl == "core_out32" else np.int64
        pair = (np.zeros(addr.shape, dt), np.zeros(addr.shape, dt))
        got = bench.run(benchmark, fastswz.tile_coords, tile, addr, START, op=op, n=n, impl=impl,
                        out_bytes=2 * addr.size * pair[0].itemsize, kwargs=dict(out=pair))
        assert got[0] is pair[0] and got[1] is pair[1]
        bench.equal(tuple(a.astype(np.int64) for a in got), want)
        return
    fn = bench.reference.tile_coords if impl == "twin" else fastswz.tile_coords
    got = bench.run(benchmark, fn, tile, addr, START, op=op, n=n, impl=impl, out_bytes=out_bytes)
    bench.equal(got, want)


# -- the CuTe C++ peer (tools/cute_peer) ---------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _cute_peer_or_reason():
    path = Path(__file__).resolve().parents[1] / "tools" / "cute_peer" / "build.py"
    if not path.is_file():
        return None, f"{path} not found"
    spec = importlib.util.spec_from_file_location("fastswz_cute_peer_build", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        lib_path = mod.build()
    except mod.Unavailable as exc:
        return None, str(exc)
    lib = ctypes.CDLL(str(lib_path))
    fn = lib.cute_k_sw128_bf16
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p]
    fn.restype = ctypes.c_int
    return fn, None


def _cute_peer():
    fn, reason = _cute_peer_or_reason()
    if fn is None:
        pytest.skip(f"CuTe C++ peer unavailable: {reason}")
    return fn
