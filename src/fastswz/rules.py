"""Rules shared by :class:`~fastswz.tile.OperandTile` and the array entry points in
:mod:`fastswz.bulk`: the architectures, tiling orders, swizzle bases and LBO policies, the 256 KiB
window the descriptor fields address, and which (dtype, major-ness, swizzle) combinations each
architecture accepts (PTX 9.7.15.5.1.2 for wgmma, 9.7.16 for tcgen05).

It sits below both ``tile.py`` and ``bulk.py`` so that neither imports the other for its rules
(``tile.py`` calls ``bulk.py`` for its array methods; ``bulk.py`` never imports ``tile.py``).
"""

from __future__ import annotations

from .dtypes import DType
from .errors import DescriptorFieldError, FastswzTypeError, TileError, as_int
from .modes import SwizzleMode

__all__ = ["ARCHS", "LBO_POLICIES", "ORDERS", "SMEM_WINDOW", "SWIZZLE_BASES", "check_stride_fields"]

#: sm103 is sm100 (same tcgen05 descriptors) plus the absolute-address LBO mode, which the PTX
#: ISA supports on sm_103a only (9.7.16.3.1.2).
ARCHS = ("sm90", "sm100", "sm103")
ORDERS = ("mn", "k")
#: ``"absolute"``: the swizzle acts on the absolute byte address and base_offset is 0
#: (CuTe, and what an H100 does, NOTES 10/11). ``"relative"``: the pattern is anchored at the
#: tile start and base_offset = (start >> 7) & 7 (PTX 9.7.15.5.1.2.2; verified on H100).
SWIZZLE_BASES = ("absolute", "relative")
#: Encoding of the unused LBO of K-major swizzled operands: ``"cutlass"`` writes 1 (16 bytes,
#: CUTLASS and ThunderKittens; PTX "assumed 1"), ``"deepgemm"`` writes 0.
LBO_POLICIES = ("cutlass", "deepgemm")

SMEM_WINDOW = 1 << 18  # 14-bit fields of 16-byte units address 256 KiB (PTX matrix-descriptor-encode)


def _int(name: str, value, minimum: int | None = None) -> int:
    v = as_int(name, value)
    if minimum is not None and v < minimum:
        raise TileError(f"{name}={v} must be >= {minimum}")
    return v


def _choice(name: str, value, choices) -> str:
    if not isinstance(value, str):
        raise FastswzTypeError(f"{name}={value!r} must be one of {list(choices)}, not {type(value).__name__}")
    v = value.strip()
    low = {c.lower(): c for c in choices}
    if v.lower() not in low:
        raise TileError(f"{name}={value!r} is not one of {list(choices)}")
    return low[v.lower()]


def check_stride_fields(lbo: int, sbo: int) -> None:
    """Raise if LBO/SBO do not fit the 14-bit descriptor fields (16-byte units)."""
    for name, v in (("leading_byte_offset", lbo), ("stride_byte_offset", sbo)):
        if v >= SMEM_WINDOW:
            raise DescriptorFieldError(
                f"{name}=0x{v:x} does not fit the 14-bit field (16-byte units, max 0x3fff0): "
                f"the tile is too large for one descriptor stride; use a smaller tile or the "
                f"other tiling order")


def _storage_bits(dt: DType, packed) -> int:
    if not isinstance(packed, bool):
        raise FastswzTypeError(f"packed={packed!r} must be True or False")
    if dt.bits >= 8:
        if packed:
            raise TileError(f"packed=True applies to 4-bit types; dtype={dt} is {dt.bits}-bit")
        return dt.bits
    if not packed:
        return 8  # kind::f8f6f4 reads 4/6-bit types unpacked, one per byte (PTX 9.7.16)
    if dt.bits != 4:
        raise TileError(
            f"packed=True with dtype={dt}: no tcgen05 kind reads packed 6-bit data from shared "
            f"memory; use packed=False (one element per byte, kind::f8f6f4)")
    return 4


def _check_legal(dt: DType, major: str, mode: SwizzleMode, arch: str) -> None:
    # PTX 9.7.15.5.1.2 (wgmma) and 9.7.16 "Valid Combinations of Type-Size, Major-ness and
    # Swizzling" (tcgen05); CUTLASS static-asserts that 128B_base32B is never K-major.
    if arch == "sm90":
        if mode is SwizzleMode.B128_BASE32B:
            raise TileError("swizzle=128B_base32B exists only on sm100 (tcgen05); use arch='sm100' or 128B")
        if not dt.sm90:
            raise TileError(f"dtype={dt} is not a wgmma (sm90) shared-memory operand type; use arch='sm100'")
        if major == "MN" and not dt.mn_major_sm90:
            raise TileError(
                f"major='MN' with dtype={dt} is not allowed on sm90: wgmma transposes only "
                f".f16/.bf16 operands (PTX 9.7.15.5.1.2); store it K-major")
        return
    if dt.bits < 8 and major == "MN":
        raise TileError(
            f"major='MN' with dtype={dt}: 4- and 6-bit operands are K-major only on tcgen05 (PTX "
            f"valid combinations of type size and major-ness); store it K-major")
    if mode is SwizzleMode.B128_BASE32B and major == "K":
        raise TileError(
            "swizzle=128B_base32B is not a K-major mode: the PTX swizzle-atom table has no K-major "
            "32-byte-atomicity atom and CUTLASS rejects it; use 128B for K-major")
    if major == "MN" and dt.bits == 32 and mode is not SwizzleMode.B128_BASE32B:
        raise TileError(
            f"major='MN' with 32-bit dtype={dt} on sm100 requires swizzle='128B_base32B' "
            f"(PTX tcgen05 valid combinations), got {mode}")
    if major == "MN" and dt.bits != 32 and mode is SwizzleMode.B128_BASE32B:
        raise TileError(
            f"swizzle=128B_base32B is only for MN-major 32-bit types on sm100, not {dt}; use 128B")
