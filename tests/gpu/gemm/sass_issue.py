#!/usr/bin/env python3
"""How long one warp takes to issue a plan's epilogue, from its SASS alone (no GPU needed).

    python3 tests/gpu/gemm/sass_issue.py '{"a_dtype": "e4m3", "b_dtype": "e4m3", "bm": 128, ...}' [...]

Per plan: NVRTC compiles the kernel (``fastswz.cuda.codegen``), ``cuobjdump -sass`` disassembles it
(``$CUOBJDUMP``, else ``cuobjdump`` on the PATH; the ``nvidia-cuda-cuobjdump`` wheel ships one), and
the instructions from the consumers' last ``WARPGROUP.DEPBAR.LE gsb0, 0x0`` (the main loop's
final wgmma wait) to the end are replayed in order by one warp that issues one instruction per
cycle and waits for its operands: fixed-latency results after ``LATENCY_DEFAULT`` cycles, MUFU,
shared and global loads after the latencies below (round numbers, not measured). It prints the
instruction count, the estimated cycles and the instructions most waited on.

What it is for: comparing variants of the epilogue code before spending GPU time. On an H100 it
tracked the measured epilogue of the cooperative 128 x 256 fused bias + GELU + e4m3 + amax plan
(``tests/gpu/gemm/trace.py``): 21.2 thousand cycles estimated against 22.3 thousand measured
before the column operands moved to shared memory. It models one warp alone: with two consumer
warps per SM sub-partition the measured time is longer (15.4 thousand against 11.9 thousand
estimated after the move), because the two compete for issue.
"""
from __future__ import annotations

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

LATENCY_DEFAULT = 5
LATENCY = {"MUFU": 20, "LDS": 30, "LDG": 300, "LDC": 20, "S2R": 20, "R2UR": 3}
NO_DEST = ("ST", "BAR", "SYNCS", "RED", "ATOM", "FENCE", "UTMA", "UBLKCP")


def latency(op):
    return next((v for k, v in LATENCY.items() if op.startswith(k)), LATENCY_DEFAULT)


def sass(cfg):
    """The kernel's SASS instructions (text, one per entry) for configuration ``cfg``."""
    from cuda.bindings import nvrtc

    from fastswz.cuda import codegen

    src = codegen.inline_sources(codegen.kernel_sources(cfg)).encode()
    _, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    opts = [b"--gpu-architecture=sm_90a", b"-std=c++17", b"-default-device"]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(f"NVRTC failed for {cfg}: {err}")
    _, n = nvrtc.nvrtcGetCUBINSize(prog)
    buf = b" " * n
    nvrtc.nvrtcGetCUBIN(prog, buf)
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not tool:
        raise SystemExit("cuobjdump not found: set CUOBJDUMP or pip install nvidia-cuda-cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(buf)
        f.flush()
        out = subprocess.run([tool, "-sass", f.name], capture_output=True, text=True, check=True).stdout
    # the GEMM kernel's function only (the split-K reduction may follow it)
    body = out.split("Function : fastswz_gemm_sm90", 1)[-1].split("Function :", 1)[0]
    return [m.group(1).strip() for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", body)]


def replay(ins):
    """(instructions, cycles, waits by producing opcode) of one warp issuing ``ins`` in order."""
    start = max(i for i, x in enumerate(ins) if "WARPGROUP.DEPBAR.LE gsb0, 0x0" in x)
    ready, producer, t, n = {}, {}, 0, 0
    waits = collections.Counter()
    for x in ins[start:]:
        xx = re.sub(r"^@!?U?P\w+\s+", "", x)
        op = xx.split()[0]
        if op == "EXIT":
            break
        if op in ("BRA", "BAR.SYNC.DEFER_BLOCKING", "NOP"):
            continue
        regs = re.findall(r"\bU?R\d+\b|\bU?P\d\b", xx)
        dst = regs[0] if regs and not op.startswith(NO_DEST) else None
        srcs = regs[1:] if dst else regs
        late = max(srcs, key=lambda r: ready.get(r, 0), default=None)
        wait = max(0, ready.get(late, 0) - t) if late else 0
        if wait:
            waits[producer.get(late, "?")] += wait
        t += wait + 1
        n += 1
        if dst:
            ready[dst], producer[dst] = t - 1 + latency(op), op
    return n, t, waits


def main(argv):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src"))   # the checkout's fastswz
    if not argv:
        print(__doc__)
        return 2
    for text in argv:
        cfg = json.loads(text)
        n, t, waits = replay(sass(cfg))
        print(f"{json.dumps(cfg)}\n   epilogue: {n} instructions, about {t} cycles for one warp "
              f"({n / t:.2f} per cycle); most waited on: "
              + ", ".join(f"{op} {c}" for op, c in waits.most_common(5)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
