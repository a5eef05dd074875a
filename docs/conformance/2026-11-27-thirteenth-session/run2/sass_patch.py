"""The cubin patches timed in runs 2 and 3 (not kept): control bits of the FFMA (opcode 0x223) or
FADD (0x221) instructions of a cubin's .text sections. Bit 45 of an instruction's high word is the
yield flag (0: yield), bits 58-61 the operand reuse flags.
    python sass_patch.py MODE IN.cubin OUT.cubin
MODE: reuse (run 2: on FFMAs that reuse an operand, yield and drop the reuse), all (run 2: every
FFMA yields, no reuse), fadd (run 2: every FADD likewise), noyield (run 3: no FFMA yields),
reuseb (run 3: an FFMA followed by one reading the same B register keeps it in the reuse cache).
"""
import struct
import sys

YIELD, REUSE, REUSE_B = 1 << 45, 0xF << 58, 1 << 59


def sections(b):
    """(name, offset, size) of the ELF64 file's sections."""
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    hdr = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    names = hdr[shstrndx][4]
    return [(b[names + h[0]:b.index(b"\0", names + h[0])].decode(), h[4], h[5]) for h in hdr]


def rewrite(b, mode):
    """The patched cubin and how many instructions changed."""
    b, n = bytearray(b), 0
    for name, off, size in sections(b):
        if not name.startswith(".text."):
            continue
        ins = [list(struct.unpack_from("<QQ", b, i)) for i in range(off, off + size, 16)]
        for j, (lo, hi) in enumerate(ins):
            op = lo & 0xFFF
            new = hi
            if mode == "fadd" and op == 0x221 or mode == "all" and op == 0x223:
                new = hi & ~(REUSE | YIELD)
            elif mode == "reuse" and op == 0x223 and hi & REUSE and hi & YIELD:
                new = hi & ~(REUSE | YIELD)
            elif mode == "noyield" and op == 0x223:
                new = hi | YIELD
            elif mode == "reuseb" and op == 0x223 and j + 1 < len(ins):
                lo2 = ins[j + 1][0]
                rb, dst = (lo >> 32) & 0xFF, (lo >> 16) & 0xFF
                if (lo2 & 0xFFF == 0x223 and (lo2 >> 32) & 0xFF == rb and dst != rb and rb != 0xFF
                        and (lo >> 12) & 0xF == 7 and (lo2 >> 12) & 0xF == 7):   # unpredicated pair
                    new = hi | REUSE_B | YIELD
            n += new != hi
            ins[j][1] = new
        for j, (lo, hi) in enumerate(ins):
            struct.pack_into("<QQ", b, off + 16 * j, lo, hi)
    return bytes(b), n


if __name__ == "__main__":
    mode, src, dst = sys.argv[1:4]
    out, changed = rewrite(open(src, "rb").read(), mode)
    open(dst, "wb").write(out)
    print(f"{changed} instructions changed")
