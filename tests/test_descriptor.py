"""Scalar descriptor classes: pack/unpack round trips, field tables and every validation rule."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastswz
from fastswz import (DescriptorFieldError, FastswzTypeError, InstrDescriptorSM100,
                     SmemDescriptorSM90, SmemDescriptorSM100, SwizzleMode, decode)

addr = st.integers(0, (1 << 14) - 1).map(lambda v: v << 4)


@settings(max_examples=300, deadline=None)
@given(addr, addr, addr, st.integers(0, 7), st.sampled_from(["none", "32B", "64B", "128B"]))
def test_sm90_round_trip(a, l, s, b, mode):
    d = SmemDescriptorSM90(a, l, s, b, mode)
    v = d.value
    assert 0 <= v < 1 << 64
    assert SmemDescriptorSM90.unpack(v) == d
    # each field lands where PTX 9.7.15.5.1.2.2 puts it
    assert v & 0x3FFF == a >> 4 and (v >> 16) & 0x3FFF == l >> 4 and (v >> 32) & 0x3FFF == s >> 4
    assert (v >> 49) & 7 == b and v >> 62 == SwizzleMode.parse(mode).sm90_layout_type
    assert v & fastswz.descriptor.SM90_RESERVED == 0


@settings(max_examples=300, deadline=None)
@given(addr, addr, addr, st.integers(0, 7), st.sampled_from(list(SwizzleMode)))
def test_sm100_round_trip(a, l, s, b, mode):
    d = SmemDescriptorSM100(a, l, s, b, 0, mode)
    v = d.value
    assert (v >> 46) & 7 == 1 and (v >> 61) == mode.sm100_layout_type
    assert SmemDescriptorSM100.unpack(v) == d
    assert decode(v, "sm100") == d


def test_sm100_is_sm90_plus_bit46_for_16B_atomicity():
    for mode in ("none", "32B", "64B", "128B"):
        a = SmemDescriptorSM90(0x1230, 0x40, 0x400, 0, mode).value
        b = SmemDescriptorSM100(0x1230, 0x40, 0x400, 0, 0, mode).value
        assert b == a | (1 << 46)


@pytest.mark.parametrize("kwargs, match", [
    (dict(start_address=0x408), r"start_address=0x408 is not a multiple of 16"),
    (dict(start_address=1 << 18), r"start_address=0x40000 does not fit the 14-bit field"),
    (dict(leading_byte_offset=-16), r"leading_byte_offset=-0x10 does not fit"),
    (dict(stride_byte_offset=0x48000), r"stride_byte_offset=0x48000 does not fit the 14-bit field \(16-byte units, max 0x3fff0\)"),
    (dict(base_offset=8), r"base_offset=8 is out of range"),
    (dict(layout_type="128B_base32B"), r"128B_base32B does not exist on sm90"),
    (dict(layout_type="96B"), r"layout_type='96B' is not a swizzle mode"),
])
def test_sm90_field_errors(kwargs, match):
    with pytest.raises(DescriptorFieldError, match=match):
        SmemDescriptorSM90(**kwargs)


def test_type_errors():
    with pytest.raises(FastswzTypeError, match="start_address=1.5 must be an int"):
        SmemDescriptorSM90(start_address=1.5)
    with pytest.raises(FastswzTypeError, match="must be a SwizzleMode"):
        SmemDescriptorSM90(layout_type=3)
    assert issubclass(FastswzTypeError, TypeError) and issubclass(DescriptorFieldError, ValueError)


def test_sm100_rules():
    with pytest.raises(DescriptorFieldError, match="version=2"):
        SmemDescriptorSM100(version=2)
    with pytest.raises(DescriptorFieldError, match="lbo_mode=1 requires layout_type=128B"):
        SmemDescriptorSM100(0, 0x800, 0, 0, 1, "64B")
    with pytest.raises(DescriptorFieldError, match="lbo_mode=1 requires base_offset=0"):
        SmemDescriptorSM100(0, 0x800, 0, 3, 1, "128B")
    d = SmemDescriptorSM100(0x400, 0x880, 1024, 0, 1, "128B")
    assert (d.value >> 52) & 1 == 1 and "absolute address" in d.table()


def test_unpack_rejections():
    with pytest.raises(DescriptorFieldError, match="reserved bits 0x0000000000004000"):
        SmemDescriptorSM90.unpack(0x4000004000014040)
    assert SmemDescriptorSM90.unpack(0x4000004000014040, strict=False).start_address == 0x400
    with pytest.raises(DescriptorFieldError, match="bits 46-48 = 0b000.*arch='sm90'"):
        SmemDescriptorSM100.unpack(0x4000004000010040)
    with pytest.raises(DescriptorFieldError, match="layout_type=3 is not a valid 3-bit sm100"):
        SmemDescriptorSM100.unpack((3 << 61) | (1 << 46))
    with pytest.raises(DescriptorFieldError, match="not a 64-bit descriptor"):
        SmemDescriptorSM90.unpack(1 << 64)
    with pytest.raises(DescriptorFieldError, match="arch='sm89'"):
        decode(0, "sm89")


def test_replace_and_repr():
    d = SmemDescriptorSM90(0x400, 16, 1024, 0, "128B")
    e = d.replace(start_address=0x420)
    assert e.value == d.value + 2
    assert eval(repr(d), {"SmemDescriptorSM90": SmemDescriptorSM90}) == d
    assert str(d) == "0x4000004000010040" and int(d) == d.value and hash(d) == hash(decode(d.value))
    with pytest.raises(FastswzTypeError, match="unknown SmemDescriptorSM90 field"):
        d.replace(swizzle="128B")


def test_table_lists_every_field():
    t = decode(0x4000004000010040).table().splitlines()
    assert t[0].endswith("0x4000004000010040")
    assert [row.split()[1] for row in t[2:]] == [f[0] for f in fastswz.descriptor.SM90_FIELDS]


# -- instruction descriptor --------------------------------------------------------------------------
KIND_TYPES = {"f16": ["f16", "bf16"], "tf32": ["tf32"], "f8f6f4": ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1"],
              "i8": ["s8", "u8"]}
KIND_D = {"f16": ["f16", "f32"], "tf32": ["f32"], "f8f6f4": ["f16", "f32"], "i8": ["s32"]}


@st.composite
def instr(draw):
    kind = draw(st.sampled_from(sorted(KIND_TYPES)))
    a = draw(st.sampled_from(KIND_TYPES[kind]))
    b = a if kind in ("f16", "tf32") else draw(st.sampled_from(KIND_TYPES[kind]))
    m = draw(st.sampled_from([64, 128, 256]))
    n = draw(st.integers(1 if m != 256 else 1, 32 if m != 256 else 16)) * (8 if m != 256 else 16)
    am = "K" if fastswz.dtype(a).bits < 8 else draw(st.sampled_from(["K", "MN"]))
    bm = "K" if fastswz.dtype(b).bits < 8 else draw(st.sampled_from(["K", "MN"]))
    neg = kind != "i8"
    sparse = draw(st.booleans())
    return InstrDescriptorSM100(kind, a, b, draw(st.sampled_from(KIND_D[kind])), m, n, am, bm,
                                neg and draw(st.booleans()), neg and draw(st.booleans()),
                                kind == "i8" and draw(st.booleans()), sparse,
                                draw(st.integers(0, 3)) if sparse else 0,
                                draw(st.sampled_from([0, 8, 16, 32])))


@settings(max_examples=400, deadline=None)
@given(instr())
def test_instr_round_trip(d):
    v = d.value
    assert 0 <= v < 1 << 32 and v & fastswz.descriptor.INSTR_RESERVED == 0
    assert InstrDescriptorSM100.unpack(v, kind=d.kind) == d
    assert InstrDescriptorSM100.unpack(d.runtime_operand, kind=d.kind) == d
    assert (v >> 17) & 0x3F == d.n >> 3 and (v >> 24) & 0x1F == d.m >> 4


@pytest.mark.parametrize("args, match", [
    (("f32", "f16", "f16", "f32", 128, 64), r"kind='f32' is not one of"),
    (("f16", "e4m3", "e4m3", "f32", 128, 64), r"a_dtype='e4m3' is not a kind::f16 operand type"),
    (("f16", "f16", "bf16", "f32", 128, 64), r"a_dtype='f16' and b_dtype='bf16' differ"),
    (("tf32", "tf32", "tf32", "f16", 128, 64), r"d_dtype='f16' is not allowed for kind::tf32"),
    (("f16", "f16", "f16", "f32", 96, 64), r"m=96 is not a tcgen05 M"),
    (("f16", "f16", "f16", "f32", 128, 12), r"n=12 is not a tcgen05 N for M=128"),
    (("f16", "f16", "f16", "f32", 256, 24), r"n=24 is not a tcgen05 N for M=256: N must be a multiple of 16"),
    (("f8f6f4", "e2m1", "e4m3", "f32", 128, 64, "MN"), r"a_major='MN' with e2m1: 4- and 6-bit operands are K-major only"),
    (("i8", "s8", "s8", "s32", 128, 64, "K", "K", True), r"negate_a/negate_b are not supported for kind::i8"),
    (("f16", "f16", "f16", "f32", 128, 64, "K", "K", False, False, True), r"saturate=True applies to kind::i8 only"),
    (("f16", "f16", "f16", "f32", 128, 64, "K", "K", False, False, False, False, 2), r"sparse_id2=2 needs sparse=True"),
    (("f16", "f16", "f16", "f32", 128, 64, "K", "K", False, False, False, False, 0, 4), r"max_shift=4 must be one of"),
    (("f16", "f16", "f16", "f32", 128, 64, "k"), r"a_major='k' must be 'K' or 'MN'"),
])
def test_instr_errors(args, match):
    with pytest.raises(DescriptorFieldError, match=match):
        InstrDescriptorSM100(*args)


def test_instr_unpack_errors_and_inference():
    with pytest.raises(DescriptorFieldError, match="ambiguous.*kind='f16' or kind='f8f6f4'"):
        decode(0x08400490, "instr")
    assert decode(0x08400490, "instr", kind="f8f6f4").a_dtype == "e5m2"
    i8 = InstrDescriptorSM100("i8", "s8", "u8", "s32", 128, 64, saturate=True)
    assert decode(i8.value, "instr").kind == "i8"
    tf = InstrDescriptorSM100("tf32", "tf32", "tf32", "f32", 64, 8)
    assert decode(tf.value, "instr").kind == "tf32"
    with pytest.raises(DescriptorFieldError, match="reserved bits 0x00800000"):
        decode(tf.value | (1 << 23), "instr")
    with pytest.raises(DescriptorFieldError, match="d_format code 3 is undefined"):
        decode(tf.value | (3 << 4), "instr", kind="tf32")
    with pytest.raises(DescriptorFieldError, match="a_format code 2 is not a kind::f16 type"):
        decode(tf.value, "instr", kind="f16")
    with pytest.raises(DescriptorFieldError, match="not a 32-bit instruction descriptor"):
        decode((1 << 40) | 1, "instr")
