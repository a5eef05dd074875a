"""Block-scaled tcgen05 instruction descriptors (kind::mxf8f6f4, ::mxf4, ::mxf4nvf4).

Golden vectors are UMMA::make_instr_desc_block_scaled from host-compiled CUTLASS/CuTe 4.2
(tests/data/golden_cute_instr.json, key "block_scaled"); the rest are hand-derived examples,
round trips and every validation rule.
"""

import doctest
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastswz.blockscaled
from fastswz.blockscaled import (BLOCK_SCALED_FIELDS, BLOCK_SCALED_KINDS, BLOCK_SCALED_RESERVED,
                                 InstrDescriptorBlockScaled as BS)
from fastswz.errors import DescriptorFieldError, FastswzTypeError

GOLDEN_FILE = Path(__file__).parent / "data" / "golden_cute_instr.json"
# A missing file fails test_golden_count (not a silent skip) and leaves the other tests running.
GOLDEN = json.loads(GOLDEN_FILE.read_text())["block_scaled"] if GOLDEN_FILE.exists() else []
ARGS = ("kind", "a_dtype", "b_dtype", "d_dtype", "sf_dtype", "m", "n", "a_major", "b_major",
        "negate_a", "negate_b", "a_sf_id", "b_sf_id", "k_size")


def _gid(c):
    return (f"{c['kind']}-{c['a_dtype']}x{c['b_dtype']}-{c['sf_dtype']}-{c['m']}x{c['n']}-"
            f"{c['a_major']}{c['b_major']}-n{c['negate_a']}{c['negate_b']}")


# -- golden vectors -------------------------------------------------------------------------------
def test_golden_count():
    assert GOLDEN_FILE.exists(), f"{GOLDEN_FILE} is missing (regenerate: python tools/golden/generate.py)"
    assert len(GOLDEN) == 410
    assert {c["kind"] for c in GOLDEN} == set(BLOCK_SCALED_KINDS)


@pytest.mark.parametrize("case", GOLDEN, ids=_gid)
def test_matches_cute(case):
    kwargs = {k: case[k] for k in ARGS}
    value = int(case["value"], 16)
    if case["m"] == 256 and case["n"] % 16:
        # make_instr_desc_block_scaled packs it, but PTX Table 39 has no M=256 (cta_group::2)
        # block-scaled MMA with N % 16 != 0 (CUTLASS's 2x1SM atoms static_assert N % 16 too):
        # fastswz refuses the shape. Decoding CuTe's value reads back exactly that shape.
        with pytest.raises(DescriptorFieldError, match=r"n=\d+ is not a tcgen05 N for M=256: N must be a multiple of 16"):
            BS(**kwargs)
        with pytest.raises(DescriptorFieldError, match=rf"n={case['n']} is not a tcgen05 N for M=256"):
            BS.unpack(value, kind=case["kind"])
        return
    d = BS(**kwargs)
    assert d.value == value
    # the scale-factor bitfields CuTe's union reads back
    assert (d.scale_format, d.a_sf_id, d.b_sf_id, d.k_size) == (
        case["scale_format"], case["a_sf_id"], case["b_sf_id"], case["k_size"])
    back = BS.unpack(value, kind=case["kind"])
    assert back == d
    assert back.fields() == {**kwargs, "negate_a": bool(case["negate_a"]),
                             "negate_b": bool(case["negate_b"]), "sparse": False}
    assert BS.unpack(value << 32, kind=case["kind"]) == d          # 64-bit runtime operand
    try:
        inferred = BS.unpack(value)
    except DescriptorFieldError as exc:
        assert "ambiguous" in str(exc) and d.a_dtype in ("e5m2", "e2m1x2")
    else:
        assert inferred == d


def test_golden_refusals_are_only_the_m256_odd_n_shapes():
    refused = [c for c in GOLDEN if c["m"] == 256 and c["n"] % 16]
    assert len(refused) == 41 and {c["n"] for c in refused} == {8}


# -- hand-derived examples from the bit table (PTX 9.7.16.4.2 Tables 43/44) -------------------------
def test_hand_derived_mxf4nvf4():
    # kind::mxf4nvf4, E2M1 x E2M1 (code 1), UE4M3 scales, M=256, N=128, K-major, no negation:
    #   a_format  1      << 7  = 0x0000_0080
    #   b_format  1      << 10 = 0x0000_0400
    #   n         128>>3 = 16 << 17 = 0x0020_0000
    #   scale_fmt UE4M3 = 0 << 23 = 0
    #   m         256>>4 = 16 << 24 = 0x1000_0000   (PTX: M>>7 = 2 << 27, the same bit 28)
    #   total                      = 0x1020_0480
    d = BS("mxf4nvf4", "e2m1", "e2m1", "f32", "ue4m3", 256, 128)
    assert d.value == 0x10200480
    assert BS.unpack(0x10200480) == d            # UE4M3 scales: only kind::mxf4nvf4 takes them
    assert d.k == 64 and d.scale_format == 0


def test_hand_derived_mxf4_k96_with_scale_ids():
    # kind::mxf4, UE8M0, M=128, N=256, negate A, SFA id 2, SFB id 2, K=96 (k_size 1):
    #   b_sf_id   2 << 4  = 0x0000_0020      a_format 1 << 7  = 0x0000_0080
    #   b_format  1 << 10 = 0x0000_0400      negate_a 1 << 13 = 0x0000_2000
    #   n  256>>3 = 32 << 17 = 0x0040_0000   scale_fmt UE8M0 1 << 23 = 0x0080_0000
    #   m  128>>4 =  8 << 24 = 0x0800_0000   a_sf_id  2 << 29 = 0x4000_0000
    #   k_size    1 << 31 = 0x8000_0000
    #   total = 0xC8C0_24A0
    d = BS("mxf4", "e2m1x2", "e2m1x2", "f32", "ue8m0", 128, 256, negate_a=True, a_sf_id=2,
           b_sf_id=2, k_size=1)
    assert d.value == 0xC8C024A0
    assert d.k == 96
    assert BS.unpack(0xC8C024A0, kind="mxf4") == d
    with pytest.raises(DescriptorFieldError, match="ambiguous.*kind='mxf4' or kind='mxf4nvf4'"):
        BS.unpack(0xC8C024A0)


def test_hand_derived_mxf8f6f4():
    # kind::mxf8f6f4, A e2m3 (code 3), B e4m3 (code 0), UE8M0, M=128, N=64, sparse, SFA id 3, SFB id 1:
    #   sparse 1 << 2 = 0x04; b_sf_id 1 << 4 = 0x10; a_format 3 << 7 = 0x180; b_format 0
    #   n 64>>3 = 8 << 17 = 0x0010_0000; scale 1 << 23 = 0x0080_0000; m 8 << 24 = 0x0800_0000
    #   a_sf_id 3 << 29 = 0x6000_0000  ->  0x6890_0194
    d = BS("mxf8f6f4", "e2m3", "e4m3", "f32", "ue8m0", 128, 64, a_sf_id=3, b_sf_id=1, sparse=True)
    assert d.value == 0x68900194
    assert d.k == 64
    assert BS.unpack(0x68900194) == d


# -- round trips ----------------------------------------------------------------------------------
F8 = ("e4m3", "e5m2")
F8F6F4 = ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")


@st.composite
def descriptors(draw):
    kind = draw(st.sampled_from(BLOCK_SCALED_KINDS))
    m = draw(st.sampled_from([128, 256]))
    step = 16 if m == 256 else 8
    n = draw(st.integers(1, 256 // step)) * step
    sparse = draw(st.booleans())
    if kind == "mxf8f6f4":
        a, b, sf, k_size = draw(st.sampled_from(F8F6F4)), draw(st.sampled_from(F8F6F4)), "ue8m0", 0
        am = draw(st.sampled_from(["K", "MN"])) if a in F8 else "K"
        bm = draw(st.sampled_from(["K", "MN"])) if b in F8 else "K"
        ids = [0, 1, 2, 3]
    else:
        a = b = "e2m1x2"
        am = bm = "K"
        sf = "ue8m0" if kind == "mxf4" else draw(st.sampled_from(["ue8m0", "ue4m3"]))
        k_size = 0 if sparse else draw(st.integers(0, 1))
        ids = [0] if (sf == "ue4m3" and not k_size) else [0, 1, 2, 3] if (sf == "ue8m0" and k_size) else [0, 2]
    return BS(kind, a, b, "f32", sf, m, n, am, bm, draw(st.booleans()), draw(st.booleans()),
              draw(st.sampled_from(ids)), draw(st.sampled_from(ids)), k_size, sparse)


@settings(max_examples=500, deadline=None)
@given(descriptors())
def test_round_trip(d):
    v = d.value
    assert 0 <= v < 1 << 32 and v & BLOCK_SCALED_RESERVED == 0
    assert BS.unpack(v, kind=d.kind) == d
    assert BS.unpack(d.runtime_operand, kind=d.kind) == d
    assert d.replace() == d and hash(d.replace()) == hash(d)
    assert eval(repr(d), {"InstrDescriptorBlockScaled": BS}) == d
    try:
        inferred = BS.unpack(v)
    except DescriptorFieldError as exc:
        assert "ambiguous" in str(exc)
    else:
        assert inferred == d


@settings(max_examples=300, deadline=None)
@given(descriptors())
def test_fields_land_where_the_tables_put_them(d):
    v = d.value
    assert (v >> 2) & 1 == d.sparse
    assert (v >> 4) & 3 == d.b_sf_id and (v >> 29) & 3 == d.a_sf_id
    assert (v >> 13) & 1 == d.negate_a and (v >> 14) & 1 == d.negate_b
    assert (v >> 15) & 1 == (d.a_major == "MN") and (v >> 16) & 1 == (d.b_major == "MN")
    assert ((v >> 17) & 0x3F) << 3 == d.n
    assert (v >> 23) & 1 == (d.sf_dtype == "ue8m0")
    assert (v >> 24) & 7 == 0 and ((v >> 27) & 3) << 7 == d.m     # PTX: M >> 7 in bits 27-28
    assert v >> 31 == d.k_size
    if d.kind != "mxf8f6f4":
        assert (v >> 7) & 7 == 1 and (v >> 10) & 7 == 1           # E2M1 = 1, bit 12 reserved


# Random words, and valid descriptors with one bit flipped: the mutants sit on the boundary of
# what the rules accept, so about half of them decode.
mutants = st.tuples(descriptors(), st.integers(0, 31)).map(lambda t: t[0].value ^ (1 << t[1]))
words = st.one_of(st.integers(0, (1 << 32) - 1), mutants)


@settings(max_examples=1000, deadline=None)
@given(words, st.sampled_from((None,) + BLOCK_SCALED_KINDS))
def test_unpack_accepts_exactly_what_packs_back(v, kind):
    try:
        d = BS.unpack(v, kind=kind)
    except DescriptorFieldError:
        return
    assert d.value == v


def test_unpack_lenient_ignores_reserved_bits():
    v = 0x08820000
    with pytest.raises(DescriptorFieldError, match=r"value=0x0882004b sets reserved bits 0x0000004b \(0-1, 3, 6\).*strict=False"):
        BS.unpack(v | 0x4B)
    assert BS.unpack(v | 0x4B, strict=False) == BS.unpack(v)


# -- kind inference -------------------------------------------------------------------------------
@pytest.mark.parametrize("value, kind", [
    (0x10200480, "mxf4nvf4"),    # UE4M3 scales
    (0x08820180, "mxf8f6f4"),    # A code 3 (e2m3)
    (0x08820400, "mxf8f6f4"),    # codes 0/1: e4m3 x e5m2
    (0x08828480, "mxf8f6f4"),    # codes 1/1 but A MN-major: only 8-bit mxf8f6f4 operands transpose
])
def test_infer_kind(value, kind):
    assert BS.unpack(value).kind == kind


def test_infer_kind_ambiguous():
    with pytest.raises(DescriptorFieldError,
                       match=r"value=0x08820480 is ambiguous.*e5m2 under kind::mxf8f6f4 or packed E2M1.*"
                             r"pass kind='mxf8f6f4', kind='mxf4' or kind='mxf4nvf4'"):
        BS.unpack(0x08820480)
    assert BS.unpack(0x08820480, kind="mxf8f6f4").a_dtype == "e5m2"
    assert BS.unpack(0x08820480, kind="mxf4nvf4").a_dtype == "e2m1x2"


def test_infer_kind_k96_with_mxf8f6f4_codes():
    with pytest.raises(DescriptorFieldError, match=r"sets k_size \(bit 31, K=96.*pass kind="):
        BS.unpack(0x88820000)
    with pytest.raises(DescriptorFieldError, match="k_size=1 is not allowed for kind::mxf8f6f4"):
        BS.unpack(0x88820000, kind="mxf8f6f4")


# -- validation -----------------------------------------------------------------------------------
BASE = dict(kind="mxf8f6f4", a_dtype="e4m3", b_dtype="e4m3", d_dtype="f32", sf_dtype="ue8m0", m=128, n=64)
MXF4 = dict(BASE, kind="mxf4", a_dtype="e2m1x2", b_dtype="e2m1x2")
NVF4 = dict(MXF4, kind="mxf4nvf4", sf_dtype="ue4m3")


@pytest.mark.parametrize("kwargs, match", [
    (dict(BASE, kind="f8f6f4"), r"kind='f8f6f4' is not a block-scaled tcgen05 kind; use one of \['mxf8f6f4', 'mxf4', 'mxf4nvf4'\]"),
    (dict(BASE, a_dtype="bf16"), r"a_dtype='bf16' is not a kind::mxf8f6f4 operand type; use one of \['e2m1', 'e2m3', 'e3m2', 'e4m3', 'e5m2'\]"),
    (dict(BASE, b_dtype="nope"), r"b_dtype='nope' is not a kind::mxf8f6f4 operand type; use one of"),
    (dict(BASE, a_dtype="e2m1x2"), r"a_dtype='e2m1x2' is not a kind::mxf8f6f4 operand type \(packed E2M1 is kind::mxf4"),
    (dict(MXF4, b_dtype="e4m3"), r"b_dtype='e4m3' is not a kind::mxf4 operand type: kind::mxf4 reads only E2M1 packed.*use 'e2m1x2'.*kind='mxf8f6f4'"),
    (dict(BASE, d_dtype="f16"), r"d_dtype='f16' is not allowed for kind::mxf8f6f4: block-scaled MMAs accumulate in F32 only.*use d_dtype='f32'"),
    (dict(BASE, sf_dtype="e4m3"), r"sf_dtype='e4m3' is not a scale-factor type; use 'ue8m0'.*or 'ue4m3'"),
    (dict(BASE, sf_dtype="ue4m3"), r"sf_dtype='ue4m3' is not allowed for kind::mxf8f6f4: it takes \['ue8m0'\] only \(PTX 9.7.16.10.7.1 Table 55\); use sf_dtype='ue8m0', or kind='mxf4nvf4'"),
    (dict(MXF4, sf_dtype="ue4m3"), r"sf_dtype='ue4m3' is not allowed for kind::mxf4: it takes \['ue8m0'\] only"),
    (dict(BASE, m=64), r"m=64 is not a block-scaled tcgen05 M: kind::mxf8f6f4 takes M = 128 .* or 256 .*; use 128 or 256"),
    (dict(NVF4, m=192), r"m=192 is not a block-scaled tcgen05 M"),
    (dict(BASE, n=0), r"n=0 is not a tcgen05 N for M=128: N must be a multiple of 8 in 8..256"),
    (dict(BASE, n=12), r"n=12 is not a tcgen05 N for M=128: N must be a multiple of 8"),
    (dict(BASE, n=264), r"n=264 is not a tcgen05 N for M=128"),
    (dict(BASE, m=256, n=24), r"n=24 is not a tcgen05 N for M=256: N must be a multiple of 16 in 16..256"),
    (dict(BASE, a_major="T"), r"a_major='T' must be 'K' or 'MN'"),
    (dict(BASE, b_major="k"), r"b_major='k' must be 'K' or 'MN'"),
    (dict(BASE, a_dtype="e2m1", a_major="MN"), r"a_major='MN' with e2m1: 4- and 6-bit operands are K-major only.*use a_major='K'"),
    (dict(BASE, b_dtype="e3m2", b_major="MN"), r"b_major='MN' with e3m2: 4- and 6-bit operands are K-major only.*use b_major='K'"),
    (dict(MXF4, a_major="MN"), r"a_major='MN' is not allowed for kind::mxf4: its transpose bits 15-16 must be 0.*use a_major='K'"),
    (dict(NVF4, b_major="MN"), r"b_major='MN' is not allowed for kind::mxf4nvf4"),
    (dict(MXF4, k_size=2), r"k_size=2 is out of range: the 1-bit field holds 0 \(K=64\) or 1 \(K=96\); use 0 or 1"),
    (dict(BASE, k_size=1), r"k_size=1 is not allowed for kind::mxf8f6f4: bit 31 is reserved there.*use k_size=0"),
    (dict(MXF4, k_size=1, sparse=True), r"k_size=1 \(K=96\) has no sparse form for kind::mxf4.*use k_size=0 or sparse=False"),
    (dict(BASE, a_sf_id=4), r"a_sf_id=4 is out of range: the 2-bit field holds 0..3; use 0..3"),
    (dict(BASE, b_sf_id=-1), r"b_sf_id=-1 is out of range"),
    (dict(MXF4, a_sf_id=1), r"a_sf_id=1 is not allowed for kind::mxf4 with sf_dtype='ue8m0' and K=64: the id is a half-word offset \(PTX Table 44\); use a_sf_id=0 or 2"),
    (dict(MXF4, b_sf_id=3, sparse=True), r"b_sf_id=3 is not allowed for kind::mxf4 with sf_dtype='ue8m0' and K=128"),
    (dict(NVF4, b_sf_id=2), r"b_sf_id=2 is not allowed for kind::mxf4nvf4 with sf_dtype='ue4m3' and K=64: UE4M3 scales mean scale_vec::4X.*; use b_sf_id=0"),
    (dict(NVF4, k_size=1, a_sf_id=1), r"a_sf_id=1 is not allowed for kind::mxf4nvf4 with sf_dtype='ue4m3' and K=96.*use a_sf_id=0 or 2"),
])
def test_field_errors(kwargs, match):
    with pytest.raises(DescriptorFieldError, match=match) as exc:
        BS(**kwargs)
    msg = str(exc.value)
    # every message names the field and value, states the rule, and says what to do
    assert "=" in msg.split(" ")[0] and ("use " in msg or "must be" in msg)


@pytest.mark.parametrize("kwargs", [
    dict(BASE, a_sf_id=3, b_sf_id=1),                           # scale_vec::1X: byte offsets 0..3
    dict(MXF4, k_size=1, a_sf_id=3, b_sf_id=1),                  # block32 K=96: byte offsets 0..3
    dict(NVF4, sf_dtype="ue8m0", a_sf_id=2, b_sf_id=2),          # mxf4nvf4 with UE8M0, 2X
    dict(NVF4, k_size=1, a_sf_id=2, b_sf_id=2),                  # block16 K=96: 0 or 2
    dict(BASE, a_dtype="e5m2", b_dtype="e4m3", a_major="MN", b_major="MN", negate_a=True),
    dict(MXF4, a_dtype="e2m1", b_dtype="float4_e2m1fn_x2", m=256, n=256, negate_b=True),
])
def test_allowed_edges(kwargs):
    d = BS(**kwargs)
    assert BS.unpack(d.value, kind=d.kind) == d


def test_aliases():
    d = BS("mxf8f6f4", "float_e4m3_t", "fp8_e5m2", "f32", "float_ue8m0_t", 128, 8)
    assert (d.a_dtype, d.b_dtype, d.sf_dtype) == ("e4m3", "e5m2", "ue8m0")
    assert BS("mxf4", "e2m1", "fp4", "f32", "e8m0", 128, 8).a_dtype == "e2m1x2"


@pytest.mark.parametrize("kwargs, match", [
    (dict(BASE, m="128"), r"m='128' must be an int, not str"),
    (dict(BASE, n=64.0), r"n=64.0 must be an int, not float"),
    (dict(BASE, a_dtype=5), r"a_dtype=5 must be a type name string, not int"),
    (dict(BASE, sf_dtype=None), r"sf_dtype=None must be a type name string"),
    (dict(MXF4, k_size=True), r"k_size=True must be an int, not bool"),
    (dict(BASE, a_sf_id=1.0), r"a_sf_id=1.0 must be an int"),
])
def test_type_errors(kwargs, match):
    with pytest.raises(FastswzTypeError, match=match):
        BS(**kwargs)


@pytest.mark.parametrize("value, kind, exc, match", [
    (1 << 33 | 1, None, DescriptorFieldError, r"value=0x200000001 is not a 32-bit instruction descriptor: use 0 <= value < 2\*\*32"),
    (-1, None, DescriptorFieldError, r"value=-0x1 is not a 32-bit"),
    (0x08820000, "f16", DescriptorFieldError, r"kind='f16' is not a block-scaled tcgen05 kind.*InstrDescriptorSM100"),
    (0x08820100, "mxf8f6f4", DescriptorFieldError, r"value=0x08820100: a_format code 2 is not a kind::mxf8f6f4 type \(codes \{0: 'e4m3', 1: 'e5m2', 3: 'e2m3', 4: 'e3m2', 5: 'e2m1'\}\); use"),
    (0x08820000, "mxf4", DescriptorFieldError, r"a_format code 0 is not a kind::mxf4 type \(codes \{1: 'e2m1x2'\}\)"),
    (0x04820000, "mxf8f6f4", DescriptorFieldError, r"m=64 is not a block-scaled tcgen05 M"),
    (0x0882_0000 | 3 << 7 | 1 << 15, "mxf8f6f4", DescriptorFieldError, r"a_major='MN' with e2m3"),
    ("0x08820000", None, FastswzTypeError, r"value='0x08820000' must be an int"),
])
def test_unpack_errors(value, kind, exc, match):
    with pytest.raises(exc, match=match):
        BS.unpack(value, kind=kind)


# -- object protocol, table, docs -------------------------------------------------------------------
def test_table():
    d = BS("mxf4nvf4", "e2m1x2", "e2m1x2", "f32", "ue4m3", 256, 128)
    t = d.table()
    assert t.splitlines()[0] == ("tcgen05 block-scaled instruction descriptor (sm100) 0x10200480 "
                                 "(kind::mxf4nvf4, D f32)")
    assert "24-28   m                         16  M = 256" in t
    assert "23-23   scale_format               0  UE4M3 scale_A and scale_B" in t
    assert "31-31   k_size                     0  K = 64" in t
    assert [r.split()[1] for r in t.splitlines()[2:]] == [f[0] for f in BLOCK_SCALED_FIELDS]
    assert "(bit reserved)" in BS(**BASE).table()


def test_object_protocol():
    d = BS(**BASE)
    assert str(d) == "0x08900000" and int(d) == d.value == 0x08900000
    assert d.runtime_operand == 0x08900000 << 32
    assert d != BS(**dict(BASE, kind="mxf8f6f4", negate_a=True)) and d != d.value
    assert len({d, BS(**BASE)}) == 1
    # same bits, different kind: different descriptors
    a, b = BS.unpack(0x08820480, kind="mxf4"), BS.unpack(0x08820480, kind="mxf4nvf4")
    assert a.value == b.value and a != b
    assert d.replace(n=128).n == 128
    with pytest.raises(FastswzTypeError, match=r"unknown InstrDescriptorBlockScaled field\(s\) \['saturate'\]"):
        d.replace(saturate=True)
    with pytest.raises(DescriptorFieldError, match="n=4 is not a tcgen05 N"):
        d.replace(n=4)


def test_reserved_mask():
    assert BLOCK_SCALED_RESERVED == 0b0100_1011      # bits 0-1, 3, 6


def test_doctests():
    result = doctest.testmod(fastswz.blockscaled, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 4
