"""Descriptors: pack/unpack of shared-memory descriptor arrays, tile_descriptors, scalar calls.

Array rows: twin, core, sol, sol_alloc, and a Python loop over the scalar classes at the smallest
size (unpack_smem_descriptors[...,compact]: ``compact=True`` for both, uint32/uint8 fields) (at every size for tile_descriptors, whose sizes are small: a descriptor addresses the
256 KiB shared window, so a tile with all its stages holds at most 1024 sub-tile descriptors
of 256 bytes). Scalar rows time one call (target <= 2 us): ``OperandTile.descriptor``,
``fastswz.decode`` and ``SmemDescriptorSM90/SM100.unpack``.
"""

from __future__ import annotations

import numpy as np

import fastswz
from fastswz import OperandTile, SmemDescriptorSM90, SmemDescriptorSM100

FULL = (1024, 16384, 262144, 1 << 20, 1 << 22, 1 << 24)
QUICK = (1024, 65536, 1 << 20)
# tile_descriptors: (mn, k, inst_mn, stages) of a bf16 K-major 128B tile -> stages*mn/inst_mn*k/16
DESC_TILES = {4: (64, 64, 64, None), 64: (128, 256, 64, 2), 1024: (128, 256, 8, 4)}
LAYOUT = {"sm90": "128B", "sm100": "128B"}


def cases(name, mode):
    sizes = FULL if mode == "full" else QUICK
    out = []
    if name == "test_pack_unpack":
        for op in ("pack_smem_descriptors[sm90]", "pack_smem_descriptors[sm100]",
                   "unpack_smem_descriptors[sm90]", "unpack_smem_descriptors[sm100]",
                   "unpack_smem_descriptors[sm90,compact]",
                   "unpack_smem_descriptors[sm100,compact]"):
            for n in sizes:
                impls = ["twin", "core", "sol", "sol_alloc"]
                impls += ["py_loop"] if n == sizes[0] and "compact" not in op else []
                out += [(op, n, impl) for impl in impls]
    elif name == "test_tile_descriptors":
        for n in DESC_TILES:
            out += [(n, impl) for impl in ("twin", "core", "sol", "sol_alloc", "py_loop")]
    elif name == "test_scalar":
        out = [("descriptor", "OperandTile.descriptor"), ("decode", "fastswz.decode[sm90]"),
               ("decode", "SmemDescriptorSM90.unpack"), ("decode", "fastswz.decode[sm100]"),
               ("decode", "SmemDescriptorSM100.unpack")]
    return out


_CACHE: dict = {}


def _fields(bench, arch, n):
    """Valid random descriptor fields (bytes), one array each, fixed seed."""
    r = bench.rng("fields", arch, n)
    return dict(start_address=r.integers(0, 1 << 14, size=n, dtype=np.int64) << 4,
                leading_byte_offset=r.integers(0, 1 << 14, size=n, dtype=np.int64) << 4,
                stride_byte_offset=r.integers(0, 1 << 14, size=n, dtype=np.int64) << 4,
                base_offset=r.integers(0, 8, size=n, dtype=np.int64),
                layout_type=LAYOUT[arch])


def _pack_case(bench, op, n):
    key = (op, n)
    hit = _CACHE.get(key)
    if hit is None:
        _CACHE.clear()
        arch = op[op.index("[") + 1:-1].split(",")[0]
        fields = _fields(bench, arch, n)
        packed = bench.reference.pack_smem_descriptors(arch, **fields)
        if op.startswith("pack"):
            hit = (arch, fields, packed)
        else:
            hit = (arch, packed, bench.reference.unpack_smem_descriptors(
                arch, packed, compact="compact" in op))
        _CACHE[key] = hit
    return hit


def test_pack_unpack(bench, benchmark, case):
    op, n, impl = case
    arch, inp, want = _pack_case(bench, op, n)
    pack = op.startswith("pack")
    out_bytes = want.nbytes if pack else sum(a.nbytes for a in want.values())
    if impl in ("sol", "sol_alloc"):
        # compact unpack: fields of mixed widths, so the fill is of its bytes (uint8)
        shape = want.shape if pack else (len(want), n) if "compact" not in op else (out_bytes,)
        dt = np.uint64 if pack else np.int64 if "compact" not in op else np.uint8
        bench.sol(benchmark, shape, dt, op=op, n=n, alloc=impl == "sol_alloc")
        return
    kw = dict(op=op, n=n, impl=impl, out_bytes=out_bytes)
    cls = SmemDescriptorSM90 if arch == "sm90" else SmemDescriptorSM100
    if impl in ("twin", "core"):
        mod = bench.reference if impl == "twin" else fastswz
        if pack:
            got = bench.run(benchmark, mod.pack_smem_descriptors, arch, kwargs=inp, **kw)
        else:
            got = bench.run(benchmark, mod.unpack_smem_descriptors, arch, inp,
                            kwargs=dict(compact="compact" in op), **kw)
    elif impl == "py_loop" and pack:
        rows = list(zip(*(inp[k].tolist() for k in ("start_address", "leading_byte_offset",
                                                     "stride_byte_offset", "base_offset"))))
        mode = inp["layout_type"]

        def loop():
            return [int(cls(a, lbo, sbo, bo, layout_type=mode)) for a, lbo, sbo, bo in rows]

        got = np.array(bench.run(benchmark, loop, **kw), dtype=np.uint64)
    elif impl == "py_loop":
        values = [int(v) for v in inp]
        unpack = cls.unpack

        def loop():
            return [unpack(v) for v in values]

        descs = bench.run(benchmark, loop, **kw)
        got = {k: np.array([(d.layout_type.layout_type(arch) if k == "layout_type"
                             else getattr(d, k)) for d in descs], dtype=np.int64) for k in want}
    else:  # pragma: no cover
        raise AssertionError(impl)
    bench.equal(got, want)


def _desc_case(bench, n):
    key = ("tile_descriptors", n)
    hit = _CACHE.get(key)
    if hit is None:
        _CACHE.clear()
        mn, k, inst_mn, stages = DESC_TILES[n]
        tile = OperandTile("bf16", "K", "128B", mn, k)
        kw = dict(start=0, inst_mn=inst_mn, stages=stages,
                  stage_stride=tile.nbytes if stages else None)
        want = bench.reference.tile_descriptors(tile, **kw)
        assert want.size == n
        hit = _CACHE[key] = (tile, kw, want)
    return hit


def test_tile_descriptors(bench, benchmark, case):
    n, impl = case
    tile, kw, want = _desc_case(bench, n)
    op = "tile_descriptors[K,128B]"
    if impl in ("sol", "sol_alloc"):
        bench.sol(benchmark, want.shape, want.dtype, op=op, n=n, alloc=impl == "sol_alloc")
        return
    rk = dict(op=op, n=n, impl=impl, out_bytes=want.nbytes)
    if impl == "twin":
        got = bench.run(benchmark, bench.reference.tile_descriptors, tile, kwargs=kw, **rk)
    elif impl == "core":
        got = bench.run(benchmark, fastswz.tile_descriptors, tile, kwargs=kw, **rk)
    elif impl == "py_loop":
        starts = [kw["start"] + s * (kw["stage_stride"] or 0) for s in range(kw["stages"] or 1)]
        mn0s = range(0, tile.mn, kw["inst_mn"])
        k0s = range(0, tile.k, tile.inst_k)
        desc, inst_mn = tile.descriptor, kw["inst_mn"]

        def loop():
            return [int(desc(m, k, s, inst_mn)) for s in starts for m in mn0s for k in k0s]

        got = np.array(bench.run(benchmark, loop, **rk), dtype=np.uint64).reshape(want.shape)
    else:  # pragma: no cover
        raise AssertionError(impl)
    bench.equal(got, want)


def test_scalar(bench, benchmark, case):
    """One call per round; the target is <= 2 us."""
    op, impl = case
    tile = OperandTile("bf16", "K", "128B", 128, 256)
    tile100 = OperandTile("bf16", "K", "128B", 128, 256, arch="sm100")
    # The expected values come from the twin: sub-tile (64, 16) is block (1, 1).
    v90 = int(bench.reference.tile_descriptors(tile, 0x400, 64)[1, 1])
    v100 = int(bench.reference.tile_descriptors(tile100, 0x400, 64)[1, 1])
    want90 = SmemDescriptorSM90(0x400 + 8192 + 32, 16, 1024, layout_type="128B")
    want100 = SmemDescriptorSM100(0x400 + 8192 + 32, 16, 1024, layout_type="128B")
    assert (int(want90), int(want100)) == (v90, v100)
    kw = dict(op=op, n=1, impl=impl, out_bytes=8)
    if impl == "OperandTile.descriptor":
        got = bench.run(benchmark, tile.descriptor, 64, 16, 0x400, 64, **kw)
        assert got == want90 and int(got) == v90
    elif impl == "fastswz.decode[sm90]":
        got = bench.run(benchmark, fastswz.decode, v90, **kw)
        assert got == want90
    elif impl == "SmemDescriptorSM90.unpack":
        got = bench.run(benchmark, SmemDescriptorSM90.unpack, v90, **kw)
        assert got == want90
    elif impl == "fastswz.decode[sm100]":
        got = bench.run(benchmark, fastswz.decode, v100, "sm100", **kw)
        assert got == want100
    elif impl == "SmemDescriptorSM100.unpack":
        got = bench.run(benchmark, SmemDescriptorSM100.unpack, v100, **kw)
        assert got == want100
    else:  # pragma: no cover
        raise AssertionError(impl)
