"""Edits of a compiled sm_90a cubin's instruction control bits (no disassembler needed).

A Hopper SASS instruction is 128 bits, stored as two little-endian 64-bit words. The low word's
bits 0-11 are the opcode (``0x223`` is ``FFMA Rd, Ra, Rb, Rc``); the high word's bits 41-61 are the
scheduling control the compiler writes beside each instruction: the stall count (41-44), a
no-yield flag (45), the scoreboard barriers (46-57) and the operand reuse flags (58-61). ptxas
sets the no-yield flag on every instruction that caches an operand for the next one (an
instruction that lets the warp scheduler switch warps must not leave operands in the reuse
cache), so a run of such FFMAs holds the issue slot of its SM sub-partition.

:func:`ffma_yield` clears both on the FFMAs that carry them. In a block-scaled kernel the
promotion of a k-tile's partial sums (64-96 FFMAs per thread) runs in one consumer warpgroup
while the other's warps, on the same four sub-partitions, wait to issue their next wgmma; an
FFMA that may yield lets them in. DeepGEMM's ``interleave_ffma`` edits the same two bits of its
fp8 kernels' FFMAs for that reason. Both bits are hints: clearing a reuse flag makes the next
instruction read the register file instead of the cache, and the stall counts and scoreboards,
which the program's correctness rests on, are left as ptxas wrote them.

>>> ffma_yield(b"not an ELF file")
Traceback (most recent call last):
    ...
fastswz.cuda.errors.CudaError: ffma_yield: not a 64-bit little-endian ELF cubin (its first bytes are b'not an ELF file')
"""
from __future__ import annotations

import struct

from .errors import CudaError

__all__ = ["FFMA_OPCODE", "REUSE_MASK", "NO_YIELD_BIT", "text_sections", "ffma_yield"]

FFMA_OPCODE = 0x223                      # FFMA Rd, Ra, Rb, Rc (register operands)
REUSE_MASK = 0xF << 58                   # high word: operand reuse flags
NO_YIELD_BIT = 1 << 45                   # high word: stay on this warp after it


def text_sections(cubin: bytes) -> list[tuple[str, int, int]]:
    """``[(name, offset, size)]`` of a cubin's ``.text.*`` sections (one per kernel or function).

    >>> text_sections(b"\\x7fELF\\x02\\x01" + bytes(58))   # no section table
    []
    """
    if len(cubin) < 64 or cubin[:4] != b"\x7fELF" or cubin[4] != 2 or cubin[5] != 1:
        raise CudaError(f"ffma_yield: not a 64-bit little-endian ELF cubin (its first bytes are {bytes(cubin[:16])!r})")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    if shnum == 0:
        return []
    if shoff + shnum * shentsize > len(cubin) or shstrndx >= shnum or shentsize < 64:
        raise CudaError(f"ffma_yield: the cubin's section table ({shnum} x {shentsize} bytes at {shoff}) "
                        f"does not fit its {len(cubin)} bytes")

    def header(i):
        name, _type, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", cubin, shoff + i * shentsize)
        return name, off, size

    _, stroff, strsize = header(shstrndx)
    out = []
    for i in range(shnum):
        name, off, size = header(i)
        end = cubin.find(b"\0", stroff + name, stroff + strsize)
        label = cubin[stroff + name:end].decode("ascii", "replace")
        if label.startswith(".text.") and size:
            if off + size > len(cubin) or size % 16:
                raise CudaError(f"ffma_yield: section {label} ({size} bytes at {off}) is no whole number "
                                f"of 16-byte instructions inside the cubin")
            out.append((label, off, size))
    return out


def ffma_yield(cubin: bytes, allow: bool = True) -> bytes:
    """The cubin with its register FFMAs' yield hints changed.

    ``allow=True``: every FFMA that carried operand reuse flags is left yieldable (its reuse flags
    and no-yield flag cleared); ``allow=False``: every FFMA gets the no-yield flag (its reuse flags
    kept), so a run of FFMAs holds its sub-partition's issue slot. Returns a new cubin of the same
    size; every other byte is unchanged. Raises :class:`~fastswz.errors.CudaError` for bytes that
    are not a 64-bit ELF cubin.

    >>> lo, hi = FFMA_OPCODE | 0x7000, (1 << 59) | NO_YIELD_BIT | (1 << 41)
    >>> hi2 = struct.unpack_from("<Q", _one_kernel(lo, hi, ffma_yield), 8)[0]
    >>> hex(hi2)   # the stall count (bit 41) stays
    '0x20000000000'
    >>> hex(struct.unpack_from("<Q", _one_kernel(lo, 1 << 41, lambda c: ffma_yield(c, allow=False)), 8)[0])
    '0x220000000000'
    """
    out = bytearray(cubin)
    for _name, off, size in text_sections(cubin):
        for p in range(off, off + size, 16):
            lo, hi = struct.unpack_from("<QQ", out, p)
            if lo & 0xFFF != FFMA_OPCODE:
                continue
            if allow and hi & REUSE_MASK:
                struct.pack_into("<Q", out, p + 8, hi & ~(REUSE_MASK | NO_YIELD_BIT))
            elif not allow:
                struct.pack_into("<Q", out, p + 8, hi | NO_YIELD_BIT)
    return bytes(out)


def _one_kernel(lo, hi, edit):
    """A minimal ELF holding one ``.text.k`` section of one instruction, edited by ``edit``, with the
    section's bytes returned (the doctest's fixture)."""
    names = b"\0.shstrtab\0.text.k\0"
    text = struct.pack("<QQ", lo, hi)
    shoff = 64 + len(names) + len(text)
    ehdr = bytearray(64)
    ehdr[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", ehdr, 0x28, shoff)
    struct.pack_into("<HHH", ehdr, 0x3A, 64, 3, 1)
    sh = bytes(64)
    sh += struct.pack("<IIQQQQ", 1, 3, 0, 0, 64, len(names)) + bytes(24)
    sh += struct.pack("<IIQQQQ", 11, 1, 6, 0, 64 + len(names), len(text)) + bytes(24)
    edited = edit(bytes(ehdr) + names + text + sh)
    return edited[64 + len(names):64 + len(names) + 16]
