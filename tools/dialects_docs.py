"""Generate docs/dialects/*.md: the same tiles in every dialect, computed by fastswz itself.

    PYTHONPATH=src python tools/dialects_docs.py          # rewrite docs/dialects/
    PYTHONPATH=src python tools/dialects_docs.py --check  # exit 1 if a page is stale (the test)
"""
import sys
from pathlib import Path

import fastswz
from fastswz.gluon import to_gluon
from fastswz.linear import to_linear_layout
from fastswz.swizzle import ComposedLayout, Swizzle

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "dialects"
DSL_TSV = ROOT / "tests" / "data" / "dsl_layouts.tsv"

#: (tile, Gluon operand, CUTLASS atom name) of the examples every page shows
EXAMPLES = [
    (fastswz.OperandTile("bf16", "K", "128B", 64, 64), "A", "Layout_K_SW128_Atom<bfloat16_t>"),
    (fastswz.OperandTile("bf16", "MN", "128B", 128, 64, order="k"), "A", "Layout_MN_SW128_Atom<bfloat16_t>"),
    (fastswz.OperandTile("e4m3", "K", "64B", 128, 64), "A", "Layout_K_SW64_Atom<float_e4m3_t>"),
    (fastswz.OperandTile("tf32", "K", "32B", 64, 32), "B", "Layout_K_SW32_Atom<tfloat32_t>"),
]

PAGES = {
    "cute-cpp.md": ("CuTe C++", """\
CuTe builds an operand's shared-memory layout as one canonical swizzle atom
(`GMMA::Layout_*_Atom<T>` in `cute/atom/mma_traits_sm90_gmma.hpp`, `UMMA::Layout_*_Atom<T>` for
sm100) repeated by `tile_to_shape`, MN atoms first by default (fastswz `order="mn"`); pass
`Step<_2,_1>` for K first (`order="k"`). The atom is a `ComposedLayout<Swizzle, smem_ptr_flag,
Layout>`: C++ prints the swizzle in bytes (it acts on the pointer) and the layout in elements;
fastswz prints the position-independent element form (`as_position_independent_swizzle_layout`).
Both spell the same addresses (NOTES 1).
"""),
    "cute-dsl.md": ("CuTe DSL (CUTLASS Python)", """\
The CUTLASS Python DSL (`nvidia-cutlass-dsl`, checked with 4.8.1 on CPU: its layouts print while a
`@cute.jit` function is traced, no GPU needed) prints the C++ form with `S<B,M,S>` for the swizzle
(bytes) and the layout in elements; `hopper_helpers.make_smem_layout_a/b` add a stage mode. Getting
the fastswz tile back:

```python
>>> import fastswz
>>> from fastswz.cute_dsl import from_cute_dsl
>>> text = "S<3,4,3> o 0 o ((8,8),(64,1),(1,1)):((64,512),(1,0),(0,0))"  # str(layout) in the DSL
>>> fastswz.parse(text).outer
Swizzle(3, 4, 3)
>>> from_cute_dsl(text, "bf16")
OperandTile('bf16', 'K', '128B', 64, 64, order='mn', arch='sm90')
```

`from_cute_dsl` converts the swizzle to element units and returns the canonical tile equal to the
layout on every element (or a TileError listing what it tried). Every layout the DSL printed is in
`tests/data/dsl_layouts.tsv` (regenerate with `tools/dsl/print_dsl_layouts.py`) and
`tests/test_dialects.py` checks each against fastswz. What that comparison found:

* every sm90 and sm100 atom (`warpgroup.make_smem_layout_atom`, `tcgen05.make_smem_layout_atom`,
  all kinds x f16/bf16/e4m3/tf32) is fastswz's atom with the byte swizzle;
* every `hopper_helpers.make_smem_layout_a/b` tile is a fastswz canonical tile: K-major with MN
  atoms first (`order="mn"`), MN-major with K rows first (`order="k"`);
* differences: the DSL builds MN-major e4m3 layouts for sm90 and the `MN_SW128_32B`
  (128B_base32B) atom for 8- and 16-bit types; fastswz refuses both (wgmma transposes only 16-bit
  operands, PTX 9.7.15.5.1.2; tcgen05 pairs 128B_base32B with MN-major 32-bit types only, PTX
  "valid combinations"). The MN-major e4m3 layouts match fastswz's sm100 tiles.
"""),
    "gluon.md": ("Triton Gluon", """\
Gluon names a tensor-core operand buffer `NVMMASharedLayout(swizzle_byte_width,
element_bitwidth, rank, transposed, fp4_padded)` over a block shape (A is `[M, K]`, B is
`[K, N]`). `fastswz.gluon.gluon_nvmma_shared(...)` gives the equivalent tile and
`fastswz.gluon.to_gluon(tile, operand)` the layout back; `nvmma_linear_layout` models Triton's
placement for every power-of-two block. Triton 3.6 on an H100 placed all 624 probed blocks
exactly as fastswz says (docs/CONFORMANCE.md, Gluon section). No equivalent: `fp4_padded`, the
128B_base32B mode, packed 4-bit tiles, MN-major atoms tiled MN first, and Gluon's unswizzled
buffers wider than 16 bytes (row-major, whatever `transposed` says).

```python
>>> from fastswz.gluon import gluon_nvmma_shared
>>> gluon_nvmma_shared(128, 16, transposed=True, block_shape=(128, 64))
OperandTile('bf16', 'MN', '128B', 128, 64, order='k', arch='sm90')
```
"""),
    "linear.md": ("Linear layouts (GF(2))", """\
A linear layout maps the bits of each input dimension to output bits by XOR (Triton's
`LinearLayout`; Zhou et al. 2025). `fastswz.linear.to_linear_layout(tile)` gives the bases of
`(mn, k) -> element offset` (`unit="byte"` for bytes); `from_linear_layout` gives a CuTe
`Swizzle o Layout` back where one exists. Below, each input bit lists the offset it XORs in.
Triton writes the inverse direction for shared memory (offset -> tensor index):
`to_linear_layout(tile).invert()`.
"""),
    "ptx.md": ("PTX descriptor fields", """\
What the hardware is handed: the swizzle mode (layout_type), LBO and SBO in the 64-bit matrix
descriptor (wgmma PTX 9.7.15.5.1.2.2, tcgen05 9.7.16.4.1). Values for one MMA over the whole
MN extent, tile at shared address 0x400, CUTLASS LBO policy.
"""),
}


def _byte_form(tile):
    """The C++/DSL spelling: byte swizzle over the element layout."""
    sw = Swizzle(*tile.swizzle.swizzle_bits)
    return ComposedLayout(sw, 0, tile.layout.inner)


def _cell(tile, page, op, atom):
    if page == "cute-cpp.md":
        order = "" if tile.order == "mn" else ", Step<_2,_1>{}"
        ns = "GMMA" if tile.arch == "sm90" else "UMMA"
        b = _byte_form(tile)
        return "\n".join([
            f"tile_to_shape({ns}::{atom}{{}}, Shape<_{tile.mn},_{tile.k}>{{}}{order})",
            f"  C++ print() : {b.outer} o smem_ptr[{tile.element_bits}b](unset) o {b.inner}   (static ints print as _8)",
            f"  element form (fastswz) : {tile.layout}"])
    if page == "cute-dsl.md":
        return f"S{str(_byte_form(tile))[2:]}   (+ a stage mode from make_smem_layout_a/b)"
    if page == "gluon.md":
        return f"{to_gluon(tile, op)}   (operand {op})"
    if page == "linear.md":
        return str(to_linear_layout(tile))
    d = tile.descriptor(start=0x400)
    return (f"layout_type {tile.swizzle.layout_type(tile.arch)} ({tile.swizzle}), LBO {tile.lbo_bytes} B, "
            f"SBO {tile.sbo_bytes} B, base_offset 0\n  descriptor {int(d):#018x}")


def render(page):
    title, intro = PAGES[page]
    lines = [f"# {title}", "", "<!-- generated by tools/dialects_docs.py; tests/test_dialects.py keeps it true -->",
             "", intro, "## The same tiles", ""]
    for tile, op, atom in EXAMPLES:
        lines += [f"### {tile.dtype} {tile.major}-major {tile.swizzle} {tile.mn} x {tile.k} "
                  f"(order {tile.order}, {tile.arch})", "", "```", _cell(tile, page, op, atom), "```", ""]
    others = [p for p in PAGES if p != page]
    lines += ["Other dialects: " + ", ".join(f"[{PAGES[p][0]}]({p})" for p in others) + "."]
    return "\n".join(lines) + "\n"


def render_index():
    lines = ["# Layout dialects", "",
             "<!-- generated by tools/dialects_docs.py; tests/test_dialects.py keeps it true -->", "",
             "One shared-memory tile, five spellings. Each page shows the same four tiles:", ""]
    lines += [f"- [{t}]({p})" for p, (t, _) in PAGES.items()]
    lines += ["", "| tile | CuTe (fastswz, elements) | Gluon | PTX (LBO, SBO) |", "|---|---|---|---|"]
    for tile, op, _ in EXAMPLES:
        g = to_gluon(tile, op).kwargs()
        lines.append(f"| {tile.dtype} {tile.major} {tile.swizzle} {tile.mn}x{tile.k} | `{tile.layout}` | "
                     f"`{g['swizzle_byte_width']}, {g['element_bitwidth']}, transposed={g['transposed']}` ({op}) | "
                     f"{tile.lbo_bytes}, {tile.sbo_bytes} |")
    return "\n".join(lines) + "\n"


def pages():
    out = {p: render(p) for p in PAGES}
    out["README.md"] = render_index()
    return out


if __name__ == "__main__":
    check = "--check" in sys.argv
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        path = OUT / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("stale: " + ", ".join(stale) + " (run PYTHONPATH=src python tools/dialects_docs.py)")
        sys.exit(1)
