"""Operand element types of wgmma (sm90) and tcgen05 (sm100).

Each :class:`DType` records its storage width and which MMA instruction kinds read it,
with the format code the tcgen05 instruction descriptor uses for it (PTX 9.7.16.4.2,
CUTLASS ``cute/arch/mma_sm100_desc.hpp`` enums ``F16F32Format``, ``MXF8F6F4Format``,
``S8Format``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import FastswzTypeError, TileError

__all__ = ["DType", "DTYPES", "dtype"]


@dataclass(frozen=True)
class DType:
    """An operand element type.

    Attributes
    ----------
    name : str
        Canonical name (``"bf16"``).
    bits : int
        Bits of one element in shared memory.
    kind : str
        tcgen05 ``.kind`` that reads it (``"f16"``, ``"tf32"``, ``"f8f6f4"``, ``"i8"``).
    format_code : int
        The A/B format code of the tcgen05 instruction descriptor under ``kind``.
    sm90 : bool
        Whether wgmma (sm90) reads this type from shared memory.
    mn_major_sm90 : bool
        Whether wgmma accepts it MN-major (transpose): only 16-bit types (PTX 9.7.15.5.1.2).

    Examples
    --------
    >>> dtype("bf16")
    DType(name='bf16', bits=16, kind='f16', format_code=1, sm90=True, mn_major_sm90=True)
    >>> dtype("e4m3").inst_k
    32
    """

    name: str
    bits: int
    kind: str
    format_code: int
    sm90: bool
    mn_major_sm90: bool

    @property
    def inst_k(self) -> int:
        """Elements of K one dense MMA reads per descriptor: always 32 bytes (NOTES 2)."""
        return 256 // self.bits

    @property
    def elems_per_16B(self) -> int:
        """T of the PTX canonical layouts: elements in one 16-byte (128-bit) chunk."""
        return 128 // self.bits

    def __str__(self) -> str:
        return self.name


def _t(name, bits, kind, code, sm90, mn90):
    return DType(name, bits, kind, code, sm90, mn90)


#: Every element type fastswz knows, by name (the names :func:`dtype` accepts).
DTYPES: "dict[str, DType]" = {
    d.name: d
    for d in (
        _t("f16", 16, "f16", 0, True, True),
        _t("bf16", 16, "f16", 1, True, True),
        _t("tf32", 32, "tf32", 2, True, False),
        # f32 storage read as tf32 (wgmma .tf32 and tcgen05 kind::tf32 take 32-bit containers).
        _t("f32", 32, "tf32", 2, True, False),
        _t("e4m3", 8, "f8f6f4", 0, True, False),
        _t("e5m2", 8, "f8f6f4", 1, True, False),
        _t("u8", 8, "i8", 0, True, False),
        _t("s8", 8, "i8", 1, True, False),
        # kind::f8f6f4 sub-byte types (tcgen05 only), format codes of PTX 9.7.16.4.2.
        _t("e2m3", 6, "f8f6f4", 3, False, False),
        _t("e3m2", 6, "f8f6f4", 4, False, False),
        _t("e2m1", 4, "f8f6f4", 5, False, False),
    )
}

_ALIASES = {
    "half": "f16", "float16": "f16", "fp16": "f16", "half_t": "f16",
    "bfloat16": "bf16", "bfloat16_t": "bf16",
    "tfloat32": "tf32", "tfloat32_t": "tf32", "float32": "f32", "float": "f32", "fp32": "f32",
    "float_e4m3": "e4m3", "fp8_e4m3": "e4m3", "float8_e4m3fn": "e4m3", "float_e4m3_t": "e4m3",
    "float_e5m2": "e5m2", "fp8_e5m2": "e5m2", "float8_e5m2": "e5m2", "float_e5m2_t": "e5m2",
    "int8": "s8", "int8_t": "s8", "uint8": "u8", "uint8_t": "u8",
    "float_e2m1": "e2m1", "fp4": "e2m1", "float4_e2m1fn": "e2m1", "float_e2m1_t": "e2m1",
    "float_e2m3": "e2m3", "float6_e2m3fn": "e2m3", "float_e2m3_t": "e2m3",
    "float_e3m2": "e3m2", "float6_e3m2fn": "e3m2", "float_e3m2_t": "e3m2",
}


def dtype(name: "DType | str") -> DType:
    """Look up an operand element type by name (``"bf16"``, ``"e4m3"``, ``"s8"``, ...).

    Examples
    --------
    >>> dtype("half").name
    'f16'
    """
    if isinstance(name, DType):
        return name
    if not isinstance(name, str):
        raise FastswzTypeError(f"dtype={name!r} must be a type name string, not {type(name).__name__}")
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in DTYPES:
        raise TileError(f"dtype={name!r} is not a known operand type; use one of {sorted(DTYPES)}")
    return DTYPES[key]
