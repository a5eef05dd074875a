"""Shared machinery of the fastswz benchmark suite (pytest-benchmark).

Every array operation is timed as rows of one group per size (``benchmark.group =
f"{op} n={n}"``), side by side:

=========  ====================================================================================
impl       what is timed
=========  ====================================================================================
twin       ``fastswz.reference.f``: the pure-numpy twin (the oracle)
core       ``fastswz.f``: the Cython core
core_t2    ``fastswz.f(..., threads=2)`` where ``f`` takes ``threads=``
core_out   ``fastswz.f(..., out=buf)`` with ``buf`` reused across calls (``core_t2_out``: and
           ``threads=2``), where ``f`` takes ``out=``
sol        speed of light: ``out.fill(1)`` on a preallocated array of the result's dtype/shape
sol_alloc  ``np.empty(shape, dtype).fill(1)``: the same plus a fresh allocation, which every
           API that returns a new array pays (page faults on first touch)
py_loop    a pure-Python per-element loop in pycute style, at the smallest size only
cute_cpp   host-compiled CuTe C++ (tools/cute_peer), when the CUTLASS headers and g++ exist
=========  ====================================================================================

Inputs come from a fixed seed and are cached; the timed region holds only the call (and the API's
own output allocation). Each result is checked against the twin *after* timing, exactly
(``np.testing.assert_array_equal``). ``extra_info`` carries op, n, impl, threads and the bytes
written, which ``benchmarks/report.py`` turns into the ratio table.

Run: ``python benchmarks/report.py [--quick]``, or directly
``python -m pytest benchmarks --benchmark-group-by=group [--fastswz-sizes=quick]``.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

SEED = 1234
SLOW_IMPLS, SLOW_N = ("twin",), 1 << 22


def pytest_addoption(parser):
    parser.addoption(
        "--fastswz-sizes", choices=("quick", "full"), default="full",
        help="fastswz benchmark size ladder: 'full' (1e3 .. 1.6e7 elements) or 'quick' (CI)")


def pytest_collect_file(file_path, parent):
    # The suite's files are bench_*.py (STYLE.md 14); collect them without touching the
    # project's pytest config, whose python_files stays test_*.py for tests/.
    # Files named on the command line are collected by pytest itself, whatever their name.
    if (file_path.suffix == ".py" and file_path.name.startswith("bench_")
            and not parent.session.isinitpath(file_path)):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_generate_tests(metafunc):
    """Parametrize ``case`` from the module's ``cases(function name, "quick" | "full")``."""
    if "case" in metafunc.fixturenames:
        mode = metafunc.config.getoption("--fastswz-sizes")
        cases = metafunc.module.cases(metafunc.function.__name__, mode)
        metafunc.parametrize("case", cases, ids=["-".join(map(str, c)) for c in cases])


class Bench:
    """What a bench function needs: the twin module, seeded RNGs, the row recorder, the checks."""

    @staticmethod
    def rng(*key):
        """A generator seeded from SEED and a key, so each input is reproducible on its own."""
        return np.random.default_rng([SEED, zlib.crc32(repr(key).encode())])

    @property
    def reference(self):
        try:
            from fastswz import reference
        except ImportError as exc:  # pragma: no cover - the lead's module is a hard dependency
            pytest.fail(f"fastswz.reference is missing ({exc}); the twin is the oracle")
        return reference

    @staticmethod
    def run(benchmark, fn, *args, op, n, impl, out_bytes, kwargs=None):
        """Time ``fn(*args, **kwargs)`` as row ``impl`` of group ``f"{op} n={n}"``."""
        kwargs = kwargs or {}
        benchmark.group = f"{op} n={n}"
        benchmark.extra_info.update(op=op, n=int(n), impl=impl,
                                    threads=int(kwargs.get("threads") or 1),
                                    out_bytes=int(out_bytes))
        if impl in SLOW_IMPLS and n >= SLOW_N:
            # Seconds per call: a fixed 3 rounds of one call instead of the calibrated minimum.
            return benchmark.pedantic(fn, args, kwargs, rounds=3, iterations=1)
        return benchmark(fn, *args, **kwargs)

    @staticmethod
    def sol(benchmark, shape, dtype, *, op, n, alloc=False):
        """The speed-of-light rows: fill a (preallocated or fresh) output of the result's size."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if alloc:
            def fill():
                out = np.empty(shape, dtype)
                out.fill(1)
                return out
            res = Bench.run(benchmark, fill, op=op, n=n, impl="sol_alloc", out_bytes=nbytes)
        else:
            out = np.empty(shape, dtype)
            out.fill(0)  # fault the pages in outside the timed region
            res = Bench.run(benchmark, out.fill, 1, op=op, n=n, impl="sol", out_bytes=nbytes)
            res = out
        assert res.shape == tuple(shape) and res.dtype == dtype and int(res.flat[-1]) == 1

    @staticmethod
    def equal(got, want):
        if isinstance(want, dict):
            assert isinstance(got, dict) and sorted(got) == sorted(want)
            for k in want:
                np.testing.assert_array_equal(got[k], want[k], err_msg=k)
                assert got[k].dtype == want[k].dtype, k
            return
        if isinstance(want, tuple):
            assert isinstance(got, tuple) and len(got) == len(want)
            for g, w in zip(got, want):
                Bench.equal(g, w)
            return
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype and got.shape == want.shape


@pytest.fixture(scope="session")
def bench():
    return Bench()
