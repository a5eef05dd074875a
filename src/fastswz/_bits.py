"""Bit-field helpers shared by every descriptor class.

A field spec is ``(name, lsb, width, lshift)``: the field holds ``value >> lshift`` in bits
``[lsb, lsb + width)``. Keeping the spec tables as data (cited to PTX and CUTLASS where they are
defined) and these three loops in one place is what keeps pack, unpack and the printed tables
of the different descriptors consistent.
"""

from __future__ import annotations

TABLE_HEADER = f"{'bits':<7} {'field':<20} {'raw':>7}  meaning"


def pack_raw(raw: dict, spec) -> int:
    """OR each raw (already encoded) field value into place."""
    v = 0
    for name, lsb, _, _ in spec:
        v |= raw[name] << lsb
    return v


def split_raw(value: int, spec) -> dict:
    """The raw (encoded) value of every field of ``value``."""
    return {name: (value >> lsb) & ((1 << width) - 1) for name, lsb, width, _ in spec}


def table_rows(raw: dict, spec, meaning: dict) -> list:
    """One table row per field: bit range, name, raw value, meaning."""
    return [f"{f'{lsb}-{lsb + width - 1}':<7} {name:<20} {raw[name]:>7}  {meaning.get(name, '')}"
            for name, lsb, width, _ in spec]
