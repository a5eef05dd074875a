#!/usr/bin/env bash
# A fresh install on the GPU machine, which reaches no package index: a venv that sees the
# machine's own numpy, cuda-core, cuda-bindings and torch, fastswz built there
# from the sdist given, then `fastswz gemm` and `fastswz.cuda.gemm` run from outside any source
# tree with an empty cubin cache (NVRTC compiles on the spot).
# Usage: bash tests/gpu/gemm/fresh_install.sh dist/fastswz-X.tar.gz   (build wheels, if any, in dist/wheels)
set -euo pipefail
sdist=$(readlink -f "$1")
work=$(mktemp -d)
cd "$work"
# The machine's python3 may itself be a venv (the H100 machine's is /opt/torch/.venv), whose
# packages a new venv's system site packages leave out: a .pth file appends that interpreter's
# package folders after the new venv's own, so the fastswz installed here is the one imported.
machine_paths=$(python3 -c "import sys; print('\n'.join(p for p in sys.path if p.endswith(('site-packages', 'dist-packages'))))")
python3 -m venv --system-site-packages venv
. venv/bin/activate
printf '%s\n' "$machine_paths" > "$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/machine-packages.pth"
echo "machine package folders:" $machine_paths
python - <<'PY'
import importlib.metadata as md, sys
def version(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "(no package metadata)"
print("python", sys.version.split()[0], *(f"{n} {version(n)}" for n in ("pip", "setuptools", "Cython", "numpy")))
PY
# No index to fetch the build requirements from: pip takes them (setuptools, Cython) from a wheels/
# folder beside the sdist when there is one, building in isolation as a user's pip does; otherwise
# it builds with the machine's own setuptools and Cython.
wheels="$(dirname "$sdist")/wheels"
if [ -d "$wheels" ]; then
  pip install --no-index --find-links "$wheels" "$sdist"
else
  pip install --no-index --no-build-isolation "$sdist"
fi
python - <<'PY'
import importlib.metadata as md, fastswz
print("fastswz", fastswz.__version__, "from", fastswz.__file__)
try:
    from packaging.requirements import Requirement
except ImportError:  # the requirement strings themselves are still worth printing
    Requirement = None
for req in md.requires("fastswz") or []:
    if 'extra == "cuda"' not in req:  # the marker as the wheel's metadata writes it
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
err = ((d.double() - ref).norm() / ref.norm()).item()
print("fastswz.cuda.gemm:", tuple(d.shape), d.dtype, "relative error %.2e" % err)
# the bf16 bound of check.py and final_cli.sh: the script fails on a wrong product, as the CLI
# checks above do (their exit status 1 stops it under set -e)
if d.shape != (4096, 14336) or d.dtype != torch.bfloat16 or not err < 1e-2:
    raise SystemExit("fastswz.cuda.gemm: WRONG")
PY
ls "$FASTSWZ_CACHE"/cubin | wc -l | sed 's/^/cubins compiled here: /'
