"""fastswz against golden vectors from host-compiled CUTLASS/CuTe (tools/golden/).

The JSON files are CuTe's own output (tile_to_shape of the GMMA/UMMA atoms, the addresses its
swizzled smem pointer dereferences, make_gmma_desc / make_umma_desc of each MMA sub-tensor, and
UMMA::make_instr_desc). One set per CUTLASS version: ``golden_cute_{tiles,instr}.json`` from the
nvidia-cutlass 4.2 wheel, ``golden_cute_{tiles,instr}_<version>.json`` from newer GitHub snapshots
(``generate.py --cutlass DIR``). Every test runs on every set; ids start with the version.
Regenerate with ``python tools/golden/generate.py``; these tests only read.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import InstrDescriptorSM100, OperandTile, TileError

DATA = Path(__file__).parent / "data"


def _sets(kind):
    """{CUTLASS version: parsed golden file} for every golden_cute_<kind>*.json."""
    out = {}
    for path in sorted(DATA.glob(f"golden_cute_{kind}*.json")):
        data = json.loads(path.read_text())
        out[data["meta"]["cutlass_version"]] = data
    return out


TILE_SETS = _sets("tiles")
INSTR_SETS = _sets("instr")
TILES = TILE_SETS["4.2.0"]
INSTR = INSTR_SETS["4.2.0"]


def _params(sets, key, ident):
    return [pytest.param(c, id=f"{v}-{ident(c)}") for v, data in sets.items() for c in data[key]]


def _case_id(c):
    return (f"{c['arch']}-{c['dtype']}-{c['major']}-{c['swizzle']}-{c['order']}-"
            f"{c['mn']}x{c['k']}-@{c['start']:#x}-i{c['inst_mn']}")


def _checksum(addr):
    i = np.arange(1, addr.size + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return int(np.sum(addr.ravel().astype(np.uint64) * i, dtype=np.uint64))


@pytest.mark.parametrize("version", sorted(TILE_SETS))
def test_golden_files_are_substantial(version):
    assert len(TILE_SETS[version]["cases"]) >= 1000
    assert len(INSTR_SETS[version]["instr"]) >= 1000
    assert TILE_SETS[version]["meta"] == INSTR_SETS[version]["meta"]


def test_two_cutlass_versions_are_checked():
    assert sorted(TILE_SETS) == sorted(INSTR_SETS) and len(TILE_SETS) >= 2, sorted(TILE_SETS)
    newest = max(TILE_SETS, key=lambda v: tuple(map(int, v.split("."))))
    assert len(TILE_SETS[newest]["meta"]["cutlass_commit"]) == 40


def test_versions_give_the_same_vectors():
    """Every CUTLASS version so far gives 4.2's vectors exactly (docs/CUTE_COMPARISON.md section 7
    lists what changed in the headers instead); a newer set that differs must be documented there."""
    for version in TILE_SETS:
        for key in ("cases", "subbyte"):
            assert TILE_SETS[version][key] == TILES[key], (version, key)
        for key in ("instr", "block_scaled"):
            assert INSTR_SETS[version][key] == INSTR[key], (version, key)


@pytest.mark.parametrize("case", _params(TILE_SETS, "cases", _case_id))
def test_tile_matches_cute(case):
    args = (case["dtype"], case["major"], case["swizzle"], case["mn"], case["k"], case["order"],
            case["arch"])
    if not case["ptx_legal"]:
        # CuTe builds it, but the PTX ISA forbids it for this architecture (e.g. MN-major tf32 or
        # 8-bit operands on wgmma): fastswz must refuse rather than emit a descriptor.
        with pytest.raises(TileError):
            OperandTile(*args)
        return
    tile = OperandTile(*args)
    assert str(tile.swizzle.swizzle) == case["cute_swizzle"]
    assert str(tile.layout.inner) == case["cute_layout"]
    addr = tile.addresses(case["start"])
    assert addr.ravel()[:64].tolist() == case["addr_head"]
    assert _checksum(addr) == int(case["addr_checksum"], 16)
    want = np.array([[int(h, 16) for h in row] for row in case["descriptors"]], dtype=np.uint64)
    got = tile.descriptors(case["start"], case["inst_mn"])
    np.testing.assert_array_equal(got, want)
    # the scalar path agrees with the bulk path on the first sub-tile
    assert int(tile.descriptor(0, 0, case["start"], case["inst_mn"])) == int(want[0, 0])


def _instr_id(c):
    return (f"{c['kind']}-{c['a_dtype']}x{c['b_dtype']}-{c['d_dtype']}-m{c['m']}n{c['n']}-"
            f"{c['a_major']}{c['b_major']}-neg{c['negate_a']}{c['negate_b']}-sat{c.get('saturate', 0)}")


@pytest.mark.parametrize("case", _params(INSTR_SETS, "instr", _instr_id))
def test_instr_descriptor_matches_cute(case):
    args = (case["kind"], case["a_dtype"], case["b_dtype"], case["d_dtype"],
            case["m"], case["n"], case["a_major"], case["b_major"],
            bool(case["negate_a"]), bool(case["negate_b"]), bool(case.get("saturate", 0)))
    if case["m"] == 256 and case["n"] % 16:
        # UMMA::make_instr_desc packs it, but PTX (tcgen05 shapes, cta_group::2) has no
        # M=256 MMA with N % 16 != 0: fastswz refuses the shape instead of packing it.
        with pytest.raises(fastswz.DescriptorFieldError, match="multiple of 16"):
            InstrDescriptorSM100(*args)
        return
    d = InstrDescriptorSM100(*args)
    assert d.value == int(case["value"], 16)
    back = fastswz.decode(d.value, "instr", kind=case["kind"])
    assert back == d


def _subbyte_id(c):
    return _case_id(c).replace("e2m1", c["dtype"])


@pytest.mark.parametrize("case", _params(TILE_SETS, "subbyte", _subbyte_id))
def test_packed_e2m1_tile_matches_cute(case):
    if case["dtype"] == "e2m1_unpacksmem":
        # CuTe 4.2 gives float_e2m1_unpacksmem_t 4-bit layouts (sizeof_bits 4); fastswz stores the
        # kind::f8f6f4 unpacked form one element per byte, as CUTLASS's sm100 collective allocates
        # it (SmemAllocTypeA = uint8_t). A deliberate difference: docs/CUTE_COMPARISON.md section 6.
        pytest.skip("unpacked sub-byte storage differs from CuTe's 4-bit model by design")
    args = ("e2m1", case["major"], case["swizzle"], case["mn"], case["k"], case["order"], case["arch"])
    if not case["ptx_legal"]:
        with pytest.raises(TileError, match="K-major only"):
            OperandTile(*args, packed=True)
        return
    tile = OperandTile(*args, packed=True)
    assert str(tile.swizzle.swizzle) == case["cute_swizzle"]
    assert str(tile.layout.inner) == case["cute_layout"]
    # CuTe reports bit addresses; fastswz the byte, with the element in the low nibble for even k
    byte = tile.addresses(case["start"]).astype(np.uint64)
    k = np.arange(tile.k, dtype=np.uint64)[None, :]
    bit = byte * 8 + (k & 1) * 4
    assert bit.ravel()[:64].tolist() == case["addr_head"]
    assert _checksum(bit) == int(case["addr_checksum"], 16)
    want = np.array([[int(h, 16) for h in row] for row in case["descriptors"]], dtype=np.uint64)
    np.testing.assert_array_equal(tile.descriptors(case["start"], case["inst_mn"]), want)


# CuTe's printed slice_and_offset of the GMMA K-major SW128 half_t tile (64 x 64), host-compiled from
# both header sets (docs/CUTE_COMPARISON.md section 7): CUTLASS 4.7 added an overload for
# Swizzle o smem_ptr_flag layouts that keeps the swizzle and absorbs the row offset (what fastswz
# does); 4.2 folded the swizzle into a linear layout plus an offset (NOTES 8.13).
CUTE_47_SLICES = [
    ((3, None), "Sw<3,4,3> o 192 o ((64,1)):((1,0))", 0),
    ((8, None), "Sw<3,4,3> o 512 o ((64,1)):((1,0))", 0),
    ((None, 0), "Sw<3,4,3> o 0 o ((8,8)):((64,512))", 0),
]


@pytest.mark.parametrize("coord,layout,offset", CUTE_47_SLICES)
def test_swizzled_slice_matches_cute_47(coord, layout, offset):
    tile = fastswz.parse("Sw<3,4,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))")
    sliced, off = fastswz.slice_and_offset(coord, tile)
    assert (str(sliced), off) == (layout, offset)
