#!/usr/bin/env python3
"""Regenerate ``tests/data/golden_cute_algebra.json``: the CuTe layout algebra, host-compiled.

Draws random layouts (rank <= 4, depth <= 3, extents 1-8 and larger powers of two, strides with
0 and overlaps) and swizzled composed layouts from a fixed seed, writes every case as one line of
C++ that builds them from static integers (``Int<N>``) and calls one CuTe operation, compiles the
cases in batches against the installed CUTLASS headers, runs them and records CuTe's printed
result -- or, when CuTe refuses the case at compile time (a static_assert or a failed
substitution), that it refuses and the first compiler error.  Test tooling only; CI never runs it.

    python tools/golden/generate_algebra.py                 # build, run, write the JSON
    python tools/golden/generate_algebra.py --check         # rebuild and diff with the file
    python tools/golden/generate_algebra.py --seed 777001 --per-op 12 --out /tmp/heldout.json
    FASTSWZ_GOLDEN_ALGEBRA=/tmp/heldout.json pytest tests/test_golden_algebra.py   # held-out check

Environment: CXX (default g++), CUDA_HOME (default /usr/local/cuda), GOLDEN_JOBS (default 2).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.metadata
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BUILD = HERE / "build" / "algebra"
OUT = REPO / "tests" / "data" / "golden_cute_algebra.json"
sys.path.insert(0, str(HERE))

from generate import cuda_include, cutlass_include  # noqa: E402

SEED = 20261122
PER_OP = 20  # cases drawn per operation (the committed file; --per-op draws more)
BATCH = 160  # cases per translation unit

# ---------------------------------------------------------------------------------------------
# CuTe notation and C++ spelling of the inputs
# ---------------------------------------------------------------------------------------------


def fmt(t) -> str:
    """IntTuple in CuTe's print form (dynamic spelling): (8,(2,4))."""
    if isinstance(t, tuple):
        return "(" + ",".join(fmt(e) for e in t) + ")"
    return "_" if t is None else str(t)


def cty(t) -> str:
    """C++ type of a static IntTuple (None is CuTe's Underscore)."""
    if isinstance(t, tuple):
        return "cute::tuple<" + ",".join(cty(e) for e in t) + ">"
    return "Underscore" if t is None else f"Int<{t}>"


class L:
    """A layout as the generator sees it (plain nested tuples; no fastswz import)."""

    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def __str__(self):
        return f"{fmt(self.shape)}:{fmt(self.stride)}"

    def cpp(self):
        return f"Layout<{cty(self.shape)},{cty(self.stride)}>{{}}"


class C:
    """Swizzle<B,M,S> o offset o layout."""

    def __init__(self, bms, offset, inner):
        self.bms, self.offset, self.inner = bms, offset, inner

    def __str__(self):
        return f"Sw<{self.bms[0]},{self.bms[1]},{self.bms[2]}> o {self.offset} o {self.inner}"

    def cpp(self):
        b, m, s = self.bms
        return (f"make_composed_layout(Swizzle<{b},{m},{s}>{{}},Int<{self.offset}>{{}},"
                f"{self.inner.cpp()})")


def arg_json(x):
    """Case arguments in the JSON: layouts as CuTe strings, IntTuples as nested lists (null = _)."""
    if isinstance(x, (L, C)):
        return str(x)
    if isinstance(x, tuple):
        return [arg_json(e) for e in x]
    return x


def arg_cpp(x):
    if isinstance(x, (L, C)):
        return x.cpp()
    if isinstance(x, tuple):
        return "cute::tuple<" + ",".join(arg_type(e) for e in x) + ">{}"
    return "_" if x is None else f"Int<{x}>{{}}"


def arg_type(x):
    if isinstance(x, (L, C)):
        return f"decltype({x.cpp()})"
    if isinstance(x, tuple):
        return "cute::tuple<" + ",".join(arg_type(e) for e in x) + ">"
    return "Underscore" if x is None else f"Int<{x}>"


# ---------------------------------------------------------------------------------------------
# Random inputs
# ---------------------------------------------------------------------------------------------

EXTENTS = [1, 1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 7, 8, 8, 16, 32, 64]
SMALL_STRIDES = [0, 0, 1, 1, 2, 3, 4, 4, 5, 6, 8, 8, 12, 16, 32, 64, 128]


def flatten(t):
    return [x for e in t for x in flatten(e)] if isinstance(t, tuple) else [t]


def product(t):
    p = 1
    for x in flatten(t):
        p *= x
    return p


def unflatten(flat, like):
    it = iter(flat)

    def build(s):
        return tuple(build(e) for e in s) if isinstance(s, tuple) else next(it)

    return build(like)


def rand_shape(r, max_rank=4, max_depth=3, max_size=4096, extents=EXTENTS):
    for _ in range(100):
        s = _shape(r, max_rank, max_depth, True, extents)
        if product(s) <= max_size:
            return s
    return r.choice(extents)


def _shape(r, max_rank, depth, top, extents):
    if depth == 1 or (not top and r.random() < 0.6):
        return r.choice(extents)
    n = r.randint(1, max_rank if top else 3)
    s = tuple(_shape(r, max_rank, depth - 1, False, extents) for _ in range(n))
    if top and n == 1 and r.random() < 0.5:
        return s[0]
    return s


def compact(shape, order=None):
    flat = flatten(shape)
    idx = list(range(len(flat))) if order is None else order
    st, acc = [0] * len(flat), 1
    for i in idx:
        st[i] = acc
        acc *= flat[i]
    return unflatten(st, shape)


def rand_stride(r, shape, kind=None):
    """kind: compact, permuted, gapped (ordered with gaps and zeros) or random (overlaps)."""
    flat = flatten(shape)
    kind = kind or r.choice(["compact", "permuted", "gapped", "gapped", "random", "random"])
    if kind == "compact":
        return compact(shape)
    if kind == "permuted":
        order = list(range(len(flat)))
        r.shuffle(order)
        return compact(shape, order)
    if kind == "gapped":
        order = list(range(len(flat)))
        r.shuffle(order)
        st, acc = [0] * len(flat), 1
        for i in order:
            if r.random() < 0.15:
                continue
            acc *= r.choice([1, 1, 1, 2, 3, 4])
            st[i] = acc
            acc *= flat[i]
        return unflatten(st, shape)
    return unflatten([r.choice(SMALL_STRIDES) for _ in flat], shape)


def rand_layout(r, kind=None, **kw):
    s = rand_shape(r, **kw)
    return L(s, rand_stride(r, s, kind))


def rand_swizzle(r):
    b = r.randint(0, 3)
    m = r.randint(0, 4)
    s = r.choice([x for x in range(b, 5)] or [b]) * r.choice([1, 1, 1, -1])
    if abs(s) < b:
        s = b
    return (b, m, s)


def rand_composed(r, **kw):
    return C(rand_swizzle(r), r.choice([0, 0, 0, 1, 8, 16, 64]), rand_layout(r, **kw))


def rand_tiler_mode(r, size):
    """A tiler for one mode of a given size: an int, a Layout, or _."""
    divs = [d for d in (1, 2, 3, 4, 8, 16) if size % d == 0]
    k = r.random()
    if k < 0.15:
        return None
    d = r.choice(divs)
    if k < 0.5:
        return d
    if r.random() < 0.5 or d == 1:
        return L(d, r.choice([1, 1, 2, 3, 0]))
    a = r.choice([x for x in (2, 3, 4) if d % x == 0] or [1])
    sh = (a, d // a)
    return L(sh, rand_stride(r, sh, r.choice(["compact", "permuted", "gapped"])))


def rand_tiler(r, lay):
    modes = list(zip(lay.shape, lay.stride)) if isinstance(lay.shape, tuple) else [(lay.shape, 0)]
    if r.random() < 0.4:
        ts = rand_shape(r, max_rank=2, max_depth=2, max_size=64)
        return L(ts, rand_stride(r, ts, r.choice(["compact", "permuted", "gapped", "random"])))
    if r.random() < 0.1:
        return r.choice([1, 2, 3, 4, 8])
    k = r.randint(1, len(modes))
    return tuple(rand_tiler_mode(r, product(m[0])) for m in modes[:k])


def rand_profile(r, shape):
    if not isinstance(shape, tuple):
        return 1
    k = r.randint(1, len(shape))
    return tuple(rand_profile(r, s) if isinstance(s, tuple) and r.random() < 0.3 else 1
                 for s in shape[:k])


def rand_coord(r, shape, slicing):
    """A coordinate congruent with (a prefix of) shape: ints, nested tuples, _ where slicing."""
    if isinstance(shape, tuple):
        return tuple(rand_coord(r, s, slicing) for s in shape)
    if slicing and r.random() < 0.4:
        return None
    return r.randrange(shape)


def has_none(c):
    return c is None or (isinstance(c, tuple) and any(has_none(e) for e in c))


# ---------------------------------------------------------------------------------------------
# Operations: name -> (C++ call, draw args)
# ---------------------------------------------------------------------------------------------


def _draw(op, r):
    """Arguments for one case of `op` (a tuple), or None to redraw."""
    lay = lambda **kw: rand_layout(r, **kw)  # noqa: E731
    if op in ("coalesce", "filter", "right_inverse", "left_inverse", "complement"):
        return (lay(),)
    if op in ("coalesce_profile", "filter_profile"):
        a = lay()
        return (a, rand_profile(r, a.shape))
    if op == "complement_cotarget":
        a = lay(kind=r.choice(["compact", "permuted", "gapped", "gapped", "random"]))
        cot = r.choice([product(a.shape) * r.choice([1, 2, 3, 4]), r.choice([1, 7, 16, 24, 64, 100,
                                                                           256, 1024]),
                        tuple(r.choice([2, 3, 4, 8, 16]) for _ in range(r.randint(1, 3)))])
        return (a, cot)
    if op == "composition":
        a = lay()
        bs = rand_shape(r, max_rank=3, max_depth=2, max_size=256)
        b = L(bs, rand_stride(r, bs))
        return (a, b)
    if op == "composition_tiler":
        a = lay()
        if r.random() < 0.2:
            return (a, r.choice([1, 2, 3, 4, 6, 8, 16]))
        return (a, rand_tiler(r, a) if r.random() < 0.5 else
                tuple(rand_tiler_mode(r, product(s)) for s in
                      (a.shape if isinstance(a.shape, tuple) else (a.shape,))))
    if op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide"):
        a = lay(kind=r.choice(["compact", "permuted", "gapped", "random"]))
        return (a, rand_tiler(r, a))
    if op in ("logical_product", "zipped_product", "tiled_product", "flat_product"):
        a = lay(kind=r.choice(["compact", "permuted", "gapped", "random"]), max_size=256)
        if r.random() < 0.5:
            ts = rand_shape(r, max_rank=2, max_depth=2, max_size=16)
            return (a, L(ts, rand_stride(r, ts, r.choice(["compact", "permuted", "gapped"]))))
        modes = a.shape if isinstance(a.shape, tuple) else (a.shape,)
        k = r.randint(1, len(modes))
        t = tuple(r.choice([None, 2, 3, L(2, 1), L(3, 1), L((2, 2), (2, 1)), L(4, 2)])
                  for _ in modes[:k])
        return (a, t)
    if op in ("blocked_product", "raked_product"):
        a = lay(kind=r.choice(["compact", "permuted", "gapped", "random"]), max_size=256,
                max_depth=2)
        ts = rand_shape(r, max_rank=3, max_depth=2, max_size=32)
        return (a, L(ts, rand_stride(r, ts, r.choice(["compact", "permuted", "gapped"]))))
    if op == "tile_to_shape":
        a = lay(kind=r.choice(["compact", "permuted", "gapped"]), max_size=128, max_rank=3)
        rk = len(a.shape) if isinstance(a.shape, tuple) else 1
        rk = max(rk, r.randint(1, 3))
        a_modes = (a.shape if isinstance(a.shape, tuple) else (a.shape,)) + (1,) * rk
        tgt = tuple(product(a_modes[i]) * r.choice([1, 2, 3, 4]) if r.random() < 0.85
                    else r.choice([2, 4, 6, 8]) for i in range(rk))
        if rk == 1 and r.random() < 0.5:
            tgt = tgt[0]
        if r.random() < 0.5:
            order = tuple(r.sample(range(1, rk + 1), rk)) if isinstance(tgt, tuple) else 1
            return (a, tgt, order)
        return (a, tgt)
    if op == "make_ordered_layout":
        s = rand_shape(r, max_size=1 << 14)
        return (s, unflatten([r.randint(0, 4) for _ in flatten(s)], s) if r.random() < 0.7 else
                rand_order_nested(r, s))
    if op in ("upcast", "downcast"):
        return (lay(), r.choice([1, 2, 2, 4, 4, 8, 3, 16]))
    if op == "recast":
        bits = [1, 2, 4, 8, 8, 16, 16, 32, 64, 6, 12, 24]
        return (lay(), r.choice(bits), r.choice(bits))
    if op in ("slice", "slice_and_offset"):
        a = lay()
        if not isinstance(a.shape, tuple):
            return None
        c = rand_coord(r, a.shape, True)
        if not has_none(c):
            return None
        return (c, a)
    if op == "eval_index":
        a = lay()
        return (a, r.randrange(product(a.shape)))
    if op == "eval_coord":
        a = lay()
        c = rand_coord(r, a.shape, False)
        if isinstance(a.shape, tuple) and r.random() < 0.3:
            # a flat index for one mode (CuTe maps an int coordinate over a whole sub-shape)
            c = tuple(r.randrange(product(s)) if r.random() < 0.5 else ci
                      for s, ci in zip(a.shape, c))
        return (a, c)
    # ComposedLayout variants
    if op == "composed_eval_index":
        a = rand_composed(r)
        return (a, r.randrange(product(a.inner.shape)))
    if op == "composed_eval_coord":
        a = rand_composed(r)
        return (a, rand_coord(r, a.inner.shape, False))
    if op == "composed_composition":
        a = rand_composed(r)
        bs = rand_shape(r, max_rank=2, max_depth=2, max_size=64)
        return (a, L(bs, rand_stride(r, bs, r.choice(["compact", "permuted", "gapped"]))))
    if op in ("composed_coalesce", "composed_complement"):
        return (rand_composed(r),)
    if op in ("composed_logical_divide", "composed_zipped_divide", "composed_tiled_divide",
              "composed_flat_divide"):
        a = rand_composed(r, kind=r.choice(["compact", "permuted", "gapped"]))
        return (a, rand_tiler(r, a.inner))
    if op in ("composed_logical_product", "composed_blocked_product", "composed_raked_product"):
        a = rand_composed(r, kind=r.choice(["compact", "permuted", "gapped"]), max_size=256)
        ts = rand_shape(r, max_rank=2, max_depth=2, max_size=16)
        return (a, L(ts, compact(ts)))
    if op == "composed_tile_to_shape":
        a = rand_composed(r, kind=r.choice(["compact", "permuted"]), max_size=128, max_rank=2,
                          max_depth=2)
        modes = a.inner.shape if isinstance(a.inner.shape, tuple) else (a.inner.shape,)
        tgt = tuple(product(m) * r.choice([1, 2, 4]) for m in modes) + (
            (r.choice([2, 4]),) if r.random() < 0.3 else ())
        return (a, tgt)
    if op in ("composed_upcast", "composed_downcast"):
        a = rand_composed(r)
        return (a, r.choice([1, 2, 2, 4, 8]))
    if op == "swizzle_upcast" or op == "swizzle_downcast":
        return (C(rand_swizzle(r), 0, L(1, 0)), r.choice([1, 2, 4, 8, 16, 32]))
    if op in ("composed_slice", "composed_slice_and_offset"):
        a = rand_composed(r)
        if not isinstance(a.inner.shape, tuple):
            return None
        c = rand_coord(r, a.inner.shape, True)
        if not has_none(c):
            return None
        return (c, a)
    raise KeyError(op)


def rand_order_nested(r, s):
    """An order that stops at a random level of the shape (a terminal covers a sub-shape)."""
    if isinstance(s, tuple) and r.random() < 0.6:
        return tuple(rand_order_nested(r, e) for e in s)
    return r.randint(0, 5)


def cpp_call(op, args) -> str:
    """The C++ statement of one case (without the id)."""
    a = [arg_cpp(x) for x in args]
    base = op.removeprefix("composed_")
    if op in ("coalesce", "filter", "right_inverse", "left_inverse", "complement",
              "composed_coalesce", "composed_complement"):
        return f"E({base}({a[0]}))"
    if op in ("coalesce_profile", "filter_profile"):
        return f"E({op.split('_')[0]}({a[0]}, {a[1]}))"
    if op == "complement_cotarget":
        return f"E(complement({a[0]}, {a[1]}))"
    if op in ("composition", "composition_tiler", "composed_composition"):
        return f"E(composition({a[0]}, {a[1]}))"
    if base in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
                "logical_product", "zipped_product", "tiled_product", "flat_product",
                "blocked_product", "raked_product"):
        return f"E({base}({a[0]}, {a[1]}))"
    if base == "tile_to_shape":
        if len(args) == 3:
            return f"E(tile_to_shape({a[0]}, {a[1]}, {a[2]}))"
        return f"E(tile_to_shape({a[0]}, {a[1]}))"
    if op == "make_ordered_layout":
        return f"E(make_ordered_layout({a[0]}, {a[1]}))"
    if base in ("upcast", "downcast"):
        return f"E({base}<{args[1]}>({a[0]}))"
    if op in ("swizzle_upcast", "swizzle_downcast"):
        b, m, s = args[0].bms
        return f"E({op.split('_')[1]}<{args[1]}>(Swizzle<{b},{m},{s}>{{}}))"
    if op == "recast":
        return f"E(recast_layout<galg_bits<{args[1]}>, galg_bits<{args[2]}>>({a[0]}))"
    if base == "slice":
        return f"E(slice({a[0]}, {a[1]}))"
    if base == "slice_and_offset":
        return f"auto r = slice_and_offset({a[0]}, {a[1]}); galg::emit2(ID, get<0>(r), get<1>(r))"
    if base == "eval_index":
        return f"E({a[0]}({a[1]}))"
    if base == "eval_coord":
        return f"E({a[0]}({a[1]}))"
    raise KeyError(op)


OPS = [
    "coalesce", "coalesce_profile", "filter", "filter_profile", "composition", "composition_tiler",
    "complement", "complement_cotarget", "right_inverse", "left_inverse",
    "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product",
    "blocked_product", "raked_product", "tile_to_shape", "make_ordered_layout",
    "upcast", "downcast", "recast", "slice", "slice_and_offset", "eval_index", "eval_coord",
    "composed_eval_index", "composed_eval_coord", "composed_composition", "composed_coalesce",
    "composed_complement", "composed_logical_divide", "composed_zipped_divide",
    "composed_tiled_divide", "composed_flat_divide", "composed_logical_product",
    "composed_blocked_product", "composed_raked_product", "composed_tile_to_shape",
    "composed_upcast", "composed_downcast", "swizzle_upcast", "swizzle_downcast",
    "composed_slice", "composed_slice_and_offset",
]
# fewer draws where the input space is small
PER_OP_SMALL = {"swizzle_upcast": 12, "swizzle_downcast": 12}


def enumerate_cases(seed: int, per_op: int = PER_OP):
    r = random.Random(seed)
    cases, seen = [], set()
    for op in OPS:
        want = min(PER_OP_SMALL.get(op, per_op), per_op)
        tries = 0
        n = 0
        while n < want and tries < want * 20:
            tries += 1
            args = _draw(op, r)
            if args is None:
                continue
            key = (op, json.dumps(arg_json(args)))
            if key in seen:
                continue
            seen.add(key)
            cases.append({"op": op, "args": args})
            n += 1
    for i, c in enumerate(cases):
        c["id"] = i
    return cases


# ---------------------------------------------------------------------------------------------
# Build, run, bisect
# ---------------------------------------------------------------------------------------------

ERR_RE = re.compile(r"(\S+?\.cpp):(\d+):\d+:")


def flags():
    inc = cutlass_include()
    return ["-std=c++17", "-O0", "-w", f"-I{BUILD}", f"-I{HERE}", f"-I{inc}",
            *(f"-I{p}" for p in cuda_include())]


def pch(fl):
    gch = BUILD / "algebra.hpp.gch"
    hdr = HERE / "algebra.hpp"
    if not gch.exists() or gch.stat().st_mtime < hdr.stat().st_mtime:
        subprocess.run([os.environ.get("CXX", "g++"), *fl, "-x", "c++-header", str(hdr), "-o",
                        str(gch)], check=True)


def write_tu(path: Path, cases) -> dict[int, int]:
    """One case per line; returns line number -> case id."""
    lines = ['#include "algebra.hpp"', "using namespace cute;",
             "#define E(...) galg::emit(ID, __VA_ARGS__)"]
    where = {}
    for c in cases:
        lines.append(f"static void c{c['id']}() {{ constexpr int ID = {c['id']}; "
                     f"{cpp_call(c['op'], c['args'])}; }}")
        where[len(lines)] = c["id"]
    lines.append("using Fn = void (*)();")
    lines.append("static const Fn FNS[] = {" + ",".join(f"c{c['id']}" for c in cases) + "};")
    lines.append("int main(int argc, char** argv) { int s = argc > 1 ? std::atoi(argv[1]) : 0;"
                 " for (int i = s; i < (int)(sizeof(FNS)/sizeof(FNS[0])); ++i) FNS[i]();"
                 " return 0; }")
    src = "\n".join(lines) + "\n"
    if not path.exists() or path.read_text() != src:
        path.write_text(src)
    return where


def first_error(stderr: str, line: int, name: str) -> str:
    """The compiler's reason for the case on `line`: the first 'error:' after its context."""
    out = stderr.splitlines()
    for i, ln in enumerate(out):
        if f"{name}:{line}:" in ln:
            for ln2 in out[i:]:
                m = re.search(r"error: (.*)", ln2)
                if m:
                    msg = m.group(1)
                    msg = re.sub(r"\s+", " ", msg)
                    return msg[:160]
    return "error"


def compile_batch(name: str, cases, fl) -> tuple[dict[int, str], dict[int, str]]:
    """Compile and run one batch. Returns (printed results, rejected id -> compiler message)."""
    todo = list(cases)
    rejected: dict[int, str] = {}
    rnd = 0
    while todo:
        src = BUILD / f"{name}_{rnd}.cpp" if rnd else BUILD / f"{name}.cpp"
        where = write_tu(src, todo)
        exe = src.with_suffix("")
        log = src.with_suffix(".err")  # the failed compile's errors, so a rerun skips it
        if exe.exists() and exe.stat().st_mtime >= src.stat().st_mtime:
            err = ""
            ok = True
        elif log.exists() and log.stat().st_mtime >= src.stat().st_mtime:
            ok, err = False, log.read_text()
        else:
            p = subprocess.run([os.environ.get("CXX", "g++"), *fl, str(src), "-o", str(exe)],
                               capture_output=True, text=True)
            ok, err = p.returncode == 0, p.stderr
            if not ok:
                log.write_text(err)
        if ok:
            break
        bad = {}
        for m in ERR_RE.finditer(err):
            if Path(m.group(1)).name == src.name and int(m.group(2)) in where:
                cid = where[int(m.group(2))]
                if cid not in bad:
                    bad[cid] = first_error(err, int(m.group(2)), src.name)
        if not bad:
            raise RuntimeError(f"{src}: compile failed with no case named\n{err[-4000:]}")
        rejected.update(bad)
        todo = [c for c in todo if c["id"] not in bad]
        rnd += 1
    results: dict[int, str] = {}
    if todo:
        ids = [c["id"] for c in todo]
        start = 0
        while start < len(ids):
            p = subprocess.run([str(exe), str(start)], capture_output=True, text=True)
            got = [ln.split("\t", 1) for ln in p.stdout.splitlines() if ln]
            for cid, val in got:
                results[int(cid)] = val
            start = ids.index(int(got[-1][0])) + 1 if got else start
            if p.returncode != 0:
                if start < len(ids):  # aborted at run time (an assert): record and go on
                    rejected[ids[start]] = f"run-time abort (exit {p.returncode})"
                start += 1
    return results, rejected


def parse_layout(t: str):
    """CuTe's printed layout (static marks removed) -> (shape, stride) as nested tuples."""

    def tup(i):
        if t[i] == "(":
            out, i = [], i + 1
            while t[i] != ")":
                v, i = tup(i)
                out.append(v)
                i += t[i] == ","
            return tuple(out), i + 1
        j = i + (t[i] == "-")
        while j < len(t) and t[j].isdigit():
            j += 1
        return int(t[i:j]), j

    shape, i = tup(0)
    stride, _ = tup(i + 1)
    return shape, stride


def evaluate(lay, i: int) -> int:
    """A layout at flat index i (colexicographic over the flattened modes)."""
    shape, stride = (lay.shape, lay.stride) if isinstance(lay, L) else lay
    r = 0
    fs, fd = flatten(shape), flatten(stride)
    for s, d in zip(fs[:-1], fd[:-1]):
        i, m = divmod(i, s)
        r += m * d
    return r + i * fd[-1]


def coalesce_x(lay):
    """Flat modes of `lay` merged as CuTe's detail::coalesce_x does (a size-1 last mode kept as 2)."""
    fs, fd = flatten(lay.shape), flatten(lay.stride)
    shapes, strides = [2 if fs[-1] == 1 else fs[-1]], [fd[-1]]
    for s_, d in zip(reversed(fs[:-1]), reversed(fd[:-1])):
        if s_ == 1:
            continue
        if s_ * d == strides[0]:
            shapes[0] *= s_
            strides[0] = d
        else:
            shapes.insert(0, s_)
            strides.insert(0, d)
    return shapes, strides


def weak_stride(a, b) -> bool:
    """Does composing a with b take CuTe's weak stride condition: a stride of b, divided through
    a's modes, below a mode extent that it does not divide, while b still has extent left?"""
    shapes, _ = coalesce_x(a)
    for rs, rd in zip(flatten(b.shape), flatten(b.stride)):
        if rd == 0:
            continue
        for cs in shapes[:-1]:
            ad = abs(rd)
            if rs != 1 and ad % cs and cs % ad:
                return True
            nxt = -(-cs // ad)
            if nxt != 1 and rs != 1:
                rs //= min(nxt, rs) if rs % min(nxt, rs) == 0 else 1
            rd = -(-ad // cs) * (1 if rd > 0 else -1)
    return False


def artifact(case, printed: str):
    """Why CuTe's answer is not the operation's result, or None.

    composition(a, b) must be a(b(c)) wherever b(c) lies in a's domain; CuTe 4.2's weak stride
    condition (a stride below an extent it does not divide) compiles some inputs into layouts
    that are not (docs/CUTE_COMPARISON.md).  For logical_divide the same holds for the tile mode
    of the result, a o tiler.  Only cases that take the weak condition are marked."""
    op, args = case["op"], case["args"]
    if op == "composition":
        a, b = args
        res = parse_layout(printed)
    elif op == "logical_divide" and isinstance(args[1], L):
        a, b = args
        shape, stride = parse_layout(printed)
        res = (shape[0], stride[0])
    else:
        return None
    if not weak_stride(a, b):
        return None
    size_a = product(a.shape)
    for i in range(product(b.shape)):
        j = evaluate(b, i)
        if 0 <= j < size_a and evaluate(res, i) != evaluate(a, j):
            return (f"CuTe's result maps {i} to {evaluate(res, i)}, but a(b({i})) = "
                    f"a({j}) = {evaluate(a, j)} (weak stride divisibility condition)")
    return None


def _tup(x):
    if isinstance(x, list):
        return tuple(_tup(e) for e in x)
    return x


def strip_static(s: str) -> str:
    """CuTe prints static ints as _8; fastswz prints 8. Underscores are never printed otherwise."""
    return s.replace("_", "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="diff against the committed JSON file")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--per-op", type=int, default=PER_OP, help="cases drawn per operation")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("GOLDEN_JOBS", 2)))
    ap.add_argument("--batch", type=int, default=BATCH)
    ap.add_argument("--only", help="comma-separated operations (debugging)")
    ap.add_argument("--annotate", action="store_true",
                    help="only recompute the artifact marks of the committed file")
    ap.add_argument("--limit", type=int, help="first N cases of each operation (debugging)")
    ap.add_argument("--out", type=Path, default=OUT,
                    help="where to write the JSON (default: the committed file; another path with "
                         "another --seed makes a held-out set for FASTSWZ_GOLDEN_ALGEBRA)")
    args = ap.parse_args(argv)
    out_path = args.out.resolve()

    t0 = time.time()
    if args.annotate:
        return annotate(out_path)
    BUILD.mkdir(parents=True, exist_ok=True)
    fl = flags()
    pch(fl)
    cases = enumerate_cases(args.seed, args.per_op)
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c["op"] in keep]
    if args.limit:
        seen_ops: dict[str, int] = {}
        cases = [c for c in cases if seen_ops.setdefault(c["op"], 0) < args.limit
                 and not seen_ops.__setitem__(c["op"], seen_ops[c["op"]] + 1)]
    batches = [cases[i:i + args.batch] for i in range(0, len(cases), args.batch)]
    results, rejected = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = [ex.submit(compile_batch, f"alg_{i:03d}", b, fl) for i, b in enumerate(batches)]
        for f in concurrent.futures.as_completed(futs):
            res, rej = f.result()
            results.update(res)
            rejected.update(rej)
            print(f"  batch done: {len(results)} results, {len(rejected)} rejected, "
                  f"{time.time() - t0:.0f} s", flush=True)

    out = []
    counts: dict[str, list[int]] = {}
    for c in cases:
        rec = {"id": c["id"], "op": c["op"], "args": [arg_json(a) for a in c["args"]]}
        cnt = counts.setdefault(c["op"], [0, 0])
        if c["id"] in rejected:
            rec["cute"] = None
            rec["rejected"] = rejected[c["id"]]
            cnt[1] += 1
        else:
            val = results[c["id"]].split("\t")
            rec["cute"] = strip_static(val[0])
            if len(val) > 1:
                rec["offset"] = strip_static(val[1])
            why = artifact(c, rec["cute"])
            if why:
                rec["artifact"] = why
            cnt[0] += 1
        out.append(rec)
    meta = {"source": "CUTLASS/CuTe host-compiled by tools/golden/generate_algebra.py",
            "nvidia_cutlass": importlib.metadata.version("nvidia-cutlass"), "seed": args.seed, "per_op": args.per_op,
            "compiler": subprocess.run([os.environ.get("CXX", "g++"), "--version"],
                                       capture_output=True, text=True).stdout.splitlines()[0],
            "counts": {k: {"computed": v[0], "rejected": v[1]} for k, v in counts.items()}}
    txt = dump({"meta": meta, "cases": out})
    if args.check:
        same = out_path.exists() and out_path.read_text() == txt
        print("same" if same else f"DIFFERS: {out_path}")
        rc = 0 if same else 1
    elif args.only:
        print(txt[:2000])
        rc = 0
    else:
        out_path.write_text(txt)
        annotate(out_path)
        rc = 0
    for k, v in counts.items():
        print(f"{k:28s} {v[0]:5d} computed {v[1]:5d} rejected")
    print(f"{len(out)} cases, {len(txt) / 1e6:.2f} MB, {time.time() - t0:.0f} s")
    return rc


def annotate(path: Path = OUT) -> int:
    """Recompute the artifact marks of the file (no compiler needed)."""
    obj = json.loads(path.read_text())
    meta = obj["meta"]
    by_id = {c["id"]: c for c in enumerate_cases(meta["seed"], meta["per_op"])}
    n = 0
    for rec in obj["cases"]:
        rec.pop("artifact", None)
        c = by_id[rec["id"]]
        assert c["op"] == rec["op"] and [arg_json(a) for a in c["args"]] == rec["args"]
        why = artifact(c, rec["cute"]) if rec["cute"] is not None else None
        if why:
            rec["artifact"] = why
            n += 1
    path.write_text(dump(obj))
    print(f"{n} artifacts marked")
    return 0


def dump(obj: dict) -> str:
    parts = []
    for key, val in obj.items():
        if isinstance(val, list):
            inner = ",\n".join(json.dumps(v, separators=(",", ":")) for v in val)
            parts.append(f"{json.dumps(key)}:[\n{inner}\n]")
        else:
            parts.append(f"{json.dumps(key)}:{json.dumps(val, separators=(',', ':'))}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    sys.exit(main())
