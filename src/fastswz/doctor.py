"""The descriptor doctor: name the likely mistake in a shared-memory descriptor.

:func:`check_descriptors` compares one descriptor, or the sequence a kernel issues (the order of
:meth:`fastswz.OperandTile.descriptors`: stages x MN blocks x K blocks, flattened), with what the
intended tile needs. Each descriptor that differs is diagnosed as an engine would: decode it,
compute the expected value, and try a list of mistake hypotheses, each a function from the
expected fields to what the mistaken value would be (LBO/SBO written in bytes, swapped, sm90's
layout code in sm100's field, the tcgen05 version bit missing, a k-step of +32 bytes past a
swizzle atom, ...; :data:`MISTAKES` lists them). The hypotheses, or pairs of them, that reproduce
the given value exactly are reported, most specific first; when none does, a field-by-field
difference is. A descriptor that differs only in fields the hardware does not read (the LBO of a
K-major swizzled operand, a stride of a mode with a single step, base_offset without swizzle) is
reported as equivalent, not as a mistake (NOTES 10: what an H100 showed).

:func:`consistent_tiles` answers the inverse question: which canonical tiles (element width,
major-ness, swizzle, tiling order, atom counts, MMA MN extent) a descriptor's LBO/SBO/layout_type
fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .descriptor import SmemDescriptorSM90, SmemDescriptorSM100, decode
from .errors import DescriptorFieldError, FastswzTypeError, TileError, as_int
from .modes import SwizzleMode
from .tile import OperandTile

__all__ = ["check_descriptors", "CheckResult", "Finding", "Mistake", "MISTAKES",
           "consistent_tiles", "TileMatch"]

#: Mistake kinds the doctor can name, most specific first (the order findings are ranked in).
MISTAKES = {
    "missing_version": "tcgen05 version bit 46 missing",
    "version_on_sm90": "tcgen05 version bit 46 set on a wgmma descriptor",
    "sm90_layout_code": "sm90 layout_type value in sm100's 3-bit field",
    "sm100_layout_code": "sm100 layout_type value in sm90's 2-bit field",
    "bytes_not_shifted": "field written in bytes instead of bytes >> 4",
    "shifted_twice": "field shifted by 4 twice (bytes >> 8)",
    "lbo_sbo_swapped": "LBO and SBO swapped",
    "element_units": "offset or stride in elements instead of bytes",
    "offset_not_shifted": "start advanced by an offset in bytes or elements, not 16-byte units",
    "k_step_past_atom": "k-step of +32 bytes past a swizzle atom",
    "k_step_rows": "MN-major k-step of the wrong number of K rows",
    "base_offset_missing": "pattern off its boundary with base_offset 0",
    "base_offset_wrong": "base_offset that the swizzle base does not need",
    "stride_per_row": "stride of one row instead of one 8-row group",
    "zero_stride": "stride 0 where the MMA steps in that direction",
    "lbo_k_major_habit": "LBO 1 (K-major swizzled convention) where the hardware reads LBO",
    "low_word_only": "only the low 32-bit word",
    "halves_swapped": "the two 32-bit words swapped",
    "start_not_rebased": "start address not rebased to the shared window",
    "address_not_masked": "address packed without PTX's 0x3FFFF mask (a cluster rank in LBO)",
    "wrong_position": "start address of another stage, MN block or K block",
    "wrong_swizzle": "wrong swizzle mode for the tile",
    "wrong_order": "strides of the other atom tiling order",
    "reserved_bits": "reserved bits set",
}
_RANK = {k: i for i, k in enumerate(MISTAKES)}

# Raw field positions: (lsb, width). Everything else is reserved (kept in "extra").
_POS = {
    "sm90": {"start": (0, 14), "lbo": (16, 14), "sbo": (32, 14), "version": (46, 1),
             "base": (49, 3), "lbo_mode": (52, 1), "layout": (62, 2)},
    "sm100": {"start": (0, 14), "lbo": (16, 14), "sbo": (32, 14), "version": (46, 3),
              "base": (49, 3), "lbo_mode": (52, 1), "layout": (61, 3)},
}
_USED = {a: sum(((1 << w) - 1) << lsb for lsb, w in p.values()) for a, p in _POS.items()}
_EXTRA = {a: ((1 << 64) - 1) & ~u for a, u in _USED.items()}
#: Bits PTX reserves (must be 0); on sm90 the version bit 46 and lbo_mode bit 52 are reserved too.
_RESERVED = {"sm90": SmemDescriptorSM90.RESERVED, "sm100": SmemDescriptorSM100.RESERVED}


def _split(v: int, arch: str) -> dict:
    r = {n: (v >> lsb) & ((1 << w) - 1) for n, (lsb, w) in _POS[arch].items()}
    r["extra"] = v & _EXTRA[arch]
    return r


def _pack(r: dict, arch: str) -> int:
    v = r["extra"]
    for n, (lsb, w) in _POS[arch].items():
        v |= (r[n] & ((1 << w) - 1)) << lsb
    return v


def _mode_name(code: int, arch: str) -> str:
    try:
        return str(SwizzleMode.from_layout_type(code, arch))
    except DescriptorFieldError:
        return "undefined"


def _bits_list(mask: int) -> str:
    bits = [i for i in range(64) if mask >> i & 1]
    return ", ".join(str(b) for b in bits)


# -- results -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mistake:
    """One explanation that reproduces a given descriptor exactly.

    ``kinds`` holds one :data:`MISTAKES` key, or two when two mistakes together are needed;
    ``text`` says it in plain words with the numbers of this descriptor.
    """

    kinds: tuple
    text: str

    @property
    def kind(self) -> str:
        """The kinds joined by ``+`` (``"lbo_sbo_swapped"``, ``"missing_version+bytes_not_shifted"``)."""
        return "+".join(self.kinds)


@dataclass(frozen=True)
class Finding:
    """The diagnosis of one descriptor.

    Attributes
    ----------
    index : int
        Position in the flattened sequence (stages x MN blocks x K blocks).
    stage, mn, k : int
        The sub-tile: pipeline stage, first MN row and first K element (elements).
    value, expected : int
        The given descriptor and the one the tile needs (the corrected value).
    status : {"ok", "equivalent", "mistake"}
        ``equivalent``: differs only in fields the hardware does not read.
    mistakes : tuple of Mistake
        Hypotheses that reproduce ``value`` exactly, most specific first.
    diff : tuple of str
        Field-by-field differences (empty when ``value == expected``).
    """

    index: int
    stage: int
    mn: int
    k: int
    value: int
    expected: int
    status: str
    mistakes: tuple = ()
    diff: tuple = ()

    @property
    def ok(self) -> bool:
        """True when the descriptor is what the tile needs (exactly or equivalently)."""
        return self.status != "mistake"

    @property
    def corrected(self) -> int:
        """The value the tile needs."""
        return self.expected

    def to_dict(self) -> dict:
        return {"index": self.index, "stage": self.stage, "mn": self.mn, "k": self.k,
                "value": f"0x{self.value:016x}", "expected": f"0x{self.expected:016x}",
                "status": self.status,
                "mistakes": [{"kind": m.kind, "text": m.text} for m in self.mistakes],
                "diff": list(self.diff)}


@dataclass(frozen=True)
class CheckResult:
    """What :func:`check_descriptors` found.

    ``ok`` is True when every compared descriptor is what the tile needs; ``findings`` has one
    :class:`Finding` per given value; ``notes`` holds remarks about the tile itself (e.g. a start
    off the swizzle pattern boundary). ``str()`` is the report the CLI prints.
    """

    tile: OperandTile
    start: int
    inst_mn: int
    swizzle_base: str
    lbo_policy: str
    stages: "int | None"
    stage_stride: "int | None"
    total: int
    findings: tuple
    notes: tuple = field(default=())

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    @property
    def wrong(self) -> tuple:
        """The findings with status ``mistake``."""
        return tuple(f for f in self.findings if not f.ok)

    def __repr__(self):
        return (f"<CheckResult ok={self.ok} compared={len(self.findings)} of {self.total} "
                f"wrong={len(self.wrong)}>")

    def __str__(self):
        return self.report()

    def report(self) -> str:
        """Human-readable report: one line per descriptor, the mistakes and corrected values."""
        t = self.tile
        lines = [f"tile         {t.dtype} {t.major}-major {t.swizzle}, {t.mn} x {t.k}, order "
                 f"{t.order}, {t.arch}, start 0x{self.start:x}, inst_mn {self.inst_mn}"
                 + (f", {self.stages} stages of 0x{self.stage_stride:x} B" if self.stages else ""),
                 f"compared     {len(self.findings)} of the {self.total} descriptors the tile "
                 f"issues ({'stages x ' if self.stages else ''}MN blocks x K blocks)"]
        for f in self.findings:
            where = (f"stage {f.stage} " if self.stages else "") + f"mn {f.mn} k {f.k}"
            lines.append(f"  [{f.index}] {where:<18} 0x{f.value:016x}  {f.status}")
            if f.status == "mistake":
                for m in f.mistakes[:3]:
                    lines.append(f"      likely: {m.text}")
                if not f.mistakes:
                    lines.append("      no known mistake reproduces it; fields that differ:")
                    lines.extend(f"        {d}" for d in f.diff)
                lines.append(f"      corrected: 0x{f.expected:016x}")
            elif f.status == "equivalent":
                lines.extend(f"      {d}" for d in f.diff)
        lines.extend(f"note         {n}" for n in self.notes)
        bad = self.wrong
        lines.append("result       all descriptors are what the tile needs" if not bad else
                     f"result       {len(bad)} of {len(self.findings)} descriptors are wrong")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """A JSON-ready dict (the CLI's ``--json``)."""
        t = self.tile
        return {"ok": self.ok, "dtype": t.dtype.name, "major": t.major, "swizzle": t.swizzle.value,
                "mn": t.mn, "k": t.k, "order": t.order, "arch": t.arch, "start": self.start,
                "inst_mn": self.inst_mn, "swizzle_base": self.swizzle_base,
                "lbo_policy": self.lbo_policy, "stages": self.stages,
                "stage_stride": self.stage_stride, "total": self.total,
                "compared": len(self.findings), "wrong": len(self.wrong),
                "findings": [f.to_dict() for f in self.findings], "notes": list(self.notes)}


# -- the context a hypothesis sees ----------------------------------------------------------------
class _Ctx:
    """Everything about one expected descriptor that the hypotheses need."""

    def __init__(self, plan, pos, g):
        self.plan = plan
        self.tile = plan.tile
        self.arch = plan.arch
        self.s, self.b, self.j = pos
        self.g = g
        self.e = int(plan.grid[pos])
        self.E = _split(self.e, self.arch)
        self.A = self.E["start"] << 4
        self.A0 = (int(plan.grid[self.s, self.b, 0]) & 0x3FFF) << 4
        self.stage_start = plan.starts[self.s]

    def where(self, pos=None) -> str:
        s, b, j = pos or (self.s, self.b, self.j)
        text = f"MN block {b} (mn {b * self.plan.inst_mn}), K block {j} (k {j * self.tile.inst_k})"
        return (f"stage {s}, " + text) if self.plan.stages else text


class _Plan:
    """The expected grid and the alternative grids of one check."""

    def __init__(self, tile, start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride):
        self.tile = tile
        self.arch = tile.desc_arch
        self.args = (start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride)
        grid = tile.descriptors(*self.args)
        self.grid = grid if stages is not None else grid[None]
        self.inst_mn = tile.check_inst_mn(inst_mn)
        self.stages, self.stage_stride = stages, stage_stride
        self.start = start
        self.starts = [start + s * (stage_stride or 0) for s in range(self.grid.shape[0])]
        self.relative = swizzle_base.strip().lower() == "relative" and tile.swizzle.is_swizzled
        self.kblock_bytes = tile.inst_k * tile.element_bits // 8
        self._alt = {}

    def alt(self, **change):
        """The grid of the same tile with one argument changed (None when that tile is illegal)."""
        key = tuple(sorted(change.items()))
        if key not in self._alt:
            t = self.tile
            args = dict(dtype=t.dtype, major=t.major, swizzle=t.swizzle, mn=t.mn, k=t.k,
                        order=t.order, arch=t.arch)
            args.update(change)
            try:
                other = OperandTile(**args, packed=t.packed,
                                    inst_k=t.inst_k if t.packed else None)
                g = other.descriptors(*self.args)
                g = g if self.stages is not None else g[None]
                self._alt[key] = g if g.shape == self.grid.shape else None
            except (TileError, DescriptorFieldError):
                self._alt[key] = None
        return self._alt[key]

    def dont_care(self, e_raw) -> int:
        """Bits of the expected descriptor the hardware does not read (NOTES 10)."""
        t, mask = self.tile, 0
        lbo_bits, sbo_bits = 0x3FFF << 16, 0x3FFF << 32
        if t.major == "K":
            if t.swizzle.is_swizzled and not e_raw["lbo_mode"]:
                mask |= lbo_bits  # PTX: not used for K-major swizzled ("assumed 1")
            if self.inst_mn <= 8:
                mask |= sbo_bits  # a single 8-row group
        else:
            amn, rows = t.atom_shape[0], t.swizzle.atom_rows
            mn_bits, k_bits = (lbo_bits, sbo_bits) if t.swizzle.is_swizzled else (sbo_bits, lbo_bits)
            if self.inst_mn <= amn:
                mask |= mn_bits  # one atom along MN: never read (seen on H100)
            if t.inst_k <= rows:
                mask |= k_bits
        if not t.swizzle.is_swizzled:
            mask |= 7 << 49  # base_offset is ignored with no swizzle (seen on H100)
        return mask


# -- the hypotheses: (ctx, raw) -> iterable of (raw', text) ---------------------------------------
def _h_missing_version(c, r):
    if c.arch == "sm100" and r["version"] == 1:
        yield dict(r, version=0), (
            "bit 46 is 0: tcgen05 descriptors need the version bits 46-48 = 0b001 (PTX 9.7.16.4.1; "
            "the bug of triton PR #8032); set bit 46")


def _h_version_on_sm90(c, r):
    if c.arch == "sm90" and not r["version"]:
        yield dict(r, version=1), (
            "bit 46 is set: that is the tcgen05 (sm100) version bit; a wgmma (sm90) descriptor has "
            "none there (was this built for sm100?)")


def _h_sm90_code(c, r):
    m = c.tile.swizzle
    if c.arch == "sm100" and m.is_swizzled and m is not SwizzleMode.B128_BASE32B:
        code = m.sm90_layout_type
        if code != r["layout"]:
            yield dict(r, layout=code), (
                f"layout_type holds sm90's value {code} for {m} in sm100's 3-bit field at bits "
                f"61-63, where {code} means {_mode_name(code, 'sm100')}; tcgen05's {m} is "
                f"{m.sm100_layout_type} (the sm90 value belongs at bits 62-63)")


def _h_sm100_code(c, r):
    m = c.tile.swizzle
    if c.arch == "sm90" and m.is_swizzled:
        code = m.sm100_layout_type
        if code & 3 != r["layout"]:
            yield dict(r, layout=code & 3), (
                f"layout_type holds sm100's value {code} for {m} in sm90's 2-bit field at bits "
                f"62-63, where it reads {code & 3} = {_mode_name(code & 3, 'sm90')}; wgmma's {m} "
                f"is {m.sm90_layout_type}")


_LABEL = {"start": "start address", "lbo": "LBO", "sbo": "SBO"}


def _h_bytes(c, r):
    for names in (("lbo", "sbo"), ("lbo",), ("sbo",), ("start",)):
        r2 = dict(r)
        parts = []
        for n in names:
            b = r[n] << 4
            r2[n] = b & 0x3FFF
            parts.append(f"{_LABEL[n]} {b}" + (" (truncated to 14 bits)" if b >> 14 else ""))
        if r2 != r:
            what = " and ".join(_LABEL[n] for n in names)
            yield r2, (f"{what} written in bytes ({', '.join(parts)}) instead of bytes >> 4 "
                       f"({', '.join(str(r[n]) for n in names)}): the 14-bit fields hold 16-byte "
                       f"units (PTX matrix-descriptor-encode)")


def _h_twice(c, r):
    for names in (("lbo", "sbo"), ("lbo",), ("sbo",), ("start",)):
        r2 = dict(r, **{n: r[n] >> 4 for n in names})
        if r2 != r:
            what = " and ".join(_LABEL[n] for n in names)
            yield r2, (f"{what} shifted by 4 twice: field "
                       f"{', '.join(str(r[n] >> 4) for n in names)} instead of "
                       f"{', '.join(str(r[n]) for n in names)} = bytes >> 4 "
                       f"({', '.join(str(r[n] << 4) for n in names)} B)")


def _h_swap(c, r):
    if r["lbo"] == r["sbo"]:
        return
    t = c.tile
    lb, sb = r["lbo"] << 4, r["sbo"] << 4
    if t.major == "MN" and t.swizzle.is_swizzled:
        why = (f"for an MN-major swizzled operand LBO is the distance between swizzle atoms along "
               f"MN ({lb} B) and SBO between 8-row groups along K ({sb} B); only the no-swizzle mode "
               f"has them the other way round (PTX 9.7.15.5.1.2.1)")
    elif t.major == "MN":
        why = (f"with no swizzle, MN-major LBO is the K stride between 8-row groups ({lb} B) and "
               f"SBO the MN stride between core matrices ({sb} B), the reverse of the swizzled modes")
    else:
        why = (f"for a K-major operand LBO is the K-direction stride ({lb} B) and SBO the stride "
               f"between 8-row groups along MN ({sb} B)")
    yield dict(r, lbo=r["sbo"], sbo=r["lbo"]), f"LBO and SBO swapped: {why}"


def _offset_refs(c) -> list:
    """The addresses a kernel may have advanced this descriptor's start from, with a name."""
    return [(c.A0, f"the offset of K block {c.j} from K block 0"),
            (c.stage_start, "the sub-tile's offset from the tile start"),
            (c.plan.start, "the offset from the first stage's start")]


def _h_elements(c, r):
    bits = c.tile.element_bits
    if bits == 8:
        return
    def el(nbytes):
        return nbytes * 8 // bits
    seen = set()
    for ref, what in _offset_refs(c) + [(0, "the whole start address")]:
        if ref > c.A:
            continue
        a2 = ref + el(c.A - ref)
        f = (a2 >> 4) & 0x3FFF
        if a2 == c.A or f in seen or f == r["start"]:
            continue
        seen.add(f)
        yield dict(r, start=f), (
            f"{what} was added in elements ({el(c.A - ref)}) instead of bytes ({c.A - ref}): "
            f"{c.tile.dtype} elements are {bits} bits, so the start is 0x{c.A:x}, not 0x{a2:x}")
    for names in (("lbo", "sbo"), ("lbo",), ("sbo",)):
        r2 = dict(r)
        for n in names:
            r2[n] = (el(r[n] << 4) >> 4) & 0x3FFF
        if r2 != r:
            what = " and ".join(_LABEL[n] for n in names)
            yield r2, (f"{what} computed in elements "
                       f"({', '.join(str(el(r[n] << 4)) for n in names)}) instead of bytes "
                       f"({', '.join(str(r[n] << 4) for n in names)})")


def _h_offset_units(c, r):
    # FlashMLA #67 (NOTES 8.10): advancing a descriptor by n elements adds n * bytes / 16 to
    # the start field; adding the byte count, or n itself, lands 16x (or 16/bytes x) too far.
    bits = c.tile.element_bits
    seen = {r["start"]}
    for ref, what in _offset_refs(c):
        d = c.A - ref
        if ref > c.A or d == 0:
            continue
        for units, n in (("bytes", d), ("elements", d * 8 // bits)):
            f = ((ref >> 4) + n) & 0x3FFF
            if f in seen:
                continue
            seen.add(f)
            yield dict(r, start=f), (
                f"{what} was added to the start field as {n} ({units}) instead of {d >> 4} "
                f"(16-byte units: {d} bytes >> 4); the field counts 16-byte units, so it holds "
                f"{r['start']} (0x{c.A:x}), not {f}")


def _h_k_step(c, r):
    if c.j == 0:
        return
    kb = c.plan.kblock_bytes
    a2 = c.A0 + c.j * kb
    if a2 == c.A:
        return
    t = c.tile
    if t.major == "K":
        row = t.swizzle.byte_width
        why = (f"{kb}-byte steps stay inside one {row}-byte swizzle row ({max(row // kb, 1)} K "
               f"block{'s' if row // kb > 1 else ''}); this block lies in another K atom, at 0x{c.A:x}")
    else:
        why = (f"an MN-major operand's K blocks are whole groups of K rows ({t.inst_k} rows of "
               f"{t.swizzle.byte_width} B), so this block starts at 0x{c.A:x}")
    yield dict(r, start=(a2 >> 4) & 0x3FFF), (
        f"K block {c.j} was reached by adding {kb} bytes per k-step to K block 0 (0x{c.A0:x} + "
        f"{c.j} x {kb} = 0x{a2:x}), but {why}; advance by the block's unswizzled offset "
        f"(+{c.A - c.A0} bytes, CuTe's descriptor iterator)")


def _h_k_rows(c, r):
    t = c.tile
    if c.j == 0 or t.major != "MN":
        return
    rows_atom = t.swizzle.atom_rows
    a_first = (int(c.plan.grid[c.s, c.b, 1]) & 0x3FFF) << 4
    group = (a_first - c.A0) * rows_atom // t.inst_k  # bytes between row groups of the K mode
    for rows in (8, 16, 32, 64):
        if rows == t.inst_k or rows % rows_atom:
            continue
        a2 = c.A0 + c.j * rows // rows_atom * group
        if a2 != c.A:
            yield dict(r, start=(a2 >> 4) & 0x3FFF), (
                f"each k-step advanced {rows} K rows (0x{c.A0:x} + {c.j} x {rows // rows_atom} x "
                f"{group} B = 0x{a2:x}), but one {t.dtype} MMA reads {t.inst_k} K rows "
                f"({t.inst_k * t.element_bits // 8} bytes of K), so K block {c.j} starts at 0x{c.A:x}")


def _h_base_offset(c, r):
    t = c.tile
    if not t.swizzle.is_swizzled:
        return
    p = t.swizzle.pattern_bytes
    if r["base"] and c.plan.relative:
        yield dict(r, base=0), (
            f"base_offset is 0, but the tile starts at 0x{c.stage_start:x}, {c.stage_start % p} "
            f"bytes past a {p}-byte swizzle pattern boundary, and its data is swizzled relative to "
            f"that start: set base_offset = (0x{c.stage_start:x} >> 7) & 7 = {r['base']}, or align "
            f"the buffer to {p} bytes"), "base_offset_missing"
    w = t.swizzle.byte_width // 16
    cands = [((c.stage_start >> 7) & 7, f"(0x{c.stage_start:x} >> 7) & 7, from the tile start"),
             ((c.A >> 7) & 7, f"(0x{c.A:x} >> 7) & 7, from this sub-tile's address"),
             ((c.A >> 7) & (w - 1), f"(0x{c.A:x} >> 7) & {w - 1}, from this sub-tile's address")]
    seen = {r["base"]}
    for v, how in cands:
        if v in seen:
            continue
        seen.add(v)
        if c.plan.relative:
            why = (f"the pattern starts at the tile start 0x{c.stage_start:x}, so base_offset = "
                   f"{r['base']}")
        else:
            why = ("the swizzle here acts on absolute addresses (CuTe, TMA: swizzle_base "
                   "'absolute'), which needs base_offset 0; if the data really is swizzled relative "
                   "to the buffer start, check with swizzle_base='relative'")
        yield dict(r, base=v), f"base_offset = {v} = {how}, but {why}", "base_offset_wrong"


def _h_per_row(c, r):
    t = c.tile
    row = t.swizzle.byte_width
    name = ("sbo" if t.major == "K" or t.swizzle.is_swizzled else "lbo")
    if r[name] and r[name] << 4 != row:
        what = "between 8-row groups along MN" if t.major == "K" else "between 8-row groups along K"
        if t.swizzle is SwizzleMode.B128_BASE32B:
            what = "between 4-row groups along K"
        yield dict(r, **{name: row >> 4}), (
            f"{_LABEL[name]} is the distance of one {row}-byte row; it must be the distance {what} "
            f"({r[name] << 4} B)")


def _h_zero(c, r):
    t = c.tile
    for n in ("lbo", "sbo"):
        if r[n] and not (n == "lbo" and r["lbo_mode"]):
            if t.major == "K":
                what = ("the MMA covers more than one 8-row group along MN" if n == "sbo" else
                        "an interleave K step spans two core matrices along K")
            else:
                mn_name = "lbo" if t.swizzle.is_swizzled else "sbo"
                what = ("the MMA covers more than one swizzle atom along MN" if n == mn_name else
                        "the MMA covers more than one group of K rows")
            yield dict(r, **{n: 0}), (
                f"{_LABEL[n]} is 0, which only a sub-tile with a single step in that direction may "
                f"have, but {what}: {_LABEL[n]} = {r[n] << 4} B")


def _h_lbo_habit(c, r):
    # NOTES 8.8-8.9: K-major swizzled operands ignore LBO ("assumed 1", CUTLASS writes 1);
    # copied to an MN-major or no-swizzle operand, whose LBO the hardware reads, it is wrong
    t = c.tile
    if (t.major == "MN" or not t.swizzle.is_swizzled) and r["lbo"] not in (1,) and not r["lbo_mode"]:
        what = ("the distance between swizzle atoms along MN" if t.major == "MN" and
                t.swizzle.is_swizzled else "the K-direction stride between core matrices"
                if t.major == "K" else "the K stride between 8-row groups")
        yield dict(r, lbo=1), (
            f"LBO is 1 (16 B), the value CUTLASS writes for K-major swizzled operands, where the "
            f"hardware ignores it (PTX: 'assumed 1'); this {t.major}-major "
            f"{t.swizzle} operand's LBO is read: {what}, {r['lbo'] << 4} B")


def _h_low_word(c, r):
    if r["sbo"] or r["layout"] or r["version"] or r["base"]:
        yield dict(r, sbo=0, layout=0, version=0, base=0, lbo_mode=0), (
            "only the low 32-bit word (start address and LBO) was written: the high word (SBO, "
            "base_offset, layout_type and, on sm100, the version bit) is 0")


def _h_halves(c, r):
    # a descriptor assembled from two 32-bit registers in the wrong order (mov.b64 {lo, hi})
    w = ((c.e & 0xFFFFFFFF) << 32) | (c.e >> 32)
    if w != c.e:
        yield _split(w, c.arch), (
            "the two 32-bit words are swapped: the low word (start address, LBO) must be bits "
            "0-31 and the high word (SBO, base_offset, layout_type) bits 32-63, as in "
            "mov.b64 %rd, {lo, hi}")


def _h_not_rebased(c, r):
    for base, what in ((c.plan.start, "the tile's"), (c.stage_start, "this stage's")):
        if base and c.A >= base:
            a2 = c.A - base
            yield dict(r, start=(a2 >> 4) & 0x3FFF), (
                f"the start address is the offset 0x{a2:x} without {what} shared-window address "
                f"0x{base:x}: descriptor start addresses are absolute shared-window addresses (a "
                f"layout computed from address 0 must be rebased)")
            if c.plan.start == c.stage_start:
                return


def _h_not_masked(c, r):
    # PTX 9.7.15.5.1.2.2: matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4. In a CTA of cluster
    # rank k > 0 the shared address of a buffer carries k from bit 24 up (seen on an H100, the
    # fastswz GEMM's 2-CTA clusters); shifted without the mask, k lands in LBO (bit 20 = 16 units).
    for rank in range(1, 16):
        w = c.e + (rank << 20)
        if w >> 64:
            break
        yield _split(w, c.arch), (
            f"the start address was packed without PTX's mask (x & 0x3FFFF) >> 4 from the "
            f"shared address 0x{(rank << 24) + c.A:x}, which a CTA of cluster rank {rank} sees "
            f"(the rank from bit 24 up): (x >> 4) carried {rank << 4} units (+{rank << 8} B) into "
            f"LBO; mask the address before packing it")


def _h_position(c, r):
    grid = c.plan.grid
    seen = {c.e}
    for pos in np.ndindex(grid.shape):
        v = int(grid[pos])
        if v in seen:
            continue
        seen.add(v)
        r2 = _split(v, c.arch)
        a2 = r2["start"] << 4
        r3 = dict(r, start=r2["start"], base=r2["base"], lbo_mode=r2["lbo_mode"],
                  lbo=r2["lbo"] if r2["lbo_mode"] else r["lbo"])
        yield r3, (f"the start address 0x{a2:x} is that of {c.where(pos)}, not of {c.where()} "
                   f"(off by {a2 - c.A:+d} bytes)")
    stride = c.plan.stage_stride or (c.tile.nbytes if c.plan.stages is None else None)
    if stride:
        # a stage the check was not given: up to 8 stage strides either way, inside the window
        for d in sorted(range(-8, 9), key=abs):
            s2 = c.s + d
            if d == 0 or 0 <= s2 < grid.shape[0]:
                continue
            a2 = c.A + d * stride
            if not 0 <= a2 < 1 << 18:
                continue
            if c.plan.stages:
                what = "one stage" if abs(d) == 1 else f"{abs(d)} stages"
            else:
                what = ("one tile (a pipeline stage?)" if abs(d) == 1 else
                        f"{abs(d)} tiles (pipeline stages?)")
            yield dict(r, start=(a2 >> 4) & 0x3FFF), (
                f"the start address 0x{a2:x} is {what} {'past' if d > 0 else 'before'} "
                f"{c.where()} (off by {d * stride:+d} bytes)")


def _h_swizzle(c, r):
    t = c.tile
    modes = [m for m in SwizzleMode if m is not t.swizzle
             and not (c.arch == "sm90" and m is SwizzleMode.B128_BASE32B)]
    for m in modes:
        code = m.layout_type(c.arch)
        yield dict(r, layout=code), (f"layout_type says {m} (code {code}), but the tile is "
                                     f"{t.swizzle}-swizzled (code {t.swizzle.layout_type(c.arch)})")
        g = c.plan.alt(swizzle=m)
        if g is not None:
            r2 = _split(int(g[c.s, c.b, c.j]), c.arch)
            if r2 != dict(r, layout=code):
                yield r2, (f"this is the descriptor of the same tile stored {m}-swizzled (its "
                           f"layout_type, LBO and SBO); the intended tile is {t.swizzle}")


def _h_order(c, r):
    other = "k" if c.tile.order == "mn" else "mn"
    g = c.plan.alt(order=other)
    if g is not None:
        v = int(g[c.s, c.b, c.j])
        if v != c.e:
            names = {"mn": "MN atoms first, CuTe's tile_to_shape default",
                     "k": "K atoms first, the TMA-box order of DeepGEMM and ThunderKittens"}
            yield _split(v, c.arch), (
                f"LBO/SBO (and the start) are those of atom order '{other}' ({names[other]}); the "
                f"intended tile is order '{c.tile.order}' ({names[c.tile.order]})")


def _h_reserved(c, r):
    extra = c.g & _RESERVED[c.arch]
    if c.arch == "sm90":
        extra &= ~((1 << 46) | (1 << 52))  # named by version_on_sm90 / the field diff
    new = extra & ~r["extra"]
    if new:
        yield dict(r, extra=r["extra"] | new), (
            f"reserved bit{'s' if new & (new - 1) else ''} {_bits_list(new)} "
            f"(0x{new:016x}) set; they must be 0")


# (kind, function, field-level: may follow another hypothesis in a pair)
_HYPOTHESES = [
    ("missing_version", _h_missing_version, True),
    ("version_on_sm90", _h_version_on_sm90, True),
    ("sm90_layout_code", _h_sm90_code, True),
    ("sm100_layout_code", _h_sm100_code, True),
    ("bytes_not_shifted", _h_bytes, True),
    ("shifted_twice", _h_twice, True),
    ("lbo_sbo_swapped", _h_swap, True),
    ("element_units", _h_elements, False),
    ("offset_not_shifted", _h_offset_units, False),
    ("k_step_past_atom", _h_k_step, False),
    ("k_step_rows", _h_k_rows, False),
    ("base_offset", _h_base_offset, True),
    ("stride_per_row", _h_per_row, True),
    ("zero_stride", _h_zero, True),
    ("lbo_k_major_habit", _h_lbo_habit, True),
    ("low_word_only", _h_low_word, False),
    ("halves_swapped", _h_halves, False),
    ("start_not_rebased", _h_not_rebased, False),
    ("address_not_masked", _h_not_masked, False),
    ("wrong_position", _h_position, False),
    ("wrong_swizzle", _h_swizzle, False),
    ("wrong_order", _h_order, False),
    ("reserved_bits", _h_reserved, True),
]


def _candidates(c, r, only_fields=False, skip=()):
    for kind, fn, is_field in _HYPOTHESES:
        if only_fields and not is_field:
            continue
        for item in fn(c, r):
            r2, text = item[0], item[1]
            k = item[2] if len(item) > 2 else kind
            if k not in skip:
                yield k, r2, text


def _diagnose(c, care) -> "tuple[tuple, tuple]":
    """(mistakes, diff) for a descriptor that differs from the expected one.

    A hypothesis reproduces the given value when they agree on every bit in ``care`` (the bits
    the hardware reads), so a harmless difference (e.g. DeepGEMM's LBO 0) does not hide it.
    """
    g, arch = c.g, c.arch
    singles, found = [], []
    for kind, r2, text in _candidates(c, c.E):
        singles.append((kind, r2, text))
        if not (_pack(r2, arch) ^ g) & care:
            found.append((_pack(r2, arch) != g, Mistake((kind,), text)))
    if not found:
        for k1, r1, t1 in singles:
            f1 = {n for n in r1 if r1[n] != c.E[n]}
            for k2, r2, t2 in _candidates(c, r1, only_fields=True, skip=(k1,)):
                # two independent mistakes touch different fields (no second one undoing the first)
                if any(r2[n] != r1[n] for n in f1):
                    continue
                if not (_pack(r2, arch) ^ g) & care:
                    pair = sorted([(k1, t1), (k2, t2)], key=lambda x: _RANK[x[0]])
                    found.append((_pack(r2, arch) != g, Mistake(
                        tuple(k for k, _ in pair), "two mistakes: " + "; and ".join(t for _, t in pair))))
    uniq = {}
    for inexact, m in found:
        key = (m.kinds, m.text)
        uniq[key] = min(uniq.get(key, (inexact, m)), (inexact, m), key=lambda x: x[0])
    # Fewest mistakes first; then those that reproduce every bit (not only the bits the
    # hardware reads); then by kind, most specific first.
    ranked = sorted(uniq.values(), key=lambda x: (len(x[1].kinds), x[0], [_RANK[k] for k in x[1].kinds]))
    return tuple(m for _, m in ranked), _field_diff(_split(g, arch), c.E, arch, c.A)


def _field_diff(gr, er, arch, a_expected) -> tuple:
    out = []
    for n in ("start", "lbo", "sbo"):
        if gr[n] != er[n]:
            name = {"start": "start_address", "lbo": "leading_byte_offset",
                    "sbo": "stride_byte_offset"}[n]
            extra = f", off by {(gr[n] - er[n]) << 4:+d} bytes" if n == "start" else ""
            out.append(f"{name}: 0x{gr[n] << 4:x} ({gr[n] << 4} B, field {gr[n]}), expected "
                       f"0x{er[n] << 4:x} ({er[n] << 4} B, field {er[n]}){extra}")
    if gr["layout"] != er["layout"]:
        out.append(f"layout_type: {gr['layout']} ({_mode_name(gr['layout'], arch)}), expected "
                   f"{er['layout']} ({_mode_name(er['layout'], arch)})")
    if gr["base"] != er["base"]:
        out.append(f"base_offset: {gr['base']}, expected {er['base']}")
    if gr["version"] != er["version"]:
        out.append(f"bits 46-48: {gr['version']:#05b}, expected {er['version']:#05b}"
                   if arch == "sm100" else "bit 46 (reserved on sm90): 1, expected 0")
    if gr["lbo_mode"] != er["lbo_mode"]:
        out.append(f"lbo_mode (bit 52): {gr['lbo_mode']}, expected {er['lbo_mode']}")
    if gr["extra"] != er["extra"]:
        out.append(f"reserved bits {_bits_list(gr['extra'] ^ er['extra'])}: "
                   f"0x{gr['extra']:016x}, expected 0x{er['extra']:016x}")
    return tuple(out)


def _values(values) -> "list[int]":
    if isinstance(values, (str, bytes)):
        raise FastswzTypeError(f"values={values!r} must be an int or a sequence of ints, not a string")
    arr = values if isinstance(values, np.ndarray) else None
    if arr is not None:
        if arr.dtype.kind not in "iu":
            raise FastswzTypeError(f"values.dtype={arr.dtype} is not an integer dtype; pass uint64 descriptors")
        items = arr.ravel().tolist()
    elif hasattr(values, "__iter__"):
        items = []
        stack = [iter(values)]
        while stack:  # nested lists (e.g. ndarray.tolist() of a grid) flatten in C order
            for v in stack[-1]:
                if isinstance(v, (list, tuple, np.ndarray)):
                    stack.append(iter(v.tolist() if isinstance(v, np.ndarray) else v))
                    break
                items.append(v)
            else:
                stack.pop()
    else:
        items = [values]
    if not items:
        raise DescriptorFieldError("values is empty: pass at least one descriptor")
    out = []
    for i, v in enumerate(items):
        v = as_int(f"values[{i}]", v)
        if not 0 <= v < 1 << 64:
            raise DescriptorFieldError(f"values[{i}]={v:#x} is not a 64-bit descriptor (0 <= value < 2**64)")
        out.append(v)
    return out


def check_descriptors(values, tile, start=0, inst_mn=None, swizzle_base="absolute",
                      lbo_policy="cutlass", stages=None, stage_stride=None) -> CheckResult:
    """Compare descriptors with what ``tile`` needs and name the likely mistakes.

    Parameters
    ----------
    values : int or array_like of int
        One descriptor, or the sequence a kernel issues in the order of
        :meth:`OperandTile.descriptors` (stages x MN blocks x K blocks, flattened; an array of
        that shape is flattened). Fewer values than the tile issues are compared with the first
        ones (a K loop of MN block 0 is such a prefix).
    tile : OperandTile
        The intended tile (its ``arch`` picks the wgmma or tcgen05 descriptor format).
    start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride
        As in :func:`fastswz.tile_descriptors`.

    Returns
    -------
    CheckResult
        ``ok`` when every descriptor is what the tile needs; one :class:`Finding` per value.

    Examples
    --------
    >>> t = OperandTile("bf16", "MN", "128B", 128, 64)
    >>> r = check_descriptors(0x4000008000400080, t, start=0x800)
    >>> r.ok
    True
    >>> r = check_descriptors(0x4000004000800080, t, start=0x800)    # LBO/SBO fields swapped
    >>> f = r.findings[0]
    >>> f.status, f.mistakes[0].kind, hex(f.corrected)
    ('mistake', 'lbo_sbo_swapped', '0x4000008000400080')
    >>> t = OperandTile("bf16", "K", "128B", 64, 128, arch="sm100")
    >>> r = check_descriptors([0x4000404000010040, 0x4000404000010042, 0x4000404000010044,
    ...                        0x4000404000010046, 0x4000404000010048], t, start=0x400)
    >>> [f.status for f in r.findings]
    ['ok', 'ok', 'ok', 'ok', 'mistake']
    >>> r.findings[4].mistakes[0].kind, hex(r.findings[4].corrected)
    ('k_step_past_atom', '0x4000404000010240')
    """
    if not isinstance(tile, OperandTile):
        raise FastswzTypeError(f"tile={tile!r} must be an OperandTile, not {type(tile).__name__}")
    given = _values(values)
    plan = _Plan(tile, start, inst_mn, swizzle_base, lbo_policy, stages, stage_stride)
    flat = plan.grid.reshape(-1)
    if len(given) > flat.size:
        raise DescriptorFieldError(
            f"values has {len(given)} descriptors, but the tile issues {flat.size} "
            f"({' x '.join(str(n) for n in plan.grid.shape[0 if stages else 1:])}: "
            f"{'stages x ' if stages else ''}MN blocks x K blocks); pass at most {flat.size}, or "
            f"check inst_mn and stages")
    findings = []
    for i, g in enumerate(given):
        pos = np.unravel_index(i, plan.grid.shape)
        pos = tuple(int(x) for x in pos)
        c = _Ctx(plan, pos, g)
        where = dict(index=i, stage=pos[0], mn=pos[1] * plan.inst_mn, k=pos[2] * tile.inst_k,
                     value=g, expected=c.e)
        if g == c.e:
            findings.append(Finding(status="ok", **where))
            continue
        mask = plan.dont_care(c.E)
        if not (g ^ c.e) & ~mask:
            notes = _equivalent_notes(c, mask)
            mistakes, _ = _diagnose(c, (1 << 64) - 1)
            if mistakes and mistakes[0].kinds[0] in ("bytes_not_shifted", "lbo_sbo_swapped"):
                notes += (f"(it looks like: {mistakes[0].text}; harmless here)",)
            findings.append(Finding(status="equivalent", diff=notes, **where))
            continue
        mistakes, diff = _diagnose(c, ((1 << 64) - 1) & ~mask)
        findings.append(Finding(status="mistake", mistakes=mistakes, diff=diff, **where))
    notes = _notes(plan)
    exp = [int(x) for x in flat]
    if given != exp[:len(given)] and sorted(given) == sorted(exp):
        notes += ("the values are exactly the tile's descriptors in another order: this check "
                  "expects stages x MN blocks x K blocks, K blocks innermost (the order of "
                  "'fastswz tile')",)
    return CheckResult(tile, start, plan.inst_mn, swizzle_base, lbo_policy, stages, stage_stride,
                       int(flat.size), tuple(findings), notes)


def _equivalent_notes(c, mask) -> tuple:
    gr, er, t = _split(c.g, c.arch), c.E, c.tile
    out = []
    if gr["lbo"] != er["lbo"]:
        why = ("the hardware does not read LBO for a K-major swizzled operand (PTX: 'assumed 1'; "
               "CUTLASS writes 16 B, DeepGEMM 0)" if t.major == "K" else
               "the MMA's sub-tile has a single step in that direction, so the field is never read")
        out.append(f"equivalent: LBO is {gr['lbo'] << 4} B, the tile's encoding {er['lbo'] << 4} B; {why}")
    if gr["sbo"] != er["sbo"]:
        out.append(f"equivalent: SBO is {gr['sbo'] << 4} B, the tile's encoding {er['sbo'] << 4} B; "
                   f"the MMA's sub-tile has a single step in that direction, so it is never read")
    if gr["base"] != er["base"]:
        out.append(f"equivalent: base_offset {gr['base']} is ignored with no swizzle")
    return tuple(out)


def _notes(plan) -> tuple:
    t = plan.tile
    if not t.swizzle.is_swizzled or plan.relative:
        return ()
    p = t.swizzle.pattern_bytes
    off = [s for s in plan.starts if s % p]
    if not off:
        return ()
    return (f"the tile starts at 0x{off[0]:x}, off the {p}-byte swizzle pattern boundary: these "
            f"descriptors assume the data is swizzled by absolute address (as TMA and CuTe do; "
            f"base_offset 0). If it was swizzled relative to the buffer start (a software XOR), "
            f"use swizzle_base='relative' or align the buffer to {p} bytes",)


# -- which canonical tiles fit a descriptor -----------------------------------------------------------
#: One representative type per shared-memory element width (storage bits, packed flag).
_WIDTHS = (("e2m1", True), ("e2m3", False), ("e4m3", False), ("bf16", False), ("tf32", False))


@dataclass(frozen=True)
class TileMatch:
    """A family of canonical tiles whose descriptors have a given LBO, SBO and layout_type.

    Attributes
    ----------
    major : str
    swizzle : SwizzleMode
    order : str
        Atom tiling order (``"mn"`` or ``"k"``).
    dtypes : tuple of str
        One representative type per element width that fits (``e2m1`` means packed 4-bit,
        ``e2m3`` 6-bit stored one per byte).
    atoms_mn, atoms_k : int or None
        Atoms of the whole tile along MN / K that the strides pin (None: any).
    inst_mn : str
        What the MMA's MN extent per descriptor must be (``"one 8-row group (8)"``, ...).
    lbo_policy : str or None
        For K-major swizzled: ``"cutlass"`` (LBO 16 B) or ``"deepgemm"`` (0).
    arch : str
        The tile architecture the family was checked on.
    inst_k96 : bool
        Packed e2m1 with K = 96 blocks split by the absolute-address LBO mode (sm103).
    """

    major: str
    swizzle: SwizzleMode
    order: str
    dtypes: tuple
    atoms_mn: "int | None"
    atoms_k: "int | None"
    inst_mn: str
    lbo_policy: "str | None" = None
    arch: str = "sm90"
    inst_k96: bool = False

    def example(self, dtype=None) -> "tuple[OperandTile, int]":
        """The smallest ``(OperandTile, inst_mn)`` of this family (for ``dtype``, default the first)."""
        name = dtype or self.dtypes[0]
        return _example(self, name, name == "e2m1", self.arch)

    def to_dict(self) -> dict:
        return {"major": self.major, "swizzle": self.swizzle.value, "order": self.order,
                "bits": [_dtype_bits(d) for d in self.dtypes], "dtypes": list(self.dtypes),
                "atoms_mn": self.atoms_mn, "atoms_k": self.atoms_k, "inst_mn": self.inst_mn,
                "lbo_policy": self.lbo_policy, "inst_k96": self.inst_k96, "text": str(self)}

    def __str__(self):
        bits = "/".join(f"{_dtype_bits(d)}" for d in self.dtypes)
        mn = "any MN" if self.atoms_mn is None else f"{self.atoms_mn} MN atom{'s' * (self.atoms_mn > 1)}"
        k = "any K" if self.atoms_k is None else f"{self.atoms_k} K atom{'s' * (self.atoms_k > 1)}"
        pol = f", lbo_policy {self.lbo_policy}" if self.lbo_policy else ""
        if self.inst_k96:
            pol += ", packed K = 96 split by lbo_mode 1 (LBO holds an address)"
        return (f"{self.major}-major {self.swizzle}, order {self.order}, {bits}-bit: {mn}, {k}, "
                f"inst_mn {self.inst_mn}{pol}")


def _dtype_bits(name):
    return {"e2m1": 4, "e2m3": 6, "e4m3": 8, "bf16": 16, "tf32": 32}[name]


def _example(m, name, packed, arch):
    """Smallest tile of family ``m`` for one type: (tile, inst_mn), or None when none exists."""
    single_mn = m.inst_mn.startswith("one")
    inst_k = 96 if m.inst_k96 else None
    try:
        amn, ak = OperandTile(name, m.major, m.swizzle, 3 << 12, 3 << 12, m.order, arch,
                              packed=packed, inst_k=inst_k).atom_shape
    except TileError:
        return None
    for n_mn in ([m.atoms_mn] if m.atoms_mn else ([1, 2] if single_mn else [2])):
        for n_k in ([m.atoms_k] if m.atoms_k else range(1, 9)):
            try:
                t = OperandTile(name, m.major, m.swizzle, amn * n_mn, ak * n_k, m.order, arch,
                                packed=packed, inst_k=inst_k)
            except TileError:
                continue
            inst = (8 if m.major == "K" else amn) if single_mn else t.mn
            return t, inst
    return None


def consistent_tiles(value, arch="sm90", strict=True) -> tuple:
    """The canonical tile families a shared-memory descriptor's LBO, SBO and layout_type fit.

    Element width, major-ness, swizzle, tiling order, the atom counts the strides pin and the
    MMA MN extent per descriptor. Every family listed is checked by building its smallest tile
    and comparing that tile's strides with the descriptor's (the start address is not used).

    Parameters
    ----------
    value : int or SmemDescriptorSM90 or SmemDescriptorSM100
    arch : {"sm90", "sm100", "sm103"}
    strict : bool
        Refuse set reserved bits (as :func:`fastswz.decode`).

    Returns
    -------
    tuple of TileMatch

    Examples
    --------
    >>> for m in consistent_tiles(0x4000004000010040):      # K-major 128B, SBO 1024 B
    ...     print(m)
    K-major 128B, order mn, 8/16/32-bit: any MN, any K, inst_mn 16 or more, lbo_policy cutlass
    K-major 128B, order k, 8/16/32-bit: any MN, 1 K atom, inst_mn 16 or more, lbo_policy cutlass
    >>> [str(m) for m in consistent_tiles(0x4000008000400080)]  # bf16 MN-major 128B, 128 x 64
    ['MN-major 128B, order mn, 16-bit: 2 MN atoms, any K, inst_mn 2 or more atoms']
    """
    if arch not in ("sm90", "sm100", "sm103"):
        raise DescriptorFieldError(
            f"arch={arch!r}: consistent_tiles reads shared-memory descriptors; use 'sm90', "
            f"'sm100' or 'sm103'")
    d = value if isinstance(value, (SmemDescriptorSM90, SmemDescriptorSM100)) else decode(value, arch, strict=strict)
    tarch = "sm90" if isinstance(d, SmemDescriptorSM90) else ("sm103" if arch == "sm103" else "sm100")
    lbo, sbo, mode = d.leading_byte_offset, d.stride_byte_offset, d.layout_type
    lbo_mode = getattr(d, "lbo_mode", 0)
    out = []
    for major in ("K", "MN"):
        for order in ("mn", "k"):
            out.extend(_families(major, order, mode, lbo, sbo, lbo_mode, tarch))
    return tuple(out)


def _families(major, order, mode, lbo, sbo, lbo_mode, arch):
    """Candidate families from the stride rules of tile.py, each verified on its example tiles."""
    if major == "K" and mode is SwizzleMode.B128_BASE32B:
        return []
    ab = mode.atom_bytes
    policy = None
    if major == "K":
        mn_field, k_field = sbo, (None if mode.is_swizzled or lbo_mode else lbo)
        if mode.is_swizzled and not lbo_mode:
            if lbo not in (0, 16):
                return []
            policy = "cutlass" if lbo == 16 else "deepgemm"
        single_txt, multi_txt = "one 8-row group (8)", "16 or more"
    else:
        mn_field, k_field = (lbo, sbo) if mode.is_swizzled else (sbo, lbo)
        single_txt, multi_txt = "one atom", "2 or more atoms"
    # mn-direction field: 0 <=> one step; else the MN atom stride.
    atoms_mn = atoms_k = None
    if mn_field == 0:
        inst = single_txt
    else:
        inst = multi_txt
        if order == "mn":
            if mn_field != ab:
                return []
        else:
            if mn_field % ab:
                return []
            atoms_k = mn_field // ab
    if k_field is not None:
        if k_field == 0:
            return []  # legal canonical tiles always step along K (NOTES 2)
        if order == "mn":
            if k_field % ab:
                return []
            atoms_mn = k_field // ab
        elif k_field != ab:
            return []
    if atoms_mn is not None and inst == multi_txt and major == "K" and atoms_mn < 2:
        return []
    fam = TileMatch(major, mode, order, (), atoms_mn, atoms_k, inst, policy, arch, bool(lbo_mode))
    dtypes = []
    for name, packed in _WIDTHS:
        if lbo_mode and not packed:
            continue
        ex = _example(fam, name, packed, arch)
        if ex is None:
            continue
        t, inst_mn = ex
        got_lbo, got_sbo = t.strides(inst_mn, policy or "cutlass")
        if got_sbo == sbo and (lbo_mode or got_lbo == lbo):
            dtypes.append(name)
    if not dtypes:
        return []
    return [TileMatch(major, mode, order, tuple(dtypes), atoms_mn, atoms_k, inst, policy, arch,
                      bool(lbo_mode))]
