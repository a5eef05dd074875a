"""Drawings and terminal tables (fastswz.draw, fastswz draw / show) against the address map.

Every SVG is parsed with xml.etree and EVERY cell is checked: its position against its byte
address (physical view) or its (mn, k) (logical view), its label against the other, and both
against ``OperandTile.addresses`` / ``coords``; layout drawings against ``layout(m, n)``. The
terminal table is compared with the output of CuTe's own ``print_layout`` (tests/data). A few
drawings are rendered with headless Chromium where it is installed.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest

import fastswz
from fastswz import Layout, OperandTile, parse
from fastswz.cli import main
from fastswz.draw import draw_layout, draw_tile, show_layout, show_tile

ROOT = Path(__file__).resolve().parents[1]
NS = "{http://www.w3.org/2000/svg}"

TILES = [
    ("bf16", "K", "128B", 16, 64, {}),
    ("bf16", "K", "none", 16, 32, {}),
    ("bf16", "MN", "64B", 64, 16, {}),
    ("bf16", "MN", "32B", 32, 32, {"order": "k"}),
    ("tf32", "K", "32B", 16, 16, {}),
    ("e4m3", "K", "64B", 24, 128, {}),
    ("tf32", "MN", "128B_base32B", 64, 8, {"arch": "sm100"}),
    ("e2m1", "K", "128B", 16, 128, {"arch": "sm100"}),
    ("e2m1", "K", "128B", 8, 256, {"arch": "sm100", "packed": True}),
]
STARTS = [(0, "absolute"), (0x410, "absolute"), (0x880, "relative")]


def _tile(spec):
    dtype, major, sw, mn, k, kw = spec
    return OperandTile(dtype, major, sw, mn, k, **kw)


def _cells(svg):
    root = ET.fromstring(svg)
    return root, root.findall(f".//{NS}g[@class='cell']")


def _geometry(root):
    return (float(root.get("data-x0")), float(root.get("data-y0")),
            float(root.get("data-cell-w")), float(root.get("data-cell-h")))


def _xy(cell):
    r = cell.find(f"{NS}rect")
    return float(r.get("x")), float(r.get("y"))


def _label(cell):
    return cell.find(f"{NS}text").text


def _ids(spec):
    dtype, major, sw, mn, k, kw = spec
    return f"{dtype}-{major}-{sw}-{mn}x{k}" + "".join(f"-{v}" for v in kw.values())


# -- the physical view -----------------------------------------------------------------------------
@pytest.mark.parametrize("start,base", STARTS, ids=lambda x: str(x))
@pytest.mark.parametrize("unit", ["chunk", "element"])
@pytest.mark.parametrize("spec", TILES, ids=_ids)
def test_physical_cells_sit_at_their_address(spec, unit, start, base):
    tile = _tile(spec)
    addr = tile.addresses(start, base).astype(np.int64)
    root, cells = _cells(draw_tile(tile, "physical", start, base, unit))
    x0, y0, cw, ch = _geometry(root)
    bits = tile.element_bits
    seen = set()
    for c in cells:
        mn, k, a = int(c.get("data-mn")), int(c.get("data-k")), int(c.get("data-addr"))
        assert a == addr[mn, k]                                    # the cell is that element
        assert int(c.get("data-off")) == tile.offset(mn, k)        # CuTe's unswizzled offset
        assert _label(c) == f"{mn},{k}"                            # labelled by logical (mn, k)
        x, y = _xy(c)
        assert y == y0 + (a // 128 - start // 128) * ch            # row: address // 128
        if unit == "chunk":
            assert a % 16 == 0 and x == x0 + (a % 128) // 16 * cw  # column: address % 128
        else:
            nib = k & 1 if bits == 4 else 0
            assert x == x0 + ((a % 128) * 8 + nib * 4) // bits * cw
        seen.add((mn, k))
    if unit == "element":
        assert seen == {(m, k) for m in range(tile.mn) for k in range(tile.k)}
    else:
        # one cell per 16-byte chunk of the tile, each named by the element at its first byte
        # (the low nibble for packed 4-bit), as the inverse map says
        firsts = np.array(sorted(int(c.get("data-addr")) for c in cells))
        lo = start
        assert np.array_equal(firsts, np.arange(lo, lo + tile.nbytes, 16))
        mn, k = tile.coords(firsts, start, base)
        by_addr = {int(c.get("data-addr")): (int(c.get("data-mn")), int(c.get("data-k"))) for c in cells}
        for a, m, kk in zip(firsts.tolist(), mn.tolist(), k.tolist()):
            if bits == 4:
                kk &= ~1  # coords gives one of the two elements of the byte
            assert by_addr[a] == (m, kk)


@pytest.mark.parametrize("unit", ["chunk", "element"])
@pytest.mark.parametrize("spec", TILES, ids=_ids)
def test_logical_cells_sit_at_their_coordinate(spec, unit):
    tile = _tile(spec)
    start, base = 0x400, "absolute"
    addr = tile.addresses(start, base).astype(np.int64)
    root, cells = _cells(draw_tile(tile, "logical", start, base, unit))
    x0, y0, cw, ch = _geometry(root)
    per_chunk = 128 // tile.element_bits
    fr = per_chunk if unit == "chunk" and tile.major == "MN" else 1
    fc = per_chunk if unit == "chunk" and tile.major == "K" else 1
    places = set()
    for c in cells:
        mn, k, a = int(c.get("data-mn")), int(c.get("data-k")), int(c.get("data-addr"))
        assert a == addr[mn, k]
        x, y = _xy(c)
        assert (x, y) == (x0 + k // fc * cw, y0 + mn // fr * ch)  # placed by (mn, k)
        assert _label(c).split(".")[0] == f"0x{a:x}"               # labelled by address
        places.add((mn // fr, k // fc))
    assert len(places) == len(cells) == (tile.mn // fr) * (tile.k // fc)  # no overlap, no hole


@pytest.mark.parametrize("spec", TILES, ids=_ids)
def test_strides_point_from_offset_zero_to_lbo_and_sbo(spec):
    tile = _tile(spec)
    for view in ("physical", "logical"):
        root, cells = _cells(draw_tile(tile, view))
        by_id = {c.get("id"): c for c in cells}
        drawn = {}
        for g in root.iter(f"{NS}g"):
            cls = (g.get("class") or "").split()
            if "stride" in cls:
                src, dst = by_id[f"cell-{g.get('data-from')}"], by_id[f"cell-{g.get('data-to')}"]
                assert int(src.get("data-off")) == 0
                assert int(dst.get("data-off")) == int(g.get("data-bytes"))
                drawn[cls[1]] = int(g.get("data-bytes"))
        expect = {}
        if not (tile.major == "K" and tile.swizzle.is_swizzled) and tile.lbo_bytes:
            expect["lbo"] = tile.lbo_bytes     # K-major swizzled LBO is unused: not drawn
        if tile.sbo_bytes:
            expect["sbo"] = tile.sbo_bytes
        assert drawn == expect


def test_atoms_and_core_matrices_are_outlined():
    tile = OperandTile("bf16", "K", "64B", 16, 64)  # atom 8 x 32 = 512 B; 4 atoms
    root, _ = _cells(draw_tile(tile, "physical"))
    x0, y0, cw, ch = _geometry(root)
    atoms = root.find(f".//{NS}g[@id='atoms']").findall(f"{NS}rect")
    # each atom: 4 whole 128-byte rows, stacked
    assert [(float(r.get("y")), float(r.get("height"))) for r in atoms] == [
        (y0 + 4 * i * ch, 4 * ch) for i in range(4)]
    root, _ = _cells(draw_tile(tile, "logical"))
    cores = root.find(f".//{NS}g[@id='cores']").findall(f"{NS}rect")
    assert sorted((int(r.get("data-mn")), int(r.get("data-k"))) for r in cores) == [
        (m, k) for m in (0, 8) for k in range(0, 64, 8)]
    x0, y0, cw, ch = _geometry(root)
    assert {(float(r.get("width")), float(r.get("height"))) for r in cores} == {(cw, 8 * ch)}


def test_physical_colours_show_the_swizzle():
    # 128B: row r's chunk c holds logical chunk c ^ (r % 8); the fill is the logical chunk
    tile = OperandTile("bf16", "K", "128B", 8, 64)
    root, cells = _cells(draw_tile(tile, "physical"))
    fills = {}
    for c in cells:
        logical = int(c.get("data-k")) // 8
        fills.setdefault(logical, set()).add(c.find(f"{NS}rect").get("fill"))
        slot, row = int(c.get("data-slot")), int(c.get("data-row"))
        assert slot == logical ^ (row % 8)
    assert all(len(v) == 1 for v in fills.values()) and len({f for v in fills.values() for f in v}) == 8


def test_tile_drawings_are_deterministic_and_valid():
    tile = OperandTile("bf16", "MN", "128B", 128, 16)
    a = draw_tile(tile, "physical", 0x400, unit="element")
    assert a == draw_tile(tile, "physical", 0x400, unit="element")
    root = ET.fromstring(a)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    assert root.tag == f"{NS}svg" and float(root.get("width")) > 0


def test_size_limits():
    tile = OperandTile("bf16", "K", "128B", 256, 128)
    with pytest.raises(fastswz.TileError, match="more than max_cells=16384"):
        draw_tile(tile, unit="element")
    assert draw_tile(tile, unit="chunk")  # 4096 chunks
    with pytest.raises(fastswz.TileError, match="max_cells=100"):
        draw_tile(tile, max_cells=100)
    with pytest.raises(fastswz.LayoutError, match="more than max_cells=4096"):
        show_layout(Layout((128, 64)))
    with pytest.raises(fastswz.TileError, match="more than max_cells=4096"):
        show_tile(tile, unit="element")


# -- any layout ------------------------------------------------------------------------------------
LAYOUTS = ["(4,2):(2,1)", "Sw<1,0,1> o 0 o (4,2):(2,1)", "Sw<3,4,3> o (8,64):(64,1)",
           "((2,4),(3,2)):((1,12),(2,24))", "16:3", "Sw<2,1,3> o 5 o ((4,2),8):((1,64),4)",
           "(4,6):(6,1) o 2 o (3,4):(4,1)"]


@pytest.mark.parametrize("text", LAYOUTS)
def test_layout_cells_are_layout_values(text):
    L = parse(text)
    root, cells = _cells(draw_layout(L))
    x0, y0, cw, ch = _geometry(root)
    rows = L.size() if len(L) == 1 else Layout(L.shape[0]).size()
    cols = 1 if len(L) == 1 else Layout(L.shape[1]).size()
    assert len(cells) == rows * cols
    seen = set()
    for c in cells:
        m, n, v = int(c.get("data-m")), int(c.get("data-n")), int(c.get("data-value"))
        expect = L(m) if len(L) == 1 else L(m, n)
        assert v == expect and _label(c) == str(expect)
        assert _xy(c) == (x0 + n * cw, y0 + m * ch)
        seen.add((m, n))
    assert len(seen) == rows * cols


def test_layout_drawing_refuses_rank_3_and_non_layouts():
    with pytest.raises(fastswz.LayoutError, match="rank 3"):
        draw_layout(Layout((2, 2, 2)))
    with pytest.raises(fastswz.FastswzTypeError, match="must be a Layout or ComposedLayout"):
        draw_layout("(4,2):(2,1)")


# -- terminal tables -------------------------------------------------------------------------------
def test_show_layout_is_cute_print_layout():
    # tests/data/print_layout_cute.txt is CuTe's print_layout output (print_layout_cute.cu)
    expected = (ROOT / "tests" / "data" / "print_layout_cute.txt").read_text()
    ours = "".join(show_layout(parse(t)) + "\n" for t in [
        "(4,2):(2,1)", "Sw<1,0,1> o 0 o (4,2):(2,1)", "Sw<3,4,3> o 0 o (8,4):(64,1)",
        "((2,2),3):((1,6),2)"])
    assert ours == expected


def test_show_layout_hand_checked():
    # Sw<1,0,1>: bit 0 ^= bit 1, so odd rows (value bit 1 set) swap their two columns
    assert show_layout(parse("Sw<1,0,1> o 0 o (4,2):(2,1)")).splitlines()[3:10:2] == [
        " 0  | 0 | 1 |", " 1  | 3 | 2 |", " 2  | 4 | 5 |", " 3  | 7 | 6 |"]


def _table_cells(text):
    rows = [ln for ln in text.splitlines() if "|" in ln]
    return [(ln.split("|")[0].strip(), [c.strip() for c in ln.split("|")[1:-1]]) for ln in rows]


@pytest.mark.parametrize("spec", TILES[:6], ids=_ids)
def test_show_tile_tables_match_the_map(spec):
    tile = _tile(spec)
    start = 0x100
    addr = tile.addresses(start).astype(np.int64)
    for name, row in _table_cells(show_tile(tile, "physical", start)):
        line = int(name, 16)
        for slot, label in enumerate(row):
            mn, k = map(int, label.split(","))
            assert addr[mn, k] == line + 16 * slot
    header = show_tile(tile, "logical", start).splitlines()[1].split()
    t = 128 // tile.element_bits
    for name, row in _table_cells(show_tile(tile, "logical", start)):
        for col, label in zip(header, row):
            assert int(label, 16) == addr[int(name), int(col)]


# -- CLI -------------------------------------------------------------------------------------------
TILE_ARGV = ["--dtype", "bf16", "--major", "MN", "--swizzle", "64B", "--mn", "64", "--k", "16",
             "--start", "0x400"]


def test_cli_draw_writes_what_the_api_draws(tmp_path, capsys):
    out = tmp_path / "t.svg"
    assert main(["draw", *TILE_ARGV, "--view", "logical", "--unit", "element", "-o", str(out)]) == 0
    tile = OperandTile("bf16", "MN", "64B", 64, 16)
    assert out.read_text() == draw_tile(tile, "logical", 0x400, unit="element")
    assert capsys.readouterr().out.startswith(f"wrote {out}")
    assert main(["draw", "--layout", "Sw<3,4,3> o (8,64):(64,1)", "-o", str(out)]) == 0
    assert out.read_text() == draw_layout(parse("Sw<3,4,3> o (8,64):(64,1)"))
    assert [p.name for p in tmp_path.iterdir()] == ["t.svg"]  # no temporary file left


def test_cli_show(capsys):
    assert main(["show", "--layout", "(4,2):(2,1)"]) == 0
    assert capsys.readouterr().out == show_layout(Layout((4, 2), (2, 1))) + "\n"
    assert main(["show", *TILE_ARGV, "--view", "logical"]) == 0
    assert capsys.readouterr().out == show_tile(OperandTile("bf16", "MN", "64B", 64, 16), "logical", 0x400) + "\n"


@pytest.mark.parametrize("argv,fragment", [
    (["draw", "--layout", "(4,2):(2,1)", "--dtype", "bf16"], "--dtype is a tile option"),
    (["draw", "--layout", "(4,2):(2,1)", "--view", "logical"], "--view is a tile option"),
    (["draw", "--dtype", "bf16", "--mn", "8"], "--major, --swizzle, --k missing"),
    (["draw", *TILE_ARGV, "--unit", "element", "--max-cells", "10"], "more than max_cells=10"),
    (["show", "--layout", "(2,2,2):(1,2,4)"], "has rank 3"),
    (["draw", "--layout", "(2,2"], "cannot parse"),
])
def test_cli_errors_are_one_line_and_leave_no_file(tmp_path, capsys, argv, fragment):
    out = tmp_path / "keep.svg"
    out.write_text("old")
    rc = main([*argv, *(["-o", str(out)] if argv[0] == "draw" else [])])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("fastswz: error: ") and fragment in err
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["keep.svg"]


def test_cli_unwritable_output(tmp_path, capsys):
    rc = main(["draw", *TILE_ARGV, "-o", str(tmp_path / "missing" / "t.svg")])
    err = capsys.readouterr().err
    assert rc == 2 and "No such file or directory" in err and "missing/t.svg" in err


# -- the gallery -----------------------------------------------------------------------------------
def test_gallery_is_what_tools_gallery_writes(tmp_path):
    spec = importlib.util.spec_from_file_location("gallery", ROOT / "tools" / "gallery.py")
    gallery = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gallery)
    names = gallery.build(tmp_path)
    checked_in = ROOT / "docs" / "gallery"
    assert sorted(names) == sorted(p.name for p in checked_in.iterdir())
    stale = [n for n in names if (tmp_path / n).read_bytes() != (checked_in / n).read_bytes()]
    assert not stale, f"docs/gallery is stale (run tools/gallery.py): {stale}"
    # every major x swizzle for bf16, tf32 and e4m3 on sm90 where legal; base32B and sub-byte on sm100
    for dtype, majors in (("bf16", ("K", "MN")), ("tf32", ("K",)), ("e4m3", ("K",))):
        for major in majors:
            for sw in ("none", "32B", "64B", "128B"):
                assert f"sm90_{dtype}_{major}_{sw}_physical.svg" in names
    assert {"sm100_tf32_MN_128B_base32B_logical.svg", "sm100_e2m1_packed_K_128B_physical.svg"} <= set(names)


def test_gallery_commands_draw_the_gallery(tmp_path, capsys):
    # each entry shows the fastswz draw command of its physical view: it gives the same file
    text = (ROOT / "docs" / "gallery" / "README.md").read_text()
    entries = re.findall(r"^### (\w+)\n\n.*`(fastswz draw [^`]*)`$", text, re.M)
    assert len(entries) == 20  # 16 sm90 tiles, 4 sm100
    for stem, command in entries:
        out = tmp_path / "x.svg"
        argv = shlex.split(command.replace("FILE.svg", str(out)))[1:]
        assert main(argv) == 0
        assert out.read_bytes() == (ROOT / "docs" / "gallery" / f"{stem}_physical.svg").read_bytes()
    capsys.readouterr()


# -- rendering -------------------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _png_size_and_colours(path):
    """(width, height, distinct filter-stripped scanline bytes) of an 8-bit RGB(A) PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    return width, height, len(set(raw))


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)")
@pytest.mark.parametrize("name", ["sm90_bf16_K_128B_physical", "sm90_bf16_MN_64B_logical",
                                  "sm100_e2m1_packed_K_128B_physical", "layout_sw333_8x64"])
def test_chromium_renders_the_gallery(tmp_path, name):
    svg = ROOT / "docs" / "gallery" / f"{name}.svg"
    root = ET.parse(svg).getroot()
    w, h = int(float(root.get("width"))) + 1, int(float(root.get("height"))) + 1
    png = tmp_path / f"{name}.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={png}", f"--window-size={w},{h}", str(svg)],
                   check=True, capture_output=True, timeout=120)
    width, height, distinct = _png_size_and_colours(png)
    assert (width, height) == (w, h)
    assert distinct > 50  # a picture, not a blank page
