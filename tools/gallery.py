"""Write the drawing gallery: docs/gallery/*.svg and docs/gallery/README.md.

    PYTHONPATH=src python tools/gallery.py [OUTDIR]        # default: docs/gallery

Deterministic: the same fastswz gives byte-identical files (tests/test_draw.py regenerates the
gallery into a temporary folder and compares it with the checked-in one). Every tile is drawn
twice, in the physical view (where each 16-byte chunk lives, by address) and the logical view
(where each chunk sits in the operand, labelled with its address), one cell per chunk.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fastswz import OperandTile, parse
from fastswz.draw import draw_layout, draw_tile

SWIZZLES = ("none", "32B", "64B", "128B")


def _extent(t_args):
    """Smallest tile that shows both strides: two atoms (or 8-row groups) along MN, and along K
    one atom or one MMA K step, whichever is larger."""
    dtype, major, swizzle, arch, packed = t_args
    probe = OperandTile(dtype, major, swizzle, 1 << 10, 1 << 10, arch=arch, packed=packed)
    amn, ak = probe.atom_shape
    return 2 * amn, max(ak, probe.inst_k)


def tiles():
    """(section, file stem, OperandTile) of every gallery entry, in page order."""
    out = []
    for dtype, majors in (("bf16", ("K", "MN")), ("tf32", ("K",)), ("e4m3", ("K",))):
        for major in majors:
            for sw in SWIZZLES:
                args = (dtype, major, sw, "sm90", False)
                mn, k = _extent(args)
                out.append((f"sm90 (wgmma): {dtype}", f"sm90_{dtype}_{major}_{sw}",
                            OperandTile(dtype, major, sw, mn, k, arch="sm90")))
    for dtype, major, sw, packed in (("tf32", "MN", "128B_base32B", False),
                                     ("e2m1", "K", "128B", False),
                                     ("e2m1", "K", "128B", True),
                                     ("e3m2", "K", "128B", False)):
        mn, k = _extent((dtype, major, sw, "sm100", packed))
        stem = f"sm100_{dtype}{'_packed' if packed else ''}_{major}_{sw}"
        out.append(("sm100 (tcgen05): 128B_base32B and sub-byte types", stem,
                    OperandTile(dtype, major, sw, mn, k, arch="sm100", packed=packed)))
    return out


LAYOUTS = (
    ("layout_sw333_8x64", "Sw<3,3,3> o 0 o (8,64):(64,1)", 8,
     "the bf16 K-major 128B atom in element units, coloured by 16-byte chunk (8 elements)"),
    ("layout_sw101_4x2", "Sw<1,0,1> o 0 o (4,2):(2,1)", 1, "a small swizzle, one colour per offset"),
)


def build(outdir: Path) -> "list[str]":
    """Write every SVG and the README into ``outdir``; return the file names written."""
    outdir.mkdir(parents=True, exist_ok=True)
    written = []

    def put(name, text):
        (outdir / name).write_text(text, encoding="utf-8", newline="\n")
        written.append(name)

    lines = [
        "# Gallery",
        "",
        "Canonical tensor-core operand tiles drawn by `fastswz.draw` (`fastswz draw ...`), one cell",
        "per 16-byte chunk. Regenerate with `PYTHONPATH=src python tools/gallery.py` (deterministic:",
        "`tests/test_draw.py` checks the checked-in files are what it writes).",
        "",
        "- **physical**: where each chunk lives in shared memory, rows of 128 bytes with the 32",
        "  four-byte banks along the top, labelled `mn,k` (its first element). Colour: the chunk's",
        "  16-byte column in its row *before* the swizzle, so the swizzle is the colours' permutation.",
        "- **logical**: the operand as a matrix (rows mn, columns k), each chunk labelled with its byte",
        "  address; colour: the 16-byte column it lands in *after* the swizzle (its four banks).",
        "  Dashed boxes: the 8 x 16-byte core matrices. Both views: thick boxes are swizzle atoms,",
        "  arrows the descriptor's LBO (blue) and SBO (red) between the core matrices they separate.",
        "",
        "All tiles start at address 0 (`--start 0`, absolute swizzle base), order mn.",
        "",
    ]
    section = None
    for sec, stem, tile in tiles():
        if sec != section:
            lines += [f"## {sec}", ""]
            section = sec
        cmd = (f"fastswz draw --dtype {tile.dtype.name} --major {tile.major} --swizzle "
               f"{tile.swizzle.value} --mn {tile.mn} --k {tile.k} --arch {tile.arch}"
               + (" --packed" if tile.packed else "") + " --view physical -o FILE.svg")
        lines += [f"### {stem}", "",
                  f"`{tile.layout}`, LBO {tile.lbo_bytes} B, SBO {tile.sbo_bytes} B. `{cmd}`", ""]
        for view in ("physical", "logical"):
            name = f"{stem}_{view}.svg"
            put(name, draw_tile(tile, view))
            lines.append(f"![{stem} {view}]({name})")
            lines.append("")
    lines += ["## Layouts", "",
              "Any `Layout` or `ComposedLayout` (`fastswz draw --layout TEXT -o FILE.svg`), drawn as",
              "CuTe's `print_latex` does: mode 0 down, mode 1 across, each cell `layout(m, n)`.", ""]
    for stem, text, group, what in LAYOUTS:
        put(f"{stem}.svg", draw_layout(parse(text), color_group=group))
        lines += [f"### `{text}`", "", f"{what}.", "", f"![{text}]({stem}.svg)", ""]
    put("README.md", "\n".join(lines).rstrip("\n") + "\n")
    return written


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "docs" / "gallery"
    names = build(target)
    print(f"wrote {len(names)} files to {target}")
