#!/usr/bin/env python3
"""Random ``fastswz.cuda.gemm`` calls against a float64 reference (issues 27 and 28: "checked
with shapes, scales and epilogues nobody has shown you"). Each case draws a shape (decode,
small, large, ragged: multiples of nothing), the operand types and majors, a scale form
(none, per tensor, rowwise, 1 x 128 / 128 x 128 blocks; rowwise and per tensor sometimes with
``use_fast_accum=False``) and an epilogue (alpha, beta and a residual, a bias, an activation, an
f32/bf16/f16/fp8 output with ``out_scale`` and ``amax``), and lets ``gemm`` choose the plan.

Small-integer operands, power-of-two scales and alpha/beta make every sum exact, so D must
equal the reference cast to D's type element for element (identity and ReLU); GELU and SiLU are
held to one output ulp plus 2**-20 of the terms (the kernel's erff/tanhf/expf against torch's).
``out`` starts as NaN, so an element the kernel did not write is caught; amax must be max |D|.

    FASTSWZ_CACHE=.fswcache python3 tests/gpu/gemm/fuzz.py precompile --seed 1 --cases 120
    FASTSWZ_CACHE=.fswcache python3 tests/gpu/gemm/fuzz.py run --seed 1 --cases 120

``precompile`` needs no GPU (the plans ``gemm`` will choose, compiled into the cache).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src"))
from fastswz.cuda.codegen import ACTIVATIONS  # noqa: E402

FP8_MAX = {"e4m3": 448.0, "e5m2": 57344.0}
ULP = {"bf16": (7, -133), "f16": (10, -24), "f32": (23, -149), "e4m3": (3, -9), "e5m2": (2, -16)}


def _dim(rng, bucket):
    lo, hi = {"decode": (1, 16), "small": (17, 256), "mid": (257, 2048), "large": (2049, 6144)}[bucket]
    return int(rng.integers(lo, hi + 1))


def cases(seed, count):
    """``count`` random calls of seed ``seed``, as dicts (JSON-printable)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        fp8 = bool(rng.random() < 0.5)
        m = _dim(rng, rng.choice(["decode", "small", "mid", "large"], p=[0.25, 0.25, 0.3, 0.2]))
        n = _dim(rng, rng.choice(["small", "mid", "large"], p=[0.3, 0.45, 0.25]))
        k = _dim(rng, rng.choice(["small", "mid", "large"], p=[0.3, 0.45, 0.25]))
        if rng.random() < 0.5:   # aligned as most models' layers are; else ragged
            n, k = -(-n // 16) * 16, -(-k // 16) * 16
        c = {"i": i, "m": m, "n": n, "k": k, "a": "e4m3" if fp8 else str(rng.choice(["bf16", "f16"])),
             "b_major": "K" if fp8 or rng.random() < 0.6 else "MN"}
        c["scale"] = str(rng.choice(["none", "tensor", "row", "block"], p=[0.2, 0.25, 0.3, 0.25])) if fp8 else "none"
        c["fast_accum"] = bool(rng.random() < 0.6) if c["scale"] in ("tensor", "row") else None
        epi = rng.random() < 0.7
        c["act"] = str(rng.choice(ACTIVATIONS)) if epi and rng.random() < 0.6 else None
        c["bias"] = str(rng.choice(["bf16", "f16", "f32"])) if epi and rng.random() < 0.5 else None
        c["res"] = str(rng.choice(["bf16", "f16", "f32"])) if epi and rng.random() < 0.3 else None
        c["alpha"] = float(2.0 ** rng.integers(-2, 2)) if epi and rng.random() < 0.4 else None
        c["beta"] = float(2.0 ** rng.integers(-1, 2)) if c["res"] and rng.random() < 0.5 else None
        outs = ["bf16", "f32", "e4m3"] if fp8 else ["bf16", "f16", "f32"]
        c["out"] = str(rng.choice(outs)) if epi else ("bf16" if fp8 else c["a"])
        c["out_scale"] = float(2.0 ** rng.integers(-3, 1)) if c["out"] in FP8_MAX and rng.random() < 0.7 else None
        c["amax"] = bool(epi and rng.random() < 0.3)
        out.append(c)
    return out


def _fusion(c):
    """The configuration keys gemm() derives from the case's arguments (_fusion_arguments)."""
    f = {}
    if c["fast_accum"] is False:
        f["promote"] = True
    if c["act"] is not None:
        f["activation"] = c["act"]
    if c["bias"]:
        f["bias"] = c["bias"]
    if c["res"]:
        f["residual"] = c["res"]
    if c["scale"] != "none":
        f["scale"] = c["scale"]
    if c["amax"]:
        f["amax"] = True
    return f


def config(c):
    from fastswz.cuda import default_config

    return default_config(c["m"], c["n"], c["k"], c["a"], c["a"], "K", c["b_major"], c["out"], fusion=_fusion(c))


def precompile(cs):
    from fastswz.cuda.runtime import compile_cubin

    seen, t0 = set(), time.time()
    for c in cs:
        cfg = config(c)
        key = json.dumps(cfg, sort_keys=True)
        if key not in seen:
            seen.add(key)
            compile_cubin(cfg)
    print(f"precompile: {len(cs)} cases, {len(seen)} plans, {time.time() - t0:.1f} s")


# The references' torch helpers (tests/test_gpu_epilogue.py uses them too)
def td(torch, name):
    """The torch dtype of a fastswz type name."""
    return {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
            "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}[name]


def ulp(torch, x, name):
    """One unit in the last place of ``name`` at each element of x (float64)."""
    bits, tiny = ULP[name]
    ax = x.double().abs()
    e = torch.floor(torch.log2(torch.where(ax > 0, ax, torch.full_like(ax, 2.0 ** (tiny - 1)))))
    return torch.clamp(2.0 ** (e - bits), min=2.0 ** tiny)


def act(torch, y, name):
    """torch's own activation ``name`` (fastswz's names) of y."""
    F = torch.nn.functional
    return {"identity": lambda v: v, "relu": torch.relu, "gelu": F.gelu,
            "gelu_tanh": lambda v: F.gelu(v, approximate="tanh"), "silu": F.silu}[name](y)


def cast(torch, y, name, out_scale=None):
    """What the kernel stores: y rounded to ``name``; fp8: times out_scale, saturated."""
    if name in FP8_MAX:
        y = y * (1.0 if out_scale is None else out_scale)
        return y.clamp(-FP8_MAX[name], FP8_MAX[name]).to(td(torch, name))
    return y.to(td(torch, name))


def mismatches(torch, got, want):
    """Elements where got and want differ (NaN equal to NaN)."""
    g, w = got.float(), want.float()
    return int((~((g == w) | (torch.isnan(g) & torch.isnan(w)))).sum())


def run_case(torch, c, gen):
    """(bad elements, unwritten elements, amax error, the plan) of one case."""
    from fastswz.cuda import gemm

    m, n, k = c["m"], c["n"], c["k"]
    ints = lambda shape, lo=-2, hi=2: torch.randint(lo, hi + 1, shape, generator=gen, device="cuda").double()  # noqa: E731
    pow2 = lambda shape: 2.0 ** torch.randint(-2, 3, shape, generator=gen, device="cuda").double()  # noqa: E731
    # fp8 operands in -1..1: Hopper's fp8 accumulator keeps about 14 bits, and an unpromoted
    # sum of K products of -2..2 can pass 2**14 (then torch._scaled_mm is not exact either)
    hi = 1 if c["a"] in FP8_MAX else 2
    a64, b64 = ints((m, k), -hi, hi), ints((n, k), -hi, hi)   # B as the N x K weight
    a = a64.to(td(torch, c["a"]))
    b = b64.to(td(torch, c["a"])).t() if c["b_major"] == "K" else b64.t().contiguous().to(td(torch, c["a"]))
    kw = {}
    y = a64 @ b64.t()
    if c["scale"] == "tensor":
        sa, sb = pow2((1,)), pow2((1,))
        y = y * sa * sb
    elif c["scale"] == "row":
        sa, sb = pow2((m, 1)), pow2((1, n))
        y = y * sa * sb
    elif c["scale"] == "block":
        kb, nb = -(-k // 128), -(-n // 128)
        sa, sb = pow2((m, kb)), pow2((nb, kb))
        cols = torch.arange(n, device="cuda") // 128
        y = torch.zeros((m, n), dtype=torch.float64, device="cuda")
        for j in range(kb):
            blk = slice(128 * j, 128 * (j + 1))
            y += (a64[:, blk] @ b64[:, blk].t()) * sa[:, j:j + 1] * sb[cols, j][None, :]
        if gen.initial_seed() % 2:   # DeepGEMM's column-major A scales, every other seed
            sa = sa.t().contiguous().t()
    if c["scale"] != "none":
        kw.update(scale_a=sa.float(), scale_b=sb.float())
    if c["fast_accum"] is not None:
        kw["use_fast_accum"] = c["fast_accum"]
    alpha = c["alpha"] if c["alpha"] is not None else 1.0
    y0 = y * alpha
    terms = y0.abs()
    y = y0
    if c["res"]:
        r64 = ints((m, n), -4, 4)
        beta = c["beta"] if c["beta"] is not None else 1.0
        kw.update(c=r64.to(td(torch, c["res"])), beta=c["beta"])
        y = y + beta * r64
        terms = terms + (beta * r64).abs()
    if c["bias"]:
        bv = ints((n,), -8, 8)
        kw["bias"] = bv.to(td(torch, c["bias"]))
        y = y + bv
        terms = terms + bv.abs()
    name = c["act"] or "identity"
    y = act(torch, y, name)
    if c["act"] is not None:
        kw["activation"] = c["act"]
    if c["alpha"] is not None:
        kw["alpha"] = c["alpha"]
    osc = 1.0
    if c["out_scale"] is not None:
        osc = c["out_scale"]
        kw["out_scale"] = torch.tensor(osc, device="cuda")
    am = torch.zeros((), device="cuda") if c["amax"] else None
    if am is not None:
        kw["amax"] = am
    out = torch.empty((m, n), dtype=td(torch, c["out"]), device="cuda")
    if c["out"] in FP8_MAX:
        out.view(torch.uint8).fill_(0x7F)   # NaN in e4m3 (and in e5m2)
    else:
        out.fill_(float("nan"))
    got = gemm(a, b, out=out, **kw)
    want = cast(torch, y, c["out"], osc)
    torch.cuda.synchronize()
    g, w = got.double(), want.double()
    unwritten = int(torch.isnan(g).sum()) - int(torch.isnan(w).sum())
    aerr = abs(float(am) - float(y.abs().max())) if am is not None else 0.0
    if name in ("identity", "relu"):
        bad = mismatches(torch, got, want)
        atol = 0.0
    else:
        tol = ulp(torch, w, c["out"]) + 2.0 ** -20 * terms * osc
        bad = int(((g - w).abs() > tol).sum())
        atol = 2.0 ** -20 * float(terms.max())
    if aerr <= atol:
        aerr = 0.0
    return bad, max(unwritten, 0), aerr


def run(cs, seed, out_path=None):
    import torch

    from fastswz.cuda import PlanError

    gen = torch.Generator(device="cuda")
    fails, rows, t0 = 0, [], time.time()
    for c in cs:
        gen.manual_seed(seed * 100003 + c["i"])
        cfg = config(c)
        plan = {k_: cfg[k_] for k_ in ("bm", "bn", "bk", "stages", "epilogue", "swap_ab", "split_k", "pingpong", "scale")}
        try:
            bad, unw, aerr = run_case(torch, c, gen)
            err = None
        except (PlanError, ValueError, TypeError, RuntimeError) as e:
            bad, unw, aerr, err = -1, -1, -1.0, f"{type(e).__name__}: {e}"
        ok = bad == 0 and unw == 0 and aerr == 0.0
        fails += not ok
        rows.append(dict(c, plan=plan, bad=bad, unwritten=unw, amax_err=aerr, error=err, ok=ok))
        if not ok:
            print(f"FAIL {json.dumps(c)} plan {json.dumps(plan)}: bad {bad} unwritten {unw} amax {aerr} {err or ''}",
                  flush=True)
    print(f"fuzz seed {seed}: {len(cs) - fails} of {len(cs)} exact ({time.time() - t0:.1f} s)", flush=True)
    if out_path:
        with open(out_path, "w") as f:
            json.dump(rows, f, indent=0)
    return fails


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=["precompile", "run", "list"])
    ap.add_argument("--seed", type=int, nargs="+", default=[1])
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--out", help="run: the cases and their results as JSON (one file per seed: SEED in the name)")
    args = ap.parse_args(argv)
    bad = 0
    for s in args.seed:
        cs = cases(s, args.cases)
        if args.cmd == "list":
            for c in cs:
                print(json.dumps(c))
        elif args.cmd == "precompile":
            precompile(cs)
        else:
            bad += run(cs, s, args.out.replace("SEED", str(s)) if args.out else None)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
