"""Build the host-compiled CuTe peer of the benchmark suite into a cached shared library.

``python tools/cute_peer/build.py`` builds (or finds) it and prints its path. The library is
compiled from ``cute_peer.cpp`` against the CuTe headers of the installed ``nvidia-cutlass``
wheel (``cutlass_library/source/include``) and the CUDA runtime headers CuTe's config includes
(``$CUDA_HOME/include``, default /usr/local/cuda); nothing from CUTLASS is vendored here. Flags:
``$CXX`` (default g++) ``-O3 -std=c++17 -shared -fPIC``, the same optimisation level as
fastswz's Cython build (no ``-march``). The cache key hashes the source, the flags, the include
directories and the compiler's version; the library lands in ``tools/cute_peer/build/``.
``build()`` raises :class:`Unavailable` with the reason when the headers or compiler are absent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "cute_peer.cpp"
FLAGS = ["-O3", "-std=c++17", "-shared", "-fPIC", "-w"]


class Unavailable(RuntimeError):
    """The peer cannot be built here (no headers or no compiler)."""


def cutlass_include() -> Path:
    try:
        import cutlass_library
    except ImportError:
        raise Unavailable("nvidia-cutlass is not installed (pip install --no-deps "
                          "nvidia-cutlass) so the CuTe headers are absent") from None
    inc = Path(cutlass_library.__file__).resolve().parent / "source" / "include"
    if not (inc / "cute" / "layout.hpp").is_file():
        raise Unavailable(f"no CuTe headers under {inc}")
    return inc


def cuda_include() -> list[Path]:
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "include" / "cuda_runtime_api.h").is_file():
            return [Path(root) / "include", Path(root) / "include" / "cccl"]
    raise Unavailable("cuda_runtime_api.h not found (CuTe's config.hpp includes it); set CUDA_HOME")


def build() -> Path:
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        raise Unavailable(f"C++ compiler {cxx!r} not found")
    incs = [cutlass_include(), *cuda_include()]
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    key = hashlib.sha256("\0".join([SRC.read_text(), cxx, version, *FLAGS, *map(str, incs)])
                         .encode()).hexdigest()[:16]
    out = HERE / "build" / f"cute_peer-{key}.so"
    if out.is_file():
        return out
    out.parent.mkdir(exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    cmd = [cxx, *FLAGS, *(f"-I{p}" for p in incs), str(SRC), "-o", str(tmp)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unavailable(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    os.replace(tmp, out)  # atomic: concurrent builders never see a half-written library
    return out


if __name__ == "__main__":
    try:
        print(build())
    except Unavailable as exc:
        print(f"unavailable: {exc}", file=sys.stderr)
        sys.exit(1)
