"""Fit (or check) the polynomial behind the fused epilogue's GELU (erf): log2 Phi(-a) on [0, 7].

The sm90 kernels' fast GELU (``src/fastswz/kernels/sm90/epilogue_ops.cuh``, ``FSW_FAST_ERF 2``)
computes x Phi(x) as

    e = 2^P(|x|)  (= Phi(-|x|)),   Phi(x) = e for x < 0, 1 - e otherwise

with P a polynomial, P(0) = -1 (Phi(0) = 1/2 exactly), evaluated by Horner's rule in f32: one FMA
per degree and one ``ex2.approx`` per element, where erfc's rational approximation needs a
reciprocal too. Two fits: degree 7 (``kGeluLog2Phi``) for bf16 and f16 outputs, degree 5
(``kGeluLog2PhiFp8``) for e4m3 and e5m2 outputs, whose half ulp is 2^-4 or 2^-3 of the value.
This script is where their coefficients come from:

    python tools/fit_gelu.py            # fit and print the coefficients and their error
    python tools/fit_gelu.py --check    # exit 1 if the kernel's coefficients miss the bound (a test runs it)

The fit is Lawson's iteration (a weighted least squares that converges to the minimax fit) on
8001 Chebyshev-spaced points of [0, 7], the target log2(erfc(a / sqrt 2) / 2) in float64. The
error that matters is the f32 evaluation's: the coefficients rounded to f32, Horner's rule with
one rounding per FMA. For |x| <= 7 the degree-7 fit moves log2 Phi(-|x|) by at most 2^-15.4, a
relative error of at most 2^-15.9 in Phi(-|x|) (and less in Phi(|x|) = 1 - Phi(-|x|) >= 1/2); the
degree-5 fit by at most 2^-9.7 (relative 2^-10.2). Past 7 P keeps falling (checked to 10^4, after
which its leading term dominates), so Phi(-|x|) comes out below Phi(-7) = 1.3e-12 whatever its
true value: an error of at most 1.3e-12 |x|.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import re
import sys

import numpy as np

END = 7.0
#: the kernel's lists: name -> (degree, the bound on max |P(a) - log2 Phi(-a)| over [0, END])
FITS = {"kGeluLog2Phi": (7, 2.0 ** -15.4), "kGeluLog2PhiFp8": (5, 2.0 ** -9.7)}


def _kernel_path():
    """The kernel source: the checkout's, else the installed package's (the sdist's tests run
    without src/)."""
    here = pathlib.Path(__file__).resolve().parents[1] / "src" / "fastswz" / "kernels" / "sm90" / "epilogue_ops.cuh"
    if here.exists():
        return here
    from importlib import resources

    return pathlib.Path(str(resources.files("fastswz").joinpath("kernels", "sm90", "epilogue_ops.cuh")))


KERNEL = _kernel_path()


def log2_phi_neg(a):
    """log2 Phi(-a) = log2(erfc(a / sqrt 2) / 2) in float64, for each a >= 0."""
    return np.log2(0.5 * np.array([math.erfc(float(v) / math.sqrt(2.0)) for v in np.ravel(a)]))


def fit(degree, end=END, points=8001, iterations=300):
    """Coefficients [c_degree, ..., c_1, c_0 = -1] (highest first) of the minimax fit on [0, end]."""
    a = 0.5 * end * (1.0 - np.cos(np.linspace(0.0, math.pi, points)))
    y = log2_phi_neg(a) + 1.0   # c_0 = -1 is fixed, so fit P + 1 with the powers 1 .. degree
    v = np.stack([a ** k for k in range(degree, 0, -1)], axis=1)
    w = np.full_like(a, 1.0 / points)
    for _ in range(iterations):
        c, *_ = np.linalg.lstsq(v * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None)
        w = w * np.abs(v @ c - y)
        w /= w.sum()
    return [float(np.float32(x)) for x in c] + [-1.0]


def horner_f32(coefficients, a):
    """P(a) as the kernel evaluates it: f32 coefficients, one f32 rounding per FMA."""
    a = np.asarray(a, dtype=np.float32).astype(np.float64)
    p = np.full_like(a, np.float32(coefficients[0]))
    for c in coefficients[1:]:
        # a * p is exact in float64 (two 24-bit significands); the sum's rounding to float64 and
        # then f32 can differ from an FMA's one rounding by an f32 ulp, far below the bound
        p = (p * a + np.float64(np.float32(c))).astype(np.float32).astype(np.float64)
    return p


def errors(coefficients, end=END):
    """(max |P - log2 Phi(-a)| on [0, end], whether P falls on [end, 10^4], P(end))."""
    a = np.linspace(0.0, end, 200001)
    err = float(np.max(np.abs(horner_f32(coefficients, a) - log2_phi_neg(a))))
    tail = horner_f32(coefficients, np.concatenate([np.linspace(end, 100.0, 20001), np.linspace(100.0, 1e4, 20001)]))
    return err, bool(np.all(np.diff(tail) <= 0.0)), float(tail[0])


def kernel_coefficients(name, path=KERNEL):
    """The coefficients of the kernel source's list ``name``, highest power first."""
    text = pathlib.Path(path).read_text()
    body = re.search(name + r"\[\]\s*=\s*\{([^}]*)\}", text)
    if not body:
        raise SystemExit(f"{path}: no {name}[] = {{...}} list")
    return [float(x.rstrip("f")) for x in re.findall(r"[-+0-9.eE]+f", body.group(1))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="check the kernel's coefficients against the bound")
    args = ap.parse_args(argv)
    status = 0
    for name, (degree, bound) in FITS.items():
        c = kernel_coefficients(name) if args.check else fit(degree)
        err, falls, p_end = errors(c)
        print(f"{name} (degree {degree}, highest power first): " + ", ".join(f"{x!r}f" for x in c))
        print(f"   max |P - log2 Phi(-a)| on [0, {END}] = 2^{math.log2(err):.2f} (relative error of Phi(-a) "
              f"<= 2^{math.log2(err * math.log(2.0)):.2f}); P falls past {END}: {falls}; P({END}) = {p_end:.2f}")
        ok = len(c) == degree + 1 and c[-1] == -1.0 and err <= bound and falls
        if args.check and not ok:
            print(f"{KERNEL}: {name} misses the bound 2^{math.log2(bound):.1f}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
