"""Swizzle modes of the canonical tensor-core shared-memory layouts.

One enum, :class:`SwizzleMode`, is the only place a mode is named. Everything the hardware
needs (the 2-bit wgmma ``layout_type``, the 3-bit tcgen05 ``layout_type``, the byte
swizzle ``Swizzle<B,M,S>``, the atom geometry) is *derived* from two facts per mode: its
row width in bytes and its swizzle atomicity (16 B, or 32 B for tcgen05's 128B_base32B).
"""

from __future__ import annotations

import enum

from .errors import DescriptorFieldError, FastswzTypeError
from .swizzle import Swizzle

__all__ = ["SwizzleMode"]

# Inverse of SwizzleMode.layout_type per architecture, derived from the enum on first use.
_FROM_CODE: "dict[str, dict[int, SwizzleMode]]" = {}

_ALIASES = {
    "none": "none", "interleave": "none", "inter": "none", "no": "none", "0": "none",
    "32b": "32B", "sw32": "32B", "b32": "32B",
    "64b": "64B", "sw64": "64B", "b64": "64B",
    "128b": "128B", "sw128": "128B", "b128": "128B",
    "128b_base32b": "128B_base32B", "sw128_32b": "128B_base32B", "b128_base32b": "128B_base32B",
    "128b_32b": "128B_base32B",
}


class SwizzleMode(enum.Enum):
    """A canonical shared-memory swizzle mode (PTX ISA 9.7.15.5.1.2 and 9.7.16.3).

    The value is the name used in text (CLI, JSON, ``str``). ``NONE`` is the
    no-swizzle / interleave mode; ``B128_BASE32B`` exists on sm100 (tcgen05) only.

    Examples
    --------
    >>> m = SwizzleMode.parse("128B")
    >>> m.sm90_layout_type, m.sm100_layout_type, str(m.swizzle)
    (1, 2, 'Sw<3,4,3>')
    >>> SwizzleMode.B128_BASE32B.sm100_layout_type
    1
    >>> SwizzleMode.from_layout_type(6, "sm100")
    <SwizzleMode.B32: '32B'>
    """

    NONE = "none"
    B32 = "32B"
    B64 = "64B"
    B128 = "128B"
    B128_BASE32B = "128B_base32B"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, name: "SwizzleMode | str", field: str = "swizzle") -> "SwizzleMode":
        """Return the mode for a name such as ``"128B"``, ``"none"`` or ``"interleave"``.

        ``field`` names the argument in error messages (``"layout_type"`` for descriptors).
        """
        if isinstance(name, cls):
            return name
        if not isinstance(name, str):
            raise FastswzTypeError(
                f"{field}={name!r} must be a SwizzleMode or one of "
                f"{[m.value for m in cls]}, not {type(name).__name__}")
        key = _ALIASES.get(name.strip().lower())
        if key is None:
            raise DescriptorFieldError(
                f"{field}={name!r} is not a swizzle mode; use one of {[m.value for m in cls]} "
                f"('interleave' is accepted for 'none')")
        return cls(key)

    # -- geometry ---------------------------------------------------------------------------
    @property
    def byte_width(self) -> int:
        """Bytes of one swizzle row: 16 for NONE (one core-matrix row), else 32/64/128."""
        return {"none": 16, "32B": 32, "64B": 64, "128B": 128, "128B_base32B": 128}[self.value]

    @property
    def atomicity(self) -> int:
        """Bytes moved as one unit by the XOR: 16 (u128), or 32 for 128B_base32B."""
        return 32 if self is SwizzleMode.B128_BASE32B else 16

    @property
    def atom_rows(self) -> int:
        """Rows of a swizzle atom: the pattern repeats every ``atom_rows * byte_width`` bytes.

        8 for every mode except 128B_base32B, whose 512-byte pattern holds 4 rows of 128 B
        (PTX 9.7.16.3; CUTLASS ``make_umma_desc`` divides MN-major BASE32B by (8, 4)).
        """
        return 4 if self is SwizzleMode.B128_BASE32B else 8

    @property
    def atom_bytes(self) -> int:
        """Bytes of one swizzle atom (128, 256, 512, 1024, and 512 for 128B_base32B)."""
        return self.atom_rows * self.byte_width

    @property
    def swizzle_bits(self) -> "tuple[int, int, int]":
        """``(B, M, S)`` of the byte-address swizzle (CuTe ``Swizzle<B,M,S>``, NOTES 1).

        16-byte atomicity: ``<log2(width/16), 4, 3>``; 128B_base32B: ``<2, 5, 2>``.
        """
        if self is SwizzleMode.B128_BASE32B:
            return (2, 5, 2)
        return ((self.byte_width // 16).bit_length() - 1, 4, 3)

    @property
    def swizzle(self):
        """The byte-address swizzle as a :class:`fastswz.Swizzle`."""
        return Swizzle(*self.swizzle_bits)

    @property
    def pattern_bytes(self) -> int:
        """Period of the XOR pattern in bytes: the alignment at which base_offset is 0."""
        b, m, s = self.swizzle_bits
        return 1 << (b + m + s)

    @property
    def is_swizzled(self) -> bool:
        return self is not SwizzleMode.NONE

    # -- hardware encodings ----------------------------------------------------------------
    @property
    def sm90_layout_type(self) -> int:
        """wgmma descriptor bits 62-63 (PTX 9.7.15.5.1.2.2): none 0, 128B 1, 64B 2, 32B 3."""
        if self is SwizzleMode.B128_BASE32B:
            raise DescriptorFieldError(
                "layout_type=128B_base32B does not exist on sm90 (wgmma): it is a tcgen05 (sm100) "
                "mode; use 128B, or arch='sm100'")
        if self is SwizzleMode.NONE:
            return 0
        # 128B -> 1, 64B -> 2, 32B -> 3: four minus log2 of the row width in 16-byte chunks.
        return 4 - self.swizzle_bits[0]

    @property
    def sm100_layout_type(self) -> int:
        """tcgen05 descriptor bits 61-63 (PTX 9.7.16.4.1): none 0, 128B_base32B 1, 128B 2, 64B 4, 32B 6.

        For 16-byte atomicity the 3-bit code is the sm90 code shifted left once, which is why
        writing the sm90 value at bit 62 works on sm100 too (NOTES 3).
        """
        if self is SwizzleMode.B128_BASE32B:
            return 1
        return self.sm90_layout_type << 1

    def layout_type(self, arch: str) -> int:
        """The descriptor layout_type code for ``arch`` ("sm90" or "sm100")."""
        return self.sm90_layout_type if arch == "sm90" else self.sm100_layout_type

    @classmethod
    def from_layout_type(cls, code: int, arch: str) -> "SwizzleMode":
        """Inverse of :meth:`layout_type`; raises for codes the hardware does not define."""
        table = _FROM_CODE.get(arch)
        if table is None:
            table = _FROM_CODE[arch] = {
                m.layout_type(arch): m for m in cls
                if not (arch == "sm90" and m is cls.B128_BASE32B)}
        mode = table.get(code)
        if mode is not None:
            return mode
        width = 2 if arch == "sm90" else 3
        valid = sorted(m.layout_type(arch) for m in cls
                       if not (arch == "sm90" and m is cls.B128_BASE32B))
        raise DescriptorFieldError(
            f"layout_type={code} is not a valid {width}-bit {arch} swizzle code "
            f"(valid: {valid}; sm100 codes 3, 5, 7 are undefined)")
