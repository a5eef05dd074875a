"""No memory grows with repeated calls (reference leaks in the Cython wrappers, buffers not
released, caches without bound).

Each scalar entry point runs one million times; each bulk entry point runs 10,000 times on
inputs of 100+ elements (>= 1e6 elements per function), through hostile inputs too (read-only,
strided, wrong-endian arrays, which take the copying and buffer paths) and through its error path.
Three measures, all after a warm-up and a ``gc.collect()``:

* RSS (``/proc/self/statm``) over the whole run: < 1 MiB growth. Once warm, pymalloc reuses
  its arenas and the loops allocate nothing that lives past one call, so RSS only moves by
  allocator noise (a few pages); the smallest leak, one 16-byte object per call, would add
  16 MB over 1e6 calls (160 KB over 1e4 bulk calls, each of which also leaks its ~1 KB arrays).
* ``sys.getallocatedblocks()`` over the whole run: < 1000 blocks. It counts live pymalloc
  blocks with no tracing cost; one leaked object per call would add 1e6 (1e4) blocks.
* ``tracemalloc`` over a twentieth of the run (tracing makes Python allocation 5-10x slower;
  the whole run would take minutes): < 64 KiB traced growth, against >= 800 KB for a 16-byte
  leak per call over 5e4 calls (and >= 400 KB for 500 bulk calls leaking their 800-byte arrays).

The whole module takes about 30 s on 2 cores.
"""

from __future__ import annotations

import gc
import os
import sys
import tracemalloc

import numpy as np
import pytest

import fastswz

if not os.path.exists("/proc/self/statm"):  # pragma: no cover - Linux CI
    pytest.skip("needs /proc/self/statm (Linux)", allow_module_level=True)

PAGE = os.sysconf("SC_PAGE_SIZE")
RSS_LIMIT = 1 << 20
BLOCK_LIMIT = 1000
TRACE_LIMIT = 64 << 10


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def _loop(fn, n):
    for i in range(n):
        fn(i)


def growth(fn, n, warm=20_000):
    """(RSS bytes, pymalloc blocks) gained over ``n`` calls of ``fn(i)`` after a warm-up."""
    _loop(fn, warm)
    gc.collect()
    r0, b0 = rss(), sys.getallocatedblocks()
    _loop(fn, n)
    gc.collect()
    return rss() - r0, sys.getallocatedblocks() - b0


def traced_growth(fn, n, warm=2_000):
    """Bytes tracemalloc sees gained over ``n`` calls after a warm-up."""
    tracemalloc.start()
    try:
        _loop(fn, warm)
        gc.collect()
        t0 = tracemalloc.get_traced_memory()[0]
        _loop(fn, n)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - t0
    finally:
        tracemalloc.stop()


def check(fn, n, warm):
    d_rss, d_blocks = growth(fn, n, warm)
    d_traced = traced_growth(fn, n // 20, warm // 10)
    assert d_rss < RSS_LIMIT, f"RSS grew {d_rss} bytes over {n} calls"
    assert d_blocks < BLOCK_LIMIT, f"{d_blocks} more pymalloc blocks after {n} calls"
    assert d_traced < TRACE_LIMIT, f"tracemalloc: {d_traced} bytes more after {n // 20} calls"


# -- scalars: one million calls each ---------------------------------------------------------------
TILE = fastswz.OperandTile("bf16", "K", "128B", 128, 64)
TILE100 = fastswz.OperandTile("tf32", "MN", "128B_base32B", 64, 32, arch="sm100")
SW = fastswz.Swizzle(3, 4, 3)
LAYOUT = fastswz.Layout(((8, 8), (64, 2)), ((64, 512), (1, 4096)))
WORDS = [0x4000004000010040 + 2 * i for i in range(64)]
SM100_WORDS = [int(TILE100.descriptor(0, k, 0x400)) for k in range(0, 32, 8)]

SCALARS = {
    "OperandTile.descriptor": lambda i: TILE.descriptor(0, (i & 3) * 16, 0x400 + ((i & 7) << 4)),
    "OperandTile.descriptor[sm100]": lambda i: TILE100.descriptor(0, (i & 3) * 8, 0x400),
    "SmemDescriptorSM90.unpack": lambda i: fastswz.SmemDescriptorSM90.unpack(WORDS[i & 63]),
    "SmemDescriptorSM100.unpack": lambda i: fastswz.SmemDescriptorSM100.unpack(SM100_WORDS[i & 3]),
    "InstrDescriptorSM100()": lambda i: fastswz.InstrDescriptorSM100(
        "f16", "bf16", "bf16", "f32", 128, 8 * (1 + (i & 31))).value,
    "InstrDescriptorSM100.unpack": lambda i: fastswz.InstrDescriptorSM100.unpack(
        0x08020490 + ((i & 31) << 17), "f16"),  # N = 8..256
    "Swizzle.__call__": lambda i: SW(i),
    "Layout.__call__": lambda i: LAYOUT(i & 1023),
    "Layout.__call__(crd)": lambda i: LAYOUT((i & 7, i & 63)),
}
CALLS = {"Layout.__call__(crd)": 200_000}  # the coordinate form: a second Layout call path


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalar_calls_do_not_grow_memory(name):
    check(SCALARS[name], CALLS.get(name, 1_000_000), 20_000)


def _error_calls():
    def bad_descriptor(i):
        try:
            fastswz.SmemDescriptorSM90(0x400 + 8)
        except fastswz.DescriptorFieldError:
            pass

    def bad_unpack(i):
        try:
            fastswz.SmemDescriptorSM90.unpack(0x4000004000018040)
        except fastswz.DescriptorFieldError:
            pass

    def bad_tile(i):
        try:
            fastswz.OperandTile("bf16", "K", "128B", 60, 64)
        except fastswz.TileError:
            pass

    def bad_parse(i):
        try:
            fastswz.parse("(8,64):(64")
        except fastswz.ParseError:
            pass

    return {"SmemDescriptorSM90 error": bad_descriptor, "unpack error": bad_unpack,
            "OperandTile error": bad_tile, "parse error": bad_parse}


ERRORS = _error_calls()


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_paths_do_not_grow_memory(name):
    # Exceptions carry tracebacks that reference frames: a leak there keeps whole frames alive.
    check(ERRORS[name], 100_000, 5_000)


# -- bulk: 10,000 calls of 100+ elements each -----------------------------------------------------
SMALL = fastswz.OperandTile("bf16", "K", "none", 8, 16)                 # 128 elements
DESC = fastswz.OperandTile("bf16", "K", "128B", 256, 128)               # 32 x 8 = 256 descriptors
ADDR = fastswz.tile_addresses(DESC, 0x400)
IDX = np.arange(100, dtype=np.int64)
RO = np.arange(0, 1600, 16, dtype=np.int64)
RO.setflags(write=False)
STRIDED = np.arange(0, 3200, 16, dtype=np.int64)[::2]
BIG_ENDIAN = np.arange(100, dtype=">i8")
PICKS = ADDR.ravel()[::331][:100].copy()
VALUES = fastswz.tile_descriptors(DESC, 0x400, inst_mn=8).ravel()[:100].copy()
OUT = np.empty((SMALL.mn, SMALL.k), dtype=np.uint32)
COMPOSED = fastswz.parse("Sw<3,4,3> o 0 o (8,64):(64,1)")


def _bulk_error(i):
    try:
        fastswz.pack_smem_descriptors("sm90", STRIDED + 8, 16, 1024)
    except fastswz.DescriptorFieldError:
        pass


BULK = {
    "evaluate": lambda i: fastswz.evaluate(COMPOSED, IDX),
    "evaluate[domain]": lambda i: fastswz.evaluate(fastswz.Layout((8, 16), (16, 1))),
    "swizzle_offsets": lambda i: fastswz.swizzle_offsets(SW, RO),
    "swizzle_offsets[big-endian]": lambda i: fastswz.swizzle_offsets(SW, BIG_ENDIAN),
    "tile_addresses": lambda i: fastswz.tile_addresses(SMALL, 0x400),
    "tile_addresses[out=]": lambda i: fastswz.tile_addresses(SMALL, 0x400, out=OUT),
    "tile_addresses[threads=2]": lambda i: fastswz.tile_addresses(SMALL, 0x400, threads=2),
    "tile_coords": lambda i: fastswz.tile_coords(DESC, PICKS, 0x400),
    "tile_descriptors": lambda i: fastswz.tile_descriptors(DESC, 0x400, inst_mn=8),
    "pack_smem_descriptors": lambda i: fastswz.pack_smem_descriptors("sm90", STRIDED, 16, 1024,
                                                                     layout_type="128B"),
    "unpack_smem_descriptors": lambda i: fastswz.unpack_smem_descriptors("sm90", VALUES),
    "tile_configs": lambda i: fastswz.tile_configs(
        "bf16", "K", ["32B", "64B", "128B", "none"], np.arange(8, 840, 8)[:, None], 64),
    "pack_smem_descriptors error": _bulk_error,
}


@pytest.mark.parametrize("name", sorted(BULK))
def test_bulk_calls_do_not_grow_memory(name):
    # tile_configs: 3000 calls of 416 configurations; threads=2 starts a pool per call.
    n = {"tile_addresses[threads=2]": 2_000, "tile_configs": 3_000}.get(name, 10_000)
    check(BULK[name], n, 1_000)
