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

__all__ = ["decode", "encode_fp8", "reference_gemm", "to_tf32"]


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
    """The nearest finite fp8 code of each float (saturating at the largest finite value).

    Examples
    --------
    >>> encode_fp8(np.array([1.0, -2.0, 1000.0]), "e4m3").tolist()
    [56, 192, 126]
    """
    name = _lookup_dtype(dtype).name
    table = _fp8_table(name)
    finite = np.flatnonzero(np.isfinite(table))
    order = finite[np.argsort(table[finite], kind="stable")]
    vals = table[order]
    x = np.clip(np.asarray(x, dtype=np.float64), vals[0], vals[-1])
    i = np.clip(np.searchsorted(vals, x), 1, len(vals) - 1)
    lo, hi = vals[i - 1], vals[i]
    pick = np.where(x - lo <= hi - x, i - 1, i)
    return order[pick].astype(np.uint8)


def reference_gemm(a_bits, b_bits, a_dtype, b_dtype):
    """float64 D = A B of raw bits: ``a_bits`` (M, K), ``b_bits`` (K, N) as logical matrices."""
    return decode(a_bits, a_dtype) @ decode(b_bits, b_dtype)
