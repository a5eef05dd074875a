# Experiment (not kept unless it pays): in runs of >= 16 register FFMAs of a cubin's kernel text,
# the first 9/16 of the run with a reuse flag lose it and may yield (control bits of sm_90 SASS:
# the high word's bit 45 set = no yield, bits 58-61 the operand reuse flags; ptxas pairs them).
import struct

FFMA_RRR = 0x223   # low 12 bits of the low word (nvdisasm: FFMA Rd, Ra, Rb, Rc)
YIELD = 1 << 45
REUSE = 0xF << 58


def _text_sections(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    strtab = secs[shstrndx]
    for s in secs:
        name = elf[strtab[4] + s[0]:elf.index(b"\0", strtab[4] + s[0])].decode()
        if name.startswith(".text."):
            yield name, s[4], s[5]   # offset, size


def patch(cubin, share=9 / 16, min_run=16):
    elf = bytearray(cubin)
    changed = 0
    for _, off, size in _text_sections(elf):
        n = size // 16
        i = 0
        while i < n:
            j = i
            while j < n and struct.unpack_from("<Q", elf, off + 16 * j)[0] & 0xFFF == FFMA_RRR:
                j += 1
            if j - i >= min_run:
                for t in range(i, i + int((j - i) * share)):
                    hi, = struct.unpack_from("<Q", elf, off + 16 * t + 8)
                    if hi & REUSE and hi & YIELD:
                        struct.pack_into("<Q", elf, off + 16 * t + 8, hi & ~REUSE & ~YIELD)
                        changed += 1
            i = max(j, i + 1)
    return bytes(elf), changed
