"""The block-scaled tcgen05 instruction descriptor: kind::mxf8f6f4, kind::mxf4, kind::mxf4nvf4.

A block-scaled ``tcgen05.mma`` computes ``(A * scale_A) @ (B * scale_B) + D`` with the scale
factors in tensor memory. Its 32-bit instruction descriptor reuses the kind::f16 layout but gives
the D-format bits to the scale-factor B id, bit 23 to the scale type, bits 29-30 to the
scale-factor A id and bit 31 to the K size::

    bit  31 30 29 28..24 23 22....17 16 15 14 13 12..10 9..7 6 5 4 3 2 1 0
         k  [sfa] [ M>>4] sf [ N>>3 ] bM aM nB nA [bfmt][afmt] - [sfb] - s - -

Sources: PTX ISA 9.0 section 9.7.16.4.2, Tables 43 (kind::mxf8f6f4) and 44 (kind::mxf4,
kind::mxf4nvf4); section 9.7.16.10.7 (block scaling, Table 55 valid scale types, scale-factor
ids); Table 39 (shapes). CUTLASS ``cute/arch/mma_sm100_desc.hpp`` union
``InstrDescriptorBlockScaled`` and ``make_instr_desc_block_scaled``; the atoms
``SM100_MMA_MXF8F6F4_SS`` / ``SM100_MMA_MXF4_SS`` etc. in ``cute/arch/mma_sm100_umma.hpp``.

PTX writes M as ``M >> 7`` in bits 27-28 with bits 24-26 reserved; CUTLASS writes ``M >> 4`` in
bits 24-28. For the only block-scaled shapes, M = 128 and 256, both give the same bits. Field
names are CUTLASS's without the trailing underscore.
"""

from __future__ import annotations


from ._bits import TABLE_HEADER, InstrWord, reserved_mask, split_raw, table_rows
from .dtypes import DTYPES, DType, dtype as _dtype
from .errors import DescriptorFieldError, FastswzError, FastswzTypeError, as_flag, as_int, as_major

__all__ = ["InstrDescriptorBlockScaled", "BLOCK_SCALED_KINDS", "BLOCK_SCALED_FIELDS",
           "BLOCK_SCALED_RESERVED"]

BLOCK_SCALED_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")

# (name, lsb, width, lshift): the field holds value >> lshift in bits [lsb, lsb + width).
#: Block-scaled instruction descriptor, PTX 9.7.16.4.2 Tables 43/44; CUTLASS
#: cute/arch/mma_sm100_desc.hpp InstrDescriptorBlockScaled.
BLOCK_SCALED_FIELDS = (
    ("sparse", 2, 1, 0),         # bit 2: 0 dense, 1 sparse
    ("b_sf_id", 4, 2, 0),        # bits [4,6): scale-factor B sub-column
    ("a_format", 7, 3, 0),       # bits [7,10): mxf8f6f4 E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; mxf4* E2M1 1
    ("b_format", 10, 3, 0),      # bits [10,13): same codes (PTX: 2 bits + reserved bit 12 for mxf4*)
    ("negate_a", 13, 1, 0),
    ("negate_b", 14, 1, 0),
    ("a_major", 15, 1, 0),       # 0 K-major, 1 MN-major ("transpose")
    ("b_major", 16, 1, 0),
    ("n", 17, 6, 3),             # bits [17,23): N >> 3
    ("scale_format", 23, 1, 0),  # bit 23: UE4M3 0, UE8M0 1 (for both scale_A and scale_B)
    ("m", 24, 5, 4),             # bits [24,29): M >> 4 (PTX: M >> 7 in [27,29), [24,27) reserved)
    ("a_sf_id", 29, 2, 0),       # bits [29,31): scale-factor A sub-column
    ("k_size", 31, 1, 0),        # bit 31: mxf4*: 0 K=64 dense / 128 sparse, 1 K=96 dense (sm_103a)
)


#: Bits no kind uses: 0-1 (sparsity selector, "assumed to be 0" for block-scaled kinds), 3, 6.
BLOCK_SCALED_RESERVED = reserved_mask(BLOCK_SCALED_FIELDS, 32)

# Operand types. mxf8f6f4 reads the f8f6f4 types with their f8f6f4 codes (sub-byte ones unpacked
# in shared memory, CuTe float_e2m3_unpacksmem_t etc.); mxf4 and mxf4nvf4 read only E2M1 packed
# two per byte (CuTe float_e2m1_t), code 1 (CUTLASS MXF4Format::E2M1).
_MXF8F6F4_TYPES = {d.name: d.format_code for d in DTYPES.values() if d.kind == "f8f6f4"}
_MXF4_TYPES = {"e2m1x2": 1}
_TYPES = {"mxf8f6f4": _MXF8F6F4_TYPES, "mxf4": _MXF4_TYPES, "mxf4nvf4": _MXF4_TYPES}
_E2M1X2_NAMES = ("e2m1x2", "e2m1", "fp4", "float_e2m1", "float_e2m1_t", "float4_e2m1fn",
                 "float4_e2m1fn_x2", "e2m1_x2")

# Scale-factor types (bit 23) and which kinds take them: PTX 9.7.16.10.7.1 Table 55.
_SF_CODES = {"ue8m0": 1, "ue4m3": 0}
_SF_ALIASES = {"e8m0": "ue8m0", "float_ue8m0_t": "ue8m0", "float8_e8m0fnu": "ue8m0",
               "ue8m0_t": "ue8m0", "float_ue4m3_t": "ue4m3", "ue4m3_t": "ue4m3"}
_SF_ALLOWED = {"mxf8f6f4": ("ue8m0",), "mxf4": ("ue8m0",), "mxf4nvf4": ("ue8m0", "ue4m3")}
_SCALE_VEC = {"mxf8f6f4": "scale_vec::1X / block32", "mxf4": "scale_vec::2X / block32",
              "mxf4nvf4": "scale_vec::2X, scale_vec::4X / block16"}


def _int(name, value):
    return as_int(name, value)


def _kind(kind):
    if not isinstance(kind, str):
        raise FastswzTypeError(f"kind={kind!r} must be a kind name string, not {type(kind).__name__}")
    if kind not in BLOCK_SCALED_KINDS:
        raise DescriptorFieldError(
            f"kind={kind!r} is not a block-scaled tcgen05 kind; use one of {list(BLOCK_SCALED_KINDS)} "
            f"(kind::f16/tf32/f8f6f4/i8 use InstrDescriptorSM100)")
    return kind


def _operand(name, value, kind):
    if not isinstance(value, (str, DType)):
        raise FastswzTypeError(f"{name}={value!r} must be a type name string, not {type(value).__name__}")
    allowed = sorted(_TYPES[kind])
    if kind == "mxf8f6f4":
        try:
            t = _dtype(value)
        except FastswzError:
            t = None
        if t is not None and t.kind == "f8f6f4":
            return t.name
        hint = " (packed E2M1 is kind::mxf4 / kind::mxf4nvf4)" if str(value).lower() == "e2m1x2" else ""
        raise DescriptorFieldError(
            f"{name}={str(value)!r} is not a kind::mxf8f6f4 operand type{hint}; use one of {allowed} "
            f"(PTX 9.7.16.4.2 Table 43)")
    key = str(value).strip().lower()
    if key in _E2M1X2_NAMES:
        return "e2m1x2"
    raise DescriptorFieldError(
        f"{name}={str(value)!r} is not a kind::{kind} operand type: kind::{kind} reads only E2M1 packed "
        f"two per byte (format code 1, PTX 9.7.16.4.2 Table 44); use 'e2m1x2' (or 'e2m1'), or "
        f"kind='mxf8f6f4' for {str(value)!r}")


def _sf_dtype(value, kind):
    if not isinstance(value, str):
        raise FastswzTypeError(f"sf_dtype={value!r} must be a type name string, not {type(value).__name__}")
    key = value.strip().lower()
    key = _SF_ALIASES.get(key, key)
    if key not in _SF_CODES:
        raise DescriptorFieldError(
            f"sf_dtype={value!r} is not a scale-factor type; use 'ue8m0' (E8M0, power of two) or "
            f"'ue4m3' (unsigned E4M3, NVFP4)")
    if key not in _SF_ALLOWED[kind]:
        raise DescriptorFieldError(
            f"sf_dtype={key!r} is not allowed for kind::{kind}: it takes {list(_SF_ALLOWED[kind])} "
            f"only (PTX 9.7.16.10.7.1 Table 55); use sf_dtype='ue8m0', or kind='mxf4nvf4' for UE4M3 "
            f"scales")
    return key


class InstrDescriptorBlockScaled(InstrWord):
    """The 32-bit tcgen05 instruction descriptor for kind::mxf8f6f4, ::mxf4 and ::mxf4nvf4.

    Parameters
    ----------
    kind : {"mxf8f6f4", "mxf4", "mxf4nvf4"}
        The ``.kind`` of ``tcgen05.mma ... .block_scale``. It is not stored in the descriptor.
    a_dtype, b_dtype : str
        kind::mxf8f6f4: ``e4m3``, ``e5m2``, ``e2m3``, ``e3m2``, ``e2m1`` (any mix).
        kind::mxf4 / mxf4nvf4: ``e2m1x2`` (E2M1 packed two per byte; ``e2m1`` is accepted).
    d_dtype : {"f32"}
        Accumulator type. Block-scaled MMAs accumulate in F32 only; there is no D-format field.
    sf_dtype : {"ue8m0", "ue4m3"}
        Scale-factor type of both scale_A and scale_B (bit 23). ``ue4m3`` only for kind::mxf4nvf4.
    m : {128, 256}
        128 (cta_group::1 or ::2) or 256 (cta_group::2).
    n : int
        A multiple of 8 in 8..256 (of 16 in 16..256 when M = 256).
    a_major, b_major : {"K", "MN"}
        MN-major only for 8-bit operands (e4m3, e5m2) of kind::mxf8f6f4.
    negate_a, negate_b, sparse : bool
    a_sf_id, b_sf_id : int
        Scale-factor sub-column in tensor memory: 0..3 for kind::mxf8f6f4; 0 or 2 for the mxf4
        kinds (0..3 with K=96 and UE8M0 scales, block32); 0 with UE4M3 scales and K=64
        (scale_vec::4X). With kind::mxf4nvf4, UE8M0 scales and ``.block16`` the id must also be 0;
        the descriptor cannot tell, so that case is not checked.
    k_size : {0, 1}
        Bit 31, mxf4 kinds only: 0 = K 64 (dense) / 128 (sparse), 1 = K 96 (dense, sm_103a).

    Examples
    --------
    >>> d = InstrDescriptorBlockScaled("mxf8f6f4", "e4m3", "e4m3", "f32", "ue8m0", 128, 256)
    >>> hex(d.value)
    '0x8c00000'
    >>> d = InstrDescriptorBlockScaled.unpack(0x10200480)
    >>> d.kind, d.sf_dtype, d.m, d.n, d.k
    ('mxf4nvf4', 'ue4m3', 256, 128, 64)
    """

    SPEC = BLOCK_SCALED_FIELDS
    __slots__ = ("kind", "a_dtype", "b_dtype", "d_dtype", "sf_dtype", "m", "n", "a_major", "b_major",
                 "negate_a", "negate_b", "a_sf_id", "b_sf_id", "k_size", "sparse")
    title = "tcgen05 block-scaled instruction descriptor (sm100)"

    def __init__(self, kind, a_dtype, b_dtype, d_dtype, sf_dtype, m, n, a_major="K", b_major="K",
                 negate_a=False, negate_b=False, a_sf_id=0, b_sf_id=0, k_size=0, sparse=False):
        self.kind = _kind(kind)
        self.a_dtype = _operand("a_dtype", a_dtype, kind)
        self.b_dtype = _operand("b_dtype", b_dtype, kind)
        if not isinstance(d_dtype, str):
            raise FastswzTypeError(f"d_dtype={d_dtype!r} must be a type name, not {type(d_dtype).__name__}")
        if d_dtype != "f32":
            raise DescriptorFieldError(
                f"d_dtype={d_dtype!r} is not allowed for kind::{kind}: block-scaled MMAs accumulate in "
                f"F32 only and the descriptor has no D-format field (bits 4-5 hold b_sf_id; PTX Table 39); "
                f"use d_dtype='f32'")
        self.d_dtype = "f32"
        self.sf_dtype = _sf_dtype(sf_dtype, kind)
        m, n = _int("m", m), _int("n", n)
        if m not in (128, 256):
            raise DescriptorFieldError(
                f"m={m} is not a block-scaled tcgen05 M: kind::{kind} takes M = 128 (cta_group::1 or ::2) "
                f"or 256 (cta_group::2) only (PTX Table 39; Tables 43/44 encode M >> 7); use 128 or 256")
        step = 16 if m == 256 else 8
        if not (step <= n <= 256 and n % step == 0):
            raise DescriptorFieldError(
                f"n={n} is not a tcgen05 N for M={m}: N must be a multiple of {step} in {step}..256 "
                f"(PTX Table 39)")
        self.m, self.n = m, n
        self.a_major, self.b_major = as_major("a_major", a_major), as_major("b_major", b_major)
        for name, major, t in (("a_major", self.a_major, self.a_dtype), ("b_major", self.b_major, self.b_dtype)):
            if major != "MN":
                continue
            if kind != "mxf8f6f4":
                raise DescriptorFieldError(
                    f"{name}='MN' is not allowed for kind::{kind}: its transpose bits 15-16 must be 0 "
                    f"(packed E2M1 is K-major only, PTX Table 44); use {name}='K'")
            if DTYPES[t].bits < 8:
                raise DescriptorFieldError(
                    f"{name}='MN' with {t}: 4- and 6-bit operands are K-major only (PTX tcgen05 valid "
                    f"combinations of type size and major-ness; CUTLASS InstrDescriptor); use {name}='K'")
        self.negate_a, self.negate_b = as_flag("negate_a", negate_a), as_flag("negate_b", negate_b)
        self.sparse = as_flag("sparse", sparse)
        k_size = _int("k_size", k_size)
        if k_size not in (0, 1):
            raise DescriptorFieldError(
                f"k_size={k_size} is out of range: the 1-bit field holds 0 (K=64) or 1 (K=96); use 0 or 1")
        if k_size and kind == "mxf8f6f4":
            raise DescriptorFieldError(
                "k_size=1 is not allowed for kind::mxf8f6f4: bit 31 is reserved there (K is always 32 "
                "dense, 64 sparse; PTX Table 43); use k_size=0")
        if k_size and self.sparse:
            raise DescriptorFieldError(
                f"k_size=1 (K=96) has no sparse form for kind::{kind} (sparse K is 128; PTX Table 44); "
                f"use k_size=0 or sparse=False")
        self.k_size = k_size
        for name in ("a_sf_id", "b_sf_id"):
            setattr(self, name, self._sf_id(name, a_sf_id if name == "a_sf_id" else b_sf_id))

    def _sf_id(self, name, value):
        v = _int(name, value)
        if not 0 <= v <= 3:
            raise DescriptorFieldError(f"{name}={v} is out of range: the 2-bit field holds 0..3; use 0..3")
        if self.kind == "mxf8f6f4":
            return v                      # scale_vec::1X: byte offset 0..3 (PTX 9.7.16.10.7.2.1)
        if self.sf_dtype == "ue4m3" and not self.k_size:
            allowed, rule = (0,), "UE4M3 scales mean scale_vec::4X / block16, which fills the whole word"
        elif self.sf_dtype == "ue8m0" and self.k_size:
            return v                      # block32 with K=96: byte offset 0..3 (PTX 9.7.16.10.7.2.4)
        else:
            allowed, rule = (0, 2), "the id is a half-word offset (PTX Table 44)"
        if v not in allowed:
            fix = " or ".join(str(a) for a in allowed)
            raise DescriptorFieldError(
                f"{name}={v} is not allowed for kind::{self.kind} with sf_dtype={self.sf_dtype!r} and "
                f"K={self.k}: {rule}; use {name}={fix} (PTX 9.7.16.10.7.2)")
        return v

    # -- derived values ---------------------------------------------------------------------------
    @property
    def scale_format(self) -> int:
        """Bit 23: 1 for UE8M0 scale factors, 0 for UE4M3."""
        return _SF_CODES[self.sf_dtype]

    @property
    def k(self) -> int:
        """Elements of K one MMA reads: mxf8f6f4 32 (64 sparse); mxf4 kinds 64 or 96 (128 sparse)."""
        if self.kind == "mxf8f6f4":
            return 64 if self.sparse else 32
        return 128 if self.sparse else (96 if self.k_size else 64)

    def _raw(self):
        types = _TYPES[self.kind]
        return {"sparse": int(self.sparse), "b_sf_id": self.b_sf_id, "a_format": types[self.a_dtype],
                "b_format": types[self.b_dtype], "negate_a": int(self.negate_a),
                "negate_b": int(self.negate_b), "a_major": int(self.a_major == "MN"),
                "b_major": int(self.b_major == "MN"), "n": self.n >> 3, "scale_format": self.scale_format,
                "m": self.m >> 4, "a_sf_id": self.a_sf_id, "k_size": self.k_size}


    def table(self) -> str:
        """A field table: bits, field, raw field value, meaning."""
        raw = self._raw()
        sf = self.sf_dtype.upper()
        meaning = {
            "sparse": "sparse" if self.sparse else "dense",
            "b_sf_id": f"scale_B sub-column {self.b_sf_id}", "a_format": self.a_dtype,
            "b_format": self.b_dtype, "a_major": self.a_major + "-major", "b_major": self.b_major + "-major",
            "n": f"N = {self.n}", "scale_format": f"{sf} scale_A and scale_B", "m": f"M = {self.m}",
            "a_sf_id": f"scale_A sub-column {self.a_sf_id}",
            "k_size": f"K = {self.k}" + (" (bit reserved)" if self.kind == "mxf8f6f4" else ""),
        }
        rows = [f"{self.title} {self} (kind::{self.kind}, D f32)",
                TABLE_HEADER]
        return "\n".join(rows + table_rows(raw, BLOCK_SCALED_FIELDS, meaning))

    @classmethod
    def unpack(cls, value, kind=None, strict=True) -> "InstrDescriptorBlockScaled":
        """Decode a 32-bit value (or a 64-bit runtime operand with the descriptor in the upper half).

        The kind is not stored in the descriptor. ``kind=None`` infers it where the bits allow:
        UE4M3 scales mean kind::mxf4nvf4; format codes other than 1 mean kind::mxf8f6f4; an
        MN-major operand means kind::mxf8f6f4. Codes 1/1 with UE8M0 scales read as e5m2 under
        kind::mxf8f6f4 or packed E2M1 under kind::mxf4 / mxf4nvf4 and raise; pass ``kind``.
        ``strict`` rejects set reserved bits (0-1, 3, 6).

        Examples
        --------
        >>> InstrDescriptorBlockScaled.unpack(0x08820000).a_dtype
        'e4m3'
        >>> InstrDescriptorBlockScaled.unpack(0x08820480, kind="mxf4").a_dtype
        'e2m1x2'
        """
        v = _int("value", value)
        if v >= 1 << 32 and v & 0xFFFFFFFF == 0 and v < 1 << 64:
            v >>= 32
        if not 0 <= v < 1 << 32:
            raise DescriptorFieldError(
                f"value={v:#x} is not a 32-bit instruction descriptor: use 0 <= value < 2**32, or a "
                f"64-bit runtime operand with the descriptor in the upper half")
        if strict and v & BLOCK_SCALED_RESERVED:
            raise DescriptorFieldError(
                f"value=0x{v:08x} sets reserved bits 0x{v & BLOCK_SCALED_RESERVED:08x} (0-1, 3, 6) of the "
                f"block-scaled descriptor; they must be 0 (pass strict=False to ignore them)")
        f = split_raw(v, BLOCK_SCALED_FIELDS)
        kind = _infer_kind(v, f) if kind is None else _kind(kind)
        names = {code: name for name, code in _TYPES[kind].items()}
        for field in ("a_format", "b_format"):
            if f[field] not in names:
                raise DescriptorFieldError(
                    f"value=0x{v:08x}: {field} code {f[field]} is not a kind::{kind} type "
                    f"(codes {dict(sorted(names.items()))}); use a value with one of those codes or "
                    f"another kind")
        return cls(kind, names[f["a_format"]], names[f["b_format"]], "f32",
                   "ue8m0" if f["scale_format"] else "ue4m3", f["m"] << 4, f["n"] << 3,
                   "MN" if f["a_major"] else "K", "MN" if f["b_major"] else "K",
                   f["negate_a"], f["negate_b"], f["a_sf_id"], f["b_sf_id"], f["k_size"], f["sparse"])


def _infer_kind(v, f):
    if not f["scale_format"]:
        return "mxf4nvf4"               # UE4M3 scales: kind::mxf4nvf4 only (Table 55)
    codes = {f["a_format"], f["b_format"]}
    if codes != {1} or f["a_major"] or f["b_major"]:
        if f["k_size"]:
            raise DescriptorFieldError(
                f"value=0x{v:08x} sets k_size (bit 31, K=96 of the mxf4 kinds) but its A/B format codes "
                f"{f['a_format']}/{f['b_format']} or major bits are not a kind::mxf4 operand (E2M1 = 1, "
                f"K-major); pass kind= to see which field is wrong")
        return "mxf8f6f4"
    if f["k_size"]:
        choice, why = "kind='mxf4' or kind='mxf4nvf4'", "kind::mxf4 or kind::mxf4nvf4 (UE8M0, K=96)"
    else:
        choice = "kind='mxf8f6f4', kind='mxf4' or kind='mxf4nvf4'"
        why = "e5m2 under kind::mxf8f6f4 or packed E2M1 under kind::mxf4 / kind::mxf4nvf4"
    raise DescriptorFieldError(
        f"value=0x{v:08x} is ambiguous: A/B format codes 1/1 with UE8M0 scales read as {why}; "
        f"pass {choice} (CLI: --kind)")
