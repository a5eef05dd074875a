"""Threads: split work gives the same answer, concurrent callers do not disturb each other, and the
Cython kernels release the GIL.
"""

from __future__ import annotations

import itertools
import random
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import fastswz
from fastswz import reference

TILES = [
    fastswz.OperandTile("bf16", "K", "128B", 128, 64),
    fastswz.OperandTile("bf16", "MN", "64B", 256, 64, order="k"),
    fastswz.OperandTile("e4m3", "K", "32B", 64, 128),
    fastswz.OperandTile("tf32", "MN", "128B_base32B", 96, 32, arch="sm100"),
    fastswz.OperandTile("s8", "K", "none", 200, 96),
    fastswz.OperandTile("e2m1", "K", "128B", 24, 768, arch="sm103", packed=True, inst_k=96),
    fastswz.OperandTile("f16", "K", "128B", 8, 64),  # one row group: fewer rows than threads
    fastswz.OperandTile("bf16", "K", "128B", 1024, 512),
]


@pytest.mark.parametrize("tile", TILES, ids=repr)
@pytest.mark.parametrize("start,base", [(0, "absolute"), (0x410, "absolute"), (0x880, "relative")])
def test_threads_split_gives_the_same_map(tile, start, base):
    one = fastswz.tile_addresses(tile, start, base, threads=1)
    np.testing.assert_array_equal(one, reference.tile_addresses(tile, start, base))
    for t in range(2, 9):
        np.testing.assert_array_equal(fastswz.tile_addresses(tile, start, base, threads=t), one,
                                      err_msg=f"threads={t}")
        out = np.full((tile.mn, tile.k), 0xDEADBEEF, dtype=np.uint32)
        assert tile.addresses(start, base, threads=t, out=out) is out
        np.testing.assert_array_equal(out, one, err_msg=f"threads={t}, out=")
    # more threads than rows: every row still written exactly once
    np.testing.assert_array_equal(fastswz.tile_addresses(tile, start, base, threads=tile.mn + 3), one)


def _jobs():
    """(name, function, args) of every bulk entry point, over shared objects."""
    sw = fastswz.Swizzle(3, 4, 3)
    composed = fastswz.parse("Sw<3,4,3> o 0 o ((8,16),(64,2)):((64,512),(1,8192))")
    offsets = np.arange(0, 1 << 16, 7, dtype=np.int64)
    jobs = []
    for i, tile in enumerate(TILES):
        addr = fastswz.tile_addresses(tile, 0x400)
        jobs += [
            (f"tile_addresses[{i}]", fastswz.tile_addresses, (tile, 0x400)),
            (f"tile_addresses[{i}] threads=3", fastswz.tile_addresses, (tile, 0x400, "absolute", 3)),
            (f"tile_coords[{i}]", fastswz.tile_coords, (tile, addr[::3, ::2], 0x400)),
        ]
        if 0x400 + tile.nbytes <= 1 << 18:  # descriptors address the 256 KiB window
            jobs += [
                (f"tile_descriptors[{i}]", fastswz.tile_descriptors, (tile, 0x400)),
                (f"descriptor[{i}]",
                 lambda t: [int(t.descriptor(0, k, 0x400)) for k in range(0, t.k, t.inst_k)], (tile,)),
            ]
    values = fastswz.tile_descriptors(TILES[0], 0x400).ravel()
    jobs += [
        ("evaluate", fastswz.evaluate, (composed,)),
        ("evaluate[indices]", fastswz.evaluate, (composed, offsets % composed.size())),
        ("swizzle_offsets", fastswz.swizzle_offsets, (sw, offsets)),
        ("pack_smem_descriptors", fastswz.pack_smem_descriptors,
         ("sm100", np.arange(0, 1 << 14, 16), 16, 1024, 0, "128B")),
        ("unpack_smem_descriptors", fastswz.unpack_smem_descriptors, ("sm90", values)),
        ("tile_configs", fastswz.tile_configs,
         ("bf16", "K", ["32B", "64B", "128B"], [[64], [128], [256]], 64)),
    ]
    return jobs


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return a == b


def test_eight_threads_calling_everything_at_once():
    jobs = _jobs()
    expected = {name: fn(*args) for name, fn, args in jobs}
    work = [job for job in jobs for _ in range(6)]
    random.Random(6).shuffle(work)
    barrier = threading.Barrier(8)

    def run(job):
        name, fn, args = job
        return name, fn(*args)

    def start(_):
        barrier.wait()  # all eight threads begin together

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(start, range(8)))
        results = list(pool.map(run, work))
    assert len(results) == len(work)
    bad = [name for name, got in results if not _same(got, expected[name])]
    assert not bad, f"results that differ from the sequential run: {sorted(set(bad))}"


def test_fresh_tiles_built_and_used_concurrently():
    """The per-tile caches (layout, strides, descriptor plans) fill safely from many threads."""
    args = [("bf16", "K", "128B", 128, 64), ("f16", "MN", "128B", 128, 64), ("e4m3", "K", "64B", 64, 128)]

    def work(i):
        tile = fastswz.OperandTile(*args[i % 3])  # one new object per call, shared by nobody
        return i % 3, (fastswz.tile_addresses(tile, 0x400).tobytes(), str(tile.layout),
                       tile.strides(), int(tile.descriptor(0, 0, 0x400)))

    shared = [fastswz.OperandTile(*a) for a in args]

    def work_shared(i):  # and the same three objects from every thread
        tile = shared[i % 3]
        return i % 3, (fastswz.tile_addresses(tile, 0x400).tobytes(), str(tile.layout),
                       tile.strides(), int(tile.descriptor(0, 0, 0x400)))

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(work, range(96))) + list(pool.map(work_shared, range(96)))
    want = {i: work(i)[1] for i in range(3)}
    assert all(res == want[i] for i, res in got)


# -- the GIL ---------------------------------------------------------------------------------------
class Counter(threading.Thread):
    """A pure-Python thread that counts while it holds the GIL, yielding it after every step.

    ``time.sleep(0)`` hands the GIL back at once, so the measured thread gets it as soon as it
    wants it; with a long switch interval the measured thread is never preempted inside Python
    code. The count can therefore only move while the measured thread has released the GIL.
    """

    def __init__(self):
        super().__init__(daemon=True)
        self.count = 0
        self.stop = False
        self.ready = threading.Event()

    def run(self):
        import time

        self.ready.set()
        while not self.stop:
            self.count += 1
            time.sleep(0)


def _progress(work, repeat):
    counter = Counter()
    old = sys.getswitchinterval()
    counter.start()
    counter.ready.wait()
    sys.setswitchinterval(0.5)
    try:
        before = counter.count
        for _ in range(repeat):
            work()
        after = counter.count
    finally:
        sys.setswitchinterval(old)
        counter.stop = True
        counter.join()
    return after - before


def test_tile_addresses_releases_the_gil():
    tile = fastswz.OperandTile("bf16", "K", "128B", 4096, 4096)
    out = np.empty((4096, 4096), dtype=np.uint32)
    fastswz.tile_addresses(tile, 0x400, out=out)  # warm: caches and first touch of out

    def kernel():
        fastswz.tile_addresses(tile, 0x400, out=out)

    def python():  # a GIL-holding control of similar length
        s = 0
        for i in range(100_000):
            s += i

    in_kernel = _progress(kernel, 10)
    in_python = _progress(python, 10)
    # The counter moved while the kernel ran (it had released the GIL), and moved more than
    # while pure Python held the GIL (where it can only move at the switch interval, if ever).
    assert in_kernel > 0
    assert in_kernel > in_python, (in_kernel, in_python)


@pytest.mark.parametrize("name", ["swizzle_offsets", "evaluate", "tile_coords", "unpack"])
def test_other_kernels_release_the_gil(name):
    n = 1 << 22
    sw = fastswz.Swizzle(3, 4, 3)
    big = np.arange(n, dtype=np.int64)
    tile = fastswz.OperandTile("bf16", "K", "128B", 2048, 1024)
    addr = fastswz.tile_addresses(tile)
    words = np.full(n, 0x4000004000010040, dtype=np.uint64)
    layout = fastswz.Layout((64, 256, 256), (256, 1, 16384))
    work = {"swizzle_offsets": lambda: fastswz.swizzle_offsets(sw, big),
            "evaluate": lambda: fastswz.evaluate(layout),
            "tile_coords": lambda: fastswz.tile_coords(tile, addr),
            "unpack": lambda: fastswz.unpack_smem_descriptors("sm90", words)}[name]
    work()
    # three calls stay under the 0.5 s switch interval _progress sets, so a held GIL leaves the
    # counter at 0 in every attempt; a few attempts keep a loaded machine (the counter thread not
    # scheduled in one short window) from failing a kernel that does release it
    assert max(_progress(work, 3) for _ in range(3)) > 0


def test_gil_harness_sees_a_held_gil():
    """The control: pure Python holding the GIL leaves the counter (almost) still."""
    def python():
        s = 0
        for i in range(100_000):
            s += i

    held = _progress(python, 5)
    released = _progress(lambda: [threading.Event().wait(0.001) for _ in range(5)], 1)
    assert released > held


@pytest.mark.parametrize("threads", [2, 4, 8])
def test_nested_pools(threads):
    """tile_addresses(threads=n) from inside a pool of 8 callers."""
    tile = TILES[-1]
    want = fastswz.tile_addresses(tile, 0x400)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: fastswz.tile_addresses(tile, 0x400, threads=threads), range(16)))
    assert all(np.array_equal(g, want) for g in got)


def test_thread_counts_grid():
    """Every (tile, threads) pair of a small grid against the twin, in one pass."""
    for tile, t in itertools.product(TILES[:4], (1, 3, 7)):
        np.testing.assert_array_equal(fastswz.tile_addresses(tile, 0x480, threads=t),
                                      reference.tile_addresses(tile, 0x480))
