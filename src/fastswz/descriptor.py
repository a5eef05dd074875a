"""Descriptors: the wgmma matrix descriptor, the tcgen05 shared-memory descriptor and the
tcgen05 instruction descriptor, packed from named fields and unpacked from integers.

Field names are CUTLASS's (``start_address``, ``leading_byte_offset``, ``stride_byte_offset``,
``base_offset``, ``lbo_mode``, ``layout_type``, ``version``) without the trailing underscore.
Address and offset fields hold **bytes**; packing stores ``(bytes & 0x3FFFF) >> 4``
(PTX "matrix-descriptor-encode") and refuses values that would lose bits.
"""

from __future__ import annotations

from operator import itemgetter

from ._bits import TABLE_HEADER, InstrWord, pack_raw, replace_fields, reserved_mask, split_raw, table_rows
from .blockscaled import BLOCK_SCALED_KINDS, InstrDescriptorBlockScaled
from .dtypes import DTYPES, dtype as _dtype
from .errors import DescriptorFieldError, FastswzTypeError, as_flag, as_int, as_major
from .modes import SwizzleMode

__all__ = ["SmemDescriptorSM90", "SmemDescriptorSM100", "InstrDescriptorSM100", "decode",
           "SM90_FIELDS", "SM100_FIELDS", "INSTR_FIELDS"]

# (name, lsb, width, lshift): the field holds value >> lshift in bits [lsb, lsb + width).
#: wgmma matrix descriptor, PTX 9.7.15.5.1.2.2; CUTLASS cute/arch/mma_sm90_desc.hpp GmmaDescriptor.
SM90_FIELDS = (
    ("start_address", 0, 14, 4),        # bits [0,14), 4 LSB dropped
    ("leading_byte_offset", 16, 14, 4),  # bits [16,30), 4 LSB dropped
    ("stride_byte_offset", 32, 14, 4),   # bits [32,46), 4 LSB dropped
    ("base_offset", 49, 3, 0),           # bits [49,52)
    ("layout_type", 62, 2, 0),           # bits [62,64): none 0, 128B 1, 64B 2, 32B 3
)
#: tcgen05 shared-memory descriptor, PTX 9.7.16.4.1; CUTLASS cute/arch/mma_sm100_desc.hpp
#: SmemDescriptor. Bits 46-48 are the fixed constant 0b001 (CUTLASS: version_ = 1).
SM100_FIELDS = (
    ("start_address", 0, 14, 4),
    ("leading_byte_offset", 16, 14, 4),
    ("stride_byte_offset", 32, 14, 4),
    ("version", 46, 3, 0),
    ("base_offset", 49, 3, 0),
    ("lbo_mode", 52, 1, 0),             # 0 relative LBO, 1 absolute address (PTX 9.7.16.3.1)
    ("layout_type", 61, 3, 0),           # none 0, 128B_base32B 1, 128B 2, 64B 4, 32B 6
)
#: tcgen05 instruction descriptor (32-bit), PTX 9.7.16.4.2 "Instruction descriptor format";
#: CUTLASS cute/arch/mma_sm100_desc.hpp InstrDescriptor.
INSTR_FIELDS = (
    ("sparse_id2", 0, 2, 0),
    ("sparse", 2, 1, 0),
    ("saturate", 3, 1, 0),
    ("d_format", 4, 2, 0),              # F16 0, F32 1, S32 2
    ("a_format", 7, 3, 0),
    ("b_format", 10, 3, 0),
    ("negate_a", 13, 1, 0),
    ("negate_b", 14, 1, 0),
    ("a_major", 15, 1, 0),              # 0 K-major, 1 MN-major ("transpose")
    ("b_major", 16, 1, 0),
    ("n", 17, 6, 3),                    # N >> 3
    ("m", 24, 5, 4),                    # M >> 4 (bit 23 reserved)
    ("max_shift", 30, 2, 0),            # .ws B reuse: 0 none, 1 -> 8, 2 -> 16, 3 -> 32
)


SM90_RESERVED = reserved_mask(SM90_FIELDS, 64)
SM100_RESERVED = reserved_mask(SM100_FIELDS, 64)
INSTR_RESERVED = reserved_mask(INSTR_FIELDS, 32)


def _int(name, value):
    return as_int(name, value)


def _byte_field(name, value, limit=1 << 18):
    v = _int(name, value)
    if v < 0 or v >= limit:
        raise DescriptorFieldError(
            f"{name}={v:#x} does not fit the 14-bit field (16-byte units, max 0x3fff0); "
            f"shared-memory addresses and offsets are below 256 KiB")
    if v & 15:
        raise DescriptorFieldError(
            f"{name}={v:#x} is not a multiple of 16: the field stores 16-byte units (4 LSB dropped); "
            f"align it to 0x{v & ~15:x} or 0x{(v + 15) & ~15:x}")
    return v


def _small(name, value, hi):
    v = _int(name, value)
    if not 0 <= v <= hi:
        raise DescriptorFieldError(f"{name}={v} is out of range: the field holds 0..{hi}")
    return v


def _str_choice(name, value, choices):
    """A string argument that must be one of ``choices`` (numpy arrays and other types refused)."""
    if not isinstance(value, str):
        raise FastswzTypeError(f"{name}={value!r} must be one of {list(choices)}, not {type(value).__name__}")
    if value not in choices:
        raise DescriptorFieldError(f"{name}={value!r} is not one of {list(choices)}")
    return value


def _hexw(v, bits):
    return f"0x{v:0{bits // 4}x}"


class _SmemDescriptor(tuple):
    """Shared behaviour of the two shared-memory descriptors.

    A descriptor is an immutable tuple of its fields in ``NAMES`` order (cheap to build on the
    hot path of ``OperandTile.descriptor``), compared by type and value.
    """

    __slots__ = ()
    NAMES: tuple = ()
    FIELDS: tuple = ()
    RESERVED = 0
    arch = ""
    title = ""

    @property
    def value(self) -> int:
        """The packed 64-bit descriptor."""
        return self._pack()

    def __int__(self):
        return self._pack()

    __index__ = __int__

    def __eq__(self, other):
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return tuple.__hash__(self)

    def __getnewargs__(self):
        return tuple(self)

    def __str__(self):
        return _hexw(self._pack(), 64)

    def fields(self) -> dict:
        """The fields as a dict (layout_type as a :class:`SwizzleMode`)."""
        return dict(zip(self.NAMES, self))

    def __repr__(self):
        args = ", ".join(
            f"{k}={('0x%x' % v) if k in ('start_address', 'leading_byte_offset', 'stride_byte_offset') else repr(v.value if isinstance(v, SwizzleMode) else v)}"
            for k, v in self.fields().items())
        return f"{type(self).__name__}({args})"

    def replace(self, **changes):
        """A copy with some fields changed (validated like the constructor)."""
        return replace_fields(self, changes)

    def _raw(self):
        return {name: (getattr(self, name).layout_type(self.arch) if name == "layout_type"
                       else getattr(self, name)) >> lshift
                for name, _, _, lshift in self.FIELDS}

    def _pack(self):
        return pack_raw(self._raw(), self.FIELDS)

    def table(self) -> str:
        """A field table: bits, field, raw field value, meaning."""
        raw = self._raw()
        rows = [f"{self.title} {_hexw(self._pack(), 64)}",
                TABLE_HEADER]
        for name, lsb, width, lshift in self.FIELDS:
            val = getattr(self, name)
            if lshift:
                meaning = f"0x{val:x} ({val}) bytes"
                if name == "leading_byte_offset" and getattr(self, "lbo_mode", 0):
                    meaning = f"absolute address 0x{val:x} of the second K chunk"
            elif name == "layout_type":
                meaning = f"{val.value} swizzle"
            elif name == "base_offset":
                meaning = "pattern aligned" if val == 0 else f"pattern starts at ((addr >> 7) & 7) = {val}"
            elif name == "lbo_mode":
                meaning = "absolute-address LBO" if val else "relative LBO"
            elif name == "version":
                meaning = "fixed 0b001 (tcgen05)"
            else:
                meaning = ""
            rows.append(f"{f'{lsb}-{lsb + width - 1}':<7} {name:<20} {raw[name]:>7}  {meaning}")
        return "\n".join(rows)

    @classmethod
    def _split(cls, value, strict):
        v = _int("value", value)
        if not 0 <= v < 1 << 64:
            raise DescriptorFieldError(f"value={v:#x} is not a 64-bit descriptor (0 <= value < 2**64)")
        if strict and v & cls.RESERVED:
            raise DescriptorFieldError(
                f"value=0x{v:016x} sets reserved bits 0x{v & cls.RESERVED:016x} of the {cls.title}; "
                f"they must be 0 (pass strict=False to ignore them)")
        return {name: ((v >> lsb) & ((1 << width) - 1)) << lshift
                for name, lsb, width, lshift in cls.FIELDS}


class SmemDescriptorSM90(_SmemDescriptor):
    """The wgmma (sm_90a) matrix descriptor.

    Parameters
    ----------
    start_address, leading_byte_offset, stride_byte_offset : int
        Bytes; 16-byte aligned and below 256 KiB.
    base_offset : int
        0..7: ``(pattern start >> 7) & 7`` when a swizzle pattern starts off its boundary.
    layout_type : SwizzleMode or str
        ``"none"``, ``"32B"``, ``"64B"``, ``"128B"``.

    Examples
    --------
    >>> d = SmemDescriptorSM90(0x400, 16, 1024, layout_type="128B")
    >>> hex(d.value)
    '0x4000004000010040'
    >>> SmemDescriptorSM90.unpack(0x4000004000010040) == d
    True
    """

    __slots__ = ()
    NAMES = ("start_address", "leading_byte_offset", "stride_byte_offset", "base_offset",
             "layout_type")
    start_address = property(itemgetter(0), doc="Matrix start address, bytes.")
    leading_byte_offset = property(itemgetter(1), doc="LBO, bytes.")
    stride_byte_offset = property(itemgetter(2), doc="SBO, bytes.")
    base_offset = property(itemgetter(3), doc="Pattern base offset, 0..7.")
    layout_type = property(itemgetter(4), doc="Swizzle mode (SwizzleMode).")
    FIELDS = SM90_FIELDS
    RESERVED = SM90_RESERVED
    arch = "sm90"
    title = "wgmma matrix descriptor (sm90)"

    def __new__(cls, start_address=0, leading_byte_offset=0, stride_byte_offset=0,
                base_offset=0, layout_type="none"):
        mode = SwizzleMode.parse(layout_type, "layout_type")
        mode.sm90_layout_type  # raises for 128B_base32B
        return tuple.__new__(cls, (
            _byte_field("start_address", start_address),
            _byte_field("leading_byte_offset", leading_byte_offset),
            _byte_field("stride_byte_offset", stride_byte_offset),
            _small("base_offset", base_offset, 7), mode))

    @classmethod
    def _trusted(cls, start, lbo, sbo, base_offset, mode):
        # Values already validated by OperandTile: skip the checks on this hot path.
        return tuple.__new__(cls, (start, lbo, sbo, base_offset, mode))

    @classmethod
    def unpack(cls, value, strict=True) -> "SmemDescriptorSM90":
        """Decode a 64-bit value. ``strict`` rejects set reserved bits (the hardware ignores them)."""
        if type(value) is not int or value >> 64 or value < 0 or (strict and value & SM90_RESERVED):
            cls._split(value, strict)  # raises the specific error (or normalises a numpy int)
            value = int(value)
        # Field positions: SM90_FIELDS (PTX 9.7.15.5.1.2.2); every 2-bit layout code is defined.
        return tuple.__new__(cls, ((value & 0x3FFF) << 4, (value >> 12) & 0x3FFF0,
                                   (value >> 28) & 0x3FFF0, (value >> 49) & 7,
                                   _SM90_MODES[value >> 62]))

    def _pack(self):
        # SM90_FIELDS, written out: int() of a descriptor sits on autotuners' hot paths.
        start, lbo, sbo, base, mode = self
        return ((start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | base << 49
                | _SM90_CODE[mode] << 62)


class SmemDescriptorSM100(_SmemDescriptor):
    """The tcgen05 (sm_100a) shared-memory descriptor.

    As :class:`SmemDescriptorSM90` plus ``lbo_mode`` (bit 52: 1 = ``leading_byte_offset``
    holds the absolute address of the second K chunk, PTX 9.7.16.3.1.2), ``version`` (bits
    46-48, always 1) and the 3-bit ``layout_type`` that adds ``"128B_base32B"``.

    Examples
    --------
    >>> d = SmemDescriptorSM100(0x400, 16, 1024, layout_type="128B")
    >>> hex(d.value)
    '0x4000404000010040'
    >>> SmemDescriptorSM100.unpack(0x2000402001000100).layout_type
    <SwizzleMode.B128_BASE32B: '128B_base32B'>
    """

    __slots__ = ()
    NAMES = ("start_address", "leading_byte_offset", "stride_byte_offset", "base_offset",
             "lbo_mode", "layout_type", "version")
    start_address = property(itemgetter(0), doc="Matrix start address, bytes.")
    leading_byte_offset = property(itemgetter(1), doc="LBO bytes, or (lbo_mode 1) an absolute address.")
    stride_byte_offset = property(itemgetter(2), doc="SBO, bytes.")
    base_offset = property(itemgetter(3), doc="Pattern base offset, 0..7.")
    lbo_mode = property(itemgetter(4), doc="0 relative LBO, 1 absolute address.")
    layout_type = property(itemgetter(5), doc="Swizzle mode (SwizzleMode).")
    version = property(itemgetter(6), doc="Always 1 (bits 46-48 = 0b001).")
    FIELDS = SM100_FIELDS
    RESERVED = SM100_RESERVED
    arch = "sm100"
    title = "tcgen05 shared-memory descriptor (sm100)"

    def __new__(cls, start_address=0, leading_byte_offset=0, stride_byte_offset=0,
                base_offset=0, lbo_mode=0, layout_type="none", version=1):
        mode = SwizzleMode.parse(layout_type, "layout_type")
        fields = (_byte_field("start_address", start_address),
                  _byte_field("leading_byte_offset", leading_byte_offset),
                  _byte_field("stride_byte_offset", stride_byte_offset),
                  _small("base_offset", base_offset, 7), _small("lbo_mode", lbo_mode, 1), mode, 1)
        if _int("version", version) != 1:
            raise DescriptorFieldError(
                f"version={version} is not allowed: tcgen05 descriptors have the fixed value 0b001 "
                f"in bits 46-48 (PTX 9.7.16.4.1); omit it")
        if fields[4]:
            # PTX 9.7.16.3.1.2.1 restrictions on the absolute-address LBO mode.
            if mode is not SwizzleMode.B128:
                raise DescriptorFieldError(
                    f"lbo_mode=1 requires layout_type=128B (16-byte atomicity), got {mode.value} "
                    f"(PTX 9.7.16.3.1.2.1)")
            if fields[3]:
                raise DescriptorFieldError(
                    f"lbo_mode=1 requires base_offset=0, got {fields[3]} (PTX 9.7.16.3.1.2.1)")
        return tuple.__new__(cls, fields)

    @classmethod
    def _trusted(cls, start, lbo, sbo, base_offset, mode, lbo_mode=0):
        return tuple.__new__(cls, (start, lbo, sbo, base_offset, lbo_mode, mode, 1))

    def _pack(self):
        # SM100_FIELDS, written out (see SmemDescriptorSM90._pack).
        start, lbo, sbo, base, lbo_mode, mode, _ = self
        return ((start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 46 | base << 49
                | lbo_mode << 52 | _SM100_CODE[mode] << 61)

    @classmethod
    def unpack(cls, value, strict=True) -> "SmemDescriptorSM100":
        """Decode a 64-bit value; rejects invalid layout codes and a wrong version field."""
        if type(value) is int and 0 <= value < 1 << 64 and not (strict and value & SM100_RESERVED):
            # Fast path for well-formed values (SM100_FIELDS written out); anything odd falls
            # through to the checks below, which name the problem.
            mode = _SM100_MODES.get(value >> 61)
            base, lbo_mode = (value >> 49) & 7, (value >> 52) & 1
            if ((value >> 46) & 7) == 1 and mode is not None and not (
                    lbo_mode and (mode is not SwizzleMode.B128 or base)):
                return tuple.__new__(cls, ((value & 0x3FFF) << 4, (value >> 12) & 0x3FFF0,
                                           (value >> 28) & 0x3FFF0, base, lbo_mode, mode, 1))
        f = cls._split(value, strict)
        if f["version"] != 1:
            raise DescriptorFieldError(
                f"value=0x{int(value):016x} has bits 46-48 = {f['version']:#05b}; a tcgen05 descriptor "
                f"needs 0b001 there (PTX 9.7.16.4.1). Is this an sm90 descriptor? Decode with arch='sm90'")
        mode = SwizzleMode.from_layout_type(f["layout_type"], "sm100")
        return cls(f["start_address"], f["leading_byte_offset"], f["stride_byte_offset"],
                   f["base_offset"], f["lbo_mode"], mode)


# Lookup tables derived once from SwizzleMode (the encodings themselves live only there).
_SM90_MODES = tuple(SwizzleMode.from_layout_type(c, "sm90") for c in range(4))
_SM90_CODE = {m: c for c, m in enumerate(_SM90_MODES)}
_SM100_CODE = {m: m.sm100_layout_type for m in SwizzleMode}
_SM100_MODES = {c: m for m, c in _SM100_CODE.items()}

# -- instruction descriptor ---------------------------------------------------------------------
KINDS = ("f16", "tf32", "f8f6f4", "i8")
_D_FORMATS = {"f16": 0, "f32": 1, "s32": 2}
_D_ALLOWED = {"f16": ("f16", "f32"), "tf32": ("f32",), "f8f6f4": ("f16", "f32"), "i8": ("s32",)}
_MAX_SHIFT = {0: 0, 8: 1, 16: 2, 32: 3}


def _kind_types(kind):
    return {d.format_code: d for d in DTYPES.values() if d.kind == kind and d.name != "f32"}


class InstrDescriptorSM100(InstrWord):
    """The 32-bit tcgen05 instruction descriptor for kind::f16, ::tf32, ::f8f6f4 and ::i8.

    Parameters
    ----------
    kind : {"f16", "tf32", "f8f6f4", "i8"}
    a_dtype, b_dtype : str
        Operand types of that kind (f16/bf16; tf32; e4m3/e5m2; s8/u8).
    d_dtype : {"f16", "f32", "s32"}
        Accumulator type.
    m, n : int
        MMA shape: M in {64, 128, 256}; N a multiple of 8 in 8..256 (of 16 when M = 256).
    a_major, b_major : {"K", "MN"}
    negate_a, negate_b, saturate, sparse : bool
    sparse_id2 : int
    max_shift : {0, 8, 16, 32}

    Examples
    --------
    >>> d = InstrDescriptorSM100("f16", "bf16", "bf16", "f32", 128, 256)
    >>> hex(d.value)
    '0x8400490'
    >>> InstrDescriptorSM100.unpack(0x08400490, kind="f16").a_dtype
    'bf16'
    """

    SPEC = INSTR_FIELDS
    __slots__ = ("kind", "a_dtype", "b_dtype", "d_dtype", "m", "n", "a_major", "b_major",
                 "negate_a", "negate_b", "saturate", "sparse", "sparse_id2", "max_shift")
    title = "tcgen05 instruction descriptor (sm100)"

    def __init__(self, kind, a_dtype, b_dtype, d_dtype, m, n, a_major="K", b_major="K",
                 negate_a=False, negate_b=False, saturate=False, sparse=False, sparse_id2=0,
                 max_shift=0):
        self.kind = _str_choice("kind", kind, KINDS)
        for name, dt in (("a_dtype", a_dtype), ("b_dtype", b_dtype)):
            t = _dtype(dt)
            if t.kind != kind or t.name == "f32":
                allowed = sorted(x.name for x in _kind_types(kind).values())
                raise DescriptorFieldError(f"{name}={t.name!r} is not a kind::{kind} operand type; use one of {allowed}")
            setattr(self, name, t.name)
        if kind in ("f16", "tf32") and self.a_dtype != self.b_dtype:
            raise DescriptorFieldError(
                f"a_dtype={self.a_dtype!r} and b_dtype={self.b_dtype!r} differ: kind::{kind} needs both "
                f"operands of one type (PTX 9.7.16.10)")
        if not isinstance(d_dtype, str):
            raise FastswzTypeError(f"d_dtype={d_dtype!r} must be a type name, not {type(d_dtype).__name__}")
        if d_dtype not in _D_ALLOWED[kind]:
            raise DescriptorFieldError(f"d_dtype={d_dtype!r} is not allowed for kind::{kind}; use one of {list(_D_ALLOWED[kind])}")
        self.d_dtype = d_dtype
        m, n = _int("m", m), _int("n", n)
        if m not in (64, 128, 256):
            raise DescriptorFieldError(f"m={m} is not a tcgen05 M: use 64 or 128 (cta_group::1) or 128/256 (cta_group::2)")
        step = 16 if m == 256 else 8
        if not (8 <= n <= 256 and n % step == 0) or (m == 256 and n < 16):
            raise DescriptorFieldError(f"n={n} is not a tcgen05 N for M={m}: N must be a multiple of {step} in {step}..256")
        self.m, self.n = m, n
        self.a_major, self.b_major = as_major("a_major", a_major), as_major("b_major", b_major)
        for name, major, t in (("a_major", self.a_major, self.a_dtype), ("b_major", self.b_major, self.b_dtype)):
            if major == "MN" and _dtype(t).bits < 8:
                raise DescriptorFieldError(
                    f"{name}='MN' with {t}: 4- and 6-bit operands are K-major only (PTX tcgen05 "
                    f"valid combinations of type size and major-ness); use {name}='K'")
        self.negate_a, self.negate_b = as_flag("negate_a", negate_a), as_flag("negate_b", negate_b)
        self.saturate, self.sparse = as_flag("saturate", saturate), as_flag("sparse", sparse)
        if kind == "i8" and (self.negate_a or self.negate_b):
            raise DescriptorFieldError("negate_a/negate_b are not supported for kind::i8 (PTX 9.7.16.4.2)")
        if kind != "i8" and self.saturate:
            raise DescriptorFieldError(f"saturate=True applies to kind::i8 only, not kind::{kind}")
        self.sparse_id2 = _small("sparse_id2", sparse_id2, 3)
        if self.sparse_id2 and not self.sparse:
            raise DescriptorFieldError(f"sparse_id2={self.sparse_id2} needs sparse=True")
        ms = _int("max_shift", max_shift)
        if ms not in _MAX_SHIFT:
            raise DescriptorFieldError(f"max_shift={ms} must be one of {list(_MAX_SHIFT)} (.ws B-reuse shift)")
        self.max_shift = ms

    def _raw(self):
        types = {d.name: d for d in DTYPES.values()}
        return {"sparse_id2": self.sparse_id2, "sparse": int(self.sparse), "saturate": int(self.saturate),
                "d_format": _D_FORMATS[self.d_dtype], "a_format": types[self.a_dtype].format_code,
                "b_format": types[self.b_dtype].format_code, "negate_a": int(self.negate_a),
                "negate_b": int(self.negate_b), "a_major": int(self.a_major == "MN"),
                "b_major": int(self.b_major == "MN"), "n": self.n >> 3, "m": self.m >> 4,
                "max_shift": _MAX_SHIFT[self.max_shift]}

    def table(self) -> str:
        raw = self._raw()
        rows = [f"{self.title} {_hexw(self.value, 32)} (kind::{self.kind})",
                TABLE_HEADER]
        meaning = {"d_format": self.d_dtype, "a_format": self.a_dtype, "b_format": self.b_dtype,
                   "a_major": self.a_major + "-major", "b_major": self.b_major + "-major",
                   "n": f"N = {self.n}", "m": f"M = {self.m}", "max_shift": f"shift {self.max_shift}"}
        return "\n".join(rows + table_rows(raw, INSTR_FIELDS, meaning))

    @classmethod
    def unpack(cls, value, kind=None, strict=True) -> "InstrDescriptorSM100":
        """Decode a 32-bit value (or a 64-bit runtime operand with the descriptor in the upper half).

        The kind is not stored in the descriptor: codes 0/1 mean f16/bf16 under kind::f16 and
        e4m3/e5m2 under kind::f8f6f4. ``kind=None`` infers it where the codes allow and raises
        when they are ambiguous.
        """
        v = _int("value", value)
        if v >= 1 << 32 and v & 0xFFFFFFFF == 0 and v < 1 << 64:
            v >>= 32
        if not 0 <= v < 1 << 32:
            raise DescriptorFieldError(f"value={v:#x} is not a 32-bit instruction descriptor")
        if strict and v & INSTR_RESERVED:
            raise DescriptorFieldError(
                f"value=0x{v:08x} sets reserved bits 0x{v & INSTR_RESERVED:08x} (6, 23, 29); "
                f"they must be 0 (block-scaled kinds use them; pass strict=False to ignore)")
        f = split_raw(v, INSTR_FIELDS)
        dnames = {c: n for n, c in _D_FORMATS.items()}
        if f["d_format"] not in dnames:
            raise DescriptorFieldError(f"value=0x{v:08x}: d_format code {f['d_format']} is undefined (F16 0, F32 1, S32 2)")
        if kind is None:
            kind = _infer_kind(v, f, dnames[f["d_format"]])
        else:
            _str_choice("kind", kind, KINDS)
        types = _kind_types(kind)
        for name in ("a_format", "b_format"):
            if f[name] not in types:
                raise DescriptorFieldError(
                    f"value=0x{v:08x}: {name} code {f[name]} is not a kind::{kind} type "
                    f"(codes {sorted(types)})")
        return cls(kind, types[f["a_format"]].name, types[f["b_format"]].name, dnames[f["d_format"]],
                   f["m"] << 4, f["n"] << 3, "MN" if f["a_major"] else "K", "MN" if f["b_major"] else "K",
                   f["negate_a"], f["negate_b"], f["saturate"], f["sparse"], f["sparse_id2"],
                   {c: s for s, c in _MAX_SHIFT.items()}[f["max_shift"]])


def _infer_kind(v, f, d):
    codes = {f["a_format"], f["b_format"]}
    if d == "s32":
        return "i8"
    if 2 in codes:
        return "tf32"
    if codes & {3, 4, 5}:
        return "f8f6f4"
    raise DescriptorFieldError(
        f"value=0x{v:08x} is ambiguous: A/B format codes {f['a_format']}/{f['b_format']} read as "
        f"f16/bf16 under kind::f16 or e4m3/e5m2 under kind::f8f6f4; pass kind='f16' or "
        f"kind='f8f6f4' (CLI: --kind)")


def decode(value, arch="sm90", kind=None, strict=True):
    """Decode a descriptor value.

    Parameters
    ----------
    value : int
    arch : {"sm90", "sm100", "sm103", "instr", "instr_bs"}
        wgmma matrix descriptor, tcgen05 shared-memory descriptor (sm100 and sm103 share it),
        tcgen05 instruction descriptor, or its block-scaled variant (``instr_bs``; also
        ``instr`` with a block-scaled ``kind``).
    kind : str, optional
        For the instruction descriptors: the MMA kind when the format codes are ambiguous
        (``f16``/``tf32``/``f8f6f4``/``i8``, or ``mxf8f6f4``/``mxf4``/``mxf4nvf4``).

    Examples
    --------
    >>> decode(0x4000004000010040).stride_byte_offset
    1024
    >>> decode(0x4000404000010040, "sm100").layout_type.value
    '128B'
    """
    _str_choice("arch", arch, ("sm90", "sm100", "sm103", "instr", "instr_bs"))
    if kind is not None and not isinstance(kind, str):
        raise FastswzTypeError(f"kind={kind!r} must be a kind name string, not {type(kind).__name__}")
    if arch == "sm90":
        return SmemDescriptorSM90.unpack(value, strict)
    if arch in ("sm100", "sm103"):
        return SmemDescriptorSM100.unpack(value, strict)
    if arch == "instr":
        if kind in BLOCK_SCALED_KINDS:
            return InstrDescriptorBlockScaled.unpack(value, kind, strict)
        return InstrDescriptorSM100.unpack(value, kind, strict)
    if arch == "instr_bs":
        return InstrDescriptorBlockScaled.unpack(value, kind, strict)
    raise DescriptorFieldError(
        f"arch={arch!r} is not one of ['sm90', 'sm100', 'sm103', 'instr', 'instr_bs']")
