"""Pictures of layouts and operand tiles: SVG drawings and terminal tables.

:func:`draw_tile` draws an :class:`fastswz.OperandTile` in the style of the PTX ISA's
shared-memory figures (9.7.15.5.1.2, 9.7.16.3): the *physical* view puts one cell per 16-byte
chunk (or per element) where it lives in shared memory, in rows of 128 bytes with the 32
four-byte banks marked along the top, and labels it with its logical ``(mn, k)``; the *logical*
view puts the cells at ``(mn, k)`` and labels them with their byte address. Both outline the
swizzle atoms (and the logical view the 8 x 16-byte core matrices) and draw the descriptor's
LBO and SBO as arrows between the core matrices they separate.

:func:`draw_layout` draws any ``Layout`` or ``ComposedLayout`` over its 2-D coordinate domain,
one cell per ``(m, n)`` labelled with ``layout(m, n)``, as CuTe's ``print_latex`` does;
:func:`show_layout` and :func:`show_tile` print the same information as a text table in the
style of CuTe's ``print_layout``.

The SVG is plain text, built without any dependency, and deterministic: the same arguments
give the same bytes. Every cell is a ``<g class="cell">`` with ``data-*`` attributes (``data-mn``,
``data-k``, ``data-addr`` for tiles; ``data-m``, ``data-n``, ``data-value`` for layouts) and a
``<rect>`` and ``<text>``; the root ``<svg>`` carries the grid origin and cell size
(``data-x0``, ``data-y0``, ``data-cell-w``, ``data-cell-h``), so a program can check where
every cell is.
"""

from __future__ import annotations

from xml.sax.saxutils import escape as _esc

import numpy as np

from .bulk import evaluate
from .errors import FastswzTypeError, LayoutError, TileError, as_int
from .layout import Layout
from .swizzle import ComposedLayout
from .tile import SWIZZLE_BASES, OperandTile

__all__ = ["draw_tile", "draw_layout", "show_tile", "show_layout", "draw_fragment", "show_fragment",
           "VIEWS", "UNITS", "MAX_CELLS", "MAX_TEXT_CELLS"]

VIEWS = ("physical", "logical")
UNITS = ("chunk", "element")
#: Most cells one SVG may hold (a 128 x 128 bf16 tile drawn per element); more is refused
#: with the ways out (the chunk unit, a smaller tile, or a larger ``max_cells``).
MAX_CELLS = 16384
#: Most cells a terminal table may hold (CuTe's print_layout is for small layouts too).
MAX_TEXT_CELLS = 4096

# Eight light hues that black text reads on and that stay apart for the common colour
# blindnesses (Okabe-Ito, lightened); index = the chunk's column 0..7 in its 128-byte row.
_PALETTE = ("#f6c78a", "#a8d8f0", "#8fd6bf", "#f4ee9a", "#8fbde0", "#f0b48c", "#e6b8d4", "#d0d0d0")
_LINE = 128  # bytes per shared-memory row: 32 banks of 4 bytes


# -- argument checks ---------------------------------------------------------------------------
def _choice(name, value, choices):
    if not isinstance(value, str):
        raise FastswzTypeError(f"{name}={value!r} must be one of {list(choices)}, not {type(value).__name__}")
    if value not in choices:
        raise TileError(f"{name}={value!r} is not one of {list(choices)}")
    return value


def _tile_arg(tile):
    if not isinstance(tile, OperandTile):
        raise FastswzTypeError(f"tile={tile!r} must be an OperandTile, not {type(tile).__name__}")
    return tile


def _layout_arg(layout):
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise FastswzTypeError(
            f"layout={layout!r} must be a Layout or ComposedLayout, not {type(layout).__name__}; "
            f"text in CuTe notation goes through fastswz.parse first")
    return layout


def _limit(name, value):
    v = as_int(name, value)
    if v < 1:
        raise LayoutError(f"{name}={v} must be >= 1")
    return v


# -- the cells of a tile -------------------------------------------------------------------------
class _TileCells:
    """Every cell of a tile drawing as parallel int64 arrays (one entry per cell)."""

    def __init__(self, tile, start, swizzle_base, unit):
        self.tile = tile
        addr = tile.addresses(start, swizzle_base).astype(np.int64)
        bits = tile.element_bits
        mn, k = np.indices(addr.shape, dtype=np.int64)
        # Unswizzled byte offset from the tile start: CuTe's layout value before the swizzle.
        inner = tile.layout.inner
        off = np.asarray(evaluate(inner)).reshape(tile.k, tile.mn).T * bits >> 3
        nib = (k & 1) if bits == 4 else np.zeros_like(k)  # packed e2m1: odd k in the high nibble
        if unit == "chunk":
            # The element at the first byte (low nibble) of each 16-byte chunk names the chunk.
            keep = (addr % 16 == 0) & (nib == 0)
        else:
            keep = np.ones(addr.shape, dtype=bool)
        self.mn, self.k = mn[keep], k[keep]
        self.addr, self.off, self.nib = addr[keep], off[keep], nib[keep]
        order = np.lexsort((self.nib, self.addr))  # address order: stable ids
        for name in ("mn", "k", "addr", "off", "nib"):
            setattr(self, name, getattr(self, name)[order])
        self.unit = unit
        self.per_chunk = 128 // bits  # elements per 16 bytes

    def __len__(self):
        return len(self.addr)


# -- SVG writing -----------------------------------------------------------------------------------
_STYLE = (
    "text{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;fill:#111}"
    ".cell rect{stroke:#777;stroke-width:0.5}"
    ".cell text{text-anchor:middle;dominant-baseline:central}"
    ".bank rect{fill:#fff;stroke:#999;stroke-width:0.5}"
    ".bank text,.colhead,.rowhead{font-size:9px;fill:#444}"
    ".bank text,.colhead{text-anchor:middle;dominant-baseline:central}"
    ".rowhead{text-anchor:end;dominant-baseline:central}"
    ".atom{fill:none;stroke:#000;stroke-width:2}"
    ".core{fill:none;stroke:#333;stroke-width:1;stroke-dasharray:3 2}"
    ".stride path{fill:none;stroke-width:2}"
    ".stride text{font-size:11px;font-weight:bold;paint-order:stroke;stroke:#fff;stroke-width:3px;"
    "text-anchor:middle;dominant-baseline:central}"
    ".stride .end{fill:none;stroke-width:2.5}"
    ".lbo path,.lbo .end{stroke:#1f5fbf}.lbo text{fill:#1f5fbf}"
    ".sbo path,.sbo .end{stroke:#b3261e}.sbo text{fill:#b3261e}"
    ".title{font-size:13px;font-weight:bold}.note{font-size:11px;fill:#333}"
)


def _num(x):
    """Coordinates as short, exact text (integers and halves only appear here)."""
    x = float(x)
    return str(int(x)) if x == int(x) else f"{x:.2f}".rstrip("0")


class _Svg:
    def __init__(self):
        self.parts = []

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, cls=None, size=None):
        c = f' class="{cls}"' if cls else ""
        f = f' font-size="{_num(size)}"' if size else ""
        self.add(f'<text x="{_num(x)}" y="{_num(y)}"{c}{f}>{_esc(str(s))}</text>')

    def rect(self, x, y, w, h, cls=None, fill=None, extra=""):
        c = f' class="{cls}"' if cls else ""
        f = f' fill="{fill}"' if fill else ""
        self.add(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}"{c}{f}{extra}/>')

    def finish(self, width, height, attrs, title):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
                f'viewBox="0 0 {_num(width)} {_num(height)}"'
                + "".join(f' data-{k}="{_esc(str(v), {chr(34): "&quot;"})}"' for k, v in attrs.items())
                + ">")
        defs = ('<defs>'
                '<marker id="arrow-lbo" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fbf"/></marker>'
                '<marker id="arrow-sbo" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker>'
                '</defs>')
        body = [head, f"<title>{_esc(title)}</title>", f"<style>{_STYLE}</style>", defs,
                f'<rect x="0" y="0" width="{_num(width)}" height="{_num(height)}" fill="#fff"/>',
                *self.parts, "</svg>"]
        return "\n".join(body) + "\n"


def _strides(svg, draw, notes, origin, targets, grid_pos, x0, y0, cw, ch):
    """LBO/SBO arrows from the core matrix at offset 0 to the one LBO or SBO bytes on.

    Both ends are outlined in the stride's colour; the arrow runs in a lane beside the grid
    (left of it when the ends are on different rows, above it when on one row), so it never
    covers a label.
    """
    for name, value in draw:
        j = targets[value]
        if origin is None or j is None:
            notes.append(f"{name} {value} B: points outside the tile")
            continue
        cls = name.lower()
        (rs, cs), (rt, ct) = grid_pos(origin), grid_pos(j)
        svg.add(f'<g class="stride {cls}" id="{cls}" data-bytes="{value}" data-from="{origin}" data-to="{j}">')
        for r, c in ((rs, cs), (rt, ct)):
            svg.rect(x0 + c * cw + 1.5, y0 + r * ch + 1.5, cw - 3, ch - 3, "end")
        if rs != rt:
            depth = 22 if cls == "lbo" else 48
            xa, ya, yb = x0 - 3, y0 + rs * ch + ch / 2, y0 + rt * ch + ch / 2
            svg.add(f'<path d="M{_num(xa)},{_num(ya)} Q{_num(xa - 2 * depth)},{_num((ya + yb) / 2)} '
                    f'{_num(xa)},{_num(yb)}" marker-end="url(#arrow-{cls})"/>')
            tx, ty = xa - depth - 8, (ya + yb) / 2
            svg.add(f'<text x="{_num(tx)}" y="{_num(ty)}" transform="rotate(-90 {_num(tx)} {_num(ty)})">'
                    f'{name} {value} B</text>')
        else:
            ya, xa, xb = y0 - 3, x0 + cs * cw + cw / 2, x0 + ct * cw + cw / 2
            svg.add(f'<path d="M{_num(xa)},{_num(ya)} Q{_num((xa + xb) / 2)},{_num(ya - 28)} '
                    f'{_num(xb)},{_num(ya)}" marker-end="url(#arrow-{cls})"/>')
            svg.text((xa + xb) / 2, ya - 22, f"{name} {value} B")
        svg.add("</g>")


def _describe(tile):
    return (f"{tile.dtype} {tile.major}-major {tile.swizzle}, {tile.mn} x {tile.k}"
            f"{', packed' if tile.packed else ''}, order {tile.order}, {tile.arch}")


def _stride_notes(tile, lbo, sbo):
    """Which of LBO/SBO to draw, and a note for the ones that are not drawn."""
    notes, draw = [], []
    unused_lbo = tile.major == "K" and tile.swizzle.is_swizzled
    for name, value in (("LBO", lbo), ("SBO", sbo)):
        if name == "LBO" and unused_lbo:
            notes.append(f"LBO {value} B: unused by K-major swizzled layouts (PTX: assumed 1)")
        elif value == 0:
            notes.append(f"{name} 0: one step only, the field is unused")
        else:
            draw.append((name, value))
    return draw, notes


def draw_tile(tile, view="physical", start=0, swizzle_base="absolute", unit="chunk", *,
              inst_mn=None, lbo_policy="cutlass", max_cells=MAX_CELLS) -> str:
    """Draw an operand tile as SVG, in the style of the PTX ISA's shared-memory figures.

    Parameters
    ----------
    tile : OperandTile
    view : {"physical", "logical"}
        ``"physical"``: cells placed by shared-memory address, rows of 128 bytes (the 32 banks
        marked along the top), labelled ``mn,k``. Colour: the cell's 16-byte column (0-7) in its
        128-byte row *before* the swizzle, so the swizzle shows as the colours' permutation
        from row to row. ``"logical"``: cells placed at ``(mn, k)`` (rows mn, columns k),
        labelled with their byte address in hex. Colour: the 16-byte column the cell lands in
        *after* the swizzle (its group of 4 banks), so each core matrix (outlined, dashed)
        shows 8 different colours when its rows are conflict-free.
    start : int
        Shared-memory byte address of the tile, as in :meth:`OperandTile.addresses`.
    swizzle_base : {"absolute", "relative"}
    unit : {"chunk", "element"}
        One cell per 16-byte chunk (named by its first element) or per element. Packed 4-bit
        elements share a byte: their address labels end in ``.l`` (low nibble, even k) or
        ``.h`` (high nibble).
    inst_mn : int, optional
        MN extent of one MMA, for the LBO/SBO arrows (:meth:`OperandTile.strides`).
    lbo_policy : {"cutlass", "deepgemm"}
    max_cells : int
        Refuse drawings of more cells than this (default :data:`MAX_CELLS`).

    Returns
    -------
    str
        A complete SVG document. Each cell is ``<g class="cell" id="cell-<i>">`` (i in address
        order) with ``data-mn``, ``data-k``, ``data-addr`` (absolute byte address),
        ``data-off`` (unswizzled byte offset from ``start``) and, in the physical view,
        ``data-row`` and ``data-slot``; the swizzle atoms are ``rect.atom``, core matrices
        ``rect.core`` and the strides ``g.lbo`` / ``g.sbo`` (``data-bytes``).

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> t = OperandTile("bf16", "K", "128B", 8, 64)
    >>> svg = draw_tile(t)
    >>> cells = ET.fromstring(svg).findall(".//{http://www.w3.org/2000/svg}g[@class='cell']")
    >>> len(cells), [c.get("data-k") for c in cells[8:16]]   # row 1: k chunks swapped in pairs
    (64, ['8', '0', '24', '16', '40', '32', '56', '48'])
    >>> svg == draw_tile(t)
    True
    """
    tile = _tile_arg(tile)
    view = _choice("view", view, VIEWS)
    unit = _choice("unit", unit, UNITS)
    max_cells = _limit("max_cells", max_cells)
    start = as_int("start", start)
    lbo, sbo = tile.strides(inst_mn, lbo_policy)
    n_cells = tile.mn * tile.k if unit == "element" else tile.nbytes // 16
    if n_cells > max_cells:
        raise TileError(
            f"the {unit} view of {tile!r} has {n_cells} cells, more than max_cells={max_cells}: "
            f"draw a smaller tile" + (", use unit='chunk'" if unit == "element" else "")
            + " or raise max_cells")
    cells = _TileCells(tile, start, _choice("swizzle_base", swizzle_base, SWIZZLE_BASES), unit)
    if view == "physical":
        return _physical(tile, cells, start, swizzle_base, lbo, sbo)
    return _logical(tile, cells, start, swizzle_base, lbo, sbo)


def _header(svg, tile, view, unit, start, swizzle_base):
    svg.text(10, 16, f"{_describe(tile)}: {view} view, one cell per {unit}", "title")
    svg.text(10, 34, f"layout {tile.layout}   start 0x{start:x} ({swizzle_base})", "note")


def _stride_targets(cells, lbo, sbo):
    """Cell index of the origin (offset 0) and of the cells at unswizzled offsets LBO, SBO."""
    where = {int(o): i for i, o in enumerate(cells.off.tolist()) if cells.nib[i] == 0}
    return where.get(0), {v: where.get(v) for v in (lbo, sbo)}


def _footer(svg, y, notes, legend):
    for line in [legend, *notes]:
        svg.text(10, y, line, "note")
        y += 16
    return y


def _cell(svg, i, x, y, w, h, fill, label, size, attrs):
    a = "".join(f' data-{k}="{v}"' for k, v in attrs)
    svg.add(f'<g class="cell" id="cell-{i}"{a}>')
    svg.rect(x, y, w, h, fill=fill)
    svg.text(x + w / 2, y + h / 2, label, size=size)
    svg.add("</g>")


def _physical(tile, cells, start, swizzle_base, lbo, sbo):
    bits = tile.element_bits
    chunk = cells.unit == "chunk"
    per_line = _LINE // 16 if chunk else _LINE * 8 // bits  # cells per 128-byte row
    cw, ch = (64, 22) if chunk else (38, 22)
    px_per_byte = cw * per_line / _LINE
    first_line = start // _LINE
    n_lines = (start + tile.nbytes - 1) // _LINE - first_line + 1
    x0, y0 = 140, 84  # row names end at x0 - 80; the stride arrows' lane is between
    width = x0 + per_line * cw + 30
    svg = _Svg()
    _header(svg, tile, "physical", cells.unit, start, swizzle_base)
    # The 32 four-byte banks along the top (PTX: shared memory has 32 banks of 4 bytes).
    bw = 4 * px_per_byte
    svg.text(x0 - 80, y0 - 24, "bank", "rowhead")
    svg.add('<g id="banks">')
    for b in range(32):
        svg.add(f'<g class="bank" data-bank="{b}">')
        svg.rect(x0 + b * bw, y0 - 32, bw, 16)
        svg.text(x0 + b * bw + bw / 2, y0 - 24, b)
        svg.add("</g>")
    svg.add("</g>")
    svg.add('<g id="rows">')
    for r in range(n_lines):
        svg.text(x0 - 80, y0 + r * ch + ch / 2, f"0x{(first_line + r) * _LINE:x}", "rowhead")
    svg.add("</g>")
    rows = cells.addr // _LINE - first_line
    if chunk:
        slots = cells.addr % _LINE // 16
    else:
        slots = ((cells.addr % _LINE) * 8 + cells.nib * 4) // bits
    colour = (cells.off >> 4) & 7
    size = 11 if chunk else 8
    svg.add('<g id="cells">')
    for i in range(len(cells)):
        m, k, a, o = int(cells.mn[i]), int(cells.k[i]), int(cells.addr[i]), int(cells.off[i])
        r, s = int(rows[i]), int(slots[i])
        _cell(svg, i, x0 + s * cw, y0 + r * ch, cw, ch, _PALETTE[int(colour[i])], f"{m},{k}", size,
              [("mn", m), ("k", k), ("addr", a), ("off", o), ("row", r), ("slot", s)])
    svg.add("</g>")
    # Swizzle atoms: contiguous byte ranges (the swizzle moves chunks only inside a 128-byte row).
    svg.add('<g id="atoms">')
    ab = tile.swizzle.atom_bytes
    for a0 in range(start, start + tile.nbytes, ab):
        for s0, s1 in _line_spans(a0, a0 + ab):
            r = s0 // _LINE - first_line
            nl = (s1 - s0 + _LINE - 1) // _LINE if s0 % _LINE == 0 and s1 % _LINE == 0 else 1
            x = x0 + (s0 % _LINE) * px_per_byte
            w = (_LINE if nl > 1 or s1 - s0 == _LINE else s1 - s0) * px_per_byte
            svg.rect(x, y0 + r * ch, w, nl * ch, "atom")
    svg.add("</g>")
    draw, notes = _stride_notes(tile, lbo, sbo)
    origin, targets = _stride_targets(cells, lbo, sbo)
    _strides(svg, draw, notes, origin, targets, lambda i: (int(rows[i]), int(slots[i])), x0, y0, cw, ch)
    legend = ("colour: a cell's 16-byte column in its 128-byte row before the swizzle; "
              "position: its address. Thick boxes: swizzle atoms.")
    height = _footer(svg, y0 + n_lines * ch + 22, notes, legend) + 4
    width = max(width, 10 + 6.6 * max(len(legend), len(str(tile.layout)) + 40))
    return svg.finish(width, height, _root_attrs(tile, "physical", cells, start, swizzle_base,
                                                 x0, y0, cw, ch, lbo, sbo), _describe(tile))


def _line_spans(a0, a1):
    """Split [a0, a1) into a head partial line, whole lines, and a tail partial line."""
    spans = []
    head = min(a1, (a0 + _LINE - 1) // _LINE * _LINE)
    if head > a0:
        spans.append((a0, head))
    body = a1 // _LINE * _LINE
    if body > head:
        spans.append((head, body))
    if a1 > max(head, body):
        spans.append((max(head, body), a1))
    return spans


def _root_attrs(tile, view, cells, start, swizzle_base, x0, y0, cw, ch, lbo, sbo):
    return {"view": view, "unit": cells.unit, "tile": repr(tile), "start": start,
            "swizzle-base": swizzle_base, "lbo": lbo, "sbo": sbo, "cells": len(cells),
            "x0": x0, "y0": y0, "cell-w": cw, "cell-h": ch}


def _logical(tile, cells, start, swizzle_base, lbo, sbo):
    t = cells.per_chunk
    chunk = cells.unit == "chunk"
    kmajor = tile.major == "K"
    fr = t if chunk and not kmajor else 1  # logical extent of one cell along mn and k
    fc = t if chunk and kmajor else 1
    rows, cols = tile.mn // fr, tile.k // fc
    cw, ch = (58, 20) if chunk else (44, 20)
    r_of, c_of = cells.mn // fr, cells.k // fc
    draw, notes = _stride_notes(tile, lbo, sbo)
    origin, targets = _stride_targets(cells, lbo, sbo)
    # Lanes for the stride arrows: x0-80..x0 always, y0-36..y0 only when one runs along a row.
    flat = origin is not None and any(targets[v] is not None and r_of[targets[v]] == r_of[origin]
                                      for _, v in draw)
    x0, y0, head = (120, 104, 44) if flat else (120, 72, 12)
    svg = _Svg()
    _header(svg, tile, "logical", cells.unit, start, swizzle_base)
    svg.text(x0 - 80, y0 - head, "mn\\k", "rowhead")
    svg.add('<g id="colheads">')
    for c in range(cols):
        svg.text(x0 + c * cw + cw / 2, y0 - head, c * fc, "colhead")
    svg.add("</g>")
    svg.add('<g id="rowheads">')
    for r in range(rows):
        svg.text(x0 - 80, y0 + r * ch + ch / 2, r * fr, "rowhead")
    svg.add("</g>")
    colour = (cells.addr >> 4) & 7
    size = 10 if chunk else 8
    order = np.lexsort((c_of, r_of))
    svg.add('<g id="cells">')
    for i in order.tolist():
        m, k, a, o = int(cells.mn[i]), int(cells.k[i]), int(cells.addr[i]), int(cells.off[i])
        label = f"0x{a:x}" + (("." + "lh"[int(cells.nib[i])]) if tile.element_bits == 4 and not chunk else "")
        _cell(svg, i, x0 + int(c_of[i]) * cw, y0 + int(r_of[i]) * ch, cw, ch, _PALETTE[int(colour[i])],
              label, size, [("mn", m), ("k", k), ("addr", a), ("off", o)])
    svg.add("</g>")
    # Core matrices: 8 rows x 16 bytes (PTX "core matrix"): 8 mn x t k (K-major) or t mn x 8 k.
    cm_mn, cm_k = (8, t) if kmajor else (t, 8)
    svg.add('<g id="cores">')
    for m0 in range(0, tile.mn, cm_mn):
        for k0 in range(0, tile.k, cm_k):
            svg.rect(x0 + k0 // fc * cw, y0 + m0 // fr * ch, cm_k // fc * cw, cm_mn // fr * ch, "core",
                     extra=f' data-mn="{m0}" data-k="{k0}"')
    svg.add("</g>")
    amn, ak = tile.atom_shape
    svg.add('<g id="atoms">')
    for m0 in range(0, tile.mn, amn):
        for k0 in range(0, tile.k, ak):
            svg.rect(x0 + k0 // fc * cw, y0 + m0 // fr * ch, ak // fc * cw, amn // fr * ch, "atom",
                     extra=f' data-mn="{m0}" data-k="{k0}"')
    svg.add("</g>")
    _strides(svg, draw, notes, origin, targets, lambda i: (int(r_of[i]), int(c_of[i])), x0, y0, cw, ch)
    legend = ("colour: the 16-byte column (4 banks) a cell lands in after the swizzle. "
              "Thick boxes: swizzle atoms; dashed: 8 x 16-byte core matrices.")
    height = _footer(svg, y0 + rows * ch + 22, notes, legend) + 4
    width = max(x0 + cols * cw + 30, 10 + 6.6 * max(len(legend), len(str(tile.layout)) + 40))
    return svg.finish(width, height, _root_attrs(tile, "logical", cells, start, swizzle_base,
                                                 x0, y0, cw, ch, lbo, sbo), _describe(tile))


# -- any layout ------------------------------------------------------------------------------------
def _grid(layout, max_cells, what):
    """(rows, cols, values[rows, cols]) of a rank-1 or rank-2 layout over its 2-D domain."""
    layout = _layout_arg(layout)
    rank = len(layout)
    if rank == 1:  # as CuTe's print_latex: a rank-1 layout is an N x 1 column
        shape = (layout.size(), 1)
    elif rank == 2:
        shape = tuple(Layout(s).size() for s in layout.shape)
    else:
        raise LayoutError(
            f"layout {layout} has rank {rank}: only rank-1 and rank-2 layouts are drawn (a 2-D "
            f"grid of (m, n)); group the modes into two first, e.g. with fastswz.parse of "
            f"'((a,b),c):((..),..)'")
    rows, cols = shape
    if rows * cols > max_cells:
        raise LayoutError(
            f"layout {layout} has {rows * cols} cells, more than max_cells={max_cells} for a {what}: "
            f"draw a slice or a smaller tile of it, or raise max_cells")
    vals = np.asarray(evaluate(layout)).reshape(cols, rows).T  # colex: m is the fast index
    return rows, cols, vals


def draw_layout(layout, *, color_group=1, max_cells=MAX_CELLS) -> str:
    """Draw a ``Layout`` or ``ComposedLayout`` as SVG: one cell per 2-D coordinate (m, n).

    As CuTe's ``print_latex``: mode 0 runs down the rows, mode 1 across the columns (a rank-1
    layout is one column), each cell labelled with ``layout(m, n)``, where ``m`` and ``n`` are
    the 1-D coordinates of the two modes (colexicographic inside a nested mode).

    Parameters
    ----------
    layout : Layout or ComposedLayout
        Rank 1 or 2 (group the modes of a higher-rank layout first).
    color_group : int
        Cells are coloured by ``(value // color_group) % 8``: 1 colours single offsets; the
        element count of 16 bytes (8 for a 16-bit type) colours the chunks a swizzle moves.
    max_cells : int
        Refuse layouts of more cells than this (default :data:`MAX_CELLS`).

    Returns
    -------
    str
        A complete SVG document; each cell is ``<g class="cell">`` with ``data-m``, ``data-n``
        and ``data-value``.

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> from fastswz import parse
    >>> svg = draw_layout(parse("Sw<1,0,1> o 0 o (2,2):(2,1)"))
    >>> cells = ET.fromstring(svg).findall(".//{http://www.w3.org/2000/svg}g[@class='cell']")
    >>> [(c.get("data-m"), c.get("data-n"), c.get("data-value")) for c in cells]
    [('0', '0', '0'), ('0', '1', '1'), ('1', '0', '3'), ('1', '1', '2')]
    """
    color_group = _limit("color_group", color_group)
    max_cells = _limit("max_cells", max_cells)
    rows, cols, vals = _grid(layout, max_cells, "drawing")
    width_chars = max(len(str(int(v))) for v in vals.ravel())
    cw, ch = max(30, 8 * width_chars + 12), 22
    x0, y0 = 50, 62
    svg = _Svg()
    svg.text(10, 18, str(layout), "title")
    svg.text(x0 - 8, y0 - 12, "m\\n", "rowhead")
    svg.add('<g id="colheads">')
    for c in range(cols):
        svg.text(x0 + c * cw + cw / 2, y0 - 12, c, "colhead")
    svg.add('</g><g id="rowheads">')
    for r in range(rows):
        svg.text(x0 - 8, y0 + r * ch + ch / 2, r, "rowhead")
    svg.add('</g><g id="cells">')
    for r in range(rows):
        for c in range(cols):
            v = int(vals[r, c])
            _cell(svg, r * cols + c, x0 + c * cw, y0 + r * ch, cw, ch,
                  _PALETTE[(v // color_group) % 8], v, 11, [("m", r), ("n", c), ("value", v)])
    svg.add("</g>")
    width = max(x0 + cols * cw + 20, 20 + 7.8 * len(str(layout)))
    attrs = {"layout": str(layout), "rows": rows, "cols": cols, "x0": x0, "y0": y0,
             "cell-w": cw, "cell-h": ch}
    return svg.finish(width, y0 + rows * ch + 16, attrs, str(layout))


# -- terminal tables -------------------------------------------------------------------------------
def _table(title, labels, row_names=None, width=1, col_names=None):
    """CuTe ``print_layout``'s table: column numbers, ``+---+`` rules, ``|``-separated cells.

    Cells are ``width`` characters or wider (CuTe: the digits of the layout's cosize).
    """
    rows = len(labels)
    cols = len(labels[0]) if rows else 0
    heads = [str(c) for c in (col_names or range(cols))]
    w = max([len(s) for row in labels for s in row] + [len(h) for h in heads] + [width])
    names = row_names or [str(r) for r in range(rows)]
    nw = max(2, max(len(n) for n in names))
    pad = " " * (nw + 2)
    rule = pad + "+" + "+".join("-" * (w + 2) for _ in range(cols)) + "+"
    out = [title, pad + "".join(f"  {c:>{w}} " for c in heads)]
    for name, row in zip(names, labels):
        out.append(rule)
        out.append(f"{name:>{nw}}  " + "".join(f"| {s:>{w}} " for s in row) + "|")
    out.append(rule)
    return "\n".join(out)


def show_layout(layout, *, max_cells=MAX_TEXT_CELLS) -> str:
    """A text table of a rank-1 or rank-2 layout, in the style of CuTe's ``print_layout``.

    The first line is the layout in CuTe notation; then one row per coordinate of mode 0 and
    one column per coordinate of mode 1, each cell ``layout(m, n)``.

    Parameters
    ----------
    layout : Layout or ComposedLayout
    max_cells : int
        Refuse layouts of more cells than this (default :data:`MAX_TEXT_CELLS`).

    Examples
    --------
    >>> print(show_layout(Layout((4, 2), (2, 1))))
    (4,2):(2,1)
           0   1
        +---+---+
     0  | 0 | 1 |
        +---+---+
     1  | 2 | 3 |
        +---+---+
     2  | 4 | 5 |
        +---+---+
     3  | 6 | 7 |
        +---+---+
    """
    max_cells = _limit("max_cells", max_cells)
    rows, cols, vals = _grid(layout, max_cells, "terminal table")
    # CuTe print_tensor.hpp sizes the cells by the digits of the cosize (of the inner layout
    # for a ComposedLayout), not of the largest value.
    return _table(str(layout), [[str(int(v)) for v in row] for row in vals.tolist()],
                  width=len(str(layout.cosize())))


def show_tile(tile, view="physical", start=0, swizzle_base="absolute", unit="chunk", *,
              max_cells=MAX_TEXT_CELLS) -> str:
    """A text table of a tile: :func:`draw_tile`'s two views for a terminal.

    ``view="physical"``: one row per 128-byte line of shared memory (named by its address),
    one column per 16-byte chunk (or element slot), each cell ``mn,k`` of the chunk's first
    element. ``view="logical"``: rows mn, columns k (one per chunk or element), each cell
    the byte address in hex.

    Parameters
    ----------
    tile : OperandTile
    view : {"physical", "logical"}
    start, swizzle_base : as :meth:`OperandTile.addresses`
    unit : {"chunk", "element"}
    max_cells : int
        Refuse tables of more cells than this (default :data:`MAX_TEXT_CELLS`).

    Examples
    --------
    >>> print(show_tile(OperandTile("bf16", "K", "32B", 8, 16)))
    bf16 K-major 32B, 8 x 16, order mn, sm90: physical view, one cell per chunk
              0     1     2     3     4     5     6     7
          +-----+-----+-----+-----+-----+-----+-----+-----+
     0x0  | 0,0 | 0,8 | 1,0 | 1,8 | 2,0 | 2,8 | 3,0 | 3,8 |
          +-----+-----+-----+-----+-----+-----+-----+-----+
    0x80  | 4,8 | 4,0 | 5,8 | 5,0 | 6,8 | 6,0 | 7,8 | 7,0 |
          +-----+-----+-----+-----+-----+-----+-----+-----+
    """
    tile = _tile_arg(tile)
    view = _choice("view", view, VIEWS)
    unit = _choice("unit", unit, UNITS)
    max_cells = _limit("max_cells", max_cells)
    start = as_int("start", start)
    n_cells = tile.mn * tile.k if unit == "element" else tile.nbytes // 16
    if n_cells > max_cells:
        raise TileError(
            f"the {unit} table of {tile!r} has {n_cells} cells, more than max_cells={max_cells}: "
            f"show a smaller tile" + (", use unit='chunk'" if unit == "element" else "")
            + ", draw it as SVG (draw_tile) or raise max_cells")
    cells = _TileCells(tile, start, _choice("swizzle_base", swizzle_base, SWIZZLE_BASES), unit)
    title = f"{_describe(tile)}: {view} view, one cell per {unit}"
    if view == "physical":
        per_line = 8 if unit == "chunk" else _LINE * 8 // tile.element_bits
        first = start // _LINE
        n_lines = (start + tile.nbytes - 1) // _LINE - first + 1
        grid = [[""] * per_line for _ in range(n_lines)]
        for m, k, a, nb in zip(cells.mn.tolist(), cells.k.tolist(), cells.addr.tolist(), cells.nib.tolist()):
            slot = a % _LINE // 16 if unit == "chunk" else ((a % _LINE) * 8 + nb * 4) // tile.element_bits
            grid[a // _LINE - first][slot] = f"{m},{k}"
        return _table(title, grid, [f"0x{(first + r) * _LINE:x}" for r in range(n_lines)])
    t = cells.per_chunk
    fr = t if unit == "chunk" and tile.major == "MN" else 1
    fc = t if unit == "chunk" and tile.major == "K" else 1
    grid = [[""] * (tile.k // fc) for _ in range(tile.mn // fr)]
    for m, k, a, nb in zip(cells.mn.tolist(), cells.k.tolist(), cells.addr.tolist(), cells.nib.tolist()):
        grid[m // fr][k // fc] = f"0x{a:x}" + ("." + "lh"[nb] if tile.element_bits == 4 and unit == "element" else "")
    return _table(title, grid, [str(r * fr) for r in range(tile.mn // fr)],
                  col_names=[c * fc for c in range(tile.k // fc)])


# -- register fragments (fastswz.tv_layout) ----------------------------------------------------------
def _fragment_grid(tv, max_cells, what):
    """(rows, cols, thread[r, c], value[r, c]) of a TV layout; -1 where no thread holds (r, c)."""
    from .tv_layout import TVLayout
    if not isinstance(tv, TVLayout):
        raise FastswzTypeError(f"fragment must be a TVLayout (fastswz.mma_sync, wgmma_d, ...), not "
                               f"{type(tv).__name__}")
    rows, cols = tv.extents
    if tv.order == "tmem":
        t, v = tv.inverse()
        used = np.flatnonzero((t >= 0).any(axis=0))
        cols = int(used.max()) + 1 if used.size else 1
        t, v = t[:, :cols], v[:, :cols]
    if rows * cols > max_cells:
        raise LayoutError(f"fragment {tv.name} covers {rows * cols} cells, more than max_cells={max_cells} "
                          f"for a {what}: raise max_cells")
    if tv.order != "tmem":
        t, v = tv.inverse()
    return rows, cols, t, v


def _fragment_title(tv):
    axes = {"col": "(row, col)", "row": "(row, col)", "tmem": "(TMEM lane, column)"}[tv.order]
    return f"{tv.name}: {tv.layout}  (thread, value) -> {axes}, {tv.extents[0]} x {tv.extents[1]}"


def show_fragment(tv, *, max_cells=MAX_TEXT_CELLS) -> str:
    """A text table of a register fragment as the PTX figures draw it: one cell per element of
    the matrix (or TMEM lane x column), labelled ``T<thread>V<value>`` (CuTe's ``print_layout``
    of a TV layout's inverse). Cells no thread holds are ``.``; where several threads hold one
    (ldmatrix ``.x1`` address lanes), the first is shown.

    Examples
    --------
    >>> from fastswz import mma_sync
    >>> print(show_fragment(mma_sync("m8n8k4", "f64", "A")))
    mma.m8n8k4.f64.A: ((4,8),1):((8,1),0)  (thread, value) -> (row, col), 8 x 4
              0       1       2       3
        +-------+-------+-------+-------+
     0  |  T0V0 |  T1V0 |  T2V0 |  T3V0 |
        +-------+-------+-------+-------+
     1  |  T4V0 |  T5V0 |  T6V0 |  T7V0 |
        +-------+-------+-------+-------+
     2  |  T8V0 |  T9V0 | T10V0 | T11V0 |
        +-------+-------+-------+-------+
     3  | T12V0 | T13V0 | T14V0 | T15V0 |
        +-------+-------+-------+-------+
     4  | T16V0 | T17V0 | T18V0 | T19V0 |
        +-------+-------+-------+-------+
     5  | T20V0 | T21V0 | T22V0 | T23V0 |
        +-------+-------+-------+-------+
     6  | T24V0 | T25V0 | T26V0 | T27V0 |
        +-------+-------+-------+-------+
     7  | T28V0 | T29V0 | T30V0 | T31V0 |
        +-------+-------+-------+-------+
    """
    rows, cols, t, v = _fragment_grid(tv, _limit("max_cells", max_cells), "terminal table")
    labels = [[f"T{a}V{b}" if a >= 0 else "." for a, b in zip(tr, vr)] for tr, vr in zip(t.tolist(), v.tolist())]
    w = max(len(x) for row in labels for x in row)
    table = _table(_fragment_title(tv), labels, width=w)
    return table


def draw_fragment(tv, *, max_cells=MAX_CELLS) -> str:
    """Draw a register fragment as SVG, as the PTX ISA's fragment figures do: rows and columns
    of the matrix (or of tensor memory), each cell ``T<thread>`` over ``V<value>``, coloured by
    the thread's position in its quad (``thread % 4``) and shaded by warp.

    Every cell is a ``<g class="cell">`` with ``data-row``, ``data-col``, ``data-thread`` and
    ``data-value``.

    Examples
    --------
    >>> import xml.etree.ElementTree as ET
    >>> from fastswz import mma_sync
    >>> svg = draw_fragment(mma_sync("m16n8k16", "f32", "C"))
    >>> cells = ET.fromstring(svg).findall(".//{http://www.w3.org/2000/svg}g[@class='cell']")
    >>> len(cells), [(c.get("data-row"), c.get("data-col"), c.get("data-thread"), c.get("data-value"))
    ...              for c in cells[:3]]
    (128, [('0', '0', '0', '0'), ('0', '1', '0', '1'), ('0', '2', '1', '0')])
    """
    rows, cols, t, v = _fragment_grid(tv, _limit("max_cells", max_cells), "drawing")
    cw, ch = 44, 30
    x0, y0 = 50, 62
    svg = _Svg()
    title = _fragment_title(tv)
    svg.text(10, 18, title, "title")
    svg.add('<g id="colheads">')
    for c in range(cols):
        svg.text(x0 + c * cw + cw / 2, y0 - 12, c, "colhead")
    svg.add('</g><g id="rowheads">')
    for r in range(rows):
        svg.text(x0 - 8, y0 + r * ch + ch / 2, r, "rowhead")
    svg.add('</g><g id="cells">')
    for r in range(rows):
        for c in range(cols):
            a, b = int(t[r, c]), int(v[r, c])
            fill = _PALETTE[(a % 4) + 4 * ((a // 32) % 2)] if a >= 0 else "#ffffff"
            label = f"T{a} V{b}" if a >= 0 else "."
            _cell(svg, r * cols + c, x0 + c * cw, y0 + r * ch, cw, ch, fill, label, 9,
                  [("row", r), ("col", c), ("thread", a), ("value", b)])
    svg.add("</g>")
    width = max(x0 + cols * cw + 20, 20 + 7.8 * len(title))
    attrs = {"fragment": tv.name, "rows": rows, "cols": cols, "x0": x0, "y0": y0, "cell-w": cw, "cell-h": ch}
    return svg.finish(width, y0 + rows * ch + 16, attrs, title)
