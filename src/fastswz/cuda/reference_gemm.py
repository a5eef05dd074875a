"""Host-side decoding of the kernel family's element types and a float64 reference product.

Pure numpy (no GPU): the GPU tests check D against :func:`reference_gemm` of the same bits, and
:func:`encode_fp8` makes fp8 inputs. fp8 follows the OCP formats the hardware uses (PTX
9.7.15.5 data types): e4m3 (``e4m3fn``: bias 7, no infinity, S.1111.111 is NaN, max 448) and
e5m2 (bias 15, IEEE-like infinities and NaNs).
"""

from __future__ import annotations

import functools

import numpy as np

from ..dtypes import dtype as _lookup_dtype
from .errors import GemmArgumentError

__all__ = ["decode", "encode_fp8", "reference_gemm", "to_tf32", "activation", "reference_epilogue",
           "reference_block_scaled", "round_to", "ulp", "FP8_MAX"]

#: The largest finite value of each fp8 type (what a saturating cast gives past it).
FP8_MAX = {"e4m3": 448.0, "e5m2": 57344.0}


@functools.lru_cache(maxsize=None)
def _fp8_table(name):
    code = np.arange(256)
    sign = np.where(code & 0x80, -1.0, 1.0)
    if name == "e4m3":
        e, m, bias = (code >> 3) & 0xF, code & 7, 7
        val = np.where(e == 0, m / 8.0 * 2.0 ** (1 - bias), (1 + m / 8.0) * 2.0 ** (e - bias))
        val = np.where((code & 0x7F) == 0x7F, np.nan, val)
    else:
        e, m, bias = (code >> 2) & 0x1F, code & 3, 15
        val = np.where(e == 0, m / 4.0 * 2.0 ** (1 - bias), (1 + m / 4.0) * 2.0 ** (e - bias))
        val = np.where(e == 31, np.where(m == 0, np.inf, np.nan), val)
    return sign * val


def decode(bits, dtype):
    """float64 values of raw element bits (uint8 fp8, uint16 f16/bf16, uint32 f32/tf32).

    Examples
    --------
    >>> decode(np.array([0x3F80], dtype=np.uint16), "bf16").tolist()
    [1.0]
    >>> decode(np.array([0x38, 0x7E], dtype=np.uint8), "e4m3").tolist()
    [1.0, 448.0]
    """
    name = _lookup_dtype(dtype).name
    b = np.asarray(bits)
    if name in ("e4m3", "e5m2"):
        return _fp8_table(name)[b.astype(np.uint8)]
    if name == "f16":
        return b.astype(np.uint16).view(np.float16).astype(np.float64)
    if name == "bf16":
        return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if name in ("f32", "tf32"):
        return b.astype(np.uint32).view(np.float32).astype(np.float64)
    raise GemmArgumentError(f"dtype={dtype!r}: decode reads the GEMM kernels' float types "
                            f"(bf16, f16, f32, tf32, e4m3, e5m2)")


def to_tf32(bits):
    """f32 bits truncated to tf32 (the 13 low mantissa bits dropped), what wgmma .tf32 reads
    at most; the hardware may also round, so checks allow a tf32 ulp."""
    return np.asarray(bits).astype(np.uint32) & np.uint32(0xFFFFE000)


def encode_fp8(x, dtype):
    """The nearest finite fp8 code of each float, ties to the even code (round to nearest even,
    as ``cvt.rn``), saturating at the largest finite value (as ``cvt.rn.satfinite``: +-Inf too);
    NaN gives the type's NaN code (0x7F e4m3, 0x7E e5m2).

    Examples
    --------
    >>> encode_fp8(np.array([1.0, -2.0, 1000.0, 17.0, -17.0]), "e4m3").tolist()
    [56, 192, 126, 88, 216]
    """
    name = _lookup_dtype(dtype).name
    table = _fp8_table(name)
    finite = np.flatnonzero(np.isfinite(table) & (np.arange(256) != 0x80))   # one zero: +0
    order = finite[np.argsort(table[finite], kind="stable")]
    vals = table[order]
    raw = np.asarray(x, dtype=np.float64)
    nan = np.isnan(raw)
    x = np.clip(np.where(nan, 0.0, raw), vals[0], vals[-1])
    i = np.clip(np.searchsorted(vals, x), 1, len(vals) - 1)
    lo, hi = vals[i - 1], vals[i]
    tie_lo = (x - lo == hi - x) & (order[i - 1] % 2 == 0)
    pick = np.where((x - lo < hi - x) | tie_lo, i - 1, i)
    out = order[pick].astype(np.uint8)
    return np.where(nan, np.uint8(0x7F if name == "e4m3" else 0x7E), out).astype(np.uint8)


def reference_gemm(a_bits, b_bits, a_dtype, b_dtype):
    """float64 D = A B of raw bits: ``a_bits`` (M, K), ``b_bits`` (K, N) as logical matrices."""
    return decode(a_bits, a_dtype) @ decode(b_bits, b_dtype)


def activation(x, name):
    """float64 ``name``(x) as torch defines it: ``identity``, ``relu`` (NaN stays NaN), ``gelu``
    (x Phi(x), erf), ``gelu_tanh`` (torch's approximate='tanh'), ``silu`` (x / (1 + e^-x)).

    >>> activation(np.array([-1.0, 0.0, 2.0]), "relu").tolist()
    [0.0, 0.0, 2.0]
    """
    import math

    x = np.asarray(x, dtype=np.float64)
    if name == "identity":
        return x.copy()
    if name == "relu":
        return np.where(x < 0, 0.0, x)
    if name == "gelu":
        erfc = np.frompyfunc(math.erfc, 1, 1)   # 1 + erf(x/sqrt2) without its cancellation
        u, inv = np.unique(x, return_inverse=True)   # (one Python call per distinct value)
        return (0.5 * u * erfc(-u / math.sqrt(2.0)).astype(np.float64))[inv.reshape(x.shape)]
    if name == "gelu_tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    if name == "silu":
        with np.errstate(over="ignore"):
            return x / (1.0 + np.exp(-x))
    raise GemmArgumentError(f"activation={name!r}: one of identity, relu, gelu, gelu_tanh, silu")


def round_to(x, dtype):
    """float64 values rounded to ``dtype`` as the kernel's output conversion does (round to
    nearest even; fp8 saturating, as ``cvt.rn.satfinite``), decoded back to float64.

    >>> round_to(np.array([17.0, 1000.0, np.inf]), "e4m3").tolist()
    [16.0, 448.0, 448.0]
    """
    from .runtime import _bits_of

    name = _lookup_dtype(dtype).name
    x = np.asarray(x, dtype=np.float64)
    if name in ("e4m3", "e5m2"):
        return decode(encode_fp8(x, name), name)
    if name == "f32":
        return x.astype(np.float32).astype(np.float64)
    with np.errstate(over="ignore"):
        return decode(_bits_of(x.astype(np.float32), name), name)


_MANTISSA = {"bf16": (7, -133), "f16": (10, -24), "f32": (23, -149), "e4m3": (3, -9), "e5m2": (2, -16)}


def ulp(x, dtype):
    """One unit in the last place of ``dtype`` at |x| (its subnormal step below the normals).

    >>> ulp(np.array([1.0, 3.0, 0.0]), "e4m3").tolist()
    [0.125, 0.25, 0.001953125]
    """
    bits, tiny = _MANTISSA[_lookup_dtype(dtype).name]
    ax = np.abs(np.asarray(x, dtype=np.float64))
    e = np.floor(np.log2(np.where(ax > 0, ax, 2.0 ** (tiny - 1))))
    return np.maximum(2.0 ** (e - bits), 2.0 ** tiny)


def reference_block_scaled(a, b, scale_a, scale_b, block=128):
    """float64 D = sum_kb (A[:, kb] B[kb, :]) scale_a[:, kb] scale_b[n // block, kb]: A (M, K),
    B (K, N) as float64, scale_a (M, ceil(K / block)), scale_b (ceil(N / block), ceil(K / block))
    (DeepSeek-V3's 1 x 128 / 128 x 128 blocks).

    >>> a, b = np.ones((1, 256)), np.ones((256, 1))
    >>> reference_block_scaled(a, b, np.array([[1.0, 2.0]]), np.array([[0.5, 0.25]])).tolist()
    [[128.0]]
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    m, k = a.shape
    n = b.shape[1]
    out = np.zeros((m, n))
    cols = np.arange(n) // block
    for kb in range(-(-k // block)):
        part = a[:, kb * block:(kb + 1) * block] @ b[kb * block:(kb + 1) * block]
        out += part * scale_a[:, kb:kb + 1] * scale_b[cols, kb][None, :]
    return out


def reference_epilogue(acc, *, alpha=1.0, beta=0.0, c=None, bias=None, activation_name="identity",
                       scale="none", scale_a=None, scale_b=None, out_scale=None, out_dtype="f32"):
    """The fused epilogue in float64: ``(D, out, amax)`` where D = act(alpha acc s + beta C +
    bias) (``s``: scale_a * scale_b per tensor, or scale_a[m] * scale_b[n] rowwise; ``block``:
    ``acc`` already carries them, :func:`reference_block_scaled`), ``amax`` = ``max |D|`` (NaN if
    any D is NaN, as ``D.abs().max()`` in torch), and ``out`` D times ``out_scale`` (fp8) rounded
    to ``out_dtype`` as the kernel stores it. ``beta * C`` is left out when beta is 0 (as
    torch.addmm). The kernel computes the same in f32.

    >>> D, out, amax = reference_epilogue(np.array([[1.0, -3.0]]), bias=np.array([0.5, 0.5]),
    ...                                   activation_name="relu", out_dtype="e4m3", out_scale=2.0)
    >>> D.tolist(), out.tolist(), float(amax)
    ([[1.5, 0.0]], [[3.0, 0.0]], 1.5)
    """
    v = alpha * np.asarray(acc, dtype=np.float64)
    if scale == "tensor":
        v = v * float(np.asarray(scale_a).ravel()[0]) * float(np.asarray(scale_b).ravel()[0])
    elif scale == "row":
        v = v * np.asarray(scale_a, dtype=np.float64).reshape(-1, 1) * np.asarray(scale_b, dtype=np.float64).reshape(1, -1)
    if c is not None and beta != 0:
        v = v + beta * np.asarray(c, dtype=np.float64)
    if bias is not None:
        v = v + np.asarray(bias, dtype=np.float64).reshape(1, -1)
    d = activation(v, activation_name)
    amax = float(np.max(np.abs(d))) if d.size else 0.0
    if np.isnan(d).any():
        amax = float("nan")
    name = _lookup_dtype(out_dtype).name
    pre = d * (1.0 if out_scale is None else float(out_scale)) if name in ("e4m3", "e5m2") else d
    return d, round_to(pre, name), amax
