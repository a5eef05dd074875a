#!/usr/bin/env bash
# A fresh install on the GPU machine, which reaches no package index: a venv that sees the
# machine's own numpy, cuda-core and cuda-bindings (system site packages), fastswz built there
# from the sdist given, then `fastswz gemm` and `fastswz.cuda.gemm` run from outside any source
# tree with an empty cubin cache (NVRTC compiles on the spot).
# Usage: bash tests/gpu/gemm/fresh_install.sh dist/fastswz-X.tar.gz
set -euo pipefail
sdist=$(readlink -f "$1")
work=$(mktemp -d)
cd "$work"
python3 -m venv --system-site-packages venv
. venv/bin/activate
pip install -q --no-index --no-build-isolation "$sdist" 2>&1 | tail -3
python - <<'PY'
import importlib.metadata as md, fastswz
print("fastswz", fastswz.__version__, "from", fastswz.__file__)
try:
    from packaging.requirements import Requirement
except ImportError:  # the requirement strings themselves are still worth printing
    Requirement = None
for req in md.requires("fastswz") or []:
    if "extra" not in req or "cuda" not in req:
        continue
    if Requirement is None:
        print("extra cuda:", req)
        continue
    r = Requirement(req)
    try:
        v = md.version(r.name)
        ok = "satisfied" if r.specifier.contains(v, prereleases=True) else "NOT satisfied"
        print(f"extra cuda: {r} -> installed {v}, {ok}")
    except md.PackageNotFoundError:
        print(f"extra cuda: {r} -> not installed as a package")
PY
export FASTSWZ_CACHE="$work/cache"
fastswz gemm --m 4096 --n 14336 --k 4096 --check
fastswz gemm --m 2048 --n 2048 --k 2048 --a-dtype e4m3 --check
python - <<'PY'
import torch, fastswz.cuda as fc
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.randn(14336, 4096, device="cuda", dtype=torch.bfloat16)
d = fc.gemm(a, w.t())
ref = a.double() @ w.double().t()
print("fastswz.cuda.gemm:", tuple(d.shape), d.dtype, "relative error %.2e" % ((d.double() - ref).norm() / ref.norm()).item())
PY
ls "$FASTSWZ_CACHE"/cubin | wc -l | sed 's/^/cubins compiled here: /'
