"""Bit-field helpers shared by every descriptor class.

A field spec is ``(name, lsb, width, lshift)``: the field holds ``value >> lshift`` in bits
``[lsb, lsb + width)``. Keeping the spec tables as data (cited to PTX and CUTLASS where they are
defined) and these three loops in one place is what keeps pack, unpack and the printed tables
of the different descriptors consistent.
"""

from __future__ import annotations

from .errors import FastswzTypeError

TABLE_HEADER = f"{'bits':<7} {'field':<20} {'raw':>7}  meaning"


def reserved_mask(spec, nbits: int) -> int:
    """The bits of an ``nbits``-wide word that no field of ``spec`` covers."""
    used = 0
    for _, lsb, width, _ in spec:
        used |= ((1 << width) - 1) << lsb
    return ((1 << nbits) - 1) & ~used


def replace_fields(obj, changes: dict):
    """A copy of a descriptor with some fields changed, validated by its constructor."""
    f = obj.fields()
    unknown = set(changes) - set(f)
    if unknown:
        raise FastswzTypeError(f"unknown {type(obj).__name__} field(s) {sorted(unknown)}; fields are {list(f)}")
    f.update(changes)
    return type(obj)(**f)


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


class InstrWord:
    """Shared protocol of the 32-bit instruction descriptors: subclasses list their fields in
    ``__slots__`` (the constructor arguments, in order), the bit table in ``SPEC`` and encode the
    fields in ``_raw()``."""

    __slots__ = ()
    SPEC: tuple = ()

    @property
    def value(self) -> int:
        """The packed 32-bit descriptor."""
        return pack_raw(self._raw(), self.SPEC)

    def __int__(self):
        return self.value

    __index__ = __int__

    @property
    def runtime_operand(self) -> int:
        """The 64-bit value CUTLASS passes to ``tcgen05.mma``: the descriptor in the upper half."""
        return self.value << 32

    def fields(self) -> dict:
        """The constructor arguments as a dict."""
        return {name: getattr(self, name) for name in self.__slots__}

    def replace(self, **changes):
        """A copy with some fields changed (validated like the constructor)."""
        return replace_fields(self, changes)

    def __eq__(self, other):
        return type(other) is type(self) and self.fields() == other.fields()

    def __hash__(self):
        return hash((type(self).__name__, self.value))

    def __str__(self):
        return f"0x{self.value:08x}"

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.fields().items())})"
